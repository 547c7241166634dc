//! Arazzo workflows applied to an already-built graph, as the reference does with
//! `ToolGraph.load(artifact)`, `apply_arazzo_workflows(graph, sources)`, `save`: the
//! artifact (a saved tool graph or a collection artifact) is read into nodes, edges and
//! tool rows, the workflows are applied, and the result is a saved tool graph
//! (`format_version`, `library_version`, `metadata` with `built_at` and `tool_count`,
//! `graph`, `tools`) — the collection's own summaries are not carried over, as `save`
//! does not write them.

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use crate::error::InputError;
use crate::ingest::schema::OutGraph;
use crate::ingest::source::Document;

/// The result of applying workflows to a saved graph.
pub struct Applied {
    pub value: Value,
    pub tool_count: usize,
    pub edge_count: usize,
    pub summary: super::Summary,
}

fn bad(file: &str, place: &str, what: &str) -> InputError {
    InputError::new(file, place, format!("{what} (not a saved tool graph)"))
}

/// Reads `graph.nodes` and `graph.edges` into a graph (nodes in order, then edges, each
/// edge creating the nodes it names, as loading does).
fn read_graph(file: &str, doc: &Map<String, Value>) -> Result<OutGraph, InputError> {
    let Some(Value::Object(g)) = doc.get("graph") else {
        return Err(bad(
            file,
            "/graph",
            "expected an object with nodes and edges",
        ));
    };
    let mut out = OutGraph::default();
    let list = |k: &str| -> Result<&[Value], InputError> {
        match g.get(k) {
            None => Ok(&[]),
            Some(Value::Array(a)) => Ok(a),
            Some(_) => Err(bad(file, &format!("/graph/{k}"), "expected a list")),
        }
    };
    for (i, n) in list("nodes")?.iter().enumerate() {
        let Some(Value::String(id)) = n.get("id") else {
            return Err(bad(
                file,
                &format!("/graph/nodes/{i}"),
                "a node without a string id",
            ));
        };
        let attrs: Map<String, Value> = n
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(k, _)| *k != "id")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        out.add_node(id, attrs);
    }
    for (i, e) in list("edges")?.iter().enumerate() {
        let (Some(Value::String(s)), Some(Value::String(t))) = (e.get("source"), e.get("target"))
        else {
            return Err(bad(
                file,
                &format!("/graph/edges/{i}"),
                "an edge without string source and target",
            ));
        };
        let attrs: Map<String, Value> = e
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(k, _)| *k != "source" && *k != "target")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        out.add_edge(s, t, attrs);
    }
    Ok(out)
}

/// Applies the descriptions in `workflows` to the graph in `graph` (a parsed artifact).
pub fn apply_to_saved(
    graph: Document,
    workflows: &[&Document],
    built_at: &str,
) -> Result<Applied, InputError> {
    let file = graph.name.clone();
    let Value::Object(mut doc) = graph.value else {
        return Err(bad(&file, "", "expected an object"));
    };
    let mut g = read_graph(&file, &doc)?;
    if doc.contains_key("readiness_report") {
        crate::ingest::warn(format!(
            "{file}: a collection artifact: the output is a saved tool graph, as \
             ToolGraph.load + save writes it (without the collection's readiness report and \
             summaries)"
        ));
    }
    let mut tools: IndexMap<String, Value> = match doc.remove("tools") {
        None => IndexMap::new(),
        Some(Value::Object(m)) => m.into_iter().collect(),
        Some(_) => return Err(bad(&file, "/tools", "expected an object of tool rows")),
    };
    for (name, row) in &tools {
        if !row.is_object() {
            let place = format!("/tools/{}", name.replace('~', "~0").replace('/', "~1"));
            return Err(bad(&file, &place, "expected a tool row (an object)"));
        }
    }
    // a row without a metadata object is still a tool of the graph (its aliases, which
    // the reference would write into new metadata, are dropped)
    let missing = tools
        .values()
        .filter(|r| !r.get("metadata").is_some_and(Value::is_object))
        .count();
    let mut scratch: Vec<Map<String, Value>> = vec![Map::new(); missing];
    let mut scratch = scratch.iter_mut();
    let mut metadata: IndexMap<String, &mut Map<String, Value>> = IndexMap::new();
    for (name, row) in tools.iter_mut() {
        let m = match row.get_mut("metadata") {
            Some(Value::Object(m)) => m,
            _ => scratch
                .next()
                .expect("one scratch map per row without metadata"),
        };
        metadata.insert(name.clone(), m);
    }
    let summary = super::apply_documents(
        workflows,
        &mut super::Target {
            graph: &mut g,
            metadata,
        },
    )?;
    let tool_count = tools.len();
    let edge_count = g.edge_count();
    let mut top = Map::new();
    top.insert("format_version".into(), json!("1"));
    top.insert(
        "library_version".into(),
        json!(crate::ingest::REFERENCE_VERSION),
    );
    top.insert(
        "metadata".into(),
        json!({"built_at": built_at, "tool_count": tool_count}),
    );
    top.insert("graph".into(), g.into_json());
    top.insert("tools".into(), Value::Object(tools.into_iter().collect()));
    Ok(Applied {
        value: Value::Object(top),
        tool_count,
        edge_count,
        summary,
    })
}
