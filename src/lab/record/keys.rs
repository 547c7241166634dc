//! The one list of keys a captured record may carry, at every level the reader walks:
//! responses, batch lines, golden cases and fixtures (top level, `retrieval`, `stats`,
//! `intent`, `provenance`, the selector block, result rows and their evidence) and
//! graph-tool-call 0.47.0 trace envelopes (`TraceEnvelope.to_dict()`: the envelope, its
//! spans, decisions and events). A key outside these lists is kept with its value and
//! shown as unknown, never compared and never dropped.

use serde_json::{Map, Value};

/// Top-level keys of a response, batch line, golden case or fixture.
pub const TOP: &[&str] = &[
    "case_id",
    "id",
    "query",
    "query_fingerprint",
    "query_scrubbed",
    "expected_target",
    "expected_tools",
    "labels_scrubbed",
    "top_k",
    "actual_top_3",
    "ranking",
    "target_selector",
    "selection",
    "retrieval",
    "results",
    "subgraph_text",
    "intent",
    "stats",
    "provenance",
    "learning_suggestion_ids",
    "params",
    "category",
    "graph",
    "selector",
    "labels",
    "expected",
    "note",
];
/// A golden case's `expected`.
pub const EXPECTED: &[&str] = &["retrieval", "selection"];
/// A batch line's (or golden case's) `retrieval`.
pub const RETRIEVAL: &[&str] = &["results", "subgraph_text", "intent", "stats"];
pub const STATS: &[&str] = &[
    "seeds",
    "visited_nodes",
    "visited_edges",
    "token_budget_used",
    "learning_applied",
];
pub const INTENT: &[&str] = &["dominant", "read", "write", "delete"];
pub const PROVENANCE: &[&str] = &[
    "graph_fingerprint",
    "engine_profile",
    "registry_version",
    "toolscope_version",
    "params",
];
/// The target selector's answer (`select_target_candidate`).
pub const SELECTOR: &[&str] = &[
    "selected_target",
    "llm_target",
    "confidence",
    "overrode_llm",
    "ambiguous",
    "needs_expansion",
    "decision",
    "recommended_action",
    "reason_codes",
    "ambiguity_set",
    "why_selected",
    "why_rejected",
    "query_facets",
    "margin",
    "llm_margin",
    "policy",
    "policy_revision",
    "override_assessment",
    "rank_signals",
    "candidate_evidence",
    "target_action_priority",
    "result_shape_priority",
    "learning_applied",
    "sibling_comparison_applied",
];
/// One candidate of the selector's `rank_signals` (and a `target_selection` decision's
/// evidence in a trace envelope).
pub const CANDIDATE: &[&str] = &[
    "name",
    "selector_score",
    "original_rank",
    "retrieval_score",
    "canonical_action",
    "primary_resource",
    "path_module",
    "result_shape",
    "declared_result_shape",
    "strong_evidence",
    "evidence",
    "base_selector_score",
    "contrastive_score",
    "contrastive_evidence",
    "selected",
    "llm_target",
];
/// A result row (the row's evidence keys, and its identity).
pub const ROW: &[&str] = &[
    "name",
    "score",
    "tool",
    "rank",
    "score_breakdown",
    "semantic_evidence",
    "learning_evidence",
    "expanded_from",
    "edge_evidence",
];
/// The evidence keys of a result row (a trace decision keeps them under `evidence`).
pub const ROW_EVIDENCE: &[&str] = &[
    "score_breakdown",
    "semantic_evidence",
    "learning_evidence",
    "expanded_from",
    "edge_evidence",
];
pub const BREAKDOWN: &[&str] = &[
    "seed",
    "graph",
    "learning",
    "history_demoted",
    "action_match",
    "resource_match",
    "module_match",
    "shape_match",
    "contract_match",
    "graph_expansion",
];
pub const SEMANTIC: &[&str] = &[
    "canonical_action",
    "primary_resource",
    "result_shape",
    "path_module",
    "query_action",
    "query_result_shape",
    "action_match",
    "resource_match",
    "module_match",
    "shape_match",
    "contract_match",
    "summary_match",
    "summary_match_count",
    "summary_matched_terms",
    "summary_specificity",
    "matched_terms",
];
pub const EDGE: &[&str] = &[
    "source",
    "target",
    "relation",
    "confidence",
    "conf_score",
    "evidence",
];
pub const LEARNING: &[&str] = &[
    "source",
    "target",
    "suggestion_id",
    "suggestion_type",
    "status",
    "observations",
    "score",
];
/// A trace envelope (`TraceEnvelope.to_dict()`); `attributes` is the request's own
/// mapping and holds any key.
pub const ENVELOPE: &[&str] = &[
    "schema_version",
    "trace_id",
    "operation",
    "started_at",
    "ended_at",
    "duration_ms",
    "status",
    "graph_tool_call_version",
    "attributes",
    "spans",
];
/// A span of a trace envelope (`TraceSpan.to_dict()`).
pub const SPAN: &[&str] = &[
    "span_id",
    "parent_span_id",
    "sequence",
    "stage",
    "name",
    "started_at",
    "ended_at",
    "duration_ms",
    "status",
    "attributes",
    "decisions",
    "events",
];
/// A decision of a span (`TraceDecision.to_dict()`).
pub const DECISION: &[&str] = &[
    "subject",
    "outcome",
    "reason_codes",
    "score",
    "rank_before",
    "rank_after",
    "evidence",
];
/// An event of a span (`TraceEvent.to_dict()`).
pub const EVENT: &[&str] = &["name", "timestamp", "attributes"];

/// Adds the keys of `v` (when it is an object) that are not in `known` to `out`, as
/// (`prefix` + key, value).
pub fn unknown_in(v: Option<&Value>, known: &[&str], prefix: &str, out: &mut Vec<(String, Value)>) {
    if let Some(Value::Object(o)) = v {
        unknown_of(o, known, prefix, out);
    }
}

/// Whether `v` is an object with a key outside `known` (checked before a caller builds
/// the prefix of what it would report).
pub fn any_unknown(v: Option<&Value>, known: &[&str]) -> bool {
    v.and_then(Value::as_object)
        .is_some_and(|o| o.keys().any(|k| !known.contains(&k.as_str())))
}

/// [`unknown_in`] for an object.
pub fn unknown_of(
    o: &Map<String, Value>,
    known: &[&str],
    prefix: &str,
    out: &mut Vec<(String, Value)>,
) {
    for (k, x) in o {
        if !known.contains(&k.as_str()) {
            out.push((format!("{prefix}{k}"), x.clone()));
        }
    }
}
