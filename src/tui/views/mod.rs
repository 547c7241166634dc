//! Rendering: a pure function of `&App` into a buffer. [`draw`] lays the screen out by
//! priority (query line, candidates, status, footer, info line, drill-down pane) and
//! collapses from the bottom of that list when the terminal is small; below
//! `MIN_WIDTH`x`MIN_HEIGHT` ([`crate::tui::derive`]) it says so instead.
//!
//! Adding a drill-down pane (Explain, Trace, Counterfactual, …): a `PaneId` variant (in
//! `PaneId::ALL` and `PaneId::DRILL`), a module here with `doc(&App) -> doc::Doc` built from
//! the engine's values, one arm in [`drill_doc`] (and in `derive::item_count` when it
//! has selectable items, with the action in `App::run`), a context bit in `commands` and a
//! registry entry for its number key. Tabs, scrolling, the cursor, wrapping, help, the
//! palette and the footer then work for it unchanged.

pub mod blame;
pub mod counterfactual;
pub mod crumbs;
pub mod detail;
pub mod diff;
pub mod doc;
pub mod evidence;
pub mod explain;
pub mod explore;
pub mod follow;
pub mod gdiff;
pub mod graph;
pub mod help;
pub mod lab;
pub mod loading;
pub mod messages;
pub mod note;
pub mod palette;
pub mod selector;
pub mod status;
pub mod subgraph;
pub mod table;
pub mod trace;
pub mod whynot;

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use super::app::{App, LayoutInfo, Overlay, PaneId};
use super::caps::Glyphs;
use super::derive::{MIN_HEIGHT, MIN_WIDTH, TabHit};
use super::screens::Screen;
use super::text;
use super::theme::Role;

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
    if app.load.is_some() || (app.screen == Screen::Explore && app.engine.is_none()) {
        loading::draw(app, area, buf);
        if let Overlay::Help(h) = &app.overlay {
            note_help(&mut info, help::draw(app, h, area, buf));
        }
        return (info, None);
    }
    let h = area.height;
    let show_info = h >= 16;
    let show_status = h >= 11 || app.flash.is_some();
    let mut y = area.y;
    let query_area = Rect::new(area.x, y, area.width, 1);
    y += 1;
    let info_area = show_info.then(|| {
        let r = Rect::new(area.x, y, area.width, 1);
        y += 1;
        r
    });
    // the footer, with `? help` and `q quit` pinned at its right, at every size drawn
    let mut bottom = area.y + area.height - 1;
    let footer_area = Rect::new(area.x, bottom, area.width, 1);
    let status_area = show_status.then(|| {
        bottom -= 1;
        Rect::new(area.x, bottom, area.width, 1)
    });
    let main = Rect::new(area.x, y, area.width, bottom.saturating_sub(y));

    let cursor = match app.screen {
        Screen::Explore => explore::draw_query(app, query_area, buf),
        // the query box, while a query to blame is typed on the Diff screen of two graphs
        Screen::Diff if app.gd_owns_query(None) && app.input_active => {
            explore::draw_query(app, query_area, buf)
        }
        _ => {
            screen_header(app, query_area, buf);
            None
        }
    };
    // the info line is drawn last: a find's match count comes from this frame's pane
    if let Some(r) = info_area.filter(|_| app.screen != Screen::Explore) {
        status::draw_info(app, r, buf, None);
    }
    // without an info line a message takes the status bar's row, never the footer's
    if let Some(r) = status_area {
        if !show_info && app.flash.is_some() {
            status::draw_flash(app, r, buf);
        } else {
            status::draw_status(app, r, buf);
        }
    }
    status::draw_footer(app, footer_area, buf);

    // main area: candidates and the drill-down pane
    let compact = area.height < 30 || area.width < 100;
    match app.screen {
        Screen::Explore => {}
        Screen::Evidence => evidence::draw(app, main, buf, compact, &mut info),
        Screen::Diff if app.gd_load.is_some() => gdiff::draw_loading(app, main, buf),
        Screen::Diff if app.gdiff.is_some() => gdiff::draw(app, main, buf, compact, &mut info),
        Screen::Diff => diff::draw(app, main, buf, compact, &mut info),
        Screen::Lab => lab::draw(app, main, buf, compact, &mut info),
        Screen::Follow => follow::draw(app, main, buf, compact, &mut info),
    }
    if app.screen != Screen::Explore {
        return overlays(app, area, buf, info, None);
    }
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
        // the content first: its scroll marker goes in the frame's top line, beside the tabs
        let inner = block(app, false, compact).inner(r);
        let st = app.pane(app.drill);
        let focused = app.focus == app.drill && !app.input_active;
        let d = drill_doc(app, app.drill);
        let hi = app
            .find
            .as_ref()
            .filter(|f| f.pane == app.drill && !f.input.is_empty())
            .map(|f| doc::FindHi {
                pattern: f.input.text.to_lowercase().chars().collect(),
                current: f.current,
                jump: f.jump,
            });
        let (scroll, total, found) = doc::render_find(
            &d,
            inner,
            buf,
            st,
            focused,
            &app.theme,
            glyphs(app),
            hi.as_ref(),
        );
        info.find_matches = found;
        let marker = doc::scroll_marker(scroll, inner.height as usize, total);
        info.tabs = pane_block(app, app.drill, r, buf, compact, marker.as_deref());
        info.drill_area = Some(inner);
        info.drill_scroll = scroll;
        info.drill_rows = total;
    }
    if let Some(r) = info_area {
        status::draw_info(app, r, buf, Some(info.find_matches));
    }

    overlays(app, area, buf, info, cursor)
}

fn note_help(info: &mut LayoutInfo, d: help::Drawn) {
    info.help_rows = d.rows;
    info.help_height = d.height;
    info.help_scroll = d.scroll;
    info.help_matches = d.matches;
}

fn overlays(
    app: &App,
    area: Rect,
    buf: &mut Buffer,
    mut info: LayoutInfo,
    cursor: Option<Position>,
) -> (LayoutInfo, Option<Position>) {
    match &app.overlay {
        Overlay::Help(hs) => {
            note_help(&mut info, help::draw(app, hs, area, buf));
            (info, None)
        }
        Overlay::Palette(p) => {
            let c = palette::draw(app, p, area, buf);
            (info, c)
        }
        Overlay::Note => {
            note::draw(app, area, buf);
            (info, None)
        }
        Overlay::Messages => {
            messages::draw(app, area, buf);
            (info, None)
        }
        Overlay::None => (info, cursor),
    }
}

/// The top line of a screen other than Explore: its name and what it shows.
fn screen_header(app: &App, r: Rect, buf: &mut Buffer) {
    let g = glyphs(app);
    let name = format!(" {} ", app.screen.title());
    let avail = (r.width as usize).saturating_sub(text::width(&name) + 1);
    let mut spans: Vec<Span<'static>> = vec![Span::styled(name, st(app, Role::TabActive))];
    let rest = match app.screen {
        Screen::Evidence => evidence::header(app),
        Screen::Diff if app.gdiff.is_some() || app.gd_load.is_some() => gdiff::header(app, avail),
        Screen::Diff => diff::header(app),
        Screen::Lab => lab::header(app, avail),
        Screen::Follow => follow::header(app),
        Screen::Explore => Vec::new(),
    };
    spans.push(Span::raw(" "));
    spans.extend(rest);
    put_line(
        buf,
        r,
        &text::truncate_line(Line::from(spans), r.width as usize, g.ellipsis),
    );
}

/// The frame of a screen's detail pane: its title, focus and a scrolled document.
#[allow(clippy::too_many_arguments)]
pub fn screen_pane(
    app: &App,
    r: Rect,
    buf: &mut Buffer,
    compact: bool,
    title: Vec<Span<'static>>,
    focused: bool,
    d: &doc::Doc,
    state: &super::app::PaneState,
    info: &mut LayoutInfo,
) {
    let g = glyphs(app);
    let inner = block(app, focused, compact).inner(r);
    let (scroll, total) = doc::render(d, inner, buf, state, focused, &app.theme, g);
    let marker = doc::scroll_marker(scroll, inner.height as usize, total);
    let t = text::truncate_line(
        Line::from(title),
        title_room(r, inner, marker.as_deref()),
        g.ellipsis,
    );
    let b = block(app, focused, compact).title(t);
    b.render(r, buf);
    put_marker(app, r, marker.as_deref(), buf);
    info.drill_area = Some(inner);
    info.drill_scroll = scroll;
    info.drill_rows = total;
}

/// A list box: a title, a header line and `count` rows built on demand by `row` (only the
/// visible ones), one selected and scrolled into view. When some rows are hidden, the
/// frame's top line says where the view is (` 8/23 `: the last row shown of all, as the
/// panes' scroll marker does), never over a row. Returns the rows area.
#[allow(clippy::too_many_arguments)]
pub fn list_box(
    app: &App,
    r: Rect,
    buf: &mut Buffer,
    compact: bool,
    title: Vec<Span<'static>>,
    header: Option<Line<'static>>,
    count: usize,
    row: &dyn Fn(usize) -> Line<'static>,
    selected: usize,
    focused: bool,
) -> Option<Rect> {
    let g = glyphs(app);
    let inner = block(app, focused, compact).inner(r);
    let shown = (inner.height as usize).saturating_sub(usize::from(header.is_some()));
    let first = match selected.min(count.saturating_sub(1)) {
        sel if sel >= shown => sel + 1 - shown,
        _ => 0,
    };
    let marker = doc::scroll_marker(first, shown, count);
    let t = text::truncate_line(
        Line::from(title),
        title_room(r, inner, marker.as_deref()),
        g.ellipsis,
    );
    let b = block(app, focused, compact).title(t);
    b.render(r, buf);
    put_marker(app, r, marker.as_deref(), buf);
    if inner.height == 0 || inner.width == 0 {
        return None;
    }
    let mut y = inner.y;
    if let Some(h) = header {
        put_line(
            buf,
            Rect::new(inner.x, y, inner.width, 1),
            &text::truncate_line(h, inner.width as usize, g.ellipsis),
        );
        y += 1;
    }
    let rows_rect = Rect::new(
        inner.x,
        y,
        inner.width,
        inner.height.saturating_sub(y - inner.y),
    );
    let h = rows_rect.height as usize;
    if h == 0 || count == 0 {
        return Some(rows_rect);
    }
    let sel = selected.min(count - 1);
    let offset = if sel >= h { sel + 1 - h } else { 0 };
    for i in offset..count.min(offset + h) {
        let rr = Rect::new(
            rows_rect.x,
            rows_rect.y + (i - offset) as u16,
            rows_rect.width,
            1,
        );
        let mut line = text::truncate_line(row(i), rr.width as usize, g.ellipsis);
        if i == sel {
            let sst = st(app, Role::CursorRow);
            let marks = app.theme.marks_cursor();
            if focused {
                buf.set_style(rr, sst);
                for s in line.spans.iter_mut() {
                    s.style = s.style.patch(sst);
                }
            }
            if !focused || marks {
                // an unfocused selection, and any without a background, shows a marker in
                // the row's first cell; a flag after it (`•` failed, `?` unknown keys) stays
                if let Some(first) = line.spans.first_mut() {
                    let w = text::width(&first.content);
                    let flag = first.content.trim();
                    let mark = if w >= 2 && !flag.is_empty() && text::width(flag) == 1 {
                        format!("{}{flag}", g.cursor)
                    } else {
                        g.cursor.to_string()
                    };
                    *first =
                        Span::styled(text::fit(&mark, w.max(1), g.ellipsis), st(app, Role::Key));
                }
            }
        }
        put_line(buf, rr, &line);
    }
    Some(rows_rect)
}

/// The document a drill-down pane shows.
pub fn drill_doc(app: &App, pane: PaneId) -> doc::Doc {
    match pane {
        PaneId::Detail => detail::doc(app),
        PaneId::Selector => selector::doc(app),
        PaneId::Graph => graph::doc(app),
        PaneId::Subgraph => subgraph::doc(app),
        PaneId::Explain => explain::doc(app),
        PaneId::Trace => trace::doc(app),
        PaneId::Counterfactual => counterfactual::doc(app),
        PaneId::WhyNot => whynot::doc(app),
        PaneId::Candidates => doc::Doc::default(),
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

/// Where a pane's title may go: the frame's top line inside the corners, less the room
/// of the scroll marker (and one border cell before it).
fn title_room(r: Rect, inner: Rect, marker: Option<&str>) -> usize {
    match marker {
        None => r.width.saturating_sub(2) as usize,
        Some(m) => (r.x + r.width)
            .saturating_sub(2 + text::width(m) as u16)
            .saturating_sub(inner.x) as usize,
    }
}

/// The scroll marker at the right end of a frame's top line, one border cell before the
/// corner (it never covers content or the title: see [`title_room`]).
fn put_marker(app: &App, r: Rect, marker: Option<&str>, buf: &mut Buffer) {
    let Some(m) = marker else { return };
    let w = text::width(m) as u16;
    if r.height == 0 || w + 4 > r.width {
        return;
    }
    buf.set_string(r.x + r.width - 1 - w, r.y, m, st(app, Role::Muted));
}

/// The drill-down pane's frame: tabs for every drill pane in the title and the scroll
/// marker. Returns where each tab's label was drawn (for mouse clicks).
fn pane_block(
    app: &App,
    active: PaneId,
    r: Rect,
    buf: &mut Buffer,
    compact: bool,
    marker: Option<&str>,
) -> Vec<TabHit> {
    let focused = app.focus == active && !app.input_active;
    let g = glyphs(app);
    let inner = block(app, focused, compact).inner(r);
    // full titles when they fit, else short ones, else short ones without the spaces
    // around the separators (the active tab keeps its title, then it too goes short, as
    // `8 Counterfactual` does not fit 60 columns), else numbers; the scroll
    // marker's room counts, so a long pane keeps its position at 80 columns, but short
    // names win over it (at 60 columns: `2 Detail│3 Sel│…│9 Why`, no marker, no tool name)
    let avail = r.width.saturating_sub(2) as usize;
    let marker_room = marker.map(|m| text::width(m) + 1).unwrap_or(0);
    let mut labels: Vec<(usize, PaneId)> = Vec::new();
    let mut spans: Vec<Span<'static>> = Vec::new();
    const FORMS: usize = 5;
    for form in 0..FORMS {
        spans = vec![Span::raw(" ")];
        labels.clear();
        let tight = form == 2 || form == 3;
        for (i, p) in PaneId::DRILL.iter().enumerate() {
            if i > 0 {
                spans.push(Span::styled(
                    g.sep.trim().to_string(),
                    app.theme.get(Role::Border),
                ));
                if !tight {
                    spans.push(Span::raw(" "));
                }
            }
            let num = PaneId::ALL.iter().position(|x| x == p).unwrap_or(0) + 1;
            let st = if *p == active {
                app.theme.get(Role::TabActive)
            } else {
                app.theme.get(Role::Muted)
            };
            let label = match form {
                3 => format!("{num} {}", p.short()),
                _ if *p == active => format!("{num} {}", p.title()),
                0 => format!("{num} {}", p.title()),
                1 | 2 => format!("{num} {}", p.short()),
                _ => num.to_string(),
            };
            labels.push((spans.len(), *p));
            spans.push(Span::styled(label, st));
            if !tight || i + 1 == PaneId::DRILL.len() {
                spans.push(Span::raw(" "));
            }
        }
        // readable tab names come before the selected tool's name (which is shortened)
        let w: usize = spans.iter().map(|s| text::width(&s.content)).sum();
        let sub = pane_subtitle(app, active)
            .map(|s| text::width(&s) + 3)
            .unwrap_or(0);
        let room = if form == 0 { sub.min(10) } else { 0 };
        // the pane names win over the scroll marker and the tool's name: the tight form
        // is kept without them (both are left out below) before names give way to numbers
        if w + room + marker_room <= avail || (tight && w <= avail) {
            break;
        }
    }
    // the scroll marker takes room from the subtitle (cut first), never from the tabs: it is
    // left out when the tabs alone do not leave room for it
    let tabs_w: usize = spans.iter().map(|s| text::width(&s.content)).sum();
    let marker = marker.filter(|m| tabs_w <= title_room(r, inner, Some(m)));
    let avail = title_room(r, inner, marker);
    // the subtitle only where a readable part of it fits (a lone ellipsis says nothing)
    if let Some(extra) = pane_subtitle(app, active)
        && avail >= tabs_w + 3 + 6.min(text::width(&extra))
    {
        spans.push(Span::styled(
            format!("{} ", g.sep.trim()),
            app.theme.get(Role::Border),
        ));
        spans.push(Span::styled(
            format!("{extra} "),
            app.theme.get(Role::Muted),
        ));
    }
    let tabs = tab_hits(&spans, &labels, inner.x, r.y, avail);
    let title = text::truncate_line(Line::from(spans), avail, g.ellipsis);
    let b = block(app, focused, compact).title(title);
    b.render(r, buf);
    put_marker(app, r, marker, buf);
    tabs
}

/// The cells of the labels (`labels`: span index and pane) in a title drawn from `x` on
/// row `y` and cut at `room` cells; a label cut short keeps what is visible of it.
fn tab_hits(
    spans: &[Span<'static>],
    labels: &[(usize, PaneId)],
    x: u16,
    y: u16,
    room: usize,
) -> Vec<TabHit> {
    let mut out = Vec::new();
    let mut at = 0usize;
    for (i, s) in spans.iter().enumerate() {
        let w = text::width(&s.content);
        if let Some((_, pane)) = labels.iter().find(|(j, _)| *j == i) {
            let end = (at + w).min(room);
            if end > at {
                out.push(TabHit {
                    pane: *pane,
                    y,
                    x0: x + at as u16,
                    x1: x + end as u16,
                });
            }
        }
        at += w;
    }
    out
}

fn pane_subtitle(app: &App, p: PaneId) -> Option<String> {
    match p {
        PaneId::Detail | PaneId::Graph | PaneId::Explain => {
            app.selected_row().map(|r| clean(&r.name))
        }
        _ => None,
    }
}

fn too_small(app: &App, area: Rect, buf: &mut Buffer) {
    use super::commands::{self, CmdId};
    let x = glyphs(app).times;
    // the way out, from the registry (quit! works whatever has the keys)
    let quit = commands::keys_in(
        &app.keys,
        commands::get(CmdId::ForceQuit),
        commands::ALWAYS,
        glyphs(app),
    )
    .into_iter()
    .next()
    .map(|k| format!("; {k} quits"))
    .unwrap_or_default();
    let msg = format!(
        "terminal too small (need {MIN_WIDTH}{x}{MIN_HEIGHT}, have {}{x}{}){quit}",
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

/// A row's label and what follows it (`tail`: a command's `:name` or keys, then notes) in
/// `room` cells, cut by information value: the label gives way first (down to a readable
/// 12 cells), then the notes from the last; the tail's first span always stays. For the
/// help overlay's and the palette's command rows.
pub fn label_and_tail(
    label: &str,
    label_style: Style,
    mut tail: Vec<Span<'static>>,
    room: usize,
    ellipsis: &str,
) -> Vec<Span<'static>> {
    let label = format!(" {label}");
    let width = |v: &[Span<'static>]| v.iter().map(|s| text::width(&s.content)).sum::<usize>();
    let keep = text::width(&label).min(12);
    while tail.len() > 1 && room.saturating_sub(width(&tail)) < keep {
        tail.pop();
    }
    let label_room = room.saturating_sub(width(&tail));
    let mut out = vec![Span::styled(
        text::truncate(&label, label_room, ellipsis),
        label_style,
    )];
    out.extend(tail);
    out
}

/// Writes a line clipped to `r` (one row).
/// A tab label's or a box title's style: highlighted when active or focused.
pub fn tab_style(app: &App, active: bool) -> Style {
    if active {
        st(app, Role::TabActive)
    } else {
        st(app, Role::Muted)
    }
}

/// A screen box's title (`" Cases (12) "`), highlighted while the box has the focus.
pub fn box_title(app: &App, text: impl Into<String>, focused: bool) -> Vec<Span<'static>> {
    vec![Span::styled(text.into(), tab_style(app, focused))]
}

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

/// A centred overlay box `w` cells wide, as tall as `lines` (within `area`), cleared,
/// framed and titled; each line cut to the box's inner width.
pub fn lines_box(
    app: &App,
    area: Rect,
    buf: &mut Buffer,
    w: u16,
    title: String,
    lines: &[Line<'static>],
) {
    let iw = w.saturating_sub(2) as usize;
    let h = (lines.len() as u16 + 2).min(area.height.saturating_sub(2));
    let r = centered(area, w, h);
    ratatui::widgets::Clear.render(r, buf);
    let b = block(app, true, false).title(Line::styled(title, st(app, Role::Title)));
    let inner = b.inner(r);
    b.render(r, buf);
    for (i, l) in lines.iter().take(inner.height as usize).enumerate() {
        let l = text::truncate_line(l.clone(), iw, glyphs(app).ellipsis);
        put_line(
            buf,
            Rect::new(inner.x, inner.y + i as u16, inner.width, 1),
            &l,
        );
    }
}

/// Style helper.
pub fn st(app: &App, r: Role) -> Style {
    app.theme.get(r)
}
