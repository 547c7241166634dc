//! The bounded-counterfactual contract in the engine layer: what differs between two knob
//! sets (a comparison is `resolved` only when exactly one authorised knob differs) and how
//! each tool moved between two runs. The evidence layer's comparisons and triage's probes
//! both use it.

use serde_json::Value;

use super::Retrieval;
use super::knobs::Knobs;

/// How one tool moved between the base and the variant run.
#[derive(Debug, Clone, PartialEq)]
pub struct Move {
    pub tool: String,
    pub base_rank: Option<usize>,
    pub variant_rank: Option<usize>,
    pub base_score: Option<f64>,
    pub variant_score: Option<f64>,
}

impl Move {
    /// Positive when the tool moved up.
    pub fn delta(&self) -> Option<i64> {
        Some(self.base_rank? as i64 - self.variant_rank? as i64)
    }

    /// "↑2", "↓1", "=", "new" or "gone".
    pub fn marker(&self, ascii: bool) -> String {
        match (self.base_rank, self.variant_rank) {
            (None, Some(_)) => "new".into(),
            (Some(_), None) => "gone".into(),
            _ => match self.delta().unwrap_or(0) {
                0 => "=".into(),
                d if d > 0 => format!("{}{d}", if ascii { "^" } else { "↑" }),
                d => format!("{}{}", if ascii { "v" } else { "↓" }, -d),
            },
        }
    }
}

/// The mechanism status of a comparison and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Contract {
    pub status: &'static str,
    pub changed: Vec<(&'static str, Value, Value)>,
    pub note: String,
}

pub fn contract(base: &Knobs, variant: &Knobs) -> Contract {
    let changed = base.diff(variant);
    let (status, note) = match changed.len() {
        0 => (
            "unresolved",
            "nothing differs between the two runs: no counterfactual to report".to_string(),
        ),
        1 => (
            "resolved",
            format!(
                "exactly one authorised knob differs ({}); graph and query held fixed",
                changed[0].0
            ),
        ),
        _ => (
            "partial",
            format!(
                "{} knobs differ ({}): the changes are confounded, no single cause can be attributed",
                changed.len(),
                changed.iter().map(|c| c.0).collect::<Vec<_>>().join(", ")
            ),
        ),
    };
    Contract {
        status,
        changed,
        note,
    }
}

pub fn names(r: &Retrieval) -> Vec<String> {
    r.rows.iter().map(|x| x.name.clone()).collect()
}

pub fn moves(a: &Retrieval, b: &Retrieval) -> Vec<Move> {
    let mut out: Vec<Move> = a
        .rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let j = b.rows.iter().position(|x| x.name == r.name);
            Move {
                tool: r.name.clone(),
                base_rank: Some(i + 1),
                variant_rank: j.map(|j| j + 1),
                base_score: Some(r.rounded_score()),
                variant_score: j.map(|j| b.rows[j].rounded_score()),
            }
        })
        .collect();
    for (j, r) in b.rows.iter().enumerate() {
        if !a.rows.iter().any(|x| x.name == r.name) {
            out.push(Move {
                tool: r.name.clone(),
                base_rank: None,
                variant_rank: Some(j + 1),
                base_score: None,
                variant_score: Some(r.rounded_score()),
            });
        }
    }
    out
}
