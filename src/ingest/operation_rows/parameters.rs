//! Parameters: the operation's and path item's merged, the tool's parameters (with object
//! parameters expanded into their properties) and `openapi.parameters` rows.

use serde_json::{Map, Value, json};

use super::body::BodyInfo;
use super::examples::example_rows;
use super::media::pick_content_schema;
use super::top_level::{flatten_top_level_allof, request_body_root_row, top_level_rows};
use super::{MAX_EXAMPLES, Row, key_str, obj, text};

use super::media::add_parameter_content_metadata;

use crate::ingest::leaves::{self, schema_enum};
use crate::ingest::row::rows_value;
use crate::ingest::schema::ParamSchema;
use crate::ingest::schema_hints::{
    add_schema_hints, copy_row_hints, first_n, merge_description, py_schema_description,
    py_schema_type,
};
use crate::pytext::truthy;

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

pub(super) fn effective_schema(schema: &Value) -> Value {
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

/// A tool parameter from a body field row.
fn param_of_field(row: &Row) -> ParamSchema {
    ParamSchema {
        name: text(row.get("field_name")),
        ty: {
            let t = text(row.get("field_type"));
            if t.is_empty() { "string".into() } else { t }
        },
        description: text(row.get("description")),
        required: row.get("required").is_some_and(truthy),
        enum_values: row.get("enum").filter(|e| e.is_array()).cloned(),
    }
}

/// Tool parameters (`_extract_params_openapi3` / `_extract_params_swagger2`): the
/// operation's and path item's parameters, then (OpenAPI 3) `body`'s, the
/// [`body_parameters`] of its request body (Swagger 2.0 reads its body parameter here).
pub fn tool_parameters(
    op: &Value,
    item: &Value,
    swagger: bool,
    body: &[ParamSchema],
) -> Vec<ParamSchema> {
    let raw = merged_parameters(op, item);
    let mut params = Vec::new();
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
                params.extend(rows.iter().map(param_of_field));
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
    params.extend_from_slice(body);
    params
}

/// An OpenAPI 3 request body's tool parameters: the top-level fields of every media
/// type's schema (or its root), then those only its examples revealed, each name once.
pub fn body_parameters(body: &BodyInfo) -> Vec<ParamSchema> {
    let mut params = Vec::new();
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
            params.push(param_of_field(row));
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
            params.push(param_of_field(&row));
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
