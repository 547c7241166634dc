//! The authorised knobs of a run, as one JSON object (engine layer: the counterfactual
//! runner, triage's probes and the evidence tools all apply knobs through this one type):
//! `{top_k, depth, token_budget, history, learning, relation_weight: {relation, weight},
//! confidence_factor: {label, factor}, intent, llm_target, policy}`.

use serde_json::{Map, Value};

use super::intent::IntentLabel;
use super::params::{Params, SelectParams};
use crate::jsonout::JsonWriter;

/// An authorised knob. Its name (`top_k`, `policy`, …) is the serialised form: the JSON
/// key, the `--set NAME=VALUE` name and what messages list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Knob {
    TopK,
    Depth,
    TokenBudget,
    History,
    Learning,
    RelationWeight,
    ConfidenceFactor,
    Intent,
    LlmTarget,
    Policy,
}

impl Knob {
    /// Every knob, in the order they are written and listed.
    pub const ALL: [Knob; 10] = [
        Knob::TopK,
        Knob::Depth,
        Knob::TokenBudget,
        Knob::History,
        Knob::Learning,
        Knob::RelationWeight,
        Knob::ConfidenceFactor,
        Knob::Intent,
        Knob::LlmTarget,
        Knob::Policy,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            Knob::TopK => "top_k",
            Knob::Depth => "depth",
            Knob::TokenBudget => "token_budget",
            Knob::History => "history",
            Knob::Learning => "learning",
            Knob::RelationWeight => "relation_weight",
            Knob::ConfidenceFactor => "confidence_factor",
            Knob::Intent => "intent",
            Knob::LlmTarget => "llm_target",
            Knob::Policy => "policy",
        }
    }

    /// The knob of a name.
    pub fn parse(name: &str) -> Option<Knob> {
        Knob::ALL.into_iter().find(|k| k.name() == name)
    }

    /// A knob of the post-decision target selector (not a retrieval knob).
    pub const fn is_selector(self) -> bool {
        matches!(self, Knob::LlmTarget | Knob::Policy)
    }
}

const fn names<const N: usize>(selector: bool) -> [&'static str; N] {
    let mut out = [""; N];
    let (mut i, mut n) = (0, 0);
    while i < Knob::ALL.len() {
        let k = Knob::ALL[i];
        if selector || !k.is_selector() {
            out[n] = k.name();
            n += 1;
        }
        i += 1;
    }
    out
}

/// The names of [`Knob::ALL`].
pub const KNOBS: [&str; 10] = names(true);

/// The retrieval knobs' names (every knob but the selector's).
pub const RETRIEVAL_KNOBS: [&str; 8] = names(false);

/// The knobs of the post-decision target selector (not retrieval knobs).
pub const SELECTOR_KNOBS: [&str; 2] = [Knob::LlmTarget.name(), Knob::Policy.name()];

/// Everything a run depends on besides the graph and the query.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Knobs {
    pub params: Params,
    pub select: SelectParams,
}

/// The largest `top_k` a knob may ask for: rows beyond the graph's tools cost nothing, but
/// every returned row is built and written.
pub const TOP_K_MAX: u64 = 10_000;
/// The deepest expansion a knob may ask for (the BFS stops when its frontier is empty;
/// real graphs are exhausted within a dozen levels).
pub const DEPTH_MAX: u64 = 100;
/// The largest token budget (the rendered subgraph text is cut at 3 characters a token).
pub const TOKEN_BUDGET_MAX: u64 = 10_000_000;
/// The range of a `relation_weight` weight or a `confidence_factor` factor. The built-in
/// tables lie in 0..1; the bound keeps every score finite (a weight of 1e308 overflowed
/// to infinity, which JSON cannot carry).
pub const FACTOR_RANGE: (f64, f64) = (0.0, 10.0);

fn bad(k: &str, why: &str) -> String {
    format!("knob {k}: {why}")
}

/// The one wording of a bad integer argument, wherever it is given: a knob (`:cf`,
/// `--set`, a suite's params, prefixed `knob`), a palette command's argument (`:depth x`)
/// and the configuration file: `NAME: expected an integer from LO to HI, got GOT`.
pub fn expected_int(name: &str, lo: u64, hi: u64, got: &str) -> String {
    format!("{name}: expected an integer from {lo} to {hi}, got {got}")
}

/// At most 40 bytes of `s` for messages (longer text is cut and marked `...`).
pub fn clip(s: &str) -> String {
    if s.len() <= 40 {
        return s.to_string();
    }
    let mut end = 40;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &s[..end])
}

/// A short JSON text of a rejected value for messages.
fn shown(v: &Value) -> String {
    match v {
        Value::String(s) if s.len() > 40 => crate::sanitize::quoted(&clip(s)),
        Value::Array(a) if a.len() > 8 => format!("a list of {} items", a.len()),
        Value::Object(o) if o.len() > 8 => format!("an object of {} keys", o.len()),
        _ => clip(&v.to_string()),
    }
}

fn int_in(key: &str, v: &Value, max: u64) -> Result<usize, String> {
    int_from(key, v, 0, max)
}

fn int_from(key: &str, v: &Value, min: u64, max: u64) -> Result<usize, String> {
    match v.as_u64() {
        Some(n) if (min..=max).contains(&n) => Ok(usize::try_from(n).unwrap_or(usize::MAX)),
        _ => Err(format!("knob {}", expected_int(key, min, max, &shown(v)))),
    }
}

fn factor_in(key: &str, field: &str, v: Option<&Value>) -> Result<f64, String> {
    let (lo, hi) = FACTOR_RANGE;
    match v.and_then(Value::as_f64) {
        Some(f) if f.is_finite() && (lo..=hi).contains(&f) => Ok(f),
        _ => Err(bad(
            key,
            &format!(
                "{field} must be a number from {lo} to {hi}, got {}",
                v.map(shown).unwrap_or_else(|| "nothing".into())
            ),
        )),
    }
}

fn name_in(key: &str, field: &str, v: Option<&Value>, shape: &str) -> Result<String, String> {
    let s = v
        .and_then(Value::as_str)
        .ok_or_else(|| bad(key, &format!("expected {shape}")))?;
    crate::limits::check_arg(&format!("{key}.{field}"), s).map_err(|e| bad(key, &e))?;
    Ok(s.to_string())
}

impl Knobs {
    /// Starts from `self` and applies the keys of `obj`. Unknown keys are refused, and so
    /// are values out of range (integers, factors) or over the argument limits (strings,
    /// lists): every message names the knob and what it accepts.
    pub fn with(&self, obj: &Map<String, Value>) -> Result<Knobs, String> {
        // as `--top-k`: no result rows is no ranking to show evidence of
        self.with_top_k_from(obj, 1)
    }

    /// [`Knobs::with`] for the parameters a recorded case states: `top_k` 0 is what the
    /// reference answers with no rows (its golden cases include it), so a suite that
    /// carries it is evaluated, not refused.
    pub fn with_recorded(&self, obj: &Map<String, Value>) -> Result<Knobs, String> {
        self.with_top_k_from(obj, 0)
    }

    fn with_top_k_from(&self, obj: &Map<String, Value>, top_k_min: u64) -> Result<Knobs, String> {
        let mut k = self.clone();
        for (key, v) in obj {
            let Some(knob) = Knob::parse(key) else {
                return Err(format!(
                    "{} is not an authorised knob (authorised: {})",
                    crate::sanitize::quoted(&clip(key)),
                    KNOBS.join(", ")
                ));
            };
            match knob {
                Knob::TopK => k.params.top_k = int_from(key, v, top_k_min, TOP_K_MAX)?,
                Knob::Depth => k.params.depth = int_in(key, v, DEPTH_MAX)?,
                Knob::TokenBudget => k.params.token_budget = int_in(key, v, TOKEN_BUDGET_MAX)?,
                Knob::History => {
                    let list = v.as_array().ok_or_else(|| {
                        bad(
                            key,
                            "expected a list of tool names, e.g. [\"getRefund\"] \
                             (on a command line: history=getRefund,listOrders)",
                        )
                    })?;
                    crate::limits::check_list("knob history", list.len())?;
                    k.params.history = list
                        .iter()
                        .map(|x| {
                            let s = x
                                .as_str()
                                .ok_or_else(|| bad(key, "expected a list of tool names"))?;
                            crate::limits::check_arg("a history entry", s)
                                .map_err(|e| bad(key, &e))?;
                            Ok(s.to_string())
                        })
                        .collect::<Result<_, String>>()?
                }
                Knob::Learning => {
                    k.params.learning_enabled = v
                        .as_bool()
                        .ok_or_else(|| bad(key, "expected true or false"))?
                }
                Knob::RelationWeight => {
                    if v.is_null() {
                        k.params.relation_weight = None;
                    } else {
                        let shape = "{relation, weight} or null";
                        if !v.is_object() {
                            return Err(bad(key, &format!("expected {shape}")));
                        }
                        let rel = name_in(key, "relation", v.get("relation"), shape)?;
                        let w = factor_in(key, "weight", v.get("weight"))?;
                        k.params.relation_weight = Some((rel, w));
                    }
                }
                Knob::ConfidenceFactor => {
                    if v.is_null() {
                        k.params.confidence_factor = None;
                    } else {
                        let shape = "{label, factor} or null";
                        if !v.is_object() {
                            return Err(bad(key, &format!("expected {shape}")));
                        }
                        let l = name_in(key, "label", v.get("label"), shape)?;
                        let f = factor_in(key, "factor", v.get("factor"))?;
                        k.params.confidence_factor = Some((l, f));
                    }
                }
                Knob::Intent => {
                    const INTENTS: &str = "read, write, delete, neutral or auto";
                    k.params.intent_override = match v {
                        Value::Null => None,
                        Value::String(s) if s == "auto" => None,
                        Value::String(s) => Some(IntentLabel::parse(s).ok_or_else(|| {
                            bad(key, &format!("expected {INTENTS}, got {}", shown(v)))
                        })?),
                        _ => return Err(bad(key, &format!("expected a string: {INTENTS}"))),
                    }
                }
                Knob::LlmTarget => {
                    k.select.llm_target = match v {
                        Value::Null => None,
                        Value::String(s) => {
                            crate::limits::check_arg("knob llm_target", s)?;
                            Some(s.clone())
                        }
                        _ => return Err(bad(key, "expected a tool name or null")),
                    }
                }
                Knob::Policy => {
                    let allowed = crate::engine::params::POLICIES;
                    k.select.policy = v
                        .as_str()
                        .and_then(crate::engine::params::Policy::known)
                        .ok_or_else(|| {
                            bad(
                                key,
                                &format!(
                                    "expected one of {}, got {}",
                                    allowed.join(", "),
                                    shown(v)
                                ),
                            )
                        })?
                }
            }
        }
        Ok(k)
    }

    /// Parses `knob=value` (value is JSON, or a bare string).
    pub fn set_from_str(&self, s: &str) -> Result<Knobs, String> {
        let (k, v) = s
            .split_once('=')
            .ok_or_else(|| format!("expected knob=value, got {}", crate::sanitize::quoted(s)))?;
        let knob = Knob::parse(k);
        let value: Value = crate::jsonin::from_str(v).unwrap_or_else(|_| {
            if knob == Some(Knob::History) {
                // history=a,b and history=[a,b] shorthand: bare tool names
                let inner = v.trim().trim_start_matches('[').trim_end_matches(']');
                return Value::Array(
                    inner
                        .split(',')
                        .map(|n| n.trim().trim_matches('"'))
                        .filter(|n| !n.is_empty())
                        .map(|n| Value::String(n.to_string()))
                        .collect(),
                );
            }
            if matches!(knob, Some(Knob::RelationWeight | Knob::ConfidenceFactor)) {
                // relation:weight / label:factor shorthand
                if let Some((a, b)) = v.split_once(':')
                    && let Ok(f) = b.parse::<f64>()
                {
                    return if knob == Some(Knob::RelationWeight) {
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

    /// The value of a knob named `name` as JSON (`null` for a name that is no knob).
    pub fn get(&self, name: &str) -> Value {
        Knob::parse(name).map_or(Value::Null, |k| self.value(k))
    }

    /// The value of one knob as JSON.
    pub fn value(&self, knob: Knob) -> Value {
        let p = &self.params;
        match knob {
            Knob::TopK => p.top_k.into(),
            Knob::Depth => p.depth.into(),
            Knob::TokenBudget => p.token_budget.into(),
            Knob::History => p.history.clone().into(),
            Knob::Learning => p.learning_enabled.into(),
            Knob::RelationWeight => p
                .relation_weight
                .as_ref()
                .map(|(r, w)| serde_json::json!({"relation": r, "weight": w}))
                .unwrap_or(Value::Null),
            Knob::ConfidenceFactor => p
                .confidence_factor
                .as_ref()
                .map(|(l, f)| serde_json::json!({"label": l, "factor": f}))
                .unwrap_or(Value::Null),
            Knob::Intent => p
                .intent_override
                .map(|i| Value::from(i.as_str()))
                .unwrap_or_else(|| "auto".into()),
            Knob::LlmTarget => self
                .select
                .llm_target
                .clone()
                .map(Value::from)
                .unwrap_or(Value::Null),
            Knob::Policy => self.select.policy.as_str().into(),
        }
    }

    /// The knobs whose values differ: `(knob, self, other)`.
    pub fn diff(&self, other: &Knobs) -> Vec<(&'static str, Value, Value)> {
        Knob::ALL
            .into_iter()
            .filter(|&k| self.value(k) != other.value(k))
            .map(|k| (k.name(), self.value(k), other.value(k)))
            .collect()
    }

    pub fn write_json(&self, w: &mut JsonWriter) {
        w.begin_obj();
        for k in Knob::ALL {
            w.key(k.name()).value(&self.value(k));
        }
        w.end_obj();
    }

    /// The retrieval knobs only: every knob but the post-decision selector's `llm_target`
    /// and `policy` (what a model-facing caller is shown).
    pub fn write_json_retrieval(&self, w: &mut JsonWriter) {
        w.begin_obj();
        for k in Knob::ALL.into_iter().filter(|k| !k.is_selector()) {
            w.key(k.name()).value(&self.value(k));
        }
        w.end_obj();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn with(v: Value) -> Result<Knobs, String> {
        Knobs::default().with(v.as_object().unwrap())
    }

    #[test]
    fn values_out_of_range_or_over_the_limits_are_refused() {
        assert_eq!(with(json!({"top_k": 10_000})).unwrap().params.top_k, 10_000);
        for (v, want) in [
            (
                json!({"top_k": 10_001}),
                "knob top_k: expected an integer from 1 to 10000, got 10001",
            ),
            (json!({"top_k": -5}), "got -5"),
            (
                json!({"top_k": 0}),
                "expected an integer from 1 to 10000, got 0",
            ),
            (
                json!({"depth": 101}),
                "knob depth: expected an integer from 0 to 100",
            ),
            (
                json!({"token_budget": 1e9}),
                "knob token_budget: expected an integer",
            ),
            (
                json!({"relation_weight": {"relation": "requires", "weight": 1e308}}),
                "weight must be a number from 0 to 10",
            ),
            (
                json!({"relation_weight": {"relation": "requires", "weight": -1}}),
                "weight must be a number from 0 to 10",
            ),
            (
                json!({"relation_weight": "requires"}),
                "expected {relation, weight} or null",
            ),
            (
                json!({"confidence_factor": {"label": "INFERRED", "factor": 11}}),
                "factor must be a number from 0 to 10",
            ),
            (
                json!({"confidence_factor": {"label": "x".repeat(5000), "factor": 1}}),
                "confidence_factor.label is 4.9 KiB long: exceeds the 4 KiB limit",
            ),
            (
                json!({"history": vec!["a"; 1001]}),
                "knob history has 1001 items: exceeds the 1000 limit on items per list argument",
            ),
            (
                json!({"history": ["y".repeat(5000)]}),
                "a history entry is 4.9 KiB long",
            ),
            (
                json!({"intent": "sideways"}),
                "expected read, write, delete, neutral or auto, got \"sideways\"",
            ),
            (
                json!({"llm_target": "z".repeat(5000)}),
                "knob llm_target is 4.9 KiB long",
            ),
        ] {
            let e = with(v.clone()).unwrap_err();
            assert!(e.contains(want), "{v}: {e}\nwant: {want}");
        }
        let e = with(json!({"g".repeat(100): 1})).unwrap_err();
        assert!(e.contains("gggg...\" is not an authorised knob"), "{e}");
        assert!(e.len() < 300, "{e}");
    }

    /// UX trial defects 13 and 26: the history shorthand works on a command line, and a
    /// policy the engine does not know is refused with the ones it does.
    #[test]
    fn history_shorthand_and_known_policies() {
        let base = Knobs::default();
        for text in [
            "history=getRefund",
            "history=[getRefund]",
            "history=[\"getRefund\"]",
        ] {
            assert_eq!(
                base.set_from_str(text).unwrap().params.history,
                ["getRefund"],
                "{text}"
            );
        }
        assert_eq!(
            base.set_from_str("history=a, b").unwrap().params.history,
            ["a", "b"]
        );
        let e = base.set_from_str("policy=bogus").unwrap_err();
        assert!(
            e.contains("strong_evidence, risk_limited, manual_review"),
            "{e}"
        );
        assert_eq!(
            base.set_from_str("policy=manual_review")
                .unwrap()
                .select
                .policy,
            "manual_review"
        );
        let e = with(serde_json::json!({"history": "getRefund"})).unwrap_err();
        assert!(e.contains("history=getRefund,listOrders"), "{e}");
    }
}
