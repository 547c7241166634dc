//! Diff screen: two runs (evidence files or fixture folders) compared per case
//! (`lab::diff`): a case list with what changed, and for the case under the cursor both
//! rankings side by side with ↑↓ markers, gained and lost tools, score-breakdown changes,
//! selected-target and reason-code changes, Jaccard and RBO.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::super::app::{App, LayoutInfo};
use super::super::screens::{DiffCase, DiffFocus, DiffView};
use super::super::text;
use super::super::theme::Role;
use super::crumbs::json_text;
use super::doc::{Doc, spans};
use super::{box_title, clean, glyphs, list_box, screen_pane, st};
use crate::lab::diff::CaseDiff;
use crate::lab::record::RunRecord;

fn view(app: &App) -> Option<&DiffView> {
    app.diffv.as_ref()
}

pub fn header(app: &App) -> Vec<Span<'static>> {
    let Some(d) = view(app) else {
        return Vec::new();
    };
    vec![
        Span::styled("A ", st(app, Role::Muted)),
        Span::styled(clean(&d.a_label), st(app, Role::Title)),
        Span::styled("  vs  B ", st(app, Role::Muted)),
        Span::styled(clean(&d.b_label), st(app, Role::Title)),
        Span::styled(
            format!("   {} of {} cases changed", d.changed(), d.cases.len()),
            st(app, Role::Muted),
        ),
    ]
}

pub fn status(app: &App, short: bool) -> Vec<Vec<Span<'static>>> {
    let mut segs: Vec<Vec<Span<'static>>> = Vec::new();
    let Some(d) = view(app) else {
        return segs;
    };
    segs.push(vec![Span::styled(
        format!(" {} vs {}", clean(&d.a_label), clean(&d.b_label)),
        st(app, Role::Title),
    )]);
    let paired = |f: fn(&DiffCase) -> bool| {
        d.cases
            .iter()
            .filter(|c| c.diff.only_in.is_none() && f(c))
            .count()
    };
    segs.push(vec![Span::raw(format!("{} cases", d.cases.len()))]);
    segs.push(vec![Span::styled(
        format!("{} changed", d.changed()),
        if d.changed() > 0 {
            st(app, Role::Warn)
        } else {
            st(app, Role::Good)
        },
    )]);
    segs.push(vec![Span::raw(format!(
        "{} {}",
        paired(|c| c.diff.top1_changed()),
        if short { "top-1" } else { "top-1 changed" }
    ))]);
    segs.push(vec![Span::raw(format!(
        "{} {}",
        paired(|c| c.diff.selected.0 != c.diff.selected.1),
        if short {
            "target"
        } else {
            "selected target changed"
        }
    ))]);
    let (oa, ob) = (
        d.cases
            .iter()
            .filter(|c| c.diff.only_in == Some('A'))
            .count(),
        d.cases
            .iter()
            .filter(|c| c.diff.only_in == Some('B'))
            .count(),
    );
    if oa + ob > 0 {
        segs.push(vec![Span::raw(format!("only in A {oa}, B {ob}"))]);
    }
    if d.changed_only {
        segs.push(vec![Span::styled("changed only", st(app, Role::Key))]);
    }
    if !d.errors.is_empty() {
        segs.push(vec![Span::styled(
            format!("{} unreadable", d.errors.len()),
            st(app, Role::Bad),
        )]);
    }
    segs
}

fn top1(r: Option<&RunRecord>) -> String {
    r.and_then(|r| r.rows.first())
        .map(|x| clean(&x.name))
        .unwrap_or_else(|| "-".into())
}

pub fn draw(app: &App, main: Rect, buf: &mut Buffer, compact: bool, info: &mut LayoutInfo) {
    let Some(d) = view(app) else {
        return;
    };
    let g = glyphs(app);
    let vis = d.visible();
    let (list_r, pane_r) = split(d, &vis, main, compact);
    if let Some(r) = list_r {
        cases_box(app, d, &vis, r, buf, compact, info);
    }
    if let Some(r) = pane_r {
        let title = box_title(
            app,
            format!(
                " A {} {} B {} ",
                clean(&d.a_label),
                g.sep.trim(),
                clean(&d.b_label)
            ),
            d.focus == DiffFocus::Detail,
        );
        let doc = detail(app, d);
        screen_pane(
            app,
            r,
            buf,
            compact,
            title,
            d.focus == DiffFocus::Detail,
            &doc,
            &d.pane,
            info,
        );
    }
}

/// The Cases box above the case pane, as tall as its `vis` rows need within a share of
/// `main` (the focused one alone when `main` is short).
fn split(d: &DiffView, vis: &[usize], main: Rect, compact: bool) -> (Option<Rect>, Option<Rect>) {
    let chrome: u16 = if compact { 1 } else { 2 };
    if main.height < 12 {
        match d.focus {
            DiffFocus::Cases => (Some(main), None),
            DiffFocus::Detail => (None, Some(main)),
        }
    } else {
        let want = vis.len().max(1) as u16 + 1 + chrome;
        let h = if d.focus == DiffFocus::Cases {
            want.min(main.height * 2 / 5).max(4)
        } else {
            want.min((main.height / 4).max(4))
        };
        (
            Some(Rect::new(main.x, main.y, main.width, h)),
            Some(Rect::new(main.x, main.y + h, main.width, main.height - h)),
        )
    }
}

/// A case's top-1 column: `only in A`, the one name both runs rank first, or both names
/// (A's, then B's) when the top-1 changed.
fn top_text(d: &DiffView, c: &DiffCase) -> (String, Option<String>) {
    let (ta, tb) = (top1(c.a.map(|x| &d.a[x])), top1(c.b.map(|x| &d.b[x])));
    match c.diff.only_in {
        Some(side) => (format!("only in {side}"), None),
        None if ta == tb => (ta, None),
        None => (ta, Some(tb)),
    }
}

/// The Cases list's column widths: the case id and the top-1 column.
#[derive(Clone, Copy)]
struct Cols {
    idw: usize,
    topw: usize,
}

/// The Cases box: its title, column header and one row per visible case.
fn cases_box(
    app: &App,
    d: &DiffView,
    vis: &[usize],
    r: Rect,
    buf: &mut Buffer,
    compact: bool,
    info: &mut LayoutInfo,
) {
    let g = glyphs(app);
    let w = r.width as usize;
    let idw = vis
        .iter()
        .take(1000)
        .map(|&i| text::width(&clean(&d.cases[i].diff.id)))
        .max()
        .unwrap_or(2)
        .clamp(4, (w / 4).max(8));
    // the top-1 column is as wide as its names need, up to 55% of what the case,
    // overlap and selected columns leave: the query keeps the rest (a fair share)
    let arrow = format!(" {} ", g.arrow_out);
    let rest = w.saturating_sub(2 + idw + 15 + 10);
    let want = vis
        .iter()
        .take(1000)
        .map(|&i| match top_text(d, &d.cases[i]) {
            (a, None) => text::width(&a),
            (a, Some(b)) => text::width(&a) + text::width(&arrow) + text::width(&b),
        })
        .max()
        .unwrap_or(0)
        .max(text::width("top-1 A -> B"));
    let topw = want.min((rest * 11 / 20).max(12));
    let head = format!(
        "  {} jaccard   rbo {} {} query",
        text::fit("case", idw, g.ellipsis),
        text::fit("top-1 A -> B", topw, g.ellipsis),
        text::fit("selected", 8, g.ellipsis),
    );
    let cols = Cols { idw, topw };
    let row = |k: usize| -> Line<'static> { case_row(app, d, &cols, &d.cases[vis[k]]) };
    let focused = d.focus == DiffFocus::Cases;
    let title = box_title(
        app,
        format!(
            " Cases ({}{}) ",
            vis.len(),
            if d.changed_only { " changed" } else { "" }
        ),
        focused,
    );
    let rr = list_box(
        app,
        r,
        buf,
        compact,
        title,
        Some(Line::styled(head, st(app, Role::Header))),
        vis.len(),
        &row,
        d.cursor,
        focused,
    );
    info.table_rows = rr;
}

/// One case's row: changed mark, id, Jaccard and RBO, top-1 (A → B when it changed),
/// whether the selected target changed, query.
fn case_row(app: &App, d: &DiffView, cols: &Cols, c: &DiffCase) -> Line<'static> {
    let g = glyphs(app);
    let Cols { idw, topw } = *cols;
    let arrow = format!(" {} ", g.arrow_out);
    let changed = c.diff.changed();
    let mark = if changed {
        format!("{} ", g.dot)
    } else {
        "  ".into()
    };
    // a changed top-1: both names, cut so that they still differ
    let top = match top_text(d, c) {
        (a, None) => a,
        (a, Some(b)) => {
            // halves, or what the shorter name leaves to the longer one
            let room = topw.saturating_sub(text::width(&arrow));
            let wa = text::width(&a).min((room / 2).max(room.saturating_sub(text::width(&b))));
            let (a, b) = text::apart(&a, &b, (wa, room - wa), g.ellipsis);
            format!("{a}{arrow}{b}")
        }
    };
    // a case on one side only has nothing to compare: no "same", no scores
    let one_sided = c.diff.only_in.is_some();
    let sel = if one_sided {
        "-"
    } else if c.diff.selected.0 != c.diff.selected.1 {
        "changed"
    } else {
        "same"
    };
    let overlap = if one_sided {
        format!(" {:>7} {:>5} ", "-", "-")
    } else {
        format!(" {:>7.4} {:>5.3} ", c.diff.jaccard, c.diff.rbo)
    };
    Line::from(vec![
        Span::styled(mark, st(app, Role::Warn)),
        Span::raw(text::fit(&clean(&c.diff.id), idw, g.ellipsis)),
        Span::styled(overlap, st(app, Role::Score)),
        Span::styled(
            text::fit(&top, topw, g.ellipsis),
            if c.diff.top1_changed() {
                st(app, Role::Warn)
            } else {
                Style::default()
            },
        ),
        Span::styled(
            format!(" {} ", text::fit(sel, 8, g.ellipsis)),
            if sel == "changed" {
                st(app, Role::Warn)
            } else {
                st(app, Role::Muted)
            },
        ),
        Span::styled(
            c.diff.query.as_deref().map(clean).unwrap_or_default(),
            st(app, Role::Muted),
        ),
    ])
}

fn detail(app: &App, d: &DiffView) -> Doc {
    let mut doc = Doc::default();
    let Some(c) = d.current() else {
        doc.text(Line::styled(
            if d.changed_only {
                "no changed case (c: every case)"
            } else {
                "no case"
            },
            st(app, Role::Muted),
        ));
        return doc;
    };
    let cd = &c.diff;
    case_title(&mut doc, app, cd);
    let (a, b) = (c.a.map(|x| &d.a[x]), c.b.map(|x| &d.b[x]));
    let gained: Vec<&String> = cd
        .moves
        .iter()
        .filter(|m| m.1.is_none())
        .map(|m| &m.0)
        .collect();
    let lost: Vec<&String> = cd
        .moves
        .iter()
        .filter(|m| m.2.is_none())
        .map(|m| &m.0)
        .collect();
    if cd.only_in.is_none() {
        comparison(&mut doc, app, cd, gained.len(), lost.len());
    }
    doc.blank();
    side_by_side(app, d, a, b, &mut doc);
    gained_and_lost(&mut doc, app, &gained, &lost);
    breakdown_changes(&mut doc, app, cd);
    doc
}

/// The case's id, query and whether it changed; for a case on one side only, which.
fn case_title(doc: &mut Doc, app: &App, cd: &CaseDiff) {
    doc.text(spans(vec![
        (clean(&cd.id), st(app, Role::Title)),
        (
            cd.query
                .as_deref()
                .map(|q| format!("  {}", crate::sanitize::quoted(q)))
                .unwrap_or_default(),
            Style::default(),
        ),
        (
            if cd.changed() {
                "  changed"
            } else {
                "  unchanged"
            }
            .to_string(),
            if cd.changed() {
                st(app, Role::Warn)
            } else {
                st(app, Role::Good)
            },
        ),
    ]));
    if let Some(side) = cd.only_in {
        doc.text(Line::styled(
            format!("  only in {side}: the other run has no case with this id"),
            st(app, Role::Warn),
        ));
    }
}

/// For a case in both runs: Jaccard, RBO and the counts moved, gained and lost; the
/// selected target A → B; the reason codes added and removed.
fn comparison(doc: &mut Doc, app: &App, cd: &CaseDiff, gained: usize, lost: usize) {
    let g = glyphs(app);
    let moved = cd
        .moves
        .iter()
        .filter(|m| m.1.is_some() && m.2.is_some() && m.1 != m.2)
        .count();
    doc.text_indent(
        spans(vec![
            ("  Jaccard ".into(), st(app, Role::Muted)),
            (format!("{:.4}", cd.jaccard), st(app, Role::Score)),
            ("  RBO(p=0.9) ".into(), st(app, Role::Muted)),
            (format!("{:.4}", cd.rbo), st(app, Role::Score)),
            ("  moved ".into(), st(app, Role::Muted)),
            (moved.to_string(), Style::default()),
            ("  gained ".into(), st(app, Role::Muted)),
            (gained.to_string(), st(app, Role::Good)),
            ("  lost ".into(), st(app, Role::Muted)),
            (lost.to_string(), st(app, Role::Bad)),
        ]),
        4,
    );
    let name = |s: &Option<String>| s.as_deref().map(clean).unwrap_or_else(|| "-".into());
    let sel_changed = cd.selected.0 != cd.selected.1;
    doc.text_indent(
        spans(vec![
            ("  selected target ".into(), st(app, Role::Muted)),
            (name(&cd.selected.0), Style::default()),
            (format!(" {} ", g.arrow_out), st(app, Role::Muted)),
            (name(&cd.selected.1), Style::default()),
            (
                if sel_changed {
                    "  (changed)"
                } else {
                    "  (same)"
                }
                .to_string(),
                if sel_changed {
                    st(app, Role::Warn)
                } else {
                    st(app, Role::Muted)
                },
            ),
        ]),
        4,
    );
    if !cd.codes_added.is_empty() || !cd.codes_removed.is_empty() {
        doc.text_indent(
            spans(vec![
                ("  reason codes ".into(), st(app, Role::Muted)),
                (
                    format!("+[{}]", clean(&cd.codes_added.join(", "))),
                    st(app, Role::Good),
                ),
                (
                    format!(" -[{}]", clean(&cd.codes_removed.join(", "))),
                    st(app, Role::Bad),
                ),
            ]),
            4,
        );
    }
}

/// Below the rankings: the tools B gained and those it lost, by name.
fn gained_and_lost(doc: &mut Doc, app: &App, gained: &[&String], lost: &[&String]) {
    if !gained.is_empty() {
        doc.text_indent(
            spans(vec![
                ("  gained ".into(), st(app, Role::Good)),
                (
                    gained
                        .iter()
                        .map(|x| clean(x))
                        .collect::<Vec<_>>()
                        .join(", "),
                    Style::default(),
                ),
            ]),
            4,
        );
    }
    if !lost.is_empty() {
        doc.text_indent(
            spans(vec![
                ("  lost ".into(), st(app, Role::Bad)),
                (
                    lost.iter().map(|x| clean(x)).collect::<Vec<_>>().join(", "),
                    Style::default(),
                ),
            ]),
            4,
        );
    }
}

/// The score-breakdown changes: per tool and field, A's value → B's.
fn breakdown_changes(doc: &mut Doc, app: &App, cd: &CaseDiff) {
    let g = glyphs(app);
    if !cd.breakdown.is_empty() {
        doc.blank();
        doc.text(Line::styled(
            format!("score-breakdown changes ({})", cd.breakdown.len()),
            st(app, Role::Section),
        ));
        for (tool, field, va, vb) in &cd.breakdown {
            doc.text_indent(
                spans(vec![
                    (format!("  {}", clean(tool)), Style::default()),
                    (format!("  {}", clean(field)), st(app, Role::Key)),
                    (format!("  {}", json_text(va)), st(app, Role::Muted)),
                    (format!(" {} ", g.arrow_out), st(app, Role::Muted)),
                    (json_text(vb), st(app, Role::Score)),
                ]),
                6,
            );
        }
    }
}

fn side_by_side(
    app: &App,
    d: &DiffView,
    a: Option<&RunRecord>,
    b: Option<&RunRecord>,
    doc: &mut Doc,
) {
    let g = glyphs(app);
    let theme = app.theme.clone();
    let ascii = app.caps.ascii;
    let ell = g.ellipsis;
    let sep = g.sep.to_string();
    let rows_a: Vec<(String, Option<f64>)> = a
        .map(|r| r.rows.iter().map(|x| (clean(&x.name), x.score)).collect())
        .unwrap_or_default();
    let rows_b: Vec<(String, Option<f64>, Option<usize>)> = b
        .map(|r| {
            r.rows
                .iter()
                .map(|x| {
                    let ra =
                        a.and_then(|a| a.rows.iter().find(|y| y.name == x.name).map(|y| y.rank));
                    (clean(&x.name), x.score, ra)
                })
                .collect()
        })
        .unwrap_or_default();
    let names_b: Vec<String> = b
        .map(|r| r.rows.iter().map(|x| clean(&x.name)).collect())
        .unwrap_or_default();
    let col = move |w: usize| {
        let half = w.saturating_sub(text::width(g.sep)) / 2;
        (
            half,
            half.saturating_sub(4 + 8).clamp(4, 34),
            half.saturating_sub(4 + 8 + 6).clamp(4, 34),
        )
    };
    let (la, lb) = (clean(&d.a_label), clean(&d.b_label));
    {
        let theme = theme.clone();
        let sep = sep.clone();
        doc.sized(move |w| {
            let (half, _, _) = col(w);
            let h = theme.get(Role::Header);
            Line::from(vec![
                Span::styled(text::fit(&format!("  # A {la}"), half, ell), h),
                Span::styled(sep.clone(), theme.get(Role::Border)),
                Span::styled(format!("  # B {lb}"), h),
            ])
        });
    }
    let n = rows_a.len().max(rows_b.len());
    for i in 0..n {
        let left = rows_a.get(i).cloned().map(|(nm, sc)| {
            let lost = b.is_some() && !names_b.contains(&nm);
            (nm, sc, lost)
        });
        let right = rows_b.get(i).cloned().map(|(nm, sc, ra)| {
            let rb = i + 1;
            let marker = if a.is_none() {
                String::new()
            } else {
                crate::lab::diff::marker(ra, Some(rb), ascii)
            };
            (
                nm,
                sc,
                marker,
                ra.map(|x| x as i64 - rb as i64),
                ra.is_none() && a.is_some(),
            )
        });
        let theme = theme.clone();
        let sep = sep.clone();
        doc.sized(move |w| {
            let (half, ln, rn) = col(w);
            let score = |s: Option<f64>| s.map(|x| format!("{x:.4}")).unwrap_or_else(|| "-".into());
            let mut sp: Vec<Span<'static>> = Vec::new();
            match &left {
                Some((nm, sc, lost)) => {
                    sp.push(Span::styled(
                        text::fit_right(&(i + 1).to_string(), 3),
                        theme.get(Role::Muted),
                    ));
                    sp.push(Span::raw(" "));
                    sp.push(Span::styled(
                        text::fit(nm, ln, ell),
                        if *lost {
                            theme.get(Role::Bad)
                        } else {
                            Style::default()
                        },
                    ));
                    sp.push(Span::styled(
                        text::fit_right(&score(*sc), 8),
                        theme.get(Role::Score),
                    ));
                    sp.push(Span::raw(" ".repeat(half.saturating_sub(3 + 1 + ln + 8))));
                }
                None => sp.push(Span::raw(" ".repeat(half))),
            }
            sp.push(Span::styled(sep.clone(), theme.get(Role::Border)));
            if let Some((nm, sc, marker, delta, is_new)) = &right {
                sp.push(Span::styled(
                    text::fit_right(&(i + 1).to_string(), 3),
                    theme.get(Role::Muted),
                ));
                sp.push(Span::raw(" "));
                sp.push(Span::styled(
                    text::fit(nm, rn, ell),
                    if *is_new {
                        theme.get(Role::Good)
                    } else {
                        Style::default()
                    },
                ));
                sp.push(Span::styled(
                    text::fit_right(&score(*sc), 8),
                    theme.get(Role::Score),
                ));
                let role = match (is_new, delta) {
                    (true, _) => Role::Good,
                    (_, Some(d)) if *d > 0 => Role::Good,
                    (_, Some(d)) if *d < 0 => Role::Bad,
                    _ => Role::Muted,
                };
                sp.push(Span::styled(text::fit_right(marker, 6), theme.get(role)));
            }
            Line::from(sp)
        });
    }
    if n == 0 {
        doc.text(Line::styled(
            "  (no rows on either side)",
            st(app, Role::Muted),
        ));
    }
}
