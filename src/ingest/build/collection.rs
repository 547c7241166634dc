//! `build_openapi_collection_artifact(sources)`: read every spec, register tools (first
//! definition of a name wins), run the graphify build and assemble the artifact (§1.4).

use indexmap::IndexMap;
use serde_json::{Map, Value, json};
use sha2::Digest;

use super::detect::{DetTool, Relation, detect};
use super::{contracts, flow, links, semantics};
use crate::error::InputError;
use crate::ingest::mcp::det_tool;
use crate::ingest::openapi::{OperationRefs, SpecTools, raw_operation_refs, spec_tools};
use crate::ingest::progress::{Progress, at};
use crate::ingest::schema::{EdgeAttrs, OutGraph, ToolSchema, normalize};
use crate::ingest::source::{Document, InputKind};
use crate::ingest::{REFERENCE_VERSION, readiness};

pub const RELATION_BUDGET: usize = 100_000;

fn bucket(layer: u8, conf: f64) -> Option<&'static str> {
    if layer == 1 && conf >= 0.85 {
        Some("EXTRACTED")
    } else if conf >= 0.85 {
        Some("INFERRED")
    } else if conf >= 0.7 {
        Some("AMBIGUOUS")
    } else {
        None
    }
}

/// A JSON string exactly as Python's `json.dumps(…, ensure_ascii=False)` writes it: only
/// `"`, `\\` and C0 controls escaped (the hash is never shown, so no terminal hazard is).
fn write_py_string(out: &mut String, s: &str) {
    out.push('"');
    // every character escaped is ASCII (no UTF-8 sequence holds an ASCII byte): the runs
    // between them are copied whole
    let mut run = 0;
    for (i, &c) in s.as_bytes().iter().enumerate() {
        let esc = match c {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            8 => "\\b",
            12 => "\\f",
            c if c < 0x20 => {
                out.push_str(&s[run..i]);
                out.push_str(&format!("\\u{c:04x}"));
                run = i + 1;
                continue;
            }
            _ => continue,
        };
        out.push_str(&s[run..i]);
        out.push_str(esc);
        run = i + 1;
    }
    out.push_str(&s[run..]);
    out.push('"');
}

/// Canonical JSON (sorted keys, `,`/`:` separators, non-ASCII kept) for the manifest hash.
fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(m) => {
            // (keys are unique: sorting the members needs no stable sort, nor lookups)
            let mut members: Vec<(&String, &Value)> = m.iter().collect();
            members.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (k, x)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_py_string(out, k);
                out.push(':');
                canonical(x, out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(x, out);
            }
            out.push(']');
        }
        Value::String(s) => write_py_string(out, s),
        other => crate::ingest::artifact::write_compact(out, other),
    }
}

pub(crate) fn collect_refs(v: &Value, out: &mut Vec<String>) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            // a frozen subtree carries its `$ref`s
            Value::String(s) => out.extend(crate::ingest::frozen::refs_of(s).unwrap_or_default()),
            Value::Object(m) => {
                for (k, x) in m.iter() {
                    if k == "$ref"
                        && let Value::String(s) = x
                    {
                        out.push(s.clone());
                    }
                }
                for x in m.values().rev() {
                    if crate::ingest::frozen::is_frozen(x)
                        || matches!(x, Value::Object(_) | Value::Array(_))
                    {
                        stack.push(x);
                    }
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

/// Detector view of a tool with its `$ref` sets.
fn det_with_refs(t: &ToolSchema) -> DetTool {
    let mut d = det_tool(t);
    let mut all = Vec::new();
    let mut resp = Vec::new();
    let mut req = Vec::new();
    for (k, v) in &t.metadata {
        if k == "response_schema" {
            collect_refs(v, &mut resp);
            all.extend(resp.iter().cloned());
        } else {
            let n = req.len();
            collect_refs(v, &mut req);
            all.extend(req[n..].iter().cloned());
        }
    }
    d.all_refs = all;
    d.response_refs = resp;
    d.request_refs = req;
    d
}

pub(crate) fn phase(t0: &mut std::time::Instant, what: &str) {
    if std::env::var_os("TOOLSCOPE_TIMING").is_some() {
        let rss = std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("VmRSS:"))
                    .map(|l| l[6..].trim().to_string())
            })
            .unwrap_or_default();
        // cumulative user and system CPU of the process (clock ticks of 10 ms)
        let cpu = std::fs::read_to_string("/proc/self/stat")
            .ok()
            .and_then(|s| {
                let after = s.rsplit_once(") ")?.1;
                let f: Vec<&str> = after.split(' ').collect();
                let tick = |i: usize| f.get(i)?.parse::<f64>().ok().map(|t| t / 100.0);
                Some(format!(", cpu user {:.2} sys {:.2}", tick(11)?, tick(12)?))
            })
            .unwrap_or_default();
        use crate::ingest::refs::{ALL_NODES, PEAK_NODES};
        use std::sync::atomic::Ordering::Relaxed;
        let (peak, all) = (PEAK_NODES.load(Relaxed), ALL_NODES.load(Relaxed));
        let [(made, reused), (bodies, bodies_reused)] =
            crate::ingest::openapi::sides_made_and_reused();
        eprintln!(
            "timing: {what} {:.3} s (rss {rss}{cpu}; $ref expansion: {all} nodes, at most {peak} per operation; responses read {made} times, reused {reused}; request bodies read {bodies} times, reused {bodies_reused})",
            t0.elapsed().as_secs_f64()
        );
    }
    *t0 = std::time::Instant::now();
}

/// The SHA-256 (hex) and length of a spec's canonical JSON text. The members of its big
/// maps (a spec's paths, its schemas) are written on every core, as pieces hashed in order.
pub(crate) fn spec_digest(spec: &Value) -> (String, usize) {
    let mut pieces = vec![String::new()];
    canonical_pieces(spec, 0, &mut pieces);
    let mut sha = sha2::Sha256::new();
    let mut len = 0;
    for p in &pieces {
        sha.update(p.as_bytes());
        len += p.len();
    }
    let sha = sha.finalize();
    (sha.iter().map(|b| format!("{b:02x}")).collect(), len)
}

/// A map with at least this many members has them written in parallel by [`canonical_pieces`].
const PARALLEL_MEMBERS: usize = 64;

/// [`canonical`] of `v`, appended to the last of `pieces` or as pieces after it: the
/// members of a map of [`PARALLEL_MEMBERS`] or more within `depth` 2 (the spec, its
/// `components`, their `schemas`) are written in parallel, one piece each.
fn canonical_pieces(v: &Value, depth: usize, pieces: &mut Vec<String>) {
    fn last(pieces: &mut [String]) -> &mut String {
        pieces.last_mut().expect("at least one piece")
    }
    let Value::Object(m) = v else {
        return canonical(v, last(pieces));
    };
    if depth > 2 {
        return canonical(v, last(pieces));
    }
    let mut members: Vec<(&String, &Value)> = m.iter().collect();
    members.sort_unstable_by(|a, b| a.0.cmp(b.0));
    last(pieces).push('{');
    if members.len() >= PARALLEL_MEMBERS {
        let texts = crate::par::map(&members, |(k, x)| {
            let mut s = String::new();
            write_py_string(&mut s, k);
            s.push(':');
            canonical(x, &mut s);
            s
        });
        for (i, t) in texts.into_iter().enumerate() {
            if i > 0 {
                last(pieces).push(',');
            }
            pieces.push(t);
            pieces.push(String::new());
        }
    } else {
        for (i, (k, x)) in members.into_iter().enumerate() {
            let out = last(pieces);
            if i > 0 {
                out.push(',');
            }
            write_py_string(out, k);
            out.push(':');
            canonical_pieces(x, depth + 1, pieces);
        }
    }
    last(pieces).push('}');
}

/// One spec's tools ([`spec_tools`], reporting progress over `span`), with its digest for
/// the manifest and, when `want_refs`, its raw operations' `$ref`s (§2.4.1), both read from
/// the spec as given, on every core, before it is normalised in place.
#[allow(clippy::type_complexity)]
fn spec_tools_and_digest(
    d: &mut Document,
    want_refs: bool,
    progress: &Progress,
    span: (f64, f64),
) -> (
    Result<SpecTools, InputError>,
    (String, usize),
    Option<Vec<OperationRefs>>,
) {
    let spec = std::mem::take(&mut d.value);
    let (name, swagger) = (&d.name, d.kind == InputKind::Swagger2);
    let given = |spec: &Value| {
        crate::par::join(
            || spec_digest(spec),
            || want_refs.then(|| raw_operation_refs(spec)),
        )
    };
    match spec_tools(name, spec, swagger, true, progress, span, given) {
        Ok((st, (digest, refs))) => (Ok(st), digest, refs),
        Err(e) => (Err(e), (String::new(), 0), None),
    }
}

/// The collection artifact, and the number of workflow steps whose operation is not in it.
pub fn build_collection(
    docs: &mut [Document],
    workflows: &[&Document],
    built_at: &str,
    progress: &Progress,
    tools_kept: bool,
) -> Result<(Value, usize, Vec<ToolSchema>), InputError> {
    let mut t0 = std::time::Instant::now();
    let mut read = read_specs(docs, progress)?;
    phase(&mut t0, "operations");
    let list = std::mem::take(&mut read.list);
    let raw_refs = read.raw_refs.take();
    let built = build_graph(list, raw_refs, workflows, progress, &mut t0)?;
    progress.report("summaries and readiness", at::CONTRACT_EDGES, "");
    Ok(artifact(
        docs, workflows, built_at, read, built, progress, &mut t0, tools_kept,
    ))
}

/// What reading the specs gathers: the registered tools (first definition of a name wins)
/// and the counts for the manifest and the ingest summary.
struct ReadSpecs {
    list: Vec<ToolSchema>,
    ingested_total: usize,
    dup_names: IndexMap<String, usize>,
    source_counts: Map<String, Value>,
    manifest_specs: Vec<Value>,
    total_ops: usize,
    total_paths: usize,
    /// The one raw spec's operation `$ref`s (§2.4.1), when there is one OpenAPI spec.
    raw_refs: Option<Vec<OperationRefs>>,
}

/// Reads every spec in turn: its tools, its manifest entry and its source counts.
fn read_specs(docs: &mut [Document], progress: &Progress) -> Result<ReadSpecs, InputError> {
    let mut tools: IndexMap<String, ToolSchema> = IndexMap::new();
    let mut ingested_total = 0usize;
    let mut dup_names: IndexMap<String, usize> = IndexMap::new();
    let mut source_counts: Map<String, Value> = Map::new();
    let mut manifest_specs = Vec::new();
    let mut total_ops = 0usize;
    let mut total_paths = 0usize;
    let n_docs = docs.len();
    // §2.4.1 reads the `$ref`s of one raw spec: taken before the spec is normalised in place
    // (one tree, several times the size of its file, let go as soon as its tools are built)
    let mut raw_refs = None;
    for (i, d) in docs.iter_mut().enumerate() {
        let share = |k: usize| at::READ + (at::OPERATIONS - at::READ) * k as f64 / n_docs as f64;
        let want_refs = n_docs == 1 && d.kind.is_openapi();
        let (st, (sha, canon_len), refs) =
            spec_tools_and_digest(d, want_refs, progress, (share(i), share(i + 1)));
        let st = st?;
        raw_refs = refs;
        ingested_total += st.tools.len();
        *source_counts
            .entry(st.label.clone())
            .or_insert(json!(0))
            .as_u64()
            .get_or_insert(0) += 0;
        let n = st.tools.len() as u64;
        let prev = source_counts
            .get(&st.label)
            .and_then(Value::as_u64)
            .unwrap_or(0);
        source_counts.insert(st.label.clone(), json!(prev + n));
        manifest_specs.push(json!({
            "index": i + 1,
            "label": st.label,
            "source": d.name,
            "sha256": sha,
            "bytes": canon_len,
            "title": st.title,
            "version": st.version,
            "openapi_version": st.openapi_version,
            "path_count": st.path_count,
            "operation_count": st.operation_count,
        }));
        total_ops += st.operation_count;
        total_paths += st.path_count;
        for t in st.tools {
            if tools.contains_key(&t.name) {
                *dup_names.entry(t.name.clone()).or_insert(1) += 1;
                continue;
            }
            tools.insert(t.name.clone(), t);
        }
    }
    Ok(ReadSpecs {
        list: tools.into_values().collect(),
        ingested_total,
        dup_names,
        source_counts,
        manifest_specs,
        total_ops,
        total_paths,
        raw_refs,
    })
}

/// What the build stages produce for the artifact: the tools, their graph and the stage
/// summaries.
struct Built {
    list: Vec<ToolSchema>,
    graph: OutGraph,
    stats: EdgeStats,
    budget_reached: bool,
    refs_preserved: usize,
    sem_summary: Value,
    contract_stats: Value,
    link_signals: Value,
    link_edges: Value,
    contract_edges: Value,
    workflow_summary: Option<crate::ingest::arazzo::Summary>,
}

/// The build stages over the registered tools: semantic metadata, contract and link
/// promotion, the tool nodes, `$ref` preservation, the detected, link, contract and
/// workflow edges.
fn build_graph(
    mut list: Vec<ToolSchema>,
    raw_refs: Option<Vec<OperationRefs>>,
    workflows: &[&Document],
    progress: &Progress,
    t0: &mut std::time::Instant,
) -> Result<Built, InputError> {
    progress.report(
        "semantic metadata",
        at::OPERATIONS,
        "action, resource and shape of each tool",
    );

    // 1. semantic metadata, 2. contract promotion
    let sem_summary = semantics::annotate(&mut list);
    phase(t0, "semantics");
    progress.report(
        "contract promotion",
        at::SEMANTICS,
        "produces and consumes rows",
    );
    let contract_stats = contracts::promote(&mut list);
    // 3. OpenAPI-link output promotion
    let link_signals = links::promote_outputs(&mut list);
    phase(t0, "promotion");
    progress.report(
        "relation detectors",
        at::PROMOTION,
        "structural, name, CRUD and pair edges",
    );

    // 4. register tool nodes
    crate::par::for_each_mut(&mut list, normalize);
    let mut graph = OutGraph::default();
    let attrs = crate::par::map(&list, ToolSchema::node_attrs);
    for (t, a) in list.iter().zip(attrs) {
        graph.add_node(&t.name, a);
    }

    // 6. $ref preservation (one raw spec)
    let mut refs_preserved = 0usize;
    if let Some(raw_refs) = raw_refs.filter(|_| list.len() >= 2) {
        refs_preserved = preserve_refs(&mut list, raw_refs);
    }

    // 7. dependency detection
    let (mut stats, budget_reached) = detected_edges(&list, &mut graph);
    phase(t0, "detectors");
    progress.report("contract data-flow edges", at::DETECTORS, "");
    // 9. OpenAPI-link edges
    let link_edges = links::link_edges(&list, &mut graph);
    // 10. contract data-flow edges
    let contract_edges = flow::data_flow_edges(&mut list, &mut graph);
    count_link_and_contract_edges(&mut stats, &link_edges, &contract_edges, list.len());
    phase(t0, "contract edges");
    // 11. Arazzo workflow relations and binding aliases (they read the promoted rows)
    if !workflows.is_empty() {
        contracts::thaw_rows(&mut list);
    }
    let tools = list.iter_mut().map(|t| (&t.name, &mut t.metadata));
    let workflow_summary = crate::ingest::arazzo::apply_to_tools(workflows, &mut graph, tools)?;
    Ok(Built {
        list,
        graph,
        stats,
        budget_reached,
        refs_preserved,
        sem_summary,
        contract_stats,
        link_signals,
        link_edges,
        contract_edges,
        workflow_summary,
    })
}

/// Dependency detection (two tools or more): the relations kept by their confidence
/// bucket become edges; the counts, and whether the relation budget was reached.
fn detected_edges(list: &[ToolSchema], graph: &mut OutGraph) -> (EdgeStats, bool) {
    let mut stats = EdgeStats::default();
    let mut budget_reached = false;
    if list.len() >= 2 {
        let det: Vec<DetTool> = crate::par::map(list, det_with_refs);
        let found = detect(&det, 0.0, RELATION_BUDGET);
        let labels: Vec<String> = list.iter().map(label_of).collect();
        budget_reached = found.budget_reached;
        // each kept relation's attributes (made and frozen on every core), then the edges in
        // the relations' order
        let attrs = crate::par::map(&found.relations, |r| {
            let conf = bucket(r.layer, r.conf)?;
            Some((conf, detected_edge(r, conf)))
        });
        let node = graph.tool_nodes(list);
        for (r, kept) in found.relations.iter().zip(attrs) {
            let Some((conf, a)) = kept else {
                stats.dropped += 1;
                continue;
            };
            *stats.by_conf.entry(conf).or_default() += 1;
            crate::ingest::bump(&mut stats.by_relation, r.relation);
            if labels[r.source] != labels[r.target] {
                stats.cross_source += 1;
            }
            graph.add_edge_attrs_at(node[r.source], node[r.target], a);
        }
    }
    (stats, budget_reached)
}

/// A kept relation's edge attributes, frozen: their compact text written straight (what
/// `EdgeAttrs::new` makes of [`detected_edge_map`]'s map, without the map).
fn detected_edge(r: &Relation, conf: &str) -> EdgeAttrs {
    use crate::jsonout::write_escaped;
    EdgeAttrs::written(|out| {
        out.push_str(r#"{"relation":"#);
        write_escaped(out, r.relation);
        out.push_str(r#","weight":1.0,"confidence":"#);
        write_escaped(out, conf);
        out.push_str(r#","conf_score":"#);
        // (a number that is not finite is `null`, as `json!` makes it)
        match r.conf.is_finite() {
            true => crate::pytext::push_float_repr(out, r.conf),
            false => out.push_str("null"),
        }
        out.push_str(r#","layer":"#);
        out.push_str(itoa::Buffer::new().format(r.layer));
        out.push_str(r#","evidence":"#);
        // the first 200 characters
        let ev = match r.evidence.char_indices().nth(200) {
            Some((end, _)) => &r.evidence[..end],
            None => &r.evidence,
        };
        write_escaped(out, ev);
        out.push('}');
    })
}

/// [`detected_edge`]'s attributes as a map (what its text must parse to).
#[cfg(test)]
fn detected_edge_map(r: &Relation, conf: &str) -> Map<String, Value> {
    let ev: String = r.evidence.chars().take(200).collect();
    let mut a = Map::new();
    a.insert("relation".into(), json!(r.relation));
    a.insert("weight".into(), json!(1.0));
    a.insert("confidence".into(), json!(conf));
    a.insert("conf_score".into(), json!(r.conf));
    a.insert("layer".into(), json!(r.layer));
    a.insert("evidence".into(), json!(ev));
    a
}

/// Link and contract relations count like detected ones.
fn count_link_and_contract_edges(
    stats: &mut EdgeStats,
    link_edges: &Value,
    contract_edges: &Value,
    tool_count: usize,
) {
    for (stats_of, label) in [(link_edges, "EXTRACTED"), (contract_edges, "INFERRED")] {
        let n = stats_of["added"].as_u64().unwrap_or(0);
        // with two tools or more, `requires` is counted even when no contract edge was added
        if label == "INFERRED" && tool_count >= 2 {
            stats.by_relation.entry("requires".into()).or_default();
        }
        if n == 0 {
            continue;
        }
        *stats.by_conf.entry(label).or_default() += n as usize;
        if label == "INFERRED" {
            *stats.by_relation.entry("requires".into()).or_default() += n as usize;
        } else if let Some(br) = stats_of["by_relation"].as_object() {
            for (k, v) in br {
                *stats.by_relation.entry(k.clone()).or_default() +=
                    v.as_u64().unwrap_or(0) as usize;
            }
        }
    }
}

/// The summaries the metadata and the artifact's top level both carry.
struct Summaries {
    manifest: Value,
    report: Value,
    ingest_summary: Value,
    edge_stats: Value,
    sem_summary: Value,
    edge_quality: Value,
    workflow_summary: Value,
    enrichment: &'static str,
}

/// The artifact: summaries, metadata, graph, tools and readiness report; and the number
/// of unresolved workflow steps (and the tools, when kept: see [`top_level`]).
#[allow(clippy::too_many_arguments)] // the build's state, passed on once
fn artifact(
    docs: &[Document],
    workflows: &[&Document],
    built_at: &str,
    read: ReadSpecs,
    built: Built,
    progress: &Progress,
    t0: &mut std::time::Instant,
    tools_kept: bool,
) -> (Value, usize, Vec<ToolSchema>) {
    let tool_count = built.list.len();
    let tally = readiness::EdgeTally::of(&built.graph);
    let edge_quality = readiness::edge_quality_summary(&tally);
    let edge_stats = edge_stats_json(&built);
    let manifest = json!({
        "created_at": built_at,
        "hash_algorithm": "sha256:canonical-json",
        "spec_count": docs.len(),
        "operation_count": read.total_ops,
        "path_count": read.total_paths,
        "specs": read.manifest_specs,
    });
    let ingest_summary = ingest_summary_json(
        read.ingested_total,
        read.dup_names,
        read.source_counts,
        tool_count,
    );
    let Built {
        list,
        graph,
        sem_summary,
        workflow_summary,
        ..
    } = built;
    let (workflow_summary, unresolved) = workflow_summary.unwrap_or_else(|| {
        let none = json!({
            "source_count": 0, "workflow_count": 0, "step_count": 0, "relation_count": 0,
            "by_dependency_kind": {},
            "edge_stats": {"added": 0, "merged": 0, "binding_aliases_added": 0},
            "source_snapshot_manifest": {"spec_count": 0, "specs": []},
        });
        (none, 0)
    });
    let report = readiness::report(&list, &graph, &tally, &edge_quality, &sem_summary);
    let sums = Summaries {
        manifest,
        report,
        ingest_summary,
        edge_stats,
        sem_summary,
        edge_quality,
        workflow_summary,
        enrichment: enrichment_status(&list),
    };
    let meta = metadata(docs, workflows.len(), built_at, tool_count, &sums);

    phase(t0, "summaries");
    progress.report("assembling the artifact", at::SUMMARIES, "");
    let (top, kept) = top_level(meta, graph, list, sums, tools_kept);
    phase(t0, "artifact");
    (top, unresolved, kept)
}

/// The artifact's `edge_stats`: the edge counts by bucket and relation and every stage's
/// summary.
fn edge_stats_json(built: &Built) -> Value {
    let stats = &built.stats;
    let tool_count = built.list.len();
    let edge_count = built.graph.edge_count();
    let mut by_rel = Map::new();
    for (k, v) in &stats.by_relation {
        by_rel.insert(k.clone(), json!(v));
    }
    let mut edge_stats = json!({
        "EXTRACTED": stats.by_conf.get("EXTRACTED").copied().unwrap_or(0),
        "INFERRED": stats.by_conf.get("INFERRED").copied().unwrap_or(0),
        "AMBIGUOUS": stats.by_conf.get("AMBIGUOUS").copied().unwrap_or(0),
        "dropped": stats.dropped,
        "by_relation": by_rel,
        "cross_source": stats.cross_source,
        "tool_count": tool_count,
        "edge_count": edge_count,
        "refs_preserved": built.refs_preserved,
        "contract_signals": built.contract_stats,
        "contract_edges": built.contract_edges,
        "openapi_link_signals": built.link_signals,
        "openapi_link_edges": built.link_edges,
        "semantic_metadata": built.sem_summary,
        "relation_budget": RELATION_BUDGET,
        "relation_budget_reached": built.budget_reached,
        "arazzo_workflows": built.workflow_summary.as_ref().map_or_else(
            || json!({"added": 0, "merged": 0, "binding_aliases_added": 0}),
            |s| s.0["edge_stats"].clone(),
        ),
    });
    add_pair_edges(&mut edge_stats, tool_count);
    edge_stats
}

/// The `ingest_summary`: ingested and registered tool counts, the most duplicated names
/// and the tools per source.
fn ingest_summary_json(
    ingested_total: usize,
    dup_names: IndexMap<String, usize>,
    source_counts: Map<String, Value>,
    tool_count: usize,
) -> Value {
    let mut dups: Vec<(String, usize)> = dup_names.into_iter().collect();
    dups.sort_by_key(|d| std::cmp::Reverse(d.1));
    json!({
        "ingested_tool_total": ingested_total,
        "registered_tool_count": tool_count,
        "duplicate_tool_count": ingested_total - tool_count,
        "duplicate_tool_names": dups.iter().take(20).map(|(n, c)| json!({"name": n, "count": c})).collect::<Vec<_>>(),
        "source_tool_counts": source_counts,
    })
}

/// `enrichment_status`: how many tools carry a canonical action (none, some or all).
fn enrichment_status(list: &[ToolSchema]) -> &'static str {
    let tool_count = list.len();
    if tool_count == 0 {
        "empty"
    } else {
        let known = crate::par::map(list, |t| {
            t.metadata
                .get("ai_metadata")
                .and_then(|a| a.get("canonical_action"))
                .and_then(Value::as_str)
                .is_some_and(|s| !s.is_empty())
        })
        .into_iter()
        .filter(|&k| k)
        .count();
        if known == 0 {
            "not_started"
        } else if known < tool_count {
            "partial"
        } else {
            "complete"
        }
    }
}

/// The artifact's `metadata`: build facts, sources, every summary and the build options.
fn metadata(
    docs: &[Document],
    workflow_count: usize,
    built_at: &str,
    tool_count: usize,
    sums: &Summaries,
) -> Map<String, Value> {
    let spec_urls: Vec<Value> = docs.iter().map(|d| json!(d.name)).collect();
    let build_options = json!({
        "required_only": false,
        "skip_deprecated": true,
        "promote_contract_signals": true,
        "max_contract_producers_per_field": 3,
        "derive_semantic_metadata": true,
        "overwrite_ai_metadata": false,
        "allow_private_hosts": false,
        "max_response_bytes": 5_000_000,
        "context_field_names": [],
        "paging_field_names": [],
        "search_filter_field_names": [],
        "auth_field_names": [],
        "user_input_field_names": [],
        "workflow_source_count": workflow_count,
    });
    let mut meta = Map::new();
    meta.insert("built_at".into(), json!(built_at));
    meta.insert("tool_count".into(), json!(tool_count));
    meta.insert("source_count".into(), json!(docs.len()));
    meta.insert(
        "source_url".into(),
        json!(if docs.len() == 1 {
            docs[0].name.as_str()
        } else {
            ""
        }),
    );
    meta.insert("spec_urls".into(), Value::Array(spec_urls));
    meta.insert("source_snapshot_manifest".into(), sums.manifest.clone());
    meta.insert("readiness_summary".into(), sums.report["summary"].clone());
    meta.insert("ingest_summary".into(), sums.ingest_summary.clone());
    meta.insert("edge_stats".into(), sums.edge_stats.clone());
    meta.insert("semantic_summary".into(), sums.sem_summary.clone());
    meta.insert("edge_quality_summary".into(), sums.edge_quality.clone());
    meta.insert("workflow_summary".into(), sums.workflow_summary.clone());
    meta.insert("build_options".into(), build_options);
    meta.insert("graph_tool_call_version".into(), json!(REFERENCE_VERSION));
    meta.insert("collection_graph_version".into(), json!("2"));
    meta.insert("enrichment_status".into(), json!(sums.enrichment));
    meta
}

/// The artifact's top level: versions, metadata, graph, tools by name and the summaries;
/// with `tools_kept`, `tools` is null and the tools are returned as they are (unless there
/// are none, or two share a name: the map would keep one row for them).
fn top_level(
    meta: Map<String, Value>,
    graph: OutGraph,
    mut list: Vec<ToolSchema>,
    sums: Summaries,
    tools_kept: bool,
) -> (Value, Vec<ToolSchema>) {
    let mut top = Map::new();
    top.insert("format_version".into(), json!("1"));
    top.insert("library_version".into(), json!(REFERENCE_VERSION));
    top.insert("metadata".into(), Value::Object(meta));
    top.insert("graph".into(), graph.into_json());
    let keep = tools_kept && !list.is_empty() && {
        let mut names = rustc_hash::FxHashSet::default();
        list.iter().all(|t| names.insert(t.name.as_str()))
    };
    let kept = if keep {
        top.insert("tools".into(), Value::Null);
        list
    } else {
        // every tool's row on every core, then in order
        let rows = crate::par::map_mut(&mut list, |t| {
            let t = std::mem::take(t);
            (t.name.clone(), t.into_json())
        });
        let mut trows = Map::with_capacity(rows.len());
        trows.extend(rows);
        top.insert("tools".into(), Value::Object(trows));
        Vec::new()
    };
    top.insert("readiness_report".into(), sums.report);
    top.insert("source_snapshot_manifest".into(), sums.manifest);
    top.insert("ingest_summary".into(), sums.ingest_summary);
    top.insert("edge_stats".into(), sums.edge_stats);
    top.insert("semantic_summary".into(), sums.sem_summary);
    top.insert("edge_quality_summary".into(), sums.edge_quality);
    top.insert("workflow_summary".into(), sums.workflow_summary);
    top.insert("graph_tool_call_version".into(), json!(REFERENCE_VERSION));
    top.insert("collection_graph_version".into(), json!("2"));
    top.insert("enrichment_status".into(), json!(sums.enrichment));
    (Value::Object(top), kept)
}

/// The pair-edge counts come with relation detection (two tools or more), before the
/// workflow counts.
fn add_pair_edges(edge_stats: &mut Value, tool_count: usize) {
    if tool_count < 2 {
        return;
    }
    if let Value::Object(m) = edge_stats {
        let wf = m.shift_remove("arazzo_workflows").unwrap_or(Value::Null);
        m.insert(
            "pair_edges".into(),
            json!({"manual": 0, "auto": 0, "skipped_target_missing": 0, "skipped_self": 0, "skipped_existing_structural": 0}),
        );
        m.insert("arazzo_workflows".into(), wf);
    }
}

#[derive(Default)]
struct EdgeStats {
    by_conf: IndexMap<&'static str, usize>,
    by_relation: IndexMap<String, usize>,
    dropped: usize,
    cross_source: usize,
}

fn label_of(t: &ToolSchema) -> String {
    if let Some(l) = t.meta_str("source_label") {
        return l.to_string();
    }
    t.meta_str("path")
        .and_then(|p| {
            p.split('/')
                .find(|x| !x.is_empty() && !x.starts_with('{'))
                .map(String::from)
        })
        .unwrap_or_default()
}

/// §2.4.1: re-inject "domain DTO" `$ref`s of the raw spec into tool metadata.
fn preserve_refs(list: &mut [ToolSchema], raw_refs: Vec<OperationRefs>) -> usize {
    // operations using at least one ref (they alone set the frequency cap); a ref counts
    // once per operation (request and response refs together)
    let ops: Vec<_> = raw_refs
        .into_iter()
        .filter(|(_, req, resp)| !req.is_empty() || !resp.is_empty())
        .collect();
    let total = ops.len();
    let mut freq: IndexMap<String, usize> = IndexMap::new();
    for (_, req, resp) in &ops {
        let mut seen: rustc_hash::FxHashSet<&String> = Default::default();
        for r in req.iter().chain(resp) {
            if seen.insert(r) {
                *freq.entry(r.clone()).or_default() += 1;
            }
        }
    }
    let max = 2usize.max((total as f64 * 0.3).floor() as usize);
    let keep = |r: &String| freq.get(r).is_some_and(|&f| (2..=max).contains(&f));
    let by_op: rustc_hash::FxHashMap<(String, String), (Vec<String>, Vec<String>)> = ops
        .into_iter()
        .map(|(k, req, resp)| (k, (req, resp)))
        .collect();
    // each tool on its own (on every core): whether it was given refs
    let touched = crate::par::map_mut(list, |t| {
        let (Some(m), Some(p)) = (t.meta_str("method"), t.meta_str("path")) else {
            return false;
        };
        let Some((req, resp)) = by_op.get(&(m.to_string(), p.to_string())) else {
            return false;
        };
        let mut rq: Vec<String> = req.iter().filter(|r| keep(r)).cloned().collect();
        let mut rs: Vec<String> = resp.iter().filter(|r| keep(r)).cloned().collect();
        rq.sort();
        rq.dedup();
        rs.sort();
        rs.dedup();
        let touched = !rs.is_empty() || !rq.is_empty();
        if !rs.is_empty() {
            let entry = t
                .metadata
                .entry("response_schema")
                .or_insert_with(|| json!({}));
            let list = Value::Array(rs.iter().map(|r| json!({"$ref": r})).collect());
            match entry {
                Value::Object(o) => {
                    o.insert("__refs__".into(), list);
                }
                Value::String(s) => {
                    if let Some(v) = crate::ingest::frozen::insert_member(s, "__refs__", &list) {
                        *entry = v;
                    }
                }
                _ => {}
            }
        }
        if !rq.is_empty() {
            t.metadata.insert(
                "request_body_refs".into(),
                Value::Array(rq.iter().map(|r| json!({"$ref": r})).collect()),
            );
        }
        touched
    });
    touched.into_iter().filter(|&t| t).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python's `json.dumps(s, ensure_ascii=False)` escapes what serde_json's writer does:
    /// `"`, `\`, the short forms and the other C0 controls as `\u00XX`, nothing else.
    #[test]
    fn py_strings_escape_as_json_dumps() {
        for s in [
            "",
            "plain",
            "q\"b\\s/",
            "\n\r\t\u{8}\u{c}\u{0}\u{1f}",
            "é \u{7f} \u{85} \u{202e} 😀 end\u{1}",
        ] {
            let mut out = String::new();
            write_py_string(&mut out, s);
            assert_eq!(out, serde_json::to_string(s).unwrap(), "{s:?}");
        }
    }

    /// A detected edge's text, written straight, is what freezing its map gives.
    #[test]
    fn detected_edge_text_is_its_map_frozen() {
        let long: String = "é\"x".repeat(150);
        for (relation, conf, layer, evidence) in [
            (
                "requires",
                0.95,
                1,
                "path hierarchy: /a -> /a/{id}".to_string(),
            ),
            ("similar_to", 0.7, 3, long),
            (
                "precedes",
                0.85,
                2,
                "ctl \u{1}\u{202e} \"q\" \\".to_string(),
            ),
            ("complementary", f64::NAN, 2, String::new()),
            ("conflicts_with", 1.0, 0, "x".repeat(200)),
        ] {
            let r = Relation {
                source: 0,
                target: 1,
                relation,
                conf,
                layer,
                evidence,
            };
            let conf = "INFERRED";
            let fast = detected_edge(&r, conf);
            let slow = EdgeAttrs::new(detected_edge_map(&r, conf));
            match (&fast, &slow) {
                (EdgeAttrs::Frozen(a), EdgeAttrs::Frozen(b)) => assert_eq!(a, b),
                other => panic!("not both frozen: {other:?}"),
            }
        }
    }

    /// Canonical JSON sorts members by key at every level, keeps array order.
    #[test]
    fn canonical_sorts_keys_at_every_level() {
        let v = serde_json::json!({"b": [{"z": 1, "a": null}], "a": {"é": "x", "e": true}});
        let mut out = String::new();
        canonical(&v, &mut out);
        assert_eq!(out, r#"{"a":{"e":true,"é":"x"},"b":[{"a":null,"z":1}]}"#);
    }

    /// The digest written in pieces (big maps' members in parallel) is the digest of the
    /// whole canonical text, at every depth a big map can sit.
    #[test]
    fn spec_digest_in_pieces_is_the_digest_of_the_text() {
        let big = |n: usize, tag: &str| {
            let mut m = Map::new();
            for i in (0..n).rev() {
                m.insert(
                    format!("{tag}{i:03}\u{e9}\"\n"),
                    json!({"z": [i, {"b": null, "a": format!("é{i}\u{1}")}], "a": i as f64 / 3.0}),
                );
            }
            Value::Object(m)
        };
        for n in [0, 1, 63, 64, 65, 300] {
            let spec = json!({
                "paths": big(n, "/p"),
                "components": {"schemas": big(n, "S"), "x": {"deep": big(n, "d")}},
                "info": {"title": "t"},
                "list": [big(n, "l")],
            });
            let mut text = String::new();
            canonical(&spec, &mut text);
            let want = sha2::Sha256::digest(text.as_bytes());
            let want: String = want.iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(spec_digest(&spec), (want, text.len()), "{n} members");
        }
    }
}
