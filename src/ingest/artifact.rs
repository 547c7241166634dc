//! Writing JSON exactly as the reference does: `json.dumps(v, indent=2,
//! ensure_ascii=False)` (and a compact form for in-process loading). Floats use Python's
//! `repr`, integers stay integers, key order is the map's insertion order.

use serde_json::Value;

use super::frozen;
use super::schema::ToolSchema;
use crate::jsonout::write_escaped;
use crate::pytext::push_float_repr;

fn number(out: &mut String, n: &serde_json::Number) {
    use std::fmt::Write;
    if n.is_i64() || n.is_u64() {
        let _ = write!(out, "{n}");
    } else {
        push_float_repr(out, n.as_f64().unwrap_or(f64::NAN));
    }
}

/// `json.dumps(v, indent=2, ensure_ascii=False)`.
pub fn to_python_pretty(v: &Value) -> String {
    let mut out = String::with_capacity(1 << 16);
    write_pretty(&mut out, v, 0);
    out
}

/// Writes `json.dumps(v, indent=2, ensure_ascii=False)` to `w` without building the whole
/// text: big containers (the `tools` map, the graph's node and edge lists) are rendered on
/// every core a chunk at a time and written in order; the small objects around them are
/// walked member by member so a big container nested in one (`graph.edges`) streams too.
pub fn write_python_pretty(w: &mut impl std::io::Write, v: &Value) -> std::io::Result<()> {
    let mut buf = String::with_capacity(1 << 20);
    write_streamed(w, &mut buf, v, 0)?;
    w.write_all(buf.as_bytes())
}

/// [`write_python_pretty`] of a collection artifact whose `tools` member was left null by a
/// build that kept its tools ([`crate::ingest::BuildOptions::tools_kept`]): the tools are
/// written in its place, each row rendered on a writing thread straight from the tool
/// ([`write_tool_pretty`]), as `v` with the rows in it would be written.
pub fn write_python_pretty_with_tools(
    w: &mut impl std::io::Write,
    v: &Value,
    tools: &[ToolSchema],
) -> std::io::Result<()> {
    let Value::Object(top) = v else {
        return write_python_pretty(w, v);
    };
    if tools.is_empty() || !top.get("tools").is_some_and(Value::is_null) {
        return write_python_pretty(w, v);
    }
    let mut buf = String::with_capacity(1 << 20);
    write_members(w, &mut buf, top, 0, |w, buf, k, x| {
        if k == "tools" {
            write_windows_of(w, buf, true, tools, 1, |out, t| {
                write_escaped(out, &t.name);
                out.push_str(": ");
                write_tool_pretty(out, t, 2);
            })
        } else {
            write_streamed(w, buf, x, 1)
        }
    })?;
    w.write_all(buf.as_bytes())
}

/// A non-empty object at indent `level`, each member's value written by `value` (at
/// `level + 1`, after its key).
fn write_members<W: std::io::Write>(
    w: &mut W,
    buf: &mut String,
    m: &serde_json::Map<String, Value>,
    level: usize,
    mut value: impl FnMut(&mut W, &mut String, &str, &Value) -> std::io::Result<()>,
) -> std::io::Result<()> {
    buf.push('{');
    for (i, (k, x)) in m.iter().enumerate() {
        if i > 0 {
            buf.push(',');
        }
        indent(buf, level + 1);
        write_escaped(buf, k);
        buf.push_str(": ");
        value(w, buf, k, x)?;
    }
    indent(buf, level);
    buf.push('}');
    Ok(())
}

/// A tool's row as [`write_pretty`] writes [`ToolSchema::into_json`]'s value at indent
/// `level`, from the tool as it is (its metadata is not moved or copied).
pub fn write_tool_pretty(out: &mut String, t: &ToolSchema, level: usize) {
    let (head, tail) = t.row_parts();
    let key = |out: &mut String, first: bool, k: &str| {
        out.push_str(if first { "{" } else { "," });
        indent(out, level + 1);
        write_escaped(out, k);
        out.push_str(": ");
    };
    for (i, (k, v)) in head.iter().enumerate() {
        key(out, i == 0, k);
        write_pretty(out, v, level + 1);
    }
    key(out, false, "metadata");
    write_pretty_object(
        out,
        t.metadata.iter().map(|(k, x)| (k.as_str(), x)),
        level + 1,
    );
    for (k, v) in &tail {
        key(out, false, k);
        write_pretty(out, v, level + 1);
    }
    indent(out, level);
    out.push('}');
}

/// Containers of at least this many members are rendered in parallel windows.
const PARALLEL_FROM: usize = 256;
/// Small objects are walked (not rendered whole) down to this indent level.
const STREAM_DEPTH: usize = 2;

/// A value at indent `level`, appended to `buf` or, for a big container, streamed to `w`.
fn write_streamed(
    w: &mut impl std::io::Write,
    buf: &mut String,
    x: &Value,
    level: usize,
) -> std::io::Result<()> {
    let members: Vec<(Option<&String>, &Value)> = match x {
        Value::Object(m) if m.len() >= PARALLEL_FROM => {
            m.iter().map(|(k, v)| (Some(k), v)).collect()
        }
        Value::Array(a) if a.len() >= PARALLEL_FROM => a.iter().map(|v| (None, v)).collect(),
        Value::Object(m) if !m.is_empty() && level < STREAM_DEPTH => {
            return write_members(w, buf, m, level, |w, buf, _, v| {
                write_streamed(w, buf, v, level + 1)
            });
        }
        _ => {
            write_pretty(buf, x, level);
            return Ok(());
        }
    };
    write_windows(w, buf, x.is_object(), &members, level)
}

/// Text a rendering thread makes at a time: one chunk of a big container's members.
const CHUNK_BYTES: usize = 1 << 20;
/// Chunks rendered ahead of the writer, per thread (memory: about this many chunks each).
const AHEAD_PER_THREAD: usize = 3;
/// Members rendered on the calling thread first, to size the chunks.
const PROBE: usize = 16;

/// A big container's members, rendered on every core a chunk of about [`CHUNK_BYTES`] at
/// a time and written in order as the chunks come ([`crate::par::stream`]: a bounded
/// number of reused buffers, however big the container).
fn write_windows(
    w: &mut impl std::io::Write,
    buf: &mut String,
    object: bool,
    members: &[(Option<&String>, &Value)],
    level: usize,
) -> std::io::Result<()> {
    write_windows_of(w, buf, object, members, level, |out, (k, v)| {
        if let Some(k) = k {
            write_escaped(out, k);
            out.push_str(": ");
        }
        write_pretty(out, v, level + 1);
    })
}

/// [`write_windows`] for any members: `write` appends one member (after its indentation).
fn write_windows_of<T: Sync>(
    w: &mut impl std::io::Write,
    buf: &mut String,
    object: bool,
    members: &[T],
    level: usize,
    write: impl Fn(&mut String, &T) + Sync,
) -> std::io::Result<()> {
    let (open, close) = if object { ('{', '}') } else { ('[', ']') };
    buf.push(open);
    let member = |out: &mut String, i: usize, m: &T| {
        if i > 0 {
            out.push(',');
        }
        indent(out, level + 1);
        write(out, m);
    };
    let probe = members.len().min(PROBE);
    let before = buf.len();
    for (i, m) in members[..probe].iter().enumerate() {
        member(buf, i, m);
    }
    let per_member = (buf.len() - before) / probe.max(1) + 1;
    w.write_all(buf.as_bytes())?;
    buf.clear();
    crate::par::stream(
        &members[probe..],
        (CHUNK_BYTES / per_member).clamp(1, 4096),
        crate::par::threads() * AHEAD_PER_THREAD,
        |part, first, out: &mut String| {
            out.clear();
            for (j, m) in part.iter().enumerate() {
                member(out, probe + first + j, m);
            }
        },
        |out| {
            w.write_all(out.as_bytes())?;
            if out.capacity() > 8 * CHUNK_BYTES {
                // one huge member: do not keep its buffer
                *out = String::new();
            }
            Ok::<_, std::io::Error>(())
        },
    )?;
    indent(buf, level);
    buf.push(close);
    Ok(())
}

/// A line break and the indentation of `level` (two spaces per level).
#[cfg(test)]
pub(crate) fn write_pretty_indent(out: &mut String, level: usize) {
    indent(out, level);
}

fn indent(out: &mut String, n: usize) {
    const LINE: &str = "\n                                                                ";
    let mut left = 2 * n;
    let k = left.min(LINE.len() - 1);
    out.push_str(&LINE[..1 + k]);
    left -= k;
    while left > 0 {
        let k = left.min(LINE.len() - 1);
        out.push_str(&LINE[1..1 + k]);
        left -= k;
    }
}

pub fn write_pretty(out: &mut String, v: &Value, level: usize) {
    // iterative over containers would be nicer; depth is bounded by the builders (≤ a few
    // hundred levels after $ref expansion, which is itself depth-limited)
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => number(out, n),
        Value::String(s) => {
            if !frozen::write_pretty_frozen(out, s, level) {
                write_escaped(out, s);
            }
        }
        Value::Array(a) => {
            if a.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                indent(out, level + 1);
                write_pretty(out, x, level + 1);
            }
            indent(out, level);
            out.push(']');
        }
        Value::Object(m) => write_pretty_object(out, m.iter().map(|(k, x)| (k.as_str(), x)), level),
    }
}

/// An object's members as [`write_pretty`] writes them at indent `level`.
pub fn write_pretty_object<'v>(
    out: &mut String,
    members: impl ExactSizeIterator<Item = (&'v str, &'v Value)>,
    level: usize,
) {
    if members.len() == 0 {
        out.push_str("{}");
        return;
    }
    out.push('{');
    for (i, (k, x)) in members.enumerate() {
        if i > 0 {
            out.push(',');
        }
        indent(out, level + 1);
        write_escaped(out, k);
        out.push_str(": ");
        write_pretty(out, x, level + 1);
    }
    indent(out, level);
    out.push('}');
}

/// Compact JSON with Python number forms (for loading in-process).
pub fn to_compact(v: &Value) -> String {
    let mut out = String::with_capacity(1 << 16);
    write_compact(&mut out, v);
    out
}

pub fn write_compact(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => number(out, n),
        Value::String(s) => match frozen::thaw(s) {
            Some((_, body)) => out.push_str(body),
            None => write_escaped(out, s),
        },
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_compact(out, x);
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_escaped(out, k);
                out.push(':');
                write_compact(out, x);
            }
            out.push('}');
        }
    }
}

/// ISO-8601 UTC timestamp like Python's `datetime.now(timezone.utc).isoformat()`.
pub fn now_iso() -> String {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = d.as_secs() as i64;
    let micros = d.subsec_micros();
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (h, mi, s) = (rem / 3600, (rem % 3600) / 60, rem % 60);
    // civil from days (Howard Hinnant)
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!("{y:04}-{m:02}-{day:02}T{h:02}:{mi:02}:{s:02}.{micros:06}+00:00")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streamed_parallel_pretty_is_the_same_text() {
        let mut tools = serde_json::Map::new();
        for i in 0..700 {
            tools.insert(
                format!("t{i}"),
                serde_json::json!({"name": i, "x": [1.5, {"k": "é"}], "e": {}}),
            );
        }
        let edges: Vec<Value> = (0..300).map(|i| serde_json::json!({"s": i})).collect();
        let v = serde_json::json!({"a": 1, "tools": tools, "graph": {"n": {}, "edges": edges, "m": {"x": [edges.clone()]}}, "edges": edges, "z": [], "o": {}});
        let mut out = Vec::new();
        write_python_pretty(&mut out, &v).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), to_python_pretty(&v));
        for small in [
            serde_json::json!({}),
            serde_json::json!([]),
            serde_json::json!("s"),
            serde_json::json!({"a": [1]}),
        ] {
            let mut out = Vec::new();
            write_python_pretty(&mut out, &small).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), to_python_pretty(&small));
        }
    }

    /// Any value, with big containers (streamed in chunks) at every level the writer walks.
    fn arb_value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|i| serde_json::json!(i)),
            (-1e6f64..1e6).prop_map(|f| serde_json::json!(f)),
            "[a-z\\\"é\u{202e}\n]{0,12}".prop_map(Value::String),
        ];
        crate::testutil::arb_json(leaf, "[a-z\"]{0,4}", (3, 64, 6))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
        #[test]
        fn streamed_text_is_the_whole_text(
            members in proptest::collection::vec(arb_value(), 250..700),
            frozen in proptest::prelude::any::<bool>(),
        ) {
            // the members as a big object, a big array, and nested under small objects
            let items: Vec<Value> = if frozen {
                members.iter().map(frozen::freeze_ref).collect()
            } else {
                members.clone()
            };
            let obj: serde_json::Map<String, Value> =
                items.iter().enumerate().map(|(i, x)| (format!("k{i}"), x.clone())).collect();
            let v = serde_json::json!({"a": {"b": items.clone(), "c": 1}, "tools": obj, "z": items});
            let mut out = Vec::new();
            write_python_pretty(&mut out, &v).unwrap();
            proptest::prop_assert_eq!(String::from_utf8(out).unwrap(), to_python_pretty(&v));
        }
    }

    #[test]
    fn indent_is_a_line_break_and_two_spaces_a_level() {
        for n in 0..100 {
            let mut out = String::from("x");
            indent(&mut out, n);
            assert_eq!(out, format!("x\n{}", " ".repeat(2 * n)));
        }
    }

    #[test]
    fn pretty_matches_python() {
        let v: Value = serde_json::from_str(r#"{"a":[1,2.5,{}],"b":{"c":[]},"d":"é\n"}"#).unwrap();
        assert_eq!(
            to_python_pretty(&v),
            "{\n  \"a\": [\n    1,\n    2.5,\n    {}\n  ],\n  \"b\": {\n    \"c\": []\n  },\n  \"d\": \"é\\n\"\n}"
        );
    }
}
