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

/// What an inert knob change says: the `learning` knob with no learning suggestions on
/// either side switches nothing on or off (the runs compute the same thing).
pub const LEARNING_INERT: &str = "the learning knob cannot change anything without learning \
     suggestions (--learning FILE)";

/// Whether changing knob `k` between `base` and `variant` can reach the run at all.
fn inert(k: &str, base: &Knobs, variant: &Knobs) -> bool {
    k == "learning"
        && base.params.learning_suggestions.is_empty()
        && variant.params.learning_suggestions.is_empty()
}

/// The contract of a comparison across two graphs (`counterfactual OLD --against NEW`):
/// `resolved` when only the graph differs (knobs and query held fixed; the change itself is
/// attributed by `toolscope diff OLD NEW --query`), `partial` when knobs differ as well
/// (confounded). Two graphs with the same fingerprint are one graph: the knob contract.
pub fn graph_contract(old: &str, new: &str, base: &Knobs, variant: &Knobs) -> Contract {
    let knobs = contract(base, variant);
    if old == new {
        return knobs;
    }
    let acting = knobs
        .changed
        .iter()
        .filter(|c| !inert(c.0, base, variant))
        .count();
    let mut changed = vec![("graph", Value::from(old), Value::from(new))];
    changed.extend(knobs.changed);
    let (status, note) = if acting == 0 {
        (
            "resolved",
            "only the graph differs; knobs and query held fixed (which of the graph's changes \
             moved it: toolscope diff OLD NEW --query)"
                .to_string(),
        )
    } else {
        (
            "partial",
            format!(
                "the graph and {acting} knob{} differ: the changes are confounded, no single \
                 cause can be attributed",
                if acting == 1 { "" } else { "s" }
            ),
        )
    };
    Contract {
        status,
        changed,
        note,
    }
}

/// The mechanism status: `resolved` only when exactly one authorised knob that can act
/// differs, `partial` when several do (confounded), `unresolved` when none does (no
/// counterfactual: nothing differs, or only a knob that cannot change anything, such as
/// `learning` without learning suggestions; the note says which).
pub fn contract(base: &Knobs, variant: &Knobs) -> Contract {
    let changed = base.diff(variant);
    let acting: Vec<&'static str> = changed
        .iter()
        .map(|c| c.0)
        .filter(|k| !inert(k, base, variant))
        .collect();
    let inert_note = (acting.len() < changed.len()).then_some(LEARNING_INERT);
    let (status, mut note) = match acting.len() {
        0 if changed.is_empty() => (
            "unresolved",
            "nothing differs between the two runs: no counterfactual to report".to_string(),
        ),
        0 => (
            "unresolved",
            format!(
                "{}: both runs are the same run, no counterfactual to report",
                LEARNING_INERT
            ),
        ),
        1 => (
            "resolved",
            format!(
                "exactly one authorised knob differs ({}); graph and query held fixed",
                acting[0]
            ),
        ),
        _ => (
            "partial",
            format!(
                "{} knobs differ ({}): the changes are confounded, no single cause can be attributed",
                acting.len(),
                acting.join(", ")
            ),
        ),
    };
    if let (Some(n), false) = (inert_note, acting.is_empty()) {
        note.push_str(&format!("; {n}"));
    }
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
