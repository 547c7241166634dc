//! Event traces of one query: ordered, typed events from query parsing to the selector's
//! decision. Recording is opt-in — [`record`] re-runs the query with a recorder attached to
//! the BFS; the plain path ([`super::Engine::retrieve`]) uses a recorder that compiles away.

use super::Engine;
use super::expand::{EdgeOutcome, Recorder};
use super::params::{Params, SelectParams};
use super::query::TokenSource;
use super::retrieve::{Retrieval, RowOrigin, seed_stages_recorded};
use super::select::Selection;
use crate::jsonout::JsonWriter;
use crate::model::{EdgeId, Graph, NodeId};
use crate::pytext::round;

/// One event. `entities` lists the tools (or nodes) it is about.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub seq: usize,
    pub stage: &'static str,
    pub kind: &'static str,
    pub entities: Vec<String>,
    pub summary: String,
    /// Structured fields, in order.
    pub fields: Vec<(&'static str, serde_json::Value)>,
}

impl Event {
    pub fn mentions(&self, entity: &str) -> bool {
        self.entities.iter().any(|e| e == entity)
    }

    pub fn write_json(&self, w: &mut JsonWriter) {
        w.begin_obj();
        w.key("seq").int(self.seq as i64);
        w.key("stage").str(self.stage);
        w.key("type").str(self.kind);
        w.key("entities").str_list(&self.entities);
        w.key("summary").str(&self.summary);
        for (k, v) in &self.fields {
            w.key(k).value(v);
        }
        w.end_obj();
    }
}

#[derive(Debug, Clone, Default)]
pub struct Trace {
    pub query: String,
    pub events: Vec<Event>,
}

impl Trace {
    /// All events about one tool, in order (`trace_entity`).
    pub fn entity(&self, name: &str) -> Vec<&Event> {
        self.events.iter().filter(|e| e.mentions(name)).collect()
    }

    fn push(
        &mut self,
        stage: &'static str,
        kind: &'static str,
        entities: Vec<String>,
        summary: String,
        fields: Vec<(&'static str, serde_json::Value)>,
    ) {
        let seq = self.events.len() + 1;
        self.events.push(Event {
            seq,
            stage,
            kind,
            entities,
            summary,
            fields,
        });
    }
}

#[derive(Default)]
struct EdgeLog {
    steps: Vec<(usize, NodeId, NodeId, EdgeId, EdgeOutcome)>,
}

impl Recorder for EdgeLog {
    fn edge(&mut self, depth: usize, from: NodeId, to: NodeId, edge: EdgeId, outcome: EdgeOutcome) {
        self.steps.push((depth, from, to, edge, outcome));
    }
}

fn j<T: Into<serde_json::Value>>(v: T) -> serde_json::Value {
    v.into()
}

fn jf(x: f64) -> serde_json::Value {
    serde_json::Number::from_f64(x)
        .map(serde_json::Value::Number)
        .unwrap_or(serde_json::Value::Null)
}

fn source_str(s: &TokenSource) -> String {
    match s {
        TokenSource::Query => "query".into(),
        TokenSource::Rule(r) => format!("rule:{r}"),
        TokenSource::Synonym(t) => format!("synonym:{t}"),
        TokenSource::KoreanExact(t) => format!("korean:{t}"),
        TokenSource::KoreanSubstring(t) => format!("korean-substring:{t}"),
    }
}

/// Re-runs `query` with recording on and returns its retrieval, selection and trace.
pub fn record(
    engine: &Engine,
    query: &str,
    params: &Params,
    select: Option<&SelectParams>,
) -> (Retrieval, Option<Selection>, Trace) {
    let g = &engine.graph;
    let mut t = Trace {
        query: query.to_string(),
        events: Vec::new(),
    };
    let mut log = EdgeLog::default();
    let stages = seed_stages_recorded(engine, query, params, &mut log);
    let r = engine.retrieve(query, params);
    let Some(st) = stages else {
        let why = if query.is_empty() {
            "empty query"
        } else if g.tools.is_empty() {
            "the graph has no tools"
        } else {
            "no BM25 hit and no substring match"
        };
        t.push(
            "seeds",
            "no_seeds",
            Vec::new(),
            format!("early exit: {why}; the response is empty"),
            vec![("reason", j(why))],
        );
        let sel = select.map(|sp| engine.select(&r, sp));
        if let Some(s) = &sel {
            selector_events(&mut t, s);
        }
        return (r, sel, t);
    };
    query_events(&mut t, &st);
    bm25_events(&mut t, engine, &st);
    intent_event(&mut t, &st);
    expansion_events(&mut t, g, &log, &st);
    history_events(&mut t, &r);
    learning_events(&mut t, g, &r);
    rank_events(&mut t, &r, &st, params);
    let sel = select.map(|sp| engine.select(&r, sp));
    if let Some(s) = &sel {
        selector_events(&mut t, s);
    }
    (r, sel, t)
}

/// The query's tokens: raw, stopwords removed, after expansion.
fn query_events(t: &mut Trace, st: &super::retrieve::Stages) {
    let toks: Vec<serde_json::Value> =
        st.plan.tokens.iter().map(|q| serde_json::json!({"token": q.text, "source": source_str(&q.source), "in_index": q.term.is_some()})).collect();
    t.push(
        "query",
        "query_tokens",
        Vec::new(),
        format!(
            "{} raw tokens, {} stopwords removed, {} tokens after expansion",
            st.plan.raw_tokens.len(),
            st.plan.removed_stopwords.len(),
            st.plan.tokens.len()
        ),
        vec![
            ("raw_tokens", j(st.plan.raw_tokens.clone())),
            ("removed_stopwords", j(st.plan.removed_stopwords.clone())),
            ("tokens", j(toks)),
        ],
    );
}

/// The BM25 hits (the top 20), the substring fallback and the chosen seeds.
fn bm25_events(t: &mut Trace, engine: &Engine, st: &super::retrieve::Stages) {
    let g = &engine.graph;
    let mut hits = super::query::all_hits(&engine.graph, &st.plan, &st.hits);
    hits.sort_by(|a, b| {
        b.1.partial_cmp(&a.1)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.0.cmp(&b.0))
    });
    let shown: Vec<serde_json::Value> = hits
        .iter()
        .take(20)
        .map(|(d, s)| serde_json::json!({"tool": g.tool_key(*d), "bm25": jf(*s)}))
        .collect();
    t.push(
        "bm25",
        "bm25_hits",
        hits.iter()
            .take(20)
            .map(|(d, _)| g.tool_key(*d).to_string())
            .collect(),
        format!("{} tools with a positive BM25 score", st.hits.len()),
        vec![("hit_count", j(st.hits.len())), ("top", j(shown))],
    );
    if st.used_fallback {
        t.push(
            "bm25",
            "substring_fallback",
            st.seeds
                .iter()
                .map(|(d, _)| g.tool_key(*d).to_string())
                .collect(),
            "BM25 found nothing: seeds come from substring matches of name and description".into(),
            Vec::new(),
        );
    }
    for (i, (d, raw)) in st.seeds.iter().enumerate() {
        let name = g.tool_key(*d).to_string();
        let in_graph = g.node_of_tool(*d).is_some();
        t.push(
            "seeds",
            "seed_chosen",
            vec![name.clone()],
            format!(
                "seed #{}: {name} raw {:.6} / best {:.6} = {:.6}{}",
                i + 1,
                raw,
                st.max_seed,
                raw / st.max_seed,
                if in_graph {
                    ""
                } else {
                    " (not a graph node: listed, never scored)"
                }
            ),
            vec![
                ("rank", j(i + 1)),
                ("raw", jf(*raw)),
                ("max_seed", jf(st.max_seed)),
                ("normalized", jf(raw / st.max_seed)),
                ("graph_node", j(in_graph)),
            ],
        );
    }
}

/// The query's intent and the weight table it picks.
fn intent_event(t: &mut Trace, st: &super::retrieve::Stages) {
    let it = &st.intent;
    t.push(
        "intent",
        "intent",
        Vec::new(),
        format!(
            "intent {} (read {:.3}, write {:.3}, delete {:.3}); weight table {}",
            it.dominant().as_str(),
            it.read,
            it.write,
            it.delete,
            st.label.as_str()
        ),
        vec![
            ("dominant", j(it.dominant().as_str())),
            ("read", jf(round(it.read, 3))),
            ("write", jf(round(it.write, 3))),
            ("delete", jf(round(it.delete, 3))),
            ("weight_table", j(st.label.as_str())),
            ("read_terms", j(it.read_terms.clone())),
            ("write_terms", j(it.write_terms.clone())),
            ("delete_terms", j(it.delete_terms.clone())),
        ],
    );
}

/// Each edge the expansion met, and what it did with it.
fn expansion_events(t: &mut Trace, g: &Graph, log: &EdgeLog, st: &super::retrieve::Stages) {
    for (depth, from, to, e, outcome) in &log.steps {
        let edge = g.edge(*e);
        let (fname, tname) = (g.node_name(*from).to_string(), g.node_name(*to).to_string());
        let rel = edge.attrs.relation_str().unwrap_or("(none)").to_string();
        let conf = edge.attrs.confidence_str().unwrap_or("(none)").to_string();
        // which edge: parallel edges (and one edge met from both ends) read alike otherwise
        let which = format!(
            "[{conf}] edge {e}{}, depth {depth}",
            if edge.source == *from {
                ""
            } else {
                " reversed"
            }
        );
        let mut fields = vec![
            ("depth", j(*depth)),
            ("edge", j(*e)),
            ("from", j(fname.clone())),
            ("to", j(tname.clone())),
            ("edge_source", j(g.node_name(edge.source))),
            ("edge_target", j(g.node_name(edge.target))),
            ("relation", j(rel.clone())),
            ("confidence", j(conf.clone())),
        ];
        let (kind, summary) = match outcome {
            EdgeOutcome::Scored {
                score,
                parent,
                weight,
                conf: c,
                decay,
            } => {
                fields.extend([
                    ("parent", jf(*parent)),
                    ("weight", jf(*weight)),
                    ("conf_factor", jf(*c)),
                    ("decay", jf(*decay)),
                    ("score", jf(*score)),
                ]);
                (
                    "edge_scored",
                    format!(
                        "{fname} -> {tname} via {rel} [{conf}]: {parent:.6} x {weight} x {c} x {decay:.4} = {score:.6}"
                    ),
                )
            }
            EdgeOutcome::AlreadyVisited => (
                "edge_skipped",
                format!("{fname} -> {tname} via {rel} {which}: already visited (first visit wins)"),
            ),
            EdgeOutcome::PassThrough => (
                "edge_pass_through",
                format!(
                    "{fname} -> {tname} via {rel} {which}: category/domain node, passed through with score 0"
                ),
            ),
            EdgeOutcome::Ignored => (
                "edge_ignored",
                format!(
                    "{fname} -> {tname} via {rel} {which}: node without node_type, not traversed"
                ),
            ),
        };
        t.push("expand", kind, vec![fname, tname], summary, fields);
    }
    t.push(
        "expand",
        "expansion_done",
        Vec::new(),
        format!(
            "visited {} scored nodes over {} edges",
            st.expansion.scored.len(),
            st.expansion.visited_edges
        ),
        vec![
            ("visited_nodes", j(st.expansion.scored.len())),
            ("visited_edges", j(st.expansion.visited_edges)),
        ],
    );
}

/// The rows the history demoted.
fn history_events(t: &mut Trace, r: &Retrieval) {
    for row in &r.rows {
        if row.history_hits > 0 {
            let before = if matches!(row.origin, RowOrigin::LearningOnly) {
                0.0
            } else {
                row.base
            };
            let after = row.score - row.learning.as_ref().map(|l| l.score).unwrap_or(0.0);
            t.push(
                "history",
                "history_demotion",
                vec![row.name.clone()],
                format!(
                    "{} demoted {} time(s): {before:.6} -> {after:.6}",
                    row.name, row.history_hits
                ),
                vec![
                    ("times", j(row.history_hits)),
                    ("before", jf(before)),
                    ("after", jf(after)),
                ],
            );
        }
    }
}

/// The learning signals and where each went.
fn learning_events(t: &mut Trace, g: &Graph, r: &Retrieval) {
    for sig in &r.signals {
        let applied = r.rows.iter().find(|x| x.name == sig.target);
        let outcome = if g.tool_id(&sig.target).is_none() {
            "target is not a tool: ignored"
        } else if applied.is_some_and(|x| matches!(x.origin, RowOrigin::LearningOnly)) {
            "appended as a learning-only row"
        } else {
            "added to the tool's score"
        };
        t.push(
            "learning",
            "learning_boost",
            vec![sig.target.clone()],
            format!(
                "promoted learning +{} for {}: {outcome}",
                sig.score, sig.target
            ),
            vec![
                ("score", jf(sig.score)),
                ("suggestion_id", sig.suggestion_id.clone()),
                ("observations", j(sig.observations)),
                ("outcome", j(outcome)),
            ],
        );
    }
}

/// The final ranking and the rendered subgraph text.
fn rank_events(t: &mut Trace, r: &Retrieval, st: &super::retrieve::Stages, params: &Params) {
    let ranked: Vec<serde_json::Value> =
        r.rows.iter().enumerate().map(|(i, x)| serde_json::json!({"rank": i + 1, "tool": x.name, "score": jf(x.rounded_score())})).collect();
    t.push(
        "rank",
        "ranked",
        r.rows.iter().map(|x| x.name.clone()).collect(),
        format!(
            "stable sort by score; kept the top {} of {} candidates",
            r.rows.len(),
            count_candidates(r, st)
        ),
        vec![("top_k", j(params.top_k)), ("rows", j(ranked))],
    );
    t.push(
        "render",
        "subgraph_rendered",
        Vec::new(),
        format!(
            "subgraph_text: {} chars, ~{} tokens of {}{}",
            crate::pytext::char_len(&r.subgraph_text),
            r.stats.token_budget_used,
            params.token_budget,
            if r.subgraph_text.contains("\n... (truncated") {
                ", truncated"
            } else {
                ""
            }
        ),
        vec![
            ("token_budget_used", j(r.stats.token_budget_used)),
            ("token_budget", j(params.token_budget)),
        ],
    );
}

fn count_candidates(r: &Retrieval, st: &super::retrieve::Stages) -> usize {
    let g_tools = st.expansion.scored.len();
    g_tools.max(r.rows.len())
}

fn selector_events(t: &mut Trace, s: &Selection) {
    if s.no_candidates {
        t.push(
            "selector",
            "selector_no_candidates",
            Vec::new(),
            "no usable candidate: expand_candidates".into(),
            Vec::new(),
        );
        return;
    }
    for c in &s.rows {
        let ev: Vec<serde_json::Value> = c
            .evidence
            .iter()
            .map(|e| serde_json::json!({"source": e.source, "score": jf(e.score)}))
            .collect();
        t.push(
            "selector",
            "candidate_scored",
            vec![c.name.clone()],
            format!(
                "{}: base {:.6} + contrastive {:+.6} = {:.6}{}",
                c.name,
                c.base_selector_score,
                c.contrastive_score,
                c.selector_score,
                if c.strong_evidence {
                    " (strong evidence)"
                } else {
                    ""
                }
            ),
            vec![
                ("base", jf(c.base_selector_score)),
                ("contrastive", jf(c.contrastive_score)),
                ("selector_score", jf(c.selector_score)),
                ("strong_evidence", j(c.strong_evidence)),
                ("evidence", j(ev)),
            ],
        );
    }
    let mut ents = vec![s.winner.clone()];
    if let Some(r) = &s.runner_up {
        ents.push(r.clone());
    }
    t.push(
        "selector",
        "winner",
        ents,
        format!(
            "winner {} (margin {:.6} over {}){}",
            s.winner,
            s.margin,
            s.runner_up.as_deref().unwrap_or("nobody"),
            if s.sibling_comparison_applied {
                "; chosen by sibling comparison"
            } else {
                ""
            }
        ),
        vec![
            ("winner", j(s.winner.clone())),
            ("runner_up", j(s.runner_up.clone())),
            ("margin", jf(s.margin)),
            (
                "sibling_comparison_applied",
                j(s.sibling_comparison_applied),
            ),
        ],
    );
    let a = &s.override_assessment;
    if a.evaluated {
        let mut ents = vec![s.winner.clone()];
        if let Some(l) = &s.llm_target {
            ents.push(l.clone());
        }
        t.push(
            "selector",
            "override_assessed",
            ents,
            format!(
                "override of {} by {}: {} (risk {}){}",
                s.llm_target.as_deref().unwrap_or(""),
                s.winner,
                if a.allowed { "allowed" } else { "blocked" },
                a.risk_level,
                if a.reason_codes.is_empty() {
                    String::new()
                } else {
                    format!(": {}", a.reason_codes.join(", "))
                }
            ),
            vec![
                ("allowed", j(a.allowed)),
                ("risk_level", j(a.risk_level)),
                ("supporting_sources", j(a.supporting_sources.clone())),
                ("contradicting_sources", j(a.contradicting_sources.clone())),
                ("reason_codes", j(a.reason_codes.clone())),
            ],
        );
    }
    t.push(
        "selector",
        "selected",
        vec![s.selected_target.clone()],
        format!(
            "selected {} ({}), decision {} -> {}: {}",
            s.selected_target,
            if s.overrode_llm {
                "overrode the LLM"
            } else if s.ambiguous {
                "ambiguous"
            } else {
                "clear"
            },
            s.decision,
            s.recommended_action,
            s.reason_codes.join(", ")
        ),
        vec![
            ("selected_target", j(s.selected_target.clone())),
            ("overrode_llm", j(s.overrode_llm)),
            ("ambiguous", j(s.ambiguous)),
            ("ambiguity_set", j(s.ambiguity_set.clone())),
            ("reason_codes", j(s.reason_codes.clone())),
        ],
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// UX trial defect 24: two expansion events never read alike (parallel edges and one
    /// edge met from both ends name their edge, confidence and direction).
    #[test]
    fn no_two_expansion_events_read_alike() {
        let engine = Engine::new(crate::demo::load_demo().unwrap());
        for q in [
            "approve refund",
            "refund an order",
            "delete expired coupons",
        ] {
            let (_, _, t) = record(&engine, q, &Params::default(), None);
            let mut seen = std::collections::HashSet::new();
            for e in t.events.iter().filter(|e| e.stage == "expand") {
                assert!(seen.insert(e.summary.clone()), "{q}: twice: {}", e.summary);
            }
            assert!(seen.len() > 5, "{q}");
        }
    }

    #[test]
    fn trace_covers_every_stage_and_entities() {
        let engine = Engine::new(crate::demo::load_demo().unwrap());
        let (r, sel, t) = record(
            &engine,
            "주문 취소해줘",
            &Params::default(),
            Some(&SelectParams::default()),
        );
        let stages: Vec<&str> = t.events.iter().map(|e| e.stage).collect();
        for s in [
            "query", "bm25", "seeds", "intent", "expand", "rank", "render", "selector",
        ] {
            assert!(stages.contains(&s), "missing stage {s}");
        }
        let top = &r.rows[0].name;
        assert!(!t.entity(top).is_empty());
        let scored = t.events.iter().filter(|e| e.kind == "edge_scored").count();
        assert_eq!(scored, r.stats.visited_edges);
        assert_eq!(
            sel.unwrap().selected_target,
            t.events.last().unwrap().entities[0]
        );
        // the plain path and the recorded path agree
        assert_eq!(engine.retrieve("주문 취소해줘", &Params::default()), r);
    }
}
