//! Bounded counterfactuals: the same query (or suite) on the same graph with exactly one
//! authorised knob changed, and what moved — or on two graphs with the knobs held fixed.

use super::knobs::Knobs;
pub use crate::engine::counterfactual::{
    Contract, LEARNING_INERT, Move, contract, graph_contract, moves, names,
};
use crate::engine::{Engine, Retrieval, Selection};
use crate::jsonout::JsonWriter;
use crate::lab::metrics::{hit_at_k, jaccard, mean, paired_bootstrap, rbo, reciprocal_rank};
use crate::lab::suite::Suite;

pub const RBO_P: f64 = 0.9;

#[derive(Debug, Clone)]
pub struct Comparison {
    pub query: String,
    pub contract: Contract,
    pub base: Retrieval,
    pub variant: Retrieval,
    pub base_selection: Option<Selection>,
    pub variant_selection: Option<Selection>,
    /// Every tool of either list: base order first, then tools only in the variant.
    pub moves: Vec<Move>,
    pub jaccard: f64,
    pub rbo: f64,
}

impl Comparison {
    pub fn gained(&self) -> Vec<&Move> {
        self.moves
            .iter()
            .filter(|m| m.base_rank.is_none())
            .collect()
    }

    pub fn lost(&self) -> Vec<&Move> {
        self.moves
            .iter()
            .filter(|m| m.variant_rank.is_none())
            .collect()
    }

    pub fn selector_changed(&self) -> bool {
        match (&self.base_selection, &self.variant_selection) {
            (Some(a), Some(b)) => {
                a.selected_target != b.selected_target
                    || a.overrode_llm != b.overrode_llm
                    || a.ambiguous != b.ambiguous
            }
            _ => false,
        }
    }
}

/// Compares one query under two knob sets. `select` also runs the baseline selector.
pub fn compare(
    engine: &Engine,
    query: &str,
    base: &Knobs,
    variant: &Knobs,
    select: bool,
) -> Comparison {
    compare_graphs(
        (engine, engine),
        query,
        base,
        variant,
        select,
        contract(base, variant),
    )
}

/// Compares one query run with `base` on the first engine and `variant` on the second (two
/// graphs: `counterfactual OLD --against NEW`), under the given contract.
pub fn compare_graphs(
    (old, new): (&Engine, &Engine),
    query: &str,
    base: &Knobs,
    variant: &Knobs,
    select: bool,
    contract: Contract,
) -> Comparison {
    let a = old.retrieve(query, &base.params);
    let b = new.retrieve(query, &variant.params);
    let (sa, sb) = if select {
        (
            Some(old.select(&a, &base.select)),
            Some(new.select(&b, &variant.select)),
        )
    } else {
        (None, None)
    };
    let (na, nb) = (names(&a), names(&b));
    Comparison {
        query: query.to_string(),
        contract,
        moves: moves(&a, &b),
        jaccard: jaccard(&na, &nb),
        rbo: rbo(&na, &nb, RBO_P),
        base: a,
        variant: b,
        base_selection: sa,
        variant_selection: sb,
    }
}

fn write_selection_brief(s: &Option<Selection>, w: &mut JsonWriter) {
    match s {
        None => {
            w.null();
        }
        Some(s) => {
            w.begin_obj();
            w.key("selected_target").str(&s.selected_target);
            w.key("overrode_llm").bool(s.overrode_llm);
            w.key("ambiguous").bool(s.ambiguous);
            w.key("confidence").f64(s.confidence);
            w.key("reason_codes").str_list(&s.reason_codes);
            w.end_obj();
        }
    }
}

pub fn write_contract(c: &Contract, w: &mut JsonWriter) {
    w.key("mechanism_status").str(c.status);
    w.key("contract_note").str(&c.note);
    w.key("changed_knobs").begin_arr();
    for (k, a, b) in &c.changed {
        w.begin_obj();
        w.key("knob").str(k);
        w.key("base").value(a);
        w.key("variant").value(b);
        w.end_obj();
    }
    w.end_arr();
}

/// Writes the fields of a comparison (the caller opened the object).
pub fn write_comparison_fields(c: &Comparison, w: &mut JsonWriter, with_selector: bool) {
    w.key("query").str(&c.query);
    write_contract(&c.contract, w);
    w.key("moves").begin_arr();
    for m in &c.moves {
        w.begin_obj();
        w.key("tool").str(&m.tool);
        w.key("base_rank");
        match m.base_rank {
            Some(r) => w.int(r as i64),
            None => w.null(),
        };
        w.key("variant_rank");
        match m.variant_rank {
            Some(r) => w.int(r as i64),
            None => w.null(),
        };
        w.key("move").str(&m.marker(false));
        w.key("base_score").opt_f64(m.base_score);
        w.key("variant_score").opt_f64(m.variant_score);
        w.key("score_delta")
            .opt_f64(match (m.base_score, m.variant_score) {
                (Some(a), Some(b)) => Some(crate::pytext::round(b - a, 6)),
                _ => None,
            });
        w.end_obj();
    }
    w.end_arr();
    w.key("gained").str_list(
        &c.gained()
            .iter()
            .map(|m| m.tool.clone())
            .collect::<Vec<_>>(),
    );
    w.key("lost")
        .str_list(&c.lost().iter().map(|m| m.tool.clone()).collect::<Vec<_>>());
    w.key("jaccard").f64(c.jaccard);
    w.key("rbo").f64(c.rbo);
    w.key("rbo_p").f64(RBO_P);
    if with_selector {
        w.key("selector_base");
        write_selection_brief(&c.base_selection, w);
        w.key("selector_variant");
        write_selection_brief(&c.variant_selection, w);
        w.key("selector_outcome_changed").bool(c.selector_changed());
    }
}

/// Per-case and aggregate deltas of a suite under two knob sets.
#[derive(Debug, Clone)]
pub struct SuiteComparison {
    pub contract: Contract,
    pub k: usize,
    pub cases: Vec<SuiteCase>,
    /// Cases with an expected tool: hit@k and MRR are their means.
    pub labelled: usize,
    pub base_hit: f64,
    pub variant_hit: f64,
    pub base_mrr: f64,
    pub variant_mrr: f64,
    /// (mean, lo, hi) of the paired per-case deltas, 1000 resamples, seed 42.
    pub delta_hit: (f64, f64, f64),
    pub delta_mrr: (f64, f64, f64),
}

#[derive(Debug, Clone)]
pub struct SuiteCase {
    pub id: String,
    /// The case names an expected tool (only labelled cases enter hit@k and MRR).
    pub labelled: bool,
    pub base_hit: f64,
    pub variant_hit: f64,
    pub base_rr: f64,
    pub variant_rr: f64,
    pub jaccard: f64,
    pub rbo: f64,
}

pub fn compare_suite(
    engine: &Engine,
    suite: &Suite,
    base: &Knobs,
    variant: &Knobs,
    k: usize,
) -> SuiteComparison {
    let c = contract(base, variant);
    compare_suite_graphs((engine, engine), suite, base, variant, k, c)
}

/// A suite run with `base` on the first engine and `variant` on the second.
pub fn compare_suite_graphs(
    (old, new): (&Engine, &Engine),
    suite: &Suite,
    base: &Knobs,
    variant: &Knobs,
    k: usize,
    contract: Contract,
) -> SuiteComparison {
    let mut cases = Vec::new();
    for c in &suite.cases {
        let a = names(&old.retrieve(&c.query, &base.params));
        let b = names(&new.retrieve(&c.query, &variant.params));
        cases.push(SuiteCase {
            id: c.id.clone(),
            labelled: !c.expected.is_empty(),
            base_hit: hit_at_k(&a, &c.expected, k),
            variant_hit: hit_at_k(&b, &c.expected, k),
            base_rr: reciprocal_rank(&a, &c.expected),
            variant_rr: reciprocal_rank(&b, &c.expected),
            jaccard: jaccard(&a, &b),
            rbo: rbo(&a, &b, RBO_P),
        });
    }
    // hit@k and MRR are means over the labelled cases: an unlabelled case has no hit or miss
    let lab: Vec<&SuiteCase> = cases.iter().filter(|c| c.labelled).collect();
    let dh: Vec<f64> = lab.iter().map(|c| c.variant_hit - c.base_hit).collect();
    let dm: Vec<f64> = lab.iter().map(|c| c.variant_rr - c.base_rr).collect();
    let m = |f: fn(&SuiteCase) -> f64| mean(&lab.iter().map(|c| f(c)).collect::<Vec<_>>());
    SuiteComparison {
        contract,
        k,
        labelled: lab.len(),
        base_hit: m(|c| c.base_hit),
        variant_hit: m(|c| c.variant_hit),
        base_mrr: m(|c| c.base_rr),
        variant_mrr: m(|c| c.variant_rr),
        delta_hit: paired_bootstrap(&dh, 1000, 42),
        delta_mrr: paired_bootstrap(&dm, 1000, 42),
        cases,
    }
}

/// Writes a suite comparison's fields. `per_case_labels` includes per-case hit/RR (which
/// reveal labels): only for operator scope. Without `aggregates` the label-dependent
/// aggregates (hit@k, MRR and their deltas) are written as `null`: the per-case Jaccard
/// and RBO, which need no labels, remain.
pub fn write_suite_fields(
    s: &SuiteComparison,
    w: &mut JsonWriter,
    per_case_labels: bool,
    aggregates: bool,
) {
    write_contract(&s.contract, w);
    w.key("k").int(s.k as i64);
    w.key("cases").int(s.cases.len() as i64);
    w.key("labelled_cases").int(s.labelled as i64);
    // an unlabelled suite has no hit@k or MRR (never a row of zeros)
    let aggregates = aggregates && s.labelled > 0;
    let ci = |w: &mut JsonWriter, name: &str, base: f64, variant: f64, d: (f64, f64, f64)| {
        w.key(name);
        if !aggregates {
            w.null();
            return;
        }
        w.begin_obj();
        w.key("base").f64(base);
        w.key("variant").f64(variant);
        w.key("delta").f64(d.0);
        w.key("ci95").begin_arr().f64(d.1).f64(d.2).end_arr();
        w.end_obj();
    };
    ci(w, "hit_at_k", s.base_hit, s.variant_hit, s.delta_hit);
    ci(w, "MRR", s.base_mrr, s.variant_mrr, s.delta_mrr);
    w.key("bootstrap")
        .str("paired, 1000 resamples, seed 42, percentile 2.5/97.5");
    w.key("per_case").begin_arr();
    for c in &s.cases {
        w.begin_obj();
        w.key("id").str(&c.id);
        w.key("jaccard").f64(c.jaccard);
        w.key("rbo").f64(c.rbo);
        if per_case_labels && c.labelled {
            w.key("base_hit").f64(c.base_hit);
            w.key("variant_hit").f64(c.variant_hit);
            w.key("base_rr").f64(c.base_rr);
            w.key("variant_rr").f64(c.variant_rr);
        }
        w.end_obj();
    }
    w.end_arr();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_knob_is_resolved_two_are_partial() {
        let engine = Engine::new(crate::demo::load_demo().unwrap());
        let base = Knobs::default();
        let v1 = base.set_from_str("depth=0").unwrap();
        let c = compare(&engine, "refund approval", &base, &v1, true);
        assert_eq!(c.contract.status, "resolved");
        assert!(c.jaccard <= 1.0 && c.rbo <= 1.0);
        assert!(!c.lost().is_empty(), "depth 0 drops expanded tools");
        let v2 = v1.set_from_str("top_k=3").unwrap();
        assert_eq!(
            compare(&engine, "refund approval", &base, &v2, false)
                .contract
                .status,
            "partial"
        );
        assert_eq!(
            compare(&engine, "refund approval", &base, &base, false)
                .contract
                .status,
            "unresolved"
        );
        assert!(base.set_from_str("graph=other").is_err());
    }

    #[test]
    fn learning_without_suggestions_cannot_change_anything() {
        let engine = Engine::new(crate::demo::load_demo().unwrap());
        let base = Knobs::default();
        let off = base.set_from_str("learning=false").unwrap();
        let c = compare(&engine, "approve refund", &base, &off, true);
        assert_eq!(c.contract.status, "unresolved");
        assert!(
            c.contract.note.starts_with(LEARNING_INERT),
            "{}",
            c.contract.note
        );
        assert_eq!(c.contract.changed.len(), 1, "the change is still listed");
        assert_eq!(c.rbo, 1.0);
        // an acting knob beside it: resolved on that one, the note names the inert one
        let two = off.set_from_str("depth=1").unwrap();
        let c = contract(&base, &two);
        assert_eq!(c.status, "resolved");
        assert!(c.note.contains("(depth)") && c.note.ends_with(LEARNING_INERT));
        // with suggestions the knob acts
        let mut with = Knobs::default();
        with.params.learning_suggestions = vec![serde_json::json!({"type": "x"})];
        let off = with.set_from_str("learning=false").unwrap();
        let c = contract(&with, &off);
        assert_eq!(c.status, "resolved");
        assert!(!c.note.contains(LEARNING_INERT));
    }
}
