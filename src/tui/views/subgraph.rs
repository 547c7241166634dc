//! Subgraph pane: `subgraph_text`, the context the retrieval hands to the model, with its
//! size against the token budget.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::super::app::App;
use super::super::theme::Role;
use super::doc::Doc;
use super::{clean_lines, st};

pub fn doc(app: &App) -> Doc {
    let mut d = Doc::default();
    let Some(r) = app.retrieval() else {
        d.text(Line::styled("no retrieval yet", st(app, Role::Muted)));
        return d;
    };
    let chars = r.subgraph_text.chars().count();
    d.text(Line::styled(
        format!(
            "subgraph_text: {} lines, {chars} chars, ~{} of {} tokens{}",
            if r.subgraph_text.is_empty() {
                0
            } else {
                r.subgraph_text.lines().count()
            },
            r.stats.token_budget_used,
            r.params.token_budget,
            if r.subgraph_text.contains("\n... (truncated to ~") {
                " (truncated: b raises the budget)"
            } else {
                ""
            }
        ),
        st(app, Role::Muted),
    ));
    if r.subgraph_text.is_empty() {
        d.text(Line::styled("(empty)", st(app, Role::Muted)));
        return d;
    }
    for l in clean_lines(&r.subgraph_text) {
        let line = if let Some(rest) = l.strip_prefix("NODE ") {
            Line::from(vec![
                Span::styled("NODE ", st(app, Role::Section)),
                Span::raw(rest.to_string()),
            ])
        } else if let Some(rest) = l.strip_prefix("EDGE ") {
            // EDGE u --relation [CONF]--> v   (evidence)
            let (head, ev) = match rest.find("   (") {
                Some(i) => (&rest[..i], &rest[i..]),
                None => (rest, ""),
            };
            Line::from(vec![
                Span::styled("EDGE ", st(app, Role::Muted)),
                Span::styled(head.to_string(), st(app, Role::WhyGraph)),
                Span::styled(ev.to_string(), Style::default()),
            ])
        } else {
            Line::styled(l, st(app, Role::Warn))
        };
        d.text_indent(line, 5);
    }
    d
}
