//! Suites of labelled queries, read from the formats found in the wild:
//! graph-tool-call ground truth (`{"queries": [{"query", "expected_tools"}]}`), golden case
//! files (JSON Lines with `labels.expected_tools`, `params` and `selector`), the seed's
//! regression fixtures (`{"case_id", "query", "expected_target"}`, one object, a list, or
//! JSON Lines).
//!
//! Every field a case may carry is type-checked: a wrong type is an error naming the file
//! and the place (`suite.json:/3/params/top_k`, or `cases.jsonl:7 /history` for JSON
//! Lines), never silently ignored. A case's own parameters (`params.top_k`, `depth`,
//! `token_budget`, `history`, `learning_suggestions`, `selector.llm_target`,
//! `selector.policy`, or the same keys at the top level) are kept as knobs and applied by
//! [`Case::knobs`].

use serde_json::{Map, Value};
use std::path::Path;

use crate::engine::knobs::Knobs;
use crate::error::InputError;
use crate::model::load::{into_text, json_error, read_input};

#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    pub id: String,
    pub query: String,
    /// Expected tools (a hit is any of them). Fixture labels: never shown to model-facing callers.
    pub expected: Vec<String>,
    pub top_k: Option<usize>,
    /// The case's own parameters as knobs (`top_k`, `depth`, `token_budget`, `history`,
    /// `llm_target`, `policy`), type-checked when the suite was read.
    pub knobs: Map<String, Value>,
    /// `params.learning_suggestions`, when given.
    pub learning_suggestions: Option<Vec<Value>>,
    /// Unknown keys are kept.
    pub extra: Value,
}

impl Case {
    /// The knobs this case runs with: `base` (defaults and command-line flags such as
    /// `--top-k`), then the case's own parameters, then `overrides` (`--set KNOB=VALUE`),
    /// which win over both.
    pub fn knobs(&self, base: &Knobs, overrides: &[String]) -> Result<Knobs, String> {
        let mut k = base
            .with_recorded(&self.knobs)
            .map_err(|e| format!("case {}: params: {e}", crate::sanitize::line(&self.id)))?;
        if let Some(s) = &self.learning_suggestions {
            k.params.learning_suggestions = s.clone();
        }
        for s in overrides {
            k = k.set_from_str(s)?;
        }
        Ok(k)
    }

    /// True when the case names at least one expected tool.
    pub fn labelled(&self) -> bool {
        !self.expected.is_empty()
    }
}

#[derive(Debug, Clone, Default)]
pub struct Suite {
    pub name: String,
    pub cases: Vec<Case>,
}

/// Where a case sits: a JSON pointer prefix in a document, or a line of JSON Lines.
#[derive(Clone)]
struct Place {
    line: Option<usize>,
    pointer: String,
}

impl Place {
    fn at(&self, key: &str) -> Place {
        Place {
            line: self.line,
            pointer: format!(
                "{}/{}",
                self.pointer,
                key.replace('~', "~0").replace('/', "~1")
            ),
        }
    }

    fn show(&self) -> String {
        match (self.line, self.pointer.is_empty()) {
            (Some(l), true) => l.to_string(),
            (Some(l), false) => format!("{l} {}", self.pointer),
            (None, _) => self.pointer.clone(),
        }
    }

    fn err(&self, file: &str, msg: impl Into<String>) -> InputError {
        InputError::new(file, &self.show(), msg.into())
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_u64() => "an integer",
        Value::Number(n) if n.is_i64() => "a negative integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn uint(v: &Value, file: &str, at: &Place, max: u64) -> Result<u64, InputError> {
    let n = v.as_u64().ok_or_else(|| {
        at.err(
            file,
            format!("expected a non-negative integer, got {}", type_name(v)),
        )
    })?;
    if n > max {
        return Err(at.err(file, format!("{n} is out of range (at most {max})")));
    }
    Ok(n)
}

fn string_list(v: &Value, file: &str, at: &Place) -> Result<Vec<String>, InputError> {
    let a = v.as_array().ok_or_else(|| {
        at.err(
            file,
            format!("expected a list of tool names, got {}", type_name(v)),
        )
    })?;
    a.iter()
        .enumerate()
        .map(|(i, x)| match x {
            Value::String(s) if !s.is_empty() => Ok(s.clone()),
            Value::String(_) => Err(at.at(&i.to_string()).err(file, "empty tool name")),
            other => Err(at.at(&i.to_string()).err(
                file,
                format!("expected a tool name, got {}", type_name(other)),
            )),
        })
        .collect()
}

fn opt_name(v: &Value, file: &str, at: &Place) -> Result<Option<String>, InputError> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s.clone())),
        other => Err(at.err(
            file,
            format!("expected a tool name or null, got {}", type_name(other)),
        )),
    }
}

/// Reads the parameter keys of `o` (a case, its `params` or its `selector`) into `knobs`.
fn read_params(
    o: &Map<String, Value>,
    keys: &[&str],
    file: &str,
    at: &Place,
    knobs: &mut Map<String, Value>,
    learning: &mut Option<Vec<Value>>,
) -> Result<(), InputError> {
    let max_top_k = crate::limits::TOP_K.get();
    for &key in keys {
        let Some(v) = o.get(key) else {
            continue;
        };
        let p = at.at(key);
        match key {
            "top_k" | "expected_top_k" => {
                knobs.insert("top_k".into(), uint(v, file, &p, max_top_k)?.into());
            }
            "depth" | "token_budget" => {
                knobs.insert(key.into(), uint(v, file, &p, u32::MAX as u64)?.into());
            }
            "history" => {
                knobs.insert(key.into(), string_list(v, file, &p)?.into());
            }
            "llm_target" => {
                knobs.insert(key.into(), opt_name(v, file, &p)?.into());
            }
            "policy" => match v {
                Value::String(s) => {
                    knobs.insert(key.into(), s.clone().into());
                }
                Value::Null => {}
                other => {
                    return Err(p.err(
                        file,
                        format!("expected a policy name, got {}", type_name(other)),
                    ));
                }
            },
            "learning_suggestions" => {
                let a = v.as_array().ok_or_else(|| {
                    p.err(
                        file,
                        format!(
                            "expected a list of learning suggestions, got {}",
                            type_name(v)
                        ),
                    )
                })?;
                for (i, s) in a.iter().enumerate() {
                    if !s.is_object() {
                        return Err(p.at(&i.to_string()).err(
                            file,
                            format!(
                                "expected a learning suggestion object, got {}",
                                type_name(s)
                            ),
                        ));
                    }
                }
                *learning = Some(a.clone());
            }
            _ => {}
        }
    }
    Ok(())
}

fn case_from(v: &Value, fallback_id: String, file: &str, at: &Place) -> Result<Case, InputError> {
    let o = v.as_object().ok_or_else(|| {
        at.err(
            file,
            format!("expected a case object, got {}", type_name(v)),
        )
    })?;
    let query = match o.get("query") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            return Err(at.at("query").err(
                file,
                format!("expected the query as a string, got {}", type_name(other)),
            ));
        }
        None => return Err(at.at("query").err(file, "missing \"query\" string")),
    };
    crate::limits::check_query(&query).map_err(|e| at.at("query").err(file, e))?;
    let mut id = fallback_id;
    for key in ["case_id", "id"] {
        match o.get(key) {
            None | Some(Value::Null) => continue,
            Some(Value::String(s)) => id = s.clone(),
            Some(Value::Number(n)) if n.is_u64() || n.is_i64() => id = n.to_string(),
            Some(other) => {
                return Err(at.at(key).err(
                    file,
                    format!("expected the case id as a string, got {}", type_name(other)),
                ));
            }
        }
        break;
    }
    let mut expected: Vec<String> = Vec::new();
    let labels = match o.get("labels") {
        None | Some(Value::Null) => None,
        Some(Value::Object(l)) => Some(l),
        Some(other) => {
            return Err(at.at("labels").err(
                file,
                format!("expected a labels object, got {}", type_name(other)),
            ));
        }
    };
    if let Some(v) = o.get("expected_tools").filter(|v| !v.is_null()) {
        expected = string_list(v, file, &at.at("expected_tools"))?;
    } else if let Some(v) = labels
        .and_then(|l| l.get("expected_tools"))
        .filter(|v| !v.is_null())
    {
        expected = string_list(v, file, &at.at("labels").at("expected_tools"))?;
    }
    match o.get("expected_target") {
        None | Some(Value::Null) => {}
        Some(Value::String(t)) if !t.is_empty() => {
            if expected.is_empty() {
                expected = vec![t.clone()];
            }
        }
        Some(other) => {
            return Err(at.at("expected_target").err(
                file,
                format!("expected a tool name or null, got {}", type_name(other)),
            ));
        }
    }
    let mut knobs = Map::new();
    let mut learning = None;
    // top-level keys (the seed's fixtures) first, then `params` and `selector`, which win
    read_params(
        o,
        &[
            "top_k",
            "expected_top_k",
            "depth",
            "token_budget",
            "history",
            "llm_target",
            "policy",
        ],
        file,
        at,
        &mut knobs,
        &mut learning,
    )?;
    match o.get("params") {
        None | Some(Value::Null) => {}
        Some(Value::Object(p)) => read_params(
            p,
            &[
                "top_k",
                "depth",
                "token_budget",
                "history",
                "learning_suggestions",
            ],
            file,
            &at.at("params"),
            &mut knobs,
            &mut learning,
        )?,
        Some(other) => {
            return Err(at.at("params").err(
                file,
                format!("expected a params object, got {}", type_name(other)),
            ));
        }
    }
    match o.get("selector") {
        None | Some(Value::Null) => {}
        Some(Value::Object(s)) => read_params(
            s,
            &["llm_target", "policy"],
            file,
            &at.at("selector"),
            &mut knobs,
            &mut learning,
        )?,
        Some(other) => {
            return Err(at.at("selector").err(
                file,
                format!("expected a selector object, got {}", type_name(other)),
            ));
        }
    }
    let top_k = knobs
        .get("top_k")
        .and_then(Value::as_u64)
        .map(|k| k as usize);
    Ok(Case {
        id,
        query,
        expected,
        top_k,
        knobs,
        learning_suggestions: learning,
        extra: v.clone(),
    })
}

/// Loads a suite from a file in any of the supported formats (detected from content).
pub fn load_suite(path: &Path) -> Result<Suite, InputError> {
    let file = crate::sanitize::path(path);
    let text = into_text(&file, read_input(path)?)?;
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().trim_end_matches(".json").to_string())
        .unwrap_or_default();
    parse_suite(&file, &name, &text)
}

/// What a suite file may be, for the errors that refuse one.
const SUITE_FORMS: &str = "a suite object, a list of cases or JSON Lines";

pub fn parse_suite(file: &str, name: &str, text: &str) -> Result<Suite, InputError> {
    if text.trim().is_empty() {
        return Err(InputError::new(file, "", "empty suite".into()));
    }
    let mut cases = Vec::new();
    let doc = |i: usize| Place {
        line: None,
        pointer: format!("/{i}"),
    };
    match crate::jsonin::from_str(text) {
        Ok(Value::Object(o)) if o.contains_key("queries") => {
            let qs = o["queries"].as_array().ok_or_else(|| {
                InputError::new(
                    file,
                    "/queries",
                    format!("expected a list, got {}", type_name(&o["queries"])),
                )
            })?;
            for (i, q) in qs.iter().enumerate() {
                let at = Place {
                    line: None,
                    pointer: format!("/queries/{i}"),
                };
                cases.push(case_from(q, format!("{name}/{:04}", i + 1), file, &at)?);
            }
        }
        Ok(v @ Value::Object(_)) => {
            let at = Place {
                line: None,
                pointer: String::new(),
            };
            cases.push(case_from(&v, format!("{name}/0001"), file, &at)?);
        }
        Ok(Value::Array(items)) => {
            for (i, q) in items.iter().enumerate() {
                cases.push(case_from(q, format!("{name}/{:04}", i + 1), file, &doc(i))?);
            }
        }
        Ok(_) => {
            return Err(InputError::new(file, "", format!("expected {SUITE_FORMS}")));
        }
        Err(_) => {
            if let Some(e) = crate::model::load::not_json(file, text, SUITE_FORMS) {
                return Err(e);
            }
            for (i, line) in text.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                let v: Value = crate::jsonin::from_str(line)
                    .map_err(|e| json_error(file, &e, "").with_line(i + 1))?;
                let at = Place {
                    line: Some(i + 1),
                    pointer: String::new(),
                };
                cases.push(case_from(&v, format!("{name}/{:04}", i + 1), file, &at)?);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse_suite("s.json", "s", text).unwrap_err().to_string()
    }

    #[test]
    fn wrong_types_name_the_place() {
        for (text, want) in [
            (
                r#"[{"query":"q","expected_tools":"listOrders"}]"#,
                "s.json:/0/expected_tools: expected a list of tool names, got a string",
            ),
            (
                r#"[{"query":"q","expected_tools":[5,null]}]"#,
                "s.json:/0/expected_tools/0: expected a tool name, got an integer",
            ),
            (
                r#"[{"query":"q","params":{"top_k":-1}}]"#,
                "s.json:/0/params/top_k: expected a non-negative integer, got a negative integer",
            ),
            (
                r#"[{"query":"q","params":{"top_k":1e30}}]"#,
                "s.json:/0/params/top_k: expected a non-negative integer, got a number",
            ),
            (
                r#"[{"query":"q","params":{"top_k":"5"}}]"#,
                "s.json:/0/params/top_k: expected a non-negative integer, got a string",
            ),
            (
                r#"[{"query":"q","params":{"top_k":99999999}}]"#,
                "s.json:/0/params/top_k: 99999999 is out of range",
            ),
            (
                r#"[{"query":"q","history":"x"}]"#,
                "s.json:/0/history: expected a list of tool names, got a string",
            ),
            (
                r#"[{"query":"q","params":{"history":"x"}}]"#,
                "s.json:/0/params/history: expected a list",
            ),
            (
                r#"[{"query":"q","params":[1]}]"#,
                "s.json:/0/params: expected a params object, got a list",
            ),
            (
                r#"[{"query":"q","selector":5}]"#,
                "s.json:/0/selector: expected a selector object, got an integer",
            ),
            (
                r#"[{"query":"q","selector":{"llm_target":7}}]"#,
                "s.json:/0/selector/llm_target: expected a tool name or null",
            ),
            (
                r#"[{"query":"q","labels":{"expected_tools":"x"}}]"#,
                "s.json:/0/labels/expected_tools: expected a list",
            ),
            (
                r#"[{"query":"q","expected_target":3}]"#,
                "s.json:/0/expected_target: expected a tool name or null",
            ),
            (
                r#"[{"query":5}]"#,
                "s.json:/0/query: expected the query as a string",
            ),
            (
                "{\"query\":\"a\"}\n{\"query\":\"b\",\"params\":{\"depth\":\"2\"}}\n",
                "s.json:2 /params/depth: expected a non-negative integer, got a string",
            ),
            (
                r#"{"queries":[{"query":"q","expected_tools":[""]}]}"#,
                "s.json:/queries/0/expected_tools/0: empty tool name",
            ),
        ] {
            let e = err(text);
            assert!(e.starts_with(want), "{text}\n got: {e}\nwant: {want}");
        }
    }

    #[test]
    fn golden_params_and_selector_are_kept() {
        let s = parse_suite(
            "g.jsonl",
            "g",
            r#"{"id":"g/1","query":"list orders","params":{"top_k":3,"depth":1,"token_budget":300,"history":["getOrder"],"learning_suggestions":[{"id":"x"}]},"selector":{"llm_target":"listOrders","policy":"risk_limited"},"labels":{"expected_tools":["listOrders"]}}"#,
        )
        .unwrap();
        let c = &s.cases[0];
        assert_eq!(c.top_k, Some(3));
        assert_eq!(c.expected, ["listOrders"]);
        let k = c.knobs(&Knobs::default(), &[]).unwrap();
        assert_eq!(
            (k.params.top_k, k.params.depth, k.params.token_budget),
            (3, 1, 300)
        );
        assert_eq!(k.params.history, ["getOrder"]);
        assert_eq!(k.params.learning_suggestions.len(), 1);
        assert_eq!(k.select.llm_target.as_deref(), Some("listOrders"));
        assert_eq!(k.select.policy, "risk_limited");
        // --set wins over the case's own parameters
        let k = c
            .knobs(
                &Knobs::default(),
                &["depth=0".into(), "llm_target=null".into()],
            )
            .unwrap();
        assert_eq!((k.params.top_k, k.params.depth), (3, 0));
        assert_eq!(k.select.llm_target, None);
        // null selector (golden token-budget cases) and missing params: the defaults
        let s = parse_suite("g.jsonl", "g", r#"{"query":"q","selector":null}"#).unwrap();
        assert_eq!(
            s.cases[0].knobs(&Knobs::default(), &[]).unwrap(),
            Knobs::default()
        );
        assert!(!s.cases[0].labelled());
    }
}
