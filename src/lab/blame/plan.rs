//! Change groups and hybrid graphs: OLD with any subset of the groups applied.
//!
//! Every tool, node and edge of either graph is a *slot* with an old version, a new version
//! (either may be absent) and the group that switches it from one to the other (`None`: the
//! engine sees both versions alike, so the old one stands in for both). A hybrid is built by
//! walking the slots in a merged order and taking each slot's old or new version; an edge
//! is kept only when both of its end nodes are. Groups: each tool whose engine view changed
//! (its document, facts or node), each added, removed and renamed tool (with the edges only
//! it explains), each other edge change, each changed non-tool node, the corpus statistics
//! (the hybrid's BM25 scores read the old or the new corpus's document count, average
//! length, document frequencies and stopwords; see [`Engine::with_corpus_stats`]) and, when
//! the two files list common items in different orders, the order itself.
//!
//! With no group applied the hybrid is OLD, with all of them NEW: the blame checks both
//! endpoints against the real engines before it attributes anything.

use rustc_hash::FxHashMap;

use crate::engine::index::{Index, ScoreTable, TokenCache};
use crate::engine::{Engine, ToolCaches};
use crate::lab::graphdiff::{ArtifactDiff, TokenDelta};
use crate::model::graph::{GraphInfo, Node};
use crate::model::{Graph, NodeId, ToolId};

/// What a change group is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GroupKind {
    /// A tool in both graphs that the engine sees differently.
    Document,
    Added,
    Removed,
    /// Same method and path, a new name.
    Renamed,
    /// An edge added, removed or relabelled between tools that stay.
    Edge,
    /// A category, domain or undeclared node added, removed or changed.
    Node,
    /// The BM25 corpus statistics.
    Corpus,
    /// The order in which the files list common tools, nodes or edges.
    Order,
}

impl GroupKind {
    pub fn as_str(self) -> &'static str {
        match self {
            GroupKind::Document => "document",
            GroupKind::Added => "tool_added",
            GroupKind::Removed => "tool_removed",
            GroupKind::Renamed => "tool_renamed",
            GroupKind::Edge => "edge",
            GroupKind::Node => "node",
            GroupKind::Corpus => "corpus",
            GroupKind::Order => "order",
        }
    }
}

/// One change group.
#[derive(Debug, Clone)]
pub struct Group {
    pub kind: GroupKind,
    /// A stable name: the tool (`getOrder`), the rename (`old -> new`), the edge
    /// (`a -> b`), the node, `corpus` or `order`.
    pub name: String,
    /// What changed, in words (`document: +refund -order`, `requires edge added`).
    pub what: String,
    /// The tool slot a tool group switches.
    pub tool_slot: Option<u32>,
    /// A document group's BM25 token changes.
    pub tokens: Option<TokenDelta>,
}

#[derive(Debug, Clone, Copy)]
struct Slot {
    old: Option<u32>,
    new: Option<u32>,
    group: Option<u32>,
}

#[derive(Debug, Clone, Copy)]
struct EdgeSlot {
    slot: Slot,
    ends: (u32, u32),
}

/// The slots of two graphs and their change groups.
pub struct Plan<'e> {
    pub old: &'e Engine,
    pub new: &'e Engine,
    pub groups: Vec<Group>,
    tools: Vec<Slot>,
    nodes: Vec<Slot>,
    edges: Vec<EdgeSlot>,
    /// Merged orders of slots: `[0]` keeps the old file's order, `[1]` the new one's
    /// (the same list when the files agree).
    tool_order: [Vec<u32>; 2],
    node_order: [Vec<u32>; 2],
    edge_order: [Vec<u32>; 2],
    pub corpus: Option<u32>,
    pub order: Option<u32>,
    /// Tool slot by old and by new tool id.
    slot_of_old: Vec<u32>,
    slot_of_new: Vec<u32>,
    /// Edge groups touching each tool slot (own edge groups only).
    edge_groups_of_tool: Vec<Vec<u32>>,
    /// Both graphs' documents, tokenised once (old tools first, then new ones), and
    /// scored under the old and under the new corpus statistics.
    tokens: TokenCache,
    scores: [ScoreTable; 2],
    /// Per-tool engine caches, one entry per tool version, shared by every hybrid.
    caches: ToolCaches,
}

/// A set of applied groups.
pub type Applied = [bool];

impl<'e> Plan<'e> {
    pub fn new(old: &'e Engine, new: &'e Engine, d: &ArtifactDiff) -> Plan<'e> {
        let (a, b) = (&old.graph, &new.graph);
        let cx = Pairing {
            a,
            b,
            d,
            renames: d
                .tools
                .renamed
                .iter()
                .map(|(o, n)| (o.as_str(), n.as_str()))
                .collect(),
        };
        let mut groups: Vec<Group> = Vec::new();
        let t = cx.tool_slots(&mut groups);
        let n = cx.node_slots(&t, &mut groups);
        let (edges, edge_groups_of_tool) = cx.edge_slots(&t, &n, &mut groups);
        let Orders {
            tool_order,
            node_order,
            edge_order,
            order,
        } = orders(&t.slots, &n.slots, &edges, &mut groups);
        let corpus = d.corpus.shifted().then(|| {
            let c = &d.corpus;
            push_group(
                &mut groups,
                GroupKind::Corpus,
                "corpus".into(),
                format!(
                    "corpus statistics: documents {} -> {}, avg length {:.2} -> {:.2}",
                    c.documents.0, c.documents.1, c.avgdl.0, c.avgdl.1
                ),
                usize::MAX,
                None,
            )
        });
        let mut tokens = TokenCache::default();
        tokens.add_graph(a, old.tokenizer.as_ref());
        tokens.add_graph(b, new.tokenizer.as_ref());
        let caches = ToolCaches::new(tokens.len());
        let scores = [
            ScoreTable::new(&tokens, &old.index),
            ScoreTable::new(&tokens, &new.index),
        ];
        Plan {
            scores,
            old,
            new,
            groups,
            tokens,
            caches,
            tools: t.slots,
            nodes: n.slots,
            edges,
            tool_order,
            node_order,
            edge_order,
            corpus,
            order,
            slot_of_old: t.of_old,
            slot_of_new: t.of_new,
            edge_groups_of_tool,
        }
    }

    /// The number of tool slots (tools of either graph).
    pub fn tool_slots(&self) -> usize {
        self.tools.len()
    }

    /// The tool slot of an old or a new tool.
    pub fn slot_of(&self, new_side: bool, id: ToolId) -> u32 {
        if new_side {
            self.slot_of_new[id as usize]
        } else {
            self.slot_of_old[id as usize]
        }
    }

    /// The group that switches a tool slot (if any).
    pub fn tool_group(&self, slot: u32) -> Option<u32> {
        self.tools[slot as usize].group
    }

    /// The own edge groups (not a tool's) touching a tool slot.
    pub fn edge_groups_of(&self, slot: u32) -> &[u32] {
        &self.edge_groups_of_tool[slot as usize]
    }

    /// A tool slot's name in a hybrid (`None`: absent from it).
    pub fn tool_name(&self, slot: u32, applied: &Applied) -> Option<&str> {
        let (side, id) = self.version(self.tools[slot as usize], applied)?;
        Some(if side {
            self.new.graph.tool_key(id)
        } else {
            self.old.graph.tool_key(id)
        })
    }

    /// The tool slot named `name` in a hybrid.
    pub fn slot_named(&self, name: &str, applied: &Applied) -> Option<u32> {
        let by_new = self
            .new
            .graph
            .tool_id(name)
            .map(|i| self.slot_of_new[i as usize]);
        let by_old = self
            .old
            .graph
            .tool_id(name)
            .map(|i| self.slot_of_old[i as usize]);
        [by_new, by_old]
            .into_iter()
            .flatten()
            .find(|&s| self.tool_name(s, applied) == Some(name))
    }

    /// The version of a slot a hybrid takes: `(true, id)` new, `(false, id)` old.
    fn version(&self, s: Slot, applied: &Applied) -> Option<(bool, u32)> {
        if s.group.is_some_and(|g| applied[g as usize]) {
            s.new.map(|n| (true, n))
        } else {
            s.old.map(|o| (false, o))
        }
    }

    /// OLD with the `applied` groups applied.
    pub fn hybrid(&self, applied: &Applied) -> Engine {
        let (g, docs, stats) = self.hybrid_graph(applied);
        let index = Index::from_cache(&self.tokens, &self.scores[stats], &docs);
        Engine::from_parts(g, index, self.caches.clone(), Some(docs))
    }

    /// The hybrid built the slow way: the graph's documents tokenised and scored again
    /// ([`Engine::with_corpus_stats`]); what [`Plan::hybrid`] is tested against.
    pub fn hybrid_rebuilt(&self, applied: &Applied) -> Engine {
        let (g, _, stats) = self.hybrid_graph(applied);
        let stats = if stats == 1 {
            &self.new.index
        } else {
            &self.old.index
        };
        Engine::with_corpus_stats(g, stats)
    }

    /// A hybrid's graph, the cache index of each of its tools, and which corpus
    /// statistics it reads (0 old, 1 new).
    fn hybrid_graph(&self, applied: &Applied) -> (Graph, Vec<u32>, usize) {
        let ord = usize::from(self.order.is_some_and(|g| applied[g as usize]));
        let (a, b) = (&self.old.graph, &self.new.graph);
        let side = |new: bool| if new { b } else { a };
        let info = GraphInfo {
            source: "hybrid".into(),
            fingerprint: "hybrid".into(),
            ..Default::default()
        };
        // each tool's version: its cached document and its cache entry
        let na = a.tool_count() as u32;
        let mut tools = Vec::with_capacity(self.tool_order[ord].len());
        let mut docs: Vec<u32> = Vec::with_capacity(self.tool_order[ord].len());
        for &s in &self.tool_order[ord] {
            if let Some((new, id)) = self.version(self.tools[s as usize], applied) {
                let graph = side(new);
                tools.push((
                    graph.tool_key(id).to_string(),
                    graph.tools[id as usize].clone(),
                ));
                docs.push(if new { na + id } else { id });
            }
        }
        let mut node_id = vec![u32::MAX; self.nodes.len()];
        let mut nodes = Vec::with_capacity(self.node_order[ord].len());
        for &s in &self.node_order[ord] {
            if let Some((new, id)) = self.version(self.nodes[s as usize], applied) {
                let (name, node) = side(new).nodes.get_index(id as usize).expect("node");
                node_id[s as usize] = nodes.len() as u32;
                nodes.push((name.clone(), node.clone()));
            }
        }
        let mut edges = Vec::with_capacity(self.edge_order[ord].len());
        for &s in &self.edge_order[ord] {
            let e = self.edges[s as usize];
            let (x, y) = (node_id[e.ends.0 as usize], node_id[e.ends.1 as usize]);
            if x == u32::MAX || y == u32::MAX {
                continue;
            }
            if let Some((new, id)) = self.version(e.slot, applied) {
                edges.push((x, y, side(new).edge(id).attrs.clone()));
            }
        }
        let g = Graph::assemble(info, tools, nodes, edges);
        let stats = usize::from(self.corpus.is_some_and(|c| applied[c as usize]));
        (g, docs, stats)
    }
}

/// The two graphs being paired into slots, and the diff's renames (old name -> new).
struct Pairing<'x> {
    a: &'x Graph,
    b: &'x Graph,
    d: &'x ArtifactDiff,
    renames: FxHashMap<&'x str, &'x str>,
}

/// Slots of one kind, with the slot of each old and each new item.
struct Slots {
    slots: Vec<Slot>,
    of_old: Vec<u32>,
    of_new: Vec<u32>,
}

impl<'x> Pairing<'x> {
    fn rename<'s>(&self, s: &'s str) -> &'s str
    where
        'x: 's,
    {
        self.renames.get(s).copied().unwrap_or(s)
    }

    /// Tools paired by (renamed) name; a tool the engine sees differently, an added, a
    /// removed and a renamed tool each get a group.
    fn tool_slots(&self, groups: &mut Vec<Group>) -> Slots {
        let (a, b, d) = (self.a, self.b, self.d);
        let mut tools: Vec<Slot> = Vec::new();
        let mut slot_of_old = vec![u32::MAX; a.tool_count()];
        let mut slot_of_new = vec![u32::MAX; b.tool_count()];
        let changed: FxHashMap<ToolId, usize> = d
            .tools
            .changed
            .iter()
            .enumerate()
            .filter(|(_, c)| c.engine_visible)
            .map(|(i, c)| (c.old_id, i))
            .collect();
        for o in 0..a.tool_count() as ToolId {
            let key = a.tool_key(o);
            let n = b.tool_id(self.rename(key));
            let group = match (n, changed.get(&o)) {
                (None, _) => Some(push_group(
                    groups,
                    GroupKind::Removed,
                    key.to_string(),
                    "removed".into(),
                    tools.len(),
                    None,
                )),
                (Some(_), Some(&ci)) => {
                    let c = &d.tools.changed[ci];
                    let (kind, name) = match &c.renamed_from {
                        Some(from) => (GroupKind::Renamed, format!("{from} -> {}", c.name)),
                        None => (GroupKind::Document, c.name.clone()),
                    };
                    Some(push_group(
                        groups,
                        kind,
                        name,
                        describe_change(c),
                        tools.len(),
                        Some(c.tokens.clone()),
                    ))
                }
                (Some(_), None) => None,
            };
            slot_of_old[o as usize] = tools.len() as u32;
            if let Some(n) = n {
                slot_of_new[n as usize] = tools.len() as u32;
            }
            tools.push(Slot {
                old: Some(o),
                new: n,
                group,
            });
        }
        for n in 0..b.tool_count() as ToolId {
            if slot_of_new[n as usize] != u32::MAX {
                continue;
            }
            let g = push_group(
                groups,
                GroupKind::Added,
                b.tool_key(n).to_string(),
                "added".into(),
                tools.len(),
                None,
            );
            slot_of_new[n as usize] = tools.len() as u32;
            tools.push(Slot {
                old: None,
                new: Some(n),
                group: Some(g),
            });
        }
        Slots {
            slots: tools,
            of_old: slot_of_old,
            of_new: slot_of_new,
        }
    }

    /// Nodes paired by name (old names renamed); a tool's node follows its tool, another
    /// node that differs gets a group.
    fn node_slots(&self, t: &Slots, groups: &mut Vec<Group>) -> Slots {
        let (a, b) = (self.a, self.b);
        let mut nodes: Vec<Slot> = Vec::new();
        let mut node_slot_old = vec![0u32; a.nodes.len()];
        let mut node_slot_new = vec![u32::MAX; b.nodes.len()];
        let tool_group = |g: &Graph, id: NodeId, slots: &[u32]| {
            g.tool_of_node(id)
                .map(|x| t.slots[slots[x as usize] as usize].group)
        };
        for (i, (name, node)) in a.nodes.iter().enumerate() {
            let j = b.nodes.get_index_of(self.rename(name));
            let group = match tool_group(a, i as NodeId, &t.of_old)
                .or_else(|| j.and_then(|j| tool_group(b, j as NodeId, &t.of_new)))
            {
                Some(g) => g,
                None => match j {
                    Some(j) if same_node(node, &b.nodes[j]) => None,
                    _ => Some(push_group(
                        groups,
                        GroupKind::Node,
                        name.clone(),
                        if j.is_some() {
                            "node changed".into()
                        } else {
                            "node removed".into()
                        },
                        usize::MAX,
                        None,
                    )),
                },
            };
            node_slot_old[i] = nodes.len() as u32;
            if let Some(j) = j {
                node_slot_new[j] = nodes.len() as u32;
            }
            nodes.push(Slot {
                old: Some(i as u32),
                new: j.map(|j| j as u32),
                group,
            });
        }
        for (j, (name, _)) in b.nodes.iter().enumerate() {
            if node_slot_new[j] != u32::MAX {
                continue;
            }
            let group = match tool_group(b, j as NodeId, &t.of_new) {
                Some(g) => g,
                None => Some(push_group(
                    groups,
                    GroupKind::Node,
                    name.clone(),
                    "node added".into(),
                    usize::MAX,
                    None,
                )),
            };
            node_slot_new[j] = nodes.len() as u32;
            nodes.push(Slot {
                old: None,
                new: Some(j as u32),
                group,
            });
        }
        Slots {
            slots: nodes,
            of_old: node_slot_old,
            of_new: node_slot_new,
        }
    }

    /// Edges paired by (renamed) endpoints; an unpaired edge of a tool that is added,
    /// removed or renamed belongs to that tool's group. Also the edge groups of each tool.
    fn edge_slots(
        &self,
        t: &Slots,
        n: &Slots,
        groups: &mut Vec<Group>,
    ) -> (Vec<EdgeSlot>, Vec<Vec<u32>>) {
        let (a, b, d) = (self.a, self.b, self.d);
        let mut edges: Vec<EdgeSlot> = Vec::new();
        let mut edge_slot_new = vec![u32::MAX; b.edges.len()];
        let mut in_b: FxHashMap<(&str, &str), u32> = FxHashMap::default();
        for (j, e) in b.edges.iter().enumerate() {
            in_b.insert((b.node_name(e.source), b.node_name(e.target)), j as u32);
        }
        let mut edge_groups_of_tool: Vec<Vec<u32>> = vec![Vec::new(); t.slots.len()];
        let tool_slot_of_node =
            |g: &Graph, n: NodeId, slots: &[u32]| g.tool_of_node(n).map(|x| slots[x as usize]);
        let moving_of: Vec<Option<u32>> = t
            .slots
            .iter()
            .map(|t| {
                t.group.filter(|&g| {
                    matches!(
                        groups[g as usize].kind,
                        GroupKind::Added | GroupKind::Removed | GroupKind::Renamed
                    )
                })
            })
            .collect();
        let moving = |slot: Option<u32>| slot.and_then(|s| moving_of[s as usize]);
        let changed_edges: FxHashMap<u32, usize> = d
            .edges
            .changed
            .iter()
            .enumerate()
            .filter(|(_, c)| c.engine_visible)
            .map(|(i, c)| (c.old_id, i))
            .collect();
        for (i, e) in a.edges.iter().enumerate() {
            let (s, tg) = (
                self.rename(a.node_name(e.source)),
                self.rename(a.node_name(e.target)),
            );
            let j = in_b.get(&(s, tg)).copied();
            let ends_tools = [
                tool_slot_of_node(a, e.source, &t.of_old),
                tool_slot_of_node(a, e.target, &t.of_old),
            ];
            let group = match j {
                Some(_) => changed_edges.get(&(i as u32)).map(|&ci| {
                    let c = &d.edges.changed[ci];
                    let what: Vec<String> = c
                        .fields
                        .iter()
                        .filter(|f| matches!(f.0, "relation" | "confidence"))
                        .map(|(k, x, y)| format!("{k} {x} -> {y}"))
                        .collect();
                    push_edge_group(
                        groups,
                        &mut edge_groups_of_tool,
                        ends_tools,
                        s,
                        tg,
                        what.join(", "),
                    )
                }),
                None => match moving(ends_tools[0]).or(moving(ends_tools[1])) {
                    Some(g) => Some(g),
                    None => Some(push_edge_group(
                        groups,
                        &mut edge_groups_of_tool,
                        ends_tools,
                        s,
                        tg,
                        format!("{} edge removed", e.attrs.relation_str().unwrap_or("?")),
                    )),
                },
            };
            if let Some(j) = j {
                edge_slot_new[j as usize] = edges.len() as u32;
            }
            edges.push(EdgeSlot {
                slot: Slot {
                    old: Some(i as u32),
                    new: j,
                    group,
                },
                ends: (n.of_old[e.source as usize], n.of_old[e.target as usize]),
            });
        }
        for (j, e) in b.edges.iter().enumerate() {
            if edge_slot_new[j] != u32::MAX {
                continue;
            }
            let ends_tools = [
                tool_slot_of_node(b, e.source, &t.of_new),
                tool_slot_of_node(b, e.target, &t.of_new),
            ];
            let group = match moving(ends_tools[0]).or(moving(ends_tools[1])) {
                Some(g) => g,
                None => push_edge_group(
                    groups,
                    &mut edge_groups_of_tool,
                    ends_tools,
                    b.node_name(e.source),
                    b.node_name(e.target),
                    format!("{} edge added", e.attrs.relation_str().unwrap_or("?")),
                ),
            };
            edge_slot_new[j] = edges.len() as u32;
            edges.push(EdgeSlot {
                slot: Slot {
                    old: None,
                    new: Some(j as u32),
                    group: Some(group),
                },
                ends: (n.of_new[e.source as usize], n.of_new[e.target as usize]),
            });
        }
        (edges, edge_groups_of_tool)
    }
}

/// The merged orders of the slots, and the order group when the files disagree.
struct Orders {
    tool_order: [Vec<u32>; 2],
    node_order: [Vec<u32>; 2],
    edge_order: [Vec<u32>; 2],
    order: Option<u32>,
}

/// The slots in each file's order, merged: `[0]` keeps the old file's order, `[1]` the
/// new one's (the same list when the files list common items alike).
fn orders(tools: &[Slot], nodes: &[Slot], edges: &[EdgeSlot], groups: &mut Vec<Group>) -> Orders {
    let seq = |slots: &dyn Fn(usize) -> (Option<u32>, Option<u32>), n: usize| {
        let mut old: Vec<(u32, u32)> = Vec::new();
        let mut new: Vec<(u32, u32)> = Vec::new();
        for s in 0..n {
            let (o, v) = slots(s);
            if let Some(o) = o {
                old.push((o, s as u32));
            }
            if let Some(v) = v {
                new.push((v, s as u32));
            }
        }
        old.sort_unstable();
        new.sort_unstable();
        (
            old.into_iter().map(|p| p.1).collect::<Vec<u32>>(),
            new.into_iter().map(|p| p.1).collect::<Vec<u32>>(),
        )
    };
    let (to, tn) = seq(&|s| (tools[s].old, tools[s].new), tools.len());
    let (no, nn) = seq(&|s| (nodes[s].old, nodes[s].new), nodes.len());
    let (eo, en) = seq(&|s| (edges[s].slot.old, edges[s].slot.new), edges.len());
    let agree = |o: &[u32], n: &[u32], both: &dyn Fn(u32) -> bool| {
        let a: Vec<u32> = o.iter().copied().filter(|&s| both(s)).collect();
        let b: Vec<u32> = n.iter().copied().filter(|&s| both(s)).collect();
        a == b
    };
    let same_order = agree(&to, &tn, &|s| {
        tools[s as usize].old.is_some() && tools[s as usize].new.is_some()
    }) && agree(&no, &nn, &|s| {
        nodes[s as usize].old.is_some() && nodes[s as usize].new.is_some()
    }) && agree(&eo, &en, &|s| {
        edges[s as usize].slot.old.is_some() && edges[s as usize].slot.new.is_some()
    });
    let order = (!same_order).then(|| {
        push_group(
            groups,
            GroupKind::Order,
            "order".into(),
            "the files list common tools, nodes or edges in another order".into(),
            usize::MAX,
            None,
        )
    });
    let both_orders = |o: &[u32], n: &[u32]| -> [Vec<u32>; 2] {
        if same_order {
            let m = merge(n, o);
            [m.clone(), m]
        } else {
            [merge(o, n), merge(n, o)]
        }
    };
    Orders {
        tool_order: both_orders(&to, &tn),
        node_order: both_orders(&no, &nn),
        edge_order: both_orders(&eo, &en),
        order,
    }
}

fn same_node(a: &Node, b: &Node) -> bool {
    a.node_type == b.node_type && a.community == b.community && a.description == b.description
}

fn push_group(
    groups: &mut Vec<Group>,
    kind: GroupKind,
    name: String,
    what: String,
    tool_slot: usize,
    tokens: Option<TokenDelta>,
) -> u32 {
    groups.push(Group {
        kind,
        name,
        what,
        tool_slot: (tool_slot != usize::MAX).then_some(tool_slot as u32),
        tokens,
    });
    (groups.len() - 1) as u32
}

fn push_edge_group(
    groups: &mut Vec<Group>,
    of_tool: &mut [Vec<u32>],
    ends: [Option<u32>; 2],
    s: &str,
    t: &str,
    what: String,
) -> u32 {
    let g = push_group(
        groups,
        GroupKind::Edge,
        format!("{s} -> {t}"),
        what,
        usize::MAX,
        None,
    );
    for slot in ends.into_iter().flatten() {
        of_tool[slot as usize].push(g);
    }
    g
}

/// What a document group changed, in words.
fn describe_change(c: &crate::lab::graphdiff::ToolChange) -> String {
    let mut parts: Vec<String> = Vec::new();
    if c.renamed_from.is_some() {
        parts.push("renamed".into());
    }
    if c.description.is_some() {
        parts.push("description rewritten".into());
    }
    for f in ["parameters", "tags", "facts", "contract", "node"] {
        if c.fields.contains(&f) {
            parts.push(format!("{f} changed"));
        }
    }
    if parts.is_empty() {
        parts.push(format!("{} changed", c.engine_fields.join(", ")));
    }
    parts.join(", ")
}

/// A supersequence of `base` and `other` (slot lists) that keeps `base`'s order: the
/// items only `other` has are placed after the base item they follow in `other`.
fn merge(base: &[u32], other: &[u32]) -> Vec<u32> {
    let in_base: rustc_hash::FxHashSet<u32> = base.iter().copied().collect();
    // other-only items, grouped by the base item they follow (u32::MAX: before any)
    let mut after: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
    let mut anchor = u32::MAX;
    for &s in other {
        if in_base.contains(&s) {
            anchor = s;
        } else {
            after.entry(anchor).or_default().push(s);
        }
    }
    let mut out = Vec::with_capacity(base.len() + other.len());
    if let Some(first) = after.remove(&u32::MAX) {
        out.extend(first);
    }
    for &s in base {
        out.push(s);
        if let Some(more) = after.remove(&s) {
            out.extend(more);
        }
    }
    out
}
