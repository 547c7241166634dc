//! Content: the media types of a body, parameter or response as content-type rows (schema,
//! fields, examples, encodings and their headers), and the preferred media type's schema.

use serde_json::{Value, json};

use super::examples::{example_leaf_rows, example_rows, example_top_level_rows};
use super::merge::merge_field_rows;
use super::top_level::{request_body_root_row, top_level_rows};
use super::{EMPTY_OBJECT, MAX_EXAMPLES, Row, is_json_media_type, key_str, obj, text};

use crate::ingest::leaves::{self, schema_enum, schema_field_rows};
use crate::ingest::row::rows_value;
use crate::ingest::schema_hints::{
    add_schema_hints, first_n, merge_description, py_schema_description, py_schema_type,
};
use crate::pytext::truthy;

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
pub(super) struct MediaRow {
    pub(super) row: Row,
    pub(super) examples: Vec<Row>,
    pub(super) example_fields: Vec<Row>,
}

pub(super) fn media_rows<'a>(
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
            let v = crate::ingest::row::freeze_rows(&rows);
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

pub(super) fn add_parameter_content_metadata(row: &mut Row, parameter: &Value) {
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

pub(super) fn media_type_name_rows(media: &[Value], has_schema: bool) -> Vec<Row> {
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
