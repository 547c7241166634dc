//! Trace pane: the query's recorded events (`engine::trace::record`, run on the evidence
//! worker) as a timeline — sequence, stage, kind, summary — filtered to the selected tool
//! (`a`: all events) and to one stage (`f` cycles). The event under the cursor shows its
//! structured fields.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::super::app::{App, PaneId};
use super::super::text;
use super::super::theme::Role;
use super::crumbs::{self, json_text};
use super::doc::{Doc, spans};
use super::{clean, glyphs, st};
use crate::tui::derive::{MAX_LISTED, events};

fn stage_role(stage: &str) -> Role {
    match stage {
        "query" | "bm25" => Role::Key,
        "seeds" => Role::WhySeed,
        "expand" => Role::WhyGraph,
        "learning" => Role::WhyLearning,
        "history" => Role::Warn,
        "selector" => Role::MarkTarget,
        _ => Role::Muted,
    }
}

pub fn doc(app: &App) -> Doc {
    let mut d = Doc::default();
    let g = glyphs(app);
    d.fit(crumbs::lines(app, PaneId::Trace));
    let Some(out) = &app.trace.out else {
        d.text(Line::styled(
            "recording the trace (the query re-runs on the worker)…",
            st(app, Role::Muted),
        ));
        return d;
    };
    let pending = app.trace.wanted != Some(out.generation);
    let total = out.trace.events.len();
    let shown = events(app);
    let who = match (app.trace.all, app.selected_row()) {
        (false, Some(r)) => format!("events about {}", clean(&r.name)),
        _ => "all events".to_string(),
    };
    let head = |hints: bool| {
        spans(vec![
            ("trace ".into(), st(app, Role::Muted)),
            (who.clone(), st(app, Role::Title)),
            (
                format!(
                    "  {} of {total}  stage {}",
                    shown.len(),
                    app.trace
                        .stage
                        .as_deref()
                        .map(clean)
                        .unwrap_or("all".into())
                ),
                Style::default(),
            ),
            (
                if !hints {
                    String::new()
                } else if app.trace.all {
                    "   (a: this tool, f: stage)".into()
                } else {
                    "   (a: all events, f: stage)".into()
                },
                st(app, Role::Muted),
            ),
            (
                if pending { "  recording…" } else { "" }.to_string(),
                st(app, Role::Warn),
            ),
        ])
    };
    d.fit(vec![head(true), head(false)]);
    if shown.is_empty() {
        d.text(Line::styled(
            "  no event matches the filters (a: all events, f: next stage)",
            st(app, Role::Muted),
        ));
        return d;
    }
    let cursor = app.pane(PaneId::Trace).cursor;
    for (i, e) in shown.iter().take(MAX_LISTED).enumerate() {
        d.item(Line::from(vec![
            Span::styled(text::fit_right(&e.seq.to_string(), 4), st(app, Role::Muted)),
            Span::raw(" "),
            Span::styled(
                text::fit(e.stage, 9, g.ellipsis),
                st(app, stage_role(e.stage)),
            ),
            Span::raw(" "),
            Span::styled(text::fit(e.kind, 20, g.ellipsis), st(app, Role::Key)),
            Span::raw(" "),
            Span::raw(clean(&e.summary)),
        ]));
        if i == cursor {
            if !e.entities.is_empty() {
                d.text_indent(
                    spans(vec![
                        ("      entities ".into(), st(app, Role::Muted)),
                        (
                            text::truncate(
                                &e.entities
                                    .iter()
                                    .map(|x| clean(x))
                                    .collect::<Vec<_>>()
                                    .join(", "),
                                240,
                                g.ellipsis,
                            ),
                            Style::default(),
                        ),
                    ]),
                    8,
                );
            }
            for (k, v) in &e.fields {
                d.text_indent(
                    spans(vec![
                        (format!("      {k} "), st(app, Role::JsonKey)),
                        (
                            text::truncate(&json_text(v), 240, g.ellipsis),
                            Style::default(),
                        ),
                    ]),
                    8,
                );
            }
        }
    }
    if shown.len() > MAX_LISTED {
        d.text(Line::styled(
            format!(
                "  … the first {MAX_LISTED} of {} events are listed (f filters by stage)",
                shown.len()
            ),
            st(app, Role::Muted),
        ));
    }
    d
}
