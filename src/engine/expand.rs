//! Confidence-weighted BFS from the seeds (spec §3.8): first visit wins, edges are walked
//! in both directions (out-edges, then in-edges, each in file order), category and domain
//! nodes pass through with a zero parent score.

use super::intent::{IntentLabel, confidence_factor, relation_weight};
use super::params::Params;
use crate::model::{EdgeId, Graph, NodeId};

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Origin {
    /// A BM25 (or fallback) seed: raw score and its normalisation by the best seed.
    Seed { raw: f64, max_seed: f64 },
    /// Discovered at `depth` from `from` over `edge`: `((parent * weight) * conf) * decay`.
    Expanded {
        from: NodeId,
        depth: usize,
        edge: EdgeId,
        parent: f64,
        weight: f64,
        conf: f64,
        decay: f64,
    },
}

#[derive(Debug, Clone, Copy)]
pub struct Scored {
    pub node: NodeId,
    pub score: f64,
    pub origin: Origin,
}

#[derive(Debug, Clone, Default)]
pub struct Expansion {
    /// Scored nodes in insertion order (seeds in seed order, then discovery order).
    pub scored: Vec<Scored>,
    pub visited_edges: usize,
    /// Pass-through nodes (category/domain) that were entered.
    pub pass_through: Vec<NodeId>,
}

pub fn weight_for(params: &Params, label: IntentLabel, relation: Option<&str>) -> f64 {
    if let (Some((rel, w)), Some(r)) = (&params.relation_weight, relation)
        && rel == r
    {
        return *w;
    }
    if let (Some((rel, w)), None) = (&params.relation_weight, relation)
        && rel == "(missing)"
    {
        return *w;
    }
    relation_weight(label, relation)
}

pub fn conf_for(params: &Params, label: Option<&str>) -> f64 {
    if let Some((l, f)) = &params.confidence_factor {
        match label {
            Some(x) if x == l => return *f,
            None if l == "(missing)" => return *f,
            _ => {}
        }
    }
    confidence_factor(label)
}

/// What the BFS did with one edge, for traces.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EdgeOutcome {
    /// The neighbour was scored: `((parent * weight) * conf) * decay`.
    Scored {
        score: f64,
        parent: f64,
        weight: f64,
        conf: f64,
        decay: f64,
    },
    /// The neighbour was already visited (first visit wins).
    AlreadyVisited,
    /// A category/domain node entered as a pass-through.
    PassThrough,
    /// A node without `node_type`: not traversed.
    Ignored,
}

/// Receives the BFS's edge steps. The plain path uses [`NoRecord`], which compiles away.
pub trait Recorder {
    fn edge(&mut self, depth: usize, from: NodeId, to: NodeId, edge: EdgeId, outcome: EdgeOutcome);
}

pub struct NoRecord;

impl Recorder for NoRecord {
    #[inline(always)]
    fn edge(&mut self, _: usize, _: NodeId, _: NodeId, _: EdgeId, _: EdgeOutcome) {}
}

/// Runs the BFS. `seeds` are `(node, raw score)` in seed order; `max_seed` normalises them.
pub fn expand(
    graph: &Graph,
    seeds: &[(NodeId, f64)],
    max_seed: f64,
    label: IntentLabel,
    params: &Params,
) -> Expansion {
    expand_recorded(graph, seeds, max_seed, label, params, &mut NoRecord)
}

/// [`expand`] with every edge step reported to a recorder.
pub fn expand_recorded<R: Recorder>(
    graph: &Graph,
    seeds: &[(NodeId, f64)],
    max_seed: f64,
    label: IntentLabel,
    params: &Params,
    rec: &mut R,
) -> Expansion {
    let mut out = Expansion::default();
    let n = graph.nodes.len();
    // dense per-query state: cheaper than hashing at 50k nodes
    let mut pos: Vec<u32> = vec![u32::MAX; n];
    let mut visited: Vec<bool> = vec![false; n];
    let mut frontier: Vec<NodeId> = Vec::new();
    for &(node, raw) in seeds {
        if pos[node as usize] != u32::MAX {
            continue;
        }
        pos[node as usize] = out.scored.len() as u32;
        out.scored.push(Scored {
            node,
            score: raw / max_seed,
            origin: Origin::Seed { raw, max_seed },
        });
        visited[node as usize] = true;
        frontier.push(node);
    }
    let fast = params.relation_weight.is_none() && params.confidence_factor.is_none();
    let col = label.column();
    for d in 1..=params.depth {
        let decay = 1.0 / (0.5 * d as f64 + 1.0);
        let mut next: Vec<NodeId> = Vec::new();
        for &node in &frontier {
            let parent = match pos[node as usize] {
                u32::MAX => 0.0,
                i => out.scored[i as usize].score,
            };
            for e in graph.out_edges(node).chain(graph.in_edges(node)) {
                let key = graph.edge_key(e);
                let nb = if key.source == node {
                    key.target
                } else {
                    key.source
                };
                if visited[nb as usize] {
                    rec.edge(d, node, nb, e, EdgeOutcome::AlreadyVisited);
                    continue;
                }
                let n = graph.node(nb);
                if n.is_tool() {
                    let (w, c) = if fast {
                        (
                            super::intent::RELATION_ROWS[key.relation_row as usize][col],
                            super::intent::CONFIDENCE_FACTORS[key.confidence as usize],
                        )
                    } else {
                        let edge = graph.edge(e);
                        (
                            weight_for(params, label, edge.attrs.relation_str()),
                            conf_for(params, edge.attrs.confidence_str()),
                        )
                    };
                    let s = ((parent * w) * c) * decay;
                    let origin = Origin::Expanded {
                        from: node,
                        depth: d,
                        edge: e,
                        parent,
                        weight: w,
                        conf: c,
                        decay,
                    };
                    match pos[nb as usize] {
                        u32::MAX => {
                            pos[nb as usize] = out.scored.len() as u32;
                            out.scored.push(Scored {
                                node: nb,
                                score: s,
                                origin,
                            });
                        }
                        // scored nodes are visited, so this only keeps the rule explicit
                        i => {
                            let sc = &mut out.scored[i as usize];
                            if s >= sc.score {
                                sc.score = s;
                                sc.origin = origin;
                            }
                        }
                    }
                    out.visited_edges += 1;
                    next.push(nb);
                    visited[nb as usize] = true;
                    rec.edge(
                        d,
                        node,
                        nb,
                        e,
                        EdgeOutcome::Scored {
                            score: s,
                            parent,
                            weight: w,
                            conf: c,
                            decay,
                        },
                    );
                } else if n.is_pass_through() {
                    rec.edge(d, node, nb, e, EdgeOutcome::PassThrough);
                    next.push(nb);
                    visited[nb as usize] = true;
                    out.pass_through.push(nb);
                } else {
                    rec.edge(d, node, nb, e, EdgeOutcome::Ignored);
                }
            }
        }
        frontier = next;
        if frontier.is_empty() {
            break;
        }
    }
    out
}
