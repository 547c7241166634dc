//! The evidence drill-down panes (Explain, Trace, Counterfactual): their state, the jobs
//! they run on the evidence worker (each re-runs part of the query, so never on the UI
//! thread), and the drill-down path explain → trace → counterfactual that the breadcrumbs
//! show. A pane asks for what it needs in [`App::sync_drill`], called after every event;
//! an answer is kept only when it still matches what the pane needs.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::app::{App, BUDGETS, Effect, FlashLevel, MAX_DEPTH, MAX_TOP_K, POLICIES, PaneId};
use super::screens::Screen;
use super::whynot::{self, FxKey, FxOut, WnKey, WnOut};
use crate::engine::explain::{self, Explanation, Status};
use crate::engine::intent::KNOWN_RELATIONS;
use crate::engine::trace::{self, Trace};
use crate::engine::{Engine, Params, Retrieval, SelectParams, Selection};
use crate::evidence::counterfactual::{self, Comparison};
use crate::evidence::knobs::{KNOBS, Knobs};

/// The metrics the Explain pane decomposes: the live metrics of the engine's one
/// vocabulary ([`MetricId::LIVE`]).
pub use crate::engine::metric::MetricId as Metric;

#[derive(Clone, Debug, PartialEq)]
pub struct ExplainKey {
    /// The query result it explains.
    pub generation: u64,
    pub tool: String,
    pub metric: Metric,
}

#[derive(Clone, Debug)]
pub struct ExplainOut {
    pub key: ExplainKey,
    pub tree: Option<Arc<Explanation>>,
    /// Why there is no tree.
    pub missing: String,
    pub status: Status,
    pub failures: Vec<String>,
    /// The largest |combination of the children − the node's value| over checked nodes.
    pub max_residual: f64,
    /// Nodes whose value is checked against their children.
    pub checked: usize,
}

#[derive(Clone, Debug, Default)]
pub struct ExplainState {
    pub metric: Metric,
    /// The flat chip view (leaves as chips) instead of the tree.
    pub chips: bool,
    /// Paths (child indices from the root) whose fold differs from the default.
    pub toggled: HashSet<Vec<usize>>,
    /// Every node unfolded by default (`e`).
    pub all_open: bool,
    pub wanted: Option<ExplainKey>,
    pub out: Option<ExplainOut>,
}

impl ExplainState {
    /// Nodes above depth 4 are unfolded by default.
    pub fn is_open(&self, path: &[usize]) -> bool {
        (self.all_open || path.len() < 4) != self.toggled.contains(path)
    }
}

#[derive(Clone, Debug)]
pub struct TraceOut {
    pub generation: u64,
    pub trace: Arc<Trace>,
}

#[derive(Clone, Debug, Default)]
pub struct TraceState {
    /// All events instead of the selected tool's.
    pub all: bool,
    /// Only events of this stage.
    pub stage: Option<String>,
    pub wanted: Option<u64>,
    pub out: Option<TraceOut>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CfKey {
    pub generation: u64,
    pub knob: &'static str,
    pub value: Value,
}

#[derive(Clone, Debug)]
pub struct CfOut {
    pub key: CfKey,
    pub result: Result<Arc<Comparison>, String>,
}

#[derive(Clone, Debug)]
pub struct CfState {
    /// Index into [`KNOBS`].
    pub knob: usize,
    /// The variant's value of the knob; `None` = the knob's default change.
    pub value: Option<Value>,
    pub wanted: Option<CfKey>,
    pub out: Option<CfOut>,
}

impl Default for CfState {
    fn default() -> Self {
        CfState {
            knob: 1, // depth: the change whose effect is easiest to see
            value: None,
            wanted: None,
            out: None,
        }
    }
}

/// A job for the evidence worker.
#[derive(Clone, Debug)]
pub enum EvJob {
    Explain {
        key: ExplainKey,
        retrieval: Arc<Retrieval>,
        selection: Arc<Selection>,
    },
    Trace {
        generation: u64,
        query: String,
        params: Params,
        select: SelectParams,
    },
    Counterfactual {
        key: CfKey,
        query: String,
        base: Box<Knobs>,
        variant: Box<Knobs>,
    },
    WhyNot {
        key: WnKey,
        query: String,
        knobs: Box<Knobs>,
    },
    WhyNotEffects {
        key: FxKey,
        suite: Arc<crate::lab::suite::Suite>,
        base: Box<Knobs>,
        change: Box<crate::engine::triage::ProbeChange>,
        expected: String,
    },
}

impl EvJob {
    /// How many kinds there are.
    pub const KINDS: usize = 5;

    /// Jobs of one kind supersede each other.
    pub fn kind(&self) -> usize {
        match self {
            EvJob::Explain { .. } => 0,
            EvJob::Trace { .. } => 1,
            EvJob::Counterfactual { .. } => 2,
            EvJob::WhyNot { .. } => 3,
            EvJob::WhyNotEffects { .. } => 4,
        }
    }
}

#[derive(Clone, Debug)]
pub enum EvOut {
    Explain(ExplainOut),
    Trace(TraceOut),
    Counterfactual(CfOut),
    WhyNot(WnOut),
    WhyNotEffects(Option<FxOut>),
}

/// Runs one evidence job (on the worker, or inline in tests).
pub fn run_ev_job(engine: &Engine, job: &EvJob) -> EvOut {
    match job {
        EvJob::Explain {
            key,
            retrieval,
            selection,
        } => EvOut::Explain(explain_out(engine, key, retrieval, selection)),
        EvJob::Trace {
            generation,
            query,
            params,
            select,
        } => {
            let (_, _, t) = trace::record(engine, query, params, Some(select));
            EvOut::Trace(TraceOut {
                generation: *generation,
                trace: Arc::new(t),
            })
        }
        EvJob::Counterfactual {
            key,
            query,
            base,
            variant,
        } => EvOut::Counterfactual(CfOut {
            key: key.clone(),
            result: Ok(Arc::new(counterfactual::compare(
                engine, query, base, variant, true,
            ))),
        }),
        EvJob::WhyNot { key, query, knobs } => {
            EvOut::WhyNot(whynot::run(engine, key, query, knobs))
        }
        EvJob::WhyNotEffects {
            key,
            suite,
            base,
            change,
            expected,
        } => EvOut::WhyNotEffects(whynot::run_effects(
            engine, key, suite, base, change, expected,
        )),
    }
}

fn explain_out(engine: &Engine, key: &ExplainKey, r: &Retrieval, s: &Selection) -> ExplainOut {
    let tool = key.tool.as_str();
    let tree = explain::explain_live(engine, r, Some(s), key.metric, tool);
    let missing = match (key.metric, &tree) {
        (_, Some(_)) => String::new(),
        (Metric::SelectorScore, None) => "the selector did not score this row".into(),
        (Metric::SelectorLlmMargin, None) => {
            "no LLM target among the candidates (l on a row sets one)".into()
        }
        (Metric::SelectorMargin | Metric::SelectorConfidence, None) => {
            "the selector had no candidate".into()
        }
        _ => "the row is not in this retrieval".into(),
    };
    let (status, failures, max_residual, checked) = match &tree {
        Some(t) => {
            let (st, f) = t.check();
            let mut max = 0.0f64;
            let mut n = 0usize;
            for (_, node) in t.walk() {
                if let Some(v) = node.combine() {
                    n += 1;
                    let d = (v - node.value).abs();
                    if d.is_finite() {
                        max = max.max(d);
                    }
                }
            }
            (st, f, max, n)
        }
        None => (Status::Partial, Vec::new(), 0.0, 0),
    };
    ExplainOut {
        key: key.clone(),
        tree: tree.map(Arc::new),
        missing,
        status,
        failures,
        max_residual,
        checked,
    }
}

/// The knobs of the explorer's current result (its query's parameters and selector inputs).
pub fn base_knobs(app: &App) -> Option<Knobs> {
    let r = app.retrieval()?;
    let s = app.selection()?;
    Some(Knobs {
        params: r.params.clone(),
        select: SelectParams {
            llm_target: s.llm_target.clone(),
            policy: s.policy.clone(),
        },
    })
}

fn rw(rel: &str, w: f64) -> Value {
    json!({"relation": rel, "weight": w})
}

fn cf(label: &str, f: f64) -> Value {
    json!({"label": label, "factor": f})
}

/// The values ←/→ step through for a list-valued knob (numbers step instead).
pub fn knob_values(app: &App, knob: &str, base: &Knobs) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    match knob {
        "history" => {
            out.push(base.get("history"));
            if let Some(r) = app.selected_row() {
                let mut h = base.params.history.clone();
                h.push(r.name.clone());
                out.push(h.into());
            }
            out.push(Value::Array(Vec::new()));
        }
        "learning" => {
            out.push(true.into());
            out.push(false.into());
        }
        "relation_weight" => {
            out.push(Value::Null);
            for rel in KNOWN_RELATIONS {
                for w in [0.0, 0.5, 1.5] {
                    out.push(rw(rel, w));
                }
            }
        }
        "confidence_factor" => {
            out.push(Value::Null);
            for l in ["EXTRACTED", "INFERRED", "AMBIGUOUS", "(missing)"] {
                for f in [0.0, 0.5, 1.0] {
                    out.push(cf(l, f));
                }
            }
        }
        "intent" => {
            for i in ["auto", "read", "write", "delete", "neutral"] {
                out.push(i.into());
            }
        }
        "llm_target" => {
            out.push(Value::Null);
            if let Some(r) = app.retrieval() {
                for row in &r.rows {
                    out.push(row.name.clone().into());
                }
            }
        }
        "policy" => {
            for p in POLICIES {
                out.push((*p).into());
            }
        }
        _ => {}
    }
    let cur = base.get(knob);
    if !out.contains(&cur) {
        out.insert(0, cur);
    }
    let mut dedup: Vec<Value> = Vec::new();
    for v in out {
        if !dedup.contains(&v) {
            dedup.push(v);
        }
    }
    dedup
}

/// The value one step from `cur` (`dir` +1 or −1).
pub fn step_value(app: &App, knob: &str, base: &Knobs, cur: &Value, dir: i64) -> Value {
    let n = cur.as_u64().unwrap_or(0) as i64;
    match knob {
        "top_k" => ((n + dir).clamp(1, MAX_TOP_K as i64) as u64).into(),
        "depth" => ((n + dir).clamp(0, MAX_DEPTH as i64) as u64).into(),
        "token_budget" => {
            let n = n as usize;
            let v = if dir > 0 {
                BUDGETS.iter().copied().find(|b| *b > n).unwrap_or(n)
            } else {
                BUDGETS.iter().rev().copied().find(|b| *b < n).unwrap_or(n)
            };
            v.into()
        }
        _ => {
            let vals = knob_values(app, knob, base);
            if vals.is_empty() {
                return cur.clone();
            }
            let i = vals.iter().position(|v| v == cur).unwrap_or(0) as i64;
            let len = vals.len() as i64;
            vals[(((i + dir) % len + len) % len) as usize].clone()
        }
    }
}

/// The change a knob starts with: the one most likely to show an effect.
pub fn default_value(app: &App, knob: &str, base: &Knobs) -> Value {
    let cur = base.get(knob);
    match knob {
        "top_k" => (base.params.top_k / 2).max(1).into(),
        "depth" => {
            if base.params.depth > 0 {
                (base.params.depth - 1).into()
            } else {
                1.into()
            }
        }
        "token_budget" => step_value(app, knob, base, &cur, -1),
        "learning" => (!base.params.learning_enabled).into(),
        "relation_weight" if base.params.relation_weight.is_none() => rw("requires", 0.0),
        "confidence_factor" if base.params.confidence_factor.is_none() => cf("INFERRED", 1.0),
        "intent" if base.params.intent_override.is_none() => {
            let dominant = app
                .retrieval()
                .map(|r| r.intent_label.as_str())
                .unwrap_or("read");
            if dominant == "read" { "write" } else { "read" }.into()
        }
        "llm_target" if base.select.llm_target.is_none() => app
            .retrieval()
            .and_then(|r| r.rows.get(1).or_else(|| r.rows.first()))
            .map(|r| Value::from(r.name.clone()))
            .unwrap_or(Value::Null),
        _ => step_value(app, knob, base, &cur, 1),
    }
}

/// The variant's value of the selected knob.
pub fn variant_value(app: &App, base: &Knobs) -> Value {
    let knob = KNOBS[app.cf.knob];
    app.cf
        .value
        .clone()
        .unwrap_or_else(|| default_value(app, knob, base))
}

/// `{knob: value}` applied to the base.
pub fn variant_knobs(base: &Knobs, knob: &str, value: &Value) -> Result<Knobs, String> {
    let mut m = Map::new();
    m.insert(knob.to_string(), value.clone());
    base.with(&m)
}

/// A knob value in the pane's words (`null` for an unset optional knob is "unset").
pub fn show_value(v: &Value) -> String {
    match v {
        Value::Null => "unset".into(),
        Value::String(s) => s.clone(),
        Value::Array(a) if a.is_empty() => "[]".into(),
        Value::Array(a) => format!(
            "[{}]",
            a.iter()
                .map(super::records::value_text)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Object(o) => {
            let a = o
                .values()
                .map(super::records::value_text)
                .collect::<Vec<_>>();
            a.join(":")
        }
        other => other.to_string(),
    }
}

impl App {
    /// Asks the evidence worker for what the visible evidence pane needs, when it does not
    /// have it yet. Called after every event.
    pub fn sync_drill(&mut self) -> Vec<Effect> {
        // the Why-not triage runs whenever an expected tool is set: the candidates table
        // shows its place even while another pane is open
        let mut fx = self.sync_whynot();
        fx.extend(self.sync_pane());
        fx
    }

    fn sync_pane(&mut self) -> Vec<Effect> {
        if self.screen != Screen::Explore || self.engine.is_none() {
            return Vec::new();
        }
        let Some(res) = self.result.as_ref() else {
            return Vec::new();
        };

        let generation = res.generation;
        let retrieval = res.retrieval.clone();
        let selection = res.selection.clone();
        match self.drill {
            PaneId::Explain => {
                let Some(row) = self.selected_row() else {
                    return Vec::new();
                };
                let key = ExplainKey {
                    generation,
                    tool: row.name.clone(),
                    metric: self.explain.metric,
                };
                if self.explain.wanted.as_ref() == Some(&key)
                    || self.explain.out.as_ref().map(|o| &o.key) == Some(&key)
                {
                    return Vec::new();
                }
                self.explain.wanted = Some(key.clone());
                vec![Effect::Evidence(Box::new(EvJob::Explain {
                    key,
                    retrieval,
                    selection,
                }))]
            }
            PaneId::Trace => {
                if self.trace.wanted == Some(generation)
                    || self.trace.out.as_ref().map(|o| o.generation) == Some(generation)
                {
                    return Vec::new();
                }
                self.trace.wanted = Some(generation);
                vec![Effect::Evidence(Box::new(EvJob::Trace {
                    generation,
                    query: retrieval.query.clone(),
                    params: retrieval.params.clone(),
                    select: SelectParams {
                        llm_target: selection.llm_target.clone(),
                        policy: selection.policy.clone(),
                    },
                }))]
            }
            PaneId::Counterfactual => {
                let Some(base) = base_knobs(self) else {
                    return Vec::new();
                };
                let knob = KNOBS[self.cf.knob];
                let value = variant_value(self, &base);
                let key = CfKey {
                    generation,
                    knob,
                    value: value.clone(),
                };
                if self.cf.wanted.as_ref() == Some(&key)
                    || self.cf.out.as_ref().map(|o| &o.key) == Some(&key)
                {
                    return Vec::new();
                }
                self.cf.wanted = Some(key.clone());
                match variant_knobs(&base, knob, &value) {
                    Ok(variant) => vec![Effect::Evidence(Box::new(EvJob::Counterfactual {
                        key,
                        query: retrieval.query.clone(),
                        base: Box::new(base),
                        variant: Box::new(variant),
                    }))],
                    Err(e) => {
                        self.cf.out = Some(CfOut {
                            key,
                            result: Err(e),
                        });
                        Vec::new()
                    }
                }
            }
            _ => Vec::new(),
        }
    }

    /// A worker answer: kept when it answers what the pane asked for last.
    pub fn on_evidence(&mut self, out: EvOut) {
        match out {
            EvOut::Explain(o) => {
                if self.explain.wanted.as_ref() != Some(&o.key) {
                    return;
                }
                let same_tree = self
                    .explain
                    .out
                    .as_ref()
                    .is_some_and(|p| p.key.tool == o.key.tool && p.key.metric == o.key.metric);
                if !same_tree {
                    self.explain.toggled.clear();
                    self.panes[PaneId::Explain.index()] = Default::default();
                }
                self.explain.out = Some(o);
            }
            EvOut::Trace(o) => {
                if self.trace.wanted != Some(o.generation) {
                    return;
                }
                self.trace.out = Some(o);
            }
            EvOut::Counterfactual(o) => {
                if self.cf.wanted.as_ref() != Some(&o.key) {
                    return;
                }
                self.cf.out = Some(o);
            }
            EvOut::WhyNot(o) => self.on_whynot(o),
            EvOut::WhyNotEffects(o) => self.on_whynot_effects(o),
        }
    }

    /// Focus moved to a pane by number or Tab: the path starts there, or is cut back to it.
    pub fn path_focus(&mut self, p: PaneId) {
        if !PaneId::PATH.contains(&p) {
            return;
        }
        match self.drill_path.iter().position(|x| *x == p) {
            Some(i) => self.drill_path.truncate(i + 1),
            None => self.drill_path = vec![p],
        }
    }

    pub fn path_next(&mut self) -> Vec<Effect> {
        let cur = self.focus;
        let Some(i) = PaneId::PATH.iter().position(|p| *p == cur) else {
            return Vec::new();
        };
        let Some(&next) = PaneId::PATH.get(i + 1) else {
            return Vec::new();
        };
        if self.drill_path.last() != Some(&cur) {
            self.drill_path = vec![cur];
        }
        self.drill_path.push(next);
        if next == PaneId::Trace {
            // the trace of the tool whose score was just explained
            self.trace.all = false;
            self.trace.stage = None;
            self.panes[PaneId::Trace.index()] = Default::default();
        }
        self.focus = next;
        self.drill = next;
        Vec::new()
    }

    pub fn path_back(&mut self) -> Vec<Effect> {
        if self.drill_path.len() < 2 {
            return Vec::new();
        }
        self.drill_path.pop();
        if let Some(&p) = self.drill_path.last() {
            self.focus = p;
            self.drill = p;
        }
        Vec::new()
    }

    // ----- explain ---------------------------------------------------------------------

    fn explain_cursor_path(&self) -> Option<(Vec<usize>, bool, bool)> {
        let vis = super::derive::visible(self);
        let c = self.panes[PaneId::Explain.index()].cursor;
        vis.get(c)
            .map(|v| (v.path.clone(), v.open, !v.node.children.is_empty()))
    }

    fn set_open(&mut self, path: &[usize], open: bool) {
        if self.explain.is_open(path) != open {
            let p = path.to_vec();
            if !self.explain.toggled.remove(&p) {
                self.explain.toggled.insert(p);
            }
        }
    }

    /// Enter on a find typed in the Explain tree: the nodes its pattern unfolded
    /// ([`super::derive::find_unfolds`]) stay unfolded once it is no longer typed.
    pub fn explain_keep_unfolds(&mut self) {
        for p in super::derive::find_unfolds(self) {
            self.set_open(&p, true);
        }
    }

    pub fn explain_toggle(&mut self) -> Vec<Effect> {
        if let Some((path, open, has_children)) = self.explain_cursor_path()
            && has_children
        {
            self.set_open(&path, !open);
        }
        Vec::new()
    }

    pub fn explain_open(&mut self) -> Vec<Effect> {
        if let Some((path, open, has_children)) = self.explain_cursor_path()
            && has_children
        {
            if open {
                self.panes[PaneId::Explain.index()].cursor += 1;
            } else {
                self.set_open(&path, true);
            }
        }
        Vec::new()
    }

    pub fn explain_close(&mut self) -> Vec<Effect> {
        let Some((path, open, has_children)) = self.explain_cursor_path() else {
            return Vec::new();
        };
        if open && has_children {
            self.set_open(&path, false);
        } else if !path.is_empty() {
            let parent = &path[..path.len() - 1];
            let vis = super::derive::visible(self);
            if let Some(i) = vis.iter().position(|v| v.path == parent) {
                self.panes[PaneId::Explain.index()].cursor = i;
            }
        }
        Vec::new()
    }

    pub fn explain_all(&mut self) -> Vec<Effect> {
        self.explain.all_open = !self.explain.all_open;
        self.explain.toggled.clear();
        let n = super::derive::visible(self).len();
        let p = &mut self.panes[PaneId::Explain.index()];
        p.cursor = p.cursor.min(n.saturating_sub(1));
        self.set_flash(
            FlashLevel::Info,
            if self.explain.all_open {
                "every node unfolded (e: back to the default folds)"
            } else {
                "default folds: four levels unfolded"
            },
        );
        Vec::new()
    }

    pub fn explain_metric(&mut self, arg: Option<&str>) -> Vec<Effect> {
        let next = match arg {
            Some(a) => match Metric::parse_live(a) {
                Some(m) => m,
                None => {
                    let ids: Vec<&str> = Metric::LIVE.iter().map(|m| m.id()).collect();
                    self.set_flash(FlashLevel::Warn, format!("metrics: {}", ids.join(", ")));
                    return Vec::new();
                }
            },
            None => {
                let i = Metric::LIVE
                    .iter()
                    .position(|m| *m == self.explain.metric)
                    .unwrap_or(0);
                Metric::LIVE[(i + 1) % Metric::LIVE.len()]
            }
        };
        self.explain.metric = next;
        self.focus_pane(PaneId::Explain);
        self.set_flash(FlashLevel::Info, format!("explaining {}", next.id()));
        Vec::new()
    }

    /// From the selector pane: the candidate under its cursor becomes the selected row and
    /// the Explain pane decomposes its selector score.
    pub fn explain_selector_row(&mut self) -> Vec<Effect> {
        let c = self.panes[PaneId::Selector.index()].cursor;
        let Some(name) = self
            .selection()
            .and_then(|s| s.rows.get(c))
            .map(|r| r.name.clone())
        else {
            return Vec::new();
        };
        if let Some(i) = self
            .retrieval()
            .and_then(|r| r.rows.iter().position(|x| x.name == name))
        {
            self.select_row(i);
        }
        self.explain.metric = Metric::SelectorScore;
        self.focus_pane(PaneId::Explain);
        Vec::new()
    }

    pub fn explain_view(&mut self) -> Vec<Effect> {
        self.explain.chips = !self.explain.chips;
        self.panes[PaneId::Explain.index()] = Default::default();
        Vec::new()
    }

    // ----- trace -----------------------------------------------------------------------

    pub fn trace_scope(&mut self) -> Vec<Effect> {
        self.trace.all = !self.trace.all;
        self.panes[PaneId::Trace.index()] = Default::default();
        Vec::new()
    }

    /// The stages of the trace, in order of first appearance.
    pub fn trace_stages(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        if let Some(t) = &self.trace.out {
            for e in &t.trace.events {
                if !out.iter().any(|s| s == e.stage) {
                    out.push(e.stage.to_string());
                }
            }
        }
        out
    }

    pub fn trace_stage(&mut self, arg: Option<&str>) -> Vec<Effect> {
        let stages = self.trace_stages();
        let next = match arg {
            Some("all") => None,
            Some(a) => match stages.iter().find(|s| s.as_str() == a) {
                Some(s) => Some(s.clone()),
                None => {
                    self.set_flash(
                        FlashLevel::Warn,
                        format!("stages: all, {}", stages.join(", ")),
                    );
                    return Vec::new();
                }
            },
            None => {
                let i = match &self.trace.stage {
                    None => 0,
                    Some(s) => stages
                        .iter()
                        .position(|x| x == s)
                        .map(|i| i + 1)
                        .unwrap_or(0),
                };
                stages.get(i).cloned()
            }
        };
        self.trace.stage = next;
        self.panes[PaneId::Trace.index()] = Default::default();
        Vec::new()
    }

    // ----- counterfactual --------------------------------------------------------------

    pub fn cf_knob(&mut self, delta: isize, arg: Option<&str>) -> Vec<Effect> {
        let i = match arg {
            Some(a) => match KNOBS.iter().position(|k| *k == a) {
                Some(i) => i,
                None => {
                    self.set_flash(FlashLevel::Warn, format!("knobs: {}", KNOBS.join(", ")));
                    return Vec::new();
                }
            },
            None => {
                let n = KNOBS.len() as isize;
                (((self.cf.knob as isize + delta) % n + n) % n) as usize
            }
        };
        self.cf.knob = i;
        self.cf.value = None;
        self.focus_pane(PaneId::Counterfactual);
        Vec::new()
    }

    pub fn cf_step(&mut self, dir: i64) -> Vec<Effect> {
        let Some(base) = base_knobs(self) else {
            return Vec::new();
        };
        let knob = KNOBS[self.cf.knob];
        let cur = variant_value(self, &base);
        let mut next = step_value(self, knob, &base, &cur, dir);
        // the base's own value is no counterfactual: step past it (unless it is the only
        // value left, at a bound)
        if next == base.get(knob) {
            let further = step_value(self, knob, &base, &next, dir);
            if further != next {
                next = further;
            } else {
                next = cur;
            }
        }
        self.cf.value = Some(next);
        Vec::new()
    }

    /// `:cf KNOB=VALUE` (or `:cf VALUE` for the selected knob); without a value, the
    /// palette opens on `cf KNOB=`.
    pub fn cf_type(&mut self, arg: Option<&str>) -> Vec<Effect> {
        let Some(a) = arg else {
            let mut p = super::app::PaletteState::default();
            p.input.set(&format!("cf {}=", KNOBS[self.cf.knob]));
            self.overlay = super::app::Overlay::Palette(p);
            return Vec::new();
        };
        let Some(base) = base_knobs(self) else {
            return Vec::new();
        };
        let text = if a.contains('=') {
            a.to_string()
        } else {
            format!("{}={a}", KNOBS[self.cf.knob])
        };
        let knob = text.split_once('=').map(|(k, _)| k.trim()).unwrap_or("");
        let Some(i) = KNOBS.iter().position(|k| *k == knob) else {
            self.set_flash(
                FlashLevel::Warn,
                format!(
                    "{} is not an authorised knob ({})",
                    crate::sanitize::quoted(knob),
                    KNOBS.join(", ")
                ),
            );
            return Vec::new();
        };
        match base.set_from_str(&text) {
            Ok(v) => {
                self.cf.knob = i;
                self.cf.value = Some(v.get(KNOBS[i]));
                self.focus_pane(PaneId::Counterfactual);
                // names the graph lacks are kept, as `:llm` and `:history` keep them, and
                // said, as they say it
                let named: Vec<&String> = match KNOBS[i] {
                    "history" => v.params.history.iter().collect(),
                    "llm_target" => v.select.llm_target.iter().collect(),
                    _ => Vec::new(),
                };
                let unknown: Vec<String> = named
                    .into_iter()
                    .filter(|n| !self.tool_known(n))
                    .map(|n| crate::sanitize::quoted(n))
                    .collect();
                if !unknown.is_empty() {
                    let why = if KNOBS[i] == "history" {
                        "so it demotes nothing"
                    } else {
                        "set anyway, as a model may name one"
                    };
                    self.set_flash(
                        FlashLevel::Warn,
                        format!(
                            "knob {}: {} {} a tool in this graph ({why})",
                            KNOBS[i],
                            unknown.join(", "),
                            if unknown.len() == 1 {
                                "is not"
                            } else {
                                "are not"
                            }
                        ),
                    );
                }
                Vec::new()
            }
            Err(e) => {
                self.set_flash(FlashLevel::Warn, crate::sanitize::line(&e));
                Vec::new()
            }
        }
    }
}
