//! Building tool graphs natively from OpenAPI 3.x / Swagger 2.0 specs (JSON or YAML), MCP
//! `tools/list` results and function lists — the graph graph-tool-call 0.47.0 builds.
//!
//! * OpenAPI/Swagger specs become a **collection artifact**, as
//!   `build_openapi_collection_artifact(sources)` writes it (spec §1.4, §2).
//! * MCP tool lists become a saved **tool graph**, as `ToolGraph().ingest_mcp_tools(tools,
//!   server_name=…)` per server then `save` (legacy path with category nodes, §1.7, §2.8).
//! * Function lists become a saved tool graph as `ToolGraph().add_tools(list)`.
//! * GraphQL introspection results become a saved tool graph as
//!   `ToolGraph().add_tools(ingest_graphql_introspection(doc, endpoint_url=…).tools)`.
//! * Arazzo 1.0 workflow descriptions given with them are applied to the graph built in
//!   the same run (`build_openapi_collection_artifact(…, workflow_sources=…)`, or
//!   `apply_arazzo_workflows` on the tool graph); given with a saved graph or collection
//!   artifact, they are applied to it as `ToolGraph.load`, `apply_arazzo_workflows`, `save`.
//!
//! The input type is recognised from content ([`source::classify`]).

pub mod arazzo;
pub mod artifact;
pub mod build;
pub mod frozen;
pub mod graphql;
pub mod leaves;
pub mod mcp;
pub mod openapi;
pub mod operation_rows;
pub mod progress;
pub mod readiness;
pub mod refs;
pub mod row;
pub mod schema;
pub mod schema_hints;
pub mod shape;
pub mod source;

use serde_json::Value;

use crate::error::InputError;
use crate::model::Graph;
use source::{Document, InputKind};

/// The library version the builders reproduce.
pub const REFERENCE_VERSION: &str = "0.47.0";

#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    /// MCP server names, one per MCP input in order (else taken from the document).
    pub server_names: Vec<String>,
    /// Where the build reports its phases (the explorer's loading screen); off by default.
    pub progress: progress::Progress,
    /// The GraphQL endpoint (the reference's `endpoint_url`) for introspection inputs.
    pub endpoint: Option<String>,
    /// The build time written into the graph (`metadata.built_at`, the manifest's
    /// `created_at`); `None`: now. A graph built on load takes [`ON_LOAD_BUILT_AT`].
    pub built_at: Option<String>,
    /// A collection's tools are kept as built ([`Built::tools`]) and its `tools` member left
    /// null, for a caller that writes the artifact with
    /// [`artifact::write_python_pretty_with_tools`] (each row is then made on a writing
    /// thread, while the disk takes the rows before it, instead of before the write).
    pub tools_kept: bool,
}

/// The build time of a graph built on load (a spec given as GRAPH): none. Its text, and
/// so its fingerprint, then depends on its inputs only, and `lab capture SPEC` followed
/// by `lab check SPEC` agree; a saved artifact (`build -o`) keeps its real build time and
/// its fingerprint is the file's, as always.
pub const ON_LOAD_BUILT_AT: &str = "";

#[derive(Debug)]
pub struct Built {
    pub value: Value,
    /// true: collection artifact (OpenAPI); false: saved tool graph (MCP / functions)
    pub collection: bool,
    pub tool_count: usize,
    pub edge_count: usize,
    /// GraphQL inputs: the ingest result's issues (not written to the graph) and the
    /// number of root fields read; `None` for other inputs.
    pub graphql: Option<(Vec<graphql::Issue>, usize)>,
    /// With Arazzo inputs: the workflow summary (`apply_arazzo_workflows`' result) and the
    /// number of steps whose operation is not in the graph.
    pub workflows: Option<arazzo::Summary>,
    /// The tools of a collection built with [`BuildOptions::tools_kept`] (its `tools`
    /// member is then null); empty otherwise.
    pub tools: Vec<schema::ToolSchema>,
}

/// What the stages after the parse fill per operation of a spec, at least: the peak RSS
/// growth after the parse was 29 KB per operation for the synthetic 50k-operation spec,
/// 45 KB for the 10k one and 295 KB for GitHub's REST API (big schemas). Faulting in more
/// than a build touches would raise its peak, so this stays below all three.
const BYTES_PER_OPERATION: usize = 20 << 10;

/// The operations of an OpenAPI or Swagger document (0 for anything else).
fn operation_count(spec: &Value) -> usize {
    spec.get("paths")
        .and_then(Value::as_object)
        .map_or(0, |paths| {
            paths
                .values()
                .filter_map(Value::as_object)
                .map(|item| {
                    item.keys()
                        .filter(|k| openapi::METHODS.contains(&k.as_str()))
                        .count()
                })
                .sum()
        })
}

/// Reads every input and builds one graph.
pub fn build_paths(paths: &[String], opts: &BuildOptions) -> Result<Built, InputError> {
    let mut t0 = std::time::Instant::now();
    let mut docs = Vec::new();
    for (i, p) in paths.iter().enumerate() {
        if p.starts_with("http://") || p.starts_with("https://") {
            return Err(InputError::new(
                p,
                "",
                "remote inputs are not fetched: download the file and give its path".into(),
            ));
        }
        let done = progress::at::READ * i as f64 / paths.len() as f64;
        opts.progress.report("reading the spec", done, p);
        docs.push(source::read_document(p)?);
    }
    build::collection::phase(&mut t0, "read inputs");
    crate::prefault::input_read(
        docs.iter()
            .map(|d| operation_count(&d.value))
            .sum::<usize>()
            .saturating_mul(BYTES_PER_OPERATION),
    );
    build_documents(docs, opts)
}

pub fn build_documents(docs: Vec<Document>, opts: &BuildOptions) -> Result<Built, InputError> {
    let (workflows, docs): (Vec<Document>, Vec<Document>) =
        docs.into_iter().partition(|d| d.kind == InputKind::Arazzo);
    let Some(first) = docs.first() else {
        return Err(match workflows.first() {
            Some(w) => InputError::new(
                &w.name,
                "",
                "an Arazzo workflow description applies to a graph: give it with the API \
                 spec (`build api.yaml workflows.arazzo.yaml -o out.json`) or a saved graph"
                    .into(),
            ),
            None => InputError::new("toolscope", "", "no input".into()),
        });
    };
    // the descriptions' own errors come before the build
    for w in &workflows {
        arazzo::check(&w.name, &w.value)?;
    }
    let first_kind = first.kind;
    if one_saved_graph(&docs, &workflows)? {
        return apply_to_saved(docs, &workflows, opts);
    }
    for d in &docs {
        if d.kind.is_openapi() != first_kind.is_openapi() {
            return Err(InputError::new(
                &d.name,
                "",
                format!(
                    "cannot mix a {} with a {} in one build",
                    d.kind.label(),
                    first_kind.label()
                ),
            ));
        }
    }
    let workflows: Vec<&Document> = workflows.iter().collect();
    let built_at = opts.built_at.clone().unwrap_or_else(artifact::now_iso);
    let docs_name = first.name.clone();
    if first_kind.is_openapi() {
        let mut docs = docs;
        let (value, unresolved, tools) = build::collection::build_collection(
            &mut docs,
            &workflows,
            &built_at,
            &opts.progress,
            opts.tools_kept,
        )?;
        crate::par::drop_later(docs);
        let tool_count = if tools.is_empty() {
            value
                .get("tools")
                .and_then(Value::as_object)
                .map_or(0, |m| m.len())
        } else {
            tools.len()
        };
        let edge_count = value
            .pointer("/graph/edges")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        check_counts(&docs_name, tool_count, edge_count)?;
        let workflows =
            (!workflows.is_empty()).then(|| (value["workflow_summary"].clone(), unresolved));
        return Ok(Built {
            value,
            collection: true,
            tool_count,
            edge_count,
            graphql: None,
            workflows,
            tools,
        });
    }
    opts.progress
        .report("building the tool graph", progress::at::READ, &first.name);
    let mut g = mcp::LegacyGraph::default();
    let mut mcp_i = 0;
    let mut gql: Option<(Vec<graphql::Issue>, usize)> = None;
    for d in &docs {
        match d.kind {
            InputKind::GraphQl => {
                let got = graphql::ingest(&d.name, &d.value, opts.endpoint.as_deref())?;
                if got.tools.is_empty() {
                    return Err(InputError::new(
                        &d.name,
                        if d.value.get("__schema").is_some() {
                            "/__schema"
                        } else {
                            "/data/__schema"
                        },
                        format!(
                            "no usable root field in the GraphQL schema ({} read): nothing to build",
                            got.root_fields
                        ),
                    ));
                }
                let e = gql.get_or_insert_with(Default::default);
                e.0.extend(got.issues);
                e.1 += got.root_fields;
                g.add_tools(got.tools);
                g.detect();
            }
            InputKind::Mcp => {
                let list: &[Value] = match &d.value {
                    Value::Array(a) => a,
                    v => source::tool_list_of(v).unwrap_or(&[]),
                };
                let name = opts
                    .server_names
                    .get(mcp_i)
                    .cloned()
                    .or_else(|| mcp::server_name_of(&d.value));
                mcp_i += 1;
                mcp::ingest_mcp(&mut g, &d.name, &mcp::McpServer { name, tools: list })?;
            }
            _ => {
                let list: &[Value] = match &d.value {
                    Value::Array(a) => a,
                    v => source::tool_list_of(v).unwrap_or(std::slice::from_ref(v)),
                };
                mcp::ingest_functions(&mut g, &d.name, list)?;
            }
        }
    }
    let tools = g.tools.iter_mut().map(|(k, t)| (k, &mut t.metadata));
    let summary = arazzo::apply_to_tools(&workflows, &mut g.graph, tools)?;
    let tool_count = g.tools.len();
    let edge_count = g.graph.edge_count();
    if tool_count == 0 {
        return Err(InputError::new(
            &first.name,
            "",
            "no tool with a usable name in the list: nothing to build".into(),
        ));
    }
    check_counts(&first.name, tool_count, edge_count)?;
    Ok(Built {
        value: g.to_json(&built_at),
        collection: false,
        tool_count,
        edge_count,
        graphql: gql,
        workflows: summary,
        tools: Vec::new(),
    })
}

/// `true` when the inputs are one saved graph (or collection artifact) and workflows to
/// apply to it; an error when a saved graph comes without workflows or with other inputs.
fn one_saved_graph(docs: &[Document], workflows: &[Document]) -> Result<bool, InputError> {
    let Some(g) = docs.iter().find(|d| d.kind == InputKind::Graph) else {
        return Ok(false);
    };
    if workflows.is_empty() {
        return Err(InputError::new(
            &g.name,
            "",
            "this is already a tool graph; nothing to build".into(),
        ));
    }
    if let Some(other) = docs.iter().find(|d| !std::ptr::eq(*d, g)) {
        return Err(InputError::new(
            &other.name,
            "",
            format!(
                "{} is a saved graph: workflows apply to it alone (build this {} separately)",
                g.name,
                other.kind.label()
            ),
        ));
    }
    Ok(true)
}

/// One saved graph (or collection artifact) and the workflows applied to it.
fn apply_to_saved(
    mut docs: Vec<Document>,
    workflows: &[Document],
    opts: &BuildOptions,
) -> Result<Built, InputError> {
    let graph = docs.remove(0);
    let name = graph.name.clone();
    let workflows: Vec<&Document> = workflows.iter().collect();
    let built_at = opts.built_at.clone().unwrap_or_else(artifact::now_iso);
    let got = arazzo::saved::apply_to_saved(graph, &workflows, &built_at)?;
    check_counts(&name, got.tool_count, got.edge_count)?;
    Ok(Built {
        value: got.value,
        collection: false,
        tool_count: got.tool_count,
        edge_count: got.edge_count,
        graphql: None,
        workflows: Some(got.summary),
        tools: Vec::new(),
    })
}

/// The built graph's size against [`crate::limits::TOOLS`] and [`crate::limits::EDGES`].
fn check_counts(file: &str, tools: usize, edges: usize) -> Result<(), InputError> {
    if tools as u64 > crate::limits::TOOLS.get() {
        return Err(crate::limits::TOOLS.exceeded(file, ""));
    }
    if edges as u64 > crate::limits::EDGES.get() {
        return Err(crate::limits::EDGES.exceeded(file, ""));
    }
    Ok(())
}

/// `opts` for a build on load: without a build time (unless one is given), so the same
/// inputs give the same text and fingerprint on every run.
fn on_load(opts: &BuildOptions) -> BuildOptions {
    BuildOptions {
        built_at: Some(
            opts.built_at
                .clone()
                .unwrap_or_else(|| ON_LOAD_BUILT_AT.into()),
        ),
        ..opts.clone()
    }
}

/// Builds a graph from inputs and loads it for the engine (its fingerprint depends on the
/// inputs only: see [`ON_LOAD_BUILT_AT`]).
pub fn build_and_load(paths: &[String], opts: &BuildOptions) -> Result<Graph, InputError> {
    let built = build_paths(paths, &on_load(opts))?;
    let text = artifact::to_compact(&built.value);
    let name = paths.join(",");
    let mut g = crate::model::load::load_graph_bytes(&name, text.into_bytes())?;
    g.info.source = name;
    Ok(g)
}

static WARNINGS: std::sync::Mutex<Option<Vec<String>>> = std::sync::Mutex::new(None);

/// Reports a build warning (an item the reference would skip or rename): printed to stderr,
/// or collected while [`capture_warnings`] runs (the explorer owns the terminal then).
/// Counts `k` once more in a tally by name (a new name goes last; no key is allocated for
/// a name already counted).
pub fn bump(counts: &mut indexmap::IndexMap<String, usize>, k: &str) {
    match counts.get_mut(k) {
        Some(c) => *c += 1,
        None => {
            counts.insert(k.to_string(), 1);
        }
    }
}

pub fn warn(msg: String) {
    let mut w = WARNINGS.lock().unwrap_or_else(|e| e.into_inner());
    match w.as_mut() {
        Some(list) if list.len() < MAX_WARNINGS => list.push(msg),
        Some(_) => {
            MORE_WARNINGS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        None => crate::sanitize::eprint_line(format!("warning: {msg}")),
    }
}

/// Warnings kept while capturing; the rest are counted (a spec can repeat one mistake on
/// every operation).
const MAX_WARNINGS: usize = 200;
static MORE_WARNINGS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Runs `f` collecting build warnings instead of printing them (at most 200, then one
/// line that counts the rest).
pub fn capture_warnings<T>(f: impl FnOnce() -> T) -> (T, Vec<String>) {
    *WARNINGS.lock().unwrap_or_else(|e| e.into_inner()) = Some(Vec::new());
    MORE_WARNINGS.store(0, std::sync::atomic::Ordering::Relaxed);
    let out = f();
    let mut list = WARNINGS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
        .unwrap_or_default();
    let more = MORE_WARNINGS.swap(0, std::sync::atomic::Ordering::Relaxed);
    if more > 0 {
        list.push(format!("{more} more warnings not shown"));
    }
    (out, list)
}

/// Builds a graph from specs without printing: warnings are returned (for the explorer).
pub fn build_and_load_quiet(
    paths: &[String],
    opts: &BuildOptions,
) -> Result<(Graph, Vec<String>), InputError> {
    let (built, mut warnings) = capture_warnings(|| build_paths(paths, &on_load(opts)));
    let built = built?;
    opts.progress.report(
        "loading the built graph",
        1.0,
        &format!(
            "{}, {}",
            crate::sanitize::count(built.tool_count as u64, "tool"),
            crate::sanitize::count(built.edge_count as u64, "edge")
        ),
    );
    let text = artifact::to_compact(&built.value);
    let name = paths.join(",");
    let (mut g, more) = crate::model::load::load_graph_bytes_quiet(&name, text.into_bytes())?;
    warnings.extend(more);
    g.info.source = name;
    Ok((g, warnings))
}
