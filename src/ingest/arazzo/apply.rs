//! Writing workflow relations into a graph as graph-tool-call 0.47.0's
//! `apply_arazzo_relations` writes them: a new `precedes` edge (`EXTRACTED`, layer 1,
//! evidence source `arazzo`, `kind` `data` for a runtime reference and `workflow` for a
//! sequence, the workflow evidence in `data_flow`), or a merge into the edge already
//! there (the graph's edge merge, where an empty incoming value never adds a key); then,
//! for every binding with a source path and a target field, a `produces` alias on the
//! producing tool (`contract_source: arazzo`, the consumer's field type and semantic tag),
//! unless that tool already produces that field at that path. Also the workflow summary
//! the reference returns (and a collection writes as `workflow_summary`).

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::{Extracted, Relation};
use crate::ingest::schema::OutGraph;

/// The graph and its tools' metadata (by tool name) that relations are written into.
pub struct Target<'a> {
    pub graph: &'a mut OutGraph,
    pub metadata: IndexMap<String, &'a mut Map<String, Value>>,
}

/// The `edge_stats` of one application.
#[derive(Debug, Default, Clone, Copy)]
pub struct EdgeCounts {
    pub added: usize,
    pub merged: usize,
    pub aliases: usize,
}

/// The edge attributes of a relation.
fn edge_of(r: &Relation) -> Map<String, Value> {
    let kind = r.dependency_kind();
    let mut df = Map::new();
    df.insert("workflow_id".into(), json!(r.workflow));
    df.insert("source_step_id".into(), json!(r.source_step));
    df.insert("target_step_id".into(), json!(r.target_step));
    df.insert("dependency_kind".into(), json!(kind));
    df.insert("from_operation".into(), json!(r.source));
    df.insert("to_operation".into(), json!(r.target));
    df.insert(
        "parameters".into(),
        Value::Array(r.bindings.iter().cloned().map(Value::Object).collect()),
    );
    // the first binding names the data flow
    if let Some(b) = r.bindings.first() {
        df.insert("from_path".into(), b["source_path"].clone());
        df.insert("from_field".into(), b["source_output"].clone());
        df.insert("to_field".into(), b["target_field"].clone());
    }
    let mut a = Map::new();
    a.insert("relation".into(), json!("precedes"));
    a.insert("confidence".into(), json!("EXTRACTED"));
    a.insert(
        "conf_score".into(),
        json!(if r.runtime { 1.0 } else { 0.95 }),
    );
    a.insert("layer".into(), json!(1));
    a.insert(
        "evidence".into(),
        json!(format!(
            "arazzo workflow {}: {} -> {} ({kind})",
            r.workflow, r.source_step, r.target_step
        )),
    );
    a.insert(
        "kind".into(),
        json!(if r.runtime { "data" } else { "workflow" }),
    );
    a.insert("evidence_sources".into(), json!(["arazzo"]));
    a.insert("execution_direction".into(), json!("source_to_target"));
    a.insert("data_flow".into(), Value::Object(df));
    a.insert("is_manual".into(), json!(false));
    a.insert("deleted_by_user".into(), json!(false));
    a
}

/// Writes `relations` into `t` (edges, then each relation's aliases, relation by relation).
pub fn apply(relations: &[Relation], t: &mut Target) -> EdgeCounts {
    let mut c = EdgeCounts::default();
    let mut seen = super::merge::Seen::default();
    let mut aliases = Aliases::default();
    for r in relations {
        let a = edge_of(r);
        if t.graph.has_edge(&r.source, &r.target) {
            super::merge::merge(t.graph, &r.source, &r.target, &a, &mut seen);
            c.merged += 1;
        } else {
            t.graph.add_edge(&r.source, &r.target, a);
            c.added += 1;
        }
        for b in &r.bindings {
            c.aliases += usize::from(aliases.add(t, r, b));
        }
    }
    aliases.write(t);
    c
}

/// The aliases of one application: per producing tool, the `(field, path)` pairs it
/// produces and the new rows in the order they were added (written in front of the
/// existing rows, the last added first, as inserting each at the front would).
#[derive(Default)]
struct Aliases {
    known: rustc_hash::FxHashMap<String, rustc_hash::FxHashSet<(String, String)>>,
    added: IndexMap<String, Vec<Value>>,
}

impl Aliases {
    /// Adds the `produces` alias of one binding to the producing tool; `true` when added.
    fn add(&mut self, t: &Target, r: &Relation, b: &Map<String, Value>) -> bool {
        let text = |k: &str| b.get(k).and_then(Value::as_str).unwrap_or("");
        let (path, field) = (text("source_path"), text("target_field"));
        if path.is_empty() || field.is_empty() {
            return false;
        }
        let Some(meta) = t.metadata.get(&r.source) else {
            return false;
        };
        let known = self.known.entry(r.source.clone()).or_insert_with(|| {
            let rows = meta.get("produces").and_then(Value::as_array);
            rows.into_iter()
                .flatten()
                .filter_map(|row| {
                    let f = row.get("field_name")?.as_str()?;
                    let p = row.get("json_path")?.as_str()?;
                    Some((f.to_string(), p.to_string()))
                })
                .collect()
        });
        if !known.insert((field.to_string(), path.to_string())) {
            return false;
        }
        // the consumer's own row for the field gives its type and semantic tag
        let consumer = t
            .metadata
            .get(&r.target)
            .and_then(|m| m.get("consumes"))
            .and_then(Value::as_array)
            .and_then(|rows| {
                rows.iter()
                    .filter_map(Value::as_object)
                    .find(|row| row.get("field_name").and_then(Value::as_str) == Some(field))
            });
        let truthy = |k: &str| {
            consumer
                .and_then(|row| row.get(k))
                .filter(|v| crate::pytext::truthy(v))
                .cloned()
        };
        let mut row = Map::new();
        row.insert("field_name".into(), json!(field));
        row.insert("json_path".into(), json!(path));
        row.insert(
            "field_type".into(),
            truthy("field_type").unwrap_or(json!("string")),
        );
        row.insert("required".into(), json!(false));
        row.insert("kind".into(), json!("data"));
        row.insert("search_signal".into(), json!(false));
        row.insert("contract_source".into(), json!("arazzo"));
        row.insert("arazzo_workflow_id".into(), json!(r.workflow));
        row.insert("arazzo_source_step_id".into(), b["source_step_id"].clone());
        row.insert("arazzo_source_output".into(), b["source_output"].clone());
        if let Some(tag) = truthy("semantic_tag") {
            row.insert("semantic_tag".into(), tag);
        }
        self.added
            .entry(r.source.clone())
            .or_default()
            .push(Value::Object(row));
        true
    }

    /// Puts the new rows in front of each tool's `produces` (created when missing).
    fn write(self, t: &mut Target) {
        for (tool, mut rows) in self.added {
            let Some(meta) = t.metadata.get_mut(&tool) else {
                continue;
            };
            let produces = meta.entry("produces").or_insert_with(|| json!([]));
            rows.reverse();
            if let Value::Array(old) = produces {
                rows.append(old);
            }
            *produces = Value::Array(rows);
        }
    }
}

/// One applied description for the manifest.
pub struct Applied {
    pub label: String,
    pub sha256: String,
    pub bytes: usize,
    pub version: String,
    pub extracted: Extracted,
}

/// The workflow summary (`apply_arazzo_workflows`' result, a collection's
/// `workflow_summary`).
pub fn summary(applied: &[Applied], counts: EdgeCounts) -> Value {
    let mut by_kind: IndexMap<&str, usize> = IndexMap::new();
    let mut specs = Vec::new();
    for (i, a) in applied.iter().enumerate() {
        for r in &a.extracted.relations {
            *by_kind.entry(r.dependency_kind()).or_default() += 1;
        }
        specs.push(json!({
            "index": i + 1,
            "source": a.label,
            "sha256": a.sha256,
            "bytes": a.bytes,
            "arazzo_version": a.version,
            "workflow_count": a.extracted.workflow_count,
        }));
    }
    by_kind.sort_keys();
    let by_kind: Map<String, Value> = by_kind
        .into_iter()
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect();
    json!({
        "source_count": applied.len(),
        "workflow_count": applied.iter().map(|a| a.extracted.workflow_count).sum::<usize>(),
        "step_count": applied.iter().map(|a| a.extracted.step_count).sum::<usize>(),
        "relation_count": applied.iter().map(|a| a.extracted.relations.len()).sum::<usize>(),
        "by_dependency_kind": by_kind,
        "edge_stats": edge_stats(counts),
        "source_snapshot_manifest": {"spec_count": applied.len(), "specs": specs},
    })
}

/// `{"added", "merged", "binding_aliases_added"}`.
pub fn edge_stats(c: EdgeCounts) -> Value {
    json!({"added": c.added, "merged": c.merged, "binding_aliases_added": c.aliases})
}
