//! Selector pane: what `select_target_candidate` did with the model's pick — selected and
//! LLM target, overrode_llm, ambiguous and the ambiguity set, confidence, decision, every
//! reason code with its meaning, the override assessment, and the rank signals (one item
//! per candidate: Enter or `l` makes it the LLM target).

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::super::app::App;
use super::super::caps::Glyphs;
use super::super::reasons;
use super::super::text;
use super::super::theme::Role;
use super::doc::{Doc, spans};
use super::{clean, glyphs, st};
use crate::engine::select::{Candidate, EvidenceExtra, Selection};

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

fn code_line(app: &App, code: &str, indent: &str) -> Line<'static> {
    let m = reasons::meaning(code).unwrap_or("(no description)");
    spans(vec![
        (format!("{indent}{code}"), st(app, Role::Key)),
        (format!("  {m}"), st(app, Role::Muted)),
    ])
}

/// A section heading.
fn sec(d: &mut Doc, app: &App, t: &str) {
    d.text(Line::styled(t.to_string(), st(app, Role::Section)));
}

/// Warn style when `b == bad_when_true`, plain otherwise.
fn good_bad(app: &App, b: bool, bad_when_true: bool) -> Style {
    if b == bad_when_true {
        st(app, Role::Warn)
    } else {
        Style::default()
    }
}

pub fn doc(app: &App) -> Doc {
    let mut d = Doc::default();
    let g = glyphs(app);
    let Some(s) = app.selection() else {
        d.text(Line::styled(
            "no selection yet: type a query with /",
            st(app, Role::Muted),
        ));
        return d;
    };
    outcome(&mut d, app, s, g);
    rank_signals(&mut d, app, s, g);
    override_assessment(&mut d, app, s);
    margins_and_facets(&mut d, app, s);
    why_selected_rejected(&mut d, app, s);
    d
}

/// The outcome: selected and LLM target, overrode_llm / ambiguous / needs_expansion,
/// decision and policy, and the reason codes.
fn outcome(d: &mut Doc, app: &App, s: &Selection, g: &Glyphs) {
    d.text(spans(vec![
        ("* ".into(), st(app, Role::MarkTarget)),
        ("selected  ".into(), st(app, Role::Muted)),
        (
            if s.selected_target.is_empty() {
                "(none)".into()
            } else {
                clean(&s.selected_target)
            },
            st(app, Role::Title),
        ),
        (
            format!("   confidence {:.6}", s.confidence),
            st(app, Role::Score),
        ),
    ]));
    d.text(spans(vec![
        ("L ".into(), st(app, Role::MarkLlm)),
        ("LLM target  ".into(), st(app, Role::Muted)),
        (
            s.llm_target
                .as_deref()
                .map(clean)
                .unwrap_or_else(|| "(none: l on a row, t to type a name)".into()),
            Style::default(),
        ),
    ]));
    d.text(Line::from(vec![
        Span::styled("  overrode_llm ", st(app, Role::Muted)),
        Span::styled(
            yes(s.overrode_llm).to_string(),
            good_bad(app, s.overrode_llm, true),
        ),
        Span::styled("  ambiguous ", st(app, Role::Muted)),
        Span::styled(
            yes(s.ambiguous).to_string(),
            if s.ambiguous {
                st(app, Role::Bad)
            } else {
                Style::default()
            },
        ),
        Span::styled("  needs_expansion ", st(app, Role::Muted)),
        Span::raw(yes(s.needs_expansion).to_string()),
    ]));
    d.text_indent(
        Line::from(vec![
            Span::styled("  decision ", st(app, Role::Muted)),
            Span::raw(format!(
                "{} {} {}",
                s.decision, g.arrow_out, s.recommended_action
            )),
            Span::styled("  policy ", st(app, Role::Muted)),
            Span::styled(clean(s.policy.as_str()), st(app, Role::Key)),
            Span::styled(" (p cycles)", st(app, Role::Muted)),
        ]),
        4,
    );
    sec(d, app, "reason codes");
    for c in &s.reason_codes {
        d.text_indent(code_line(app, c, "  "), 6);
    }
}

/// The rank signals: one item per candidate, and the row under the cursor opened to its
/// evidence.
fn rank_signals(d: &mut Doc, app: &App, s: &Selection, g: &Glyphs) {
    d.blank();
    sec(
        d,
        app,
        "rank signals (Enter or l: make it the LLM target; e: explain its score)",
    );
    let cursor = app.pane(super::super::app::PaneId::Selector).cursor;
    for (ci, c) in s.rows.iter().enumerate() {
        d.item(candidate_line(app, c, g));
        if ci == cursor {
            candidate_evidence(d, app, c);
        }
    }
}

/// One candidate's item line: marks, name, selector score, original rank, strength and
/// the short evidence scores.
fn candidate_line(app: &App, c: &Candidate, g: &Glyphs) -> Line<'static> {
    let mut sp: Vec<Span<'static>> = vec![
        if c.selected {
            Span::styled("*", st(app, Role::MarkTarget))
        } else {
            Span::raw(" ")
        },
        if c.llm_target {
            Span::styled("L", st(app, Role::MarkLlm))
        } else {
            Span::raw(" ")
        },
        Span::raw(" "),
        Span::raw(text::fit(&clean(&c.name), 26, g.ellipsis)),
        Span::styled(format!(" {:.6}", c.selector_score), st(app, Role::Score)),
        Span::styled(
            format!(
                " #{:<3}",
                c.original_rank
                    .map(|r| r.to_string())
                    .unwrap_or_else(|| "-".into())
            ),
            st(app, Role::Muted),
        ),
        if c.strong_evidence {
            Span::styled("strong ", st(app, Role::Good))
        } else {
            Span::styled("weak   ", st(app, Role::Muted))
        },
    ];
    for e in &c.evidence {
        let role = if e.score < 0.0 { Role::Bad } else { Role::Text };
        sp.push(Span::styled(
            format!("{}{:+.3} ", reasons::short(e.source), e.score),
            st(app, role),
        ));
    }
    Line::from(sp)
}

/// Every evidence item of the row under the cursor, with what it matched, and the
/// base + contrastive sum.
fn candidate_evidence(d: &mut Doc, app: &App, c: &Candidate) {
    for e in &c.evidence {
        let mut what = match &e.extra {
            EvidenceExtra::None | EvidenceExtra::Learning { .. } => String::new(),
            _ => e
                .signature_values()
                .iter()
                .map(|v| clean(v))
                .collect::<Vec<_>>()
                .join(", "),
        };
        if !what.is_empty() {
            what = format!(" [{what}]");
        }
        d.text_indent(
            spans(vec![
                (
                    format!("      {:+.6} {}", e.score, e.source),
                    if e.score < 0.0 {
                        st(app, Role::Bad)
                    } else {
                        st(app, Role::Key)
                    },
                ),
                (what, Style::default()),
                (
                    format!("  {}", reasons::meaning(e.source).unwrap_or("")),
                    st(app, Role::Muted),
                ),
            ]),
            8,
        );
    }
    d.text(Line::styled(
        format!(
            "      base {:.6} + contrastive {:+.6} = {:.6}",
            c.base_selector_score, c.contrastive_score, c.selector_score
        ),
        st(app, Role::Muted),
    ));
}

/// The override assessment: allowed, risk, supporting and contradicting sources and its
/// reason codes (or why it was not evaluated).
fn override_assessment(d: &mut Doc, app: &App, s: &Selection) {
    let a = &s.override_assessment;
    d.blank();
    sec(d, app, "override assessment");
    if a.evaluated {
        d.text(Line::from(vec![
            Span::styled("  evaluated ", st(app, Role::Muted)),
            Span::raw("yes"),
            Span::styled("  allowed ", st(app, Role::Muted)),
            Span::styled(
                yes(a.allowed).to_string(),
                if a.allowed {
                    st(app, Role::Good)
                } else {
                    st(app, Role::Warn)
                },
            ),
            Span::styled("  risk ", st(app, Role::Muted)),
            Span::styled(
                a.risk_level.to_string(),
                match a.risk_level {
                    "high" => st(app, Role::Bad),
                    "medium" => st(app, Role::Warn),
                    _ => st(app, Role::Good),
                },
            ),
        ]));
        let list = |v: &[&'static str]| {
            if v.is_empty() {
                "-".to_string()
            } else {
                v.join(", ")
            }
        };
        d.text_indent(
            spans(vec![
                ("  supporting ".into(), st(app, Role::Muted)),
                (list(&a.supporting_sources), Style::default()),
            ]),
            4,
        );
        d.text_indent(
            spans(vec![
                ("  contradicting ".into(), st(app, Role::Muted)),
                (list(&a.contradicting_sources), Style::default()),
            ]),
            4,
        );
        for c in &a.reason_codes {
            d.text_indent(code_line(app, c, "  "), 6);
        }
    } else {
        d.text(Line::styled(
            "  not evaluated: no LLM target, or it is the winner",
            st(app, Role::Muted),
        ));
    }
}

/// Margins, the ambiguity set and the query facets.
fn margins_and_facets(d: &mut Doc, app: &App, s: &Selection) {
    d.blank();
    sec(d, app, "margins and facets");
    let mut margins = format!("  margin {:.6}", s.margin);
    if let Some(m) = s.llm_margin {
        margins.push_str(&format!("  llm_margin {m:.6}"));
    }
    d.text(Line::raw(margins));
    d.text_indent(
        spans(vec![
            ("  ambiguity set ".into(), st(app, Role::Muted)),
            (
                if s.ambiguity_set.is_empty() {
                    "(empty)".into()
                } else {
                    s.ambiguity_set
                        .iter()
                        .map(|n| clean(n))
                        .collect::<Vec<_>>()
                        .join(", ")
                },
                Style::default(),
            ),
        ]),
        4,
    );
    let f = &s.query_facets;
    d.text_indent(
        spans(vec![
            ("  query facets ".into(), st(app, Role::Muted)),
            (
                format!(
                    "action {} · shape {} · identifier {} · content terms {} · scope {}",
                    or_dash(&f.canonical_action),
                    or_dash(&f.result_shape),
                    yes(f.identifier_present),
                    f.content_term_count,
                    or_dash(&f.scope)
                ),
                Style::default(),
            ),
        ]),
        4,
    );
}

/// The why-selected reason codes and each rejected candidate's score delta and codes,
/// when there are any.
fn why_selected_rejected(d: &mut Doc, app: &App, s: &Selection) {
    if !s.why_selected.reason_codes.is_empty() {
        d.blank();
        sec(d, app, "why selected");
        for c in &s.why_selected.reason_codes {
            d.text_indent(code_line(app, c, "  "), 6);
        }
    }
    if !s.why_rejected.is_empty() {
        d.blank();
        sec(d, app, "why rejected");
        for r in &s.why_rejected {
            d.text(spans(vec![
                (format!("  {}", clean(&r.name)), Style::default()),
                (
                    format!("  score delta {:+.6}", r.score_delta),
                    st(app, Role::Muted),
                ),
            ]));
            for c in &r.reason_codes {
                d.text_indent(code_line(app, c, "    "), 8);
            }
        }
    }
}

fn or_dash(s: &str) -> String {
    if s.is_empty() { "-".into() } else { clean(s) }
}
