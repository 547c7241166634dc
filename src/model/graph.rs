//! The tool graph: tool table, node table and typed edges (spec §1.3, §2).
//!
//! Adjacency is a `petgraph` `GraphMap` (directed) keyed by node index: it keeps, per node, the
//! order in which edges touching it were added, which is the order the reference walks
//! (out-edges, then in-edges, each in file order). An ordered pair holds one edge; a later
//! record replaces the attributes of an earlier one and keeps its position.

use indexmap::IndexMap;
use petgraph::Directed;
use petgraph::Direction;
use petgraph::graphmap::GraphMap;
use rustc_hash::{FxBuildHasher, FxHashMap};
use serde_json::Value;

use super::tool::Tool;
use std::sync::Arc;

pub type ToolId = u32;
pub type NodeId = u32;
pub type EdgeId = u32;

#[derive(Clone, Debug, Default)]
pub struct Node {
    /// `node_type` attribute; `None` for nodes created implicitly by an edge.
    pub node_type: Option<String>,
    pub community: Option<Value>,
    pub description: Option<String>,
}

impl Node {
    pub fn is_tool(&self) -> bool {
        self.node_type.as_deref() == Some("tool")
    }

    pub fn is_pass_through(&self) -> bool {
        matches!(self.node_type.as_deref(), Some("category") | Some("domain"))
    }
}

/// The edge attributes retrieval, evidence and the graph pane read.
#[derive(Clone, Debug, Default)]
pub struct EdgeAttrs {
    pub relation: Option<Value>,
    pub confidence: Option<Value>,
    pub conf_score: Option<Value>,
    pub evidence: Option<Value>,
    pub layer: Option<Value>,
    pub kind: Option<Value>,
    pub evidence_sources: Option<Value>,
}

impl EdgeAttrs {
    pub fn relation_str(&self) -> Option<&str> {
        self.relation.as_ref().and_then(Value::as_str)
    }

    pub fn confidence_str(&self) -> Option<&str> {
        self.confidence.as_ref().and_then(Value::as_str)
    }

    pub fn evidence_str(&self) -> &str {
        self.evidence.as_ref().and_then(Value::as_str).unwrap_or("")
    }
}

/// The part of an edge the expansion reads on every query, kept compact.
#[derive(Clone, Copy, Debug, Default)]
pub struct EdgeKey {
    pub source: NodeId,
    pub target: NodeId,
    /// The stored relation as a [`relation_kind`] (the engine's weight tables are indexed
    /// by it).
    pub relation_row: u8,
    /// The stored confidence label as a [`confidence_kind`] (the engine maps it to a factor).
    pub confidence: u8,
}

/// The graph's relation vocabulary: `similar_to` 0, `requires` 1, `complementary` 2,
/// `conflicts_with` 3, `belongs_to` 4, `precedes` 5, anything else (or none) 6.
pub fn relation_kind(relation: Option<&str>) -> u8 {
    match relation {
        Some("similar_to") => 0,
        Some("requires") => 1,
        Some("complementary") => 2,
        Some("conflicts_with") => 3,
        Some("belongs_to") => 4,
        Some("precedes") => 5,
        _ => 6,
    }
}

/// The confidence labels of edges: `EXTRACTED` 0, `INFERRED` 1, `AMBIGUOUS` 2, anything
/// else (or none) 3.
pub fn confidence_kind(label: Option<&str>) -> u8 {
    match label {
        Some("EXTRACTED") => 0,
        Some("INFERRED") => 1,
        Some("AMBIGUOUS") => 2,
        _ => 3,
    }
}

#[derive(Clone, Debug)]
pub struct Edge {
    pub source: NodeId,
    pub target: NodeId,
    /// Shared, so a blame hybrid takes an edge without copying its evidence text.
    pub attrs: Arc<EdgeAttrs>,
}

/// What a collection artifact records about its own build at the top level (absent in a
/// saved graph): for artifact diffs and provenance.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BuildFacts {
    pub graph_tool_call_version: Option<Value>,
    pub collection_graph_version: Option<Value>,
    pub enrichment_status: Option<Value>,
    pub semantic_summary: Option<Value>,
    /// `readiness_report.summary`.
    pub readiness_summary: Option<Value>,
}

/// Facts about the file a graph came from, for status lines and provenance.
#[derive(Clone, Debug, Default)]
pub struct GraphInfo {
    pub source: String,
    pub format_version: String,
    pub library_version: Option<String>,
    pub is_collection: bool,
    pub bytes: usize,
    /// sha256 of the bytes loaded (after decompression), hex, when already known; use
    /// [`Graph::fingerprint`], which computes it on first use.
    pub fingerprint: String,
    pub build: BuildFacts,
}

#[derive(Debug, Default)]
pub struct Graph {
    pub info: GraphInfo,
    /// Shared, so a blame hybrid takes a tool without copying it.
    pub tools: Vec<Arc<Tool>>,
    tool_ids: FxHashMap<String, ToolId>,
    tool_keys: Vec<String>,
    pub nodes: IndexMap<String, Node, FxBuildHasher>,
    pub edges: Vec<Edge>,
    adj: GraphMap<NodeId, EdgeId, Directed, FxBuildHasher>,
    node_of_tool: Vec<Option<NodeId>>,
    tool_of_node: Vec<Option<ToolId>>,
    /// Out- and in-edges per node in insertion order, flattened from `adj` by `finish`
    /// (the BFS walks these on every query).
    out_adj: Vec<Vec<EdgeId>>,
    in_adj: Vec<Vec<EdgeId>>,
    /// Per edge: endpoints, relation row and confidence factor (what the BFS reads).
    edge_keys: Vec<EdgeKey>,
    /// The loaded text, for the fingerprint.
    source_text: Option<std::sync::Arc<super::text::SourceText>>,
    fingerprint: std::sync::OnceLock<String>,
}

impl Graph {
    pub fn new(info: GraphInfo) -> Self {
        Graph {
            info,
            ..Default::default()
        }
    }

    /// Makes room for `n` more tools.
    pub fn reserve_tools(&mut self, n: usize) {
        self.tools.reserve(n);
        self.tool_keys.reserve(n);
        self.tool_ids.reserve(n);
    }

    /// Adds a tool to the tool table. Returns `false` if the name is taken.
    pub fn add_tool(&mut self, key: String, tool: Tool) -> bool {
        self.add_shared_tool(key, Arc::new(tool))
    }

    /// [`Graph::add_tool`] for a tool another graph holds too.
    pub fn add_shared_tool(&mut self, key: String, tool: Arc<Tool>) -> bool {
        if self.tool_ids.contains_key(&key) {
            return false;
        }
        let id = self.tools.len() as ToolId;
        self.tool_ids.insert(key.clone(), id);
        self.tool_keys.push(key);
        self.tools.push(tool);
        true
    }

    /// Adds a node or merges attributes into an existing one (later keys win).
    pub fn upsert_node(
        &mut self,
        id: &str,
        node_type: Option<String>,
        community: Option<Value>,
        description: Option<String>,
    ) -> NodeId {
        if let Some(ix) = self.nodes.get_index_of(id) {
            let n = &mut self.nodes[ix];
            if node_type.is_some() {
                n.node_type = node_type;
            }
            if community.is_some() {
                n.community = community;
            }
            if description.is_some() {
                n.description = description;
            }
            return ix as NodeId;
        }
        let (ix, _) = self.nodes.insert_full(
            id.to_string(),
            Node {
                node_type,
                community,
                description,
            },
        );
        self.adj.add_node(ix as NodeId);
        ix as NodeId
    }

    /// Node index of `id`, creating an attribute-less node when it is unknown.
    pub fn node_or_implicit(&mut self, id: &str) -> (NodeId, bool) {
        if let Some(ix) = self.nodes.get_index_of(id) {
            return (ix as NodeId, false);
        }
        let (ix, _) = self.nodes.insert_full(id.to_string(), Node::default());
        self.adj.add_node(ix as NodeId);
        (ix as NodeId, true)
    }

    /// Adds an edge; an existing ordered pair gets its attributes replaced in place.
    pub fn set_edge(&mut self, source: NodeId, target: NodeId, attrs: EdgeAttrs) -> EdgeId {
        self.set_shared_edge(source, target, Arc::new(attrs))
    }

    /// [`Graph::set_edge`] with attributes another graph holds too.
    pub fn set_shared_edge(
        &mut self,
        source: NodeId,
        target: NodeId,
        attrs: Arc<EdgeAttrs>,
    ) -> EdgeId {
        if let Some(&e) = self.adj.edge_weight(source, target) {
            self.edges[e as usize].attrs = attrs;
            return e;
        }
        let e = self.edges.len() as EdgeId;
        self.edges.push(Edge {
            source,
            target,
            attrs,
        });
        self.adj.add_edge(source, target, e);
        e
    }

    /// A finished graph from its parts in one pass, without the petgraph map: tools (key,
    /// tool), nodes (name, node) and edges (source and target as indexes into `nodes`,
    /// attributes), each list in the order it is to keep. The caller guarantees what the
    /// loader guarantees itself: tool keys and node names unique, one edge per ordered
    /// pair. Adjacency lists are in edge order, as [`Graph::finish`] makes them. For a
    /// blame's hybrids, which are built by the hundred.
    pub fn assemble(
        info: GraphInfo,
        tools: Vec<(String, Arc<Tool>)>,
        nodes: Vec<(String, Node)>,
        edges: Vec<(NodeId, NodeId, Arc<EdgeAttrs>)>,
    ) -> Graph {
        let mut g = Graph::new(info);
        g.reserve_tools(tools.len());
        for (key, tool) in tools {
            g.add_shared_tool(key, tool);
        }
        g.nodes.reserve(nodes.len());
        for (name, node) in nodes {
            g.nodes.insert(name, node);
        }
        let n = g.nodes.len();
        g.out_adj = vec![Vec::new(); n];
        g.in_adj = vec![Vec::new(); n];
        g.edges.reserve(edges.len());
        g.edge_keys.reserve(edges.len());
        for (i, (source, target, attrs)) in edges.into_iter().enumerate() {
            g.out_adj[source as usize].push(i as EdgeId);
            g.in_adj[target as usize].push(i as EdgeId);
            g.edge_keys.push(EdgeKey {
                source,
                target,
                relation_row: relation_kind(attrs.relation_str()),
                confidence: confidence_kind(attrs.confidence_str()),
            });
            g.edges.push(Edge {
                source,
                target,
                attrs,
            });
        }
        g.link_tools_and_nodes();
        g
    }

    /// Keeps the loaded text so the fingerprint can be computed when first asked for.
    pub fn set_source_text(&mut self, text: std::sync::Arc<super::text::SourceText>) {
        self.source_text = Some(text);
    }

    /// The loaded text (absent for a graph built in memory).
    pub fn source_text(&self) -> Option<&std::sync::Arc<super::text::SourceText>> {
        self.source_text.as_ref()
    }

    /// sha256 (hex) of the loaded bytes, or of the tools' JSON for a graph built in memory.
    pub fn fingerprint(&self) -> &str {
        if !self.info.fingerprint.is_empty() {
            return &self.info.fingerprint;
        }
        self.fingerprint.get_or_init(|| match &self.source_text {
            Some(t) => t.sha256_hex(),
            None => {
                use sha2::Digest;
                let mut h = sha2::Sha256::new();
                for t in &self.tools {
                    h.update(t.compact_json().as_bytes());
                }
                h.finalize().iter().map(|b| format!("{b:02x}")).collect()
            }
        })
    }

    /// Sets the fingerprint computed elsewhere (the loader hashes the text beside the load
    /// when asked to: `crate::model::load::load_graph_file_with`); `fp` must be
    /// [`SourceText::sha256_hex`](super::text::SourceText::sha256_hex) of the loaded text.
    pub fn set_fingerprint(&self, fp: String) {
        let _ = self.fingerprint.set(fp);
    }

    /// The fingerprint if it has been computed already (never blocks).
    pub fn fingerprint_known(&self) -> Option<&str> {
        if !self.info.fingerprint.is_empty() {
            return Some(&self.info.fingerprint);
        }
        self.fingerprint.get().map(String::as_str)
    }

    /// Links tools and nodes by name; call once after loading.
    pub fn finish(&mut self) {
        self.edge_keys = self
            .edges
            .iter()
            .map(|e| EdgeKey {
                source: e.source,
                target: e.target,
                relation_row: relation_kind(e.attrs.relation_str()),
                confidence: confidence_kind(e.attrs.confidence_str()),
            })
            .collect();
        let n = self.nodes.len();
        self.out_adj = (0..n as NodeId)
            .map(|v| {
                self.adj
                    .edges_directed(v, Direction::Outgoing)
                    .map(|(_, _, &e)| e)
                    .collect()
            })
            .collect();
        self.in_adj = (0..n as NodeId)
            .map(|v| {
                self.adj
                    .edges_directed(v, Direction::Incoming)
                    .map(|(_, _, &e)| e)
                    .collect()
            })
            .collect();
        self.link_tools_and_nodes();
    }

    /// Which node is each tool's and which tool each node's (by name).
    fn link_tools_and_nodes(&mut self) {
        self.node_of_tool = self.tools.iter().map(|_| None).collect();
        self.tool_of_node = vec![None; self.nodes.len()];
        for (name, &tid) in &self.tool_ids {
            if let Some(nix) = self.nodes.get_index_of(name.as_str()) {
                self.node_of_tool[tid as usize] = Some(nix as NodeId);
                self.tool_of_node[nix] = Some(tid);
            }
        }
    }

    pub fn tool_id(&self, name: &str) -> Option<ToolId> {
        self.tool_ids.get(name).copied()
    }

    pub fn tool(&self, id: ToolId) -> &Tool {
        &self.tools[id as usize]
    }

    pub fn tool_by_name(&self, name: &str) -> Option<&Tool> {
        self.tool_id(name).map(|id| self.tool(id))
    }

    pub fn tool_name(&self, id: ToolId) -> &str {
        &self.tools[id as usize].name
    }

    /// The name under which a tool is registered in the tool table.
    pub fn tool_key(&self, id: ToolId) -> &str {
        // keys and row names agree for every artifact the reference writes; the key is
        // what ranking uses.
        &self.tool_keys[id as usize]
    }

    pub fn node_id(&self, name: &str) -> Option<NodeId> {
        self.nodes.get_index_of(name).map(|i| i as NodeId)
    }

    pub fn node_name(&self, id: NodeId) -> &str {
        self.nodes
            .get_index(id as usize)
            .map(|(k, _)| k.as_str())
            .unwrap_or("")
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    pub fn node_of_tool(&self, tool: ToolId) -> Option<NodeId> {
        self.node_of_tool.get(tool as usize).copied().flatten()
    }

    pub fn tool_of_node(&self, node: NodeId) -> Option<ToolId> {
        self.tool_of_node.get(node as usize).copied().flatten()
    }

    pub fn edge(&self, id: EdgeId) -> &Edge {
        &self.edges[id as usize]
    }

    /// The compact key of an edge.
    pub fn edge_key(&self, id: EdgeId) -> EdgeKey {
        self.edge_keys[id as usize]
    }

    /// Out-edges of a node in insertion order.
    pub fn out_edges(&self, node: NodeId) -> impl Iterator<Item = EdgeId> + '_ {
        Self::flat_or(&self.out_adj, node, move || {
            self.adj
                .edges_directed(node, Direction::Outgoing)
                .map(|(_, _, &e)| e)
        })
    }

    /// In-edges of a node in insertion order.
    pub fn in_edges(&self, node: NodeId) -> impl Iterator<Item = EdgeId> + '_ {
        Self::flat_or(&self.in_adj, node, move || {
            self.adj
                .edges_directed(node, Direction::Incoming)
                .map(|(_, _, &e)| e)
        })
    }

    /// The flattened edge list of `node` once [`Graph::finish`] has built it (the fast path
    /// of every query), else the petgraph walk.
    fn flat_or<'a, I: Iterator<Item = EdgeId> + 'a>(
        flat: &'a [Vec<EdgeId>],
        node: NodeId,
        walk: impl FnOnce() -> I,
    ) -> impl Iterator<Item = EdgeId> + 'a {
        match flat.get(node as usize) {
            Some(list) => either::Either::Left(list.iter().copied()),
            None => either::Either::Right(walk()),
        }
    }

    pub fn tool_count(&self) -> usize {
        self.tools.len()
    }

    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }
}
