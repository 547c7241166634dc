//! Frozen subtrees: parts of a tool's metadata that no later build phase reads (field rows,
//! resolved schemas, examples, response rows) are kept as their compact JSON text instead of
//! a tree of maps — a tenth of the memory and no per-node allocations. They still serialise
//! exactly as the tree would (pretty or compact) and still report their `$ref` strings.
//!
//! A frozen subtree is a `Value::String` that starts with [`mark`] (two control characters
//! and a number drawn when the process starts, so no spec text can start with it),
//! then the length of a JSON array of the subtree's
//! `$ref` strings in walk order, `\u{1}`, that array (empty when there are none), and the
//! subtree's compact JSON.

use serde_json::{Map, Value};

use super::artifact::{write_compact, write_pretty_indent};

/// The start of every frozen subtree's text: `\0\x01`, 16 hex digits drawn from the OS's
/// randomness when the process starts, and `\x01`. Specs are untrusted and a spec string
/// may hold any characters, a fixed tag included; it cannot hold a number it never saw, so
/// no input string is ever taken for a frozen subtree (whose text is written into the
/// artifact as JSON, unescaped).
pub fn mark() -> &'static str {
    static MARK: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    MARK.get_or_init(|| {
        use std::hash::{BuildHasher, Hasher};
        // std seeds its hash keys from the OS's random source (getrandom on Linux)
        let n = std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish();
        format!("\u{0}\u{1}{n:016x}\u{1}")
    })
}

/// Replaces a non-empty container by its frozen form.
pub fn freeze(v: Value) -> Value {
    if !has_items(&v) {
        return v;
    }
    frozen_text(&v)
}

/// A non-empty object or array (what is worth freezing).
fn has_items(v: &Value) -> bool {
    match v {
        Value::Object(m) => !m.is_empty(),
        Value::Array(a) => !a.is_empty(),
        _ => false,
    }
}

/// The frozen form of a borrowed value: what `freeze(v.clone())` gives, without copying
/// the tree first.
pub fn freeze_ref(v: &Value) -> Value {
    if !has_items(v) {
        return v.clone();
    }
    frozen_text(v)
}

fn frozen_text(v: &Value) -> Value {
    written(|out, refs| write_compact_refs(out, v, refs))
}

/// Appends `v`'s compact JSON (as [`write_compact`] writes it) and its `$ref` strings in
/// the order `collect_refs` finds them: an object's own `$ref` first, then those under
/// each member in turn; a frozen subtree contributes the ones it carries.
pub fn write_compact_refs(out: &mut String, v: &Value, refs: &mut Vec<String>) {
    match v {
        Value::String(s) => match thaw(s) {
            Some((r, body)) => {
                if !r.is_empty()
                    && let Ok(list) = serde_json::from_str::<Vec<String>>(r)
                {
                    refs.extend(list);
                }
                out.push_str(body);
            }
            None => crate::jsonout::write_escaped(out, s),
        },
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_compact_refs(out, x, refs);
            }
            out.push(']');
        }
        Value::Object(m) => {
            refs.extend(own_ref(m.iter().map(|(k, x)| (k.as_str(), x))));
            out.push('{');
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                crate::jsonout::write_escaped(out, k);
                out.push(':');
                write_compact_refs(out, x, refs);
            }
            out.push('}');
        }
        other => write_compact(out, other),
    }
}

/// The `$ref` string among an object's members, if it has one.
pub fn own_ref<'v>(mut members: impl Iterator<Item = (&'v str, &'v Value)>) -> Option<String> {
    members.find_map(|(k, x)| match x {
        Value::String(s) if k == "$ref" => Some(s.clone()),
        _ => None,
    })
}

thread_local! {
    /// The text of the subtree being frozen, reused: the frozen string is then allocated
    /// once at its final size instead of growing by doubling.
    static SCRATCH: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// A frozen subtree from the compact JSON `write` appends and the `$ref`s it collects.
pub fn written(write: impl FnOnce(&mut String, &mut Vec<String>)) -> Value {
    let mut buf = SCRATCH.with(|s| s.take());
    buf.clear();
    let mut found = Vec::new();
    write(&mut buf, &mut found);
    let v = from_parts(&found, &buf);
    SCRATCH.with(|s| s.replace(buf));
    v
}

/// The start of a frozen subtree's text: [`mark`], the length of the `$ref` array's JSON,
/// `\u{1}` and that JSON (room for `body` more bytes).
fn header(found: &[String], body: usize) -> String {
    let mut refs_json = String::new();
    if !found.is_empty() {
        refs_json.push('[');
        for (i, r) in found.iter().enumerate() {
            if i > 0 {
                refs_json.push(',');
            }
            crate::jsonout::write_escaped(&mut refs_json, r);
        }
        refs_json.push(']');
    }
    let mark = mark();
    let mut out = String::with_capacity(mark.len() + refs_json.len() + 8 + body);
    out.push_str(mark);
    out.push_str(&refs_json.len().to_string());
    out.push('\u{1}');
    out.push_str(&refs_json);
    out
}

/// Whether a value is a frozen subtree.
pub fn is_frozen(v: &Value) -> bool {
    matches!(v, Value::String(s) if s.starts_with(mark()))
}

/// The `$ref` array text and the compact JSON of a frozen subtree.
pub fn thaw(s: &str) -> Option<(&str, &str)> {
    if s.as_bytes().first() != Some(&0) {
        // not even the mark's first byte: the common case, decided without a comparison
        return None;
    }
    let rest = s.strip_prefix(mark())?;
    let (len, rest) = rest.split_once('\u{1}')?;
    let len: usize = len.parse().ok()?;
    (rest.len() >= len && rest.is_char_boundary(len)).then(|| rest.split_at(len))
}

/// The `$ref` strings of a frozen subtree, in walk order.
pub fn refs_of(s: &str) -> Option<Vec<String>> {
    let (refs, _) = thaw(s)?;
    if refs.is_empty() {
        return Some(Vec::new());
    }
    serde_json::from_str(refs).ok()
}

/// `m.insert(key, value)` on the object a frozen subtree holds: the member is appended to
/// its text (or, when the object already has `key`, replaced in a thawed copy), and the
/// value's `$ref`s join the subtree's. `None` when `s` is not a frozen object.
pub fn insert_member(s: &str, key: &str, value: &Value) -> Option<Value> {
    let (_, body) = thaw(s)?;
    if !body.starts_with('{') {
        return None;
    }
    let mut quoted = String::new();
    crate::jsonout::write_escaped(&mut quoted, key);
    if body.contains(quoted.as_str()) {
        // the key may be there already: insert into a thawed copy
        let Value::Object(mut m) = serde_json::from_str::<Value>(body).ok()? else {
            return None;
        };
        m.insert(key.to_string(), value.clone());
        return Some(freeze(Value::Object(m)));
    }
    let mut found = refs_of(s)?;
    let mut text = String::with_capacity(body.len() + quoted.len() + 64);
    text.push_str(&body[..body.len() - 1]);
    if body != "{}" {
        text.push(',');
    }
    text.push_str(&quoted);
    text.push(':');
    write_compact_refs(&mut text, value, &mut found);
    text.push('}');
    Some(from_parts(&found, &text))
}

/// A frozen subtree from its `$ref`s and compact text.
pub fn from_parts(found: &[String], body: &str) -> Value {
    let mut out = header(found, body.len());
    out.push_str(body);
    Value::String(out)
}

/// Freezes `m[key]` in place when it is a non-empty container.
pub fn freeze_member(m: &mut Map<String, Value>, key: &str) {
    if let Some(v) = m.get_mut(key) {
        *v = freeze(std::mem::take(v));
    }
}

/// Writes the compact JSON `body` (as [`write_compact`] made it) the way
/// `json.dumps(indent=2)` lays it out at indent `level`: the same tokens, with line breaks
/// and indentation around members and `": "` after keys.
pub fn write_pretty_from_compact(out: &mut String, body: &str, level: usize) {
    let b = body.as_bytes();
    let mut depth = level;
    let mut i = 0;
    let mut run = 0; // start of the bytes not yet copied
    while i < b.len() {
        match b[i] {
            b'"' => {
                // to the closing quote: jump between quotes and backslashes (memchr)
                i += 1;
                loop {
                    match memchr::memchr2(b'"', b'\\', &b[i.min(b.len())..]) {
                        Some(o) if b[i + o] == b'"' => {
                            i += o;
                            break;
                        }
                        Some(o) => i += o + 2,
                        None => {
                            i = b.len();
                            break;
                        }
                    }
                }
                i += 1;
            }
            c @ (b'{' | b'[') => {
                let empty = b.get(i + 1) == Some(&if c == b'{' { b'}' } else { b']' });
                if empty {
                    i += 2;
                    continue;
                }
                out.push_str(&body[run..=i]);
                depth += 1;
                write_pretty_indent(out, depth);
                i += 1;
                run = i;
            }
            b'}' | b']' => {
                out.push_str(&body[run..i]);
                depth = depth.saturating_sub(1);
                write_pretty_indent(out, depth);
                run = i;
                i += 1;
            }
            b',' => {
                out.push_str(&body[run..=i]);
                write_pretty_indent(out, depth);
                i += 1;
                run = i;
            }
            b':' => {
                out.push_str(&body[run..i]);
                out.push_str(": ");
                i += 1;
                run = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(&body[run.min(b.len())..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::artifact::{to_compact, to_python_pretty};
    use serde_json::json;

    use crate::ingest::build::collection::collect_refs as collect;

    #[test]
    fn a_string_that_imitates_the_mark_is_a_string() {
        let real = mark();
        assert!(
            real.starts_with("\u{0}\u{1}") && real.len() == 19,
            "{real:?}"
        );
        // the real mark with its first digit changed
        let mut near = real.to_string();
        let other = if &near[2..3] == "0" { "1" } else { "0" };
        near.replace_range(2..3, other);
        for fake in [
            // the fixed mark of earlier versions
            "\u{0}\u{1}toolscope-frozen-json\u{1}0\u{1}{\"a\":1".to_string(),
            "\u{0}\u{1}0000000000000000\u{1}0\u{1}[1]".to_string(),
            format!("{near}0\u{1}[1]"),
        ] {
            assert!(thaw(&fake).is_none(), "{fake:?}");
            let v = Value::String(fake.clone());
            assert!(!is_frozen(&v));
            let mut out = String::new();
            crate::ingest::artifact::write_pretty(&mut out, &v, 0);
            assert_eq!(out, serde_json::to_string(&fake).unwrap());
        }
        // what this process freezes does carry the mark
        assert!(is_frozen(&freeze(serde_json::json!([1]))));
    }

    #[test]
    fn strings_with_escapes_and_punctuation_lay_out_as_the_tree() {
        let tree = json!({
            "a\\\"{": ["x\\", "\"", "\\\"", ",:[]{}", {"k:": "v,\\"}],
            "b": {"": "\\\\", "c": [[], {}, "\u{1b}\u{202e}"]},
            "d": 1.5
        });
        let frozen = freeze_ref(&tree);
        for level in [0, 1, 3] {
            let (mut a, mut b) = (String::new(), String::new());
            crate::ingest::artifact::write_pretty(&mut a, &tree, level);
            crate::ingest::artifact::write_pretty(&mut b, &frozen, level);
            assert_eq!(a, b);
        }
    }

    #[test]
    fn a_member_inserted_into_a_frozen_object_is_as_if_inserted_before_freezing() {
        let add = json!([{"$ref": "#/b"}, {"$ref": "#/c"}]);
        for tree in [
            json!({"type": "object", "properties": {"a": {"$ref": "#/a"}}}),
            json!({}),
            // the key exists: replaced in place
            json!({"__refs__": [1], "x": {"$ref": "#/a"}}),
        ] {
            let frozen = freeze_ref(&tree);
            let frozen = if tree == json!({}) {
                // an empty object is not frozen; freeze its text by hand
                frozen_text(&tree)
            } else {
                frozen
            };
            let got = insert_member(frozen.as_str().unwrap(), "__refs__", &add).unwrap();
            let mut want = tree.clone();
            want.as_object_mut()
                .unwrap()
                .insert("__refs__".into(), add.clone());
            assert_eq!(to_compact(&got), to_compact(&want));
            assert_eq!(to_python_pretty(&got), to_python_pretty(&want));
            let mut refs = Vec::new();
            collect(&want, &mut refs);
            assert_eq!(refs_of(got.as_str().unwrap()).unwrap(), refs);
        }
        // not a frozen object
        assert!(insert_member("plain", "k", &add).is_none());
        let arr = freeze(json!([1, 2]));
        assert!(insert_member(arr.as_str().unwrap(), "k", &add).is_none());
    }

    #[test]
    fn frozen_subtrees_serialise_like_the_tree() {
        let sub = json!({"a": [1, 2.5, {"b": "x,y:{}[]\"\\"}, [], {}], "c": {"$ref": "#/x"},
                         "d": {"e": [[1], {"f": null}]}, "é": -1e-7, "t": true});
        let whole = json!({"k": sub.clone(), "l": [sub.clone(), 3], "m": {}});
        let mut frozen = whole.clone();
        let m = frozen.as_object_mut().unwrap();
        freeze_member(m, "k");
        if let Some(Value::Array(a)) = m.get_mut("l") {
            a[0] = freeze(a[0].take());
        }
        freeze_member(m, "m");
        assert!(frozen["k"].as_str().unwrap().starts_with(mark()));
        assert_eq!(frozen["m"], json!({}));
        assert_eq!(to_python_pretty(&frozen), to_python_pretty(&whole));
        assert_eq!(to_compact(&frozen), to_compact(&whole));
        assert_eq!(refs_of(frozen["k"].as_str().unwrap()).unwrap(), vec!["#/x"]);
        // a frozen subtree inside a frozen subtree
        let twice = freeze(frozen.clone());
        assert_eq!(to_python_pretty(&twice), to_python_pretty(&whole));
        assert_eq!(
            refs_of(twice.as_str().unwrap()).unwrap(),
            vec!["#/x", "#/x"]
        );
    }
}
