//! The JSON form of a [`Triage`]: one object per case (the JSON Lines contract of
//! `toolscope triage --json`): `case_id`, `query`, `expected`, `class`, `full_rank`,
//! `findings`, `evidence`, `probes`, `mechanism_status` (plus additive keys). The
//! `explain_rank_gap` evidence tool writes the same fields ([`write_fields`]) without the
//! probes, and in the retrieval scope for model-facing callers ([`JsonOptions`]).

use super::deficit::{Deficit, Hop, PathEvidence, PathReason, Side, TermHit};
use super::findings::Finding;
use super::probes::{Probe, ProbeChange};
use super::{AboveDiff, Channel, FailureClass, Outcome, RankSignals, Triage};
use crate::jsonout::JsonWriter;

fn opt_usize(w: &mut JsonWriter, v: Option<usize>) {
    match v {
        Some(x) => w.int(x as i64),
        None => w.null(),
    };
}

fn outcome(w: &mut JsonWriter, o: &Outcome, selector: bool) {
    w.begin_obj();
    w.key("retrieved").bool(o.retrieved);
    w.key("first").bool(o.first);
    if selector {
        w.key("selected").bool(o.selected);
    }
    w.end_obj();
}

fn signals(w: &mut JsonWriter, key: &str, s: &Option<RankSignals>) {
    w.key(key);
    let Some(s) = s else {
        w.null();
        return;
    };
    w.begin_obj();
    w.key("name").str(&s.name);
    w.key("selector_score").f64(s.selector_score);
    w.key("base_selector_score").f64(s.base_selector_score);
    w.key("contrastive_score").f64(s.contrastive_score);
    w.key("original_rank");
    opt_usize(w, s.original_rank);
    w.key("retrieval_score").f64(s.retrieval_score);
    w.key("strong_evidence").bool(s.strong_evidence);
    w.key("evidence").begin_arr();
    for (src, v) in &s.evidence {
        w.begin_obj()
            .key("source")
            .str(src)
            .key("score")
            .f64(*v)
            .end_obj();
    }
    w.end_arr();
    w.end_obj();
}

fn channel(w: &mut JsonWriter, key: &str, c: &Channel) {
    w.key(key).begin_obj();
    w.key("other").f64(c.other);
    w.key("expected").f64(c.x);
    w.key("difference").f64(c.diff());
    w.end_obj();
}

fn above(w: &mut JsonWriter, a: &AboveDiff) {
    w.begin_obj();
    w.key("tool").str(&a.name);
    w.key("rank").int(a.rank as i64);
    channel(w, "score", &a.score);
    channel(w, "seed", &a.seed);
    channel(w, "graph", &a.graph);
    channel(w, "learning", &a.learning);
    w.key("history_demotions").begin_obj();
    w.key("other").int(a.history_hits.0 as i64);
    w.key("expected").int(a.history_hits.1 as i64);
    w.end_obj();
    w.key("origin").begin_obj();
    w.key("other").str(a.origin.0);
    w.key("expected").str(a.origin.1);
    w.end_obj();
    w.key("match_flags_differ").begin_arr();
    for f in &a.flags {
        w.begin_obj();
        w.key("flag").str(f.flag);
        w.key("other").bool(f.other);
        w.key("expected").bool(f.x);
        w.end_obj();
    }
    w.end_arr();
    w.end_obj();
}

/// The class-specific evidence.
pub fn class_detail(c: &FailureClass, above_rows: &[AboveDiff], w: &mut JsonWriter) {
    w.begin_obj();
    w.key("class").str(c.as_str());
    match c {
        FailureClass::Selected => {}
        FailureClass::NotRetrieved {
            sub_cause,
            full_rank,
            bm25_rank,
            bm25_candidates,
            hops,
        } => {
            w.key("sub_cause").str(sub_cause.as_str());
            w.key("full_rank");
            opt_usize(w, *full_rank);
            w.key("bm25_rank");
            opt_usize(w, *bm25_rank);
            w.key("bm25_candidates").int(*bm25_candidates as i64);
            w.key("seeds_taken").int(5);
            w.key("hops_from_seed");
            opt_usize(w, *hops);
        }
        FailureClass::SelectorAmbiguous {
            selected,
            ambiguity_set,
            reason_codes,
            margin,
            x,
        } => {
            w.key("selected").str(selected);
            w.key("ambiguity_set").str_list(ambiguity_set);
            w.key("reason_codes").str_list(reason_codes);
            w.key("margin").f64(*margin);
            signals(w, "expected_signals", x);
        }
        FailureClass::SelectorOverrodeLlm {
            selected,
            llm_margin,
            supporting_sources,
        } => {
            w.key("selected").str(selected);
            w.key("llm_margin").opt_f64(*llm_margin);
            w.key("supporting_sources").str_list(supporting_sources);
        }
        FailureClass::SelectorKeptLlmTarget {
            llm_target,
            margin,
            llm_margin,
            override_margin,
            blocked_by,
            x,
            kept,
        } => {
            w.key("llm_target").str(llm_target);
            w.key("margin").f64(*margin);
            w.key("llm_margin").opt_f64(*llm_margin);
            w.key("override_margin").f64(*override_margin);
            w.key("override_blocked_by").str_list(blocked_by);
            signals(w, "expected_signals", x);
            signals(w, "kept_signals", kept);
        }
        FailureClass::SelectorChoseOther {
            selected,
            margin,
            x,
            chosen,
        } => {
            w.key("selected").str(selected);
            w.key("margin").f64(*margin);
            signals(w, "expected_signals", x);
            signals(w, "selected_signals", chosen);
        }
        FailureClass::Outranked { rank } => {
            w.key("rank").int(*rank as i64);
            w.key("above").begin_arr();
            for x in above_rows {
                above(w, x);
            }
            w.end_arr();
        }
    }
    w.end_obj();
}

pub fn finding(f: &Finding, w: &mut JsonWriter) {
    w.begin_obj();
    w.key("kind").str(f.kind());
    w.key("mechanism_status").str(f.status().as_str());
    w.key("summary").str(&f.summary());
    match f {
        Finding::ProducerMissing {
            fields,
            absent_producers,
            absent_count,
            ..
        } => {
            w.key("fields").begin_arr();
            for x in fields {
                w.begin_obj();
                w.key("field").str(&x.field);
                w.key("producers_in_graph").int(x.producers_in_graph as i64);
                w.end_obj();
            }
            w.end_arr();
            w.key("absent_producers").str_list(absent_producers);
            w.key("absent_count").int(*absent_count as i64);
        }
        Finding::ProducerFlood {
            edge_kind,
            field,
            producers,
            threshold,
            ..
        } => {
            w.key("edge_kind").str(edge_kind);
            w.key("field").opt_str(field.as_deref());
            w.key("producers").str_list(producers);
            w.key("threshold").int(*threshold as i64);
        }
        Finding::SiblingTie { x_score, tools, .. } => {
            w.key("expected_score").f64(*x_score);
            w.key("tools").begin_arr();
            for (n, s, d) in tools {
                w.begin_obj();
                w.key("tool").str(n);
                w.key("score").f64(*s);
                w.key("gap").f64(*d);
                w.end_obj();
            }
            w.end_arr();
        }
        Finding::EvidenceEmpty { missing, .. } => {
            w.key("missing").str_list(missing);
        }
        Finding::ArtifactChanged { differences, .. } => {
            w.key("differences").str_list(differences);
        }
    }
    w.end_obj();
}

fn hit(w: &mut JsonWriter, key: &str, h: &Option<TermHit>) {
    w.key(key);
    match h {
        None => {
            w.null();
        }
        Some(h) => {
            w.begin_obj();
            w.key("tf").int(h.tf as i64);
            w.key("length_norm").f64(h.len_norm);
            w.key("part").f64(h.part);
            w.end_obj();
        }
    }
}

fn side(w: &mut JsonWriter, key: &str, s: &Side) {
    w.key(key).begin_obj();
    w.key("tool").str(&s.name);
    w.key("rank");
    opt_usize(w, s.rank);
    w.key("full_rank");
    opt_usize(w, s.full_rank);
    w.key("score").opt_f64(s.score);
    w.key("origin").str(s.origin);
    w.key("bm25").opt_f64(s.bm25);
    w.key("seed_normalized").opt_f64(s.seed_normalized);
    w.key("history_demotions").int(s.history_hits as i64);
    w.key("learning").f64(s.learning);
    if let Some(p) = &s.parts {
        w.key("bm25_sum").f64(p.sum);
        w.key("long_name_penalty").f64(p.name_penalty);
        w.key("order_matched").int(p.order_matched as i64);
        w.key("phrase_multiplier").f64(p.phrase);
        w.key("route_multiplier").f64(p.route);
        w.key("korean_multiplier").f64(p.korean);
    }
    for (k, t) in [("score_tree", &s.score_tree), ("bm25_tree", &s.bm25_tree)] {
        w.key(k);
        match t {
            Some(t) => t.write_json(w),
            None => {
                w.null();
            }
        }
    }
    w.end_obj();
}

pub fn deficit(d: &Deficit, w: &mut JsonWriter) {
    w.begin_obj();
    w.key("against").str(d.against.as_str());
    side(w, "expected", &d.x);
    side(w, "other", &d.other);
    w.key("score_gap").opt_f64(d.score_gap);
    w.key("terms").begin_arr();
    for t in &d.terms {
        w.begin_obj();
        w.key("term").str(&t.text);
        w.key("source").str(&t.source);
        w.key("idf").opt_f64(t.idf);
        w.key("df").int(t.df as i64);
        hit(w, "expected", &t.x);
        hit(w, "other", &t.other);
        w.end_obj();
    }
    w.end_arr();
    w.key("other_only_terms").str_list(&d.other_only_terms);
    w.key("expected_missing_terms").begin_arr();
    for (t, idf) in &d.x_missing_terms {
        w.begin_obj()
            .key("term")
            .str(t)
            .key("idf")
            .opt_f64(*idf)
            .end_obj();
    }
    w.end_arr();
    w.key("multipliers_differ").begin_arr();
    for (l, a, b) in &d.multipliers {
        w.begin_obj();
        w.key("multiplier").str(l);
        w.key("expected").f64(*a);
        w.key("other").f64(*b);
        w.end_obj();
    }
    w.end_arr();
    w.end_obj();
}

fn hop(h: &Hop, w: &mut JsonWriter) {
    w.begin_obj();
    w.key("from").str(&h.from);
    w.key("to").str(&h.to);
    w.key("depth").int(h.depth as i64);
    w.key("relation").str(&h.relation);
    w.key("confidence").str(&h.confidence);
    w.key("parent_score").f64(h.parent);
    w.key("relation_weight").f64(h.weight);
    w.key("confidence_factor").f64(h.conf);
    w.key("decay").f64(h.decay);
    w.key("score").f64(h.score);
    w.end_obj();
}

fn reason(r: &PathReason, w: &mut JsonWriter) {
    w.begin_obj();
    match r {
        PathReason::Depth { needed, limit } => {
            w.key("reason").str("depth");
            w.key("needed").int(*needed as i64);
            w.key("limit").int(*limit as i64);
        }
        PathReason::Unreachable => {
            w.key("reason").str("unreachable");
        }
        PathReason::PassThrough { node } => {
            w.key("reason").str("pass_through");
            w.key("node").str(node);
        }
        PathReason::FirstVisit { via, score, actual } => {
            w.key("reason").str("better_scored_duplicate");
            w.key("via").str(via);
            w.key("would_score").f64(*score);
            w.key("scored").f64(*actual);
        }
        PathReason::Decay { product } => {
            w.key("reason").str("decay");
            w.key("product").f64(*product);
        }
        PathReason::Budget { cut } => {
            w.key("reason").str("budget");
            w.key("limits_expansion").bool(false);
            w.key("node_line_cut_from_subgraph_text").bool(*cut);
        }
    }
    w.end_obj();
}

pub fn path(p: &PathEvidence, w: &mut JsonWriter) {
    w.begin_obj();
    w.key("seed").opt_str(p.seed.as_deref());
    w.key("hops_needed");
    opt_usize(w, p.hops_needed());
    w.key("depth_limit").int(p.depth_limit as i64);
    w.key("entered").bool(p.entered);
    w.key("hops").begin_arr();
    for h in &p.hops {
        hop(h, w);
    }
    w.end_arr();
    w.key("reasons").begin_arr();
    for r in &p.reasons {
        reason(r, w);
    }
    w.end_arr();
    w.key("tree");
    p.tree.write_json(w);
    w.end_obj();
}

pub fn probe(p: &Probe, base: &Outcome, w: &mut JsonWriter) {
    w.begin_obj();
    match &p.change {
        ProbeChange::Knob { knob, value, set } => {
            w.key("kind").str("knob");
            w.key("knob").str(knob);
            w.key("value").value(value);
            w.key("set").str(set);
        }
        ProbeChange::Document {
            term,
            df_before,
            df_after,
            idf_before,
            idf_after,
        } => {
            w.key("kind").str("document");
            w.key("term").str(term);
            w.key("df_before").int(*df_before as i64);
            w.key("df_after").int(*df_after as i64);
            w.key("idf_before").opt_f64(*idf_before);
            w.key("idf_after").f64(*idf_after);
        }
    }
    w.key("mechanism_status").str(p.mechanism_status.as_str());
    w.key("note").str(&p.note);
    w.key("rank");
    opt_usize(w, p.rank);
    w.key("full_rank");
    opt_usize(w, p.full_rank);
    w.key("retrieved").bool(p.outcome.retrieved);
    w.key("first").bool(p.outcome.first);
    w.key("selected").bool(p.outcome.selected);
    w.key("selected_target").str(&p.selected_target);
    w.key("turns_on").str_list(&p.flips(base));
    w.key("turns_off").str_list(&p.losses(base));
    w.key("moved").begin_arr();
    for m in &p.moved {
        w.begin_obj();
        w.key("tool").str(&m.tool);
        w.key("base_rank");
        opt_usize(w, m.base_rank);
        w.key("variant_rank");
        opt_usize(w, m.variant_rank);
        w.end_obj();
    }
    w.end_arr();
    w.end_obj();
}

/// What to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JsonOptions {
    /// Write the probes (operator scope only).
    pub probes: bool,
    /// Write the selector's verdict and the selector classes as they are (operator scope);
    /// without it the class is the retrieval-side class only.
    pub selector: bool,
}

/// Writes the fields of a triage (the caller opened the object): the one shape of
/// `toolscope triage --json` and of the `explain_rank_gap` evidence tool.
pub fn write_fields(t: &Triage, case_id: Option<&str>, opts: JsonOptions, w: &mut JsonWriter) {
    if let Some(id) = case_id {
        w.key("case_id").str(id);
    }
    w.key("query").str(&t.query);
    w.key("expected").str(&t.expected);
    w.key("expected_all").str_list(&t.expected_all);
    if opts.selector {
        w.key("class").str(t.class.as_str());
    } else {
        // the selector's verdict is post-decision: the retrieval side of the class only
        let retrieval = match (&t.class, t.rank) {
            (FailureClass::NotRetrieved { .. }, _) => Some("not_retrieved"),
            (_, Some(r)) if r > 1 => Some("outranked"),
            _ => None,
        };
        w.key("class").opt_str(retrieval);
        w.key("class_scope").str("retrieval");
        w.key("class_note").str(RETRIEVAL_CLASS_NOTE);
    }
    w.key("sub_cause")
        .opt_str(t.class.sub_cause().map(|s| s.as_str()));
    w.key("full_rank");
    opt_usize(w, t.full_rank);
    w.key("findings").begin_arr();
    for f in &t.findings {
        finding(f, w);
    }
    w.end_arr();
    w.key("evidence");
    evidence(t, opts, w);
    if opts.probes {
        w.key("probes").begin_arr();
        for p in &t.probes {
            probe(p, &t.outcome, w);
        }
        w.end_arr();
    }
    w.key("mechanism_status").str(t.mechanism_status.as_str());
}

/// What `class_note` says in the retrieval scope.
pub const RETRIEVAL_CLASS_NOTE: &str = "the selector's verdict is post-decision and not visible in this scope: the class is the retrieval-stage one (not_retrieved, outranked, or null when the expected tool ranks first)";

/// The `evidence` object: X's rank and row, the parameters, the outcome, the selector's
/// verdict (selector scope), the class detail, every tool above X channel by channel, the
/// deficits and the path. In the retrieval scope `params` omits the selector's knobs.
pub fn evidence(t: &Triage, opts: JsonOptions, w: &mut JsonWriter) {
    w.begin_obj();
    w.key("rank");
    opt_usize(w, t.rank);
    w.key("top_k").int(t.knobs.params.top_k as i64);
    w.key("scored").int(t.scored as i64);
    // X's row as `query --json` reports it
    w.key("score")
        .opt_f64(t.row.as_ref().map(|r| r.rounded_score()));
    w.key("score_breakdown");
    match &t.row {
        Some(r) => {
            w.begin_obj();
            w.key("seed").f64(r.breakdown.seed);
            w.key("graph").f64(r.breakdown.graph);
            w.key("learning").f64(r.breakdown.learning);
            w.key("history_demoted").bool(r.breakdown.history_demoted);
            w.end_obj();
        }
        None => {
            w.null();
        }
    }
    w.key("params");
    if opts.selector {
        t.knobs.write_json(w);
    } else {
        t.knobs.write_json_retrieval(w);
    }
    w.key("outcome");
    outcome(w, &t.outcome, opts.selector);
    if opts.selector {
        selection(t, w);
    }
    w.key("class_detail");
    match (&t.class, t.rank) {
        (c, _) if opts.selector || matches!(c, FailureClass::NotRetrieved { .. }) => {
            class_detail(c, &t.above, w)
        }
        (_, Some(rank)) if rank > 1 => class_detail(&FailureClass::Outranked { rank }, &t.above, w),
        _ => {
            w.null();
        }
    }
    // every class: a selector class can leave X below other rows too
    w.key("above").begin_arr();
    for a in &t.above {
        above(w, a);
    }
    w.end_arr();
    w.key("deficit").begin_arr();
    for d in &t.deficit {
        deficit(d, w);
    }
    w.end_arr();
    w.key("path");
    match &t.path {
        Some(p) => path(p, w),
        None => {
            w.null();
        }
    }
    w.key("recomputed").bool(t.recomputed);
    w.key("check_failures").str_list(&t.check_failures);
    w.end_obj();
}

/// The selector's verdict in brief (`selection`; selector scope only).
fn selection(t: &Triage, w: &mut JsonWriter) {
    let s = &t.selection;
    w.key("selection").begin_obj();
    w.key("selected_target").str(&s.selected_target);
    w.key("llm_target").opt_str(s.llm_target.as_deref());
    w.key("policy").str(s.policy.as_str());
    w.key("overrode_llm").bool(s.overrode_llm);
    w.key("ambiguous").bool(s.ambiguous);
    w.key("reason_codes").str_list(&s.reason_codes);
    w.key("confidence").f64(s.confidence);
    w.key("margin").f64(s.margin);
    w.key("decision").str(s.decision);
    w.end_obj();
}

/// One triage as a compact JSON object.
pub fn to_json(t: &Triage, case_id: Option<&str>, opts: JsonOptions) -> String {
    let mut w = JsonWriter::new();
    w.begin_obj();
    write_fields(t, case_id, opts, &mut w);
    w.end_obj();
    w.finish()
}
