//! The api-contract produces/consumes rows, `input_locations` and `openapi.examples` of an
//! operation, from its parameter, body and response rows.

use serde_json::{Map, Value, json};

use super::responses::ResponseRow;
use super::{MAX_EXAMPLES, Row, text};

use crate::ingest::schema_hints::copy_row_hints;
use crate::pytext::{strip, truthy};

/// The first five response examples, in status order (`openapi.examples.responses`).
pub fn response_examples(responses: &[ResponseRow]) -> Vec<Value> {
    responses
        .iter()
        .flat_map(|r| &r.examples)
        .take(MAX_EXAMPLES)
        .map(|e| Value::from(e.clone()))
        .collect()
}

/// The first five request-body examples, in media type order (`openapi.examples.request_body`).
pub fn body_examples(body_cts: &[Row]) -> Vec<Value> {
    body_cts
        .iter()
        .filter_map(|r| r.get("examples").and_then(Value::as_array))
        .flatten()
        .take(MAX_EXAMPLES)
        .cloned()
        .collect()
}

/// `openapi.examples`: the first five parameter examples, and the request-body and
/// response examples (from [`body_examples`] and [`response_examples`]).
pub fn operation_examples(
    params: &[Row],
    body_examples: Vec<Value>,
    response_examples: Vec<Value>,
) -> Value {
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
    pe.truncate(MAX_EXAMPLES);
    crate::ingest::schema::object([
        ("parameters", Value::Array(pe)),
        ("request_body", Value::Array(body_examples)),
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

/// api_contract produces: the selected response's leaves, then its headers (the consumes,
/// [`contract_consume_rows`], read no response: the two halves are made apart).
pub fn contract_produce_rows(response_leaves: &[Row], response_headers: &[Row]) -> Vec<Row> {
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
    produces
}

/// api_contract consumes: the parameters, then the request body's leaves (one row per
/// name and location; security rows are merged by the caller).
pub fn contract_consume_rows(params: &[Row], body_leaves: &[Row]) -> Vec<Row> {
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
    consumes
}
