//! The explore screen's query line and candidates table: rank, marks (selected target `*`,
//! LLM target `L`), name, score, score chips (seed / graph / learning as numbers and bars),
//! badges A R M S C, matched terms and why the row is in the top-K.

use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use super::super::app::{App, PaneId};
use super::super::text;
use super::super::theme::Role;
use super::{block, clean, glyphs, put_line, st};
use crate::engine::{Row, RowOrigin};

/// Draws the query line; returns the text cursor position while editing.
pub fn draw_query(app: &App, r: Rect, buf: &mut Buffer) -> Option<Position> {
    let g = glyphs(app);
    let prompt = if app.input_active { "/ " } else { "  " };
    let pst = if app.input_active {
        st(app, Role::Prompt)
    } else {
        st(app, Role::Muted)
    };
    let right = match app.demo.pos {
        Some(p) => format!(" demo {}/{} ", p + 1, app.demo.steps.len()),
        None => String::new(),
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
        let chars: Vec<char> = q.chars().collect();
        let cur = app.query.cursor.min(chars.len());
        let before: String = chars[..cur].iter().collect();
        let bw = text::width(&before);
        let skip_w = bw.saturating_sub(avail.saturating_sub(1));
        let mut skipped = 0usize;
        let mut start = 0usize;
        while start < chars.len() && skipped < skip_w {
            skipped += text::width(&chars[start].to_string());
            start += 1;
        }
        let visible: String = chars[start..].iter().collect();
        let shown = text::take_width(&visible, avail);
        spans.push(Span::styled(shown, Style::default()));
        if app.input_active {
            let vis_before: String = chars[start..cur].iter().collect();
            cursor_x = Some(r.x + 2 + text::width(&vis_before) as u16);
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

/// Column widths for a table width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cols {
    pub name: usize,
    /// 0: no chips; 4: numbers; 8: numbers and bars.
    pub chip: usize,
    pub matched: usize,
    pub why: usize,
}

const MARK: usize = 2;
const RANK: usize = 3;
const SCORE: usize = 6;
const BADGES: usize = 5;

pub fn columns(width: usize, name_need: usize) -> Cols {
    // mark rank name score [chips x3] badges [matched] why, one space between columns
    let fixed = MARK + RANK + 1 + 1 + SCORE + 1 + BADGES + 1;
    let rest = width.saturating_sub(fixed);
    let (min_name, min_why) = (14usize, 14usize);
    let mut c = Cols {
        name: 0,
        chip: 0,
        matched: 0,
        why: 0,
    };
    let mut left = rest;
    if left >= min_name + min_why + 3 * 5 {
        c.chip = 4;
        left -= 3 * 5;
    }
    if c.chip == 4 && left >= min_name + min_why + 3 * 4 + 12 + 1 + 20 {
        c.chip = 8;
        left -= 3 * 4;
    }
    if left >= min_name + min_why + 13 + 20 {
        c.matched = (left - min_name - min_why - 1).clamp(12, 18);
        left -= c.matched + 1;
    }
    // the name column takes what the longest name needs (up to 30), the rest goes to why
    let name_max = left.saturating_sub(min_why).clamp(min_name.min(left), 30);
    c.name = name_need.clamp(min_name.min(left), name_max);
    c.why = left.saturating_sub(c.name);
    c
}

/// "seed #k", "← relation [CONF] from X" or "learning" (+ history mark).
pub fn why(app: &App, row: &Row) -> (String, Role) {
    let g = glyphs(app);
    let Some(engine) = &app.engine else {
        return (String::new(), Role::Muted);
    };
    let (s, role) = match &row.origin {
        RowOrigin::Seed { rank, .. } => (format!("seed #{rank}"), Role::WhySeed),
        RowOrigin::Expanded { from, edge, .. } => {
            let a = &engine.graph.edge(*edge).attrs;
            let rel = a
                .relation_str()
                .map(clean)
                .unwrap_or_else(|| "(none)".into());
            let conf = a
                .confidence_str()
                .map(|c| format!(" [{}]", clean(c)))
                .unwrap_or_default();
            (
                format!(
                    "{} {rel}{conf} from {}",
                    g.arrow_in,
                    clean(engine.graph.node_name(*from))
                ),
                Role::WhyGraph,
            )
        }
        RowOrigin::LearningOnly => ("learning".into(), Role::WhyLearning),
    };
    if row.breakdown.history_demoted {
        (format!("{s} (history x{})", row.history_hits), role)
    } else {
        (s, role)
    }
}

/// Badge letters with their roles.
pub fn badge_spans(app: &App, row: &Row) -> Vec<Span<'static>> {
    let g = glyphs(app);
    let s = &row.semantic;
    [
        (s.action_match, "A", Role::BadgeAction),
        (s.resource_match, "R", Role::BadgeResource),
        (s.module_match, "M", Role::BadgeModule),
        (s.shape_match, "S", Role::BadgeShape),
        (s.contract_match, "C", Role::BadgeContract),
    ]
    .into_iter()
    .map(|(on, l, role)| {
        if on {
            Span::styled(l.to_string(), st(app, role))
        } else {
            Span::styled(g.badge_off.to_string(), st(app, Role::BadgeOff))
        }
    })
    .collect()
}

fn chip(app: &App, v: f64, w: usize, role: Role) -> Vec<Span<'static>> {
    let g = glyphs(app);
    let num = format!("{v:.2}");
    let num = if num.len() > 4 {
        format!("{v:.1}")
    } else {
        num
    };
    let zero = v.abs() < 5e-3;
    let nst = if zero {
        st(app, Role::Muted)
    } else {
        st(app, role)
    };
    let mut out = vec![Span::styled(text::fit_right(&num, 4), nst)];
    if w == 8 {
        out.push(Span::raw(" "));
        out.push(Span::styled(
            text::bar(v, 3, g.bar, g.bar_empty),
            st(app, role),
        ));
    }
    out
}

/// Draws the candidates table; returns the rows area and the first row shown.
pub fn draw_table(app: &App, r: Rect, buf: &mut Buffer, compact: bool) -> (Option<Rect>, usize) {
    let g = glyphs(app);
    let focused = (app.focus == PaneId::Candidates) || app.input_active;
    let mut title: Vec<Span<'static>> = vec![Span::styled(
        format!(" 1 Candidates ({}) ", app.rows_len()),
        if focused {
            st(app, Role::TabActive)
        } else {
            st(app, Role::Muted)
        },
    )];
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
    let title = text::truncate_line(
        Line::from(title),
        r.width.saturating_sub(2) as usize,
        g.ellipsis,
    );
    let b = block(app, focused, compact).title(title);
    let inner = b.inner(r);
    b.render(r, buf);
    if inner.height == 0 || inner.width == 0 {
        return (None, 0);
    }
    let name_need = app
        .retrieval()
        .map(|r| {
            r.rows
                .iter()
                .map(|x| text::width(&clean(&x.name)))
                .max()
                .unwrap_or(0)
        })
        .unwrap_or(0);
    let cols = columns(inner.width as usize, name_need);
    let hst = st(app, Role::Header);
    // header
    let mut head = format!(
        "{}{} {} {}",
        " ".repeat(MARK),
        text::fit_right("#", RANK),
        text::fit("tool", cols.name, g.ellipsis),
        text::fit_right("score", SCORE)
    );
    if cols.chip > 0 {
        let names = if cols.chip >= 8 {
            ["seed", "graph", "learn"]
        } else {
            ["seed", "grph", "lrn"]
        };
        for n in names {
            head.push(' ');
            head.push_str(&text::fit(n, cols.chip, g.ellipsis));
        }
    }
    head.push(' ');
    head.push_str("ARMSC");
    if cols.matched > 0 {
        head.push(' ');
        head.push_str(&text::fit("matched", cols.matched, g.ellipsis));
    }
    head.push(' ');
    head.push_str(&text::fit("why in top-K", cols.why, g.ellipsis));
    put_line(
        buf,
        Rect::new(inner.x, inner.y, inner.width, 1),
        &Line::styled(text::take_width(&head, inner.width as usize), hst),
    );
    let rows_rect = Rect::new(
        inner.x,
        inner.y + 1,
        inner.width,
        inner.height.saturating_sub(1),
    );
    let Some(ret) = app.retrieval() else {
        if rows_rect.height > 0 {
            let msg = if app.running() { "running…" } else { "" };
            put_line(buf, rows_rect, &Line::styled(msg, st(app, Role::Muted)));
        }
        return (Some(rows_rect), 0);
    };
    if ret.rows.is_empty() {
        if rows_rect.height > 0 {
            let msg = if app.query.text.trim().is_empty() {
                "no query yet: press / and type one".to_string()
            } else {
                format!(
                    "no result for {:?}: no BM25 hit and no substring match",
                    clean(&ret.query)
                )
            };
            put_line(
                buf,
                rows_rect,
                &Line::styled(
                    text::truncate(&msg, rows_rect.width as usize, g.ellipsis),
                    st(app, Role::Muted),
                ),
            );
        }
        return (Some(rows_rect), 0);
    }
    let h = rows_rect.height as usize;
    if h == 0 {
        return (Some(rows_rect), 0);
    }
    let n = ret.rows.len();
    let sel = app.row.min(n - 1);
    let offset = if sel >= h { sel + 1 - h } else { 0 };
    let selection = app.selection();
    for (i, row) in ret.rows.iter().enumerate().skip(offset).take(h) {
        let y = rows_rect.y + (i - offset) as u16;
        let is_target = selection.is_some_and(|s| s.selected_target == row.name);
        let is_llm = selection.is_some_and(|s| s.llm_target.as_deref() == Some(row.name.as_str()));
        let mut spans: Vec<Span<'static>> = Vec::new();
        spans.push(if is_target {
            Span::styled("*", st(app, Role::MarkTarget))
        } else {
            Span::raw(" ")
        });
        spans.push(if is_llm {
            Span::styled("L", st(app, Role::MarkLlm))
        } else {
            Span::raw(" ")
        });
        spans.push(Span::styled(
            text::fit_right(&(i + 1).to_string(), RANK),
            st(app, Role::Muted),
        ));
        spans.push(Span::raw(" "));
        spans.push(Span::raw(text::fit(
            &clean(&row.name),
            cols.name,
            g.ellipsis,
        )));
        spans.push(Span::raw(" "));
        spans.push(Span::styled(
            text::fit_right(&format!("{:.4}", row.rounded_score()), SCORE),
            st(app, Role::Score),
        ));
        if cols.chip > 0 {
            let b = &row.breakdown;
            for (v, role) in [
                (b.seed, Role::ChipSeed),
                (b.graph, Role::ChipGraph),
                (b.learning, Role::ChipLearn),
            ] {
                spans.push(Span::raw(" "));
                spans.extend(chip(app, v, cols.chip, role));
            }
        }
        spans.push(Span::raw(" "));
        spans.extend(badge_spans(app, row));
        if cols.matched > 0 {
            spans.push(Span::raw(" "));
            spans.push(Span::styled(
                text::fit(
                    &clean(&row.semantic.matched_terms.join(",")),
                    cols.matched,
                    g.ellipsis,
                ),
                st(app, Role::Matched),
            ));
        }
        spans.push(Span::raw(" "));
        let (w, role) = why(app, row);
        spans.push(Span::styled(
            text::truncate(&w, cols.why, g.ellipsis),
            st(app, role),
        ));
        let mut line = Line::from(spans);
        let rr = Rect::new(rows_rect.x, y, rows_rect.width, 1);
        if i == sel {
            let sst = st(app, Role::Selection);
            buf.set_style(rr, sst);
            for s in line.spans.iter_mut() {
                s.style = s.style.patch(sst);
            }
            if !focused {
                // an unfocused selection keeps a visible marker without the highlight
                line.spans[0] = Span::styled(
                    if is_target { "*" } else { g.cursor }.to_string(),
                    if is_target {
                        st(app, Role::MarkTarget).patch(sst)
                    } else {
                        st(app, Role::Key).patch(sst)
                    },
                );
            }
        }
        put_line(buf, rr, &line);
    }
    (Some(rows_rect), offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_fit_the_width() {
        for w in [38usize, 60, 78, 80, 100, 118, 160, 300] {
            let c = columns(w, 40);
            let mut total = MARK + RANK + 1 + c.name + 1 + SCORE + 1 + BADGES + 1 + c.why;
            if c.chip > 0 {
                total += 3 * (c.chip + 1);
            }
            if c.matched > 0 {
                total += c.matched + 1;
            }
            assert!(total <= w, "{w}: {c:?} -> {total}");
        }
        assert_eq!(columns(78, 20).chip, 4);
        assert_eq!(columns(118, 20).chip, 8);
        assert!(columns(118, 20).matched > 0);
        assert_eq!(columns(118, 20).name, 20);
    }
}
