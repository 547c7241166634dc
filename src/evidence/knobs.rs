//! The authorised knobs of a run, as one JSON object:
//! `{top_k, depth, token_budget, history, learning, relation_weight: {relation, weight},
//! confidence_factor: {label, factor}, intent, llm_target, policy}`.

use serde_json::{Map, Value};

use crate::engine::intent::IntentLabel;
use crate::engine::{Params, SelectParams};
use crate::jsonout::JsonWriter;

pub const KNOBS: &[&str] = &[
    "top_k",
    "depth",
    "token_budget",
    "history",
    "learning",
    "relation_weight",
    "confidence_factor",
    "intent",
    "llm_target",
    "policy",
];

/// Everything a run depends on besides the graph and the query.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Knobs {
    pub params: Params,
    pub select: SelectParams,
}

fn bad(k: &str, why: &str) -> String {
    format!("knob {k}: {why}")
}

impl Knobs {
    /// Starts from `self` and applies the keys of `obj`. Unknown keys are refused.
    pub fn with(&self, obj: &Map<String, Value>) -> Result<Knobs, String> {
        let mut k = self.clone();
        for (key, v) in obj {
            match key.as_str() {
                "top_k" => {
                    k.params.top_k = v
                        .as_u64()
                        .ok_or_else(|| bad(key, "expected a non-negative integer"))?
                        as usize
                }
                "depth" => {
                    k.params.depth = v
                        .as_u64()
                        .ok_or_else(|| bad(key, "expected a non-negative integer"))?
                        as usize
                }
                "token_budget" => {
                    k.params.token_budget = v
                        .as_u64()
                        .ok_or_else(|| bad(key, "expected a non-negative integer"))?
                        as usize
                }
                "history" => {
                    k.params.history = v
                        .as_array()
                        .ok_or_else(|| bad(key, "expected a list of tool names"))?
                        .iter()
                        .map(|x| {
                            x.as_str()
                                .map(String::from)
                                .ok_or_else(|| bad(key, "expected tool names"))
                        })
                        .collect::<Result<_, _>>()?
                }
                "learning" => {
                    k.params.learning_enabled = v
                        .as_bool()
                        .ok_or_else(|| bad(key, "expected true or false"))?
                }
                "relation_weight" => {
                    if v.is_null() {
                        k.params.relation_weight = None;
                    } else {
                        let rel = v
                            .get("relation")
                            .and_then(Value::as_str)
                            .ok_or_else(|| bad(key, "expected {relation, weight}"))?;
                        let w = v
                            .get("weight")
                            .and_then(Value::as_f64)
                            .ok_or_else(|| bad(key, "expected {relation, weight}"))?;
                        k.params.relation_weight = Some((rel.to_string(), w));
                    }
                }
                "confidence_factor" => {
                    if v.is_null() {
                        k.params.confidence_factor = None;
                    } else {
                        let l = v
                            .get("label")
                            .and_then(Value::as_str)
                            .ok_or_else(|| bad(key, "expected {label, factor}"))?;
                        let f = v
                            .get("factor")
                            .and_then(Value::as_f64)
                            .ok_or_else(|| bad(key, "expected {label, factor}"))?;
                        k.params.confidence_factor = Some((l.to_string(), f));
                    }
                }
                "intent" => {
                    k.params.intent_override = match v {
                        Value::Null => None,
                        Value::String(s) if s == "auto" => None,
                        Value::String(s) => Some(IntentLabel::parse(s).ok_or_else(|| {
                            bad(key, "expected read, write, delete, neutral or auto")
                        })?),
                        _ => return Err(bad(key, "expected a string")),
                    }
                }
                "llm_target" => {
                    k.select.llm_target = match v {
                        Value::Null => None,
                        Value::String(s) => Some(s.clone()),
                        _ => return Err(bad(key, "expected a tool name or null")),
                    }
                }
                "policy" => {
                    k.select.policy = v
                        .as_str()
                        .ok_or_else(|| bad(key, "expected a string"))?
                        .to_string()
                }
                other => {
                    return Err(format!(
                        "{other:?} is not an authorised knob (authorised: {})",
                        KNOBS.join(", ")
                    ));
                }
            }
        }
        Ok(k)
    }

    /// Parses `knob=value` (value is JSON, or a bare string).
    pub fn set_from_str(&self, s: &str) -> Result<Knobs, String> {
        let (k, v) = s
            .split_once('=')
            .ok_or_else(|| format!("expected knob=value, got {s:?}"))?;
        let value: Value = serde_json::from_str(v).unwrap_or_else(|_| {
            if k == "relation_weight" || k == "confidence_factor" {
                // relation:weight / label:factor shorthand
                if let Some((a, b)) = v.split_once(':')
                    && let Ok(f) = b.parse::<f64>()
                {
                    return if k == "relation_weight" {
                        serde_json::json!({"relation": a, "weight": f})
                    } else {
                        serde_json::json!({"label": a, "factor": f})
                    };
                }
            }
            Value::String(v.to_string())
        });
        let mut m = Map::new();
        m.insert(k.to_string(), value);
        self.with(&m)
    }

    /// The value of one knob as JSON.
    pub fn get(&self, knob: &str) -> Value {
        let p = &self.params;
        match knob {
            "top_k" => p.top_k.into(),
            "depth" => p.depth.into(),
            "token_budget" => p.token_budget.into(),
            "history" => p.history.clone().into(),
            "learning" => p.learning_enabled.into(),
            "relation_weight" => p
                .relation_weight
                .as_ref()
                .map(|(r, w)| serde_json::json!({"relation": r, "weight": w}))
                .unwrap_or(Value::Null),
            "confidence_factor" => p
                .confidence_factor
                .as_ref()
                .map(|(l, f)| serde_json::json!({"label": l, "factor": f}))
                .unwrap_or(Value::Null),
            "intent" => p
                .intent_override
                .map(|i| Value::from(i.as_str()))
                .unwrap_or_else(|| "auto".into()),
            "llm_target" => self
                .select
                .llm_target
                .clone()
                .map(Value::from)
                .unwrap_or(Value::Null),
            "policy" => self.select.policy.clone().into(),
            _ => Value::Null,
        }
    }

    /// The knobs whose values differ: `(knob, self, other)`.
    pub fn diff(&self, other: &Knobs) -> Vec<(&'static str, Value, Value)> {
        KNOBS
            .iter()
            .filter(|&k| self.get(k) != other.get(k))
            .map(|k| (*k, self.get(k), other.get(k)))
            .collect()
    }

    pub fn write_json(&self, w: &mut JsonWriter) {
        w.begin_obj();
        for k in KNOBS {
            w.key(k).value(&self.get(k));
        }
        w.end_obj();
    }
}
