//! Counterfactual pane: the explorer's current run (the base) against the same query with
//! exactly one authorised knob changed (`evidence::counterfactual::compare`, run on the
//! evidence worker): `mechanism_status` and its contract note, Jaccard and RBO, gained and
//! lost tools, the selector outcome change, and both rankings side by side with ↑↓ markers
//! and each side's selected target `*` and LLM target `L`.
//! `m`/`M` pick the knob, ←/→ step its value, Enter types one (`:cf KNOB=VALUE`).

use std::sync::Arc;

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::super::app::{App, PaneId};
use super::super::drill::{base_knobs, show_value, variant_value};
use super::super::text;
use super::super::theme::{Role, Theme};
use super::crumbs;
use super::doc::{Doc, spans};
use super::{clean, glyphs, st};
use crate::engine::Selection;
use crate::evidence::counterfactual::{Comparison, Move};
use crate::evidence::knobs::{KNOBS, Knobs};

fn status_role(s: &str) -> Role {
    match s {
        "resolved" => Role::Good,
        "partial" => Role::Warn,
        _ => Role::Bad,
    }
}

fn brief(s: &Option<Selection>) -> String {
    match s {
        None => "-".into(),
        Some(s) => {
            let mut t = if s.selected_target.is_empty() {
                "(none)".to_string()
            } else {
                clean(&s.selected_target)
            };
            if s.overrode_llm {
                t.push_str(" overrode LLM");
            } else if s.llm_target.as_deref() == Some(s.selected_target.as_str()) {
                // the selected target is the LLM's: say so, as the `*L` marks do
                t.push_str(" = LLM target");
            }
            if s.ambiguous {
                t.push_str(" ambiguous");
            }
            t
        }
    }
}

pub fn doc(app: &App) -> Doc {
    let mut d = Doc::default();
    d.fit(crumbs::lines(app, PaneId::Counterfactual));
    let Some(base) = base_knobs(app) else {
        d.text(Line::styled(
            "no result yet: type a query with /",
            st(app, Role::Muted),
        ));
        return d;
    };
    let knob = KNOBS[app.cf.knob];
    let value = variant_value(app, &base);
    knob_lines(&mut d, app, &base, &value);
    let Some(out) = &app.cf.out else {
        d.text(Line::styled(
            "comparing (both runs on the worker)…",
            st(app, Role::Muted),
        ));
        return d;
    };
    let pending = app.cf.wanted.as_ref() != Some(&out.key);
    let cmp: Arc<Comparison> = match &out.result {
        Ok(c) => c.clone(),
        Err(e) => {
            d.text(Line::styled(
                format!("  cannot build the variant: {}", clean(e)),
                st(app, Role::Bad),
            ));
            return d;
        }
    };
    status_line(&mut d, app, &cmp, pending);
    let (gained, lost) = (cmp.gained(), cmp.lost());
    overlap_line(&mut d, app, &cmp, gained.len(), lost.len());
    selector_lines(&mut d, app, &cmp);
    d.blank();
    side_by_side(app, &cmp, knob, &base.get(knob), &value, &mut d);
    gained_and_lost(&mut d, app, &gained, &lost);
    d
}

/// The knob line: which knob of how many, its base value and the variant's, with the
/// keys (and without them when they do not fit).
fn knob_lines(d: &mut Doc, app: &App, base: &Knobs, value: &serde_json::Value) {
    let g = glyphs(app);
    let knob = KNOBS[app.cf.knob];
    let knob_line = |hints: bool| {
        spans(vec![
            (
                format!("knob {}/{} ", app.cf.knob + 1, KNOBS.len()),
                st(app, Role::Muted),
            ),
            (knob.to_string(), st(app, Role::Title)),
            ("  base ".into(), st(app, Role::Muted)),
            (clean(&show_value(&base.get(knob))), Style::default()),
            (format!(" {} ", g.arrow_out), st(app, Role::Muted)),
            ("variant ".into(), st(app, Role::Muted)),
            (clean(&show_value(value)), st(app, Role::Key)),
            (
                if hints {
                    "   (m/M: knob, Left/Right: value, Enter: type one)"
                } else {
                    ""
                }
                .into(),
                st(app, Role::Muted),
            ),
        ])
    };
    d.fit(vec![knob_line(true), knob_line(false)]);
}

/// `mechanism_status` as a badge, its contract note, and `comparing…` while a newer
/// comparison is on the worker.
fn status_line(d: &mut Doc, app: &App, cmp: &Comparison, pending: bool) {
    let c = &cmp.contract;
    d.text_indent(
        spans(vec![
            ("mechanism_status ".into(), st(app, Role::Muted)),
            (
                format!(" {} ", c.status.to_uppercase()),
                st(app, status_role(c.status)).patch(st(app, Role::TabActive)),
            ),
            (format!("  {}", clean(&c.note)), Style::default()),
            (
                if pending { "  comparing…" } else { "" }.to_string(),
                st(app, Role::Warn),
            ),
        ]),
        4,
    );
}

/// How much the rankings overlap: Jaccard, RBO and the counts gained, lost and moved.
fn overlap_line(d: &mut Doc, app: &App, cmp: &Comparison, gained: usize, lost: usize) {
    let moved = cmp
        .moves
        .iter()
        .filter(|m| m.delta().is_some_and(|d| d != 0))
        .count();
    d.text_indent(
        spans(vec![
            ("  Jaccard ".into(), st(app, Role::Muted)),
            (format!("{:.4}", cmp.jaccard), st(app, Role::Score)),
            ("  RBO(p=0.9) ".into(), st(app, Role::Muted)),
            (format!("{:.4}", cmp.rbo), st(app, Role::Score)),
            ("  gained ".into(), st(app, Role::Muted)),
            (gained.to_string(), st(app, Role::Good)),
            ("  lost ".into(), st(app, Role::Muted)),
            (lost.to_string(), st(app, Role::Bad)),
            ("  moved ".into(), st(app, Role::Muted)),
            (moved.to_string(), Style::default()),
        ]),
        4,
    );
}

/// The selector's outcome, base → variant (changed or not), and the reason codes the
/// variant added and removed.
fn selector_lines(d: &mut Doc, app: &App, cmp: &Comparison) {
    let g = glyphs(app);
    let changed = cmp.selector_changed();
    d.text_indent(
        spans(vec![
            ("  selector ".into(), st(app, Role::Muted)),
            (brief(&cmp.base_selection), Style::default()),
            (format!(" {} ", g.arrow_out), st(app, Role::Muted)),
            (brief(&cmp.variant_selection), Style::default()),
            (
                if changed {
                    "  (changed)"
                } else {
                    "  (unchanged)"
                }
                .to_string(),
                if changed {
                    st(app, Role::Warn)
                } else {
                    st(app, Role::Muted)
                },
            ),
        ]),
        4,
    );
    if let (Some(a), Some(b)) = (&cmp.base_selection, &cmp.variant_selection) {
        let added: Vec<&str> = b
            .reason_codes
            .iter()
            .filter(|x| !a.reason_codes.contains(x))
            .copied()
            .collect();
        let removed: Vec<&str> = a
            .reason_codes
            .iter()
            .filter(|x| !b.reason_codes.contains(x))
            .copied()
            .collect();
        if !added.is_empty() || !removed.is_empty() {
            d.text_indent(
                Line::styled(
                    format!(
                        "    reason codes +[{}] -[{}]",
                        added.join(", "),
                        removed.join(", ")
                    ),
                    st(app, Role::Muted),
                ),
                6,
            );
        }
    }
}

/// Below the rankings: the tools the variant gained and those it lost, by name.
fn gained_and_lost(d: &mut Doc, app: &App, gained: &[&Move], lost: &[&Move]) {
    if !gained.is_empty() || !lost.is_empty() {
        d.blank();
    }
    if !gained.is_empty() {
        d.text_indent(
            spans(vec![
                ("  gained ".into(), st(app, Role::Good)),
                (
                    gained
                        .iter()
                        .map(|m| clean(&m.tool))
                        .collect::<Vec<_>>()
                        .join(", "),
                    Style::default(),
                ),
            ]),
            4,
        );
    }
    if !lost.is_empty() {
        d.text_indent(
            spans(vec![
                ("  lost ".into(), st(app, Role::Bad)),
                (
                    lost.iter()
                        .map(|m| clean(&m.tool))
                        .collect::<Vec<_>>()
                        .join(", "),
                    Style::default(),
                ),
            ]),
            4,
        );
    }
}

/// A side's marks for a row, in the two cells after the rank: its selected target `*` and
/// its LLM target `L`, both when the selector kept the LLM's choice (as the candidates
/// table shows them).
fn marks(sel: &Option<Selection>, name: &str) -> [&'static str; 2] {
    let Some(s) = sel else { return [" ", " "] };
    let target = if s.selected_target == name { "*" } else { " " };
    let llm = if s.llm_target.as_deref() == Some(name) {
        "L"
    } else {
        " "
    };
    [target, llm]
}

fn mark_spans(theme: &Theme, m: &[&'static str; 2]) -> [Span<'static>; 2] {
    let role = |mark: &str, role: Role| {
        if mark.trim().is_empty() {
            Span::raw(mark.to_string())
        } else {
            Span::styled(mark.to_string(), theme.get(role))
        }
    };
    [role(m[0], Role::MarkTarget), role(m[1], Role::MarkLlm)]
}

/// Both rankings in two columns: each variant row carries its move against the base.
fn side_by_side(
    app: &App,
    cmp: &Arc<Comparison>,
    knob: &str,
    base_v: &serde_json::Value,
    var_v: &serde_json::Value,
    d: &mut Doc,
) {
    let g = glyphs(app);
    let theme: Theme = app.theme.clone();
    let ascii = app.caps.ascii;
    let ell = g.ellipsis;
    let sep = g.sep.to_string();
    let left_title = format!("base ({knob} {})", clean(&show_value(base_v)));
    let right_title = format!("variant ({knob} {})", clean(&show_value(var_v)));
    let sep_w = text::width(&sep);
    let col = move |w: usize| {
        // "  #ML name score  gone" | "  #ML name score  move" (M: the selected target's
        // mark, L: the LLM target's, then a space)
        let half = w.saturating_sub(sep_w) / 2;
        let left_name = half.saturating_sub(6 + 8 + 6).clamp(4, 34);
        let right_name = half.saturating_sub(6 + 8 + 6).clamp(4, 34);
        (half, left_name, right_name)
    };
    {
        let theme = theme.clone();
        let sep = sep.clone();
        d.sized(move |w| {
            let (half, _, _) = col(w);
            let h = theme.get(Role::Header);
            Line::from(vec![
                Span::styled(text::fit(&format!("  #   {left_title}"), half, ell), h),
                Span::styled(sep.clone(), theme.get(Role::Border)),
                Span::styled(format!("  #   {right_title}"), h),
            ])
        });
    }
    let n = cmp.base.rows.len().max(cmp.variant.rows.len());
    for i in 0..n {
        let left = cmp.base.rows.get(i).map(|r| {
            let lost = !cmp.variant.rows.iter().any(|x| x.name == r.name);
            let m = marks(&cmp.base_selection, &r.name);
            (clean(&r.name), r.rounded_score(), lost, m)
        });
        let right = cmp.variant.rows.get(i).map(|r| {
            let m = cmp.moves.iter().find(|m| m.tool == r.name);
            let marker = m.map(|m| m.marker(ascii)).unwrap_or_default();
            let delta = m.and_then(|m| m.delta());
            let is_new = m.is_some_and(|m| m.base_rank.is_none());
            let sel = marks(&cmp.variant_selection, &r.name);
            (
                clean(&r.name),
                r.rounded_score(),
                marker,
                delta,
                is_new,
                sel,
            )
        });
        let theme = theme.clone();
        let sep = sep.clone();
        d.sized(move |w| {
            let (half, ln, rn) = col(w);
            let mut sp: Vec<Span<'static>> = Vec::new();
            match &left {
                Some((name, score, lost, m)) => {
                    sp.push(Span::styled(
                        text::fit_right(&(i + 1).to_string(), 3),
                        theme.get(Role::Muted),
                    ));
                    sp.extend(mark_spans(&theme, m));
                    sp.push(Span::raw(" "));
                    sp.push(Span::styled(
                        text::fit(name, ln, ell),
                        if *lost {
                            theme.get(Role::Bad)
                        } else {
                            Style::default()
                        },
                    ));
                    sp.push(Span::styled(
                        text::fit_right(&format!("{score:.4}"), 8),
                        theme.get(Role::Score),
                    ));
                    // a lost tool says so in letters, as the variant's "new" does
                    sp.push(Span::styled(
                        text::fit_right(if *lost { "gone" } else { "" }, 6),
                        theme.get(Role::Bad),
                    ));
                    let used: usize = 3 + 2 + 1 + ln + 8 + 6;
                    sp.push(Span::raw(" ".repeat(half.saturating_sub(used))));
                }
                None => sp.push(Span::raw(" ".repeat(half))),
            }
            sp.push(Span::styled(sep.clone(), theme.get(Role::Border)));
            if let Some((name, score, marker, delta, is_new, m)) = &right {
                sp.push(Span::styled(
                    text::fit_right(&(i + 1).to_string(), 3),
                    theme.get(Role::Muted),
                ));
                sp.extend(mark_spans(&theme, m));
                sp.push(Span::raw(" "));
                sp.push(Span::styled(
                    text::fit(name, rn, ell),
                    if *is_new {
                        theme.get(Role::Good)
                    } else {
                        Style::default()
                    },
                ));
                sp.push(Span::styled(
                    text::fit_right(&format!("{score:.4}"), 8),
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
}
