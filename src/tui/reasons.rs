//! One-line meanings of the selector's reason codes and evidence sources (spec §5.3–5.8),
//! in our own words, for the selector panel and the help overlay.

/// The meaning of a reason code or evidence source, if known.
pub fn meaning(code: &str) -> Option<&'static str> {
    Some(match code {
        // top-level decision codes
        "no_candidates" => "no usable candidate: nothing retrieved is a tool the selector knows",
        "llm_target_overridden" => {
            "the model's pick lost: a sibling had decisive, uncontradicted evidence and both margins cleared 0.12"
        }
        "ambiguous_target" => "the top candidates are too close to call; more context is needed",
        "insufficient_contrastive_evidence" => {
            "several candidates sit within 0.04 of the winner and no evidence tells them apart"
        }
        "llm_target_preserved" => {
            "the model's pick was kept although it is not the best-scored candidate"
        }
        "llm_target_not_in_candidates" => {
            "the model named a tool that is not among the candidates (or not in the graph)"
        }
        "selected_by_strong_evidence" => {
            "the winner scored at least 0.45 with at least one strong evidence source"
        }
        "selected_by_rank" => "no strong evidence: the winner is simply the best-scored row",
        // override assessment codes
        "action_incompatible_override_blocked" => {
            "override blocked: the model's pick fits the query's action and the winner does not"
        }
        "candidate_tie_override_blocked" => {
            "override blocked: the winner leads its runner-up by less than 0.12"
        }
        "insufficient_pairwise_margin" => {
            "override blocked: the winner leads the model's pick by less than 0.12"
        }
        "weak_winner_evidence" => "override blocked: the winner has no strong evidence",
        "non_discriminative_override_blocked" => {
            "override blocked: no decisive evidence source favours the winner over the model's pick"
        }
        "negative_only_override_blocked" => {
            "override blocked: the winner's only edge is a small penalty on the model's pick"
        }
        "contradictory_evidence_override_blocked" => {
            "override blocked: some decisive evidence favours the model's pick"
        }
        "lower_rank_surface_override_blocked" => {
            "override blocked: the winner ranks below the model's pick and nothing supports it"
        }
        // why_selected / why_rejected codes
        "highest_selector_score" => "selected because it has the highest selector score",
        "equivalent_or_unresolved_sibling" => {
            "within 0.04 of the winner: an unresolved sibling (in the ambiguity set)"
        }
        "llm_guard_preserved_target" => {
            "scored above the selected row, but the guard kept the model's pick"
        }
        "lower_selector_score" => "scored below the selected row",
        // evidence sources (also used as codes)
        "retrieval_rank" => "its retrieval rank (0.22 at rank 1, 0.015 less per rank)",
        "retrieval_score" => "its retrieval score (at most 0.08)",
        "learning" => "a promoted learning signal targets this tool (at most 0.06)",
        "canonical_action" => "the tool's action fits the action the query asks for",
        "action_mismatch" => "the tool's action does not fit the query (-0.18)",
        "result_shape" => "the declared result shape (single/list/count/mutation) fits the query",
        "inferred_result_shape" => "the result shape read from the tool's surface fits the query",
        "result_shape_mismatch" => "the tool's result shape does not fit the query (-0.14)",
        "surface_terms" => "query terms appear in the tool's name, summary, path or resource",
        "detail_surface" => "a detail query meets a detail-style tool (+0.14)",
        "general_surface_penalty" => "a detail query meets a general-purpose tool (-0.06)",
        "identifier_detail_contract" => {
            "a detail query with an identifier matches the tool's contract fields"
        }
        "identifier_detail_surface" => {
            "a detail query with an identifier meets an identifier-keyed detail tool (+0.08)"
        }
        "api_contract" => "query terms appear in the tool's contract fields",
        "contrastive_qualifier_match" => {
            "the query names a qualifier that sets this tool apart from its siblings"
        }
        "hierarchy_level_match" => "the query's category level (large/small) matches the tool's",
        "contrastive_unrequested_qualifier" => {
            "the tool carries a qualifier the query did not ask for (penalty)"
        }
        "request_contract_fit" => "query terms match what the tool consumes",
        "response_contract_fit" => "query terms match what the tool produces",
        "scope_fit" => "the query's scope (all/filtered/bounded) fits the tool's",
        "scope_mismatch" => "the query's scope does not fit the tool's",
        _ => return None,
    })
}

/// A short label for an evidence source in dense rows.
pub fn short(source: &str) -> &str {
    match source {
        "retrieval_rank" => "rank",
        "retrieval_score" => "score",
        "learning" => "learn",
        "canonical_action" => "action",
        "action_mismatch" => "!action",
        "result_shape" => "shape",
        "inferred_result_shape" => "shape~",
        "result_shape_mismatch" => "!shape",
        "surface_terms" => "surface",
        "detail_surface" => "detail",
        "general_surface_penalty" => "general",
        "identifier_detail_contract" => "id-contract",
        "identifier_detail_surface" => "id-surface",
        "api_contract" => "contract",
        "contrastive_qualifier_match" => "qualifier",
        "hierarchy_level_match" => "level",
        "contrastive_unrequested_qualifier" => "!qualifier",
        "request_contract_fit" => "request",
        "response_contract_fit" => "response",
        "scope_fit" => "scope",
        "scope_mismatch" => "!scope",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every code of the spec's catalog (§5.8) has a meaning.
    #[test]
    fn catalog_is_covered() {
        let catalog = [
            "no_candidates",
            "llm_target_overridden",
            "ambiguous_target",
            "insufficient_contrastive_evidence",
            "llm_target_preserved",
            "llm_target_not_in_candidates",
            "selected_by_strong_evidence",
            "selected_by_rank",
            "action_incompatible_override_blocked",
            "candidate_tie_override_blocked",
            "insufficient_pairwise_margin",
            "weak_winner_evidence",
            "non_discriminative_override_blocked",
            "negative_only_override_blocked",
            "contradictory_evidence_override_blocked",
            "lower_rank_surface_override_blocked",
            "highest_selector_score",
            "retrieval_rank",
            "equivalent_or_unresolved_sibling",
            "llm_guard_preserved_target",
            "lower_selector_score",
            "retrieval_score",
            "learning",
            "canonical_action",
            "action_mismatch",
            "result_shape",
            "inferred_result_shape",
            "result_shape_mismatch",
            "surface_terms",
            "detail_surface",
            "general_surface_penalty",
            "identifier_detail_contract",
            "identifier_detail_surface",
            "api_contract",
            "contrastive_qualifier_match",
            "hierarchy_level_match",
            "contrastive_unrequested_qualifier",
            "request_contract_fit",
            "response_contract_fit",
            "scope_fit",
            "scope_mismatch",
        ];
        for c in catalog {
            assert!(meaning(c).is_some(), "{c}");
        }
    }
}
