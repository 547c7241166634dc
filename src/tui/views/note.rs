//! The narration overlay (`i`): the walkthrough step's section, query and presenter note in
//! full (wrapped), and the claims the walkthrough makes about the screen — checked against
//! the engine by the walkthrough's test — or a warning once parameters were changed.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::super::app::App;
use super::super::demo::Claim;
use super::super::text;
use super::super::theme::Role;
use super::{clean, glyphs, lines_box, st};

fn claim_text(c: &Claim) -> String {
    match c {
        Claim::Top(n) => format!("rank 1 is {}", clean(n)),
        Claim::Selected(n) => format!("the selector selects {}", clean(n)),
        Claim::Rank(n, r) => format!("{} is at rank {r}", clean(n)),
        Claim::Expanded(n) => format!("{} came in through graph expansion", clean(n)),
        Claim::Absent(n) => format!("{} is not among the candidates", clean(n)),
        Claim::Ambiguous(true) => "the decision is ambiguous".into(),
        Claim::Ambiguous(false) => "the decision is not ambiguous".into(),
        Claim::Decision(d) => format!("decision {}", clean(d)),
        Claim::Reason(r) => format!("reason code {}", clean(r)),
        Claim::Empty => "no candidates at all".into(),
    }
}

pub fn draw(app: &App, area: Rect, buf: &mut Buffer) {
    let g = glyphs(app);
    let Some((step, fresh)) = app.demo_on_screen() else {
        return;
    };
    let w = area.width.saturating_sub(4).min(90);
    let iw = w.saturating_sub(2) as usize;
    let mut lines: Vec<Line<'static>> = vec![
        Line::styled(clean(&step.section), st(app, Role::Section)),
        Line::from(vec![
            Span::styled("query ", st(app, Role::Muted)),
            Span::raw(crate::sanitize::quoted(&step.query)),
        ]),
    ];
    if let Some(l) = &step.llm_target {
        lines.push(Line::styled(
            format!("LLM target {}", clean(l)),
            st(app, Role::Muted),
        ));
    }
    if !step.history.is_empty() {
        lines.push(Line::styled(
            format!("history {}", clean(&step.history.join(", "))),
            st(app, Role::Muted),
        ));
    }
    lines.push(Line::default());
    if !step.note.is_empty() {
        lines.extend(text::wrap_line(&Line::raw(clean(&step.note)), iw, 0));
        lines.push(Line::default());
    }
    if fresh {
        lines.push(Line::styled(
            "On screen (checked by the tests):",
            st(app, Role::Muted),
        ));
        for c in &step.claims {
            lines.push(Line::raw(format!("  {} {}", g.dot, claim_text(c))));
        }
    } else {
        lines.extend(text::wrap_line(
            &Line::styled(
                "Parameters changed since this step: the narration describes the step's own \
                 parameters, not this screen. :demo N runs step N again with them; n goes on to \
                 the next step.",
                st(app, Role::Warn),
            ),
            iw,
            0,
        ));
    }
    lines_box(app, area, buf, w, " Narration (Esc closes) ".into(), &lines);
}
