//! One OpenAPI/Swagger operation's inputs and outputs as graph-tool-call 0.47.0 records them:
//! tool parameters, `openapi.parameters`, request body (content types, top-level fields,
//! leaf fields, root slot), responses (content types, headers, examples, example-inferred
//! fields), the api-contract consumes/produces rows and `input_locations`.
//!
//! Works on the operation and path item with every local `$ref` already resolved. One file
//! per block: [`parameters`], [`body`] (with its [`top_level`] rows), [`media`] (content
//! types and encodings, shared by bodies, parameters and responses), [`responses`],
//! [`examples`] (example payloads and the fields inferred from them), [`merge`] (rows merged
//! by field and path) and [`contract`] (api-contract rows, `input_locations`, examples).
//!
//! The seam is one-way: [`crate::ingest::openapi`] calls in here and this module never
//! imports it back; what both need of a schema lives in the leaf [`crate::ingest::schema_hints`].

mod body;
mod contract;
mod examples;
mod media;
mod merge;
mod parameters;
mod responses;
mod top_level;

use serde_json::{Map, Value};

use crate::pytext::{py_str, strip, truthy};

pub use super::row::Row;
pub use body::{BodyInfo, BodyRows, body_info, body_rows};
pub use contract::{
    body_examples, contract_consume_rows, contract_produce_rows, input_locations,
    operation_examples, response_examples,
};
pub use examples::{example_leaf_rows, example_rows, example_top_level_rows};
pub use media::{content_type_rows, pick_content_schema};
pub use merge::merge_field_rows;
pub use parameters::{body_parameters, merged_parameters, parameter_rows, tool_parameters};
pub use responses::{ResponseRow, pick_response, response_rows, sorted_statuses};
pub use top_level::{flatten_top_level_allof, request_body_root_row, top_level_rows};

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
