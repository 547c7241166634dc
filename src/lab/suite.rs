//! Suites of labelled queries, read from the formats found in the wild:
//! graph-tool-call ground truth (`{"queries": [{"query", "expected_tools"}]}`), golden case
//! files (JSON Lines with `labels.expected_tools`), the seed's regression fixtures
//! (`{"case_id", "query", "expected_target"}`, one object, a list, or JSON Lines).

use serde_json::Value;
use std::path::Path;

use crate::error::InputError;
use crate::model::load::{into_text, json_error, read_input};

#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    pub id: String,
    pub query: String,
    /// Expected tools (a hit is any of them). Fixture labels: never shown to model-facing callers.
    pub expected: Vec<String>,
    pub top_k: Option<usize>,
    /// Unknown keys are kept.
    pub extra: Value,
}

#[derive(Debug, Clone, Default)]
pub struct Suite {
    pub name: String,
    pub cases: Vec<Case>,
}

fn case_from(v: &Value, fallback_id: String, file: &str, place: &str) -> Result<Case, InputError> {
    let o = v
        .as_object()
        .ok_or_else(|| InputError::new(file, place, "expected a case object".into()))?;
    let query = o
        .get("query")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            InputError::new(
                file,
                &format!("{place}/query"),
                "missing \"query\" string".into(),
            )
        })?
        .to_string();
    let id = ["case_id", "id"]
        .iter()
        .find_map(|k| o.get(*k).and_then(Value::as_str))
        .map(String::from)
        .unwrap_or(fallback_id);
    let mut expected: Vec<String> = Vec::new();
    let list = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    if let Some(v) = o.get("expected_tools") {
        expected = list(v);
    } else if let Some(v) = o.get("labels").and_then(|l| l.get("expected_tools")) {
        expected = list(v);
    } else if let Some(t) = o.get("expected_target").and_then(Value::as_str) {
        expected = vec![t.to_string()];
    }
    let top_k = ["top_k", "expected_top_k"]
        .iter()
        .find_map(|k| o.get(*k).and_then(Value::as_u64))
        .map(|k| k as usize);
    Ok(Case {
        id,
        query,
        expected,
        top_k,
        extra: v.clone(),
    })
}

/// Loads a suite from a file in any of the supported formats (detected from content).
pub fn load_suite(path: &Path) -> Result<Suite, InputError> {
    let file = path.display().to_string();
    let text = into_text(&file, read_input(path)?)?;
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().trim_end_matches(".json").to_string())
        .unwrap_or_default();
    parse_suite(&file, &name, &text)
}

pub fn parse_suite(file: &str, name: &str, text: &str) -> Result<Suite, InputError> {
    if text.trim().is_empty() {
        return Err(InputError::new(file, "", "empty suite".into()));
    }
    let mut cases = Vec::new();
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(o)) if o.contains_key("queries") => {
            let qs = o["queries"]
                .as_array()
                .ok_or_else(|| InputError::new(file, "/queries", "expected a list".into()))?;
            for (i, q) in qs.iter().enumerate() {
                cases.push(case_from(
                    q,
                    format!("{name}/{:04}", i + 1),
                    file,
                    &format!("/queries/{i}"),
                )?);
            }
        }
        Ok(Value::Object(_)) => {
            let v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
            cases.push(case_from(&v, format!("{name}/0001"), file, "")?);
        }
        Ok(Value::Array(items)) => {
            for (i, q) in items.iter().enumerate() {
                cases.push(case_from(
                    q,
                    format!("{name}/{:04}", i + 1),
                    file,
                    &format!("/{i}"),
                )?);
            }
        }
        Ok(_) => {
            return Err(InputError::new(
                file,
                "",
                "expected a suite object, a list of cases or JSON Lines".into(),
            ));
        }
        Err(_) => {
            for (i, line) in text.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                let v: Value = serde_json::from_str(line)
                    .map_err(|e| json_error(file, &e, "").with_line(i + 1))?;
                cases.push(case_from(
                    &v,
                    format!("{name}/{:04}", i + 1),
                    file,
                    &format!("{}", i + 1),
                )?);
            }
        }
    }
    if cases.is_empty() {
        return Err(InputError::new(file, "", "the suite has no cases".into()));
    }
    Ok(Suite {
        name: name.to_string(),
        cases,
    })
}
