//! `toolscope bench`: the measurement side of `scripts/bench-vs-reference.sh`. Loads a graph,
//! runs a query set with evidence (and optionally the selector) and prints timings and peak
//! memory as one JSON object. With `--triage SUITE` it also times triage (issue 21's speed
//! targets): every labelled case fully triaged one at a time (probes included), the whole
//! suite in parallel across cores, and one document probe's side effects over the suite.
//! With `--follow FILE` it times the Follow screen's reader over a JSON Lines file (issue
//! 18's targets): records classified per second without replay, and with replay.

use clap::Args;
use std::path::Path;
use std::time::Instant;

use super::{EXIT_OK, fail};
use crate::engine::{Engine, Params, SelectParams};
use crate::jsonout::JsonWriter;
use crate::model::load::load_graph_file;
use crate::output::json;

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Graph artifact or `demo`
    pub graph: String,
    /// Queries, one per line (`#` comments and blank lines skipped)
    #[arg(long, value_name = "FILE")]
    pub queries: String,
    /// Also time the triage of every labelled case of this suite (probes included)
    #[arg(long, value_name = "SUITE")]
    pub triage: Option<String>,
    /// Number of results per query (1 or more)
    #[arg(long, default_value_t = 10, value_parser = super::top_k_arg)]
    pub top_k: usize,
    /// Also run the target selector after each retrieval
    #[arg(long)]
    pub select: bool,
    /// Also time following this JSON Lines file as the Follow screen does: read and
    /// classify every line without replay, then with replay on this graph
    #[arg(long, value_name = "FILE")]
    pub follow: Option<String>,
    /// Run the query set this many times (after the first query)
    #[arg(long, default_value_t = 1)]
    pub repeat: usize,
    /// Print the slowest queries to stderr
    #[arg(long)]
    pub slowest: Option<usize>,
}

/// Peak resident set size of this process in MiB (Linux `VmHWM`), if known.
pub fn peak_rss_mib() -> Option<f64> {
    status_mib("VmHWM:")
}

/// Current resident set size in MiB (Linux `VmRSS`), if known.
pub fn rss_mib() -> Option<f64> {
    status_mib("VmRSS:")
}

fn status_mib(key: &str) -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with(key))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * (sorted.len() as f64 - 1.0)).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

pub fn run(args: BenchArgs) -> u8 {
    let queries: Vec<String> = match std::fs::read_to_string(&args.queries) {
        Ok(t) => t
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(String::from)
            .collect(),
        Err(e) => return fail(crate::limits::io_error(&args.queries, &e)),
    };
    let t0 = Instant::now();
    let graph = if args.graph == "demo" {
        crate::demo::load_demo()
    } else {
        load_graph_file(Path::new(&args.graph))
    };
    let graph = match graph {
        Ok(g) => g,
        Err(e) => return fail(e),
    };
    let load = t0.elapsed();
    let rss_after_load = rss_mib();
    let t1 = Instant::now();
    let engine = Engine::new(graph);
    let index = t1.elapsed();
    let rss_after_index = rss_mib();
    let params = Params {
        top_k: args.top_k,
        ..Params::default()
    };
    let sel = SelectParams::default();
    let mut sink = 0usize;
    let mut run_one = |q: &str| {
        let r = engine.retrieve(q, &params);
        // serialise like a caller that needs the evidence would
        sink += json::retrieval_json(&engine, &r).len();
        if args.select {
            sink += json::selection_json(&engine.select(&r, &sel)).len();
        }
    };
    let t2 = Instant::now();
    if let Some(q) = queries.first() {
        run_one(q);
    }
    let first = t2.elapsed();
    let mut times = Vec::with_capacity(queries.len() * args.repeat);
    let mut per_query: Vec<(f64, &str)> = Vec::new();
    for _ in 0..args.repeat.max(1) {
        for q in &queries {
            let t = Instant::now();
            run_one(q);
            let d = ms(t.elapsed());
            times.push(d);
            per_query.push((d, q));
        }
    }
    if let Some(n) = args.slowest {
        per_query.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap());
        for (d, q) in per_query.iter().take(n) {
            crate::sanitize::eprint_line(format!("{d:9.3} ms  {q}"));
        }
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let mut w = JsonWriter::new();
    w.begin_obj();
    w.key("engine").str("toolscope");
    w.key("graph").str(&args.graph);
    w.key("tools").int(engine.graph.tool_count() as i64);
    w.key("edges").int(engine.graph.edge_count() as i64);
    w.key("load_ms").f64(ms(load));
    w.key("index_ms").f64(ms(index));
    w.key("first_query_ms").f64(ms(first));
    w.key("queries").int(times.len() as i64);
    w.key("p50_ms").f64(percentile(&times, 50.0));
    w.key("p99_ms").f64(percentile(&times, 99.0));
    w.key("mean_ms")
        .f64(times.iter().sum::<f64>() / times.len().max(1) as f64);
    w.key("peak_rss_mib").opt_f64(peak_rss_mib());
    w.key("rss_after_load_mib").opt_f64(rss_after_load);
    w.key("rss_after_index_mib").opt_f64(rss_after_index);
    w.key("output_bytes").int(sink as i64);
    if let Some(path) = &args.triage {
        match crate::lab::suite::load_suite(Path::new(path)) {
            Ok(suite) => triage_timings(&engine, &suite, args.top_k, &mut w),
            Err(e) => return fail(e),
        }
    }
    if let Some(path) = &args.follow {
        if let Err(e) = crate::limits::open_regular(Path::new(path)) {
            return fail(e);
        }
        follow_timings(&engine, Path::new(path), &mut w);
    }
    w.end_obj();
    super::query::write_stdout(format!("{}\n", w.finish()).as_bytes());
    EXIT_OK
}

/// Follow timings: the whole file read by the Follow screen's reader
/// ([`crate::lab::follow::FollowReader`]) and classified from the captured fields, then
/// again with every record replayed on `engine`.
fn follow_timings(engine: &Engine, path: &Path, w: &mut JsonWriter) {
    use crate::lab::follow::{FollowJob, FollowReader};
    let pass = |replay: bool| -> (u64, u64, f64) {
        let mut r = FollowReader::new(FollowJob {
            generation: 1,
            path: path.to_path_buf(),
            stop: Default::default(),
        });
        let (mut n, mut drifted) = (0u64, 0u64);
        let t = Instant::now();
        loop {
            let m = r.step(replay.then_some(engine), 0);
            n += m.entries.len() as u64;
            drifted += m
                .entries
                .iter()
                .filter(|e| e.replay.as_ref().is_some_and(|x| x.drift.is_some()))
                .count() as u64;
            if m.entries.is_empty() && m.behind == 0 {
                break;
            }
        }
        (n, drifted, t.elapsed().as_secs_f64())
    };
    // classifying is timed three times and the median taken: the first pass may read the
    // file from disk and the next ones from the page cache, and a machine busy for a
    // moment slows one pass, not the rate; each pass's seconds are given too
    let runs: Vec<(u64, f64)> = (0..3)
        .map(|_| pass(false))
        .map(|(n, _, s)| (n, s))
        .collect();
    let mut sorted = runs.clone();
    sorted.sort_by(|a, b| a.1.total_cmp(&b.1));
    let (n, secs) = sorted[1];
    w.key("follow_records").int(n as i64);
    w.key("follow_classify_s").f64(secs);
    w.key("follow_classify_per_s")
        .f64(n as f64 / secs.max(1e-9));
    w.key("follow_classify_runs_s").begin_arr();
    for (_, s) in &runs {
        w.f64(*s);
    }
    w.end_arr();
    let (n, drifted, secs) = pass(true);
    w.key("follow_replay_s").f64(secs);
    w.key("follow_replay_per_s").f64(n as f64 / secs.max(1e-9));
    w.key("follow_drifted").int(drifted as i64);
    // the floors, on the same lines and cores: checking each line is JSON at all
    // (serde's IgnoredAny), and parsing it into a JSON value (what the reader does first),
    // over at most the first FLOOR_BYTES in whole lines: a sample, not the whole file
    const FLOOR_BYTES: u64 = 512 << 20;
    let mut bytes = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| {
        std::io::Read::read_to_end(&mut std::io::Read::take(f, FLOOR_BYTES), &mut bytes)
    });
    if read.is_ok() {
        if bytes.len() as u64 == FLOOR_BYTES
            && let Some(end) = memchr::memrchr(b'\n', &bytes)
        {
            bytes.truncate(end + 1);
        }
        let lines: Vec<&[u8]> = bytes
            .split(|&b| b == b'\n')
            .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
            .collect();
        let rate = |f: &(dyn Fn(&[u8]) -> bool + Sync)| {
            let t = Instant::now();
            for c in lines.chunks(1024) {
                std::hint::black_box(crate::par::map_heavy(c, |l| f(l)));
            }
            lines.len() as f64 / t.elapsed().as_secs_f64().max(1e-9)
        };
        let floor = rate(&|l| serde_json::from_slice::<serde::de::IgnoredAny>(l).is_ok());
        let value = rate(&|l| serde_json::from_slice::<serde_json::Value>(l).is_ok());
        w.key("follow_floor_json_check_per_s").f64(floor);
        w.key("follow_floor_json_value_per_s").f64(value);
    }
}

/// Triage timings over a suite's labelled cases: each case alone (probes included, one
/// thread), the suite in parallel, and the first document probe's side effects.
fn triage_timings(
    engine: &Engine,
    suite: &crate::lab::suite::Suite,
    top_k: usize,
    w: &mut JsonWriter,
) {
    use crate::engine::knobs::Knobs;
    use crate::engine::triage::{ProbeChange, TriageOptions};
    use crate::lab::triage::{side_effects, triage_case, triage_suite};
    let mut base = Knobs::default();
    base.params.top_k = top_k;
    let opts = TriageOptions::default();
    let cases: Vec<_> = suite
        .cases
        .iter()
        .filter(|c| !c.expected.is_empty())
        .collect();
    let mut each = Vec::with_capacity(cases.len());
    // the failing cases: those the probes run for
    let mut failing = Vec::new();
    let mut probe: Option<(ProbeChange, crate::model::ToolId)> = None;
    for c in &cases {
        let t = Instant::now();
        let r = triage_case(engine, c, &base, &opts);
        let d = ms(t.elapsed());
        each.push(d);
        if r.outcome.as_ref().is_ok_and(|t| !t.outcome.selected) {
            failing.push(d);
        }
        if probe.is_none()
            && let Ok(tr) = &r.outcome
            && let Some(p) = tr
                .probes
                .iter()
                .find(|p| matches!(p.change, ProbeChange::Document { .. }))
            && let Some(id) = engine.graph.tool_id(&tr.expected)
        {
            probe = Some((p.change.clone(), id));
        }
    }
    each.sort_by(|a, b| a.partial_cmp(b).unwrap());
    failing.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let t = Instant::now();
    let all = triage_suite(engine, suite, &base, &opts);
    let suite_ms = ms(t.elapsed());
    w.key("triage_cases").int(all.len() as i64);
    w.key("triage_case_p50_ms").f64(percentile(&each, 50.0));
    w.key("triage_case_p99_ms").f64(percentile(&each, 99.0));
    w.key("triage_case_max_ms")
        .f64(each.last().copied().unwrap_or(0.0));
    w.key("triage_failing_cases").int(failing.len() as i64);
    w.key("triage_failing_p50_ms")
        .f64(percentile(&failing, 50.0));
    w.key("triage_failing_max_ms")
        .f64(failing.last().copied().unwrap_or(0.0));
    w.key("triage_suite_ms").f64(suite_ms);
    w.key("triage_threads").int(crate::par::threads() as i64);
    match probe {
        Some((change, tool)) => {
            let t = Instant::now();
            let fx = side_effects(engine, suite, &base, &change, tool);
            w.key("doc_probe_side_effects_ms").f64(ms(t.elapsed()));
            w.key("doc_probe_side_effects_cases").int(fx.cases as i64);
        }
        None => {
            w.key("doc_probe_side_effects_ms").null();
        }
    }
}
