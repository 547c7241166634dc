//! Detail pane: everything the retrieval says about the selected row — method and path,
//! description, tags, why it is in the top-K (with the expansion arithmetic), the score
//! breakdown, `semantic_evidence`, `edge_evidence` with its evidence text,
//! `learning_evidence` and the full tool JSON (folded until asked).

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use serde_json::Value;

use super::super::app::App;
use super::super::caps::Glyphs;
use super::super::theme::Role;
use super::doc::{Doc, spans};
use super::{clean, clean_lines, glyphs, st};
use crate::engine::{Engine, Row, RowOrigin};
use crate::model::{Graph, Tool};
use crate::output::row::{BADGES, RowView};

fn val(v: &Value) -> String {
    match v {
        Value::String(s) => clean(s),
        Value::Null => "null".into(),
        other => clean(&other.to_string()),
    }
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

fn kv(app: &App, pairs: &[(&str, String)]) -> Line<'static> {
    let mut out: Vec<Span<'static>> = vec![Span::raw("  ")];
    for (i, (k, v)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push(Span::raw("  "));
        }
        out.push(Span::styled(format!("{k} "), st(app, Role::Muted)));
        out.push(Span::raw(if v.is_empty() {
            "-".to_string()
        } else {
            v.clone()
        }));
    }
    Line::from(out)
}

/// What every section of the pane reads: the app, the engine's graph, the selected row and
/// its tool, and the glyph set.
struct Ctx<'a> {
    app: &'a App,
    engine: &'a Engine,
    graph: &'a Graph,
    row: &'a Row,
    tool: &'a Tool,
    g: &'static Glyphs,
}

/// A section heading.
fn sec(d: &mut Doc, app: &App, t: &str) {
    d.text(Line::styled(t.to_string(), st(app, Role::Section)));
}

pub fn doc(app: &App) -> Doc {
    let mut d = Doc::default();
    let (Some(engine), Some(row)) = (app.engine.as_ref(), app.selected_row()) else {
        d.text(Line::styled(
            if app.demo.steps.is_empty() {
                "no candidate selected: type a query with /"
            } else {
                "no candidate selected: type a query with / (or n for a demo query)"
            },
            st(app, Role::Muted),
        ));
        return d;
    };
    let graph = &engine.graph;
    let c = Ctx {
        app,
        engine,
        graph,
        row,
        tool: graph.tool(row.tool),
        g: glyphs(app),
    };
    header(&mut d, &c);
    why_top_k(&mut d, &c);
    score_breakdown(&mut d, &c);
    semantic_evidence(&mut d, &c);
    edge_evidence(&mut d, &c);
    learning_evidence(&mut d, &c);
    tool_json(&mut d, &c);
    d
}

/// The header: name, rank, score, method + path, description, tags and domain.
fn header(d: &mut Doc, c: &Ctx) {
    let (app, row, tool) = (c.app, c.row, c.tool);
    d.text(spans(vec![
        (clean(&row.name), st(app, Role::Title)),
        (
            format!("   rank #{}  score {:.4}", app.row + 1, row.rounded_score()),
            st(app, Role::Score),
        ),
    ]));
    let method = tool.facts.method_str().unwrap_or("").to_uppercase();
    let path = tool.facts.path_str().unwrap_or("");
    if !method.is_empty() || !path.is_empty() {
        d.text(spans(vec![
            (format!("{} ", clean(&method)), st(app, Role::Key)),
            (clean(path), Style::default()),
        ]));
    }
    for l in clean_lines(&tool.description) {
        d.text(l);
    }
    let mut meta: Vec<(&str, String)> = Vec::new();
    meta.push((
        "tags",
        tool.tags
            .iter()
            .map(|t| clean(t))
            .collect::<Vec<_>>()
            .join(", "),
    ));
    if let Some(dm) = &tool.domain {
        meta.push(("domain", clean(dm)));
    }
    d.text(kv(app, &meta));
}

/// Why the row is in the top-K: its origin (with the expansion arithmetic) and any history
/// demotion.
fn why_top_k(d: &mut Doc, c: &Ctx) {
    let (app, row, graph, g) = (c.app, c.row, c.graph, c.g);
    d.blank();
    sec(d, app, "why it is in the top-K");
    match &row.origin {
        RowOrigin::Seed {
            rank,
            raw,
            normalized,
        } => d.text(spans(vec![
            (format!("  seed #{rank}"), st(app, Role::WhySeed)),
            (
                format!(": BM25 {raw:.4}, normalised by the best seed to {normalized:.6}"),
                Style::default(),
            ),
        ])),
        RowOrigin::Expanded {
            from,
            depth,
            parent,
            weight,
            conf,
            decay,
            ..
        } => d.text_indent(
            spans(vec![
                (
                    format!(
                        "  {} expanded from {} at depth {depth}",
                        g.arrow_in,
                        clean(graph.node_name(*from))
                    ),
                    st(app, Role::WhyGraph),
                ),
                (
                    format!(
                        ": parent {parent:.6} x relation weight {weight} x confidence {conf} x decay {decay:.6} = {:.6}",
                        row.base
                    ),
                    Style::default(),
                ),
            ]),
            4,
        ),
        RowOrigin::LearningOnly => d.text(Line::styled(
            "  only a promoted learning signal put it here",
            st(app, Role::WhyLearning),
        )),
    }
    if row.breakdown.history_demoted {
        d.text(Line::styled(
            format!(
                "  history-demoted {} time(s): score x0.6 each (seed chip keeps the undemoted value)",
                row.history_hits
            ),
            st(app, Role::Warn),
        ));
    }
}

/// The `score_breakdown` section.
fn score_breakdown(d: &mut Doc, c: &Ctx) {
    let app = c.app;
    let b = &c.row.breakdown;
    d.blank();
    sec(d, app, "score_breakdown");
    d.text(kv(
        app,
        &[
            ("seed", format!("{:.6}", b.seed)),
            ("graph", format!("{:.6}", b.graph)),
            ("learning", format!("{:.6}", b.learning)),
            ("history_demoted", b.history_demoted.to_string()),
            (
                "graph_expansion",
                format!("{:.1}", if b.graph_expansion { 1.0 } else { 0.0 }),
            ),
        ],
    ));
}

/// The `semantic_evidence` section: the semantic fields, the badge row, the summary match
/// and the matched terms.
fn semantic_evidence(d: &mut Doc, c: &Ctx) {
    let (app, row) = (c.app, c.row);
    let s = &row.semantic;
    d.blank();
    sec(d, app, "semantic_evidence");
    d.text(kv(
        app,
        &[
            ("canonical_action", clean(&s.canonical_action)),
            ("primary_resource", clean(&s.primary_resource)),
            ("result_shape", clean(&s.result_shape)),
            ("path_module", clean(&s.path_module)),
        ],
    ));
    d.text(kv(
        app,
        &[
            ("query_action", s.query_action.to_string()),
            ("query_result_shape", s.query_result_shape.to_string()),
        ],
    ));
    let mut badges: Vec<Span<'static>> = vec![Span::raw("  ")];
    let view = RowView::new(c.engine, row, app.row + 1);
    let cells = super::table::badge_spans(app, &view.badges_known());
    for ((cell, (_, name)), on) in cells.into_iter().zip(BADGES).zip(view.badges) {
        badges.push(cell);
        badges.push(if on {
            Span::raw(format!(" {name}_match yes  "))
        } else {
            Span::styled(format!(" {name}_match no  "), st(app, Role::Muted))
        });
    }
    d.text_indent(Line::from(badges), 2);
    d.text_indent(
        kv(
            app,
            &[
                (
                    "summary_match",
                    format!(
                        "{} ({})",
                        yes(!s.summary_matched_terms.is_empty()),
                        s.summary_matched_terms.len()
                    ),
                ),
                (
                    "summary_matched_terms",
                    clean(&s.summary_matched_terms.join(", ")),
                ),
                (
                    "summary_specificity",
                    format!("{:.6}", s.summary_specificity),
                ),
            ],
        ),
        4,
    );
    d.text_indent(
        spans(vec![
            ("  matched_terms ".into(), st(app, Role::Muted)),
            (
                if s.matched_terms.is_empty() {
                    "-".into()
                } else {
                    clean(&s.matched_terms.join(", "))
                },
                st(app, Role::Matched),
            ),
        ]),
        4,
    );
}

/// The `edge_evidence` section: the discovering edge, its confidence and evidence text.
fn edge_evidence(d: &mut Doc, c: &Ctx) {
    let (app, graph, g) = (c.app, c.graph, c.g);
    d.blank();
    sec(d, app, "edge_evidence");
    match c.row.edge() {
        None => d.text(Line::styled(
            "  [] (a seed or learning-only row has no discovering edge)",
            st(app, Role::Muted),
        )),
        Some(e) => {
            let edge = graph.edge(e);
            let a = &edge.attrs;
            d.text_indent(
                spans(vec![
                    (
                        format!("  {} ", clean(graph.node_name(edge.source))),
                        Style::default(),
                    ),
                    (
                        format!(
                            "--{}--{} ",
                            a.relation.as_ref().map(val).unwrap_or_default(),
                            g.arrow_out
                        ),
                        st(app, Role::WhyGraph),
                    ),
                    (clean(graph.node_name(edge.target)), Style::default()),
                ]),
                4,
            );
            d.text(kv(
                app,
                &[
                    (
                        "confidence",
                        a.confidence.as_ref().map(val).unwrap_or("null".into()),
                    ),
                    (
                        "conf_score",
                        a.conf_score.as_ref().map(val).unwrap_or("null".into()),
                    ),
                ],
            ));
            let ev = a.evidence.as_ref().map(val).unwrap_or_default();
            d.text_indent(
                spans(vec![
                    ("  evidence ".into(), st(app, Role::Muted)),
                    (
                        if ev.is_empty() { "\"\"".into() } else { ev },
                        Style::default(),
                    ),
                ]),
                4,
            );
        }
    }
}

/// The `learning_evidence` section: the promoted signal targeting this tool, if any.
fn learning_evidence(d: &mut Doc, c: &Ctx) {
    let app = c.app;
    d.blank();
    sec(d, app, "learning_evidence");
    match &c.row.learning {
        None => d.text(Line::styled(
            "  none (no promoted learning signal targets this tool)",
            st(app, Role::Muted),
        )),
        Some(l) => {
            d.text(kv(
                app,
                &[
                    ("suggestion_id", val(&l.suggestion_id)),
                    ("suggestion_type", val(&l.suggestion_type)),
                    ("status", val(&l.status)),
                ],
            ));
            d.text(kv(
                app,
                &[
                    ("observations", l.observations.to_string()),
                    ("score", format!("{:.6}", l.score)),
                ],
            ));
        }
    }
}

/// The tool JSON: folded to a one-line byte count, or unfolded line by line.
fn tool_json(d: &mut Doc, c: &Ctx) {
    let (app, g) = (c.app, c.g);
    d.blank();
    let json = c.tool.compact_json();
    match (&app.json_lines, app.json_open) {
        (Some((t, lines)), true) if *t == c.row.tool => {
            d.text(spans(vec![
                (format!("{} tool JSON", g.fold_open), st(app, Role::Section)),
                (
                    format!("  ({} lines; o folds)", lines.len()),
                    st(app, Role::Muted),
                ),
            ]));
            for l in lines.iter() {
                let indent = l.len() - l.trim_start().len();
                d.text_indent(json_line(app, l), indent + 2);
            }
        }
        _ => d.text(spans(vec![
            (
                format!("{} tool JSON", g.fold_closed),
                st(app, Role::Section),
            ),
            (
                format!("  ({} bytes; Enter or o unfolds)", json.len()),
                st(app, Role::Muted),
            ),
        ])),
    }
}

/// A pretty JSON line with its key coloured.
fn json_line(app: &App, l: &str) -> Line<'static> {
    let trimmed = l.trim_start();
    let indent = &l[..l.len() - trimmed.len()];
    if trimmed.starts_with('"')
        && let Some(end) = trimmed[1..].find("\": ").map(|i| i + 3)
    {
        return Line::from(vec![
            Span::raw(indent.to_string()),
            Span::styled(trimmed[..end - 1].to_string(), st(app, Role::JsonKey)),
            Span::raw(trimmed[end - 1..].to_string()),
        ]);
    }
    Line::raw(l.to_string())
}
