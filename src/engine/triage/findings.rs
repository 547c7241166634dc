//! Secondary findings of a triage (any number per case): `producer_missing`,
//! `producer_flood`, `sibling_tie`, and — for captured evidence — `evidence_empty` and
//! `artifact_changed`. Each carries a `mechanism_status`: `resolved` where the engine
//! computed it, `partial` where a part is missing, `unresolved` where it cannot be decided.

use serde_json::Value;

use super::super::Engine;
use super::super::explain::Status;
use super::super::retrieve::{FullRun, RowOrigin};
use crate::model::ToolId;

/// Two scores closer than this are a sibling tie.
pub const TIE_EPSILON: f64 = 1e-4;

/// Listed producers per finding at most (the count is always complete).
pub const LIST_MAX: usize = 10;

/// A consumed field of X and who produces it.
#[derive(Debug, Clone, PartialEq)]
pub struct MissingField {
    pub field: String,
    /// Producers of this field over X's data-flow edges (any, retrieved or not).
    pub producers_in_graph: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Finding {
    /// Required data fields X consumes that no retrieved tool produces, and X's data-flow
    /// producers that are not in the results.
    ProducerMissing {
        fields: Vec<MissingField>,
        absent_producers: Vec<String>,
        absent_count: usize,
        status: Status,
    },
    /// More than `threshold` producers came into the results through one data-flow edge
    /// kind (and consumed field).
    ProducerFlood {
        edge_kind: String,
        field: Option<String>,
        producers: Vec<String>,
        threshold: usize,
        status: Status,
    },
    /// Tools ranked above X within [`TIE_EPSILON`] of its score: `(name, score, gap)`.
    SiblingTie {
        x_score: f64,
        tools: Vec<(String, f64, f64)>,
        status: Status,
    },
    /// Captured evidence lacks fields a check needs.
    EvidenceEmpty {
        missing: Vec<String>,
        status: Status,
    },
    /// Captured evidence differs from what this artifact recomputes.
    ArtifactChanged {
        differences: Vec<String>,
        status: Status,
    },
}

impl Finding {
    pub fn kind(&self) -> &'static str {
        match self {
            Finding::ProducerMissing { .. } => "producer_missing",
            Finding::ProducerFlood { .. } => "producer_flood",
            Finding::SiblingTie { .. } => "sibling_tie",
            Finding::EvidenceEmpty { .. } => "evidence_empty",
            Finding::ArtifactChanged { .. } => "artifact_changed",
        }
    }

    pub fn status(&self) -> Status {
        match self {
            Finding::ProducerMissing { status, .. }
            | Finding::ProducerFlood { status, .. }
            | Finding::SiblingTie { status, .. }
            | Finding::EvidenceEmpty { status, .. }
            | Finding::ArtifactChanged { status, .. } => *status,
        }
    }

    /// One line of evidence, in words (no advice).
    pub fn summary(&self) -> String {
        match self {
            Finding::ProducerMissing {
                fields,
                absent_producers,
                absent_count,
                ..
            } => {
                let f: Vec<String> = fields
                    .iter()
                    .map(|f| match f.producers_in_graph {
                        0 => format!("{} (no data-flow producer in the graph)", f.field),
                        n => format!("{} ({n} data-flow producer(s) in the graph)", f.field),
                    })
                    .collect();
                let mut names: Vec<&str> = absent_producers.iter().map(String::as_str).collect();
                names.truncate(3);
                let more = absent_count.saturating_sub(names.len());
                let absent = match (*absent_count, more) {
                    (0, _) => String::new(),
                    (n, 0) => format!(
                        "{n} data-flow producer(s) not in the results: {}",
                        names.join(", ")
                    ),
                    (n, m) => format!(
                        "{n} data-flow producer(s) not in the results: {} and {m} more",
                        names.join(", ")
                    ),
                };
                match (f.is_empty(), absent.is_empty()) {
                    (true, _) => absent,
                    (false, true) => format!(
                        "consumed fields without a retrieved producer: {}",
                        f.join(", ")
                    ),
                    (false, false) => format!(
                        "consumed fields without a retrieved producer: {}; {absent}",
                        f.join(", ")
                    ),
                }
            }
            Finding::ProducerFlood {
                edge_kind,
                field,
                producers,
                threshold,
                ..
            } => format!(
                "{} producers came in over {edge_kind} edges{} (threshold {threshold})",
                producers.len(),
                field
                    .as_ref()
                    .map(|f| format!(" for field {f}"))
                    .unwrap_or_default()
            ),
            Finding::SiblingTie { tools, .. } => format!(
                "{} higher-ranked tool(s) within {TIE_EPSILON} of the expected tool's score: {}",
                tools.len(),
                tools
                    .iter()
                    .map(|t| t.0.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Finding::EvidenceEmpty { missing, .. } => {
                format!("captured evidence lacks: {}", missing.join(", "))
            }
            Finding::ArtifactChanged { differences, .. } => format!(
                "captured evidence differs from this artifact's recomputation: {}",
                differences.join("; ")
            ),
        }
    }
}

/// The consumer-side field of a data-flow edge's evidence text
/// (`"api contract data flow: P.path -> C.field"`).
pub fn consumed_field(evidence: &str, consumer: &str) -> Option<String> {
    let (_, right) = evidence.rsplit_once("->")?;
    let right = right.trim();
    let f = right
        .strip_prefix(consumer)
        .and_then(|r| r.strip_prefix('.'))
        .or_else(|| right.rsplit_once('.').map(|(_, f)| f))?;
    (!f.is_empty()).then(|| f.to_string())
}

fn is_data_edge(v: &Option<Value>) -> Option<String> {
    match v {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        _ => None,
    }
}

/// X's required data fields (consumes rows, `required`, kind other than `context`).
fn consumed_fields(engine: &Engine, tool: ToolId) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for row in engine.graph.tool(tool).facts.consumes_or_api() {
        let required = row.get("required").and_then(Value::as_bool) == Some(true);
        let context = row.get("kind").and_then(Value::as_str) == Some("context");
        if let Some(f) = row.get("field_name").and_then(Value::as_str)
            && required
            && !context
            && !out.iter().any(|x| x == f)
        {
            out.push(f.to_string());
        }
    }
    out
}

fn producer_missing(engine: &Engine, run: &FullRun, tool: ToolId) -> Option<Finding> {
    let g = &engine.graph;
    let node = g.node_of_tool(tool)?;
    let consumer = g.node_name(node);
    // X's data-flow producers: X --(data edge)--> P
    let mut producers: Vec<(ToolId, Option<String>)> = Vec::new();
    for e in g.out_edges(node) {
        let edge = g.edge(e);
        if is_data_edge(&edge.attrs.kind).is_none() {
            continue;
        }
        if let Some(p) = g.tool_of_node(edge.target) {
            producers.push((p, consumed_field(edge.attrs.evidence_str(), consumer)));
        }
    }
    let rows = &run.retrieval.rows;
    let in_rows = |t: ToolId| rows.iter().any(|r| r.tool == t);
    let mut fields = Vec::new();
    for f in consumed_fields(engine, tool) {
        let for_f: Vec<ToolId> = producers
            .iter()
            .filter(|(_, pf)| pf.as_deref() == Some(f.as_str()))
            .map(|p| p.0)
            .collect();
        let covered = for_f.iter().any(|&p| in_rows(p))
            || rows
                .iter()
                .any(|r| r.tool != tool && engine.produced_fields(r.tool).contains(&f));
        if !covered {
            fields.push(MissingField {
                field: f,
                producers_in_graph: for_f.len(),
            });
        }
    }
    let mut absent: Vec<String> = Vec::new();
    for (p, _) in &producers {
        let name = g.tool_key(*p).to_string();
        if !in_rows(*p) && !absent.contains(&name) {
            absent.push(name);
        }
    }
    if fields.is_empty() && absent.is_empty() {
        return None;
    }
    let absent_count = absent.len();
    absent.truncate(LIST_MAX);
    Some(Finding::ProducerMissing {
        fields,
        absent_producers: absent,
        absent_count,
        status: Status::Resolved,
    })
}

/// A data-flow edge kind and the consumed field it carries.
type FloodKey = (String, Option<String>);

fn producer_floods(engine: &Engine, run: &FullRun, threshold: usize) -> Vec<Finding> {
    let g = &engine.graph;
    let mut groups: Vec<(FloodKey, Vec<String>)> = Vec::new();
    for r in &run.retrieval.rows {
        let RowOrigin::Expanded { edge, .. } = r.origin else {
            continue;
        };
        let e = g.edge(edge);
        let Some(kind) = is_data_edge(&e.attrs.kind) else {
            continue;
        };
        // a producer comes in as the target of its consumer's data edge
        if g.tool_of_node(e.target) != Some(r.tool) {
            continue;
        }
        let field = consumed_field(e.attrs.evidence_str(), g.node_name(e.source));
        let key = (kind, field);
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(gr) => gr.1.push(r.name.clone()),
            None => groups.push((key, vec![r.name.clone()])),
        }
    }
    groups
        .into_iter()
        .filter(|g| g.1.len() > threshold)
        .map(|((edge_kind, field), producers)| Finding::ProducerFlood {
            edge_kind,
            field,
            producers,
            threshold,
            status: Status::Resolved,
        })
        .collect()
}

fn sibling_tie(engine: &Engine, run: &FullRun, tool: ToolId) -> Option<Finding> {
    let pos = run.ranking.iter().position(|r| r.tool == tool)?;
    let x = run.ranking[pos].score;
    let tools: Vec<(String, f64, f64)> = run.ranking[..pos]
        .iter()
        .filter(|r| r.score - x <= TIE_EPSILON)
        .map(|r| {
            (
                engine.graph.tool_key(r.tool).to_string(),
                r.score,
                r.score - x,
            )
        })
        .collect();
    (!tools.is_empty()).then_some(Finding::SiblingTie {
        x_score: x,
        tools,
        status: Status::Resolved,
    })
}

/// The findings the engine computes for a live run.
pub fn findings(engine: &Engine, run: &FullRun, tool: ToolId, threshold: usize) -> Vec<Finding> {
    let mut out = Vec::new();
    out.extend(producer_missing(engine, run, tool));
    out.extend(producer_floods(engine, run, threshold));
    out.extend(sibling_tie(engine, run, tool));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consumed_field_from_evidence() {
        assert_eq!(
            consumed_field(
                "api contract data flow: a/list.$[*].security_advisory.ghsa_id -> b/get.ghsa_id",
                "b/get"
            )
            .as_deref(),
            Some("ghsa_id")
        );
        assert_eq!(consumed_field("x -> y.z", "other").as_deref(), Some("z"));
        assert_eq!(consumed_field("no arrow", "c"), None);
    }
}
