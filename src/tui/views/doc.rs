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
    let w = area.width as usize;
    let h = area.height as usize;
    if w == 0 || h == 0 {
        return (0, 0);
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
    let total = rows.len();
    let max_scroll = total.saturating_sub(h);
    let mut scroll = state.scroll.min(max_scroll);
    if let Some(cr) = cursor_row {
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
    (scroll, total)
}

/// The scroll position (` 22/73 `: the last row shown of all rows) when the content is
/// longer than the `height` rows shown.
pub fn scroll_marker(scroll: usize, height: usize, total: usize) -> Option<String> {
    (height > 0 && total > height).then(|| format!(" {}/{} ", (scroll + height).min(total), total))
}
