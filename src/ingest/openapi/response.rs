//! An operation's responses as its tool records them: every response's row, the selected
//! (success) response with its fields (schema fields merged with those inferred from its
//! examples, or a synthetic root row), envelope, headers and links, and the response links
//! the api contract lists.

use serde_json::{Map, Value, json};

use super::Ctx;
use super::links::link_row;
use super::memo::{Bounds, Memo, Side};
use crate::ingest::build::contracts::ProduceSide;
use crate::ingest::leaves::FieldMemo;
use crate::ingest::operation_rows::{self as rows, ResponseRow};
use crate::ingest::row::{Row, freeze_rows};
use crate::ingest::schema_hints::{
    add_schema_hints, first_n, py_schema_description, py_schema_type,
};
use crate::pytext::truthy;

/// What an operation's responses give its tool, made once for the operations that declare
/// the same responses: it is a function of the operation's `responses` and `produces` (with
/// its path item's and the spec's), which the operations of one resource often repeat
/// (the 50k synthetic spec's 50,000 operations declare 19,611 different ones).
pub(super) struct ResponseSide {
    /// the first response examples (`openapi.examples.responses`)
    pub(super) examples: Vec<Value>,
    /// every response's links, with the status and success of their response
    links: Vec<(Row, Value, bool)>,
    pub(super) status: Option<String>,
    pub(super) content_type: Option<String>,
    /// `openapi.response`
    pub(super) block: Value,
    /// `openapi.responses` and `openapi.error_responses`, frozen
    pub(super) responses: Value,
    pub(super) error_responses: Value,
    /// the selected schema, frozen (`metadata.response_schema`)
    pub(super) schema: Option<Value>,
    /// the `api_contract` produce rows, frozen, and what promotion and the readiness
    /// report need of them
    pub(super) produces_frozen: Value,
    pub(super) produces: ProduceSide,
    /// how many there are (the memo's measure of a side's size)
    produce_rows: usize,
    /// the `$ref` nodes resolving the responses produced
    pub(super) nodes: u64,
}

impl ResponseSide {
    /// The response side of an operation whose resolved `responses` and `produces` are in
    /// `op` (other members are not read), `item` its resolved path item.
    pub(super) fn of(ctx: &Ctx, op: &Value, item: &Value, nodes: u64) -> ResponseSide {
        let field_memo = FieldMemo::default();
        let mut resp = Responses::read(ctx, op, item, &field_memo);
        resp.select(&field_memo);
        let produce_rows = rows::contract_produce_rows(&resp.fields, resp.headers());
        let produces_frozen = freeze_rows(&produce_rows);
        let produces = ProduceSide::of(&produce_rows);
        let frozen = FrozenResponses::of(&resp);
        let block = resp.response_block(frozen.fields, &frozen.schema);
        let links = resp
            .rows
            .iter()
            .flat_map(|r| {
                let status = r.row.get("status").cloned().unwrap_or(Value::Null);
                let success = r.row.get("success").is_some_and(truthy);
                r.links
                    .iter()
                    .map(move |l| (l.clone(), status.clone(), success))
            })
            .collect();
        ResponseSide {
            examples: rows::response_examples(&resp.rows),
            links,
            status: resp.status,
            content_type: resp.content_type,
            block,
            responses: frozen.responses,
            error_responses: frozen.error_responses,
            schema: frozen.schema,
            produces_frozen,
            produces,
            produce_rows: produce_rows.len(),
            nodes,
        }
    }

    /// `api_contract.links`: every response's links, with their source.
    pub(super) fn contract_links(&self, op_id: &str) -> Vec<Value> {
        let mut links: Vec<Value> = Vec::with_capacity(self.links.len());
        for (l, status, success) in &self.links {
            let mut row = l.clone();
            row.insert("source_operation_id".into(), json!(op_id));
            row.insert("source_status".into(), status.clone());
            row.insert("success".into(), json!(success));
            links.push(Value::from(row));
        }
        links
    }
}

/// The response sides an operation builder made, by the text of what they are made from
/// (see [`ResponseSide`]): 256 keep 60.0% of the 50k spec's operations from remaking
/// theirs, of the 60.7% that could; a spec of big responses keeps fewer (GitHub's sides
/// have 75 produce rows on average, the 50k spec's 10.8).
pub(super) type ResponseMemo = Memo<ResponseSide>;

pub(super) static RESPONSE_MEMO: Bounds = Bounds::new(256, 2048);

impl Side for ResponseSide {
    /// its produce rows
    fn weight(&self) -> usize {
        self.produce_rows
    }

    fn nodes(&self) -> u64 {
        self.nodes
    }
}

/// The memo's key for an operation as written (`None`: not memoised, an operation that
/// is itself a `$ref`).
pub(super) fn memo_key(op: &Value, item: &Value) -> Option<String> {
    let m = op.as_object().filter(|m| !m.contains_key("$ref"))?;
    let parts = [m.get("responses"), m.get("produces"), item.get("produces")];
    serde_json::to_string(&parts).ok()
}

/// The responses of one operation and the one its tool selects.
pub(super) struct Responses<'a> {
    /// one per declared status, in the reference's order
    pub(super) rows: Vec<ResponseRow>,
    /// the selected response's schema (`{}` when none was selected)
    pub(super) schema: &'a Value,
    pub(super) status: Option<String>,
    pub(super) content_type: Option<String>,
    /// the selected status's place in `rows` (set by [`Responses::select`])
    selected: Option<usize>,
    /// the selected response's field rows (set by [`Responses::select`])
    pub(super) fields: Vec<Row>,
    /// `openapi.response.envelope` (set by [`Responses::select`])
    envelope: Map<String, Value>,
}

impl<'a> Responses<'a> {
    /// Picks the success response and builds every response's row.
    pub(super) fn read(
        ctx: &Ctx,
        op: &'a Value,
        item: &Value,
        field_memo: &FieldMemo<'a>,
    ) -> Responses<'a> {
        let (schema, status, content_type) = rows::pick_response(op, item, ctx.spec, ctx.swagger);
        let link_rows = |r: &Value, status: &str| -> Vec<Row> {
            r.get("links")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .filter(|(_, l)| l.is_object())
                .map(|(n, l)| link_row(n, status, l))
                .collect()
        };
        let rows = rows::response_rows(
            op,
            item,
            ctx.spec,
            ctx.swagger,
            &link_rows,
            field_memo,
            (status.as_deref(), content_type.as_deref()),
        );
        Responses {
            rows,
            schema,
            status,
            content_type,
            selected: None,
            fields: Vec::new(),
            envelope: Map::new(),
        }
    }

    /// The selected response's field rows (its schema's, then those its examples add) and
    /// envelope.
    pub(super) fn select(&mut self, field_memo: &FieldMemo<'a>) {
        let status = self.status.as_deref();
        self.selected = self
            .rows
            .iter()
            .position(|r| status.is_some() && r.status() == status);
        // the selected status's example fields are only read here (its row has them frozen)
        let example_fields = self
            .selected
            .map(|i| std::mem::take(&mut self.rows[i].example_fields))
            .unwrap_or_default();
        let no_rows: &[Row] = &[];
        let examples = self.selected_row().map_or(no_rows, |r| &r.examples);
        let example_rows = rows::merge_field_rows(
            example_fields,
            &rows::example_leaf_rows(examples, "response", "response_example"),
        );
        let mut fields =
            rows::merge_field_rows(field_memo.take_rows(self.schema, "response"), &example_rows);
        if fields.is_empty()
            && let Some(root) = response_body_root_row(self.schema)
        {
            fields.push(root);
        }
        self.envelope = crate::ingest::shape::annotate(Some(self.schema), &mut fields);
        self.fields = fields;
    }

    fn selected_row(&self) -> Option<&ResponseRow> {
        self.selected.map(|i| &self.rows[i])
    }

    /// The selected response's headers.
    pub(super) fn headers(&self) -> &[Row] {
        self.selected_row().map_or(&[], |r| &r.headers)
    }

    /// `openapi.response`: the selected response (its frozen fields and schema given).
    pub(super) fn response_block(&mut self, fields: Value, schema: &Option<Value>) -> Value {
        let selected = self.selected_row();
        let links: Vec<Value> = selected
            .map(|r| r.links.iter().cloned().map(Value::from).collect())
            .unwrap_or_default();
        let description = selected
            .and_then(|r| r.row.get("description"))
            .cloned()
            .unwrap_or(json!(""));
        let mut resp = Map::new();
        resp.insert(
            "status".into(),
            self.status
                .clone()
                .map(Value::String)
                .unwrap_or(Value::Null),
        );
        resp.insert(
            "content_type".into(),
            self.content_type
                .clone()
                .map(Value::String)
                .unwrap_or(Value::Null),
        );
        resp.insert("description".into(), description);
        resp.insert("schema".into(), schema.clone().unwrap_or_else(|| json!({})));
        resp.insert("fields".into(), fields);
        let headers = self.headers();
        if !headers.is_empty() {
            resp.insert("headers".into(), freeze_rows(headers));
        }
        if !links.is_empty() {
            resp.insert("links".into(), Value::Array(links));
        }
        let envelope = std::mem::take(&mut self.envelope);
        if !envelope.is_empty() {
            resp.insert("envelope".into(), Value::Object(envelope));
        }
        Value::Object(resp)
    }
}

/// The response rows and schemas no later phase reads, frozen (see [`super::frozen`]).
pub(super) struct FrozenResponses {
    pub(super) responses: Value,
    pub(super) error_responses: Value,
    /// the selected response's fields
    pub(super) fields: Value,
    /// the selected response's schema, frozen once from the operation's tree:
    /// `metadata.response_schema` and `openapi.response.schema` are the same text (later
    /// phases read only its `$ref`s)
    pub(super) schema: Option<Value>,
}

impl FrozenResponses {
    pub(super) fn of(resp: &Responses) -> FrozenResponses {
        let error_responses = freeze_rows(
            resp.rows
                .iter()
                .map(|r| &r.row)
                .filter(|r| !r.get("success").is_some_and(truthy)),
        );
        let responses = freeze_rows(resp.rows.iter().map(|r| &r.row));
        let fields = freeze_rows(&resp.fields);
        let schema = truthy(resp.schema).then(|| crate::ingest::frozen::freeze_ref(resp.schema));
        FrozenResponses {
            responses,
            error_responses,
            fields,
            schema,
        }
    }
}
/// The synthetic producer of a root scalar or dynamic-map response body.
fn response_body_root_row(schema: &Value) -> Option<Row> {
    let m = schema.as_object().filter(|m| !m.is_empty())?;
    let ty = py_schema_type(schema);
    let additional = m
        .get("additionalProperties")
        .and_then(Value::as_object)
        .filter(|a| !a.is_empty());
    let dynamic_map = ty == "object" && additional.is_some();
    if (ty == "object" || ty == "array") && !dynamic_map {
        return None;
    }
    let mut row = Row::new();
    row.insert("field_name".into(), json!("body"));
    row.insert("json_path".into(), json!("$"));
    row.insert("field_type".into(), json!(ty));
    row.insert("required".into(), json!(false));
    row.insert("location".into(), json!("response"));
    row.insert("response_body_root".into(), json!(true));
    add_schema_hints(&mut row, schema);
    let en = crate::ingest::leaves::schema_enum(schema);
    if !en.is_empty() {
        row.insert("enum".into(), Value::Array(en));
    }
    let d = py_schema_description(schema);
    if !d.is_empty() {
        row.insert("description".into(), json!(first_n(&d, 300)));
    }
    if let Some(add) = additional.filter(|_| dynamic_map) {
        row.insert("additional_properties".into(), json!(true));
        row.insert("map_value".into(), json!(true));
        row.insert("map_key_placeholder".into(), json!("*"));
        row.insert(
            "value_type".into(),
            json!(py_schema_type(&Value::Object(add.clone()))),
        );
        if let Some(f) = add.get("format").filter(|f| truthy(f)) {
            row.insert("value_format".into(), json!(crate::pytext::py_str(f)));
        }
    }
    Some(row)
}
