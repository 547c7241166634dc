//! Responses: statuses in the reference's order, the selected success response, and one
//! row per response (content types, headers, links, examples).

use serde_json::{Map, Value, json};

use super::examples::{example_leaf_rows, example_rows};
use super::media::pick_content_schema;
use super::merge::merge_field_rows;
use super::{EMPTY_OBJECT, MAX_EXAMPLES, Row, key_str, obj, text};

use super::body::consumes_list;
use super::media::{add_parameter_content_metadata, media_rows, media_type_name_rows};
use super::parameters::effective_schema;

use crate::ingest::leaves::{self, compact_value, schema_enum};
use crate::ingest::row::rows_value;
use crate::ingest::schema_hints::{
    add_schema_hints, first_n, merge_description, py_schema_description, py_schema_type,
};
use crate::pytext::{strip, truthy};

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
    use crate::ingest::row::freeze_rows;
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
