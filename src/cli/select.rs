//! `toolscope select`: the target selector on its own, over candidates you name or the
//! rows of a captured retrieval response (as production called it).

use clap::Args;
use serde_json::Value;
use std::path::Path;

use super::graph_arg::load_engine;
use super::query::write_stdout;
use super::{EXIT_OK, fail};
use crate::engine::params::Policy;
use crate::engine::select::{SelectInput, select};
use crate::model::load::{into_text, read_input};
use crate::output::{json, text};

#[derive(Args, Debug)]
pub struct SelectArgs {
    /// Graph artifact, a spec or tool list (built on load), or `demo` (the tools the selector reads)
    pub graph: String,
    /// The query, as the user typed it
    #[arg(value_parser = super::query_arg)]
    pub query: String,
    /// Candidate tool names, comma-separated, in retrieval order
    #[arg(long, value_delimiter = ',', conflicts_with = "from")]
    pub candidates: Vec<String>,
    /// Read candidates and retrieval scores from a captured response (`results[]`)
    #[arg(long, value_name = "FILE")]
    pub from: Option<String>,
    /// The tool the model picked
    #[arg(long)]
    pub llm_target: Option<String>,
    /// Selector policy: strong_evidence or risk_limited (strong evidence overrides the
    /// model's pick), manual_review (never overrides)
    #[arg(long, default_value = "strong_evidence", value_parser = super::policy_arg())]
    pub policy: Policy,
    /// The selector's block as JSON (target_selector)
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: SelectArgs) -> u8 {
    let engine = match load_engine(&a.graph) {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    let (names, retrieval): (Vec<String>, Vec<(String, Option<f64>)>) = match &a.from {
        Some(p) => {
            let v: Value = match read_input(Path::new(p)).and_then(|b| into_text(p, b)) {
                Ok(t) => match crate::jsonin::from_str(&t) {
                    Ok(v) => v,
                    Err(e) => {
                        return fail(
                            crate::model::load::not_json(p, &t, "a retrieval response (JSON)")
                                .unwrap_or_else(|| crate::model::load::json_error(p, &e, "")),
                        );
                    }
                },
                Err(e) => return fail(e),
            };
            let rows = v
                .get("results")
                .or_else(|| v.get("retrieval").and_then(|r| r.get("results")))
                .and_then(Value::as_array);
            let Some(rows) = rows else {
                return fail(format!(
                    "{p}:/results: expected a retrieval response with results[]"
                ));
            };
            let pairs: Vec<(String, Option<f64>)> = rows
                .iter()
                .filter_map(|r| {
                    let name = ["name", "tool", "target", "id"]
                        .iter()
                        .find_map(|k| r.get(*k).and_then(Value::as_str))?;
                    Some((
                        name.to_string(),
                        r.get("score")
                            .and_then(Value::as_f64)
                            .or_else(|| r.get("final_score").and_then(Value::as_f64)),
                    ))
                })
                .collect();
            (pairs.iter().map(|p| p.0.clone()).collect(), pairs)
        }
        None => (a.candidates.clone(), Vec::new()),
    };
    for n in &names {
        if engine.graph.tool_id(n).is_none() {
            crate::sanitize::eprint_line(format!(
                "warning: candidate {} is not a tool of this graph; the selector drops it",
                crate::sanitize::quoted(n)
            ));
        }
    }
    let input = SelectInput {
        query: &a.query,
        candidates: names,
        retrieval,
        llm_target: a.llm_target.as_deref(),
        policy: &a.policy,
        suggestions: &[],
    };
    let sel = select(&engine, &input);
    if a.json {
        write_stdout(format!("{}\n", json::selection_json(&sel)).as_bytes());
    } else {
        super::query::write_text(&text::selection_summary(&sel));
    }
    EXIT_OK
}
