//! Readiness report (spec §8.1), edge-quality summary (§1.4) and the printed summary.

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::schema::{OutGraph, ToolSchema};

fn has_source(a: &Map<String, Value>, s: &[&str]) -> bool {
    a.get("evidence_sources")
        .and_then(Value::as_array)
        .is_some_and(|v| v.iter().any(|x| x.as_str().is_some_and(|x| s.contains(&x))))
}

fn rate(n: usize, total: usize) -> f64 {
    if total == 0 {
        0.0
    } else {
        crate::engine::pytext::round(n as f64 / total as f64, 6)
    }
}

/// `edge_quality_summary` (spec §1.4).
pub fn edge_quality_summary(g: &OutGraph) -> Value {
    let (mut total, mut data, mut structural, mut name, mut manual, mut wf, mut trace) =
        (0, 0, 0, 0, 0, 0, 0);
    let (mut strong, mut visual) = (0, 0);
    let mut rel: IndexMap<String, usize> = IndexMap::new();
    for (_, _, a) in g.edges() {
        total += 1;
        let r = a.get("relation").and_then(Value::as_str).unwrap_or("");
        *rel.entry(r.to_string()).or_default() += 1;
        let ev = a.get("evidence").and_then(Value::as_str).unwrap_or("");
        let conf = a.get("confidence").and_then(Value::as_str).unwrap_or("");
        let cs = a.get("conf_score").and_then(Value::as_f64).unwrap_or(0.0);
        let df = a.get("data_flow").is_some_and(|d| !d.is_null());
        if a.get("kind").and_then(Value::as_str) == Some("data")
            || df
            || matches!(r, "requires" | "produces_for")
        {
            data += 1;
        }
        if has_source(a, &["structural"])
            || [
                "path hierarchy",
                "crud",
                "shared schema",
                "$ref",
                "structural",
            ]
            .iter()
            .any(|k| ev.contains(k))
        {
            structural += 1;
        }
        if has_source(a, &["name_based"]) || ev.contains("name/rpc") {
            name += 1;
        }
        if has_source(a, &["manual"]) || a.get("is_manual").and_then(Value::as_bool) == Some(true) {
            manual += 1;
        }
        if has_source(a, &["arazzo"]) {
            wf += 1;
        }
        if has_source(a, &["run", "proven"]) {
            trace += 1;
        }
        if has_source(a, &["api_contract", "arazzo", "openapi_link", "structural"])
            || (conf == "EXTRACTED" && cs >= 0.85)
        {
            strong += 1;
        }
        if has_source(
            a,
            &[
                "api_contract",
                "arazzo",
                "openapi_link",
                "manual",
                "run",
                "proven",
            ],
        ) || (df && matches!(conf, "EXTRACTED" | "INFERRED"))
            || (matches!(r, "requires" | "precedes") && conf == "EXTRACTED" && cs >= 0.9)
        {
            visual += 1;
        }
    }
    let mut rc: Vec<(String, usize)> = rel.into_iter().collect();
    rc.sort();
    let mut rcm = Map::new();
    for (k, v) in rc {
        rcm.insert(k, json!(v));
    }
    json!({
        "total": total,
        "data_flow": data,
        "structural": structural,
        "name_based": name,
        "manual": manual,
        "workflow": wf,
        "trace": trace,
        "strong_deterministic_evidence": strong,
        "visual_edge_candidate_count": visual,
        "strong_deterministic_evidence_rate": rate(strong, total),
        "visual_edge_candidate_rate": rate(visual, total),
        "relation_counts": rcm,
    })
}

struct Issue {
    severity: &'static str,
    code: &'static str,
    tool: Option<String>,
    message: String,
    evidence: Value,
    recommendation: &'static str,
}

fn sev_rank(s: &str) -> u8 {
    match s {
        "blocker" => 0,
        "warning" => 1,
        _ => 2,
    }
}

/// The readiness report (a subset of the reference's checks).
pub fn report(
    tools: &[ToolSchema],
    g: &OutGraph,
    deprecated: usize,
    operations: usize,
    edge_quality: &Value,
) -> Value {
    let mut issues: Vec<Issue> = Vec::new();
    for t in tools {
        let oa = t.metadata.get("openapi");
        if oa
            .and_then(|o| o.get("operation_id_generated"))
            .and_then(Value::as_bool)
            == Some(true)
        {
            issues.push(Issue {
                severity: "warning",
                code: "missing_operation_id",
                tool: Some(t.name.clone()),
                message: "Operation has no operationId; a name was generated.".into(),
                evidence: json!({}),
                recommendation: "Add a stable operationId.",
            });
        }
        let auth: Vec<&Value> = t
            .metadata
            .get("consumes")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter(|r| r.get("kind").and_then(Value::as_str) == Some("auth"))
                    .collect()
            })
            .unwrap_or_default();
        if !auth.is_empty() {
            issues.push(Issue {
                severity: "warning",
                code: "auth_required",
                tool: Some(t.name.clone()),
                message: "OpenAPI security is required for execution.".into(),
                evidence: json!({}),
                recommendation: "Provide credentials in the XGEN adapter or executor layer; do not store secrets in the graph.",
            });
        }
        let has_resp = t.metadata.contains_key("response_schema");
        let method = t.meta_str("method").unwrap_or("");
        if !has_resp && method != "head" {
            issues.push(Issue {
                severity: "warning",
                code: "missing_response_schema",
                tool: Some(t.name.clone()),
                message: "No success response schema or response fields were extracted.".into(),
                evidence: json!({"method": method, "path": t.meta_str("path"), "status": null}),
                recommendation: "Add a 2xx response schema or examples so producer search and plan binding can use outputs.",
            });
        }
    }
    issues.sort_by(|a, b| {
        sev_rank(a.severity)
            .cmp(&sev_rank(b.severity))
            .then_with(|| {
                a.tool
                    .as_deref()
                    .unwrap_or("")
                    .cmp(b.tool.as_deref().unwrap_or(""))
            })
            .then_with(|| a.code.cmp(b.code))
    });
    let blockers = issues.iter().filter(|i| i.severity == "blocker").count();
    let warnings = issues.iter().filter(|i| i.severity == "warning").count();
    let score = (100i64 - 15 * blockers as i64 - 5 * warnings as i64).clamp(0, 100);
    let status = if blockers > 0 {
        "blocked"
    } else if warnings > 0 || score < 90 {
        "warning"
    } else {
        "ready"
    };
    let mut connected = vec![false; g.nodes.len()];
    for (si, m) in g.succ.iter().enumerate() {
        for &ti in m.keys() {
            connected[si] = true;
            connected[ti] = true;
        }
    }
    let orphans: Vec<Value> = g
        .nodes
        .keys()
        .enumerate()
        .filter(|(i, _)| !connected[*i])
        .map(|(_, k)| json!(k))
        .collect();
    let mut rel: IndexMap<String, usize> = IndexMap::new();
    let mut producer = 0;
    for (_, _, a) in g.edges() {
        let r = a.get("relation").and_then(Value::as_str).unwrap_or("");
        *rel.entry(r.to_string()).or_default() += 1;
        if matches!(r, "requires" | "precedes" | "produces_for")
            || a.get("data_flow").is_some_and(|d| !d.is_null())
        {
            producer += 1;
        }
    }
    let mut rc: Vec<(String, usize)> = rel.into_iter().collect();
    rc.sort();
    let mut rcm = Map::new();
    for (k, v) in rc {
        rcm.insert(k, json!(v));
    }
    let issue_rows: Vec<Value> = issues
        .iter()
        .map(|i| {
            json!({
                "severity": i.severity,
                "code": i.code,
                "tool": i.tool,
                "message": i.message,
                "evidence": i.evidence,
                "recommendation": i.recommendation,
            })
        })
        .collect();
    let mut recs: Vec<Value> = Vec::new();
    for i in &issues {
        let r = json!(i.recommendation);
        if !recs.contains(&r) {
            recs.push(r);
        }
    }
    json!({
        "summary": {
            "tool_count": tools.len(),
            "operation_count": operations,
            "unique_tool_count": tools.len(),
            "unique_operation_count": operations,
            "deprecated_tool_count": deprecated,
            "readiness_score": score,
            "status": status,
        },
        "coverage": {},
        "graph_readiness": {
            "edge_count": g.edge_count(),
            "relation_counts": rcm,
            "producer_edge_count": producer,
            "orphan_tool_count": orphans.len(),
            "isolated_tool_count": orphans.len(),
            "orphan_tools": orphans,
            "graph_available": g.edge_count() > 0,
            "edge_quality_summary": edge_quality,
        },
        "issues": issue_rows,
        "recommendations": recs,
    })
}

/// The readiness summary `build` prints (spec §8.1).
pub fn summary_text(artifact: &Value) -> String {
    let Some(r) = artifact.get("readiness_report") else {
        return String::new();
    };
    let s = &r["summary"];
    let mut out = format!(
        "readiness: {} (score {}), {} tools, {} operations, {} deprecated skipped\n",
        s["status"].as_str().unwrap_or("?"),
        s["readiness_score"],
        s["tool_count"],
        s["operation_count"],
        s["deprecated_tool_count"]
    );
    if let Some(issues) = r["issues"].as_array() {
        let mut counts: IndexMap<(String, String), usize> = Default::default();
        for i in issues {
            let k = (
                i["severity"].as_str().unwrap_or("").to_string(),
                i["code"].as_str().unwrap_or("").to_string(),
            );
            *counts.entry(k).or_default() += 1;
        }
        for ((sev, code), n) in counts {
            out.push_str(&format!("  {sev:8} {code} x{n}\n"));
        }
    }
    let gr = &r["graph_readiness"];
    out.push_str(&format!(
        "graph: {} edges, {} producer edges, {} orphan tools\n",
        gr["edge_count"], gr["producer_edge_count"], gr["orphan_tool_count"]
    ));
    out
}
