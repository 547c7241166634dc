//! Evidence files for the Evidence and Diff screens, read with no graph: a captured
//! `retrieve_graphify` response, a selector block, a regression fixture, a batch line
//! (`{"id", "retrieval", "selection"}`), a golden case, a JSON list or JSON Lines stream of
//! them, or a fixture folder. Every key is kept: keys this reader does not know are listed
//! as unknown keys (with their values), never dropped. And [`detect`]: which screen a file
//! belongs to, from its content.

use std::path::Path;

use serde_json::{Map, Value};

use crate::lab::record::{Malformed, RunRecord};

/// A set of records read from one file or folder.
#[derive(Clone, Debug, Default)]
pub struct EvSet {
    /// The file or folder name, for titles.
    pub label: String,
    pub records: Vec<EvRecord>,
    /// Parts that could not be read (the rest was).
    pub errors: Vec<String>,
}

/// Why a row is in the top-K, as far as the JSON says.
#[derive(Clone, Debug, PartialEq)]
pub enum Why {
    /// A BM25 seed; its position in `stats.seeds` when the record has one.
    Seed(Option<usize>),
    /// Pulled in over an edge (`expanded_from` and `edge_evidence`).
    Expanded {
        from: String,
        relation: String,
        confidence: Option<String>,
    },
    /// Graph expansion without a recorded source (fixtures keep only the breakdown).
    Graph,
    Learning,
    /// Only the retrieval rank is known (a selector block's candidates).
    Rank(usize),
    Unknown,
}

#[derive(Clone, Debug)]
pub struct EvRow {
    pub name: String,
    pub rank: usize,
    pub score: Option<f64>,
    /// seed, graph, learning (`score_breakdown`).
    pub chips: [Option<f64>; 3],
    /// action, resource, module, shape, contract matches.
    pub badges: [Option<bool>; 5],
    pub matched: Vec<String>,
    /// `summary_matched_terms`: query terms found in the summary (the matched column shows
    /// them when `matched` is empty).
    pub summary_matched: Vec<String>,
    pub why: Why,
    pub history_demoted: bool,
    /// The row as given.
    pub value: Value,
    /// Its size as compact JSON.
    pub bytes: usize,
    /// Keys of the row (and its nested objects) this reader does not know: (path, value).
    pub unknown: Vec<(String, Value)>,
}

#[derive(Clone, Debug)]
pub struct EvRecord {
    pub id: String,
    /// fixture, response, batch line, golden case, selector block.
    pub kind: &'static str,
    /// Where it came from: `file`, `file:LINE` or `file#INDEX`.
    pub origin: String,
    pub query: Option<String>,
    pub rows: Vec<EvRow>,
    /// The target selector block, when the record has one.
    pub selector: Option<Value>,
    pub seeds: Vec<String>,
    /// Unknown keys outside the rows: (path, value).
    pub unknown: Vec<(String, Value)>,
    /// The record as given.
    pub value: Value,
    /// Its size as compact JSON.
    pub bytes: usize,
    /// The compact comparable form (for diffs).
    pub compact: RunRecord,
}

/// The one list of top-level keys a record may carry ([`crate::lab::record::KNOWN_KEYS`]).
const TOP_KNOWN: &[&str] = crate::lab::record::KNOWN_KEYS;
const RETRIEVAL_KNOWN: &[&str] = &["results", "subgraph_text", "intent", "stats"];
const STATS_KNOWN: &[&str] = &[
    "seeds",
    "visited_nodes",
    "visited_edges",
    "token_budget_used",
    "learning_applied",
];
const INTENT_KNOWN: &[&str] = &["dominant", "read", "write", "delete"];
const PROVENANCE_KNOWN: &[&str] = &[
    "graph_fingerprint",
    "engine_profile",
    "registry_version",
    "toolscope_version",
    "params",
];
pub const SELECTOR_KNOWN: &[&str] = &[
    "selected_target",
    "llm_target",
    "confidence",
    "overrode_llm",
    "ambiguous",
    "needs_expansion",
    "decision",
    "recommended_action",
    "reason_codes",
    "ambiguity_set",
    "why_selected",
    "why_rejected",
    "query_facets",
    "margin",
    "llm_margin",
    "policy",
    "policy_revision",
    "override_assessment",
    "rank_signals",
    "candidate_evidence",
    "target_action_priority",
    "result_shape_priority",
    "learning_applied",
    "sibling_comparison_applied",
];
const ROW_KNOWN: &[&str] = &[
    "name",
    "score",
    "tool",
    "rank",
    "score_breakdown",
    "semantic_evidence",
    "learning_evidence",
    "expanded_from",
    "edge_evidence",
];
pub const BREAKDOWN_KNOWN: &[&str] = &[
    "seed",
    "graph",
    "learning",
    "history_demoted",
    "action_match",
    "resource_match",
    "module_match",
    "shape_match",
    "contract_match",
    "graph_expansion",
];
pub const SEMANTIC_KNOWN: &[&str] = &[
    "canonical_action",
    "primary_resource",
    "result_shape",
    "path_module",
    "query_action",
    "query_result_shape",
    "action_match",
    "resource_match",
    "module_match",
    "shape_match",
    "contract_match",
    "summary_match",
    "summary_match_count",
    "summary_matched_terms",
    "summary_specificity",
    "matched_terms",
];
pub const EDGE_KNOWN: &[&str] = &[
    "source",
    "target",
    "relation",
    "confidence",
    "conf_score",
    "evidence",
];
pub const LEARNING_KNOWN: &[&str] = &[
    "source",
    "target",
    "suggestion_id",
    "suggestion_type",
    "status",
    "observations",
    "score",
];

/// Unknown keys of `v` (an object) under `prefix`.
fn unknown_in(v: Option<&Value>, known: &[&str], prefix: &str, out: &mut Vec<(String, Value)>) {
    if let Some(Value::Object(o)) = v {
        for (k, x) in o {
            if !known.contains(&k.as_str()) {
                out.push((format!("{prefix}{k}"), x.clone()));
            }
        }
    }
}

fn num(v: Option<&Value>) -> Option<f64> {
    match v? {
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        _ => None,
    }
}

fn flag(v: Option<&Value>) -> Option<bool> {
    match v? {
        Value::Bool(b) => Some(*b),
        Value::Number(n) => n.as_f64().map(|x| x != 0.0),
        _ => None,
    }
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

fn json_len(v: &Value) -> usize {
    serde_json::to_string(v).map(|s| s.len()).unwrap_or(0)
}

/// A value as short display text (strings without quotes).
pub fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "null".into(),
        other => other.to_string(),
    }
}

impl EvRow {
    fn from_value(v: &Value, i: usize, seeds: &[String]) -> EvRow {
        let empty = Map::new();
        let Some(o) = v.as_object() else {
            return EvRow {
                name: v
                    .as_str()
                    .map(String::from)
                    .unwrap_or_else(|| v.to_string()),
                rank: i + 1,
                score: None,
                chips: [None; 3],
                badges: [None; 5],
                matched: Vec::new(),
                summary_matched: Vec::new(),
                why: Why::Unknown,
                history_demoted: false,
                value: v.clone(),
                bytes: json_len(v),
                unknown: Vec::new(),
            };
        };
        let b = o
            .get("score_breakdown")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let s = o
            .get("semantic_evidence")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let name = o
            .get("name")
            .or_else(|| o.get("tool").filter(|t| t.is_string()))
            .map(value_text)
            .unwrap_or_default();
        let badge = |k: &str| flag(s.get(k)).or_else(|| flag(b.get(k)));
        let chips = [
            num(b.get("seed")),
            num(b.get("graph")),
            num(b.get("learning")),
        ];
        let edge = o
            .get("edge_evidence")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
            .and_then(Value::as_object);
        let why = if let Some(from) = o.get("expanded_from").and_then(Value::as_str) {
            Why::Expanded {
                from: from.to_string(),
                relation: edge
                    .and_then(|e| e.get("relation"))
                    .map(value_text)
                    .filter(|r| !r.is_empty())
                    .unwrap_or_else(|| "(none)".into()),
                confidence: edge
                    .and_then(|e| e.get("confidence"))
                    .filter(|c| !c.is_null())
                    .map(value_text),
            }
        } else if chips[0].is_some_and(|x| x > 0.0) {
            Why::Seed(seeds.iter().position(|n| *n == name).map(|p| p + 1))
        } else if flag(b.get("graph_expansion")) == Some(true) || chips[1].is_some_and(|x| x > 0.0)
        {
            Why::Graph
        } else if chips[2].is_some_and(|x| x > 0.0) {
            Why::Learning
        } else if seeds.contains(&name) {
            Why::Seed(seeds.iter().position(|n| *n == name).map(|p| p + 1))
        } else {
            Why::Unknown
        };
        let mut unknown = Vec::new();
        unknown_in(Some(v), ROW_KNOWN, "", &mut unknown);
        unknown_in(
            o.get("score_breakdown"),
            BREAKDOWN_KNOWN,
            "score_breakdown.",
            &mut unknown,
        );
        unknown_in(
            o.get("semantic_evidence"),
            SEMANTIC_KNOWN,
            "semantic_evidence.",
            &mut unknown,
        );
        unknown_in(
            o.get("learning_evidence"),
            LEARNING_KNOWN,
            "learning_evidence.",
            &mut unknown,
        );
        if let Some(Value::Array(edges)) = o.get("edge_evidence") {
            for (j, e) in edges.iter().enumerate() {
                unknown_in(
                    Some(e),
                    EDGE_KNOWN,
                    &format!("edge_evidence[{j}]."),
                    &mut unknown,
                );
            }
        }
        EvRow {
            name,
            rank: o
                .get("rank")
                .and_then(Value::as_u64)
                .map(|r| r as usize)
                .unwrap_or(i + 1),
            score: num(o.get("score")),
            chips,
            badges: [
                badge("action_match"),
                badge("resource_match"),
                badge("module_match"),
                badge("shape_match"),
                badge("contract_match"),
            ],
            matched: strings(s.get("matched_terms")),
            summary_matched: strings(s.get("summary_matched_terms")),
            why,
            history_demoted: flag(b.get("history_demoted")).unwrap_or(false),
            value: v.clone(),
            bytes: json_len(v),
            unknown,
        }
    }
}

impl EvRecord {
    /// Reads one record; `Ok(None)` when the value is not a response, selector block or
    /// fixture, `Err` when it is one with a malformed field.
    pub fn from_value(
        v: &Value,
        origin: &str,
        fallback_id: &str,
    ) -> Result<Option<EvRecord>, Malformed> {
        let Some(compact) = RunRecord::parse(v, fallback_id)? else {
            return Ok(None);
        };
        // a trace envelope is read in the shape of a response (its JSON view stays the
        // envelope as recorded)
        let original = v;
        let normalised = crate::lab::record::envelope_as_response(v);
        let v = normalised.as_ref().unwrap_or(v);
        let Some(o) = v.as_object() else {
            return Ok(None);
        };
        let expected_ret = o
            .get("expected")
            .and_then(|e| e.get("retrieval"))
            .filter(|r| r.is_object());
        let retrieval = o
            .get("retrieval")
            .filter(|r| r.is_object())
            .or(expected_ret);
        let rows_v = o
            .get("ranking")
            .filter(|r| r.is_array())
            .or_else(|| o.get("actual_top_3").filter(|r| r.is_array()))
            .or_else(|| retrieval.and_then(|r| r.get("results")))
            .or_else(|| o.get("results"));
        let stats = retrieval
            .and_then(|r| r.get("stats"))
            .or_else(|| o.get("stats"));
        let seeds = strings(stats.and_then(|s| s.get("seeds")));
        let rows: Vec<EvRow> = match rows_v {
            Some(Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(i, r)| EvRow::from_value(r, i, &seeds))
                .collect(),
            _ => Vec::new(),
        };
        let selector = o
            .get("target_selector")
            .or_else(|| o.get("selection"))
            .or_else(|| o.get("expected").and_then(|e| e.get("selection")))
            .filter(|s| s.is_object())
            .cloned()
            .or_else(|| o.contains_key("selected_target").then(|| v.clone()));
        let mut rows = rows;
        if rows.is_empty()
            && let Some(Value::Array(sig)) = selector.as_ref().and_then(|s| s.get("rank_signals"))
        {
            // a selector block alone: its candidates, with their retrieval scores
            rows = sig
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let mut r = EvRow::from_value(
                        &Value::Object(Map::from_iter(["name", "score"].iter().filter_map(|k| {
                            let src = if *k == "score" { "retrieval_score" } else { k };
                            c.get(src).map(|v| (k.to_string(), v.clone()))
                        }))),
                        i,
                        &[],
                    );
                    r.rank = c
                        .get("original_rank")
                        .and_then(Value::as_u64)
                        .map(|x| x as usize)
                        .unwrap_or(i + 1);
                    r.why = Why::Rank(r.rank);
                    r.value = c.clone();
                    r.bytes = json_len(c);
                    r
                })
                .collect();
            rows.sort_by_key(|r| r.rank);
        }
        let kind = if normalised.is_some() {
            "trace envelope"
        } else if o.contains_key("case_id")
            || o.contains_key("actual_top_3")
            || o.contains_key("ranking")
        {
            "fixture"
        } else if o.contains_key("retrieval") {
            "batch line"
        } else if o.contains_key("results") {
            "response"
        } else if expected_ret.is_some() {
            "golden case"
        } else if o.contains_key("selected_target") {
            "selector block"
        } else {
            "record"
        };
        let mut unknown = Vec::new();
        if kind == "selector block" {
            unknown_in(Some(v), SELECTOR_KNOWN, "", &mut unknown);
        } else {
            unknown_in(Some(v), TOP_KNOWN, "", &mut unknown);
            for (key, sel) in [
                ("target_selector", o.get("target_selector")),
                ("selection", o.get("selection")),
            ] {
                unknown_in(sel, SELECTOR_KNOWN, &format!("{key}."), &mut unknown);
            }
        }
        if let Some(r) = o.get("retrieval") {
            unknown_in(Some(r), RETRIEVAL_KNOWN, "retrieval.", &mut unknown);
        }
        let pre = if o.contains_key("retrieval") {
            "retrieval."
        } else {
            ""
        };
        unknown_in(stats, STATS_KNOWN, &format!("{pre}stats."), &mut unknown);
        unknown_in(
            retrieval
                .and_then(|r| r.get("intent"))
                .or_else(|| o.get("intent")),
            INTENT_KNOWN,
            &format!("{pre}intent."),
            &mut unknown,
        );
        unknown_in(
            o.get("provenance"),
            PROVENANCE_KNOWN,
            "provenance.",
            &mut unknown,
        );
        Ok(Some(EvRecord {
            id: compact.id.clone(),
            kind,
            origin: origin.to_string(),
            query: compact.query.clone(),
            rows,
            selector,
            seeds,
            unknown,
            value: original.clone(),
            bytes: json_len(original),
            compact,
        }))
    }

    /// Unknown keys of the record and of its rows.
    pub fn unknown_count(&self) -> usize {
        self.unknown.len() + self.rows.iter().map(|r| r.unknown.len()).sum::<usize>()
    }

    pub fn selected_target(&self) -> Option<&str> {
        self.selector
            .as_ref()
            .and_then(|s| s.get("selected_target"))
            .and_then(Value::as_str)
    }

    pub fn llm_target(&self) -> Option<&str> {
        self.selector
            .as_ref()
            .and_then(|s| s.get("llm_target"))
            .and_then(Value::as_str)
    }
}

/// Reads every record of a file (one JSON value, a list, or JSON Lines) or of a fixture
/// folder (`*.json` and `*.jsonl`, `manifest.json` aside) with the one evidence walk
/// ([`crate::lab::record::walk`]). Unreadable parts and malformed records are reported in
/// `errors`; the rest is read. Fails only when the path cannot be read at all.
pub fn read_set(path: &Path) -> Result<EvSet, String> {
    let label = path
        .file_name()
        .map(|f| crate::sanitize::line(&f.to_string_lossy()))
        .unwrap_or_else(|| crate::sanitize::path(path));
    let mut set = EvSet {
        label,
        ..EvSet::default()
    };
    let mut records = Vec::new();
    let errors = crate::lab::record::walk(path, &mut |v, o| match EvRecord::from_value(
        v,
        &o.label,
        &o.fallback_id,
    ) {
        Ok(Some(r)) => {
            records.push(r);
            Ok(())
        }
        Ok(None) => Err(o.error("", crate::lab::record::NOT_A_RECORD.into())),
        Err(m) => Err(o.error(&m.pointer, m.message)),
    })
    .map_err(|e| e.to_string())?;
    set.records = records;
    set.errors = errors.iter().map(|e| e.to_string()).collect();
    Ok(set)
}

/// Which screen a file belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A tool graph or collection artifact (or anything else: the loader says what is wrong).
    Graph,
    /// An OpenAPI/Swagger spec or an MCP/function tool list: built into a graph on load.
    Spec,
    /// A response, selector block, fixture, batch output, golden cases, or a fixture folder.
    Evidence,
    /// A suite of labelled queries without results (it needs a graph: `--cases`).
    Suite,
    /// Learning suggestions (they apply to a graph: `--learning`).
    Learning,
}

/// Classifies a path with the one sniffer ([`crate::sniff`]); unreadable paths are left to
/// the graph loader, whose error names the file.
pub fn detect(path: &Path) -> FileKind {
    crate::sniff::sniff_path(path).map_or(FileKind::Graph, of_kind)
}

/// The screen for a sniffed kind.
pub fn of_kind(k: crate::sniff::Kind) -> FileKind {
    use crate::sniff::Kind;
    match k {
        Kind::Evidence => FileKind::Evidence,
        Kind::Spec | Kind::ToolList | Kind::Yaml => FileKind::Spec,
        Kind::Suite => FileKind::Suite,
        Kind::Learning => FileKind::Learning,
        Kind::Graph | Kind::Unknown => FileKind::Graph,
    }
}

/// The screen for a document's text.
pub fn classify(text: &str) -> FileKind {
    of_kind(crate::sniff::sniff(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_by_content() {
        assert_eq!(
            classify(r#"{"format_version": "1", "graph": {}, "tools": {}}"#),
            FileKind::Graph
        );
        assert_eq!(
            classify(r#"{"results": [], "stats": {}}"#),
            FileKind::Evidence
        );
        assert_eq!(
            classify(r#"{"id": "1", "retrieval": {}, "selection": null}"#),
            FileKind::Evidence
        );
        assert_eq!(
            classify(r#"{"case_id": "c", "query": "q", "actual_top_3": []}"#),
            FileKind::Evidence
        );
        assert_eq!(
            classify(r#"{"selected_target": "x", "reason_codes": []}"#),
            FileKind::Evidence
        );
        assert_eq!(
            classify(r#"{"id": "g", "graph": "demo", "query": "q", "expected": {}}"#),
            FileKind::Evidence
        );
        assert_eq!(
            classify(r#"{"openapi": "3.0.0", "paths": {}}"#),
            FileKind::Spec
        );
        assert_eq!(classify("openapi: 3.0.0\ninfo:\n"), FileKind::Spec);
        assert_eq!(
            classify(r#"{"queries": [{"query": "q", "expected_tools": []}]}"#),
            FileKind::Suite
        );
        assert_eq!(classify("garbage"), FileKind::Graph);
    }

    #[test]
    fn unknown_keys_are_kept() {
        let v: Value = serde_json::from_str(
            r#"{"results": [{"name": "a", "score": 1.0, "novel": 3,
                "score_breakdown": {"seed": 1.0, "graph": 0.0, "learning": 0.0, "new_signal": 0.5},
                "semantic_evidence": {"action_match": true, "matched_terms": ["x"]},
                "edge_evidence": [{"source": "s", "target": "a", "weight": 2}]}],
                "stats": {"seeds": ["a"], "gpu": true}, "engine_rev": "9"}"#,
        )
        .unwrap();
        let r = EvRecord::from_value(&v, "f.json", "f").unwrap().unwrap();
        assert_eq!(r.kind, "response");
        let keys: Vec<&str> = r.unknown.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["engine_rev", "stats.gpu"]);
        let rk: Vec<&str> = r.rows[0].unknown.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            rk,
            [
                "novel",
                "score_breakdown.new_signal",
                "edge_evidence[0].weight"
            ]
        );
        assert_eq!(r.rows[0].why, Why::Seed(Some(1)));
        assert_eq!(r.rows[0].badges[0], Some(true));
        assert_eq!(r.unknown_count(), 5);
    }
}
