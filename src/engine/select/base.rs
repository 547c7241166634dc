//! Per-candidate base score of the selector (spec §5.3).

use serde_json::Value;

use super::priority::{self, Priority, norm_priority};
use super::terms::{Terms, has, identifier_present, intersects, st, st_into};
use super::{Candidate, EvidenceExtra, EvidenceItem, STRONG_SCORE};
use crate::engine::learning::LearningSignal;
use crate::engine::lexicon::*;
use crate::model::tool::opt_str;
use crate::model::{Graph, Tool, ToolId};
use crate::pytext::{self, round};

/// Query-side analysis shared by every candidate.
pub struct QueryAnalysis {
    pub query: String,
    pub qt: Terms,
    pub ap: Priority,
    pub sp: Priority,
    pub detail_query: bool,
    pub identifier_query: bool,
}

impl QueryAnalysis {
    pub fn new(query: &str) -> QueryAnalysis {
        let qt = st(query);
        let ap = priority::action_priority(query, &qt);
        let sp = priority::shape_priority(query, &qt);
        QueryAnalysis {
            detail_query: has(&qt, SEL_DETAIL_READ),
            identifier_query: identifier_present(&qt),
            query: query.to_string(),
            qt,
            ap,
            sp,
        }
    }
}

fn facet(v: &Option<Value>) -> String {
    pytext::lower(pytext::strip(&opt_str(v)))
}

/// Tool facets the selector reads.
#[derive(Debug, Clone)]
pub struct ToolView {
    pub action: String,
    pub resource: String,
    pub declared_shape: String,
    pub module: String,
    pub operation_id_raw: String,
    pub summary: String,
    pub path: String,
}

impl ToolView {
    pub fn new(tool: &Tool) -> ToolView {
        let f = &tool.facts;
        let (action, resource, declared_shape) = match &f.ai {
            Some(ai) => (
                facet(&ai.canonical_action),
                facet(&ai.primary_resource),
                facet(&ai.result_shape),
            ),
            None => Default::default(),
        };
        let (module, op, oa_summary, oa_path) = match &f.openapi {
            Some(oa) => (
                facet(&oa.path_module),
                opt_str(&oa.operation_id),
                opt_str(&oa.summary),
                opt_str(&oa.path),
            ),
            None => Default::default(),
        };
        let summary = if !oa_summary.is_empty() {
            oa_summary
        } else {
            tool.description.clone()
        };
        let meta_path = f
            .path
            .as_ref()
            .filter(|v| pytext::truthy(v))
            .map(pytext::py_str)
            .unwrap_or_default();
        let path = if !meta_path.is_empty() {
            meta_path
        } else {
            oa_path
        };
        ToolView {
            action,
            resource,
            declared_shape,
            module,
            operation_id_raw: op,
            summary,
            path,
        }
    }
}

/// Selector terms of every contract row's field_name, semantic_tag, description, json_path.
pub fn contract_terms<'a>(rows: impl Iterator<Item = &'a Value>) -> Terms {
    let mut out = Terms::new();
    for row in rows {
        let Some(o) = row.as_object() else { continue };
        for k in ["field_name", "semantic_tag", "description", "json_path"] {
            if let Some(v) = o.get(k)
                && pytext::truthy(v)
            {
                st_into(&pytext::py_str(v), &mut out);
            }
        }
    }
    out
}

fn item(source: &'static str, extra: EvidenceExtra, score: f64) -> EvidenceItem {
    EvidenceItem {
        source,
        extra,
        score: round(score, 6),
    }
}

fn sorted12(t: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut v: Vec<String> = t.into_iter().collect();
    v.sort();
    v.truncate(12);
    v
}

const STRONG_SOURCES: &[&str] = &[
    "surface_terms",
    "detail_surface",
    "api_contract",
    "result_shape",
    "inferred_result_shape",
    "identifier_detail_contract",
    "identifier_detail_surface",
];

/// The query-independent part of a candidate: computed once per tool and cached.
#[derive(Debug, Clone)]
pub struct BaseFacts {
    pub view: ToolView,
    pub surface: Terms,
    pub declared: String,
    pub eff_shape: String,
    pub inferred: bool,
    pub contract: Terms,
}

impl BaseFacts {
    pub fn new(graph: &Graph, tool_id: ToolId, name: &str) -> BaseFacts {
        let tool = graph.tool(tool_id);
        let v = ToolView::new(tool);
        let operation_id = if v.operation_id_raw.is_empty() {
            name.to_string()
        } else {
            v.operation_id_raw.clone()
        };
        let surface = st(&[
            name,
            operation_id.as_str(),
            v.summary.as_str(),
            v.path.as_str(),
            v.resource.as_str(),
            v.module.as_str(),
        ]
        .join(" "));
        let declared = v.declared_shape.clone();
        let (eff_shape, inferred) = if !declared.is_empty() {
            (declared.clone(), false)
        } else {
            let s = if has(&surface, SEL_COUNT) {
                "count"
            } else if has(&surface, SEL_LIST) {
                "list"
            } else if matches!(v.action.as_str(), "create" | "update" | "delete" | "action") {
                "mutation"
            } else if has(&surface, SEL_DETAIL_READ)
                || has(&surface, SEL_SINGLE)
                || v.action == "read"
            {
                "single"
            } else if v.action == "search" {
                "list"
            } else {
                ""
            };
            (s.to_string(), true)
        };
        let contract = contract_terms(tool.facts.contract_rows().iter());
        BaseFacts {
            view: v,
            surface,
            declared,
            eff_shape,
            inferred,
            contract,
        }
    }
}

/// Scores one candidate for the query: its evidence items in the reference's order
/// (retrieval, priorities, surface, contract), their clamped rounded sum, and whether
/// the evidence is strong.
pub fn score_candidate(
    facts: &BaseFacts,
    tool_id: ToolId,
    name: &str,
    signal: Option<(usize, f64)>,
    learning: Option<&LearningSignal>,
    qa: &QueryAnalysis,
) -> Candidate {
    let v = &facts.view;
    let surface = &facts.surface;
    let declared = facts.declared.clone();
    let (eff_shape, inferred) = (facts.eff_shape.clone(), facts.inferred);
    let contract = &facts.contract;

    let mut ev: Vec<EvidenceItem> = Vec::new();
    let (rank, rscore) = match signal {
        Some((r, s)) => (Some(r), s),
        None => (None, 0.0),
    };
    retrieval_evidence(&mut ev, rank, rscore, learning);
    priority_evidence(&mut ev, qa, &v.action, &eff_shape, inferred);
    surface_evidence(&mut ev, qa, surface);
    contract_evidence(&mut ev, qa, surface, contract);
    let score = round(evidence_total(&ev).clamp(0.0, 1.0), 6);
    let strong = score >= STRONG_SCORE && ev.iter().any(|e| STRONG_SOURCES.contains(&e.source));
    Candidate {
        name: name.to_string(),
        tool: tool_id,
        selector_score: score,
        original_rank: rank,
        retrieval_score: rscore,
        canonical_action: v.action.clone(),
        primary_resource: v.resource.clone(),
        path_module: v.module.clone(),
        result_shape: eff_shape,
        declared_result_shape: if declared.is_empty() {
            None
        } else {
            Some(declared)
        },
        strong_evidence: strong,
        evidence: ev,
        base_selector_score: score,
        contrastive_score: 0.0,
        contrastive_evidence: Vec::new(),
        selected: false,
        llm_target: false,
        operation_id: v.operation_id_raw.clone(),
        summary: v.summary.clone(),
    }
}

/// Evidence from retrieval: the rank (decaying with it), the retrieval score and a
/// positive learning signal, each capped.
fn retrieval_evidence(
    ev: &mut Vec<EvidenceItem>,
    rank: Option<usize>,
    rscore: f64,
    learning: Option<&LearningSignal>,
) {
    if let Some(r) = rank {
        let s = f64::max(0.0, 0.22 - ((r - 1).min(10)) as f64 * 0.015);
        ev.push(item(
            "retrieval_rank",
            EvidenceExtra::Value(Value::from(r as i64)),
            s,
        ));
    }
    if rscore > 0.0 {
        ev.push(item(
            "retrieval_score",
            EvidenceExtra::Value(float_value(rscore)),
            f64::min(0.08, rscore),
        ));
    }
    if let Some(l) = learning
        && l.score > 0.0
    {
        ev.push(item(
            "learning",
            EvidenceExtra::Learning {
                suggestion_id: l.suggestion_id.clone(),
                suggestion_type: l.suggestion_type.clone(),
                status: l.status.clone(),
                observations: l.observations,
            },
            f64::min(0.06, l.score),
        ));
    }
}

/// Evidence from the query's priorities: the tool's canonical action and (declared or
/// inferred) result shape, rewarded when preferred and penalised when they differ.
fn priority_evidence(
    ev: &mut Vec<EvidenceItem>,
    qa: &QueryAnalysis,
    action: &str,
    eff_shape: &str,
    inferred: bool,
) {
    let np = norm_priority(&qa.ap, action);
    if np >= 0.5 {
        ev.push(item(
            "canonical_action",
            EvidenceExtra::Value(Value::from(action)),
            0.2 * np,
        ));
    } else if !qa.ap.is_empty() && !action.is_empty() {
        ev.push(item(
            "action_mismatch",
            EvidenceExtra::Value(Value::from(action)),
            -0.18,
        ));
    }
    let sp = norm_priority(&qa.sp, eff_shape);
    if sp >= 0.5 {
        let src = if inferred {
            "inferred_result_shape"
        } else {
            "result_shape"
        };
        ev.push(item(
            src,
            EvidenceExtra::Value(Value::from(eff_shape)),
            0.18 * sp,
        ));
    } else if !qa.sp.is_empty() && !eff_shape.is_empty() {
        ev.push(item(
            "result_shape_mismatch",
            EvidenceExtra::Value(Value::from(eff_shape)),
            -0.14,
        ));
    }
}

/// Evidence from the tool's surface terms: the query terms it shares, and for a detail
/// query a detail surface (or a penalty for a general one).
fn surface_evidence(ev: &mut Vec<EvidenceItem>, qa: &QueryAnalysis, surface: &Terms) {
    let surface_hits: Vec<String> = qa.qt.intersection(surface).cloned().collect();
    if !surface_hits.is_empty() {
        let n = surface_hits.len();
        ev.push(item(
            "surface_terms",
            EvidenceExtra::MatchedTerms(sorted12(surface_hits)),
            f64::min(0.18, 0.04 * n as f64),
        ));
    }
    if qa.detail_query && intersects(surface, SEL_DETAIL_READ) {
        ev.push(item(
            "detail_surface",
            EvidenceExtra::Value(Value::from("detail")),
            0.14,
        ));
    } else if qa.detail_query && intersects(surface, SEL_GENERAL_SURFACE) {
        ev.push(item(
            "general_surface_penalty",
            EvidenceExtra::Value(Value::from("general")),
            -0.06,
        ));
    }
}

/// Evidence from the API contract: for a detail query naming an identifier, identifier
/// contract fields (or an identifier detail surface); then the query terms the contract
/// shares.
fn contract_evidence(
    ev: &mut Vec<EvidenceItem>,
    qa: &QueryAnalysis,
    surface: &Terms,
    contract: &Terms,
) {
    let contract_hits: Vec<String> = qa.qt.intersection(contract).cloned().collect();
    if qa.detail_query && qa.identifier_query {
        let mut c: Terms = contract_hits.iter().cloned().collect();
        for t in contract {
            if SEL_IDENTIFIER.iter().any(|i| t.contains(i)) {
                c.insert(t.clone());
            }
        }
        if !c.is_empty() {
            let n = c.len();
            ev.push(item(
                "identifier_detail_contract",
                EvidenceExtra::MatchedTerms(sorted12(c)),
                f64::min(0.16, 0.08 + 0.02 * n as f64),
            ));
        } else if has(surface, SEL_IDENTIFIER) && intersects(surface, SEL_DETAIL_READ) {
            ev.push(item(
                "identifier_detail_surface",
                EvidenceExtra::Value(Value::from("identifier")),
                0.08,
            ));
        }
    }
    if !contract_hits.is_empty() {
        let n = contract_hits.len();
        ev.push(item(
            "api_contract",
            EvidenceExtra::MatchedTerms(sorted12(contract_hits)),
            f64::min(0.12, 0.035 * n as f64),
        ));
    }
}

/// The evidence scores summed left to right, in evidence order (before clamping).
fn evidence_total(ev: &[EvidenceItem]) -> f64 {
    let mut total = 0.0;
    for e in ev {
        total += e.score;
    }
    total
}

fn float_value(x: f64) -> Value {
    serde_json::Number::from_f64(x)
        .map(Value::Number)
        .unwrap_or(Value::Null)
}
