//! Triage ("why not X"): which stage failed for an expected tool and why it lost, as one
//! typed value computed from a retrieval, a selection and the expected target.
//!
//! [`triage`] runs the retrieval once (keeping the full, untruncated ranking), always hands
//! the retrieved rows to the target selector with the case's LLM target and policy, and
//! assigns exactly one [`FailureClass`] — the first that applies, in the order:
//! `selected`, `not_retrieved`, `selector_ambiguous`, `selector_overrode_llm`,
//! `selector_kept_llm_target`, `selector_chose_other`, `outranked`. Secondary
//! [`Finding`]s, the [`deficit`] decomposition (built on the checked explanation trees) and
//! the bounded [`probes`] complete it. Every number is the engine's; every reported tree is
//! checked, and `mechanism_status` says `resolved` only when all of them add up.
//!
//! Probes are counterfactual evidence ("with this change X would rank 2"), never advice;
//! they are operator-facing and the evidence layer does not show them to models.

pub mod deficit;
pub mod findings;
pub mod json;
pub mod probes;

use super::Engine;
use super::explain::Status;
use super::knobs::Knobs;
use super::params::Policy;
use super::retrieve::{FullRun, Stages, retrieve_full};
use super::select::{Candidate, OVERRIDE_MARGIN, Selection};
use crate::model::ToolId;

pub use deficit::{Deficit, PathEvidence};
pub use findings::Finding;
pub use probes::{Probe, ProbeChange};

/// Why an expected tool that is not in the results is missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubCause {
    /// No query token or expansion occurs in its indexed text (no BM25 score, and no
    /// substring-fallback score), and no expansion path brought it in.
    NoTermOverlap,
    /// It was scored, but ranked past `top_k`.
    BelowCutoff,
    /// It has term overlap but was not one of the seeds, and no expansion path from a seed
    /// reaches it within `depth`.
    NotReachable,
    /// Dropped by the token budget. graphify-0.47's token budget truncates only
    /// `subgraph_text`, never the rows, so the engine never assigns this sub-cause; it is
    /// part of the vocabulary so that captured evidence of other engines can carry it.
    BudgetCut,
}

impl SubCause {
    pub fn as_str(self) -> &'static str {
        match self {
            SubCause::NoTermOverlap => "no_term_overlap",
            SubCause::BelowCutoff => "below_cutoff",
            SubCause::NotReachable => "not_reachable",
            SubCause::BudgetCut => "budget_cut",
        }
    }
}

/// A candidate's selector signals (a `rank_signals` row), for the selector classes.
#[derive(Debug, Clone, PartialEq)]
pub struct RankSignals {
    pub name: String,
    pub selector_score: f64,
    pub base_selector_score: f64,
    pub contrastive_score: f64,
    pub original_rank: Option<usize>,
    pub retrieval_score: f64,
    pub strong_evidence: bool,
    /// `(source, score)` of every evidence item, base then contrastive.
    pub evidence: Vec<(&'static str, f64)>,
}

impl RankSignals {
    pub fn of(c: &Candidate) -> RankSignals {
        RankSignals {
            name: c.name.clone(),
            selector_score: c.selector_score,
            base_selector_score: c.base_selector_score,
            contrastive_score: c.contrastive_score,
            original_rank: c.original_rank,
            retrieval_score: c.retrieval_score,
            strong_evidence: c.strong_evidence,
            evidence: c.evidence.iter().map(|e| (e.source, e.score)).collect(),
        }
    }
}

/// One channel of a score, for a tool above X and for X.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Channel {
    pub other: f64,
    pub x: f64,
}

impl Channel {
    /// `other - x`.
    pub fn diff(&self) -> f64 {
        self.other - self.x
    }
}

/// A semantic match flag whose value differs between a tool above X and X.
#[derive(Debug, Clone, PartialEq)]
pub struct FlagDiff {
    pub flag: &'static str,
    pub other: bool,
    pub x: bool,
}

/// How a tool ranked above X differs from X, channel by channel (the reported
/// `score_breakdown` values; `score` is the unrounded final score).
#[derive(Debug, Clone, PartialEq)]
pub struct AboveDiff {
    pub name: String,
    pub rank: usize,
    pub score: Channel,
    pub seed: Channel,
    pub graph: Channel,
    pub learning: Channel,
    /// History demotions (occurrences in `history`) of the other tool and of X.
    pub history_hits: (usize, usize),
    pub flags: Vec<FlagDiff>,
    pub origin: (&'static str, &'static str),
}

/// The primary failure class: exactly one per triage.
#[derive(Debug, Clone, PartialEq)]
pub enum FailureClass {
    /// The selector's `selected_target` is the expected tool.
    Selected,
    /// The expected tool is not in `results`.
    NotRetrieved {
        sub_cause: SubCause,
        full_rank: Option<usize>,
        /// X's position among the BM25 candidates (the best five become seeds).
        bm25_rank: Option<usize>,
        bm25_candidates: usize,
        /// Hops from the nearest seed over the expansion's edges (any depth).
        hops: Option<usize>,
    },
    /// The selector marked the decision ambiguous and did not pick X.
    SelectorAmbiguous {
        selected: String,
        ambiguity_set: Vec<String>,
        reason_codes: Vec<&'static str>,
        margin: f64,
        x: Option<RankSignals>,
    },
    /// The LLM named X and the selector overrode it.
    SelectorOverrodeLlm {
        selected: String,
        llm_margin: Option<f64>,
        supporting_sources: Vec<&'static str>,
    },
    /// The LLM named another tool and the selector kept it.
    SelectorKeptLlmTarget {
        llm_target: String,
        margin: f64,
        llm_margin: Option<f64>,
        override_margin: f64,
        /// Why an override was not allowed (the override assessment's reason codes).
        blocked_by: Vec<&'static str>,
        x: Option<RankSignals>,
        kept: Option<RankSignals>,
    },
    /// X is first by rank, yet the selector picked another tool.
    SelectorChoseOther {
        selected: String,
        margin: f64,
        x: Option<RankSignals>,
        chosen: Option<RankSignals>,
    },
    /// X is in `results`, not first and not selected (the channel differences of every
    /// tool above it are [`Triage::above`]).
    Outranked { rank: usize },
}

impl FailureClass {
    pub fn as_str(&self) -> &'static str {
        match self {
            FailureClass::Selected => "selected",
            FailureClass::NotRetrieved { .. } => "not_retrieved",
            FailureClass::SelectorAmbiguous { .. } => "selector_ambiguous",
            FailureClass::SelectorOverrodeLlm { .. } => "selector_overrode_llm",
            FailureClass::SelectorKeptLlmTarget { .. } => "selector_kept_llm_target",
            FailureClass::SelectorChoseOther { .. } => "selector_chose_other",
            FailureClass::Outranked { .. } => "outranked",
        }
    }

    pub fn sub_cause(&self) -> Option<SubCause> {
        match self {
            FailureClass::NotRetrieved { sub_cause, .. } => Some(*sub_cause),
            _ => None,
        }
    }
}

/// The class names in assignment order.
pub const CLASSES: &[&str] = &[
    "selected",
    "not_retrieved",
    "selector_ambiguous",
    "selector_overrode_llm",
    "selector_kept_llm_target",
    "selector_chose_other",
    "outranked",
];

/// Where X stands in one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Outcome {
    pub retrieved: bool,
    pub first: bool,
    pub selected: bool,
}

impl Outcome {
    pub fn of(run: &FullRun, sel: &Selection, expected: &str) -> Outcome {
        let rank = run.retrieval.rows.iter().position(|r| r.name == expected);
        Outcome {
            retrieved: rank.is_some(),
            first: rank == Some(0),
            selected: sel.selected_target == expected,
        }
    }
}

/// The selector's verdict in brief.
#[derive(Debug, Clone, PartialEq)]
pub struct SelectionBrief {
    pub selected_target: String,
    pub llm_target: Option<String>,
    pub policy: Policy,
    pub overrode_llm: bool,
    pub ambiguous: bool,
    pub reason_codes: Vec<&'static str>,
    pub confidence: f64,
    pub margin: f64,
    pub decision: &'static str,
}

impl SelectionBrief {
    pub fn of(s: &Selection) -> SelectionBrief {
        SelectionBrief {
            selected_target: s.selected_target.clone(),
            llm_target: s.llm_target.clone(),
            policy: s.policy.clone(),
            overrode_llm: s.overrode_llm,
            ambiguous: s.ambiguous,
            reason_codes: s.reason_codes.clone(),
            confidence: s.confidence,
            margin: s.margin,
            decision: s.decision,
        }
    }
}

/// What a triage computes besides the class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TriageOptions {
    /// Run the knob probes (failing cases only).
    pub probes: bool,
    /// Run the document probes (failing cases only).
    pub document_probes: bool,
    /// `producer_flood` fires when more than this many producers came in through one
    /// data-flow edge kind.
    pub flood_threshold: usize,
}

impl Default for TriageOptions {
    fn default() -> Self {
        TriageOptions {
            probes: true,
            document_probes: true,
            flood_threshold: 3,
        }
    }
}

/// The complete triage of one case.
#[derive(Debug, Clone)]
pub struct Triage {
    pub query: String,
    pub expected: String,
    /// Every expected tool of the case (a hit is any of them); `expected` is the one
    /// triaged (the selected one, else the best ranked).
    pub expected_all: Vec<String>,
    pub knobs: Knobs,
    pub class: FailureClass,
    /// Position in `results` (1-based).
    pub rank: Option<usize>,
    /// Position in the full, untruncated ranking (None: no score).
    pub full_rank: Option<usize>,
    /// X's result row as `query` reports it (None when it is not in the results).
    pub row: Option<super::Row>,
    /// How many tools the full ranking scored.
    pub scored: usize,
    pub outcome: Outcome,
    pub selection: SelectionBrief,
    pub findings: Vec<Finding>,
    pub deficit: Vec<Deficit>,
    /// Per tool ranked above X in `results`: the channel differences and the match flags
    /// that differ (empty when X is first or not retrieved).
    pub above: Vec<AboveDiff>,
    pub path: Option<PathEvidence>,
    pub probes: Vec<Probe>,
    /// Labels of explanation-tree nodes that did not add up (empty when all check).
    pub check_failures: Vec<String>,
    pub mechanism_status: Status,
    /// Whether this triage was recomputed by the engine (false: from captured fields).
    pub recomputed: bool,
}

impl Triage {
    /// The probes that change X's outcome or rank, outcome changes first, then by the
    /// place X reaches (grid order within a tie); and how many leave both unchanged. One
    /// order for `toolscope triage`'s text and the explorer's Why-not pane.
    pub fn probes_by_effect(&self) -> (Vec<&Probe>, usize) {
        let changes_rank = |p: &Probe| p.rank != self.rank || p.full_rank != self.full_rank;
        let mut shown: Vec<&Probe> = self
            .probes
            .iter()
            .filter(|p| !p.flips(&self.outcome).is_empty() || changes_rank(p))
            .collect();
        shown.sort_by_key(|p| {
            (
                p.flips(&self.outcome).is_empty(),
                p.rank.is_none(),
                p.full_rank.unwrap_or(usize::MAX),
            )
        });
        let unchanged = self.probes.len() - shown.len();
        (shown, unchanged)
    }
}

/// Bad input to a triage.
#[derive(Debug, Clone, PartialEq)]
pub enum TriageError {
    /// The expected name is not a tool of the graph; the closest names.
    UnknownTool { name: String, closest: Vec<String> },
    /// The case names no expected tool.
    NoExpected,
}

impl std::fmt::Display for TriageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TriageError::UnknownTool { name, closest } => {
                write!(
                    f,
                    "expected tool {} is not a tool of this graph",
                    crate::sanitize::quoted(&clip(name))
                )?;
                f.write_str(&closest_suffix(closest))
            }
            TriageError::NoExpected => write!(f, "the case names no expected tool"),
        }
    }
}

fn clip(s: &str) -> String {
    super::knobs::clip(s)
}

/// Levenshtein distance over characters, case-insensitive (for "closest names").
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The `k` tool names closest to `name`: names containing it (or contained in it),
/// case-insensitive, first, then by edit distance; ties in tool order.
pub fn closest_names(engine: &Engine, name: &str, k: usize) -> Vec<String> {
    let lower = name.to_lowercase();
    let probe: String = lower.chars().take(256).collect();
    let mut scored: Vec<(usize, usize, ToolId)> = (0..engine.graph.tool_count())
        .map(|i| {
            let key = engine.graph.tool_key(i as ToolId);
            let kl = key.to_lowercase();
            let contains = !probe.is_empty() && (kl.contains(&probe) || probe.contains(&kl));
            (usize::from(!contains), distance(&probe, &kl), i as ToolId)
        })
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(k)
        .map(|(_, _, t)| engine.graph.tool_key(t).to_string())
        .collect()
}

/// What an error about a name that is not a tool adds: `; closest names: a, b, c`, or
/// ` (the graph has no tools)` (every command that refuses a tool name says it so).
pub fn closest_suffix(closest: &[String]) -> String {
    if closest.is_empty() {
        " (the graph has no tools)".into()
    } else {
        format!("; closest names: {}", closest.join(", "))
    }
}

/// Resolves an expected name to a tool, or the error naming the closest names.
pub fn expected_tool(engine: &Engine, name: &str) -> Result<ToolId, TriageError> {
    engine
        .graph
        .tool_id(name)
        .ok_or_else(|| TriageError::UnknownTool {
            name: name.to_string(),
            closest: closest_names(engine, name, 3),
        })
}

/// One retrieval + selection shared by the triage of every expected tool of a case.
pub struct Base {
    pub run: FullRun,
    pub stages: Option<Stages>,
    pub selection: Selection,
}

impl Base {
    pub fn new(engine: &Engine, query: &str, knobs: &Knobs) -> Base {
        let (run, stages) = retrieve_full(engine, query, &knobs.params);
        let selection = engine.select(&run.retrieval, &knobs.select);
        Base {
            run,
            stages,
            selection,
        }
    }
}

/// Triage of one case with one or more expected tools: every name must be a tool; the one
/// triaged is the selected one, else the one best placed in the full ranking (ties: the
/// first listed). Probes run for it only, and only when it is not selected.
pub fn triage(
    engine: &Engine,
    query: &str,
    expected: &[String],
    knobs: &Knobs,
    opts: &TriageOptions,
) -> Result<Triage, TriageError> {
    if expected.is_empty() {
        return Err(TriageError::NoExpected);
    }
    let ids: Vec<ToolId> = expected
        .iter()
        .map(|e| expected_tool(engine, e))
        .collect::<Result<_, _>>()?;
    let base = Base::new(engine, query, knobs);
    let pick = expected
        .iter()
        .position(|e| base.selection.selected_target == *e)
        .unwrap_or_else(|| {
            let key = |i: usize| base.run.full_rank(ids[i]).unwrap_or(usize::MAX);
            (0..expected.len())
                .min_by_key(|&i| (key(i), i))
                .unwrap_or(0)
        });
    let mut t = triage_one(
        engine,
        query,
        &expected[pick],
        ids[pick],
        knobs,
        &base,
        opts,
    );
    t.expected_all = expected.to_vec();
    Ok(t)
}

/// Triage of one expected tool against a computed base run.
pub fn triage_one(
    engine: &Engine,
    query: &str,
    expected: &str,
    tool: ToolId,
    knobs: &Knobs,
    base: &Base,
    opts: &TriageOptions,
) -> Triage {
    let run = &base.run;
    let sel = &base.selection;
    let rank = run
        .retrieval
        .rows
        .iter()
        .position(|r| r.tool == tool)
        .map(|i| i + 1);
    let full_rank = run.full_rank(tool);
    let st = base.stages.as_ref();
    let path = deficit::path_evidence(engine, query, knobs, st, run, tool);
    let class = classify(engine, expected, tool, rank, full_rank, base, path.as_ref());
    let mut trees = deficit::Trees::default();
    let deficit = deficit::deficits(engine, st, run, tool, &mut trees);
    if let Some(p) = &path {
        trees.add(&p.tree);
    }
    let findings = findings::findings(engine, run, tool, opts.flood_threshold);
    let outcome = Outcome::of(run, sel, expected);
    let probes = if outcome.selected {
        Vec::new()
    } else {
        probes::run(engine, query, expected, tool, knobs, base, opts)
    };
    let mut status = trees.status;
    for f in &findings {
        status = status.max(f.status());
    }
    if let Some(c) = class_signals_status(sel, expected) {
        status = status.max(c);
    }
    Triage {
        query: query.to_string(),
        expected: expected.to_string(),
        expected_all: vec![expected.to_string()],
        knobs: knobs.clone(),
        class,
        rank,
        full_rank,
        row: rank.map(|r| run.retrieval.rows[r - 1].clone()),
        scored: run.ranking.len(),
        outcome,
        selection: SelectionBrief::of(sel),
        findings,
        deficit,
        above: rank
            .filter(|&r| r > 1)
            .map(|r| deficit::above_diffs(run, r))
            .unwrap_or_default(),
        path,
        probes,
        check_failures: trees.failures,
        mechanism_status: status,
        recomputed: true,
    }
}

/// The status of the selector-score trees of X and the selected tool (the selector classes
/// report their scores).
fn class_signals_status(sel: &Selection, expected: &str) -> Option<Status> {
    let mut st: Option<Status> = None;
    for name in [expected, sel.selected_target.as_str()] {
        if let Some(e) = super::explain::explain_selector_score(sel, name) {
            let s = e.check().0;
            st = Some(st.map_or(s, |x| x.max(s)));
        }
    }
    st
}

fn signals(sel: &Selection, name: &str) -> Option<RankSignals> {
    sel.rows
        .iter()
        .find(|c| c.name == name)
        .map(RankSignals::of)
}

/// Assigns the first class that applies, in the order.
fn classify(
    engine: &Engine,
    expected: &str,
    tool: ToolId,
    rank: Option<usize>,
    full_rank: Option<usize>,
    base: &Base,
    path: Option<&PathEvidence>,
) -> FailureClass {
    let sel = &base.selection;
    if sel.selected_target == expected {
        return FailureClass::Selected;
    }
    let Some(rank) = rank else {
        return not_retrieved(engine, tool, full_rank, base, path);
    };
    if sel.ambiguous {
        return FailureClass::SelectorAmbiguous {
            selected: sel.selected_target.clone(),
            ambiguity_set: sel.ambiguity_set.clone(),
            reason_codes: sel.reason_codes.clone(),
            margin: sel.margin,
            x: signals(sel, expected),
        };
    }
    let llm = sel.llm_target.as_deref();
    if llm == Some(expected) && sel.overrode_llm {
        return FailureClass::SelectorOverrodeLlm {
            selected: sel.selected_target.clone(),
            llm_margin: sel.llm_margin,
            supporting_sources: sel.override_assessment.supporting_sources.clone(),
        };
    }
    if let Some(l) = llm
        && l != expected
        && sel.selected_target == l
        && !sel.overrode_llm
    {
        return FailureClass::SelectorKeptLlmTarget {
            llm_target: l.to_string(),
            margin: sel.margin,
            llm_margin: sel.llm_margin,
            override_margin: OVERRIDE_MARGIN,
            blocked_by: sel.override_assessment.reason_codes.clone(),
            x: signals(sel, expected),
            kept: signals(sel, l),
        };
    }
    if rank == 1 {
        return FailureClass::SelectorChoseOther {
            selected: sel.selected_target.clone(),
            margin: sel.margin,
            x: signals(sel, expected),
            chosen: signals(sel, &sel.selected_target),
        };
    }
    FailureClass::Outranked { rank }
}

fn not_retrieved(
    engine: &Engine,
    tool: ToolId,
    full_rank: Option<usize>,
    base: &Base,
    path: Option<&PathEvidence>,
) -> FailureClass {
    let st = base.stages.as_ref();
    let (bm25_rank, bm25_candidates) = st
        .map(|s| deficit::bm25_rank(engine, s, tool))
        .unwrap_or((None, 0));
    let overlap = match st {
        Some(s) if s.used_fallback => {
            super::query::fallback_score(&engine.graph, &engine.index, &s.query, tool) > 0.0
        }
        Some(_) => bm25_rank.is_some(),
        None => false,
    };
    let sub_cause = if full_rank.is_some() {
        SubCause::BelowCutoff
    } else if !overlap {
        SubCause::NoTermOverlap
    } else {
        SubCause::NotReachable
    };
    FailureClass::NotRetrieved {
        sub_cause,
        full_rank,
        bm25_rank,
        bm25_candidates,
        hops: path.and_then(|p| p.hops_needed()),
    }
}

#[cfg(test)]
mod tests;
