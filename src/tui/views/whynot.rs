//! Why-not pane: the triage of an expected tool against the current run — its failure
//! class and the stage that failed, the selector's verdict, the deficit against the winner
//! (and the top-K cutoff) term by term side by side, the tools above it channel by channel,
//! the expansion path, the findings, and the probes that change its outcome or rank. The
//! header, each section title and each probe are the pane's items: j/k step through them,
//! and Enter on a knob probe opens it in the Counterfactual pane. Every number is the
//! engine's (`engine::triage`), the same value `toolscope triage` prints.

use ratatui::style::Style;
use ratatui::text::Line;

use super::super::app::App;
use super::super::text;
use super::super::theme::Role;
use super::super::whynot::probe_label;
use super::doc::{Doc, spans};
use super::{clean, glyphs, st};
use crate::engine::triage::deficit::{Against, Deficit, TermHit};
use crate::engine::triage::{FailureClass, Probe, Triage};
use crate::output::triage::{
    class_signals, hop_text, missing_terms, opt_rank, reason_text, stage_line,
};

fn f4(x: f64) -> String {
    format!("{x:.4}")
}

fn signed(x: f64) -> String {
    format!("{x:+.4}")
}

fn status_role(s: &str) -> Role {
    match s {
        "resolved" => Role::Good,
        "partial" => Role::Warn,
        _ => Role::Bad,
    }
}

fn class_role(c: &FailureClass) -> Role {
    match c {
        FailureClass::Selected => Role::Good,
        FailureClass::NotRetrieved { .. } => Role::Bad,
        _ => Role::Warn,
    }
}

/// The text shown before an expected tool is set.
const INTRO: &[&str] = &[
    "Why not X? Set an expected tool and this pane says which stage failed for it: not retrieved (and why), outranked, or the selector's choice — with the evidence.",
    "w on a candidate (or on a neighbour in the Graph pane, a row in the Selector pane) sets it; :whynot NAME names any tool of the graph, retrieved or not.",
];

pub fn doc(app: &App) -> Doc {
    let d = build(app);
    if app.caps.ascii { d.map_text(ascii) } else { d }
}

/// The pane's Unicode (from its own text and the shared triage text) in ASCII.
fn ascii(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '×' => out.push('x'),
            '→' => out.push_str("->"),
            '…' => out.push_str("..."),
            '·' => out.push('|'),
            '−' => out.push('-'),
            'Δ' => out.push('d'),
            c => out.push(c),
        }
    }
    out
}

fn build(app: &App) -> Doc {
    let mut d = Doc::default();
    let wn = &app.whynot;
    if wn.expected.is_empty() {
        for t in INTRO {
            d.text(Line::styled(t.to_string(), st(app, Role::Muted)));
        }
        return d;
    }
    let names: Vec<String> = wn.expected.iter().map(|e| clean(e)).collect();
    let pending = wn.pending();
    let failed = match &wn.out {
        Some(o) if o.key.expected == wn.expected => o.result.as_ref().err(),
        _ => None,
    };
    if let Some(e) = failed {
        d.text(spans(vec![
            ("expected ".into(), st(app, Role::Muted)),
            (names.join(", "), st(app, Role::Title)),
        ]));
        d.text(Line::styled(
            format!("cannot triage: {}", clean(e)),
            st(app, Role::Bad),
        ));
        return d;
    }
    let Some(t) = wn.triage() else {
        d.text(spans(vec![
            ("expected ".into(), st(app, Role::Muted)),
            (names.join(", "), st(app, Role::Title)),
        ]));
        d.text(Line::styled(
            "triaging (retrieval, selection, deficit and probes on the worker)…",
            st(app, Role::Muted),
        ));
        return d;
    };
    header(app, &mut d, t, pending);
    for d2 in &t.deficit {
        deficit(app, &mut d, t, d2);
    }
    above(app, &mut d, t);
    path(app, &mut d, t);
    findings(app, &mut d, t);
    probes(app, &mut d, t);
    for c in &t.check_failures {
        d.text(Line::styled(
            format!("check failure: {}", clean(c)),
            st(app, Role::Bad),
        ));
    }
    d
}

/// A section title: an item, so j/k step from section to section (and on to the probes).
fn section(app: &App, d: &mut Doc, title: String) {
    d.blank();
    d.item(Line::styled(title, st(app, Role::Section)));
}

fn header(app: &App, d: &mut Doc, t: &Triage, pending: bool) {
    let class = match t.class.sub_cause() {
        Some(s) => format!(" {} {} ", t.class.as_str().to_uppercase(), s.as_str()),
        None => format!(" {} ", t.class.as_str().to_uppercase()),
    };
    let mut first = vec![
        ("expected ".into(), st(app, Role::Muted)),
        (clean(&t.expected), st(app, Role::Title)),
        ("  ".into(), Style::default()),
        (
            class,
            st(app, class_role(&t.class)).patch(st(app, Role::TabActive)),
        ),
    ];
    if t.expected_all.len() > 1 {
        first.push((
            format!(
                "  (best placed of {})",
                t.expected_all
                    .iter()
                    .map(|e| clean(e))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            st(app, Role::Muted),
        ));
    }
    if pending {
        first.push(("  updating…".into(), st(app, Role::Warn)));
    }
    d.item(spans(first));
    d.text_indent(
        spans(vec![
            (
                format!(
                    "rank {} · full rank {} of {} scored · top_k {} · ",
                    opt_rank(t.rank),
                    opt_rank(t.full_rank),
                    t.scored,
                    t.knobs.params.top_k
                ),
                st(app, Role::Muted),
            ),
            ("mechanism_status ".into(), st(app, Role::Muted)),
            (
                t.mechanism_status.as_str().to_string(),
                st(app, status_role(t.mechanism_status.as_str())),
            ),
        ]),
        4,
    );
    d.text_indent(Line::raw(stage_line(t)), 2);
    let mut sig = String::new();
    class_signals(&mut sig, &t.class);
    for l in sig.lines() {
        d.text_indent(Line::raw(l.trim_start().to_string()), 4);
    }
    let s = &t.selection;
    d.text_indent(
        spans(vec![
            ("selector ".into(), st(app, Role::Muted)),
            (
                if s.selected_target.is_empty() {
                    "(none)".into()
                } else {
                    clean(&s.selected_target)
                },
                Style::default(),
            ),
            (
                format!(
                    " · llm {} · {} · confidence {} · margin {}{}{}",
                    s.llm_target
                        .as_deref()
                        .map(clean)
                        .unwrap_or_else(|| "-".into()),
                    clean(s.policy.as_str()),
                    f4(s.confidence),
                    f4(s.margin),
                    if s.overrode_llm { " · overrode" } else { "" },
                    if s.ambiguous { " · ambiguous" } else { "" },
                ),
                st(app, Role::Muted),
            ),
        ]),
        4,
    );
    if !s.reason_codes.is_empty() {
        d.text_indent(
            Line::styled(
                format!("reasons {}", s.reason_codes.join(", ")),
                st(app, Role::Muted),
            ),
            4,
        );
    }
}

fn part(h: &Option<TermHit>) -> String {
    match h {
        Some(h) => format!("{} tf{}", f4(h.part), h.tf),
        None => "-".into(),
    }
}

/// The deficit against one tool: both sides, then the query terms side by side.
fn deficit(app: &App, d: &mut Doc, t: &Triage, df: &Deficit) {
    let g = glyphs(app);
    let who = match df.against {
        Against::Winner => "the winner",
        Against::Cutoff => "the top-K cutoff",
    };
    section(
        app,
        d,
        format!(
            "Deficit against {who} {} (rank {}){}",
            clean(&df.other.name),
            opt_rank(df.other.rank),
            df.score_gap
                .map(|x| format!(" · score gap {}", f4(x)))
                .unwrap_or_default()
        ),
    );
    let x = clean(&t.expected);
    let o = clean(&df.other.name);
    // columns: term, idf, expected, other — the names shortened to fit
    let rows: Vec<(String, String, String, String)> = std::iter::once((
        "score".to_string(),
        String::new(),
        df.x.score.map(f4).unwrap_or_else(|| "-".into()),
        df.other.score.map(f4).unwrap_or_else(|| "-".into()),
    ))
    .chain(std::iter::once((
        "origin · bm25".to_string(),
        String::new(),
        format!(
            "{} {}",
            df.x.origin,
            df.x.bm25.map(f4).unwrap_or_else(|| "-".into())
        ),
        format!(
            "{} {}",
            df.other.origin,
            df.other.bm25.map(f4).unwrap_or_else(|| "-".into())
        ),
    )))
    .chain(df.terms.iter().map(|r| {
        (
            clean(&r.text),
            r.idf.map(f4).unwrap_or_else(|| "-".into()),
            part(&r.x),
            part(&r.other),
        )
    }))
    .collect();
    let ellipsis = g.ellipsis;
    let head = (
        String::from("term"),
        String::from("idf"),
        x.clone(),
        o.clone(),
    );
    let muted = st(app, Role::Muted);
    let header_st = st(app, Role::Header);
    for (i, row) in std::iter::once(head).chain(rows).enumerate() {
        let style = if i == 0 { header_st } else { Style::default() };
        let lacks = i > 2 && row.2 == "-" && row.3 != "-";
        let xs = if lacks { st(app, Role::Bad) } else { style };
        d.sized(move |w| {
            let cell = (w.saturating_sub(2 + 7 + 3) / 3).clamp(6, 22);
            let term_w = w.saturating_sub(2 + 7 + 2 * cell + 3).clamp(4, 24);
            spans(vec![
                (
                    format!("  {} ", text::fit(&row.0, term_w, ellipsis)),
                    if i == 1 || i == 2 { muted } else { style },
                ),
                (format!("{} ", text::fit_right(&row.1, 7)), style),
                (format!("{} ", text::fit_right(&row.2, cell)), xs),
                (text::fit_right(&row.3, cell), style),
            ])
        });
    }
    if !df.other_only_terms.is_empty() {
        let terms: Vec<String> = df.other_only_terms.iter().map(|s| clean(s)).collect();
        d.text_indent(
            Line::raw(format!("  {o} matched, {x} did not: {}", terms.join(", "))),
            4,
        );
    }
    if !df.x_missing_terms.is_empty() {
        let terms = missing_terms(df);
        d.text_indent(
            Line::styled(
                format!("  query terms {x} lacks: {}", terms.join(", ")),
                st(app, Role::Warn),
            ),
            4,
        );
    }
    for (label, a, b) in &df.multipliers {
        d.text_indent(
            Line::raw(format!("  {label}: {x} {} vs {o} {}", f4(*a), f4(*b))),
            4,
        );
    }
}

/// The tools ranked above X, channel by channel (other minus X).
fn above(app: &App, d: &mut Doc, t: &Triage) {
    if t.above.is_empty() {
        return;
    }
    section(
        app,
        d,
        format!("Tools above {} (other − expected)", clean(&t.expected)),
    );
    let g = glyphs(app);
    let ellipsis = g.ellipsis;
    let header_st = st(app, Role::Header);
    d.sized(move |w| {
        let name_w = w.saturating_sub(4 + 4 * 8 + 2).clamp(8, 32);
        Line::styled(
            format!(
                "  {:>2} {} {:>7} {:>7} {:>7} {:>7}",
                "#",
                text::fit("tool", name_w, ellipsis),
                "Δscore",
                "Δseed",
                "Δgraph",
                "Δlearn"
            ),
            header_st,
        )
    });
    const SHOWN: usize = 8;
    for a in t.above.iter().take(SHOWN) {
        let name = clean(&a.name);
        let nums = [
            signed(a.score.diff()),
            signed(a.seed.diff()),
            signed(a.graph.diff()),
            signed(a.learning.diff()),
        ];
        let rank = a.rank;
        d.sized(move |w| {
            let name_w = w.saturating_sub(4 + 4 * 8 + 2).clamp(8, 32);
            Line::raw(format!(
                "  {rank:>2} {} {:>7} {:>7} {:>7} {:>7}",
                text::fit(&name, name_w, ellipsis),
                nums[0],
                nums[1],
                nums[2],
                nums[3]
            ))
        });
        let mut notes: Vec<String> = a
            .flags
            .iter()
            .map(|f| format!("{} {}/{}", f.flag, u8::from(f.other), u8::from(f.x)))
            .collect();
        if a.history_hits != (0, 0) {
            notes.push(format!("history {}/{}", a.history_hits.0, a.history_hits.1));
        }
        if !notes.is_empty() {
            d.text_indent(
                Line::styled(
                    format!(
                        "      flags that differ (other/expected): {}",
                        notes.join(", ")
                    ),
                    st(app, Role::Muted),
                ),
                8,
            );
        }
    }
    if t.above.len() > SHOWN {
        d.text(Line::styled(
            format!(
                "  … {} more (toolscope triage lists them)",
                t.above.len() - SHOWN
            ),
            st(app, Role::Muted),
        ));
    }
}

fn path(app: &App, d: &mut Doc, t: &Triage) {
    let Some(p) = &t.path else { return };
    let g = glyphs(app);
    section(
        app,
        d,
        format!(
            "Expansion path (depth limit {}; entered: {})",
            p.depth_limit,
            if p.entered { "yes" } else { "no" }
        ),
    );
    match &p.seed {
        Some(seed) => {
            d.text_indent(Line::raw(format!("  seed {}", clean(seed))), 4);
            for h in &p.hops {
                d.text_indent(Line::raw(format!("  {}", hop_text(h, g.arrow_out))), 6);
            }
        }
        None => d.text(Line::styled(
            "  no seed reaches it over the graph's edges",
            st(app, Role::Muted),
        )),
    }
    for r in &p.reasons {
        d.text_indent(Line::raw(format!("  {}", reason_text(r))), 4);
    }
}

fn findings(app: &App, d: &mut Doc, t: &Triage) {
    if t.findings.is_empty() {
        return;
    }
    section(app, d, "Findings".into());
    for f in &t.findings {
        let s = f.status();
        d.text_indent(
            spans(vec![
                (format!("  {} ", f.kind()), st(app, Role::Key)),
                (
                    format!("[{}] ", s.as_str()),
                    st(app, status_role(s.as_str())),
                ),
                (clean(&f.summary()), Style::default()),
            ]),
            4,
        );
    }
}

/// A probe in one row: the change, the place X would reach, what it turns on or off.
fn probe_item(p: &Probe, t: &Triage) -> String {
    let place = match (p.rank, p.full_rank) {
        (Some(r), _) => format!("would rank {r}"),
        (None, Some(f)) => format!("not retrieved (full rank {f})"),
        (None, None) => "not scored".into(),
    };
    let mut s = format!("{}: {place}", clean(&probe_label(&p.change)));
    let on = p.flips(&t.outcome);
    let off = p.losses(&t.outcome);
    if !on.is_empty() {
        s.push_str(&format!(" · turns on {}", on.join(", ")));
    }
    if !off.is_empty() {
        s.push_str(&format!(" · turns off {}", off.join(", ")));
    }
    if p.selected_target != t.selection.selected_target {
        s.push_str(&format!(" · selects {}", clean(&p.selected_target)));
    }
    let others = p.moved.iter().filter(|m| m.tool != t.expected).count();
    s.push_str(&format!(
        " · {others} other(s) move [{}]",
        p.mechanism_status.as_str()
    ));
    s
}

/// The probes: counterfactual evidence, one item each (Enter opens a knob probe in the
/// Counterfactual pane).
fn probes(app: &App, d: &mut Doc, t: &Triage) {
    if t.outcome.selected {
        return;
    }
    let (shown, unchanged) = t.probes_by_effect();
    section(
        app,
        d,
        format!(
            "Probes: {} run, each changing one thing; {} change its outcome or rank",
            t.probes.len(),
            shown.len()
        ),
    );
    if shown.is_empty() {
        d.text(Line::styled(
            "  no single change in the declared grids moves it",
            st(app, Role::Muted),
        ));
    } else {
        d.fit(vec![
            Line::styled(
                "  counterfactual evidence, not advice · Enter: a knob probe in the Counterfactual pane · S: its side effects over the lab's suite",
                st(app, Role::Muted),
            ),
            Line::styled(
                "  counterfactual evidence, not advice · Enter: Counterfactual · S: side effects",
                st(app, Role::Muted),
            ),
            Line::styled("  Enter: Counterfactual · S: side effects", st(app, Role::Muted)),
        ]);
    }
    for p in &shown {
        let flips = !p.flips(&t.outcome).is_empty();
        let mark = if flips { "+ " } else { "  " };
        d.item(spans(vec![
            (
                mark.to_string(),
                if flips {
                    st(app, Role::Good)
                } else {
                    Style::default()
                },
            ),
            (probe_item(p, t), Style::default()),
        ]));
        if let Some(e) = app.whynot.effects_of(&p.change.label()) {
            d.text_indent(
                Line::styled(
                    format!(
                        "      over the lab's {} case(s): top-1 changes in {}, hit@k gained in {}, lost in {}",
                        e.cases, e.top1_changed, e.hit_gained, e.hit_lost
                    ),
                    st(app, Role::Note),
                ),
                8,
            );
        }
    }
    if unchanged > 0 {
        d.text(Line::styled(
            format!("  {unchanged} other probe(s) leave its rank and outcome unchanged"),
            st(app, Role::Muted),
        ));
    }
}
