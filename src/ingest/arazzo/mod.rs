//! Arazzo 1.0 workflow descriptions applied to a tool graph, as graph-tool-call 0.47.0's
//! `apply_arazzo_workflows(graph, sources)` applies them (and
//! `build_openapi_collection_artifact(…, workflow_sources=…)` during a collection build).
//!
//! Each workflow's steps become `precedes` relations between the tools their operations
//! name (an `operationId`, `$sourceDescriptions.NAME.operationId`, or an `operationPath`
//! `…#/paths/~1pets~1{id}/get` matched against the tools' method and path): a
//! `runtime_reference` relation from every step whose outputs a later (or earlier) step
//! reads (`$steps.ID.outputs.NAME` in a parameter value or anywhere in the request body,
//! `$workflows.WF.steps.ID.outputs.NAME` across workflows), with one binding per read,
//! and a `sequential` relation between consecutive operation steps that have none.
//! Relations whose operations are not both tools of the graph are dropped, as the
//! reference drops them; toolscope also reports each such step as a warning (file and
//! JSON pointer), which the reference does not. [`apply`] writes the relations as edges
//! (merged into existing ones) and the bindings as `produces` aliases.
//!
//! What toolscope refuses (one-line error, exit 2), where the reference reads on: a
//! document whose `arazzo` version is not 1.0.x (checked when the input is classified), a
//! step naming a source description the document does not declare, and a remote `$ref`.
//! Source description URLs are never fetched: operations are found in the graph.

pub mod apply;
pub mod expr;
pub mod merge;
pub mod saved;

use indexmap::IndexMap;
use rustc_hash::FxHashMap;
use serde_json::{Map, Value, json};

use crate::error::InputError;
use crate::pytext;
use expr::{output_refs, request_body_field, response_path};

pub use apply::{Target, apply};

/// `true` for an `arazzo` version toolscope reads (`1.0.` and digits).
pub fn supported_version(v: &Value) -> bool {
    v.as_str()
        .and_then(|s| s.strip_prefix("1.0."))
        .is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// The tools a description is applied to: their names, and their operations by method
/// (lower-cased) and path (the last tool with a method and path wins, as in the reference).
#[derive(Debug, Default)]
pub struct Operations {
    names: rustc_hash::FxHashSet<String>,
    by_path: FxHashMap<(String, String), String>,
}

impl Operations {
    /// From `(tool name, metadata)` pairs in tool order.
    pub fn new<'a>(tools: impl IntoIterator<Item = (&'a str, &'a Map<String, Value>)>) -> Self {
        let mut ops = Operations::default();
        for (name, meta) in tools {
            ops.names.insert(name.to_string());
            if let (Some(Value::String(m)), Some(Value::String(p))) =
                (meta.get("method"), meta.get("path"))
            {
                ops.by_path
                    .insert((pytext::lower(m), p.clone()), name.to_string());
            }
        }
        ops
    }

    pub fn has(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    /// The tool an `operationPath` names: the part after the first `#` must be
    /// `/paths/<path>/<method>`, both JSON-pointer escaped.
    fn by_operation_path(&self, text: &str) -> Option<String> {
        let (_, pointer) = text.split_once('#')?;
        let parts: Vec<&str> = pointer.split('/').collect();
        let [first, "paths", path, method] = parts.as_slice() else {
            return None;
        };
        if !first.is_empty() {
            return None;
        }
        let unescape = |s: &str| s.replace("~1", "/").replace("~0", "~");
        self.by_path
            .get(&(unescape(method), unescape(path)))
            .cloned()
    }
}

/// A workflow relation between two tools (the reference's `ArazzoRelation`).
#[derive(Debug, Clone)]
pub struct Relation {
    pub source: String,
    pub target: String,
    pub workflow: String,
    pub source_step: String,
    pub target_step: String,
    /// `runtime_reference` (true) or `sequential`.
    pub runtime: bool,
    pub bindings: Vec<Map<String, Value>>,
}

impl Relation {
    pub fn dependency_kind(&self) -> &'static str {
        if self.runtime {
            "runtime_reference"
        } else {
            "sequential"
        }
    }
}

/// What one description gives: its counts, its relations between tools of the graph, and
/// the steps whose operation is not in the graph (`(JSON pointer, message)`).
#[derive(Debug, Default)]
pub struct Extracted {
    pub workflow_count: usize,
    pub step_count: usize,
    pub relations: Vec<Relation>,
    pub unresolved: Vec<(String, String)>,
}

fn objects(v: Option<&Value>) -> impl Iterator<Item = (usize, &Map<String, Value>)> {
    v.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .filter_map(|(i, x)| Some((i, x.as_object()?)))
}

/// `str(value or default)`.
fn str_or(v: Option<&Value>, default: &str) -> String {
    match v {
        Some(v) if pytext::truthy(v) => pytext::py_str(v),
        _ => default.to_string(),
    }
}

fn workflow_id(wf: &Map<String, Value>) -> String {
    str_or(wf.get("workflowId"), "unknown")
}

fn step_id(step: &Map<String, Value>) -> String {
    pytext::strip(&str_or(step.get("stepId"), "")).to_string()
}

/// The operation a step names: its `operationId` (a `$sourceDescriptions.NAME.` prefix
/// dropped), else the tool its `operationPath` matches.
fn operation_of(step: &Map<String, Value>, ops: &Operations) -> Option<String> {
    if let Some(v) = step.get("operationId").filter(|v| pytext::truthy(v)) {
        let s = pytext::py_str(v);
        let mut s = pytext::strip(&s);
        if s.starts_with("$sourceDescriptions.") {
            s = s.rsplit('.').next().unwrap_or("");
        }
        return (!s.is_empty()).then(|| s.to_string());
    }
    let path = step.get("operationPath").filter(|v| pytext::truthy(v))?;
    ops.by_operation_path(pytext::strip(&pytext::py_str(path)))
}

type StepRef = (String, String);
/// Per workflow id: its operation steps by stepId, with their operations.
type StepsOf<'d> = FxHashMap<String, IndexMap<String, (&'d Map<String, Value>, String)>>;

#[derive(Default)]
struct Pending {
    runtime: bool,
    bindings: Vec<Map<String, Value>>,
    /// the compact JSON of each binding (a step may read outputs thousands of times)
    seen: rustc_hash::FxHashSet<String>,
}

/// Reads the relations of one description for the tools in `ops`.
pub fn extract(doc: &Value, ops: &Operations) -> Extracted {
    let mut out = Extracted::default();
    let workflows: Vec<(usize, &Map<String, Value>)> = objects(doc.get("workflows")).collect();
    out.workflow_count = workflows.len();
    // every workflow id names its last workflow, and each stripped step id the last of
    // its steps that names an operation (steps without one cannot be referred to)
    let mut last: FxHashMap<String, &Map<String, Value>> = FxHashMap::default();
    let mut steps_of: StepsOf = FxHashMap::default();
    for (_, wf) in &workflows {
        let wid = workflow_id(wf);
        let mut steps = IndexMap::new();
        for (_, step) in objects(wf.get("steps")) {
            let sid = step_id(step);
            if sid.is_empty() {
                continue;
            }
            if let Some(op) = operation_of(step, ops) {
                steps.insert(sid, (step, op));
            }
        }
        out.step_count += objects(wf.get("steps")).count();
        last.insert(wid.clone(), wf);
        steps_of.insert(wid, steps);
    }
    for (_, wf) in &workflows {
        let wid = workflow_id(wf);
        let list: Vec<(String, &Map<String, Value>)> = objects(last[&wid].get("steps"))
            .map(|(_, s)| (step_id(s), s))
            .filter(|(sid, _)| !sid.is_empty())
            .collect();
        let mut pending: IndexMap<(StepRef, StepRef), Pending> = IndexMap::new();
        // output reads: each step id once (its last operation step); the sequence: every
        // operation step
        for (sid, (step, _)) in &steps_of[&wid] {
            let target = (wid.clone(), sid.clone());
            for (source, b) in step_bindings(step, &wid, &steps_of) {
                let p = pending.entry((source, target.clone())).or_insert(Pending {
                    runtime: true,
                    ..Default::default()
                });
                let text = crate::ingest::artifact::to_compact(&Value::Object(b.clone()));
                if p.seen.insert(text) {
                    p.bindings.push(b);
                }
            }
        }
        let mut prev: Option<StepRef> = None;
        for (sid, step) in &list {
            if operation_of(step, ops).is_none() {
                continue;
            }
            let cur = (wid.clone(), sid.clone());
            if let Some(p) = prev.replace(cur.clone()) {
                pending.entry((p, cur)).or_default();
            }
        }
        let op_at = |(w, s): &StepRef| Some(steps_of.get(w)?.get(s)?.1.clone());
        for ((source, target), p) in pending {
            let (Some(s_op), Some(t_op)) = (op_at(&source), op_at(&target)) else {
                continue;
            };
            if s_op == t_op || !ops.has(&s_op) || !ops.has(&t_op) {
                continue;
            }
            out.relations.push(Relation {
                source: s_op,
                target: t_op,
                workflow: wid.clone(),
                source_step: source.1,
                target_step: target.1,
                runtime: p.runtime,
                bindings: p.bindings,
            });
        }
    }
    out.unresolved = unresolved_steps(&workflows, ops);
    out
}

/// The output reads of one step: `(source step, binding)` for each `$steps…` /
/// `$workflows…` reference to a known step in a string parameter value or a string
/// anywhere in an object request body.
fn step_bindings(
    step: &Map<String, Value>,
    wid: &str,
    steps_of: &StepsOf,
) -> Vec<(StepRef, Map<String, Value>)> {
    let mut out = Vec::new();
    let mut collect = |s: &str, field: String, location: &str, target_path: Option<&str>| {
        for r in output_refs(s) {
            let w = r.workflow.as_deref().unwrap_or(wid);
            let Some((src, _)) = steps_of.get(w).and_then(|m| m.get(&r.step)) else {
                continue;
            };
            let outputs = src.get("outputs").and_then(Value::as_object);
            let path = response_path(outputs.and_then(|o| o.get(&r.output)), &r.suffix);
            let mut b = Map::new();
            b.insert("source_step_id".into(), json!(r.step));
            b.insert("source_output".into(), json!(r.output));
            b.insert("source_path".into(), json!(path));
            b.insert("target_field".into(), json!(field));
            b.insert("target_location".into(), json!(location));
            b.insert("expression".into(), json!(r.expression));
            if let Some(tp) = target_path {
                b.insert("target_path".into(), json!(tp));
            }
            out.push(((w.to_string(), r.step), b));
        }
    };
    for (_, p) in objects(step.get("parameters")) {
        if let Some(Value::String(v)) = p.get("value") {
            let field = str_or(p.get("name"), "");
            let location = str_or(p.get("in"), "parameter");
            collect(v, field, &location, None);
        }
    }
    if let Some(body @ Value::Object(_)) = step.get("requestBody") {
        // depth-first, members and items in order (the document is at most 128 deep)
        let mut stack: Vec<(String, &Value)> = vec![("requestBody".into(), body)];
        while let Some((path, v)) = stack.pop() {
            match v {
                Value::Object(m) => {
                    for (k, x) in m.iter().rev() {
                        stack.push((format!("{path}.{k}"), x));
                    }
                }
                Value::Array(a) => {
                    for (i, x) in a.iter().enumerate().rev() {
                        stack.push((format!("{path}[{i}]"), x));
                    }
                }
                Value::String(s) => {
                    collect(s, request_body_field(&path), "request_body", Some(&path))
                }
                _ => {}
            }
        }
    }
    out
}

/// Steps whose operation is not a tool of the graph, with their JSON pointers.
fn unresolved_steps(
    workflows: &[(usize, &Map<String, Value>)],
    ops: &Operations,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (i, wf) in workflows {
        for (j, step) in objects(wf.get("steps")) {
            let place = format!("/workflows/{i}/steps/{j}");
            let sid = step_id(step);
            let what = match operation_of(step, ops) {
                Some(op) if ops.has(&op) => continue,
                Some(op) => format!(
                    "operation {} is not in the graph",
                    crate::sanitize::quoted(&op)
                ),
                None => match step.get("operationPath").filter(|v| pytext::truthy(v)) {
                    Some(p) if !step.get("operationId").is_some_and(pytext::truthy) => format!(
                        "operationPath {} matches no tool's method and path",
                        crate::sanitize::quoted(&pytext::py_str(p))
                    ),
                    _ => continue,
                },
            };
            out.push((
                place,
                format!(
                    "step {} of workflow {}: {what}; it adds no relation",
                    crate::sanitize::quoted(&sid),
                    crate::sanitize::quoted(&workflow_id(wf))
                ),
            ));
        }
    }
    out
}

/// The checks toolscope makes before applying a description (the reference makes none):
/// every source description a step names is declared, and no `$ref` is remote.
pub fn check(file: &str, doc: &Value) -> Result<(), InputError> {
    let declared: Vec<String> = objects(doc.get("sourceDescriptions"))
        .map(|(_, s)| str_or(s.get("name"), ""))
        .collect();
    for (i, wf) in objects(doc.get("workflows")) {
        for (j, step) in objects(wf.get("steps")) {
            for key in ["operationId", "operationPath", "workflowId"] {
                let Some(Value::String(s)) = step.get(key) else {
                    continue;
                };
                if let Some(name) = named_source(s)
                    && !declared.contains(&name)
                {
                    return Err(InputError::new(
                        file,
                        &format!("/workflows/{i}/steps/{j}/{key}"),
                        format!(
                            "source description {} is not declared in sourceDescriptions{}",
                            crate::sanitize::quoted(&name),
                            if declared.is_empty() {
                                String::new()
                            } else {
                                format!(" ({})", declared.join(", "))
                            }
                        ),
                    ));
                }
            }
        }
    }
    if let Some((place, r)) = remote_ref(doc) {
        return Err(InputError::new(
            file,
            &place,
            format!(
                "remote $ref {} is not followed (nothing is fetched)",
                crate::sanitize::quoted(&r)
            ),
        ));
    }
    Ok(())
}

/// The source description a step field names: `$sourceDescriptions.NAME.…` (an
/// operationId or workflowId) or `{$sourceDescriptions.NAME.url}…` (an operationPath).
fn named_source(s: &str) -> Option<String> {
    let at = s.find("$sourceDescriptions.")?;
    let rest = &s[at + "$sourceDescriptions.".len()..];
    let (name, _) = rest.split_once('.')?;
    Some(name.to_string())
}

/// The first `$ref` whose target is outside the document, with its JSON pointer.
fn remote_ref(doc: &Value) -> Option<(String, String)> {
    let mut stack: Vec<(String, &Value)> = vec![(String::new(), doc)];
    while let Some((place, v)) = stack.pop() {
        match v {
            Value::Object(m) => {
                if let Some(Value::String(r)) = m.get("$ref")
                    && !r.starts_with('#')
                {
                    return Some((format!("{place}/$ref"), r.clone()));
                }
                for (k, x) in m.iter().rev() {
                    let k = k.replace('~', "~0").replace('/', "~1");
                    stack.push((format!("{place}/{k}"), x));
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate().rev() {
                    stack.push((format!("{place}/{i}"), x));
                }
            }
            _ => {}
        }
    }
    None
}

/// A description's label in the snapshot manifest: the file name of its path.
pub fn source_label(path: &str) -> String {
    std::path::Path::new(path)
        .file_name()
        .map_or_else(|| path.to_string(), |n| n.to_string_lossy().into_owned())
}

/// The `arazzo` version as the manifest writes it (`""` when there is none).
pub fn version_text(doc: &Value) -> String {
    str_or(doc.get("arazzo"), "")
}

/// Applies `docs` (when there are any) to a graph and its tools' metadata, given as
/// `(name, metadata)` pairs in tool order.
pub fn apply_to_tools<'a>(
    docs: &[&crate::ingest::source::Document],
    graph: &mut crate::ingest::schema::OutGraph,
    tools: impl Iterator<Item = (&'a String, &'a mut Map<String, Value>)>,
) -> Result<Option<Summary>, InputError> {
    if docs.is_empty() {
        return Ok(None);
    }
    let metadata = tools.map(|(k, m)| (k.clone(), m)).collect();
    apply_documents(docs, &mut Target { graph, metadata }).map(Some)
}

/// The workflow summary of an application, and how many steps named an operation that
/// is not in the graph.
pub type Summary = (Value, usize);

/// Applies every description in `docs` to `t` in order (each checked first); steps whose
/// operation is not in the graph are reported as warnings.
pub fn apply_documents(
    docs: &[&crate::ingest::source::Document],
    t: &mut Target,
) -> Result<Summary, InputError> {
    let ops = Operations::new(t.metadata.iter().map(|(k, m)| (k.as_str(), &**m)));
    let mut applied = Vec::with_capacity(docs.len());
    let mut counts = apply::EdgeCounts::default();
    let mut unresolved = 0;
    for d in docs {
        check(&d.name, &d.value)?;
        let extracted = extract(&d.value, &ops);
        for (place, msg) in &extracted.unresolved {
            crate::ingest::warn(format!("{}:{place}: {msg}", d.name));
        }
        unresolved += extracted.unresolved.len();
        let c = apply(&extracted.relations, t);
        counts.added += c.added;
        counts.merged += c.merged;
        counts.aliases += c.aliases;
        let (sha256, bytes) = crate::ingest::build::collection::spec_digest(&d.value);
        applied.push(apply::Applied {
            label: source_label(&d.name),
            sha256,
            bytes,
            version: version_text(&d.value),
            extracted,
        });
    }
    Ok((apply::summary(&applied, counts), unresolved))
}

/// The lines `build` prints for applied workflows: sources, workflows, steps and
/// relations by dependency kind (and the steps whose operation is not in the graph), then
/// what they did to the graph.
pub fn summary_text((s, unresolved): &Summary) -> String {
    let n = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    let plural = |k: u64, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
    let kinds: Vec<String> = s
        .get("by_dependency_kind")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("{k} {}", v.as_u64().unwrap_or(0)))
        .collect();
    let e = &s["edge_stats"];
    format!(
        "workflows: {}, {}, {} -> {}{}{}\n  edges: {} added, {} merged; {} on producing tools\n",
        plural(
            n(s, "source_count"),
            "Arazzo description",
            "Arazzo descriptions"
        ),
        plural(n(s, "workflow_count"), "workflow", "workflows"),
        plural(n(s, "step_count"), "step", "steps"),
        plural(n(s, "relation_count"), "relation", "relations"),
        if kinds.is_empty() {
            String::new()
        } else {
            format!(" ({})", kinds.join(", "))
        },
        match unresolved {
            0 => String::new(),
            1 => ", 1 step's operation not in the graph".into(),
            k => format!(", {k} steps' operations not in the graph"),
        },
        n(e, "added"),
        n(e, "merged"),
        plural(
            n(e, "binding_aliases_added"),
            "binding alias",
            "binding aliases"
        ),
    )
}
