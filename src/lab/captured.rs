//! Triage of captured evidence: the failure class of an expected tool decided from a
//! record's captured fields alone (its result rows and its `target_selector` block), in
//! the same order as the engine's [`crate::engine::triage`] — `selected`,
//! `not_retrieved`, `selector_ambiguous`, `selector_overrode_llm`,
//! `selector_kept_llm_target`, `selector_chose_other`, `outranked` — with
//! `mechanism_status` saying what the capture could not decide: `partial` where the graph
//! is needed (the sub-cause of `not_retrieved`; a tie on rounded scores), `unresolved` when
//! a field the class depends on is missing (named in an `evidence_empty` finding).
//!
//! With the graph, [`with_graph`] replays the record (`lab::replay`) and adds an
//! `artifact_changed` finding when what this artifact recomputes differs from what was
//! captured; the engine's own triage of the recorded query is then the full diagnosis.

use serde_json::Value;

use super::record::RunRecord;
use super::replay::{self, Status as ReplayStatus};
use crate::engine::Engine;
use crate::engine::explain::Status;
use crate::engine::triage::Finding;
use crate::engine::triage::findings::TIE_EPSILON;

/// A captured record's triage for one expected tool.
#[derive(Debug, Clone, PartialEq)]
pub struct CapturedTriage {
    pub expected: String,
    /// The class, when the captured fields decide it.
    pub class: Option<&'static str>,
    /// Its position in the captured rows (1-based).
    pub rank: Option<usize>,
    pub selected: Option<String>,
    pub findings: Vec<Finding>,
    pub status: Status,
    /// What the capture could not decide, in words.
    pub notes: Vec<String>,
    /// The record was replayed on a graph (reproduced or drifted).
    pub replayed: bool,
    /// The captured rows ranked above X, channel by channel as captured.
    pub above: Vec<CapturedAbove>,
}

/// A captured row above X: its rank and score, and per `score_breakdown` channel present
/// on both rows (`seed`, `graph`, `learning`), the other row's value minus X's.
#[derive(Debug, Clone, PartialEq)]
pub struct CapturedAbove {
    pub name: String,
    pub rank: usize,
    pub score: Option<f64>,
    pub score_diff: Option<f64>,
    pub channels: Vec<(&'static str, f64)>,
}

/// The channels compared, in order.
const CHANNELS: [&str; 3] = ["seed", "graph", "learning"];

fn above_rows(rec: &RunRecord, rank: usize) -> Vec<CapturedAbove> {
    let x = &rec.rows[rank - 1];
    rec.rows[..rank - 1]
        .iter()
        .map(|r| CapturedAbove {
            name: r.name.clone(),
            rank: r.rank,
            score: r.score,
            score_diff: r.score.zip(x.score).map(|(a, b)| a - b),
            channels: CHANNELS
                .iter()
                .filter_map(|c| {
                    let a = r.breakdown.get(*c)?.as_f64()?;
                    let b = x.breakdown.get(*c)?.as_f64()?;
                    Some((*c, a - b))
                })
                .collect(),
        })
        .collect()
}

fn empty(missing: &[&str]) -> Finding {
    Finding::EvidenceEmpty {
        missing: missing.iter().map(|s| s.to_string()).collect(),
        status: Status::Unresolved,
    }
}

/// The class of `expected` from `rec`'s captured fields alone.
pub fn from_record(rec: &RunRecord, expected: &str) -> CapturedTriage {
    let rank = rec
        .rows
        .iter()
        .position(|r| r.name == expected)
        .map(|i| i + 1);
    let mut t = CapturedTriage {
        expected: expected.to_string(),
        class: None,
        rank,
        selected: rec.selected_target.clone(),
        findings: Vec::new(),
        status: Status::Resolved,
        notes: Vec::new(),
        replayed: false,
        above: Vec::new(),
    };
    let sel = rec.selected_target.as_deref();
    if sel == Some(expected) {
        t.class = Some("selected");
        return t;
    }
    if rec.rows.is_empty() && sel.is_none() {
        t.findings.push(empty(&["results", "target_selector"]));
        t.status = Status::Unresolved;
        t.notes
            .push("the record has neither result rows nor a selector block".into());
        return t;
    }
    let Some(rank) = rank else {
        if rec.rows.is_empty() {
            t.findings.push(empty(&["results"]));
            t.status = Status::Unresolved;
            t.notes
                .push("no result rows were captured: retrieval cannot be judged".into());
            return t;
        }
        t.class = Some("not_retrieved");
        t.status = Status::Partial;
        t.notes.push(
            "its sub-cause (no_term_overlap, below_cutoff, not_reachable) and full rank need the graph"
                .into(),
        );
        return t;
    };
    sibling_tie(rec, rank, &mut t);
    t.above = above_rows(rec, rank);
    let Some(selected) = sel else {
        t.findings.push(empty(&["target_selector.selected_target"]));
        t.status = Status::Unresolved;
        t.notes.push(format!(
            "it ranks {rank}, but without the selector's verdict the selector classes and outranked cannot be told apart"
        ));
        return t;
    };
    match rec.ambiguous {
        Some(true) => {
            t.class = Some("selector_ambiguous");
            return t;
        }
        Some(false) => {}
        None => {
            t.findings.push(empty(&["target_selector.ambiguous"]));
            t.status = Status::Unresolved;
            t.notes
                .push("the selector block does not say whether it was ambiguous".into());
            return t;
        }
    }
    let llm = rec.llm_target.as_deref();
    let overrode = rec.overrode_llm;
    if llm.is_some() && overrode.is_none() {
        t.findings.push(empty(&["target_selector.overrode_llm"]));
        t.status = Status::Unresolved;
        t.notes
            .push("an LLM target was captured, but not whether the selector overrode it".into());
        return t;
    }
    t.class = Some(match (llm, overrode) {
        (Some(l), Some(true)) if l == expected => "selector_overrode_llm",
        (Some(l), Some(false)) if l != expected && selected == l => "selector_kept_llm_target",
        _ if rank == 1 => "selector_chose_other",
        _ => "outranked",
    });
    t
}

/// `sibling_tie` on the captured (rounded) scores: `partial`, since rounding can make or
/// hide a tie that the engine's unrounded scores decide.
fn sibling_tie(rec: &RunRecord, rank: usize, t: &mut CapturedTriage) {
    let Some(x) = rec.rows[rank - 1].score else {
        return;
    };
    let tools: Vec<(String, f64, f64)> = rec.rows[..rank - 1]
        .iter()
        .filter_map(|r| r.score.map(|s| (r.name.clone(), s, s - x)))
        .filter(|(_, _, gap)| gap.abs() <= TIE_EPSILON)
        .collect();
    if !tools.is_empty() {
        t.findings.push(Finding::SiblingTie {
            x_score: x,
            tools,
            status: Status::Partial,
        });
        t.status = t.status.max(Status::Partial);
    }
}

/// A value as compact JSON, cut at 80 characters.
fn short_json(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() <= 80 {
        s
    } else {
        format!("{}…", s.chars().take(79).collect::<String>())
    }
}

/// [`from_record`], then the record replayed on `engine`: an `artifact_changed` finding
/// when the recomputed decision differs from the captured one (the first differing field,
/// as a JSON pointer, with both values), `evidence_empty` when the record cannot be
/// replayed (no query, say).
pub fn with_graph(
    engine: &Engine,
    value: &Value,
    rec: &RunRecord,
    expected: &str,
) -> CapturedTriage {
    let mut t = from_record(rec, expected);
    match replay::replay_record(engine, rec, value, &rec.id) {
        o if o.status == ReplayStatus::Drifted => {
            t.replayed = true;
            let mut what = match &o.difference {
                Some(d) => format!(
                    "{}: captured {}, recomputed {}",
                    d.pointer,
                    short_json(&d.recorded),
                    short_json(&d.recomputed)
                ),
                None => "the recomputed decision differs".to_string(),
            };
            if let Some(k) = o.drift_kind {
                what.push_str(&format!(" ({})", k.name()));
            }
            if let Some(d) = &o.detail {
                what.push_str(&format!("; {d}"));
            }
            t.findings.push(Finding::ArtifactChanged {
                differences: vec![what],
                status: Status::Resolved,
            });
        }
        o if o.status == ReplayStatus::Reproduced => t.replayed = true,
        o => {
            t.notes.push(format!(
                "not replayed ({}): {}",
                o.status.name(),
                o.detail.unwrap_or_default()
            ));
            t.status = t.status.max(Status::Partial);
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::record::RowRecord;

    fn rec(rows: &[(&str, f64)], sel: Option<&str>) -> RunRecord {
        RunRecord {
            id: "r".into(),
            query: Some("q".into()),
            rows: rows
                .iter()
                .enumerate()
                .map(|(i, (n, s))| RowRecord {
                    name: n.to_string(),
                    rank: i + 1,
                    score: Some(*s),
                    ..Default::default()
                })
                .collect(),
            selected_target: sel.map(str::to_string),
            llm_target: None,
            reason_codes: Vec::new(),
            overrode_llm: Some(false),
            ambiguous: Some(false),
            ..Default::default()
        }
    }

    #[test]
    fn every_class_from_captured_fields_in_the_engines_order() {
        let r = rec(&[("a", 1.0), ("b", 0.5), ("c", 0.2)], Some("a"));
        assert_eq!(from_record(&r, "a").class, Some("selected"));
        let t = from_record(&r, "z");
        assert_eq!(t.class, Some("not_retrieved"));
        assert_eq!(t.status, Status::Partial, "the sub-cause needs the graph");
        assert_eq!(from_record(&r, "b").class, Some("outranked"));
        assert_eq!(from_record(&r, "b").rank, Some(2));
        let above = from_record(&r, "c").above;
        assert_eq!(above.len(), 2);
        assert_eq!((above[0].name.as_str(), above[0].rank), ("a", 1));
        assert!((above[1].score_diff.unwrap() - 0.3).abs() < 1e-12);
        let mut amb = r.clone();
        amb.ambiguous = Some(true);
        assert_eq!(from_record(&amb, "b").class, Some("selector_ambiguous"));
        let mut over = r.clone();
        over.llm_target = Some("b".into());
        over.overrode_llm = Some(true);
        assert_eq!(from_record(&over, "b").class, Some("selector_overrode_llm"));
        let mut kept = rec(&[("a", 1.0), ("b", 0.5)], Some("b"));
        kept.llm_target = Some("b".into());
        assert_eq!(
            from_record(&kept, "a").class,
            Some("selector_kept_llm_target")
        );
        let other = rec(&[("a", 1.0), ("b", 0.5)], Some("b"));
        assert_eq!(from_record(&other, "a").class, Some("selector_chose_other"));
        for t in [
            from_record(&r, "a"),
            from_record(&r, "b"),
            from_record(&amb, "b"),
        ] {
            assert_eq!(t.status, Status::Resolved, "{t:?}");
        }
    }

    #[test]
    fn missing_fields_are_named_and_never_guessed() {
        let no_sel = rec(&[("a", 1.0), ("b", 0.5)], None);
        let t = from_record(&no_sel, "b");
        assert_eq!(t.class, None);
        assert_eq!(t.status, Status::Unresolved);
        assert!(matches!(
            &t.findings[..],
            [Finding::EvidenceEmpty { missing, .. }] if missing == &["target_selector.selected_target"]
        ));
        // not retrieved is decided by the rows alone
        assert_eq!(from_record(&no_sel, "z").class, Some("not_retrieved"));
        let mut no_amb = rec(&[("a", 1.0), ("b", 0.5)], Some("a"));
        no_amb.ambiguous = None;
        assert_eq!(from_record(&no_amb, "b").class, None);
        let mut no_over = rec(&[("a", 1.0), ("b", 0.5)], Some("a"));
        no_over.llm_target = Some("b".into());
        no_over.overrode_llm = None;
        assert_eq!(from_record(&no_over, "b").class, None);
        let nothing = rec(&[], None);
        let t = from_record(&nothing, "a");
        assert_eq!((t.class, t.status), (None, Status::Unresolved));
    }

    #[test]
    fn a_tie_on_captured_scores_is_partial() {
        let r = rec(&[("a", 0.66667), ("b", 0.66667), ("c", 0.1)], Some("a"));
        let t = from_record(&r, "b");
        assert_eq!(t.class, Some("outranked"));
        assert!(matches!(
            &t.findings[..],
            [Finding::SiblingTie { tools, status: Status::Partial, .. }] if tools.len() == 1
        ));
        assert_eq!(t.status, Status::Partial);
    }

    #[test]
    fn with_the_graph_a_changed_artifact_is_a_finding() {
        let engine = Engine::new(crate::demo::load_demo().expect("demo graph"));
        let same: Value =
            serde_json::from_str(include_str!("../../tests/fixtures/traces/demo-one.json"))
                .unwrap();
        let r = RunRecord::from_json(&same, "one").unwrap();
        let first = r.rows[0].name.clone();
        let t = with_graph(&engine, &same, &r, &first);
        assert!(
            !t.findings
                .iter()
                .any(|f| matches!(f, Finding::ArtifactChanged { .. })),
            "{t:?}"
        );
        let drifts = include_str!("../../tests/fixtures/traces/drifts.jsonl");
        let line = drifts
            .lines()
            .find(|l| l.contains("drift-unexplained"))
            .unwrap();
        let v: Value = serde_json::from_str(line).unwrap();
        let r = RunRecord::from_json(&v, "drift").unwrap();
        let t = with_graph(&engine, &v, &r, "cancelOrder");
        let changed: Vec<&Finding> = t
            .findings
            .iter()
            .filter(|f| matches!(f, Finding::ArtifactChanged { .. }))
            .collect();
        assert_eq!(changed.len(), 1, "{t:?}");
        assert!(changed[0].summary().contains("unexplained"), "{t:?}");
    }
}
