//! `select_target_candidate` (spec §5): per-candidate evidence, contrastive sibling
//! analysis, the override decision and its reason codes.

pub mod base;
pub mod contrast;
pub mod decide;
pub mod priority;
pub mod terms;

use serde_json::Value;

use super::Engine;
use super::learning;
use super::params::{Policy, SelectParams};
use super::retrieve::Retrieval;
use crate::model::{Graph, ToolId};
use priority::Priority;

pub const POLICY_REVISION: &str = "contrastive-risk-limiting-selector-v4";
pub const OVERRIDE_MARGIN: f64 = 0.12;
pub const STRONG_SCORE: f64 = 0.45;
pub const AMBIGUITY_BAND: f64 = 0.04;

/// Extra fields of an evidence item, in the reference's key order.
#[derive(Debug, Clone, PartialEq)]
pub enum EvidenceExtra {
    None,
    Value(Value),
    MatchedTerms(Vec<String>),
    Terms(Vec<String>),
    Learning {
        suggestion_id: Value,
        suggestion_type: Value,
        status: Value,
        observations: i64,
    },
    Scope {
        value: String,
        query_scope: String,
        candidate_scope: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct EvidenceItem {
    pub source: &'static str,
    pub extra: EvidenceExtra,
    /// Rounded to 6 decimals.
    pub score: f64,
}

impl EvidenceItem {
    /// String values that identify what the item matched (for decisive comparisons).
    pub fn signature_values(&self) -> Vec<String> {
        match &self.extra {
            EvidenceExtra::Value(v) => vec![crate::pytext::py_str(v)],
            EvidenceExtra::MatchedTerms(t) | EvidenceExtra::Terms(t) => t.clone(),
            EvidenceExtra::Scope { value, .. } => vec![value.clone()],
            _ => Vec::new(),
        }
    }
}

/// One candidate as the selector sees it (a `rank_signals` row).
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub name: String,
    pub tool: ToolId,
    pub selector_score: f64,
    pub original_rank: Option<usize>,
    pub retrieval_score: f64,
    pub canonical_action: String,
    pub primary_resource: String,
    pub path_module: String,
    pub result_shape: String,
    pub declared_result_shape: Option<String>,
    pub strong_evidence: bool,
    pub evidence: Vec<EvidenceItem>,
    pub base_selector_score: f64,
    pub contrastive_score: f64,
    pub contrastive_evidence: Vec<EvidenceItem>,
    pub selected: bool,
    pub llm_target: bool,
    /// `openapi.operation_id` (may be empty) and the §5.3 summary, for sibling checks.
    pub operation_id: String,
    pub summary: String,
}

impl Candidate {
    pub fn rank_or_max(&self) -> usize {
        self.original_rank.unwrap_or(9999)
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct QueryFacets {
    pub canonical_action: String,
    pub result_shape: String,
    pub identifier_present: bool,
    pub content_term_count: usize,
    pub scope: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct OverrideAssessment {
    pub evaluated: bool,
    pub allowed: bool,
    pub risk_level: &'static str,
    pub supporting_sources: Vec<&'static str>,
    pub contradicting_sources: Vec<&'static str>,
    pub reason_codes: Vec<&'static str>,
    pub needs_expansion: bool,
    pub winner: Option<String>,
    pub llm_target: Option<String>,
    pub winner_margin: Option<f64>,
    pub llm_margin: Option<f64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct WhySelected {
    pub name: String,
    pub reason_codes: Vec<&'static str>,
    pub evidence_sources: Vec<&'static str>,
    pub selector_score: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct WhyRejected {
    pub name: String,
    pub reason_codes: Vec<&'static str>,
    pub evidence_sources: Vec<&'static str>,
    pub score_delta: f64,
}

/// The selector's complete output (spec §5.7).
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    pub selected_target: String,
    pub llm_target: Option<String>,
    pub confidence: f64,
    pub overrode_llm: bool,
    pub ambiguous: bool,
    pub needs_expansion: bool,
    pub decision: &'static str,
    pub recommended_action: &'static str,
    pub reason_codes: Vec<&'static str>,
    pub ambiguity_set: Vec<String>,
    pub why_selected: WhySelected,
    pub why_rejected: Vec<WhyRejected>,
    pub query_facets: QueryFacets,
    pub margin: f64,
    pub llm_margin: Option<f64>,
    pub policy: Policy,
    pub override_assessment: OverrideAssessment,
    /// Candidates in selector order.
    pub rows: Vec<Candidate>,
    pub target_action_priority: Priority,
    pub result_shape_priority: Priority,
    pub learning_applied: bool,
    pub sibling_comparison_applied: bool,
    /// True for the "no usable candidate" answer, which has its own key order.
    pub no_candidates: bool,
    /// The winner before the LLM target was considered (for display).
    pub winner: String,
    /// The runner-up the margin was measured against.
    pub runner_up: Option<String>,
}

/// Inputs of a selector call.
pub struct SelectInput<'a> {
    pub query: &'a str,
    /// Candidate names in order.
    pub candidates: Vec<String>,
    /// `(name, score)` of the retrieval rows, in rank order (empty: use the candidates).
    pub retrieval: Vec<(String, Option<f64>)>,
    pub llm_target: Option<&'a str>,
    pub policy: &'a Policy,
    pub suggestions: &'a [Value],
}

/// Everything the selector knows about a tool before it sees a query (cached per tool).
#[derive(Debug, Clone)]
pub struct SelectorFacts {
    pub base: base::BaseFacts,
    pub ctx: contrast::Ctx,
}

impl SelectorFacts {
    pub fn new(graph: &Graph, tool: ToolId, name: &str) -> SelectorFacts {
        let base = base::BaseFacts::new(graph, tool, name);
        let ctx = contrast::context(graph, tool, name, &base.view.action, &base.declared);
        SelectorFacts { base, ctx }
    }
}

/// Runs the selector over a retrieval's rows, as the reference's callers do.
pub fn select_for_retrieval(engine: &Engine, r: &Retrieval, sel: &SelectParams) -> Selection {
    let names: Vec<String> = r.rows.iter().map(|row| row.name.clone()).collect();
    let retrieval = r
        .rows
        .iter()
        .map(|row| (row.name.clone(), Some(row.rounded_score())))
        .collect();
    let input = SelectInput {
        query: &r.query,
        candidates: names,
        retrieval,
        llm_target: sel.llm_target.as_deref(),
        policy: &sel.policy,
        suggestions: r.params.suggestions(),
    };
    select(engine, &input)
}

pub fn select(engine: &Engine, input: &SelectInput) -> Selection {
    let graph = &engine.graph;
    // candidate names: de-duplicated, empty dropped, LLM target appended, unknown tools dropped
    let mut names: Vec<String> = Vec::new();
    for n in &input.candidates {
        if !n.is_empty() && !names.contains(n) {
            names.push(n.clone());
        }
    }
    let llm = input
        .llm_target
        .map(|s| crate::pytext::strip(s).to_string())
        .filter(|s| !s.is_empty());
    // the retrieval signal map is built from the rows (or the original candidates)
    let mut signal: Vec<(String, usize, f64)> = Vec::new();
    if input.retrieval.is_empty() {
        for (i, n) in names.iter().enumerate() {
            if !signal.iter().any(|s| s.0 == *n) {
                signal.push((n.clone(), i + 1, 0.0));
            }
        }
    } else {
        for (i, (n, s)) in input.retrieval.iter().enumerate() {
            if !n.is_empty() && !signal.iter().any(|x| x.0 == *n) {
                signal.push((n.clone(), i + 1, s.unwrap_or(0.0)));
            }
        }
    }
    if let Some(l) = &llm
        && graph.tool_id(l).is_some()
        && !names.contains(l)
    {
        names.push(l.clone());
    }
    let cands: Vec<(String, ToolId)> = names
        .into_iter()
        .filter_map(|n| graph.tool_id(&n).map(|t| (n, t)))
        .collect();
    let learning_map = learning::signal_map(input.query, input.suggestions);
    if cands.is_empty() {
        return decide::no_candidates(llm, input.policy);
    }
    let qa = base::QueryAnalysis::new(input.query);
    let facts: Vec<&SelectorFacts> = cands
        .iter()
        .map(|(name, tool)| engine.selector_facts(*tool, name))
        .collect();
    let mut rows: Vec<Candidate> = cands
        .iter()
        .zip(&facts)
        .map(|((name, tool), f)| {
            let sig = signal.iter().find(|s| s.0 == *name);
            let learn = learning_map.iter().find(|l| l.target == *name);
            base::score_candidate(&f.base, *tool, name, sig.map(|s| (s.1, s.2)), learn, &qa)
        })
        .collect();
    let ctx: Vec<&contrast::Ctx> = facts.iter().map(|f| &f.ctx).collect();
    let facets = contrast::apply(&ctx, &mut rows, &qa);
    decide::decide(
        rows,
        &qa,
        facets,
        llm,
        input.policy,
        !learning_map.is_empty(),
    )
}
