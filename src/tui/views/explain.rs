//! Explain pane: the selected row's reported value as a checked decomposition tree
//! (`engine::explain`) — every node with its value and typed combinator (sum, product,
//! max, weighted, normalize, bm25_term, round, clamp), a residual check per node, and
//! `mechanism_status` up front. Enter/Space or ←/→ fold and unfold; `v` switches to the
//! flat chip view (the leaves as chips); `m` switches the metric.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::super::app::{App, PaneId};
use super::super::theme::Role;
use super::crumbs::{self, num};
use super::doc::{Doc, spans};
use super::{clean, glyphs, st};
use crate::engine::explain::{Explanation, Status, TOLERANCE};
pub use crate::tui::derive::op_label;
use crate::tui::derive::{VisNode, visible};
use crate::tui::drill::ExplainOut;

/// A residual for people: `0` when it is exactly zero, else one significant digit in
/// scientific form (`3.0e-17`).
pub fn residual_text(r: f64) -> String {
    if r == 0.0 {
        "0".to_string()
    } else {
        format!("{r:.1e}")
    }
}

fn status_role(s: Status) -> Role {
    match s {
        Status::Resolved => Role::Good,
        Status::Partial => Role::Warn,
        Status::Unresolved => Role::Bad,
    }
}

/// `✓` or `✗ Δ…` for a node with children.
fn check_mark(app: &App, e: &Explanation) -> Option<(String, Role)> {
    let g = glyphs(app);
    let v = e.combine()?;
    let d = (v - e.value).abs();
    Some(if d <= TOLERANCE || (v.is_nan() && e.value.is_nan()) {
        (g.check.to_string(), Role::Good)
    } else {
        (format!("{} {}{d:.2e}", g.cross, g.delta), Role::Bad)
    })
}

pub fn doc(app: &App) -> Doc {
    let mut d = Doc::default();
    d.fit(crumbs::lines(app, PaneId::Explain));
    let Some(row) = app.selected_row() else {
        d.text(Line::styled(
            "no candidate selected: type a query with /",
            st(app, Role::Muted),
        ));
        return d;
    };
    let metric = app.explain.metric;
    let pending = app.explain.wanted.as_ref() != app.explain.out.as_ref().map(|o| &o.key);
    let about = if metric.per_row() {
        format!(" of {}", clean(&row.name))
    } else {
        " of the selection".to_string()
    };
    let metric_line = |hints: bool| {
        spans(vec![
            ("metric ".into(), st(app, Role::Muted)),
            (metric.id().to_string(), st(app, Role::Title)),
            (about.clone(), Style::default()),
            (
                if !hints {
                    String::new()
                } else if app.explain.chips {
                    "   (m: metric, v: tree view)".into()
                } else {
                    "   (m: metric, v: chip view)".into()
                },
                st(app, Role::Muted),
            ),
            (
                if pending { "  computing…" } else { "" }.to_string(),
                st(app, Role::Warn),
            ),
        ])
    };
    d.fit(vec![metric_line(true), metric_line(false)]);
    let Some(out) = &app.explain.out else {
        d.text(Line::styled(
            "computing the explanation…",
            st(app, Role::Muted),
        ));
        return d;
    };
    let Some(tree) = out.tree.as_deref() else {
        d.text(spans(vec![
            ("mechanism_status ".into(), st(app, Role::Muted)),
            ("n/a".into(), st(app, Role::Warn)),
            (
                format!("  no tree: {}", clean(&out.missing)),
                st(app, Role::Muted),
            ),
        ]));
        return d;
    };
    status(&mut d, app, out);
    if app.explain.chips {
        chips(app, tree, &mut d);
        return d;
    }
    tree_rows(&mut d, app);
    d
}

/// The status, prominently, with the residual check and the first failures.
fn status(d: &mut Doc, app: &App, out: &ExplainOut) {
    let g = glyphs(app);
    let (mark, check) = if out.failures.is_empty() {
        (
            g.check,
            format!(
                "residual check: {} nodes add up (max |residual| {} <= 1e-9)",
                out.checked,
                residual_text(out.max_residual)
            ),
        )
    } else {
        (
            g.cross,
            format!(
                "residual check: {} of {} nodes do not add up (max |residual| {:.2e})",
                out.failures.len(),
                out.checked,
                out.max_residual
            ),
        )
    };
    d.text_indent(
        spans(vec![
            ("mechanism_status ".into(), st(app, Role::Muted)),
            (
                format!(" {} ", out.status.as_str().to_uppercase()),
                st(app, status_role(out.status)).patch(st(app, Role::TabActive)),
            ),
            (format!(" {mark} "), st(app, status_role(out.status))),
            (check, Style::default()),
        ]),
        4,
    );
    for f in out.failures.iter().take(5) {
        d.text_indent(
            Line::styled(format!("  {} {}", g.cross, clean(f)), st(app, Role::Bad)),
            4,
        );
    }
}

/// The tree view: one item per visible node, the node under the cursor with its facts.
fn tree_rows(d: &mut Doc, app: &App) {
    let vis = visible(app);
    let cursor = app.pane(PaneId::Explain).cursor;
    for (i, v) in vis.iter().enumerate() {
        d.item(node_line(app, v));
        if i == cursor {
            node_facts(d, app, v);
        }
    }
}

/// One node's line: tree guide, fold mark, label, value, combinator, weight, gap, check.
fn node_line(app: &App, v: &VisNode) -> Line<'static> {
    let g = glyphs(app);
    let e = v.node;
    let mut guide = String::new();
    for (lvl, last) in v.lasts.iter().enumerate() {
        let is_self = lvl + 1 == v.lasts.len();
        guide.push_str(match (is_self, *last) {
            (true, true) => g.tree_last,
            (true, false) => g.tree_branch,
            (false, true) => "   ",
            (false, false) => g.tree_pipe,
        });
    }
    let fold = if e.children.is_empty() {
        " ".to_string()
    } else if v.open {
        g.fold_open.to_string()
    } else {
        g.fold_closed.to_string()
    };
    let mut sp: Vec<Span<'static>> = vec![
        Span::styled(guide, st(app, Role::Border)),
        Span::styled(format!("{fold} "), st(app, Role::Key)),
        Span::styled(
            clean(&e.label),
            if v.depth == 0 {
                st(app, Role::Title)
            } else {
                Style::default()
            },
        ),
        Span::styled(format!(" = {}", num(e.value)), st(app, Role::Score)),
    ];
    let op = op_label(&e.op);
    if !op.is_empty() {
        sp.push(Span::styled(format!(" [{op}]"), st(app, Role::Key)));
    }
    if let Some(w) = e.weight {
        sp.push(Span::styled(
            format!(" {}{}", g.times, num(w)),
            st(app, Role::Muted),
        ));
    }
    if let Some(gap) = e.gap {
        sp.push(Span::styled(
            format!(" ({})", gap.as_str()),
            st(app, status_role(gap)),
        ));
    }
    if let Some((m, role)) = check_mark(app, e) {
        sp.push(Span::styled(format!(" {m}"), st(app, role)));
    }
    if !v.open && !e.children.is_empty() {
        sp.push(Span::styled(
            format!(" ({} folded)", e.children.len()),
            st(app, Role::Muted),
        ));
    }
    Line::from(sp)
}

/// The node under the cursor: its exact value and what it stands for.
fn node_facts(d: &mut Doc, app: &App, v: &VisNode) {
    let e = v.node;
    let pad = " ".repeat(3 * v.depth + 4);
    let mut facts = format!("{pad}value {}", e.value);
    if let Some(c) = e.combine() {
        facts.push_str(&format!(
            "; {} of {} gives {c} (residual {})",
            e.op.name(),
            if e.children.len() == 1 {
                "1 child".to_string()
            } else {
                format!("{} children", e.children.len())
            },
            residual_text((c - e.value).abs())
        ));
    }
    d.text_indent(Line::styled(facts, st(app, Role::Muted)), pad.len() + 2);
    if let Some(det) = &e.detail {
        d.text_indent(
            Line::styled(format!("{pad}{}", clean(det)), st(app, Role::Note)),
            pad.len() + 2,
        );
    }
}

/// The flat view: every leaf as a chip, grouped under its parent.
fn chips(app: &App, tree: &Explanation, d: &mut Doc) {
    d.text(Line::styled(
        format!(
            "{} = {} [{}]",
            clean(&tree.label),
            num(tree.value),
            op_label(&tree.op)
        ),
        st(app, Role::Title),
    ));
    fn go(app: &App, e: &Explanation, d: &mut Doc) {
        let leaves: Vec<&Explanation> = e
            .children
            .iter()
            .filter(|c| c.children.is_empty())
            .collect();
        if !leaves.is_empty() {
            let mut sp: Vec<Span<'static>> = vec![Span::styled(
                format!("  {} [{}] ", clean(&e.label), op_label(&e.op)),
                st(app, Role::Section),
            )];
            for l in leaves {
                let role = if l.value < 0.0 || l.weight.is_some_and(|w| w < 0.0) {
                    Role::Bad
                } else if l.value == 0.0 {
                    Role::Muted
                } else {
                    Role::ChipSeed
                };
                sp.push(Span::raw(" "));
                sp.push(Span::styled(
                    format!("[{} {}]", clean(&l.label), num(l.value)),
                    st(app, role),
                ));
            }
            d.text_indent(Line::from(sp), 4);
        }
        for c in e.children.iter().filter(|c| !c.children.is_empty()) {
            go(app, c, d);
        }
    }
    if tree.children.is_empty() {
        d.text(Line::styled(
            format!(
                "  [{} {}]  {}",
                clean(&tree.label),
                num(tree.value),
                tree.detail.as_deref().map(clean).unwrap_or_default()
            ),
            st(app, Role::ChipSeed),
        ));
        return;
    }
    go(app, tree, d);
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_zero_residual_reads_0() {
        assert_eq!(super::residual_text(0.0), "0");
        assert_eq!(super::residual_text(-0.0), "0");
        assert_eq!(super::residual_text(3.0e-17), "3.0e-17");
    }
}
