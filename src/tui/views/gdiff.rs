//! Diff screen on two graphs: the header (what changed, in counts), the case list (each
//! case's tracked tool old → new rank and its blame headline) and the pane below with three
//! tabs: the artifact diff tree, the selected case's blame ([`super::blame`]) and the
//! change behind one cause (its old and new text, the edge).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use super::super::app::{App, LayoutInfo};
use super::super::gdiff::work::DetailLine;
use super::super::gdiff::{CaseRef, GdFocus, GdTab, GraphDiffView};
use super::super::text;
use super::super::theme::Role;
use super::doc::{self, Doc, spans};
use super::{block, clean, clean_lines, glyphs, list_box, put_line, st};

fn view(app: &App) -> Option<&GraphDiffView> {
    app.gdiff.as_deref()
}

/// The header after the screen's name, in `avail` cells: both files' names, then what
/// changed in counts (or the load's progress). The counts always show; long file names
/// are cut in the middle (their start and their extension stay, or, when that would make
/// the two look alike, from where they differ), and below a width the counts take a
/// shorter form.
pub fn header(app: &App, avail: usize) -> Vec<Span<'static>> {
    let g = glyphs(app);
    let (labels, long, short) = match (app.gd_load.as_ref(), view(app)) {
        (Some(l), _) if app.gd_loading_here() => {
            let pct = format!(
                "   loading {:.0}%",
                (l.progress.fraction.clamp(0.0, 1.0) * 100.0).floor()
            );
            (&l.labels, pct.clone(), pct)
        }
        (_, Some(v)) => {
            let labels = (&v.old_label, &v.new_label);
            let (long, short) = match &v.diff {
                Some(d) => {
                    let t = (
                        d.tools.added.len(),
                        d.tools.removed.len(),
                        d.tools.changed.iter().filter(|c| c.engine_visible).count(),
                    );
                    let e = (
                        d.edges.added.len(),
                        d.edges.removed.len(),
                        d.edges.changed.len(),
                    );
                    (
                        format!(
                            "   tools +{} -{} ~{}  edges +{} -{} ~{}",
                            t.0, t.1, t.2, e.0, e.1, e.2
                        ),
                        format!(
                            "  tools +{}-{}~{} edges +{}-{}~{}",
                            t.0, t.1, t.2, e.0, e.1, e.2
                        ),
                    )
                }
                None => {
                    let c = format!("   comparing{}", g.ellipsis);
                    (c.clone(), c)
                }
            };
            return header_spans(app, avail, (labels.0, labels.1), long, short);
        }
        _ => return Vec::new(),
    };
    header_spans(app, avail, (&labels.0, &labels.1), long, short)
}

/// `OLD a  vs  NEW b` and the counts in `avail` cells: the counts' long form when the
/// names keep 12 cells each, else the short one; the names share what is left.
fn header_spans(
    app: &App,
    avail: usize,
    labels: (&str, &str),
    long: String,
    short: String,
) -> Vec<Span<'static>> {
    let ell = glyphs(app).ellipsis;
    let (a, b) = (clean(labels.0), clean(labels.1));
    let (pa, pb) = ("OLD ", "  vs  NEW ");
    let fixed = text::width(pa) + text::width(pb);
    let (wa, wb) = (text::width(&a), text::width(&b));
    let fits = |c: &str| fixed + text::width(c) + wa.min(12) + wb.min(12) <= avail;
    let counts = if fits(&long) { long } else { short };
    let room = avail.saturating_sub(fixed + text::width(&counts));
    // each name gets half the room; a shorter one leaves the rest to the other
    let (ra, rb) = if wa + wb <= room {
        (wa, wb)
    } else {
        let half = room / 2;
        match (wa <= half, wb <= room - half) {
            (true, _) => (wa, room - wa),
            (_, true) => (room - wb, wb),
            _ => (half, room - half),
        }
    };
    let (a, b) = text::distinct_pair(&a, &b, (ra, rb), ell);
    vec![
        Span::styled(pa, st(app, Role::Muted)),
        Span::styled(a, st(app, Role::Title)),
        Span::styled(pb, st(app, Role::Muted)),
        Span::styled(b, st(app, Role::Title)),
        Span::styled(counts, st(app, Role::Muted)),
    ]
}

/// The main area while `:diff` loads its two graphs: the loader's progress, and the key
/// that goes back.
pub fn draw_loading(app: &App, main: Rect, buf: &mut Buffer) {
    use super::super::commands::{self, CmdId, DIFF};
    let Some(l) = app.gd_load.as_ref() else {
        return;
    };
    let g = glyphs(app);
    let back = commands::keys_in(&app.keys, commands::get(CmdId::Back), DIFF, g);
    let keys = match back.first() {
        Some(k) => format!("{k} goes back (the load is dropped)"),
        None => String::new(),
    };
    super::loading::gauge_box(
        app,
        main,
        buf,
        &format!("loading {} and {}", clean(&l.labels.0), clean(&l.labels.1)),
        &l.progress,
        &keys,
    );
}

pub fn status(app: &App, short: bool) -> Vec<Vec<Span<'static>>> {
    let mut segs: Vec<Vec<Span<'static>>> = Vec::new();
    if app.gd_loading_here() {
        segs.push(vec![Span::styled(
            if short {
                " loading"
            } else {
                " loading the two graphs"
            },
            st(app, Role::Warn),
        )]);
        return segs;
    }
    let Some(v) = view(app) else {
        return segs;
    };
    if v.diff.is_none() && v.failed.is_none() {
        segs.push(vec![Span::styled(
            if short {
                " comparing"
            } else {
                " comparing the graphs"
            },
            st(app, Role::Warn),
        )]);
    }
    if !v.specs.is_empty() {
        if v.running() {
            segs.push(vec![Span::styled(
                format!(" blamed {} of {}", v.blamed, v.specs.len()),
                st(app, Role::Warn),
            )]);
        } else {
            segs.push(vec![Span::raw(format!(" {} cases", v.specs.len()))]);
        }
        segs.push(vec![Span::styled(
            format!("{} changed", v.changed()),
            if v.changed() > 0 {
                st(app, Role::Warn)
            } else {
                st(app, Role::Good)
            },
        )]);
        let unresolved = v.cases.iter().flatten().filter(|c| !c.resolved).count();
        if unresolved > 0 {
            segs.push(vec![Span::styled(
                format!("{unresolved} unresolved"),
                st(app, Role::Bad),
            )]);
        }
    }
    if v.live_pending() {
        segs.push(vec![Span::styled(
            if short { "query" } else { "blaming the query" },
            st(app, Role::Warn),
        )]);
    }
    if !v.toggled.is_empty() {
        segs.push(vec![Span::styled(
            format!("OLD + {} applied", v.toggled.len()),
            st(app, Role::Key),
        )]);
    }
    if v.changed_only {
        segs.push(vec![Span::styled("changed only", st(app, Role::Key))]);
    }
    segs
}

/// The info line's tip while `:diff` loads the graphs.
pub const LOADING_TIP: &str = " Esc: back (the load is dropped)  :: commands  ?: keys";

/// The info line's tip.
pub const TIP: &str =
    " /: blame a query  Enter: open  1-3: tabs  x: apply alone  c: changed  ?: keys";

pub fn draw(app: &App, main: Rect, buf: &mut Buffer, compact: bool, info: &mut LayoutInfo) {
    let Some(v) = view(app) else {
        return;
    };
    let chrome: u16 = if compact { 1 } else { 2 };
    let vis = v.visible();
    let (list_r, pane_r) = if main.height < 12 {
        match v.focus {
            GdFocus::Cases => (Some(main), None),
            GdFocus::Pane => (None, Some(main)),
        }
    } else {
        let want = vis.len().max(1) as u16 + 1 + chrome;
        let h = if v.focus == GdFocus::Cases {
            want.min(main.height * 2 / 5).max(4)
        } else {
            want.min((main.height / 4).max(4))
        };
        (
            Some(Rect::new(main.x, main.y, main.width, h)),
            Some(Rect::new(main.x, main.y + h, main.width, main.height - h)),
        )
    };
    if let Some(r) = list_r {
        info.table_rows = case_list(app, v, &vis, r, buf, compact);
    }
    if let Some(r) = pane_r {
        pane(app, v, r, buf, compact, info);
    }
}

/// `1 -> 2`, `- -> 3`.
fn rank_move(app: &App, r: (Option<usize>, Option<usize>)) -> String {
    let f = |x: Option<usize>| x.map_or("-".to_string(), |x| x.to_string());
    format!("{} {} {}", f(r.0), glyphs(app).arrow_out, f(r.1))
}

fn case_list(
    app: &App,
    v: &GraphDiffView,
    vis: &[CaseRef],
    r: Rect,
    buf: &mut Buffer,
    compact: bool,
) -> Option<Rect> {
    let g = glyphs(app);
    let w = r.width as usize;
    let idw = vis
        .iter()
        .filter_map(|&c| v.spec(c))
        .take(1000)
        .map(|s| text::width(&clean(&s.id)))
        .max()
        .unwrap_or(4)
        .clamp(5, (w / 5).max(6));
    let head = format!(
        "  {} {} blame",
        text::fit("case", idw, g.ellipsis),
        text::fit("rank", 8, g.ellipsis)
    );
    let row = |k: usize| -> Line<'static> {
        let c = vis[k];
        let id = v.spec(c).map(|s| clean(&s.id)).unwrap_or_default();
        let Some(b) = v.blamed(c) else {
            let q = v.spec(c).map(|s| clean(&s.query)).unwrap_or_default();
            return Line::from(vec![
                Span::raw("  "),
                Span::raw(text::fit(&id, idw, g.ellipsis)),
                Span::styled(
                    format!(
                        " {}  blaming{} \"{q}\"",
                        text::fit("", 8, g.ellipsis),
                        g.ellipsis
                    ),
                    st(app, Role::Muted),
                ),
            ]);
        };
        let mark = if b.changed {
            format!("{} ", g.dot)
        } else {
            "  ".into()
        };
        let rank_role = match b.rank {
            (Some(x), Some(y)) if y < x => Role::Good,
            (Some(x), Some(y)) if y == x => Role::Muted,
            (None, Some(_)) => Role::Good,
            (None, None) => Role::Muted,
            _ => Role::Bad,
        };
        Line::from(vec![
            Span::styled(mark, st(app, Role::Warn)),
            Span::raw(text::fit(&id, idw, g.ellipsis)),
            Span::raw(" "),
            Span::styled(
                text::fit(&rank_move(app, b.rank), 8, g.ellipsis),
                st(app, rank_role),
            ),
            Span::raw(" "),
            Span::styled(
                clean(&b.headline),
                if b.changed {
                    Style::default()
                } else {
                    st(app, Role::Muted)
                },
            ),
        ])
    };
    let focused = v.focus == GdFocus::Cases && !app.input_active;
    let label = match &v.suite_label {
        Some(s) => format!(" Cases of {} ({}) ", clean(s), vis.len()),
        None => format!(" Cases ({}) ", vis.len()),
    };
    let title = vec![Span::styled(label, super::tab_style(app, focused))];
    if vis.is_empty() {
        let b = block(app, focused, compact).title(title);
        let inner = b.inner(r);
        b.render(r, buf);
        let hint = if v.changed_only {
            "no changed case yet (c: every case)"
        } else {
            "no case: type / and a query to blame it, or start with --cases SUITE"
        };
        put_line(buf, inner, &Line::styled(hint, st(app, Role::Muted)));
        return Some(inner);
    }
    list_box(
        app,
        r,
        buf,
        compact,
        title,
        Some(Line::styled(head, st(app, Role::Header))),
        vis.len(),
        &row,
        v.cursor,
        focused,
    )
}

fn pane(
    app: &App,
    v: &GraphDiffView,
    r: Rect,
    buf: &mut Buffer,
    compact: bool,
    info: &mut LayoutInfo,
) {
    let g = glyphs(app);
    let focused = v.focus == GdFocus::Pane && !app.input_active;
    let d = match v.tab {
        GdTab::Changes => tree_doc(app, v),
        GdTab::Blame => super::blame::doc(app, v),
        GdTab::Change => change_doc(app, v),
    };
    // an unfocused pane keeps its scroll: its cursor is not pulled into view
    let mut state = v.panes[v.tab.index()];
    if !focused {
        state.cursor = usize::MAX;
        state.seen_cursor = usize::MAX;
    }
    let inner = block(app, focused, compact).inner(r);
    let (scroll, total) = doc::render(&d, inner, buf, &state, focused, &app.theme, g);
    let marker = doc::scroll_marker(scroll, inner.height as usize, total);
    let mut title: Vec<Span<'static>> = vec![Span::raw(" ")];
    for (i, t) in GdTab::ALL.iter().enumerate() {
        if i > 0 {
            title.push(Span::styled(
                format!("{} ", g.sep.trim()),
                st(app, Role::Border),
            ));
        }
        title.push(Span::styled(
            format!("{} {}", i + 1, t.title()),
            super::tab_style(app, *t == v.tab),
        ));
        title.push(Span::raw(" "));
    }
    if let Some(c) = v.current_ref().and_then(|c| v.spec(c)) {
        title.push(Span::styled(
            format!("{} {} ", g.sep.trim(), clean(&c.id)),
            st(app, Role::Muted),
        ));
    }
    let room = (r.width as usize)
        .saturating_sub(2 + marker.as_deref().map(|m| text::width(m) + 1).unwrap_or(0));
    let t = text::truncate_line(Line::from(title), room, g.ellipsis);
    block(app, focused, compact).title(t).render(r, buf);
    if let Some(m) = marker {
        let w = text::width(&m) as u16;
        if r.height > 0 && w + 4 <= r.width {
            buf.set_string(r.x + r.width - 1 - w, r.y, m, st(app, Role::Muted));
        }
    }
    info.drill_area = Some(inner);
    info.drill_scroll = scroll;
    info.drill_rows = total;
}

fn sign_role(c: char) -> Role {
    match c {
        '+' => Role::Good,
        '-' | '!' => Role::Bad,
        '~' | '>' => Role::Warn,
        _ => Role::Muted,
    }
}

fn tree_doc(app: &App, v: &GraphDiffView) -> Doc {
    let g = glyphs(app);
    let mut d = Doc::default();
    if v.diff.is_none() {
        let msg = match &v.failed {
            Some(f) => f.clone(),
            None => "comparing the two graphs: tools, edges, corpus statistics, then the \
                     change groups the blame replays (the other screens work meanwhile)"
                .to_string(),
        };
        d.text(Line::styled(msg, st(app, Role::Muted)));
        return d;
    }
    for it in v.tree_items() {
        let fold = if !it.branch {
            " "
        } else if it.open {
            g.fold_open
        } else {
            g.fold_closed
        };
        let head = if it.depth == 0 {
            st(app, Role::Section)
        } else {
            Style::default()
        };
        d.item(spans(vec![
            (
                format!("{}{fold} ", "  ".repeat(it.depth)),
                st(app, Role::Muted),
            ),
            (
                if it.sign == ' ' {
                    String::new()
                } else {
                    format!("{} ", it.sign)
                },
                st(app, sign_role(it.sign)),
            ),
            (clean(&it.label), head),
            (format!("  {}", clean(&it.note)), st(app, Role::Muted)),
        ]));
    }
    d
}

fn change_doc(app: &App, v: &GraphDiffView) -> Doc {
    let mut d = Doc::default();
    let cause = v
        .current()
        .and_then(|c| v.opened.and_then(|i| c.causes.get(i)).map(|x| (c, x)));
    let Some((c, cause)) = cause else {
        d.text(Line::styled(
            "no change opened: Enter on a cause of the Blame tab (2) shows it here",
            st(app, Role::Muted),
        ));
        return d;
    };
    let i = v.opened.unwrap_or(0);
    let on = v.toggled.contains(&i);
    d.text(spans(vec![
        (format!("[{}] ", i + 1), st(app, Role::Key)),
        (clean(&cause.label), st(app, Role::Title)),
    ]));
    let share = cause
        .share
        .map(|s| format!("share {s:.2} of the headline's change  "))
        .unwrap_or_default();
    d.text_indent(
        Line::styled(
            format!(
                "  {share}{}{}",
                if cause.tools.is_empty() {
                    String::new()
                } else {
                    format!(
                        "top cause of {} (its share of each one's rank move)  ",
                        super::blame::tops(&cause.tools)
                    )
                },
                if on {
                    "applied to OLD (x takes it back)"
                } else {
                    "x applies it alone to OLD"
                }
            ),
            st(app, Role::Muted),
        ),
        4,
    );
    d.text_indent(
        Line::styled(
            format!("  case {}: \"{}\"", clean(&c.id), clean(&c.query)),
            st(app, Role::Muted),
        ),
        4,
    );
    for l in &cause.detail {
        match l {
            DetailLine::Head(h) => {
                d.blank();
                d.text_indent(Line::styled(clean(h), st(app, Role::Section)), 2);
            }
            DetailLine::Text(t) => d.text_indent(
                Line::styled(format!("  {}", clean(t)), st(app, Role::Muted)),
                4,
            ),
            DetailLine::Field(k, old, new) => {
                d.text(Line::styled(format!("  {}", clean(k)), st(app, Role::Key)));
                for (tag, val, role) in [("old", old, Role::Bad), ("new", new, Role::Good)] {
                    let lines = clean_lines(val);
                    for (j, l) in lines.iter().enumerate() {
                        let lead = if j == 0 {
                            format!("    {tag}  ")
                        } else {
                            "         ".into()
                        };
                        d.text_indent(
                            Line::from(vec![
                                Span::styled(lead, st(app, role)),
                                Span::raw(l.clone()),
                            ]),
                            9,
                        );
                    }
                }
            }
        }
    }
    d
}
