//! OpenAPI 3.x / Swagger 2.0 operations → ToolSchema (spec §1.6) with the metadata the
//! graphify build and the engine read (§1.5): method, path, io contract (`api_contract`),
//! the `openapi` view of the operation, selected request/response schemas, server URL.
//!
//! Swagger 2.0 is read through the same code: `in: body` parameters become the request
//! body, `produces`/`consumes` the media types, `definitions` the components, `host` +
//! `basePath` the server.
//!
//! One file per part of the work: [`operation`] assembles one operation's tool block by
//! block, [`response`] and [`request`] the sides its responses and request body give (made
//! once per distinct text and kept in a bounded [`memo`]), [`security`] its auth rows,
//! [`servers`] its server rows, [`links`] its response links, [`naming`] generated and
//! deduplicated tool names, [`normalize`] the nullable dialects the reference normalises
//! before resolving. The rows themselves come from
//! [`crate::ingest::operation_rows`]; the hints they share from [`crate::ingest::schema_hints`].
//! Imports run one way, `openapi` → `operation_rows` → `schema_hints`: nothing below imports
//! this module.

mod links;
mod memo;
mod naming;
mod normalize;
mod operation;
mod request;
mod response;
mod security;
mod servers;

use std::sync::atomic::AtomicU64;

use rustc_hash::FxHashMap;
use serde_json::{Map, Value, json};

use super::refs::Resolver;
use super::schema::ToolSchema;
use crate::error::InputError;
use naming::dedupe_suffix;
use normalize::normalize_spec;
use operation::operation_tool;
use servers::servers_of;

/// The response and the request sides made and reused in this process, in that order
/// (`TOOLSCOPE_TIMING` says them).
pub fn sides_made_and_reused() -> [(u64, u64); 2] {
    [
        response::RESPONSE_MEMO.counts(),
        request::REQUEST_MEMO.counts(),
    ]
}

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

struct Ctx<'a> {
    file: &'a str,
    res: &'a Resolver<'a>,
    swagger: bool,
    spec: &'a Value,
    label: &'a str,
    servers: Vec<(String, Option<String>)>,
    /// response and request sides made for earlier operations (one builder's: not shared
    /// by threads)
    responses: response::ResponseMemo,
    requests: request::RequestMemo,
}

/// Reads every operation of one spec. `given` reads the spec as given (its digest, its
/// raw `$ref`s) beside the check of its `$ref`s, before the spec is normalised in place and
/// its tools built from it; its result is returned with the tools. A spec with a remote
/// `$ref` is an error (`given`'s result is then dropped).
pub fn spec_tools<R: Send>(
    file: &str,
    mut spec: Value,
    swagger: bool,
    skip_deprecated: bool,
    progress: &super::progress::Progress,
    (lo, hi): (f64, f64),
    given: impl FnOnce(&Value) -> R,
) -> Result<(SpecTools, R), InputError> {
    let mut t0 = std::time::Instant::now();
    progress.report("normalizing the spec", lo, file);
    // the check names places in the user's file: it reads the spec as given
    let (given, remote) =
        crate::par::join(|| given(&spec), || Resolver::new(file, &spec).check_refs());
    remote?;
    normalize_spec(&mut spec, swagger);
    let normalized = spec;
    let spec = &normalized;
    let expanded = AtomicU64::new(0);
    let res = Resolver::new(file, spec).with_total(&expanded);
    super::build::collection::phase(&mut t0, "normalize spec");
    let title = s(spec.pointer("/info/title")).map(String::from);
    let label = spec_label(file, &title);
    let paths = spec_paths(file, spec)?;
    let ctx = Ctx {
        file,
        res: &res,
        swagger,
        spec,
        label: &label,
        servers: servers_of(spec, swagger),
        responses: memo::Memo::new(&response::RESPONSE_MEMO),
        requests: memo::Memo::new(&request::REQUEST_MEMO),
    };
    let id_count = operation_id_counts(paths, skip_deprecated);
    let ops = Operations::of(file, &res, paths, skip_deprecated);
    let counter = progress.counter(
        "building tools from operations",
        (lo + (hi - lo) * 0.1, hi),
        ops.jobs.len(),
        "operations",
    );
    let built = build_tools(&ctx, &ops.jobs, &expanded, &counter);
    let mut names = ToolNames::new(id_count);
    let mut tools: Vec<ToolSchema> = Vec::new();
    for ((path, method, _, _), t) in ops.jobs.iter().zip(built) {
        let mut t = t?;
        names.assign(file, path, method, &mut t);
        tools.push(t);
    }
    if ops.count == 0 {
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
        operation_count: ops.count,
        deprecated_skipped: ops.deprecated_skipped,
    };
    drop(ops);
    crate::par::drop_later(normalized);
    Ok((out, given))
}

/// The spec's label: its title, else the file's stem, else `spec-1`.
fn spec_label(file: &str, title: &Option<String>) -> String {
    let stem = std::path::Path::new(file)
        .file_stem()
        .map(|x| x.to_string_lossy().to_string());
    title
        .clone()
        .filter(|t| !t.is_empty())
        .or(stem)
        .unwrap_or_else(|| "spec-1".into())
}

/// The spec's `paths` object.
fn spec_paths<'s>(file: &str, spec: &'s Value) -> Result<&'s Map<String, Value>, InputError> {
    let Some(paths) = spec.get("paths") else {
        return Err(InputError::new(
            file,
            "/paths",
            "the spec has no \"paths\": no operations to build tools from".into(),
        ));
    };
    paths
        .as_object()
        .ok_or_else(|| InputError::new(file, "/paths", "\"paths\" is not an object".into()))
}

/// How often each declared operationId occurs among the operations built (a skipped
/// deprecated one does not count; duplicate bookkeeping). Counted in the path items as
/// written, as the reference counts them: the operations of a path item that is a `$ref`
/// are built (and renamed when their names are taken) but not counted, so they and the
/// operations they repeat are not marked as duplicates.
fn operation_id_counts(
    paths: &Map<String, Value>,
    skip_deprecated: bool,
) -> FxHashMap<String, usize> {
    let mut id_count: FxHashMap<String, usize> = Default::default();
    for item in paths.values() {
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
    id_count
}

/// One operation to build: (path, method, path item, operation).
type Job<'s> = (&'s String, &'static str, &'s Value, &'s Value);

/// The operations to build, in spec order, and the counts for the source manifest.
struct Operations<'s> {
    jobs: Vec<Job<'s>>,
    /// every operation object, deprecated or not
    count: usize,
    deprecated_skipped: usize,
}

impl<'s> Operations<'s> {
    fn of(
        file: &str,
        res: &'s Resolver<'s>,
        paths: &'s Map<String, Value>,
        skip_deprecated: bool,
    ) -> Operations<'s> {
        let mut out = Operations {
            jobs: Vec::new(),
            count: 0,
            deprecated_skipped: 0,
        };
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
                out.count += 1;
                if skip_deprecated && op.get("deprecated").and_then(Value::as_bool) == Some(true) {
                    out.deprecated_skipped += 1;
                    continue;
                }
                out.jobs.push((path, method, item, op));
            }
        }
        out
    }
}

/// A built tool (or its error) with the place of its operation among the jobs.
type Numbered = (usize, Result<ToolSchema, InputError>);

/// Builds the tools on every core (each thread with its own resolver cache), in job order
/// (the calling thread only waits for them).
fn build_tools(
    ctx: &Ctx,
    jobs: &[Job],
    expanded: &AtomicU64,
    counter: &super::progress::Counter,
) -> Vec<Result<ToolSchema, InputError>> {
    let tool_of = |ctx: &Ctx, (path, method, item, op): &Job| {
        let t = operation_tool(ctx, path, method, item, op);
        counter.tick();
        t
    };
    let threads = crate::par::threads();
    if threads == 1 || jobs.len() < 64 {
        let out = jobs.iter().map(|job| tool_of(ctx, job)).collect();
        super::leaves::clear_row_cache();
        return out;
    }
    let (file, spec, swagger) = (ctx.file, ctx.spec, ctx.swagger);
    let chunk = jobs.len().div_ceil(threads * 32);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let servers = &ctx.servers;
    let label = ctx.label;
    let (parts, ()): (Vec<Vec<Numbered>>, ()) = crate::par::workers(
        || {
            let res = Resolver::new(file, spec).with_total(expanded);
            let tctx = Ctx {
                file,
                res: &res,
                swagger,
                spec,
                label,
                servers: servers.clone(),
                responses: memo::Memo::new(&response::RESPONSE_MEMO),
                requests: memo::Memo::new(&request::REQUEST_MEMO),
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
            // the workers live on: what this one cached of the spec's schemas goes now
            super::leaves::clear_row_cache();
            out
        },
        || (),
    );
    let mut all: Vec<Numbered> = parts.into_iter().flatten().collect();
    all.sort_by_key(|x| x.0);
    all.into_iter().map(|x| x.1).collect()
}

/// Unique tool names: a repeated name gets a suffix from its method and path, and each
/// operation of a repeated operationId records the duplicate in its `openapi` block.
struct ToolNames {
    /// how often each operationId occurs (see [`operation_id_counts`])
    id_count: FxHashMap<String, usize>,
    /// how many of each repeated operationId were named so far
    id_seen: FxHashMap<String, usize>,
    /// names taken
    used: FxHashMap<String, usize>,
}

impl ToolNames {
    fn new(id_count: FxHashMap<String, usize>) -> ToolNames {
        ToolNames {
            id_count,
            id_seen: Default::default(),
            used: Default::default(),
        }
    }

    /// Names the next tool (built from `method path`).
    fn assign(&mut self, file: &str, path: &str, method: &str, t: &mut ToolSchema) {
        let base = t.name.clone();
        if self.used.contains_key(&base) {
            let mut cand = format!("{base}__{}", dedupe_suffix(method, path));
            let mut n = 1;
            while self.used.contains_key(&cand) {
                n += 1;
                cand = format!("{base}__{}_{n}", dedupe_suffix(method, path));
            }
            crate::ingest::warn(format!(
                "{file}:/paths/{}/{method}: duplicate operationId {}; tool named {}",
                crate::model::load::pointer_escape(path),
                crate::sanitize::quoted(&base),
                crate::sanitize::quoted(&cand)
            ));
            t.name = cand.clone();
            if let Some(Value::Object(o)) = t.metadata.get_mut("openapi") {
                o.insert("tool_name".into(), json!(cand));
            }
        }
        if let Some(&n) = self.id_count.get(&base).filter(|&&n| n > 1)
            && t.metadata
                .get("openapi")
                .and_then(|o| o.get("operation_id_generated"))
                .is_none()
        {
            let idx = self.id_seen.entry(base.clone()).or_default();
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
        *self.used.entry(t.name.clone()).or_default() += 1;
        *self.used.entry(base).or_default() += 0;
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
