//! Derived explorer state: what the update side (keys, commands, the drill-down and
//! why-not cursors) and the views both read from `App` but is not stored in it — the
//! Graph pane's neighbours and the node under its cursor, the Explain tree's unfolded
//! nodes (and those a find being typed unfolds to show its matches), the Trace pane's filtered events, the Why-not pane's items, each pane's item
//! count, the smallest usable terminal and where a pane tab was drawn.
//!
//! The views read this module; nothing here reads a view, so state and update never call
//! into `views/` for what they need (the `layers` test keeps it that way).

use std::collections::HashSet;

use serde_json::Value;

use super::app::{App, PaneId};
use crate::engine::explain::{Explanation, Op};
use crate::engine::trace::Event;
use crate::model::{EdgeId, NodeId};
use crate::tui::text::num;

/// The smallest terminal the explorer draws in; below it the view says so instead.
pub const MIN_WIDTH: u16 = 40;
pub const MIN_HEIGHT: u16 = 10;

/// At most this many neighbours are listed (hub nodes can have thousands).
pub const MAX_NEIGHBOURS: usize = 400;

#[derive(Clone, Debug, PartialEq)]
pub struct Neighbour {
    pub node: NodeId,
    pub edge: EdgeId,
    /// True when the focus node is the edge's source.
    pub outgoing: bool,
    pub relation: String,
}

/// The focus node's neighbours, grouped by relation (alphabetical), out-edges first within
/// a group, each group in the graph's edge order.
pub fn neighbours(app: &App) -> Vec<Neighbour> {
    let (Some(engine), Some(focus)) = (app.engine.as_ref(), app.graph_focus()) else {
        return Vec::new();
    };
    let g = &engine.graph;
    let rel = |e: EdgeId| -> String {
        match &g.edge(e).attrs.relation {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => "(none)".into(),
            Some(v) => v.to_string(),
        }
    };
    let mut out: Vec<Neighbour> = Vec::new();
    for e in g.out_edges(focus) {
        out.push(Neighbour {
            node: g.edge(e).target,
            edge: e,
            outgoing: true,
            relation: rel(e),
        });
        if out.len() >= MAX_NEIGHBOURS {
            break;
        }
    }
    for e in g.in_edges(focus) {
        if out.len() >= MAX_NEIGHBOURS {
            break;
        }
        out.push(Neighbour {
            node: g.edge(e).source,
            edge: e,
            outgoing: false,
            relation: rel(e),
        });
    }
    // stable: keeps out-before-in and edge order inside a relation
    out.sort_by(|a, b| a.relation.cmp(&b.relation));
    out
}

/// The node under the graph pane's cursor.
pub fn cursor_target(app: &App) -> Option<NodeId> {
    let c = app.pane(PaneId::Graph).cursor;
    neighbours(app).get(c).map(|n| n.node)
}

/// A node of the tree as drawn.
pub struct VisNode<'a> {
    pub depth: usize,
    /// Child indices from the root.
    pub path: Vec<usize>,
    pub node: &'a Explanation,
    pub open: bool,
    /// For each level from 1 to depth: whether the node on that level is a last child.
    pub lasts: Vec<bool>,
}

/// The combinator as a typed label (empty for a leaf).
pub fn op_label(op: &Op) -> String {
    match op {
        Op::Leaf => String::new(),
        Op::Round(d) => format!("round({d})"),
        Op::Clamp(lo, hi) => format!("clamp[{}, {}]", num(*lo), num(*hi)),
        other => other.name().to_string(),
    }
}

/// The text of an Explain node's line that a find matches in a folded node: its label,
/// value and combinator, as the pane draws them (`label = value [op]`).
pub fn node_head(e: &Explanation) -> String {
    let op = op_label(&e.op);
    let op = if op.is_empty() {
        String::new()
    } else {
        format!(" [{op}]")
    };
    format!("{} = {}{op}", crate::sanitize::line(&e.label), num(e.value))
}

/// Lower case per character, as the find's highlighting compares.
fn lower(s: &str) -> String {
    s.chars()
        .map(|c| c.to_lowercase().next().unwrap_or(c))
        .collect()
}

/// The nodes a find being typed in the Explain tree unfolds: every ancestor of a node
/// whose line ([`node_head`]) holds the pattern, so matches under folded nodes show.
/// Enter keeps them unfolded (`App::explain_keep_unfolds`); Esc folds them back.
pub fn find_unfolds(app: &App) -> HashSet<Vec<usize>> {
    let mut out = HashSet::new();
    let Some(f) = app
        .find
        .as_ref()
        .filter(|f| f.pane == PaneId::Explain && f.typing && !f.input.is_empty())
    else {
        return out;
    };
    let Some(tree) = app.explain.out.as_ref().and_then(|o| o.tree.as_deref()) else {
        return out;
    };
    if app.explain.chips {
        return out;
    }
    fn go(
        e: &Explanation,
        path: &mut Vec<usize>,
        pat: &str,
        out: &mut HashSet<Vec<usize>>,
    ) -> bool {
        let mut below = false;
        for (i, c) in e.children.iter().enumerate() {
            path.push(i);
            below |= go(c, path, pat, out);
            path.pop();
        }
        if below {
            out.insert(path.clone());
        }
        below || lower(&node_head(e)).contains(pat)
    }
    go(
        tree,
        &mut Vec::new(),
        &f.input.text.to_lowercase(),
        &mut out,
    );
    out
}

/// The unfolded nodes of the current tree, in order (empty in the chip view).
pub fn visible(app: &App) -> Vec<VisNode<'_>> {
    let mut out = Vec::new();
    if app.explain.chips {
        return out;
    }
    let Some(tree) = app.explain.out.as_ref().and_then(|o| o.tree.as_deref()) else {
        return out;
    };
    fn go<'a>(
        app: &App,
        unfolds: &HashSet<Vec<usize>>,
        e: &'a Explanation,
        path: Vec<usize>,
        lasts: Vec<bool>,
        out: &mut Vec<VisNode<'a>>,
    ) {
        let open = app.explain.is_open(&path) || unfolds.contains(&path);
        let n = e.children.len();
        out.push(VisNode {
            depth: path.len(),
            path: path.clone(),
            node: e,
            open,
            lasts: lasts.clone(),
        });
        if open {
            for (i, c) in e.children.iter().enumerate() {
                let mut p = path.clone();
                p.push(i);
                let mut l = lasts.clone();
                l.push(i + 1 == n);
                go(app, unfolds, c, p, l, out);
            }
        }
    }
    let unfolds = find_unfolds(app);
    go(app, &unfolds, tree, Vec::new(), Vec::new(), &mut out);
    out
}

/// At most this many events are listed (a query on a large graph records many edges).
pub const MAX_LISTED: usize = 2000;

/// The events shown, after the tool and stage filters.
pub fn events(app: &App) -> Vec<&Event> {
    let Some(out) = &app.trace.out else {
        return Vec::new();
    };
    let tool = app.selected_row().map(|r| r.name.as_str());
    out.trace
        .events
        .iter()
        .filter(|e| app.trace.all || tool.is_none_or(|t| e.mentions(t)))
        .filter(|e| app.trace.stage.as_deref().is_none_or(|s| e.stage == s))
        .collect()
}

/// The pane's items: the header, the section titles, then the probes (the last
/// `probes` items). `None` while there is no triage to show.
/// Counted from the triage, not by building the pane (this runs on every key and frame):
/// the header, one title per deficit, the tools above, the path and the findings when
/// present, the probes' title, then each probe — the items the pane's view
/// (`views::whynot`) draws.
pub fn whynot_items(app: &App) -> Option<(usize, usize)> {
    let t = app.whynot.triage()?;
    let probes = if t.outcome.selected {
        0
    } else {
        t.probes_by_effect().0.len()
    };
    let sections = t.deficit.len()
        + usize::from(!t.above.is_empty())
        + usize::from(t.path.is_some())
        + usize::from(!t.findings.is_empty())
        + usize::from(!t.outcome.selected);
    Some((1 + sections + probes, probes))
}

/// Number of selectable items of a pane (cursor range).
pub fn item_count(app: &App, pane: PaneId) -> usize {
    match pane {
        PaneId::Selector => app.selection().map(|s| s.rows.len()).unwrap_or(0),
        PaneId::Graph => neighbours(app).len(),
        PaneId::Explain => visible(app).len(),
        PaneId::Trace => events(app).len().min(MAX_LISTED),
        PaneId::WhyNot => whynot_items(app).map(|(n, _)| n).unwrap_or(0),
        _ => 0,
    }
}

/// Where a pane tab's label is on screen: row `y`, columns `x0..x1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TabHit {
    pub pane: PaneId,
    pub y: u16,
    pub x0: u16,
    pub x1: u16,
}
