//! OpenAPI 3.x / Swagger 2.0 operations → ToolSchema (spec §1.6) with the metadata the
//! graphify build and the engine read (§1.5): method, path, io contract (`api_contract`),
//! the `openapi` view of the operation, selected request/response schemas, server URL.
//!
//! Swagger 2.0 is read through the same code: `in: body` parameters become the request
//! body, `produces`/`consumes` the media types, `definitions` the components, `host` +
//! `basePath` the server.

use serde_json::{Map, Value, json};

use super::refs::Resolver;
use super::row::Row;
use super::schema::ToolSchema;
use crate::error::InputError;
use crate::pytext::truthy;

pub const METHODS: &[&str] = &[
    "get", "post", "put", "patch", "delete", "head", "options", "trace",
];

/// One spec's operations as tools, plus counts for the source manifest.
pub struct SpecTools {
    pub tools: Vec<ToolSchema>,
    pub label: String,
    pub title: Option<String>,
    pub version: Option<String>,
    pub openapi_version: Option<String>,
    pub path_count: usize,
    pub operation_count: usize,
    pub deprecated_skipped: usize,
}

fn s(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str)
}

/// A path segment as it appears in generated names: `{id}` -> `by_id`.
fn segment_slug(seg: &str) -> String {
    match seg.strip_prefix('{').and_then(|x| x.strip_suffix('}')) {
        Some(p) => format!("by_{p}"),
        None => seg.to_string(),
    }
}

/// `slug` with each character mapped by `map` and runs of `_` collapsed to one.
fn collapse_underscores(slug: &str, map: impl Fn(char) -> char) -> String {
    let mut out = String::new();
    for c in slug.chars().map(map) {
        if c == '_' && out.ends_with('_') {
            continue;
        }
        out.push(c);
    }
    out
}

/// `"<method>_<slug>"` for operations without an operationId.
fn generated_op_id(method: &str, path: &str) -> String {
    let slug: Vec<String> = path
        .trim_matches('/')
        .split('/')
        .map(segment_slug)
        .collect();
    let out = collapse_underscores(
        &slug.join("/"),
        |c| {
            if c == '/' || c == '-' { '_' } else { c }
        },
    );
    format!("{method}_{out}")
}

fn dedupe_suffix(method: &str, path: &str) -> String {
    let slug: String = path
        .split('/')
        .filter(|seg| !seg.is_empty())
        .map(|seg| format!("_{}", segment_slug(seg)))
        .collect();
    let out = collapse_underscores(&slug, |c| {
        if c.is_alphanumeric() || c == '_' {
            c
        } else {
            '_'
        }
    });
    format!("{method}_{}", out.trim_matches('_'))
}

/// Another security requirement met by an existing auth row: its scheme and requirement
/// index join the row, and its scopes join the row's (added after the row's other keys).
fn join_auth_row(row: &mut Row, scheme: &str, index: usize, scopes: &Value) {
    if let Some(Value::Array(a)) = row.get_mut("security_schemes")
        && !a.contains(&json!(scheme))
    {
        a.push(json!(scheme));
    }
    if let Some(Value::Array(a)) = row.get_mut("requirement_indices")
        && !a.contains(&json!(index))
    {
        a.push(json!(index));
    }
    if let Some(new) = scopes.as_array().filter(|a| !a.is_empty()) {
        match row.get_mut("scopes") {
            Some(Value::Array(have)) => {
                for sc in new {
                    if !have.contains(sc) {
                        have.push(sc.clone());
                    }
                }
            }
            _ => {
                row.insert("scopes".into(), Value::Array(new.clone()));
            }
        }
    }
}

/// An HTTP security scheme's `scheme` and `bearerFormat` on its auth row.
fn put_http_scheme(row: &mut Row, def: &Value) {
    if let Some(sc) = s(def.get("scheme")) {
        row.insert("scheme".into(), json!(sc));
    }
    if let Some(bf) = s(def.get("bearerFormat")) {
        row.insert("bearer_format".into(), json!(bf));
    }
}

/// Scheme (the first listed, else https), host and base path of a Swagger 2.0 spec with a host.
fn swagger_server(spec: &Value) -> Option<(&str, &str, &str)> {
    let host = s(spec.get("host")).filter(|h| !h.is_empty())?;
    let scheme = spec
        .get("schemes")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .and_then(Value::as_str)
        .unwrap_or("https");
    Some((scheme, host, s(spec.get("basePath")).unwrap_or("")))
}

/// Server URLs (variables set to their defaults) and descriptions of a spec: OpenAPI 3
/// `servers[].url`, Swagger 2.0 `schemes`/`host`/`basePath`.
fn servers_of(spec: &Value, swagger: bool) -> Vec<(String, Option<String>)> {
    if swagger {
        // a Swagger 2.0 server needs a host; the base path loses its trailing slash
        let Some((scheme, host, base)) = swagger_server(spec) else {
            return Vec::new();
        };
        return vec![(
            format!("{scheme}://{host}{}", base.trim_end_matches('/')),
            None,
        )];
    }
    spec.get("servers")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|sv| {
                    let url = s(sv.get("url"))?;
                    // substitute server variables with their defaults
                    let mut u = url.to_string();
                    if let Some(vars) = sv.get("variables").and_then(Value::as_object) {
                        for (k, v) in vars {
                            if let Some(d) = v.get("default") {
                                let d = match d {
                                    Value::String(x) => x.clone(),
                                    o => o.to_string(),
                                };
                                u = u.replace(&format!("{{{k}}}"), &d);
                            }
                        }
                    }
                    Some((u, s(sv.get("description")).map(String::from)))
                })
                .collect()
        })
        .unwrap_or_default()
}

struct Ctx<'a> {
    file: &'a str,
    res: &'a Resolver<'a>,
    swagger: bool,
    spec: &'a Value,
    label: &'a str,
    servers: Vec<(String, Option<String>)>,
}

/// Reads every operation of one spec.
pub fn spec_tools(
    file: &str,
    spec: &Value,
    swagger: bool,
    skip_deprecated: bool,
    progress: &super::progress::Progress,
    (lo, hi): (f64, f64),
) -> Result<SpecTools, InputError> {
    // the reference resolves against the spec with nullable dialects normalised in
    // `paths` and the schema components
    let mut t0 = std::time::Instant::now();
    progress.report("normalizing the spec", lo, file);
    // remote references are looked for in the spec as given (beside the normalisation: an
    // error then names the place in the user's file)
    let (normalized, remote) = std::thread::scope(|sc| {
        let remote = sc.spawn(|| Resolver::new(file, spec).check_remote());
        let normalized = normalize_spec(spec, swagger);
        (normalized, remote.join().expect("remote $ref check"))
    });
    remote?;
    let spec = &normalized;
    let expanded = std::sync::atomic::AtomicU64::new(0);
    let res = Resolver::new(file, spec).with_total(&expanded);
    super::build::collection::phase(&mut t0, "normalize spec");
    let title = s(spec.pointer("/info/title")).map(String::from);
    let stem = std::path::Path::new(file)
        .file_stem()
        .map(|x| x.to_string_lossy().to_string());
    let label = title
        .clone()
        .filter(|t| !t.is_empty())
        .or(stem)
        .unwrap_or_else(|| "spec-1".into());
    let Some(paths) = spec.get("paths") else {
        return Err(InputError::new(
            file,
            "/paths",
            "the spec has no \"paths\": no operations to build tools from".into(),
        ));
    };
    let Some(paths) = paths.as_object() else {
        return Err(InputError::new(
            file,
            "/paths",
            "\"paths\" is not an object".into(),
        ));
    };
    let ctx = Ctx {
        file,
        res: &res,
        swagger,
        spec,
        label: &label,
        servers: servers_of(spec, swagger),
    };
    // how often each declared operationId occurs among the operations built (a skipped
    // deprecated one does not count; duplicate bookkeeping)
    let mut id_count: rustc_hash::FxHashMap<String, usize> = Default::default();
    for item in paths.values() {
        let item = res.deref(item);
        for &method in METHODS {
            if let Some(id) = item
                .get(method)
                .filter(|op| {
                    !(skip_deprecated
                        && op.get("deprecated").and_then(Value::as_bool) == Some(true))
                })
                .and_then(|op| op.get("operationId"))
                .and_then(Value::as_str)
                .filter(|x| !x.is_empty())
            {
                *id_count.entry(id.to_string()).or_default() += 1;
            }
        }
    }
    let mut id_seen: rustc_hash::FxHashMap<String, usize> = Default::default();
    let mut tools: Vec<ToolSchema> = Vec::new();
    let mut used: rustc_hash::FxHashMap<String, usize> = Default::default();
    let mut op_count = 0;
    let mut dep_skipped = 0;
    // operations to build, in spec order
    let mut jobs: Vec<(&String, &'static str, &Value, &Value)> = Vec::new();
    for (path, item) in paths {
        let item = res.deref(item);
        let Some(item_m) = item.as_object() else {
            continue;
        };
        for &method in METHODS {
            let Some(op) = item_m.get(method) else {
                continue;
            };
            if !op.is_object() {
                crate::ingest::warn(format!(
                    "{file}:/paths/{}/{method}: operation is not an object; skipped",
                    crate::model::load::pointer_escape(path)
                ));
                continue;
            }
            op_count += 1;
            if skip_deprecated && op.get("deprecated").and_then(Value::as_bool) == Some(true) {
                dep_skipped += 1;
                continue;
            }
            jobs.push((path, method, item, op));
        }
    }
    // build the tools on every core (each thread with its own resolver cache)
    let counter = progress.counter(
        "building tools from operations",
        (lo + (hi - lo) * 0.1, hi),
        jobs.len(),
        "operations",
    );
    let tool_of =
        |ctx: &Ctx, (path, method, item, op): &(&String, &'static str, &Value, &Value)| {
            let t = operation_tool(ctx, path, method, item, op).map(freeze_bulk);
            counter.tick();
            t
        };
    let threads = super::par::threads();
    let built: Vec<Result<ToolSchema, InputError>> = if threads == 1 || jobs.len() < 64 {
        let out = jobs.iter().map(|job| tool_of(&ctx, job)).collect();
        super::leaves::clear_row_cache();
        out
    } else {
        let chunk = jobs.len().div_ceil(threads * 32);
        let next = std::sync::atomic::AtomicUsize::new(0);
        let parts: Vec<Vec<(usize, Result<ToolSchema, InputError>)>> = std::thread::scope(|sc| {
            let handles: Vec<_> = (0..threads)
                .map(|_| {
                    let (jobs, next, servers, tool_of) = (&jobs, &next, &ctx.servers, &tool_of);
                    let expanded = &expanded;
                    let label = ctx.label;
                    sc.spawn(move || {
                        let res = Resolver::new(file, spec).with_total(expanded);
                        let tctx = Ctx {
                            file,
                            res: &res,
                            swagger,
                            spec,
                            label,
                            servers: servers.clone(),
                        };
                        let mut out = Vec::new();
                        loop {
                            let start = next.fetch_add(chunk, std::sync::atomic::Ordering::Relaxed);
                            if start >= jobs.len() {
                                break;
                            }
                            for (i, job) in jobs.iter().enumerate().skip(start).take(chunk) {
                                out.push((i, tool_of(&tctx, job)));
                            }
                        }
                        out
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("operation builder thread"))
                .collect()
        });
        let mut all: Vec<(usize, Result<ToolSchema, InputError>)> =
            parts.into_iter().flatten().collect();
        all.sort_by_key(|x| x.0);
        all.into_iter().map(|x| x.1).collect()
    };
    for ((path, method, _, _), t) in jobs.iter().zip(built) {
        let (path, method) = (*path, *method);
        {
            let mut t = t?;
            // unique tool names
            let base = t.name.clone();
            if used.contains_key(&base) {
                let mut cand = format!("{base}__{}", dedupe_suffix(method, path));
                let mut n = 1;
                while used.contains_key(&cand) {
                    n += 1;
                    cand = format!("{base}__{}_{n}", dedupe_suffix(method, path));
                }
                crate::ingest::warn(format!(
                    "{file}:/paths/{}/{method}: duplicate operationId {base:?}; tool named {cand:?}",
                    crate::model::load::pointer_escape(path)
                ));
                t.name = cand.clone();
                if let Some(Value::Object(o)) = t.metadata.get_mut("openapi") {
                    o.insert("tool_name".into(), json!(cand));
                }
            }
            if let Some(&n) = id_count.get(&base).filter(|&&n| n > 1)
                && t.metadata
                    .get("openapi")
                    .and_then(|o| o.get("operation_id_generated"))
                    .is_none()
            {
                let idx = id_seen.entry(base.clone()).or_default();
                let name = t.name.clone();
                if let Some(Value::Object(o)) = t.metadata.get_mut("openapi") {
                    // right after `examples`, before `security` and `server`
                    let mut at = o
                        .keys()
                        .position(|k| k == "examples")
                        .map_or(o.len(), |i| i + 1);
                    let mut put = |k: &str, v: Value| {
                        o.shift_insert(at, k.into(), v);
                        at += 1;
                    };
                    put("operation_id_duplicate", json!(true));
                    put("operation_id_duplicate_count", json!(n));
                    put("operation_id_duplicate_index", json!(*idx));
                    put("operation_id_original", json!(base));
                    if *idx > 0 {
                        put("operation_id_deduped_name", json!(name));
                    }
                }
                *idx += 1;
            }
            *used.entry(t.name.clone()).or_default() += 1;
            *used.entry(base).or_default() += 0;
            tools.push(t);
        }
    }
    if op_count == 0 {
        return Err(InputError::new(
            file,
            "/paths",
            "the spec defines no operations: no tools to build".into(),
        ));
    }
    let out = SpecTools {
        tools,
        label: label.clone(),
        title,
        version: s(spec.pointer("/info/version")).map(String::from),
        openapi_version: s(spec.get("openapi"))
            .or(s(spec.get("swagger")))
            .map(String::from),
        path_count: paths.len(),
        operation_count: op_count,
        deprecated_skipped: dep_skipped,
    };
    drop(jobs);
    super::par::drop_later(normalized);
    Ok(out)
}

fn operation_tool(
    ctx: &Ctx,
    path: &str,
    method: &str,
    item: &Value,
    op: &Value,
) -> Result<ToolSchema, InputError> {
    let res = ctx.res;
    let op_id = s(op.get("operationId")).filter(|x| !x.is_empty());
    let generated = op_id.is_none();
    let op_id = op_id
        .map(String::from)
        .unwrap_or_else(|| generated_op_id(method, path));
    let summary = s(op.get("summary")).unwrap_or("").to_string();
    let description = s(op.get("description")).unwrap_or("").to_string();
    let tags: Vec<String> = op
        .get("tags")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|t| t.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let tool_desc = if !summary.is_empty() {
        summary.clone()
    } else if !description.is_empty() {
        description.clone()
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
    let annotations = match method {
        "get" | "head" | "options" => [Some(true), Some(false), Some(true), None],
        "post" => [Some(false), Some(false), Some(false), None],
        "put" => [Some(false), Some(false), Some(true), None],
        "patch" => [Some(false), Some(false), Some(false), None],
        "delete" => [Some(false), Some(true), Some(true), None],
        _ => [None, None, None, None],
    };

    // the operation and its path item's parameters with every local $ref resolved, within
    // the expansion budget (an exponential $ref fan-out stops here instead of filling memory)
    res.begin_budget();
    let op_r = res.resolve(op);
    let mut item_m = Map::new();
    for k in ["parameters", "consumes", "produces", "servers"] {
        if let Some(v) = item.get(k) {
            item_m.insert(k.into(), res.resolve(v));
        }
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
    let item_r = Value::Object(item_m);
    let (op, item) = (&op_r, &item_r);
    use super::oasop;
    let mut body = oasop::body_info(op, item, ctx.spec, ctx.swagger);
    let params = oasop::tool_parameters(op, item, ctx.swagger, &body);
    let body_rows = oasop::body_rows(&mut body);
    let (resp_schema_v, resp_status, resp_ct) =
        oasop::pick_response(op, item, ctx.spec, ctx.swagger);
    let link_rows = |r: &Value, status: &str| -> Vec<Row> {
        r.get("links")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter(|(_, l)| l.is_object())
            .map(|(n, l)| link_row(n, status, l))
            .collect()
    };
    let field_memo = super::leaves::FieldMemo::default();
    let mut response_rows = oasop::response_rows(
        op,
        item,
        ctx.spec,
        ctx.swagger,
        &link_rows,
        &field_memo,
        (resp_status.as_deref(), resp_ct.as_deref()),
    );
    let oa_param_rows = oasop::parameter_rows(op, item, ctx.swagger);
    let selected_at = response_rows
        .iter()
        .position(|r| resp_status.is_some() && r.status() == resp_status.as_deref());
    // the selected status's example fields are only read here (its row has them frozen)
    let sel_example_fields = selected_at
        .map(|i| std::mem::take(&mut response_rows[i].example_fields))
        .unwrap_or_default();
    let selected_resp = selected_at.map(|i| &response_rows[i]);
    let no_rows: &[Row] = &[];
    let sel_examples = selected_resp.map_or(no_rows, |r| &r.examples);
    let response_example_rows = oasop::merge_field_rows(
        sel_example_fields,
        &oasop::example_leaf_rows(sel_examples, "response", "response_example"),
    );
    let mut resp_rows = oasop::merge_field_rows(
        field_memo.take_rows(resp_schema_v, "response"),
        &response_example_rows,
    );
    if resp_rows.is_empty()
        && let Some(root) = response_body_root_row(resp_schema_v)
    {
        resp_rows.push(root);
    }
    let envelope = super::shape::annotate(Some(resp_schema_v), &mut resp_rows);
    let resp_headers = selected_resp.map_or(no_rows, |r| &r.headers);
    let resp_links: Vec<Value> = selected_resp
        .map(|r| r.links.iter().cloned().map(Value::from).collect())
        .unwrap_or_default();
    let resp_desc = selected_resp
        .and_then(|r| r.row.get("description"))
        .cloned()
        .unwrap_or(json!(""));
    let (ac_produces, mut ac_consumes) = oasop::api_contract_rows(
        &oa_param_rows,
        &body_rows.all_fields,
        &resp_rows,
        resp_headers,
    );
    let mut links: Vec<Value> = Vec::new();
    for r in &response_rows {
        for l in &r.links {
            let mut row = l.clone();
            row.insert("source_operation_id".into(), json!(op_id));
            row.insert(
                "source_status".into(),
                r.row.get("status").cloned().unwrap_or(Value::Null),
            );
            row.insert(
                "success".into(),
                json!(r.row.get("success").is_some_and(truthy)),
            );
            links.push(Value::from(row));
        }
    }
    let locs = oasop::input_locations(&oa_param_rows, &body_rows.all_top, &body_rows.all_fields);
    let examples = oasop::operation_examples(&oa_param_rows, &body.content_rows, &response_rows);
    let mut rb = Map::new();
    rb.insert("required".into(), json!(body.required));
    rb.insert(
        "content_type".into(),
        body.content_type
            .clone()
            .map(Value::String)
            .unwrap_or(Value::Null),
    );
    let to_arr = super::row::rows_value;
    rb.insert("content_types".into(), to_arr(body.content_rows));
    let body_schema = truthy(&body.schema).then(|| super::frozen::freeze_ref(&body.schema));
    rb.insert("schema".into(), body.schema);
    if let Some(r) = body_rows.root {
        rb.insert("root".into(), Value::from(r));
    }
    rb.insert("top_level_fields".into(), to_arr(body_rows.top));
    rb.insert("fields".into(), to_arr(body_rows.fields));
    rb.insert("all_top_level_fields".into(), to_arr(body_rows.all_top));
    rb.insert("all_fields".into(), to_arr(body_rows.all_fields));
    // rows no later phase reads are frozen straight from the rows (see `freeze_bulk`)
    use super::row::freeze_rows;
    let error_responses = freeze_rows(
        response_rows
            .iter()
            .map(|r| &r.row)
            .filter(|r| !r.get("success").is_some_and(truthy)),
    );
    let responses = freeze_rows(response_rows.iter().map(|r| &r.row));
    let oa_resp_fields = freeze_rows(&resp_rows);
    let body_ct = body.content_type.clone();
    // frozen once from the operation's tree: `metadata.response_schema` and
    // `openapi.response.schema` are the same text (later phases read only its `$ref`s)
    let resp_schema = truthy(resp_schema_v).then(|| super::frozen::freeze_ref(resp_schema_v));
    let oa_params = freeze_rows(&oa_param_rows);

    // security: requirements (operation, else spec) and the declared schemes
    let requirements: Option<&Vec<Value>> = op
        .get("security")
        .or_else(|| ctx.spec.get("security"))
        .and_then(Value::as_array);
    let schemes: Option<&Map<String, Value>> = if ctx.swagger {
        ctx.spec.get("securityDefinitions")
    } else {
        ctx.spec.pointer("/components/securitySchemes")
    }
    .and_then(Value::as_object);
    let mut security: Option<Value> = None;
    if requirements.is_some() || schemes.is_some_and(|m| !m.is_empty()) {
        let mut sch = Map::new();
        for (name, sdef) in schemes.into_iter().flatten() {
            let sdef = res.deref(sdef);
            let mut m = Map::new();
            let o = sdef.as_object();
            let get = |k: &str| o.and_then(|o| o.get(k));
            for k in [
                "type",
                "name",
                "in",
                "scheme",
                "bearerFormat",
                "openIdConnectUrl",
            ] {
                if let Some(v) = get(k) {
                    let key = if k == "bearerFormat" {
                        "bearer_format"
                    } else {
                        k
                    };
                    let key = if key == "openIdConnectUrl" {
                        "openid_connect_url"
                    } else {
                        key
                    };
                    m.insert(key.into(), v.clone());
                }
            }
            if let Some(f) = get("flows").and_then(Value::as_object) {
                m.insert(
                    "oauth_flows".into(),
                    Value::Array(f.keys().map(|x| json!(x)).collect()),
                );
            }
            // a Swagger 2.0 `flow` is not listed (the reference keeps only OpenAPI 3 flows)
            if let Some(d) = get("description") {
                m.insert("description".into(), d.clone());
            }
            sch.insert(name.clone(), Value::Object(m));
        }
        let reqs = requirements.cloned().unwrap_or_default();
        // auth rows: one per credential
        let optional = reqs
            .iter()
            .any(|r| r.as_object().is_some_and(|m| m.is_empty()));
        let mut rows: Vec<Row> = Vec::new();
        for (i, r) in reqs.iter().enumerate() {
            for (name, scopes) in r.as_object().into_iter().flatten() {
                let Some(def) = schemes.and_then(|m| m.get(name)).map(|d| res.deref(d)) else {
                    continue;
                };
                let ty = s(def.get("type")).unwrap_or("");
                let (cred, loc) = match ty {
                    "apiKey" => (
                        s(def.get("name")).unwrap_or(name).to_string(),
                        s(def.get("in")).unwrap_or("header").to_string(),
                    ),
                    _ => ("Authorization".to_string(), "header".to_string()),
                };
                if let Some(row) = rows.iter_mut().find(|r| {
                    r.get("credential_name").and_then(Value::as_str) == Some(cred.as_str())
                        && r.get("location").and_then(Value::as_str) == Some(loc.as_str())
                }) {
                    join_auth_row(row, name, i, scopes);
                    continue;
                }
                // a declared parameter that is this credential becomes its auth row, in place
                if let Some(row) = ac_consumes.iter_mut().find(|r| {
                    r.get("field_name").and_then(Value::as_str) == Some(cred.as_str())
                        && r.get("location").and_then(Value::as_str) == Some(loc.as_str())
                }) {
                    if row.get("kind").and_then(Value::as_str) == Some("auth") {
                        join_auth_row(row, name, i, scopes);
                        continue;
                    }
                    let declared = row.get("required").cloned().unwrap_or(json!(false));
                    row.insert("required".into(), json!(false));
                    row.insert("kind".into(), json!("auth"));
                    if declared == json!(true) {
                        row.insert("parameter_required".into(), declared);
                    }
                    row.insert("security_scheme".into(), json!(name));
                    row.insert("auth_type".into(), json!(ty));
                    row.insert("credential_name".into(), json!(cred));
                    put_http_scheme(row, def);
                    row.insert("security_required".into(), json!(!optional));
                    row.insert("security_schemes".into(), json!([name]));
                    row.insert("requirement_indices".into(), json!([i]));
                    row.insert(
                        "scopes".into(),
                        scopes.as_array().cloned().map_or(json!([]), Value::Array),
                    );
                    continue;
                }
                let mut m = Row::new();
                m.insert("field_name".into(), json!(cred));
                m.insert("field_type".into(), json!("string"));
                m.insert("required".into(), json!(false));
                m.insert("location".into(), json!(loc));
                m.insert("kind".into(), json!("auth"));
                m.insert("security_required".into(), json!(!optional));
                m.insert("security_schemes".into(), json!([name]));
                m.insert("security_scheme".into(), json!(name));
                m.insert("auth_type".into(), json!(ty));
                m.insert("credential_name".into(), json!(cred));
                m.insert("requirement_indices".into(), json!([i]));
                put_http_scheme(&mut m, def);
                if let Some(a) = scopes.as_array().filter(|a| !a.is_empty()) {
                    m.insert("scopes".into(), Value::Array(a.clone()));
                }
                if let Some(d) = def.get("description") {
                    m.insert("description".into(), d.clone());
                }
                rows.push(m);
            }
        }
        // built in the reference's key order (merged scopes come last)
        ac_consumes.extend(rows);
        security = Some(json!({"requirements": reqs, "schemes": sch}));
    }

    let mut oa = Map::new();
    oa.insert("tool_name".into(), json!(op_id));
    oa.insert("operation_id".into(), json!(op_id));
    if generated {
        oa.insert("operation_id_generated".into(), json!(true));
    }
    oa.insert("summary".into(), json!(summary));
    oa.insert("description".into(), json!(description));
    oa.insert(
        "deprecated".into(),
        json!(
            op.get("deprecated")
                .and_then(Value::as_bool)
                .unwrap_or(false)
        ),
    );
    oa.insert("parameters".into(), oa_params);
    let ordered: Vec<String> = {
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
    };
    oa.insert("path_params".into(), json!(ordered));
    oa.insert("input_locations".into(), Value::Object(locs.clone()));
    oa.insert("request_body".into(), Value::Object(rb));
    let mut resp = Map::new();
    resp.insert(
        "status".into(),
        resp_status
            .clone()
            .map(Value::String)
            .unwrap_or(Value::Null),
    );
    resp.insert(
        "content_type".into(),
        resp_ct.clone().map(Value::String).unwrap_or(Value::Null),
    );
    resp.insert("description".into(), resp_desc);
    resp.insert(
        "schema".into(),
        resp_schema.clone().unwrap_or_else(|| json!({})),
    );
    resp.insert("fields".into(), oa_resp_fields);
    if !resp_headers.is_empty() {
        resp.insert("headers".into(), freeze_rows(resp_headers));
    }
    if !resp_links.is_empty() {
        resp.insert("links".into(), Value::Array(resp_links));
    }
    if !envelope.is_empty() {
        resp.insert("envelope".into(), Value::Object(envelope));
    }
    oa.insert("response".into(), Value::Object(resp));
    oa.insert("responses".into(), responses);
    oa.insert("error_responses".into(), error_responses);
    oa.insert("examples".into(), examples);
    if let Some(sec) = security {
        oa.insert("security".into(), sec);
    }
    // operation- or path-level servers win over the spec's
    let local: Vec<Map<String, Value>> = if ctx.swagger {
        Vec::new()
    } else {
        let r = local_server_rows(op.get("servers"), "operation");
        if r.is_empty() {
            local_server_rows(item.get("servers"), "path")
        } else {
            r
        }
    };
    let mut local_base: Option<Value> = None;
    if let Some(first) = local.first() {
        let mut sv = first.clone();
        local_base = sv.get("url").cloned();
        sv.insert(
            "servers".into(),
            Value::Array(local.iter().cloned().map(Value::Object).collect()),
        );
        oa.insert("server".into(), Value::Object(sv));
    } else if !ctx.servers.is_empty() {
        let (u, d) = &ctx.servers[0];
        let source = if ctx.swagger { "swagger2" } else { "spec" };
        let mut sv = Map::new();
        sv.insert("source".into(), json!(source));
        sv.insert("url".into(), json!(u));
        sv.insert("raw_url".into(), json!(u));
        if let Some(d) = d {
            sv.insert("description".into(), json!(d));
        }
        if ctx.swagger
            && let Some((scheme, host, base)) = swagger_server(ctx.spec)
        {
            sv.insert("scheme".into(), json!(scheme));
            sv.insert("host".into(), json!(host));
            sv.insert("base_path".into(), json!(base));
        }
        let all: Vec<Value> = ctx
            .servers
            .iter()
            .map(|(u, d)| {
                let mut m = Map::new();
                m.insert("source".into(), json!(source));
                m.insert("url".into(), json!(u));
                m.insert("raw_url".into(), json!(u));
                if let Some(d) = d {
                    m.insert("description".into(), json!(d));
                }
                Value::Object(m)
            })
            .collect();
        sv.insert("servers".into(), Value::Array(all));
        oa.insert("server".into(), Value::Object(sv));
    }

    let mut md = Map::new();
    md.insert("source".into(), json!("openapi"));
    md.insert("method".into(), json!(method));
    md.insert("path".into(), json!(path));
    // the contract rows are frozen (no later phase reads them); what promotion and the
    // readiness checks need of them is taken below
    md.insert(
        "api_contract".into(),
        crate::ingest::schema::object([
            ("produces", freeze_rows(&ac_produces)),
            ("consumes", freeze_rows(&ac_consumes)),
            ("links", Value::Array(links)),
        ]),
    );
    md.insert("openapi".into(), Value::Object(oa));
    md.insert("input_locations".into(), Value::Object(locs));
    if let Some(bs) = body_schema {
        md.insert("request_body_schema".into(), bs);
    }
    // the body's media type, schema or not (the reference records it for a body that only
    // declares content)
    if let Some(ct) = &body_ct {
        md.insert("request_content_type".into(), json!(ct));
    }
    if let Some(rs) = resp_schema {
        md.insert("response_schema".into(), rs);
        if let Some(st) = &resp_status {
            md.insert("response_status".into(), json!(st));
        }
        if let Some(ct) = &resp_ct {
            md.insert("response_content_type".into(), json!(ct));
        }
    }
    if let Some(u) = local_base {
        md.insert("base_url".into(), u);
    } else if let Some((u, _)) = ctx.servers.first() {
        md.insert("base_url".into(), json!(u));
    }
    md.insert("source_label".into(), json!(ctx.label));
    md.insert("source_url".into(), json!(ctx.file));

    let mut t = ToolSchema {
        name: op_id,
        description: tool_desc,
        parameters: params,
        tags,
        domain: domain.or_else(|| Some("general".into())),
        metadata: md,
        annotations: Some(annotations),
        ..Default::default()
    };
    super::build::contracts::set_contract_view(&mut t, &ac_produces, &ac_consumes);
    Ok(t)
}

/// One response link as the reference records it (spec §1.5 link rows).
fn link_row(name: &str, status: &str, l: &Value) -> Row {
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

/// ((method, path), request refs, response refs)
pub type OperationRefs = ((String, String), Vec<String>, Vec<String>);

/// `"$ref"` strings used by each operation of the raw spec: (method, path) → (request
/// refs from requestBody + parameters, response refs).
pub fn raw_operation_refs(spec: &Value) -> Vec<OperationRefs> {
    fn collect(v: &Value, out: &mut Vec<String>) {
        let mut stack = vec![v];
        while let Some(v) = stack.pop() {
            match v {
                Value::Object(m) => {
                    if let Some(Value::String(r)) = m.get("$ref") {
                        out.push(r.clone());
                    }
                    for x in m.values().rev() {
                        stack.push(x);
                    }
                }
                Value::Array(a) => {
                    for x in a.iter().rev() {
                        stack.push(x);
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    let Some(paths) = spec.get("paths").and_then(Value::as_object) else {
        return out;
    };
    for (path, item) in paths {
        let Some(item) = item.as_object() else {
            continue;
        };
        for &m in METHODS {
            let Some(op) = item.get(m) else { continue };
            let mut req = Vec::new();
            let mut resp = Vec::new();
            if let Some(b) = op.get("requestBody") {
                collect(b, &mut req);
            }
            if let Some(p) = op.get("parameters") {
                collect(p, &mut req);
            }
            if let Some(r) = op.get("responses") {
                collect(r, &mut resp);
            }
            out.push(((m.to_string(), path.clone()), req, resp));
        }
    }
    out
}

/// Row hint keys in the order the reference copies them between rows.
pub const ROW_HINT_KEYS: &[&str] = &[
    "format",
    "default",
    "example",
    "nullable",
    "pattern",
    "minimum",
    "maximum",
    "exclusive_minimum",
    "exclusive_maximum",
    "min_length",
    "max_length",
    "min_items",
    "max_items",
    "min_properties",
    "max_properties",
    "multiple_of",
    "const",
    "read_only",
    "write_only",
    "deprecated",
    "schema_combinator",
    "schema_branch",
    "schema_branch_count",
    "schema_branches",
    "required_in_branch",
    "schema_ref",
    "schema_expanded_from",
    "schema_expansion",
    "content_type",
    "content_types",
    "content_schema_type",
    "content_fields",
    "content_top_level_fields",
    "request_body_root",
    "additional_properties",
    "map_value",
    "map_key_placeholder",
    "response_body_root",
    "value_type",
    "value_format",
    "discriminator_property",
    "discriminator_value",
    "discriminator_values",
    "encoding_content_type",
    "encoding_style",
    "encoding_explode",
    "encoding_allow_reserved",
    "encoding_headers",
    "encoding_field_name",
    "response_envelope_path",
    "response_collection_path",
    "response_item_path",
    "value_path_aliases",
    "schema_inferred_from",
    "example_source",
    "example_name",
    "example_content_type",
    "example_status",
    "description",
];

/// Freezes the parts of an operation's metadata that no later build phase reads (see
/// [`super::frozen`]): parameter, body and response rows, schemas and examples. Kept as
/// trees: `openapi`'s scalars and `response.envelope` (semantics), `api_contract` (semantics,
/// promotion, links), `response_schema` (ref preservation, readiness).
fn freeze_bulk(mut t: ToolSchema) -> ToolSchema {
    use super::frozen::freeze_member;
    if let Some(rb) = t
        .metadata
        .get("openapi")
        .and_then(|o| o.get("request_body"))
    {
        // (the contract counts and keys were taken when the rows were built)
        let facts = super::readiness::OperationFacts::of_request_body(rb);
        t.readiness = super::readiness::OperationFacts {
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

/// Python `x not in (None, "", [])`.
pub fn present(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        _ => true,
    }
}

fn hint_position(k: &str) -> Option<usize> {
    static POS: std::sync::OnceLock<rustc_hash::FxHashMap<&'static str, usize>> =
        std::sync::OnceLock::new();
    POS.get_or_init(|| {
        let mut m = rustc_hash::FxHashMap::default();
        for (i, k) in ROW_HINT_KEYS.iter().enumerate() {
            m.entry(*k).or_insert(i);
        }
        m
    })
    .get(k)
    .copied()
}

/// Copies every present hint of `src` into `dst` (existing keys keep their position).
pub fn copy_row_hints(src: &Row, dst: &mut Row) {
    // each hint key once, so at most ROW_HINT_KEYS.len() of them
    let mut found: [(usize, Option<&Value>); ROW_HINT_KEYS.len()] =
        [(0, None); ROW_HINT_KEYS.len()];
    let mut n = 0;
    for (k, v) in src.iter() {
        if let Some(p) = hint_position(k).filter(|_| present(v)) {
            found[n] = (p, Some(v));
            n += 1;
        }
    }
    let found = &mut found[..n];
    found.sort_unstable_by_key(|x| x.0);
    // a row without hints yet (a new contract row) takes them without looking them up
    let fresh = !dst.keys().any(|k| hint_position(k).is_some());
    dst.reserve(n);
    for (p, v) in found.iter() {
        let (k, v) = (ROW_HINT_KEYS[*p].into(), v.cloned().unwrap_or_default());
        if fresh {
            dst.push_new(k, v);
        } else {
            dst.insert(k, v);
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
    let en = super::leaves::schema_enum(schema);
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

pub fn first_n(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => s[..i].to_string(),
        None => s.to_string(),
    }
}

/// The OpenAPI module's `_schema_type`: `type` (default "string", first non-null of a
/// list) mapped onto string/integer/number/boolean/array/object.
pub fn py_schema_type(schema: &Value) -> String {
    let t = match schema.get("type") {
        None => Some("string".to_string()),
        Some(Value::Array(a)) => Some(
            a.iter()
                .find(|x| truthy(x) && x.as_str() != Some("null"))
                .map(|x| {
                    x.as_str()
                        .map(String::from)
                        .unwrap_or_else(|| crate::pytext::py_str(x))
                })
                .unwrap_or_else(|| "string".into()),
        ),
        Some(Value::String(s)) => Some(s.clone()),
        Some(v) if truthy(v) => Some(crate::pytext::py_str(v)),
        Some(_) => None,
    };
    let t = t
        .filter(|x| !x.is_empty())
        .unwrap_or_else(|| "string".into());
    match t.as_str() {
        "integer" | "number" | "boolean" | "array" | "object" => t,
        _ => "string".into(),
    }
}

const SCHEMA_HINT_KEYS: &[(&str, &str)] = &[
    ("format", "format"),
    ("default", "default"),
    ("example", "example"),
    ("nullable", "nullable"),
    ("x-nullable", "nullable"),
    ("pattern", "pattern"),
    ("minimum", "minimum"),
    ("maximum", "maximum"),
    ("exclusiveMinimum", "exclusive_minimum"),
    ("exclusiveMaximum", "exclusive_maximum"),
    ("minLength", "min_length"),
    ("maxLength", "max_length"),
    ("minItems", "min_items"),
    ("maxItems", "max_items"),
    ("minProperties", "min_properties"),
    ("maxProperties", "max_properties"),
    ("multipleOf", "multiple_of"),
    ("const", "const"),
    ("readOnly", "read_only"),
    ("writeOnly", "write_only"),
    ("deprecated", "deprecated"),
];

/// Copies JSON Schema validation/example hints into a row.
pub fn add_schema_hints(row: &mut Row, schema: &Value) {
    let Some(m) = schema.as_object() else { return };
    for (sk, rk) in SCHEMA_HINT_KEYS {
        let Some(v) = m.get(*sk) else { continue };
        if v.is_null() || v.as_str() == Some("") {
            continue;
        }
        row.insert((*rk).into(), super::leaves::compact_value(v));
    }
    if super::leaves::schema_nullable(schema) {
        row.insert("nullable".into(), json!(true));
    }
}

/// Object/array nested-field summary (`- name* (type): description`), two levels deep.
pub fn summarize_object_schema(schema: &Value) -> String {
    fn walk(s: &Value, depth: usize, indent: usize, out: &mut Vec<String>) {
        if depth > 2 || !s.is_object() {
            return;
        }
        let prefix = "  ".repeat(indent);
        if s.get("type").and_then(Value::as_str) == Some("array") {
            out.push(format!("{prefix}[array of:]"));
            let empty = json!({});
            let items = s.get("items").filter(|i| truthy(i)).unwrap_or(&empty);
            walk(items, depth + 1, indent + 1, out);
            return;
        }
        let Some(props) = s
            .get("properties")
            .and_then(Value::as_object)
            .filter(|p| !p.is_empty())
        else {
            return;
        };
        let required: Vec<&str> = s
            .get("required")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (name, prop) in props {
            if !prop.is_object() {
                continue;
            }
            let ptype = py_schema_type(prop);
            let req = if required.contains(&name.as_str()) {
                "*"
            } else {
                ""
            };
            let desc = match prop.get("description") {
                Some(Value::String(d)) => crate::pytext::strip(d).to_string(),
                _ => String::new(),
            };
            let mut line = format!("{prefix}- {name}{req} ({ptype})");
            if !desc.is_empty() {
                line.push_str(&format!(": {desc}"));
            }
            if let Some(e) = prop.get("example").filter(|e| !e.is_null())
                && desc.is_empty()
            {
                let e = match e {
                    Value::String(x) => x.clone(),
                    o => crate::pytext::py_str(o),
                };
                line.push_str(&format!("  e.g. {e}"));
            }
            out.push(line);
            if depth < 2 {
                if ptype == "object" {
                    walk(prop, depth + 1, indent + 1, out);
                } else if ptype == "array" {
                    let empty = json!({});
                    let items = prop.get("items").filter(|i| truthy(i)).unwrap_or(&empty);
                    let items_obj = items.get("properties").is_some_and(truthy)
                        || matches!(
                            items.get("type").and_then(Value::as_str),
                            Some("object" | "array")
                        );
                    if items_obj {
                        walk(items, depth + 1, indent + 1, out);
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(schema, 0, 0, &mut out);
    out.join("\n")
}

/// A schema's description plus, for object/array schemas, the nested-field summary.
pub fn py_schema_description(schema: &Value) -> String {
    if !schema.is_object() {
        return String::new();
    }
    let mut desc = match schema.get("description") {
        Some(v) if truthy(v) => crate::pytext::strip(&match v {
            Value::String(x) => x.clone(),
            o => crate::pytext::py_str(o),
        })
        .to_string(),
        _ => String::new(),
    };
    let ty = py_schema_type(schema);
    if ty == "object" || ty == "array" {
        let nested = summarize_object_schema(schema);
        if !nested.is_empty() {
            desc = if desc.is_empty() {
                format!("Fields:\n{nested}")
            } else {
                crate::pytext::strip(&format!("{desc}\nFields:\n{nested}")).to_string()
            };
        }
    }
    desc
}

/// Operation/parameter description merged with the schema's description.
pub fn merge_description(existing: &str, schema_description: &str) -> String {
    let existing = crate::pytext::strip(existing);
    let sd = crate::pytext::strip(schema_description);
    if sd.is_empty() {
        return existing.to_string();
    }
    if existing.is_empty() {
        return sd.to_string();
    }
    if existing.contains(sd) {
        return existing.to_string();
    }
    if sd.contains(existing) {
        return sd.to_string();
    }
    format!("{existing}\n{sd}")
}

fn is_null_schema(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str) == Some("null")
}

/// The reference's `_normalize_nullable_markers`: `x-nullable`, `type: [X, "null"]` and
/// null branches of `anyOf`/`oneOf` become `nullable: true`; `nullable: false` is dropped.
pub fn normalize_nullable(v: &Value) -> Value {
    let Value::Object(m) = v else {
        return v.clone();
    };
    let mut out = Map::with_capacity(m.len());
    for (k, value) in m {
        match (k.as_str(), value) {
            ("anyOf" | "oneOf", Value::Array(a)) => {
                let non_null: Vec<&Value> = a.iter().filter(|x| !is_null_schema(x)).collect();
                let has_null = non_null.len() < a.len();
                if has_null && non_null.len() == 1 {
                    if let Value::Object(merged) = normalize_nullable(non_null[0]) {
                        for (mk, mv) in merged {
                            out.insert(mk, mv);
                        }
                    }
                    out.insert("nullable".into(), Value::Bool(true));
                    continue;
                }
                out.insert(
                    k.clone(),
                    Value::Array(non_null.into_iter().map(normalize_nullable).collect()),
                );
                if has_null {
                    out.insert("nullable".into(), Value::Bool(true));
                }
            }
            ("type", Value::Array(a)) => {
                let types: Vec<&Value> = a.iter().filter(|x| x.as_str() != Some("null")).collect();
                if types.len() < a.len() {
                    out.insert("nullable".into(), Value::Bool(true));
                    let t = match types.len() {
                        0 => json!("string"),
                        1 => types[0].clone(),
                        _ => Value::Array(types.into_iter().cloned().collect()),
                    };
                    out.insert(k.clone(), t);
                } else {
                    out.insert(k.clone(), value.clone());
                }
            }
            ("x-nullable", _) => {
                if truthy(value) {
                    out.insert("nullable".into(), Value::Bool(true));
                }
            }
            ("nullable", _) => {
                if truthy(value) || out.get("nullable").is_some_and(truthy) {
                    out.insert("nullable".into(), Value::Bool(true));
                }
            }
            (_, Value::Object(_)) => {
                out.insert(k.clone(), normalize_nullable(value));
            }
            (_, Value::Array(a)) => {
                out.insert(
                    k.clone(),
                    Value::Array(a.iter().map(normalize_nullable).collect()),
                );
            }
            _ => {
                out.insert(k.clone(), value.clone());
            }
        }
    }
    Value::Object(out)
}

/// [`normalize_nullable`] of a large map (the paths, the schema components), its members
/// normalised in parallel when none of its own keys is one the normalisation rewrites.
fn normalize_members(v: &Value) -> Value {
    const REWRITTEN: &[&str] = &["anyOf", "oneOf", "type", "x-nullable", "nullable"];
    let Value::Object(m) = v else {
        return normalize_nullable(v);
    };
    if m.len() < 64 || m.keys().any(|k| REWRITTEN.contains(&k.as_str())) {
        return normalize_nullable(v);
    }
    let members: Vec<(&String, &Value)> = m.iter().collect();
    let values = super::par::map(&members, |&(_, x)| match x {
        Value::Object(_) => normalize_nullable(x),
        Value::Array(a) => Value::Array(a.iter().map(normalize_nullable).collect()),
        other => other.clone(),
    });
    Value::Object(
        members
            .iter()
            .zip(values)
            .map(|((k, _), x)| ((*k).clone(), x))
            .collect(),
    )
}

/// A copy of the spec with `paths` and the schema components normalised.
fn normalize_spec(spec: &Value, swagger: bool) -> Value {
    let Value::Object(m) = spec else {
        return spec.clone();
    };
    let mut out = Map::with_capacity(m.len());
    for (k, v) in m {
        let nv = match k.as_str() {
            "paths" => normalize_members(v),
            "definitions" if swagger => normalize_members(v),
            "components" if !swagger => match v {
                Value::Object(c) => {
                    let mut cm = Map::with_capacity(c.len());
                    for (ck, cv) in c {
                        cm.insert(
                            ck.clone(),
                            if ck == "schemas" {
                                normalize_members(cv)
                            } else {
                                cv.clone()
                            },
                        );
                    }
                    Value::Object(cm)
                }
                o => o.clone(),
            },
            _ => v.clone(),
        };
        out.insert(k.clone(), nv);
    }
    Value::Object(out)
}

/// Server rows of an operation or path item (`source`, trimmed `url`, `raw_url`,
/// `description`; variables expanded from their defaults).
fn local_server_rows(servers: Option<&Value>, source: &str) -> Vec<Map<String, Value>> {
    let Some(Value::Array(list)) = servers else {
        return Vec::new();
    };
    let mut rows = Vec::new();
    for sv in list.iter().filter_map(Value::as_object) {
        let raw =
            crate::pytext::strip(sv.get("url").and_then(Value::as_str).unwrap_or("")).to_string();
        if raw.is_empty() {
            continue;
        }
        let mut url = raw.clone();
        let mut vars: Vec<Value> = Vec::new();
        if let Some(Value::Object(vs)) = sv.get("variables") {
            for (name, v) in vs {
                let Some(v) = v.as_object() else { continue };
                let mut row = Map::new();
                row.insert("name".into(), json!(name));
                if let Some(d) = v.get("default") {
                    let d = match d {
                        Value::String(x) => x.clone(),
                        o => crate::pytext::py_str(o),
                    };
                    if !d.is_empty() {
                        url = url.replace(&format!("{{{name}}}"), &d);
                    }
                    row.insert("default".into(), json!(d));
                }
                vars.push(Value::Object(row));
            }
        }
        let url = url.trim();
        let url = if url.chars().count() > 1 {
            url.trim_end_matches('/')
        } else {
            url
        };
        let mut row = Map::new();
        row.insert("source".into(), json!(source));
        row.insert("url".into(), json!(url));
        row.insert("raw_url".into(), json!(raw));
        let d = crate::pytext::strip(sv.get("description").and_then(Value::as_str).unwrap_or(""));
        if !d.is_empty() {
            row.insert("description".into(), json!(first_n(d, 300)));
        }
        if !vars.is_empty() {
            row.insert("variables".into(), Value::Array(vars));
        }
        rows.push(row);
    }
    rows
}
