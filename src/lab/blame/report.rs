//! Blame written out: per case a headline ("getRefund fell 1 -> 4: 0.71 its document lost
//! 'refund'; 0.29 new tool listRefundsV2 ranks above it"), the suite's most moving change
//! groups, and the JSON Lines contract (one object per case; the README's "diff" section).

use std::fmt::Write;

use super::plan::{GroupKind, Plan};
use super::{AGREE, CaseBlame, Method, RANK, SCORE, SELECTED, Share, TOP1};
use crate::engine::query::QueryPlan;
use crate::jsonout::JsonWriter;
use crate::sanitize::line as clean;

/// Describes a share for one case: who changed what, in the case's terms.
pub fn share_label(plan: &Plan<'_>, c: &CaseBlame, s: &Share) -> String {
    if s.groups.len() > 1 {
        return format!("{} other changes together", s.groups.len());
    }
    let g = &plan.groups[s.groups[0] as usize];
    let tracked = c.new.tracked.as_deref().or(c.old.tracked.as_deref());
    let is_tracked = g.tool_slot.is_some()
        && tracked.is_some_and(|t| g.name == t || g.name.ends_with(&format!("-> {t}")));
    let who = if is_tracked {
        "its".to_string()
    } else {
        format!("{}'s", clean(&g.name))
    };
    match g.kind {
        GroupKind::Document | GroupKind::Renamed => {
            let terms = query_terms(plan, &c.query);
            let toks = g.tokens.as_ref();
            let pick = |list: Option<&Vec<(String, u32)>>| -> Vec<String> {
                list.map(|l| {
                    l.iter()
                        .filter(|(t, _)| terms.contains(t))
                        .map(|(t, _)| format!("'{}'", clean(t)))
                        .collect()
                })
                .unwrap_or_default()
            };
            let (lost, gained) = (pick(toks.map(|t| &t.lost)), pick(toks.map(|t| &t.gained)));
            let mut parts = Vec::new();
            if !lost.is_empty() {
                parts.push(format!("lost {}", lost.join(", ")));
            }
            if !gained.is_empty() {
                parts.push(format!("gained {}", gained.join(", ")));
            }
            if g.kind == GroupKind::Renamed {
                // "renamed A -> B", then what else changed, said once
                let rest: Vec<&str> = g
                    .what
                    .split(", ")
                    .filter(|w| *w != "renamed" && !w.is_empty())
                    .collect();
                let name = clean(&g.name);
                return match (parts.is_empty(), rest.is_empty()) {
                    (true, true) => format!("renamed {name} (not in the query's terms)"),
                    (true, false) => format!(
                        "renamed {name} ({}; not in the query's terms)",
                        clean(&rest.join(", "))
                    ),
                    (false, _) => format!("renamed {name}; its document {}", parts.join(" and ")),
                };
            }
            let doc = format!("{who} document");
            if parts.is_empty() {
                format!(
                    "{doc} changed ({}; not in the query's terms)",
                    clean(&g.what)
                )
            } else {
                format!("{doc} {}", parts.join(" and "))
            }
        }
        GroupKind::Added => {
            let above = match (c.new.expected_rank, rank_in_new(c, &g.name)) {
                (Some(t), Some(r)) if r < t && !is_tracked => " ranks above it",
                _ => "",
            };
            format!("new tool {}{above}", clean(&g.name))
        }
        GroupKind::Removed => format!("{} was removed", clean(&g.name)),
        GroupKind::Edge => format!("edge {}: {}", clean(&g.name), clean(&g.what)),
        GroupKind::Node => format!("node {}: {}", clean(&g.name), clean(&g.what)),
        GroupKind::Corpus => {
            let moves = idf_moves(plan, &c.query);
            if moves.is_empty() {
                "corpus statistics".into()
            } else {
                format!("corpus statistics ({})", moves.join(", "))
            }
        }
        GroupKind::Order => "the order the files list tools and edges in".into(),
    }
}

fn rank_in_new(c: &CaseBlame, name: &str) -> Option<usize> {
    c.rows.1.iter().position(|n| n == name).map(|i| i + 1)
}

/// The case's query terms (as BM25 sees them in either graph).
fn query_terms(plan: &Plan<'_>, query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in [plan.old, plan.new] {
        for t in QueryPlan::new(query, &e.index, e.tokenizer.as_ref()).tokens {
            if !out.contains(&t.text) {
                out.push(t.text);
            }
        }
    }
    out
}

/// `idf of 'refund' 2.10 -> 1.93` for the query terms whose idf moved.
fn idf_moves(plan: &Plan<'_>, query: &str) -> Vec<String> {
    let mut out = Vec::new();
    for t in query_terms(plan, query) {
        let (a, b) = (
            plan.old.index.term(&t).map(|i| plan.old.index.idf(i)),
            plan.new.index.term(&t).map(|i| plan.new.index.idf(i)),
        );
        if let (Some(a), Some(b)) = (a, b)
            && a != b
        {
            out.push(format!("idf of '{}' {a:.2} -> {b:.2}", clean(&t)));
        }
    }
    out.truncate(3);
    out
}

fn fmt_rank(r: Option<usize>) -> String {
    r.map_or("-".into(), |r| r.to_string())
}

/// The headline of a changed case.
pub fn headline(plan: &Plan<'_>, c: &CaseBlame) -> String {
    let m = c.primary();
    let tracked = clean(
        c.new
            .tracked
            .as_deref()
            .or(c.old.tracked.as_deref())
            .unwrap_or("?"),
    );
    let stays = match (c.old.expected_rank, c.new.expected_rank) {
        (Some(a), Some(b)) if a == b => format!(" ({tracked} stays at {a})"),
        (None, None) => format!(" ({tracked} not in the top {} of either)", c.rows.1.len()),
        _ => String::new(),
    };
    let what = match m {
        RANK => {
            let (a, b) = (c.old.expected_rank, c.new.expected_rank);
            let verb = match (a, b) {
                (Some(x), Some(y)) if y > x => "fell",
                (Some(_), Some(_)) => "rose",
                (None, Some(_)) => "entered",
                _ => "dropped out",
            };
            format!("{tracked} {verb} {} -> {}", fmt_rank(a), fmt_rank(b))
        }
        SCORE => format!(
            "{tracked} scored {} -> {}",
            c.old.expected_score.map_or("-".into(), |s| s.to_string()),
            c.new.expected_score.map_or("-".into(), |s| s.to_string())
        ),
        TOP1 => format!(
            "top-1 {} -> {}",
            clean(c.old.top1.as_deref().unwrap_or("-")),
            clean(c.new.top1.as_deref().unwrap_or("-"))
        ),
        SELECTED => format!(
            "selected {} -> {}",
            clean(&c.old.selected),
            clean(&c.new.selected)
        ),
        _ if c.delta[AGREE] != 0.0 => format!(
            "{} of the top {} places hold another tool{stays}",
            c.delta[AGREE] as usize,
            c.rows.1.len()
        ),
        _ => format!("the selector's reasons changed{stays}"),
    };
    let total = c.delta[m];
    let causes: Vec<String> = c
        .shares
        .iter()
        .filter(|s| s.effect[m] != 0.0)
        .take(3)
        .map(|s| {
            let share = if total != 0.0 {
                s.effect[m] / total
            } else {
                0.0
            };
            format!("{share:.2} {}", share_label(plan, c, s))
        })
        .collect();
    if causes.is_empty() {
        what
    } else {
        format!("{what}: {}", causes.join("; "))
    }
}

/// The human report of a suite: changed cases with their headlines, then the groups that
/// moved the most cases.
pub fn text(plan: &Plan<'_>, cases: &[CaseBlame], limit: usize) -> String {
    let mut out = String::new();
    let changed: Vec<&CaseBlame> = cases.iter().filter(|c| c.changed).collect();
    let unresolved = changed.iter().filter(|c| !c.resolved).count();
    let sampled = changed
        .iter()
        .filter(|c| matches!(c.method, Method::Sampled { .. }))
        .count();
    let worst = changed
        .iter()
        .map(|c| c.residual[SCORE].abs())
        .fold(0.0f64, f64::max);
    let _ = writeln!(
        out,
        "blame     {} case{}, {} changed ({} resolved{}), largest score residual {}",
        cases.len(),
        if cases.len() == 1 { "" } else { "s" },
        changed.len(),
        changed.len() - unresolved,
        if sampled > 0 {
            format!(", {sampled} estimated by sampling")
        } else {
            String::new()
        },
        if worst == 0.0 {
            "0".to_string()
        } else {
            format!("{worst:.1e}")
        }
    );
    // a missing expected tool that was renamed says so: the case tracks it under its
    // other name
    let renames: Vec<(&str, &str)> = plan
        .groups
        .iter()
        .filter(|g| g.kind == GroupKind::Renamed)
        .filter_map(|g| g.name.split_once(" -> "))
        .collect();
    let listed = |names: &[String], new_side: bool| -> String {
        if names.is_empty() {
            return "-".into();
        }
        let each: Vec<String> = names
            .iter()
            .map(|n| {
                let other = renames.iter().find_map(|(from, to)| {
                    if new_side {
                        (from == n).then(|| format!(" (renamed {to})"))
                    } else {
                        (to == n).then(|| format!(" (was {from})"))
                    }
                });
                format!("{n}{}", other.unwrap_or_default())
            })
            .collect();
        clean(&each.join(", "))
    };
    for c in cases {
        let (a, b) = (&c.missing.0, &c.missing.1);
        if !a.is_empty() || !b.is_empty() {
            let _ = writeln!(
                out,
                "          {}: expected tools missing from OLD: {}; from NEW: {}",
                clean(&c.id),
                listed(a, false),
                listed(b, true),
            );
        }
    }
    let shown = if limit == 0 {
        changed.len()
    } else {
        limit.min(changed.len())
    };
    if shown > 0 {
        let _ = writeln!(out, "\nChanged cases");
    }
    for c in &changed[..shown] {
        let _ = writeln!(out, "  {}  \"{}\"", clean(&c.id), clean(&c.query));
        let _ = writeln!(out, "      {}", headline(plan, c));
        let mut notes = Vec::new();
        if c.old.top1 != c.new.top1 && c.primary() != TOP1 {
            notes.push(format!(
                "top-1 {} -> {}",
                clean(c.old.top1.as_deref().unwrap_or("-")),
                clean(c.new.top1.as_deref().unwrap_or("-"))
            ));
        }
        if c.old.selected != c.new.selected && c.primary() != SELECTED {
            notes.push(format!(
                "selected {} -> {}",
                clean(&c.old.selected),
                clean(&c.new.selected)
            ));
        }
        if let Method::Sampled { samples, bound } = &c.method {
            let total = c.delta[c.primary()].abs();
            let b = if total > 0.0 {
                bound[c.primary()] / total
            } else {
                0.0
            };
            notes.push(if b < 0.001 {
                format!("estimated from {samples} orders, shares within ±0.001 (95%)")
            } else {
                format!("estimated from {samples} orders, shares within ±{b:.3} (95%)")
            });
        }
        if !c.resolved {
            notes.push("unresolved: the hybrids did not reproduce both graphs".into());
        }
        if !notes.is_empty() {
            let _ = writeln!(out, "      {}", notes.join("; "));
        }
    }
    if changed.len() > shown {
        let _ = writeln!(
            out,
            "  … {} more (--limit 0 lists all)",
            changed.len() - shown
        );
    }
    let top = top_groups(cases);
    if !top.is_empty() {
        let _ = writeln!(out, "\nChanges that moved the most cases");
        for (g, n) in top.iter().take(if limit == 0 { usize::MAX } else { limit }) {
            let grp = &plan.groups[*g as usize];
            if grp.name == grp.kind.as_str() {
                // a group without a subject (the corpus statistics): its description says it all
                let _ = writeln!(out, "  {n:>4}  {}", clean(&grp.what));
            } else {
                let _ = writeln!(
                    out,
                    "  {n:>4}  {} {}  ({})",
                    grp.kind.as_str(),
                    clean(&grp.name),
                    clean(&grp.what)
                );
            }
        }
    }
    out
}

/// Per group, how many changed cases it moved (a nonzero share of the primary metric).
pub fn top_groups(cases: &[CaseBlame]) -> Vec<(u32, usize)> {
    let mut counts: rustc_hash::FxHashMap<u32, usize> = Default::default();
    for c in cases.iter().filter(|c| c.changed) {
        let m = c.primary();
        for s in &c.shares {
            if s.groups.len() == 1 && s.effect[m] != 0.0 {
                *counts.entry(s.groups[0]).or_default() += 1;
            }
        }
    }
    let mut v: Vec<(u32, usize)> = counts.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

fn side_json(w: &mut JsonWriter, s: &super::SideView) {
    w.begin_obj();
    w.key("top1").opt_str(s.top1.as_deref());
    w.key("selected").str(&s.selected);
    w.key("tracked").opt_str(s.tracked.as_deref());
    w.key("expected_rank");
    match s.expected_rank {
        Some(r) => w.int(r as i64),
        None => w.null(),
    };
    w.key("expected_score").opt_f64(s.expected_score);
    w.end_obj();
}

/// One case as one JSON line (the contract).
pub fn json_line(plan: &Plan<'_>, c: &CaseBlame) -> String {
    let mut w = JsonWriter::new();
    w.begin_obj();
    w.key("case_id").str(&c.id);
    w.key("query").str(&c.query);
    w.key("changed").bool(c.changed);
    w.key("scores_changed").bool(c.scores_changed);
    w.key("tracked_is_expected").bool(c.tracked_expected);
    w.key("old");
    side_json(&mut w, &c.old);
    w.key("new");
    side_json(&mut w, &c.new);
    w.key("attribution").begin_arr();
    for s in &c.shares {
        w.begin_obj();
        if s.groups.len() == 1 {
            let g = &plan.groups[s.groups[0] as usize];
            w.key("group").str(&g.name);
            w.key("kind").str(g.kind.as_str());
            w.key("what").str(&g.what);
        } else {
            w.key("group")
                .str(&format!("{} other changes", s.groups.len()));
            w.key("kind").str("merged");
            let names: Vec<&str> = s
                .groups
                .iter()
                .map(|&g| plan.groups[g as usize].name.as_str())
                .collect();
            w.key("groups").str_list(&names);
        }
        w.key("label").str(&share_label(plan, c, s));
        w.key("effect").f64(s.effect[SCORE]);
        w.key("rank_effect").f64(s.effect[RANK]);
        w.key("top1_effect").f64(s.effect[TOP1]);
        w.key("selection_effect").f64(s.effect[SELECTED]);
        w.key("ranking_effect").f64(s.effect[AGREE]);
        w.end_obj();
    }
    w.end_arr();
    w.key("residual").f64(c.residual[SCORE]);
    w.key("residuals").begin_obj();
    for (k, m) in [
        ("score", SCORE),
        ("rank", RANK),
        ("top1", TOP1),
        ("selection", SELECTED),
        ("ranking", AGREE),
    ] {
        w.key(k).f64(c.residual[m]);
    }
    w.end_obj();
    w.key("mechanism_status")
        .str(if c.resolved { "resolved" } else { "unresolved" });
    w.key("method").str(match c.method {
        Method::None => "none",
        Method::Exact => "exact",
        Method::Sampled { .. } => "sampled",
    });
    if let Method::Sampled { samples, bound } = &c.method {
        w.key("samples").int(*samples as i64);
        w.key("error_bound").f64(bound[SCORE]);
    }
    w.key("evaluations").int(c.evaluations as i64);
    w.key("touching_groups").int(c.touching as i64);
    w.key("players").int(c.players as i64);
    if !c.missing.0.is_empty() || !c.missing.1.is_empty() {
        w.key("expected_missing").begin_obj();
        w.key("old").str_list(&c.missing.0);
        w.key("new").str_list(&c.missing.1);
        w.end_obj();
    }
    if c.changed {
        w.key("headline").str(&headline(plan, c));
    }
    w.end_obj();
    w.finish()
}
