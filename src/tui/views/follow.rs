//! Follow screen: a growing file of production evidence as it arrives. A summary line
//! (records, records per second, the replay's verdicts with a graph, paused, missing or
//! catching up), the counts per triage class (biggest first) in total and over the last
//! five minutes with a sparkline of ten-second buckets, the reason codes seen lately, the records (newest at
//! the bottom, `!` on a drifted one) and the record under the cursor: its place in the
//! file, query, parameters, class, selector verdict, replay and, for an unreadable line,
//! why.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::super::app::{App, LayoutInfo};
use super::super::follow::{FollowFocus, FollowView};
use super::super::text;
use super::super::theme::Role;
use super::doc::{Doc, spans};
use super::{box_title, clean, glyphs, list_box, put_line, screen_pane, st};
use crate::lab::follow::{BUCKETS, class_index, classes_seen};
use crate::lab::replay::{DriftKind, Status};

fn view(app: &App) -> Option<&FollowView> {
    app.follow.as_ref()
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1 record`, `12,345 records`.
fn records(n: u64) -> String {
    format!("{} record{}", thousands(n), if n == 1 { "" } else { "s" })
}

pub fn header(app: &App) -> Vec<Span<'static>> {
    let Some(f) = view(app) else {
        return Vec::new();
    };
    let mut out = vec![Span::styled(f.label.clone(), st(app, Role::Title))];
    match &app.engine {
        Some(e) if f.replaying => out.push(Span::styled(
            format!(
                "  replayed on {} ({} tools)",
                clean(
                    &std::path::Path::new(&e.graph.info.source)
                        .file_name()
                        .map(|f| f.to_string_lossy().into_owned())
                        .unwrap_or_else(|| e.graph.info.source.clone())
                ),
                e.graph.tool_count()
            ),
            st(app, Role::Muted),
        )),
        _ => out.push(Span::styled(
            "  no graph: classes from the captured fields, no replay",
            st(app, Role::Muted),
        )),
    }
    out
}

pub fn status(app: &App, _short: bool) -> Vec<Vec<Span<'static>>> {
    let mut segs: Vec<Vec<Span<'static>>> = Vec::new();
    let Some(f) = view(app) else {
        return segs;
    };
    segs.push(vec![Span::styled(
        format!(" {}", f.label),
        st(app, Role::Title),
    )]);
    segs.push(vec![Span::raw(records(f.stream.total.records))]);
    segs.push(vec![Span::raw(format!("{:.1}/s", f.stream.rate(f.now_ms)))]);
    if f.paused.is_some() {
        segs.push(vec![Span::styled("paused", st(app, Role::Warn))]);
    }
    if f.missing.is_some() {
        segs.push(vec![Span::styled("file missing", st(app, Role::Bad))]);
    }
    segs
}

fn class_role(c: &str) -> Role {
    match c {
        "selected" => Role::Good,
        "not_retrieved" | "unreadable" => Role::Bad,
        "unresolved" => Role::Muted,
        _ => Role::Warn,
    }
}

fn summary_line(app: &App, f: &FollowView) -> Line<'static> {
    let t = &f.stream.total;
    let mut sp = vec![
        Span::styled(format!(" {}", records(t.records)), st(app, Role::Score)),
        Span::styled(
            format!("  {:.1}/s", f.stream.rate(f.now_ms)),
            st(app, Role::Score),
        ),
    ];
    if f.paused.is_some() {
        sp.push(Span::styled(
            format!("  PAUSED (+{} new; space goes on)", thousands(f.unseen())),
            st(app, Role::Warn),
        ));
    }
    if let Some(m) = &f.missing {
        sp.push(Span::styled(
            format!("  {}: {}; waiting for it", f.label, clean(m)),
            st(app, Role::Bad),
        ));
    }
    if f.behind > 0 {
        sp.push(Span::styled(
            format!(
                "  catching up: {:.1} MiB to read",
                f.behind as f64 / 1048576.0
            ),
            st(app, Role::Warn),
        ));
    }
    if f.replaying {
        let [rep, drift, partial, unread] = t.statuses;
        sp.push(Span::styled("  replay ", st(app, Role::Muted)));
        sp.push(Span::styled(
            format!("{} reproduced", thousands(rep)),
            st(app, Role::Good),
        ));
        sp.push(Span::styled(
            format!(" · {} drifted", thousands(drift)),
            if drift > 0 {
                st(app, Role::Bad)
            } else {
                st(app, Role::Muted)
            },
        ));
        sp.push(Span::styled(
            format!(" · {} partial", thousands(partial + unread)),
            st(app, Role::Muted),
        ));
    }
    if f.rotations + f.truncations > 0 {
        sp.push(Span::styled(
            format!(
                "  rotated {} · truncated {}{}",
                f.rotations,
                f.truncations,
                if f.torn > 0 {
                    format!(" · {} torn at rotation", f.torn)
                } else {
                    String::new()
                }
            ),
            st(app, Role::Muted),
        ));
    }
    Line::from(sp)
}

/// ` drifted by kind  version_skew 1 · stale_artifact 2` (`d` shows only those).
fn drift_line(app: &App, f: &FollowView) -> Line<'static> {
    let g = glyphs(app);
    let mut sp = vec![Span::styled(
        " drifted by kind ".to_string(),
        st(app, Role::Muted),
    )];
    let kinds = DriftKind::ALL
        .iter()
        .zip(f.stream.total.drifts)
        .filter(|(_, n)| *n > 0);
    for (i, (k, n)) in kinds.enumerate() {
        if i > 0 {
            sp.push(Span::styled(format!(" {} ", g.dot), st(app, Role::Muted)));
        }
        sp.push(Span::styled(k.name().to_string(), st(app, Role::Bad)));
        sp.push(Span::styled(
            format!(" {}", thousands(n)),
            st(app, Role::Score),
        ));
    }
    if !f.filter.drifted {
        sp.push(Span::styled(
            "   (d: only these)".to_string(),
            st(app, Role::Muted),
        ));
    }
    Line::from(sp)
}

/// `selected      1,204   38 ▁▂▃▅▇` — total, last five minutes, sparkline.
fn class_rows(app: &App, f: &FollowView, max_rows: usize, width: usize) -> Vec<Line<'static>> {
    let g = glyphs(app);
    let recent = f.stream.recent(f.now_ms);
    // biggest first, so a short screen never hides the biggest class under "+N more"
    // (ties keep the order `c` steps through)
    let mut rows = classes_seen(&f.stream.total);
    rows.sort_by_key(|(i, _)| std::cmp::Reverse(f.stream.total.classes[*i]));
    let shown = rows.len().min(max_rows);
    let sparkw = BUCKETS.min(width.saturating_sub(24 + 8 + 7 + 2));
    let mut out: Vec<Line<'static>> = rows[..shown]
        .iter()
        .map(|&(i, c)| {
            let active = f.filter.class == Some(c);
            let role = class_role(c);
            let name_st = if active {
                st(app, role).patch(st(app, Role::TabActive))
            } else {
                st(app, role)
            };
            let spark = f.stream.spark(i, f.now_ms);
            let max = spark.iter().copied().max().unwrap_or(0).max(1);
            let cells: String = spark[BUCKETS - sparkw..]
                .iter()
                .map(|&n| {
                    if n == 0 {
                        " ".to_string()
                    } else {
                        let k = g.spark.len();
                        let idx = ((n as usize * k).div_ceil(max as usize)).clamp(1, k) - 1;
                        g.spark[idx].to_string()
                    }
                })
                .collect();
            Line::from(vec![
                Span::styled(format!(" {}", text::fit(c, 23, g.ellipsis)), name_st),
                Span::styled(
                    format!("{:>8}", thousands(f.stream.total.classes[i])),
                    st(app, Role::Score),
                ),
                Span::styled(
                    format!("{:>7} ", thousands(recent.classes[class_index(c)])),
                    st(app, Role::Muted),
                ),
                Span::styled(cells, st(app, role)),
            ])
        })
        .collect();
    if rows.len() > shown {
        let rest: u64 = rows[shown..]
            .iter()
            .map(|(i, _)| f.stream.total.classes[*i])
            .sum();
        if let Some(last) = out.last_mut() {
            last.spans.push(Span::styled(
                format!(
                    "  +{} more classes ({})",
                    rows.len() - shown,
                    thousands(rest)
                ),
                st(app, Role::Muted),
            ));
        }
    }
    out
}

/// `codes (5 min)  override_margin_met 12 · low_margin 3`.
fn codes_line(app: &App, f: &FollowView) -> Line<'static> {
    let g = glyphs(app);
    let recent = f.stream.recent(f.now_ms);
    let mut codes: Vec<(String, u64)> = recent.codes.into_iter().filter(|(_, n)| *n > 0).collect();
    codes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut sp = vec![Span::styled(
        " reason codes (5 min) ".to_string(),
        st(app, Role::Muted),
    )];
    if codes.is_empty() {
        sp.push(Span::styled("none", st(app, Role::Muted)));
    }
    for (i, (c, n)) in codes.iter().enumerate() {
        if i > 0 {
            sp.push(Span::styled(format!(" {} ", g.dot), st(app, Role::Muted)));
        }
        let active = f.filter.code.as_deref() == Some(c.as_str());
        sp.push(Span::styled(
            clean(c),
            if active {
                st(app, Role::TabActive)
            } else {
                Style::default()
            },
        ));
        sp.push(Span::styled(
            format!(" {}", thousands(*n)),
            st(app, Role::Score),
        ));
    }
    Line::from(sp)
}

pub fn draw(app: &App, main: Rect, buf: &mut Buffer, compact: bool, info: &mut LayoutInfo) {
    let Some(f) = view(app) else {
        return;
    };
    if main.height == 0 {
        return;
    }
    let main = header_lines(app, f, main, buf);
    if main.height == 0 {
        return;
    }
    let (list_r, pane_r) = split(f, main, compact);
    if let Some(r) = list_r {
        records_box(app, f, r, buf, compact, info);
    }
    if let Some(r) = pane_r {
        let focused = f.focus == FollowFocus::Detail;
        let title = if f.pinned.is_some() {
            " Record (read again by its offset) "
        } else {
            " Record "
        };
        let title = box_title(app, title.to_string(), focused);
        let d = detail(app, f);
        screen_pane(app, r, buf, compact, title, focused, &d, &f.pane, info);
    }
}

/// The lines above the boxes, as many as fit: the summary, the drift line (when a record
/// drifted), then the class table with the reason codes (or the waiting message before
/// the first record); returns what is left of `main`.
fn header_lines(app: &App, f: &FollowView, main: Rect, buf: &mut Buffer) -> Rect {
    let g = glyphs(app);
    let w = main.width as usize;
    let mut y = main.y;
    let mut left = main.height;
    let mut line = |l: Line<'static>, y: &mut u16, left: &mut u16| {
        if *left == 0 {
            return;
        }
        put_line(
            buf,
            Rect::new(main.x, *y, main.width, 1),
            &text::truncate_line(l, w, g.ellipsis),
        );
        *y += 1;
        *left -= 1;
    };
    line(summary_line(app, f), &mut y, &mut left);
    if f.stream.total.statuses[1] > 0 {
        line(drift_line(app, f), &mut y, &mut left);
    }
    let max_classes = match main.height {
        0..=14 => 2,
        15..=20 => 3,
        21..=30 => 5,
        _ => 9,
    };
    if f.stream.total.records == 0 {
        let msg = match &f.missing {
            // the summary line above says the file is missing and waited for
            Some(_) => {
                " no record yet: the file is read from its start when it appears".to_string()
            }
            None => " waiting for records (each new line of the file appears here)…".to_string(),
        };
        line(Line::styled(msg, st(app, Role::Muted)), &mut y, &mut left);
    } else {
        line(
            Line::from(vec![
                Span::styled(
                    format!(" {:<23}{:>8}{:>7} ", "class", "total", "5 min"),
                    st(app, Role::Header),
                ),
                Span::styled(
                    format!("per {}s", crate::lab::follow::BUCKET_SECS),
                    st(app, Role::Header),
                ),
            ]),
            &mut y,
            &mut left,
        );
        for l in class_rows(app, f, max_classes, w) {
            line(l, &mut y, &mut left);
        }
        line(codes_line(app, f), &mut y, &mut left);
    }
    Rect::new(main.x, y, main.width, left)
}

/// The Records box above the Record pane (the focused one alone when `main` is short).
fn split(f: &FollowView, main: Rect, compact: bool) -> (Option<Rect>, Option<Rect>) {
    let chrome: u16 = if compact { 1 } else { 2 };
    if main.height < 10 {
        match f.focus {
            FollowFocus::List => (Some(main), None),
            FollowFocus::Detail => (None, Some(main)),
        }
    } else {
        let h = if f.focus == FollowFocus::List {
            (main.height * 3 / 5).max(4 + chrome)
        } else {
            (main.height / 3).max(3 + chrome)
        };
        (
            Some(Rect::new(main.x, main.y, main.width, h)),
            Some(Rect::new(main.x, main.y + h, main.width, main.height - h)),
        )
    }
}

/// The Records list's column widths.
#[derive(Clone, Copy)]
struct Cols {
    /// the box's width (under 100 cells a class loses its `selector_` prefix)
    rw: usize,
    linew: usize,
    classw: usize,
    toolw: usize,
}

/// The Records box: its title (how many shown, the filter, how many kept, following),
/// column header and one row per visible record, newest at the bottom.
fn records_box(
    app: &App,
    f: &FollowView,
    r: Rect,
    buf: &mut Buffer,
    compact: bool,
    info: &mut LayoutInfo,
) {
    let g = glyphs(app);
    let vis = f.visible();
    let rw = r.width as usize;
    let linew = vis
        .last()
        .map(|&i| f.stream.ring[i].line.to_string().len())
        .unwrap_or(1)
        .max(4);
    let classw = if rw < 100 { 14 } else { 24 };
    let toolw = ((rw.saturating_sub(linew + classw + 6)) * 3 / 10).clamp(8, 28);
    let head = format!(
        "  {}  {} {} query",
        text::fit_right("line", linew),
        text::fit("class", classw, g.ellipsis),
        text::fit("tool", toolw, g.ellipsis),
    );
    let cols = Cols {
        rw,
        linew,
        classw,
        toolw,
    };
    let row = |k: usize| -> Line<'static> { record_row(app, f, &cols, vis[k]) };
    let focused = f.focus == FollowFocus::List;
    let mut shown = thousands(vis.len() as u64);
    if !f.filter.is_empty() {
        shown.push_str(&format!(", {}", f.filter.describe()));
    }
    if f.stream.dropped > 0 {
        shown.push_str(&format!(
            "; the last {} kept",
            thousands(f.stream.ring.len() as u64)
        ));
    }
    let title = box_title(
        app,
        format!(
            " Records ({shown}){} ",
            if f.cursor.is_none() && f.paused.is_none() {
                " following"
            } else {
                ""
            }
        ),
        focused,
    );
    let cur = f.cursor_pos(&vis).unwrap_or(0);
    info.table_rows = list_box(
        app,
        r,
        buf,
        compact,
        title,
        Some(Line::styled(head, st(app, Role::Header))),
        vis.len(),
        &row,
        cur,
        focused,
    );
}

/// One record's row (`i` in the ring): drift mark, line number, class, tool, then the
/// query (or why the line could not be read).
fn record_row(app: &App, f: &FollowView, cols: &Cols, i: usize) -> Line<'static> {
    let g = glyphs(app);
    let Cols {
        rw,
        linew,
        classw,
        toolw,
    } = *cols;
    let e = &f.stream.ring[i];
    let drifted = e.replay.as_ref().is_some_and(|r| r.drift.is_some());
    let class = if rw < 100 {
        e.class.strip_prefix("selector_").unwrap_or(e.class)
    } else {
        e.class
    };
    let tool = e.about.as_deref().or(e.target.as_deref()).unwrap_or("");
    let rest = match (&e.error, &e.query) {
        (Some(why), _) => (clean(why), st(app, Role::Bad)),
        (None, Some(q)) => (clean(q), st(app, Role::Muted)),
        (None, None) => ("(no query recorded)".into(), st(app, Role::Muted)),
    };
    Line::from(vec![
        Span::styled(
            if drifted { "! " } else { "  " }.to_string(),
            st(app, Role::Bad),
        ),
        Span::styled(
            text::fit_right(&e.line.to_string(), linew),
            st(app, Role::Muted),
        ),
        Span::raw("  "),
        Span::styled(
            text::fit(class, classw, g.ellipsis),
            st(app, class_role(e.class)),
        ),
        Span::raw(" "),
        Span::raw(text::fit(&clean(tool), toolw, g.ellipsis)),
        Span::styled(format!(" {}", rest.0), rest.1),
    ])
}

fn detail(app: &App, f: &FollowView) -> Doc {
    let mut d = Doc::default();
    let Some(e) = f.current() else {
        d.text(Line::styled("no record yet", st(app, Role::Muted)));
        return d;
    };
    d.text(spans(vec![
        (clean(&e.id), st(app, Role::Title)),
        (format!("  {}", e.kind), st(app, Role::Muted)),
        (
            format!(
                "  {}:{} at byte {}{}",
                f.label,
                e.line,
                e.offset,
                if e.file_gen > 1 {
                    format!(" (file {} under the name)", e.file_gen)
                } else {
                    String::new()
                }
            ),
            st(app, Role::Muted),
        ),
    ]));
    if let Some(why) = &e.error {
        d.text_indent(
            Line::styled(format!("  unreadable: {}", clean(why)), st(app, Role::Bad)),
            4,
        );
        unreadable_list(app, f, &mut d);
        return d;
    }
    if let Some(q) = &e.query {
        d.text_indent(
            spans(vec![
                ("  query ".into(), st(app, Role::Muted)),
                (crate::sanitize::quoted(q), Style::default()),
            ]),
            4,
        );
    }
    if let Some(k) = &e.knobs {
        d.text_indent(
            Line::styled(
                format!("  parameters {}", parameters(e, k)),
                st(app, Role::Muted),
            ),
            4,
        );
    }
    let mut cl = vec![
        ("  class ".to_string(), st(app, Role::Muted)),
        (e.class.to_string(), st(app, class_role(e.class))),
    ];
    if let Some(a) = &e.about {
        cl.push((format!(" for {}", clean(a)), st(app, Role::Matched)));
        cl.push((format!(" ({})", e.basis.name()), st(app, Role::Muted)));
    }
    if let Some(r) = e.rank {
        cl.push((format!("  rank #{r}"), st(app, Role::Score)));
    }
    d.text_indent(spans(cl), 4);
    let name = |x: &Option<String>| x.as_deref().map(clean).unwrap_or_else(|| "-".into());
    d.text_indent(
        spans(vec![
            ("  selected ".into(), st(app, Role::Muted)),
            (name(&e.target), st(app, Role::MarkTarget)),
            ("  llm ".into(), st(app, Role::Muted)),
            (name(&e.llm), st(app, Role::MarkLlm)),
            ("  top ".into(), st(app, Role::Muted)),
            (name(&e.top), Style::default()),
        ]),
        4,
    );
    if !e.codes.is_empty() {
        d.text_indent(
            Line::styled(
                format!("  reason codes {}", e.codes.join(", ")),
                st(app, Role::Muted),
            ),
            4,
        );
    }
    match &e.replay {
        None if f.replaying => {}
        None => d.text(Line::styled(
            "  replay: none (no graph; toolscope GRAPH FILE --follow replays each record)",
            st(app, Role::Muted),
        )),
        Some(r) => {
            let (head, role) = match (r.status, r.drift) {
                (Status::Drifted, Some(k)) => (format!("drifted: {}", k.name()), Role::Bad),
                (s, _) => (
                    s.name().to_string(),
                    if s == Status::Reproduced {
                        Role::Good
                    } else {
                        Role::Muted
                    },
                ),
            };
            d.text_indent(
                spans(vec![
                    ("  replay ".into(), st(app, Role::Muted)),
                    (head, st(app, role)),
                    (
                        r.detail
                            .as_deref()
                            .map(|x| format!("  {}", clean(x)))
                            .unwrap_or_default(),
                        st(app, Role::Muted),
                    ),
                ]),
                4,
            );
            if let Some((ptr, rec, got)) = &r.difference {
                d.text_indent(
                    Line::styled(
                        format!("    first difference {}", clean(ptr)),
                        st(app, Role::Warn),
                    ),
                    6,
                );
                d.text_indent(
                    Line::styled(format!("      recorded   {}", clean(rec)), Style::default()),
                    8,
                );
                d.text_indent(
                    Line::styled(format!("      recomputed {}", clean(got)), Style::default()),
                    8,
                );
            }
        }
    }
    if app.engine.is_some() && e.query.is_some() {
        d.text(Line::styled(
            "  Enter: open in Explore (Why-not pane on the tool; Esc comes back)",
            st(app, Role::Muted),
        ));
    }
    unreadable_list(app, f, &mut d);
    d
}

/// `top_k=5 depth=2 token_budget=[REDACTED] policy strong_evidence llm_target null`: each
/// parameter as recorded — a redacted or unusable one as its recorded value, never the
/// default the replay would otherwise have put in its place.
fn parameters(e: &crate::lab::follow::Entry, k: &crate::engine::knobs::Knobs) -> String {
    let known = |name: &str, v: String| -> String {
        match e.unknown_params.iter().find(|(n, _)| n == name) {
            Some((_, recorded)) => recorded.clone(),
            None => v,
        }
    };
    format!(
        "top_k={} depth={} token_budget={} policy {} llm_target {}",
        known("top_k", k.params.top_k.to_string()),
        known("depth", k.params.depth.to_string()),
        known("token_budget", k.params.token_budget.to_string()),
        known("policy", clean(k.select.policy.as_str())),
        known(
            "llm_target",
            k.select
                .llm_target
                .as_deref()
                .map(clean)
                .unwrap_or("null".into())
        ),
    )
}

/// The last unreadable lines (the count is in the class table).
fn unreadable_list(app: &App, f: &FollowView, d: &mut Doc) {
    let n = f.stream.total.classes[class_index("unreadable")];
    if n == 0 {
        return;
    }
    d.text(Line::styled(
        format!(
            "  unreadable lines: {} (the last {} listed)",
            thousands(n),
            f.stream.errors.len().min(5)
        ),
        st(app, Role::Section),
    ));
    for (place, why) in f.stream.errors.iter().rev().take(5) {
        d.text_indent(
            Line::styled(format!("    {place}: {}", clean(why)), st(app, Role::Muted)),
            6,
        );
    }
}
