//! Blame on the demo graph and an edited copy: the hybrids reproduce both graphs exactly,
//! the shares add up to every change, and a planted cause is found.
#![cfg(test)]

use super::plan::{GroupKind, Plan};
use super::*;
use crate::lab::graphdiff::tests::{demo_value, edited, engine_of};
use crate::lab::graphdiff::{Side, diff};

fn knobs() -> Knobs {
    Knobs::default()
}

fn case(id: &str, q: &str, expected: &[&str]) -> CaseSpec {
    CaseSpec {
        id: id.into(),
        query: q.into(),
        knobs: knobs(),
        expected: expected.iter().map(|s| s.to_string()).collect(),
    }
}

fn with_plan(f: impl FnOnce(&Plan<'_>)) {
    let (a, b) = (engine_of(&demo_value()), engine_of(&edited()));
    let d = diff(
        &Side {
            label: "old".into(),
            engine: &a,
        },
        &Side {
            label: "new".into(),
            engine: &b,
        },
    );
    let plan = Plan::new(&a, &b, &d);
    f(&plan);
}

#[test]
fn the_empty_and_the_full_hybrid_are_the_two_graphs() {
    with_plan(|plan| {
        // the edit moved cancelOrder's row, so the order is a group of its own
        assert!(plan.order.is_some());
        assert!(plan.corpus.is_some());
        let none = vec![false; plan.groups.len()];
        let all = vec![true; plan.groups.len()];
        let (h0, h1) = (plan.hybrid(&none), plan.hybrid(&all));
        for q in crate::demo::demo_queries().iter().take(60) {
            let k = knobs();
            assert_eq!(Outcome::of(&h0, q, &k), Outcome::of(plan.old, q, &k), "{q}");
            assert_eq!(Outcome::of(&h1, q, &k), Outcome::of(plan.new, q, &k), "{q}");
        }
        assert_eq!(h0.graph.tool_count(), plan.old.graph.tool_count());
        assert_eq!(h1.graph.edge_count(), plan.new.graph.edge_count());
    });
}

#[test]
fn assembled_hybrids_rank_as_hybrids_rebuilt_from_their_tools() {
    with_plan(|plan| {
        let n = plan.groups.len();
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        for round in 0..12 {
            let applied: Vec<bool> = (0..n)
                .map(|_| {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    rng.is_multiple_of(2)
                })
                .collect();
            let (fast, slow) = (plan.hybrid(&applied), plan.hybrid_rebuilt(&applied));
            for q in crate::demo::demo_queries().iter().skip(round * 5).take(5) {
                let k = knobs();
                assert_eq!(Outcome::of(&fast, q, &k), Outcome::of(&slow, q, &k), "{q}");
            }
        }
    });
}

#[test]
fn shares_add_up_and_every_changed_case_is_resolved() {
    with_plan(|plan| {
        let blamer = Blamer { plan };
        let mut changed = 0;
        for (i, q) in crate::demo::demo_queries().iter().enumerate().take(80) {
            let c = blamer.blame(&case(&format!("q{i}"), q, &[]));
            if !c.changed {
                assert!(c.shares.is_empty());
                continue;
            }
            changed += 1;
            assert!(c.resolved, "{q}: unresolved");
            for m in 0..METRICS {
                let sum: f64 = c.shares.iter().map(|s| s.effect[m]).sum();
                assert!(
                    (sum + c.residual[m] - c.delta[m]).abs() < 1e-9,
                    "{q} metric {m}"
                );
                assert!(
                    c.residual[m].abs() < 1e-9,
                    "{q} metric {m}: residual {}",
                    c.residual[m]
                );
            }
        }
        assert!(changed > 0, "the edit changed no demo query");
    });
}

#[test]
fn a_rewritten_description_is_blamed_for_the_move_it_caused() {
    with_plan(|plan| {
        let blamer = Blamer { plan };
        let c = blamer.blame(&case("refund", "order refund state", &["getOrder"]));
        assert!(c.changed, "{:?} -> {:?}", c.rows.0, c.rows.1);
        assert!(c.resolved);
        let top = &c.shares[0];
        let g = &plan.groups[top.groups[0] as usize];
        assert_eq!((g.kind, g.name.as_str()), (GroupKind::Document, "getOrder"));
        let line = report::headline(plan, &c);
        assert!(
            line.starts_with("getOrder rose 5 -> 1: 1.00 its document gained"),
            "{line}"
        );
        assert!(line.contains("'refund'"), "{line}");
        let v: serde_json::Value = serde_json::from_str(&report::json_line(plan, &c)).unwrap();
        assert_eq!(v["mechanism_status"], "resolved");
        assert_eq!(v["attribution"][0]["group"], "getOrder");
        let sum: f64 = v["attribution"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["effect"].as_f64().unwrap())
            .sum();
        let delta = v["new"]["expected_score"].as_f64().unwrap_or(0.0)
            - v["old"]["expected_score"].as_f64().unwrap_or(0.0);
        assert!((sum + v["residual"].as_f64().unwrap() - delta).abs() < 1e-9);
    });
}

#[test]
fn an_unchanged_case_has_nothing_to_attribute() {
    let a = engine_of(&demo_value());
    let d = diff(
        &Side {
            label: "a".into(),
            engine: &a,
        },
        &Side {
            label: "b".into(),
            engine: &a,
        },
    );
    let plan = Plan::new(&a, &a, &d);
    assert!(plan.groups.is_empty());
    let c = Blamer { plan: &plan }.blame(&case("x", "approve refund", &["approveRefund"]));
    assert!(!c.changed && c.resolved && c.shares.is_empty());
    assert_eq!(c.method, Method::None);
}

/// Every moved tool's move is split over the same players as the shares, the parts add up
/// to the move, and the tracked tool's parts are the shares' rank effects (the same value
/// function read off the same hybrids).
#[test]
fn every_moved_tool_is_split_over_the_players_of_the_case() {
    with_plan(|plan| {
        let blamer = Blamer { plan };
        let mut seen = 0;
        for (i, q) in crate::demo::demo_queries().iter().enumerate().take(80) {
            let c = blamer.blame(&case(&format!("q{i}"), q, &[]));
            if !c.changed {
                assert!(c.moved.is_empty());
                continue;
            }
            let top_k = knobs().params.top_k;
            for m in &c.moved {
                seen += 1;
                assert_ne!(m.rank.0, m.rank.1, "{q}: {} did not move", m.name);
                let sum: f64 = m.parts.iter().map(|p| p.1).sum();
                assert!((sum - m.delta(top_k)).abs() < 1e-9, "{q}: {}", m.name);
                assert!(m.residual.abs() < 1e-9, "{q}: {}", m.name);
                let (_, share) = m.top_part(top_k).expect("a part moved it");
                assert!(share > 0.0, "{q}: {}", m.name);
            }
            let tracked = c
                .old
                .tracked
                .as_deref()
                .filter(|t| c.new.tracked.as_deref() == Some(*t));
            if let Some(m) = tracked.and_then(|t| c.moved.iter().find(|m| m.name == t)) {
                for s in c.shares.iter().filter(|s| s.effect[RANK] != 0.0) {
                    let part = m.parts.iter().find(|p| p.0 == s.groups).map(|p| p.1);
                    let same = part.is_some_and(|p| (p - s.effect[RANK]).abs() < 1e-12);
                    assert!(same, "{q}: {:?} {part:?} {:?}", s.groups, s.effect);
                }
                assert_eq!(
                    m.parts.len(),
                    c.shares.iter().filter(|s| s.effect[RANK] != 0.0).count(),
                    "{q}"
                );
            }
        }
        assert!(seen > 0, "no demo query moved a tool");
    });
}
