//! Evidence over another LLM–algorithm system: a metric registry file plus an event log
//! (JSON Lines). The same tools apply — registry-driven accounting decomposition, traces
//! per entity and per event — under a visibility boundary: nothing after the current
//! decision point is ever returned.
//!
//! Registry: `{"registry_version", "metrics": [{"metric_id", "unit", "formula_version",
//! "description", "op": "sum", "components": [field…], "source_fields", "visibility_scope",
//! "supported_counterfactuals"}]}`.
//! Event log lines: `{"seq", "decision_point", "entity", "type", "values": {field: number},
//! "reported": {metric_id: number}?, …}`; `decision_point` is an ordered integer.

use serde_json::{Map, Value, json};
use std::path::Path;

use crate::engine::explain::{Explanation, Op, Status, TOLERANCE};
use crate::error::InputError;
use crate::jsonout::JsonWriter;
use crate::model::load::{into_text, json_error, read_input};

#[derive(Debug, Clone)]
pub struct ForeignMetric {
    pub metric_id: String,
    pub unit: String,
    pub formula_version: String,
    pub description: String,
    pub components: Vec<String>,
    pub raw: Value,
}

#[derive(Debug, Clone)]
pub struct ForeignEvent {
    pub seq: i64,
    pub decision_point: i64,
    pub entity: String,
    pub kind: String,
    pub values: Map<String, Value>,
    pub reported: Map<String, Value>,
    pub raw: Value,
}

#[derive(Debug, Clone)]
pub struct ForeignSystem {
    pub name: String,
    pub registry_version: String,
    pub metrics: Vec<ForeignMetric>,
    pub events: Vec<ForeignEvent>,
    /// Lines of the event log that could not be read: (line, message).
    pub skipped: Vec<(usize, String)>,
}

pub fn load(registry: &Path, events: &Path) -> Result<ForeignSystem, InputError> {
    let rname = registry.display().to_string();
    let rtext = into_text(&rname, read_input(registry)?)?;
    let reg: Value = crate::jsonin::from_str(&rtext).map_err(|e| json_error(&rname, &e, ""))?;
    let metrics_v = reg
        .get("metrics")
        .and_then(Value::as_array)
        .ok_or_else(|| InputError::new(&rname, "/metrics", "expected a list of metrics".into()))?;
    let mut metrics = Vec::new();
    for (i, m) in metrics_v.iter().enumerate() {
        let place = format!("/metrics/{i}");
        let id = m
            .get("metric_id")
            .and_then(Value::as_str)
            .ok_or_else(|| InputError::new(&rname, &place, "missing metric_id".into()))?;
        let op = m.get("op").and_then(Value::as_str).unwrap_or("sum");
        if op != "sum" {
            return Err(InputError::new(
                &rname,
                &format!("{place}/op"),
                format!("unsupported op {op:?} (only sum)"),
            ));
        }
        let components = m
            .get("components")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|c| c.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        let s = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        metrics.push(ForeignMetric {
            metric_id: id.to_string(),
            unit: s("unit"),
            formula_version: s("formula_version"),
            description: s("description"),
            components,
            raw: m.clone(),
        });
    }
    let ename = events.display().to_string();
    let etext = into_text(&ename, read_input(events)?)?;
    let mut evs = Vec::new();
    let mut skipped = Vec::new();
    for (i, line) in etext.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = match crate::jsonin::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                skipped.push((
                    i + 1,
                    json_error(&ename, &e, "").with_line(i + 1).to_string(),
                ));
                continue;
            }
        };
        let (Some(seq), Some(dp)) = (
            v.get("seq").and_then(Value::as_i64),
            v.get("decision_point").and_then(Value::as_i64),
        ) else {
            skipped.push((
                i + 1,
                format!(
                    "{ename}:{}: an event needs integer seq and decision_point",
                    i + 1
                ),
            ));
            continue;
        };
        let obj = |k: &str| {
            v.get(k)
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default()
        };
        evs.push(ForeignEvent {
            seq,
            decision_point: dp,
            entity: v
                .get("entity")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            kind: v
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("event")
                .to_string(),
            values: obj("values"),
            reported: obj("reported"),
            raw: v,
        });
    }
    evs.sort_by_key(|e| (e.decision_point, e.seq));
    Ok(ForeignSystem {
        name: reg
            .get("system")
            .and_then(Value::as_str)
            .unwrap_or("external system")
            .to_string(),
        registry_version: reg
            .get("registry_version")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        metrics,
        events: evs,
        skipped,
    })
}

impl ForeignSystem {
    pub fn metric(&self, id: &str) -> Option<&ForeignMetric> {
        self.metrics.iter().find(|m| m.metric_id == id)
    }

    /// Events visible at a decision point (none after it), optionally for one entity.
    pub fn visible(&self, decision_point: i64, entity: Option<&str>) -> Vec<&ForeignEvent> {
        self.events
            .iter()
            .filter(|e| e.decision_point <= decision_point && entity.is_none_or(|x| e.entity == x))
            .collect()
    }

    pub fn last_decision_point(&self) -> i64 {
        self.events
            .iter()
            .map(|e| e.decision_point)
            .max()
            .unwrap_or(0)
    }

    /// Decomposes a metric for an entity (or all) up to a decision point.
    pub fn explain(
        &self,
        metric_id: &str,
        entity: Option<&str>,
        decision_point: i64,
    ) -> Result<(Explanation, Option<f64>), String> {
        let m = self
            .metric(metric_id)
            .ok_or_else(|| format!("unknown metric {metric_id:?}"))?;
        let evs = self.visible(decision_point, entity);
        let mut comps = Vec::new();
        for c in &m.components {
            let parts: Vec<Explanation> = evs
                .iter()
                .filter_map(|e| {
                    e.values.get(c).and_then(Value::as_f64).map(|v| {
                        Explanation::leaf(format!("event {} ({}, {})", e.seq, e.kind, e.entity), v)
                    })
                })
                .collect();
            let mut node = Explanation::computed(c.clone(), Op::Sum, parts);
            if node.children.is_empty() {
                node.value = 0.0;
                node.gap = Some(Status::Partial);
                node.detail = Some("no visible event carries this component".into());
            }
            comps.push(node);
        }
        let total = Explanation::computed(m.metric_id.clone(), Op::Sum, comps);
        // the system's own reported value, when one is visible: the decomposition must match it
        let reported = evs.iter().rev().find_map(|e| {
            e.reported
                .get(metric_id)
                .and_then(Value::as_f64)
                .filter(|_| entity.is_none_or(|x| e.entity == x))
        });
        let mut root = total;
        if let Some(r) = reported {
            if (r - root.value).abs() > TOLERANCE {
                root.gap = Some(Status::Unresolved);
                root.detail = Some(format!(
                    "the system reported {r}; the visible components add up to {}",
                    root.value
                ));
            }
            root.value = r;
        }
        Ok((root, reported))
    }

    pub fn write_events(&self, evs: &[&ForeignEvent], w: &mut JsonWriter) {
        w.begin_arr();
        for e in evs {
            w.value(&e.raw);
        }
        w.end_arr();
    }
}

/// Runs one evidence tool over a foreign system (operator command line).
pub fn call(sys: &ForeignSystem, tool: &str, args: &Value) -> Result<Value, String> {
    let dp = args
        .get("decision_point")
        .and_then(Value::as_i64)
        .unwrap_or_else(|| sys.last_decision_point());
    let entity = args
        .get("scope_id")
        .or_else(|| args.get("entity"))
        .and_then(Value::as_str);
    let mut w = JsonWriter::new();
    w.begin_obj();
    match tool {
        "list_available_metrics" => {
            w.key("metrics").begin_arr();
            for m in &sys.metrics {
                w.value(&m.raw);
            }
            w.end_arr();
            w.key("registry_version").str(&sys.registry_version);
        }
        "describe_metric" => {
            let id = args
                .get("metric_id")
                .and_then(Value::as_str)
                .ok_or("metric_id must be a string")?;
            w.key("metric").value(
                &sys.metric(id)
                    .ok_or_else(|| format!("unknown metric {id:?}"))?
                    .raw,
            );
        }
        "explain_metric" => {
            let id = args
                .get("metric_id")
                .and_then(Value::as_str)
                .ok_or("metric_id must be a string")?;
            let (tree, reported) = sys.explain(id, entity, dp)?;
            let (status, bad) = tree.check();
            w.key("metric_id").str(id);
            w.key("scope_id").opt_str(entity);
            w.key("decision_point").int(dp);
            w.key("value").f64(tree.value);
            w.key("reported").opt_f64(reported);
            w.key("decomposition_type").str("accounting");
            w.key("tree");
            tree.write_json(&mut w);
            w.key("residual_check")
                .begin_obj()
                .key("tolerance")
                .f64(TOLERANCE)
                .key("failures")
                .str_list(&bad)
                .end_obj();
            w.key("mechanism_status").str(status.as_str());
        }
        "trace_event" | "trace_entity" => {
            let evs = sys.visible(dp, if tool == "trace_entity" { entity } else { None });
            let evs: Vec<&ForeignEvent> = match args.get("type").and_then(Value::as_str) {
                Some(k) => evs.into_iter().filter(|e| e.kind == k).collect(),
                None => evs,
            };
            w.key("decision_point").int(dp);
            w.key("visibility_boundary")
                .str("events after the current decision point are not returned");
            w.key("event_count").int(evs.len() as i64);
            w.key("events");
            sys.write_events(&evs, &mut w);
            w.key("mechanism_status").str("resolved");
        }
        other => {
            return Err(format!(
                "{other} is not available for an external event log"
            ));
        }
    }
    w.key("provenance").begin_obj();
    w.key("system").str(&sys.name);
    w.key("registry_version").str(&sys.registry_version);
    w.key("skipped_log_lines").int(sys.skipped.len() as i64);
    w.end_obj();
    w.key("read_only").bool(true);
    w.key("returns_action_recommendations").bool(false);
    w.end_obj();
    Ok(serde_json::from_str(&w.finish()).unwrap_or_else(|_| json!({})))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> ForeignSystem {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/examples/dispatch");
        load(&root.join("registry.json"), &root.join("events.jsonl")).unwrap()
    }

    #[test]
    fn decomposes_total_cost_and_respects_the_boundary() {
        let sys = example();
        assert_eq!(
            sys.skipped.len(),
            1,
            "the example has one bad line on purpose"
        );
        let (tree, reported) = sys.explain("total_cost", Some("order-1042"), 3).unwrap();
        assert!(reported.is_some());
        assert_eq!(tree.check().0, Status::Resolved);
        let later = sys.visible(2, None);
        assert!(later.iter().all(|e| e.decision_point <= 2));
        let out = call(
            &sys,
            "trace_entity",
            &json!({"scope_id": "order-1042", "decision_point": 2}),
        )
        .unwrap();
        assert!(
            out["events"]
                .as_array()
                .unwrap()
                .iter()
                .all(|e| e["decision_point"].as_i64().unwrap() <= 2)
        );
        // a component without any visible event is partial
        let (tree, _) = sys.explain("total_cost", Some("order-2001"), 1).unwrap();
        assert_eq!(tree.check().0, Status::Partial);
    }
}
