//! Evidence screen: captured evidence with no graph — a record list for streams and
//! folders, the same candidate rows, chips and badges as Explore (read straight from
//! `score_breakdown`, `semantic_evidence`, `edge_evidence`, `expanded_from`), and a pane with
//! the row's detail, the selector block or the record, where every key is shown: the keys
//! this reader does not know are listed (marked `?`), never dropped.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use serde_json::{Map, Value};

use super::super::app::{App, LayoutInfo};
use super::super::records::{EvRecord, Why, value_text};
use super::super::screens::{EvFocus, EvTab, EvidenceView};
use super::super::text;
use super::super::theme::Role;
use super::doc::{Doc, spans};
use super::table::{self, TRow, Table, why_role};
use super::{box_title, clean, clean_lines, glyphs, list_box, screen_pane, st, tab_style};
use crate::lab::record::{RowRecord, keys};

fn view(app: &App) -> Option<&EvidenceView> {
    app.evidence.as_ref()
}

pub fn header(app: &App) -> Vec<Span<'static>> {
    let Some(e) = view(app) else {
        return Vec::new();
    };
    let mut out = vec![Span::styled(clean(&e.set.label), st(app, Role::Title))];
    if let Some(r) = e.current() {
        out.push(Span::styled(
            format!(
                "  record {}/{} {}",
                e.record + 1,
                e.set.records.len(),
                clean(&r.id)
            ),
            st(app, Role::Muted),
        ));
        if let Some(q) = &r.query {
            out.push(Span::raw(format!("  {}", crate::sanitize::quoted(q))));
        }
    }
    out
}

pub fn status(app: &App, short: bool) -> Vec<Vec<Span<'static>>> {
    let mut segs: Vec<Vec<Span<'static>>> = Vec::new();
    let Some(e) = view(app) else {
        return segs;
    };
    segs.push(vec![Span::styled(
        format!(" {}", clean(&e.set.label)),
        st(app, Role::Title),
    )]);
    segs.push(vec![Span::raw(match (&app.engine, short) {
        (Some(_), true) => "graph loaded".to_string(),
        (Some(_), false) => "captured evidence (graph loaded: Why-not replays)".to_string(),
        (None, true) => "no graph".to_string(),
        (None, false) => "evidence only (no graph)".to_string(),
    })]);
    if let Some(r) = e.current() {
        segs.push(vec![Span::raw(format!(
            "{} {}/{}",
            r.kind,
            e.record + 1,
            e.set.records.len()
        ))]);
        segs.push(vec![Span::raw(format!("{} rows", r.rows.len()))]);
        if !r.seeds.is_empty() {
            segs.push(vec![Span::raw(format!("seeds {}", r.seeds.len()))]);
        }
        let u = r.unknown_count();
        if u > 0 {
            segs.push(vec![Span::styled(
                format!("{u} unknown key{}", if u == 1 { "" } else { "s" }),
                st(app, Role::Warn),
            )]);
        }
    }
    if !e.set.errors.is_empty() {
        segs.push(vec![Span::styled(
            format!("{} unreadable", e.set.errors.len()),
            st(app, Role::Bad),
        )]);
    }
    segs
}

pub fn table_rows(app: &App, r: &EvRecord) -> Vec<TRow> {
    let target = r.selected_target.as_deref();
    let llm = r.llm_target.as_deref();
    let x = app.evidence.as_ref().and_then(|e| e.expected_tool());
    r.rows
        .iter()
        .map(|row| TRow {
            target: target == Some(row.name.as_str()),
            llm: llm == Some(row.name.as_str()),
            expected: x.as_deref() == Some(row.name.as_str()),
            ..TRow::recorded(app, row)
        })
        .collect()
}

pub fn draw(app: &App, main: Rect, buf: &mut Buffer, compact: bool, info: &mut LayoutInfo) {
    let Some(e) = view(app) else {
        return;
    };
    let chrome: u16 = if compact { 1 } else { 2 };
    let rec = e.current();
    let nrows = rec.map(|r| r.rows.len()).unwrap_or(0).max(1) as u16;
    let small = main.height < 12;
    let (list_r, table_r, pane_r) = if small {
        match e.focus {
            EvFocus::Records if e.has_list() => (Some(main), None, None),
            EvFocus::Pane => (None, None, Some(main)),
            _ => (None, Some(main), None),
        }
    } else {
        let mut y = main.y;
        let mut left = main.height;
        let list = e.has_list().then(|| {
            let want = e.set.records.len() as u16 + 1 + chrome;
            let h = want.min((main.height * 3 / 10).max(4));
            let r = Rect::new(main.x, y, main.width, h);
            y += h;
            left -= h;
            r
        });
        let want = nrows + 1 + chrome;
        let th = if e.focus == EvFocus::Pane {
            want.min((left * 2 / 5).max(4))
        } else {
            want.min(left * 3 / 5).max(4)
        }
        .min(left.saturating_sub(4));
        let table = Rect::new(main.x, y, main.width, th);
        let pane = Rect::new(main.x, y + th, main.width, left - th);
        (list, Some(table), Some(pane))
    };
    if let Some(r) = list_r {
        draw_list(app, e, r, buf, compact);
    }
    if let Some(r) = table_r {
        let focused = e.focus == EvFocus::Rows;
        let mut title: Vec<Span<'static>> = Vec::new();
        if let Some(r) = rec {
            if let Some(t) = r.selected_target.as_deref().filter(|t| !t.is_empty()) {
                title.push(Span::styled("* ", st(app, Role::MarkTarget)));
                title.push(Span::raw(format!("{} ", clean(t))));
            }
            if let Some(l) = r.llm_target.as_deref() {
                title.push(Span::styled("L ", st(app, Role::MarkLlm)));
                title.push(Span::raw(format!("{} ", clean(l))));
            }
            if r.overrode_llm == Some(true) {
                title.push(Span::styled("overrode LLM ", st(app, Role::Warn)));
            }
            if r.ambiguous == Some(true) {
                title.push(Span::styled("ambiguous ", st(app, Role::Bad)));
            }
        }
        let rows = rec.map(|r| table_rows(app, r)).unwrap_or_default();
        let empty = rows.is_empty().then(|| {
            if rec.is_some() {
                "no candidate rows in this record (a selector block alone: 3 shows it)".to_string()
            } else {
                "no record could be read".to_string()
            }
        });
        let (rr, offset) = table::draw(
            app,
            r,
            buf,
            compact,
            &Table {
                name: " 1 Candidates",
                title,
                rows: &rows,
                selected: e.row,
                focused,
                empty,
            },
        );
        info.table_rows = rr;
        info.table_offset = offset;
    }
    if let Some(r) = pane_r {
        let g = glyphs(app);
        let mut title: Vec<Span<'static>> = vec![Span::raw(" ")];
        for (i, t) in EvTab::ALL.iter().enumerate() {
            if i > 0 {
                title.push(Span::styled(
                    format!("{} ", g.sep.trim()),
                    st(app, Role::Border),
                ));
            }
            title.push(Span::styled(
                format!("{} {} ", i + 2, t.title()),
                tab_style(app, *t == e.tab),
            ));
        }
        if let (EvTab::Row, Some(row)) = (e.tab, e.current_row()) {
            title.push(Span::styled(
                format!("{} {} ", g.sep.trim(), clean(&row.name)),
                st(app, Role::Muted),
            ));
        }
        let d = match e.tab {
            EvTab::Row => row_doc(app, e),
            EvTab::Selector => selector_doc(app, e),
            EvTab::Record => record_doc(app, e),
            EvTab::WhyNot => whynot_doc(app, e),
        };
        screen_pane(
            app,
            r,
            buf,
            compact,
            title,
            e.focus == EvFocus::Pane,
            &d,
            &e.pane,
            info,
        );
    }
}

fn draw_list(app: &App, e: &EvidenceView, r: Rect, buf: &mut Buffer, compact: bool) {
    let g = glyphs(app);
    let focused = e.focus == EvFocus::Records;
    let w = r.width as usize;
    let idw = e
        .set
        .records
        .iter()
        .take(1000)
        .map(|x| text::width(&clean(&x.id)))
        .max()
        .unwrap_or(2)
        .clamp(4, (w / 4).max(8));
    let head = format!(
        "  {} {} {:>4} {} query",
        text::fit("id", idw, g.ellipsis),
        text::fit("kind", 14, g.ellipsis),
        "rows",
        text::fit("top-1", 22, g.ellipsis)
    );
    let row = |i: usize| -> Line<'static> {
        {
            let x = &e.set.records[i];
            let top = x
                .rows
                .first()
                .map(|r| clean(&r.name))
                .unwrap_or_else(|| "-".into());
            let mark = if x.unknown_count() > 0 { "? " } else { "  " };
            Line::from(vec![
                Span::styled(mark.to_string(), st(app, Role::Warn)),
                Span::raw(text::fit(&clean(&x.id), idw, g.ellipsis)),
                Span::raw(" "),
                Span::styled(
                    text::fit(x.kind.name(), 14, g.ellipsis),
                    st(app, Role::Muted),
                ),
                Span::styled(format!(" {:>4} ", x.rows.len()), st(app, Role::Score)),
                Span::raw(text::fit(&top, 22, g.ellipsis)),
                Span::styled(
                    format!(" {}", x.query.as_deref().map(clean).unwrap_or_default()),
                    st(app, Role::Muted),
                ),
            ])
        }
    };
    let title = box_title(app, format!(" Records ({}) ", e.set.records.len()), focused);
    list_box(
        app,
        r,
        buf,
        compact,
        title,
        Some(Line::styled(head, st(app, Role::Header))),
        e.set.records.len(),
        &row,
        e.record,
        focused,
    );
}

/// `key value` pairs of an object on one wrapped line; keys outside `known` are marked `?`.
fn kv_obj(app: &App, o: &Map<String, Value>, known: &[&str], skip: &[&str]) -> Line<'static> {
    let mut out: Vec<Span<'static>> = vec![Span::raw("  ")];
    let mut first = true;
    for (k, v) in o {
        if skip.contains(&k.as_str()) {
            continue;
        }
        if !first {
            out.push(Span::raw("  "));
        }
        first = false;
        let unknown = !known.contains(&k.as_str());
        out.push(Span::styled(
            format!("{}{} ", if unknown { "?" } else { "" }, clean(k)),
            if unknown {
                st(app, Role::Warn)
            } else {
                st(app, Role::Muted)
            },
        ));
        let t = text::truncate(&clean(&value_text(v)), 400, glyphs(app).ellipsis);
        out.push(Span::raw(if t.is_empty() { "\"\"".into() } else { t }));
    }
    if first {
        out.push(Span::styled("{}", st(app, Role::Muted)));
    }
    Line::from(out)
}

fn section(app: &App, d: &mut Doc, t: &str) {
    d.text(Line::styled(t.to_string(), st(app, Role::Section)));
}

fn unknown_section(app: &App, d: &mut Doc, u: &[(String, Value)], what: &str) {
    if u.is_empty() {
        return;
    }
    d.blank();
    section(
        app,
        d,
        &format!(
            "unknown keys ({}): not known to this reader, shown as given",
            u.len()
        ),
    );
    for (k, v) in u {
        d.text_indent(
            spans(vec![
                (format!("  ? {what}{}", clean(k)), st(app, Role::Warn)),
                (" = ".into(), st(app, Role::Muted)),
                (
                    text::truncate(&clean(&v.to_string()), 600, glyphs(app).ellipsis),
                    Style::default(),
                ),
            ]),
            6,
        );
    }
}

/// At most this many lines of unfolded JSON are listed.
const MAX_JSON_LINES: usize = 5000;

fn json_fold(app: &App, e: &EvidenceView, d: &mut Doc, bytes: usize, what: &str) {
    let g = glyphs(app);
    d.blank();
    let lines = e
        .json
        .as_ref()
        .filter(|(k, _)| e.json_open && Some(*k) == e.json_key())
        .map(|(_, l)| l.clone());
    if let Some(lines) = lines {
        d.text(spans(vec![
            (
                format!("{} {what} JSON", g.fold_open),
                st(app, Role::Section),
            ),
            (
                format!("  ({} lines; o folds)", lines.len()),
                st(app, Role::Muted),
            ),
        ]));
        for l in lines.iter().take(MAX_JSON_LINES) {
            let indent = l.len() - l.trim_start().len();
            d.text_indent(Line::raw(l.clone()), indent + 2);
        }
        if lines.len() > MAX_JSON_LINES {
            d.text(Line::styled(
                format!("  … the first {MAX_JSON_LINES} of {} lines", lines.len()),
                st(app, Role::Muted),
            ));
        }
    } else {
        let n = bytes;
        d.text(spans(vec![
            (
                format!("{} {what} JSON", g.fold_closed),
                st(app, Role::Section),
            ),
            (format!("  ({n} bytes; o unfolds)"), st(app, Role::Muted)),
        ]));
    }
}

fn row_doc(app: &App, e: &EvidenceView) -> Doc {
    let mut d = Doc::default();
    let (Some(rec), Some(row)) = (e.current(), e.current_row()) else {
        d.text(Line::styled(
            "no row selected (this record has no candidate rows: 3 shows its selector block)",
            st(app, Role::Muted),
        ));
        return d;
    };
    row_detail(app, e, rec, row, &mut d);
    d
}

fn row_detail(app: &App, e: &EvidenceView, rec: &EvRecord, row: &RowRecord, d: &mut Doc) {
    let empty = Map::new();
    let o = rec
        .row_value(row)
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    // the evidence: the row itself, or a trace decision's `evidence`
    let ev = rec
        .row_evidence(row)
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    d.text(spans(vec![
        (clean(&row.name), st(app, Role::Title)),
        (
            format!(
                "   rank #{}  score {}",
                row.rank,
                row.score
                    .map(|s| format!("{s:.4}"))
                    .unwrap_or_else(|| "-".into())
            ),
            st(app, Role::Score),
        ),
    ]));
    // the tool, when the response carries it
    if let Some(tool) = o.get("tool").and_then(Value::as_object) {
        let meta = tool.get("metadata").and_then(Value::as_object);
        let get = |k: &str| {
            meta.and_then(|m| m.get(k))
                .or_else(|| tool.get(k))
                .and_then(Value::as_str)
                .unwrap_or("")
        };
        let (method, path) = (get("method").to_uppercase(), get("path"));
        if !method.is_empty() || !path.is_empty() {
            d.text(spans(vec![
                (format!("{} ", clean(&method)), st(app, Role::Key)),
                (clean(path), Style::default()),
            ]));
        }
        if let Some(desc) = tool.get("description").and_then(Value::as_str) {
            for l in clean_lines(desc) {
                d.text(l);
            }
        }
        if let Some(tags) = tool.get("tags").and_then(Value::as_array) {
            let t: Vec<String> = tags.iter().map(|x| clean(&value_text(x))).collect();
            d.text(spans(vec![
                ("  tags ".into(), st(app, Role::Muted)),
                (t.join(", "), Style::default()),
            ]));
        }
    }
    d.blank();
    section(app, d, "why it is in the top-K");
    let (why, role) = (row.why.text(glyphs(app).arrow_in), why_role(&row.why));
    let note = match row.why {
        Why::Graph => " (a fixture keeps the breakdown, not the edge that pulled it in)",
        Why::Rank(_) => " (a selector block keeps the rank, not the retrieval evidence)",
        _ => "",
    };
    d.text(spans(vec![
        (format!("  {why}"), st(app, role)),
        (note.to_string(), st(app, Role::Muted)),
    ]));
    if row.history_demoted {
        d.text(Line::styled(
            "  history-demoted (score x0.6 per occurrence)",
            st(app, Role::Warn),
        ));
    }
    for (key, known) in [
        ("score_breakdown", keys::BREAKDOWN),
        ("semantic_evidence", keys::SEMANTIC),
        ("learning_evidence", keys::LEARNING),
    ] {
        if let Some(v) = ev.get(key) {
            d.blank();
            section(app, d, key);
            match v.as_object() {
                Some(obj) => d.text_indent(kv_obj(app, obj, known, &[]), 4),
                None => d.text(Line::raw(format!("  {}", clean(&v.to_string())))),
            }
        }
    }
    if let Some(v) = ev.get("edge_evidence") {
        d.blank();
        section(app, d, "edge_evidence");
        match v.as_array() {
            Some(a) if a.is_empty() => d.text(Line::styled(
                "  [] (a seed or learning-only row has no discovering edge)",
                st(app, Role::Muted),
            )),
            Some(a) => {
                for edge in a {
                    if let Some(eo) = edge.as_object() {
                        let g = glyphs(app);
                        let s = |k: &str| eo.get(k).map(value_text).unwrap_or_default();
                        d.text_indent(
                            spans(vec![
                                (format!("  {} ", clean(&s("source"))), Style::default()),
                                (
                                    format!("--{}--{} ", clean(&s("relation")), g.arrow_out),
                                    st(app, Role::WhyGraph),
                                ),
                                (clean(&s("target")), Style::default()),
                            ]),
                            4,
                        );
                        d.text_indent(
                            kv_obj(app, eo, keys::EDGE, &["source", "target", "relation"]),
                            4,
                        );
                    } else {
                        d.text(Line::raw(format!("  {}", clean(&edge.to_string()))));
                    }
                }
            }
            None => d.text(Line::raw(format!("  {}", clean(&v.to_string())))),
        }
    }
    if let Some(f) = ev.get("expanded_from") {
        d.text(spans(vec![
            ("  expanded_from ".into(), st(app, Role::Muted)),
            (clean(&value_text(f)), Style::default()),
        ]));
    }
    unknown_section(app, d, &row.unknown, "");
    json_fold(
        app,
        e,
        d,
        rec.row_bytes.get(e.row).copied().unwrap_or(0),
        "row",
    );
}

fn yes(v: Option<&Value>) -> String {
    match v {
        Some(Value::Bool(true)) => "yes".into(),
        Some(Value::Bool(false)) => "no".into(),
        Some(x) => clean(&value_text(x)),
        None => "-".into(),
    }
}

/// The Why-not tab: the captured record's triage (`lab::captured`) for its expected tool
/// or the one `w` set — the class from the captured fields, what they could not decide,
/// and (with a graph) whether this artifact recomputes what was captured.
fn whynot_doc(app: &App, e: &EvidenceView) -> Doc {
    let mut d = Doc::default();
    let Some(x) = e.expected_tool() else {
        d.text(Line::styled(
            "This record names no expected tool: w on a row asks why that one was not selected (from the captured fields; with a graph, replayed on it).",
            st(app, Role::Muted),
        ));
        return d;
    };
    let Some((_, t)) = e
        .whynot
        .as_ref()
        .filter(|(k, _)| k.0 == e.record && k.1 == x)
    else {
        d.text(Line::styled("triaging…", st(app, Role::Muted)));
        return d;
    };
    let status = t.status.as_str();
    let class = t
        .class
        .map(|c| format!(" {} ", c.to_uppercase()))
        .unwrap_or_else(|| " UNDECIDED ".into());
    d.text_indent(
        spans(vec![
            ("expected ".into(), st(app, Role::Muted)),
            (clean(&t.expected), st(app, Role::Title)),
            ("  ".into(), Style::default()),
            (
                class,
                st(
                    app,
                    match t.class {
                        Some("selected") => Role::Good,
                        Some("not_retrieved") | None => Role::Bad,
                        Some(_) => Role::Warn,
                    },
                )
                .patch(st(app, Role::TabActive)),
            ),
        ]),
        4,
    );
    d.text_indent(
        spans(vec![
            (
                format!(
                    "captured rank {} · selected {} · mechanism_status ",
                    t.rank.map(|r| r.to_string()).unwrap_or_else(|| "-".into()),
                    t.selected
                        .as_deref()
                        .map(clean)
                        .unwrap_or_else(|| "(not captured)".into())
                ),
                st(app, Role::Muted),
            ),
            (
                status.to_string(),
                st(
                    app,
                    match status {
                        "resolved" => Role::Good,
                        "partial" => Role::Warn,
                        _ => Role::Bad,
                    },
                ),
            ),
        ]),
        4,
    );
    d.text(Line::styled(
        match (app.engine.is_some(), t.replayed) {
            (true, true) => {
                "  from the captured fields; the record was replayed on the loaded graph"
            }
            (true, false) => "  from the captured fields (the record could not be replayed: below)",
            (false, _) => "  from the captured fields alone (no graph loaded)",
        },
        st(app, Role::Muted),
    ));
    for n in &t.notes {
        d.text_indent(Line::raw(format!("  {}", clean(n))), 4);
    }
    if !t.above.is_empty() {
        d.blank();
        d.text(Line::styled(
            format!(
                "  Rows above {} (other minus expected, as captured)",
                clean(&t.expected)
            ),
            st(app, Role::Section),
        ));
        for a in t.above.iter().take(8) {
            let ch: Vec<String> = a
                .channels
                .iter()
                .map(|(c, v)| format!("{c} {v:+.4}"))
                .collect();
            d.text_indent(
                Line::raw(format!(
                    "    {:>2} {}  score {}{}",
                    a.rank,
                    clean(&a.name),
                    a.score_diff
                        .map(|x| format!("{x:+.4}"))
                        .unwrap_or_else(|| "-".into()),
                    if ch.is_empty() {
                        String::new()
                    } else {
                        format!("  {}", ch.join("  "))
                    }
                )),
                8,
            );
        }
        if t.above.len() > 8 {
            d.text(Line::styled(
                format!("    {} {} more", glyphs(app).ellipsis, t.above.len() - 8),
                st(app, Role::Muted),
            ));
        }
    }
    if !t.findings.is_empty() {
        d.blank();
        d.text(Line::styled("  Findings", st(app, Role::Section)));
        for f in &t.findings {
            d.text_indent(
                spans(vec![
                    (format!("    {} ", f.kind()), st(app, Role::Key)),
                    (format!("[{}] ", f.status().as_str()), st(app, Role::Muted)),
                    (clean(&f.summary()), Style::default()),
                ]),
                6,
            );
        }
    }
    d
}

fn selector_doc(app: &App, e: &EvidenceView) -> Doc {
    let mut d = Doc::default();
    let g = glyphs(app);
    let Some((r, s)) = e.current().and_then(|r| Some((r, r.selector()?))) else {
        d.text(Line::styled(
            "this record has no target selector block",
            st(app, Role::Muted),
        ));
        return d;
    };
    let get = |k: &str| s.get(k);
    d.text(spans(vec![
        ("* ".into(), st(app, Role::MarkTarget)),
        ("selected  ".into(), st(app, Role::Muted)),
        (yes(get("selected_target")), st(app, Role::Title)),
        (
            get("confidence")
                .map(|c| format!("   confidence {}", clean(&value_text(c))))
                .unwrap_or_default(),
            st(app, Role::Score),
        ),
    ]));
    d.text(spans(vec![
        ("L ".into(), st(app, Role::MarkLlm)),
        ("LLM target  ".into(), st(app, Role::Muted)),
        (
            match get("llm_target") {
                None | Some(Value::Null) => "(none)".into(),
                Some(v) => clean(&value_text(v)),
            },
            Style::default(),
        ),
    ]));
    d.text(spans(vec![
        ("  overrode_llm ".into(), st(app, Role::Muted)),
        (yes(get("overrode_llm")), Style::default()),
        ("  ambiguous ".into(), st(app, Role::Muted)),
        (yes(get("ambiguous")), Style::default()),
        ("  needs_expansion ".into(), st(app, Role::Muted)),
        (yes(get("needs_expansion")), Style::default()),
    ]));
    if get("decision").is_some() || get("policy").is_some() {
        d.text(spans(vec![
            ("  decision ".into(), st(app, Role::Muted)),
            (
                format!(
                    "{} {} {}",
                    yes(get("decision")),
                    g.arrow_out,
                    yes(get("recommended_action"))
                ),
                Style::default(),
            ),
            ("  policy ".into(), st(app, Role::Muted)),
            (yes(get("policy")), st(app, Role::Key)),
        ]));
    }
    section(app, &mut d, "reason codes");
    // (a trace envelope's are its selected decision's, as the reader gives them)
    for code in &r.reason_codes {
        let m = super::super::reasons::meaning(code).unwrap_or("(no description)");
        d.text_indent(
            spans(vec![
                (format!("  {}", clean(code)), st(app, Role::Key)),
                (format!("  {m}"), st(app, Role::Muted)),
            ]),
            6,
        );
    }
    if let Some(Value::Array(rows)) = get("rank_signals") {
        d.blank();
        section(app, &mut d, "rank signals");
        rank_signals(app, rows, &mut d);
    }
    if let Some(a) = get("override_assessment").and_then(Value::as_object) {
        d.blank();
        section(app, &mut d, "override assessment");
        d.text_indent(kv_obj(app, a, &all_keys(a), &[]), 4);
    }
    // everything else the block holds (unknown keys marked)
    let shown = [
        "selected_target",
        "llm_target",
        "confidence",
        "overrode_llm",
        "ambiguous",
        "needs_expansion",
        "decision",
        "recommended_action",
        "policy",
        "reason_codes",
        "rank_signals",
        "override_assessment",
        "candidate_evidence",
    ];
    let rest: Map<String, Value> = s
        .iter()
        .filter(|(k, _)| !shown.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if !rest.is_empty() {
        d.blank();
        section(app, &mut d, "other keys");
        d.text_indent(kv_obj(app, &rest, keys::SELECTOR, &[]), 4);
    }
    d
}

/// The selector block's `rank_signals`, one line per candidate: the selected (`*`) and LLM
/// (`L`) marks, the name, the selector score and each evidence source's contribution.
fn rank_signals(app: &App, rows: &[Value], d: &mut Doc) {
    let g = glyphs(app);
    for r in rows {
        let name = r.get("name").map(value_text).unwrap_or_default();
        let mut sp: Vec<Span<'static>> = vec![
            Span::styled(
                if r.get("selected") == Some(&Value::Bool(true)) {
                    "*"
                } else {
                    " "
                },
                st(app, Role::MarkTarget),
            ),
            Span::styled(
                if r.get("llm_target") == Some(&Value::Bool(true)) {
                    "L"
                } else {
                    " "
                },
                st(app, Role::MarkLlm),
            ),
            Span::raw(" "),
            Span::raw(text::fit(&clean(&name), 26, g.ellipsis)),
            Span::styled(
                // six decimals in a fixed column, as Explore prints them
                match r.get("selector_score") {
                    Some(Value::Number(n)) => {
                        format!(" {:>9.6}", n.as_f64().unwrap_or(0.0))
                    }
                    Some(v) => format!(" {:>9}", value_text(v)),
                    None => format!(" {:>9}", ""),
                },
                st(app, Role::Score),
            ),
        ];
        if let Some(Value::Array(ev)) = r.get("evidence") {
            for it in ev {
                let src = it.get("source").map(value_text).unwrap_or_default();
                let sc = it.get("score").and_then(Value::as_f64).unwrap_or(0.0);
                sp.push(Span::styled(
                    format!(" {}{sc:+.3}", clean(super::super::reasons::short(&src))),
                    if sc < 0.0 {
                        st(app, Role::Bad)
                    } else {
                        Style::default()
                    },
                ));
            }
        }
        d.text_indent(Line::from(sp), 6);
    }
}

fn record_doc(app: &App, e: &EvidenceView) -> Doc {
    let mut d = Doc::default();
    let Some(r) = e.current() else {
        d.text(Line::styled("no record", st(app, Role::Muted)));
        return d;
    };
    d.text(spans(vec![
        (clean(&r.id), st(app, Role::Title)),
        (format!("   {}", r.kind), st(app, Role::Key)),
        (
            format!("   from {}", clean(&r.origin)),
            st(app, Role::Muted),
        ),
    ]));
    if let Some(q) = &r.query {
        d.text(spans(vec![
            ("  query ".into(), st(app, Role::Muted)),
            (clean(q), Style::default()),
        ]));
    }
    if !r.expected.is_empty() {
        d.text(spans(vec![
            ("  expected ".into(), st(app, Role::Muted)),
            (
                r.expected
                    .iter()
                    .map(|x| clean(x))
                    .collect::<Vec<_>>()
                    .join(", "),
                Style::default(),
            ),
        ]));
    }
    let empty = Map::new();
    let o = r.value.as_object().unwrap_or(&empty);
    let ret = o.get("retrieval").and_then(Value::as_object);
    for key in ["provenance", "params", "attributes", "intent", "stats"] {
        let v = o.get(key).or_else(|| ret.and_then(|x| x.get(key)));
        if let Some(Value::Object(obj)) = v {
            d.blank();
            section(app, &mut d, key);
            d.text_indent(kv_obj(app, obj, &all_keys(obj), &[]), 4);
        }
    }
    for key in [
        "query_fingerprint",
        "query_scrubbed",
        "top_k",
        "category",
        "learning_suggestion_ids",
        "note",
    ] {
        if let Some(v) = o.get(key) {
            d.text(spans(vec![
                (format!("  {key} "), st(app, Role::Muted)),
                (clean(&value_text(v)), Style::default()),
            ]));
        }
    }
    unknown_section(app, &mut d, &r.unknown, "");
    json_fold(app, e, &mut d, r.bytes, "record");
    d
}

fn all_keys(o: &Map<String, Value>) -> Vec<&str> {
    o.keys().map(String::as_str).collect()
}
