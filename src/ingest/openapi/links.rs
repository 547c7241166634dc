//! Response links (`responses.*.links`) as the reference records them: the target
//! operation, and each parameter or request body with the runtime expression's source.

use serde_json::{Map, Value, json};

use super::s;
use crate::ingest::row::Row;

/// One response link as the reference records it (spec §1.5 link rows).
pub(super) fn link_row(name: &str, status: &str, l: &Value) -> Row {
    let mut m = Row::new();
    m.insert("name".into(), json!(name));
    m.insert("status".into(), json!(status));
    if let Some(id) = s(l.get("operationId")) {
        m.insert("operation_id".into(), json!(id));
    }
    if let Some(r) = s(l.get("operationRef")) {
        m.insert("operation_ref".into(), json!(r));
    }
    if let Some(d) = s(l.get("description")) {
        m.insert("description".into(), json!(d));
    }
    let mut params = Vec::new();
    if let Some(ps) = l.get("parameters").and_then(Value::as_object) {
        for (pname, expr) in ps {
            let mut p = Map::new();
            p.insert("field_name".into(), json!(pname));
            p.insert("parameter".into(), json!(pname));
            p.extend(link_value(expr));
            params.push(Value::Object(p));
        }
    }
    // a link without parameters has neither list nor count
    if !params.is_empty() {
        let n = params.len();
        m.insert("parameters".into(), Value::Array(params));
        m.insert("parameter_count".into(), json!(n));
    }
    if let Some(b) = l.get("requestBody") {
        m.insert("request_body".into(), Value::Object(link_value(b)));
    }
    if let Some(sv) = l.get("server") {
        m.insert("server".into(), sv.clone());
    }
    m
}

/// The JSONPath of a JSON pointer (`/a/0/b` → `$.a[0].b`).
fn pointer_json_path(ptr: &str) -> String {
    let mut jp = String::from("$");
    for part in ptr.split('/').filter(|x| !x.is_empty()) {
        let part = part.replace("~1", "/").replace("~0", "~");
        if !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()) {
            jp.push_str(&format!("[{part}]"));
        } else {
            jp.push('.');
            jp.push_str(&part);
        }
    }
    jp
}

/// A link parameter or request body: a runtime expression is kept with its source (and the
/// path, header or request field it names); any other value as `{value}`.
fn link_value(v: &Value) -> Map<String, Value> {
    let mut m = Map::new();
    match v {
        Value::String(e) => {
            m.insert("expression".into(), json!(e));
            let (source, extra) = expression_source(e);
            m.insert("source".into(), json!(source));
            if let Some((k, x)) = extra {
                m.insert(k.into(), json!(x));
            }
        }
        other => {
            m.insert("value".into(), other.clone());
        }
    }
    m
}

/// Source of a runtime expression (`$response.body#/a/0/b` → response_body, `$.a[0].b`).
fn expression_source(e: &str) -> (&'static str, Option<(&'static str, String)>) {
    if let Some(ptr) = e.strip_prefix("$response.body#") {
        return ("response_body", Some(("json_path", pointer_json_path(ptr))));
    }
    if let Some(h) = e.strip_prefix("$response.header.") {
        return ("response_header", Some(("header", h.to_string())));
    }
    if let Some(ptr) = e.strip_prefix("$request.body#") {
        return ("request_body", Some(("json_path", pointer_json_path(ptr))));
    }
    for (pre, src) in [
        ("$request.path.", "request_path"),
        ("$request.query.", "request_query"),
        ("$request.header.", "request_header"),
        ("$request.cookie.", "request_cookie"),
    ] {
        if let Some(f) = e.strip_prefix(pre) {
            return (src, Some(("request_field", f.to_string())));
        }
    }
    match e {
        "$url" => ("url", None),
        "$method" => ("method", None),
        "$statusCode" => ("statusCode", None),
        _ => ("constant_or_expression", None),
    }
}
