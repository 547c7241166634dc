//! What the Diff screen computes for two graphs, off the UI thread: the artifact diff and
//! the change groups ([`Plan`]) once, then per case its blame as plain data the views can
//! draw ([`BlamedCase`]: both rankings, the headline, the causes with the text of each
//! change, and each moved tool's top cause), and a case re-ranked on OLD with chosen
//! causes applied ([`rerank`]). [`GdWorker`] runs the jobs on a thread per core, a suite
//! one case at a time: a re-rank or a typed query goes before the rest of a suite, and a
//! newer job of a kind replaces a pending one (the app drops answers whose generation is
//! stale).
//!
//! A moved tool's *top cause* is the change with the largest Shapley share of that tool's
//! own rank move, in the direction it moved: the same players, the same exact sum or the
//! same sampled orders as the tracked tool's blame, read off the hybrids that blame
//! already ranked (no hybrid is built for it). A change that tops a moved tool but has no
//! share of the tracked tool's change is listed after the case's causes.

use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Condvar, Mutex};

use crate::engine::Engine;
use crate::engine::knobs::Knobs;
use crate::engine::query::QueryPlan;
use crate::lab::blame::plan::{GroupKind, Plan};
use crate::lab::blame::report::{headline, share_label};
use crate::lab::blame::shapley::METRICS;
use crate::lab::blame::{Blamer, CaseBlame, CaseSpec, Method, Outcome, Share};
use crate::lab::graphdiff::report::token_list;
use crate::lab::graphdiff::{self, ArtifactDiff, Side};

/// Causes a case lists at most (the largest shares).
pub const MAX_CAUSES: usize = 8;
/// Groups a merged cause details at most.
const DETAIL_GROUPS: usize = 12;
/// Cases blamed between two progress messages.
const CHUNK: usize = 4;

/// One line of a change's text: a heading, a field's old and new value, or a note.
#[derive(Clone, Debug, PartialEq)]
pub enum DetailLine {
    Head(String),
    Field(String, String, String),
    Text(String),
}

/// One cause of a case: a share of the blame (one change group, or several merged).
#[derive(Clone, Debug)]
pub struct Cause {
    pub groups: Vec<u32>,
    /// In the case's terms (`new tool x ranks above it`).
    pub label: String,
    /// The group's kind (`document`, `tool_added`, `edge`, …; `merged` for several).
    pub kind: &'static str,
    /// Its part of the primary metric's change (None when that did not move).
    pub share: Option<f64>,
    /// The moved tools whose top cause this is, each with this cause's share of its move.
    pub tools: Vec<(String, f64)>,
    pub detail: Vec<DetailLine>,
}

/// A case blamed, as the Diff screen shows it.
#[derive(Clone, Debug)]
pub struct BlamedCase {
    pub id: String,
    pub query: String,
    /// The ranking or the selection changed.
    pub changed: bool,
    pub scores_changed: bool,
    pub resolved: bool,
    /// The tool whose rank the case follows, and whether it is an expected tool.
    pub tracked: Option<String>,
    pub tracked_expected: bool,
    pub rank: (Option<usize>, Option<usize>),
    pub headline: String,
    pub old_rows: Vec<(String, f64)>,
    pub new_rows: Vec<(String, f64)>,
    pub selected: (String, String),
    pub causes: Vec<Cause>,
    /// Each moved tool and the index of its top cause (None: no single change moves it).
    pub blame: Vec<(String, Option<usize>)>,
    /// The primary metric's residual and how the shares were computed.
    pub residual: f64,
    pub method: String,
    pub missing: (Vec<String>, Vec<String>),
}

impl BlamedCase {
    /// The top cause of a tool that moved (None: it did not move, or nothing alone did).
    pub fn cause_of(&self, tool: &str) -> Option<usize> {
        self.blame.iter().find(|(t, _)| t == tool).and_then(|b| b.1)
    }
}

/// A case ranked on OLD with some causes applied.
#[derive(Clone, Debug, PartialEq)]
pub struct Reranked {
    pub rows: Vec<(String, f64)>,
    pub selected: String,
}

/// A job for the worker.
#[derive(Clone, Debug)]
pub enum GdJob {
    /// Blame every case of a suite, reporting in parts.
    Suite {
        generation: u64,
        cases: Arc<Vec<CaseSpec>>,
    },
    /// Blame the query box's case.
    Query { generation: u64, case: CaseSpec },
    /// Rank a case on OLD with these groups applied.
    Rerank {
        generation: u64,
        case: CaseSpec,
        groups: Vec<u32>,
    },
}

/// What the worker reports.
#[derive(Debug)]
pub enum GdMsg {
    /// The artifact diff is computed and the change groups are built (`epoch`: the
    /// worker's, as given to [`GdWorker::spawn`]).
    Ready {
        epoch: u64,
        diff: Box<ArtifactDiff>,
        groups: usize,
    },
    Failed {
        epoch: u64,
        message: String,
    },
    /// Suite cases `start..start + cases.len()` blamed.
    Cases {
        generation: u64,
        start: usize,
        cases: Vec<BlamedCase>,
    },
    Query {
        generation: u64,
        case: Box<BlamedCase>,
    },
    Rerank {
        generation: u64,
        out: Reranked,
    },
}

/// The artifact diff of two engines.
pub fn artifact_diff(old: &Engine, new: &Engine, labels: (&str, &str)) -> ArtifactDiff {
    graphdiff::diff(
        &Side {
            label: labels.0.to_string(),
            engine: old,
        },
        &Side {
            label: labels.1.to_string(),
            engine: new,
        },
    )
}

/// Blames one case and lays its blame out for the screen.
pub fn blame_case(plan: &Plan<'_>, spec: &CaseSpec) -> BlamedCase {
    let b = Blamer { plan }.blame(spec);
    let k = &spec.knobs;
    let o_old = Outcome::of(plan.old, &spec.query, k);
    let o_new = Outcome::of(plan.new, &spec.query, k);
    let head = if b.changed {
        headline(plan, &b)
    } else if b.scores_changed {
        "scores moved; the ranking and the selection did not".to_string()
    } else {
        "unchanged".to_string()
    };
    let primary = b.primary();
    let mut causes: Vec<Cause> = b
        .shares
        .iter()
        .take(MAX_CAUSES)
        .map(|s| cause(plan, &b, s, &spec.query))
        .collect();
    let blame = top_causes(plan, spec, &b, &mut causes);
    let tracked = b.new.tracked.clone().or_else(|| b.old.tracked.clone());
    BlamedCase {
        id: spec.id.clone(),
        query: spec.query.clone(),
        changed: b.changed,
        scores_changed: b.scores_changed,
        resolved: b.resolved,
        tracked,
        tracked_expected: b.tracked_expected,
        rank: (b.old.expected_rank, b.new.expected_rank),
        headline: head,
        old_rows: o_old.rows.clone(),
        new_rows: o_new.rows.clone(),
        selected: (o_old.selected.clone(), o_new.selected.clone()),
        causes,
        blame,
        residual: b.residual[primary],
        method: match &b.method {
            Method::None => "nothing to attribute".into(),
            Method::Exact => format!("exact over {} players", b.players),
            Method::Sampled { samples, .. } => {
                format!("sampled ({samples} orders) over {} players", b.players)
            }
        },
        missing: b.missing.clone(),
    }
}

/// A share of a case's blame as the screen lists it.
fn cause(plan: &Plan<'_>, b: &CaseBlame, s: &Share, query: &str) -> Cause {
    let primary = b.primary();
    let total = b.delta[primary];
    Cause {
        groups: s.groups.clone(),
        label: share_label(plan, b, s),
        kind: if s.groups.len() == 1 {
            plan.groups[s.groups[0] as usize].kind.as_str()
        } else {
            "merged"
        },
        share: (total != 0.0).then(|| s.effect[primary] / total),
        tools: Vec::new(),
        detail: detail(plan, &s.groups, query),
    }
}

/// The moved tools (in NEW's order, then those that dropped out) and each one's top
/// cause; records on each cause the tools it tops, and lists a top cause that is not
/// among the causes yet after them.
fn top_causes(
    plan: &Plan<'_>,
    spec: &CaseSpec,
    b: &CaseBlame,
    causes: &mut Vec<Cause>,
) -> Vec<(String, Option<usize>)> {
    let top_k = spec.knobs.params.top_k;
    let mut out = Vec::new();
    for m in &b.moved {
        let best = m.top_part(top_k).map(|(groups, share)| {
            let i = match causes.iter().position(|c| c.groups == groups) {
                Some(i) => i,
                None => {
                    let s = b
                        .shares
                        .iter()
                        .find(|s| s.groups == groups)
                        .cloned()
                        .unwrap_or_else(|| Share {
                            groups: groups.to_vec(),
                            effect: [0.0; METRICS],
                        });
                    causes.push(cause(plan, b, &s, &spec.query));
                    causes.len() - 1
                }
            };
            causes[i].tools.push((m.name.clone(), share));
            i
        });
        out.push((m.name.clone(), best));
    }
    out
}

/// The case ranked on OLD with `groups` applied.
pub fn rerank(plan: &Plan<'_>, spec: &CaseSpec, groups: &[u32]) -> Reranked {
    let mut applied = vec![false; plan.groups.len()];
    for &g in groups {
        if let Some(a) = applied.get_mut(g as usize) {
            *a = true;
        }
    }
    let o = Outcome::of(&plan.hybrid(&applied), &spec.query, &spec.knobs);
    Reranked {
        rows: o.rows,
        selected: o.selected,
    }
}

/// The text of a cause's changes: per group, what it is and its old and new values.
fn detail(plan: &Plan<'_>, groups: &[u32], query: &str) -> Vec<DetailLine> {
    let mut out = Vec::new();
    if groups.len() > 1 {
        out.push(DetailLine::Text(format!(
            "{} changes that move this case only together (each alone moves nothing)",
            groups.len()
        )));
    }
    for &gi in groups.iter().take(DETAIL_GROUPS) {
        group_detail(plan, gi, query, &mut out);
    }
    if groups.len() > DETAIL_GROUPS {
        out.push(DetailLine::Text(format!(
            "and {} more",
            groups.len() - DETAIL_GROUPS
        )));
    }
    out
}

fn group_detail(plan: &Plan<'_>, gi: u32, query: &str, out: &mut Vec<DetailLine>) {
    let g = &plan.groups[gi as usize];
    out.push(DetailLine::Head(format!(
        "{} {}: {}",
        g.kind.as_str(),
        g.name,
        g.what
    )));
    let none = vec![false; plan.groups.len()];
    let all = vec![true; plan.groups.len()];
    let tool = |new: bool| {
        let slot = g.tool_slot?;
        let name = plan.tool_name(slot, if new { &all } else { &none })?;
        let e = if new { plan.new } else { plan.old };
        e.graph.tool_by_name(name)
    };
    match g.kind {
        GroupKind::Document | GroupKind::Renamed | GroupKind::Added | GroupKind::Removed => {
            let (a, b) = (tool(false), tool(true));
            let field = |f: &dyn Fn(&crate::model::Tool) -> String| {
                (
                    a.map(f).unwrap_or_else(|| "(absent)".into()),
                    b.map(f).unwrap_or_else(|| "(absent)".into()),
                )
            };
            let rows: [(&str, (String, String)); 5] = [
                ("name", field(&|t| t.name.clone())),
                (
                    "route",
                    field(&|t| {
                        format!(
                            "{} {}",
                            t.facts.method_str().unwrap_or("").to_uppercase(),
                            t.facts.path_str().unwrap_or("")
                        )
                        .trim()
                        .to_string()
                    }),
                ),
                ("description", field(&|t| t.description.clone())),
                (
                    "parameters",
                    field(&|t| {
                        t.parameters
                            .iter()
                            .map(|p| p.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    }),
                ),
                ("tags", field(&|t| t.tags.join(", "))),
            ];
            let both = a.is_some() && b.is_some();
            for (k, (x, y)) in rows {
                if !both || x != y {
                    out.push(DetailLine::Field(k.into(), x, y));
                }
            }
            if let Some(t) = &g.tokens
                && !t.is_empty()
            {
                out.push(DetailLine::Text(format!(
                    "indexed text {} (length {} -> {})",
                    token_list(&t.gained, &t.lost, 12),
                    t.len.0,
                    t.len.1
                )));
            }
        }
        GroupKind::Edge => {
            let (s, t) = g.name.split_once(" -> ").unwrap_or((g.name.as_str(), ""));
            let (a, b) = (edge_attrs(plan.old, s, t), edge_attrs(plan.new, s, t));
            let pick = |e: &Option<[String; 3]>, i: usize| {
                e.as_ref()
                    .map(|x| x[i].clone())
                    .unwrap_or_else(|| "(no edge)".into())
            };
            for (i, k) in ["relation", "confidence", "evidence"].iter().enumerate() {
                out.push(DetailLine::Field((*k).into(), pick(&a, i), pick(&b, i)));
            }
        }
        GroupKind::Corpus => {
            for t in query_terms(plan, query) {
                let idf = |e: &Engine| {
                    e.index
                        .term(&t)
                        .map(|i| format!("{:.4}", e.index.idf(i)))
                        .unwrap_or_else(|| "(not indexed)".into())
                };
                out.push(DetailLine::Field(
                    format!("idf '{t}'"),
                    idf(plan.old),
                    idf(plan.new),
                ));
            }
        }
        GroupKind::Node | GroupKind::Order => {}
    }
}

/// An edge's relation, confidence and evidence, by its endpoints.
fn edge_attrs(e: &Engine, s: &str, t: &str) -> Option<[String; 3]> {
    let g = &e.graph;
    let (a, b) = (g.node_id(s)?, g.node_id(t)?);
    let id = g.out_edges(a).find(|&id| g.edge(id).target == b)?;
    let at = &g.edge(id).attrs;
    Some([
        at.relation_str().unwrap_or("(none)").to_string(),
        at.confidence_str().unwrap_or("(none)").to_string(),
        at.evidence_str().to_string(),
    ])
}

fn query_terms(plan: &Plan<'_>, query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in [plan.old, plan.new] {
        for t in QueryPlan::new(query, &e.index, e.tokenizer.as_ref()).tokens {
            if !out.contains(&t.text) {
                out.push(t.text);
            }
        }
    }
    out
}

/// Runs a job to the end on the calling thread (the headless harness does this).
pub fn run_inline(plan: &Plan<'_>, job: &GdJob) -> Vec<GdMsg> {
    match job {
        GdJob::Suite { generation, cases } => cases
            .chunks(CHUNK)
            .enumerate()
            .map(|(i, part)| GdMsg::Cases {
                generation: *generation,
                start: i * CHUNK,
                cases: part.iter().map(|c| blame_case(plan, c)).collect(),
            })
            .collect(),
        GdJob::Query { generation, case } => vec![GdMsg::Query {
            generation: *generation,
            case: Box::new(blame_case(plan, case)),
        }],
        GdJob::Rerank {
            generation,
            case,
            groups,
        } => vec![GdMsg::Rerank {
            generation: *generation,
            out: rerank(plan, case, groups),
        }],
    }
}

/// The Diff screen's worker for two graphs.
pub struct GdWorker {
    jobs: Sender<GdJob>,
}

impl GdWorker {
    /// Computes the artifact diff and the change groups, then runs jobs on one thread per
    /// core until the app is gone or the worker is dropped. `send` delivers a message to
    /// the app (false: the app is gone); `epoch` tags the first answers, so the app can
    /// tell them from those of a worker it replaced.
    pub fn spawn(
        old: Arc<Engine>,
        new: Arc<Engine>,
        labels: (String, String),
        epoch: u64,
        send: impl Fn(GdMsg) -> bool + Send + Sync + 'static,
    ) -> GdWorker {
        let (jtx, jrx) = channel::<GdJob>();
        let _ = std::thread::Builder::new()
            .name("toolscope-blame".into())
            .spawn(move || {
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let d = artifact_diff(&old, &new, (&labels.0, &labels.1));
                    let plan = Plan::new(&old, &new, &d);
                    if !send(GdMsg::Ready {
                        epoch,
                        diff: Box::new(d.clone()),
                        groups: plan.groups.len(),
                    }) {
                        return;
                    }
                    serve(&plan, &jrx, &send, crate::par::threads());
                }));
                if let Err(p) = r {
                    send(GdMsg::Failed {
                        epoch,
                        message: crate::par::panic_text(p.as_ref()),
                    });
                }
            });
        GdWorker { jobs: jtx }
    }

    pub fn submit(&self, job: GdJob) {
        let _ = self.jobs.send(job);
    }
}

/// The jobs waiting: the newest of each kind, and the suite's next case.
#[derive(Default)]
struct Pending {
    suite: Option<(u64, Arc<Vec<CaseSpec>>, usize)>,
    query: Option<GdJob>,
    rerank: Option<GdJob>,
    /// No more jobs will come (the app is gone or stopped listening).
    closed: bool,
}

/// One piece of work for a thread of the pool.
enum Work {
    Job(GdJob),
    /// Case `at` of the suite of this generation.
    Case(u64, usize, CaseSpec),
}

impl Pending {
    fn add(&mut self, j: GdJob) {
        match j {
            GdJob::Suite { generation, cases } => {
                self.suite = (!cases.is_empty()).then_some((generation, cases, 0));
            }
            q @ GdJob::Query { .. } => self.query = Some(q),
            r @ GdJob::Rerank { .. } => self.rerank = Some(r),
        }
    }

    /// The next piece of work: a re-rank first, then a query, then the suite's next case
    /// (so typing and `x` never wait for a suite).
    fn take(&mut self) -> Option<Work> {
        if let Some(j) = self.rerank.take().or_else(|| self.query.take()) {
            return Some(Work::Job(j));
        }
        let (generation, cases, at) = self.suite.as_mut()?;
        let w = Work::Case(*generation, *at, cases[*at].clone());
        *at += 1;
        if *at >= cases.len() {
            self.suite = None;
        }
        Some(w)
    }
}

fn lock(m: &Mutex<Pending>) -> std::sync::MutexGuard<'_, Pending> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The job loop: this thread moves jobs from the channel into [`Pending`]; `threads`
/// threads take work from it one case at a time, so a suite keeps every core busy and a
/// re-rank or a query starts as soon as a thread finishes its case.
fn serve(
    plan: &Plan<'_>,
    jobs: &Receiver<GdJob>,
    send: &(dyn Fn(GdMsg) -> bool + Sync),
    threads: usize,
) {
    let state = (Mutex::new(Pending::default()), Condvar::new());
    std::thread::scope(|sc| {
        let state = &state;
        for _ in 0..threads.max(1) {
            sc.spawn(move || {
                loop {
                    let work = {
                        let mut p = lock(&state.0);
                        loop {
                            if p.closed {
                                return;
                            }
                            if let Some(w) = p.take() {
                                break w;
                            }
                            p = state.1.wait(p).unwrap_or_else(|e| e.into_inner());
                        }
                    };
                    let msgs = match work {
                        Work::Job(j) => run_inline(plan, &j),
                        Work::Case(generation, at, c) => vec![GdMsg::Cases {
                            generation,
                            start: at,
                            cases: vec![blame_case(plan, &c)],
                        }],
                    };
                    for m in msgs {
                        if !send(m) {
                            lock(&state.0).closed = true;
                            state.1.notify_all();
                            return;
                        }
                    }
                }
            });
        }
        for j in jobs.iter() {
            let mut p = lock(&state.0);
            if p.closed {
                break;
            }
            p.add(j);
            drop(p);
            state.1.notify_all();
        }
        lock(&state.0).closed = true;
        state.1.notify_all();
    });
}

/// The cases of a suite as blame specs, each with its own parameters over `base`.
pub fn suite_specs(suite: &crate::lab::suite::Suite, base: &Knobs) -> Vec<CaseSpec> {
    suite
        .cases
        .iter()
        .map(|c| CaseSpec {
            id: c.id.clone(),
            query: c.query.clone(),
            // a suite's knobs were checked when it was read
            knobs: c.knobs(base, &[]).unwrap_or_else(|_| base.clone()),
            expected: c.expected.clone(),
        })
        .collect()
}
