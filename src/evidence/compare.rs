//! `compare_artifacts`: the artifact diff between the session's baseline graph (OLD) and
//! its graph (NEW), and for a query the ranking blame — which of the changes moved it — as
//! a read-only evidence tool for operators. The diff and the change groups are computed
//! once per session and shared by every later call; the case is replayed on hybrid graphs
//! ([`crate::lab::blame`]). Shares say which change moved a case, never which to make.

use serde_json::{Map, Value};

use super::tools::{Session, ToolError};
use crate::engine::Engine;
use crate::engine::explain::{self, Explanation, Op};
use crate::jsonout::JsonWriter;
use crate::lab::blame::plan::Plan;
use crate::lab::blame::report as blame_report;
use crate::lab::blame::{Blamer, CaseSpec, RANK};
use crate::lab::graphdiff::{self, ArtifactDiff, Side, report};

/// The most names a list of the diff shows when `limit` is not given.
pub const COMPARE_LIMIT_DEFAULT: u64 = 20;
/// The most names a list may show.
pub const COMPARE_LIMIT_MAX: u64 = 1000;

/// What a session computes once for its two graphs.
pub struct Compared<'a> {
    pub diff: ArtifactDiff,
    /// The diff's JSON (the `toolscope diff --json` object), parsed once.
    json: Value,
    pub plan: Plan<'a>,
}

impl<'a> Compared<'a> {
    pub fn new(old: &'a Engine, new: &'a Engine) -> Compared<'a> {
        let side = |label: &str, engine: &'a Engine| Side {
            label: label.to_string(),
            engine,
        };
        let diff = graphdiff::diff(
            &side(&old.graph.info.source, old),
            &side(&new.graph.info.source, new),
        );
        let json = serde_json::from_str(&report::json(&diff)).unwrap_or(Value::Null);
        let plan = Plan::new(old, new, &diff);
        Compared { diff, json, plan }
    }
}

/// `v` with every list under `tools`, `edges` and `nodes` cut at `limit` names, and the
/// full lengths in `tools.counts` / `nodes.counts` (edges carry their own counts).
fn cut(mut v: Value, limit: usize) -> Value {
    for section in ["tools", "edges", "nodes"] {
        let Some(o) = v.get_mut(section).and_then(Value::as_object_mut) else {
            continue;
        };
        let mut counts = Map::new();
        for key in ["added", "removed", "renamed", "changed"] {
            if let Some(Value::Array(a)) = o.get_mut(key) {
                counts.insert(key.to_string(), Value::from(a.len()));
                a.truncate(limit);
            }
        }
        if section != "edges" {
            o.insert("counts".into(), Value::Object(counts));
        }
    }
    v
}

impl<'a> Session<'a> {
    pub(super) fn compare_artifacts(
        &mut self,
        args: &Map<String, Value>,
        w: &mut JsonWriter,
    ) -> Result<(), ToolError> {
        let Some(old) = self.baseline else {
            return Err(ToolError::Execution(
                "no baseline graph in this session: toolscope evidence compare_artifacts --graph NEW --baseline OLD".into(),
            ));
        };
        let limit = match args.get("limit") {
            None | Some(Value::Null) => COMPARE_LIMIT_DEFAULT,
            Some(v) => match v.as_u64() {
                Some(n) if n <= COMPARE_LIMIT_MAX => n,
                _ => {
                    return Err(ToolError::InvalidArguments(format!(
                        "limit: expected an integer from 0 to {COMPARE_LIMIT_MAX}, got {v}"
                    )));
                }
            },
        } as usize;
        let case = match (args.get("query"), args.get("case_id")) {
            (None | Some(Value::Null), None | Some(Value::Null)) => None,
            _ => Some(self.case_of(args)?),
        };
        let knobs = self.knobs_arg(args, "params")?;
        let (engine, cache) = (self.engine, &self.compared);
        let c = cache.get_or_init(|| Box::new(Compared::new(old, engine)));
        w.key("diff").value(&cut(c.json.clone(), limit));
        let status = match case {
            None => {
                w.key("case").null();
                if c.diff.partial.is_empty() {
                    "resolved"
                } else {
                    "partial"
                }
            }
            Some((id, query, expected)) => {
                let spec = CaseSpec {
                    id,
                    query,
                    knobs: knobs.clone(),
                    expected,
                };
                let b = Blamer { plan: &c.plan }.blame(&spec);
                let v: Value = serde_json::from_str(&blame_report::json_line(&c.plan, &b))
                    .map_err(|e| ToolError::Execution(format!("internal error: {e}")))?;
                w.key("case").value(&v);
                if b.resolved { "resolved" } else { "unresolved" }
            }
        };
        w.key("mechanism_status").str(status);
        w.key("baseline").begin_obj();
        w.key("source").str(&old.graph.info.source);
        w.key("fingerprint")
            .str(&format!("sha256:{}", old.graph.fingerprint()));
        w.end_obj();
        self.provenance(w, &knobs, "toolscope-blame/1");
        Ok(())
    }

    /// `explain_metric` of `blame.rank_shift`: the tracked tool's rank move from the
    /// baseline to the loaded graph, as a tree whose children are the change groups'
    /// Shapley shares and the residual (they add up by construction; `check()` proves it).
    /// `scope_id` names the tracked tool (else the case's label, else OLD's top-1).
    pub(super) fn explain_blame(
        &mut self,
        m: &super::registry::Metric,
        args: &Map<String, Value>,
        w: &mut JsonWriter,
    ) -> Result<(), ToolError> {
        let Some(old) = self.baseline else {
            return Err(ToolError::Execution(format!(
                "{} needs a baseline graph in this session: toolscope evidence explain_metric --graph NEW --baseline OLD",
                m.metric_id()
            )));
        };
        let (id, query, mut expected) = self.case_of(args)?;
        if let Some(t) = args.get("scope_id").and_then(Value::as_str) {
            expected = vec![t.to_string()];
        }
        let knobs = self.knobs_arg(args, "params")?;
        let (engine, cache) = (self.engine, &self.compared);
        let c = cache.get_or_init(|| Box::new(Compared::new(old, engine)));
        let spec = CaseSpec {
            id,
            query: query.clone(),
            knobs: knobs.clone(),
            expected,
        };
        let b = Blamer { plan: &c.plan }.blame(&spec);
        let mut children: Vec<Explanation> = b
            .shares
            .iter()
            .filter(|s| s.effect[RANK] != 0.0)
            .map(|s| {
                // the group's name, then what it did (as compare_artifacts' `group`/`label`)
                let group = match s.groups.as_slice() {
                    [g] => c.plan.groups[*g as usize].name.clone(),
                    many => format!("{} other changes", many.len()),
                };
                let label = blame_report::share_label(&c.plan, &b, s);
                Explanation::leaf(format!("{group}: {label}"), s.effect[RANK])
            })
            .collect();
        children.push(Explanation::leaf("residual", b.residual[RANK]));
        let tree = Explanation::node(m.metric_id(), b.delta[RANK], Op::Sum, children);
        let (status, bad) = tree.check();
        let status = if b.resolved {
            status.as_str()
        } else {
            "unresolved"
        };
        w.key("metric_id").str(m.metric_id());
        w.key("scope_id").opt_str(b.old.tracked.as_deref());
        w.key("query").str(&query);
        w.key("value").f64(tree.value);
        w.key("unit").str(m.unit);
        w.key("ranks").begin_obj();
        for (k, r) in [("old", b.old.expected_rank), ("new", b.new.expected_rank)] {
            match r {
                Some(x) => w.key(k).int(x as i64),
                None => w.key(k).null(),
            };
        }
        w.end_obj();
        w.key("decomposition_type").str("shapley");
        w.key("tree");
        tree.write_json(w);
        w.key("residual_check").begin_obj();
        w.key("tolerance").f64(explain::TOLERANCE);
        w.key("failures").str_list(&bad);
        w.end_obj();
        w.key("mechanism_status").str(status);
        w.key("baseline").begin_obj();
        w.key("source").str(&old.graph.info.source);
        w.key("fingerprint")
            .str(&format!("sha256:{}", old.graph.fingerprint()));
        w.end_obj();
        self.provenance(w, &knobs, m.formula_version);
        w.key("limitations").str_list(&[
            "a share says which change moved the rank on hybrid graphs, not which change to make",
            "shares beyond 7 change groups are sampled with a fixed seed and a stated bound (compare_artifacts shows the method)",
        ]);
        Ok(())
    }

    /// The case of `args`: its id (`case_id`, else "query"), query and expected tools
    /// (`expected`, else the suite case's labels).
    fn case_of(
        &self,
        args: &Map<String, Value>,
    ) -> Result<(String, String, Vec<String>), ToolError> {
        let query = self.query_of(args)?;
        let id = args.get("case_id").and_then(Value::as_str);
        let expected = match args.get("expected").and_then(Value::as_str) {
            Some(e) => vec![e.to_string()],
            None => id
                .and_then(|id| self.suite?.cases.iter().find(|c| c.id == id))
                .map(|c| c.expected.clone())
                .unwrap_or_default(),
        };
        Ok((id.unwrap_or("query").to_string(), query, expected))
    }
}
