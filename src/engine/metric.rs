//! The metric vocabulary: every metric the engine can decompose, as one enum. Its id
//! string (`retrieval.score`, `selector.margin`, …) is the serialised form, written only
//! at the edge (the evidence registry, MCP and CLI output, the explorer's labels); the
//! code between matches on [`MetricId`]. One dispatcher,
//! [`crate::engine::explain::explain_live`], turns a live metric into its tree for MCP,
//! the `explain` command and the explorer's Explain pane.

/// A metric of the registry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum MetricId {
    /// A row's final retrieval score.
    #[default]
    RetrievalScore,
    /// A row's normalised BM25 seed part.
    RetrievalSeed,
    /// A row's graph-expansion part.
    RetrievalGraph,
    /// A candidate's baseline-selector score.
    SelectorScore,
    /// The selector's score of the candidate it selected.
    SelectorConfidence,
    /// Winner minus runner-up.
    SelectorMargin,
    /// Winner minus the LLM target.
    SelectorLlmMargin,
    /// Share of suite cases with an expected tool in the top k.
    LabHitAtK,
    /// Mean reciprocal rank over the suite.
    LabMrr,
    /// Share of suite cases the selector picks an expected tool for.
    LabSelectorAccuracy,
    /// A tool's rank move from a baseline graph to the loaded one, split over the changes
    /// between the two graphs.
    BlameRankShift,
}

impl MetricId {
    /// The metrics of one live query (what the Explain pane cycles through), in registry
    /// order.
    pub const LIVE: [MetricId; 7] = [
        MetricId::RetrievalScore,
        MetricId::RetrievalSeed,
        MetricId::RetrievalGraph,
        MetricId::SelectorScore,
        MetricId::SelectorConfidence,
        MetricId::SelectorMargin,
        MetricId::SelectorLlmMargin,
    ];

    /// Every metric, in registry order.
    pub const ALL: [MetricId; 11] = [
        MetricId::RetrievalScore,
        MetricId::RetrievalSeed,
        MetricId::RetrievalGraph,
        MetricId::SelectorScore,
        MetricId::SelectorConfidence,
        MetricId::SelectorMargin,
        MetricId::SelectorLlmMargin,
        MetricId::LabHitAtK,
        MetricId::LabMrr,
        MetricId::LabSelectorAccuracy,
        MetricId::BlameRankShift,
    ];

    /// The serialised id.
    pub const fn id(self) -> &'static str {
        match self {
            MetricId::RetrievalScore => "retrieval.score",
            MetricId::RetrievalSeed => "retrieval.seed",
            MetricId::RetrievalGraph => "retrieval.graph",
            MetricId::SelectorScore => "selector.score",
            MetricId::SelectorConfidence => "selector.confidence",
            MetricId::SelectorMargin => "selector.margin",
            MetricId::SelectorLlmMargin => "selector.llm_margin",
            MetricId::LabHitAtK => "lab.hit_at_k",
            MetricId::LabMrr => "lab.mrr",
            MetricId::LabSelectorAccuracy => "lab.selector_accuracy",
            MetricId::BlameRankShift => "blame.rank_shift",
        }
    }

    /// The metric of an exact id.
    pub fn from_id(id: &str) -> Option<MetricId> {
        MetricId::ALL.into_iter().find(|m| m.id() == id)
    }

    /// A live metric by its id or the id's last part (`seed`, `margin`, …), trimmed: what
    /// the explorer's `:explain METRIC` accepts.
    pub fn parse_live(s: &str) -> Option<MetricId> {
        let s = s.trim();
        MetricId::LIVE
            .into_iter()
            .find(|m| m.id() == s || m.id().rsplit('.').next() == Some(s))
    }

    /// Whether the metric is about one row (not the selection as a whole).
    pub fn per_row(self) -> bool {
        matches!(
            self,
            MetricId::RetrievalScore
                | MetricId::RetrievalSeed
                | MetricId::RetrievalGraph
                | MetricId::SelectorScore
        )
    }

    /// Whether the metric is read from the selection (not from the retrieval alone).
    pub fn needs_selection(self) -> bool {
        matches!(
            self,
            MetricId::SelectorScore
                | MetricId::SelectorConfidence
                | MetricId::SelectorMargin
                | MetricId::SelectorLlmMargin
        )
    }
}

impl std::fmt::Display for MetricId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_short_names_parse() {
        for m in MetricId::ALL {
            assert_eq!(MetricId::from_id(m.id()), Some(m));
        }
        assert_eq!(
            MetricId::parse_live(" seed "),
            Some(MetricId::RetrievalSeed)
        );
        assert_eq!(
            MetricId::parse_live("llm_margin"),
            Some(MetricId::SelectorLlmMargin)
        );
        // lab metrics are not live
        assert_eq!(MetricId::parse_live("lab.mrr"), None);
        assert_eq!(MetricId::from_id("bogus"), None);
    }
}
