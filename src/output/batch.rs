//! Batch mode's one line: a golden-format case (`id`, `query`, `params`, `selector`) in,
//! `{"id", "query", "params"?, "selector"?, "retrieval", "selection"}` out — the case's own
//! question and knobs, then the reference's response with its keys and number forms.
//! Used by `toolscope query --batch`, the harness and the parity tests.

use serde::Deserialize;
use serde_json::Value;

use super::json;
use crate::engine::params::Policy;
use crate::engine::{Engine, Params, SelectParams};
use crate::jsonout::JsonWriter;

#[derive(Deserialize)]
struct Case {
    #[serde(default, deserialize_with = "crate::jsonin::value")]
    id: Value,
    query: String,
    #[serde(default)]
    params: CaseParams,
    #[serde(default)]
    selector: Option<CaseSelector>,
}

#[derive(Deserialize, Default)]
struct CaseParams {
    top_k: Option<usize>,
    depth: Option<usize>,
    token_budget: Option<usize>,
    #[serde(default)]
    history: Option<Vec<String>>,
    #[serde(default)]
    learning_suggestions: Option<Vec<Value>>,
}

#[derive(Deserialize)]
struct CaseSelector {
    #[serde(default)]
    llm_target: Option<String>,
    #[serde(default)]
    policy: Option<String>,
}

fn case_params(p: CaseParams) -> Params {
    let d = Params::default();
    Params {
        top_k: p.top_k.unwrap_or(d.top_k),
        depth: p.depth.unwrap_or(d.depth),
        token_budget: p.token_budget.unwrap_or(d.token_budget),
        history: p.history.unwrap_or_default(),
        learning_suggestions: p.learning_suggestions.unwrap_or_default(),
        ..d
    }
}

/// The case's own parameters as given (absent ones are the defaults), when it has any.
fn write_params(p: &CaseParams, w: &mut JsonWriter) {
    let any = p.top_k.is_some()
        || p.depth.is_some()
        || p.token_budget.is_some()
        || p.history.is_some()
        || p.learning_suggestions.is_some();
    if !any {
        return;
    }
    w.key("params").begin_obj();
    for (k, v) in [
        ("top_k", p.top_k),
        ("depth", p.depth),
        ("token_budget", p.token_budget),
    ] {
        if let Some(v) = v {
            w.key(k).int(v as i64);
        }
    }
    if let Some(h) = &p.history {
        w.key("history").str_list(h);
    }
    if let Some(l) = &p.learning_suggestions {
        w.key("learning_suggestions").begin_arr();
        for x in l {
            w.value(x);
        }
        w.end_arr();
    }
    w.end_obj();
}

/// Why a batch line could not be run.
#[derive(Debug)]
pub enum BatchError {
    /// Not a case: the JSON error and the JSON pointer of the value at fault (empty when
    /// the line as a whole is; a wrong type names its field, e.g. `/params/top_k`).
    Json(serde_json::Error, String),
    /// The query is over [`crate::limits::QUERY_BYTES`].
    Query(String),
}

impl std::fmt::Display for BatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BatchError::Json(e, pointer) if pointer.is_empty() => e.fmt(f),
            BatchError::Json(e, pointer) => write!(f, "{pointer}: {e}"),
            BatchError::Query(m) => f.write_str(m),
        }
    }
}

/// One batch line: `{"id", "query", "params"?, "selector"?, "retrieval", "selection"}`.
pub fn batch_line(engine: &Engine, line: &str) -> Result<String, BatchError> {
    let case: Case = serde_json::from_str(line).map_err(|e| {
        // the cold path: parse again, tracking the path, to name the field at fault
        let mut de = serde_json::Deserializer::from_str(line);
        let pointer = match serde_path_to_error::deserialize::<_, Case>(&mut de) {
            Err(pe) => crate::model::load::path_to_pointer(pe.path()),
            Ok(_) => String::new(),
        };
        BatchError::Json(e, pointer)
    })?;
    crate::limits::check_query(&case.query).map_err(BatchError::Query)?;
    let mut w = JsonWriter::with_capacity(16384);
    w.begin_obj();
    w.key("id").value(&case.id);
    // the question and the knobs it was asked with, so the line can be read (and replayed)
    // on its own; parity compares only `retrieval` and `selection`
    w.key("query").str(&case.query);
    write_params(&case.params, &mut w);
    if let Some(sel) = &case.selector {
        w.key("selector").begin_obj();
        w.key("llm_target").opt_str(sel.llm_target.as_deref());
        w.key("policy")
            .str(sel.policy.as_deref().unwrap_or("strong_evidence"));
        w.end_obj();
    }
    let params = case_params(case.params);
    let r = engine.retrieve(&case.query, &params);
    w.key("retrieval");
    json::write_retrieval(engine, &r, &mut w);
    w.key("selection");
    match case.selector {
        Some(sel) => {
            let sp = SelectParams {
                llm_target: sel.llm_target,
                policy: sel.policy.map(Policy::from).unwrap_or_default(),
            };
            json::write_selection(&engine.select(&r, &sp), &mut w);
        }
        None => {
            w.null();
        }
    }
    w.end_obj();
    Ok(w.finish())
}
