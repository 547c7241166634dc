//! The request body: its selected media type and schema (`requestBody`, or Swagger 2.0's
//! `in: body` parameter and `consumes`), and its root, top-level and leaf field rows.

use serde_json::{Value, json};

use super::media::{content_type_rows, pick_content_schema};
use super::merge::merge_field_rows;
use super::parameters::merged_parameters;
use super::top_level::{request_body_root_row, top_level_rows};
use super::{Row, key_str};

use super::media::media_type_name_rows;
use super::merge::merge_body_field_rows;

use crate::ingest::leaves::schema_field_rows;
use crate::pytext::truthy;

pub struct BodyInfo {
    pub schema: Value,
    pub content_type: Option<String>,
    pub required: bool,
    /// every media type's schema in execution preference order
    pub schemas: Vec<(Option<String>, Value)>,
    pub content_rows: Vec<Row>,
}

pub(super) fn consumes_list(op: &Value, item: &Value, spec: &Value, key: &str) -> Vec<Value> {
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
