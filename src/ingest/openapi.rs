//! OpenAPI 3.x / Swagger 2.0 operations → ToolSchema (spec §1.6) with the metadata the
//! graphify build and the engine read (§1.5): method, path, io contract (`api_contract`),
//! the `openapi` view of the operation, selected request/response schemas, server URL.
//!
//! Swagger 2.0 is read through the same code: `in: body` parameters become the request
//! body, `produces`/`consumes` the media types, `definitions` the components, `host` +
//! `basePath` the server.

use serde_json::{Map, Value, json};

use super::refs::{REF_MARKER, Resolver};
use super::schema::{ParamSchema, ToolSchema};
use crate::engine::pytext::truthy;
use crate::error::InputError;

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

fn is_json_ct(ct: &str) -> bool {
    let c = ct.to_ascii_lowercase();
    c.contains("json")
}

fn schema_type(schema: &Value) -> Option<String> {
    match schema.get("type") {
        Some(Value::String(t)) => Some(t.clone()),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .map(String::from),
        _ => {
            if schema.get("properties").is_some() {
                Some("object".into())
            } else if schema.get("items").is_some() {
                Some("array".into())
            } else {
                None
            }
        }
    }
}

/// `"<method>_<slug>"` for operations without an operationId.
fn generated_op_id(method: &str, path: &str) -> String {
    let mut slug = String::new();
    for seg in path.trim_matches('/').split('/') {
        if !slug.is_empty() {
            slug.push('/');
        }
        if let Some(p) = seg.strip_prefix('{').and_then(|x| x.strip_suffix('}')) {
            slug.push_str("by_");
            slug.push_str(p);
        } else {
            slug.push_str(seg);
        }
    }
    let mut out = String::new();
    let mut last_us = false;
    for c in slug.chars() {
        let c = if c == '/' || c == '-' { '_' } else { c };
        if c == '_' {
            if last_us {
                continue;
            }
            last_us = true;
        } else {
            last_us = false;
        }
        out.push(c);
    }
    format!("{method}_{out}")
}

fn dedupe_suffix(method: &str, path: &str) -> String {
    let mut slug = String::new();
    for seg in path.split('/') {
        if seg.is_empty() {
            continue;
        }
        slug.push('_');
        if let Some(p) = seg.strip_prefix('{').and_then(|x| x.strip_suffix('}')) {
            slug.push_str("by_");
            slug.push_str(p);
        } else {
            slug.push_str(seg);
        }
    }
    let mut out = String::new();
    let mut last_us = false;
    for c in slug.chars() {
        let c = if c.is_alphanumeric() || c == '_' {
            c
        } else {
            '_'
        };
        if c == '_' {
            if last_us {
                continue;
            }
            last_us = true;
        } else {
            last_us = false;
        }
        out.push(c);
    }
    format!("{method}_{}", out.trim_matches('_'))
}

/// Server URL of a spec (OpenAPI 3 `servers[0].url`, Swagger `schemes`/`host`/`basePath`).
fn servers_of(spec: &Value, swagger: bool) -> Vec<(String, Option<String>)> {
    if swagger {
        let host = s(spec.get("host")).unwrap_or("");
        let base = s(spec.get("basePath")).unwrap_or("");
        if host.is_empty() && base.is_empty() {
            return Vec::new();
        }
        let scheme = spec
            .get("schemes")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
            .and_then(Value::as_str)
            .unwrap_or("https");
        let url = if host.is_empty() {
            base.to_string()
        } else {
            format!("{scheme}://{host}{base}")
        };
        return vec![(url, None)];
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

/// Leaf rows of a (resolved) schema, in the layout of `openapi.*.fields`.
pub struct FieldRow {
    pub map: Map<String, Value>,
    pub depth: usize,
}

fn order_row(mut m: Map<String, Value>, order: &[&str]) -> Map<String, Value> {
    let mut out = Map::with_capacity(m.len());
    for k in order {
        if let Some(v) = m.shift_remove(*k) {
            out.insert((*k).into(), v);
        }
    }
    for (k, v) in m {
        out.insert(k, v);
    }
    out
}

const FIELD_ORDER_REQUEST: &[&str] = &[
    "field_name",
    "json_path",
    "field_type",
    "required",
    "location",
    "description",
    "format",
    "enum",
    "example",
    "default",
    "nullable",
    "minimum",
    "maximum",
    "read_only",
    "write_only",
    "deprecated",
    "required_in_branch",
    "schema_ref",
    "additional_properties",
    "map_value",
    "map_key_placeholder",
];
const AC_CONSUMES_ORDER: &[&str] = &[
    "field_name",
    "field_type",
    "required",
    "location",
    "kind",
    "json_path",
    "format",
    "enum",
    "example",
    "security_required",
    "security_schemes",
    "security_scheme",
    "auth_type",
    "credential_name",
    "requirement_indices",
    "scopes",
    "default",
    "nullable",
    "request_body_root",
    "minimum",
    "maximum",
    "read_only",
    "write_only",
    "deprecated",
    "required_in_branch",
    "schema_ref",
    "additional_properties",
    "map_value",
    "map_key_placeholder",
    "description",
];
const AC_PRODUCES_ORDER: &[&str] = &[
    "field_name",
    "json_path",
    "field_type",
    "enum",
    "required",
    "location",
    "kind",
    "header",
    "format",
    "example",
    "default",
    "nullable",
    "read_only",
    "write_only",
    "deprecated",
    "required_in_branch",
    "schema_ref",
    "additional_properties",
    "map_value",
    "map_key_placeholder",
    "response_collection_path",
    "response_item_path",
    "response_body_root",
    "value_type",
    "value_format",
    "response_envelope_path",
    "value_path_aliases",
    "description",
];

pub fn flatten(schema: &Value, location: &str) -> Vec<FieldRow> {
    super::leaves::schema_field_rows(schema, location)
        .into_iter()
        .map(|map| {
            let depth = map
                .get("json_path")
                .and_then(Value::as_str)
                .map_or(0, |p| p.matches('.').count());
            FieldRow { map, depth }
        })
        .collect()
}

/// The `Fields:` summary appended to object/array parameter descriptions.
fn fields_summary(schema: &Value) -> Option<String> {
    let ty = schema_type(schema)?;
    let (obj, mut out, indent) = match ty.as_str() {
        "object" => {
            if schema
                .get("properties")
                .and_then(Value::as_object)
                .is_none_or(|p| p.is_empty())
            {
                return None;
            }
            (schema, "Fields:".to_string(), "")
        }
        "array" => (
            schema.get("items").unwrap_or(&Value::Null),
            "Fields:\n[array of:]".to_string(),
            "  ",
        ),
        _ => return None,
    };
    let req: Vec<&str> = obj
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(props) = obj.get("properties").and_then(Value::as_object) {
        for (k, p) in props {
            let t = schema_type(p).unwrap_or_else(|| "any".into());
            out.push_str(&format!(
                "\n{indent}- {k}{} ({t})",
                if req.contains(&k.as_str()) { "*" } else { "" }
            ));
            if let Some(d) = s(p.get("description")).filter(|d| !d.is_empty()) {
                out.push_str(&format!(": {d}"));
            } else if let Some(e) = p.get("example") {
                let e = match e {
                    Value::String(x) => x.clone(),
                    o => crate::engine::pytext::py_str(o),
                };
                out.push_str(&format!("  e.g. {e}"));
            }
        }
    }
    Some(out)
}

/// A description with the `Fields:` summary of an object/array schema appended.
fn with_fields(desc: String, schema: Option<&Value>) -> String {
    match schema.and_then(fields_summary) {
        Some(f) if desc.is_empty() => f,
        Some(f) => format!("{desc}\n{f}"),
        None => desc,
    }
}

struct Ctx<'a> {
    file: &'a str,
    res: &'a Resolver<'a>,
    swagger: bool,
    spec: &'a Value,
    label: &'a str,
    servers: Vec<(String, Option<String>)>,
}

fn pick_content(content: &Map<String, Value>) -> Option<(&String, &Value)> {
    content
        .iter()
        .find(|(ct, _)| is_json_ct(ct))
        .or_else(|| content.iter().next())
}

/// Reads every operation of one spec.
pub fn spec_tools(
    file: &str,
    spec: &Value,
    swagger: bool,
    skip_deprecated: bool,
) -> Result<SpecTools, InputError> {
    let res = Resolver::new(file, spec);
    res.check_remote()?;
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
    // how often each declared operationId occurs (duplicate bookkeeping)
    let mut id_count: rustc_hash::FxHashMap<String, usize> = Default::default();
    for item in paths.values() {
        let item = res.deref(item);
        for &method in METHODS {
            if let Some(id) = item
                .get(method)
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
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 8);
    let built: Vec<Result<ToolSchema, InputError>> = if threads == 1 || jobs.len() < 64 {
        jobs.iter()
            .map(|(path, method, item, op)| operation_tool(&ctx, path, method, item, op))
            .collect()
    } else {
        let chunk = jobs.len().div_ceil(threads * 4);
        let next = std::sync::atomic::AtomicUsize::new(0);
        let parts: Vec<Vec<(usize, Result<ToolSchema, InputError>)>> = std::thread::scope(|sc| {
            let handles: Vec<_> = (0..threads)
                .map(|_| {
                    let (jobs, next, servers) = (&jobs, &next, &ctx.servers);
                    let label = ctx.label;
                    sc.spawn(move || {
                        let res = Resolver::new(file, spec);
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
                            for (i, (path, method, item, op)) in
                                jobs.iter().enumerate().skip(start).take(chunk)
                            {
                                out.push((i, operation_tool(&tctx, path, method, item, op)));
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
                    o.insert("operation_id_duplicate".into(), json!(true));
                    o.insert("operation_id_duplicate_count".into(), json!(n));
                    o.insert("operation_id_duplicate_index".into(), json!(*idx));
                    o.insert("operation_id_original".into(), json!(base));
                    if *idx > 0 {
                        o.insert("operation_id_deduped_name".into(), json!(name));
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
    Ok(SpecTools {
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
    })
}

fn param_type(p: &Value, swagger: bool) -> (String, Option<&Value>) {
    let schema = if swagger { Some(p) } else { p.get("schema") };
    let ty = schema
        .and_then(schema_type)
        .unwrap_or_else(|| "string".into());
    (ty, schema)
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
    let domain = tags.first().cloned().or_else(|| {
        path.split('/')
            .find(|x| !x.is_empty() && !x.starts_with('{'))
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

    // parameters: path-item then operation (operation overrides same name+in)
    let mut raw_params: Vec<&Value> = Vec::new();
    for src in [item.get("parameters"), op.get("parameters")] {
        if let Some(a) = src.and_then(Value::as_array) {
            for p in a {
                let p = res.deref(p);
                let key = (s(p.get("name")), s(p.get("in")));
                if let Some(pos) = raw_params
                    .iter()
                    .position(|q| (s(q.get("name")), s(q.get("in"))) == key)
                {
                    raw_params[pos] = p;
                } else {
                    raw_params.push(p);
                }
            }
        }
    }
    let mut params: Vec<ParamSchema> = Vec::new();
    let mut oa_params: Vec<Value> = Vec::new();
    let mut ac_consumes: Vec<Value> = Vec::new();
    let mut locs: Map<String, Value> = Map::new();
    for k in ["path", "query", "header", "cookie", "body"] {
        locs.insert(k.into(), json!([]));
    }
    let mut path_params: Vec<String> = Vec::new();
    let mut body_param: Option<&Value> = None;
    let mut form_params: Vec<&Value> = Vec::new();
    for p in &raw_params {
        let Some(name) = s(p.get("name")) else {
            continue;
        };
        let loc = s(p.get("in")).unwrap_or("query");
        if ctx.swagger && loc == "body" {
            body_param = Some(p);
            continue;
        }
        if ctx.swagger && loc == "formData" {
            form_params.push(p);
            continue;
        }
        let (ty, schema) = param_type(p, ctx.swagger);
        let schema = schema.map(|x| res.resolve(x));
        let required = loc == "path" || p.get("required").and_then(Value::as_bool) == Some(true);
        let raw_desc = s(p.get("description"))
            .or_else(|| schema.as_ref().and_then(|x| s(x.get("description"))))
            .unwrap_or("")
            .to_string();
        let desc = with_fields(raw_desc, schema.as_ref());
        let en = schema.as_ref().and_then(|x| x.get("enum")).cloned();
        params.push(ParamSchema {
            name: name.into(),
            ty: ty.clone(),
            description: desc.clone(),
            required,
            enum_values: en.clone(),
        });
        let mut oa = Map::new();
        oa.insert("name".into(), json!(name));
        oa.insert("in".into(), json!(loc));
        oa.insert("required".into(), json!(required));
        oa.insert("field_type".into(), json!(ty));
        if let Some(sc) = &schema {
            for k in ["default", "format", "minimum", "maximum"] {
                if let Some(v) = sc.get(k) {
                    oa.insert(k.into(), v.clone());
                }
            }
        }
        if !desc.is_empty() {
            oa.insert("description".into(), json!(desc));
        }
        if let Some(e) = &en {
            oa.insert("enum".into(), e.clone());
        }
        if let Some(e) = p.get("explode") {
            oa.insert("explode".into(), e.clone());
        }
        oa_params.push(Value::Object(oa));
        let mut ac = Map::new();
        ac.insert("field_name".into(), json!(name));
        ac.insert("field_type".into(), json!(ty));
        ac.insert("required".into(), json!(required));
        ac.insert("location".into(), json!(loc));
        ac.insert("kind".into(), json!("data"));
        if let Some(sc) = &schema {
            for k in ["format", "enum", "example", "default", "minimum", "maximum"] {
                if let Some(v) = sc.get(k) {
                    ac.insert(k.into(), v.clone());
                }
            }
        }
        if !desc.is_empty() {
            ac.insert("description".into(), json!(desc));
        }
        ac_consumes.push(Value::Object(order_row(ac, AC_CONSUMES_ORDER)));
        if let Some(Value::Array(a)) = locs.get_mut(loc) {
            a.push(json!(name));
        }
        if loc == "path" {
            path_params.push(name.into());
        }
    }

    // request body
    let mut rb = Map::new();
    let mut body_schema: Option<Value> = None;
    let mut body_ct: Option<String> = None;
    let mut body_required = false;
    let mut content_types: Vec<String> = Vec::new();
    let mut ct_schemas: Vec<(String, Option<Value>)> = Vec::new();
    if ctx.swagger {
        if let Some(bp) = body_param {
            body_required = bp.get("required").and_then(Value::as_bool) == Some(true);
            body_schema = bp.get("schema").map(|x| res.resolve(x));
            let cts = op
                .get("consumes")
                .or_else(|| ctx.spec.get("consumes"))
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().map(String::from))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_else(|| vec!["application/json".into()]);
            body_ct = cts.iter().find(|c| is_json_ct(c)).or(cts.first()).cloned();
            content_types = cts;
        } else if !form_params.is_empty() {
            let mut props = Map::new();
            let mut req = Vec::new();
            for p in &form_params {
                let Some(n) = s(p.get("name")) else { continue };
                let mut sc = Map::new();
                for (k, v) in p.as_object().into_iter().flatten() {
                    if !matches!(k.as_str(), "name" | "in" | "required") {
                        sc.insert(k.clone(), v.clone());
                    }
                }
                props.insert(n.into(), Value::Object(sc));
                if p.get("required").and_then(Value::as_bool) == Some(true) {
                    req.push(json!(n));
                }
            }
            body_schema = Some(json!({"type": "object", "properties": props, "required": req}));
            body_ct = Some("application/x-www-form-urlencoded".into());
            content_types = vec![body_ct.clone().unwrap()];
        }
    } else if let Some(rbv) = op.get("requestBody") {
        let rbv = res.deref(rbv);
        body_required = rbv.get("required").and_then(Value::as_bool) == Some(true);
        if let Some(content) = rbv.get("content").and_then(Value::as_object) {
            content_types = content.keys().cloned().collect();
            if let Some((ct, media)) = pick_content(content) {
                body_ct = Some(ct.clone());
                body_schema = media.get("schema").map(|x| res.resolve(x));
            }
            for (ct, media) in content {
                if Some(ct) == body_ct.as_ref() {
                    ct_schemas.push((ct.clone(), body_schema.clone()));
                } else {
                    ct_schemas.push((ct.clone(), media.get("schema").map(|x| res.resolve(x))));
                }
            }
        }
    }
    let mut body_fields: Vec<FieldRow> = Vec::new();
    let mut body_root: Option<(String, String, Option<Value>)> = None;
    if let Some(bs) = &body_schema {
        let is_obj = bs.get("properties").and_then(Value::as_object).is_some();
        if is_obj {
            let req: Vec<&str> = bs
                .get("required")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for (k, p) in bs["properties"].as_object().unwrap() {
                // read-only properties are server output, not inputs
                if p.get("readOnly").and_then(Value::as_bool) == Some(true) {
                    continue;
                }
                let ty = schema_type(p).unwrap_or_else(|| "string".into());
                let desc: String = s(p.get("description"))
                    .unwrap_or("")
                    .chars()
                    .take(300)
                    .collect();
                let desc = with_fields(desc, Some(p));
                params.push(ParamSchema {
                    name: k.clone(),
                    ty,
                    description: desc,
                    required: req.contains(&k.as_str()),
                    enum_values: p.get("enum").cloned(),
                });
                if let Some(Value::Array(a)) = locs.get_mut("body") {
                    a.push(json!(k));
                }
            }
            body_fields = flatten(bs, "body");
        } else {
            let ty = schema_type(bs).unwrap_or_else(|| "string".into());
            let desc: String = s(bs.get("description"))
                .unwrap_or("")
                .chars()
                .take(300)
                .collect();
            let desc = with_fields(desc, Some(bs));
            params.push(ParamSchema {
                name: "body".into(),
                ty: ty.clone(),
                description: desc,
                required: body_required,
                enum_values: None,
            });
            if let Some(Value::Array(a)) = locs.get_mut("body") {
                a.push(json!("body"));
            }
            let root_desc = params
                .last()
                .map(|p| p.description.clone())
                .unwrap_or_default();
            body_root = Some((ty.clone(), root_desc, bs.get("format").cloned()));
            body_fields = flatten(bs, "body");
            if body_fields.is_empty() {
                let mut m = Map::new();
                m.insert("field_name".into(), json!("body"));
                m.insert("json_path".into(), json!("$"));
                m.insert("field_type".into(), json!(ty));
                m.insert("required".into(), json!(body_required));
                m.insert("location".into(), json!("body"));
                m.insert("request_body_root".into(), json!(true));
                if let Some(f) = bs.get("format") {
                    m.insert("format".into(), f.clone());
                }
                body_fields.push(FieldRow { map: m, depth: 0 });
            }
        }
    }
    // body input locations: top-level names, then the other leaf names
    if let Some(Value::Array(a)) = locs.get_mut("body") {
        for f in &body_fields {
            if let Some(n) = f.map.get("field_name")
                && f.map.get("json_path").and_then(Value::as_str) != Some("$")
                && !a.contains(n)
            {
                a.push(n.clone());
            }
        }
    }
    // a body that is not an object: one root row for the whole body first
    let mut seen_body: Vec<String> = Vec::new();
    if let Some((ty, desc, fmt)) = &body_root
        && !body_fields
            .iter()
            .any(|f| f.map.get("json_path").and_then(Value::as_str) == Some("$"))
    {
        let mut ac = Map::new();
        ac.insert("field_name".into(), json!("body"));
        ac.insert("field_type".into(), json!(ty));
        ac.insert("required".into(), json!(body_required));
        ac.insert("location".into(), json!("body"));
        ac.insert("kind".into(), json!("data"));
        ac.insert("json_path".into(), json!("$"));
        if let Some(f) = fmt {
            ac.insert("format".into(), f.clone());
        }
        ac.insert("request_body_root".into(), json!(true));
        if !desc.is_empty() {
            ac.insert("description".into(), json!(desc));
        }
        ac_consumes.push(Value::Object(order_row(ac, AC_CONSUMES_ORDER)));
        seen_body.push("body".into());
    }
    // body consumes: one row per field name (first occurrence)
    for f in &body_fields {
        let name = f
            .map
            .get("field_name")
            .and_then(Value::as_str)
            .unwrap_or("");
        if seen_body.iter().any(|x| x == name) {
            continue;
        }
        seen_body.push(name.to_string());
        let mut ac = f.map.clone();
        ac.insert("kind".into(), json!("data"));
        ac_consumes.push(Value::Object(order_row(ac, AC_CONSUMES_ORDER)));
    }
    rb.insert("required".into(), json!(body_required));
    rb.insert(
        "content_type".into(),
        body_ct.clone().map(Value::String).unwrap_or(Value::Null),
    );
    if ct_schemas.is_empty() {
        for c in &content_types {
            ct_schemas.push((c.clone(), body_schema.clone()));
        }
    }
    let mut ct_rows: Vec<Value> = Vec::new();
    let mut all_top: Vec<Value> = Vec::new();
    let mut all_fields: Vec<Value> = Vec::new();
    let mut sel_top: Vec<Value> = Vec::new();
    let mut sel_fields: Vec<Value> = Vec::new();
    let mut root_row: Option<Value> = None;
    for (ct, sch) in &ct_schemas {
        let selected = Some(ct) == body_ct.as_ref();
        let mut m = Map::new();
        m.insert("content_type".into(), json!(ct));
        m.insert("is_json".into(), json!(is_json_ct(ct)));
        m.insert("has_schema".into(), json!(sch.is_some()));
        if let Some(sc) = sch {
            m.insert(
                "schema_type".into(),
                schema_type(sc).map(Value::String).unwrap_or(Value::Null),
            );
            let (top, root) = top_level_rows(sc, body_required);
            let mut fields: Vec<Value> = if selected {
                body_fields
                    .iter()
                    .map(|f| Value::Object(order_row(f.map.clone(), FIELD_ORDER_REQUEST)))
                    .collect()
            } else {
                flatten(sc, "body")
                    .into_iter()
                    .map(|f| Value::Object(order_row(f.map, FIELD_ORDER_REQUEST)))
                    .collect()
            };
            // the synthetic root leaf of a scalar body is not a field
            fields.retain(|f| f["json_path"] != "$");
            // all_fields: a non-object body's root row first
            if let Some(r) = &root
                && !all_fields.iter().any(|f| f["json_path"] == "$")
            {
                all_fields.insert(0, r.clone());
            }
            for t in &top {
                if !all_top.iter().any(|x| x["field_name"] == t["field_name"]) {
                    all_top.push(t.clone());
                }
            }
            for f in &fields {
                if !all_fields.iter().any(|x| x["json_path"] == f["json_path"]) {
                    all_fields.push(f.clone());
                }
            }
            if selected {
                sel_top = top.clone();
                sel_fields = fields.clone();
                root_row = root;
            }
            m.insert("top_level_fields".into(), Value::Array(top));
            let n = fields.len();
            if n > 0 {
                m.insert("fields".into(), Value::Array(fields));
            }
            m.insert("field_count".into(), json!(n));
        } else {
            m.insert("schema_type".into(), Value::Null);
            m.insert("top_level_fields".into(), json!([]));
            m.insert("fields".into(), json!([]));
            m.insert("field_count".into(), json!(0));
        }
        if selected {
            m.insert("selected".into(), json!(true));
        }
        ct_rows.push(Value::Object(m));
    }
    rb.insert("content_types".into(), Value::Array(ct_rows));
    rb.insert(
        "schema".into(),
        body_schema.clone().unwrap_or_else(|| json!({})),
    );
    if let Some(r) = root_row {
        rb.insert("root".into(), r);
    }
    rb.insert("top_level_fields".into(), Value::Array(sel_top));
    rb.insert("fields".into(), Value::Array(sel_fields));
    rb.insert("all_top_level_fields".into(), Value::Array(all_top));
    rb.insert("all_fields".into(), Value::Array(all_fields));

    // responses
    let mut resp_status: Option<String> = None;
    let mut resp_ct: Option<String> = None;
    let mut resp_desc = String::new();
    let mut resp_schema: Option<Value> = None;
    let mut responses: Vec<Value> = Vec::new();
    let mut error_responses: Vec<Value> = Vec::new();
    let mut links: Vec<Value> = Vec::new();
    let mut resp_links: Vec<Value> = Vec::new();
    let mut resp_headers: Vec<Value> = Vec::new();
    if let Some(rs) = op.get("responses").and_then(Value::as_object) {
        for (status, r) in rs {
            let r = res.deref(r);
            let success = status.starts_with('2');
            let d = s(r.get("description")).unwrap_or("").to_string();
            let mut row = Map::new();
            row.insert("status".into(), json!(status));
            row.insert("success".into(), json!(success));
            row.insert("description".into(), json!(d));
            // only the selected (first successful) response's schema is expanded
            let want = success && resp_status.is_none();
            let (ct, schema) = if ctx.swagger {
                let sc = r
                    .get("schema")
                    .map(|x| if want { res.resolve(x) } else { Value::Null });
                let ct = sc.as_ref().map(|_| {
                    op.get("produces")
                        .or_else(|| ctx.spec.get("produces"))
                        .and_then(Value::as_array)
                        .and_then(|a| {
                            a.iter()
                                .filter_map(Value::as_str)
                                .find(|c| is_json_ct(c))
                                .or_else(|| a.first().and_then(Value::as_str))
                        })
                        .map(String::from)
                });
                (ct.flatten(), sc)
            } else if let Some(content) = r.get("content").and_then(Value::as_object) {
                match pick_content(content) {
                    Some((ct, media)) => (
                        Some(ct.clone()),
                        media
                            .get("schema")
                            .map(|x| if want { res.resolve(x) } else { Value::Null }),
                    ),
                    None => (None, None),
                }
            } else {
                (None, None)
            };
            // response headers
            let mut hrows: Vec<Value> = Vec::new();
            for (hname, h) in r
                .get("headers")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let h = res.deref(h);
                let hs = if ctx.swagger {
                    Some(h)
                } else {
                    h.get("schema").map(|x| res.deref(x))
                };
                let mut m = Map::new();
                m.insert("name".into(), json!(hname));
                m.insert("field_name".into(), json!(hname));
                m.insert("json_path".into(), json!(format!("$.headers.{hname}")));
                m.insert(
                    "field_type".into(),
                    json!(hs.and_then(schema_type).unwrap_or_else(|| "string".into())),
                );
                m.insert(
                    "required".into(),
                    json!(h.get("required").and_then(Value::as_bool).unwrap_or(false)),
                );
                m.insert("location".into(), json!("response_header"));
                m.insert("status".into(), json!(status));
                if let Some(f) = hs.and_then(|x| x.get("format")) {
                    m.insert("format".into(), f.clone());
                }
                if let Some(d) = s(h.get("description")) {
                    m.insert("description".into(), json!(d));
                }
                hrows.push(Value::Object(m));
            }
            if !hrows.is_empty() {
                row.insert("headers".into(), Value::Array(hrows.clone()));
                row.insert("header_count".into(), json!(hrows.len()));
            }
            // every media type: JSON-ness, schema type and field count
            let mut sel_info: Option<(Value, usize)> = None;
            if !ctx.swagger
                && let Some(content) = r.get("content").and_then(Value::as_object)
                && !content.is_empty()
            {
                let will_select = want && schema.is_some();
                let mut cts = Vec::new();
                for (c, media) in content {
                    let mut m = Map::new();
                    m.insert("content_type".into(), json!(c));
                    m.insert("is_json".into(), json!(is_json_ct(c)));
                    let sch = media.get("schema");
                    m.insert("has_schema".into(), json!(sch.is_some()));
                    if let Some(sc) = sch {
                        let resolved = if Some(c) == ct.as_ref()
                            && schema.as_ref().is_some_and(|x| !x.is_null())
                        {
                            schema.clone().unwrap()
                        } else {
                            res.resolve(sc)
                        };
                        let st = schema_type(&resolved);
                        let n = flatten(&resolved, "response").len();
                        m.insert(
                            "schema_type".into(),
                            st.clone().map(Value::String).unwrap_or(Value::Null),
                        );
                        m.insert("field_count".into(), json!(n));
                        if Some(c) == ct.as_ref() {
                            sel_info = Some((st.map(Value::String).unwrap_or(Value::Null), n));
                            if will_select {
                                m.insert("selected".into(), json!(true));
                            }
                        }
                    }
                    cts.push(Value::Object(m));
                }
                row.insert("content_types".into(), Value::Array(cts));
            }
            if let Some(ct) = &ct {
                row.insert("content_type".into(), json!(ct));
            }
            if let Some((st, n)) = &sel_info {
                row.insert("schema_type".into(), st.clone());
                row.insert("field_count".into(), json!(n));
            }
            if success && resp_status.is_none() && (schema.is_some() || !hrows.is_empty()) {
                resp_headers = hrows.clone();
            }
            let mut row_links: Vec<Value> = Vec::new();
            if let Some(lm) = r.get("links").and_then(Value::as_object) {
                for (lname, l) in lm {
                    let l = res.deref(l);
                    let lrow = link_row(lname, status, l);
                    let mut full = lrow.clone();
                    full.insert("source_operation_id".into(), json!(op_id));
                    full.insert("source_status".into(), json!(status));
                    full.insert("success".into(), json!(success));
                    if success && resp_status.as_deref().is_none_or(|st| st == status) {
                        resp_links.push(Value::Object(lrow.clone()));
                    }
                    row_links.push(Value::Object(lrow));
                    links.push(Value::Object(full));
                }
            }
            if !row_links.is_empty() {
                let n = row_links.len();
                row.insert("links".into(), Value::Array(row_links));
                row.insert("link_count".into(), json!(n));
            }
            if success && resp_status.is_none() && schema.is_some() {
                resp_status = Some(status.clone());
                resp_ct = ct.clone();
                resp_desc = d.clone();
                resp_schema = schema.clone();
                row.insert("selected".into(), json!(true));
            }
            if !success {
                error_responses.push(Value::Object(row.clone()));
            }
            responses.push(Value::Object(row));
        }
    }
    let mut resp_rows: Vec<Map<String, Value>> = resp_schema
        .as_ref()
        .map(|x| super::leaves::schema_field_rows(x, "response"))
        .unwrap_or_default();
    if resp_rows.is_empty()
        && let Some(rs) = &resp_schema
        && let Some(root) = response_body_root_row(rs)
    {
        resp_rows.push(root);
    }
    let envelope = super::shape::annotate(resp_schema.as_ref(), &mut resp_rows);
    let mut ac_produces: Vec<Value> = Vec::new();
    let mut oa_resp_fields: Vec<Value> = Vec::with_capacity(resp_rows.len());
    for m in resp_rows {
        let mut p = Map::new();
        for k in ["field_name", "json_path", "field_type"] {
            p.insert(k.into(), m.get(k).cloned().unwrap_or(Value::Null));
        }
        if let Some(e) = m.get("enum").filter(|e| truthy(e)) {
            p.insert("enum".into(), e.clone());
        }
        copy_row_hints(&m, &mut p);
        ac_produces.push(Value::Object(p));
        oa_resp_fields.push(Value::Object(m));
    }
    for h in &resp_headers {
        let mut m = h.as_object().cloned().unwrap_or_default();
        let name = m.shift_remove("name").unwrap_or(Value::Null);
        m.shift_remove("status");
        m.insert("kind".into(), json!("data"));
        m.insert("header".into(), name);
        ac_produces.push(Value::Object(order_row(m, AC_PRODUCES_ORDER)));
    }

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
            } else if ctx.swagger
                && let Some(f) = get("flow")
            {
                m.insert("oauth_flows".into(), json!([f]));
            }
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
        let mut rows: Vec<Map<String, Value>> = Vec::new();
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
                    if let Some(Value::Array(a)) = row.get_mut("security_schemes")
                        && !a.contains(&json!(name))
                    {
                        a.push(json!(name));
                    }
                    if let Some(Value::Array(a)) = row.get_mut("requirement_indices")
                        && !a.contains(&json!(i))
                    {
                        a.push(json!(i));
                    }
                    continue;
                }
                let mut m = Map::new();
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
                if let Some(a) = scopes.as_array().filter(|a| !a.is_empty()) {
                    m.insert("scopes".into(), Value::Array(a.clone()));
                }
                if let Some(d) = def.get("description") {
                    m.insert("description".into(), d.clone());
                }
                rows.push(m);
            }
        }
        for r in rows {
            ac_consumes.push(Value::Object(order_row(r, AC_CONSUMES_ORDER)));
        }
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
    oa.insert("parameters".into(), Value::Array(oa_params));
    // path parameters in the order of the path template
    let mut ordered: Vec<String> = path
        .split('/')
        .filter_map(|seg| seg.strip_prefix('{').and_then(|x| x.strip_suffix('}')))
        .filter(|n| path_params.iter().any(|p| p == n))
        .map(String::from)
        .collect();
    for p in &path_params {
        if !ordered.contains(p) {
            ordered.push(p.clone());
        }
    }
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
    resp.insert("description".into(), json!(resp_desc));
    resp.insert(
        "schema".into(),
        resp_schema.clone().unwrap_or_else(|| json!({})),
    );
    resp.insert("fields".into(), Value::Array(oa_resp_fields));
    if !resp_headers.is_empty() {
        resp.insert("headers".into(), Value::Array(resp_headers.clone()));
    }
    if !resp_links.is_empty() {
        resp.insert("links".into(), Value::Array(resp_links));
    }
    if !envelope.is_empty() {
        resp.insert("envelope".into(), Value::Object(envelope));
    }
    oa.insert("response".into(), Value::Object(resp));
    oa.insert("responses".into(), Value::Array(responses));
    oa.insert("error_responses".into(), Value::Array(error_responses));
    oa.insert(
        "examples".into(),
        json!({"parameters": [], "request_body": [], "responses": []}),
    );
    if let Some(sec) = security {
        oa.insert("security".into(), sec);
    }
    if !ctx.servers.is_empty() {
        let (u, d) = &ctx.servers[0];
        let mut sv = Map::new();
        sv.insert("source".into(), json!("spec"));
        sv.insert("url".into(), json!(u));
        sv.insert("raw_url".into(), json!(u));
        if let Some(d) = d {
            sv.insert("description".into(), json!(d));
        }
        let all: Vec<Value> = ctx
            .servers
            .iter()
            .map(|(u, d)| {
                let mut m = Map::new();
                m.insert("source".into(), json!("spec"));
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
    md.insert(
        "api_contract".into(),
        json!({"produces": ac_produces, "consumes": ac_consumes, "links": links}),
    );
    md.insert("openapi".into(), Value::Object(oa));
    md.insert("input_locations".into(), Value::Object(locs));
    if let Some(bs) = &body_schema {
        md.insert("request_body_schema".into(), bs.clone());
        if let Some(ct) = &body_ct {
            md.insert("request_content_type".into(), json!(ct));
        }
    }
    if let Some(rs) = &resp_schema {
        md.insert("response_schema".into(), rs.clone());
        if let Some(st) = &resp_status {
            md.insert("response_status".into(), json!(st));
        }
        if let Some(ct) = &resp_ct {
            md.insert("response_content_type".into(), json!(ct));
        }
    }
    if let Some((u, _)) = ctx.servers.first() {
        md.insert("base_url".into(), json!(u));
    }
    md.insert("source_label".into(), json!(ctx.label));
    md.insert("source_url".into(), json!(ctx.file));

    Ok(ToolSchema {
        name: op_id,
        description: tool_desc,
        parameters: params,
        tags,
        domain: domain.or_else(|| Some("general".into())),
        metadata: md,
        annotations: Some(annotations),
    })
}

const TOP_ORDER: &[&str] = &[
    "field_name",
    "json_path",
    "field_type",
    "required",
    "location",
    "request_body_root",
    "format",
    "example",
    "minimum",
    "maximum",
    "default",
    "description",
    "enum",
    "item_type",
    "item_schema_ref",
    "item_top_level_fields",
    "item_field_count",
];

fn simple_row(name: &str, path: &str, p: &Value, required: bool) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("field_name".into(), json!(name));
    m.insert("json_path".into(), json!(path));
    m.insert(
        "field_type".into(),
        json!(schema_type(p).unwrap_or_else(|| "string".into())),
    );
    m.insert("required".into(), json!(required));
    m.insert("location".into(), json!("body"));
    for k in ["format", "example", "minimum", "maximum", "default"] {
        if let Some(v) = p.get(k) {
            m.insert(k.into(), v.clone());
        }
    }
    m
}

/// Top-level request-body rows (and the root row of a non-object body).
fn top_level_rows(schema: &Value, body_required: bool) -> (Vec<Value>, Option<Value>) {
    let props = schema.get("properties").and_then(Value::as_object);
    if let Some(props) = props {
        let req: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut out = Vec::new();
        for (k, p) in props {
            if p.get("readOnly").and_then(Value::as_bool) == Some(true) {
                continue;
            }
            let mut m = simple_row(k, &format!("$.{k}"), p, req.contains(&k.as_str()));
            let desc: String = s(p.get("description"))
                .unwrap_or("")
                .chars()
                .take(300)
                .collect();
            let desc = with_fields(desc, Some(p));
            if !desc.is_empty() {
                m.insert("description".into(), json!(desc));
            }
            if let Some(e) = p.get("enum") {
                m.insert("enum".into(), e.clone());
            }
            out.push(Value::Object(order_row(m, TOP_ORDER)));
        }
        return (out, None);
    }
    let mut m = simple_row("body", "$", schema, body_required);
    m.insert("request_body_root".into(), json!(true));
    let desc: String = s(schema.get("description"))
        .unwrap_or("")
        .chars()
        .take(300)
        .collect();
    let desc = with_fields(desc, Some(schema));
    if !desc.is_empty() {
        m.insert("description".into(), json!(desc));
    }
    if let Some(items) = schema.get("items") {
        if let Some(t) = schema_type(items) {
            m.insert("item_type".into(), json!(t));
        }
        if let Some(r) = items.get(REF_MARKER) {
            m.insert("item_schema_ref".into(), r.clone());
        }
        if let Some(ip) = items.get("properties").and_then(Value::as_object) {
            let req: Vec<&str> = items
                .get("required")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let rows: Vec<Value> = ip
                .iter()
                .map(|(k, p)| {
                    let mut r = simple_row(k, &format!("$.{k}"), p, req.contains(&k.as_str()));
                    if let Some(d) = s(p.get("description")) {
                        r.insert("description".into(), json!(d));
                    }
                    Value::Object(order_row(r, TOP_ORDER))
                })
                .collect();
            let n = rows.len();
            m.insert("item_top_level_fields".into(), Value::Array(rows));
            m.insert("item_field_count".into(), json!(n));
        }
    }
    let row = Value::Object(order_row(m, TOP_ORDER));
    (vec![row.clone()], Some(row))
}

/// One response link as the reference records it (spec §1.5 link rows).
fn link_row(name: &str, status: &str, l: &Value) -> Map<String, Value> {
    let mut m = Map::new();
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
            match expr {
                Value::String(e) => {
                    p.insert("expression".into(), json!(e));
                    let (source, extra) = expression_source(e);
                    p.insert("source".into(), json!(source));
                    if let Some((k, v)) = extra {
                        p.insert(k.into(), json!(v));
                    }
                }
                other => {
                    p.insert("value".into(), other.clone());
                    p.insert("source".into(), json!("value"));
                }
            }
            params.push(Value::Object(p));
        }
    }
    let n = params.len();
    m.insert("parameters".into(), Value::Array(params));
    m.insert("parameter_count".into(), json!(n));
    if let Some(b) = l.get("requestBody") {
        m.insert("request_body".into(), b.clone());
    }
    if let Some(sv) = l.get("server") {
        m.insert("server".into(), sv.clone());
    }
    m
}

/// Source of a runtime expression (`$response.body#/a/b` → response_body, `$.a.b`).
fn expression_source(e: &str) -> (&'static str, Option<(&'static str, String)>) {
    if let Some(ptr) = e.strip_prefix("$response.body") {
        let ptr = ptr.strip_prefix('#').unwrap_or(ptr);
        let parts: Vec<String> = ptr
            .split('/')
            .filter(|x| !x.is_empty())
            .map(|x| x.replace("~1", "/").replace("~0", "~"))
            .collect();
        let jp = if parts.is_empty() {
            "$".to_string()
        } else {
            format!("$.{}", parts.join("."))
        };
        return ("response_body", Some(("json_path", jp)));
    }
    if let Some(h) = e.strip_prefix("$response.header.") {
        return ("response_header", Some(("header", h.to_string())));
    }
    if let Some(ptr) = e.strip_prefix("$request.body") {
        let ptr = ptr.strip_prefix('#').unwrap_or(ptr);
        let parts: Vec<&str> = ptr.split('/').filter(|x| !x.is_empty()).collect();
        let jp = if parts.is_empty() {
            "$".to_string()
        } else {
            format!("$.{}", parts.join("."))
        };
        return ("request_body", Some(("json_path", jp)));
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

/// Python `x not in (None, "", [])`.
fn present(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        _ => true,
    }
}

/// Copies every present hint of `src` into `dst` (existing keys keep their position).
pub fn copy_row_hints(src: &Map<String, Value>, dst: &mut Map<String, Value>) {
    for k in ROW_HINT_KEYS {
        if let Some(v) = src.get(*k).filter(|v| present(v)) {
            dst.insert((*k).into(), v.clone());
        }
    }
}

/// The synthetic producer of a root scalar or dynamic-map response body.
fn response_body_root_row(schema: &Value) -> Option<Map<String, Value>> {
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
    let mut row = Map::new();
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
            row.insert(
                "value_format".into(),
                json!(crate::engine::pytext::py_str(f)),
            );
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
                        .unwrap_or_else(|| crate::engine::pytext::py_str(x))
                })
                .unwrap_or_else(|| "string".into()),
        ),
        Some(Value::String(s)) => Some(s.clone()),
        Some(v) if truthy(v) => Some(crate::engine::pytext::py_str(v)),
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
pub fn add_schema_hints(row: &mut Map<String, Value>, schema: &Value) {
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
                Some(Value::String(d)) => crate::engine::pytext::strip(d).to_string(),
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
                    o => crate::engine::pytext::py_str(o),
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
        Some(v) if truthy(v) => crate::engine::pytext::strip(&match v {
            Value::String(x) => x.clone(),
            o => crate::engine::pytext::py_str(o),
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
                crate::engine::pytext::strip(&format!("{desc}\nFields:\n{nested}")).to_string()
            };
        }
    }
    desc
}

/// Operation/parameter description merged with the schema's description.
pub fn merge_description(existing: &str, schema_description: &str) -> String {
    let existing = crate::engine::pytext::strip(existing);
    let sd = crate::engine::pytext::strip(schema_description);
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
