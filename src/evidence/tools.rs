//! The read-only evidence tools and their compact contracts. One implementation serves
//! `toolscope evidence`, the MCP server and the TUI panes.

use serde_json::{Map, Value, json};

use super::counterfactual::{compare, compare_suite, write_comparison_fields, write_suite_fields};
use super::knobs::Knobs;
use super::registry::{METRICS, REGISTRY_VERSION, Visibility, metric, write_metric};
use crate::engine::explain::{self, Explanation, RowMetric};
use crate::engine::{Engine, PROFILE, REFERENCE, trace};
use crate::jsonout::JsonWriter;
use crate::lab::metrics::{hit_at_k, mean, reciprocal_rank};
use crate::lab::suite::Suite;

/// Who is calling: a model (sees the current decision only) or an operator (sees all).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    Model,
    Operator,
}

impl Audience {
    pub fn sees(self, v: Visibility) -> bool {
        match self {
            Audience::Operator => true,
            Audience::Model => v != Visibility::PostDecision,
        }
    }
}

/// One evidence-tool contract.
pub struct ToolContract {
    pub name: &'static str,
    pub title: &'static str,
    pub purpose: &'static str,
    /// (name, JSON type, required, description)
    pub inputs: &'static [(&'static str, &'static str, bool, &'static str)],
    pub outputs: &'static [&'static str],
    pub visibility_scope: &'static str,
    pub limitations: &'static [&'static str],
    /// Offered to model-facing callers.
    pub model_facing: bool,
}

const QUERY_IN: (&str, &str, bool, &str) = (
    "query",
    "string",
    false,
    "the query to evaluate (or case_id with --cases)",
);
const CASE_IN: (&str, &str, bool, &str) = (
    "case_id",
    "string",
    false,
    "a case id of the loaded suite; its query is used",
);
const PARAMS_IN: (&str, &str, bool, &str) = (
    "params",
    "object",
    false,
    "knobs: top_k, depth, token_budget, history, learning, relation_weight, confidence_factor, intent, llm_target, policy",
);

pub const CONTRACTS: &[ToolContract] = &[
    ToolContract {
        name: "list_available_tools",
        title: "List evidence tools",
        purpose: "List the evidence tools available in this session with their purpose, the call budget and the visibility boundary.",
        inputs: &[],
        outputs: &["tools[]", "call_budget", "visibility_boundary"],
        visibility_scope: "current_decision",
        limitations: &["lists capabilities only; says nothing about any query"],
        model_facing: true,
    },
    ToolContract {
        name: "list_available_metrics",
        title: "List metrics",
        purpose: "List the registered metrics visible in this session (id, unit, visibility).",
        inputs: &[],
        outputs: &["metrics[]", "registry_version"],
        visibility_scope: "current_decision",
        limitations: &["metric definitions are not interpretations of any value"],
        model_facing: true,
    },
    ToolContract {
        name: "describe_metric",
        title: "Describe a metric",
        purpose: "Return a metric's registry entry: unit, formula version, source fields, decomposer, trace hook, visibility, supported counterfactuals.",
        inputs: &[(
            "metric_id",
            "string",
            true,
            "a metric id from list_available_metrics",
        )],
        outputs: &[
            "metric_id",
            "unit",
            "formula_version",
            "source_fields",
            "decomposer",
            "trace_hook",
            "visibility_scope",
            "supported_counterfactuals",
        ],
        visibility_scope: "current_decision",
        limitations: &["a definition, not a statement about what a value means for a decision"],
        model_facing: true,
    },
    ToolContract {
        name: "explain_metric",
        title: "Explain a metric value",
        purpose: "Return a metric value, its deterministic accounting decomposition as a checked tree, and provenance.",
        inputs: &[
            (
                "metric_id",
                "string",
                true,
                "e.g. retrieval.score, retrieval.seed, retrieval.graph",
            ),
            QUERY_IN,
            CASE_IN,
            (
                "scope_id",
                "string",
                false,
                "the tool name, for per-tool metrics",
            ),
            PARAMS_IN,
        ],
        outputs: &[
            "value",
            "decomposition_type",
            "components[]",
            "tree",
            "residual_check",
            "provenance",
            "mechanism_status",
        ],
        visibility_scope: "current_decision",
        limitations: &[
            "accounting decomposition does not establish causality",
            "values are recomputed on the loaded graph; a different artifact gives different values",
        ],
        model_facing: true,
    },
    ToolContract {
        name: "trace_event",
        title: "Trace a query's pipeline",
        purpose: "Return the ordered, typed events of one query: tokens and expansions, BM25 hits, seeds, intent, each edge the expansion walked, demotion, learning, ranking and truncation.",
        inputs: &[
            QUERY_IN,
            CASE_IN,
            PARAMS_IN,
            ("stage", "string", false, "only events of this stage"),
            (
                "limit",
                "integer",
                false,
                "at most this many events (default 200)",
            ),
        ],
        outputs: &["events[]", "event_count", "provenance", "mechanism_status"],
        visibility_scope: "current_decision",
        limitations: &[
            "an event trace shows how values came about; it does not say which event mattered",
        ],
        model_facing: true,
    },
    ToolContract {
        name: "trace_entity",
        title: "Trace one tool",
        purpose: "Return all events of one query that concern one tool.",
        inputs: &[
            QUERY_IN,
            CASE_IN,
            ("tool", "string", true, "the tool name"),
            PARAMS_IN,
        ],
        outputs: &["events[]", "provenance", "mechanism_status"],
        visibility_scope: "current_decision",
        limitations: &["events of other tools that affected this one indirectly are not included"],
        model_facing: true,
    },
    ToolContract {
        name: "compare_bounded_counterfactual",
        title: "Compare a bounded counterfactual",
        purpose: "Run the same query (or the loaded suite) on the same graph with exactly one authorised knob changed and report what moved.",
        inputs: &[
            QUERY_IN,
            CASE_IN,
            (
                "change",
                "object",
                true,
                "the knob to change, e.g. {\"depth\": 1}",
            ),
            (
                "base",
                "object",
                false,
                "the base knobs (default: the engine defaults)",
            ),
            (
                "suite",
                "boolean",
                false,
                "compare over every case of the loaded suite (aggregate deltas with bootstrap intervals)",
            ),
        ],
        outputs: &[
            "moves[]",
            "gained",
            "lost",
            "jaccard",
            "rbo",
            "mechanism_status",
            "changed_knobs",
            "provenance",
        ],
        visibility_scope: "current_decision",
        limitations: &[
            "resolved only when exactly one authorised knob differs on the same graph",
            "a counterfactual on one query does not generalise to other queries",
        ],
        model_facing: true,
    },
    ToolContract {
        name: "lookup_recorded_run",
        title: "Look up a recorded retrieval run",
        purpose: "Return what the retriever returned for a query (ranked rows with score breakdowns) as a recorded algorithm output with provenance.",
        inputs: &[QUERY_IN, CASE_IN, PARAMS_IN],
        outputs: &["run", "provenance", "framing"],
        visibility_scope: "current_decision",
        limitations: &["a record of an algorithm's output, not a recommendation of any tool"],
        model_facing: true,
    },
];

pub fn contract(name: &str) -> Option<&'static ToolContract> {
    CONTRACTS.iter().find(|c| c.name == name)
}

pub fn write_contract(c: &ToolContract, w: &mut JsonWriter) {
    w.begin_obj();
    w.key("tool_name").str(c.name);
    w.key("purpose").str(c.purpose);
    w.key("inputs").begin_obj();
    for (n, t, req, d) in c.inputs {
        w.key(n)
            .begin_obj()
            .key("type")
            .str(t)
            .key("required")
            .bool(*req)
            .key("description")
            .str(d)
            .end_obj();
    }
    w.end_obj();
    w.key("outputs").str_list(c.outputs);
    w.key("read_only").bool(true);
    w.key("returns_action_recommendations").bool(false);
    w.key("visibility_scope").str(c.visibility_scope);
    w.key("limitations").str_list(c.limitations);
    w.end_obj();
}

/// The JSON Schema of a tool's arguments (for MCP `inputSchema`).
pub fn input_schema(c: &ToolContract) -> Value {
    let mut props = Map::new();
    let mut required = Vec::new();
    for (n, t, req, d) in c.inputs {
        props.insert(n.to_string(), json!({"type": t, "description": d}));
        if *req {
            required.push(Value::from(*n));
        }
    }
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

/// The JSON Schema of a tool's structured result (for MCP `outputSchema`).
pub fn output_schema(c: &ToolContract) -> Value {
    let mut props = Map::new();
    for o in c.outputs {
        let name = o.trim_end_matches("[]");
        let schema = if o.ends_with("[]") {
            json!({"type": "array"})
        } else if *o == "mechanism_status" {
            json!({"type": "string", "enum": ["resolved", "partial", "unresolved"]})
        } else {
            json!({})
        };
        props.insert(name.to_string(), schema);
    }
    props.insert(
        "read_only".into(),
        json!({"type": "boolean", "const": true}),
    );
    props.insert(
        "returns_action_recommendations".into(),
        json!({"type": "boolean", "const": false}),
    );
    json!({"type": "object", "properties": props, "required": ["read_only", "returns_action_recommendations"]})
}

/// Why a call failed: bad arguments (the caller can fix them) or a failed execution.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolError {
    UnknownTool(String),
    InvalidArguments(String),
    Execution(String),
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ToolError::UnknownTool(t) => write!(f, "unknown tool {t:?}"),
            ToolError::InvalidArguments(m) => write!(f, "invalid arguments: {m}"),
            ToolError::Execution(m) => write!(f, "{m}"),
        }
    }
}

/// A session of evidence calls over one graph (and optionally a suite).
pub struct Session<'a> {
    pub engine: &'a Engine,
    pub suite: Option<&'a Suite>,
    pub audience: Audience,
    pub budget: Option<usize>,
    pub calls: usize,
    pub base_knobs: Knobs,
}

impl<'a> Session<'a> {
    pub fn new(engine: &'a Engine, audience: Audience) -> Self {
        Session {
            engine,
            suite: None,
            audience,
            budget: None,
            calls: 0,
            base_knobs: Knobs::default(),
        }
    }

    pub fn tools(&self) -> impl Iterator<Item = &'static ToolContract> + '_ {
        CONTRACTS
            .iter()
            .filter(|c| self.audience == Audience::Operator || c.model_facing)
    }

    fn provenance(&self, w: &mut JsonWriter, knobs: &Knobs, formula_version: &str) {
        let g = &self.engine.graph;
        w.key("provenance").begin_obj();
        w.key("graph").begin_obj();
        w.key("source").str(&g.info.source);
        w.key("fingerprint")
            .str(&format!("sha256:{}", g.fingerprint()));
        w.key("format_version").str(&g.info.format_version);
        w.key("library_version")
            .opt_str(g.info.library_version.as_deref());
        w.key("tools").int(g.tool_count() as i64);
        w.key("edges").int(g.edge_count() as i64);
        w.end_obj();
        w.key("engine_profile").str(PROFILE);
        w.key("reproduces").str(REFERENCE);
        w.key("formula_version").str(formula_version);
        w.key("registry_version").str(REGISTRY_VERSION);
        w.key("params");
        if self.audience == Audience::Model {
            // the LLM-target and policy knobs belong to the post-decision selector
            let mut k = knobs.clone();
            k.select = Default::default();
            write_knobs_retrieval(&k, w);
        } else {
            knobs.write_json(w);
        }
        w.key("toolscope_version").str(env!("CARGO_PKG_VERSION"));
        w.end_obj();
    }

    fn query_and_knobs(&self, args: &Map<String, Value>) -> Result<(String, Knobs), ToolError> {
        let knobs = match args.get("params") {
            None | Some(Value::Null) => self.base_knobs.clone(),
            Some(Value::Object(o)) => self
                .base_knobs
                .with(o)
                .map_err(ToolError::InvalidArguments)?,
            Some(_) => {
                return Err(ToolError::InvalidArguments(
                    "params must be an object".into(),
                ));
            }
        };
        if self.audience == Audience::Model && (knobs.select != self.base_knobs.select) {
            return Err(ToolError::Execution(
                "llm_target and policy are post-decision knobs and are not available to model-facing callers".into(),
            ));
        }
        let query = match (args.get("query"), args.get("case_id")) {
            (Some(Value::String(q)), _) => q.clone(),
            (_, Some(Value::String(id))) => {
                let suite = self.suite.ok_or_else(|| {
                    ToolError::Execution("case_id given but no suite is loaded (--cases)".into())
                })?;
                let c = suite.cases.iter().find(|c| c.id == *id).ok_or_else(|| {
                    ToolError::Execution(format!("no case {id:?} in the loaded suite"))
                })?;
                c.query.clone()
            }
            (Some(_), _) => {
                return Err(ToolError::InvalidArguments("query must be a string".into()));
            }
            _ => {
                return Err(ToolError::InvalidArguments(
                    "give query (a string) or case_id".into(),
                ));
            }
        };
        Ok((query, knobs))
    }

    /// Calls a tool; returns its structured result.
    pub fn call(&mut self, name: &str, args: &Value) -> Result<Value, ToolError> {
        let c = self
            .tools()
            .find(|c| c.name == name)
            .ok_or_else(|| ToolError::UnknownTool(name.to_string()))?;
        let empty = Map::new();
        let args = match args {
            Value::Null => &empty,
            Value::Object(o) => o,
            _ => {
                return Err(ToolError::InvalidArguments(
                    "arguments must be an object".into(),
                ));
            }
        };
        for k in args.keys() {
            if !c.inputs.iter().any(|i| i.0 == k) {
                return Err(ToolError::InvalidArguments(format!(
                    "unexpected argument {k:?} for {name}"
                )));
            }
        }
        for (n, _, req, _) in c.inputs {
            if *req && !args.contains_key(*n) {
                return Err(ToolError::InvalidArguments(format!(
                    "missing required argument {n:?}"
                )));
            }
        }
        if let Some(limit) = self.budget
            && self.calls >= limit
        {
            return Err(ToolError::Execution(format!(
                "call budget exhausted: {}/{limit} calls used",
                self.calls
            )));
        }
        self.calls += 1;
        let mut w = JsonWriter::new();
        w.begin_obj();
        match name {
            "list_available_tools" => self.list_tools(&mut w),
            "list_available_metrics" => self.list_metrics(&mut w),
            "describe_metric" => self.describe_metric(args, &mut w)?,
            "explain_metric" => self.explain_metric(args, &mut w)?,
            "trace_event" | "trace_entity" => self.trace(name, args, &mut w)?,
            "compare_bounded_counterfactual" => self.counterfactual(args, &mut w)?,
            "lookup_recorded_run" => self.lookup(args, &mut w)?,
            _ => return Err(ToolError::UnknownTool(name.to_string())),
        }
        w.key("read_only").bool(true);
        w.key("returns_action_recommendations").bool(false);
        w.end_obj();
        Ok(serde_json::from_str(&w.finish()).expect("tool output is JSON"))
    }

    fn list_tools(&self, w: &mut JsonWriter) {
        w.key("tools").begin_arr();
        for c in self.tools() {
            w.begin_obj()
                .key("tool_name")
                .str(c.name)
                .key("purpose")
                .str(c.purpose)
                .key("visibility_scope")
                .str(c.visibility_scope)
                .end_obj();
        }
        w.end_arr();
        w.key("call_budget").begin_obj();
        w.key("used").int(self.calls as i64);
        w.key("limit");
        match self.budget {
            Some(b) => w.int(b as i64),
            None => w.null(),
        };
        w.end_obj();
        w.key("visibility_boundary").str(match self.audience {
            Audience::Model => "current_decision: retrieval evidence of the query the model decides on; the baseline selector's verdict and fixture labels are not visible",
            Audience::Operator => "operator: all evidence, including the baseline selector's verdict and suite labels",
        });
    }

    fn list_metrics(&self, w: &mut JsonWriter) {
        w.key("metrics").begin_arr();
        for m in METRICS
            .iter()
            .filter(|m| self.audience.sees(m.visibility_scope))
        {
            if m.visibility_scope == Visibility::OfflineEvaluation && self.suite.is_none() {
                continue;
            }
            w.begin_obj();
            w.key("metric_id").str(m.metric_id);
            w.key("unit").str(m.unit);
            w.key("visibility_scope").str(m.visibility_scope.as_str());
            w.key("per_tool").bool(m.per_tool);
            w.key("description").str(m.description);
            w.end_obj();
        }
        w.end_arr();
        w.key("registry_version").str(REGISTRY_VERSION);
    }

    fn visible_metric(
        &self,
        args: &Map<String, Value>,
    ) -> Result<&'static super::registry::Metric, ToolError> {
        let id = args
            .get("metric_id")
            .and_then(Value::as_str)
            .ok_or_else(|| ToolError::InvalidArguments("metric_id must be a string".into()))?;
        let m = metric(id).ok_or_else(|| {
            ToolError::Execution(format!("unknown metric {id:?}; see list_available_metrics"))
        })?;
        if !self.audience.sees(m.visibility_scope) {
            return Err(ToolError::Execution(format!(
                "metric {id} is {} and not visible to model-facing callers",
                m.visibility_scope.as_str()
            )));
        }
        Ok(m)
    }

    fn describe_metric(
        &self,
        args: &Map<String, Value>,
        w: &mut JsonWriter,
    ) -> Result<(), ToolError> {
        let m = self.visible_metric(args)?;
        w.key("metric");
        write_metric(m, w);
        Ok(())
    }

    fn explain_metric(
        &self,
        args: &Map<String, Value>,
        w: &mut JsonWriter,
    ) -> Result<(), ToolError> {
        let m = self.visible_metric(args)?;
        if m.visibility_scope == Visibility::OfflineEvaluation {
            return self.explain_lab(m, args, w);
        }
        let (query, knobs) = self.query_and_knobs(args)?;
        let r = self.engine.retrieve(&query, &knobs.params);
        let tree: Option<Explanation> = if m.per_tool {
            let tool = args
                .get("scope_id")
                .and_then(Value::as_str)
                .ok_or_else(|| {
                    ToolError::InvalidArguments(format!(
                        "{} is per tool: give scope_id (a tool name from the results)",
                        m.metric_id
                    ))
                })?;
            if r.row(tool).is_none() {
                let known = self.engine.graph.tool_id(tool).is_some();
                return Err(ToolError::Execution(if known {
                    format!(
                        "{tool} is not in the results of this query (top_k {})",
                        knobs.params.top_k
                    )
                } else {
                    format!("no tool named {tool:?} in the graph")
                }));
            }
            match m.metric_id {
                "retrieval.score" => explain::explain_row(self.engine, &r, tool, RowMetric::Score),
                "retrieval.seed" => explain::explain_row(self.engine, &r, tool, RowMetric::Seed),
                "retrieval.graph" => explain::explain_row(self.engine, &r, tool, RowMetric::Graph),
                _ => {
                    let sel = self.engine.select(&r, &knobs.select);
                    explain::explain_selector_score(&sel, tool)
                }
            }
        } else {
            let sel = self.engine.select(&r, &knobs.select);
            match m.metric_id {
                "selector.confidence" => explain::explain_confidence(&sel),
                "selector.margin" => explain::explain_margin(&sel, false),
                _ => explain::explain_margin(&sel, true),
            }
        };
        let Some(tree) = tree else {
            w.key("metric_id").str(m.metric_id);
            w.key("value").null();
            w.key("mechanism_status").str("unresolved");
            w.key("note")
                .str("the metric has no value for this query (e.g. no LLM target, or no result)");
            self.provenance(w, &knobs, m.formula_version);
            return Ok(());
        };
        let (status, bad) = tree.check();
        w.key("metric_id").str(m.metric_id);
        w.key("scope_id")
            .opt_str(args.get("scope_id").and_then(Value::as_str));
        w.key("query").str(&query);
        w.key("value").f64(tree.value);
        w.key("unit").str(m.unit);
        w.key("decomposition_type").str("accounting");
        w.key("components").begin_arr();
        for (label, value) in flat_components(&tree) {
            w.begin_obj()
                .key("label")
                .str(&label)
                .key("value")
                .f64(value)
                .end_obj();
        }
        w.end_arr();
        w.key("tree");
        tree.write_json(w);
        w.key("residual_check").begin_obj();
        w.key("tolerance").f64(explain::TOLERANCE);
        w.key("failures").str_list(&bad);
        w.end_obj();
        w.key("mechanism_status").str(status.as_str());
        self.provenance(w, &knobs, m.formula_version);
        w.key("limitations")
            .str_list(&["accounting decomposition does not establish causality"]);
        Ok(())
    }

    fn explain_lab(
        &self,
        m: &super::registry::Metric,
        args: &Map<String, Value>,
        w: &mut JsonWriter,
    ) -> Result<(), ToolError> {
        let suite = self.suite.ok_or_else(|| {
            ToolError::Execution(format!("{} needs a suite (--cases)", m.metric_id))
        })?;
        let knobs = match args.get("params") {
            Some(Value::Object(o)) => self
                .base_knobs
                .with(o)
                .map_err(ToolError::InvalidArguments)?,
            _ => self.base_knobs.clone(),
        };
        let k = knobs.params.top_k;
        let mut per: Vec<f64> = Vec::new();
        for c in &suite.cases {
            let r = self.engine.retrieve(&c.query, &knobs.params);
            let names: Vec<String> = r.rows.iter().map(|x| x.name.clone()).collect();
            per.push(match m.metric_id {
                "lab.hit_at_k" => hit_at_k(&names, &c.expected, k),
                "lab.mrr" => reciprocal_rank(&names, &c.expected),
                _ => {
                    let s = self.engine.select(&r, &knobs.select);
                    if c.expected.contains(&s.selected_target) {
                        1.0
                    } else {
                        0.0
                    }
                }
            });
        }
        let total: f64 = per.iter().sum();
        let children: Vec<Explanation> = if self.audience == Audience::Operator {
            suite
                .cases
                .iter()
                .zip(&per)
                .map(|(c, v)| Explanation::leaf(format!("case {}", c.id), *v))
                .collect()
        } else {
            vec![Explanation::leaf(
                "sum over cases (per-case values hidden: they reveal labels)",
                total,
            )]
        };
        let sum = Explanation::node("sum over cases", total, explain::Op::Sum, children);
        let tree = Explanation::node(
            m.metric_id,
            mean(&per),
            explain::Op::Normalize,
            vec![sum, Explanation::leaf("cases", per.len() as f64)],
        );
        let (status, bad) = tree.check();
        w.key("metric_id").str(m.metric_id);
        w.key("value").f64(tree.value);
        w.key("unit").str(m.unit);
        w.key("k").int(k as i64);
        w.key("decomposition_type").str("accounting");
        w.key("tree");
        tree.write_json(w);
        w.key("residual_check")
            .begin_obj()
            .key("tolerance")
            .f64(explain::TOLERANCE)
            .key("failures")
            .str_list(&bad)
            .end_obj();
        w.key("mechanism_status").str(status.as_str());
        self.provenance(w, &knobs, m.formula_version);
        Ok(())
    }

    fn trace(
        &self,
        name: &str,
        args: &Map<String, Value>,
        w: &mut JsonWriter,
    ) -> Result<(), ToolError> {
        let (query, knobs) = self.query_and_knobs(args)?;
        let with_selector = self.audience == Audience::Operator;
        let (_, _, t) = trace::record(
            self.engine,
            &query,
            &knobs.params,
            with_selector.then_some(&knobs.select),
        );
        let limit = args.get("limit").and_then(Value::as_u64).unwrap_or(200) as usize;
        let events: Vec<&trace::Event> = if name == "trace_entity" {
            let tool = args
                .get("tool")
                .and_then(Value::as_str)
                .ok_or_else(|| ToolError::InvalidArguments("tool must be a string".into()))?;
            if self.engine.graph.tool_id(tool).is_none()
                && self.engine.graph.node_id(tool).is_none()
            {
                return Err(ToolError::Execution(format!(
                    "no tool named {tool:?} in the graph"
                )));
            }
            t.entity(tool)
        } else {
            let stage = args.get("stage").and_then(Value::as_str);
            t.events
                .iter()
                .filter(|e| stage.is_none_or(|s| e.stage == s))
                .collect()
        };
        w.key("query").str(&query);
        w.key("event_count").int(events.len() as i64);
        w.key("truncated").bool(events.len() > limit);
        w.key("events").begin_arr();
        for e in events.iter().take(limit) {
            e.write_json(w);
        }
        w.end_arr();
        w.key("mechanism_status").str("resolved");
        self.provenance(w, &knobs, PROFILE);
        w.key("limitations").str_list(&[
            "an event trace shows how values came about; it does not say which event mattered",
        ]);
        Ok(())
    }

    fn counterfactual(
        &self,
        args: &Map<String, Value>,
        w: &mut JsonWriter,
    ) -> Result<(), ToolError> {
        let base = match args.get("base") {
            None | Some(Value::Null) => self.base_knobs.clone(),
            Some(Value::Object(o)) => self
                .base_knobs
                .with(o)
                .map_err(ToolError::InvalidArguments)?,
            Some(_) => return Err(ToolError::InvalidArguments("base must be an object".into())),
        };
        let change = args
            .get("change")
            .and_then(Value::as_object)
            .ok_or_else(|| {
                ToolError::InvalidArguments("change must be an object of knobs".into())
            })?;
        let variant = base.with(change).map_err(ToolError::InvalidArguments)?;
        if self.audience == Audience::Model
            && (base.select != self.base_knobs.select || variant.select != self.base_knobs.select)
        {
            return Err(ToolError::Execution("llm_target and policy are post-decision knobs and are not available to model-facing callers".into()));
        }
        if args.get("suite").and_then(Value::as_bool).unwrap_or(false) {
            let suite = self.suite.ok_or_else(|| {
                ToolError::Execution("suite comparison needs a suite (--cases)".into())
            })?;
            let s = compare_suite(self.engine, suite, &base, &variant, base.params.top_k);
            w.key("suite").str(&suite.name);
            write_suite_fields(&s, w, self.audience == Audience::Operator);
            self.provenance(w, &base, PROFILE);
            w.key("variant_params");
            variant.write_json(w);
            return Ok(());
        }
        let mut q_args = args.clone();
        q_args.remove("params");
        let (query, _) = self.query_and_knobs(&q_args)?;
        let c = compare(
            self.engine,
            &query,
            &base,
            &variant,
            self.audience == Audience::Operator,
        );
        write_comparison_fields(&c, w, self.audience == Audience::Operator);
        self.provenance(w, &base, PROFILE);
        w.key("variant_params");
        if self.audience == Audience::Model {
            write_knobs_retrieval(&variant, w);
        } else {
            variant.write_json(w);
        }
        Ok(())
    }

    fn lookup(&self, args: &Map<String, Value>, w: &mut JsonWriter) -> Result<(), ToolError> {
        let (query, knobs) = self.query_and_knobs(args)?;
        let r = self.engine.retrieve(&query, &knobs.params);
        w.key("framing").str(&format!(
            "recorded output of the {PROFILE} retriever for this query on this graph; a fact about an algorithm run, not a recommendation of any tool"
        ));
        w.key("run").begin_obj();
        w.key("query").str(&query);
        w.key("query_fingerprint")
            .str(&crate::engine::learning::fingerprint(&query));
        w.key("rows").begin_arr();
        for (i, row) in r.rows.iter().enumerate() {
            w.begin_obj();
            w.key("rank").int(i as i64 + 1);
            w.key("tool").str(&row.name);
            w.key("score").f64(row.rounded_score());
            w.key("score_breakdown").begin_obj();
            w.key("seed").f64(row.breakdown.seed);
            w.key("graph").f64(row.breakdown.graph);
            w.key("learning").f64(row.breakdown.learning);
            w.key("history_demoted").bool(row.breakdown.history_demoted);
            w.end_obj();
            w.key("expanded_from")
                .opt_str(row.expanded_from(self.engine));
            w.key("matched_terms").str_list(&row.semantic.matched_terms);
            w.end_obj();
        }
        w.end_arr();
        w.key("intent").str(r.intent_label.as_str());
        w.key("seeds").str_list(&r.stats.seeds);
        w.key("visited_nodes").int(r.stats.visited_nodes as i64);
        w.key("visited_edges").int(r.stats.visited_edges as i64);
        w.end_obj();
        w.key("mechanism_status").str("resolved");
        self.provenance(w, &knobs, PROFILE);
        Ok(())
    }
}

fn write_knobs_retrieval(k: &Knobs, w: &mut JsonWriter) {
    w.begin_obj();
    for key in super::knobs::KNOBS
        .iter()
        .filter(|k| **k != "llm_target" && **k != "policy")
    {
        w.key(key).value(&k.get(key));
    }
    w.end_obj();
}

/// A flat chip view: the leaves under the root's first combinator, labelled.
pub fn flat_components(tree: &Explanation) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    for (_, n) in tree.walk() {
        if n.children.is_empty() {
            out.push((n.label.clone(), n.value));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explain_metric_is_resolved_with_provenance() {
        let engine = Engine::new(crate::demo::load_demo().unwrap());
        let mut s = Session::new(&engine, Audience::Model);
        let r = engine.retrieve("refund approval", &Default::default());
        let tool = r.rows[3].name.clone();
        let out = s.call("explain_metric", &json!({"metric_id": "retrieval.score", "query": "refund approval", "scope_id": tool})).unwrap();
        assert_eq!(out["mechanism_status"], "resolved");
        assert_eq!(out["value"].as_f64().unwrap(), r.rows[3].rounded_score());
        assert_eq!(out["read_only"], true);
        assert_eq!(out["returns_action_recommendations"], false);
        assert!(
            out["provenance"]["graph"]["fingerprint"]
                .as_str()
                .unwrap()
                .starts_with("sha256:")
        );
        // selector metrics are post-decision: hidden from the model
        let e = s
            .call(
                "explain_metric",
                &json!({"metric_id": "selector.confidence", "query": "x"}),
            )
            .unwrap_err();
        assert!(matches!(e, ToolError::Execution(_)));
        assert!(matches!(
            s.call("no_such_tool", &json!({})),
            Err(ToolError::UnknownTool(_))
        ));
        assert!(matches!(
            s.call("explain_metric", &json!({"query": "x"})),
            Err(ToolError::InvalidArguments(_))
        ));
        let e = s
            .call(
                "compare_bounded_counterfactual",
                &json!({"query": "x", "change": {"graph": "g"}}),
            )
            .unwrap_err();
        assert!(e.to_string().contains("not an authorised knob"), "{e}");
    }

    #[test]
    fn budget_is_enforced() {
        let engine = Engine::new(crate::demo::load_demo().unwrap());
        let mut s = Session::new(&engine, Audience::Model);
        s.budget = Some(2);
        assert!(s.call("list_available_tools", &json!({})).is_ok());
        assert!(s.call("list_available_metrics", &json!({})).is_ok());
        let e = s.call("list_available_tools", &json!({})).unwrap_err();
        assert!(e.to_string().contains("budget exhausted"), "{e}");
    }
}
