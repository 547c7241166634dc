//! Lab screen: a suite evaluated with the explorer's parameters (`lab::eval`, on its own
//! thread, with progress): the summary (hit@1, hit@5, hit@k, recall@k, MRR, selector
//! accuracy), each case's triage class (`engine::triage`) with the counts per class, the
//! cases sorted by class then rank (or by failure, rank or id) and filtered by class, and
//! the case under the cursor. Enter opens the case in Explore with its query, parameters
//! and the Why-not pane on its expected tool.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::super::app::{App, LayoutInfo};
use super::super::screens::{CaseClass, LabFocus, LabView};
use super::super::text;
use super::super::theme::Role;
use super::doc::{Doc, spans};
use super::{box_title, clean, glyphs, list_box, put_line, screen_pane, st};
use crate::lab::eval::CaseResult;

fn view(app: &App) -> Option<&LabView> {
    app.lab.as_ref()
}

/// The header after the screen's name, in `avail` cells: the suite, its size, the graph
/// and the parameters the cases ran with ([`params_text`]: fixed ones as values, the ones
/// the cases set for themselves as `per case`). When it does not fit, the graph's tool
/// count goes first, then the words "policy" and "depth" (`k=10 d=2 strong_evidence`),
/// then the graph's name, then the per-case parameters are grouped (`per case: k 0-20 d
/// 0-3 policy(3)`, the suite's name cut) and last only their names stay (`per case:
/// k,d,policy`), so the parameters always show.
pub fn header(app: &App, avail: usize) -> Vec<Span<'static>> {
    let Some(l) = view(app) else {
        return Vec::new();
    };
    let graph = app.engine.as_ref().map(|e| {
        let name = std::path::Path::new(&e.graph.info.source)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| e.graph.info.source.clone());
        (clean(&name), e.graph.tool_count())
    });
    let label = clean(&l.label);
    let cases = format!("  {} cases", l.suite.cases.len());
    let [long, short, tiny, names] = params_text(l).map(|p| format!("  {p}"));
    let on = |n: bool| match &graph {
        Some((g, tools)) if n => format!("  on {g} ({tools} tools)"),
        Some((g, _)) => format!("  on {g}"),
        None => String::new(),
    };
    let forms = [
        (on(true), &long),
        (on(false), &long),
        (on(false), &short),
        (String::new(), &short),
        (String::new(), &tiny),
        (String::new(), &names),
    ];
    let w = |s: &str| text::width(s);
    // the whole name, until the grouped forms: they cut it (the status bar has it whole),
    // keeping a readable start, before only the names of what varies are left
    let (on, params) = forms
        .iter()
        .enumerate()
        .find(|(i, (on, p))| {
            let name = match i {
                0..=3 => w(&label),
                4 => w(&label).min(8),
                _ => 0,
            };
            name + w(&cases) + w(on) + w(p) <= avail
        })
        .map(|(_, f)| f)
        .unwrap_or(&forms[5]);
    let room = avail.saturating_sub(w(&cases) + w(on) + w(params));
    vec![
        Span::styled(
            text::truncate(&label, room.max(4), glyphs(app).ellipsis),
            st(app, Role::Title),
        ),
        Span::styled(format!("{cases}{on}"), st(app, Role::Muted)),
        Span::raw(params.to_string()),
    ]
}

/// One parameter over the suite: the value each case runs with — its own when it has
/// one (`params.depth`, `selector.policy`, …), else the lab's — as JSON text, in order.
fn effective(l: &LabView, key: &str) -> Vec<String> {
    let lab = lab_value(l, key).to_string();
    let mut vals: Vec<String> = l
        .suite
        .cases
        .iter()
        .map(|c| {
            c.knobs
                .get(key)
                .map(|v| v.to_string())
                .unwrap_or_else(|| lab.clone())
        })
        .collect();
    vals.sort();
    vals.dedup();
    vals
}

/// The lab's value of a case parameter (`depth`, `policy`, `token_budget`, `history`,
/// `llm_target`) as a case file writes it.
fn lab_value(l: &LabView, key: &str) -> serde_json::Value {
    use serde_json::Value;
    match key {
        "depth" => l.params.depth.into(),
        "token_budget" => l.params.token_budget.into(),
        "policy" => l.select.policy.as_str().into(),
        "history" => Value::Array(l.params.history.iter().map(|h| h.as_str().into()).collect()),
        "llm_target" => l
            .select
            .llm_target
            .as_deref()
            .map(Value::from)
            .unwrap_or(Value::Null),
        _ => Value::Null,
    }
}

/// A number's values over the suite: `lo-hi` (None: every case runs with the same).
fn number_range(vals: &[String]) -> Option<String> {
    let nums: Vec<u64> = vals.iter().filter_map(|v| v.parse().ok()).collect();
    let (lo, hi) = (nums.iter().min()?, nums.iter().max()?);
    (vals.len() > 1).then(|| format!("{lo}-{hi}"))
}

/// The parameters the cases ran with, in four forms, longest first: the ones every case
/// shares as values (`k=10 depth=2 policy strong_evidence`), the ones the cases set for
/// themselves `per case`, as top_k is ([`top_k_text`]): `depth per case 0-3`, `policy per
/// case (3)`, and, only when they differ between cases, `token_budget per case 0-2000`,
/// `history per case`, `llm_target per case`. The short form abbreviates and groups them
/// (`k=10 d=2 strong_evidence`, `per case: k 0-20 d 0-3 policy(3) budget 0-2000`), the
/// tiny one leaves out the budget's range, the last keeps only their names (`per case:
/// k,d,policy,budget`).
fn params_text(l: &LabView) -> [String; 4] {
    let (k_long, k_short) = top_k_text(l);
    let per_case = k_long.contains("per case");
    let mut long = vec![k_long];
    // the fixed ones (short), and the varying ones: short form, tiny form and name
    let mut fixed: Vec<String> = Vec::new();
    let mut varies: Vec<(String, String, &str)> = Vec::new();
    if per_case {
        // `k=1-20/case` or `k=3/case,10` (the cases without their own run at 10)
        let range = match k_short.trim_start_matches("k=").split_once("/case") {
            Some((r, else_k)) if !else_k.is_empty() => {
                format!("{r} (else {})", else_k.trim_start_matches(','))
            }
            Some((r, _)) => r.to_string(),
            None => k_short.clone(),
        };
        varies.push((format!("k {range}"), format!("k {range}"), "k"));
    } else {
        fixed.push(k_short);
    }
    let depth = effective(l, "depth");
    match number_range(&depth) {
        Some(r) => {
            long.push(format!("depth per case {r}"));
            varies.push((format!("d {r}"), format!("d {r}"), "d"));
        }
        None => {
            let d = depth
                .first()
                .cloned()
                .unwrap_or_else(|| l.params.depth.to_string());
            long.push(format!("depth={d}"));
            fixed.push(format!("d={d}"));
        }
    }
    let policy = effective(l, "policy");
    if policy.len() > 1 {
        long.push(format!("policy per case ({})", policy.len()));
        let p = format!("policy({})", policy.len());
        varies.push((p.clone(), p, "policy"));
    } else {
        let p = policy
            .first()
            .and_then(|p| serde_json::from_str::<String>(p).ok())
            .map(|p| clean(&p))
            .unwrap_or_else(|| clean(l.select.policy.as_str()));
        long.push(format!("policy {p}"));
        fixed.push(p);
    }
    if let Some(r) = number_range(&effective(l, "token_budget")) {
        long.push(format!("token_budget per case {r}"));
        varies.push((format!("budget {r}"), "budget".into(), "budget"));
    }
    if effective(l, "history").len() > 1 {
        long.push("history per case".into());
        varies.push(("history".into(), "history".into(), "history"));
    }
    if effective(l, "llm_target").len() > 1 {
        long.push("llm_target per case".into());
        varies.push(("llm".into(), "llm".into(), "llm"));
    }
    let grouped = |items: Vec<String>, sep: &str| -> String {
        let mut out = fixed.clone();
        if !items.is_empty() {
            out.push(format!("per case: {}", items.join(sep)));
        }
        out.join(" ")
    };
    let short = grouped(varies.iter().map(|v| v.0.clone()).collect(), " ");
    let tiny = grouped(varies.iter().map(|v| v.1.clone()).collect(), " ");
    let names = grouped(varies.iter().map(|v| v.2.to_string()).collect(), ",");
    [long.join(" "), short, tiny, names]
}

/// The top_k the cases ran with, long and short: the lab's `k=10` when no case has its
/// own; else the cases' own values, honestly (`top_k 5 (each case's own)`, or `top_k per
/// case 1–20, else 10`: the lab's k is then only the hit@k and recall@k cut-off).
fn top_k_text(l: &LabView) -> (String, String) {
    let own: Vec<u64> = l
        .suite
        .cases
        .iter()
        .filter_map(|c| c.knobs.get("top_k").and_then(|v| v.as_u64()))
        .collect();
    let (Some(lo), Some(hi)) = (own.iter().min(), own.iter().max()) else {
        return (format!("k={}", l.k), format!("k={}", l.k));
    };
    let all = own.len() == l.suite.cases.len();
    let range = if lo == hi {
        lo.to_string()
    } else {
        format!("{lo}-{hi}")
    };
    match (all, lo == hi) {
        (true, true) => (
            format!("top_k {range} (each case's own)"),
            format!("k={range}"),
        ),
        (true, false) => (format!("top_k per case {range}"), format!("k={range}/case")),
        (false, _) => (
            format!("top_k per case {range}, else {}", l.k),
            format!("k={range}/case,{}", l.k),
        ),
    }
}

pub fn status(app: &App, _short: bool) -> Vec<Vec<Span<'static>>> {
    let mut segs: Vec<Vec<Span<'static>>> = Vec::new();
    let Some(l) = view(app) else {
        return segs;
    };
    segs.push(vec![Span::styled(
        format!(" {}", clean(&l.label)),
        st(app, Role::Title),
    )]);
    segs.push(vec![Span::raw(format!(
        "{}/{} cases",
        l.done,
        l.suite.cases.len()
    ))]);
    segs.push(vec![Span::raw(format!("sorted by {}", l.sort.name()))]);
    let missing: usize = l.results.iter().map(|r| r.missing_from_graph.len()).sum();
    if missing > 0 {
        segs.push(vec![Span::styled(
            format!("{missing} expected not in graph"),
            st(app, Role::Warn),
        )]);
    }
    if l.running {
        segs.push(vec![Span::styled("evaluating", st(app, Role::Warn))]);
    }
    segs
}

fn summary_line(app: &App, l: &LabView, width: usize) -> Line<'static> {
    let g = glyphs(app);
    let total = l.suite.cases.len();
    if let Some(e) = &l.error {
        return Line::styled(format!(" not evaluated: {}", clean(e)), st(app, Role::Bad));
    }
    if l.running || l.summary.is_none() {
        let pct = if total == 0 {
            1.0
        } else {
            l.done as f64 / total as f64
        };
        let label = format!(" evaluating {}/{total} ", l.done);
        let bar_w = width.saturating_sub(text::width(&label) + 2).min(40);
        let filled = (pct * bar_w as f64).round() as usize;
        return Line::from(vec![
            Span::styled(label, st(app, Role::Warn)),
            Span::styled(g.gauge_full.repeat(filled), st(app, Role::Title)),
            Span::styled(
                g.gauge_empty.repeat(bar_w.saturating_sub(filled)),
                st(app, Role::Muted),
            ),
        ]);
    }
    let s = l.summary.as_ref().expect("summary");
    let labelled = l.results.iter().filter(|c| !c.expected.is_empty()).count();
    if labelled == 0 {
        return Line::styled(
            format!(
                " unlabelled suite: {total} cases have no expected tool (no hit/miss, no metrics)"
            ),
            st(app, Role::Warn),
        );
    }
    let m = |name: String, v: f64| -> Vec<Span<'static>> {
        vec![
            Span::styled(format!(" {name} "), st(app, Role::Muted)),
            Span::styled(format!("{v:.3}"), st(app, Role::Score)),
        ]
    };
    let mut sp: Vec<Span<'static>> = Vec::new();
    sp.extend(m("hit@1".into(), s.hit1));
    sp.extend(m("hit@5".into(), s.hit5));
    sp.extend(m(format!("hit@{}", s.k), s.hitk));
    sp.extend(m(format!("recall@{}", s.k), s.recall));
    sp.extend(m("MRR".into(), s.mrr));
    let narrow = width < 100;
    sp.extend(m(
        if narrow {
            "sel.acc"
        } else {
            "selector accuracy"
        }
        .into(),
        s.selector_accuracy,
    ));
    if labelled < total {
        sp.push(Span::styled(
            format!("  ({labelled} of {total} cases labelled)"),
            st(app, Role::Warn),
        ));
    } else if !narrow {
        sp.push(Span::styled(
            format!("  ({} cases)", s.cases),
            st(app, Role::Muted),
        ));
    }
    Line::from(sp)
}

pub fn draw(app: &App, main: Rect, buf: &mut Buffer, compact: bool, info: &mut LayoutInfo) {
    let Some(l) = view(app) else {
        return;
    };
    if main.height == 0 {
        return;
    }
    let main = header_lines(app, l, main, buf);
    let (list_r, pane_r) = split(l, main, compact);
    if let Some(r) = list_r {
        cases_box(app, l, r, buf, compact, info);
    }
    if let Some(r) = pane_r {
        let focused = l.focus == LabFocus::Detail;
        let title = box_title(app, " Case ".to_string(), focused);
        let d = detail(app, l);
        screen_pane(app, r, buf, compact, title, focused, &d, &l.pane, info);
    }
}

/// The lines above the boxes: the summary, then (when there is room) the counts per class
/// and the missing-case warning; returns what is left of `main`.
fn header_lines(app: &App, l: &LabView, main: Rect, buf: &mut Buffer) -> Rect {
    let g = glyphs(app);
    put_line(
        buf,
        Rect::new(main.x, main.y, main.width, 1),
        &text::truncate_line(
            summary_line(app, l, main.width as usize),
            main.width as usize,
            g.ellipsis,
        ),
    );
    let mut main = Rect::new(main.x, main.y + 1, main.width, main.height - 1);
    let counts = l.class_counts();
    if !counts.is_empty() && main.height > 6 {
        put_line(
            buf,
            Rect::new(main.x, main.y, main.width, 1),
            &text::truncate_line(class_line(app, l, &counts), main.width as usize, g.ellipsis),
        );
        main = Rect::new(main.x, main.y + 1, main.width, main.height - 1);
    }
    if let Some(w) = missing_warning(l)
        && main.height > 6
    {
        put_line(
            buf,
            Rect::new(main.x, main.y, main.width, 1),
            &text::truncate_line(
                Line::styled(w, st(app, Role::Warn)),
                main.width as usize,
                g.ellipsis,
            ),
        );
        main = Rect::new(main.x, main.y + 1, main.width, main.height - 1);
    }
    main
}

/// The Cases box above the Case pane (the focused one alone when `main` is short).
fn split(l: &LabView, main: Rect, compact: bool) -> (Option<Rect>, Option<Rect>) {
    let chrome: u16 = if compact { 1 } else { 2 };
    if main.height < 12 {
        match l.focus {
            LabFocus::Cases => (Some(main), None),
            LabFocus::Detail => (None, Some(main)),
        }
    } else {
        let want = l.results.len().max(1) as u16 + 1 + chrome;
        let h = if l.focus == LabFocus::Cases {
            want.min(main.height * 3 / 5).max(4)
        } else {
            want.min((main.height / 3).max(4))
        };
        (
            Some(Rect::new(main.x, main.y, main.width, h)),
            Some(Rect::new(main.x, main.y + h, main.width, main.height - h)),
        )
    }
}

/// The Cases list's column widths.
#[derive(Clone, Copy)]
struct Cols {
    idw: usize,
    classw: usize,
    namew: usize,
    narrow: bool,
}

/// The Cases box: its title, column header and one row per case in the sort order.
fn cases_box(
    app: &App,
    l: &LabView,
    r: Rect,
    buf: &mut Buffer,
    compact: bool,
    info: &mut LayoutInfo,
) {
    let g = glyphs(app);
    let order = l.order();
    let w = r.width as usize;
    let idw = l
        .results
        .iter()
        .take(1000)
        .map(|c| text::width(&clean(&c.id)))
        .max()
        .unwrap_or(2)
        .clamp(4, (w / 4).max(8));
    // the query keeps its share: the class, selected and expected take at most 30% each
    let narrow = w < 100;
    let classw = l
        .classes
        .iter()
        .map(|c| text::width(&class_text(c, narrow)))
        .max()
        .unwrap_or(5)
        .clamp(5, if narrow { 13 } else { 30 });
    let fixed = 2 + idw + 6 + 4 + 4 + classw + 1 + 2;
    let namew = (w.saturating_sub(fixed) * 3 / 10).clamp(8, 22);
    let head = format!(
        "  {} rank h@1 sel {} {} {} query",
        text::fit("case", idw, g.ellipsis),
        text::fit("class", classw, g.ellipsis),
        text::fit("selected", namew, g.ellipsis),
        text::fit("expected", namew, g.ellipsis),
    );
    let cols = Cols {
        idw,
        classw,
        namew,
        narrow,
    };
    let row = |k: usize| -> Line<'static> { case_row(app, l, &cols, order[k]) };
    let focused = l.focus == LabFocus::Cases;
    let shown = match l.filter {
        Some(f) => format!("{} of {}, only {f}", order.len(), l.results.len()),
        None => l.results.len().to_string(),
    };
    let title = box_title(
        app,
        format!(" Cases ({shown}) by {} ", l.sort.name()),
        focused,
    );
    let rr = list_box(
        app,
        r,
        buf,
        compact,
        title,
        Some(Line::styled(head, st(app, Role::Header))),
        order.len(),
        &row,
        l.cursor,
        focused,
    );
    info.table_rows = rr;
}

/// One case's row: failure mark, id, rank, hit@1 and selector marks, class, selected and
/// expected names, query.
fn case_row(app: &App, l: &LabView, cols: &Cols, i: usize) -> Line<'static> {
    let g = glyphs(app);
    let Cols {
        idw,
        classw,
        namew,
        narrow,
    } = *cols;
    let c = &l.results[i];
    let ok = |b: bool| -> Span<'static> {
        if b {
            Span::styled(text::fit(g.check, 3, g.ellipsis), st(app, Role::Good))
        } else {
            Span::styled(text::fit(g.cross, 3, g.ellipsis), st(app, Role::Bad))
        }
    };
    let labelled = !c.expected.is_empty();
    let rank = match (labelled, c.first_hit_rank) {
        (false, _) => "-".into(),
        (true, Some(r)) => format!("#{r}"),
        (true, None) => "miss".into(),
    };
    let failed = labelled && (c.hit1 < 1.0 || c.selector_correct < 1.0);
    let ok = |b: bool| -> Span<'static> {
        if labelled {
            ok(b)
        } else {
            Span::styled(text::fit("-", 3, g.ellipsis), st(app, Role::Muted))
        }
    };
    // a miss must not look like a hit: names that share a start are cut
    // so that they still differ
    let (selected, expected) = text::apart(
        &clean(&c.selected),
        &clean(&c.expected.join(",")),
        (namew, namew),
        g.ellipsis,
    );
    Line::from(vec![
        Span::styled(
            if failed {
                format!("{} ", g.dot)
            } else {
                "  ".into()
            },
            st(app, Role::Warn),
        ),
        Span::raw(text::fit(&clean(&c.id), idw, g.ellipsis)),
        Span::styled(
            format!(" {:>4} ", rank),
            match (labelled, c.first_hit_rank) {
                (false, _) => st(app, Role::Muted),
                (true, Some(_)) => st(app, Role::Score),
                (true, None) => st(app, Role::Bad),
            },
        ),
        ok(c.hit1 >= 1.0),
        Span::raw(" "),
        ok(c.selector_correct >= 1.0),
        Span::raw(" "),
        match l.class(i) {
            Some(cl) => Span::styled(
                text::fit(&class_text(cl, narrow), classw, g.ellipsis),
                st(app, class_role(cl)),
            ),
            None => Span::styled(text::fit("…", classw, g.ellipsis), st(app, Role::Muted)),
        },
        Span::raw(" "),
        Span::raw(text::fit(&selected, namew, g.ellipsis)),
        Span::raw(" "),
        Span::styled(
            text::fit(&expected, namew, g.ellipsis),
            st(app, Role::Matched),
        ),
        Span::styled(format!(" {}", clean(&c.query)), st(app, Role::Muted)),
    ])
}

fn detail(app: &App, l: &LabView) -> Doc {
    let mut d = Doc::default();
    let Some(c) = l.current() else {
        d.text(Line::styled(
            if l.running {
                "evaluating…"
            } else {
                "no case"
            },
            st(app, Role::Muted),
        ));
        return d;
    };
    d.text(spans(vec![
        (clean(&c.id), st(app, Role::Title)),
        (
            format!("  {}", crate::sanitize::quoted(&c.query)),
            Style::default(),
        ),
        ("   Enter: open in Explore".into(), st(app, Role::Muted)),
    ]));
    if c.expected.is_empty() {
        d.text(Line::styled(
            "  expected (none: an unlabelled case has no hit, rank or recall)",
            st(app, Role::Muted),
        ));
    } else {
        d.text_indent(
            spans(vec![
                ("  expected ".into(), st(app, Role::Muted)),
                (
                    if c.expected.is_empty() {
                        "(none)".into()
                    } else {
                        clean(&c.expected.join(", "))
                    },
                    st(app, Role::Matched),
                ),
                ("  first hit ".into(), st(app, Role::Muted)),
                (
                    c.first_hit_rank
                        .map(|r| format!("#{r}"))
                        .unwrap_or_else(|| "none".into()),
                    Style::default(),
                ),
                ("  RR ".into(), st(app, Role::Muted)),
                (format!("{:.3}", c.rr), st(app, Role::Score)),
                (format!("  recall@{} ", l.k), st(app, Role::Muted)),
                (format!("{:.3}", c.recall), st(app, Role::Score)),
            ]),
            4,
        );
    }
    let idx = l.order().get(l.cursor).copied();
    case_params_and_class(&mut d, app, l, idx);
    case_selection(&mut d, app, c);
    d
}

/// The case's own parameters (those unlike the lab's) and its triage class.
fn case_params_and_class(d: &mut Doc, app: &App, l: &LabView, idx: Option<usize>) {
    if let Some(own) = idx
        .and_then(|i| l.case_of(i))
        .and_then(|case| case.knobs.get("top_k"))
    {
        d.text(Line::styled(
            format!("  top_k {own} (the case's own; the lab's is {})", l.k),
            st(app, Role::Muted),
        ));
    }
    // the case's other own parameters (those unlike the lab's), which the header counts
    // only as `per case`
    if let Some(case) = idx.and_then(|i| l.case_of(i)) {
        let own: Vec<String> = ["depth", "policy", "token_budget", "history", "llm_target"]
            .iter()
            .filter_map(|k| {
                let v = case.knobs.get(*k).filter(|v| **v != lab_value(l, k))?;
                let v = match v {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                Some(format!("{k} {}", clean(&v)))
            })
            .collect();
        if !own.is_empty() {
            d.text_indent(
                Line::styled(
                    format!("  runs with its own {}", own.join(", ")),
                    st(app, Role::Muted),
                ),
                4,
            );
        }
    }
    match idx.and_then(|i| l.class(i)) {
        Some(CaseClass::Error(e)) => d.text_indent(
            Line::styled(
                format!("  triage: not classified: {}", clean(e)),
                st(app, Role::Bad),
            ),
            4,
        ),
        Some(cl @ CaseClass::Class { .. }) => d.text_indent(
            spans(vec![
                ("  triage ".into(), st(app, Role::Muted)),
                (class_text(cl, false), st(app, class_role(cl))),
                (
                    "  (Enter: the case in Explore, its Why-not pane open)".into(),
                    st(app, Role::Muted),
                ),
            ]),
            4,
        ),
        _ => {}
    }
}

/// What the case selected (with its hit or miss mark), its top 5 and the expected tools
/// missing from the graph.
fn case_selection(d: &mut Doc, app: &App, c: &CaseResult) {
    let g = glyphs(app);
    let sel_ok = c.selector_correct >= 1.0;
    let mark = if c.expected.is_empty() {
        (
            " (unlabelled: no hit or miss)".to_string(),
            st(app, Role::Muted),
        )
    } else if sel_ok {
        (format!(" {}", g.check), st(app, Role::Good))
    } else {
        (format!(" {}", g.cross), st(app, Role::Bad))
    };
    d.text(spans(vec![
        ("  selected ".into(), st(app, Role::Muted)),
        (clean(&c.selected), Style::default()),
        mark,
    ]));
    d.text(Line::styled("  top 5", st(app, Role::Section)));
    for (i, t) in c.top.iter().enumerate() {
        let hit = c.expected.contains(t);
        d.text(spans(vec![
            (format!("  {:>3} ", i + 1), st(app, Role::Muted)),
            (
                if hit { "+ " } else { "  " }.to_string(),
                st(app, Role::Good),
            ),
            (
                clean(t),
                if hit {
                    st(app, Role::Good)
                } else {
                    Style::default()
                },
            ),
        ]));
    }
    if !c.missing_from_graph.is_empty() {
        d.text(Line::styled(
            format!(
                "  expected tools not in the graph: {}",
                clean(&c.missing_from_graph.join(", "))
            ),
            st(app, Role::Warn),
        ));
    }
}

/// A case's class as the list shows it: `outranked`, `not_retrieved/below_cutoff`, …;
/// narrow, without the `selector_` prefix and the sub-cause (`ambiguous`).
fn class_text(c: &CaseClass, narrow: bool) -> String {
    match c {
        CaseClass::Class {
            class,
            sub: Some(s),
        } if !narrow => format!("{class}/{s}"),
        other if narrow => {
            let n = other.name();
            n.strip_prefix("selector_").unwrap_or(n).to_string()
        }
        other => other.name().to_string(),
    }
}

fn class_role(c: &CaseClass) -> Role {
    match c {
        CaseClass::Class {
            class: "selected", ..
        } => Role::Good,
        CaseClass::Class {
            class: "not_retrieved",
            ..
        } => Role::Bad,
        CaseClass::Class { .. } => Role::Warn,
        CaseClass::Error(_) => Role::Bad,
        CaseClass::Unlabelled => Role::Muted,
    }
}

/// A class by name, as counted (`error` for the cases that could not be triaged).
fn named(c: &'static str) -> CaseClass {
    if c == "error" {
        CaseClass::Error(String::new())
    } else if c == "unlabelled" {
        CaseClass::Unlabelled
    } else {
        CaseClass::Class {
            class: c,
            sub: None,
        }
    }
}

/// Cases per triage class: ` classes  outranked 2 · not_retrieved 1 · selected 3`.
fn class_line(app: &App, l: &LabView, counts: &[(&'static str, usize)]) -> Line<'static> {
    let g = glyphs(app);
    let mut sp = vec![Span::styled(" triage ".to_string(), st(app, Role::Muted))];
    for (i, (c, n)) in counts.iter().enumerate() {
        if i > 0 {
            sp.push(Span::styled(format!(" {} ", g.dot), st(app, Role::Muted)));
        }
        let role = class_role(&named(c));
        let active = l.filter == Some(*c);
        sp.push(Span::styled(
            c.to_string(),
            if active {
                st(app, role).patch(st(app, Role::TabActive))
            } else {
                st(app, role)
            },
        ));
        sp.push(Span::styled(format!(" {n}"), st(app, Role::Score)));
    }
    sp.push(Span::styled(
        "   (c: one class at a time)".to_string(),
        st(app, Role::Muted),
    ));
    Line::from(sp)
}

/// The CLI's warning for expected tools the graph does not have, counted over the suite:
/// `N expected tools are not in the graph (first: CASE: TOOL)`.
fn missing_warning(l: &LabView) -> Option<String> {
    let n: usize = l.results.iter().map(|r| r.missing_from_graph.len()).sum();
    let first = l
        .results
        .iter()
        .find(|r| !r.missing_from_graph.is_empty())?;
    Some(format!(
        " warning: {n} expected tool{} not in the graph (first: {}: {})",
        if n == 1 { " is" } else { "s are" },
        clean(&first.id),
        clean(&first.missing_from_graph[0])
    ))
}
