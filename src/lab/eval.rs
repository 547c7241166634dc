//! Suite evaluation: hit@1, hit@5, hit@k, recall@k, MRR and selector accuracy per case and
//! overall; cases are evaluated in parallel across cores. A case without an expected tool
//! is unlabelled: it is run (its ranking and selection are reported) but not scored, and
//! the metrics are the means over the labelled cases only (none when there are none).

use super::metrics::{hit_at_k, mean, paired_bootstrap, recall_at_k, reciprocal_rank};
use super::suite::{Case, Suite};
use crate::engine::knobs::Knobs;
use crate::engine::{Engine, Params, SelectParams};

#[derive(Debug, Clone, PartialEq)]
pub struct CaseResult {
    pub id: String,
    pub query: String,
    pub expected: Vec<String>,
    /// The case names an expected tool; an unlabelled case has no hit, miss or score.
    pub labelled: bool,
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
    /// Every case run.
    pub cases: usize,
    /// The cases with an expected tool: the metrics are their means.
    pub labelled: usize,
    pub k: usize,
    pub hit1: f64,
    pub hit5: f64,
    pub hitk: f64,
    pub recall: f64,
    pub mrr: f64,
    pub selector_accuracy: f64,
}

impl Summary {
    /// Cases with no expected tool (run, not scored).
    pub fn unlabelled(&self) -> usize {
        self.cases - self.labelled
    }

    /// The hit@N cut-offs worth printing, each once: 1, then 5 when k is above 5 (hit@5 is
    /// computed on the first min(5, k) rows, the same as hit@k otherwise), then k when above 1.
    pub fn hit_cutoffs(&self) -> Vec<(usize, f64)> {
        let mut v = vec![(1, self.hit1)];
        if self.k > 5 {
            v.push((5, self.hit5));
        }
        if self.k > 1 {
            v.push((self.k, self.hitk));
        }
        v
    }
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
        labelled: !c.expected.is_empty(),
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

/// The means over the labelled per-case results (also for results evaluated in parts).
pub fn summarize(results: &[CaseResult], k: usize) -> Summary {
    let scored: Vec<&CaseResult> = results.iter().filter(|r| r.labelled).collect();
    let col = |f: fn(&CaseResult) -> f64| mean(&scored.iter().map(|r| f(r)).collect::<Vec<_>>());
    Summary {
        cases: results.len(),
        labelled: scored.len(),
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

/// Named paired deltas: (metric, (mean delta, 2.5th, 97.5th percentile)).
pub type Deltas = [(&'static str, (f64, f64, f64)); 4];

/// Paired deltas (variant − base) of hit@k, MRR and selector accuracy with bootstrap CIs,
/// over the labelled cases.
pub fn paired(base: &[CaseResult], variant: &[CaseResult]) -> Deltas {
    let d = |f: fn(&CaseResult) -> f64| -> Vec<f64> {
        base.iter()
            .zip(variant)
            .filter(|(a, _)| a.labelled)
            .map(|(a, b)| f(b) - f(a))
            .collect()
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
