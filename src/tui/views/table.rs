//! The candidates table, shared by the Explore screen (rows of a live retrieval) and the
//! Evidence screen (rows read from captured JSON): the cursor (a highlighted row, or a
//! marker column and bold text where the theme has no background for it: NO_COLOR, 16
//! colours, high contrast), rank, marks (selected target `*`, the Why-not pane's expected
//! tool `?`, LLM target `L`), name, score, score chips (seed / graph / learning as numbers and bars),
//! badges A R M S C, matched terms and why the row is in the top-K.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use super::super::app::App;
use super::super::text;
use super::super::theme::Role;
use super::{block, clean, glyphs, put_line, st, tab_style};
use crate::lab::record::RowRecord;
use crate::output::row::{Badges, Chips, RowView, Why, badge_cells, history_note, matched_text};

/// One row as the table shows it (text already sanitised).
#[derive(Clone, Debug, PartialEq)]
pub struct TRow {
    pub name: String,
    pub score: Option<f64>,
    /// seed, graph, learning; `None` when the source does not say.
    pub chips: Chips,
    /// action, resource, module, shape, contract matches.
    pub badges: Badges,
    pub matched: String,
    /// Why the row is in the top-K, in ever shorter forms (the column draws the first
    /// that fits: see [`Why::forms`]).
    pub why: Vec<String>,
    pub why_role: Role,
    pub target: bool,
    pub llm: bool,
    /// The Why-not pane's expected tool (marked `?` unless it is the selected target).
    pub expected: bool,
}

pub struct Table<'a> {
    /// The box's name (` 1 Candidates`): [`draw`] follows it with the row count, or the
    /// rows shown of all of them when some are hidden (`(1-10 of 12)`).
    pub name: &'static str,
    /// What the title says after the name and count (the selected target, marks, …).
    pub title: Vec<Span<'static>>,
    pub rows: &'a [TRow],
    pub selected: usize,
    pub focused: bool,
    /// Shown instead of rows when there are none.
    pub empty: Option<String>,
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
/// The narrowest matched-terms column (a compact one, at 80 columns).
const MATCHED_MIN: usize = 10;
/// What "why" keeps before the matched column is shown: `← ` and most of a source tool.
const WHY_KEEP: usize = 16;

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
    } else if rest >= name_need.clamp(min_name, 30) + WHY_KEEP + 1 + MATCHED_MIN {
        // too narrow for both: the chips give way to a compact matched column, as long as
        // the names and the source tool of "why" keep their room. The chips repeat what
        // the row already shows (score = seed + graph + learning, and "why" says which
        // one: seed #k, a source tool, learning); the matched terms are shown nowhere
        // else in the table.
        c.chip = 0;
        c.matched = (rest - name_need.clamp(min_name, 30) - WHY_KEEP - 1).clamp(MATCHED_MIN, 14);
        left = rest - c.matched - 1;
    }
    // the name column takes what the longest name needs (up to 30), the rest goes to why
    let name_max = left.saturating_sub(min_why).clamp(min_name.min(left), 30);
    c.name = name_need.clamp(min_name.min(left), name_max);
    c.why = left.saturating_sub(c.name);
    c
}

/// The matched-terms column gives way (down to its compact width) until "why" holds
/// `why_need` cells: the shortest form of every row, its source tool whole.
pub fn give_why(mut c: Cols, why_need: usize) -> Cols {
    if c.matched > 0 && c.why < why_need {
        let take = (why_need - c.why).min(c.matched.saturating_sub(MATCHED_MIN));
        c.matched -= take;
        c.why += take;
    }
    c
}

/// The columns for these rows in `width` cells: the names' room, and the matched terms
/// giving way to the source tools of "why" ([`give_why`]).
fn rows_columns(rows: &[TRow], width: usize) -> Cols {
    let need = |f: &dyn Fn(&TRow) -> usize| rows.iter().map(f).max().unwrap_or(0);
    let name_need = need(&|x| text::width(&x.name));
    let why_need = need(&|x| x.why.last().map_or(0, |f| text::width(f)));
    let why_full = need(&|x| x.why.first().map_or(0, |f| text::width(f)));
    let matched_need = need(&|x| text::width(&x.matched));
    give_why_full(
        give_why(columns(width, name_need), why_need),
        why_full,
        matched_need,
    )
}

/// Then, room permitting, the matched terms give "why" what its longest full form needs
/// (`← getPullRequest requires [EX]`, not `← getPullRequest req EX`), keeping what the
/// longest matched text needs.
pub fn give_why_full(mut c: Cols, why_full: usize, matched_need: usize) -> Cols {
    let keep = matched_need.max(MATCHED_MIN);
    if c.matched > keep && c.why < why_full {
        let take = (why_full - c.why).min(c.matched - keep);
        c.matched -= take;
        c.why += take;
    }
    c
}

/// The first of a row's why forms that fits in `w` cells, else the shortest one cut (the
/// source tool's tail goes last).
pub fn why_in(forms: &[String], w: usize, ellipsis: &str) -> String {
    match forms.iter().find(|f| text::width(f) <= w) {
        Some(f) => f.clone(),
        None => text::truncate(forms.last().map_or("", |f| f.as_str()), w, ellipsis),
    }
}

/// The role of a "why in top-K" text.
pub fn why_role(w: &Why) -> Role {
    match w {
        Why::Seed(_) => Role::WhySeed,
        Why::Expanded { .. } | Why::Graph => Role::WhyGraph,
        Why::Learning => Role::WhyLearning,
        Why::Rank(_) | Why::Unknown => Role::Muted,
    }
}

impl TRow {
    /// A row of a live retrieval, from its projection (marks unset).
    pub fn live(app: &App, v: &RowView) -> TRow {
        let why = v.why();
        TRow {
            name: clean(v.name),
            score: Some(v.rounded),
            chips: v.chips_known(),
            badges: v.badges_known(),
            matched: v.matched_text(),
            why: v.why_forms(glyphs(app).arrow_in),
            why_role: why_role(&why),
            target: false,
            llm: false,
            expected: false,
        }
    }

    /// A row read from captured evidence (marks unset).
    pub fn recorded(app: &App, row: &RowRecord) -> TRow {
        let note = if row.history_demoted {
            history_note(None)
        } else {
            String::new()
        };
        let why = row.why.forms(glyphs(app).arrow_in, &note);
        TRow {
            name: clean(&row.name),
            score: row.score,
            chips: row.chips,
            badges: row.badges,
            matched: matched_text(&row.matched, &row.summary_matched),
            why,
            why_role: why_role(&row.why),
            target: false,
            llm: false,
            expected: false,
        }
    }
}

const BADGE_ROLES: [Role; 5] = [
    Role::BadgeAction,
    Role::BadgeResource,
    Role::BadgeModule,
    Role::BadgeShape,
    Role::BadgeContract,
];

/// Badge letters with their roles (an unknown badge is drawn off).
pub fn badge_spans(app: &App, badges: &Badges) -> Vec<Span<'static>> {
    let g = glyphs(app);
    badge_cells(badges)
        .into_iter()
        .zip(BADGE_ROLES)
        .map(|((letter, on), role)| {
            if on {
                Span::styled(letter.to_string(), st(app, role))
            } else {
                Span::styled(g.badge_off.to_string(), st(app, Role::BadgeOff))
            }
        })
        .collect()
}

fn chip(app: &App, v: Option<f64>, w: usize, role: Role) -> Vec<Span<'static>> {
    let g = glyphs(app);
    let Some(v) = v else {
        let mut out = vec![Span::styled(text::fit_right("-", 4), st(app, Role::Muted))];
        if w == 8 {
            out.push(Span::raw("    "));
        }
        return out;
    };
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

/// The title's row count: `(12)` when every row is shown, else the rows shown of all
/// (`(1-10 of 12)`, `(3-12 of 12)`), so rows below or above the box are never a secret;
/// the count comes first in the title, so it shows at every width. `tight` is the short
/// form (`(1-10/12)`) for a title that would otherwise cut what follows the count.
pub fn count_text(n: usize, shown: usize, offset: usize, tight: bool) -> String {
    if n <= shown || shown == 0 {
        if n > 0 && shown == 0 {
            return format!("(0 of {n})");
        }
        return format!("({n})");
    }
    let last = (offset + shown).min(n);
    match tight {
        true => format!("({}-{last}/{n})", offset + 1),
        false => format!("({}-{last} of {n})", offset + 1),
    }
}

/// Draws the table; returns the rows area and the first row shown.
pub fn draw(
    app: &App,
    r: Rect,
    buf: &mut Buffer,
    compact: bool,
    t: &Table<'_>,
) -> (Option<Rect>, usize) {
    let g = glyphs(app);
    let inner = block(app, t.focused, compact).inner(r);
    // the rows that fit below the header, and the first one shown (the cursor in view)
    let (n, h) = (t.rows.len(), inner.height.saturating_sub(1) as usize);
    let sel = t.selected.min(n.saturating_sub(1));
    let offset = if sel >= h { sel + 1 - h } else { 0 };
    titled_block(app, r, buf, compact, t, h, offset);
    if inner.height == 0 || inner.width == 0 {
        return (None, 0);
    }
    // where the theme has no background for the cursor row, a marker column shows it
    let marks = app.theme.marks_cursor();
    let cur = usize::from(marks);
    let cols = rows_columns(t.rows, (inner.width as usize).saturating_sub(cur));
    header_line(app, inner, buf, &cols, cur);
    let rows_rect = Rect::new(
        inner.x,
        inner.y + 1,
        inner.width,
        inner.height.saturating_sub(1),
    );
    if let Some(msg) = &t.empty {
        if rows_rect.height > 0 {
            put_line(
                buf,
                rows_rect,
                &Line::styled(
                    text::truncate(msg, rows_rect.width as usize, g.ellipsis),
                    st(app, Role::Muted),
                ),
            );
        }
        return (Some(rows_rect), 0);
    }
    if h == 0 || n == 0 {
        return (Some(rows_rect), 0);
    }
    for (i, row) in t.rows.iter().enumerate().skip(offset).take(h) {
        let y = rows_rect.y + (i - offset) as u16;
        let mut line = row_line(app, row, &cols, i, i == sel, marks);
        let rr = Rect::new(rows_rect.x, y, rows_rect.width, 1);
        if i == sel {
            cursor_row(app, buf, rr, &mut line, row, t.focused, marks);
        }
        put_line(buf, rr, &line);
    }
    (Some(rows_rect), offset)
}

/// The box with its title: the name, the row count (the short form when the full one
/// would cut what follows) and the table's own title spans, cut to the box.
fn titled_block(
    app: &App,
    r: Rect,
    buf: &mut Buffer,
    compact: bool,
    t: &Table<'_>,
    h: usize,
    offset: usize,
) {
    let g = glyphs(app);
    let n = t.rows.len();
    let room = r.width.saturating_sub(2) as usize;
    let rest: usize = t.title.iter().map(Span::width).sum();
    let head = |tight| format!("{} {} ", t.name, count_text(n, h, offset, tight));
    let mut count = head(false);
    if count.chars().count() + rest > room {
        count = head(true);
    }
    let mut title = vec![Span::styled(count, tab_style(app, t.focused))];
    title.extend(t.title.iter().cloned());
    let title = text::truncate_line(
        Line::from(title),
        r.width.saturating_sub(2) as usize,
        g.ellipsis,
    );
    let b = block(app, t.focused, compact).title(title);
    b.render(r, buf);
}

/// The column header on the first inner line, after `cur` cells of cursor marker.
fn header_line(app: &App, inner: Rect, buf: &mut Buffer, cols: &Cols, cur: usize) {
    let g = glyphs(app);
    let hst = st(app, Role::Header);
    let mut head = format!(
        "{}{} {} {}",
        " ".repeat(cur + MARK),
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
}

/// Row `i`'s line: the cursor marker (with `marks`), the marks `*` `?` `L`, rank, name,
/// score, chips, badges, matched terms and why in top-K.
fn row_line(
    app: &App,
    row: &TRow,
    cols: &Cols,
    i: usize,
    selected: bool,
    marks: bool,
) -> Line<'static> {
    let g = glyphs(app);
    let mut spans: Vec<Span<'static>> = Vec::new();
    if marks {
        spans.push(if selected {
            Span::styled(g.cursor.to_string(), st(app, Role::Key))
        } else {
            Span::raw(" ")
        });
    }
    spans.push(if row.target {
        Span::styled("*", st(app, Role::MarkTarget))
    } else if row.expected {
        Span::styled("?", st(app, Role::Warn))
    } else {
        Span::raw(" ")
    });
    spans.push(if row.llm {
        Span::styled("L", st(app, Role::MarkLlm))
    } else if row.expected && row.target {
        // the expected tool is the selected target: both marks
        Span::styled("?", st(app, Role::Warn))
    } else {
        Span::raw(" ")
    });
    spans.push(Span::styled(
        text::fit_right(&(i + 1).to_string(), RANK),
        st(app, Role::Muted),
    ));
    spans.push(Span::raw(" "));
    spans.push(Span::raw(text::fit(&row.name, cols.name, g.ellipsis)));
    spans.push(Span::raw(" "));
    spans.push(Span::styled(
        text::fit_right(
            &row.score
                .map(|s| format!("{s:.4}"))
                .unwrap_or_else(|| "-".into()),
            SCORE,
        ),
        st(app, Role::Score),
    ));
    if cols.chip > 0 {
        for (v, role) in [
            (row.chips[0], Role::ChipSeed),
            (row.chips[1], Role::ChipGraph),
            (row.chips[2], Role::ChipLearn),
        ] {
            spans.push(Span::raw(" "));
            spans.extend(chip(app, v, cols.chip, role));
        }
    }
    spans.push(Span::raw(" "));
    spans.extend(badge_spans(app, &row.badges));
    if cols.matched > 0 {
        spans.push(Span::raw(" "));
        spans.push(Span::styled(
            text::fit(&row.matched, cols.matched, g.ellipsis),
            st(app, Role::Matched),
        ));
    }
    spans.push(Span::raw(" "));
    spans.push(Span::styled(
        why_in(&row.why, cols.why, g.ellipsis),
        st(app, row.why_role),
    ));
    Line::from(spans)
}

/// The cursor row's highlight over `rr` and `line`; unfocused and without a marker
/// column, its first cell keeps a visible marker (`*` on the selected target).
fn cursor_row(
    app: &App,
    buf: &mut Buffer,
    rr: Rect,
    line: &mut Line<'static>,
    row: &TRow,
    focused: bool,
    marks: bool,
) {
    let g = glyphs(app);
    let sst = st(app, Role::CursorRow);
    buf.set_style(rr, sst);
    for s in line.spans.iter_mut() {
        s.style = s.style.patch(sst);
    }
    if !focused && !marks {
        // an unfocused selection keeps a visible marker without the highlight
        line.spans[0] = Span::styled(
            if row.target { "*" } else { g.cursor }.to_string(),
            if row.target {
                st(app, Role::MarkTarget).patch(sst)
            } else {
                st(app, Role::Key).patch(sst)
            },
        );
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    /// N9/N10: a narrow "why" column keeps the source tool before the confidence.
    #[test]
    fn why_column_cuts_by_information_value() {
        let forms = Why::Expanded {
            from: "repos/update".into(),
            relation: "requires".into(),
            confidence: Some("EXTRACTED".into()),
        }
        .forms("←", "");
        let at = |w: usize| why_in(&forms, w, "…");
        assert_eq!(at(60), "← repos/update requires [EXTRACTED]");
        assert_eq!(at(28), "← repos/update requires [EX]");
        assert_eq!(at(22), "← repos/update req EX");
        assert_eq!(at(18), "← repos/update req");
        assert_eq!(at(14), "← repos/update");
        assert_eq!(at(10), "← repos/u…");
        for w in 0..60 {
            assert!(text::width(&at(w)) <= w, "{w}: {}", at(w));
        }
        // at 80 columns the matched terms give way to a source tool that needs the room
        let c = columns(78, 23);
        let given = give_why(c, c.why + 2);
        assert_eq!((given.why, given.matched), (c.why + 2, c.matched - 2));
        assert_eq!(give_why(c, c.why + 50).matched, MATCHED_MIN);
        assert_eq!(give_why(c, 3), c);
        // the full form takes only the room the matched terms do not need
        let wide = columns(118, 23);
        let full = give_why_full(wide, wide.why + 4, 10);
        assert_eq!((full.why, full.matched), (wide.why + 4, wide.matched - 4));
        let full = give_why_full(wide, wide.why + 40, 14);
        assert_eq!(full.matched, 14);
        assert_eq!(full.why + full.matched, wide.why + wide.matched);
        assert_eq!(give_why_full(wide, 3, 10), wide);
    }

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
        // at 80 columns (78 with the cursor column) the matched terms stay, the chips go
        assert_eq!(columns(78, 20).chip, 0);
        assert_eq!(columns(78, 20).matched, 14);
        assert!(columns(78, 20).why >= 20, "{:?}", columns(78, 20));
        // long names keep their room and "why" its source tool
        assert_eq!(columns(78, 30).name, 30);
        assert!(columns(78, 30).matched >= MATCHED_MIN);
        assert!(columns(78, 30).why >= WHY_KEEP, "{:?}", columns(78, 30));
        // at 60 the names come first: neither chips nor matched terms
        assert_eq!(columns(60, 20).chip, 0);
        assert_eq!(columns(60, 20).matched, 0);
        assert_eq!(columns(100, 20).chip, 4);
        assert_eq!(columns(118, 20).chip, 8);
        assert!(columns(118, 20).matched > 0);
        assert_eq!(columns(118, 20).name, 20);
    }
}
