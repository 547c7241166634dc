//! A request body's top-level rows (`_request_body_top_level_rows`): one per top-level
//! property or the union of `oneOf`/`anyOf` branches, discriminators, and the root slot of
//! a body that is not an object.

use serde_json::{Map, Value, json};

use super::{Row, emptyish, key_str, merge_list, obj, text};

use crate::ingest::leaves::{branch_discriminator_value, discriminator_property, schema_enum};
use crate::ingest::refs::REF_MARKER;
use crate::ingest::schema_hints::{
    add_schema_hints, first_n, present, py_schema_description, py_schema_type,
};
use crate::pytext::{strip, truthy};

/// `allOf` at the top level merged (properties, required, nested unions, flags).
pub fn flatten_top_level_allof(schema: &Map<String, Value>) -> Map<String, Value> {
    crate::ingest::leaves::merge_all_of(schema, false).unwrap_or_else(|| schema.clone())
}

/// `_request_body_top_level_rows`: one row per (non-read-only) top-level property, or the
/// union of `oneOf`/`anyOf` branches.
pub fn top_level_rows(schema: &Value) -> Vec<Row> {
    let Some(m) = schema.as_object().filter(|m| !m.is_empty()) else {
        return Vec::new();
    };
    let m = flatten_top_level_allof(m);
    if let Some(rows) = alternative_top_level_rows(&m) {
        return rows;
    }
    let Some(Value::Object(props)) = m.get("properties") else {
        return Vec::new();
    };
    let required: Vec<&Value> = match m.get("required") {
        Some(Value::Array(a)) => a.iter().collect(),
        _ => Vec::new(),
    };
    let empty = json!({});
    let mut rows = Vec::new();
    for (name, prop) in props {
        let prop = if prop.is_object() { prop } else { &empty };
        if prop.get("readOnly").is_some_and(truthy) {
            continue;
        }
        let ty = py_schema_type(prop);
        let mut row = Row::new();
        row.insert("field_name".into(), json!(name));
        row.insert("json_path".into(), json!(format!("$.{name}")));
        row.insert("field_type".into(), json!(ty));
        row.insert(
            "required".into(),
            json!(required.iter().any(|r| r.as_str() == Some(name.as_str()))),
        );
        row.insert("location".into(), json!("body"));
        add_schema_hints(&mut row, prop);
        let mut desc = strip(&text(prop.get("description"))).to_string();
        if ty == "object" || ty == "array" {
            let nested = crate::ingest::schema_hints::summarize_object_schema(prop);
            if !nested.is_empty() {
                desc = if desc.is_empty() {
                    format!("Fields:\n{nested}")
                } else {
                    strip(&format!("{desc}\nFields:\n{nested}")).to_string()
                };
            }
        }
        if !desc.is_empty() {
            row.insert("description".into(), json!(first_n(&desc, 300)));
        }
        let en = schema_enum(prop);
        if !en.is_empty() {
            row.insert("enum".into(), Value::Array(en));
        }
        rows.push(row);
    }
    rows
}

fn alternative_top_level_rows(schema: &Map<String, Value>) -> Option<Vec<Row>> {
    for key in ["oneOf", "anyOf"] {
        let Some(Value::Array(raw)) = schema.get(key) else {
            continue;
        };
        let cands: Vec<&Map<String, Value>> = raw.iter().filter_map(Value::as_object).collect();
        if cands.is_empty() {
            continue;
        }
        let mut rows: Vec<Row> = Vec::new();
        let base: Map<String, Value> = schema
            .iter()
            .filter(|(k, _)| *k != "oneOf" && *k != "anyOf")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if obj(base.get("properties")).is_some_and(|p| !p.is_empty()) {
            rows.extend(top_level_rows(&Value::Object(base)));
        }
        let count = cands.len();
        let disc = discriminator_property(schema);
        let mut disc_values: Vec<Value> = Vec::new();
        for (i, cand) in cands.iter().enumerate() {
            let dv = branch_discriminator_value(schema, cand, i, count, &disc);
            if let Some(v) = &dv {
                disc_values.push(v.clone());
            }
            for mut row in top_level_rows(&Value::Object((*cand).clone())) {
                if row.get("required").is_some_and(truthy) {
                    row.insert("required_in_branch".into(), json!(true));
                }
                row.insert("required".into(), json!(false));
                row.insert("schema_combinator".into(), json!(key));
                row.insert("schema_branch".into(), json!(i));
                row.insert("schema_branch_count".into(), json!(count));
                row.insert("schema_branches".into(), json!([i]));
                if let Some(r) = cand.get(REF_MARKER).filter(|v| truthy(v)) {
                    row.insert("schema_ref".into(), json!(key_str(r)));
                }
                if !disc.is_empty() {
                    row.insert("discriminator_property".into(), json!(disc));
                }
                if let Some(v) = &dv {
                    row.insert("discriminator_value".into(), v.clone());
                    row.insert("discriminator_values".into(), json!([v]));
                }
                rows.push(row);
            }
        }
        if !disc.is_empty() {
            apply_discriminator_rows(&mut rows, &disc, &disc_values, key, count);
        }
        return Some(merge_top_level_rows(rows));
    }
    None
}

fn apply_discriminator_rows(
    rows: &mut Vec<Row>,
    field: &str,
    values: &[Value],
    combinator: &str,
    count: usize,
) {
    let mut any = false;
    for row in rows
        .iter_mut()
        .filter(|r| r.get("field_name").and_then(Value::as_str) == Some(field))
    {
        any = true;
        row.insert("discriminator_property".into(), json!(field));
        if !values.is_empty() {
            for k in ["discriminator_values", "enum"] {
                let mut cur: Vec<Value> = match row.get(k) {
                    Some(Value::Array(a)) => a.clone(),
                    _ => Vec::new(),
                };
                merge_list(&mut cur, values);
                row.insert(k.into(), Value::Array(cur));
            }
        }
        if !row.contains_key("schema_combinator") {
            row.insert("schema_combinator".into(), json!(combinator));
        }
        if !row.contains_key("schema_branch_count") {
            row.insert("schema_branch_count".into(), json!(count));
        }
        if !row.contains_key("schema_branches") {
            row.insert(
                "schema_branches".into(),
                json!((0..count).collect::<Vec<_>>()),
            );
        }
    }
    if !any {
        let mut v = Vec::new();
        merge_list(&mut v, values);
        let mut row = Row::new();
        row.insert("field_name".into(), json!(field));
        row.insert("json_path".into(), json!(format!("$.{field}")));
        row.insert("field_type".into(), json!("string"));
        row.insert("required".into(), json!(false));
        row.insert("required_in_branch".into(), json!(true));
        row.insert("location".into(), json!("body"));
        row.insert("enum".into(), Value::Array(v.clone()));
        row.insert("schema_combinator".into(), json!(combinator));
        row.insert("schema_branch_count".into(), json!(count));
        row.insert(
            "schema_branches".into(),
            json!((0..count).collect::<Vec<_>>()),
        );
        row.insert("discriminator_property".into(), json!(field));
        row.insert("discriminator_values".into(), Value::Array(v));
        rows.push(row);
    }
}

const TOP_MERGE_KEYS: &[&str] = &[
    "format",
    "default",
    "example",
    "nullable",
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
    "schema_branch_count",
    "required_in_branch",
    "schema_ref",
    "discriminator_property",
    "discriminator_values",
    "description",
    "field_type",
];

fn merge_top_level_rows(rows: Vec<Row>) -> Vec<Row> {
    let mut merged: Vec<Row> = Vec::new();
    let mut by_name: rustc_hash::FxHashMap<String, usize> = Default::default();
    for row in rows {
        let name = text(row.get("field_name"));
        if name.is_empty() {
            continue;
        }
        let Some(&i) = by_name.get(&name) else {
            by_name.insert(name, merged.len());
            merged.push(row);
            continue;
        };
        let e = &mut merged[i];
        let req = e.get("required").is_some_and(truthy) || row.get("required").is_some_and(truthy);
        e.insert("required".into(), json!(req));
        if row.get("required_in_branch").is_some_and(truthy) {
            e.insert("required_in_branch".into(), json!(true));
        }
        if let Some(Value::Array(en)) = row.get("enum").filter(|v| truthy(v)) {
            let mut cur: Vec<Value> = match e.get("enum") {
                Some(Value::Array(a)) => a.clone(),
                _ => Vec::new(),
            };
            merge_list(&mut cur, en);
            e.insert("enum".into(), Value::Array(cur));
        }
        if let Some(Value::Array(b)) = row.get("schema_branches").filter(|v| truthy(v)) {
            let mut cur: Vec<Value> = match e.get("schema_branches") {
                Some(Value::Array(a)) => a.clone(),
                _ => Vec::new(),
            };
            merge_list(&mut cur, b);
            e.insert("schema_branches".into(), Value::Array(cur));
            e.shift_remove("schema_branch");
        }
        if let Some(Value::Array(d)) = row.get("discriminator_values").filter(|v| truthy(v)) {
            let mut cur: Vec<Value> = match e.get("discriminator_values") {
                Some(Value::Array(a)) => a.clone(),
                _ => Vec::new(),
            };
            merge_list(&mut cur, d);
            e.insert("discriminator_values".into(), Value::Array(cur));
            e.shift_remove("discriminator_value");
        }
        for k in TOP_MERGE_KEYS {
            if let Some(v) = row.get(k)
                && emptyish(e.get(k))
                && present(v)
            {
                e.insert((*k).into(), v.clone());
            }
        }
    }
    merged
}

fn needs_root_slot(schema: &Value) -> bool {
    let Some(m) = schema.as_object().filter(|m| !m.is_empty()) else {
        return false;
    };
    let m = flatten_top_level_allof(m);
    if alternative_top_level_rows(&m).is_some_and(|r| !r.is_empty()) {
        return false;
    }
    let v = Value::Object(m);
    let ty = py_schema_type(&v);
    if ty != "object" {
        return true;
    }
    obj(v.get("properties")).is_none_or(|p| p.is_empty())
}

/// The synthetic `body` slot of a non-property JSON request body.
pub fn request_body_root_row(schema: &Value, required: bool) -> Option<Row> {
    if !needs_root_slot(schema) {
        return None;
    }
    let ty = py_schema_type(schema);
    let mut row = Row::new();
    row.insert("field_name".into(), json!("body"));
    row.insert("json_path".into(), json!("$"));
    row.insert("field_type".into(), json!(ty));
    row.insert("required".into(), json!(required));
    row.insert("location".into(), json!("body"));
    row.insert("request_body_root".into(), json!(true));
    add_schema_hints(&mut row, schema);
    let en = schema_enum(schema);
    if !en.is_empty() {
        row.insert("enum".into(), Value::Array(en));
    }
    let d = py_schema_description(schema);
    if !d.is_empty() {
        row.insert("description".into(), json!(first_n(&d, 300)));
    }
    if ty == "array" {
        if let Some(items) = obj(schema.get("items")).filter(|i| !i.is_empty()) {
            let iv = Value::Object(items.clone());
            row.insert("item_type".into(), json!(py_schema_type(&iv)));
            let r = text(items.get(REF_MARKER));
            if !r.is_empty() {
                row.insert("item_schema_ref".into(), json!(r));
            }
            let f = top_level_rows(&iv);
            if !f.is_empty() {
                let n = f.len();
                row.insert(
                    "item_top_level_fields".into(),
                    Value::Array(f.into_iter().map(Value::from).collect()),
                );
                row.insert("item_field_count".into(), json!(n));
            }
        }
    } else if ty == "object"
        && let Some(add) = obj(schema.get("additionalProperties")).filter(|a| !a.is_empty())
    {
        row.insert("additional_properties".into(), json!(true));
        row.insert("map_value".into(), json!(true));
        row.insert("map_key_placeholder".into(), json!("*"));
        row.insert(
            "value_type".into(),
            json!(py_schema_type(&Value::Object(add.clone()))),
        );
    }
    Some(row)
}
