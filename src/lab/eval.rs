//! Suite evaluation: hit@1, hit@5, hit@k, recall@k, MRR and selector accuracy per case and
//! overall; cases are evaluated in parallel across cores.

use super::metrics::{hit_at_k, mean, paired_bootstrap, recall_at_k, reciprocal_rank};
use super::suite::{Case, Suite};
use crate::engine::knobs::Knobs;
use crate::engine::{Engine, Params, SelectParams};

#[derive(Debug, Clone, PartialEq)]
pub struct CaseResult {
    pub id: String,
    pub query: String,
    pub expected: Vec<String>,
    pub first_hit_rank: Option<usize>,
    pub hit1: f64,
    pub hit5: f64,
    pub hitk: f64,
    pub recall: f64,
    pub rr: f64,
    pub selected: String,
    pub selector_correct: f64,
    pub top: Vec<String>,
    /// Expected tools that are not in the graph at all.
    pub missing_from_graph: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Summary {
    pub cases: usize,
    pub k: usize,
    pub hit1: f64,
    pub hit5: f64,
    pub hitk: f64,
    pub recall: f64,
    pub mrr: f64,
    pub selector_accuracy: f64,
}

fn eval_case(
    engine: &Engine,
    c: &Case,
    params: &Params,
    sel: &SelectParams,
    k: usize,
) -> CaseResult {
    let r = engine.retrieve(&c.query, params);
    let names: Vec<String> = r.rows.iter().map(|x| x.name.clone()).collect();
    let s = engine.select(&r, sel);
    CaseResult {
        id: c.id.clone(),
        query: c.query.clone(),
        expected: c.expected.clone(),
        first_hit_rank: names
            .iter()
            .position(|n| c.expected.contains(n))
            .map(|i| i + 1),
        hit1: hit_at_k(&names, &c.expected, 1),
        hit5: hit_at_k(&names, &c.expected, 5),
        hitk: hit_at_k(&names, &c.expected, k),
        recall: recall_at_k(&names, &c.expected, k),
        rr: reciprocal_rank(&names, &c.expected),
        selector_correct: if c.expected.contains(&s.selected_target) {
            1.0
        } else {
            0.0
        },
        selected: s.selected_target,
        top: names.into_iter().take(5).collect(),
        missing_from_graph: c
            .expected
            .iter()
            .filter(|e| engine.graph.tool_id(e).is_none())
            .cloned()
            .collect(),
    }
}

/// Evaluates a suite. Each case runs with its own knobs: `base` (defaults and command-line
/// flags), then the case's own parameters, then `overrides` (`--set`). `k` is the cut-off of
/// hit@k and recall@k (hit@5 is computed on the first min(5, k) rows); the retrieval's
/// `top_k` is the case's. An override that does not apply is the error.
pub fn evaluate(
    engine: &Engine,
    suite: &Suite,
    base: &Knobs,
    overrides: &[String],
    k: usize,
) -> Result<(Vec<CaseResult>, Summary), String> {
    let knobs: Vec<Knobs> = suite
        .cases
        .iter()
        .map(|c| c.knobs(base, overrides))
        .collect::<Result<_, _>>()?;
    let pairs: Vec<(&Case, &Knobs)> = suite.cases.iter().zip(&knobs).collect();
    let results: Vec<CaseResult> = crate::par::map_heavy(&pairs, |(c, kc)| {
        eval_case(engine, c, &kc.params, &kc.select, k)
    });
    let summary = summarize(&results, k);
    Ok((results, summary))
}

/// The means over per-case results (also for results evaluated in parts).
pub fn summarize(results: &[CaseResult], k: usize) -> Summary {
    let col = |f: fn(&CaseResult) -> f64| mean(&results.iter().map(f).collect::<Vec<_>>());
    Summary {
        cases: results.len(),
        k,
        hit1: col(|r| r.hit1),
        hit5: col(|r| r.hit5),
        hitk: col(|r| r.hitk),
        recall: col(|r| r.recall),
        mrr: col(|r| r.rr),
        selector_accuracy: col(|r| r.selector_correct),
    }
}

/// Worst first: missed cases, then lower reciprocal rank, then selector misses.
pub fn worst_first(results: &mut [CaseResult]) {
    results.sort_by(|a, b| {
        a.rr.partial_cmp(&b.rr)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(
                a.selector_correct
                    .partial_cmp(&b.selector_correct)
                    .unwrap_or(std::cmp::Ordering::Equal),
            )
            .then(a.id.cmp(&b.id))
    });
}

/// Paired deltas (variant − base) of hit@k, MRR and selector accuracy with bootstrap CIs.
pub fn paired(base: &[CaseResult], variant: &[CaseResult]) -> [(&'static str, (f64, f64, f64)); 4] {
    let d = |f: fn(&CaseResult) -> f64| -> Vec<f64> {
        base.iter().zip(variant).map(|(a, b)| f(b) - f(a)).collect()
    };
    [
        ("hit@1", paired_bootstrap(&d(|r| r.hit1), 1000, 42)),
        ("hit@k", paired_bootstrap(&d(|r| r.hitk), 1000, 42)),
        ("MRR", paired_bootstrap(&d(|r| r.rr), 1000, 42)),
        (
            "selector accuracy",
            paired_bootstrap(&d(|r| r.selector_correct), 1000, 42),
        ),
    ]
}
