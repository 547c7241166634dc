//! The deficit decomposition of a triage ("why not X"): the expected tool against the
//! winner and against the top-k cutoff, term by term (BM25 parts), multiplier by multiplier,
//! channel by channel, and the shortest expansion path from a seed to X with the score it
//! would carry at each hop. Every number is read from the engine's stages; every score is
//! also given as a checked explanation tree.

use super::super::Engine;
use super::super::expand::{Origin, conf_for, weight_for};
use super::super::explain::{self, Explanation, Status};
use super::super::knobs::{DEPTH_MAX, Knobs};
use super::super::query::{Bm25Parts, TokenSource, finish_score, full_score};
use super::super::retrieve::{FullRun, Ranked, RowOrigin, Stages, seed_stages};
use super::{AboveDiff, Channel, FlagDiff};
use crate::model::{NodeId, ToolId};

/// The status and failures of every tree a triage reports.
#[derive(Debug, Clone)]
pub struct Trees {
    pub status: Status,
    pub failures: Vec<String>,
}

impl Default for Trees {
    fn default() -> Self {
        Trees {
            status: Status::Resolved,
            failures: Vec::new(),
        }
    }
}

impl Trees {
    pub fn add(&mut self, e: &Explanation) {
        let (st, bad) = e.check();
        self.status = self.status.max(st);
        self.failures.extend(bad);
    }
}

/// One query term's BM25 part for one document.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TermHit {
    pub tf: u32,
    pub len_norm: f64,
    pub part: f64,
}

/// One query token (in plan order) and what each side received for it.
#[derive(Debug, Clone, PartialEq)]
pub struct TermRow {
    pub text: String,
    /// Where the token came from (query, a rule, a synonym …).
    pub source: String,
    /// None when the term occurs in no document.
    pub idf: Option<f64>,
    pub df: usize,
    pub x: Option<TermHit>,
    pub other: Option<TermHit>,
}

/// One side of a comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Side {
    pub name: String,
    pub tool: ToolId,
    pub rank: Option<usize>,
    pub full_rank: Option<usize>,
    /// Final (unrounded) score; None when the tool has no score.
    pub score: Option<f64>,
    /// `seed`, `expanded`, `learning_only` or `none`.
    pub origin: &'static str,
    /// BM25 score with every multiplier (None: no term overlap).
    pub bm25: Option<f64>,
    pub parts: Option<Bm25Parts>,
    /// The seed score it has (seeds) or would have (`bm25 / best seed`).
    pub seed_normalized: Option<f64>,
    pub history_hits: usize,
    pub learning: f64,
    pub bm25_tree: Option<Explanation>,
    pub score_tree: Option<Explanation>,
}

/// Which tool X is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Against {
    /// The first row.
    Winner,
    /// The last row inside `top_k` (when X is outside it).
    Cutoff,
}

impl Against {
    pub fn as_str(self) -> &'static str {
        match self {
            Against::Winner => "winner",
            Against::Cutoff => "cutoff",
        }
    }
}

/// X against one other tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Deficit {
    pub against: Against,
    pub x: Side,
    pub other: Side,
    pub terms: Vec<TermRow>,
    /// Distinct terms the other tool matched and X did not.
    pub other_only_terms: Vec<String>,
    /// Distinct query terms X lacks, with their idf (None: in no document).
    pub x_missing_terms: Vec<(String, Option<f64>)>,
    /// Multipliers that differ: (label, x, other).
    pub multipliers: Vec<(&'static str, f64, f64)>,
    /// `other.score - x.score` when both are scored.
    pub score_gap: Option<f64>,
}

/// One hop of an expansion path.
#[derive(Debug, Clone, PartialEq)]
pub struct Hop {
    pub from: String,
    pub to: String,
    pub depth: usize,
    pub relation: String,
    pub confidence: String,
    pub parent: f64,
    pub weight: f64,
    pub conf: f64,
    pub decay: f64,
    /// `((parent * weight) * conf) * decay`: the score `to` carries at this hop.
    pub score: f64,
}

/// Why X did not enter the expansion (or entered with a low score).
#[derive(Debug, Clone, PartialEq)]
pub enum PathReason {
    /// Its nearest seed is `needed` hops away and the expansion stops at `limit`.
    Depth { needed: usize, limit: usize },
    /// No expansion path from any seed reaches it (at any depth).
    Unreachable,
    /// The path runs through a category/domain node, whose neighbours get a parent score
    /// of 0.
    PassThrough { node: String },
    /// First visit wins: a neighbour at the same level would have given a higher score.
    FirstVisit {
        via: String,
        score: f64,
        actual: f64,
    },
    /// The product of the path's depth decays.
    Decay { product: f64 },
    /// The token budget does not bound the expansion (it truncates `subgraph_text` only);
    /// `cut` says whether X's NODE line was cut from `subgraph_text`.
    Budget { cut: bool },
}

/// The shortest expansion path from a seed to X (first visit, as the engine's BFS walks).
#[derive(Debug, Clone, PartialEq)]
pub struct PathEvidence {
    pub seed: Option<String>,
    pub hops: Vec<Hop>,
    pub depth_limit: usize,
    /// X was scored by the actual expansion.
    pub entered: bool,
    pub reasons: Vec<PathReason>,
    /// X's BFS score explained on an expansion without depth limit (checked).
    pub tree: Explanation,
}

impl PathEvidence {
    /// Hops from the seed when the path reaches one.
    pub fn hops_needed(&self) -> Option<usize> {
        self.seed.as_ref().map(|_| self.hops.len())
    }
}

/// X's position among the BM25 candidates by final BM25 score (ties in tool order) and
/// the number of candidates.
pub fn bm25_rank(engine: &Engine, st: &Stages, tool: ToolId) -> (Option<usize>, usize) {
    if st.used_fallback {
        return (None, 0);
    }
    let Ok(i) = st.hits.binary_search_by_key(&tool, |h| h.0) else {
        return (None, st.hits.len());
    };
    let g = &engine.graph;
    let mine = full_score(g, &st.plan, tool, st.hits[i].1);
    let ahead = st
        .hits
        .iter()
        .filter(|&&(d, p)| {
            let s = full_score(g, &st.plan, d, p);
            s > mine || (s == mine && d < tool)
        })
        .count();
    (Some(ahead + 1), st.hits.len())
}

fn origin_kind(o: &RowOrigin) -> &'static str {
    match o {
        RowOrigin::Seed { .. } => "seed",
        RowOrigin::Expanded { .. } => "expanded",
        RowOrigin::LearningOnly => "learning_only",
    }
}

/// Channel differences of every row above X (`rank` is X's 1-based row position).
pub fn above_diffs(run: &FullRun, rank: usize) -> Vec<AboveDiff> {
    let rows = &run.retrieval.rows;
    let Some(x) = rows.get(rank - 1) else {
        return Vec::new();
    };
    let flags = |r: &super::super::Row| {
        let s = &r.semantic;
        [
            ("action_match", s.action_match),
            ("resource_match", s.resource_match),
            ("module_match", s.module_match),
            ("shape_match", s.shape_match),
            ("contract_match", s.contract_match),
        ]
    };
    rows[..rank - 1]
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let fx = flags(x);
            let fo = flags(o);
            AboveDiff {
                name: o.name.clone(),
                rank: i + 1,
                score: Channel {
                    other: o.score,
                    x: x.score,
                },
                seed: Channel {
                    other: o.breakdown.seed,
                    x: x.breakdown.seed,
                },
                graph: Channel {
                    other: o.breakdown.graph,
                    x: x.breakdown.graph,
                },
                learning: Channel {
                    other: o.breakdown.learning,
                    x: x.breakdown.learning,
                },
                history_hits: (o.history_hits, x.history_hits),
                flags: fo
                    .iter()
                    .zip(fx.iter())
                    .filter(|(a, b)| a.1 != b.1)
                    .map(|(a, b)| FlagDiff {
                        flag: a.0,
                        other: a.1,
                        x: b.1,
                    })
                    .collect(),
                origin: (origin_kind(&o.origin), origin_kind(&x.origin)),
            }
        })
        .collect()
}

/// The BM25 sum of one document over the plan's tokens (token order, from 0.0, as the
/// BM25 stage accumulates it) and its finished score with the multiplier parts.
fn bm25_of(engine: &Engine, st: &Stages, doc: ToolId) -> Option<(f64, Bm25Parts)> {
    let index = &engine.index;
    let mut sum = 0.0;
    for tok in &st.plan.tokens {
        let Some(term) = tok.term else { continue };
        let tf = index.tf(term, doc);
        if tf > 0 {
            sum += index.term_score(term, tf, doc);
        }
    }
    if sum <= 0.0 {
        return None;
    }
    let mut parts = Bm25Parts {
        sum,
        name_penalty: 1.0,
        order_matched: 0,
        phrase: 1.0,
        route: 1.0,
        korean: 1.0,
    };
    let m = st.plan.tokens.len();
    let total = finish_score(
        &engine.graph,
        index,
        &st.plan,
        doc,
        sum,
        m,
        Some(&mut parts),
    );
    Some((total, parts))
}

fn side(
    engine: &Engine,
    st: Option<&Stages>,
    run: &FullRun,
    tool: ToolId,
    trees: &mut Trees,
) -> Side {
    let g = &engine.graph;
    let pos = run.ranking.iter().position(|r| r.tool == tool);
    let ranked: Option<&Ranked> = pos.map(|i| &run.ranking[i]);
    let rank = pos.filter(|&i| i < run.retrieval.rows.len()).map(|i| i + 1);
    let bm = st.and_then(|s| {
        (!s.used_fallback)
            .then(|| bm25_of(engine, s, tool))
            .flatten()
    });
    let bm25_tree = st.and_then(|s| explain::explain_bm25_of(engine, s, tool));
    let score_tree = match (st, ranked) {
        (Some(s), Some(r)) => Some(explain::explain_ranked(engine, s, r)),
        _ => None,
    };
    for t in bm25_tree.iter().chain(score_tree.iter()) {
        trees.add(t);
    }
    let seed_normalized = match (ranked.map(|r| &r.origin), st, bm) {
        (Some(RowOrigin::Seed { normalized, .. }), _, _) => Some(*normalized),
        (_, Some(s), Some((b, _))) => Some(b / s.max_seed),
        _ => None,
    };
    Side {
        name: g.tool_key(tool).to_string(),
        tool,
        rank,
        full_rank: pos.map(|i| i + 1),
        score: ranked.map(|r| r.score),
        origin: ranked.map(|r| origin_kind(&r.origin)).unwrap_or("none"),
        bm25: bm.map(|b| b.0),
        parts: bm.map(|b| b.1),
        seed_normalized,
        history_hits: ranked.map(|r| r.history_hits).unwrap_or(0),
        learning: ranked
            .and_then(|r| r.learning.as_ref())
            .map(|l| l.score)
            .unwrap_or(0.0),
        bm25_tree,
        score_tree,
    }
}

fn source_text(s: &TokenSource) -> String {
    match s {
        TokenSource::Query => "query".into(),
        TokenSource::Rule(r) => format!("rule:{r}"),
        TokenSource::Synonym(t) => format!("synonym:{t}"),
        TokenSource::KoreanExact(t) => format!("korean:{t}"),
        TokenSource::KoreanSubstring(t) => format!("korean_substring:{t}"),
    }
}

fn hit(engine: &Engine, term: u32, doc: ToolId) -> Option<TermHit> {
    let index = &engine.index;
    let tf = index.tf(term, doc);
    (tf > 0).then(|| TermHit {
        tf,
        len_norm: index.len_part(doc),
        part: index.term_score(term, tf, doc),
    })
}

/// The query tokens X lacks (distinct, plan order) with their idf.
pub fn missing_terms(engine: &Engine, st: &Stages, tool: ToolId) -> Vec<(String, Option<f64>)> {
    let mut out: Vec<(String, Option<f64>)> = Vec::new();
    for tok in &st.plan.tokens {
        let lacks = tok.term.is_none_or(|t| engine.index.tf(t, tool) == 0);
        if lacks && !out.iter().any(|(t, _)| *t == tok.text) {
            out.push((tok.text.clone(), tok.term.map(|t| engine.index.idf(t))));
        }
    }
    out
}

fn compare(
    engine: &Engine,
    st: Option<&Stages>,
    against: Against,
    x: Side,
    other: Side,
) -> Deficit {
    let mut terms = Vec::new();
    let mut other_only: Vec<String> = Vec::new();
    let mut missing = Vec::new();
    if let Some(st) = st {
        for tok in &st.plan.tokens {
            let (xh, oh) = match tok.term {
                Some(t) => (hit(engine, t, x.tool), hit(engine, t, other.tool)),
                None => (None, None),
            };
            if xh.is_none() && oh.is_some() && !other_only.contains(&tok.text) {
                other_only.push(tok.text.clone());
            }
            terms.push(TermRow {
                text: tok.text.clone(),
                source: source_text(&tok.source),
                idf: tok.term.map(|t| engine.index.idf(t)),
                df: tok.term.map(|t| engine.index.df(t)).unwrap_or(0),
                x: xh,
                other: oh,
            });
        }
        missing = missing_terms(engine, st, x.tool);
    }
    let mut multipliers = Vec::new();
    if let (Some(a), Some(b), Some(st)) = (x.parts, other.parts, st) {
        let m = st.plan.tokens.len().max(1) as f64;
        let order = |p: &Bm25Parts| 1.0 + (p.order_matched as f64 / m) * 0.5;
        for (label, va, vb) in [
            ("long-name penalty", a.name_penalty, b.name_penalty),
            ("order boost", order(&a), order(&b)),
            ("domain phrase multiplier", a.phrase, b.phrase),
            ("route-planning multiplier", a.route, b.route),
            ("Korean business-phrase multiplier", a.korean, b.korean),
        ] {
            if va != vb {
                multipliers.push((label, va, vb));
            }
        }
    }
    let score_gap = match (x.score, other.score) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    Deficit {
        against,
        x,
        other,
        terms,
        other_only_terms: other_only,
        x_missing_terms: missing,
        multipliers,
        score_gap,
    }
}

/// X against the winner (when X is not first) and against the last row inside `top_k`
/// (when X is outside it and that row is not the winner).
pub fn deficits(
    engine: &Engine,
    st: Option<&Stages>,
    run: &FullRun,
    tool: ToolId,
    trees: &mut Trees,
) -> Vec<Deficit> {
    let rows = &run.retrieval.rows;
    let mut out = Vec::new();
    let Some(winner) = rows.first() else {
        return out;
    };
    let x_in = rows.iter().any(|r| r.tool == tool);
    if winner.tool != tool {
        let x = side(engine, st, run, tool, trees);
        let o = side(engine, st, run, winner.tool, trees);
        out.push(compare(engine, st, Against::Winner, x, o));
    }
    if let Some(last) = rows.last()
        && !x_in
        && last.tool != winner.tool
    {
        let x = side(engine, st, run, tool, trees);
        let o = side(engine, st, run, last.tool, trees);
        out.push(compare(engine, st, Against::Cutoff, x, o));
    }
    out
}

/// The hops from the nearest seed to `node` in an expansion (first visit), and the seed.
fn chain(engine: &Engine, st: &Stages, node: NodeId) -> (Vec<Hop>, Option<String>, Vec<String>) {
    let g = &engine.graph;
    let mut hops = Vec::new();
    let mut pass = Vec::new();
    let mut cur = node;
    for _ in 0..=DEPTH_MAX {
        let Some(s) = st.expansion.scored.iter().find(|s| s.node == cur) else {
            pass.push(g.node_name(cur).to_string());
            hops.reverse();
            return (hops, None, pass);
        };
        match s.origin {
            Origin::Seed { .. } => {
                hops.reverse();
                return (hops, Some(g.node_name(cur).to_string()), pass);
            }
            Origin::Expanded {
                from,
                depth,
                edge,
                parent,
                weight,
                conf,
                decay,
            } => {
                let e = g.edge(edge);
                hops.push(Hop {
                    from: g.node_name(from).to_string(),
                    to: g.node_name(cur).to_string(),
                    depth,
                    relation: e.attrs.relation_str().unwrap_or("(none)").to_string(),
                    confidence: e.attrs.confidence_str().unwrap_or("(none)").to_string(),
                    parent,
                    weight,
                    conf,
                    decay,
                    score: s.score,
                });
                cur = from;
            }
        }
    }
    hops.reverse();
    (hops, None, pass)
}

/// First visit wins: the best score a neighbour at the parent's level would have given X.
fn first_visit(engine: &Engine, st: &Stages, knobs: &Knobs, node: NodeId) -> Option<PathReason> {
    let g = &engine.graph;
    let me = st.expansion.scored.iter().find(|s| s.node == node)?;
    let Origin::Expanded { depth, decay, .. } = me.origin else {
        return None;
    };
    let level = |s: &super::super::expand::Scored| match s.origin {
        Origin::Seed { .. } => 0,
        Origin::Expanded { depth, .. } => depth,
    };
    let mut best: Option<(String, f64)> = None;
    for e in g.out_edges(node).chain(g.in_edges(node)) {
        let k = g.edge_key(e);
        let nb = if k.source == node { k.target } else { k.source };
        let Some(q) = st.expansion.scored.iter().find(|s| s.node == nb) else {
            continue;
        };
        if level(q) + 1 != depth {
            continue;
        }
        let edge = g.edge(e);
        let w = weight_for(&knobs.params, st.label, edge.attrs.relation_str());
        let c = conf_for(&knobs.params, edge.attrs.confidence_str());
        let s = ((q.score * w) * c) * decay;
        if s > me.score && best.as_ref().is_none_or(|b| s > b.1) {
            best = Some((g.node_name(nb).to_string(), s));
        }
    }
    best.map(|(via, score)| PathReason::FirstVisit {
        via,
        score,
        actual: me.score,
    })
}

/// X's expansion path evidence (None when X is a seed, has no node, or nothing ran).
pub fn path_evidence(
    engine: &Engine,
    query: &str,
    knobs: &Knobs,
    st: Option<&Stages>,
    run: &FullRun,
    tool: ToolId,
) -> Option<PathEvidence> {
    let st = st?;
    let node = engine.graph.node_of_tool(tool)?;
    if st.seeds.iter().any(|s| s.0 == tool) {
        return None;
    }
    let entered = st.expansion.scored.iter().any(|s| s.node == node);
    let mut deep = knobs.params.clone();
    deep.depth = DEPTH_MAX as usize;
    let deep_st = seed_stages(engine, query, &deep)?;
    let reached = deep_st.expansion.scored.iter().any(|s| s.node == node);
    let (hops, seed, pass) = if reached {
        chain(engine, &deep_st, node)
    } else {
        (Vec::new(), None, Vec::new())
    };
    let mut reasons = Vec::new();
    if !reached {
        reasons.push(PathReason::Unreachable);
    } else if !entered {
        reasons.push(PathReason::Depth {
            needed: hops.last().map(|h| h.depth).unwrap_or(0),
            limit: knobs.params.depth,
        });
    } else if let Some(r) = first_visit(engine, st, knobs, node) {
        reasons.push(r);
    }
    for p in pass {
        reasons.push(PathReason::PassThrough { node: p });
    }
    if !hops.is_empty() {
        reasons.push(PathReason::Decay {
            product: hops.iter().fold(1.0, |a, h| a * h.decay),
        });
    }
    let name = engine.graph.tool_key(tool);
    let in_rows = run.retrieval.rows.iter().any(|r| r.tool == tool);
    reasons.push(PathReason::Budget {
        cut: in_rows && !node_line_in(&run.retrieval.subgraph_text, name),
    });
    let tree = if reached {
        explain::explain_node(engine, &deep_st, node)
    } else {
        Explanation::leaf(format!("{name}: no expansion path"), 0.0)
            .with_detail("no seed reaches it over the graph's edges at any depth")
    };
    Some(PathEvidence {
        seed,
        hops,
        depth_limit: knobs.params.depth,
        entered,
        reasons,
        tree,
    })
}

/// Whether `subgraph_text` has the NODE line of `name`.
fn node_line_in(text: &str, name: &str) -> bool {
    let head = format!("NODE {name}");
    text.lines().any(|l| {
        l == head
            || l.strip_prefix(head.as_str())
                .is_some_and(|r| r.starts_with(" ["))
    })
}
