//! `retrieve_graphify` (spec §3): BM25 seeds → intent → confidence-weighted BFS →
//! history demotion → promoted-learning boost → stable ranking → subgraph text → evidence.

use super::Engine;
use super::expand::{self, Expansion, Origin};
use super::intent::{self, Intent, IntentLabel};
use super::learning::{self, LearningSignal};
use super::params::Params;
use super::query::{self, QueryPlan};
use super::semantic::{self, QueryEvidence, SemanticEvidence};
use super::subgraph;
use crate::model::{EdgeId, NodeId, ToolId};
use crate::pytext::round;

/// Why a row is in the list.
#[derive(Debug, Clone, PartialEq)]
pub enum RowOrigin {
    /// A seed: its BM25 rank (1-based), raw score and normalised seed score.
    Seed {
        rank: usize,
        raw: f64,
        normalized: f64,
    },
    /// Reached by the BFS from `from` (a tool, or a category/domain node).
    Expanded {
        from: NodeId,
        depth: usize,
        edge: EdgeId,
        parent: f64,
        weight: f64,
        conf: f64,
        decay: f64,
    },
    /// Only a promoted learning signal put it here.
    LearningOnly,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ScoreBreakdown {
    pub seed: f64,
    pub graph: f64,
    pub learning: f64,
    pub history_demoted: bool,
    pub graph_expansion: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub tool: ToolId,
    pub name: String,
    /// Final score before rounding.
    pub score: f64,
    /// Score before history and learning (seed part or BFS score).
    pub base: f64,
    /// How many history entries demoted it.
    pub history_hits: usize,
    pub origin: RowOrigin,
    pub breakdown: ScoreBreakdown,
    pub semantic: SemanticEvidence,
    pub learning: Option<LearningSignal>,
}

impl Row {
    /// `expanded_from` as the reference reports it.
    pub fn expanded_from<'g>(&self, engine: &'g Engine) -> Option<&'g str> {
        match self.origin {
            RowOrigin::Expanded { from, .. } => Some(engine.graph.node_name(from)),
            _ => None,
        }
    }

    pub fn edge(&self) -> Option<EdgeId> {
        match self.origin {
            RowOrigin::Expanded { edge, .. } => Some(edge),
            _ => None,
        }
    }

    pub fn rounded_score(&self) -> f64 {
        round(self.score, 4)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    pub seeds: Vec<String>,
    pub visited_nodes: usize,
    pub visited_edges: usize,
    pub token_budget_used: usize,
    pub learning_applied: bool,
}

/// The complete result of one retrieval: what `--json`, the TUI and MCP all read.
#[derive(Debug, Clone, PartialEq)]
pub struct Retrieval {
    pub query: String,
    pub params: Params,
    pub rows: Vec<Row>,
    pub subgraph_text: String,
    pub intent: Intent,
    pub intent_label: IntentLabel,
    pub stats: Stats,
    /// Whether the BM25 stage found nothing and the substring fallback chose the seeds.
    pub used_fallback: bool,
    /// The promoted-learning signals that applied to this query.
    pub signals: Vec<LearningSignal>,
    /// True for the early-exit response (no query, no tools or no seed).
    pub empty: bool,
}

impl Retrieval {
    /// The early-exit response (no query, no tools or no seed).
    pub fn empty(query: &str, params: &Params) -> Retrieval {
        Retrieval {
            query: query.to_string(),
            params: params.clone(),
            rows: Vec::new(),
            subgraph_text: String::new(),
            intent: Intent::neutral(),
            intent_label: IntentLabel::Neutral,
            stats: Stats {
                seeds: Vec::new(),
                visited_nodes: 0,
                visited_edges: 0,
                token_budget_used: 0,
                learning_applied: false,
            },
            used_fallback: false,
            signals: Vec::new(),
            empty: true,
        }
    }

    pub fn row(&self, name: &str) -> Option<&Row> {
        self.rows.iter().find(|r| r.name == name)
    }
}

/// Intermediate state shared by retrieval and its explanations.
pub struct Stages {
    pub query: String,
    pub plan: QueryPlan,
    /// BM25 candidates with partial scores (no phrase multipliers yet), tool order.
    pub hits: Vec<(ToolId, f64)>,
    pub seeds: Vec<(ToolId, f64)>,
    pub used_fallback: bool,
    pub intent: Intent,
    pub label: IntentLabel,
    pub expansion: Expansion,
    pub max_seed: f64,
}

pub fn seed_stages(engine: &Engine, query: &str, params: &Params) -> Option<Stages> {
    seed_stages_recorded(engine, query, params, &mut expand::NoRecord)
}

/// [`seed_stages`] with the BFS's edge steps reported to a recorder.
pub fn seed_stages_recorded<R: expand::Recorder>(
    engine: &Engine,
    query: &str,
    params: &Params,
    rec: &mut R,
) -> Option<Stages> {
    if query.is_empty() || engine.graph.tools.is_empty() {
        return None;
    }
    let plan = QueryPlan::new(query, &engine.index, engine.tokenizer.as_ref());
    let mut scratch = Vec::new();
    let hits = query::bm25_candidates(&engine.index, &plan, &mut scratch);
    stages_from_hits(engine, query, params, plan, hits, rec)
}

/// The stages after BM25: seeds (or the substring fallback when `hits` is empty), intent
/// and the expansion, from a query plan and its BM25 candidates. A document probe passes
/// the candidates of a patched index here; everything after BM25 is the same code.
pub fn stages_from_hits<R: expand::Recorder>(
    engine: &Engine,
    query: &str,
    params: &Params,
    plan: QueryPlan,
    hits: Vec<(ToolId, f64)>,
    rec: &mut R,
) -> Option<Stages> {
    let graph = &engine.graph;
    if query.is_empty() || graph.tools.is_empty() {
        return None;
    }
    let (seeds, used_fallback) = if hits.is_empty() {
        (query::fallback_seeds(graph, &engine.index, query), true)
    } else {
        (query::top_seeds_pruned(graph, &plan, &hits), false)
    };
    if seeds.is_empty() {
        return None;
    }
    let intent = intent::classify(query);
    let label = params.intent_override.unwrap_or_else(|| intent.dominant());
    let mut max_seed = seeds.iter().map(|s| s.1).fold(f64::NEG_INFINITY, f64::max);
    if max_seed == 0.0 {
        max_seed = 1.0;
    }
    let seed_nodes: Vec<(NodeId, f64)> = seeds
        .iter()
        .filter_map(|&(t, s)| graph.node_of_tool(t).map(|n| (n, s)))
        .collect();
    let expansion = expand::expand_recorded(graph, &seed_nodes, max_seed, label, params, rec);
    Some(Stages {
        query: query.to_string(),
        plan,
        hits,
        seeds,
        used_fallback,
        intent,
        label,
        expansion,
        max_seed,
    })
}

/// One scored tool before the top-k cut: what a [`Row`] is built from.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    pub tool: ToolId,
    /// Score before history and learning.
    pub base: f64,
    /// Final score.
    pub score: f64,
    pub history_hits: usize,
    pub origin: RowOrigin,
    pub learning: Option<LearningSignal>,
}

/// Every scored tool in insertion order (seeds, then discovery order, then learning-only
/// targets), with history demotion and learning boosts applied, and the learning signals.
pub fn candidates(
    engine: &Engine,
    st: &Stages,
    params: &Params,
) -> (Vec<Ranked>, Vec<LearningSignal>) {
    let graph = &engine.graph;
    let seed_rank = |node: NodeId| {
        st.seeds
            .iter()
            .position(|&(t, _)| graph.node_of_tool(t) == Some(node))
    };
    let mut cands: Vec<Ranked> = Vec::new();
    for s in &st.expansion.scored {
        let Some(tool) = graph.tool_of_node(s.node) else {
            continue;
        };
        let origin = match s.origin {
            Origin::Seed { raw, max_seed } => RowOrigin::Seed {
                rank: seed_rank(s.node).map(|r| r + 1).unwrap_or(0),
                raw,
                normalized: raw / max_seed,
            },
            Origin::Expanded {
                from,
                depth,
                edge,
                parent,
                weight,
                conf,
                decay,
            } => RowOrigin::Expanded {
                from,
                depth,
                edge,
                parent,
                weight,
                conf,
                decay,
            },
        };
        let name = graph.tool_key(tool);
        let mut score = s.score;
        let mut hits = 0;
        for h in &params.history {
            if h == name {
                score *= 0.6;
                hits += 1;
            }
        }
        cands.push(Ranked {
            tool,
            base: s.score,
            score,
            history_hits: hits,
            origin,
            learning: None,
        });
    }
    // history entries naming scored non-tool nodes do not matter: those are never ranked
    let signals = learning::signal_map(&st.query, params.suggestions());
    for sig in &signals {
        let Some(tool) = graph.tool_id(&sig.target) else {
            continue;
        };
        match cands.iter_mut().find(|c| c.tool == tool) {
            Some(c) => {
                c.score += sig.score;
                c.learning = Some(sig.clone());
            }
            None => cands.push(Ranked {
                tool,
                base: 0.0,
                score: sig.score,
                history_hits: 0,
                origin: RowOrigin::LearningOnly,
                learning: Some(sig.clone()),
            }),
        }
    }
    (cands, signals)
}

/// Indices of `cands` in rank order (score descending, ties in insertion order: a stable
/// sort), cut to the first `top_k` when given. The order is total, so the first `top_k` of
/// the full order are exactly the cut order.
pub fn rank_order(cands: &[Ranked], top_k: Option<usize>) -> Vec<usize> {
    let cmp = |a: &usize, b: &usize| {
        cands[*b]
            .score
            .partial_cmp(&cands[*a].score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.cmp(b))
    };
    let mut order: Vec<usize> = (0..cands.len()).collect();
    if let Some(k) = top_k {
        if k > 0 && k < order.len() {
            order.select_nth_unstable_by(k - 1, cmp);
            order.truncate(k);
        }
        order.sort_by(cmp);
        order.truncate(k);
    } else {
        order.sort_by(cmp);
    }
    order
}

/// A retrieval together with the full, untruncated ranking it was cut from and its stages.
#[derive(Debug, Clone)]
pub struct FullRun {
    pub retrieval: Retrieval,
    /// Every scored tool in rank order (the retrieval's rows are its first `top_k`).
    pub ranking: Vec<Ranked>,
}

impl FullRun {
    /// 1-based position of a tool in the full ranking.
    pub fn full_rank(&self, tool: ToolId) -> Option<usize> {
        self.ranking
            .iter()
            .position(|r| r.tool == tool)
            .map(|i| i + 1)
    }
}

/// [`retrieve`] that also keeps the full ranking (one pass: the rows are its prefix).
pub fn retrieve_full(engine: &Engine, query: &str, params: &Params) -> (FullRun, Option<Stages>) {
    let Some(st) = seed_stages(engine, query, params) else {
        let retrieval = Retrieval::empty(query, params);
        return (
            FullRun {
                retrieval,
                ranking: Vec::new(),
            },
            None,
        );
    };
    let run = full_from_stages(engine, &st, query, params);
    (run, Some(st))
}

/// The full run of a query with no stages (no query, no tools or no seed).
pub fn empty_full(query: &str, params: &Params) -> FullRun {
    FullRun {
        retrieval: Retrieval::empty(query, params),
        ranking: Vec::new(),
    }
}

/// The full run of already computed stages.
pub fn full_from_stages(engine: &Engine, st: &Stages, query: &str, params: &Params) -> FullRun {
    let (cands, signals) = candidates(engine, st, params);
    let order = rank_order(&cands, None);
    let k = params.top_k.min(order.len());
    let retrieval = assemble(engine, st, query, params, &cands, &order[..k], signals);
    let mut slots: Vec<Option<Ranked>> = cands.into_iter().map(Some).collect();
    let ranking = order.iter().filter_map(|&i| slots[i].take()).collect();
    FullRun { retrieval, ranking }
}

pub fn retrieve(engine: &Engine, query: &str, params: &Params) -> Retrieval {
    let Some(st) = seed_stages(engine, query, params) else {
        return Retrieval::empty(query, params);
    };
    let (cands, signals) = candidates(engine, &st, params);
    let order = rank_order(&cands, Some(params.top_k));
    assemble(engine, &st, query, params, &cands, &order, signals)
}

/// The response of a retrieval from its stages and the rank order of its rows.
fn assemble(
    engine: &Engine,
    st: &Stages,
    query: &str,
    params: &Params,
    cands: &[Ranked],
    order: &[usize],
    signals: Vec<LearningSignal>,
) -> Retrieval {
    let graph = &engine.graph;
    let ranked: Vec<(ToolId, f64)> = order
        .iter()
        .map(|&i| (cands[i].tool, cands[i].score))
        .collect();
    let subgraph_text = subgraph::render(graph, &ranked, params.token_budget);
    let qe = QueryEvidence::new(query);
    let history_nonempty = !params.history.is_empty();
    let rows: Vec<Row> = order
        .iter()
        .map(|&i| {
            let c = &cands[i];
            let name = graph.tool_key(c.tool).to_string();
            let learning = c.learning.as_ref().map(|l| l.score).unwrap_or(0.0);
            let is_seed = matches!(c.origin, RowOrigin::Seed { .. });
            let seed = match c.origin {
                RowOrigin::Seed { normalized, .. } => round(normalized, 6),
                _ => 0.0,
            };
            let graph_part = if is_seed {
                0.0
            } else {
                round(f64::max(0.0, c.score - learning), 6)
            };
            let sem = semantic::evidence_with(engine.tool_terms(c.tool), &qe);
            Row {
                tool: c.tool,
                breakdown: ScoreBreakdown {
                    seed,
                    graph: graph_part,
                    learning,
                    history_demoted: history_nonempty && params.history.contains(&name),
                    graph_expansion: !is_seed,
                },
                name,
                score: c.score,
                base: c.base,
                history_hits: c.history_hits,
                origin: c.origin.clone(),
                semantic: sem,
                learning: c.learning.clone(),
            }
        })
        .collect();
    let token_budget_used = crate::pytext::char_len(&subgraph_text) / 3;
    let intent_label = st.intent.dominant();
    let visited_nodes = st.expansion.scored.len();
    Retrieval {
        query: query.to_string(),
        params: params.clone(),
        rows,
        subgraph_text,
        intent_label,
        intent: st.intent.clone(),
        stats: Stats {
            seeds: st
                .seeds
                .iter()
                .map(|&(t, _)| graph.tool_key(t).to_string())
                .collect(),
            visited_nodes,
            visited_edges: st.expansion.visited_edges,
            token_budget_used,
            learning_applied: !signals.is_empty(),
        },
        used_fallback: st.used_fallback,
        signals,
        empty: false,
    }
}
