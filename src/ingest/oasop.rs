//! One OpenAPI/Swagger operation's inputs and outputs as graph-tool-call 0.47.0 records them:
//! tool parameters, `openapi.parameters`, request body (content types, top-level fields,
//! leaf fields, root slot), responses (content types, headers, examples, example-inferred
//! fields), the api-contract consumes/produces rows and `input_locations`.
//!
//! Works on the operation and path item with every local `$ref` already resolved.

use serde_json::{Map, Value, json};

use super::leaves::{
    self, branch_discriminator_value, compact_value, discriminator_property, schema_enum,
    schema_field_rows,
};
use super::openapi::{
    add_schema_hints, copy_row_hints, first_n, merge_description, present, py_schema_description,
    py_schema_type,
};
use super::refs::REF_MARKER;
use super::schema::ParamSchema;
use crate::pytext::{py_str, strip, truthy};

pub use super::row::Row;
use super::row::rows_value;

const MAX_EXAMPLES: usize = 5;
const MAX_EXAMPLE_ROWS: usize = 128;
const MAX_ARRAY_ITEMS: usize = 3;
const MAX_EXAMPLE_DEPTH: usize = 8;
/// `{}`, for lookups that fall back to an empty schema or media object.
static EMPTY_OBJECT: std::sync::LazyLock<Value> =
    std::sync::LazyLock::new(|| Value::Object(Map::new()));

fn obj(v: Option<&Value>) -> Option<&Map<String, Value>> {
    v.and_then(Value::as_object)
}

/// Python `str(x or "")`.
fn text(v: Option<&Value>) -> String {
    match v {
        Some(x) if truthy(x) => match x {
            Value::String(s) => s.clone(),
            o => py_str(o),
        },
        _ => String::new(),
    }
}

fn key_str(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        o => py_str(o),
    }
}

/// Python `x in (None, "", [], False)` (0 == False).
fn emptyish(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.is_empty(),
        Some(Value::Array(a)) => a.is_empty(),
        Some(Value::Bool(b)) => !b,
        Some(Value::Number(n)) => n.as_f64() == Some(0.0),
        Some(Value::Object(_)) => false,
    }
}

fn merge_list(left: &mut Vec<Value>, right: &[Value]) {
    for v in right {
        if !left.contains(v) {
            left.push(v.clone());
        }
    }
}

pub fn is_json_media_type(ct: &str) -> bool {
    let media = crate::pytext::lower(strip(ct.split(';').next().unwrap_or("")));
    media == "application/json" || media.ends_with("+json") || media == "*/*"
}

// ---------------------------------------------------------------------------------------
// examples

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
            serde_json::from_str(s)
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

// ---------------------------------------------------------------------------------------
// row merging

/// Rows merged by (field_name, json_path): later rows add hints, enums and `required`.
pub fn merge_field_rows(primary: Vec<Row>, inferred: &[Row]) -> Vec<Row> {
    use std::borrow::Cow;
    // `text()` without copying the common string case
    fn key_text(v: Option<&Value>) -> Cow<'_, str> {
        match v {
            Some(Value::String(s)) => Cow::Borrowed(s.as_str()),
            other => Cow::Owned(text(other)),
        }
    }
    let n_primary = primary.len();
    let row_at = |i: usize| -> &Row {
        if i < n_primary {
            &primary[i]
        } else {
            &inferred[i - n_primary]
        }
    };
    // where each row goes: dropped (no name), a new row, or merged into an earlier one
    let mut dest: Vec<Option<usize>> = Vec::with_capacity(n_primary + inferred.len());
    let mut new_rows = 0usize;
    {
        let mut by_key: rustc_hash::FxHashMap<(Cow<'_, str>, Cow<'_, str>), usize> =
            Default::default();
        for i in 0..n_primary + inferred.len() {
            let row = row_at(i);
            let name = key_text(row.get("field_name"));
            if name.is_empty() {
                dest.push(None);
                continue;
            }
            let key = (name, key_text(row.get("json_path")));
            let at = *by_key.entry(key).or_insert_with(|| {
                new_rows += 1;
                new_rows - 1
            });
            dest.push(Some(at));
        }
    }
    let mut merged: Vec<Row> = Vec::with_capacity(new_rows);
    let absorb = |row: Cow<'_, Row>, at: usize, merged: &mut Vec<Row>| {
        if at == merged.len() {
            merged.push(row.into_owned());
            return;
        }
        let e = &mut merged[at];
        copy_row_hints(&row, e);
        if let Some(en) = row.get("enum").filter(|v| truthy(v))
            && !e.get("enum").is_some_and(truthy)
        {
            e.insert("enum".into(), en.clone());
        }
        if row.get("required").is_some_and(truthy) {
            e.insert("required".into(), json!(true));
        }
    };
    let all = primary
        .into_iter()
        .map(Cow::Owned)
        .chain(inferred.iter().map(Cow::Borrowed));
    for (row, at) in all.zip(dest) {
        if let Some(at) = at {
            absorb(row, at, &mut merged);
        }
    }
    merged
}

fn merge_body_field_rows(primary: Vec<Row>, content_rows: &[&Row], key: &str) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::new();
    for c in content_rows {
        if let Some(Value::Array(a)) = c.get(key) {
            rows.extend(a.iter().filter_map(Row::from_value));
        }
    }
    merge_field_rows(primary, &rows)
}

// ---------------------------------------------------------------------------------------
// request body top-level rows

/// `allOf` at the top level merged (properties, required, nested unions, flags).
pub fn flatten_top_level_allof(schema: &Map<String, Value>) -> Map<String, Value> {
    super::leaves::merge_all_of(schema, false).unwrap_or_else(|| schema.clone())
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
            let nested = super::openapi::summarize_object_schema(prop);
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

// ---------------------------------------------------------------------------------------
// content

fn schema_of_media(v: &Value) -> Option<&Value> {
    v.get("schema").filter(|s| truthy(s))
}

/// (schema, media type) by preference: application/json, `+json`, `*/*`, first with a
/// schema.
pub fn pick_content_schema(content: &Value) -> (Option<&Value>, Option<String>) {
    let Some(c) = content.as_object().filter(|c| !c.is_empty()) else {
        return (None, None);
    };
    if let Some(v) = c.get("application/json")
        && let Some(s) = schema_of_media(v)
    {
        return (Some(s), Some("application/json".into()));
    }
    for (ct, v) in c {
        if ct.ends_with("+json")
            && let Some(s) = schema_of_media(v)
        {
            return (Some(s), Some(ct.clone()));
        }
    }
    if let Some(v) = c.get("*/*")
        && let Some(s) = schema_of_media(v)
    {
        return (Some(s), Some("*/*".into()));
    }
    for (ct, v) in c {
        if v.is_object()
            && let Some(s) = schema_of_media(v)
        {
            return (Some(s), Some(ct.clone()));
        }
    }
    if c.contains_key("application/json") {
        return (None, Some("application/json".into()));
    }
    (None, None)
}

fn encoding_rows(encoding: Option<&Value>) -> Vec<Row> {
    let Some(enc) = obj(encoding) else {
        return Vec::new();
    };
    let mut rows = Vec::new();
    for (field, e) in enc {
        let Some(e) = e.as_object() else { continue };
        let mut row = Row::new();
        row.insert("field_name".into(), json!(field));
        for k in ["contentType", "style", "explode", "allowReserved"] {
            if let Some(v) = e.get(k) {
                let rk = if k == "contentType" {
                    "content_type"
                } else {
                    k
                };
                row.insert(rk.into(), v.clone());
            }
        }
        let headers = header_rows_for_encoding(e.get("headers"));
        if !headers.is_empty() {
            row.insert(
                "headers".into(),
                Value::Array(headers.into_iter().map(Value::from).collect()),
            );
        }
        if row.len() > 1 {
            rows.push(row);
        }
    }
    rows
}

fn header_rows_for_encoding(headers: Option<&Value>) -> Vec<Row> {
    let Some(h) = obj(headers) else {
        return Vec::new();
    };
    let mut rows = Vec::new();
    let empty = json!({});
    for (name, header) in h {
        if !header.is_object() {
            continue;
        }
        let schema = header
            .get("schema")
            .filter(|s| s.is_object())
            .unwrap_or(&empty);
        let mut row = Row::new();
        row.insert("name".into(), json!(name));
        row.insert("field_name".into(), json!(name));
        row.insert("field_type".into(), json!(py_schema_type(schema)));
        row.insert(
            "required".into(),
            json!(header.get("required").is_some_and(truthy)),
        );
        row.insert("location".into(), json!("request_body_part_header"));
        add_schema_hints(&mut row, schema);
        let d = merge_description(
            &text(header.get("description")),
            &py_schema_description(schema),
        );
        if !d.is_empty() {
            row.insert("description".into(), json!(first_n(&d, 300)));
        }
        let en = schema_enum(schema);
        if !en.is_empty() {
            row.insert("enum".into(), Value::Array(en));
        }
        let mut ex = example_rows(header, "request_body_part_header", None, None, true);
        ex.extend(example_rows(
            schema,
            "request_body_part_header",
            None,
            None,
            true,
        ));
        if !ex.is_empty() {
            ex.truncate(MAX_EXAMPLES);
            let n = ex.len();
            row.insert(
                "examples".into(),
                Value::Array(ex.into_iter().map(Value::from).collect()),
            );
            row.insert("example_count".into(), json!(n));
        }
        rows.push(row);
    }
    rows
}

fn apply_encoding(rows: &mut [Row], enc: &[Row]) {
    if rows.is_empty() || enc.is_empty() {
        return;
    }
    for row in rows.iter_mut() {
        let name = text(row.get("field_name"));
        let jp = text(row.get("json_path"));
        if name.is_empty() {
            continue;
        }
        for e in enc {
            let ef = text(e.get("field_name"));
            if ef.is_empty() {
                continue;
            }
            let belongs = !jp.is_empty()
                && (jp.starts_with(&format!("$.{ef}.")) || jp.starts_with(&format!("$.{ef}[")));
            if name != ef && !belongs {
                continue;
            }
            row.insert("encoding_field_name".into(), json!(ef));
            if let Some(v) = e.get("content_type").filter(|v| truthy(v)) {
                row.insert("encoding_content_type".into(), v.clone());
            }
            if let Some(v) = e.get("style").filter(|v| truthy(v)) {
                row.insert("encoding_style".into(), v.clone());
            }
            if let Some(v) = e.get("explode") {
                row.insert("encoding_explode".into(), json!(truthy(v)));
            }
            if let Some(v) = e.get("allowReserved") {
                row.insert("encoding_allow_reserved".into(), json!(truthy(v)));
            }
            if let Some(v) = e.get("headers").filter(|v| truthy(v)) {
                row.insert("encoding_headers".into(), v.clone());
            }
            break;
        }
    }
}

/// `_content_type_rows`: every declared media type of a body/response.
pub fn content_type_rows<'a>(
    content: &'a Value,
    location: &str,
    status: Option<&str>,
    request_required: bool,
    memo: Option<&leaves::FieldMemo<'a>>,
) -> Vec<Row> {
    media_rows(content, location, status, request_required, memo, false)
        .into_iter()
        .map(|m| m.row)
        .collect()
}

/// A media-type row and, when the caller keeps them, its example rows and example-inferred
/// field rows (then frozen in the row: only the caller reads them).
struct MediaRow {
    row: Row,
    examples: Vec<Row>,
    example_fields: Vec<Row>,
}

fn media_rows<'a>(
    content: &'a Value,
    location: &str,
    status: Option<&str>,
    request_required: bool,
    memo: Option<&leaves::FieldMemo<'a>>,
    keep: bool,
) -> Vec<MediaRow> {
    let Some(c) = content.as_object().filter(|c| !c.is_empty()) else {
        return Vec::new();
    };
    // a nested list: frozen, the rows kept for the caller; or moved into the row as maps
    let nested = |rows: Vec<Row>, kept: &mut Vec<Row>| {
        if keep {
            let v = super::row::freeze_rows(&rows);
            *kept = rows;
            v
        } else {
            rows_value(rows)
        }
    };
    let empty: &'a Value = &EMPTY_OBJECT;
    let mut rows = Vec::new();
    for (ct, media) in c {
        let media = if media.is_object() { media } else { empty };
        let schema = media
            .get("schema")
            .filter(|s| s.is_object())
            .unwrap_or(empty);
        let has_schema = truthy(schema);
        let enc = encoding_rows(media.get("encoding"));
        let mut row = Row::new();
        row.insert("content_type".into(), json!(ct));
        row.insert("is_json".into(), json!(is_json_media_type(ct)));
        row.insert("has_schema".into(), json!(has_schema));
        let raw_examples = example_rows(media, location, Some(ct), status, false);
        let examples = example_rows(media, location, Some(ct), status, true);
        let ex_loc = if location == "request_body" {
            "body"
        } else {
            location
        };
        let ex_src = format!("{location}_example");
        // top-level rows only describe request bodies
        let inferred_top = if location == "request_body" {
            example_top_level_rows(&raw_examples, ex_loc, &ex_src)
        } else {
            Vec::new()
        };
        let mut inferred_fields = example_leaf_rows(&raw_examples, ex_loc, &ex_src);
        if has_schema {
            row.insert("schema_type".into(), json!(py_schema_type(schema)));
            if location == "request_body" {
                let mut top = top_level_rows(schema);
                if top.is_empty()
                    && let Some(r) = request_body_root_row(schema, request_required)
                {
                    top = vec![r];
                }
                let fields = schema_field_rows(schema, "body");
                let mut top = merge_field_rows(top, &inferred_top);
                let mut fields = merge_field_rows(fields, &inferred_fields);
                if !enc.is_empty() {
                    apply_encoding(&mut top, &enc);
                    apply_encoding(&mut fields, &enc);
                }
                if !top.is_empty() {
                    row.insert("top_level_fields".into(), rows_value(top));
                }
                let n = fields.len();
                if n > 0 {
                    row.insert("fields".into(), rows_value(fields));
                }
                row.insert("field_count".into(), json!(n));
            } else {
                let n = match memo {
                    Some(m) => m.count(schema, location),
                    None => leaves::field_count(schema, location),
                };
                row.insert("field_count".into(), json!(n));
            }
        } else if location == "request_body" {
            let mut top = inferred_top.clone();
            if !enc.is_empty() {
                apply_encoding(&mut top, &enc);
                apply_encoding(&mut inferred_fields, &enc);
            }
            if !top.is_empty() {
                row.insert("top_level_fields".into(), rows_value(top));
            }
            if !inferred_fields.is_empty() {
                let n = inferred_fields.len();
                row.insert("fields".into(), rows_value(inferred_fields.clone()));
                row.insert("field_count".into(), json!(n));
            }
        }
        let (mut kept_examples, mut kept_fields) = (Vec::new(), Vec::new());
        if !inferred_fields.is_empty() && location != "request_body" {
            let n = inferred_fields.len();
            row.insert(
                "example_fields".into(),
                nested(inferred_fields, &mut kept_fields),
            );
            row.insert("example_field_count".into(), json!(n));
        }
        if !enc.is_empty() {
            row.insert("encoding".into(), rows_value(enc));
        }
        if !examples.is_empty() {
            let n = examples.len();
            row.insert("examples".into(), nested(examples, &mut kept_examples));
            row.insert("example_count".into(), json!(n));
        }
        rows.push(MediaRow {
            row,
            examples: kept_examples,
            example_fields: kept_fields,
        });
    }
    rows
}

fn parameter_content_type_rows(content: &Value, location: &str) -> Vec<Row> {
    let Some(c) = content.as_object().filter(|c| !c.is_empty()) else {
        return Vec::new();
    };
    let empty = json!({});
    let mut rows = Vec::new();
    for (ct, media) in c {
        let media = if media.is_object() { media } else { &empty };
        let schema = media
            .get("schema")
            .filter(|s| s.is_object())
            .unwrap_or(&empty);
        let mut row = Row::new();
        row.insert("content_type".into(), json!(ct));
        row.insert("is_json".into(), json!(is_json_media_type(ct)));
        row.insert("has_schema".into(), json!(truthy(schema)));
        let raw = example_rows(media, location, Some(ct), None, false);
        let examples = example_rows(media, location, Some(ct), None, true);
        let inferred_top = example_top_level_rows(&raw, location, "parameter_content_example");
        let inferred_fields = example_leaf_rows(&raw, location, "parameter_content_example");
        if truthy(schema) {
            row.insert("schema_type".into(), json!(py_schema_type(schema)));
            let mut top = top_level_rows(schema);
            for t in &mut top {
                t.insert("location".into(), json!(location));
            }
            let fields = schema_field_rows(schema, location);
            let top = merge_field_rows(top, &inferred_top);
            let fields = merge_field_rows(fields, &inferred_fields);
            if !top.is_empty() {
                row.insert("top_level_fields".into(), rows_value(top));
            }
            let n = fields.len();
            if n > 0 {
                row.insert("fields".into(), rows_value(fields));
            }
            row.insert("field_count".into(), json!(n));
        } else {
            if !inferred_top.is_empty() {
                row.insert("top_level_fields".into(), rows_value(inferred_top));
            }
            if !inferred_fields.is_empty() {
                let n = inferred_fields.len();
                row.insert("fields".into(), rows_value(inferred_fields));
                row.insert("field_count".into(), json!(n));
            }
        }
        if !examples.is_empty() {
            let n = examples.len();
            row.insert("examples".into(), rows_value(examples));
            row.insert("example_count".into(), json!(n));
        }
        rows.push(row);
    }
    rows
}

fn add_parameter_content_metadata(row: &mut Row, parameter: &Value) {
    let location = text(row.get("in"));
    let Some(content) = parameter
        .get("content")
        .filter(|c| c.as_object().is_some_and(|m| !m.is_empty()))
    else {
        return;
    };
    let (schema, ct) = pick_content_schema(content);
    let mut rows = parameter_content_type_rows(content, &location);
    if rows.is_empty() {
        return;
    }
    if let Some(ct) = &ct {
        row.insert("content_type".into(), json!(ct));
    }
    if let Some(s) = schema {
        row.insert("content_schema_type".into(), json!(py_schema_type(s)));
    }
    for cr in rows.iter_mut() {
        if ct.is_some() && cr.get("content_type").and_then(Value::as_str) == ct.as_deref() {
            cr.insert("selected".into(), json!(true));
            if let Some(f) = cr.get("fields").filter(|v| truthy(v)).cloned() {
                row.insert("content_fields".into(), f);
            }
            if let Some(f) = cr.get("top_level_fields").filter(|v| truthy(v)).cloned() {
                row.insert("content_top_level_fields".into(), f);
            }
        }
    }
    row.insert("content_types".into(), rows_value(rows));
}

fn media_type_name_rows(media: &[Value], has_schema: bool) -> Vec<Row> {
    media
        .iter()
        .filter(|m| truthy(m))
        .map(|m| {
            let ct = key_str(m);
            let mut row = Row::new();
            row.insert("content_type".into(), json!(ct));
            row.insert("is_json".into(), json!(is_json_media_type(&ct)));
            row.insert("has_schema".into(), json!(has_schema));
            row
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// parameters

/// Path-item then operation parameters, the operation overriding the same (in, name).
pub fn merged_parameters<'a>(op: &'a Value, item: &'a Value) -> Vec<&'a Value> {
    let mut merged: Vec<&Value> = Vec::new();
    let mut index: rustc_hash::FxHashMap<(String, String), usize> = Default::default();
    for src in [item.get("parameters"), op.get("parameters")] {
        let Some(Value::Array(a)) = src else { continue };
        for p in a {
            if !p.as_object().is_some_and(|m| m.contains_key("name")) {
                continue;
            }
            let key = (text(p.get("in")), text(p.get("name")));
            match index.get(&key) {
                Some(&i) => merged[i] = p,
                None => {
                    index.insert(key, merged.len());
                    merged.push(p);
                }
            }
        }
    }
    merged
}

fn effective_schema(schema: &Value) -> Value {
    match schema.as_object() {
        Some(m) => Value::Object(flatten_top_level_allof(m)),
        None => json!({}),
    }
}

fn sibling_names(params: &[&Value], swagger: bool) -> Vec<String> {
    let mut names = Vec::new();
    for p in params {
        let schema = if swagger {
            (*p).clone()
        } else {
            p.get("schema")
                .filter(|s| truthy(s))
                .cloned()
                .unwrap_or(json!({}))
        };
        let schema = effective_schema(&schema);
        if py_schema_type(&schema) != "object" {
            let n = text(p.get("name"));
            if !n.is_empty() && !names.contains(&n) {
                names.push(n);
            }
        }
    }
    names
}

fn expanded_parameter_rows(
    p: &Value,
    schema: &Value,
    ptype: &str,
    siblings: &[String],
    content_type: Option<&str>,
) -> Vec<Row> {
    if schema.as_object().is_none_or(|m| m.is_empty()) {
        return Vec::new();
    }
    let wrapper = text(p.get("name"));
    let location = text(p.get("in"));
    let expansion = if content_type.is_some() {
        "query_content_object_parameter"
    } else {
        "query_object_parameter"
    };
    let mut leaves_out: Vec<leaves::Leaf> = Vec::new();
    let mut required_by: rustc_hash::FxHashMap<String, bool> = Default::default();
    if content_type.is_some() {
        leaves_out = leaves::extract_leaves(schema)
            .into_iter()
            .filter(|l| !l.read_only && l.field_type != "object" && l.field_type != "array")
            .collect();
    } else {
        let eff = effective_schema(schema);
        let (props, req): (Option<&Map<String, Value>>, Vec<&Value>) = if ptype == "object" {
            (
                obj(eff.get("properties")),
                eff.get("required")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().collect())
                    .unwrap_or_default(),
            )
        } else if ptype == "array"
            && let Some(items) = eff.get("items").filter(|i| i.is_object())
            && items.get("type").and_then(Value::as_str) == Some("object")
        {
            (
                obj(items.get("properties")),
                items
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().collect())
                    .unwrap_or_default(),
            )
        } else {
            (None, Vec::new())
        };
        let Some(props) = props.filter(|p| !p.is_empty()) else {
            return Vec::new();
        };
        let empty = json!({});
        for (name, ps) in props {
            let ps = if ps.is_object() { ps } else { &empty };
            let base = format!("$.{name}");
            for leaf in leaves::extract_leaves_at(ps, &base) {
                if leaf.read_only || leaf.field_type == "object" || leaf.field_type == "array" {
                    continue;
                }
                if leaf.json_path == base {
                    required_by.insert(
                        leaf.field_name.clone(),
                        req.iter().any(|r| r.as_str() == Some(name.as_str())),
                    );
                }
                leaves_out.push(leaf);
            }
        }
    }
    if leaves_out.is_empty() || leaves_out.iter().all(|l| siblings.contains(&l.field_name)) {
        return Vec::new();
    }
    let mut rows = Vec::new();
    for leaf in &leaves_out {
        if siblings.contains(&leaf.field_name) {
            continue;
        }
        let req = leaf.required || required_by.get(&leaf.field_name).copied().unwrap_or(false);
        let mut row = Row::new();
        row.insert("name".into(), json!(leaf.field_name));
        row.insert("in".into(), json!(location));
        row.insert("required".into(), json!(req));
        row.insert("field_type".into(), json!(leaf.field_type));
        row.insert("json_path".into(), json!(leaf.json_path));
        row.insert("schema_expanded_from".into(), json!(wrapper));
        row.insert("schema_expansion".into(), json!(expansion));
        if let Some(ct) = content_type {
            row.insert("content_type".into(), json!(ct));
        }
        if !leaf.description.is_empty() {
            row.insert("description".into(), json!(first_n(&leaf.description, 300)));
        }
        if !leaf.enum_values.is_empty() {
            row.insert("enum".into(), Value::Array(leaf.enum_values.clone()));
        }
        copy_row_hints(&leaves::leaf_row(leaf, &location), &mut row);
        for k in ["style", "explode", "allowReserved", "deprecated"] {
            if let Some(v) = p.get(k) {
                row.insert(k.into(), v.clone());
            }
        }
        rows.push(row);
    }
    rows
}

fn param_schema_and_content(p: &Value) -> (Value, Option<String>) {
    let schema = p
        .get("schema")
        .filter(|s| s.as_object().is_some_and(|m| !m.is_empty()));
    let (cs, ct) = match p.get("content") {
        Some(c) => pick_content_schema(c),
        None => (None, None),
    };
    let schema = match schema {
        Some(s) => s.clone(),
        None => cs.cloned().unwrap_or(json!({})),
    };
    (effective_schema(&schema), ct)
}

fn swagger_type(p: &Value) -> String {
    match p.get("type").and_then(Value::as_str).unwrap_or("string") {
        t @ ("integer" | "number" | "boolean" | "array" | "object") => t.to_string(),
        _ => "string".into(),
    }
}

/// Tool parameters (`_extract_params_openapi3` / `_extract_params_swagger2`).
pub fn tool_parameters(
    op: &Value,
    item: &Value,
    swagger: bool,
    body: &BodyInfo,
) -> Vec<ParamSchema> {
    let raw = merged_parameters(op, item);
    let mut params = Vec::new();
    let from_row = |row: &Row| ParamSchema {
        name: text(row.get("field_name")),
        ty: {
            let t = text(row.get("field_type"));
            if t.is_empty() { "string".into() } else { t }
        },
        description: text(row.get("description")),
        required: row.get("required").is_some_and(truthy),
        enum_values: row.get("enum").filter(|e| e.is_array()).cloned(),
    };
    if swagger {
        for p in raw {
            let loc = text(p.get("in"));
            if loc == "body" {
                let bs = p.get("schema").cloned().unwrap_or(json!({}));
                let mut rows = top_level_rows(&bs);
                if rows.is_empty()
                    && let Some(r) =
                        request_body_root_row(&bs, p.get("required").is_some_and(truthy))
                {
                    rows = vec![r];
                }
                params.extend(rows.iter().map(from_row));
            } else {
                let en = schema_enum(p);
                params.push(ParamSchema {
                    name: text(p.get("name")),
                    ty: swagger_type(p),
                    description: p.get("description").map(key_str).unwrap_or_default(),
                    required: loc == "path" || p.get("required").is_some_and(truthy),
                    enum_values: (!en.is_empty()).then(|| Value::Array(en)),
                });
            }
        }
        return params;
    }
    let siblings = sibling_names(&raw, false);
    for p in &raw {
        let (schema, ct) = param_schema_and_content(p);
        let loc = text(p.get("in"));
        let required = loc == "path" || p.get("required").is_some_and(truthy);
        let ptype = py_schema_type(&schema);
        if (ptype == "object" || ptype == "array")
            && loc == "query"
            && p.get("style").and_then(Value::as_str) != Some("deepObject")
        {
            let rows = expanded_parameter_rows(p, &schema, &ptype, &siblings, ct.as_deref());
            if !rows.is_empty() {
                for row in &rows {
                    params.push(ParamSchema {
                        name: text(row.get("name")),
                        ty: {
                            let t = text(row.get("field_type"));
                            if t.is_empty() { "string".into() } else { t }
                        },
                        description: text(row.get("description")),
                        required: row.get("required").is_some_and(truthy),
                        enum_values: row.get("enum").filter(|e| e.is_array()).cloned(),
                    });
                }
                continue;
            }
        }
        let desc = merge_description(
            &p.get("description").map(text_of).unwrap_or_default(),
            &py_schema_description(&schema),
        );
        let en = schema_enum(&schema);
        params.push(ParamSchema {
            name: text(p.get("name")),
            ty: ptype,
            description: desc,
            required,
            enum_values: (!en.is_empty()).then(|| Value::Array(en)),
        });
    }
    // request body: every media type's schema, then rows only examples revealed
    let mut seen: Vec<String> = Vec::new();
    for (_, bs) in &body.schemas {
        let mut rows = top_level_rows(bs);
        if rows.is_empty()
            && let Some(r) = request_body_root_row(bs, body.required)
        {
            rows = vec![r];
        }
        for row in &rows {
            let name = text(row.get("field_name"));
            if name.is_empty() || seen.contains(&name) {
                continue;
            }
            seen.push(name);
            params.push(from_row(row));
        }
    }
    for cr in &body.content_rows {
        for row in cr
            .get("top_level_fields")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Row::from_value)
        {
            let name = text(row.get("field_name"));
            if name.is_empty() || seen.contains(&name) {
                continue;
            }
            seen.push(name);
            params.push(from_row(&row));
        }
    }
    params
}

fn text_of(v: &Value) -> String {
    text(Some(v))
}

/// `openapi.parameters` rows (non-body parameters).
pub fn parameter_rows(op: &Value, item: &Value, swagger: bool) -> Vec<Row> {
    let raw = merged_parameters(op, item);
    let siblings = sibling_names(&raw, swagger);
    let mut rows = Vec::new();
    for p in raw {
        let location = text(p.get("in"));
        if location == "body" {
            continue;
        }
        let (schema, ct) = if swagger {
            (effective_schema(p), None)
        } else {
            param_schema_and_content(p)
        };
        let required = location == "path" || p.get("required").is_some_and(truthy);
        let ptype = py_schema_type(&schema);
        if (ptype == "object" || ptype == "array")
            && location == "query"
            && p.get("style").and_then(Value::as_str) != Some("deepObject")
        {
            let ex = expanded_parameter_rows(p, &schema, &ptype, &siblings, ct.as_deref());
            if !ex.is_empty() {
                rows.extend(ex);
                continue;
            }
        }
        let en = schema_enum(if swagger { p } else { &schema });
        let mut row = Row::new();
        row.insert("name".into(), json!(text(p.get("name"))));
        row.insert("in".into(), json!(location));
        row.insert("required".into(), json!(required));
        row.insert("field_type".into(), json!(ptype));
        add_schema_hints(&mut row, &schema);
        let d = merge_description(&text(p.get("description")), &py_schema_description(&schema));
        if !d.is_empty() {
            row.insert("description".into(), json!(first_n(&d, 300)));
        }
        if !en.is_empty() {
            row.insert("enum".into(), Value::Array(en));
        }
        if !swagger {
            add_parameter_content_metadata(&mut row, p);
        }
        let mut ex = example_rows(p, &location, None, None, true);
        ex.extend(example_rows(&schema, &location, None, None, true));
        if !ex.is_empty() {
            ex.truncate(MAX_EXAMPLES);
            row.insert("examples".into(), rows_value(ex));
        }
        for k in ["style", "explode", "allowReserved", "deprecated"] {
            if let Some(v) = p.get(k) {
                row.insert(k.into(), v.clone());
            }
        }
        rows.push(row);
    }
    rows
}

// ---------------------------------------------------------------------------------------
// request body

pub struct BodyInfo {
    pub schema: Value,
    pub content_type: Option<String>,
    pub required: bool,
    /// every media type's schema in execution preference order
    pub schemas: Vec<(Option<String>, Value)>,
    pub content_rows: Vec<Row>,
}

fn consumes_list(op: &Value, item: &Value, spec: &Value, key: &str) -> Vec<Value> {
    for src in [op.get(key), item.get(key), spec.get(key)] {
        if let Some(Value::Array(a)) = src
            && !a.is_empty()
        {
            return a.clone();
        }
    }
    Vec::new()
}

pub fn body_info(op: &Value, item: &Value, spec: &Value, swagger: bool) -> BodyInfo {
    if swagger {
        let consumes = consumes_list(op, item, spec, "consumes");
        let ct = consumes.first().map(key_str);
        let mut schema = json!({});
        let mut required = false;
        for p in merged_parameters(op, item) {
            if p.get("in").and_then(Value::as_str) == Some("body") {
                schema = p
                    .get("schema")
                    .filter(|s| truthy(s))
                    .cloned()
                    .unwrap_or(json!({}));
                required = p.get("required").is_some_and(truthy);
                break;
            }
        }
        let content_rows = media_type_name_rows(&consumes, truthy(&schema));
        return BodyInfo {
            schemas: Vec::new(),
            schema,
            content_type: ct,
            required,
            content_rows,
        };
    }
    let empty = json!({});
    let rb = op
        .get("requestBody")
        .filter(|r| r.is_object())
        .unwrap_or(&empty);
    let content = rb.get("content").filter(|c| truthy(c)).unwrap_or(&empty);
    let required = rb.get("required").is_some_and(truthy);
    let (sel, ct) = pick_content_schema(content);
    let mut schemas: Vec<(Option<String>, Value)> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    if let Some(s) = sel {
        schemas.push((ct.clone(), s.clone()));
        if let Some(c) = &ct {
            seen.push(c.clone());
        }
    }
    for (c, media) in content.as_object().into_iter().flatten() {
        let Some(s) = media
            .get("schema")
            .filter(|s| s.as_object().is_some_and(|m| !m.is_empty()))
        else {
            continue;
        };
        if seen.contains(c) {
            continue;
        }
        schemas.push((Some(c.clone()), s.clone()));
        seen.push(c.clone());
    }
    let content_rows = content_type_rows(content, "request_body", None, required, None);
    BodyInfo {
        schema: sel.cloned().unwrap_or(json!({})),
        content_type: ct,
        required,
        schemas,
        content_rows,
    }
}

pub struct BodyRows {
    pub root: Option<Row>,
    pub top: Vec<Row>,
    pub fields: Vec<Row>,
    pub all_top: Vec<Row>,
    pub all_fields: Vec<Row>,
}

pub fn body_rows(body: &mut BodyInfo) -> BodyRows {
    for row in body.content_rows.iter_mut() {
        if body.content_type.is_some()
            && row.get("content_type").and_then(Value::as_str) == body.content_type.as_deref()
        {
            row.insert("selected".into(), json!(true));
        }
    }
    let selected: Vec<&Row> = body
        .content_rows
        .iter()
        .filter(|r| {
            r.get("content_type").and_then(Value::as_str) == body.content_type.as_deref()
                && (body.content_type.is_some()
                    || r.get("content_type").is_some_and(Value::is_null))
        })
        .collect();
    let all: Vec<&Row> = body.content_rows.iter().collect();
    let root = request_body_root_row(&body.schema, body.required);
    let mut top =
        merge_body_field_rows(top_level_rows(&body.schema), &selected, "top_level_fields");
    if let Some(r) = &root
        && top.is_empty()
    {
        top = vec![r.clone()];
    }
    let fields =
        merge_body_field_rows(schema_field_rows(&body.schema, "body"), &selected, "fields");
    let mut all_top = merge_body_field_rows(top.clone(), &all, "top_level_fields");
    if let Some(r) = &root
        && all_top.is_empty()
    {
        all_top = vec![r.clone()];
    }
    let mut all_fields = merge_body_field_rows(fields.clone(), &all, "fields");
    if let Some(r) = &root {
        all_fields = merge_field_rows(vec![r.clone()], &all_fields);
    }
    BodyRows {
        root,
        top,
        fields,
        all_top,
        all_fields,
    }
}

// ---------------------------------------------------------------------------------------
// responses

fn is_success_status(s: &str) -> bool {
    let t = strip(s);
    if !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()) {
        return t.parse::<u64>().is_ok_and(|n| (200..300).contains(&n));
    }
    t.to_uppercase() == "2XX"
}

fn is_status_range(s: &str) -> bool {
    let t = strip(s).to_uppercase();
    let b = t.as_bytes();
    b.len() == 3 && b"12345".contains(&b[0]) && &t[1..] == "XX"
}

fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_digit())
}

/// Response statuses sorted as the reference does: numeric, ranges, `default`, others.
pub fn sorted_statuses(responses: &Map<String, Value>) -> Vec<&String> {
    let mut keys: Vec<&String> = responses.keys().collect();
    keys.sort_by(|a, b| {
        let rank = |s: &str| -> (u8, u64, String) {
            if is_digits(s) {
                (0, s.parse::<u64>().unwrap_or(u64::MAX), String::new())
            } else if is_status_range(s) {
                (1, 0, s.to_uppercase())
            } else if s == "default" {
                (2, 0, s.to_string())
            } else {
                (3, 0, s.to_string())
            }
        };
        rank(a).cmp(&rank(b))
    });
    keys
}

fn preferred_success_codes(responses: &Map<String, Value>) -> Vec<String> {
    let mut numeric: Vec<&String> = responses
        .keys()
        .filter(|c| is_digits(c) && c.parse::<u64>().is_ok_and(|n| (200..300).contains(&n)))
        .collect();
    numeric.sort();
    let mut ranges: Vec<&String> = responses
        .keys()
        .filter(|c| !is_digits(c) && is_success_status(c))
        .collect();
    ranges.sort();
    numeric.into_iter().chain(ranges).cloned().collect()
}

/// (schema, status, content type) of the preferred success response.
pub fn pick_response<'a>(
    op: &'a Value,
    item: &Value,
    spec: &Value,
    swagger: bool,
) -> (&'a Value, Option<String>, Option<String>) {
    let produces = consumes_list(op, item, spec, "produces");
    let swagger_ct = produces.first().map(key_str);
    let Some(responses) = obj(op.get("responses")) else {
        return (&EMPTY_OBJECT, None, None);
    };
    let mut codes = preferred_success_codes(responses);
    codes.push("default".into());
    for code in codes {
        let Some(resp) = responses.get(&code) else {
            continue;
        };
        if let Some(s) = resp.get("schema").filter(|s| s.is_object()) {
            let _ = swagger;
            return (s, Some(code), swagger_ct);
        }
        let (picked, ct) = pick_content_schema(resp.get("content").unwrap_or(&EMPTY_OBJECT));
        if let Some(p) = picked {
            return (p, Some(code), ct);
        }
    }
    (&EMPTY_OBJECT, None, None)
}

fn swagger_response_examples(resp: &Value, status: &str, compact: bool) -> Vec<Row> {
    let Some(ex) = obj(resp.get("examples")) else {
        return Vec::new();
    };
    let mut rows = Vec::new();
    for (ct, v) in ex {
        if rows.len() >= MAX_EXAMPLES {
            break;
        }
        let mut row = Row::new();
        row.insert("name".into(), json!("example"));
        row.insert("location".into(), json!("response"));
        row.insert("status".into(), json!(status));
        row.insert("content_type".into(), json!(ct));
        row.insert(
            "value".into(),
            if compact { compact_value(v) } else { v.clone() },
        );
        rows.push(row);
    }
    rows
}

fn response_header_rows(resp: &Value, status: &str, swagger: bool) -> Vec<Row> {
    let Some(headers) = obj(resp.get("headers")) else {
        return Vec::new();
    };
    let mut rows = Vec::new();
    for (name, header) in headers {
        if !header.is_object() {
            continue;
        }
        let raw = if swagger {
            Some(header)
        } else {
            header.get("schema")
        };
        let schema = effective_schema(raw.filter(|s| s.is_object()).unwrap_or(&json!({})));
        let mut row = Row::new();
        row.insert("name".into(), json!(name));
        row.insert("field_name".into(), json!(name));
        row.insert("json_path".into(), json!(format!("$.headers.{name}")));
        row.insert("field_type".into(), json!(py_schema_type(&schema)));
        row.insert("required".into(), json!(false));
        row.insert("location".into(), json!("response_header"));
        row.insert("status".into(), json!(status));
        add_schema_hints(&mut row, &schema);
        let d = merge_description(
            &text(header.get("description")),
            &py_schema_description(&schema),
        );
        if !d.is_empty() {
            row.insert("description".into(), json!(first_n(&d, 300)));
        }
        let en = schema_enum(if swagger { header } else { &schema });
        if !en.is_empty() {
            row.insert("enum".into(), Value::Array(en));
        }
        if !swagger {
            add_parameter_content_metadata(&mut row, header);
        }
        let mut ex = example_rows(header, "response_header", None, None, true);
        ex.extend(example_rows(&schema, "response_header", None, None, true));
        if !ex.is_empty() {
            ex.truncate(MAX_EXAMPLES);
            let n = ex.len();
            row.insert("examples".into(), rows_value(ex));
            row.insert("example_count".into(), json!(n));
        }
        for k in ["style", "explode", "deprecated"] {
            if let Some(v) = header.get(k) {
                row.insert(k.into(), v.clone());
            }
        }
        rows.push(row);
    }
    rows
}

/// `openapi.responses` rows; `link_rows(resp, status)` gives a response's link rows.
/// A response status row (`openapi.responses[]`) with the lists later steps read kept as
/// rows; in `row` they are frozen, as is its media-type list, in which the selected media
/// type of the selected status is marked first.
pub struct ResponseRow {
    pub row: Row,
    pub examples: Vec<Row>,
    pub example_fields: Vec<Row>,
    pub headers: Vec<Row>,
    pub links: Vec<Row>,
}

impl ResponseRow {
    pub fn status(&self) -> Option<&str> {
        self.row.get("status").and_then(Value::as_str)
    }
}

pub fn response_rows<'a>(
    op: &'a Value,
    item: &Value,
    spec: &Value,
    swagger: bool,
    link_rows: &dyn Fn(&Value, &str) -> Vec<Row>,
    memo: &leaves::FieldMemo<'a>,
    selected: (Option<&str>, Option<&str>),
) -> Vec<ResponseRow> {
    use super::row::freeze_rows;
    // the selected status, and its selected media type, are marked `selected`
    let mark = |cts: &mut [Row], status: &str| {
        if selected.0 == Some(status) {
            for c in cts.iter_mut() {
                if selected.1.is_some()
                    && c.get("content_type").and_then(Value::as_str) == selected.1
                {
                    c.insert("selected".into(), json!(true));
                }
            }
        }
    };
    let produces = consumes_list(op, item, spec, "produces");
    let swagger_ct = produces.first().map(key_str);
    let Some(responses) = obj(op.get("responses")) else {
        return Vec::new();
    };
    let empty: &'a Value = &EMPTY_OBJECT;
    let mut rows = Vec::new();
    for status in sorted_statuses(responses) {
        let resp = responses
            .get(status)
            .filter(|r| r.is_object())
            .unwrap_or(empty);
        let mut row = Row::new();
        row.insert("status".into(), json!(status));
        row.insert("success".into(), json!(is_success_status(status)));
        let d = strip(&text(resp.get("description"))).to_string();
        if !d.is_empty() {
            row.insert("description".into(), json!(first_n(&d, 300)));
        }
        let headers = response_header_rows(resp, status, swagger);
        if !headers.is_empty() {
            let n = headers.len();
            row.insert("headers".into(), freeze_rows(&headers));
            row.insert("header_count".into(), json!(n));
        }
        let schema: Option<&Value>;
        let content_type: Option<String>;
        let example_fields: Vec<Row>;
        let examples: Vec<Row>;
        if swagger {
            schema = resp.get("schema").filter(|s| s.is_object());
            content_type = if schema.is_some_and(truthy) {
                swagger_ct.clone()
            } else {
                None
            };
            let mut cts = media_type_name_rows(&produces, schema.is_some_and(truthy));
            if !cts.is_empty() {
                mark(&mut cts, status);
                row.insert("content_types".into(), freeze_rows(&cts));
            }
            let raw = swagger_response_examples(resp, status, false);
            example_fields = example_leaf_rows(&raw, "response", "response_example");
            examples = swagger_response_examples(resp, status, true);
        } else {
            let content = resp.get("content").unwrap_or(empty);
            let media = media_rows(content, "response", Some(status), false, Some(memo), true);
            let (s, ct) = pick_content_schema(content);
            schema = s;
            content_type = ct;
            let mut ex = Vec::new();
            let mut ef = Vec::new();
            let mut cts = Vec::with_capacity(media.len());
            for m in media {
                ex.extend(m.examples);
                ef.extend(m.example_fields);
                cts.push(m.row);
            }
            if !cts.is_empty() {
                mark(&mut cts, status);
                row.insert("content_types".into(), freeze_rows(&cts));
            }
            examples = ex;
            example_fields = merge_field_rows(Vec::new(), &ef);
        }
        if let Some(s) = schema.filter(|s| truthy(s)) {
            row.insert(
                "content_type".into(),
                content_type.map(Value::String).unwrap_or(Value::Null),
            );
            row.insert("schema_type".into(), json!(py_schema_type(s)));
            row.insert("field_count".into(), json!(memo.count(s, "response")));
        }
        if !example_fields.is_empty() {
            let n = example_fields.len();
            row.insert("example_fields".into(), freeze_rows(&example_fields));
            row.insert("example_field_count".into(), json!(n));
        }
        let mut examples = examples;
        if !examples.is_empty() {
            examples.truncate(MAX_EXAMPLES);
            let n = examples.len();
            row.insert("examples".into(), freeze_rows(&examples));
            row.insert("example_count".into(), json!(n));
        }
        let links = link_rows(resp, status);
        if !links.is_empty() {
            let n = links.len();
            row.insert("links".into(), freeze_rows(&links));
            row.insert("link_count".into(), json!(n));
        }
        if selected.0 == Some(status.as_str()) {
            row.insert("selected".into(), json!(true));
        }
        rows.push(ResponseRow {
            row,
            examples,
            example_fields,
            headers,
            links,
        });
    }
    rows
}

/// `openapi.examples`: the first five parameter, request-body and response examples.
pub fn operation_examples(params: &[Row], body_cts: &[Row], responses: &[ResponseRow]) -> Value {
    let mut pe: Vec<Value> = Vec::new();
    for row in params {
        for ex in row
            .get("examples")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_object)
        {
            let mut e = ex.clone();
            let name = row.get("name").cloned().unwrap_or(Value::Null);
            if !e.contains_key("name") {
                let n = text(Some(&name));
                e.insert(
                    "name".into(),
                    json!(if n.is_empty() { "example".into() } else { n }),
                );
            }
            if !e.contains_key("parameter") {
                e.insert("parameter".into(), name);
            }
            if !e.contains_key("location") {
                let l = row.get("in").filter(|v| truthy(v)).cloned();
                e.insert("location".into(), l.unwrap_or(json!("parameter")));
            }
            pe.push(Value::Object(e));
        }
    }
    let collect = |rows: &[Row]| -> Vec<Value> {
        let mut out = Vec::new();
        for r in rows {
            if let Some(Value::Array(a)) = r.get("examples") {
                out.extend(a.iter().cloned());
            }
        }
        out.truncate(MAX_EXAMPLES);
        out
    };
    pe.truncate(MAX_EXAMPLES);
    let response_examples: Vec<Value> = responses
        .iter()
        .flat_map(|r| &r.examples)
        .take(MAX_EXAMPLES)
        .map(|e| Value::from(e.clone()))
        .collect();
    crate::ingest::schema::object([
        ("parameters", Value::Array(pe)),
        ("request_body", Value::Array(collect(body_cts))),
        ("responses", Value::Array(response_examples)),
    ])
}

/// `input_locations` from parameter rows and body rows.
pub fn input_locations(params: &[Row], top: &[Row], leaves: &[Row]) -> Map<String, Value> {
    let mut locs: Vec<(&str, Vec<String>)> = vec![
        ("path", vec![]),
        ("query", vec![]),
        ("header", vec![]),
        ("cookie", vec![]),
        ("body", vec![]),
    ];
    for row in params {
        let loc = text(row.get("in"));
        let name = text(row.get("name"));
        if let Some((_, v)) = locs.iter_mut().find(|(l, _)| *l == loc)
            && !name.is_empty()
            && !v.contains(&name)
        {
            v.push(name);
        }
    }
    for row in top.iter().chain(leaves) {
        let name = text(row.get("field_name"));
        let v = &mut locs[4].1;
        if !name.is_empty() && !v.contains(&name) {
            v.push(name);
        }
    }
    locs.into_iter()
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect()
}

/// api_contract produces (response rows + selected response headers) and consumes
/// (parameters + body leaves; security rows are merged by the caller).
pub fn api_contract_rows(
    params: &[Row],
    body_leaves: &[Row],
    response_leaves: &[Row],
    response_headers: &[Row],
) -> (Vec<Row>, Vec<Row>) {
    let mut produces = Vec::new();
    for row in response_leaves {
        let mut p = Row::new();
        for k in ["field_name", "json_path", "field_type"] {
            p.insert(k.into(), row.get(k).cloned().unwrap_or(Value::Null));
        }
        if let Some(e) = row.get("enum").filter(|e| truthy(e)) {
            p.insert("enum".into(), e.clone());
        }
        copy_row_hints(row, &mut p);
        produces.push(p);
    }
    for row in response_headers {
        let name = {
            let n = strip(&text(row.get("field_name"))).to_string();
            if n.is_empty() {
                strip(&text(row.get("name"))).to_string()
            } else {
                n
            }
        };
        if name.is_empty() {
            continue;
        }
        let mut p = Row::new();
        p.insert("field_name".into(), json!(name));
        p.insert(
            "json_path".into(),
            row.get("json_path")
                .filter(|v| truthy(v))
                .cloned()
                .unwrap_or_else(|| json!(format!("$.headers.{name}"))),
        );
        let ft = text(row.get("field_type"));
        p.insert(
            "field_type".into(),
            json!(if ft.is_empty() { "string".into() } else { ft }),
        );
        p.insert("required".into(), json!(false));
        p.insert("location".into(), json!("response_header"));
        p.insert("kind".into(), json!("data"));
        p.insert("header".into(), json!(name));
        if let Some(e) = row.get("enum").filter(|e| truthy(e)) {
            p.insert("enum".into(), e.clone());
        }
        copy_row_hints(row, &mut p);
        produces.push(p);
    }
    let mut consumes = Vec::new();
    let mut seen: rustc_hash::FxHashSet<(String, String)> = Default::default();
    let mut add = |row: &Row, name_key: &str, loc_key: &str, consumes: &mut Vec<Row>| {
        let name = text(row.get(name_key));
        let loc = text(row.get(loc_key));
        if name.is_empty() || !seen.insert((name.clone(), loc.clone())) {
            return;
        }
        let mut c = Row::new();
        c.insert("field_name".into(), json!(name));
        let ft = text(row.get("field_type"));
        c.insert(
            "field_type".into(),
            json!(if ft.is_empty() { "string".into() } else { ft }),
        );
        c.insert(
            "required".into(),
            json!(row.get("required").is_some_and(truthy)),
        );
        c.insert("location".into(), json!(loc));
        c.insert("kind".into(), json!("data"));
        if let Some(j) = row.get("json_path").filter(|v| truthy(v)) {
            c.insert("json_path".into(), j.clone());
        }
        if let Some(e) = row.get("enum").filter(|e| truthy(e)) {
            c.insert("enum".into(), e.clone());
        }
        copy_row_hints(row, &mut c);
        consumes.push(c);
    };
    for r in params {
        add(r, "name", "in", &mut consumes);
    }
    for r in body_leaves {
        add(r, "field_name", "location", &mut consumes);
    }
    (produces, consumes)
}
