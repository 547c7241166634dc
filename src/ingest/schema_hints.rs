//! What a field row takes from its schema, shared by the operation builders
//! ([`super::openapi`], [`super::operation_rows`]): validation and example hints
//! (`SCHEMA_HINT_KEYS` → row keys), hints copied between rows in the reference's order
//! (`ROW_HINT_KEYS`), the OpenAPI module's `_schema_type` and schema descriptions (with the
//! nested-field summary). A leaf: it uses only [`super::leaves`] and [`super::row`].

use serde_json::{Value, json};

use super::row::Row;
use crate::pytext::truthy;

/// Row hint keys in the order the reference copies them between rows.
pub const ROW_HINT_KEYS: &[&str] = &[
    "format",
    "default",
    "example",
    "nullable",
    "pattern",
    "minimum",
    "maximum",
    "exclusive_minimum",
    "exclusive_maximum",
    "min_length",
    "max_length",
    "min_items",
    "max_items",
    "min_properties",
    "max_properties",
    "multiple_of",
    "const",
    "read_only",
    "write_only",
    "deprecated",
    "schema_combinator",
    "schema_branch",
    "schema_branch_count",
    "schema_branches",
    "required_in_branch",
    "schema_ref",
    "schema_expanded_from",
    "schema_expansion",
    "content_type",
    "content_types",
    "content_schema_type",
    "content_fields",
    "content_top_level_fields",
    "request_body_root",
    "additional_properties",
    "map_value",
    "map_key_placeholder",
    "response_body_root",
    "value_type",
    "value_format",
    "discriminator_property",
    "discriminator_value",
    "discriminator_values",
    "encoding_content_type",
    "encoding_style",
    "encoding_explode",
    "encoding_allow_reserved",
    "encoding_headers",
    "encoding_field_name",
    "response_envelope_path",
    "response_collection_path",
    "response_item_path",
    "value_path_aliases",
    "schema_inferred_from",
    "example_source",
    "example_name",
    "example_content_type",
    "example_status",
    "description",
];

/// Python `x not in (None, "", [])`.
pub fn present(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        _ => true,
    }
}

fn hint_position(k: &str) -> Option<usize> {
    static POS: std::sync::OnceLock<rustc_hash::FxHashMap<&'static str, usize>> =
        std::sync::OnceLock::new();
    POS.get_or_init(|| {
        let mut m = rustc_hash::FxHashMap::default();
        for (i, k) in ROW_HINT_KEYS.iter().enumerate() {
            m.entry(*k).or_insert(i);
        }
        m
    })
    .get(k)
    .copied()
}

/// Copies every present hint of `src` into `dst` (existing keys keep their position).
pub fn copy_row_hints(src: &Row, dst: &mut Row) {
    // each hint key once, so at most ROW_HINT_KEYS.len() of them
    let mut found: [(usize, Option<&Value>); ROW_HINT_KEYS.len()] =
        [(0, None); ROW_HINT_KEYS.len()];
    let mut n = 0;
    for (k, v) in src.iter() {
        if let Some(p) = hint_position(k).filter(|_| present(v)) {
            found[n] = (p, Some(v));
            n += 1;
        }
    }
    let found = &mut found[..n];
    found.sort_unstable_by_key(|x| x.0);
    // a row without hints yet (a new contract row) takes them without looking them up
    let fresh = !dst.keys().any(|k| hint_position(k).is_some());
    dst.reserve(n);
    for (p, v) in found.iter() {
        let (k, v) = (ROW_HINT_KEYS[*p].into(), v.cloned().unwrap_or_default());
        if fresh {
            dst.push_new(k, v);
        } else {
            dst.insert(k, v);
        }
    }
}

pub fn first_n(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => s[..i].to_string(),
        None => s.to_string(),
    }
}

/// The OpenAPI module's `_schema_type`: `type` (default "string", first non-null of a
/// list) mapped onto string/integer/number/boolean/array/object.
pub fn py_schema_type(schema: &Value) -> String {
    let t = match schema.get("type") {
        None => Some("string".to_string()),
        Some(Value::Array(a)) => Some(
            a.iter()
                .find(|x| truthy(x) && x.as_str() != Some("null"))
                .map(|x| {
                    x.as_str()
                        .map(String::from)
                        .unwrap_or_else(|| crate::pytext::py_str(x))
                })
                .unwrap_or_else(|| "string".into()),
        ),
        Some(Value::String(s)) => Some(s.clone()),
        Some(v) if truthy(v) => Some(crate::pytext::py_str(v)),
        Some(_) => None,
    };
    let t = t
        .filter(|x| !x.is_empty())
        .unwrap_or_else(|| "string".into());
    match t.as_str() {
        "integer" | "number" | "boolean" | "array" | "object" => t,
        _ => "string".into(),
    }
}

const SCHEMA_HINT_KEYS: &[(&str, &str)] = &[
    ("format", "format"),
    ("default", "default"),
    ("example", "example"),
    ("nullable", "nullable"),
    ("x-nullable", "nullable"),
    ("pattern", "pattern"),
    ("minimum", "minimum"),
    ("maximum", "maximum"),
    ("exclusiveMinimum", "exclusive_minimum"),
    ("exclusiveMaximum", "exclusive_maximum"),
    ("minLength", "min_length"),
    ("maxLength", "max_length"),
    ("minItems", "min_items"),
    ("maxItems", "max_items"),
    ("minProperties", "min_properties"),
    ("maxProperties", "max_properties"),
    ("multipleOf", "multiple_of"),
    ("const", "const"),
    ("readOnly", "read_only"),
    ("writeOnly", "write_only"),
    ("deprecated", "deprecated"),
];

/// Copies JSON Schema validation/example hints into a row.
pub fn add_schema_hints(row: &mut Row, schema: &Value) {
    let Some(m) = schema.as_object() else { return };
    for (sk, rk) in SCHEMA_HINT_KEYS {
        let Some(v) = m.get(*sk) else { continue };
        if v.is_null() || v.as_str() == Some("") {
            continue;
        }
        row.insert((*rk).into(), super::leaves::compact_value(v));
    }
    if super::leaves::schema_nullable(schema) {
        row.insert("nullable".into(), json!(true));
    }
}

/// Object/array nested-field summary (`- name* (type): description`), two levels deep.
pub fn summarize_object_schema(schema: &Value) -> String {
    fn walk(s: &Value, depth: usize, indent: usize, out: &mut Vec<String>) {
        if depth > 2 || !s.is_object() {
            return;
        }
        let prefix = "  ".repeat(indent);
        if s.get("type").and_then(Value::as_str) == Some("array") {
            out.push(format!("{prefix}[array of:]"));
            let empty = json!({});
            let items = s.get("items").filter(|i| truthy(i)).unwrap_or(&empty);
            walk(items, depth + 1, indent + 1, out);
            return;
        }
        let Some(props) = s
            .get("properties")
            .and_then(Value::as_object)
            .filter(|p| !p.is_empty())
        else {
            return;
        };
        let required: Vec<&str> = s
            .get("required")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (name, prop) in props {
            if !prop.is_object() {
                continue;
            }
            let ptype = py_schema_type(prop);
            let req = if required.contains(&name.as_str()) {
                "*"
            } else {
                ""
            };
            let desc = match prop.get("description") {
                Some(Value::String(d)) => crate::pytext::strip(d).to_string(),
                _ => String::new(),
            };
            let mut line = format!("{prefix}- {name}{req} ({ptype})");
            if !desc.is_empty() {
                line.push_str(&format!(": {desc}"));
            }
            if let Some(e) = prop.get("example").filter(|e| !e.is_null())
                && desc.is_empty()
            {
                let e = match e {
                    Value::String(x) => x.clone(),
                    o => crate::pytext::py_str(o),
                };
                line.push_str(&format!("  e.g. {e}"));
            }
            out.push(line);
            if depth < 2 {
                if ptype == "object" {
                    walk(prop, depth + 1, indent + 1, out);
                } else if ptype == "array" {
                    let empty = json!({});
                    let items = prop.get("items").filter(|i| truthy(i)).unwrap_or(&empty);
                    let items_obj = items.get("properties").is_some_and(truthy)
                        || matches!(
                            items.get("type").and_then(Value::as_str),
                            Some("object" | "array")
                        );
                    if items_obj {
                        walk(items, depth + 1, indent + 1, out);
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(schema, 0, 0, &mut out);
    out.join("\n")
}

/// A schema's description plus, for object/array schemas, the nested-field summary.
pub fn py_schema_description(schema: &Value) -> String {
    if !schema.is_object() {
        return String::new();
    }
    let mut desc = match schema.get("description") {
        Some(v) if truthy(v) => crate::pytext::strip(&match v {
            Value::String(x) => x.clone(),
            o => crate::pytext::py_str(o),
        })
        .to_string(),
        _ => String::new(),
    };
    let ty = py_schema_type(schema);
    if ty == "object" || ty == "array" {
        let nested = summarize_object_schema(schema);
        if !nested.is_empty() {
            desc = if desc.is_empty() {
                format!("Fields:\n{nested}")
            } else {
                crate::pytext::strip(&format!("{desc}\nFields:\n{nested}")).to_string()
            };
        }
    }
    desc
}

/// Operation/parameter description merged with the schema's description.
pub fn merge_description(existing: &str, schema_description: &str) -> String {
    let existing = crate::pytext::strip(existing);
    let sd = crate::pytext::strip(schema_description);
    if sd.is_empty() {
        return existing.to_string();
    }
    if existing.is_empty() {
        return sd.to_string();
    }
    if existing.contains(sd) {
        return existing.to_string();
    }
    if sd.contains(existing) {
        return sd.to_string();
    }
    format!("{existing}\n{sd}")
}
