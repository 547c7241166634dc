//! `subgraph_text` rendering (spec §4.8, delta §7 item 4) with its token budget.

use rustc_hash::FxHashSet;
use serde_json::Value;

use crate::model::{Graph, NodeId, ToolId};
use crate::pytext;

/// Renders the ranked tools (`(tool, final score)`) as NODE/EDGE lines within the budget.
pub fn render(graph: &Graph, ranked: &[(ToolId, f64)], token_budget: usize) -> String {
    let mut order: Vec<(ToolId, f64)> = ranked.to_vec();
    order.sort_by(|a, b| {
        b.1.partial_cmp(&a.1)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| graph.tool_key(a.0).cmp(graph.tool_key(b.0)))
    });
    let mut lines: Vec<String> = Vec::new();
    let mut in_set: FxHashSet<NodeId> = FxHashSet::default();
    let mut nodes: Vec<NodeId> = Vec::new();
    for &(tid, _) in &order {
        let Some(nid) = graph.node_of_tool(tid) else {
            continue;
        };
        in_set.insert(nid);
        nodes.push(nid);
        let tool = graph.tool(tid);
        let mut line = format!("NODE {}", graph.tool_key(tid));
        let method = tool
            .facts
            .method_str()
            .map(pytext::upper)
            .unwrap_or_default();
        let path = tool.facts.path_str().unwrap_or("");
        if !method.is_empty() || !path.is_empty() {
            line.push_str(&format!(" [{method} {path}]"));
        }
        if let Some(label) = &tool.facts.source_label
            && pytext::truthy(label)
        {
            line.push_str(&format!(" [source={}]", pytext::py_str(label)));
        }
        if let Some(c) = &graph.node(nid).community
            && !c.is_null()
        {
            line.push_str(&format!(" [community={}]", pytext::py_str(c)));
        }
        lines.push(line);
    }
    let mut emitted: FxHashSet<(NodeId, NodeId)> = FxHashSet::default();
    for &u in &nodes {
        for e in graph.out_edges(u) {
            let edge = graph.edge(e);
            if !in_set.contains(&edge.target) || !emitted.insert((u, edge.target)) {
                continue;
            }
            let rel = match &edge.attrs.relation {
                None | Some(Value::Null) => "None".to_string(),
                Some(v) => pytext::py_str(v),
            };
            let conf = match &edge.attrs.confidence {
                Some(v) if pytext::truthy(v) => format!(" [{}]", pytext::py_str(v)),
                _ => String::new(),
            };
            let mut line = format!(
                "EDGE {} --{}{}--> {}",
                graph.node_name(u),
                rel,
                conf,
                graph.node_name(edge.target)
            );
            if let Some(ev) = &edge.attrs.evidence
                && pytext::truthy(ev)
            {
                line.push_str(&format!("   ({})", pytext::py_str(ev)));
            }
            lines.push(line);
        }
    }
    let text = lines.join("\n");
    truncate(text, token_budget)
}

fn truncate(text: String, token_budget: usize) -> String {
    let chars = token_budget.saturating_mul(3);
    if pytext::char_len(&text) <= chars {
        return text;
    }
    let cut_at = text
        .char_indices()
        .nth(chars)
        .map(|(i, _)| i)
        .unwrap_or(text.len());
    let mut cut = &text[..cut_at];
    if let Some(nl) = cut.rfind('\n')
        && nl > 0
    {
        cut = &cut[..nl];
    }
    format!("{cut}\n... (truncated to ~{token_budget} token budget)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation() {
        assert_eq!(
            truncate("abc".into(), 0),
            "\n... (truncated to ~0 token budget)"
        );
        assert_eq!(
            truncate("NODE a\nNODE b".into(), 3),
            "NODE a\n... (truncated to ~3 token budget)"
        );
        assert_eq!(truncate("NODE a".into(), 2), "NODE a");
    }
}
