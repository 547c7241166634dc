//! Graph pane: the neighbours of the selected tool (or of the node reached by jumping),
//! grouped by relation, each with direction, confidence, conf_score and evidence. Enter
//! jumps to the neighbour under the cursor, Esc goes back; the breadcrumbs show the path.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use serde_json::Value;

use super::super::app::{App, PaneId};
use super::super::text;
use super::super::theme::Role;
use super::doc::{Doc, spans};
use super::{clean, glyphs, st};
use crate::model::{Graph, NodeId};
use crate::tui::derive::{Neighbour, neighbours};

fn degree(app: &App, node: NodeId) -> (usize, usize) {
    match &app.engine {
        Some(e) => (
            e.graph.out_edges(node).count(),
            e.graph.in_edges(node).count(),
        ),
        None => (0, 0),
    }
}

fn val(v: &Option<Value>) -> String {
    match v {
        None | Some(Value::Null) => "-".into(),
        Some(Value::String(s)) => clean(s),
        Some(v) => clean(&v.to_string()),
    }
}

pub fn doc(app: &App) -> Doc {
    let mut d = Doc::default();
    let (Some(engine), Some(focus)) = (app.engine.as_ref(), app.graph_focus()) else {
        d.text(Line::styled(
            "no candidate selected: type a query with /",
            st(app, Role::Muted),
        ));
        return d;
    };
    let g = &engine.graph;
    graph_line(&mut d, app, g);
    breadcrumbs(&mut d, app, g, focus);
    let (o, i) = focus_head(&mut d, app, g, focus);
    let list = neighbours(app);
    if list.is_empty() {
        d.text(Line::styled(
            "no edges touch this node",
            st(app, Role::Muted),
        ));
        return d;
    }
    if o + i > list.len() {
        d.text(Line::styled(
            format!("showing the first {} of {} edges", list.len(), o + i),
            st(app, Role::Warn),
        ));
    }
    neighbour_rows(&mut d, app, g, &list);
    d
}

/// The node's rank among the candidates, when it is a retrieved tool.
fn rank_of(app: &App, g: &Graph, n: NodeId) -> Option<usize> {
    let t = g.tool_of_node(n)?;
    app.retrieval()?.rows.iter().position(|r| r.tool == t)
}

/// The graph itself: source, counts and (once known) its fingerprint.
fn graph_line(d: &mut Doc, app: &App, g: &Graph) {
    // never hash a large artifact on the UI thread: show the fingerprint once something computed it
    let fp = g.fingerprint_known().unwrap_or("");
    d.text(Line::styled(
        format!(
            "graph {}: {} tools, {} nodes, {} edges{}",
            clean(&app.source_label),
            g.tool_count(),
            g.nodes.len(),
            g.edge_count(),
            if fp.len() >= 12 {
                format!(", sha256 {}", &fp[..12])
            } else {
                String::new()
            }
        ),
        st(app, Role::Muted),
    ));
}

/// The breadcrumbs: the path of jumps to the focus node.
fn breadcrumbs(d: &mut Doc, app: &App, g: &Graph, focus: NodeId) {
    let gl = glyphs(app);
    let crumbs: Vec<NodeId> = if app.graph_stack.is_empty() {
        vec![focus]
    } else {
        app.graph_stack.clone()
    };
    let mut cs: Vec<Span<'static>> = vec![Span::styled("path ", st(app, Role::Muted))];
    for (i, n) in crumbs.iter().enumerate() {
        if i > 0 {
            cs.push(Span::styled(gl.crumb_sep.to_string(), st(app, Role::Muted)));
        }
        let s = if i + 1 == crumbs.len() {
            st(app, Role::Title)
        } else {
            Style::default()
        };
        cs.push(Span::styled(clean(g.node_name(*n)), s));
    }
    if crumbs.len() > 1 {
        cs.push(Span::styled("   (Esc: back)", st(app, Role::Muted)));
    }
    d.text_indent(Line::from(cs), 5);
}

/// The focus node's line: method and path (or node type), rank and degree; returns its
/// out and in degree.
fn focus_head(d: &mut Doc, app: &App, g: &Graph, focus: NodeId) -> (usize, usize) {
    let node = g.node(focus);
    let mut head: Vec<Span<'static>> = Vec::new();
    match g.tool_of_node(focus) {
        Some(t) => {
            let tool = g.tool(t);
            let m = tool.facts.method_str().unwrap_or("").to_uppercase();
            let p = tool.facts.path_str().unwrap_or("");
            if !m.is_empty() || !p.is_empty() {
                head.push(Span::styled(format!("{} ", clean(&m)), st(app, Role::Key)));
                head.push(Span::raw(format!("{}  ", clean(p))));
            }
        }
        None => head.push(Span::styled(
            format!(
                "{} node  ",
                node.node_type
                    .as_deref()
                    .map(clean)
                    .unwrap_or("implicit".into())
            ),
            st(app, Role::Key),
        )),
    }
    if let Some(r) = rank_of(app, g, focus) {
        head.push(Span::styled(
            format!("#{} in candidates  ", r + 1),
            st(app, Role::Good),
        ));
    }
    let (o, i) = degree(app, focus);
    head.push(Span::styled(
        format!("out {o}  in {i}"),
        st(app, Role::Muted),
    ));
    d.text(Line::from(head));
    (o, i)
}

/// The neighbours grouped by relation: one item each, the one under the cursor with its
/// full evidence.
fn neighbour_rows(d: &mut Doc, app: &App, g: &Graph, list: &[Neighbour]) {
    let gl = glyphs(app);
    let cursor = app.pane(PaneId::Graph).cursor;
    let mut current: Option<&str> = None;
    for (idx, n) in list.iter().enumerate() {
        if current != Some(n.relation.as_str()) {
            let count = list.iter().filter(|x| x.relation == n.relation).count();
            d.text(spans(vec![
                (clean(&n.relation), st(app, Role::Section)),
                (format!(" ({count})"), st(app, Role::Muted)),
            ]));
            current = Some(n.relation.as_str());
        }
        let a = &g.edge(n.edge).attrs;
        let arrow = if n.outgoing {
            gl.arrow_out
        } else {
            gl.arrow_in
        };
        let rank = rank_of(app, g, n.node)
            .map(|r| format!("#{:<3}", r + 1))
            .unwrap_or_else(|| "    ".into());
        let conf = val(&a.confidence);
        let score = match &a.conf_score {
            Some(Value::Number(x)) => x
                .as_f64()
                .map(|f| format!("{f:.2}"))
                .unwrap_or_else(|| x.to_string()),
            other => val(other),
        };
        let ev = a.evidence_str();
        d.item(Line::from(vec![
            Span::styled(format!("{arrow} "), st(app, Role::WhyGraph)),
            Span::raw(text::fit(&clean(g.node_name(n.node)), 26, gl.ellipsis)),
            Span::styled(format!(" {rank}"), st(app, Role::Good)),
            Span::styled(
                format!("{} ", text::fit(&conf, 9, gl.ellipsis)),
                st(app, Role::Key),
            ),
            Span::styled(
                format!("{} ", text::fit_right(&score, 4)),
                st(app, Role::Score),
            ),
            Span::styled(clean(ev), st(app, Role::Muted)),
        ]));
        if idx == cursor && !ev.is_empty() {
            // the full evidence of the neighbour under the cursor
            d.text_indent(
                spans(vec![
                    ("    evidence: ".into(), st(app, Role::Muted)),
                    (clean(ev), Style::default()),
                ]),
                4,
            );
            let mut extra: Vec<(&str, String)> = Vec::new();
            if let Some(v) = &a.layer {
                extra.push(("layer", val(&Some(v.clone()))));
            }
            if let Some(v) = &a.kind {
                extra.push(("kind", val(&Some(v.clone()))));
            }
            if let Some(v) = &a.evidence_sources {
                extra.push(("sources", val(&Some(v.clone()))));
            }
            if !extra.is_empty() {
                let s = extra
                    .iter()
                    .map(|(k, v)| format!("{k} {v}"))
                    .collect::<Vec<_>>()
                    .join("  ");
                d.text_indent(Line::styled(format!("    {s}"), st(app, Role::Muted)), 4);
            }
        }
    }
}
