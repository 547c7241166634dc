//! One operation → one [`ToolSchema`], assembled block by block in the reference's key
//! order: the tool's identity and annotations ([`Identity`]), the operation resolved within
//! the `$ref` budget ([`resolve_within_budget`]), its rows ([`crate::ingest::operation_rows`]),
//! the selected response ([`super::response`]), the request body block, security
//! ([`super::security`]), the `openapi` block, servers ([`super::servers`]) and the metadata.

use serde_json::{Map, Value, json};

use super::naming::generated_op_id;
use super::response::{ResponseMemo, ResponseSide};
use super::servers::ServerBlock;
use super::{Ctx, s};
use crate::error::InputError;
use crate::ingest::frozen::freeze;
use crate::ingest::operation_rows::{self as rows, BodyInfo, BodyRows};
use crate::ingest::row::freeze_rows;
use crate::ingest::schema::ToolSchema;
use crate::pytext::truthy;

pub(super) fn operation_tool(
    ctx: &Ctx,
    path: &str,
    method: &str,
    item: &Value,
    op: &Value,
) -> Result<ToolSchema, InputError> {
    let id = Identity::of(path, method, op);
    let Resolved {
        op: op_r,
        item: item_r,
        response,
    } = resolve_within_budget(ctx, path, method, item, op)?;
    let (op, item) = (&op_r, &item_r);
    let mut body = rows::body_info(op, item, ctx.spec, ctx.swagger);
    let params = rows::tool_parameters(op, item, ctx.swagger, &body);
    let body_rows = rows::body_rows(&mut body);
    let oa_param_rows = rows::parameter_rows(op, item, ctx.swagger);
    let mut ac_consumes = rows::contract_consume_rows(&oa_param_rows, &body_rows.all_fields);
    let links = response.contract_links(&id.op_id);
    let locs = rows::input_locations(&oa_param_rows, &body_rows.all_top, &body_rows.all_fields);
    let examples = rows::operation_examples(
        &oa_param_rows,
        &body.content_rows,
        response.examples.clone(),
    );
    let request_body = RequestBody::of(body, body_rows);
    // rows no later phase reads are frozen straight from the rows (see `freeze_bulk`)
    let oa_params = freeze_rows(&oa_param_rows);
    let security = super::security::security_block(ctx, op, &mut ac_consumes);

    let mut oa = openapi_block(
        &id,
        op,
        path,
        OpenApiParts {
            parameters: oa_params,
            input_locations: locs.clone(),
            request_body: request_body.block,
            response: response.block.clone(),
            responses: response.responses.clone(),
            error_responses: response.error_responses.clone(),
            examples,
            security,
        },
    );
    let servers = ServerBlock::of(ctx, op, item);
    if let Some(sv) = servers.server {
        // nothing reads these blocks back: compact text until written
        oa.insert("server".into(), freeze(Value::Object(sv)));
    }
    let contract = crate::ingest::schema::object([
        ("produces", response.produces_frozen.clone()),
        ("consumes", freeze_rows(&ac_consumes)),
        ("links", Value::Array(links)),
    ]);
    let md = metadata(
        ctx,
        method,
        path,
        MetadataParts {
            contract,
            openapi: oa,
            input_locations: locs,
            request_body_schema: request_body.schema,
            request_content_type: request_body.content_type,
            response: &response,
            base_url: servers.base_url,
        },
    );

    let mut t = ToolSchema {
        name: id.op_id,
        description: id.description,
        parameters: params,
        tags: id.tags,
        domain: id.domain.or_else(|| Some("general".into())),
        metadata: md,
        annotations: Some(id.annotations),
        ..Default::default()
    };
    crate::ingest::build::contracts::set_contract_view(&mut t, &response.produces, &ac_consumes);
    Ok(t)
}

/// What names and describes the tool, read from the operation as written (before its
/// `$ref`s are resolved).
struct Identity {
    op_id: String,
    /// no operationId: `op_id` was generated from the method and path
    generated: bool,
    summary: String,
    /// the operation's own description (`openapi.description`)
    op_description: String,
    /// the tool's description: the summary, else the description, else `METHOD /path [tags]`
    description: String,
    tags: Vec<String>,
    domain: Option<String>,
    annotations: [Option<bool>; 4],
}

impl Identity {
    fn of(path: &str, method: &str, op: &Value) -> Identity {
        let op_id = s(op.get("operationId")).filter(|x| !x.is_empty());
        let generated = op_id.is_none();
        let op_id = op_id
            .map(String::from)
            .unwrap_or_else(|| generated_op_id(method, path));
        let summary = s(op.get("summary")).unwrap_or("").to_string();
        let op_description = s(op.get("description")).unwrap_or("").to_string();
        let tags: Vec<String> = op
            .get("tags")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|t| t.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        let description = if !summary.is_empty() {
            summary.clone()
        } else if !op_description.is_empty() {
            op_description.clone()
        } else {
            let mut d = format!("{} {path}", method.to_uppercase());
            if !tags.is_empty() {
                d.push_str(&format!(" [{}]", tags.join(", ")));
            }
            d
        };
        // the first path segment that is not a parameter, of the path without its outer
        // slashes: "/" gives "" (kept), "/{id}" none ("general")
        let domain = tags.first().cloned().or_else(|| {
            path.trim_matches('/')
                .split('/')
                .find(|x| !x.starts_with('{'))
                .map(String::from)
        });
        Identity {
            op_id,
            generated,
            summary,
            op_description,
            description,
            tags,
            domain,
            annotations: method_annotations(method),
        }
    }
}

/// The MCP-style hints of an HTTP method: read-only, destructive, idempotent, open-world.
fn method_annotations(method: &str) -> [Option<bool>; 4] {
    match method {
        "get" | "head" | "options" => [Some(true), Some(false), Some(true), None],
        "post" => [Some(false), Some(false), Some(false), None],
        "put" => [Some(false), Some(false), Some(true), None],
        "patch" => [Some(false), Some(false), Some(false), None],
        "delete" => [Some(false), Some(true), Some(true), None],
        _ => [None, None, None, None],
    }
}

/// An operation resolved for its tool: the operation (without its `responses`, unless it
/// is itself a `$ref`) and its path item's members, and what its responses give.
struct Resolved {
    op: Value,
    item: Value,
    response: std::rc::Rc<ResponseSide>,
}

/// The operation and its path item's parameters (and media types and servers) with every
/// local `$ref` resolved, within the expansion budget: an exponential `$ref` fan-out stops
/// here instead of filling memory. The responses are resolved, and their side made, only
/// when no earlier operation declared the same (see [`ResponseMemo`]); a reused side
/// weighs on the budget as its resolution did.
fn resolve_within_budget(
    ctx: &Ctx,
    path: &str,
    method: &str,
    item: &Value,
    op: &Value,
) -> Result<Resolved, InputError> {
    let res = ctx.res;
    res.begin_budget();
    let key = ResponseMemo::key(op, item);
    let op_r = match key {
        Some(_) => res.resolve_except(op, "responses"),
        None => res.resolve(op),
    };
    let mut item_m = Map::new();
    for k in ["parameters", "consumes", "produces", "servers"] {
        if let Some(v) = item.get(k) {
            item_m.insert(k.into(), res.resolve(v));
        }
    }
    let item_r = Value::Object(item_m);
    let reused = key.as_deref().and_then(|k| ctx.responses.get(k));
    // the responses resolved apart (with the `produces` they are read with), and the nodes
    // that took
    let mut apart = None;
    match (&reused, &key) {
        (Some(side), _) => res.count(side.nodes),
        (None, Some(_)) => {
            let before = res.used();
            let mut m = Map::new();
            if let Some(p) = op_r.get("produces") {
                m.insert("produces".into(), p.clone());
            }
            if let Some(r) = op.get("responses") {
                m.insert("responses".into(), res.resolve(r));
            }
            apart = Some((Value::Object(m), res.used() - before));
        }
        (None, None) => {}
    }
    let over = res.over_budget();
    res.begin_budget(); // adds this operation's count to the spec's total
    let place = || {
        format!(
            "/paths/{}/{method}",
            crate::model::load::pointer_escape(path)
        )
    };
    if over {
        return Err(crate::limits::REF_NODES.exceeded(ctx.file, &place()));
    }
    if res.over_total() {
        return Err(crate::limits::REF_NODES_TOTAL.exceeded(ctx.file, &place()));
    }
    let response = match (reused, apart) {
        (Some(side), _) => side,
        (None, Some((resp_op, nodes))) => {
            let side = std::rc::Rc::new(ResponseSide::of(ctx, &resp_op, &item_r, nodes));
            if let Some(k) = key {
                ctx.responses.put(k, side.clone());
            }
            side
        }
        // an operation that is a `$ref`: its responses are in its resolved copy
        (None, None) => std::rc::Rc::new(ResponseSide::of(ctx, &op_r, &item_r, 0)),
    };
    Ok(Resolved {
        op: op_r,
        item: item_r,
        response,
    })
}

/// `openapi.request_body`, with the body's frozen schema and media type for the metadata.
struct RequestBody {
    block: Map<String, Value>,
    /// `metadata.request_body_schema` (a body with a schema)
    schema: Option<Value>,
    /// `metadata.request_content_type`
    content_type: Option<String>,
}

impl RequestBody {
    fn of(body: BodyInfo, body_rows: BodyRows) -> RequestBody {
        let mut rb = Map::with_capacity(9);
        rb.insert("required".into(), json!(body.required));
        rb.insert(
            "content_type".into(),
            body.content_type
                .clone()
                .map(Value::String)
                .unwrap_or(Value::Null),
        );
        let to_arr = crate::ingest::row::rows_value;
        rb.insert("content_types".into(), to_arr(body.content_rows));
        let schema = truthy(&body.schema).then(|| crate::ingest::frozen::freeze_ref(&body.schema));
        rb.insert("schema".into(), body.schema);
        if let Some(r) = body_rows.root {
            rb.insert("root".into(), Value::from(r));
        }
        rb.insert("top_level_fields".into(), to_arr(body_rows.top));
        rb.insert("fields".into(), to_arr(body_rows.fields));
        rb.insert("all_top_level_fields".into(), to_arr(body_rows.all_top));
        rb.insert("all_fields".into(), to_arr(body_rows.all_fields));
        RequestBody {
            block: rb,
            schema,
            content_type: body.content_type,
        }
    }
}

/// The members of the `openapi` block built before it.
struct OpenApiParts {
    parameters: Value,
    input_locations: Map<String, Value>,
    request_body: Map<String, Value>,
    response: Value,
    responses: Value,
    error_responses: Value,
    examples: Value,
    security: Option<Value>,
}

/// `metadata.openapi` up to `security` (the caller adds `server`).
fn openapi_block(id: &Identity, op: &Value, path: &str, p: OpenApiParts) -> Map<String, Value> {
    let mut oa = Map::new();
    oa.insert("tool_name".into(), json!(id.op_id));
    oa.insert("operation_id".into(), json!(id.op_id));
    if id.generated {
        oa.insert("operation_id_generated".into(), json!(true));
    }
    oa.insert("summary".into(), json!(id.summary));
    oa.insert("description".into(), json!(id.op_description));
    oa.insert(
        "deprecated".into(),
        json!(
            op.get("deprecated")
                .and_then(Value::as_bool)
                .unwrap_or(false)
        ),
    );
    oa.insert("parameters".into(), p.parameters);
    oa.insert("path_params".into(), json!(path_params(path)));
    oa.insert(
        "input_locations".into(),
        freeze(Value::Object(p.input_locations)),
    );
    oa.insert("request_body".into(), Value::Object(p.request_body));
    oa.insert("response".into(), p.response);
    oa.insert("responses".into(), p.responses);
    oa.insert("error_responses".into(), p.error_responses);
    oa.insert("examples".into(), p.examples);
    if let Some(sec) = p.security {
        oa.insert("security".into(), sec);
    }
    oa
}

/// The `{name}` parameters of a path template, in order (`{}` and a `{` closed by a `/`
/// are not parameters).
fn path_params(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = path;
    while let Some(i) = rest.find('{') {
        let after = &rest[i + 1..];
        match after.find(['}', '/']) {
            Some(j) if after.as_bytes()[j] == b'}' && j > 0 => {
                out.push(after[..j].to_string());
                rest = &after[j + 1..];
            }
            Some(j) => rest = &after[j..],
            None => break,
        }
    }
    out
}

/// The members of the tool's metadata built before it.
struct MetadataParts<'r> {
    contract: Value,
    openapi: Map<String, Value>,
    input_locations: Map<String, Value>,
    request_body_schema: Option<Value>,
    request_content_type: Option<String>,
    response: &'r ResponseSide,
    base_url: Option<Value>,
}

/// The tool's metadata: method and path, the api contract (its rows frozen: no later phase
/// reads them; what promotion and the readiness checks need of them is taken by
/// `set_contract_view`), the `openapi` block, the selected schemas and the base URL.
fn metadata(ctx: &Ctx, method: &str, path: &str, p: MetadataParts) -> Map<String, Value> {
    let mut md = Map::new();
    md.insert("source".into(), json!("openapi"));
    md.insert("method".into(), json!(method));
    md.insert("path".into(), json!(path));
    md.insert("api_contract".into(), p.contract);
    md.insert("openapi".into(), Value::Object(p.openapi));
    md.insert(
        "input_locations".into(),
        freeze(Value::Object(p.input_locations)),
    );
    if let Some(bs) = p.request_body_schema {
        md.insert("request_body_schema".into(), bs);
    }
    // the body's media type, schema or not (the reference records it for a body that only
    // declares content)
    if let Some(ct) = &p.request_content_type {
        md.insert("request_content_type".into(), json!(ct));
    }
    if let Some(rs) = &p.response.schema {
        md.insert("response_schema".into(), rs.clone());
        if let Some(st) = &p.response.status {
            md.insert("response_status".into(), json!(st));
        }
        if let Some(ct) = &p.response.content_type {
            md.insert("response_content_type".into(), json!(ct));
        }
    }
    if let Some(u) = p.base_url {
        md.insert("base_url".into(), u);
    } else if let Some((u, _)) = ctx.servers.first() {
        md.insert("base_url".into(), json!(u));
    }
    md.insert("source_label".into(), json!(ctx.label));
    md.insert("source_url".into(), json!(ctx.file));
    md
}

/// Freezes the parts of an operation's metadata that no later build phase reads (see
/// [`crate::ingest::frozen`]): parameter, body and response rows, schemas and examples. Kept as
/// trees: `openapi`'s scalars and `response.envelope` (semantics), `api_contract` (semantics,
/// promotion, links), `response_schema` (ref preservation, readiness).
pub(super) fn freeze_bulk(mut t: ToolSchema) -> ToolSchema {
    use crate::ingest::frozen::freeze_member;
    if let Some(rb) = t
        .metadata
        .get("openapi")
        .and_then(|o| o.get("request_body"))
    {
        // (the contract counts and keys were taken when the rows were built)
        let facts = crate::ingest::readiness::OperationFacts::of_request_body(rb);
        t.readiness = crate::ingest::readiness::OperationFacts {
            contract: t.readiness.contract,
            contract_keys: std::mem::take(&mut t.readiness.contract_keys),
            ..facts
        };
    }
    if let Some(Value::Object(oa)) = t.metadata.get_mut("openapi") {
        for k in [
            "parameters",
            "request_body",
            "responses",
            "error_responses",
            "examples",
        ] {
            freeze_member(oa, k);
        }
        // (`response.schema` and `request_body_schema` were frozen when they were built)
        if let Some(Value::Object(r)) = oa.get_mut("response") {
            for k in ["fields", "headers"] {
                freeze_member(r, k);
            }
        }
    }
    // (the contract rows were frozen, and promotion's view of them taken, when they were
    // built)
    t
}
