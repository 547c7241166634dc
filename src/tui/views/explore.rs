//! The explore screen's query line and candidates table: rank, marks (selected target `*`,
//! LLM target `L`), name, score, score chips (seed / graph / learning as numbers and bars),
//! badges A R M S C, matched terms and why the row is in the top-K.

use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::super::app::{App, PaneId};
use super::super::commands::{self, edit::Edit};
use super::super::text;
use super::super::theme::Role;
use super::table::{self, TRow, Table};
use super::{clean, glyphs, put_line, st};
use crate::output::row::RowView;

/// Draws the query line; returns the text cursor position while editing.
pub fn draw_query(app: &App, r: Rect, buf: &mut Buffer) -> Option<Position> {
    let g = glyphs(app);
    let prompt = if app.input_active { "/ " } else { "  " };
    let pst = if app.input_active {
        st(app, Role::Prompt)
    } else {
        st(app, Role::Muted)
    };
    let right = match (&app.lab_case, app.demo.pos) {
        (Some(c), _) if app.return_to.is_some() => {
            let from = app.return_to.map(|s| s.title()).unwrap_or("lab");
            format!(
                " {} {} {} (Esc: back) ",
                from.to_lowercase(),
                g.crumb_sep.trim(),
                clean(c)
            )
        }
        (_, Some(p)) => format!(" demo {}/{} ", p + 1, app.demo.steps.len()),
        _ => String::new(),
    };
    let rw = text::width(&right);
    let avail = (r.width as usize).saturating_sub(2 + rw);
    let q = clean(&app.query.text);
    let mut spans: Vec<Span<'static>> = vec![Span::styled(prompt.to_string(), pst)];
    let mut cursor_x = None;
    if q.is_empty() && !app.input_active {
        let ph = if app.demo.steps.is_empty() {
            "press / and type a query".to_string()
        } else {
            "press / and type a query, or n for the next demo query".to_string()
        };
        spans.push(Span::styled(
            text::truncate(&ph, avail, g.ellipsis),
            st(app, Role::Placeholder),
        ));
    } else {
        // scroll horizontally so the cursor stays visible
        let raw = &app.query.text;
        let before: String = raw.chars().take(app.query.cursor).collect();
        let after: String = raw.chars().skip(app.query.cursor).collect();
        let (shown, at) = text::input_view(&clean(&before), &clean(&after), avail);
        let selected = app.input_active && app.query.selected;
        let shown_w = text::width(&shown);
        // a fresh `/` selects the whole query: reverse video (in every colour mode, as
        // the terminal's own selection looks) and what typing will do, when it fits
        spans.push(Span::styled(
            shown,
            if selected {
                Style::default().add_modifier(Modifier::REVERSED)
            } else {
                Style::default()
            },
        ));
        let hint = format!(
            "  typing replaces; {} edits",
            commands::edit::keys_of(commands::edit::EDIT_KEYS, Edit::End, g).join("/")
        );
        if selected && shown_w + text::width(&hint) <= avail {
            spans.push(Span::styled(hint, st(app, Role::Muted)));
        }
        if app.input_active {
            cursor_x = Some(r.x + 2 + at as u16);
        }
    }
    put_line(buf, r, &Line::from(spans));
    if rw > 0 && r.width as usize > rw {
        buf.set_string(r.x + r.width - rw as u16, r.y, right, st(app, Role::Note));
    }
    cursor_x
        .filter(|x| *x < r.x + r.width)
        .map(|x| Position::new(x, r.y))
}

/// The table rows of the current retrieval (each row's projection,
/// [`crate::output::row::RowView`]).
pub fn table_rows(app: &App) -> Vec<TRow> {
    let (Some(ret), Some(engine)) = (app.retrieval(), app.engine.as_deref()) else {
        return Vec::new();
    };
    let selection = app.selection();
    RowView::all(engine, &ret.rows)
        .map(|v| TRow {
            target: selection.is_some_and(|x| x.selected_target == v.name),
            llm: selection.is_some_and(|x| x.llm_target.as_deref() == Some(v.name)),
            expected: app.whynot.is_expected(v.name),
            ..TRow::live(app, &v)
        })
        .collect()
}

/// The expected tool in the table's title: `? NAME` and its place — a rank in the
/// results, or its full rank when it is outside them (from the Why-not triage).
fn expected_title(app: &App) -> Vec<Span<'static>> {
    let wn = &app.whynot;
    let Some(first) = wn.expected.first() else {
        return Vec::new();
    };
    let t = wn.triage();
    let name = t.map(|t| t.expected.as_str()).unwrap_or(first);
    let selected = app.selection().is_some_and(|s| s.selected_target == name);
    // the place first: a narrow title keeps it when the name is cut
    let place = match t {
        Some(t) => match (t.rank, t.full_rank) {
            (Some(r), _) if selected => format!("#{r} selected "),
            (Some(r), _) => format!("#{r} "),
            (None, Some(f)) => format!("#{f} past top-K "),
            (None, None) => "unscored ".into(),
        },
        None => String::new(),
    };
    vec![
        Span::styled(format!("? {place}"), st(app, Role::Warn)),
        Span::styled(format!("{} ", clean(name)), Style::default()),
    ]
}

/// Draws the candidates table; returns the rows area and the first row shown.
pub fn draw_table(app: &App, r: Rect, buf: &mut Buffer, compact: bool) -> (Option<Rect>, usize) {
    let focused = (app.focus == PaneId::Candidates) || app.input_active;
    let mut title: Vec<Span<'static>> = Vec::new();
    if let Some(s) = app.selection()
        && !s.selected_target.is_empty()
    {
        title.push(Span::styled("* ", st(app, Role::MarkTarget)));
        title.push(Span::styled(
            format!("{} ", clean(&s.selected_target)),
            Style::default(),
        ));
        if let Some(l) = &s.llm_target {
            title.push(Span::styled("L ", st(app, Role::MarkLlm)));
            title.push(Span::styled(format!("{} ", clean(l)), Style::default()));
        }
        if s.overrode_llm {
            title.push(Span::styled("overrode LLM ", st(app, Role::Warn)));
        }
        if s.ambiguous {
            title.push(Span::styled("ambiguous ", st(app, Role::Bad)));
        }
    }
    title.extend(expected_title(app));
    let empty = match app.retrieval() {
        None => Some(if app.running() { "running…" } else { "" }.to_string()),
        Some(ret) if ret.rows.is_empty() => Some(if app.query.text.trim().is_empty() {
            "no query yet: press / and type one".to_string()
        } else {
            format!(
                "no result for {}: no BM25 hit and no substring match",
                crate::sanitize::quoted(&ret.query)
            )
        }),
        Some(_) => None,
    };
    let rows = table_rows(app);
    table::draw(
        app,
        r,
        buf,
        compact,
        &Table {
            name: " 1 Candidates",
            title,
            rows: &rows,
            selected: app.row,
            focused,
            empty,
        },
    )
}
