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
/// CLI, the knobs, the explorer and triage's probes use (names of [`Policy::KNOWN`]).
pub const POLICIES: &[&str] = &["strong_evidence", "risk_limited", "manual_review"];

/// The selector's policy. The reference takes any string and lets only
/// `strong_evidence` and `risk_limited` override, so a batch case may name another one:
/// it is kept as [`Policy::Other`] (echoed as given, never overriding). The name is the
/// serialised form, written only at the edge.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum Policy {
    #[default]
    StrongEvidence,
    RiskLimited,
    ManualReview,
    /// A name the engine does not know: never overrides.
    Other(String),
}

impl Policy {
    /// The known policies, in [`POLICIES`] order.
    pub const KNOWN: [Policy; 3] = [
        Policy::StrongEvidence,
        Policy::RiskLimited,
        Policy::ManualReview,
    ];

    /// The policy's name.
    pub fn as_str(&self) -> &str {
        match self {
            Policy::StrongEvidence => "strong_evidence",
            Policy::RiskLimited => "risk_limited",
            Policy::ManualReview => "manual_review",
            Policy::Other(s) => s,
        }
    }

    /// A known policy by name.
    pub fn known(name: &str) -> Option<Policy> {
        Policy::KNOWN.into_iter().find(|p| p.as_str() == name)
    }

    /// Whether strong evidence may override the model's pick under this policy.
    pub fn may_override(&self) -> bool {
        matches!(self, Policy::StrongEvidence | Policy::RiskLimited)
    }
}

impl From<&str> for Policy {
    fn from(name: &str) -> Policy {
        Policy::known(name).unwrap_or_else(|| Policy::Other(name.to_string()))
    }
}

impl From<String> for Policy {
    fn from(name: String) -> Policy {
        Policy::known(&name).unwrap_or(Policy::Other(name))
    }
}

impl std::fmt::Display for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for Policy {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Policy {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// The selector's inputs besides the candidates.
#[derive(Debug, Clone, PartialEq)]
pub struct SelectParams {
    pub llm_target: Option<String>,
    pub policy: Policy,
}

impl Default for SelectParams {
    fn default() -> Self {
        SelectParams {
            llm_target: None,
            policy: Policy::StrongEvidence,
        }
    }
}
