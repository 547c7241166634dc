//! The read-only evidence tools (their contracts are in [`super::contracts`], re-exported
//! here; `explain_rank_gap` is in [`super::rank_gap`]). One implementation serves
//! `toolscope evidence`, the MCP server and the TUI panes.

use serde_json::{Map, Value};

use super::counterfactual::{compare, compare_suite, write_comparison_fields, write_suite_fields};
use super::knobs::{Knob, Knobs};
use super::registry::{METRICS, MetricId, REGISTRY_VERSION, Visibility, metric, write_metric};
use crate::engine::explain::{self, Explanation};
use crate::engine::{Engine, PROFILE, REFERENCE, trace};
use crate::jsonout::JsonWriter;
use crate::lab::metrics::{hit_at_k, mean, reciprocal_rank};
use crate::lab::suite::Suite;
use crate::output::json::write_parts;
use crate::output::row::RowView;

use super::contracts::POST_DECISION_KNOBS;
pub use super::contracts::*;

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

/// A live metric's answer to `explain_metric`, typed until MCP or the `explain` command
/// writes it ([`Session::write_answer`]).
#[derive(Debug, Clone)]
pub struct MetricAnswer {
    pub metric: &'static super::registry::Metric,
    /// The row explained, as asked (`scope_id`).
    pub scope_id: Option<String>,
    pub query: String,
    pub knobs: Knobs,
    /// `None`: the metric has no value for this query (no LLM target, no result).
    pub tree: Option<Explanation>,
}

impl MetricAnswer {
    /// `resolved`, `partial` or `unresolved` (no tree).
    pub fn status(&self) -> explain::Status {
        self.tree
            .as_ref()
            .map_or(explain::Status::Unresolved, |t| t.check().0)
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
    /// The parameter sets evaluated against the labels for a model-facing caller (their
    /// canonical JSON), at most [`LAB_SWEEP_BUDGET`].
    label_sets: Vec<String>,
    /// The graph `compare_artifacts` compares the session's graph with (`--baseline OLD`).
    pub baseline: Option<&'a Engine>,
    /// The artifact diff and change groups of `baseline` and `engine`, made on first use.
    pub(super) compared: std::cell::OnceCell<Box<super::compare::Compared<'a>>>,
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
            label_sets: Vec::new(),
            baseline: None,
            compared: Default::default(),
        }
    }

    pub fn tools(&self) -> impl Iterator<Item = &'static ToolContract> + '_ {
        CONTRACTS
            .iter()
            .filter(|c| self.audience == Audience::Operator || c.model_facing)
    }

    pub(super) fn provenance(&self, w: &mut JsonWriter, knobs: &Knobs, formula_version: &str) {
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
            k.write_json_retrieval(w);
        } else {
            knobs.write_json(w);
        }
        w.key("toolscope_version").str(env!("CARGO_PKG_VERSION"));
        w.end_obj();
    }

    /// The knobs of `args[arg]` applied to the session's base (`params`, `base`).
    pub(super) fn knobs_arg(
        &self,
        args: &Map<String, Value>,
        arg: &str,
    ) -> Result<Knobs, ToolError> {
        let knobs = match args.get(arg) {
            None | Some(Value::Null) => self.base_knobs.clone(),
            Some(Value::Object(o)) => self
                .base_knobs
                .with(o)
                .map_err(|e| ToolError::InvalidArguments(format!("{arg}: {e}")))?,
            Some(_) => {
                return Err(ToolError::InvalidArguments(format!(
                    "{arg} must be an object of knobs"
                )));
            }
        };
        if self.audience == Audience::Model && (knobs.select != self.base_knobs.select) {
            return Err(post_decision(arg));
        }
        Ok(knobs)
    }

    /// The query of `args`: `query`, or the query of the suite case `case_id`.
    pub(super) fn query_of(&self, args: &Map<String, Value>) -> Result<String, ToolError> {
        Ok(match (args.get("query"), args.get("case_id")) {
            (Some(Value::String(q)), _) => q.clone(),
            (_, Some(Value::String(id))) => {
                let suite = self.suite.ok_or_else(|| {
                    ToolError::InvalidArguments(
                        "case_id: a case id was given but no suite is loaded (--cases); give query (a string) instead".into(),
                    )
                })?;
                let c = suite.cases.iter().find(|c| c.id == *id).ok_or_else(|| {
                    let ids: Vec<&str> = suite.cases.iter().map(|c| c.id.as_str()).collect();
                    ToolError::InvalidArguments(format!(
                        "case_id: no case {:?} in the loaded suite; allowed: {}",
                        super::knobs::clip(id),
                        some_of(&ids)
                    ))
                })?;
                c.query.clone()
            }
            (Some(_), _) => {
                return Err(ToolError::InvalidArguments("query must be a string".into()));
            }
            _ => {
                return Err(ToolError::InvalidArguments(
                    "query: give query (a string) or case_id (a case id of the loaded suite)"
                        .into(),
                ));
            }
        })
    }

    fn query_and_knobs(&self, args: &Map<String, Value>) -> Result<(String, Knobs), ToolError> {
        let knobs = self.knobs_arg(args, "params")?;
        Ok((self.query_of(args)?, knobs))
    }

    /// Calls a tool; returns its structured result.
    ///
    /// The call budget: a call is counted once it names a tool of this session and its
    /// arguments are an object with only the contract's keys and every required one; from
    /// then on it counts whether it succeeds, fails a value check (a mistyped, oversized or
    /// out-of-range argument, an unknown metric, an unauthorised knob) or fails to execute.
    /// Once the budget is used up every call is refused (an execution error) and not
    /// counted.
    pub fn call(&mut self, name: &str, args: &Value) -> Result<Value, ToolError> {
        let c = self
            .tools()
            .find(|c| c.name == name)
            .ok_or_else(|| ToolError::UnknownTool(super::knobs::clip(name)))?;
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
        let allowed = || {
            let names: Vec<&str> = c.inputs.iter().map(|i| i.0).collect();
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        };
        for k in args.keys() {
            if !c.inputs.iter().any(|i| i.0 == k) {
                return Err(ToolError::InvalidArguments(format!(
                    "unexpected argument {:?} for {name} (arguments: {})",
                    super::knobs::clip(k),
                    allowed()
                )));
            }
        }
        for (n, t, req, d) in c.inputs {
            if *req && !args.contains_key(*n) {
                return Err(ToolError::InvalidArguments(format!(
                    "missing required argument {n:?} ({t}: {d})"
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
        check_types(c, args)?;
        let mut w = JsonWriter::new();
        w.begin_obj();
        match name {
            "list_available_tools" => self.list_tools(&mut w),
            "list_available_metrics" => self.list_metrics(&mut w),
            "describe_metric" => self.describe_metric(args, &mut w)?,
            "explain_metric" => self.explain_metric(args, &mut w)?,
            "trace_event" | "trace_entity" => self.trace(name, args, &mut w)?,
            "compare_bounded_counterfactual" => self.counterfactual(args, &mut w)?,
            "explain_rank_gap" => self.rank_gap(args, &mut w)?,
            "lookup_recorded_run" => self.lookup(args, &mut w)?,
            "compare_artifacts" => self.compare_artifacts(args, &mut w)?,
            _ => return Err(ToolError::UnknownTool(name.to_string())),
        }
        w.key("read_only").bool(true);
        w.key("returns_action_recommendations").bool(false);
        w.end_obj();
        serde_json::from_str(&w.finish()).map_err(|e| {
            ToolError::Execution(format!(
                "internal error: the result of {name} is not valid JSON ({e})"
            ))
        })
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
        if self.audience == Audience::Model {
            w.key("label_sweep_budget").begin_obj();
            w.key("used").int(self.label_sets.len() as i64);
            w.key("limit").int(LAB_SWEEP_BUDGET as i64);
            w.key("min_cases").int(LAB_MIN_CASES as i64);
            w.end_obj();
        }
        w.key("visibility_boundary").str(match self.audience {
            Audience::Model => "current_decision: retrieval evidence of the query the model decides on; the baseline selector's verdict and fixture labels are not visible",
            Audience::Operator => "operator: all evidence, including the baseline selector's verdict and suite labels",
        });
    }

    fn list_metrics(&self, w: &mut JsonWriter) {
        w.key("metrics").begin_arr();
        for m in self.listed_metrics() {
            w.begin_obj();
            w.key("metric_id").str(m.metric_id());
            w.key("unit").str(m.unit);
            w.key("visibility_scope").str(m.visibility_scope.as_str());
            w.key("per_tool").bool(m.per_tool);
            w.key("description").str(m.description);
            w.end_obj();
        }
        w.end_arr();
        w.key("registry_version").str(REGISTRY_VERSION);
    }

    /// The metrics this session may ask for (what `list_available_metrics` lists).
    fn listed_metrics(&self) -> impl Iterator<Item = &'static super::registry::Metric> + '_ {
        METRICS.iter().filter(|m| {
            self.audience.sees(m.visibility_scope)
                && match m.id {
                    // counterfactual evidence for operators, over a baseline graph
                    MetricId::BlameRankShift => {
                        self.audience == Audience::Operator && self.baseline.is_some()
                    }
                    _ => {
                        m.visibility_scope != Visibility::OfflineEvaluation || self.suite.is_some()
                    }
                }
        })
    }

    fn visible_metric(
        &self,
        args: &Map<String, Value>,
    ) -> Result<&'static super::registry::Metric, ToolError> {
        let id = args
            .get("metric_id")
            .and_then(Value::as_str)
            .ok_or_else(|| ToolError::InvalidArguments("metric_id must be a string".into()))?;
        self.visible_metric_id(id)
    }

    /// The registry entry of `id` when this session may see it.
    fn visible_metric_id(&self, id: &str) -> Result<&'static super::registry::Metric, ToolError> {
        let allowed = || {
            self.listed_metrics()
                .map(|m| m.metric_id())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let m = metric(id).ok_or_else(|| {
            ToolError::InvalidArguments(format!(
                "metric_id: unknown metric {:?}; allowed: {} (see list_available_metrics)",
                super::knobs::clip(id),
                allowed()
            ))
        })?;
        if m.id == MetricId::BlameRankShift && self.audience != Audience::Operator {
            return Err(ToolError::InvalidArguments(format!(
                "metric_id: metric {id} is counterfactual evidence for operators and not visible to model-facing callers; allowed: {}",
                allowed()
            )));
        }
        if !self.audience.sees(m.visibility_scope) {
            return Err(ToolError::InvalidArguments(format!(
                "metric_id: metric {id} is {} and not visible to model-facing callers; allowed: {}",
                m.visibility_scope.as_str(),
                allowed()
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
        &mut self,
        args: &Map<String, Value>,
        w: &mut JsonWriter,
    ) -> Result<(), ToolError> {
        let m = self.visible_metric(args)?;
        if m.id == MetricId::BlameRankShift {
            return self.explain_blame(m, args, w);
        }
        if m.visibility_scope == Visibility::OfflineEvaluation {
            return self.explain_lab(m, args, w);
        }
        let (query, knobs) = self.query_and_knobs(args)?;
        let scope = args.get("scope_id").and_then(Value::as_str);
        let answer = self.explain_live(m, query, knobs, scope)?;
        self.write_answer(&answer, w);
        Ok(())
    }

    /// `explain_metric` of a live metric for a typed caller (the `explain` command): the
    /// metric by its id (checked as the tool checks `metric_id`), the query, the knobs and
    /// the row (`scope_id`, for a per-tool metric). A suite metric is answered only by the
    /// tool with a loaded suite, so here it fails as the tool would.
    pub fn explain_request(
        &mut self,
        metric_id: &str,
        query: &str,
        knobs: Knobs,
        scope_id: Option<&str>,
    ) -> Result<MetricAnswer, ToolError> {
        // the argument limits `call` checks first (check_types), in the contract's order
        crate::limits::check_arg("metric_id", metric_id).map_err(ToolError::InvalidArguments)?;
        crate::limits::check_query(query)
            .map_err(|e| ToolError::InvalidArguments(format!("query: {e}")))?;
        if let Some(s) = scope_id {
            crate::limits::check_arg("scope_id", s).map_err(ToolError::InvalidArguments)?;
        }
        let m = self.visible_metric_id(metric_id)?;
        if m.id == MetricId::BlameRankShift {
            return Err(ToolError::InvalidArguments(format!(
                "metric_id: {} needs a baseline graph: toolscope evidence explain_metric --graph NEW --baseline OLD --args '{{\"metric_id\": \"{}\", \"query\": ...}}'",
                m.metric_id(),
                m.metric_id()
            )));
        }
        if m.visibility_scope == Visibility::OfflineEvaluation {
            return Err(match self.suite {
                None => needs_suite(m),
                Some(_) => aggregate_only(m, "query"),
            });
        }
        self.explain_live(m, query.to_string(), knobs, scope_id)
    }

    /// Explains a live metric: the tree stays typed in the answer
    /// ([`Session::write_answer`] serialises it).
    fn explain_live(
        &self,
        m: &'static super::registry::Metric,
        query: String,
        knobs: Knobs,
        scope_id: Option<&str>,
    ) -> Result<MetricAnswer, ToolError> {
        let r = self.engine.retrieve(&query, &knobs.params);
        let mut tool = "";
        if m.per_tool {
            tool = scope_id.ok_or_else(|| {
                ToolError::InvalidArguments(format!(
                    "scope_id: {} is per tool: give scope_id (a tool name from the results)",
                    m.metric_id()
                ))
            })?;
            if r.row(tool).is_none() {
                let known = self.engine.graph.tool_id(tool).is_some();
                let results: Vec<&str> = r.rows.iter().map(|x| x.name.as_str()).collect();
                let tool = super::knobs::clip(tool);
                return Err(ToolError::InvalidArguments(if known {
                    format!(
                        "scope_id: {tool} is not in the results of this query (top_k {}); allowed: {}",
                        knobs.params.top_k,
                        some_of(&results)
                    )
                } else {
                    format!(
                        "scope_id: no tool named {tool:?} in the graph; allowed: a tool of the results ({}); closest names: {}",
                        some_of(&results),
                        closest(self.engine, &tool)
                    )
                }));
            }
        }
        let sel =
            m.id.needs_selection()
                .then(|| self.engine.select(&r, &knobs.select));
        let tree = explain::explain_live(self.engine, &r, sel.as_ref(), m.id, tool);
        Ok(MetricAnswer {
            metric: m,
            scope_id: scope_id.map(String::from),
            query,
            knobs,
            tree,
        })
    }

    /// Writes a live metric's answer: the keys of `explain_metric`'s result, without the
    /// closing flags `call` adds.
    pub fn write_answer(&self, a: &MetricAnswer, w: &mut JsonWriter) {
        let m = a.metric;
        let Some(tree) = &a.tree else {
            w.key("metric_id").str(m.metric_id());
            w.key("value").null();
            w.key("mechanism_status").str("unresolved");
            w.key("note")
                .str("the metric has no value for this query (e.g. no LLM target, or no result)");
            self.provenance(w, &a.knobs, m.formula_version);
            return;
        };
        let (status, bad) = tree.check();
        w.key("metric_id").str(m.metric_id());
        w.key("scope_id").opt_str(a.scope_id.as_deref());
        w.key("query").str(&a.query);
        w.key("value").f64(tree.value);
        w.key("unit").str(m.unit);
        w.key("decomposition_type").str("accounting");
        w.key("components").begin_arr();
        for (label, value) in flat_components(tree) {
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
        self.provenance(w, &a.knobs, m.formula_version);
        w.key("limitations")
            .str_list(&["accounting decomposition does not establish causality"]);
    }

    /// For a model-facing caller, whether label-dependent aggregates over `suite` at these
    /// knob sets, each scored at hit@`k`, may be shown: `Ok(Some(why))` withholds them (too
    /// few distinct cases), an error refuses the call (the label sweep budget would be
    /// exceeded; nothing is recorded), `Ok(None)` shows them and records the sets.
    /// Operators are not limited.
    fn label_gate(
        &mut self,
        suite: &Suite,
        sets: &[&Knobs],
        k: usize,
    ) -> Result<Option<String>, ToolError> {
        if self.audience == Audience::Operator {
            return Ok(None);
        }
        let n = distinct_queries(suite);
        if n < LAB_MIN_CASES {
            return Ok(Some(format!(
                "label-dependent aggregates withheld: the loaded suite has {n} distinct case queries, and a model-facing caller is shown such aggregates only over at least {LAB_MIN_CASES} (an aggregate over few cases reveals their labels)"
            )));
        }
        let mut new: Vec<String> = Vec::new();
        for knobs in sets {
            let mut key: Vec<Value> = Knob::ALL.iter().map(|&n| knobs.value(n)).collect();
            key.push(k.into());
            let key = Value::Array(key).to_string();
            if !self.label_sets.contains(&key) && !new.contains(&key) {
                new.push(key);
            }
        }
        if self.label_sets.len() + new.len() > LAB_SWEEP_BUDGET {
            return Err(ToolError::Execution(format!(
                "label sweep budget exhausted: {}/{LAB_SWEEP_BUDGET} distinct parameter sets were evaluated against the suite labels in this session and this call needs {} more; calls repeating an evaluated parameter set are still answered",
                self.label_sets.len(),
                new.len()
            )));
        }
        self.label_sets.extend(new);
        Ok(None)
    }

    fn explain_lab(
        &mut self,
        m: &super::registry::Metric,
        args: &Map<String, Value>,
        w: &mut JsonWriter,
    ) -> Result<(), ToolError> {
        let suite = self.suite.ok_or_else(|| needs_suite(m))?;
        for a in ["query", "case_id", "scope_id"] {
            if args.get(a).is_some_and(|v| !v.is_null()) {
                return Err(aggregate_only(m, a));
            }
        }
        let knobs = self.knobs_arg(args, "params")?;
        let k = knobs.params.top_k;
        if let Some(why) = self.label_gate(suite, &[&knobs], k)? {
            w.key("metric_id").str(m.metric_id());
            w.key("value").null();
            w.key("unit").str(m.unit);
            w.key("k").int(k as i64);
            w.key("mechanism_status").str("unresolved");
            w.key("limitations").str_list(&[why.as_str(), LABEL_THREAT]);
            self.provenance(w, &knobs, m.formula_version);
            return Ok(());
        }
        let mut per: Vec<f64> = Vec::new();
        for c in &suite.cases {
            let r = self.engine.retrieve(&c.query, &knobs.params);
            let names: Vec<String> = r.rows.iter().map(|x| x.name.clone()).collect();
            per.push(match m.id {
                MetricId::LabHitAtK => hit_at_k(&names, &c.expected, k),
                MetricId::LabMrr => reciprocal_rank(&names, &c.expected),
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
            m.metric_id(),
            mean(&per),
            explain::Op::Normalize,
            vec![sum, Explanation::leaf("cases", per.len() as f64)],
        );
        let (status, bad) = tree.check();
        w.key("metric_id").str(m.metric_id());
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
        let limit = match args.get("limit") {
            None | Some(Value::Null) => 200,
            Some(v) => match v.as_u64() {
                Some(n) if n <= TRACE_LIMIT_MAX => n as usize,
                _ => {
                    return Err(ToolError::InvalidArguments(format!(
                        "limit: expected an integer from 0 to {TRACE_LIMIT_MAX}, got {v}"
                    )));
                }
            },
        };
        let stage = args.get("stage").and_then(Value::as_str);
        if let Some(s) = stage
            && !TRACE_STAGES.contains(&s)
        {
            return Err(ToolError::InvalidArguments(format!(
                "stage: unknown stage {:?}; allowed: {}",
                super::knobs::clip(s),
                TRACE_STAGES.join(", ")
            )));
        }
        let tool = args.get("tool").and_then(Value::as_str);
        if name == "trace_entity" {
            let tool =
                tool.ok_or_else(|| ToolError::InvalidArguments("tool must be a string".into()))?;
            if self.engine.graph.tool_id(tool).is_none()
                && self.engine.graph.node_id(tool).is_none()
            {
                return Err(ToolError::InvalidArguments(format!(
                    "tool: no tool named {:?} in the graph; allowed: a tool or node name of the graph; closest names: {}",
                    super::knobs::clip(tool),
                    closest(self.engine, tool)
                )));
            }
        }
        let with_selector = self.audience == Audience::Operator;
        let (_, _, t) = trace::record(
            self.engine,
            &query,
            &knobs.params,
            with_selector.then_some(&knobs.select),
        );
        let events: Vec<&trace::Event> = if let (true, Some(tool)) = (name == "trace_entity", tool)
        {
            t.entity(tool)
        } else {
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
        &mut self,
        args: &Map<String, Value>,
        w: &mut JsonWriter,
    ) -> Result<(), ToolError> {
        let base = self.knobs_arg(args, "base")?;
        let change = args
            .get("change")
            .and_then(Value::as_object)
            .ok_or_else(|| {
                ToolError::InvalidArguments("change must be an object of knobs".into())
            })?;
        let variant = base
            .with(change)
            .map_err(|e| ToolError::InvalidArguments(format!("change: {e}")))?;
        if self.audience == Audience::Model && variant.select != self.base_knobs.select {
            return Err(post_decision("change"));
        }
        if args.get("suite").and_then(Value::as_bool).unwrap_or(false) {
            let suite = self.suite.ok_or_else(|| {
                ToolError::Execution("suite comparison needs a suite (--cases)".into())
            })?;
            for a in ["query", "case_id"] {
                if args.get(a).is_some_and(|v| !v.is_null()) {
                    return Err(ToolError::InvalidArguments(format!(
                        "{a}: a suite comparison runs over every case of the loaded suite, never one case or a subset; give change (and base) only"
                    )));
                }
            }
            // both sides are scored at hit@k of the base's top_k
            let withheld = self.label_gate(suite, &[&base, &variant], base.params.top_k)?;
            let s = compare_suite(self.engine, suite, &base, &variant, base.params.top_k);
            w.key("suite").str(&suite.name);
            write_suite_fields(
                &s,
                w,
                self.audience == Audience::Operator,
                withheld.is_none(),
            );
            if let Some(why) = &withheld {
                w.key("limitations").str_list(&[why.as_str(), LABEL_THREAT]);
            }
            self.provenance(w, &base, PROFILE);
            w.key("variant_params");
            if self.audience == Audience::Model {
                variant.write_json_retrieval(w);
            } else {
                variant.write_json(w);
            }
            return Ok(());
        }
        let query = self.query_of(args)?;
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
            variant.write_json_retrieval(w);
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
        for v in RowView::all(self.engine, &r.rows) {
            w.begin_obj();
            w.key("rank").int(v.rank as i64);
            w.key("tool").str(v.name);
            w.key("score").f64(v.rounded);
            w.key("score_breakdown");
            write_parts(&v.score_parts(), w);
            w.key("expanded_from").opt_str(v.expanded_from());
            w.key("matched_terms").str_list(v.matched);
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

/// The invalid-argument error for a selector knob a model-facing caller set in `arg`.
/// A suite metric asked of a session without a suite.
fn needs_suite(m: &super::registry::Metric) -> ToolError {
    ToolError::Execution(format!("{} needs a suite (--cases)", m.metric_id()))
}

/// A suite metric asked for one case or a subset (`arg`).
fn aggregate_only(m: &super::registry::Metric, arg: &str) -> ToolError {
    ToolError::InvalidArguments(format!(
        "{arg}: {} is an aggregate over the whole loaded suite, never over one case or a subset; give metric_id and params only",
        m.metric_id()
    ))
}

pub(super) fn post_decision(arg: &str) -> ToolError {
    ToolError::InvalidArguments(format!("{arg}: {POST_DECISION_KNOBS}"))
}

/// At most [`SOME_OF`] names, comma-separated, then how many more (for "allowed: …").
fn some_of(names: &[&str]) -> String {
    if names.is_empty() {
        return "none".into();
    }
    let mut s: Vec<String> = names
        .iter()
        .take(SOME_OF)
        .map(|n| super::knobs::clip(n))
        .collect();
    if names.len() > SOME_OF {
        s.push(format!("… ({} more)", names.len() - SOME_OF));
    }
    s.join(", ")
}

/// How many allowed values an error message lists.
const SOME_OF: usize = 20;

/// The three tool names closest to `name`, for an unknown tool named in an argument.
fn closest(engine: &Engine, name: &str) -> String {
    let names = crate::engine::triage::closest_names(engine, name, 3);
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    some_of(&names)
}

/// What a JSON value is, for messages ("a number").
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a fractional number",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Checks each given argument's JSON type against the contract and each string's size
/// against the limits (the query against [`crate::limits::QUERY_BYTES`], the others
/// against [`crate::limits::ARG_BYTES`]), before any work. `null` stands for an optional
/// argument not given.
fn check_types(c: &ToolContract, args: &Map<String, Value>) -> Result<(), ToolError> {
    for (n, t, req, d) in c.inputs {
        let Some(v) = args.get(*n) else { continue };
        if v.is_null() && !*req {
            continue;
        }
        let (ok, want) = match *t {
            "string" => (v.is_string(), "a string"),
            "integer" => (v.is_i64() || v.is_u64(), "an integer"),
            "object" => (v.is_object(), "an object"),
            "boolean" => (v.is_boolean(), "true or false"),
            _ => (true, ""),
        };
        if !ok {
            return Err(ToolError::InvalidArguments(format!(
                "{n}: expected {want} ({d}), got {}",
                kind(v)
            )));
        }
        if let Value::String(s) = v {
            if *n == "query" {
                crate::limits::check_query(s).map_err(|e| format!("query: {e}"))
            } else {
                crate::limits::check_arg(n, s)
            }
            .map_err(ToolError::InvalidArguments)?;
        }
    }
    Ok(())
}

/// Case queries as the label threshold counts them: lower case, runs of white space as
/// one space, so a suite cannot reach [`LAB_MIN_CASES`] by repeating one query.
fn distinct_queries(suite: &Suite) -> usize {
    let mut seen: Vec<String> = suite
        .cases
        .iter()
        .map(|c| {
            c.query
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .to_lowercase()
        })
        .collect();
    seen.sort_unstable();
    seen.dedup();
    seen.len()
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
    use serde_json::json;

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
        assert!(
            matches!(&e, ToolError::InvalidArguments(m) if m.starts_with("metric_id: metric selector.confidence is post_decision") && m.contains("allowed: retrieval.score, retrieval.seed, retrieval.graph")),
            "{e}"
        );
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

    #[test]
    fn the_threat_model_text_matches_the_constants() {
        assert!(LABEL_THREAT.contains(&format!("at least {LAB_MIN_CASES} distinct")));
        assert!(LABEL_THREAT.contains(&format!("one of {LAB_SWEEP_BUDGET} label-sweep units")));
        for name in ["explain_metric", "compare_bounded_counterfactual"] {
            assert!(contract(name).unwrap().limitations.contains(&LABEL_THREAT));
        }
    }

    #[test]
    fn trace_stages_cover_every_event_and_arguments_are_checked_first() {
        let engine = Engine::new(crate::demo::load_demo().unwrap());
        let mut params = crate::engine::Params::default();
        let r = engine.retrieve("refund approval", &params);
        params.history = vec![r.rows[0].name.clone()];
        for q in ["refund approval", "주문 취소해줘", "zzzz"] {
            let (_, _, t) = trace::record(&engine, q, &params, Some(&Default::default()));
            for e in &t.events {
                assert!(TRACE_STAGES.contains(&e.stage), "{}", e.stage);
            }
        }
        let mut s = Session::new(&engine, Audience::Operator);
        for (args, want) in [
            (json!({"query": ["x"]}), "query: expected a string"),
            (
                json!({"query": "x", "limit": 1.5}),
                "limit: expected an integer",
            ),
            (
                json!({"query": "x", "limit": -1}),
                "limit: expected an integer from 0 to",
            ),
            (
                json!({"query": "x", "params": []}),
                "params: expected an object",
            ),
            (
                json!({"query": "x", "stage": "selectr"}),
                "allowed: query, bm25",
            ),
        ] {
            let e = s.call("trace_event", &args).unwrap_err();
            assert!(
                matches!(&e, ToolError::InvalidArguments(m) if m.contains(want)),
                "{args}: {e}"
            );
        }
        // a weight that overflowed the scores to infinity (and panicked) is out of range
        let e = s
            .call(
                "lookup_recorded_run",
                &json!({"query": "refund approval", "params": {"relation_weight": {"relation": "requires", "weight": 1e308}, "depth": 3}}),
            )
            .unwrap_err();
        assert!(e.to_string().contains("from 0 to 10"), "{e}");
    }
}
