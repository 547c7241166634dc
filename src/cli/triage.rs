//! `toolscope triage`: which stage failed for an expected tool and why it lost — one case
//! (`GRAPH QUERY --expected NAME`) as a diagnosis or `--json`, or a whole suite
//! (`GRAPH --cases SUITE`) as counts per class and one line per case, or JSON Lines.
//! The engine computes everything ([`crate::engine::triage`]); this file parses, picks the
//! output and maps exit codes: 0 triaged, 1 nothing to classify, 2 bad input.

use clap::Args;
use std::fmt::Write as _;
use std::path::Path;

use super::graph_arg::load_engine;
use super::query::{load_learning, write_stdout, write_text};
use super::{EXIT_EMPTY, EXIT_OK, fail};
use crate::engine::knobs::Knobs;
use crate::engine::params::Policy;
use crate::engine::triage::json::{JsonOptions, to_json};
use crate::engine::triage::{Probe, Triage, TriageOptions, triage};
use crate::lab::suite::load_suite;
use crate::lab::triage::{CaseTriage, SideEffects, counts, has_labels, side_effects, triage_suite};
use crate::output::triage::opt_rank;
use crate::sanitize::line;

#[derive(Args, Debug)]
pub struct TriageArgs {
    /// Graph artifact, a spec or tool list (built on load), or `demo`
    pub graph: String,
    /// The query (omit with --cases)
    #[arg(value_parser = super::query_arg, required_unless_present = "cases", conflicts_with = "cases")]
    pub query: Option<String>,
    /// The expected tool (repeatable: a hit is any of them; the best placed is triaged)
    #[arg(
        long = "expected",
        visible_alias = "expect",
        value_name = "NAME",
        required_unless_present = "cases",
        conflicts_with = "cases"
    )]
    pub expected: Vec<String>,
    /// Triage every labelled case of a suite (ground truth, golden JSON Lines or fixtures;
    /// a case's own parameters override the command line's)
    #[arg(long, value_name = "SUITE")]
    pub cases: Option<String>,
    /// The tool the model picked (handed to the selector with the rows)
    #[arg(long, value_name = "NAME")]
    pub llm_target: Option<String>,
    /// Selector policy: strong_evidence or risk_limited (strong evidence overrides the
    /// model's pick), manual_review (never overrides)
    #[arg(long, default_value = "strong_evidence", value_parser = super::policy_arg())]
    pub policy: Policy,
    /// Number of results (1 or more)
    #[arg(long, default_value_t = 10, value_parser = super::top_k_arg)]
    pub top_k: usize,
    /// BFS depth of the graph expansion
    #[arg(long, default_value_t = 2)]
    pub depth: usize,
    /// Token budget of subgraph_text
    #[arg(long, default_value_t = 2000)]
    pub token_budget: usize,
    /// A tool already used in this session (repeatable)
    #[arg(long = "history", value_name = "NAME")]
    pub history: Vec<String>,
    /// Learning suggestions (JSON list, {"suggestions": [...]}, or JSON Lines)
    #[arg(long, value_name = "FILE")]
    pub learning: Option<String>,
    /// Any other knob, e.g. --set relation_weight=requires:0.2 (repeatable)
    #[arg(long = "set", value_name = "KNOB=VALUE")]
    pub set: Vec<String>,
    /// Replay each probe that turns an outcome on over this suite and count the cases
    /// whose top-1 or hit@k it changes (one case only)
    #[arg(long, value_name = "SUITE", conflicts_with = "cases")]
    pub side_effects: Option<String>,
    /// Skip the knob and document probes
    #[arg(long)]
    pub no_probes: bool,
    /// producer_flood fires above this many producers over one data-flow edge kind
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub flood_threshold: usize,
    /// JSON (one object; JSON Lines with --cases, one object per case)
    #[arg(long)]
    pub json: bool,
}

fn base_knobs(a: &TriageArgs) -> Result<Knobs, u8> {
    let mut k = Knobs::default();
    k.params.top_k = a.top_k;
    k.params.depth = a.depth;
    k.params.token_budget = a.token_budget;
    k.params.history = a.history.clone();
    if let Some(p) = &a.learning {
        k.params.learning_suggestions = load_learning(p).map_err(fail)?;
    }
    k.select.llm_target = a.llm_target.clone();
    k.select.policy = a.policy.clone();
    for s in &a.set {
        k = k.set_from_str(s).map_err(|e| fail(format!("--set: {e}")))?;
    }
    Ok(k)
}

const OPERATOR: JsonOptions = JsonOptions {
    probes: true,
    selector: true,
};

pub fn run(a: TriageArgs) -> u8 {
    let engine = match load_engine(&a.graph) {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    let knobs = match base_knobs(&a) {
        Ok(k) => k,
        Err(code) => return code,
    };
    let opts = TriageOptions {
        probes: !a.no_probes,
        document_probes: !a.no_probes,
        flood_threshold: a.flood_threshold,
    };
    if let Some(path) = &a.cases {
        return run_suite(&engine, path, &knobs, &opts, a.json);
    }
    let query = a.query.clone().unwrap_or_default();
    let t = match triage(&engine, &query, &a.expected, &knobs, &opts) {
        Ok(t) => t,
        Err(e) => return fail(format!("--expected: {e}")),
    };
    let effects = match &a.side_effects {
        Some(p) => match load_suite(Path::new(p)) {
            // a suite without labels has no top-1 or hit@k to change: nothing is replayed
            Ok(s) if !has_labels(&s) => {
                return fail(format!(
                    "--side-effects {}: the suite names no expected tool (no case is labelled): nothing to replay a probe over",
                    line(p)
                ));
            }
            Ok(s) => probe_side_effects(&engine, &s, &knobs, &t),
            Err(e) => return fail(e),
        },
        None => Vec::new(),
    };
    if a.json {
        let mut s = to_json(&t, None, OPERATOR);
        if a.side_effects.is_some() {
            s.pop();
            s.push_str(",\"side_effects\":");
            s.push_str(&side_effects_json(&effects));
            s.push('}');
        }
        write_stdout(format!("{s}\n").as_bytes());
    } else {
        let mut s = crate::output::triage::triage_text(&t);
        if let Some(p) = &a.side_effects {
            s.push_str(&side_effects_text(p, &effects));
        }
        write_text(&s);
    }
    EXIT_OK
}

/// The side effects of every probe that turns one of X's outcomes on.
fn probe_side_effects<'t>(
    engine: &crate::engine::Engine,
    suite: &crate::lab::suite::Suite,
    knobs: &Knobs,
    t: &'t Triage,
) -> Vec<(&'t Probe, SideEffects)> {
    let Some(tool) = engine.graph.tool_id(&t.expected) else {
        return Vec::new();
    };
    t.probes
        .iter()
        .filter(|p| !p.flips(&t.outcome).is_empty())
        .map(|p| (p, side_effects(engine, suite, knobs, &p.change, tool)))
        .collect()
}

fn side_effects_json(effects: &[(&Probe, SideEffects)]) -> String {
    let mut w = crate::jsonout::JsonWriter::new();
    w.begin_arr();
    for (p, fx) in effects {
        w.begin_obj();
        w.key("probe").str(&p.change.label());
        w.key("cases").int(fx.cases as i64);
        w.key("top1_changed").int(fx.top1_changed as i64);
        w.key("hit_at_k_gained").int(fx.hit_gained as i64);
        w.key("hit_at_k_lost").int(fx.hit_lost as i64);
        w.end_obj();
    }
    w.end_arr();
    w.finish()
}

fn side_effects_text(path: &str, effects: &[(&Probe, SideEffects)]) -> String {
    let mut out = format!(
        "\nside effects over {} (retrieval of each labelled case, its own parameters)\n",
        line(path)
    );
    if effects.is_empty() {
        out.push_str("  no probe turns an outcome on: nothing replayed\n");
    }
    for (p, fx) in effects {
        let _ = writeln!(
            out,
            "  with {}: top-1 would change in {} of {} cases; hit@k gained in {}, lost in {}",
            line(&p.change.label()),
            fx.top1_changed,
            fx.cases,
            fx.hit_gained,
            fx.hit_lost
        );
    }
    out
}

fn run_suite(
    engine: &crate::engine::Engine,
    path: &str,
    knobs: &Knobs,
    opts: &TriageOptions,
    json: bool,
) -> u8 {
    let suite = match load_suite(Path::new(path)) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    if !has_labels(&suite) {
        crate::sanitize::eprint_line(format!(
            "toolscope: {}: no case names an expected tool: nothing to classify",
            line(path)
        ));
        return EXIT_EMPTY;
    }
    let results = triage_suite(engine, &suite, knobs, opts);
    let skipped = suite.cases.len() - results.len();
    if json {
        let mut s = String::new();
        for r in &results {
            s.push_str(&case_json(r));
            s.push('\n');
        }
        write_stdout(s.as_bytes());
    } else {
        write_text(&suite_text(&suite.name, &results, skipped));
    }
    EXIT_OK
}

/// One JSON Lines object: the triage, or the case with `class: null` and the error.
fn case_json(r: &CaseTriage) -> String {
    match &r.outcome {
        Ok(t) => to_json(t, Some(&r.id), OPERATOR),
        Err(e) => {
            let mut w = crate::jsonout::JsonWriter::new();
            w.begin_obj();
            w.key("case_id").str(&r.id);
            w.key("query").str(&r.query);
            w.key("expected").str_list(&r.expected);
            w.key("class").null();
            w.key("error").str(&e.to_string());
            w.key("mechanism_status").str("unresolved");
            w.end_obj();
            w.finish()
        }
    }
}

/// The suite table: counts per class first, then one line per case.
fn suite_text(suite: &str, results: &[CaseTriage], skipped: usize) -> String {
    let mut out = String::new();
    let (counts, unclassified) = counts(results);
    let _ = writeln!(
        out,
        "suite {}: {} triaged{}",
        line(suite),
        crate::output::text::count(results.len() as u64, "case"),
        if skipped > 0 {
            format!(", {skipped} without an expected tool skipped")
        } else {
            String::new()
        }
    );
    let _ = writeln!(out, "\n{:<26} {:>5}", "class", "cases");
    for (c, n) in &counts {
        let mut subs = String::new();
        if *c == "not_retrieved" && *n > 0 {
            let mut by: Vec<(&str, usize)> = Vec::new();
            for t in results.iter().filter_map(|r| r.outcome.as_ref().ok()) {
                if let Some(s) = t.class.sub_cause() {
                    match by.iter_mut().find(|b| b.0 == s.as_str()) {
                        Some(b) => b.1 += 1,
                        None => by.push((s.as_str(), 1)),
                    }
                }
            }
            let parts: Vec<String> = by.iter().map(|(s, n)| format!("{s} {n}")).collect();
            subs = format!("  ({})", parts.join(", "));
        }
        let _ = writeln!(out, "{c:<26} {n:>5}{subs}");
    }
    if unclassified > 0 {
        let _ = writeln!(out, "{:<26} {unclassified:>5}", "(no class: input)");
    }
    let _ = writeln!(
        out,
        "\n{:<22} {:<30} {:>4} {:>5}  {:<28} {:<28} query",
        "case", "class", "rank", "full", "expected", "selected"
    );
    for r in results {
        match &r.outcome {
            Ok(t) => {
                let class = match t.class.sub_cause() {
                    Some(s) => format!("{}/{}", t.class.as_str(), s.as_str()),
                    None => t.class.as_str().to_string(),
                };
                let _ = writeln!(
                    out,
                    "{:<22} {:<30} {:>4} {:>5}  {:<28} {:<28} {:?}",
                    line(&r.id),
                    class,
                    opt_rank(t.rank),
                    opt_rank(t.full_rank),
                    line(&t.expected),
                    line(&t.selection.selected_target),
                    line(&r.query)
                );
            }
            Err(e) => {
                let _ = writeln!(
                    out,
                    "{:<22} (no class) {}",
                    line(&r.id),
                    line(&e.to_string())
                );
            }
        }
    }
    out
}
