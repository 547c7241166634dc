//! Rendering: a pure function of `&App` into a buffer. [`draw`] lays the screen out by
//! priority (query line, candidates, status, footer, info line, drill-down pane) and
//! collapses from the bottom of that list when the terminal is small; below
//! [`MIN_WIDTH`]x[`MIN_HEIGHT`] it says so instead.
//!
//! Adding a drill-down pane (Explain, Trace, Counterfactual, …): a `PaneId` variant (in
//! `PaneId::ALL` and `PaneId::DRILL`), a module here with `doc(&App) -> doc::Doc` built from
//! the engine's values, one arm in [`drill_doc`] (and in [`item_count`] when it has
//! selectable items, with the action in `App::run`), a context bit in `commands` and a
//! registry entry for its number key. Tabs, scrolling, the cursor, wrapping, help, the
//! palette and the footer then work for it unchanged.

pub mod detail;
pub mod doc;
pub mod explore;
pub mod graph;
pub mod help;
pub mod loading;
pub mod palette;
pub mod selector;
pub mod status;
pub mod subgraph;

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use super::app::{App, LayoutInfo, Overlay, PaneId};
use super::caps::Glyphs;
use super::text;
use super::theme::Role;

pub const MIN_WIDTH: u16 = 40;
pub const MIN_HEIGHT: u16 = 10;

/// Sanitised single-line text from an input.
pub fn clean(s: &str) -> String {
    crate::sanitize::line(s)
}

/// Sanitised multi-line text from an input, as lines (tabs become spaces).
pub fn clean_lines(s: &str) -> Vec<String> {
    crate::sanitize::sanitize(s, false)
        .split('\n')
        .map(|l| l.replace('\t', "    "))
        .collect()
}

pub fn glyphs(app: &App) -> &'static Glyphs {
    app.caps.glyphs()
}

/// Renders the app into a frame and places the cursor when the query line is edited.
pub fn render(app: &App, frame: &mut Frame) -> LayoutInfo {
    let area = frame.area();
    let (info, cursor) = draw(app, area, frame.buffer_mut());
    if let Some(p) = cursor {
        frame.set_cursor_position(p);
    }
    info
}

/// Renders into a fresh buffer of the given size (for exports and tests).
pub fn render_buffer(app: &App, width: u16, height: u16) -> (Buffer, LayoutInfo) {
    let area = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(area);
    let (info, _) = draw(app, area, &mut buf);
    (buf, info)
}

/// The whole screen. Returns what was measured and where the text cursor goes.
pub fn draw(app: &App, area: Rect, buf: &mut Buffer) -> (LayoutInfo, Option<Position>) {
    let mut info = LayoutInfo {
        size: (area.width, area.height),
        ..LayoutInfo::default()
    };
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        too_small(app, area, buf);
        return (info, None);
    }
    if app.engine.is_none() {
        loading::draw(app, area, buf);
        if let Overlay::Help(h) = &app.overlay {
            let (rows, height) = help::draw(app, h, area, buf);
            info.help_rows = rows;
            info.help_height = height;
        }
        return (info, None);
    }
    let h = area.height;
    let show_info = h >= 16;
    let show_footer = h >= 13;
    let show_status = h >= 11 || app.flash.is_some();
    let mut y = area.y;
    let query_area = Rect::new(area.x, y, area.width, 1);
    y += 1;
    let info_area = show_info.then(|| {
        let r = Rect::new(area.x, y, area.width, 1);
        y += 1;
        r
    });
    let mut bottom = area.y + area.height;
    let footer_area = show_footer.then(|| {
        bottom -= 1;
        Rect::new(area.x, bottom, area.width, 1)
    });
    let status_area = show_status.then(|| {
        bottom -= 1;
        Rect::new(area.x, bottom, area.width, 1)
    });
    let main = Rect::new(area.x, y, area.width, bottom.saturating_sub(y));

    let cursor = explore::draw_query(app, query_area, buf);
    if let Some(r) = info_area {
        status::draw_info(app, r, buf);
    }
    if let Some(r) = status_area {
        if !show_info && app.flash.is_some() && !show_footer {
            status::draw_flash(app, r, buf);
        } else {
            status::draw_status(app, r, buf);
        }
    }
    if let Some(r) = footer_area {
        if !show_info && app.flash.is_some() {
            status::draw_flash(app, r, buf);
        } else {
            status::draw_footer(app, r, buf);
        }
    }

    // main area: candidates and the drill-down pane
    let compact = area.height < 30 || area.width < 100;
    let table_focus = app.focus == PaneId::Candidates || app.input_active;
    let rows = app.rows_len().max(1) as u16;
    let table_chrome: u16 = if compact { 2 } else { 3 };
    let want_table = rows + table_chrome;
    let (table_rect, drill_rect) = if app.zoom || main.height < 12 {
        if table_focus {
            (Some(main), None)
        } else {
            (None, Some(main))
        }
    } else {
        let th = if table_focus {
            want_table.min(main.height * 3 / 5).max(5)
        } else {
            want_table.min((main.height * 7 / 20).max(5))
        };
        let th = th.min(main.height.saturating_sub(4));
        (
            Some(Rect::new(main.x, main.y, main.width, th)),
            Some(Rect::new(
                main.x,
                main.y + th,
                main.width,
                main.height.saturating_sub(th),
            )),
        )
    };
    if let Some(r) = table_rect {
        let (rows_rect, offset) = explore::draw_table(app, r, buf, compact);
        info.table_rows = rows_rect;
        info.table_offset = offset;
    }
    if let Some(r) = drill_rect {
        let inner = pane_block(app, app.drill, r, buf, compact);
        let st = app.pane(app.drill);
        let focused = app.focus == app.drill && !app.input_active;
        let d = drill_doc(app, app.drill);
        let (scroll, total) = doc::render(&d, inner, buf, st, focused, &app.theme, glyphs(app));
        info.drill_area = Some(inner);
        info.drill_scroll = scroll;
        info.drill_rows = total;
    }

    match &app.overlay {
        Overlay::Help(hs) => {
            let (rows, height) = help::draw(app, hs, area, buf);
            info.help_rows = rows;
            info.help_height = height;
            (info, None)
        }
        Overlay::Palette(p) => {
            let c = palette::draw(app, p, area, buf);
            (info, c)
        }
        Overlay::None => (info, cursor),
    }
}

/// The document a drill-down pane shows.
pub fn drill_doc(app: &App, pane: PaneId) -> doc::Doc {
    match pane {
        PaneId::Detail => detail::doc(app),
        PaneId::Selector => selector::doc(app),
        PaneId::Graph => graph::doc(app),
        PaneId::Subgraph => subgraph::doc(app),
        PaneId::Candidates => doc::Doc::default(),
    }
}

/// Number of selectable items of a pane (cursor range).
pub fn item_count(app: &App, pane: PaneId) -> usize {
    match pane {
        PaneId::Selector => app.selection().map(|s| s.rows.len()).unwrap_or(0),
        PaneId::Graph => graph::neighbours(app).len(),
        _ => 0,
    }
}

/// A block with the theme's border and the app's glyph set.
pub fn block(app: &App, focused: bool, compact: bool) -> Block<'static> {
    let g = glyphs(app);
    let role = if focused {
        Role::BorderFocus
    } else {
        Role::Border
    };
    Block::default()
        .borders(if compact { Borders::TOP } else { Borders::ALL })
        .border_set(g.border)
        .border_style(app.theme.get(role))
}

/// The drill-down pane's frame: tabs for every drill pane in the title.
fn pane_block(app: &App, active: PaneId, r: Rect, buf: &mut Buffer, compact: bool) -> Rect {
    let focused = app.focus == active && !app.input_active;
    let g = glyphs(app);
    let mut spans: Vec<Span<'static>> = vec![Span::raw(" ")];
    for (i, p) in PaneId::DRILL.iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(
                g.sep.trim().to_string(),
                app.theme.get(Role::Border),
            ));
            spans.push(Span::raw(" "));
        }
        let num = PaneId::ALL.iter().position(|x| x == p).unwrap_or(0) + 1;
        let st = if *p == active {
            app.theme.get(Role::TabActive)
        } else {
            app.theme.get(Role::Muted)
        };
        spans.push(Span::styled(format!("{num} {}", p.title()), st));
        spans.push(Span::raw(" "));
    }
    if let Some(extra) = pane_subtitle(app, active) {
        spans.push(Span::styled(
            format!("{} ", g.sep.trim()),
            app.theme.get(Role::Border),
        ));
        spans.push(Span::styled(
            format!("{extra} "),
            app.theme.get(Role::Muted),
        ));
    }
    let title = text::truncate_line(
        Line::from(spans),
        r.width.saturating_sub(2) as usize,
        g.ellipsis,
    );
    let b = block(app, focused, compact).title(title);
    let inner = b.inner(r);
    b.render(r, buf);
    inner
}

fn pane_subtitle(app: &App, p: PaneId) -> Option<String> {
    match p {
        PaneId::Detail | PaneId::Graph => app.selected_row().map(|r| clean(&r.name)),
        _ => None,
    }
}

fn too_small(app: &App, area: Rect, buf: &mut Buffer) {
    let x = glyphs(app).times;
    let msg = format!(
        "terminal too small (need {MIN_WIDTH}{x}{MIN_HEIGHT}, have {}{x}{})",
        area.width, area.height
    );
    let lines = text::wrap_line(&Line::from(msg), area.width.max(1) as usize, 0);
    let st = app.theme.get(Role::Warn);
    let top = area.y + area.height.saturating_sub(lines.len() as u16) / 2;
    for (i, l) in lines.iter().enumerate() {
        let y = top + i as u16;
        if y >= area.y + area.height {
            break;
        }
        let w = text::line_width(l) as u16;
        let x = area.x + area.width.saturating_sub(w) / 2;
        let styled = Line::from(
            l.spans
                .iter()
                .map(|s| Span::styled(s.content.to_string(), st))
                .collect::<Vec<_>>(),
        );
        buf.set_line(x, y, &styled, area.width);
    }
}

/// Writes a line clipped to `r` (one row).
pub fn put_line(buf: &mut Buffer, r: Rect, line: &Line<'_>) {
    if r.width == 0 || r.height == 0 {
        return;
    }
    buf.set_line(r.x, r.y, line, r.width);
}

/// A centred rectangle of at most `w`x`h` inside `area`.
pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// Style helper.
pub fn st(app: &App, r: Role) -> Style {
    app.theme.get(r)
}
