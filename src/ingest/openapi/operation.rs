//! One operation → one [`ToolSchema`], assembled block by block in the reference's key
//! order: the tool's identity and annotations ([`Identity`]), the operation resolved within
//! the `$ref` budget ([`resolve_within_budget`]), its rows ([`crate::ingest::operation_rows`]),
//! the selected response ([`super::response`]), the request body block, security
//! ([`super::security`]), the `openapi` block, servers ([`super::servers`]) and the metadata.

use serde_json::{Map, Value, json};

use super::naming::generated_op_id;
use std::rc::Rc;

use super::request::RequestSide;
use super::response::ResponseSide;
use super::servers::ServerBlock;
use super::{Ctx, s};
use crate::error::InputError;
use crate::ingest::frozen::freeze;
use crate::ingest::operation_rows as rows;
use crate::ingest::row::freeze_rows;
use crate::ingest::schema::ToolSchema;

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
        request,
    } = resolve_within_budget(ctx, path, method, item, op)?;
    let (op, item) = (&op_r, &item_r);
    let params = rows::tool_parameters(op, item, ctx.swagger, &request.params);
    let oa_param_rows = rows::parameter_rows(op, item, ctx.swagger);
    let mut ac_consumes = rows::contract_consume_rows(&oa_param_rows, &request.all_fields);
    let links = response.contract_links(&id.op_id);
    let locs = rows::input_locations(&oa_param_rows, &request.all_top, &request.all_fields);
    let examples = rows::operation_examples(
        &oa_param_rows,
        request.examples.clone(),
        response.examples.clone(),
    );
    // what no later phase reads is frozen as it is built (see `crate::ingest::frozen`)
    let oa_params = freeze_rows(&oa_param_rows);
    let security = super::security::security_block(ctx, op, &mut ac_consumes);

    let servers = ServerBlock::of(ctx, op, item);
    let mut oa = openapi_block(
        &id,
        op,
        path,
        servers.server.is_some(),
        OpenApiParts {
            parameters: oa_params,
            input_locations: locs.clone(),
            request_body: request.block.clone(),
            response: response.block.clone(),
            responses: response.responses.clone(),
            error_responses: response.error_responses.clone(),
            examples,
            security,
        },
    );
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
            request: &request,
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
        // (the contract's counts and keys are set with the contract view below)
        readiness: request.facts.clone(),
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

/// An operation resolved for its tool: the operation (without its `responses` and
/// `requestBody`, unless it is itself a `$ref`) and its path item's members, and what its
/// responses and request body give.
struct Resolved {
    op: Value,
    item: Value,
    response: Rc<ResponseSide>,
    request: Rc<RequestSide>,
}

/// The operation and its path item's parameters (and media types and servers) with every
/// local `$ref` resolved, within the expansion budget: an exponential `$ref` fan-out stops
/// here instead of filling memory. The responses and the request body are resolved, and
/// their sides made, only when no earlier operation declared the same (see
/// [`super::memo`]); a reused side weighs on the budget as its resolution did.
fn resolve_within_budget(
    ctx: &Ctx,
    path: &str,
    method: &str,
    item: &Value,
    op: &Value,
) -> Result<Resolved, InputError> {
    let res = ctx.res;
    res.begin_budget();
    let keys = [
        super::response::memo_key(op, item),
        super::request::memo_key(op, ctx.swagger),
    ];
    let skip: Vec<&str> = ["responses", "requestBody"]
        .into_iter()
        .zip(&keys)
        .filter(|(_, k)| k.is_some())
        .map(|(m, _)| m)
        .collect();
    let op_r = match skip.is_empty() {
        true => res.resolve(op),
        false => res.resolve_except(op, &skip),
    };
    let mut item_m = Map::new();
    for k in ["parameters", "consumes", "produces", "servers"] {
        if let Some(v) = item.get(k) {
            item_m.insert(k.into(), res.resolve(v));
        }
    }
    let item_r = Value::Object(item_m);
    let [response_key, request_key] = keys;
    let response = Part::of(&ctx.responses, response_key, res, |m| {
        // (with the `produces` the responses are read with)
        if let Some(p) = op_r.get("produces") {
            m.insert("produces".into(), p.clone());
        }
        if let Some(r) = op.get("responses") {
            m.insert("responses".into(), res.resolve(r));
        }
    });
    let request = Part::of(&ctx.requests, request_key, res, |m| {
        if let Some(b) = op.get("requestBody") {
            m.insert("requestBody".into(), res.resolve(b));
        }
    });
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
    let response = response.make(&ctx.responses, |o, nodes| {
        ResponseSide::of(ctx, o.unwrap_or(&op_r), &item_r, nodes)
    });
    let request = request.make(&ctx.requests, |o, nodes| {
        RequestSide::of(ctx, o.unwrap_or(&op_r), &item_r, nodes)
    });
    Ok(Resolved {
        op: op_r,
        item: item_r,
        response,
        request,
    })
}

/// A part of an operation (its responses, its request body) on its way to its side: one
/// an earlier operation made, the part resolved apart to make it from (with the nodes that
/// took), or neither (not memoised: the side is made from the resolved operation).
enum Part<T> {
    Reused(Rc<T>),
    Apart(String, Value, u64),
    InOperation,
}

impl<T: super::memo::Side> Part<T> {
    /// Looks `key` up in `memo` (a reused side counts its nodes), else resolves the part
    /// apart (`resolve` fills an object with the members the side is made from).
    fn of(
        memo: &super::memo::Memo<T>,
        key: Option<String>,
        res: &crate::ingest::refs::Resolver,
        resolve: impl FnOnce(&mut Map<String, Value>),
    ) -> Part<T> {
        let Some(key) = key else {
            return Part::InOperation;
        };
        if let Some(side) = memo.get(&key) {
            res.count(side.nodes());
            return Part::Reused(side);
        }
        let before = res.used();
        let mut m = Map::new();
        resolve(&mut m);
        Part::Apart(key, Value::Object(m), res.used() - before)
    }

    /// The side: reused, or made by `make` from the part resolved apart (`Some`, then kept
    /// in `memo`) or from the resolved operation (`None`), with the nodes resolving took.
    fn make(
        self,
        memo: &super::memo::Memo<T>,
        make: impl FnOnce(Option<&Value>, u64) -> T,
    ) -> Rc<T> {
        match self {
            Part::Reused(side) => side,
            Part::Apart(key, part, nodes) => {
                let side = Rc::new(make(Some(&part), nodes));
                memo.put(key, side.clone());
                side
            }
            Part::InOperation => {
                memo.made();
                Rc::new(make(None, 0))
            }
        }
    }
}

/// The members of the `openapi` block built before it.
struct OpenApiParts {
    parameters: Value,
    input_locations: Map<String, Value>,
    request_body: Value,
    response: Value,
    responses: Value,
    error_responses: Value,
    examples: Value,
    security: Option<Value>,
}

/// `metadata.openapi` up to `security` (the caller adds `server`, when `server`), with
/// room for the members the semantic phase adds (a map grown by inserts holds up to twice
/// the room it uses, for the rest of the build).
fn openapi_block(
    id: &Identity,
    op: &Value,
    path: &str,
    server: bool,
    p: OpenApiParts,
) -> Map<String, Value> {
    let room = 13
        + usize::from(id.generated)
        + usize::from(p.security.is_some())
        + usize::from(server)
        + crate::ingest::build::semantics::OPENAPI_DERIVED;
    let mut oa = Map::with_capacity(room);
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
    oa.insert("request_body".into(), p.request_body);
    oa.insert("response".into(), p.response);
    oa.insert("responses".into(), p.responses);
    oa.insert("error_responses".into(), p.error_responses);
    oa.insert("examples".into(), freeze(p.examples));
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
    request: &'r RequestSide,
    response: &'r ResponseSide,
    base_url: Option<Value>,
}

/// The tool's metadata: method and path, the api contract (its rows frozen: no later phase
/// reads them; what promotion and the readiness checks need of them is taken by
/// `set_contract_view`), the `openapi` block, the selected schemas and the base URL.
fn metadata(ctx: &Ctx, method: &str, path: &str, p: MetadataParts) -> Map<String, Value> {
    let response = p.response.schema.is_some();
    let room = 8
        + usize::from(p.request.schema.is_some())
        + usize::from(p.request.content_type.is_some())
        + usize::from(response)
        + usize::from(response && p.response.status.is_some())
        + usize::from(response && p.response.content_type.is_some())
        + usize::from(p.base_url.is_some() || !ctx.servers.is_empty())
        + crate::ingest::build::METADATA_ADDED;
    let mut md = Map::with_capacity(room);
    md.insert("source".into(), json!("openapi"));
    md.insert("method".into(), json!(method));
    md.insert("path".into(), json!(path));
    md.insert("api_contract".into(), p.contract);
    md.insert("openapi".into(), Value::Object(p.openapi));
    md.insert(
        "input_locations".into(),
        freeze(Value::Object(p.input_locations)),
    );
    if let Some(bs) = &p.request.schema {
        md.insert("request_body_schema".into(), bs.clone());
    }
    // the body's media type, schema or not (the reference records it for a body that only
    // declares content)
    if let Some(ct) = &p.request.content_type {
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
