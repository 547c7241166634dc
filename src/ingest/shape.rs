//! Response envelope and value-path aliases (graph-tool-call 0.47.0 `response_shape`):
//! a response wrapper field (`{code, message, data: …}`), the collection path (the
//! first-array prefix with the most leaf rows, preferring ones under the wrapper; shorter
//! path on ties) and, per response row, the alias paths a runtime may see (`$.body…`, the
//! path relative to the wrapper and to the collection item).

use serde_json::{Map, Value};

use super::row::Row;

const META_FIELDS: &[&str] = &[
    "code",
    "error",
    "errorcode",
    "errors",
    "message",
    "msg",
    "ok",
    "reason",
    "status",
    "success",
    "timestamp",
    "traceid",
];
const WRAPPER_FIELDS: &[&str] = &[
    "body",
    "content",
    "data",
    "payload",
    "result",
    "resultdata",
    "response",
];

fn canonical(v: &str) -> String {
    crate::pytext::lower(v)
        .chars()
        .filter(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        .collect()
}

fn jp(row: &Row) -> &str {
    row.get("json_path").and_then(Value::as_str).unwrap_or("")
}

fn first_field(path: &str) -> &str {
    let Some(rest) = path.strip_prefix("$.") else {
        return "";
    };
    let end = rest.find(['.', '[']).unwrap_or(rest.len());
    &rest[..end]
}

pub fn startswith(path: &str, prefix: &str) -> bool {
    if path.is_empty() || prefix.is_empty() {
        return false;
    }
    if prefix == "$" {
        return path == "$" || path.starts_with("$.") || path.starts_with("$[");
    }
    path == prefix
        || (path.starts_with(prefix)
            && matches!(path.as_bytes().get(prefix.len()), Some(b'.') | Some(b'[')))
}

fn first_array_prefix(path: &str) -> &str {
    match path.find("[*]") {
        Some(i) => &path[..i + 3],
        None => "",
    }
}

fn has_nested(rows: &[Row], root: &str) -> bool {
    let prefix = format!("$.{root}");
    rows.iter().any(|r| {
        let p = jp(r);
        startswith(p, &prefix) && p != prefix
    })
}

fn collection(rows: &[Row], wrapper: &str) -> String {
    let mut order: Vec<&str> = Vec::new();
    let mut counts: rustc_hash::FxHashMap<&str, usize> = Default::default();
    for r in rows {
        let p = first_array_prefix(jp(r));
        if p.is_empty() {
            continue;
        }
        *counts.entry(p).or_default() += 1;
        if !order.contains(&p) {
            order.push(p);
        }
    }
    let preferred: Vec<&str> = order
        .iter()
        .copied()
        .filter(|p| !wrapper.is_empty() && startswith(p, wrapper))
        .collect();
    let cands = if preferred.is_empty() {
        order
    } else {
        preferred
    };
    // Python max(): the first of the maximal keys (count, -len)
    let mut best: Option<(&str, (usize, isize))> = None;
    for p in cands {
        let k = (counts[p], -(p.len() as isize));
        if best.is_none_or(|(_, bk)| k > bk) {
            best = Some((p, k));
        }
    }
    best.map(|(p, _)| p.to_string()).unwrap_or_default()
}

fn select_wrapper(
    schema: Option<&Value>,
    rows: &[Row],
    business: &[&str],
    meta: &[&str],
) -> String {
    if business.is_empty() {
        return String::new();
    }
    let cands: Vec<&str> = business
        .iter()
        .copied()
        .filter(|f| WRAPPER_FIELDS.contains(&canonical(f).as_str()) && has_nested(rows, f))
        .collect();
    if cands.len() == 1 {
        return cands[0].to_string();
    }
    if business.len() == 1 && !meta.is_empty() && has_nested(rows, business[0]) {
        return business[0].to_string();
    }
    let Some(Value::Object(props)) = schema.and_then(|s| s.get("properties")) else {
        return String::new();
    };
    let mut typed: Vec<&str> = Vec::new();
    for f in business {
        let Some(Value::Object(p)) = props.get(*f) else {
            continue;
        };
        let t = p.get("type").and_then(Value::as_str);
        if WRAPPER_FIELDS.contains(&canonical(f).as_str()) && matches!(t, Some("object" | "array"))
        {
            typed.push(f);
        }
    }
    if typed.len() == 1 {
        typed[0].to_string()
    } else {
        String::new()
    }
}

fn compact(
    wrapper_field: &str,
    wrapper_path: &str,
    coll: &str,
    meta: &[&str],
) -> Map<String, Value> {
    let mut e = Map::new();
    if !wrapper_field.is_empty() {
        e.insert("wrapper_field".into(), Value::String(wrapper_field.into()));
    }
    if !wrapper_path.is_empty() {
        e.insert("wrapper_path".into(), Value::String(wrapper_path.into()));
    }
    if !coll.is_empty() {
        e.insert("collection_path".into(), Value::String(coll.into()));
        e.insert("item_path".into(), Value::String(coll.into()));
    }
    if !meta.is_empty() {
        e.insert(
            "metadata_fields".into(),
            Value::Array(meta.iter().map(|m| Value::String((*m).into())).collect()),
        );
    }
    e
}

fn envelope(schema: Option<&Value>, rows: &[Row]) -> Map<String, Value> {
    let mut roots: Vec<&str> = Vec::new();
    for r in rows {
        let f = first_field(jp(r));
        if !f.is_empty() && !roots.contains(&f) {
            roots.push(f);
        }
    }
    if roots.is_empty() {
        return compact("", "", &collection(rows, ""), &[]);
    }
    let meta: Vec<&str> = roots
        .iter()
        .copied()
        .filter(|n| META_FIELDS.contains(&canonical(n).as_str()))
        .collect();
    let business: Vec<&str> = roots
        .iter()
        .copied()
        .filter(|n| !meta.contains(n))
        .collect();
    let wf = select_wrapper(schema, rows, &business, &meta);
    let wp = if wf.is_empty() {
        String::new()
    } else {
        format!("$.{wf}")
    };
    let coll = collection(rows, &wp);
    let mut e = compact(&wf, &wp, &coll, &meta);
    if !e.is_empty() {
        e.insert(
            "alias_strategy".into(),
            Value::String("openapi_response_envelope_v1".into()),
        );
    }
    e
}

fn body_prefixed(path: &str) -> String {
    if path.is_empty()
        || path == "$.body"
        || path.starts_with("$.body.")
        || path.starts_with("$.body[")
    {
        return String::new();
    }
    if path == "$" {
        return "$.body".into();
    }
    match path.strip_prefix('$') {
        Some(rest) => format!("$.body{rest}"),
        None => String::new(),
    }
}

fn strip_prefix(path: &str, prefix: &str) -> String {
    if path.is_empty() || prefix.is_empty() || !startswith(path, prefix) {
        return String::new();
    }
    if path == prefix {
        return "$".into();
    }
    let tail = &path[prefix.len()..];
    if tail.starts_with(['.', '[']) {
        format!("${tail}")
    } else {
        String::new()
    }
}

fn aliases(path: &str, wrapper: &str, coll: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |c: String| {
        if !c.is_empty() && c != path && !out.contains(&c) {
            out.push(c);
        }
    };
    add(body_prefixed(path));
    if !wrapper.is_empty() && startswith(path, wrapper) {
        let u = strip_prefix(path, wrapper);
        add(u.clone());
        add(body_prefixed(&u));
    }
    if !coll.is_empty() && startswith(path, coll) {
        let u = strip_prefix(path, coll);
        add(u.clone());
        add(body_prefixed(&u));
    }
    out
}

/// Annotates response rows in place and returns the envelope (`{}` when there are no rows).
pub fn annotate(schema: Option<&Value>, rows: &mut [Row]) -> Map<String, Value> {
    if rows.is_empty() {
        return Map::new();
    }
    let env = envelope(schema, rows);
    let s = |k: &str| env.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let wrapper = s("wrapper_path");
    let coll = s("collection_path");
    let item = env
        .get("item_path")
        .and_then(Value::as_str)
        .filter(|x| !x.is_empty())
        .map(String::from)
        .unwrap_or_else(|| coll.clone());
    for row in rows.iter_mut() {
        let raw = jp(row).to_string();
        let a = aliases(&raw, &wrapper, &coll);
        if !a.is_empty() {
            row.insert(
                "value_path_aliases".into(),
                Value::Array(a.into_iter().map(Value::String).collect()),
            );
        }
        if !wrapper.is_empty() && startswith(&raw, &wrapper) {
            row.insert(
                "response_envelope_path".into(),
                Value::String(wrapper.clone()),
            );
        }
        if !coll.is_empty() && startswith(&raw, &coll) {
            row.insert(
                "response_collection_path".into(),
                Value::String(coll.clone()),
            );
            row.insert("response_item_path".into(), Value::String(item.clone()));
        }
    }
    env
}
