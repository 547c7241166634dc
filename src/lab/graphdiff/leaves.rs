//! Leaf differences between two JSON texts, found by a structural walk: equal slices are
//! skipped without parsing (two artifacts written by the same serialiser repeat unchanged
//! values byte for byte), and only differing scalars are parsed to compare them as values
//! (so an indented and a compact file compare equal where their values are).

use serde_json::Value;

use crate::model::load::pointer_escape;
use crate::model::scan::Scan;

/// One differing leaf: its JSON pointer and the two values (`None`: absent on that side).
#[derive(Debug, Clone, PartialEq)]
pub struct Leaf {
    pub pointer: String,
    pub old: Option<Value>,
    pub new: Option<Value>,
}

/// The leaves found, the first `keep` of them kept with their values; a text walk stops
/// at `limit` leaves (then [`Leaves::complete`] is false and `count` is a lower bound).
#[derive(Debug, Clone, Default)]
pub struct Leaves {
    pub kept: Vec<Leaf>,
    pub count: usize,
    keep: usize,
    limit: usize,
}

impl Leaves {
    /// Keeps `keep` leaves and counts them all.
    pub fn keeping(keep: usize) -> Leaves {
        Leaves::bounded(keep, usize::MAX)
    }

    /// Keeps `keep` leaves; a text walk stops after `limit`.
    pub fn bounded(keep: usize, limit: usize) -> Leaves {
        Leaves {
            kept: Vec::new(),
            count: 0,
            keep,
            limit,
        }
    }

    /// Every differing leaf was counted (the walk did not stop at the limit).
    pub fn complete(&self) -> bool {
        self.count < self.limit
    }

    /// Records one leaf; false when the walk should stop.
    fn push(&mut self, pointer: &str, old: Option<Value>, new: Option<Value>) -> bool {
        self.count += 1;
        if self.kept.len() < self.keep {
            self.kept.push(Leaf {
                pointer: pointer.to_string(),
                old,
                new,
            });
        }
        self.count < self.limit
    }
}

/// Adds the leaves in which `new` differs from `old` (both valid JSON texts) to `out`,
/// with pointers under `base`, stopping at the limit.
pub fn diff_texts(old: &str, new: &str, base: &str, out: &mut Leaves) {
    let mut ptr = base.to_string();
    walk(old.trim(), new.trim(), &mut ptr, out);
}

/// [`diff_texts`] of two objects that also returns every top-level key whose value differs
/// (in the old object's order, then keys only the new one has), even past the leaf limit:
/// each such key is confirmed by its first differing leaf.
pub fn diff_objects(old: &str, new: &str, base: &str, out: &mut Leaves) -> Vec<String> {
    let (Some((ma, _)), Some((mb, _))) = (
        Scan::new(old.trim()).members(0),
        Scan::new(new.trim()).members(0),
    ) else {
        diff_texts(old, new, base, out);
        return Vec::new();
    };
    let mut keys = Vec::new();
    let mut ptr = base.to_string();
    for m in &ma {
        push_key(&mut ptr, m.raw_key);
        let differs = match mb.iter().find(|n| n.raw_key == m.raw_key) {
            Some(n) if n.value == m.value => false,
            Some(n) => {
                let before = out.count;
                if out.complete() {
                    walk(m.value, n.value, &mut ptr, out);
                }
                out.count > before || {
                    let mut one = Leaves::bounded(0, 1);
                    walk(m.value, n.value, &mut ptr, &mut one);
                    one.count > 0
                }
            }
            None => {
                if out.complete() {
                    out.push(&ptr, Some(parse(m.value)), None);
                }
                true
            }
        };
        if differs {
            keys.push(key_text(m.raw_key));
        }
        ptr.truncate(base.len());
    }
    for n in &mb {
        if !ma.iter().any(|m| m.raw_key == n.raw_key) {
            push_key(&mut ptr, n.raw_key);
            if out.complete() {
                out.push(&ptr, None, Some(parse(n.value)));
            }
            keys.push(key_text(n.raw_key));
            ptr.truncate(base.len());
        }
    }
    keys
}

/// The differing leaves of two parsed values (for values already in memory).
pub fn diff_values(old: &Value, new: &Value, base: &str, out: &mut Leaves) {
    match (old, new) {
        _ if old == new => {}
        (Value::Object(a), Value::Object(b)) => {
            for (k, va) in a {
                let p = format!("{base}/{}", pointer_escape(k));
                match b.get(k) {
                    Some(vb) => diff_values(va, vb, &p, out),
                    None => {
                        out.push(&p, Some(va.clone()), None);
                    }
                }
            }
            for (k, vb) in b {
                if !a.contains_key(k) {
                    out.push(
                        &format!("{base}/{}", pointer_escape(k)),
                        None,
                        Some(vb.clone()),
                    );
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for i in 0..a.len().max(b.len()) {
                let p = format!("{base}/{i}");
                match (a.get(i), b.get(i)) {
                    (Some(x), Some(y)) => diff_values(x, y, &p, out),
                    (x, y) => {
                        out.push(&p, x.cloned(), y.cloned());
                    }
                }
            }
        }
        _ => {
            out.push(base, Some(old.clone()), Some(new.clone()));
        }
    }
}

/// Walks two values in step; false when the leaf limit stopped it.
fn walk(a: &str, b: &str, ptr: &mut String, out: &mut Leaves) -> bool {
    if a == b {
        return true;
    }
    match (a.as_bytes().first(), b.as_bytes().first()) {
        (Some(b'{'), Some(b'{')) => {
            let (Some((ma, _)), Some((mb, _))) = (Scan::new(a).members(0), Scan::new(b).members(0))
            else {
                return leaf(a, b, ptr, out);
            };
            let len = ptr.len();
            for m in &ma {
                push_key(ptr, m.raw_key);
                let go = match mb.iter().find(|x| x.raw_key == m.raw_key) {
                    Some(n) => walk(m.value, n.value, ptr, out),
                    None => out.push(ptr, Some(parse(m.value)), None),
                };
                ptr.truncate(len);
                if !go {
                    return false;
                }
            }
            for n in &mb {
                if !ma.iter().any(|m| m.raw_key == n.raw_key) {
                    push_key(ptr, n.raw_key);
                    let go = out.push(ptr, None, Some(parse(n.value)));
                    ptr.truncate(len);
                    if !go {
                        return false;
                    }
                }
            }
            true
        }
        (Some(b'['), Some(b'[')) => {
            let (Some(ea), Some(eb)) = (elements(a), elements(b)) else {
                return leaf(a, b, ptr, out);
            };
            let len = ptr.len();
            for i in 0..ea.len().max(eb.len()) {
                ptr.push('/');
                ptr.push_str(&i.to_string());
                let go = match (ea.get(i), eb.get(i)) {
                    (Some(x), Some(y)) => walk(x, y, ptr, out),
                    (x, y) => out.push(ptr, x.map(|t| parse(t)), y.map(|t| parse(t))),
                };
                ptr.truncate(len);
                if !go {
                    return false;
                }
            }
            true
        }
        _ => leaf(a, b, ptr, out),
    }
}

/// Two scalars (or values of different kinds): a change unless they parse equal.
fn leaf(a: &str, b: &str, ptr: &str, out: &mut Leaves) -> bool {
    let (va, vb) = (parse(a), parse(b));
    if va != vb {
        return out.push(ptr, Some(va), Some(vb));
    }
    true
}

fn key_text(raw_key: &str) -> String {
    if raw_key.contains('\\') {
        serde_json::from_str(&format!("\"{raw_key}\"")).unwrap_or_default()
    } else {
        raw_key.to_string()
    }
}

fn push_key(ptr: &mut String, raw_key: &str) {
    ptr.push('/');
    ptr.push_str(&pointer_escape(&key_text(raw_key)));
}

fn parse(t: &str) -> Value {
    serde_json::from_str(t).unwrap_or(Value::Null)
}

/// The element slices of the array `t`.
fn elements(t: &str) -> Option<Vec<&str>> {
    let scan = Scan::new(t);
    let mut out = Vec::new();
    scan.each_element_checked(0, |i| {
        let end = scan.skip_value(i)?;
        out.push(&t[i..end]);
        Some(end)
    })?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaves(a: &str, b: &str) -> Vec<(String, Option<Value>, Option<Value>)> {
        let mut out = Leaves::keeping(100);
        diff_texts(a, b, "/metadata", &mut out);
        out.kept
            .into_iter()
            .map(|l| (l.pointer, l.old, l.new))
            .collect()
    }

    #[test]
    fn finds_changed_added_and_removed_leaves() {
        let a =
            r#"{"source_url": "a.json", "x": {"k": [1, 2, 3]}, "gone": true, "same": {"q": 1}}"#;
        let b =
            r#"{"source_url": "b.json", "x": {"k": [1, 5]}, "same": {"q": 1}, "new/key": null}"#;
        assert_eq!(
            leaves(a, b),
            vec![
                (
                    "/metadata/source_url".into(),
                    Some("a.json".into()),
                    Some("b.json".into())
                ),
                ("/metadata/x/k/1".into(), Some(2.into()), Some(5.into())),
                ("/metadata/x/k/2".into(), Some(3.into()), None),
                ("/metadata/gone".into(), Some(true.into()), None),
                ("/metadata/new~1key".into(), None, Some(Value::Null)),
            ]
        );
    }

    #[test]
    fn formatting_is_not_a_change() {
        let a = "{\n  \"a\": [\n    1.5,\n    \"x\"\n  ],\n  \"b\": {}\n}";
        let b = r#"{"a":[1.5,"x"],"b":{}}"#;
        assert!(leaves(a, b).is_empty());
        let mut v = Leaves::keeping(0);
        diff_texts(a, r#"{"a":[1.5,"y"],"b":{}}"#, "", &mut v);
        assert_eq!((v.count, v.kept.len()), (1, 0));
    }

    #[test]
    fn a_bounded_walk_stops_but_still_names_every_differing_key() {
        let a = r#"{"s": [1, 2, 3, 4], "t": {"x": 1}, "u": 0, "same": 5}"#;
        let b = r#"{"s": [5, 6, 7, 8], "t": {"x": 2}, "same": 5, "v": 1}"#;
        let mut out = Leaves::bounded(10, 2);
        let keys = diff_objects(a, b, "/m", &mut out);
        assert_eq!(keys, ["s", "t", "u", "v"]);
        assert_eq!(out.count, 2);
        assert!(!out.complete());
        let mut all = Leaves::bounded(10, 100);
        assert_eq!(diff_objects(a, b, "/m", &mut all).len(), 4);
        assert_eq!(all.count, 7);
        assert!(all.complete());
    }

    #[test]
    fn values_diff_like_texts() {
        let a: Value = serde_json::from_str(r#"{"s": 1, "l": [1, {"t": 2}]}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"s": 2, "l": [1, {"t": 3}, 4]}"#).unwrap();
        let mut out = Leaves::keeping(10);
        diff_values(&a, &b, "", &mut out);
        let ptrs: Vec<_> = out.kept.iter().map(|l| l.pointer.as_str()).collect();
        assert_eq!(ptrs, ["/s", "/l/1/t", "/l/2"]);
    }
}
