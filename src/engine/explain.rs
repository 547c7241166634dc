//! Explanations as data: any score the engine reports, decomposed into a tree of typed
//! combinators down to its leaves (per-term BM25 parts, multipliers, the expansion chain,
//! history demotion, learning, selector evidence), and checked — a tree is `resolved` only
//! when every node's combination reproduces its value.
//!
//! Explanations are built on request by re-running the query's stages; the plain query path
//! never builds them.

use super::Engine;
use super::expand::Origin;
use super::index::K1;
use super::metric::MetricId;
use super::params::{Params, SelectParams};
use super::query::{Bm25Parts, finish_score};
use super::retrieve::{Ranked, Retrieval, RowOrigin, Stages, seed_stages};
use super::select::{EvidenceItem, Selection};
use crate::model::{NodeId, ToolId};
use crate::pytext::round;

/// How a node's value is computed from its children.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// A given value (a constant, a count, a stored number).
    Leaf,
    /// Left fold of `+` from 0.0, in child order.
    Sum,
    /// Left fold of `*` from the first child.
    Product,
    /// `max` of the children.
    Max,
    /// `min` of the children.
    Min,
    /// `Σ weight·child`, left fold.
    Weighted,
    /// First child divided by the second.
    Normalize,
    /// One BM25 term: children idf, tf, length part → `idf * (tf * (k1 + 1)) / (tf + length)`.
    Bm25Term,
    /// Python `round(child, digits)`.
    Round(usize),
    /// `child` clamped to `[lo, hi]`.
    Clamp(f64, f64),
}

impl Op {
    pub fn name(&self) -> &'static str {
        match self {
            Op::Leaf => "leaf",
            Op::Sum => "sum",
            Op::Product => "product",
            Op::Max => "max",
            Op::Min => "min",
            Op::Weighted => "weighted",
            Op::Normalize => "normalize",
            Op::Bm25Term => "bm25_term",
            Op::Round(_) => "round",
            Op::Clamp(..) => "clamp",
        }
    }
}

/// Whether a node is fully explained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    Resolved,
    /// A part is missing (e.g. an input the engine does not have).
    Partial,
    /// A part is opaque (its value is known but not how it came about).
    Unresolved,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Resolved => "resolved",
            Status::Partial => "partial",
            Status::Unresolved => "unresolved",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    pub label: String,
    pub value: f64,
    pub op: Op,
    pub children: Vec<Explanation>,
    /// Weight of this node inside a `weighted` parent.
    pub weight: Option<f64>,
    /// The formula or the fact behind a leaf, in words.
    pub detail: Option<String>,
    /// A leaf whose origin is not known (`unresolved`) or a node with a missing part (`partial`).
    pub gap: Option<Status>,
}

pub const TOLERANCE: f64 = 1e-9;

impl Explanation {
    pub fn leaf(label: impl Into<String>, value: f64) -> Self {
        Explanation {
            label: label.into(),
            value,
            op: Op::Leaf,
            children: Vec::new(),
            weight: None,
            detail: None,
            gap: None,
        }
    }

    pub fn node(label: impl Into<String>, value: f64, op: Op, children: Vec<Explanation>) -> Self {
        Explanation {
            label: label.into(),
            value,
            op,
            children,
            weight: None,
            detail: None,
            gap: None,
        }
    }

    /// A node whose value is computed from its children (no stored value to check against).
    pub fn computed(label: impl Into<String>, op: Op, children: Vec<Explanation>) -> Self {
        let mut e = Explanation::node(label, 0.0, op, children);
        e.value = e.combine().unwrap_or(f64::NAN);
        e
    }

    pub fn with_detail(mut self, d: impl Into<String>) -> Self {
        self.detail = Some(d.into());
        self
    }

    pub fn with_weight(mut self, w: f64) -> Self {
        self.weight = Some(w);
        self
    }

    /// Recomputes this node from its children (None for leaves).
    pub fn combine(&self) -> Option<f64> {
        let c: Vec<f64> = self.children.iter().map(|c| c.value).collect();
        Some(match &self.op {
            Op::Leaf => return None,
            Op::Sum => c.iter().fold(0.0, |a, b| a + b),
            Op::Product => c.iter().skip(1).fold(*c.first()?, |a, b| a * b),
            Op::Max => c.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            Op::Min => c.iter().copied().fold(f64::INFINITY, f64::min),
            Op::Weighted => self
                .children
                .iter()
                .fold(0.0, |a, ch| a + ch.weight.unwrap_or(1.0) * ch.value),
            Op::Normalize => *c.first()? / *c.get(1)?,
            Op::Bm25Term => {
                let (idf, tf, len) = (*c.first()?, *c.get(1)?, *c.get(2)?);
                idf * (tf * (K1 + 1.0)) / (tf + len)
            }
            Op::Round(d) => round(*c.first()?, *d),
            Op::Clamp(lo, hi) => c.first()?.clamp(*lo, *hi),
        })
    }

    /// Checks every node: its combination must equal its value within [`TOLERANCE`].
    /// Returns the status and the labels of nodes that do not add up.
    pub fn check(&self) -> (Status, Vec<String>) {
        let mut bad = Vec::new();
        let st = self.check_into(&mut bad, "");
        if !bad.is_empty() {
            return (Status::Unresolved.max(st), bad);
        }
        (st, bad)
    }

    fn check_into(&self, bad: &mut Vec<String>, path: &str) -> Status {
        let here = if path.is_empty() {
            self.label.clone()
        } else {
            format!("{path} > {}", self.label)
        };
        let mut st = self.gap.unwrap_or(Status::Resolved);
        if let Some(v) = self.combine()
            && !((v - self.value).abs() <= TOLERANCE || (v.is_nan() && self.value.is_nan()))
        {
            bad.push(format!(
                "{here}: children give {v}, node says {}",
                self.value
            ));
        }
        for c in &self.children {
            st = st.max(c.check_into(bad, &here));
        }
        st
    }

    /// Depth-first list of (depth, node) for flat views.
    pub fn walk(&self) -> Vec<(usize, &Explanation)> {
        let mut out = Vec::new();
        fn go<'a>(e: &'a Explanation, d: usize, out: &mut Vec<(usize, &'a Explanation)>) {
            out.push((d, e));
            for c in &e.children {
                go(c, d + 1, out);
            }
        }
        go(self, 0, &mut out);
        out
    }

    pub fn write_json(&self, w: &mut crate::jsonout::JsonWriter) {
        w.begin_obj();
        w.key("label").str(&self.label);
        w.key("value").f64(self.value);
        w.key("op").str(self.op.name());
        match &self.op {
            Op::Round(d) => {
                w.key("digits").int(*d as i64);
            }
            Op::Clamp(lo, hi) => {
                w.key("lo").f64(*lo);
                w.key("hi").f64(*hi);
            }
            _ => {}
        }
        if let Some(wt) = self.weight {
            w.key("weight").f64(wt);
        }
        if let Some(d) = &self.detail {
            w.key("detail").str(d);
        }
        if let Some(g) = self.gap {
            w.key("gap").str(g.as_str());
        }
        w.key("children").begin_arr();
        for c in &self.children {
            c.write_json(w);
        }
        w.end_arr();
        w.end_obj();
    }
}

/// Explains the raw BM25 score of a seed document (before normalisation).
fn explain_bm25(engine: &Engine, st: &Stages, doc: ToolId, raw: f64) -> Explanation {
    let index = &engine.index;
    if st.used_fallback {
        let tool = engine.graph.tool(doc);
        let (n, d) = fallback_hits(&tool.name, &tool.description, &st.query);
        let mut e = Explanation::node(
            "substring fallback score",
            raw,
            Op::Weighted,
            vec![
                Explanation::leaf("query terms found in the name", n as f64).with_weight(1.0),
                Explanation::leaf("query terms found in the description", d as f64)
                    .with_weight(0.5),
            ],
        );
        e.detail = Some("BM25 found nothing; seeds come from substring matches (spec §3.6)".into());
        return e;
    }
    let mut terms = Vec::new();
    let mut sum = 0.0;
    for tok in &st.plan.tokens {
        let Some(term) = tok.term else { continue };
        let tf = index.tf(term, doc);
        if tf == 0 {
            continue;
        }
        let part = index.term_score(term, tf, doc);
        sum += part;
        let df = index.df(term);
        terms.push(
            Explanation::node(
                format!("term \"{}\"", tok.text),
                part,
                Op::Bm25Term,
                vec![
                    Explanation::leaf("idf", index.idf(term)).with_detail(format!(
                        "ln((N - df + 0.5) / (df + 0.5) + 1) with N={}, df={df}",
                        index.doc_count()
                    )),
                    Explanation::leaf("tf", tf as f64)
                        .with_detail("occurrences in the tool's document"),
                    Explanation::leaf("length norm", index.len_part(doc)).with_detail(format!(
                        "k1 * ((1 - b) + b * dl / avgdl) with k1=1.2, b=0.75, dl={}, avgdl={:.4}",
                        index.dl[doc as usize], index.avgdl
                    )),
                ],
            )
            .with_detail(source_note(&tok.source)),
        );
    }
    let m = st.plan.tokens.len();
    let mut parts = Bm25Parts {
        sum,
        name_penalty: 1.0,
        order_matched: 0,
        phrase: 1.0,
        route: 1.0,
        korean: 1.0,
    };
    let total = finish_score(
        &engine.graph,
        index,
        &st.plan,
        doc,
        sum,
        m,
        Some(&mut parts),
    );
    let mut children = vec![Explanation::node(
        "BM25 sum over query terms",
        sum,
        Op::Sum,
        terms,
    )];
    let l = index.name_tokens[doc as usize].len();
    if l > 6 {
        children.push(
            Explanation::leaf("long-name penalty", parts.name_penalty)
                .with_detail(format!("1 / (1 + 0.15 * ({l} - 6)) for {l} name tokens")),
        );
    }
    children.push(
        Explanation::leaf(
            "order boost",
            1.0 + (parts.order_matched as f64 / m as f64) * 0.5,
        )
        .with_detail(format!(
            "1 + ({} / {m}) * 0.5: name tokens matching the query in order",
            parts.order_matched
        )),
    );
    let tool = engine.graph.tool(doc);
    let mut fired = Vec::new();
    if st.plan.domain.any_multiplier() {
        st.plan.domain.phrase_multiplier(tool, Some(&mut fired));
    }
    let mut mult_children: Vec<Explanation> = fired
        .iter()
        .map(|(rule, f)| Explanation::leaf(format!("phrase rule {rule}"), *f))
        .collect();
    mult_children.insert(0, Explanation::leaf("base", 1.0));
    let phrase = Explanation::node(
        "domain phrase multipliers",
        parts.phrase,
        Op::Product,
        mult_children,
    );
    let mult = Explanation::node(
        "phrase multiplier",
        ((1.0 * parts.phrase) * parts.route) * parts.korean,
        Op::Product,
        vec![
            phrase,
            Explanation::leaf("route-planning multiplier", parts.route),
            Explanation::leaf("Korean business-phrase multiplier", parts.korean),
        ],
    );
    children.push(mult);
    let mut e = Explanation::node("BM25 score", total, Op::Product, children);
    if (total - raw).abs() > TOLERANCE {
        e.gap = Some(Status::Unresolved);
    }
    e
}

fn source_note(s: &super::query::TokenSource) -> String {
    use super::query::TokenSource::*;
    match s {
        Query => "query token".into(),
        Rule(r) => format!("added by the {r} rule"),
        Synonym(t) => format!("synonym of \"{t}\""),
        KoreanExact(t) => format!("Korean expansion of \"{t}\""),
        KoreanSubstring(t) => format!("Korean expansion of \"{t}\" (substring)"),
    }
}

fn fallback_hits(name: &str, desc: &str, query: &str) -> (usize, usize) {
    use unicode_normalization::UnicodeNormalization;
    use unicode_normalization::char::canonical_combining_class;
    let strip = |s: &str| -> String {
        crate::pytext::lower(
            &s.nfkd()
                .filter(|&c| canonical_combining_class(c) == 0)
                .collect::<String>(),
        )
    };
    let q = strip(query);
    let terms: Vec<&str> = q
        .split(|c: char| {
            matches!(
                c,
                '_' | '-' | '/' | '.' | ',' | ';' | ':' | '!' | '?' | '(' | ')'
            ) || crate::pytext::is_space(c)
        })
        .filter(|t| t.chars().count() > 1)
        .collect();
    let (n, d) = (strip(name), strip(desc));
    (
        terms.iter().filter(|t| n.contains(**t)).count(),
        terms.iter().filter(|t| d.contains(**t)).count(),
    )
}

/// The normalised seed score of a seed node: raw BM25 / best seed.
fn explain_seed(
    engine: &Engine,
    st: &Stages,
    node: NodeId,
    raw: f64,
    max_seed: f64,
) -> Explanation {
    let doc = engine
        .graph
        .tool_of_node(node)
        .or_else(|| engine.graph.tool_id(engine.graph.node_name(node)));
    let raw_e = match doc {
        Some(d) => explain_bm25(engine, st, d, raw),
        None => Explanation::leaf("BM25 score", raw),
    };
    let best = st
        .seeds
        .iter()
        .position(|s| (s.1 - max_seed).abs() == 0.0)
        .map(|i| engine.graph.tool_key(st.seeds[i].0).to_string());
    Explanation::node(
        "seed score (normalised)",
        raw / max_seed,
        Op::Normalize,
        vec![
            raw_e,
            Explanation::leaf("best seed's BM25 score", max_seed).with_detail(format!(
                "max over the {} seeds{}",
                st.seeds.len(),
                best.map(|b| format!(" ({b})")).unwrap_or_default()
            )),
        ],
    )
}

/// The BFS score of a node as the expansion computed it (before history and learning).
fn explain_node_score(
    engine: &Engine,
    st: &Stages,
    node: NodeId,
    depth_guard: usize,
) -> Explanation {
    let g = &engine.graph;
    let Some(s) = st.expansion.scored.iter().find(|s| s.node == node) else {
        let n = g.node(node);
        return Explanation::leaf(format!("{} (pass-through)", g.node_name(node)), 0.0)
            .with_detail(format!(
                "{} node: not scored, so its neighbours get a parent score of 0",
                n.node_type.as_deref().unwrap_or("untyped")
            ));
    };
    match s.origin {
        Origin::Seed { raw, max_seed } => explain_seed(engine, st, node, raw, max_seed),
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
            let rel = e.attrs.relation_str().unwrap_or("(none)");
            let confl = e.attrs.confidence_str().unwrap_or("(none)");
            let parent_e = if depth_guard > 8 {
                let mut p = Explanation::leaf(format!("score of {}", g.node_name(from)), parent);
                p.gap = Some(Status::Partial);
                p
            } else {
                let mut p = explain_node_score(engine, st, from, depth_guard + 1);
                p.label = format!("score of {}: {}", g.node_name(from), p.label);
                p
            };
            Explanation::node(
                format!("graph expansion at depth {depth}"),
                s.score,
                Op::Product,
                vec![
                    parent_e,
                    Explanation::leaf(
                        format!("relation weight ({rel}, {} intent)", st.label.as_str()),
                        weight,
                    ),
                    Explanation::leaf(format!("confidence factor ({confl})"), conf),
                    Explanation::leaf(format!("depth decay (depth {depth})"), decay)
                        .with_detail(format!("1 / (0.5 * {depth} + 1)")),
                ],
            )
            .with_detail(format!(
                "edge {} -> {}",
                g.node_name(e.source),
                g.node_name(e.target)
            ))
        }
    }
}

/// Explains a live metric ([`MetricId::LIVE`]) of retrieval `r`: the row `tool` for a
/// per-row metric (ignored by the others); `sel` is `r`'s selection, which the selector
/// metrics read (without it, or for a lab metric, there is no tree). The one dispatcher
/// MCP's `explain_metric`, the `explain` command and the explorer's Explain pane use.
pub fn explain_live(
    engine: &Engine,
    r: &Retrieval,
    sel: Option<&Selection>,
    metric: MetricId,
    tool: &str,
) -> Option<Explanation> {
    match metric {
        MetricId::RetrievalScore => explain_row(engine, r, tool, RowMetric::Score),
        MetricId::RetrievalSeed => explain_row(engine, r, tool, RowMetric::Seed),
        MetricId::RetrievalGraph => explain_row(engine, r, tool, RowMetric::Graph),
        MetricId::SelectorScore => explain_selector_score(sel?, tool),
        MetricId::SelectorConfidence => explain_confidence(sel?),
        MetricId::SelectorMargin => explain_margin(sel?, false),
        MetricId::SelectorLlmMargin => explain_margin(sel?, true),
        MetricId::LabHitAtK
        | MetricId::LabMrr
        | MetricId::LabSelectorAccuracy
        | MetricId::BlameRankShift => None,
    }
}

/// Metrics of one retrieval row that can be explained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowMetric {
    Score,
    Seed,
    Graph,
}

/// Explains one row's reported value (rounded as the reference reports it).
pub fn explain_row(
    engine: &Engine,
    r: &Retrieval,
    tool: &str,
    metric: RowMetric,
) -> Option<Explanation> {
    let row = r.row(tool)?;
    let st = seed_stages(engine, &r.query, &r.params)?;
    let node = engine.graph.node_of_tool(row.tool);
    let base = match (&row.origin, node) {
        (RowOrigin::LearningOnly, _) | (_, None) => {
            Explanation::leaf("retrieval score before learning", 0.0)
                .with_detail("not reached by the seeds or the graph expansion")
        }
        (_, Some(n)) => explain_node_score(engine, &st, n, 0),
    };
    match metric {
        RowMetric::Seed => {
            let e = match &row.origin {
                RowOrigin::Seed { .. } => base,
                _ => Explanation::leaf("seed score", 0.0).with_detail("not a seed"),
            };
            Some(Explanation::node(
                "retrieval.seed",
                row.breakdown.seed,
                Op::Round(6),
                vec![e],
            ))
        }
        RowMetric::Graph => {
            if matches!(row.origin, RowOrigin::Seed { .. }) {
                return Some(
                    Explanation::leaf("retrieval.graph", 0.0)
                        .with_detail("seeds report 0.0 for the graph part"),
                );
            }
            let after = history_node(base, row.history_hits);
            Some(Explanation::node(
                "retrieval.graph",
                row.breakdown.graph,
                Op::Round(6),
                vec![Explanation::computed(
                    "graph part",
                    Op::Max,
                    vec![Explanation::leaf("floor", 0.0), after],
                )],
            ))
        }
        RowMetric::Score => {
            let raw = final_score_tree(base, row.score, row.history_hits, row.learning.as_ref());
            Some(Explanation::node(
                "retrieval.score",
                row.rounded_score(),
                Op::Round(4),
                vec![raw],
            ))
        }
    }
}

/// The final (unrounded) score: the base after history demotion, plus any learning boost.
fn final_score_tree(
    base: Explanation,
    score: f64,
    hits: usize,
    learning: Option<&super::learning::LearningSignal>,
) -> Explanation {
    let mut parts = vec![history_node(base, hits)];
    if let Some(l) = learning {
        parts.push(
            Explanation::leaf("promoted learning boost", l.score).with_detail(format!(
                "0.025 + 0.01 * min(observations - 1, 3) capped at 0.06; {} observations",
                l.observations
            )),
        );
    }
    Explanation::node("final score", score, Op::Sum, parts)
}

/// Explains the final score of any entry of the full ranking (inside or past the top-k
/// cut), from the stages it was ranked with.
pub fn explain_ranked(engine: &Engine, st: &Stages, r: &Ranked) -> Explanation {
    let base = match (&r.origin, engine.graph.node_of_tool(r.tool)) {
        (RowOrigin::LearningOnly, _) | (_, None) => {
            Explanation::leaf("retrieval score before learning", 0.0)
                .with_detail("not reached by the seeds or the graph expansion")
        }
        (_, Some(n)) => explain_node_score(engine, st, n, 0),
    };
    final_score_tree(base, r.score, r.history_hits, r.learning.as_ref())
}

/// Explains the BFS score of a node of `st`'s expansion (its seed score, or the product
/// chain from its seed), or a zero leaf for a pass-through node.
pub fn explain_node(engine: &Engine, st: &Stages, node: NodeId) -> Explanation {
    explain_node_score(engine, st, node, 0)
}

/// Explains the BM25 score a tool received for `st`'s query whether or not it became a
/// seed (None when it has no BM25 score, or when the substring fallback chose the seeds
/// and it is not one of them). Its value is the engine's: the candidate's partial score
/// from the BM25 stage with the phrase multipliers applied.
pub fn explain_bm25_of(engine: &Engine, st: &Stages, doc: ToolId) -> Option<Explanation> {
    if st.used_fallback {
        let raw = st.seeds.iter().find(|s| s.0 == doc)?.1;
        return Some(explain_bm25(engine, st, doc, raw));
    }
    let i = st.hits.binary_search_by_key(&doc, |h| h.0).ok()?;
    let raw = super::query::full_score(&engine.graph, &st.plan, doc, st.hits[i].1);
    Some(explain_bm25(engine, st, doc, raw))
}

fn history_node(base: Explanation, hits: usize) -> Explanation {
    if hits == 0 {
        return base;
    }
    let mut children = vec![base];
    for i in 0..hits {
        children.push(Explanation::leaf(
            format!("history demotion {}", i + 1),
            0.6,
        ));
    }
    Explanation::computed(
        format!("after history demotion (x0.6 per occurrence, {hits})"),
        Op::Product,
        children,
    )
}

fn evidence_leaf(e: &EvidenceItem) -> Explanation {
    let detail = match e.source {
        "retrieval_rank" => "max(0, 0.22 - min(rank - 1, 10) * 0.015)",
        "retrieval_score" => "min(0.08, retrieval score)",
        "learning" => "min(0.06, promoted learning score)",
        "canonical_action" => "0.2 * normalised action priority",
        "action_mismatch" => "action outside the query's priorities",
        "result_shape" | "inferred_result_shape" => "0.18 * normalised shape priority",
        "result_shape_mismatch" => "shape outside the query's priorities",
        "surface_terms" => "min(0.18, 0.04 * matched terms)",
        "detail_surface" => "detail query and detail surface",
        "general_surface_penalty" => "detail query on a general surface",
        "identifier_detail_contract" => "min(0.16, 0.08 + 0.02 * matched contract terms)",
        "identifier_detail_surface" => "detail + identifier query on an identifier surface",
        "api_contract" => "min(0.12, 0.035 * matched contract terms)",
        "contrastive_qualifier_match" => "min(0.24, 0.06 * matched qualifiers)",
        "hierarchy_level_match" => "large/small hierarchy qualifier matched",
        "contrastive_unrequested_qualifier" => "-min(0.14, 0.07 * unrequested qualifiers)",
        "request_contract_fit" => "min(0.10, 0.05 * matched request fields)",
        "response_contract_fit" => "min(0.12, 0.06 * matched response fields)",
        "scope_fit" | "scope_mismatch" => "query scope vs candidate scope",
        _ => "",
    };
    Explanation::leaf(e.source, e.score).with_detail(detail)
}

/// Explains a candidate's selector score: base evidence and contrastive adjustment.
pub fn explain_selector_score(sel: &Selection, name: &str) -> Option<Explanation> {
    let c = sel.rows.iter().find(|c| c.name == name)?;
    let n_base = c.evidence.len() - c.contrastive_evidence.len();
    let base_items: Vec<Explanation> = c.evidence[..n_base].iter().map(evidence_leaf).collect();
    let base = Explanation::node(
        "base selector score",
        c.base_selector_score,
        Op::Round(6),
        vec![Explanation::computed(
            "clamped to [0, 1]",
            Op::Clamp(0.0, 1.0),
            vec![Explanation::computed(
                "sum of evidence",
                Op::Sum,
                base_items,
            )],
        )],
    );
    let con_items: Vec<Explanation> = c.contrastive_evidence.iter().map(evidence_leaf).collect();
    let con = Explanation::node(
        "contrastive adjustment",
        c.contrastive_score,
        Op::Round(6),
        vec![Explanation::computed(
            "clamped to [-0.20, 0.28]",
            Op::Clamp(-0.20, 0.28),
            vec![Explanation::computed(
                "sum of contrastive evidence",
                Op::Sum,
                con_items,
            )],
        )],
    );
    Some(Explanation::node(
        format!("selector score of {name}"),
        c.selector_score,
        Op::Round(6),
        vec![Explanation::computed(
            "clamped to [0, 1]",
            Op::Clamp(0.0, 1.0),
            vec![Explanation::computed(
                "base + contrastive",
                Op::Sum,
                vec![base, con],
            )],
        )],
    ))
}

/// `selector.confidence`: the selected candidate's selector score.
pub fn explain_confidence(sel: &Selection) -> Option<Explanation> {
    if sel.no_candidates {
        return Some(
            Explanation::leaf("selector.confidence", 0.0).with_detail("no usable candidate"),
        );
    }
    let mut e = explain_selector_score(sel, &sel.selected_target)?;
    e.label = format!("selector.confidence (selected {})", sel.selected_target);
    Some(e)
}

/// `selector.margin` (winner − runner-up) or `selector.llm_margin` (winner − LLM target).
pub fn explain_margin(sel: &Selection, llm: bool) -> Option<Explanation> {
    if sel.no_candidates {
        return None;
    }
    let winner = sel.rows.iter().find(|c| c.name == sel.winner)?;
    let (label, other, value) = if llm {
        let l = sel.rows.iter().find(|c| c.llm_target)?;
        ("selector.llm_margin", Some(l), sel.llm_margin?)
    } else {
        let runner = sel
            .runner_up
            .as_ref()
            .and_then(|r| sel.rows.iter().find(|c| c.name == *r));
        ("selector.margin", runner, sel.margin)
    };
    let other_e = match other {
        Some(o) => Explanation::leaf(format!("{} selector score", o.name), o.selector_score)
            .with_weight(-1.0),
        None => Explanation::leaf("no runner-up", 0.0).with_weight(-1.0),
    };
    Some(Explanation::node(
        label,
        value,
        Op::Round(6),
        vec![Explanation::computed(
            "difference",
            Op::Weighted,
            vec![
                Explanation::leaf(
                    format!("winner {} selector score", winner.name),
                    winner.selector_score,
                )
                .with_weight(1.0),
                other_e,
            ],
        )],
    ))
}

/// Runs a retrieval and explains every row's score; used by tests and the lab.
pub fn explain_all(engine: &Engine, query: &str, params: &Params) -> Vec<(String, Explanation)> {
    let r = engine.retrieve(query, params);
    r.rows
        .iter()
        .filter_map(|row| {
            explain_row(engine, &r, &row.name, RowMetric::Score).map(|e| (row.name.clone(), e))
        })
        .collect()
}

/// Convenience: the selection and its confidence tree.
pub fn explain_selection(
    engine: &Engine,
    r: &Retrieval,
    sp: &SelectParams,
) -> (Selection, Option<Explanation>) {
    let sel = engine.select(r, sp);
    let e = explain_confidence(&sel);
    (sel, e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_detects_a_node_that_does_not_add_up() {
        let good = Explanation::node(
            "s",
            3.0,
            Op::Sum,
            vec![Explanation::leaf("a", 1.0), Explanation::leaf("b", 2.0)],
        );
        assert_eq!(good.check().0, Status::Resolved);
        let bad = Explanation::node(
            "s",
            3.5,
            Op::Sum,
            vec![Explanation::leaf("a", 1.0), Explanation::leaf("b", 2.0)],
        );
        let (st, errs) = bad.check();
        assert_eq!(st, Status::Unresolved);
        assert_eq!(errs.len(), 1);
        let mut partial = Explanation::leaf("x", 1.0);
        partial.gap = Some(Status::Partial);
        let tree = Explanation::node(
            "p",
            2.0,
            Op::Product,
            vec![partial, Explanation::leaf("two", 2.0)],
        );
        assert_eq!(tree.check().0, Status::Partial);
    }

    #[test]
    fn ops_recompute() {
        let e = Explanation::computed("r", Op::Round(2), vec![Explanation::leaf("x", 2.675)]);
        assert_eq!(e.value, 2.67);
        let w = Explanation::computed(
            "w",
            Op::Weighted,
            vec![
                Explanation::leaf("a", 2.0).with_weight(1.0),
                Explanation::leaf("b", 1.0).with_weight(0.5),
            ],
        );
        assert_eq!(w.value, 2.5);
        let c = Explanation::computed(
            "c",
            Op::Clamp(0.0, 1.0),
            vec![Explanation::leaf("x", 1.025)],
        );
        assert_eq!(c.value, 1.0);
        let t = Explanation::computed(
            "t",
            Op::Bm25Term,
            vec![
                Explanation::leaf("idf", 2.0),
                Explanation::leaf("tf", 1.0),
                Explanation::leaf("len", 1.2),
            ],
        );
        assert_eq!(t.value, 2.0 * (1.0 * 2.2) / (1.0 + 1.2));
    }
}
