//! The threads that feed the loop's one channel: terminal input, the query worker (newest
//! job wins: older pending jobs are skipped, results carry their generation) and the graph
//! loader (progress while a large artifact is read, decompressed, parsed and indexed).

use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread;

use ratatui::crossterm::event;

use super::app::{AppEvent, LoadProgress, Loaded, QueryJob, run_job};
use super::drill::{EvJob, run_ev_job};
use super::follow::{FollowJob, FollowReader};
use super::gdiff::open::{PairJob, PairLoaded, PairSide};
use super::screens::{LabJob, Opened, load_diff, run_lab};
use crate::engine::Engine;

/// Reads terminal events forever and forwards them.
pub fn spawn_input(tx: Sender<AppEvent>) {
    let _ = thread::Builder::new()
        .name("toolscope-input".into())
        .spawn(move || {
            while let Ok(ev) = event::read() {
                if tx.send(AppEvent::Input(ev)).is_err() {
                    break;
                }
            }
        });
}

/// SIGTERM, SIGHUP and SIGQUIT become an event, so the loop ends normally and the
/// terminal is restored (Ctrl-C arrives as a key in raw mode).
#[cfg(unix)]
pub fn spawn_signals(tx: Sender<AppEvent>) {
    use signal_hook::consts::{SIGHUP, SIGQUIT, SIGTERM};
    if let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGTERM, SIGHUP, SIGQUIT]) {
        let _ = thread::Builder::new()
            .name("toolscope-signals".into())
            .spawn(move || {
                if let Some(sig) = signals.forever().next() {
                    let _ = tx.send(AppEvent::Signal(sig));
                }
            });
    }
}

#[cfg(not(unix))]
pub fn spawn_signals(_tx: Sender<AppEvent>) {}

/// The query worker: runs the newest job and drops the ones it was superseded by.
pub struct Worker {
    jobs: Sender<QueryJob>,
}

impl Worker {
    pub fn spawn(engine: Arc<Engine>, tx: Sender<AppEvent>) -> Worker {
        let (jtx, jrx): (Sender<QueryJob>, Receiver<QueryJob>) = channel();
        let _ = thread::Builder::new()
            .name("toolscope-query".into())
            .spawn(move || {
                while let Ok(mut job) = jrx.recv() {
                    // coalesce: only the newest pending job is worth running
                    while let Ok(newer) = jrx.try_recv() {
                        job = newer;
                    }
                    let generation = job.generation;
                    let ev = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        run_job(&engine, &job)
                    })) {
                        Ok(out) => AppEvent::Query(out),
                        Err(p) => AppEvent::QueryFailed {
                            generation,
                            message: panic_text(p.as_ref()),
                        },
                    };
                    if tx.send(ev).is_err() {
                        break;
                    }
                }
            });
        Worker { jobs: jtx }
    }

    pub fn submit(&self, job: QueryJob) {
        let _ = self.jobs.send(job);
    }
}

/// The evidence worker: explain, trace and counterfactual jobs. A newer job of a kind
/// replaces a pending one of the same kind.
pub struct EvidenceWorker {
    jobs: Sender<EvJob>,
}

impl EvidenceWorker {
    pub fn spawn(engine: Arc<Engine>, tx: Sender<AppEvent>) -> EvidenceWorker {
        let (jtx, jrx): (Sender<EvJob>, Receiver<EvJob>) = channel();
        let _ = thread::Builder::new()
            .name("toolscope-evidence".into())
            .spawn(move || {
                while let Ok(first) = jrx.recv() {
                    let mut pending: [Option<EvJob>; EvJob::KINDS] = Default::default();
                    let k = first.kind();
                    pending[k] = Some(first);
                    while let Ok(newer) = jrx.try_recv() {
                        let k = newer.kind();
                        pending[k] = Some(newer);
                    }
                    for job in pending.into_iter().flatten() {
                        let ev =
                            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                run_ev_job(&engine, &job)
                            })) {
                                Ok(out) => AppEvent::Evidence(Box::new(out)),
                                Err(p) => AppEvent::EvidenceFailed(panic_text(p.as_ref())),
                            };
                        if tx.send(ev).is_err() {
                            return;
                        }
                    }
                }
            });
        EvidenceWorker { jobs: jtx }
    }

    pub fn submit(&self, job: EvJob) {
        let _ = self.jobs.send(job);
    }
}

/// Evaluates a suite on its own thread, reporting progress; a cancelled job stops early.
pub fn spawn_lab(engine: Arc<Engine>, job: LabJob, tx: Sender<AppEvent>) {
    let _ = thread::Builder::new()
        .name("toolscope-lab".into())
        .spawn(move || {
            let etx = tx.clone();
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run_lab(&engine, &job, &mut |m| {
                    let _ = tx.send(AppEvent::Lab(m));
                })
            }));
            if let Err(p) = r {
                let _ = etx.send(AppEvent::EvidenceFailed(format!(
                    "lab evaluation: {}",
                    panic_text(p.as_ref())
                )));
            }
        });
}

/// Follows a file on its own thread until the job's stop flag is set or the loop is gone:
/// a [`FollowReader`] step every 200 ms (at once while catching up on a large file); a
/// message at least every second keeps the rates current.
pub fn spawn_follow(engine: Option<Arc<Engine>>, job: FollowJob, tx: Sender<AppEvent>) {
    use std::sync::atomic::Ordering;
    use std::time::{Duration, Instant};
    let _ = thread::Builder::new()
        .name("toolscope-follow".into())
        .spawn(move || {
            let start = Instant::now();
            let stop = job.stop.clone();
            let mut reader = FollowReader::new(job);
            let mut last_sent: Option<Instant> = None;
            while !stop.load(Ordering::Relaxed) {
                let now_ms = start.elapsed().as_millis() as u64;
                let msg = reader.step(engine.as_deref(), now_ms);
                let due = last_sent.is_none_or(|t| t.elapsed() >= Duration::from_secs(1));
                let behind = msg.behind;
                if !msg.entries.is_empty() || !msg.notes.is_empty() || due {
                    last_sent = Some(Instant::now());
                    if tx.send(AppEvent::Follow(msg)).is_err() {
                        return;
                    }
                }
                if behind == 0 {
                    thread::sleep(Duration::from_millis(200));
                }
            }
        });
}

pub use crate::par::panic_text;

/// What to load.
#[derive(Clone, Debug)]
pub enum Source {
    Demo,
    /// A graph or collection artifact.
    File(PathBuf),
    /// An OpenAPI/Swagger spec, MCP tool list or function list, built into a graph on load.
    Spec(PathBuf),
    /// Evidence read without a graph (Evidence screen).
    Evidence(PathBuf),
    /// Two runs to compare (Diff screen).
    Diff(PathBuf, PathBuf),
    /// A JSON Lines file followed without a graph (Follow screen).
    Follow(PathBuf),
    /// Two graphs compared (Diff screen: artifact diff and ranking blame); OLD, NEW. The
    /// NEW one is also the graph of the other screens.
    Graphs(PathBuf, PathBuf),
}

/// The source of one graph of a pair: `demo`, a spec or tool list (built on load), or a
/// graph artifact.
fn one_graph(p: &std::path::Path) -> Source {
    use crate::sniff::Kind;
    if p.as_os_str() == "demo" {
        return Source::Demo;
    }
    match crate::sniff::sniff_path(p) {
        Ok(Kind::Spec | Kind::ToolList | Kind::Yaml) => Source::Spec(p.to_path_buf()),
        _ => Source::File(p.to_path_buf()),
    }
}

/// Loads two graphs on two threads (a graph loaded already is taken as it is); the gauge
/// is their mean and names both phases. The one loader of a pair: `toolscope OLD NEW`
/// and `:diff` both use it; an error is the failing loader's one line, naming the file
/// and the place.
pub fn load_pair(a: &PairSide, b: &PairSide, progress: &mut dyn FnMut(LoadProgress)) -> PairLoaded {
    let (ptx, prx) = channel::<(usize, LoadProgress)>();
    type One = Result<(Arc<Engine>, Vec<String>), String>;
    thread::scope(|sc| {
        let spawn = |i: usize, s: &PairSide| {
            let ptx = ptx.clone();
            let s = s.clone();
            sc.spawn(move || -> One {
                let path = match s {
                    PairSide::Loaded(e) => {
                        let _ = ptx.send((
                            i,
                            LoadProgress {
                                phase: "loaded".into(),
                                fraction: 1.0,
                                detail: String::new(),
                            },
                        ));
                        return Ok((e, Vec::new()));
                    }
                    PairSide::Path(p) => p,
                };
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    load(&one_graph(&path), &mut |p| {
                        let _ = ptx.send((i, p));
                    })
                }))
                .unwrap_or_else(|p| Err(format!("loading failed: {}", panic_text(p.as_ref()))))
                .map(|(e, w)| (Arc::new(e), w))
            })
        };
        let (ha, hb) = (spawn(0, a), spawn(1, b));
        drop(ptx);
        let mut last: [LoadProgress; 2] = std::array::from_fn(|_| LoadProgress {
            phase: "starting".into(),
            fraction: 0.0,
            detail: String::new(),
        });
        for (i, p) in prx {
            last[i] = p;
            progress(LoadProgress {
                phase: "loading both graphs".into(),
                fraction: (last[0].fraction + last[1].fraction) / 2.0,
                detail: format!("OLD: {}; NEW: {}", last[0].phase, last[1].phase),
            });
        }
        let join = |h: thread::ScopedJoinHandle<'_, One>| {
            h.join()
                .unwrap_or_else(|_| Err("loading failed".to_string()))
        };
        let (ra, rb) = (join(ha), join(hb));
        // the error names its file already (`FILE:LINE:COLUMN: …`)
        let (ea, mut wa) = ra?;
        let (eb, wb) = rb?;
        wa.extend(wb);
        Ok((ea, eb, wa))
    })
}

/// Loads a `:diff` pair on a thread: progress, then the graphs or the error, each with
/// the job's generation.
pub fn spawn_pair_loader(job: PairJob, tx: Sender<AppEvent>) {
    let _ = thread::Builder::new()
        .name("toolscope-load-pair".into())
        .spawn(move || {
            let ptx = tx.clone();
            let g = job.generation;
            let res = load_pair(&job.old, &job.new, &mut |p| {
                let _ = ptx.send(AppEvent::GdLoadProgress(g, p));
            });
            let _ = tx.send(AppEvent::GdLoaded(g, res));
        });
}

/// Loads on a thread; sends progress and then `Loaded`.
pub fn spawn_loader(source: Source, tx: Sender<AppEvent>) {
    let _ = thread::Builder::new()
        .name("toolscope-load".into())
        .spawn(move || {
            if let Some(opened) = open_evidence(&source, &tx) {
                let _ = tx.send(AppEvent::Opened(opened));
                return;
            }
            if let Source::Graphs(a, b) = &source {
                let ptx = tx.clone();
                let (a, b) = (PairSide::Path(a.clone()), PairSide::Path(b.clone()));
                let res = load_pair(&a, &b, &mut |p| {
                    let _ = ptx.send(AppEvent::Progress(p));
                });
                let _ = tx.send(AppEvent::Loaded(res.map(|(old, new, warnings)| Loaded {
                    engine: new,
                    warnings,
                    old: Some(old),
                })));
                return;
            }
            let ptx = tx.clone();
            let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                load(&source, &mut |p| {
                    let _ = ptx.send(AppEvent::Progress(p));
                })
            }));
            let res = match res {
                Ok(r) => r,
                Err(p) => Err(format!("loading failed: {}", panic_text(p.as_ref()))),
            };
            let _ = tx.send(AppEvent::Loaded(res.map(|(engine, warnings)| Loaded {
                engine: Arc::new(engine),
                warnings,
                old: None,
            })));
        });
}

/// Reads evidence or a diff (no graph); `None` for a graph source.
fn open_evidence(source: &Source, tx: &Sender<AppEvent>) -> Option<Result<Opened, String>> {
    let progress = |detail: String| {
        let _ = tx.send(AppEvent::Progress(LoadProgress {
            phase: "reading evidence".into(),
            fraction: 0.5,
            detail,
        }));
    };
    let r = match source {
        Source::Demo | Source::File(_) | Source::Spec(_) | Source::Graphs(..) => return None,
        Source::Follow(p) => return Some(Ok(Opened::Follow(p.clone()))),
        Source::Evidence(p) => {
            progress(p.display().to_string());
            std::panic::catch_unwind(|| super::records::read_set(p).map(Opened::Evidence))
        }
        Source::Diff(a, b) => {
            progress(format!("{} and {}", a.display(), b.display()));
            std::panic::catch_unwind(|| load_diff(a, b).map(|d| Opened::Diff(Box::new(d))))
        }
    };
    Some(r.unwrap_or_else(|p| Err(format!("reading failed: {}", panic_text(p.as_ref())))))
}

fn mib(n: u64) -> String {
    format!("{:.1} MiB", n as f64 / (1024.0 * 1024.0))
}

/// Reads, decompresses, parses and indexes, reporting progress.
pub fn load(
    source: &Source,
    progress: &mut dyn FnMut(LoadProgress),
) -> Result<(Engine, Vec<String>), String> {
    let mut step = |phase: &str, fraction: f64, detail: String| {
        progress(LoadProgress {
            phase: phase.to_string(),
            fraction,
            detail,
        })
    };
    let (name, bytes) = match source {
        Source::Evidence(_) | Source::Diff(..) | Source::Follow(_) | Source::Graphs(..) => {
            return Err("not a graph source".into());
        }
        Source::Demo => (
            crate::demo::DEMO_NAME.to_string(),
            crate::demo::DEMO_GRAPH_GZ.to_vec(),
        ),
        Source::Spec(path) => {
            let name = path.display().to_string();
            let (graph, warnings) = build_spec(&name, &mut step)?;
            return Ok((index_graph(graph, &mut step), warnings));
        }
        Source::File(path) => {
            let name = path.display().to_string();
            step(
                "opening",
                0.05,
                "large plain files are mapped and parsed in place (the screen stays responsive; q quits)"
                    .into(),
            );
            // the index is built beside the graph's nodes and edges
            let beside = |tools: &[std::sync::Arc<crate::model::Tool>]| {
                crate::engine::index::Index::build_for_tools(
                    tools,
                    &crate::engine::tokenize::BuiltinTokenizer,
                )
            };
            if let Some((graph, warnings, index)) =
                crate::model::load::load_graph_mapped_quiet_with(path, beside)
                    .map_err(|e| e.to_string())?
            {
                step("ready", 1.0, String::new());
                return Ok((Engine::with_index(graph, index), warnings));
            }
            let (mut f, total) = crate::limits::open_regular(path).map_err(|e| e.to_string())?;
            let max = crate::limits::INPUT_BYTES.get();
            let mut bytes = Vec::with_capacity(total.min(max) as usize);
            let mut chunk = vec![0u8; 1 << 20];
            let mut last = 0u64;
            loop {
                let n = f
                    .read(&mut chunk)
                    .map_err(|e| format!("{name}: {}", io_message(&e)))?;
                if n == 0 {
                    break;
                }
                bytes.extend_from_slice(&chunk[..n]);
                let done = bytes.len() as u64;
                if done > max {
                    return Err(crate::limits::INPUT_BYTES.exceeded(&name, "").to_string());
                }
                if done - last >= (total / 100).max(1 << 20) {
                    last = done;
                    let frac = if total > 0 {
                        done as f64 / total as f64
                    } else {
                        0.0
                    };
                    step(
                        "reading",
                        0.3 * frac,
                        format!("{} of {}", mib(done), mib(total)),
                    );
                }
            }
            (name, bytes)
        }
    };
    let bytes = crate::limits::gunzip_progress(&name, bytes, &mut |c, t, out| {
        step(
            "decompressing",
            0.3 + 0.2 * (c as f64 / t.max(1) as f64),
            format!("{} of {} compressed, {} out", mib(c), mib(t), mib(out)),
        );
    })
    .map_err(|e| e.to_string())?;
    let size = bytes.len() as u64;
    step(
        "parsing JSON",
        0.5,
        format!(
            "{} of JSON (the screen stays responsive; q quits)",
            mib(size)
        ),
    );
    let (graph, warnings) =
        crate::model::load::load_graph_bytes_quiet(&name, bytes).map_err(|e| e.to_string())?;
    Ok((index_graph(graph, &mut step), warnings))
}

/// Builds a spec's graph on a helper thread, passing the build's phases on as the first
/// 80% of the gauge (the load and the index take the rest).
fn build_spec(
    name: &str,
    step: &mut impl FnMut(&str, f64, String),
) -> Result<(crate::model::Graph, Vec<String>), String> {
    step(
        "reading the spec",
        0.0,
        format!("{name} (a spec is built into a tool graph first)"),
    );
    let (ptx, prx) = channel::<(String, f64, String)>();
    let opts = crate::ingest::BuildOptions {
        progress: crate::ingest::progress::Progress::new(move |phase, f, detail| {
            let _ = ptx.send((phase.to_string(), f, detail.to_string()));
        }),
        ..Default::default()
    };
    let names = [name.to_string()];
    thread::scope(|sc| {
        let build = sc.spawn(move || crate::ingest::build_and_load_quiet(&names, &opts));
        // the channel closes when the build ends and drops its options
        for (phase, f, detail) in prx {
            step(&phase, 0.8 * f, detail);
        }
        match build.join() {
            Ok(r) => r.map_err(|e| e.to_string()),
            Err(p) => std::panic::resume_unwind(p),
        }
    })
}

/// The last load phases: the BM25 index, then ready.
fn index_graph(graph: crate::model::Graph, step: &mut impl FnMut(&str, f64, String)) -> Engine {
    step(
        "building the BM25 index",
        0.85,
        format!(
            "{}, {}",
            crate::sanitize::count(graph.tool_count() as u64, "tool"),
            crate::sanitize::count(graph.edge_count() as u64, "edge")
        ),
    );
    let engine = Engine::new(graph);
    step("ready", 1.0, String::new());
    engine
}

use crate::limits::io_message;

#[cfg(test)]
mod spec_tests {
    use super::*;

    #[test]
    fn a_spec_is_built_on_load_with_progress_and_no_printing() {
        let spec = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/ingest/users.openapi.json");
        let mut steps = Vec::new();
        let (engine, _warnings) = load(&Source::Spec(spec), &mut |p| {
            steps.push((p.phase, p.fraction, p.detail))
        })
        .expect("spec builds");
        assert!(engine.graph.tool_count() > 0);
        let phases: Vec<&str> = steps.iter().map(|s| s.0.as_str()).collect();
        for want in [
            "reading the spec",
            "normalizing the spec",
            "building tools from operations",
            "semantic metadata",
            "relation detectors",
            "loading the built graph",
            "building the BM25 index",
        ] {
            assert!(phases.contains(&want), "{want} missing from {phases:?}");
        }
        assert_eq!(phases.last(), Some(&"ready"));
        // the gauge only moves forward, and the last operation is counted
        assert!(steps.windows(2).all(|w| w[0].1 <= w[1].1), "{steps:?}");
        let n = engine.graph.tool_count();
        let last_op = format!("{n} of {n} operations");
        assert!(steps.iter().any(|s| s.2 == last_op), "{steps:?}");
    }
}
