//! The message log overlay (`I`, `:messages`): the recent messages of the info line in
//! full, newest first, each wrapped to the box and marked with its level, so a message
//! cut at the footer's width can still be read.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::super::app::{App, FlashLevel};
use super::super::text;
use super::super::theme::Role;
use super::{clean, lines_box, st};

/// The log's lines at `iw` cells: each message, newest first, wrapped with its level's
/// word in front (`error`, `warning`, `info`).
pub fn lines(app: &App, iw: usize) -> Vec<Line<'static>> {
    if app.messages.is_empty() {
        return vec![Line::styled("no message yet", st(app, Role::Muted))];
    }
    let mut out: Vec<Line<'static>> = Vec::new();
    for m in app.messages.iter().rev() {
        let (word, role) = match m.level {
            FlashLevel::Info => ("info    ", Role::Good),
            FlashLevel::Warn => ("warning ", Role::Warn),
            FlashLevel::Error => ("error   ", Role::Bad),
        };
        let l = Line::from(vec![
            Span::styled(word, st(app, role)),
            Span::raw(clean(&m.text)),
        ]);
        out.extend(text::wrap_line(&l, iw, word.len()));
    }
    out
}

pub fn draw(app: &App, area: Rect, buf: &mut Buffer) {
    let w = area.width.saturating_sub(4).min(100);
    let lines = lines(app, w.saturating_sub(2) as usize);
    let title = format!(
        " Messages ({}, newest first; Esc closes) ",
        app.messages.len()
    );
    lines_box(app, area, buf, w, title, &lines);
}
