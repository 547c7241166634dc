//! `toolscope lab capture | check | diff | eval`.

use clap::{Args, Subcommand, ValueEnum};
use std::path::Path;

use super::graph_arg::load_engine;
use super::query::write_stdout;
use super::{EXIT_EMPTY, EXIT_INPUT, EXIT_OK, fail};
use crate::engine::Engine;
use crate::engine::knobs::Knobs;
use crate::jsonout::JsonWriter;
use crate::lab::record::RunRecord;
use crate::lab::suite::load_suite;
use crate::lab::{diff, eval, fixture, fixture_check};
use crate::sanitize::line;

#[derive(Args, Debug)]
pub struct LabArgs {
    #[command(subcommand)]
    pub command: LabCommand,
}

#[derive(Subcommand, Debug)]
pub enum LabCommand {
    /// Capture scrubbed regression fixtures for every case of a suite
    Capture(CaptureArgs),
    /// Replay fixtures and report regressions (exit 1 on any)
    Check(CheckArgs),
    /// Diff two evidence files or fixture folders, or one suite under two graphs or parameter sets
    Diff(DiffArgs),
    /// Evaluate a suite: hit@1/5/k, recall@k, MRR, selector accuracy; --vs for paired deltas
    Eval(EvalArgs),
    /// Recompute recorded decisions (trace envelopes, batch lines, golden cases, fixtures)
    /// and flag drift: version_skew, stale_artifact, parameters_differ, unexplained
    Replay(ReplayArgs),
}

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// Graph artifact, a spec or tool list (built on load), or `demo`
    pub graph: String,
    /// Evidence files, JSON Lines logs or fixture folders (`-`: standard input; .gz read as is)
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<String>,
    /// One JSON line per record, then a summary line
    #[arg(long)]
    pub json: bool,
    /// List every record that did not reproduce (default: the first 20)
    #[arg(long)]
    pub all: bool,
}

#[derive(Args, Debug)]
pub struct CaptureArgs {
    /// Graph artifact, a spec or tool list (built on load), or `demo`
    pub graph: String,
    /// Suite of labelled cases (graph-tool-call ground truth, golden JSONL or fixtures)
    #[arg(long, value_name = "SUITE")]
    pub cases: String,
    /// Output folder
    #[arg(short, long, value_name = "DIR")]
    pub output: String,
    /// Number of results of a case without its own top_k (1 or more)
    #[arg(long, default_value_t = 5, value_parser = super::top_k_arg)]
    pub top_k: usize,
    /// Knobs for the capture (repeatable, e.g. --set depth=1)
    #[arg(long = "set", value_name = "KNOB=VALUE")]
    pub set: Vec<String>,
    /// Overwrite existing fixtures
    #[arg(long)]
    pub force: bool,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Graph artifact, a spec or tool list (built on load), or `demo`
    pub graph: String,
    /// Fixture folder
    pub dir: String,
    /// Replay fixtures captured against another graph (default: refuse them)
    #[arg(long)]
    pub any_graph: bool,
    /// The same as --format json
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// What standard output carries: text, json, or github (GitHub Actions `::error`
    /// annotations, one per failing or invalid fixture)
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,
    /// Also write JUnit XML to FILE: one testcase per fixture, a failure's message is its
    /// first difference (refuses an existing FILE without --force)
    #[arg(long, value_name = "FILE")]
    pub junit: Option<String>,
    /// Overwrite an existing --junit FILE
    #[arg(long, requires = "junit")]
    pub force: bool,
}

/// What `lab check` prints on standard output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    Text,
    Json,
    Github,
}

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// Evidence file, fixture folder, or (with --cases) a graph
    pub a: String,
    /// Evidence file, fixture folder, or (with --cases) a graph
    pub b: String,
    /// Run this suite on A and B (graphs) instead of reading evidence
    #[arg(long, value_name = "SUITE")]
    pub cases: Option<String>,
    /// Knobs for side B (with --cases; A uses the defaults or --base)
    #[arg(long = "set", value_name = "KNOB=VALUE")]
    pub set: Vec<String>,
    /// Knobs for side A (with --cases; repeatable, e.g. --base depth=1)
    #[arg(long = "base", value_name = "KNOB=VALUE")]
    pub base: Vec<String>,
    /// Number of results of a case without its own top_k (1 or more; with --cases)
    #[arg(long, default_value_t = 5, value_parser = super::top_k_arg)]
    pub top_k: usize,
    /// The diff as one JSON object: a summary, then every case
    #[arg(long)]
    pub json: bool,
    /// ASCII marks only (v and ^ for the rank moves)
    #[arg(long)]
    pub ascii: bool,
}

#[derive(Args, Debug)]
pub struct EvalArgs {
    /// Graph artifact, a spec or tool list (built on load), or `demo`
    pub graph: String,
    /// Suite of labelled cases
    pub suite: String,
    /// The cut-off k of hit@k and recall@k, and the number of results of a case without its
    /// own top_k; the default is the explorer's, so the Lab screen shows the same numbers
    #[arg(long, default_value_t = crate::engine::Params::default().top_k, value_parser = super::top_k_arg)]
    pub top_k: usize,
    /// Knobs for the run (repeatable, e.g. --set depth=1)
    #[arg(long = "set", value_name = "KNOB=VALUE")]
    pub set: Vec<String>,
    /// Compare with another graph (paired deltas with bootstrap intervals)
    #[arg(long, value_name = "GRAPH")]
    pub vs: Option<String>,
    /// Compare with the same graph under these knobs
    #[arg(long = "vs-set", value_name = "KNOB=VALUE")]
    pub vs_set: Vec<String>,
    /// Show every case (default: the 15 worst)
    #[arg(long)]
    pub all: bool,
    /// The metrics and every case as one JSON object
    #[arg(long)]
    pub json: bool,
}

fn knobs(sets: &[String], top_k: usize) -> Result<Knobs, String> {
    let mut k = Knobs::default();
    k.params.top_k = top_k;
    for s in sets {
        k = k.set_from_str(s)?;
    }
    Ok(k)
}

pub fn run(a: LabArgs) -> u8 {
    match a.command {
        LabCommand::Capture(c) => capture(c),
        LabCommand::Check(c) => check(c),
        LabCommand::Diff(d) => run_diff(d),
        LabCommand::Eval(e) => run_eval(e),
        LabCommand::Replay(r) => run_replay(r),
    }
}

fn capture(a: CaptureArgs) -> u8 {
    let engine = match load_engine(&a.graph) {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    let suite = match load_suite(Path::new(&a.cases)) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let base = match knobs(&[], a.top_k) {
        Ok(k) => k,
        Err(e) => return fail(format!("--top-k: {e}")),
    };
    let mut inputs = vec![std::path::PathBuf::from(&a.cases)];
    if Path::new(&a.graph).exists() {
        inputs.push(a.graph.clone().into());
    }
    let opts = fixture::CaptureOptions {
        base,
        overrides: a.set.clone(),
        force: a.force,
        inputs,
    };
    match fixture::capture(&engine, &suite, Path::new(&a.output), &opts) {
        Ok(rep) => {
            for w in &rep.warnings {
                crate::sanitize::eprint_line(format!("warning: {w}"));
            }
            let mut s = format!(
                "captured {} into {}",
                crate::output::text::count(rep.written.len() as u64, "fixture"),
                line(&a.output)
            );
            if !rep.skipped_existing.is_empty() {
                s.push_str(&format!(
                    "; {} already existed and were kept (use --force to overwrite)",
                    rep.skipped_existing.len()
                ));
            }
            super::query::write_text(&format!("{s}\n"));
            EXIT_OK
        }
        Err(e) => fail(e),
    }
}

fn check(a: CheckArgs) -> u8 {
    let started = std::time::Instant::now();
    // where the JUnit file goes is decided before any work (no overwrite without --force,
    // never over an input)
    let junit = match a.junit.as_deref() {
        Some("-") => {
            return fail("--junit -: give a file (standard output carries the report)");
        }
        Some(f) => match crate::output::file::prepare(f, &check_inputs(&a), a.force) {
            Ok(t) => Some(t),
            Err(e) => return fail(format!("--junit {e}")),
        },
        None => None,
    };
    let engine = match load_engine(&a.graph) {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    let rep = match fixture_check::check(&engine, Path::new(&a.dir), a.any_graph) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    let results = &rep.results;
    let failed = results.iter().filter(|r| !r.passed()).count();
    let format = if a.json { CheckFormat::Json } else { a.format };
    if let Some(t) = &junit {
        let xml = crate::lab::ci::junit(&rep, &a.dir, started.elapsed().as_secs_f64());
        if let Err(e) = crate::output::file::write(t, |w| w.write_all(xml.as_bytes())) {
            return fail(format!("--junit {e}"));
        }
    }
    if format == CheckFormat::Github {
        write_stdout(crate::lab::ci::github(&rep).as_bytes());
    } else if format == CheckFormat::Json {
        let mut w = JsonWriter::new();
        w.begin_obj();
        w.key("passed").int((results.len() - failed) as i64);
        w.key("failed").int(failed as i64);
        let invalid: Vec<String> = rep.invalid.iter().map(|e| e.to_string()).collect();
        w.key("invalid").str_list(&invalid);
        w.key("notes").str_list(&rep.notes);
        w.key("cases").begin_arr();
        for r in results {
            w.begin_obj();
            w.key("case_id").str(&r.case_id);
            w.key("file").str(&r.file.display().to_string());
            w.key("passed").bool(r.passed());
            w.key("differences").str_list(&r.differences);
            w.end_obj();
        }
        w.end_arr();
        w.end_obj();
        write_stdout(format!("{}\n", w.finish()).as_bytes());
    } else {
        let mut s = String::new();
        for n in &rep.notes {
            s.push_str(&format!("note: {}\n", line(n)));
        }
        for r in results {
            s.push_str(&format!(
                "{} {}\n",
                if r.passed() { "PASS" } else { "FAIL" },
                line(&r.case_id)
            ));
            for d in &r.differences {
                s.push_str(&format!("       {}\n", line(d)));
            }
        }
        s.push_str(&format!(
            "{} passed, {failed} failed, {} invalid\n",
            results.len() - failed,
            rep.invalid.len()
        ));
        super::query::write_text(&s);
    }
    if format == CheckFormat::Text {
        for e in &rep.invalid {
            fail(e);
        }
    }
    if !rep.invalid.is_empty() || results.is_empty() {
        if results.is_empty() && rep.invalid.is_empty() {
            return fail(format!("{}: no fixture to replay", line(&a.dir)));
        }
        EXIT_INPUT
    } else if failed > 0 {
        EXIT_EMPTY
    } else {
        EXIT_OK
    }
}

/// What `lab check` reads: the graph, the fixture folder and every file in it (the JUnit
/// file may replace none of them).
fn check_inputs(a: &CheckArgs) -> Vec<String> {
    let mut inputs = vec![a.graph.clone(), a.dir.clone()];
    if let Ok(entries) = std::fs::read_dir(&a.dir) {
        inputs.extend(entries.flatten().map(|e| e.path().display().to_string()));
    }
    inputs
}

fn suite_records(
    engine: &Engine,
    suite: &crate::lab::suite::Suite,
    base: &Knobs,
    overrides: &[String],
) -> Result<Vec<RunRecord>, String> {
    suite
        .cases
        .iter()
        .map(|c| {
            let k = c.knobs(base, overrides)?;
            let r = engine.retrieve(&c.query, &k.params);
            let s = engine.select(&r, &k.select);
            let mut rec = RunRecord::from_run(engine, &c.id, &r, Some(&s));
            rec.expected = c.expected.clone();
            Ok(rec)
        })
        .collect()
}

/// `toolscope lab diff`: two sides' records compared case by case — captured records,
/// a suite run on one graph under two parameter sets, or on two graphs (then each changed
/// case is also blamed on the changes between them) — as JSON or text; exit 1 on a change.
fn run_diff(a: DiffArgs) -> u8 {
    // two graphs (not one graph under two parameter sets): each changed case is also
    // blamed on the changes between them, as `toolscope diff OLD NEW --cases` does
    let sides = match &a.cases {
        Some(cases) if a.a != a.b && a.set.is_empty() && a.base.is_empty() => {
            two_graph_records(&a, cases).map(|((ra, rb), blame)| (ra, rb, Some(blame)))
        }
        Some(cases) => two_knob_records(&a, cases).map(|(ra, rb)| (ra, rb, None)),
        None => captured_records(&a).map(|(ra, rb)| (ra, rb, None)),
    };
    let (ra, rb, blame) = match sides {
        Ok(x) => x,
        Err(code) => return code,
    };
    let diffs = diff::diff_sets(&ra, &rb);
    if a.json {
        let mut w = JsonWriter::new();
        diff::write_json(&diffs, &mut w, |w| {
            if let Some((_, lines)) = &blame {
                w.key("blame").begin_arr();
                for l in lines {
                    w.raw(l);
                }
                w.end_arr();
            }
        });
        write_stdout(format!("{}\n", w.finish()).as_bytes());
    } else {
        let mut text = diff::text(&diffs, a.ascii);
        if let Some((lines, _)) = &blame
            && !lines.is_empty()
        {
            text.push_str("\nBlame: the changes between the two graphs behind each changed ranking or selection\n");
            text.push_str(lines);
        }
        super::query::write_text(&text);
    }
    if diffs.iter().any(|d| d.changed()) {
        EXIT_EMPTY
    } else {
        EXIT_OK
    }
}

/// The records of side A and side B, in case order.
type Sides = (Vec<RunRecord>, Vec<RunRecord>);

/// The suite run on graphs A and B with the same parameters, and the blame of each
/// changed case on the changes between the graphs (text, JSON lines).
fn two_graph_records(a: &DiffArgs, cases: &str) -> Result<(Sides, (String, Vec<String>)), u8> {
    let suite = load_suite(Path::new(cases)).map_err(fail)?;
    let base = knobs(&[], a.top_k).map_err(|e| fail(format!("--top-k: {e}")))?;
    let (ea, eb) = super::diff::load_pair(&a.a, &a.b)?;
    let (recs_a, recs_b) = match (
        suite_records(&ea, &suite, &base, &[]),
        suite_records(&eb, &suite, &base, &[]),
    ) {
        (Ok(x), Ok(y)) => (x, y),
        (Err(e), _) | (_, Err(e)) => return Err(fail(e)),
    };
    let specs: Vec<crate::lab::blame::CaseSpec> = suite
        .cases
        .iter()
        .filter_map(|c| {
            Some(crate::lab::blame::CaseSpec {
                id: c.id.clone(),
                query: c.query.clone(),
                knobs: c.knobs(&base, &[]).ok()?,
                expected: c.expected.clone(),
            })
        })
        .collect();
    let blame = super::diff::blame_between(&ea, &eb, (&a.a, &a.b), &specs);
    Ok(((recs_a, recs_b), blame))
}

/// The suite run twice: A with `--base` over each case's own parameters, B (graph B,
/// or A again) with `--base` then `--set`; the flags are checked before any graph loads.
fn two_knob_records(a: &DiffArgs, cases: &str) -> Result<Sides, u8> {
    let suite = load_suite(Path::new(cases)).map_err(fail)?;
    // A runs with --base over each case's own parameters; B with --base, then --set
    let base = knobs(&[], a.top_k).map_err(|e| fail(format!("--top-k: {e}")))?;
    let over_a = a.base.clone();
    let over_b: Vec<String> = a.base.iter().chain(&a.set).cloned().collect();
    for (flag, sets) in [("--base", &a.base), ("--set", &over_b)] {
        if let Err(e) = knobs(sets, a.top_k) {
            return Err(fail(format!("{flag}: {e}")));
        }
    }
    // the flags are valid: what is left to fail is a case's own parameters
    let ea = load_engine(&a.a).map_err(fail)?;
    let recs_a = suite_records(&ea, &suite, &base, &over_a).map_err(fail)?;
    let recs_b = if a.b == a.a {
        suite_records(&ea, &suite, &base, &over_b)
    } else {
        drop(ea);
        match load_engine(&a.b) {
            Ok(eb) => suite_records(&eb, &suite, &base, &over_b),
            Err(e) => return Err(fail(e)),
        }
    };
    match recs_b {
        Ok(b) => Ok((recs_a, b)),
        Err(e) => Err(fail(e)),
    }
}

/// The captured records of files A and B: a file with unreadable records or none is an
/// error; keys this version does not know are noted once per file.
fn captured_records(a: &DiffArgs) -> Result<Sides, u8> {
    let mut sides = Vec::new();
    for p in [&a.a, &a.b] {
        let (recs, errors) = diff::read_records(Path::new(p)).map_err(fail)?;
        if let Some(first) = errors.first() {
            let more = match errors.len() {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            return Err(fail(format!("{first}{more}")));
        }
        if recs.is_empty() {
            return Err(fail(format!("{}: no evidence records found", line(p))));
        }
        for r in recs.iter().filter(|r| !r.unknown.is_empty()).take(1) {
            let keys: Vec<&str> = r.unknown.iter().map(|(k, _)| k.as_str()).collect();
            crate::sanitize::eprint_line(format!(
                "note: {}: keys this version does not know are kept, not compared: {}",
                line(p),
                keys.join(", ")
            ));
        }
        sides.push(recs);
    }
    let b = sides.pop().unwrap_or_default();
    let a_ = sides.pop().unwrap_or_default();
    Ok((a_, b))
}

fn run_eval(a: EvalArgs) -> u8 {
    let engine = match load_engine(&a.graph) {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    let suite = match load_suite(Path::new(&a.suite)) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let k = match knobs(&[], a.top_k) {
        Ok(k) => k,
        Err(e) => return fail(format!("--top-k: {e}")),
    };
    if let Err(e) = knobs(&a.set, a.top_k) {
        return fail(format!("--set: {e}"));
    }
    // the flags are valid: what is left to fail is a case's own parameters
    let (mut results, sum) = match eval::evaluate(&engine, &suite, &k, &a.set, a.top_k) {
        Ok(x) => x,
        Err(e) => return fail(e),
    };
    let missing: Vec<String> = results
        .iter()
        .flat_map(|r| {
            r.missing_from_graph
                .iter()
                .map(move |m| format!("{}: {m}", r.id))
        })
        .collect();
    if !missing.is_empty() {
        crate::sanitize::eprint_line(format!(
            "warning: {} expected tool{} not in the graph (first: {})",
            missing.len(),
            if missing.len() == 1 { " is" } else { "s are" },
            line(&missing[0])
        ));
    }
    // the comparison run, if any (nothing to compare on an unlabelled suite)
    let compare = a.vs.is_some() || !a.vs_set.is_empty();
    if compare && sum.labelled == 0 {
        crate::sanitize::eprint_line(
            "note: --vs/--vs-set ignored: an unlabelled suite has no metrics to compare",
        );
    }
    let vs = if compare && sum.labelled > 0 {
        let over_b: Vec<String> = a.set.iter().chain(&a.vs_set).cloned().collect();
        let other = match &a.vs {
            Some(g) => match load_engine(g) {
                Ok(e) => Some(e),
                Err(e) => return fail(e),
            },
            None => None,
        };
        let eb = other.as_ref().unwrap_or(&engine);
        match eval::evaluate(eb, &suite, &k, &over_b, a.top_k) {
            Ok(x) => Some(x),
            Err(e) => return fail(format!("--vs-set: {e}")),
        }
    } else {
        None
    };
    let deltas = vs.as_ref().map(|(rb, _)| eval::paired(&results, rb));
    eval::worst_first(&mut results);
    let out = if a.json {
        eval_json(
            &suite.name,
            &sum,
            vs.as_ref().map(|v| &v.1),
            deltas.as_ref(),
            &results,
        )
    } else {
        let vs = vs.as_ref().map(|v| &v.1).zip(deltas.as_ref());
        eval_text(&suite.name, &sum, vs, &results, a.all)
    };
    if a.json {
        write_stdout(out.as_bytes());
    } else {
        super::query::write_text(&out);
    }
    EXIT_OK
}

/// The metrics of a summary as `(name, value)`, each once (`hit@5` appears once at k=5).
fn metrics(s: &eval::Summary) -> Vec<(String, f64)> {
    let mut m: Vec<(String, f64)> = s
        .hit_cutoffs()
        .into_iter()
        .map(|(n, v)| (format!("hit@{n}"), v))
        .collect();
    m.push((format!("recall@{}", s.k), s.recall));
    m.push(("MRR".into(), s.mrr));
    m.push(("selector accuracy".into(), s.selector_accuracy));
    m
}

/// What an unlabelled or partly labelled suite is told.
fn unlabelled_note(s: &eval::Summary) -> Option<String> {
    match (s.labelled, s.unlabelled()) {
        (_, 0) => None,
        (0, n) => Some(format!(
            "unlabelled suite: {} no expected tool; shown are each case's ranking and \
             selection, with no hit/miss and no metrics",
            cases_have(n)
        )),
        (l, n) => Some(format!(
            "{} no expected tool: not scored (the metrics are over the {l} labelled; the \
             unlabelled are listed last)",
            cases_have(n)
        )),
    }
}

fn cases_have(n: usize) -> String {
    if n == 1 {
        "1 case has".into()
    } else {
        format!("{n} cases have")
    }
}

fn eval_json(
    suite: &str,
    sum: &eval::Summary,
    vs: Option<&eval::Summary>,
    deltas: Option<&eval::Deltas>,
    results: &[eval::CaseResult],
) -> String {
    let mut w = JsonWriter::new();
    w.begin_obj();
    w.key("suite").str(suite);
    let summ = |w: &mut JsonWriter, s: &eval::Summary| {
        w.begin_obj();
        w.key("cases").int(s.cases as i64);
        w.key("labelled").int(s.labelled as i64);
        w.key("unlabelled").int(s.unlabelled() as i64);
        w.key("k").int(s.k as i64);
        // no labelled case: every metric is null, not a mean over nothing
        for (name, v) in metrics(s) {
            w.key(&name.replace(' ', "_"));
            if s.labelled == 0 {
                w.null();
            } else {
                w.f64(v);
            }
        }
        w.end_obj();
    };
    w.key("summary");
    summ(&mut w, sum);
    if let Some(note) = unlabelled_note(sum) {
        w.key("note").str(&note);
    }
    if let (Some(sb), Some(d)) = (vs, deltas) {
        w.key("vs_summary");
        summ(&mut w, sb);
        w.key("paired_deltas").begin_obj();
        for (name, (m, lo, hi)) in d {
            w.key(name)
                .begin_obj()
                .key("delta")
                .f64(*m)
                .key("ci95")
                .begin_arr()
                .f64(*lo)
                .f64(*hi)
                .end_arr()
                .end_obj();
        }
        w.end_obj();
    }
    w.key("cases").begin_arr();
    for r in results
        .iter()
        .filter(|r| r.labelled)
        .chain(results.iter().filter(|r| !r.labelled))
    {
        w.begin_obj();
        w.key("id").str(&r.id);
        w.key("query").str(&r.query);
        w.key("labelled").bool(r.labelled);
        w.key("expected").str_list(&r.expected);
        w.key("first_hit_rank");
        match r.first_hit_rank {
            Some(x) => w.int(x as i64),
            None => w.null(),
        };
        w.key("rr");
        if r.labelled {
            w.f64(r.rr);
        } else {
            w.null();
        }
        w.key("selected").str(&r.selected);
        w.key("selector_correct");
        if r.labelled {
            w.bool(r.selector_correct > 0.0);
        } else {
            w.null();
        }
        w.key("top").str_list(&r.top);
        w.end_obj();
    }
    w.end_arr();
    w.end_obj();
    format!("{}\n", w.finish())
}

fn eval_text(
    suite: &str,
    sum: &eval::Summary,
    vs: Option<(&eval::Summary, &eval::Deltas)>,
    results: &[eval::CaseResult],
    all: bool,
) -> String {
    let show = |m: Vec<(String, f64)>| {
        m.iter()
            .map(|(n, v)| format!("{n} {v:.4}"))
            .collect::<Vec<_>>()
            .join("  ")
    };
    let mut s = format!(
        "{} · {} · k={}\n",
        line(suite),
        crate::output::text::count(sum.cases as u64, "case"),
        sum.k
    );
    if sum.labelled > 0 {
        s.push_str(&show(metrics(sum)));
        s.push('\n');
    }
    if let Some(note) = unlabelled_note(sum) {
        s.push_str(&note);
        s.push('\n');
    }
    if let Some((sb, d)) = vs {
        s.push_str(&format!("vs:   {}\n", show(metrics(sb))));
        for (name, (m, lo, hi)) in d {
            s.push_str(&format!(
                "  Δ {name:<18} {m:+.4}  95% CI [{lo:+.4}, {hi:+.4}]\n"
            ));
        }
        s.push_str("  (paired bootstrap, 1000 resamples, seed 42)\n");
    }
    let limit = if all { usize::MAX } else { 15 };
    let cut = |t: &str, n: usize| line(t).chars().take(n).collect::<String>();
    let scored: Vec<&eval::CaseResult> = results.iter().filter(|r| r.labelled).collect();
    if !scored.is_empty() {
        s.push_str(&format!(
            "\n{:<28} {:>5} {:>6} {:<3} {:<30} query\n",
            "case (worst first)", "rank", "RR", "sel", "expected"
        ));
        for r in scored.iter().take(limit) {
            s.push_str(&format!(
                "{:<28} {:>5} {:>6.3} {:<3} {:<30} {}\n",
                cut(&r.id, 28),
                r.first_hit_rank
                    .map(|x| x.to_string())
                    .unwrap_or_else(|| "-".into()),
                r.rr,
                if r.selector_correct > 0.0 { "ok" } else { "x" },
                cut(&r.expected.join(","), 30),
                line(&r.query)
            ));
        }
    }
    let unscored: Vec<&eval::CaseResult> = results.iter().filter(|r| !r.labelled).collect();
    if !unscored.is_empty() {
        s.push_str(&format!(
            "\n{:<28} {:<30} {:<30} query\n",
            "case (no expected tool)", "rank 1", "selected"
        ));
        for r in unscored.iter().take(limit) {
            s.push_str(&format!(
                "{:<28} {:<30} {:<30} {}\n",
                cut(&r.id, 28),
                cut(r.top.first().map(String::as_str).unwrap_or("-"), 30),
                cut(
                    if r.selected.is_empty() {
                        "-"
                    } else {
                        &r.selected
                    },
                    30
                ),
                line(&r.query)
            ));
        }
    }
    let shown = scored.len().min(limit) + unscored.len().min(limit);
    if shown < results.len() {
        s.push_str(&format!(
            "… {} more cases (--all lists them)\n",
            results.len() - shown
        ));
    }
    s
}

fn run_replay(a: ReplayArgs) -> u8 {
    use crate::lab::replay::{self, DriftKind, Outcome, Status, Summary};
    use std::io::Write;
    let engine = match load_engine(&a.graph) {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    let mut sum = Summary::default();
    // the first unreadable part (for the error when nothing at all could be read), and
    // the text report's listed records (bounded unless --all asks for every one)
    let mut first_unreadable: Option<Outcome> = None;
    let limit = if a.all { usize::MAX } else { 20 };
    let mut listed: Vec<Outcome> = Vec::new();
    let mut not_reproduced = 0usize;
    let mut emit = |batch: &[Outcome]| -> bool {
        let mut s = String::new();
        for o in batch {
            sum.add(o);
            if o.status == Status::Unreadable && first_unreadable.is_none() {
                first_unreadable = Some(o.clone());
            }
            if a.json {
                s.push_str(&replay::outcome_json(o));
                s.push('\n');
            } else if o.status != Status::Reproduced {
                not_reproduced += 1;
                if listed.len() < limit {
                    listed.push(o.clone());
                }
            }
        }
        // whole lines in one write, flushed per batch: a pipe sees each batch at once
        let mut so = std::io::stdout().lock();
        s.is_empty() || so.write_all(s.as_bytes()).and_then(|_| so.flush()).is_ok()
    };
    if let Err(e) = replay::replay_stream(&engine, &a.files, &mut emit) {
        return fail(e);
    }
    if sum.unreadable == sum.records {
        // nothing could be read: bad input, not a replay with no drift
        let first = first_unreadable
            .map(|o| {
                format!(
                    " (first: {}: {})",
                    o.record,
                    o.detail.as_deref().unwrap_or("")
                )
            })
            .unwrap_or_default();
        return fail(format!(
            "{}: no record could be read{first}",
            line(&a.files.join(", "))
        ));
    }
    if a.json {
        let mut w = JsonWriter::new();
        w.begin_obj().key("summary").begin_obj();
        w.key("records").int(sum.records as i64);
        w.key("reproduced").int(sum.reproduced as i64);
        w.key("drifted").int(sum.drifted as i64);
        w.key("partial").int(sum.partial as i64);
        w.key("unreadable").int(sum.unreadable as i64);
        w.key("drift_kinds").begin_obj();
        for (k, n) in DriftKind::ALL.iter().zip(sum.by_kind) {
            w.key(k.name()).int(n as i64);
        }
        w.end_obj().end_obj().end_obj();
        write_stdout(format!("{}\n", w.finish()).as_bytes());
    } else {
        super::query::write_text(&replay_text(&sum, &listed, not_reproduced));
    }
    if sum.drifted > 0 { EXIT_EMPTY } else { EXIT_OK }
}

/// `lab replay`'s text report: the summary, then the records that did not reproduce
/// (`listed`, of `total`).
fn replay_text(
    sum: &crate::lab::replay::Summary,
    listed: &[crate::lab::replay::Outcome],
    total: usize,
) -> String {
    use crate::lab::replay::DriftKind;
    let kinds: Vec<String> = DriftKind::ALL
        .iter()
        .zip(sum.by_kind)
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| format!("{} {n}", k.name()))
        .collect();
    let mut s = format!(
        "{}: {} reproduced, {} drifted{}, {} partial, {} unreadable\n",
        crate::output::text::count(sum.records as u64, "record"),
        sum.reproduced,
        sum.drifted,
        if kinds.is_empty() {
            String::new()
        } else {
            format!(" ({})", kinds.join(", "))
        },
        sum.partial,
        sum.unreadable
    );
    for o in listed {
        let what = match (o.drift_kind, &o.difference) {
            (Some(k), Some(d)) => format!(
                "{}  {}: recorded {}, recomputed {}",
                k.name(),
                d.pointer,
                crate::jsonout::to_compact_safe(&d.recorded),
                crate::jsonout::to_compact_safe(&d.recomputed)
            ),
            _ => String::new(),
        };
        let detail = o
            .detail
            .as_deref()
            .map(|d| format!("  ({d})"))
            .unwrap_or_default();
        s.push_str(&line(&format!(
            "{:<10} {}  {what}{detail}",
            o.status.name(),
            o.record
        )));
        s.push('\n');
    }
    if total > listed.len() {
        s.push_str(&format!(
            "… {} more (--all lists them)\n",
            total - listed.len()
        ));
    }
    s
}
