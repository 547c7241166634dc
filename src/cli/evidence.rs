//! `toolscope evidence`, `explain`, `trace`, `counterfactual` and `mcp`: the evidence
//! tools on the command line and over MCP.

use clap::Args;
use serde_json::Value;

use super::graph_arg::load_engine;
use super::query::write_stdout;
use super::{EXIT_EMPTY, EXIT_INPUT, EXIT_OK, fail};
use crate::engine::explain::{Explanation, Op, Status};
use crate::evidence::knobs::Knobs;
use crate::evidence::mcp::Server;
use crate::evidence::tools::{Audience, CONTRACTS, Session, ToolError, write_contract};
use crate::jsonout::JsonWriter;
use crate::lab::suite::{Suite, load_suite};
use crate::sanitize::line;

#[derive(Args, Debug)]
pub struct EvidenceArgs {
    /// An evidence tool (see `toolscope evidence contracts`), or `contracts`
    pub tool: String,
    /// Arguments as a JSON object, e.g. '{"metric_id":"retrieval.score","query":"...","scope_id":"getOrder"}'
    #[arg(long, default_value = "{}")]
    pub args: String,
    /// Graph artifact, a spec or tool list (built on load), or `demo`
    #[arg(long, default_value = "demo")]
    pub graph: String,
    /// A suite of labelled cases (for case_id, lab metrics and suite counterfactuals)
    #[arg(long, value_name = "FILE")]
    pub cases: Option<String>,
    /// Answer as a model-facing caller would see it (current-decision evidence only)
    #[arg(long)]
    pub model: bool,
    /// The old graph `compare_artifacts` compares --graph with
    #[arg(long, value_name = "OLD")]
    pub baseline: Option<String>,
    /// Print JSON (the default for tool results; `contracts` prints a table without it)
    #[arg(long)]
    pub json: bool,
    /// Another system's metric registry (with --events): evidence over its event log
    #[arg(long, value_name = "FILE", requires = "events")]
    pub registry: Option<String>,
    /// Another system's event log, JSON Lines (with --registry)
    #[arg(long, value_name = "FILE", requires = "registry")]
    pub events: Option<String>,
}

fn load_cases(path: Option<&str>) -> Result<Option<Suite>, u8> {
    match path {
        None => Ok(None),
        Some(p) => load_suite(std::path::Path::new(p)).map(Some).map_err(fail),
    }
}

pub fn run_evidence(a: EvidenceArgs) -> u8 {
    if a.tool == "contracts" {
        if a.json {
            let mut w = JsonWriter::new();
            w.begin_arr();
            for c in CONTRACTS {
                write_contract(c, &mut w);
            }
            w.end_arr();
            write_stdout(format!("{}\n", w.finish()).as_bytes());
        } else {
            let mut s = String::new();
            for c in CONTRACTS {
                s.push_str(&format!("{:<32} {}\n", c.name, c.purpose));
                let ins: Vec<String> = c
                    .inputs
                    .iter()
                    .map(|(n, _, r, _)| if *r { n.to_string() } else { format!("[{n}]") })
                    .collect();
                s.push_str(&format!(
                    "{:<32} inputs: {}; read_only: true; returns_action_recommendations: false\n\n",
                    "",
                    ins.join(" ")
                ));
            }
            super::query::write_text(&s);
        }
        return EXIT_OK;
    }
    let args: Value = match crate::jsonin::from_str(&a.args) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) => return fail("--args: expected a JSON object"),
        Err(e) => return fail(format!("--args: invalid JSON: {e}")),
    };
    if let (Some(r), Some(ev)) = (&a.registry, &a.events) {
        let sys =
            match crate::evidence::foreign::load(std::path::Path::new(r), std::path::Path::new(ev))
            {
                Ok(s) => s,
                Err(e) => return fail(e),
            };
        for (_, msg) in &sys.skipped {
            crate::sanitize::eprint_line(format!("warning: skipped {msg}"));
        }
        return match crate::evidence::foreign::call(&sys, &a.tool, &args) {
            Ok(v) => {
                write_stdout(format!("{}\n", crate::jsonout::to_pretty_safe(&v)).as_bytes());
                EXIT_OK
            }
            Err(m) => {
                crate::sanitize::eprint_line(format!("toolscope: {}: {m}", a.tool));
                EXIT_EMPTY
            }
        };
    }
    let engine = match load_engine(&a.graph) {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    let suite = match load_cases(a.cases.as_deref()) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if a.tool == "compare_artifacts" && a.baseline.is_none() {
        return fail("compare_artifacts compares --graph NEW with --baseline OLD: give --baseline");
    }
    let baseline = match a.baseline.as_deref().map(load_engine).transpose() {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    let mut session = Session::new(
        &engine,
        if a.model {
            Audience::Model
        } else {
            Audience::Operator
        },
    );
    session.suite = suite.as_ref();
    session.baseline = baseline.as_ref();
    match session.call(&a.tool, &args) {
        Ok(v) => {
            write_stdout(format!("{}\n", crate::jsonout::to_pretty_safe(&v)).as_bytes());
            EXIT_OK
        }
        Err(e @ (ToolError::UnknownTool(_) | ToolError::InvalidArguments(_))) => fail(e),
        Err(ToolError::Execution(m)) => {
            crate::sanitize::eprint_line(format!("toolscope: {}: {m}", a.tool));
            EXIT_EMPTY
        }
    }
}

#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// Graph artifact, a spec or tool list (built on load), or `demo`
    pub graph: String,
    /// The query, as the user typed it
    #[arg(value_parser = super::query_arg)]
    pub query: String,
    /// The tool whose score to explain (default: the top result)
    #[arg(long)]
    pub tool: Option<String>,
    /// retrieval.score, retrieval.seed, retrieval.graph, selector.score, selector.confidence, selector.margin, selector.llm_margin
    #[arg(long, default_value = "retrieval.score")]
    pub metric: String,
    /// A knob setting, e.g. --set depth=1 (repeatable)
    #[arg(long = "set", value_name = "KNOB=VALUE")]
    pub set: Vec<String>,
    /// The decomposition tree as JSON
    #[arg(long)]
    pub json: bool,
    /// ASCII tree glyphs
    #[arg(long)]
    pub ascii: bool,
}

fn knobs_from(sets: &[String]) -> Result<Knobs, String> {
    let mut k = Knobs::default();
    for s in sets {
        k = k.set_from_str(s)?;
    }
    Ok(k)
}

/// Renders an explanation tree as indented text.
pub fn tree_text(e: &Explanation, ascii: bool) -> String {
    let mut out = String::new();
    fn go(e: &Explanation, prefix: &str, last: bool, root: bool, ascii: bool, out: &mut String) {
        let (branch, pipe, end) = if ascii {
            ("|-- ", "|   ", "`-- ")
        } else {
            ("├─ ", "│  ", "└─ ")
        };
        let op = match e.op.name() {
            "leaf" => String::new(),
            "round" => format!(" [{}]", e.op.name()),
            other => format!(" [{other}]"),
        };
        let w = e.weight.map(|w| format!(" x{w}")).unwrap_or_default();
        let detail = e
            .detail
            .as_ref()
            .map(|d| format!("  ({})", line(d)))
            .unwrap_or_default();
        let head = if root {
            String::new()
        } else {
            format!("{prefix}{}", if last { end } else { branch })
        };
        out.push_str(&format!(
            "{head}{}{w} = {}{op}{detail}\n",
            line(&e.label),
            crate::pytext::float_repr(e.value)
        ));
        let child_prefix = if root {
            String::new()
        } else {
            format!("{prefix}{}", if last { "   " } else { pipe })
        };
        for (i, c) in e.children.iter().enumerate() {
            go(
                c,
                &child_prefix,
                i + 1 == e.children.len(),
                false,
                ascii,
                out,
            );
        }
    }
    go(e, "", true, true, ascii, &mut out);
    out
}

pub fn run_explain(a: ExplainArgs) -> u8 {
    let engine = match load_engine(&a.graph) {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    let knobs = match knobs_from(&a.set) {
        Ok(k) => k,
        Err(e) => return fail(format!("--set: {e}")),
    };
    let tool = match &a.tool {
        Some(t) => Some(t.clone()),
        None => engine
            .retrieve(&a.query, &knobs.params)
            .rows
            .first()
            .map(|r| r.name.clone()),
    };
    let per_tool = crate::evidence::registry::metric(&a.metric)
        .map(|m| m.per_tool)
        .unwrap_or(true);
    let scope = tool.as_deref().filter(|_| per_tool);
    let mut session = Session::new(&engine, Audience::Operator);
    // the answer stays typed: the tree is printed from it, or written once as JSON
    match session.explain_request(&a.metric, &a.query, knobs, scope) {
        Ok(answer) => {
            let status = answer.status();
            if a.json {
                let mut w = JsonWriter::new();
                w.begin_obj();
                session.write_answer(&answer, &mut w);
                w.key("read_only").bool(true);
                w.key("returns_action_recommendations").bool(false);
                w.end_obj();
                write_stdout(format!("{}\n", pretty(&w.finish())).as_bytes());
            } else {
                let mut s = format!(
                    "{} for {}{} — mechanism_status: {}\n\n",
                    a.metric,
                    answer
                        .tree
                        .as_ref()
                        .and(answer.scope_id.as_deref())
                        .map(|t| format!("{} / ", line(t)))
                        .unwrap_or_default(),
                    crate::sanitize::quoted(&a.query),
                    status.as_str()
                );
                match &answer.tree {
                    Some(tree) => s.push_str(&tree_text(tree, a.ascii)),
                    // no value: the empty tree's line, as this command has always printed
                    None => s.push_str(&tree_text(
                        &Explanation::node("", f64::NAN, Op::Leaf, Vec::new()),
                        a.ascii,
                    )),
                }
                super::query::write_text(&s);
            }
            if status == Status::Resolved {
                EXIT_OK
            } else {
                EXIT_EMPTY
            }
        }
        Err(e @ (ToolError::UnknownTool(_) | ToolError::InvalidArguments(_))) => fail(e),
        Err(ToolError::Execution(m)) => {
            crate::sanitize::eprint_line(format!("toolscope: {m}"));
            EXIT_EMPTY
        }
    }
}

/// Pretty-prints JSON the tools wrote (key order kept), with terminal hazards escaped.
fn pretty(json: &str) -> String {
    let v: Value = serde_json::from_str(json).unwrap_or(Value::Null);
    crate::jsonout::to_pretty_safe(&v)
}

#[derive(Args, Debug)]
pub struct TraceArgs {
    /// Graph artifact, a spec or tool list (built on load), or `demo`
    pub graph: String,
    /// The query, as the user typed it
    #[arg(value_parser = super::query_arg)]
    pub query: String,
    /// Only events about this tool (trace_entity)
    #[arg(long)]
    pub tool: Option<String>,
    /// Only events of this stage (query, bm25, seeds, intent, expand, history, learning, rank, render, selector)
    #[arg(long)]
    pub stage: Option<String>,
    /// A knob setting, e.g. --set depth=1 (repeatable)
    #[arg(long = "set", value_name = "KNOB=VALUE")]
    pub set: Vec<String>,
    /// JSON Lines, one event per line
    #[arg(long)]
    pub json: bool,
}

pub fn run_trace(a: TraceArgs) -> u8 {
    let engine = match load_engine(&a.graph) {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    let knobs = match knobs_from(&a.set) {
        Ok(k) => k,
        Err(e) => return fail(format!("--set: {e}")),
    };
    // a name the graph does not have would print nothing (exit 1): say so, with the
    // closest names, as triage does
    if let Some(name) = a
        .tool
        .as_ref()
        .filter(|n| engine.graph.tool_id(n).is_none())
    {
        let closest = crate::engine::triage::closest_names(&engine, name, 3);
        return fail(format!(
            "--tool: \"{name}\" is not a tool of {}{}",
            a.graph,
            crate::engine::triage::closest_suffix(&closest)
        ));
    }
    let (_, _, t) =
        crate::engine::trace::record(&engine, &a.query, &knobs.params, Some(&knobs.select));
    let events: Vec<&crate::engine::trace::Event> = t
        .events
        .iter()
        .filter(|e| a.tool.as_ref().is_none_or(|tool| e.mentions(tool)))
        .filter(|e| a.stage.as_ref().is_none_or(|s| e.stage == s))
        .collect();
    let mut s = String::new();
    for e in &events {
        if a.json {
            let mut w = JsonWriter::new();
            e.write_json(&mut w);
            s.push_str(&w.finish());
            s.push('\n');
        } else {
            s.push_str(&format!(
                "{:>4}  {:<9} {:<20} {}\n",
                e.seq,
                e.stage,
                e.kind,
                line(&e.summary)
            ));
        }
    }
    super::query::write_text(&s);
    if events.is_empty() {
        EXIT_EMPTY
    } else {
        EXIT_OK
    }
}

#[derive(Args, Debug)]
pub struct CounterfactualArgs {
    /// Graph artifact, a spec or tool list (built on load), or `demo`
    pub graph: String,
    /// The query (omit with --cases to compare the whole suite)
    #[arg(value_parser = super::query_arg)]
    pub query: Option<String>,
    /// The knob to change, e.g. depth=1, relation_weight=requires:0.2, learning=false (repeat to see a confounded comparison)
    #[arg(
        long = "set",
        value_name = "KNOB=VALUE",
        required_unless_present = "against"
    )]
    pub set: Vec<String>,
    /// A second graph: the same query (or suite) on GRAPH and on NEW with the knobs held
    /// fixed (with --set as well, the comparison is confounded)
    #[arg(long, value_name = "NEW")]
    pub against: Option<String>,
    /// Base knob settings (default: the engine defaults)
    #[arg(long = "base", value_name = "KNOB=VALUE")]
    pub base: Vec<String>,
    /// Compare over a suite of labelled cases: Δ hit@k and Δ MRR with bootstrap intervals
    #[arg(long, value_name = "FILE")]
    pub cases: Option<String>,
    /// Learning suggestions for both runs (JSON list, {"suggestions": [...]}, or JSON
    /// Lines); without them the learning knob cannot change anything
    #[arg(long, value_name = "FILE")]
    pub learning: Option<String>,
    /// Both rankings and the change as one JSON object
    #[arg(long)]
    pub json: bool,
    /// ASCII marks only (v and ^ for the rank moves)
    #[arg(long)]
    pub ascii: bool,
}

/// `toolscope counterfactual`: one query or a suite ranked under the base and the variant
/// knobs (or on two graphs), written as one JSON object or as a table of the change.
pub fn run_counterfactual(a: CounterfactualArgs) -> u8 {
    use crate::evidence::counterfactual as cf;
    let engine = match load_engine(&a.graph) {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    let against = match a.against.as_deref().map(load_engine).transpose() {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    let pair = (&engine, against.as_ref().unwrap_or(&engine));
    let cols = if against.is_some() {
        ("old", "new")
    } else {
        ("base", "var")
    };
    let (base, variant) = match counterfactual_knobs(&a) {
        Ok(k) => k,
        Err(code) => return code,
    };
    let suite = match load_cases(a.cases.as_deref()) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let contract = match &against {
        Some(new) => cf::graph_contract(
            engine.graph.fingerprint(),
            new.graph.fingerprint(),
            &base,
            &variant,
        ),
        None => cf::contract(&base, &variant),
    };
    let mut w = JsonWriter::new();
    let text = match (&a.query, &suite) {
        (Some(q), _) => {
            let c = cf::compare_graphs(pair, q, &base, &variant, true, contract);
            w.begin_obj();
            cf::write_comparison_fields(&c, &mut w, true);
            w.end_obj();
            query_change_text(&c, cols, a.ascii)
        }
        (None, Some(s)) => {
            let k = base.params.top_k;
            let r = cf::compare_suite_graphs(pair, s, &base, &variant, k, contract);
            w.begin_obj();
            cf::write_suite_fields(&r, &mut w, true, true);
            w.end_obj();
            suite_change_text(&r, k)
        }
        (None, None) => return fail("give a QUERY or --cases FILE"),
    };
    if a.json {
        write_stdout(format!("{}\n", w.finish()).as_bytes());
    } else {
        super::query::write_text(&text);
    }
    EXIT_OK
}

/// The base knobs (`--base`, with `--learning`'s suggestions) and the variant (the base
/// with each `--set` applied in order); an error is reported and its exit code returned.
fn counterfactual_knobs(a: &CounterfactualArgs) -> Result<(Knobs, Knobs), u8> {
    let mut base = knobs_from(&a.base).map_err(|e| fail(format!("--base: {e}")))?;
    if let Some(p) = &a.learning {
        match super::query::load_learning(p) {
            Ok(v) => base.params.learning_suggestions = v,
            Err(e) => return Err(fail(e)),
        }
    }
    let mut variant = base.clone();
    for s in &a.set {
        variant = variant
            .set_from_str(s)
            .map_err(|e| fail(format!("--set: {e}")))?;
    }
    Ok((base, variant))
}

/// One query's change as text: the mechanism status, each tool's move with both ranks
/// and scores (columns named by `cols`), the overlap, and the selector's choice.
fn query_change_text(
    c: &crate::evidence::counterfactual::Comparison,
    (col_a, col_b): (&str, &str),
    ascii: bool,
) -> String {
    let mut text = String::new();
    text.push_str(&format!(
        "mechanism_status: {} — {}\n\n",
        c.contract.status, c.contract.note
    ));
    text.push_str(&format!(
        "{:<6} {:<34} {:>5} {:>5} {:>8} {:>8}\n",
        "move", "tool", col_a, col_b, col_a, col_b
    ));
    for m in &c.moves {
        let r = |x: Option<usize>| x.map(|v| v.to_string()).unwrap_or_else(|| "-".into());
        let s = |x: Option<f64>| x.map(|v| format!("{v:.4}")).unwrap_or_else(|| "-".into());
        text.push_str(&format!(
            "{:<6} {:<34} {:>5} {:>5} {:>8} {:>8}\n",
            m.marker(ascii),
            line(&m.tool),
            r(m.base_rank),
            r(m.variant_rank),
            s(m.base_score),
            s(m.variant_score)
        ));
    }
    text.push_str(&format!(
        "\njaccard {:.4}  rbo(p=0.9) {:.4}  gained {}  lost {}\n",
        c.jaccard,
        c.rbo,
        c.gained().len(),
        c.lost().len()
    ));
    if let (Some(sa), Some(sb)) = (&c.base_selection, &c.variant_selection) {
        text.push_str(&format!(
            "selector: {} -> {}{}\n",
            line(&sa.selected_target),
            line(&sb.selected_target),
            if c.selector_changed() {
                " (changed)"
            } else {
                " (unchanged)"
            }
        ));
    }
    text
}

/// A suite's change as text: the mechanism status, then hit@k and MRR with their paired
/// bootstrap intervals, or the mean overlap when no case is labelled.
fn suite_change_text(r: &crate::evidence::counterfactual::SuiteComparison, k: usize) -> String {
    let mut text = String::new();
    text.push_str(&format!(
        "mechanism_status: {} — {}\n",
        r.contract.status, r.contract.note
    ));
    if r.labelled == 0 {
        let (j, b) = (
            crate::lab::metrics::mean(&r.cases.iter().map(|c| c.jaccard).collect::<Vec<_>>()),
            crate::lab::metrics::mean(&r.cases.iter().map(|c| c.rbo).collect::<Vec<_>>()),
        );
        text.push_str(&format!(
            "{} cases, none labelled: no hit@k or MRR (an unlabelled case has no hit or miss)\nmean Jaccard {j:.4}, mean RBO {b:.4} (base against variant)\n",
            r.cases.len()
        ));
    } else {
        let unl = r.cases.len() - r.labelled;
        text.push_str(&format!(
            "{} cases{}, k={k}\nhit@k  {:.4} -> {:.4}  Δ {:+.4} [{:+.4}, {:+.4}]\nMRR    {:.4} -> {:.4}  Δ {:+.4} [{:+.4}, {:+.4}]\n(paired bootstrap, 1000 resamples, seed 42)\n",
            r.cases.len(),
            if unl > 0 {
                format!(" ({} labelled; hit@k and MRR over them)", r.labelled)
            } else {
                String::new()
            },
            r.base_hit,
            r.variant_hit,
            r.delta_hit.0,
            r.delta_hit.1,
            r.delta_hit.2,
            r.base_mrr,
            r.variant_mrr,
            r.delta_mrr.0,
            r.delta_mrr.1,
            r.delta_mrr.2
        ));
    }
    text
}

#[derive(Args, Debug)]
pub struct McpArgs {
    /// Graph artifact, a spec or tool list (built on load), or `demo`
    pub graph: String,
    /// A suite of labelled cases (case ids usable as queries; labels are never shown)
    #[arg(long, value_name = "FILE")]
    pub cases: Option<String>,
    /// Per-session call budget
    #[arg(long, default_value_t = 64)]
    pub budget: usize,
}

pub fn run_mcp(a: McpArgs) -> u8 {
    let engine = match super::graph_arg::load_engine_fingerprinted(&a.graph) {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    let suite = match load_cases(a.cases.as_deref()) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let mut session = Session::new(&engine, Audience::Model);
    session.suite = suite.as_ref();
    session.budget = Some(a.budget);
    crate::sanitize::eprint_line(format!(
        "toolscope mcp: {} ({} tools), {} evidence tools, budget {} calls; reading JSON-RPC on stdin",
        engine.graph.info.source,
        engine.graph.tool_count(),
        session.tools().count(),
        a.budget
    ));
    let mut server = Server::new(session);
    let stdin = std::io::stdin();
    match server.serve(stdin.lock(), std::io::stdout()) {
        Ok(()) => EXIT_OK,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(e) => {
            crate::sanitize::eprint_line(format!("toolscope mcp: {e}"));
            EXIT_INPUT
        }
    }
}
