//! Artifact diff: what changed between two tool graphs (issue 19's first half).
//!
//! Tools are matched by name, and a removed and an added tool with the same method and path
//! are one renamed operation. For a changed tool the diff names the fields that differ, the
//! tokens its BM25 document gained and lost (the indexed text the engine reads), its
//! action/resource/shape/module facts, its contract rows and its `metadata` leaves; it also
//! says whether the engine can see the change at all (a `source_url` is not read by it).
//! Edges are matched by their endpoints (an old endpoint renamed counts as the new name);
//! corpus statistics, versions and summaries are in [`corpus`]. Human and JSON reports are
//! in [`report`]. Nothing here writes a file.

pub mod corpus;
pub mod leaves;
pub mod report;

use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;

use crate::engine::Engine;
use crate::engine::index::document_tokens;
use crate::model::{EdgeId, Graph, Tool, ToolId};
use crate::pytext;
use leaves::Leaves;

/// How many `metadata` leaves a changed tool keeps with their values.
pub const LEAVES_KEPT: usize = 40;
/// Where the count of a changed tool's `metadata` leaves stops (the report then says
/// "200+"); every differing top-level key is still named.
pub const LEAVES_COUNTED: usize = 200;

/// One of the two graphs: a label for reports and its engine.
pub struct Side<'e> {
    pub label: String,
    pub engine: &'e Engine,
}

/// A tool named in a list: its name, method and path (empty when it has none).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolRef {
    pub name: String,
    pub method: String,
    pub path: String,
}

impl ToolRef {
    fn of(t: &Tool) -> ToolRef {
        ToolRef {
            name: t.name.clone(),
            method: pytext::upper(t.facts.method_str().unwrap_or("")),
            path: t.facts.path_str().unwrap_or("").to_string(),
        }
    }

    /// `GET /path`, or empty.
    pub fn route(&self) -> String {
        match (self.method.is_empty(), self.path.is_empty()) {
            (true, true) => String::new(),
            (false, true) => self.method.clone(),
            _ => format!("{} {}", self.method, self.path).trim().to_string(),
        }
    }
}

/// Parameter names added, removed, and kept with a different type, description, required
/// flag or enum.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParamDelta {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: Vec<String>,
}

/// Tokens a BM25 document gained and lost, with how many occurrences.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TokenDelta {
    pub gained: Vec<(String, u32)>,
    pub lost: Vec<(String, u32)>,
    /// Document length in tokens, old and new.
    pub len: (usize, usize),
}

impl TokenDelta {
    pub fn is_empty(&self) -> bool {
        self.gained.is_empty() && self.lost.is_empty()
    }
}

/// One tool present in both graphs (under one name, or renamed) that differs.
#[derive(Debug, Clone)]
pub struct ToolChange {
    /// The name in the new graph.
    pub name: String,
    pub renamed_from: Option<String>,
    pub old_id: ToolId,
    pub new_id: ToolId,
    /// Ranking or selection can see the change (some field the engine reads differs).
    pub engine_visible: bool,
    /// The parts the engine reads that differ ([`Tool::engine_differences`]).
    pub engine_fields: Vec<&'static str>,
    /// The fields that differ, in a fixed order: `name`, `description`, `parameters`,
    /// `tags`, `domain`, `annotations`, `method`, `path`, `metadata`, `indexed_text`,
    /// `facts`, `contract`, `node`.
    pub fields: Vec<&'static str>,
    pub description: Option<(String, String)>,
    pub params: ParamDelta,
    /// (fact, old, new) for `action`, `resource`, `shape`, `module`.
    pub facts: Vec<(&'static str, String, String)>,
    /// Contract rows (the ones the engine reads) added, removed and changed, as
    /// `produces x` (a changed one with the keys that differ).
    pub contract: ContractDelta,
    pub tokens: TokenDelta,
    pub metadata: Leaves,
    /// The top-level `metadata` keys whose values differ.
    pub metadata_keys: Vec<String>,
}

#[derive(Debug, Clone, Default)]
pub struct ToolsDiff {
    pub added: Vec<ToolRef>,
    pub removed: Vec<ToolRef>,
    /// (old, new) names of renamed operations (same method and path).
    pub renamed: Vec<(String, String)>,
    pub changed: Vec<ToolChange>,
    pub unchanged: usize,
    /// Tools in both graphs are not in the same relative order (ties rank by tool order).
    pub order_changed: bool,
}

/// An edge as the diff names it.
#[derive(Debug, Clone, PartialEq)]
pub struct EdgeRef {
    pub source: String,
    pub target: String,
    pub relation: String,
    pub confidence: String,
}

/// An edge in both graphs whose attributes differ.
#[derive(Debug, Clone)]
pub struct EdgeChange {
    pub source: String,
    pub target: String,
    /// (attribute, old, new) as compact JSON (`null` when absent).
    pub fields: Vec<(&'static str, String, String)>,
    /// The relation or the confidence label the expansion reads differs.
    pub engine_visible: bool,
    pub old_id: EdgeId,
    pub new_id: EdgeId,
}

#[derive(Debug, Clone, Default)]
pub struct EdgesDiff {
    pub added: Vec<(EdgeId, EdgeRef)>,
    pub removed: Vec<(EdgeId, EdgeRef)>,
    pub changed: Vec<EdgeChange>,
    pub unchanged: usize,
    /// Edges in both graphs are not in the same relative order (the expansion walks them
    /// in order).
    pub order_changed: bool,
}

/// Nodes that are not tools (categories, domains, undeclared endpoints).
#[derive(Debug, Clone, Default)]
pub struct NodesDiff {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: Vec<String>,
}

/// The whole artifact diff.
#[derive(Debug, Clone)]
pub struct ArtifactDiff {
    pub old: SideInfo,
    pub new: SideInfo,
    pub tools: ToolsDiff,
    pub edges: EdgesDiff,
    pub nodes: NodesDiff,
    pub corpus: corpus::CorpusDiff,
    pub versions: Vec<corpus::VersionRow>,
    /// `semantic_summary` and readiness-summary leaves that differ.
    pub summaries: Leaves,
    /// Why the comparison is partial (empty: everything compared).
    pub partial: Vec<String>,
}

impl ArtifactDiff {
    /// Nothing differs that ranking or selection could see.
    pub fn engine_identical(&self) -> bool {
        self.tools.added.is_empty()
            && self.tools.removed.is_empty()
            && !self.tools.changed.iter().any(|c| c.engine_visible)
            && !self.tools.order_changed
            && self.edges.added.is_empty()
            && self.edges.removed.is_empty()
            && !self.edges.changed.iter().any(|c| c.engine_visible)
            && !self.edges.order_changed
            && self.nodes.added.is_empty()
            && self.nodes.removed.is_empty()
            && self.nodes.changed.is_empty()
    }
}

/// Counts of one graph for the report's header.
#[derive(Debug, Clone)]
pub struct SideInfo {
    pub label: String,
    pub tools: usize,
    pub edges: usize,
    pub fingerprint: String,
}

/// Diffs two graphs.
pub fn diff(old: &Side<'_>, new: &Side<'_>) -> ArtifactDiff {
    let (a, b) = (&old.engine.graph, &new.engine.graph);
    let (fp_a, fp_b) = crate::par::join(
        || a.fingerprint().to_string(),
        || b.fingerprint().to_string(),
    );
    let t = std::time::Instant::now();
    let tools = diff_tools(old.engine, new.engine);
    timing("tools", t);
    let renames: FxHashMap<&str, &str> = tools
        .renamed
        .iter()
        .map(|(o, n)| (o.as_str(), n.as_str()))
        .collect();
    let edges = diff_edges(a, b, &renames);
    let nodes = diff_nodes(a, b);
    timing("tools, edges, nodes", t);
    let corpus = corpus::diff_corpus(&old.engine.index, &new.engine.index);
    let (top_a, top_b) = (corpus::TopInfo::of(a), corpus::TopInfo::of(b));
    let versions = corpus::versions(&top_a, &top_b, &fp_a, &fp_b);
    let mut summaries = Leaves::keeping(200);
    let partial = corpus::diff_summaries(&top_a, &top_b, &mut summaries);
    ArtifactDiff {
        old: side_info(old, fp_a),
        new: side_info(new, fp_b),
        tools,
        edges,
        nodes,
        corpus,
        versions,
        summaries,
        partial,
    }
}

/// With `TOOLSCOPE_TIMING` set, prints how long a phase took (since `t`) to stderr.
pub fn timing(what: &str, t: std::time::Instant) {
    if std::env::var_os("TOOLSCOPE_TIMING").is_some() {
        eprintln!("diff: {what}: {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
    }
}

fn side_info(s: &Side<'_>, fingerprint: String) -> SideInfo {
    SideInfo {
        label: s.label.clone(),
        tools: s.engine.graph.tool_count(),
        edges: s.engine.graph.edge_count(),
        fingerprint,
    }
}

/// Pairs of tool ids (old, new) present in both graphs, renames included.
pub fn diff_tools(old: &Engine, new: &Engine) -> ToolsDiff {
    let (a, b) = (&old.graph, &new.graph);
    let mut removed: Vec<ToolId> = Vec::new();
    let mut pairs: Vec<(ToolId, ToolId, Option<String>)> = Vec::new();
    for id in 0..a.tool_count() as ToolId {
        match b.tool_id(a.tool_key(id)) {
            Some(n) => pairs.push((id, n, None)),
            None => removed.push(id),
        }
    }
    let mut added: Vec<ToolId> = (0..b.tool_count() as ToolId)
        .filter(|&id| a.tool_id(b.tool_key(id)).is_none())
        .collect();
    // a removed and an added operation with the same method and path: one rename
    let mut renamed = Vec::new();
    removed.retain(|&r| {
        let key = route_key(a.tool(r));
        let Some(key) = key else { return true };
        match added
            .iter()
            .position(|&n| route_key(b.tool(n)) == Some(key.clone()))
        {
            Some(i) => {
                let n = added.remove(i);
                renamed.push((a.tool_key(r).to_string(), b.tool_key(n).to_string()));
                pairs.push((r, n, Some(a.tool_key(r).to_string())));
                false
            }
            None => true,
        }
    });
    let changes: Vec<Option<ToolChange>> = crate::par::map(&pairs, |(o, n, from)| {
        tool_change(old, new, *o, *n, from.clone())
    });
    let unchanged = changes.iter().filter(|c| c.is_none()).count();
    let mut changed: Vec<ToolChange> = changes.into_iter().flatten().collect();
    changed.sort_by_key(|c| c.new_id);
    let order_changed = {
        let mut common: Vec<(ToolId, ToolId)> = pairs.iter().map(|p| (p.0, p.1)).collect();
        common.sort_unstable();
        common.windows(2).any(|w| w[0].1 > w[1].1)
    };
    ToolsDiff {
        added: added.iter().map(|&i| ToolRef::of(b.tool(i))).collect(),
        removed: removed.iter().map(|&i| ToolRef::of(a.tool(i))).collect(),
        renamed,
        changed,
        unchanged,
        order_changed,
    }
}

/// `(METHOD, path)` of an operation with a path.
fn route_key(t: &Tool) -> Option<(String, String)> {
    let path = t.facts.path_str().filter(|p| !p.is_empty())?;
    Some((
        pytext::lower(t.facts.method_str().unwrap_or("")),
        path.to_string(),
    ))
}

fn tool_change(
    old: &Engine,
    new: &Engine,
    o: ToolId,
    n: ToolId,
    renamed_from: Option<String>,
) -> Option<ToolChange> {
    let (ta, tb) = (old.graph.tool(o), new.graph.tool(n));
    let engine_fields = ta.engine_differences(tb);
    let visible = !engine_fields.is_empty();
    let meta_same = ta.metadata.with_str(|x| tb.metadata.with_str(|y| x == y));
    let node_same = node_attrs(&old.graph, old.graph.node_of_tool(o))
        == node_attrs(&new.graph, new.graph.node_of_tool(n));
    if !visible && meta_same && node_same && renamed_from.is_none() {
        return None;
    }
    let mut metadata = Leaves::bounded(LEAVES_KEPT, LEAVES_COUNTED);
    let mut metadata_keys = Vec::new();
    if !meta_same {
        ta.metadata.with_str(|x| {
            tb.metadata.with_str(|y| {
                metadata_keys = leaves::diff_objects(x, y, "/metadata", &mut metadata);
            })
        });
        if metadata.count == 0 && !visible && node_same && renamed_from.is_none() {
            return None; // written differently, equal values
        }
    }
    let mut fields: Vec<&'static str> = Vec::new();
    let mut mark = |cond: bool, f: &'static str| {
        if cond {
            fields.push(f);
        }
    };
    mark(renamed_from.is_some(), "name");
    mark(ta.description != tb.description, "description");
    mark(ta.parameters != tb.parameters, "parameters");
    mark(ta.tags != tb.tags, "tags");
    mark(ta.domain != tb.domain, "domain");
    mark(ta.annotations != tb.annotations, "annotations");
    mark(ta.facts.method != tb.facts.method, "method");
    mark(ta.facts.path != tb.facts.path, "path");
    mark(metadata.count > 0, "metadata");
    let tokens = token_delta(old, new, ta, tb);
    mark(!tokens.is_empty(), "indexed_text");
    let facts = fact_changes(ta, tb);
    mark(!facts.is_empty(), "facts");
    let contract = contract_delta(ta, tb);
    mark(!contract.is_empty(), "contract");
    mark(!node_same, "node");
    Some(ToolChange {
        name: tb.name.clone(),
        renamed_from,
        old_id: o,
        new_id: n,
        engine_visible: visible || !node_same,
        engine_fields,
        fields,
        description: (ta.description != tb.description)
            .then(|| (ta.description.clone(), tb.description.clone())),
        params: param_delta(ta, tb),
        facts,
        contract,
        tokens,
        metadata,
        metadata_keys,
    })
}

fn node_attrs(g: &Graph, node: Option<crate::model::NodeId>) -> Option<(String, String, String)> {
    let n = g.node(node?);
    Some((
        n.node_type.clone().unwrap_or_default(),
        n.community
            .as_ref()
            .map(|v| v.to_string())
            .unwrap_or_default(),
        n.description.clone().unwrap_or_default(),
    ))
}

fn param_delta(a: &Tool, b: &Tool) -> ParamDelta {
    let mut d = ParamDelta::default();
    for p in &a.parameters {
        match b.parameters.iter().find(|q| q.name == p.name) {
            None => d.removed.push(p.name.clone()),
            Some(q) if q != p => d.changed.push(p.name.clone()),
            Some(_) => {}
        }
    }
    for q in &b.parameters {
        if !a.parameters.iter().any(|p| p.name == q.name) {
            d.added.push(q.name.clone());
        }
    }
    d
}

/// The tokens of a tool's BM25 document, gained and lost (a multiset difference).
pub fn token_delta(old: &Engine, new: &Engine, a: &Tool, b: &Tool) -> TokenDelta {
    let mut ta = Vec::new();
    let mut tb = Vec::new();
    document_tokens(a, old.tokenizer.as_ref(), &mut ta);
    document_tokens(b, new.tokenizer.as_ref(), &mut tb);
    if ta == tb {
        return TokenDelta {
            len: (ta.len(), tb.len()),
            ..Default::default()
        };
    }
    let mut counts: FxHashMap<&str, i64> = FxHashMap::default();
    for t in &ta {
        *counts.entry(t).or_default() -= 1;
    }
    for t in &tb {
        *counts.entry(t).or_default() += 1;
    }
    let mut gained: Vec<(String, u32)> = Vec::new();
    let mut lost: Vec<(String, u32)> = Vec::new();
    for (t, c) in counts {
        if c > 0 {
            gained.push((t.to_string(), c as u32));
        } else if c < 0 {
            lost.push((t.to_string(), (-c) as u32));
        }
    }
    gained.sort();
    lost.sort();
    TokenDelta {
        gained,
        lost,
        len: (ta.len(), tb.len()),
    }
}

fn fact_changes(a: &Tool, b: &Tool) -> Vec<(&'static str, String, String)> {
    let ai = |t: &Tool, f: fn(&crate::model::tool::AiFacts) -> &Option<Value>| {
        t.facts
            .ai
            .as_ref()
            .map(|x| crate::model::tool::opt_str(f(x)))
            .unwrap_or_default()
    };
    let module = |t: &Tool| {
        t.facts
            .openapi
            .as_ref()
            .map(|x| crate::model::tool::opt_str(&x.path_module))
            .unwrap_or_default()
    };
    let mut out = Vec::new();
    for (fact, x, y) in [
        (
            "action",
            ai(a, |x| &x.canonical_action),
            ai(b, |x| &x.canonical_action),
        ),
        (
            "resource",
            ai(a, |x| &x.primary_resource),
            ai(b, |x| &x.primary_resource),
        ),
        (
            "shape",
            ai(a, |x| &x.result_shape),
            ai(b, |x| &x.result_shape),
        ),
        ("module", module(a), module(b)),
    ] {
        if x != y {
            out.push((fact, x, y));
        }
    }
    out
}

/// Contract rows the engine reads (promoted rows, else the `api_contract` ones) added,
/// removed and changed, each named `produces FIELD` / `consumes FIELD`. A removed and an
/// added row of one name are one changed row, named with the keys that differ
/// (`produces id (json_path, description)`, the first four), not a removal beside an
/// addition.
fn contract_delta(a: &Tool, b: &Tool) -> ContractDelta {
    let rows = |t: &Tool| -> Vec<(String, String, Value)> {
        let mut out = Vec::new();
        for (dir, rows) in [
            ("produces", t.facts.produces_or_api()),
            ("consumes", t.facts.consumes_or_api()),
        ] {
            for r in rows {
                let label = ["field_name", "json_path", "semantic_tag"]
                    .iter()
                    .find_map(|k| r.get(*k).and_then(Value::as_str).filter(|s| !s.is_empty()))
                    .unwrap_or("?")
                    .to_string();
                out.push((format!("{dir} {label}"), r.to_string(), r.clone()));
            }
        }
        out
    };
    let (ra, rb) = (rows(a), rows(b));
    let sa: FxHashSet<&str> = ra.iter().map(|r| r.1.as_str()).collect();
    let sb: FxHashSet<&str> = rb.iter().map(|r| r.1.as_str()).collect();
    let mut removed: Vec<&(String, String, Value)> =
        ra.iter().filter(|r| !sb.contains(r.1.as_str())).collect();
    let mut d = ContractDelta::default();
    for r in rb.iter().filter(|r| !sa.contains(r.1.as_str())) {
        match removed.iter().position(|o| o.0 == r.0) {
            Some(i) => {
                let o = removed.remove(i);
                let keys = differing_keys(&o.2, &r.2);
                let more = match keys.len() {
                    0..=4 => String::new(),
                    n => format!(", +{} more", n - 4),
                };
                let shown = keys[..keys.len().min(4)].join(", ");
                d.changed.push(format!("{} ({shown}{more})", r.0));
            }
            None => d.added.push(r.0.clone()),
        }
    }
    d.removed = removed.into_iter().map(|r| r.0.clone()).collect();
    d
}

/// Contract rows added, removed and changed ([`contract_delta`]).
#[derive(Debug, Clone, Default)]
pub struct ContractDelta {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: Vec<String>,
}

impl ContractDelta {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

/// The keys of two JSON objects whose values differ (the old one's order, then keys only
/// the new one has).
fn differing_keys(a: &Value, b: &Value) -> Vec<String> {
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return vec!["value".into()];
    };
    let mut keys: Vec<String> = a
        .iter()
        .filter(|(k, v)| b.get(*k) != Some(*v))
        .map(|(k, _)| k.clone())
        .collect();
    keys.extend(b.keys().filter(|k| !a.contains_key(*k)).cloned());
    keys
}

fn edge_ref(g: &Graph, e: EdgeId, rename: &dyn Fn(&str) -> String) -> EdgeRef {
    let edge = g.edge(e);
    EdgeRef {
        source: rename(g.node_name(edge.source)),
        target: rename(g.node_name(edge.target)),
        relation: edge.attrs.relation_str().unwrap_or("").to_string(),
        confidence: edge.attrs.confidence_str().unwrap_or("").to_string(),
    }
}

/// Edges by endpoints; an old endpoint that was renamed is matched under its new name.
pub fn diff_edges(a: &Graph, b: &Graph, renames: &FxHashMap<&str, &str>) -> EdgesDiff {
    let rename = |s: &str| renames.get(s).copied().unwrap_or(s).to_string();
    let same = |s: &str| s.to_string();
    let mut in_b: FxHashMap<(&str, &str), EdgeId> = FxHashMap::default();
    for (i, e) in b.edges.iter().enumerate() {
        in_b.insert((b.node_name(e.source), b.node_name(e.target)), i as EdgeId);
    }
    let mut d = EdgesDiff::default();
    let mut matched = vec![false; b.edges.len()];
    let mut last_new: Option<EdgeId> = None;
    for (i, e) in a.edges.iter().enumerate() {
        let i = i as EdgeId;
        let (s, t) = (rename(a.node_name(e.source)), rename(a.node_name(e.target)));
        let Some(&j) = in_b.get(&(s.as_str(), t.as_str())) else {
            d.removed.push((i, edge_ref(a, i, &rename)));
            continue;
        };
        matched[j as usize] = true;
        if last_new.is_some_and(|l| l > j) {
            d.order_changed = true;
        }
        last_new = Some(j);
        let fields = edge_fields(&e.attrs, &b.edge(j).attrs);
        if fields.is_empty() {
            d.unchanged += 1;
        } else {
            let (ka, kb) = (a.edge_key(i), b.edge_key(j));
            d.changed.push(EdgeChange {
                source: s,
                target: t,
                engine_visible: ka.relation_row != kb.relation_row
                    || ka.confidence != kb.confidence,
                fields,
                old_id: i,
                new_id: j,
            });
        }
    }
    for (j, m) in matched.iter().enumerate() {
        if !m {
            d.added.push((j as EdgeId, edge_ref(b, j as EdgeId, &same)));
        }
    }
    d
}

fn edge_fields(
    a: &crate::model::graph::EdgeAttrs,
    b: &crate::model::graph::EdgeAttrs,
) -> Vec<(&'static str, String, String)> {
    let show = |v: &Option<Value>| v.as_ref().map_or("null".to_string(), Value::to_string);
    let mut out = Vec::new();
    for (k, x, y) in [
        ("relation", &a.relation, &b.relation),
        ("confidence", &a.confidence, &b.confidence),
        ("conf_score", &a.conf_score, &b.conf_score),
        ("evidence", &a.evidence, &b.evidence),
        ("layer", &a.layer, &b.layer),
        ("kind", &a.kind, &b.kind),
        ("evidence_sources", &a.evidence_sources, &b.evidence_sources),
    ] {
        if x != y {
            out.push((k, show(x), show(y)));
        }
    }
    out
}

/// Nodes that are not tools of their graph: added, removed, attributes changed.
pub fn diff_nodes(a: &Graph, b: &Graph) -> NodesDiff {
    let mut d = NodesDiff::default();
    let plain = |g: &Graph, i: usize| g.tool_of_node(i as crate::model::NodeId).is_none();
    for (i, (name, node)) in a.nodes.iter().enumerate() {
        if !plain(a, i) {
            continue;
        }
        match b.nodes.get_full(name) {
            Some((j, _, _)) if !plain(b, j) => {}
            Some((_, _, other)) => {
                if node.node_type != other.node_type
                    || node.community != other.community
                    || node.description != other.description
                {
                    d.changed.push(name.clone());
                }
            }
            None => d.removed.push(name.clone()),
        }
    }
    for (j, (name, _)) in b.nodes.iter().enumerate() {
        if plain(b, j) && !a.nodes.contains_key(name) {
            d.added.push(name.clone());
        }
    }
    d
}

#[cfg(test)]
pub(crate) mod tests;
