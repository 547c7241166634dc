//! Readable plain-text tables for the command line (sanitised, no colour).

use std::fmt::Write;

use crate::engine::select::Selection;
use crate::engine::{Engine, Retrieval, RowOrigin};
use crate::sanitize::line;

/// One-letter badges for action/resource/module/shape/contract matches ("A R M S C").
pub fn badges(s: &crate::engine::semantic::SemanticEvidence) -> String {
    let mut out = String::new();
    for (on, c) in [
        (s.action_match, 'A'),
        (s.resource_match, 'R'),
        (s.module_match, 'M'),
        (s.shape_match, 'S'),
        (s.contract_match, 'C'),
    ] {
        out.push(if on { c } else { '.' });
    }
    out
}

/// "seed #k", "← relation [CONF] from X" or "learning" for a row.
pub fn why(engine: &Engine, origin: &RowOrigin) -> String {
    match origin {
        RowOrigin::Seed { rank, .. } => format!("seed #{rank}"),
        RowOrigin::Expanded { from, edge, .. } => {
            let a = &engine.graph.edge(*edge).attrs;
            let rel = a.relation_str().unwrap_or("(none)");
            let conf = a
                .confidence_str()
                .map(|c| format!(" [{c}]"))
                .unwrap_or_default();
            format!(
                "<- {rel}{conf} from {}",
                line(engine.graph.node_name(*from))
            )
        }
        RowOrigin::LearningOnly => "learning".into(),
    }
}

fn trunc(s: &str, n: usize) -> String {
    let count = s.chars().count();
    if count <= n {
        return s.to_string();
    }
    let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
    t.push('~');
    t
}

pub fn retrieval_table(engine: &Engine, r: &Retrieval) -> String {
    let mut out = String::new();
    let g = &engine.graph;
    let _ = writeln!(
        out,
        "{} - {} tools, {} edges | query {:?}",
        line(&g.info.source),
        g.tool_count(),
        g.edge_count(),
        line(&r.query)
    );
    if r.rows.is_empty() {
        let _ = writeln!(out, "no result (no BM25 hit and no substring match)");
        return out;
    }
    let _ = writeln!(
        out,
        "intent {} (read {:.3} write {:.3} delete {:.3}) | seeds {}{} | visited {} nodes, {} edges | budget {}/{} tokens{}",
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
        r.stats.visited_nodes,
        r.stats.visited_edges,
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
    for (i, row) in r.rows.iter().enumerate() {
        let b = &row.breakdown;
        let _ = writeln!(
            out,
            "{:>3}  {:<34} {:>7.4} {:>7.4} {:>7.4} {:>6.3}  {:<5}  {}{}",
            i + 1,
            trunc(&line(&row.name), 34),
            row.rounded_score(),
            b.seed,
            b.graph,
            b.learning,
            badges(&row.semantic),
            why(engine, &row.origin),
            if b.history_demoted {
                " (history-demoted)"
            } else {
                ""
            }
        );
        if !row.semantic.matched_terms.is_empty() {
            let _ = writeln!(
                out,
                "{:>5}{:<34} matched: {}",
                "",
                "",
                line(&row.semantic.matched_terms.join(", "))
            );
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
        line(&s.policy)
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
            format!(
                "{:?}",
                s.ambiguity_set.iter().map(|x| line(x)).collect::<Vec<_>>()
            )
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
