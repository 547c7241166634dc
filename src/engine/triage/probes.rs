//! Bounded probes of a failing case: the same query re-run with exactly one authorised knob
//! changed over a declared grid (the counterfactual contract of
//! [`crate::engine::counterfactual`]), and document probes (one query term X lacks added
//! once to X's indexed text, the artifact otherwise fixed, over a patched view of the
//! shared index: [`crate::engine::docpatch`]).
//!
//! A probe is counterfactual evidence — "with this change X would rank 2" — not a
//! recommendation; the evidence layer never shows probes to model-facing callers.

use serde_json::{Value, json};

use super::super::Engine;
use super::super::counterfactual::{Move, contract, moves};
use super::super::docpatch::DocPatch;
use super::super::expand::{NoRecord, conf_for, weight_for};
use super::super::explain::Status;
use super::super::intent::IntentLabel;
use super::super::knobs::Knobs;
use super::super::query::QueryPlan;
use super::super::retrieve::{
    FullRun, Stages, candidates, empty_full, full_from_stages, rank_order, seed_stages,
    stages_from_hits,
};
use super::super::select::Selection;
use super::{Base, Outcome, TriageOptions};
use crate::model::ToolId;

/// The declared grids.
pub const DEPTH_GRID: &[usize] = &[0, 1, 2, 3, 4];
pub const TOP_K_GRID: &[usize] = &[1, 3, 5, 10, 20, 30, 50];
pub const TOKEN_BUDGET_GRID: &[usize] = &[250, 500, 1000, 4000, 8000];
/// Relation weights and confidence factors probed for every relation / label of the graph.
pub const FACTOR_GRID: &[f64] = &[0.0, 0.5, 1.0, 2.0];
pub use crate::engine::params::{POLICIES, Policy};

/// What a probe changes.
#[derive(Debug, Clone, PartialEq)]
pub enum ProbeChange {
    /// One authorised knob: `set` is the `KNOB=VALUE` that `toolscope counterfactual
    /// --set` accepts.
    Knob {
        knob: &'static str,
        value: Value,
        set: String,
    },
    /// One query term added once to the expected tool's indexed text.
    Document {
        term: String,
        df_before: usize,
        df_after: usize,
        idf_before: Option<f64>,
        idf_after: f64,
    },
}

impl ProbeChange {
    pub fn label(&self) -> String {
        match self {
            ProbeChange::Knob { set, .. } => set.clone(),
            ProbeChange::Document { term, .. } => format!("document +\"{term}\""),
        }
    }
}

/// One probe's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    pub change: ProbeChange,
    pub mechanism_status: Status,
    pub note: String,
    /// X's position in the variant's results and in its full ranking.
    pub rank: Option<usize>,
    pub full_rank: Option<usize>,
    pub outcome: Outcome,
    pub selected_target: String,
    /// Tools whose position in the results changed (X included), base → variant.
    pub moved: Vec<Move>,
}

impl Probe {
    /// The outcome flags that this change turns on: `retrieved`, `first`, `selected`.
    pub fn flips(&self, base: &Outcome) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.outcome.retrieved && !base.retrieved {
            out.push("retrieved");
        }
        if self.outcome.first && !base.first {
            out.push("first");
        }
        if self.outcome.selected && !base.selected {
            out.push("selected");
        }
        out
    }

    /// The outcome flags that this change turns off.
    pub fn losses(&self, base: &Outcome) -> Vec<&'static str> {
        let mut out = Vec::new();
        if !self.outcome.retrieved && base.retrieved {
            out.push("retrieved");
        }
        if !self.outcome.first && base.first {
            out.push("first");
        }
        out
    }
}

fn status_of(s: &str) -> Status {
    match s {
        "resolved" => Status::Resolved,
        "partial" => Status::Partial,
        _ => Status::Unresolved,
    }
}

/// Relations and confidence labels the graph's edges carry (`"(missing)"` for none), in
/// first-seen order.
fn vocabulary(engine: &Engine) -> (Vec<String>, Vec<String>) {
    let mut rels: Vec<String> = Vec::new();
    let mut confs: Vec<String> = Vec::new();
    for e in &engine.graph.edges {
        let r = e.attrs.relation_str().unwrap_or("(missing)");
        if !rels.iter().any(|x| x == r) {
            rels.push(r.to_string());
        }
        let c = e.attrs.confidence_str().unwrap_or("(missing)");
        if !confs.iter().any(|x| x == c) {
            confs.push(c.to_string());
        }
    }
    (rels, confs)
}

fn knob(knob: &'static str, value: Value) -> (&'static str, Value) {
    (knob, value)
}

/// The declared grid for a case: every knob value that differs from the case's own.
pub fn grid(engine: &Engine, knobs: &Knobs, label: IntentLabel) -> Vec<(&'static str, Value)> {
    let p = &knobs.params;
    let mut out = Vec::new();
    out.extend(
        DEPTH_GRID
            .iter()
            .filter(|&&d| d != p.depth)
            .map(|&d| knob("depth", d.into())),
    );
    out.extend(
        TOP_K_GRID
            .iter()
            .filter(|&&k| k != p.top_k)
            .map(|&k| knob("top_k", k.into())),
    );
    out.extend(
        TOKEN_BUDGET_GRID
            .iter()
            .filter(|&&b| b != p.token_budget)
            .map(|&b| knob("token_budget", b.into())),
    );
    let (rels, confs) = vocabulary(engine);
    for r in &rels {
        let rel = (r != "(missing)").then_some(r.as_str());
        let now = weight_for(p, label, rel);
        for &w in FACTOR_GRID.iter().filter(|&&w| w != now) {
            out.push(knob("relation_weight", json!({"relation": r, "weight": w})));
        }
    }
    for c in &confs {
        let lab = (c != "(missing)").then_some(c.as_str());
        let now = conf_for(p, lab);
        for &f in FACTOR_GRID.iter().filter(|&&f| f != now) {
            out.push(knob("confidence_factor", json!({"label": c, "factor": f})));
        }
    }
    if !p.history.is_empty() {
        out.push(knob("history", json!([])));
    }
    if !p.learning_suggestions.is_empty() {
        out.push(knob("learning", (!p.learning_enabled).into()));
    }
    for pol in Policy::KNOWN.iter().filter(|p| **p != knobs.select.policy) {
        out.push(knob("policy", pol.as_str().into()));
    }
    out
}

/// The `KNOB=VALUE` text of a knob change (JSON values; bare strings for the policy).
pub fn set_text(knob: &str, value: &Value) -> String {
    match value {
        Value::String(s) => format!("{knob}={s}"),
        v => format!("{knob}={v}"),
    }
}

fn outcome_probe(
    change: ProbeChange,
    status: Status,
    note: String,
    base: &Base,
    variant: (&FullRun, &Selection),
    expected: (&str, ToolId),
) -> Probe {
    let (expected, tool) = expected;
    let (run, sel) = variant;
    let rank = run
        .retrieval
        .rows
        .iter()
        .position(|r| r.name == expected)
        .map(|i| i + 1);
    let full_rank = run
        .ranking
        .iter()
        .position(|r| r.tool == tool)
        .map(|i| i + 1);
    let moved = moves(&base.run.retrieval, &run.retrieval)
        .into_iter()
        .filter(|m| m.base_rank != m.variant_rank)
        .collect();
    Probe {
        change,
        mechanism_status: status,
        note,
        rank,
        full_rank,
        outcome: Outcome::of(run, sel, expected),
        selected_target: sel.selected_target.clone(),
        moved,
    }
}

/// The stages of `query` over the index with `patch` applied.
pub fn patched_stages(
    engine: &Engine,
    query: &str,
    params: &super::super::Params,
    patch: &DocPatch,
) -> Option<Stages> {
    if query.is_empty() || engine.graph.tools.is_empty() {
        return None;
    }
    let view = patch.view(&engine.index);
    let plan = QueryPlan::with_terms(query, &view, engine.tokenizer.as_ref());
    let mut scratch = Vec::new();
    let hits = view.bm25_candidates(&plan, &mut scratch);
    stages_from_hits(engine, query, params, plan, hits, &mut NoRecord)
}

/// The retrieval of `query` with `patch` applied (the full run and its selection).
pub fn patched_run(
    engine: &Engine,
    query: &str,
    knobs: &Knobs,
    patch: &DocPatch,
) -> (FullRun, Selection) {
    let run = match patched_stages(engine, query, &knobs.params, patch) {
        Some(st) => full_from_stages(engine, &st, query, &knobs.params),
        None => empty_full(query, &knobs.params),
    };
    let sel = engine.select(&run.retrieval, &knobs.select);
    (run, sel)
}

/// The result tools of a run in rank order, without building rows (for suite replays):
/// exactly the retrieval's row order.
pub fn top_tools(
    engine: &Engine,
    query: &str,
    params: &super::super::Params,
    patch: Option<&DocPatch>,
) -> Vec<ToolId> {
    let st = match patch {
        None => seed_stages(engine, query, params),
        Some(p) => patched_stages(engine, query, params, p),
    };
    let Some(st) = st else {
        return Vec::new();
    };
    let (c, _) = candidates(engine, &st, params);
    rank_order(&c, Some(params.top_k))
        .into_iter()
        .map(|i| c[i].tool)
        .collect()
}

/// Knobs applied after the expansion (history, learning, the cut, the rendering, the
/// selector): a variant reuses the base stages.
const AFTER_EXPANSION: &[&str] = &[
    "top_k",
    "token_budget",
    "history",
    "learning",
    "policy",
    "llm_target",
];

/// The full run of a knob variant, sharing what the knob cannot change: the base stages
/// for a knob applied after the expansion, else the query plan and BM25 candidates (which
/// no knob changes) with the seeds and the expansion recomputed. The same stage functions
/// as [`super::super::retrieve::retrieve_full`], so the run is the one it would return.
pub fn variant_run(
    engine: &Engine,
    query: &str,
    base: &Base,
    knob: &str,
    variant: &Knobs,
) -> FullRun {
    let p = &variant.params;
    let Some(st) = &base.stages else {
        return empty_full(query, p);
    };
    if AFTER_EXPANSION.contains(&knob) {
        return full_from_stages(engine, st, query, p);
    }
    let plan = st.plan.clone();
    match stages_from_hits(engine, query, p, plan, st.hits.clone(), &mut NoRecord) {
        Some(vs) => full_from_stages(engine, &vs, query, p),
        None => empty_full(query, p),
    }
}

/// Every probe of a failing case: the knob grid, then one document probe per query term X
/// lacks.
pub fn run(
    engine: &Engine,
    query: &str,
    expected: &str,
    tool: ToolId,
    knobs: &Knobs,
    base: &Base,
    opts: &TriageOptions,
) -> Vec<Probe> {
    let mut out = Vec::new();
    let label = base
        .stages
        .as_ref()
        .map(|s| s.label)
        .unwrap_or(IntentLabel::Neutral);
    if opts.probes {
        for (k, v) in grid(engine, knobs, label) {
            let set = set_text(k, &v);
            let Ok(variant) = knobs.set_from_str(&set) else {
                continue;
            };
            let c = contract(knobs, &variant);
            let run = variant_run(engine, query, base, k, &variant);
            let sel = engine.select(&run.retrieval, &variant.select);
            let change = ProbeChange::Knob {
                knob: k,
                value: v,
                set,
            };
            out.push(outcome_probe(
                change,
                status_of(c.status),
                c.note,
                base,
                (&run, &sel),
                (expected, tool),
            ));
        }
    }
    if opts.document_probes
        && let Some(st) = &base.stages
    {
        for (term, _) in super::deficit::missing_terms(engine, st, tool) {
            let patch = DocPatch::new(&engine.index, tool, &term);
            let (run, sel) = patched_run(engine, query, knobs, &patch);
            let change = ProbeChange::Document {
                term: term.clone(),
                df_before: patch.df_before,
                df_after: patch.df_after,
                idf_before: patch.idf_before,
                idf_after: patch.idf_after,
            };
            let note = format!(
                "one document changed: \"{term}\" added once to {expected}'s indexed text; knobs and every other document held fixed (its length, the average length and the term's df/idf recomputed)"
            );
            out.push(outcome_probe(
                change,
                Status::Resolved,
                note,
                base,
                (&run, &sel),
                (expected, tool),
            ));
        }
    }
    out
}
