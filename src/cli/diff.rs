//! `toolscope diff A B`: two graphs (saved graphs, collection artifacts, specs built on
//! load, or `demo`) give the artifact diff ([`crate::lab::graphdiff`]) as a human summary or
//! `--json`; two runs (evidence files, fixture folders) open the explorer's Diff screen.
//! Exit codes: 0 compared, 2 bad input (one line naming the file and place).

use clap::Args;
use std::path::Path;

use super::graph_arg::load_engine;
use super::query::{write_stdout, write_text};
use super::tui::UiArgs;
use super::{EXIT_OK, fail};
use crate::engine::Engine;
use crate::engine::knobs::Knobs;
use crate::engine::params::Policy;
use crate::lab::blame::plan::Plan;
use crate::lab::blame::report as blame_report;
use crate::lab::blame::{Blamer, CaseBlame, CaseSpec};
use crate::lab::graphdiff::{self, Side, report};
use crate::lab::suite::load_suite;

#[derive(Args, Debug, Clone)]
pub struct DiffArgs {
    /// The old graph (saved graph, collection artifact, spec or `demo`), or the first run
    /// (an evidence file or a fixture folder)
    #[arg(value_name = "OLD")]
    pub a: String,
    /// The new graph, or the second run (the same kind as OLD)
    #[arg(value_name = "NEW")]
    pub b: String,
    /// Two graphs: the diff as one JSON object
    #[arg(long, conflicts_with = "explore")]
    pub json: bool,
    /// Two graphs: open the explorer's Diff screen (the artifact diff as a tree, the
    /// cases of --cases or the --query blamed live)
    #[arg(long)]
    pub explore: bool,
    /// Two graphs: list at most this many items per section (0: all)
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub limit: usize,
    /// Two graphs: run every case of this suite on both and blame each changed ranking
    /// or selection on the changes that caused it
    #[arg(long, value_name = "SUITE", conflicts_with = "query")]
    pub cases: Option<String>,
    /// Two graphs: blame one query (tracks --expected, else the old top-1)
    #[arg(long, value_name = "TEXT", value_parser = super::query_arg)]
    pub query: Option<String>,
    /// The expected tool of --query (repeatable)
    #[arg(long = "expected", value_name = "NAME", requires = "query")]
    pub expected: Vec<String>,
    /// Number of results (1 or more; a case's own parameters win)
    #[arg(long, default_value_t = 10, value_parser = super::top_k_arg)]
    pub top_k: usize,
    /// BFS depth of the graph expansion
    #[arg(long, default_value_t = 2)]
    pub depth: usize,
    /// The tool the model picked (handed to the selector with the rows)
    #[arg(long, value_name = "NAME")]
    pub llm_target: Option<String>,
    /// Selector policy
    #[arg(long, default_value = "strong_evidence", value_parser = super::policy_arg())]
    pub policy: Policy,
    /// Any other knob, e.g. --set history=getOrder (repeatable)
    #[arg(long = "set", value_name = "KNOB=VALUE")]
    pub set: Vec<String>,
    #[command(flatten)]
    pub ui: UiArgs,
}

pub fn run(a: &DiffArgs) -> u8 {
    use crate::sniff::Pair;
    // a file that is neither (truncated, missing) goes with the other: its loader names
    // the file and the place
    match crate::sniff::pair(&a.a, &a.b) {
        Pair::Graphs => run_graphs(a),
        Pair::Runs => {
            if a.json {
                return fail(
                    "--json compares two graphs; two runs open the Diff screen (lab diff A B --json compares runs)",
                );
            }
            super::tui::run_diff(&a.a, &a.b, &a.ui)
        }
        Pair::Mixed { graph } => {
            let (graph, other) = if graph == 0 {
                (&a.a, &a.b)
            } else {
                (&a.b, &a.a)
            };
            fail(format!(
                "{} is a graph but {} is not: diff compares two graphs, or two runs",
                crate::sanitize::line(graph),
                crate::sanitize::line(other)
            ))
        }
    }
}

/// Loads both graphs, one after the other: each load already runs its index build beside
/// the parse, so loading the two at once saved nothing on 2 cores (1.09 s against 1.10 s for
/// the GitHub 22 → 23 diff) and raised the peak by a fifth (102 MiB against 85 MiB), as both
/// loads' transient buffers were alive together.
pub fn load_pair(a: &str, b: &str) -> Result<(Engine, Engine), u8> {
    let old = load_engine(a).map_err(fail)?;
    let new = load_engine(b).map_err(fail)?;
    Ok((old, new))
}

/// `--explore`: the Diff screen on the two graphs (the suite's cases blamed there).
fn explore(a: &DiffArgs) -> u8 {
    let cases = match &a.cases {
        None => None,
        Some(c) => match load_suite(Path::new(c)) {
            Ok(s) => {
                let label = Path::new(c)
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_else(|| c.clone());
                Some((s, label))
            }
            Err(e) => return fail(e),
        },
    };
    super::tui::run_graphs(
        &a.a,
        &a.b,
        &a.ui,
        cases,
        a.query.clone(),
        a.expected.clone(),
    )
}

fn run_graphs(a: &DiffArgs) -> u8 {
    if a.explore {
        return explore(a);
    }
    let t = std::time::Instant::now();
    let (old, new) = match load_pair(&a.a, &a.b) {
        Ok(p) => p,
        Err(c) => return c,
    };
    graphdiff::timing("both graphs loaded and indexed", t);
    let d = graphdiff::diff(
        &Side {
            label: a.a.clone(),
            engine: &old,
        },
        &Side {
            label: a.b.clone(),
            engine: &new,
        },
    );
    if a.cases.is_some() || a.query.is_some() {
        return run_blame(a, &old, &new, &d);
    }
    if a.json {
        let mut s = report::json(&d);
        s.push('\n');
        write_stdout(s.as_bytes());
    } else {
        write_text(&report::text(&d, a.limit));
    }
    EXIT_OK
}

fn base_knobs(a: &DiffArgs) -> Result<Knobs, u8> {
    let mut k = Knobs::default();
    k.params.top_k = a.top_k;
    k.params.depth = a.depth;
    k.select.llm_target = a.llm_target.clone();
    k.select.policy = a.policy.clone();
    for s in &a.set {
        k = k.set_from_str(s).map_err(|e| fail(format!("--set: {e}")))?;
    }
    Ok(k)
}

/// The cases to blame: the suite's (each with its own parameters), or the one query.
fn cases_of(a: &DiffArgs, base: &Knobs) -> Result<Vec<CaseSpec>, u8> {
    if let Some(q) = &a.query {
        return Ok(vec![CaseSpec {
            id: "query".into(),
            query: q.clone(),
            knobs: base.clone(),
            expected: a.expected.clone(),
        }]);
    }
    let path = a.cases.as_deref().unwrap_or_default();
    let suite = load_suite(Path::new(path)).map_err(fail)?;
    suite
        .cases
        .iter()
        .map(|c| {
            Ok(CaseSpec {
                id: c.id.clone(),
                query: c.query.clone(),
                knobs: c.knobs(base, &a.set).map_err(|e| {
                    fail(format!(
                        "{}: case {}: {e}",
                        crate::sanitize::line(path),
                        c.id
                    ))
                })?,
                expected: c.expected.clone(),
            })
        })
        .collect()
}

/// An `--expected` name that is a tool of neither graph (a typo would blame OLD's top-1
/// instead, silently): the error, with the closest names of NEW (else OLD).
fn unknown_expected(a: &DiffArgs, old: &Engine, new: &Engine) -> Option<String> {
    let name = a
        .expected
        .iter()
        .find(|e| old.graph.tool_id(e).is_none() && new.graph.tool_id(e).is_none())?;
    let mut closest = crate::engine::triage::closest_names(new, name, 3);
    if closest.is_empty() {
        closest = crate::engine::triage::closest_names(old, name, 3);
    }
    Some(format!(
        "--expected: {} is a tool of neither graph{}",
        crate::sanitize::quoted(name),
        crate::engine::triage::closest_suffix(&closest)
    ))
}

/// Blames every case on the plan's two graphs, in parallel; a case repeated in a suite
/// (same query, parameters and labels) is blamed once.
pub fn blame_cases(plan: &Plan<'_>, cases: &[CaseSpec]) -> Vec<CaseBlame> {
    let blamer = Blamer { plan };
    let key = |c: &CaseSpec| format!("{:?}", (&c.query, &c.knobs, &c.expected));
    let mut first: std::collections::HashMap<String, usize> = Default::default();
    let unique: Vec<&CaseSpec> = cases
        .iter()
        .filter(|c| {
            let n = first.len();
            *first.entry(key(c)).or_insert(n) == n
        })
        .collect();
    let done: Vec<CaseBlame> = crate::par::map_heavy(&unique, |c| blamer.blame(c));
    cases
        .iter()
        .map(|c| {
            let mut b = done[first[&key(c)]].clone();
            b.id = c.id.clone();
            b
        })
        .collect()
}

/// The blame of a suite between two loaded graphs, for `lab diff OLD NEW --cases`: the
/// per-case headlines as text, and one JSON object per case.
pub fn blame_between(
    old: &Engine,
    new: &Engine,
    labels: (&str, &str),
    cases: &[CaseSpec],
) -> (String, Vec<String>) {
    let d = graphdiff::diff(
        &Side {
            label: labels.0.to_string(),
            engine: old,
        },
        &Side {
            label: labels.1.to_string(),
            engine: new,
        },
    );
    let plan = Plan::new(old, new, &d);
    let blamed = blame_cases(&plan, cases);
    let mut text = String::new();
    for c in blamed.iter().filter(|c| c.changed) {
        text.push_str(&format!(
            "{}  {}\n",
            crate::sanitize::line(&c.id),
            blame_report::headline(&plan, c)
        ));
    }
    let json = blamed
        .iter()
        .map(|c| blame_report::json_line(&plan, c))
        .collect();
    (text, json)
}

fn run_blame(a: &DiffArgs, old: &Engine, new: &Engine, d: &graphdiff::ArtifactDiff) -> u8 {
    let base = match base_knobs(a) {
        Ok(k) => k,
        Err(c) => return c,
    };
    let cases = match cases_of(a, &base) {
        Ok(c) => c,
        Err(c) => return c,
    };
    if let Some(e) = unknown_expected(a, old, new) {
        return fail(e);
    }
    let t = std::time::Instant::now();
    let plan = Plan::new(old, new, d);
    graphdiff::timing("change groups and token cache", t);
    let blamed = blame_cases(&plan, &cases);
    graphdiff::timing(
        &format!("blame ({})", crate::lab::blame::profile::report()),
        t,
    );
    if a.json {
        let mut out = String::new();
        for c in &blamed {
            out.push_str(&blame_report::json_line(&plan, c));
            out.push('\n');
        }
        write_stdout(out.as_bytes());
    } else {
        let mut text = report::summary(d);
        text.push('\n');
        text.push_str(&blame_report::text(&plan, &blamed, a.limit));
        write_text(&text);
    }
    EXIT_OK
}
