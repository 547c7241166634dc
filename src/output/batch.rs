//! Batch mode's one line: a golden-format case (`id`, `query`, `params`, `selector`) in,
//! `{"id", "retrieval", "selection"}` out, with the reference's keys and number forms.
//! Used by `toolscope query --batch`, the harness and the parity tests.

use serde::Deserialize;
use serde_json::Value;

use super::json;
use crate::engine::{Engine, Params, SelectParams};
use crate::jsonout::JsonWriter;

#[derive(Deserialize)]
struct Case {
    #[serde(default)]
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

/// One batch line: `{"id", "retrieval", "selection"}`.
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
    let params = case_params(case.params);
    let r = engine.retrieve(&case.query, &params);
    let mut w = JsonWriter::with_capacity(16384);
    w.begin_obj();
    w.key("id").value(&case.id);
    w.key("retrieval");
    json::write_retrieval(engine, &r, &mut w);
    w.key("selection");
    match case.selector {
        Some(sel) => {
            let sp = SelectParams {
                llm_target: sel.llm_target,
                policy: sel.policy.unwrap_or_else(|| "strong_evidence".into()),
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
