//! The breadcrumbs of the evidence drill-down path, explain → trace → counterfactual:
//! the steps taken so far (each with what it is about), the current one highlighted, the
//! ones not taken yet dimmed; `]` goes one step further, Esc or `[` one step back.

use ratatui::text::{Line, Span};
use serde_json::Value;

use super::super::app::{App, PaneId};
use super::super::drill::{base_knobs, show_value, variant_value};
use super::super::theme::Role;
use super::{clean, glyphs, st};
use crate::evidence::knobs::KNOBS;

/// What a step of the path is about (shown after its title once it is taken).
fn context(app: &App, p: PaneId) -> String {
    let tool = app
        .selected_row()
        .map(|r| clean(&r.name))
        .unwrap_or_default();
    match p {
        PaneId::Explain => format!("{tool} {}", app.explain.metric.id()),
        PaneId::Trace => {
            let who = if app.trace.all {
                "all events".to_string()
            } else {
                tool
            };
            match &app.trace.stage {
                Some(s) => format!("{who} in {}", clean(s)),
                None => who,
            }
        }
        PaneId::Counterfactual => {
            let knob = KNOBS[app.cf.knob];
            match base_knobs(app) {
                Some(b) => {
                    let v = variant_value(app, &b);
                    let from = show_value(&b.get(knob));
                    format!(
                        "{knob} {} {} {}",
                        clean(&from),
                        glyphs(app).arrow_out,
                        clean(&show_value(&v))
                    )
                }
                None => knob.to_string(),
            }
        }
        _ => String::new(),
    }
}

/// The breadcrumbs for the pane `here`, in a long and two shorter forms.
pub fn lines(app: &App, here: PaneId) -> Vec<Line<'static>> {
    let full = line(app, here, true, true);
    let no_keys = line(app, here, false, true);
    let short = line(app, here, false, false);
    vec![full, no_keys, short]
}

fn line(app: &App, here: PaneId, keys: bool, contexts: bool) -> Line<'static> {
    let g = glyphs(app);
    let mut spans: Vec<Span<'static>> = Vec::new();
    for (i, p) in PaneId::PATH.iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(g.crumb_sep.to_string(), st(app, Role::Muted)));
        }
        let taken = app.drill_path.contains(p);
        let (title_role, ctx_role) = if *p == here {
            (Role::TabActive, Role::Text)
        } else if taken {
            (Role::Key, Role::Text)
        } else {
            (Role::Muted, Role::Muted)
        };
        spans.push(Span::styled(p.title().to_string(), st(app, title_role)));
        if *p == here || (taken && contexts) {
            let c = context(app, *p);
            if !c.is_empty() {
                spans.push(Span::styled(format!(" {c}"), st(app, ctx_role)));
            }
        }
    }
    let back = app.drill_path.len() > 1;
    let next = here != PaneId::Counterfactual;
    if !keys {
        return Line::from(spans);
    }
    let keys = match (next, back) {
        (true, true) => "  (] next, Esc back)",
        (true, false) => "  (] next)",
        (false, true) => "  (Esc back)",
        (false, false) => "",
    };
    spans.push(Span::styled(keys.to_string(), st(app, Role::Muted)));
    Line::from(spans)
}

pub use crate::tui::text::num;

/// A JSON value as one line of text.
pub fn json_text(v: &Value) -> String {
    clean(&super::super::records::value_text(v))
}
