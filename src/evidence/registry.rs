//! The versioned metric registry: where each value comes from, how it decomposes, when it
//! is visible and which counterfactuals apply. Definitions only — no policy statements.

pub use crate::engine::REGISTRY_VERSION;
pub use crate::engine::metric::MetricId;

/// Who may see a metric. Model-facing sessions see `current_decision` only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visibility {
    /// Known when the model decides which tool to call (the retrieval it was shown).
    CurrentDecision,
    /// Computed after the model's pick (the baseline selector's verdict on it).
    PostDecision,
    /// Needs fixture labels (expected targets): offline evaluation only.
    OfflineEvaluation,
}

impl Visibility {
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::CurrentDecision => "current_decision",
            Visibility::PostDecision => "post_decision",
            Visibility::OfflineEvaluation => "offline_evaluation",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Metric {
    /// The metric (its id string is [`Metric::metric_id`]).
    pub id: MetricId,
    pub unit: &'static str,
    pub formula_version: &'static str,
    pub description: &'static str,
    pub source_fields: &'static [&'static str],
    pub decomposer: &'static str,
    pub trace_hook: &'static str,
    pub visibility_scope: Visibility,
    pub supported_counterfactuals: &'static [&'static str],
    /// Needs a tool name (`scope_id`) to pick the row.
    pub per_tool: bool,
}

/// The knobs a retrieval metric's counterfactuals may change, and a selector metric's.
const RETRIEVAL_KNOBS: &[&str] = &crate::engine::knobs::RETRIEVAL_KNOBS;
const SELECTOR_KNOBS: &[&str] = &crate::engine::knobs::KNOBS;

pub const METRICS: &[Metric] = &[
    Metric {
        id: MetricId::RetrievalScore,
        unit: "score (0..1+, 4 decimals)",
        formula_version: "graphify-0.47/score-1",
        description: "Final retrieval score of a tool for a query: seed or graph part, times 0.6 per history occurrence, plus the promoted learning boost.",
        source_fields: &["results[].score", "results[].score_breakdown"],
        decomposer: "explain_row(score): round4(sum(history_product(seed|graph), learning))",
        trace_hook: "trace_entity(tool): seed_chosen | edge_scored, history_demotion, learning_boost, ranked",
        visibility_scope: Visibility::CurrentDecision,
        supported_counterfactuals: RETRIEVAL_KNOBS,
        per_tool: true,
    },
    Metric {
        id: MetricId::RetrievalSeed,
        unit: "normalised BM25 (0..1, 6 decimals)",
        formula_version: "graphify-0.47/bm25-1",
        description: "A seed's BM25 score divided by the best seed's: per-term idf*tf*(k1+1)/(tf+length norm), long-name penalty, order boost, phrase multipliers.",
        source_fields: &["results[].score_breakdown.seed", "stats.seeds"],
        decomposer: "explain_row(seed): round6(normalize(bm25_product(sum(bm25_term...), penalty, order, phrase), max_seed))",
        trace_hook: "trace_event(stage=bm25|seeds)",
        visibility_scope: Visibility::CurrentDecision,
        supported_counterfactuals: &["history", "learning"],
        per_tool: true,
    },
    Metric {
        id: MetricId::RetrievalGraph,
        unit: "expansion score (0..1, 6 decimals)",
        formula_version: "graphify-0.47/bfs-1",
        description: "The graph part of an expanded tool: parent score x relation weight x confidence factor x depth decay, along the first-visit chain.",
        source_fields: &[
            "results[].score_breakdown.graph",
            "results[].expanded_from",
            "results[].edge_evidence",
        ],
        decomposer: "explain_row(graph): round6(max(0, product(parent, weight, confidence, decay) x 0.6^history))",
        trace_hook: "trace_event(stage=expand)",
        visibility_scope: Visibility::CurrentDecision,
        supported_counterfactuals: &[
            "depth",
            "relation_weight",
            "confidence_factor",
            "intent",
            "history",
        ],
        per_tool: true,
    },
    Metric {
        id: MetricId::SelectorScore,
        unit: "selector score (0..1, 6 decimals)",
        formula_version: "contrastive-risk-limiting-selector-v4",
        description: "A candidate's baseline-selector score: clamped sum of its evidence plus the clamped contrastive adjustment.",
        source_fields: &[
            "target_selector.rank_signals[].selector_score",
            "target_selector.candidate_evidence",
        ],
        decomposer: "round6(clamp01(round6(clamp01(sum(evidence))) + round6(clamp(sum(contrastive), -0.2, 0.28))))",
        trace_hook: "trace_event(stage=selector): candidate_scored",
        visibility_scope: Visibility::PostDecision,
        supported_counterfactuals: SELECTOR_KNOBS,
        per_tool: true,
    },
    Metric {
        id: MetricId::SelectorConfidence,
        unit: "selector score (0..1, 6 decimals)",
        formula_version: "contrastive-risk-limiting-selector-v4",
        description: "The baseline selector's score of the candidate it selected.",
        source_fields: &["target_selector.confidence"],
        decomposer: "selector.score of target_selector.selected_target",
        trace_hook: "trace_event(stage=selector): selected",
        visibility_scope: Visibility::PostDecision,
        supported_counterfactuals: SELECTOR_KNOBS,
        per_tool: false,
    },
    Metric {
        id: MetricId::SelectorMargin,
        unit: "score difference (6 decimals)",
        formula_version: "contrastive-risk-limiting-selector-v4",
        description: "Winner's selector score minus the runner-up's (the first other decision row not sharing its operation id).",
        source_fields: &["target_selector.margin"],
        decomposer: "round6(winner - runner_up)",
        trace_hook: "trace_event(stage=selector): winner",
        visibility_scope: Visibility::PostDecision,
        supported_counterfactuals: SELECTOR_KNOBS,
        per_tool: false,
    },
    Metric {
        id: MetricId::SelectorLlmMargin,
        unit: "score difference (6 decimals)",
        formula_version: "contrastive-risk-limiting-selector-v4",
        description: "Winner's selector score minus the LLM target's.",
        source_fields: &["target_selector.llm_margin"],
        decomposer: "round6(winner - llm_target)",
        trace_hook: "trace_event(stage=selector): override_assessed",
        visibility_scope: Visibility::PostDecision,
        supported_counterfactuals: SELECTOR_KNOBS,
        per_tool: false,
    },
    Metric {
        id: MetricId::LabHitAtK,
        unit: "fraction of cases (0..1)",
        formula_version: "lab-1",
        description: "Share of suite cases with an expected tool among the first k results.",
        source_fields: &["suite cases (labels)", "results[].name"],
        decomposer: "mean over cases of hit@k (1 if any expected tool is in the top k)",
        trace_hook: "per-case ranks",
        visibility_scope: Visibility::OfflineEvaluation,
        supported_counterfactuals: RETRIEVAL_KNOBS,
        per_tool: false,
    },
    Metric {
        id: MetricId::LabMrr,
        unit: "mean reciprocal rank (0..1)",
        formula_version: "lab-1",
        description: "Mean over suite cases of 1 / rank of the first expected tool (0 when absent).",
        source_fields: &["suite cases (labels)", "results[].name"],
        decomposer: "mean over cases of reciprocal rank",
        trace_hook: "per-case ranks",
        visibility_scope: Visibility::OfflineEvaluation,
        supported_counterfactuals: RETRIEVAL_KNOBS,
        per_tool: false,
    },
    Metric {
        id: MetricId::LabSelectorAccuracy,
        unit: "fraction of cases (0..1)",
        formula_version: "lab-1",
        description: "Share of suite cases where the baseline selector's selected target is an expected tool.",
        source_fields: &["suite cases (labels)", "target_selector.selected_target"],
        decomposer: "mean over cases of [selected_target in expected]",
        trace_hook: "per-case selections",
        visibility_scope: Visibility::OfflineEvaluation,
        supported_counterfactuals: SELECTOR_KNOBS,
        per_tool: false,
    },
    Metric {
        id: MetricId::BlameRankShift,
        unit: "rank places (NEW - OLD; a tool out of the top k counts as k + 1)",
        formula_version: "toolscope-blame/1",
        description: "How many places a tool moved from the session's baseline graph to the loaded graph for one query (the expected tool given as scope_id, else the baseline's top-1), split over the change groups between the two graphs by Shapley values on hybrid graphs, plus the residual.",
        source_fields: &["baseline artifact", "loaded artifact", "results[].name"],
        decomposer: "sum over change groups of Shapley share(rank) + residual; hybrids = baseline + a subset of groups",
        trace_hook: "compare_artifacts(query): case.causes",
        visibility_scope: Visibility::OfflineEvaluation,
        supported_counterfactuals: RETRIEVAL_KNOBS,
        per_tool: false,
    },
];

impl Metric {
    /// The serialised id (`retrieval.score`, …).
    pub const fn metric_id(&self) -> &'static str {
        self.id.id()
    }
}

/// The registry entry of a metric id string (what a caller sends).
pub fn metric(id: &str) -> Option<&'static Metric> {
    MetricId::from_id(id).map(entry)
}

/// The registry entry of a metric.
pub fn entry(id: MetricId) -> &'static Metric {
    METRICS
        .iter()
        .find(|m| m.id == id)
        .expect("every metric has a registry entry")
}

pub fn write_metric(m: &Metric, w: &mut crate::jsonout::JsonWriter) {
    w.begin_obj();
    w.key("metric_id").str(m.metric_id());
    w.key("unit").str(m.unit);
    w.key("formula_version").str(m.formula_version);
    w.key("description").str(m.description);
    w.key("source_fields").str_list(m.source_fields);
    w.key("decomposer").str(m.decomposer);
    w.key("trace_hook").str(m.trace_hook);
    w.key("visibility_scope").str(m.visibility_scope.as_str());
    w.key("supported_counterfactuals")
        .str_list(m.supported_counterfactuals);
    w.key("per_tool").bool(m.per_tool);
    w.key("registry_version").str(REGISTRY_VERSION);
    w.end_obj();
}
