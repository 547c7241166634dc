//! Readable plain-text tables for the command line (sanitised, no colour).

use std::fmt::Write;

use super::row::{RowView, badge_text};
use crate::engine::select::Selection;
use crate::engine::{Engine, Retrieval};
use crate::sanitize::{line, quoted};

fn trunc(s: &str, n: usize) -> String {
    let count = s.chars().count();
    if count <= n {
        return s.to_string();
    }
    let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
    t.push('~');
    t
}

/// `1 record`, `2 records`: a count with its noun (`noun` + `s` unless the count is 1).
pub fn count(n: u64, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

pub fn retrieval_table(engine: &Engine, r: &Retrieval) -> String {
    let mut out = String::new();
    let g = &engine.graph;
    let _ = writeln!(
        out,
        // the query quoted as the sanitiser shows it (`{:?}` would double its `\x1b`)
        "{} - {}, {} | query \"{}\"",
        line(&g.info.source),
        crate::sanitize::count(g.tool_count() as u64, "tool"),
        crate::sanitize::count(g.edge_count() as u64, "edge"),
        line(&r.query)
    );
    if r.rows.is_empty() {
        let _ = writeln!(out, "no result (no BM25 hit and no substring match)");
        return out;
    }
    let _ = writeln!(
        out,
        "intent {} (read {:.3} write {:.3} delete {:.3}) | seeds {}{} | visited {}, {} | budget {}/{} tokens{}",
        r.intent_label.as_str(),
        r.intent.read,
        r.intent.write,
        r.intent.delete,
        r.stats.seeds.len(),
        if r.used_fallback {
            " (substring fallback)"
        } else {
            ""
        },
        crate::sanitize::count(r.stats.visited_nodes as u64, "node"),
        crate::sanitize::count(r.stats.visited_edges as u64, "edge"),
        r.stats.token_budget_used,
        r.params.token_budget,
        if r.stats.learning_applied {
            " | learning applied"
        } else {
            ""
        }
    );
    let _ = writeln!(
        out,
        "{:>3}  {:<34} {:>7} {:>7} {:>7} {:>6}  {:<5}  why",
        "#", "tool", "score", "seed", "graph", "learn", "ARMSC"
    );
    for v in RowView::all(engine, &r.rows) {
        let [seed, graph, learning] = v.chips;
        let _ = writeln!(
            out,
            "{:>3}  {:<34} {:>7.4} {:>7.4} {:>7.4} {:>6.3}  {:<5}  {}",
            v.rank,
            trunc(&line(v.name), 34),
            v.rounded,
            seed,
            graph,
            learning,
            badge_text(&v.badges_known(), "."),
            v.table_why(),
        );
        let matched = v.matched_list();
        if !matched.is_empty() {
            let _ = writeln!(out, "{:>5}{:<34} matched: {matched}", "", "");
        }
    }
    out
}

pub fn selection_summary(s: &Selection) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "selector: {} (confidence {:.6}) | decision {} -> {} | policy {}",
        line(&s.selected_target),
        s.confidence,
        s.decision,
        s.recommended_action,
        line(s.policy.as_str())
    );
    let _ = writeln!(
        out,
        "  llm target {} | overrode {} | ambiguous {} {} | margin {:.6}{}",
        s.llm_target
            .as_deref()
            .map(line)
            .unwrap_or_else(|| "-".into()),
        s.overrode_llm,
        s.ambiguous,
        if s.ambiguity_set.len() > 1 {
            let names: Vec<String> = s.ambiguity_set.iter().map(|x| quoted(x)).collect();
            format!("[{}]", names.join(", "))
        } else {
            String::new()
        },
        s.margin,
        s.llm_margin
            .map(|m| format!(" | llm margin {m:.6}"))
            .unwrap_or_default()
    );
    let _ = writeln!(out, "  reason codes: {}", s.reason_codes.join(", "));
    for c in &s.rows {
        let mark = match (c.selected, c.llm_target) {
            (true, true) => "*L",
            (true, false) => "* ",
            (false, true) => " L",
            _ => "  ",
        };
        let ev: Vec<String> = c
            .evidence
            .iter()
            .map(|e| format!("{} {:+.3}", e.source, e.score))
            .collect();
        let _ = writeln!(
            out,
            "  {mark} {:<34} {:>8.6}  {}",
            trunc(&line(&c.name), 34),
            c.selector_score,
            ev.join(", ")
        );
    }
    out
}
