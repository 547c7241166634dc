//! The Blame tab of the Diff screen on two graphs: the case's headline, OLD's and NEW's
//! rankings side by side with a **blame** column naming each moved tool's top cause
//! (`[n]`, the cause listed below: the change with the largest Shapley share of that
//! tool's own rank move), then the causes (the cursor's; Enter shows the change, `x`
//! applies it alone to OLD). With causes applied the right column is OLD with
//! them, and the blame column says where each tool stands in NEW.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::super::app::App;
use super::super::gdiff::GraphDiffView;
use super::super::gdiff::work::BlamedCase;
use super::super::text;
use super::super::theme::Role;
use super::doc::{Doc, spans};
use super::{clean, glyphs, st};

fn rank_in(rows: &[(String, f64)], name: &str) -> Option<usize> {
    rows.iter().position(|r| r.0 == name).map(|i| i + 1)
}

pub fn doc(app: &App, v: &GraphDiffView) -> Doc {
    let mut d = Doc::default();
    let Some(r) = v.current_ref() else {
        d.text(Line::styled(
            "no case: type / and a query to blame it (the query box), or start with --cases SUITE",
            st(app, Role::Muted),
        ));
        return d;
    };
    let Some(c) = v.blamed(r) else {
        let q = v.spec(r).map(|s| clean(&s.query)).unwrap_or_default();
        d.text(Line::styled(
            format!("blaming \"{q}\": both rankings, then the hybrids of OLD and NEW"),
            st(app, Role::Muted),
        ));
        if v.diff.is_none() {
            d.text(Line::styled(
                "(the artifact diff comes first)",
                st(app, Role::Muted),
            ));
        }
        return d;
    };
    head(app, c, &mut d);
    d.blank();
    table(app, v, c, &mut d);
    causes(app, v, c, &mut d);
    d
}

fn head(app: &App, c: &BlamedCase, d: &mut Doc) {
    let g = glyphs(app);
    let (state, role) = match (c.changed, c.resolved) {
        (false, _) => ("unchanged", Role::Good),
        (true, true) => ("changed, resolved", Role::Warn),
        (true, false) => ("changed, unresolved", Role::Bad),
    };
    d.text(spans(vec![
        (clean(&c.id), st(app, Role::Title)),
        (format!("  \"{}\"", clean(&c.query)), Style::default()),
        (format!("  {state}"), st(app, role)),
    ]));
    let f = |x: Option<usize>| x.map_or("-".to_string(), |x| x.to_string());
    let tracked = c
        .tracked
        .as_deref()
        .map(clean)
        .unwrap_or_else(|| "-".into());
    d.text_indent(
        spans(vec![
            ("  tracked ".into(), st(app, Role::Muted)),
            (tracked, Style::default()),
            (
                if c.tracked_expected {
                    " (expected)".into()
                } else {
                    " (OLD's top-1)".into()
                },
                st(app, Role::Muted),
            ),
            ("  rank ".into(), st(app, Role::Muted)),
            (
                format!("{} {} {}", f(c.rank.0), g.arrow_out, f(c.rank.1)),
                st(app, Role::Score),
            ),
            ("  selected ".into(), st(app, Role::Muted)),
            (
                if c.selected.0 == c.selected.1 {
                    clean(&c.selected.0)
                } else {
                    format!(
                        "{} {} {}",
                        clean(&c.selected.0),
                        g.arrow_out,
                        clean(&c.selected.1)
                    )
                },
                Style::default(),
            ),
        ]),
        4,
    );
    if c.changed {
        d.text_indent(
            Line::styled(format!("  {}", clean(&c.headline)), st(app, Role::Note)),
            4,
        );
    }
    for (side, list) in [("OLD", &c.missing.0), ("NEW", &c.missing.1)] {
        if !list.is_empty() {
            d.text_indent(
                Line::styled(
                    format!(
                        "  expected, missing from {side}: {}",
                        clean(&list.join(", "))
                    ),
                    st(app, Role::Bad),
                ),
                4,
            );
        }
    }
}

/// Column widths for a pane `w` cells wide: names, blame, and whether scores fit.
fn cols(w: usize) -> (usize, usize, bool) {
    let wide = w >= 100;
    let score = if wide { 7 } else { 0 };
    let bw = (w * 3 / 10).clamp(10, 48);
    let fixed = 4 + score + 3 + 4 + score + 5 + 1;
    let nw = (w.saturating_sub(bw + fixed) / 2).max(6);
    (nw, bw, wide)
}

/// The table's head: OLD's name, the right column's (NEW's, or OLD with the causes
/// `applied`; the two names cut so that they still differ) and the blame column's.
fn table_head(app: &App, v: &GraphDiffView, applied: Option<&[usize]>, d: &mut Doc) {
    let g = glyphs(app);
    let (theme, ell, sep) = (app.theme.clone(), g.ellipsis, g.sep.to_string());
    // None: NEW, named beside OLD
    let right_label = match applied {
        Some(t) => Some(format!(
            "OLD + {}",
            t.iter()
                .map(|i| format!("[{}]", i + 1))
                .collect::<Vec<_>>()
                .join("")
        )),
        None if !v.toggled.is_empty() => Some(format!("re-ranking{}", g.ellipsis)),
        None => None,
    };
    let (old_name, new_name) = (clean(&v.old_label), clean(&v.new_label));
    let blame_label = if applied.is_some() { "in NEW" } else { "blame" };
    d.sized(move |w| {
        let (nw, bw, wide) = cols(w);
        let s = if wide { 7 } else { 0 };
        let h = theme.get(Role::Header);
        let (lw, rw) = (4 + nw + s, 4 + nw + s + 5);
        let (pl, pr) = ("  # OLD ", "  # NEW ");
        let (a, b) = text::distinct_pair(
            &old_name,
            &new_name,
            (
                lw.saturating_sub(text::width(pl)),
                rw.saturating_sub(text::width(pr)),
            ),
            ell,
        );
        let right = match &right_label {
            Some(r) => format!("  # {r}"),
            None => format!("{pr}{b}"),
        };
        Line::from(vec![
            Span::styled(text::fit(&format!("{pl}{a}"), lw, ell), h),
            Span::styled(sep.clone(), theme.get(Role::Border)),
            Span::styled(text::fit(&right, rw, ell), h),
            Span::styled(format!(" {}", text::fit(blame_label, bw, ell)), h),
        ])
    });
}

fn table(app: &App, v: &GraphDiffView, c: &BlamedCase, d: &mut Doc) {
    let g = glyphs(app);
    let theme = app.theme.clone();
    let ascii = app.caps.ascii;
    let ell = g.ellipsis;
    let sep = g.sep.to_string();
    let applied = v.rerank.as_ref().filter(|(t, _)| *t == v.toggled);
    let right_rows: Vec<(String, f64)> = match applied {
        Some((_, r)) => r.rows.clone(),
        None => c.new_rows.clone(),
    };
    table_head(app, v, applied.map(|(t, _)| t.as_slice()), d);
    let n = c.old_rows.len().max(right_rows.len());
    for i in 0..n {
        let left = c.old_rows.get(i).map(|(nm, sc)| {
            let gone = rank_in(&right_rows, nm).is_none();
            (clean(nm), *sc, gone)
        });
        let right = right_rows.get(i).map(|(nm, sc)| {
            let ra = rank_in(&c.old_rows, nm);
            let marker = crate::lab::diff::marker(ra, Some(i + 1), ascii);
            let role = match ra {
                None => Role::Good,
                Some(x) if x > i + 1 => Role::Good,
                Some(x) if x < i + 1 => Role::Bad,
                _ => Role::Muted,
            };
            let blame = if applied.is_some() {
                match rank_in(&c.new_rows, nm) {
                    Some(r) => format!("NEW #{r}"),
                    None => "not in NEW".into(),
                }
            } else if ra == Some(i + 1) {
                String::new()
            } else {
                match c.cause_of(nm) {
                    Some(k) => format!("[{}] {}", k + 1, clean(&c.causes[k].label)),
                    None => "unattributed".into(),
                }
            };
            (clean(nm), *sc, marker, role, ra.is_none(), blame)
        });
        let theme = theme.clone();
        let sep = sep.clone();
        d.sized(move |w| {
            let (nw, bw, wide) = cols(w);
            let score = |x: f64| format!("{x:>7.4}");
            let mut sp: Vec<Span<'static>> = Vec::new();
            let lw = 4 + nw + if wide { 7 } else { 0 };
            match &left {
                Some((nm, sc, gone)) => {
                    sp.push(Span::styled(
                        text::fit_right(&(i + 1).to_string(), 3),
                        theme.get(Role::Muted),
                    ));
                    sp.push(Span::raw(" "));
                    let role = if *gone { Role::Bad } else { Role::Text };
                    sp.push(Span::styled(text::fit(nm, nw, ell), theme.get(role)));
                    if wide {
                        sp.push(Span::styled(score(*sc), theme.get(Role::Score)));
                    }
                }
                None => sp.push(Span::raw(" ".repeat(lw))),
            }
            sp.push(Span::styled(sep.clone(), theme.get(Role::Border)));
            if let Some((nm, sc, marker, role, is_new, blame)) = &right {
                sp.push(Span::styled(
                    text::fit_right(&(i + 1).to_string(), 3),
                    theme.get(Role::Muted),
                ));
                sp.push(Span::raw(" "));
                let nr = if *is_new { Role::Good } else { Role::Text };
                sp.push(Span::styled(text::fit(nm, nw, ell), theme.get(nr)));
                if wide {
                    sp.push(Span::styled(score(*sc), theme.get(Role::Score)));
                }
                sp.push(Span::styled(text::fit_right(marker, 5), theme.get(*role)));
                sp.push(Span::styled(
                    format!(" {}", text::fit(blame, bw, ell)),
                    theme.get(Role::Note),
                ));
            }
            Line::from(sp)
        });
    }
    let dropped: Vec<String> = c
        .old_rows
        .iter()
        .filter(|(nm, _)| rank_in(&right_rows, nm).is_none())
        .map(|(nm, _)| match (applied, c.cause_of(nm)) {
            (None, Some(k)) => format!("{} [{}]", clean(nm), k + 1),
            _ => clean(nm),
        })
        .collect();
    if !dropped.is_empty() {
        d.text_indent(
            Line::styled(
                format!("  dropped out: {}", dropped.join(", ")),
                st(app, Role::Bad),
            ),
            4,
        );
    }
}

fn causes(app: &App, v: &GraphDiffView, c: &BlamedCase, d: &mut Doc) {
    d.blank();
    if c.causes.is_empty() {
        d.text(Line::styled(
            if c.changed {
                "no cause: the hybrids did not separate the change"
            } else {
                "nothing to blame: the ranking and the selection are the same"
            },
            st(app, Role::Muted),
        ));
        return;
    }
    d.text(Line::styled(
        format!(
            "Causes ({}), share of the headline's change (Enter: change, x: alone on OLD)",
            c.causes.len()
        ),
        st(app, Role::Section),
    ));
    for (i, k) in c.causes.iter().enumerate() {
        let on = v.toggled.contains(&i);
        let share = k
            .share
            .map(|s| format!("{s:>5.2}"))
            .unwrap_or_else(|| "    -".into());
        let tops = if k.tools.is_empty() {
            String::new()
        } else {
            format!("  (tops {})", tops(&k.tools))
        };
        d.item(spans(vec![
            (format!("[{}]", i + 1), st(app, Role::Key)),
            (
                if on { " on " } else { "    " }.to_string(),
                st(app, Role::Good),
            ),
            (share, st(app, Role::Score)),
            (format!("  {}", clean(&k.label)), Style::default()),
            (tops, st(app, Role::Muted)),
        ]));
    }
    d.text(Line::styled(
        format!("residual {:.2e}  {}", c.residual, clean(&c.method)),
        st(app, Role::Muted),
    ));
    d.text(Line::styled(
        "blame column: each moved tool's largest Shapley share of its own rank move \
         (the same players and hybrids)",
        st(app, Role::Muted),
    ));
}

/// The tools a cause tops and its share of each one's move: `listOrders 1.00,
/// listOrderItems 0.50`, or `listOrders, listOrderItems: 1.00 each` when the shares are
/// the same.
pub fn tops(tools: &[(String, f64)]) -> String {
    let share = |s: f64| format!("{s:.2}");
    let names = || tools.iter().map(|(t, _)| clean(t)).collect::<Vec<_>>();
    match tools.first() {
        Some((_, s0)) if tools.iter().all(|(_, s)| share(*s) == share(*s0)) => {
            format!("{}: {} each", names().join(", "), share(*s0))
        }
        _ => tools
            .iter()
            .map(|(t, s)| format!("{} {}", clean(t), share(*s)))
            .collect::<Vec<_>>()
            .join(", "),
    }
}
