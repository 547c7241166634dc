//! Every knob of a retrieval (+ selection). A counterfactual is the same query with
//! exactly one of these changed.

use serde_json::Value;

use super::intent::IntentLabel;

#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    pub top_k: usize,
    pub depth: usize,
    pub token_budget: usize,
    pub history: Vec<String>,
    /// Learning suggestions as given (spec §6.3 rows); only promoted ones apply.
    pub learning_suggestions: Vec<Value>,
    /// Whether learning suggestions are applied at all.
    pub learning_enabled: bool,
    /// Replaces one relation's weight in every intent table.
    pub relation_weight: Option<(String, f64)>,
    /// Replaces one confidence label's factor (`"(missing)"` names the fallback factor).
    pub confidence_factor: Option<(String, f64)>,
    /// Forces the relation-weight table instead of the classified intent.
    pub intent_override: Option<IntentLabel>,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            top_k: 10,
            depth: 2,
            token_budget: 2000,
            history: Vec::new(),
            learning_suggestions: Vec::new(),
            learning_enabled: true,
            relation_weight: None,
            confidence_factor: None,
            intent_override: None,
        }
    }
}

impl Params {
    pub fn suggestions(&self) -> &[Value] {
        if self.learning_enabled {
            &self.learning_suggestions
        } else {
            &[]
        }
    }
}

/// The selector policies the engine knows: `strong_evidence` and `risk_limited` let strong
/// evidence override the model's pick, `manual_review` never overrides. The one list the
/// CLI, the knobs, the explorer and triage's probes use.
pub const POLICIES: &[&str] = &["strong_evidence", "risk_limited", "manual_review"];

/// The selector's inputs besides the candidates.
#[derive(Debug, Clone, PartialEq)]
pub struct SelectParams {
    pub llm_target: Option<String>,
    pub policy: String,
}

impl Default for SelectParams {
    fn default() -> Self {
        SelectParams {
            llm_target: None,
            policy: "strong_evidence".into(),
        }
    }
}
