//! Examples: `example`/`examples` blocks as compact rows, and the leaf and top-level field
//! rows the reference infers from example payloads.

use serde_json::{Map, Value, json};

use super::{
    MAX_ARRAY_ITEMS, MAX_EXAMPLE_DEPTH, MAX_EXAMPLE_ROWS, MAX_EXAMPLES, Row, key_str, text,
};

use crate::ingest::leaves::compact_value;
use crate::ingest::schema_hints::first_n;
use crate::pytext::{strip, truthy};

/// `example` / `examples` blocks of a container as compact rows (at most five).
pub fn example_rows(
    container: &Value,
    location: &str,
    content_type: Option<&str>,
    status: Option<&str>,
    compact: bool,
) -> Vec<Row> {
    let Some(c) = container.as_object() else {
        return Vec::new();
    };
    let mut rows: Vec<Row> = Vec::new();
    let mut add = |name: String, value: Option<&Value>, source: Option<&Map<String, Value>>| {
        if rows.len() >= MAX_EXAMPLES {
            return;
        }
        let mut row = Row::new();
        row.insert("name".into(), json!(name));
        row.insert("location".into(), json!(location));
        if let Some(ct) = content_type.filter(|c| !c.is_empty()) {
            row.insert("content_type".into(), json!(ct));
        }
        if let Some(st) = status.filter(|c| !c.is_empty()) {
            row.insert("status".into(), json!(st));
        }
        if let Some(src) = source {
            let summary = strip(&text(src.get("summary"))).to_string();
            let description = strip(&text(src.get("description"))).to_string();
            if !summary.is_empty() {
                row.insert("summary".into(), json!(first_n(&summary, 200)));
            }
            if !description.is_empty() {
                row.insert("description".into(), json!(first_n(&description, 300)));
            }
            if let Some(ev) = src.get("externalValue").filter(|v| truthy(v)) {
                row.insert("external_value".into(), json!(first_n(&key_str(ev), 500)));
            }
        }
        if let Some(v) = value.filter(|v| !v.is_null()) {
            row.insert(
                "value".into(),
                if compact { compact_value(v) } else { v.clone() },
            );
        }
        if row.contains_key("value") || row.contains_key("external_value") {
            rows.push(row);
        }
    };
    if c.contains_key("example") {
        add("example".into(), c.get("example"), None);
    }
    if let Some(Value::Object(examples)) = c.get("examples") {
        for (name, ex) in examples {
            match ex {
                Value::Object(e) => add(name.clone(), e.get("value"), Some(e)),
                other => add(name.clone(), Some(other), None),
            }
        }
    }
    rows
}

fn example_value(example: &Row) -> Option<std::borrow::Cow<'_, Value>> {
    use std::borrow::Cow;
    let v = example.get("value")?;
    if let Value::String(s) = v
        && (s.starts_with('{') || s.starts_with('['))
    {
        return Some(
            crate::jsonin::from_str(s)
                .map(Cow::Owned)
                .unwrap_or(Cow::Borrowed(v)),
        );
    }
    if v.is_null() {
        None
    } else {
        Some(Cow::Borrowed(v))
    }
}

fn example_hints(example: &Row, source: &str, row: &mut Row) {
    row.insert("schema_inferred_from".into(), json!("example"));
    row.insert("example_source".into(), json!(source));
    for (k, out) in [
        ("name", "example_name"),
        ("content_type", "example_content_type"),
        ("status", "example_status"),
    ] {
        let v = text(example.get(k));
        if !v.is_empty() {
            row.insert(out.into(), json!(v));
        }
    }
}

fn field_type_of(v: &Value) -> &'static str {
    match v {
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
        _ => "string",
    }
}

fn example_last_segment(path: &str) -> String {
    let t = path.strip_suffix("[*]").unwrap_or(path);
    let t = t.replace("[*]", "");
    match t.rsplit_once('.') {
        Some((_, last)) => last.to_string(),
        None => String::new(),
    }
}

/// Rows of each `(child, path)` in order, at most [`MAX_EXAMPLE_ROWS`] in all.
fn walk_children<'v>(
    children: impl Iterator<Item = (&'v Value, String)>,
    location: &str,
    source: &str,
    example: &Row,
    depth: usize,
) -> Vec<Row> {
    let mut rows = Vec::new();
    for (child, path) in children {
        rows.extend(walk_example(
            child,
            &path,
            location,
            source,
            example,
            depth + 1,
        ));
        if rows.len() >= MAX_EXAMPLE_ROWS {
            break;
        }
    }
    rows.truncate(MAX_EXAMPLE_ROWS);
    rows
}

fn walk_example(
    value: &Value,
    path: &str,
    location: &str,
    source: &str,
    example: &Row,
    depth: usize,
) -> Vec<Row> {
    if depth > MAX_EXAMPLE_DEPTH {
        return Vec::new();
    }
    match value {
        Value::Object(m) => walk_children(
            m.iter().map(|(k, child)| (child, format!("{path}.{k}"))),
            location,
            source,
            example,
            depth,
        ),
        Value::Array(a) => walk_children(
            a.iter()
                .take(MAX_ARRAY_ITEMS)
                .map(|child| (child, format!("{path}[*]"))),
            location,
            source,
            example,
            depth,
        ),
        _ => {
            let name = example_last_segment(path);
            if name.is_empty() {
                return Vec::new();
            }
            let mut row = Row::new();
            row.insert("field_name".into(), json!(name));
            row.insert("json_path".into(), json!(path));
            row.insert("field_type".into(), json!(field_type_of(value)));
            row.insert("required".into(), json!(false));
            row.insert("location".into(), json!(location));
            example_hints(example, source, &mut row);
            if value.is_null() {
                row.insert("nullable".into(), json!(true));
            }
            vec![row]
        }
    }
}

/// Leaf field rows inferred from example payloads.
pub fn example_leaf_rows(examples: &[Row], location: &str, source: &str) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut seen: rustc_hash::FxHashSet<(String, String)> = Default::default();
    for ex in examples {
        let Some(v) = example_value(ex) else { continue };
        for row in walk_example(&v, "$", location, source, ex, 0) {
            let key = (text(row.get("field_name")), text(row.get("json_path")));
            if !seen.insert(key) {
                continue;
            }
            rows.push(row);
            if rows.len() >= MAX_EXAMPLE_ROWS {
                return rows;
            }
        }
    }
    rows
}

fn nested_description(value: &Value, base: &str) -> String {
    if !matches!(value, Value::Object(_) | Value::Array(_)) {
        return String::new();
    }
    let rows = walk_example(value, base, "body", "example", &Row::new(), 0);
    if rows.is_empty() {
        return String::new();
    }
    let mut lines = vec!["Fields:".to_string()];
    for row in rows.iter().take(12) {
        let path = text(row.get("json_path"));
        let rel = if path == base {
            String::new()
        } else if let Some(r) = path.strip_prefix(&format!("{base}.")) {
            r.to_string()
        } else if path.starts_with(&format!("{base}[")) {
            path[base.len()..].to_string()
        } else {
            path.clone()
        };
        let name = if rel.is_empty() {
            text(row.get("field_name"))
        } else {
            rel
        };
        let ft = row
            .get("field_type")
            .map(key_str)
            .unwrap_or_else(|| "string".into());
        lines.push(format!("- {name} ({ft})"));
    }
    lines.join("\n")
}

/// Top-level object fields inferred from example payloads.
pub fn example_top_level_rows(examples: &[Row], location: &str, source: &str) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for ex in examples {
        let Some(v) = example_value(ex) else {
            continue;
        };
        let Value::Object(v) = v.as_ref() else {
            continue;
        };
        for (name, child) in v {
            if name.is_empty() || seen.contains(name) {
                continue;
            }
            seen.push(name.clone());
            let mut row = Row::new();
            row.insert("field_name".into(), json!(name));
            row.insert("json_path".into(), json!(format!("$.{name}")));
            row.insert("field_type".into(), json!(field_type_of(child)));
            row.insert("required".into(), json!(false));
            row.insert("location".into(), json!(location));
            example_hints(ex, source, &mut row);
            let d = nested_description(child, &format!("$.{name}"));
            if !d.is_empty() {
                row.insert("description".into(), json!(d));
            }
            if child.is_null() {
                row.insert("nullable".into(), json!(true));
            }
            rows.push(row);
            if rows.len() >= MAX_EXAMPLE_ROWS {
                return rows;
            }
        }
    }
    rows
}
