//! A run record: the compact, comparable form of one query's evidence, read from any of
//! the formats toolscope meets (fixtures, `retrieve_graphify` responses, batch lines,
//! selector blocks) or made from a live run.

use serde_json::{Map, Value};

use crate::engine::{Retrieval, Selection};

#[derive(Debug, Clone, PartialEq)]
pub struct RowRecord {
    pub name: String,
    pub rank: usize,
    pub score: Option<f64>,
    /// `score_breakdown` as given (numbers and booleans).
    pub breakdown: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunRecord {
    pub id: String,
    pub query: Option<String>,
    pub rows: Vec<RowRecord>,
    pub selected_target: Option<String>,
    pub llm_target: Option<String>,
    pub reason_codes: Vec<String>,
    pub overrode_llm: Option<bool>,
    pub ambiguous: Option<bool>,
    pub expected: Vec<String>,
    /// Keys this reader does not know, kept for display.
    pub unknown_keys: Vec<String>,
}

impl RunRecord {
    pub fn names(&self) -> Vec<String> {
        self.rows.iter().map(|r| r.name.clone()).collect()
    }

    pub fn from_run(id: &str, r: &Retrieval, sel: Option<&Selection>) -> RunRecord {
        let rows = r
            .rows
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let b = &row.breakdown;
                let s = &row.semantic;
                let mut m = Map::new();
                let f = |x: bool| Value::from(if x { 1.0 } else { 0.0 });
                m.insert("seed".into(), b.seed.into());
                m.insert("graph".into(), b.graph.into());
                m.insert("learning".into(), b.learning.into());
                m.insert("history_demoted".into(), b.history_demoted.into());
                m.insert("action_match".into(), f(s.action_match));
                m.insert("resource_match".into(), f(s.resource_match));
                m.insert("module_match".into(), f(s.module_match));
                m.insert("shape_match".into(), f(s.shape_match));
                m.insert("contract_match".into(), f(s.contract_match));
                m.insert("graph_expansion".into(), f(b.graph_expansion));
                RowRecord {
                    name: row.name.clone(),
                    rank: i + 1,
                    score: Some(row.rounded_score()),
                    breakdown: m,
                }
            })
            .collect();
        let mut rec = RunRecord {
            id: id.to_string(),
            query: Some(r.query.clone()),
            rows,
            ..Default::default()
        };
        if let Some(s) = sel {
            rec.selected_target = Some(s.selected_target.clone());
            rec.llm_target = s.llm_target.clone();
            rec.reason_codes = s.reason_codes.iter().map(|c| c.to_string()).collect();
            rec.overrode_llm = Some(s.overrode_llm);
            rec.ambiguous = Some(s.ambiguous);
        }
        rec
    }

    /// Reads a record from a JSON object of any supported shape. `fallback_id` names it
    /// when the object has no id.
    pub fn from_json(v: &Value, fallback_id: &str) -> Option<RunRecord> {
        let o = v.as_object()?;
        let mut rec = RunRecord {
            id: fallback_id.to_string(),
            ..Default::default()
        };
        for k in ["case_id", "id"] {
            if let Some(id) = o.get(k).and_then(Value::as_str) {
                rec.id = id.to_string();
                break;
            }
        }
        rec.query = o.get("query").and_then(Value::as_str).map(String::from);
        let known = [
            "case_id",
            "id",
            "query",
            "query_fingerprint",
            "query_scrubbed",
            "expected_target",
            "expected_tools",
            "top_k",
            "actual_top_3",
            "ranking",
            "target_selector",
            "selection",
            "retrieval",
            "results",
            "subgraph_text",
            "intent",
            "stats",
            "provenance",
            "learning_suggestion_ids",
            "params",
            "category",
            "graph",
            "selector",
            "labels",
            "expected",
            "note",
        ];
        rec.unknown_keys = o
            .keys()
            .filter(|k| !known.contains(&k.as_str()))
            .cloned()
            .collect();
        if let Some(t) = o.get("expected_target").and_then(Value::as_str) {
            rec.expected = vec![t.to_string()];
        } else if let Some(a) = o.get("expected_tools").and_then(Value::as_array) {
            rec.expected = a
                .iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect();
        } else if let Some(a) = o
            .get("labels")
            .and_then(|l| l.get("expected_tools"))
            .and_then(Value::as_array)
        {
            rec.expected = a
                .iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect();
        }
        // rows: fixture ranking > actual_top_3 > retrieval.results > results > expected.retrieval.results
        let results = o
            .get("retrieval")
            .and_then(|r| r.get("results"))
            .or_else(|| o.get("results"))
            .or_else(|| {
                o.get("expected")
                    .and_then(|e| e.get("retrieval"))
                    .and_then(|r| r.get("results"))
            });
        if let Some(Value::Array(rows)) = o.get("ranking") {
            rec.rows = rows
                .iter()
                .enumerate()
                .filter_map(|(i, r)| row_from(r, i))
                .collect();
        } else if let Some(Value::Array(rows)) = o.get("actual_top_3") {
            rec.rows = rows
                .iter()
                .enumerate()
                .filter_map(|(i, r)| row_from(r, i))
                .collect();
        } else if let Some(Value::Array(rows)) = results {
            rec.rows = rows
                .iter()
                .enumerate()
                .filter_map(|(i, r)| row_from(r, i))
                .collect();
        }
        let sel = o
            .get("target_selector")
            .or_else(|| o.get("selection"))
            .or_else(|| o.get("expected").and_then(|e| e.get("selection")))
            .filter(|s| s.is_object())
            .or_else(|| o.contains_key("selected_target").then_some(v));
        if let Some(s) = sel {
            rec.selected_target = s
                .get("selected_target")
                .and_then(Value::as_str)
                .map(String::from);
            rec.llm_target = s
                .get("llm_target")
                .and_then(Value::as_str)
                .map(String::from);
            rec.reason_codes = s
                .get("reason_codes")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            rec.overrode_llm = s.get("overrode_llm").and_then(Value::as_bool);
            rec.ambiguous = s.get("ambiguous").and_then(Value::as_bool);
        }
        if rec.rows.is_empty() && rec.selected_target.is_none() {
            return None;
        }
        Some(rec)
    }
}

fn row_from(r: &Value, i: usize) -> Option<RowRecord> {
    if let Some(name) = r.as_str() {
        return Some(RowRecord {
            name: name.to_string(),
            rank: i + 1,
            score: None,
            breakdown: Map::new(),
        });
    }
    let o = r.as_object()?;
    let name = o
        .get("name")
        .or_else(|| o.get("tool"))
        .and_then(Value::as_str)?
        .to_string();
    let rank = o
        .get("rank")
        .and_then(Value::as_u64)
        .map(|x| x as usize)
        .unwrap_or(i + 1);
    let score = o.get("score").and_then(Value::as_f64);
    let breakdown = o
        .get("score_breakdown")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    Some(RowRecord {
        name,
        rank,
        score,
        breakdown,
    })
}
