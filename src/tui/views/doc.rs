//! A drill-down pane's content as a document: text lines (wrapped to the pane) and item
//! lines (one row each, selectable with the cursor). Every drill-down pane builds a [`Doc`]
//! and this module draws it with scrolling, so a new pane only has to say what it shows.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::super::app::PaneState;
use super::super::caps::Glyphs;
use super::super::text;
use super::super::theme::{Role, Theme};

pub enum DocLine {
    /// Wrapped to the pane width; continuation rows start `indent` cells in.
    Text { line: Line<'static>, indent: usize },
    /// A selectable row (truncated, never wrapped).
    Item(Line<'static>),
    /// A row laid out for the pane's width when it is drawn (tables with columns).
    Sized(Box<dyn Fn(usize) -> Line<'static>>),
}

#[derive(Default)]
pub struct Doc {
    pub lines: Vec<DocLine>,
}

impl Doc {
    pub fn text(&mut self, line: impl Into<Line<'static>>) {
        self.lines.push(DocLine::Text {
            line: line.into(),
            indent: 0,
        });
    }

    pub fn text_indent(&mut self, line: impl Into<Line<'static>>, indent: usize) {
        self.lines.push(DocLine::Text {
            line: line.into(),
            indent,
        });
    }

    pub fn item(&mut self, line: impl Into<Line<'static>>) {
        self.lines.push(DocLine::Item(line.into()));
    }

    pub fn sized(&mut self, f: impl Fn(usize) -> Line<'static> + 'static) {
        self.lines.push(DocLine::Sized(Box::new(f)));
    }

    /// The first of `choices` that fits the pane's width (the last one, truncated, when
    /// none does): a long form with hints and shorter forms for narrow panes.
    pub fn fit(&mut self, choices: Vec<Line<'static>>) {
        self.sized(move |w| {
            choices
                .iter()
                .find(|l| text::line_width(l) <= w)
                .or(choices.last())
                .cloned()
                .unwrap_or_default()
        });
    }

    pub fn blank(&mut self) {
        self.text(Line::default());
    }

    /// Every span's text passed through `f` (for a pane whose text comes from shared
    /// renderers written in Unicode, shown with the ASCII glyph set).
    pub fn map_text(self, f: fn(&str) -> String) -> Doc {
        let map_line = move |l: Line<'static>| -> Line<'static> {
            Line::from(
                l.spans
                    .into_iter()
                    .map(|s| Span::styled(f(&s.content), s.style))
                    .collect::<Vec<_>>(),
            )
            .style(l.style)
        };
        Doc {
            lines: self
                .lines
                .into_iter()
                .map(|l| match l {
                    DocLine::Text { line, indent } => DocLine::Text {
                        line: map_line(line),
                        indent,
                    },
                    DocLine::Item(line) => DocLine::Item(map_line(line)),
                    DocLine::Sized(g) => DocLine::Sized(Box::new(move |w| map_line(g(w)))),
                })
                .collect(),
        }
    }

    pub fn items(&self) -> usize {
        self.lines
            .iter()
            .filter(|l| matches!(l, DocLine::Item(_)))
            .count()
    }
}

/// Convenience: a line of styled spans.
pub fn spans(parts: Vec<(String, Style)>) -> Line<'static> {
    Line::from(
        parts
            .into_iter()
            .map(|(s, st)| Span::styled(s, st))
            .collect::<Vec<_>>(),
    )
}

/// A find to highlight while drawing: the pattern (lower case), the current match and
/// whether to scroll it into view.
pub struct FindHi {
    pub pattern: Vec<char>,
    pub current: usize,
    pub jump: bool,
}

/// Marks every case-insensitive occurrence of `pat` in `line` (the `current`-th match,
/// counted from `first`, more strongly: reverse video without colour, where the others
/// are underlined only); returns the line and the count.
pub(super) fn highlight(
    line: &Line<'static>,
    pat: &[char],
    first: usize,
    current: usize,
    theme: &Theme,
) -> (Line<'static>, usize) {
    let cells: Vec<(char, Style)> = line
        .spans
        .iter()
        .flat_map(|s| s.content.chars().map(move |c| (c, s.style)))
        .collect();
    let low: Vec<char> = cells
        .iter()
        .map(|(c, _)| c.to_lowercase().next().unwrap_or(*c))
        .collect();
    let mut hit = vec![0u8; cells.len()];
    let mut n = 0usize;
    let mut i = 0usize;
    while !pat.is_empty() && i + pat.len() <= low.len() {
        if low[i..i + pat.len()] == *pat {
            let mark = if first + n == current { 2 } else { 1 };
            hit[i..i + pat.len()].iter_mut().for_each(|h| *h = mark);
            n += 1;
            i += pat.len();
        } else {
            i += 1;
        }
    }
    if n == 0 {
        return (line.clone(), 0);
    }
    // without colour the other matches are underlined and never bold, so one inside a
    // bold heading (Detail's `why it is in the top-K`, bold and underlined) still shows;
    // the current match is reversed
    let mono = theme.level == crate::tui::caps::ColorLevel::Mono;
    let any = if mono {
        theme
            .get(Role::FuzzyMatch)
            .remove_modifier(ratatui::style::Modifier::BOLD)
    } else {
        theme.get(Role::FuzzyMatch)
    };
    let cur = theme.get(Role::Selection);
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut run = String::new();
    let mut run_style: Option<Style> = None;
    for ((c, st), h) in cells.into_iter().zip(hit) {
        let style = match h {
            2 => st.patch(cur),
            1 => st.patch(any),
            _ => st,
        };
        if run_style != Some(style) && !run.is_empty() {
            spans.push(Span::styled(
                std::mem::take(&mut run),
                run_style.unwrap_or_default(),
            ));
        }
        run_style = Some(style);
        run.push(c);
    }
    if !run.is_empty() {
        spans.push(Span::styled(run, run_style.unwrap_or_default()));
    }
    (Line::from(spans), n)
}

/// Draws `doc` into `area`. Returns (scroll offset used, total rows); the caller shows
/// [`scroll_marker`] in the pane's border, never over the content.
pub fn render(
    doc: &Doc,
    area: Rect,
    buf: &mut Buffer,
    state: &PaneState,
    focused: bool,
    theme: &Theme,
    g: &Glyphs,
) -> (usize, usize) {
    let (scroll, total, _) = render_find(doc, area, buf, state, focused, theme, g, None);
    (scroll, total)
}

/// [`render`] with a find: matches highlighted, the current one scrolled into view when
/// asked. Returns (scroll offset used, total rows, matches).
#[allow(clippy::too_many_arguments)]
pub fn render_find(
    doc: &Doc,
    area: Rect,
    buf: &mut Buffer,
    state: &PaneState,
    focused: bool,
    theme: &Theme,
    g: &Glyphs,
    find: Option<&FindHi>,
) -> (usize, usize, usize) {
    let w = area.width as usize;
    let h = area.height as usize;
    if w == 0 || h == 0 {
        return (0, 0, 0);
    }
    let has_items = doc.items() > 0;
    let gutter = if has_items { 2 } else { 0 };
    let mut rows: Vec<(Line<'static>, bool)> = Vec::new();
    let mut cursor_row: Option<usize> = None;
    let mut cursor_end: Option<usize> = None;
    let mut item_i = 0usize;
    for l in &doc.lines {
        match l {
            DocLine::Text { line, indent } => {
                let avail = w.saturating_sub(gutter).max(1);
                for wl in text::wrap_line(line, avail, *indent) {
                    rows.push((wl, false));
                }
            }
            DocLine::Sized(f) => {
                let avail = w.saturating_sub(gutter);
                let t = text::truncate_line(f(avail), avail, g.ellipsis);
                rows.push((t, false));
            }
            DocLine::Item(line) => {
                if cursor_row.is_some() && cursor_end.is_none() {
                    cursor_end = Some(rows.len());
                }
                if item_i == state.cursor {
                    cursor_row = Some(rows.len());
                }
                let t = text::truncate_line(line.clone(), w.saturating_sub(gutter), g.ellipsis);
                rows.push((t, item_i == state.cursor));
                item_i += 1;
            }
        }
    }
    let mut matches = 0usize;
    let mut current_row: Option<usize> = None;
    if let Some(f) = find {
        for (ri, (line, _)) in rows.iter_mut().enumerate() {
            let (l, n) = highlight(line, &f.pattern, matches, f.current, theme);
            if n > 0 {
                if (matches..matches + n).contains(&f.current) {
                    current_row = Some(ri);
                }
                *line = l;
                matches += n;
            }
        }
    }
    let total = rows.len();
    let max_scroll = total.saturating_sub(h);
    let mut scroll = state.scroll.min(max_scroll);
    // a find's current match holds the view (Enter keeps it, as n/N put it there) until
    // the cursor moves
    let match_holds = current_row.is_some() && state.cursor == state.seen_cursor;
    // scrolled above the first item: the view stays where it was put
    let held_above = state.above && state.cursor == state.seen_cursor;
    if let Some(cr) = cursor_row.filter(|_| !match_holds && !held_above) {
        let end = cursor_end.unwrap_or(total).min(cr + h).max(cr + 1);
        if cr < scroll {
            scroll = cr;
        } else if state.cursor != state.seen_cursor {
            // the cursor moved: bring its item and the text that belongs to it into view
            if end > scroll + h {
                scroll = (end - h).min(cr);
            }
        } else if cr >= scroll + h {
            scroll = cr + 1 - h;
        }
    }
    if let (Some(f), Some(r)) = (find, current_row)
        && f.jump
    {
        // the current match a third of the way down
        scroll = r.saturating_sub(h / 3);
    }
    let scroll = scroll.min(max_scroll);
    for (i, (line, is_cursor)) in rows.iter().skip(scroll).take(h).enumerate() {
        let y = area.y + i as u16;
        let mut x = area.x;
        if has_items {
            let mark = if *is_cursor {
                if focused { g.cursor } else { g.dot }
            } else {
                " "
            };
            let st = if *is_cursor {
                theme.get(Role::Key)
            } else {
                Style::default()
            };
            buf.set_stringn(x, y, mark, 1, st);
            x = x.saturating_add(2);
        }
        let avail = (area.x + area.width).saturating_sub(x);
        if *is_cursor && focused {
            // the gutter carries the marker; no reverse video over bars where there is no
            // background for the cursor row
            let sel = theme.get(Role::CursorRow);
            buf.set_style(Rect::new(x, y, avail, 1), sel);
            let mut l = line.clone();
            for s in l.spans.iter_mut() {
                s.style = s.style.patch(sel);
            }
            buf.set_line(x, y, &l, avail);
        } else {
            buf.set_line(x, y, line, avail);
        }
    }
    (scroll, total, matches)
}

/// The scroll position (` 22/73 `: the last row shown of all rows) when the content is
/// longer than the `height` rows shown.
pub fn scroll_marker(scroll: usize, height: usize, total: usize) -> Option<String> {
    (height > 0 && total > height).then(|| format!(" {}/{} ", (scroll + height).min(total), total))
}
