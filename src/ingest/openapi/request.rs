//! An operation's request body as its tool records it: the tool parameters it gives, its
//! examples, its field rows (for `input_locations` and the consume rows), the frozen
//! `openapi.request_body` block with the selected schema and media type, and what the
//! readiness checks read of it — made once for the operations that declare the same body.

use serde_json::{Map, Value, json};

use super::Ctx;
use super::memo::{Bounds, Memo, Side};
use crate::ingest::frozen::{freeze, freeze_ref};
use crate::ingest::operation_rows::{self as rows, BodyInfo, BodyRows, Row};
use crate::ingest::readiness::OperationFacts;
use crate::ingest::schema::ParamSchema;
use crate::pytext::truthy;

/// What an operation's request body gives its tool: a function of the operation's
/// `requestBody` in OpenAPI 3 (the 50k synthetic spec's 28,974 bodies are 6,323 different
/// ones), of its body parameter and `consumes` in Swagger 2.0 (not memoised).
pub(super) struct RequestSide {
    /// the tool parameters the body's fields give (OpenAPI 3: Swagger 2.0's body parameter
    /// is read with the other parameters)
    pub(super) params: Vec<ParamSchema>,
    /// `openapi.examples.request_body`
    pub(super) examples: Vec<Value>,
    /// every media type's top-level and leaf field rows
    pub(super) all_top: Vec<Row>,
    pub(super) all_fields: Vec<Row>,
    /// `openapi.request_body`, frozen
    pub(super) block: Value,
    /// `metadata.request_body_schema` (a body with a schema), frozen
    pub(super) schema: Option<Value>,
    /// `metadata.request_content_type`
    pub(super) content_type: Option<String>,
    /// what the readiness checks read of the body (before its rows were frozen)
    pub(super) facts: OperationFacts,
    /// the `$ref` nodes resolving the body produced
    pub(super) nodes: u64,
}

impl RequestSide {
    /// The request side of an operation whose resolved `requestBody` (OpenAPI 3), or
    /// parameters and `consumes` (Swagger 2.0), are in `op`, `item` its resolved path item.
    pub(super) fn of(ctx: &Ctx, op: &Value, item: &Value, nodes: u64) -> RequestSide {
        let mut body = rows::body_info(op, item, ctx.spec, ctx.swagger);
        let params = if ctx.swagger {
            Vec::new()
        } else {
            rows::body_parameters(&body)
        };
        let body_rows = rows::body_rows(&mut body);
        let examples = rows::body_examples(&body.content_rows);
        let (all_top, all_fields) = (body_rows.all_top.clone(), body_rows.all_fields.clone());
        let content_type = body.content_type.clone();
        let schema = truthy(&body.schema).then(|| freeze_ref(&body.schema));
        let block = Value::Object(block(body, body_rows));
        let facts = OperationFacts::of_request_body(&block);
        RequestSide {
            params,
            examples,
            all_top,
            all_fields,
            block: freeze(block),
            schema,
            content_type,
            facts,
            nodes,
        }
    }
}

/// `openapi.request_body`.
fn block(body: BodyInfo, body_rows: BodyRows) -> Map<String, Value> {
    let mut rb = Map::with_capacity(9);
    rb.insert("required".into(), json!(body.required));
    rb.insert(
        "content_type".into(),
        body.content_type.map(Value::String).unwrap_or(Value::Null),
    );
    let to_arr = crate::ingest::row::rows_value;
    rb.insert("content_types".into(), to_arr(body.content_rows));
    rb.insert("schema".into(), body.schema);
    if let Some(r) = body_rows.root {
        rb.insert("root".into(), Value::from(r));
    }
    rb.insert("top_level_fields".into(), to_arr(body_rows.top));
    rb.insert("fields".into(), to_arr(body_rows.fields));
    rb.insert("all_top_level_fields".into(), to_arr(body_rows.all_top));
    rb.insert("all_fields".into(), to_arr(body_rows.all_fields));
    rb
}

/// The request sides an operation builder made, by the text of the `requestBody` (see
/// [`RequestSide`]).
pub(super) type RequestMemo = Memo<RequestSide>;

pub(super) static REQUEST_MEMO: Bounds = Bounds::new(4096, 1 << 16);

impl Side for RequestSide {
    /// its rows and parameters
    fn weight(&self) -> usize {
        1 + self.params.len() + self.all_top.len() + self.all_fields.len()
    }

    fn nodes(&self) -> u64 {
        self.nodes
    }
}

/// The memo's key for an operation as written: the text of its `requestBody` (`None`: not
/// memoised, a Swagger 2.0 operation or one that is itself a `$ref`).
pub(super) fn memo_key(op: &Value, swagger: bool) -> Option<String> {
    let m = op
        .as_object()
        .filter(|m| !swagger && !m.contains_key("$ref"))?;
    serde_json::to_string(&m.get("requestBody")).ok()
}
