//! Explorer measurements on synthetic 10k and 50k-tool graphs (not a timed test):
//!
//! 1. keystroke-to-frame latency, in process: the real `App` and views drawing through
//!    ratatui's crossterm backend into a byte counter at 120x40. Per keystroke we time the
//!    echo frame (key handled, frame drawn: what typing waits for, since queries run on the
//!    worker) and the results frame (the engine's retrieval + selection, then a frame);
//! 2. bytes written to the terminal per keystroke at 120x40, counted from a PTY running the
//!    release binary (both frames of each keystroke), plus the PTY round-trip times.
//!
//! Run: `cargo bench --bench tui` (sizes: TUI_BENCH_SIZES=10000,50000). The graphs are
//! generated deterministically under target/bench-tui/ (never committed): the demo graph's
//! tools replicated with suffixed names and slimmed metadata, and its edges within each copy.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::{TerminalOptions, Viewport};
use serde_json::{Map, Value};
use toolscope::engine::Engine;
use toolscope::tui::app::{AppEvent, Effect, run_job};
use toolscope::tui::caps::{Caps, ColorLevel};
use toolscope::tui::event::Source;
use toolscope::tui::harness::Harness;

const W: u16 = 120;
const H: u16 = 40;

fn out_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-tui")
}

/// Writes (once) a saved graph with `n` tools built from the demo artifact.
fn synthetic(n: usize) -> PathBuf {
    let path = out_dir().join(format!("synthetic-{n}.json"));
    if path.exists() {
        return path;
    }
    std::fs::create_dir_all(out_dir()).unwrap();
    let mut gz = flate2::read::GzDecoder::new(toolscope::demo::DEMO_GRAPH_GZ);
    let mut text = String::new();
    gz.read_to_string(&mut text).unwrap();
    let demo: Value = serde_json::from_str(&text).unwrap();
    let tools = demo["tools"].as_object().unwrap();
    let nodes = demo["graph"]["nodes"].as_array().unwrap();
    let edges = demo["graph"]["edges"].as_array().unwrap();
    let keep_meta = [
        "method",
        "path",
        "source_label",
        "ai_metadata",
        "openapi",
        "produces",
        "consumes",
        "api_contract",
    ];
    let keep_openapi = [
        "operation_id",
        "summary",
        "description",
        "path",
        "path_module",
    ];
    let slim = |tool: &Value| -> Value {
        let mut t = tool.clone();
        if let Some(m) = t["metadata"].as_object() {
            let mut nm = Map::new();
            for (k, v) in m {
                if !keep_meta.contains(&k.as_str()) {
                    continue;
                }
                let v = match (k.as_str(), v) {
                    ("openapi", Value::Object(o)) => Value::Object(
                        o.iter()
                            .filter(|(k, _)| keep_openapi.contains(&k.as_str()))
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect(),
                    ),
                    ("api_contract", Value::Object(o)) => Value::Object(
                        o.iter()
                            .filter(|(k, _)| k.as_str() == "produces" || k.as_str() == "consumes")
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect(),
                    ),
                    _ => v.clone(),
                };
                nm.insert(k.clone(), v);
            }
            t["metadata"] = Value::Object(nm);
        }
        t
    };
    let base: Vec<(String, Value)> = tools.iter().map(|(k, v)| (k.clone(), slim(v))).collect();
    let copies = n.div_ceil(base.len());
    let name = |k: &str, c: usize| {
        if c == 0 {
            k.to_string()
        } else {
            format!("{k}_c{c}")
        }
    };
    let mut out_tools = Map::new();
    let mut out_nodes = Vec::new();
    let mut out_edges = Vec::new();
    let mut count = 0usize;
    'outer: for c in 0..copies {
        for (k, v) in &base {
            if count == n {
                break 'outer;
            }
            let nk = name(k, c);
            let mut t = v.clone();
            t["name"] = Value::String(nk.clone());
            out_tools.insert(nk, t);
            count += 1;
        }
        for node in nodes {
            let mut nn = node.clone();
            let id = node["id"].as_str().unwrap();
            if !tools.contains_key(id) {
                if c == 0 {
                    out_nodes.push(nn);
                }
                continue;
            }
            nn["id"] = Value::String(name(id, c));
            out_nodes.push(nn);
        }
        for e in edges {
            let (s, t) = (e["source"].as_str().unwrap(), e["target"].as_str().unwrap());
            let mut ne = e.clone();
            ne["source"] = Value::String(if tools.contains_key(s) {
                name(s, c)
            } else {
                s.into()
            });
            ne["target"] = Value::String(if tools.contains_key(t) {
                name(t, c)
            } else {
                t.into()
            });
            out_edges.push(ne);
        }
    }
    // keep only nodes of tools that exist (the last copy may be partial)
    out_nodes.retain(|nd| {
        let id = nd["id"].as_str().unwrap();
        out_tools.contains_key(id) || nd["node_type"].as_str().is_none_or(|t| t != "tool")
    });
    let ids: std::collections::HashSet<String> = out_nodes
        .iter()
        .map(|nd| nd["id"].as_str().unwrap().to_string())
        .collect();
    out_edges.retain(|e| {
        ids.contains(e["source"].as_str().unwrap()) && ids.contains(e["target"].as_str().unwrap())
    });
    let doc = serde_json::json!({
        "format_version": demo["format_version"].clone(),
        "library_version": demo["library_version"].clone(),
        "graph": {"nodes": out_nodes, "edges": out_edges},
        "tools": Value::Object(out_tools),
    });
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, serde_json::to_vec(&doc).unwrap()).unwrap();
    std::fs::rename(&tmp, &path).unwrap();
    path
}

/// Counts the bytes ratatui writes.
#[derive(Clone, Default)]
struct Counter(Arc<AtomicUsize>);

impl Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.fetch_add(buf.len(), Ordering::Relaxed);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn summary(label: &str, mut v: Vec<f64>, unit: &str) {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "  {label:<44} n={:<5} p50 {:>8.2} {unit}  p90 {:>8.2}  p99 {:>8.2}  max {:>8.2}",
        v.len(),
        pct(&v, 50.0),
        pct(&v, 90.0),
        pct(&v, 99.0),
        v.last().copied().unwrap_or(0.0)
    );
}

fn key(c: char) -> AppEvent {
    AppEvent::Input(Event::Key(KeyEvent::new(
        KeyCode::Char(c),
        KeyModifiers::NONE,
    )))
}

fn in_process(path: &Path, n: usize) {
    let t = Instant::now();
    let graph = toolscope::model::load::load_graph_file(path).unwrap();
    let load = t.elapsed();
    let t = Instant::now();
    let engine = Arc::new(Engine::new(graph));
    let index = t.elapsed();
    println!(
        "\n{n} tools ({} edges): load {:.2} s, index {:.2} s",
        engine.graph.edge_count(),
        load.as_secs_f64(),
        index.as_secs_f64()
    );
    let mut h = Harness::with(
        Caps::fixed(ColorLevel::Ansi256, false),
        Source::File(path.to_path_buf()),
        engine.clone(),
        None,
    );
    let counter = Counter::default();
    let mut term = Terminal::with_options(
        CrosstermBackend::new(counter.clone()),
        TerminalOptions {
            viewport: Viewport::Fixed(Rect::new(0, 0, W, H)),
        },
    )
    .unwrap();
    let mut draw = |app: &mut toolscope::tui::app::App| {
        let mut info = None;
        term.draw(|f| info = Some(toolscope::tui::views::render(app, f)))
            .unwrap();
        app.note_layout(info.unwrap());
    };
    draw(&mut h.app);
    let (mut echo, mut result, mut query, mut bytes) = (vec![], vec![], vec![], vec![]);
    let mut slow: Vec<(f64, String, usize)> = Vec::new();
    for q in toolscope::demo::demo_queries() {
        // clear the line, then type the query one key at a time
        h.app.on_event(key('/'));
        let fx = h.app.on_event(AppEvent::Input(Event::Key(KeyEvent::new(
            KeyCode::Char('u'),
            KeyModifiers::CONTROL,
        ))));
        h.apply(fx);
        draw(&mut h.app);
        for c in q.chars() {
            let before = counter.0.load(Ordering::Relaxed);
            let t0 = Instant::now();
            let fx = h.app.on_event(key(c));
            draw(&mut h.app); // the echo frame: typing never waits for the query
            let t_echo = t0.elapsed();
            let t1 = Instant::now();
            for e in fx {
                if let Effect::Query(job) = e {
                    let out = run_job(&engine, &job);
                    h.app.on_event(AppEvent::Query(out));
                }
            }
            let t_query = t1.elapsed();
            draw(&mut h.app); // the results frame
            let t_result = t0.elapsed();
            echo.push(t_echo.as_secs_f64() * 1000.0);
            query.push(t_query.as_secs_f64() * 1000.0);
            slow.push((
                t_query.as_secs_f64() * 1000.0,
                h.app.query.text.clone(),
                h.app
                    .retrieval()
                    .map(|r| r.stats.visited_nodes)
                    .unwrap_or(0),
            ));
            result.push(t_result.as_secs_f64() * 1000.0);
            bytes.push((counter.0.load(Ordering::Relaxed) - before) as f64);
        }
    }
    slow.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap());
    for (ms, q, visited) in slow.iter().take(5) {
        println!("  slowest query: {ms:>7.2} ms  {q:?} (visited {visited} nodes)");
    }
    summary("echo frame (key -> frame drawn)", echo, "ms");
    summary("retrieval + selection (worker)", query, "ms");
    summary("key -> results frame (serial, worst case)", result, "ms");
    summary("bytes per keystroke, both frames (in process)", bytes, "B ");
}

/// The release binary in a PTY at 120x40: bytes read per keystroke and round trips.
fn pty(path: &Path, n: usize) {
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: H,
            cols: W,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_toolscope"));
    cmd.arg(path.as_os_str());
    cmd.env("TERM", "xterm-256color");
    cmd.env_remove("NO_COLOR");
    cmd.env_remove("TMUX");
    let mut child = pair.slave.spawn_command(cmd).unwrap();
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().unwrap();
    let mut writer = pair.master.take_writer().unwrap();
    // (bytes, time of last byte) shared with the reader thread
    let log: Arc<Mutex<(usize, Instant, vt100::Parser)>> =
        Arc::new(Mutex::new((0, Instant::now(), vt100::Parser::new(H, W, 0))));
    let l2 = log.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 65536];
        while let Ok(k) = reader.read(&mut buf) {
            if k == 0 {
                break;
            }
            let mut g = l2.lock().unwrap();
            g.0 += k;
            g.1 = Instant::now();
            g.2.process(&buf[..k]);
        }
    });
    let wait = |pred: &dyn Fn(&str) -> bool, what: &str| {
        let t = Instant::now();
        loop {
            let s = log.lock().unwrap().2.screen().contents();
            if pred(&s) {
                return;
            }
            assert!(
                t.elapsed() < Duration::from_secs(300),
                "timeout: {what}\n{s}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let t = Instant::now();
    wait(&|s| s.contains(" 1 Candidates"), "graph loaded");
    println!(
        "  PTY: loaded and first frame in {:.2} s",
        t.elapsed().as_secs_f64()
    );
    // settle, then quiet period detection per keystroke
    let quiet = |ms: u64| {
        loop {
            let last = log.lock().unwrap().1;
            if last.elapsed() >= Duration::from_millis(ms) {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    };
    quiet(300);
    let (mut bytes, mut first, mut last) = (vec![], vec![], vec![]);
    for q in toolscope::demo::demo_queries() {
        writer.write_all(b"/\x15").unwrap();
        writer.flush().unwrap();
        quiet(150);
        for c in q.chars() {
            let (b0, _) = {
                let g = log.lock().unwrap();
                (g.0, g.1)
            };
            let mut buf = [0u8; 4];
            let t0 = Instant::now();
            writer
                .write_all(c.encode_utf8(&mut buf).as_bytes())
                .unwrap();
            writer.flush().unwrap();
            // first byte back
            let t_first = loop {
                let g = log.lock().unwrap();
                if g.0 > b0 {
                    break g.1.saturating_duration_since(t0);
                }
                drop(g);
                if t0.elapsed() > Duration::from_secs(10) {
                    break Duration::from_secs(10);
                }
                std::thread::sleep(Duration::from_micros(200));
            };
            // both frames: wait until 120 ms without output
            quiet(120);
            let g = log.lock().unwrap();
            bytes.push((g.0 - b0) as f64);
            first.push(t_first.as_secs_f64() * 1000.0);
            last.push(g.1.saturating_duration_since(t0).as_secs_f64() * 1000.0);
        }
        writer.write_all(b"\x1b").unwrap();
        writer.flush().unwrap();
        quiet(150);
    }
    summary("PTY bytes per keystroke (echo + results)", bytes, "B ");
    summary("PTY key -> first byte of the echo frame", first, "ms");
    summary("PTY key -> last byte of the results frame", last, "ms");
    writer.write_all(b"q").unwrap();
    writer.flush().unwrap();
    let _ = child.wait();
    let _ = n;
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --benches` passes nothing useful: skip there
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let sizes: Vec<usize> = std::env::var("TUI_BENCH_SIZES")
        .unwrap_or_else(|_| "10000,50000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    println!("toolscope explorer benchmark at {W}x{H} (256 colours), typing the 20 demo queries");
    for n in sizes {
        let t = Instant::now();
        let path = synthetic(n);
        println!(
            "\n== {n} tools: {} ({:.0} MiB, ready in {:.1} s)",
            path.display(),
            std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0) as f64 / 1048576.0,
            t.elapsed().as_secs_f64()
        );
        in_process(&path, n);
        pty(&path, n);
    }
}
