//! `--json` serialisation of retrievals and selections with exactly the reference's keys,
//! key order and number forms (spec §4, §5.7).

use super::row::{Part, RowView};
use crate::engine::select::{
    Candidate, EvidenceExtra, EvidenceItem, OverrideAssessment, Selection,
};
use crate::engine::{Engine, Retrieval};
use crate::jsonout::JsonWriter;
use crate::pytext::round;

/// A score breakdown (or part of one, [`RowView::score_parts`]) as a JSON object.
pub fn write_parts(parts: &[(&str, Part)], w: &mut JsonWriter) {
    w.begin_obj();
    for (k, v) in parts {
        w.key(k);
        match v {
            Part::Num(x) => w.f64(*x),
            Part::Flag(b) => w.bool(*b),
        };
    }
    w.end_obj();
}

pub fn write_retrieval(engine: &Engine, r: &Retrieval, w: &mut JsonWriter) {
    w.begin_obj();
    w.key("results").begin_arr();
    for v in RowView::all(engine, &r.rows) {
        write_row(&v, w);
    }
    w.end_arr();
    w.key("subgraph_text").str(&r.subgraph_text);
    w.key("intent").begin_obj();
    w.key("dominant").str(r.intent_label.as_str());
    w.key("read").f64(round(r.intent.read, 3));
    w.key("write").f64(round(r.intent.write, 3));
    w.key("delete").f64(round(r.intent.delete, 3));
    w.end_obj();
    w.key("stats").begin_obj();
    w.key("seeds").str_list(&r.stats.seeds);
    w.key("visited_nodes").int(r.stats.visited_nodes as i64);
    w.key("visited_edges").int(r.stats.visited_edges as i64);
    w.key("token_budget_used")
        .int(r.stats.token_budget_used as i64);
    w.key("learning_applied").bool(r.stats.learning_applied);
    w.end_obj();
    w.end_obj();
}

/// One result row as the reference writes it.
pub fn write_row(v: &RowView, w: &mut JsonWriter) {
    let (g, row) = (&v.engine.graph, v.row);
    let s = &row.semantic;
    w.begin_obj();
    w.key("name").str(v.name);
    w.key("score").f64(v.rounded);
    w.key("tool").raw_compact(g.tool(row.tool).compact_json());
    w.key("score_breakdown");
    write_parts(&v.breakdown(), w);
    w.key("semantic_evidence").begin_obj();
    w.key("canonical_action").str(&s.canonical_action);
    w.key("primary_resource").str(&s.primary_resource);
    w.key("result_shape").str(&s.result_shape);
    w.key("path_module").str(&s.path_module);
    w.key("query_action").str(s.query_action);
    w.key("query_result_shape").str(s.query_result_shape);
    w.key("action_match").bool(s.action_match);
    w.key("resource_match").bool(s.resource_match);
    w.key("module_match").bool(s.module_match);
    w.key("shape_match").bool(s.shape_match);
    w.key("contract_match").bool(s.contract_match);
    w.key("summary_match")
        .bool(!s.summary_matched_terms.is_empty());
    w.key("summary_match_count")
        .int(s.summary_matched_terms.len() as i64);
    w.key("summary_matched_terms")
        .str_list(&s.summary_matched_terms);
    w.key("summary_specificity").f64(s.summary_specificity);
    w.key("matched_terms").str_list(&s.matched_terms);
    w.end_obj();
    if let Some(l) = &row.learning {
        w.key("learning_evidence").begin_obj();
        w.key("source").str("learning");
        w.key("target").str(&l.target);
        w.key("suggestion_id").value(&l.suggestion_id);
        w.key("suggestion_type").value(&l.suggestion_type);
        w.key("status").value(&l.status);
        w.key("observations").int(l.observations);
        w.key("score").f64(l.score);
        w.end_obj();
    }
    if let Some(from) = v.expanded_from() {
        w.key("expanded_from").str(from);
    }
    w.key("edge_evidence").begin_arr();
    if let Some(e) = row.edge() {
        let edge = g.edge(e);
        let a = &edge.attrs;
        w.begin_obj();
        w.key("source").str(g.node_name(edge.source));
        w.key("target").str(g.node_name(edge.target));
        w.key("relation");
        match &a.relation {
            Some(v) if !v.is_null() => w.value(v),
            _ => w.str(""),
        };
        w.key("confidence");
        match &a.confidence {
            Some(v) => w.value(v),
            None => w.null(),
        };
        w.key("conf_score");
        match &a.conf_score {
            Some(v) => w.value(v),
            None => w.null(),
        };
        w.key("evidence");
        match &a.evidence {
            Some(v) if !v.is_null() => w.value(v),
            _ => w.str(""),
        };
        w.end_obj();
    }
    w.end_arr();
    w.end_obj();
}

pub fn write_evidence_item(e: &EvidenceItem, w: &mut JsonWriter) {
    w.begin_obj();
    w.key("source").str(e.source);
    match &e.extra {
        EvidenceExtra::None => {}
        EvidenceExtra::Value(v) => {
            w.key("value").value(v);
        }
        EvidenceExtra::MatchedTerms(t) => {
            w.key("matched_terms").str_list(t);
        }
        EvidenceExtra::Terms(t) => {
            w.key("terms").str_list(t);
        }
        EvidenceExtra::Learning {
            suggestion_id,
            suggestion_type,
            status,
            observations,
        } => {
            w.key("suggestion_id").value(suggestion_id);
            w.key("suggestion_type").value(suggestion_type);
            w.key("status").value(status);
            w.key("observations").int(*observations);
        }
        EvidenceExtra::Scope {
            value,
            query_scope,
            candidate_scope,
        } => {
            w.key("value").str(value);
            w.key("query_scope").str(query_scope);
            w.key("candidate_scope").str(candidate_scope);
        }
    }
    w.key("score").f64(e.score);
    w.end_obj();
}

fn write_evidence_list(items: &[EvidenceItem], w: &mut JsonWriter) {
    w.begin_arr();
    for e in items {
        write_evidence_item(e, w);
    }
    w.end_arr();
}

fn write_candidate(c: &Candidate, w: &mut JsonWriter) {
    w.begin_obj();
    w.key("name").str(&c.name);
    w.key("selector_score").f64(c.selector_score);
    w.key("original_rank");
    match c.original_rank {
        Some(r) => w.int(r as i64),
        None => w.null(),
    };
    w.key("retrieval_score").f64(c.retrieval_score);
    w.key("canonical_action").str(&c.canonical_action);
    w.key("primary_resource").str(&c.primary_resource);
    w.key("path_module").str(&c.path_module);
    w.key("result_shape").str(&c.result_shape);
    w.key("declared_result_shape")
        .opt_str(c.declared_result_shape.as_deref());
    w.key("strong_evidence").bool(c.strong_evidence);
    w.key("evidence");
    write_evidence_list(&c.evidence, w);
    w.key("base_selector_score").f64(c.base_selector_score);
    w.key("contrastive_score").f64(c.contrastive_score);
    w.key("contrastive_evidence");
    write_evidence_list(&c.contrastive_evidence, w);
    w.key("selected").bool(c.selected);
    w.key("llm_target").bool(c.llm_target);
    w.end_obj();
}

fn write_priority(p: &[(&'static str, i64)], w: &mut JsonWriter) {
    w.begin_obj();
    for (k, v) in p {
        w.key(k).int(*v);
    }
    w.end_obj();
}

fn write_assessment(a: &OverrideAssessment, w: &mut JsonWriter, no_candidates: bool) {
    w.begin_obj();
    w.key("evaluated").bool(a.evaluated);
    w.key("allowed").bool(a.allowed);
    w.key("risk_level").str(a.risk_level);
    w.key("supporting_sources").str_list(&a.supporting_sources);
    w.key("contradicting_sources")
        .str_list(&a.contradicting_sources);
    w.key("reason_codes").str_list(&a.reason_codes);
    if !no_candidates {
        w.key("needs_expansion").bool(a.needs_expansion);
        if a.evaluated {
            w.key("winner").opt_str(a.winner.as_deref());
            w.key("llm_target").opt_str(a.llm_target.as_deref());
        }
        w.key("winner_margin").opt_f64(a.winner_margin);
        w.key("llm_margin").opt_f64(a.llm_margin);
    }
    w.end_obj();
}

fn write_facets(s: &Selection, w: &mut JsonWriter) {
    let f = &s.query_facets;
    w.begin_obj();
    w.key("canonical_action").str(&f.canonical_action);
    w.key("result_shape").str(&f.result_shape);
    w.key("identifier_present").bool(f.identifier_present);
    w.key("content_term_count").int(f.content_term_count as i64);
    w.key("scope").str(&f.scope);
    w.end_obj();
}

fn write_why(s: &Selection, w: &mut JsonWriter) {
    let ws = &s.why_selected;
    w.key("why_selected").begin_obj();
    w.key("name").str(&ws.name);
    w.key("reason_codes").str_list(&ws.reason_codes);
    w.key("evidence_sources").str_list(&ws.evidence_sources);
    w.key("selector_score").f64(ws.selector_score);
    w.end_obj();
    w.key("why_rejected").begin_arr();
    for r in &s.why_rejected {
        w.begin_obj();
        w.key("name").str(&r.name);
        w.key("reason_codes").str_list(&r.reason_codes);
        w.key("evidence_sources").str_list(&r.evidence_sources);
        w.key("score_delta").f64(r.score_delta);
        w.end_obj();
    }
    w.end_arr();
}

fn write_rows(s: &Selection, w: &mut JsonWriter) {
    w.key("rank_signals").begin_arr();
    for c in &s.rows {
        write_candidate(c, w);
    }
    w.end_arr();
    w.key("candidate_evidence").begin_arr();
    for c in &s.rows {
        w.begin_obj();
        w.key("name").str(&c.name);
        w.key("selector_score").f64(c.selector_score);
        w.key("evidence");
        write_evidence_list(&c.evidence, w);
        w.end_obj();
    }
    w.end_arr();
}

pub fn write_selection(s: &Selection, w: &mut JsonWriter) {
    w.begin_obj();
    w.key("selected_target").str(&s.selected_target);
    if !s.no_candidates {
        w.key("llm_target").opt_str(s.llm_target.as_deref());
    }
    w.key("confidence").f64(s.confidence);
    write_verdict(s, w);
    w.key("ambiguity_set").str_list(&s.ambiguity_set);
    write_why(s, w);
    w.key("query_facets");
    write_facets(s, w);
    if s.no_candidates {
        write_rows(s, w);
        w.key("llm_target").opt_str(s.llm_target.as_deref());
        w.key("policy").str(s.policy.as_str());
        w.key("policy_revision")
            .str(crate::engine::select::POLICY_REVISION);
        w.key("sibling_comparison_applied").bool(false);
        w.key("override_assessment");
        write_assessment(&s.override_assessment, w, true);
        w.end_obj();
        return;
    }
    w.key("margin").f64(s.margin);
    w.key("llm_margin").opt_f64(s.llm_margin);
    w.key("policy").str(s.policy.as_str());
    w.key("policy_revision")
        .str(crate::engine::select::POLICY_REVISION);
    w.key("override_assessment");
    write_assessment(&s.override_assessment, w, false);
    write_rows(s, w);
    w.key("target_action_priority");
    write_priority(&s.target_action_priority, w);
    w.key("result_shape_priority");
    write_priority(&s.result_shape_priority, w);
    w.key("learning_applied").bool(s.learning_applied);
    w.key("sibling_comparison_applied")
        .bool(s.sibling_comparison_applied);
    w.end_obj();
}

/// The verdict's flags, decision and reason codes, in the order both selection shapes
/// write them.
fn write_verdict(s: &Selection, w: &mut JsonWriter) {
    w.key("overrode_llm").bool(s.overrode_llm);
    w.key("ambiguous").bool(s.ambiguous);
    w.key("needs_expansion").bool(s.needs_expansion);
    w.key("decision").str(s.decision);
    w.key("recommended_action").str(s.recommended_action);
    w.key("reason_codes").str_list(&s.reason_codes);
}

/// The selector's verdict alone — [`write_selection`]'s scalar keys, its reason codes and
/// its override assessment, written the same way — without the candidate rows, facets
/// and priorities: what a replay compares, at a fraction of the text.
pub fn selection_verdict_json(s: &Selection) -> String {
    let mut w = JsonWriter::with_capacity(512);
    w.begin_obj();
    w.key("selected_target").str(&s.selected_target);
    w.key("llm_target").opt_str(s.llm_target.as_deref());
    write_verdict(s, &mut w);
    if !s.no_candidates {
        w.key("margin").f64(s.margin);
    }
    w.key("policy").str(s.policy.as_str());
    w.key("override_assessment");
    write_assessment(&s.override_assessment, &mut w, s.no_candidates);
    w.end_obj();
    w.finish()
}

pub fn retrieval_json(engine: &Engine, r: &Retrieval) -> String {
    // the tool objects dominate; size the buffer once
    let tools: usize = r
        .rows
        .iter()
        .map(|row| engine.graph.tool(row.tool).compact_json().len())
        .sum();
    let mut w =
        JsonWriter::with_capacity(tools + 2048 * (r.rows.len() + 1) + r.subgraph_text.len());
    write_retrieval(engine, r, &mut w);
    w.finish()
}

pub fn selection_json(s: &Selection) -> String {
    let mut w = JsonWriter::with_capacity(4096);
    write_selection(s, &mut w);
    w.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::knobs::Knobs;
    use serde_json::Value;

    /// The verdict is the full selection's same keys with the same values, for selections
    /// with and without candidates, with and without a model pick.
    #[test]
    fn the_verdict_is_the_selections_own_keys() {
        let engine = Engine::new(crate::demo::load_demo().expect("demo graph"));
        let mut seen_empty = false;
        for (q, llm) in [
            ("cancel my order", None),
            ("refund a payment", Some("listOrders")),
            ("zzzz qqqq", None),
            ("zzzz qqqq", Some("listOrders")),
            ("show the weather", Some("noSuchTool")),
        ] {
            let mut k = Knobs::default();
            k.select.llm_target = llm.map(String::from);
            let r = engine.retrieve(q, &k.params);
            let s = engine.select(&r, &k.select);
            seen_empty |= s.no_candidates;
            let full: Value = serde_json::from_str(&selection_json(&s)).unwrap();
            let verdict: Value = serde_json::from_str(&selection_verdict_json(&s)).unwrap();
            let v = verdict.as_object().unwrap();
            assert!(v.len() >= 9, "{q}: {v:?}");
            for (key, value) in v {
                assert_eq!(full.get(key), Some(value), "{q}: {key}");
            }
            assert_eq!(
                full.get("margin").is_some(),
                v.contains_key("margin"),
                "{q}"
            );
        }
        assert!(seen_empty, "a query with no candidates was tried");
    }
}
