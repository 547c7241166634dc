//! A headless driver of the explorer: the real [`App`] and views without a terminal, with
//! query jobs run inline. Used by the state and snapshot tests and the latency benchmark.

use std::sync::{Arc, OnceLock};

use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

use super::app::{App, AppEvent, Effect, Loaded, run_job};
use super::caps::Caps;
use super::drill::run_ev_job;
use super::event::Source;
use super::screens::run_lab;
use super::views;
use super::{Options, initial_app};
use crate::engine::Engine;

/// The demo engine, loaded once per process.
pub fn demo_engine() -> Arc<Engine> {
    static E: OnceLock<Arc<Engine>> = OnceLock::new();
    E.get_or_init(|| Arc::new(Engine::new(crate::demo::load_demo().expect("demo graph"))))
        .clone()
}

pub struct Harness {
    pub app: App,
    /// Raw sequences the app asked to write (OSC 52).
    pub emitted: Vec<String>,
    /// Screens the app asked to save.
    pub saves: usize,
    /// Where copies are saved (none: copies are only emitted).
    pub copy_dir: Option<std::path::PathBuf>,
    /// Followed files: [`Harness::follow_step`] reads them (no thread).
    pub follows: Vec<super::follow::FollowReader>,
    /// Two graphs compared on the Diff screen (their jobs run inline).
    pub pair: Option<(Arc<Engine>, Arc<Engine>)>,
    /// Hold `:diff` loads instead of running them inline ([`Harness::finish_loads`]).
    pub hold_loads: bool,
    pub held_loads: Vec<super::gdiff::open::PairJob>,
}

impl Harness {
    /// An app on the demo graph, loaded, with the first walkthrough step on screen.
    pub fn demo(caps: Caps) -> Harness {
        Harness::with(caps, Source::Demo, demo_engine(), None)
    }

    /// An app on `engine` as if loaded from `source`; `query` is typed in before loading.
    pub fn with(caps: Caps, source: Source, engine: Arc<Engine>, query: Option<&str>) -> Harness {
        Harness::configured(caps, source, engine, query, Default::default())
    }

    /// [`Harness::with`], started with what a configuration file gave
    /// ([`super::config::Loaded::resolve`]).
    pub fn configured(
        caps: Caps,
        source: Source,
        engine: Arc<Engine>,
        query: Option<&str>,
        startup: super::config::Startup,
    ) -> Harness {
        let opts = Options {
            source,
            ui: Default::default(),
            learning: Vec::new(),
            query: query.map(String::from),
            expected: Vec::new(),
            dump_dir: Some(std::env::temp_dir()),
            cases: None,
            follow: None,
            startup,
        };
        let mut app = initial_app(caps, &opts);
        app.show_timing = false;
        let mut h = Harness {
            app,
            emitted: Vec::new(),
            copy_dir: None,
            saves: 0,
            follows: Vec::new(),
            pair: None,
            hold_loads: false,
            held_loads: Vec::new(),
        };
        let fx = h.app.on_event(AppEvent::Loaded(Ok(Loaded {
            engine,
            warnings: Vec::new(),
            old: None,
        })));
        h.apply(fx);
        h
    }

    /// An app on evidence or a diff (no graph), as if the loader had read `source`.
    pub fn opened(caps: Caps, source: Source) -> Harness {
        let opts = Options {
            source: source.clone(),
            ui: Default::default(),
            learning: Vec::new(),
            query: None,
            expected: Vec::new(),
            dump_dir: Some(std::env::temp_dir()),
            cases: None,
            follow: None,
            startup: Default::default(),
        };
        let mut app = initial_app(caps, &opts);
        app.show_timing = false;
        let opened = match &source {
            Source::Evidence(p) => {
                super::records::read_set(p).map(super::screens::Opened::Evidence)
            }
            Source::Diff(a, b) => {
                super::screens::load_diff(a, b).map(|d| super::screens::Opened::Diff(Box::new(d)))
            }
            Source::Follow(p) => Ok(super::screens::Opened::Follow(p.clone())),
            _ => Err("not evidence".into()),
        };
        let mut h = Harness {
            app,
            emitted: Vec::new(),
            copy_dir: None,
            saves: 0,
            follows: Vec::new(),
            pair: None,
            hold_loads: false,
            held_loads: Vec::new(),
        };
        h.event(AppEvent::Opened(opened));
        h
    }

    /// An app on the demo graph with a suite evaluated on the Lab screen.
    pub fn lab(caps: Caps, suite: crate::lab::suite::Suite, label: &str) -> Harness {
        let opts = Options {
            source: Source::Demo,
            ui: Default::default(),
            learning: Vec::new(),
            query: None,
            expected: Vec::new(),
            dump_dir: Some(std::env::temp_dir()),
            cases: Some((suite, label.to_string())),
            follow: None,
            startup: Default::default(),
        };
        let mut app = initial_app(caps, &opts);
        app.show_timing = false;
        let mut h = Harness {
            app,
            emitted: Vec::new(),
            copy_dir: None,
            saves: 0,
            follows: Vec::new(),
            pair: None,
            hold_loads: false,
            held_loads: Vec::new(),
        };
        let fx = h.app.on_event(AppEvent::Loaded(Ok(Loaded {
            engine: demo_engine(),
            warnings: Vec::new(),
            old: None,
        })));
        h.apply(fx);
        h
    }

    /// The Diff screen on two graphs, as if `toolscope OLD NEW [--cases SUITE]` had loaded
    /// them (labels `old.json` and `new.json`); `query` is in the query box.
    pub fn graphs(
        caps: Caps,
        old: Arc<Engine>,
        new: Arc<Engine>,
        suite: Option<crate::lab::suite::Suite>,
        query: Option<&str>,
    ) -> Harness {
        let opts = Options {
            source: Source::Graphs("old.json".into(), "new.json".into()),
            ui: Default::default(),
            learning: Vec::new(),
            query: query.map(String::from),
            expected: Vec::new(),
            dump_dir: Some(std::env::temp_dir()),
            cases: suite.map(|s| (s, "demo-suite.json".to_string())),
            follow: None,
            startup: Default::default(),
        };
        let mut app = initial_app(caps, &opts);
        app.show_timing = false;
        let mut h = Harness {
            app,
            emitted: Vec::new(),
            copy_dir: None,
            saves: 0,
            follows: Vec::new(),
            pair: None,
            hold_loads: false,
            held_loads: Vec::new(),
        };
        h.event(AppEvent::Loaded(Ok(Loaded {
            engine: new,
            warnings: Vec::new(),
            old: Some(old),
        })));
        h
    }

    /// An app still loading (no engine yet).
    pub fn loading(caps: Caps) -> Harness {
        Harness::loading_with(caps, Default::default())
    }

    /// [`Harness::loading`], started with what a configuration file gave.
    pub fn loading_with(caps: Caps, startup: super::config::Startup) -> Harness {
        let opts = Options {
            source: Source::Demo,
            ui: Default::default(),
            learning: Vec::new(),
            query: None,
            expected: Vec::new(),
            dump_dir: None,
            cases: None,
            follow: None,
            startup,
        };
        let mut app = initial_app(caps, &opts);
        app.show_timing = false;
        Harness {
            app,
            emitted: Vec::new(),
            copy_dir: None,
            saves: 0,
            follows: Vec::new(),
            pair: None,
            hold_loads: false,
            held_loads: Vec::new(),
        }
    }

    /// One poll of every followed file, as the follow thread would make it at `now_ms`.
    pub fn follow_step(&mut self, now_ms: u64) {
        let engine = self.app.engine.clone();
        let msgs: Vec<_> = self
            .follows
            .iter_mut()
            .map(|r| r.step(engine.as_deref(), now_ms))
            .collect();
        for m in msgs {
            let fx = self.app.on_event(AppEvent::Follow(m));
            self.apply(fx);
        }
    }

    /// An app following `path`: on the demo graph (`graph`), or without one.
    pub fn follow(caps: Caps, path: &std::path::Path, graph: bool) -> Harness {
        if graph {
            let mut h = Harness::demo(caps);
            let fx = h.app.start_follow(path);
            h.apply(fx);
            h
        } else {
            let mut h = Harness::opened(caps, Source::Follow(path.to_path_buf()));
            h.app.show_timing = false;
            h
        }
    }

    /// Performs effects; queries run inline (as the worker would).
    pub fn apply(&mut self, fx: Vec<Effect>) {
        for e in fx {
            match e {
                Effect::Query(job) => {
                    if let Some(engine) = self.app.engine.clone() {
                        let out = run_job(&engine, &job);
                        let more = self.app.on_event(AppEvent::Query(out));
                        self.apply(more);
                    }
                }
                Effect::Evidence(job) => {
                    if let Some(engine) = self.app.engine.clone() {
                        let out = run_ev_job(&engine, &job);
                        let more = self.app.on_event(AppEvent::Evidence(Box::new(out)));
                        self.apply(more);
                    }
                }
                Effect::Lab(job) => {
                    if let Some(engine) = self.app.engine.clone() {
                        let mut msgs = Vec::new();
                        run_lab(&engine, &job, &mut |m| msgs.push(m));
                        for m in msgs {
                            let more = self.app.on_event(AppEvent::Lab(m));
                            self.apply(more);
                        }
                    }
                }
                Effect::Emit(s) => self.emitted.push(s),
                Effect::Copy(job) => {
                    // never tmux from a test; a file only where the test asked
                    let dir = self.copy_dir.clone();
                    let seq = self.app.deliver_copy(&job, false, dir.as_deref());
                    self.emitted.push(seq);
                }
                Effect::SaveScreen => self.saves += 1,
                Effect::Follow(job) => {
                    self.follows.push(super::follow::FollowReader::new(*job));
                }
                Effect::GdLoad(job) if self.hold_loads => self.held_loads.push(*job),
                Effect::GdLoad(job) => self.run_load(*job),
                Effect::GdStart(old, new, labels, epoch) => {
                    let d = super::gdiff::work::artifact_diff(&old, &new, (&labels.0, &labels.1));
                    let groups = crate::lab::blame::plan::Plan::new(&old, &new, &d)
                        .groups
                        .len();
                    self.pair = Some((old, new));
                    self.event(AppEvent::Gd(super::gdiff::work::GdMsg::Ready {
                        epoch,
                        diff: Box::new(d),
                        groups,
                    }));
                }
                Effect::Gd(job) => {
                    let Some((old, new)) = self.pair.clone() else {
                        continue;
                    };
                    let d = super::gdiff::work::artifact_diff(&old, &new, ("old", "new"));
                    let plan = crate::lab::blame::plan::Plan::new(&old, &new, &d);
                    for m in super::gdiff::work::run_inline(&plan, &job) {
                        self.event(AppEvent::Gd(m));
                    }
                }
                Effect::EngineReady(_) | Effect::Quit => {}
            }
        }
    }

    /// Runs a `:diff` load inline with the runtime's loader: its progress, then the pair.
    fn run_load(&mut self, job: super::gdiff::open::PairJob) {
        let mut progress = Vec::new();
        let res = super::event::load_pair(&job.old, &job.new, &mut |p| progress.push(p));
        for p in progress {
            self.event(AppEvent::GdLoadProgress(job.generation, p));
        }
        self.event(AppEvent::GdLoaded(job.generation, res));
    }

    /// Runs the `:diff` loads held back ([`Harness::hold_loads`]).
    pub fn finish_loads(&mut self) {
        for job in std::mem::take(&mut self.held_loads) {
            self.run_load(job);
        }
    }

    pub fn event(&mut self, ev: AppEvent) {
        let fx = self.app.on_event(ev);
        self.apply(fx);
    }

    pub fn press(&mut self, code: KeyCode, mods: KeyModifiers) {
        self.event(AppEvent::Input(Event::Key(KeyEvent::new(code, mods))));
    }

    pub fn key(&mut self, code: KeyCode) {
        self.press(code, KeyModifiers::NONE);
    }

    /// Types characters (each one a key press).
    pub fn keys(&mut self, s: &str) {
        for c in s.chars() {
            let mods = if c.is_ascii_uppercase() {
                KeyModifiers::SHIFT
            } else {
                KeyModifiers::NONE
            };
            self.press(KeyCode::Char(c), mods);
        }
    }

    /// Renders at a size, feeding the layout back like the runtime does.
    pub fn render(&mut self, w: u16, h: u16) -> Buffer {
        let (buf, info) = views::render_buffer(&self.app, w, h);
        self.app.note_layout(info);
        buf
    }

    /// The screen as text.
    pub fn screen(&mut self, w: u16, h: u16) -> String {
        let b = self.render(w, h);
        super::export::to_text(&b)
    }
}

/// A small labelled suite over the demo graph (for the Lab screen and captured runs).
pub const DEMO_SUITE: &str = r#"[
  {"case_id": "refund", "query": "approve refund", "expected_target": "approveRefund"},
  {"case_id": "payment", "query": "get payment of an order", "expected_target": "getOrderPayment"},
  {"case_id": "coupons", "query": "delete expired coupons", "expected_target": "deleteExpiredCoupons"},
  {"case_id": "orders", "query": "list orders", "expected_target": "listOrders"},
  {"case_id": "cancel", "query": "cancel my order", "expected_target": "cancelOrder"},
  {"case_id": "cancel-ko", "query": "주문 취소해줘", "expected_target": "cancelOrder"}
]"#;

pub fn demo_suite() -> crate::lab::suite::Suite {
    crate::lab::suite::parse_suite("demo-suite.json", "demo-suite", DEMO_SUITE).expect("demo suite")
}

/// Writes captured evidence of the demo graph into `dir` (for the Evidence and Diff screens):
/// `newer.json` (a response with a target_selector block and keys a newer engine might add),
/// `selector.json` (the selector block alone),
/// `stream.jsonl` (batch output lines), and two fixture folders of the demo suite: `good`
/// (default parameters) and `bad` (graph expansion off, depth 0).
pub fn write_demo_evidence(dir: &std::path::Path) -> std::io::Result<()> {
    use crate::engine::{Params, SelectParams};
    // its own engine: capturing computes the graph fingerprint, which the shared demo
    // engine of the snapshot tests must not depend on
    let engine = Engine::new(crate::demo::load_demo().expect("demo graph"));
    std::fs::create_dir_all(dir)?;
    let sp = SelectParams {
        llm_target: Some("getPayment".into()),
        policy: crate::engine::params::Policy::StrongEvidence,
    };
    let r = engine.retrieve("get payment of an order", &Params::default());
    let s = engine.select(&r, &sp);
    let mut v: serde_json::Value =
        serde_json::from_str(&crate::output::json::retrieval_json(&engine, &r)).expect("json");
    v["target_selector"] =
        serde_json::from_str(&crate::output::json::selection_json(&s)).expect("json");
    v["engine_rev"] = "v2-preview".into();
    v["results"][1]["score_breakdown"]["novel_signal"] = 0.25.into();
    v["results"][0]["rerank"] = serde_json::json!({"model": "cross-encoder", "score": 0.91});
    std::fs::write(dir.join("newer.json"), serde_json::to_string_pretty(&v)?)?;
    std::fs::write(
        dir.join("selector.json"),
        crate::output::json::selection_json(&s),
    )?;
    let mut lines = String::new();
    for (id, q, llm) in [
        ("c1", "approve refund", "null"),
        ("c2", "get payment of an order", "\"getPayment\""),
        ("c3", "list orders", "null"),
    ] {
        let case = format!(
            r#"{{"id":"{id}","query":"{q}","params":{{"top_k":5}},"selector":{{"llm_target":{llm},"policy":"strong_evidence"}}}}"#
        );
        lines.push_str(&crate::output::batch::batch_line(&engine, &case).expect("batch line"));
        lines.push('\n');
    }
    std::fs::write(dir.join("stream.jsonl"), lines)?;
    let suite = demo_suite();
    let good = Params::default();
    let bad = Params {
        depth: 0,
        ..Params::default()
    };
    for (sub, params) in [("good", good), ("bad", bad)] {
        let opts = crate::lab::fixture::CaptureOptions {
            base: crate::engine::knobs::Knobs {
                params,
                select: SelectParams::default(),
            },
            force: true,
            ..Default::default()
        };
        crate::lab::fixture::capture(&engine, &suite, &dir.join(sub), &opts)
            .map_err(std::io::Error::other)?;
    }
    Ok(())
}

/// The demo graph as JSON.
pub fn demo_value() -> serde_json::Value {
    let bytes = crate::limits::gunzip("demo", crate::demo::DEMO_GRAPH_GZ.to_vec()).expect("demo");
    serde_json::from_slice(&bytes).expect("demo JSON")
}

/// A rebuild of the demo graph (for the Diff screen on two graphs): one description
/// rewritten, one tool removed, one added beside `listOrders`, one renamed (same method
/// and path), one edge removed, one relabelled and one added.
pub fn demo_rebuilt_value() -> serde_json::Value {
    use serde_json::json;
    let mut v = demo_value();
    let tools = v["tools"].as_object_mut().expect("tools");
    tools["getOrder"]["description"] = json!("Returns one order with its refund state");
    tools.shift_remove("getDailySalesStats");
    let mut added = tools["listOrders"].clone();
    added["name"] = json!("listOrdersV2");
    added["description"] = json!("Lists orders with refund filters");
    added["metadata"]["path"] = json!("/v2/orders");
    tools.insert("listOrdersV2".into(), added);
    let mut renamed = tools.shift_remove("cancelOrder").expect("cancelOrder");
    renamed["name"] = json!("cancelOrderById");
    tools.insert("cancelOrderById".into(), renamed);
    let graph = v["graph"].as_object_mut().expect("graph");
    for n in graph["nodes"].as_array_mut().expect("nodes") {
        match n["id"].as_str() {
            Some("cancelOrder") => n["id"] = json!("cancelOrderById"),
            Some("getDailySalesStats") => n["id"] = json!("listOrdersV2"),
            _ => {}
        }
    }
    let edges = graph["edges"].as_array_mut().expect("edges");
    for e in edges.iter_mut() {
        for end in ["source", "target"] {
            if e[end] == "cancelOrder" {
                e[end] = json!("cancelOrderById");
            }
        }
    }
    edges.retain(|e| e["source"] != "getDailySalesStats" && e["target"] != "getDailySalesStats");
    edges.remove(0);
    edges[1]["relation"] = json!("precedes");
    edges.push(
        json!({"source": "listOrdersV2", "target": "getOrder", "relation": "requires",
        "confidence": "INFERRED", "evidence": "rebuilt"}),
    );
    v
}

fn engine_of(v: &serde_json::Value) -> Engine {
    let text = serde_json::to_string_pretty(v).expect("json");
    Engine::new(
        crate::model::load::load_graph_bytes_quiet("g.json", text.into_bytes())
            .expect("graph")
            .0,
    )
}

/// The demo graph and its rebuild as engines, loaded once per process.
pub fn demo_pair() -> (Arc<Engine>, Arc<Engine>) {
    static P: OnceLock<(Arc<Engine>, Arc<Engine>)> = OnceLock::new();
    P.get_or_init(|| {
        (
            Arc::new(engine_of(&demo_value())),
            Arc::new(engine_of(&demo_rebuilt_value())),
        )
    })
    .clone()
}

/// Writes the demo graph and its rebuild as `old.json` and `new.json` in `dir`.
pub fn write_demo_pair(
    dir: &std::path::Path,
) -> std::io::Result<(std::path::PathBuf, std::path::PathBuf)> {
    std::fs::create_dir_all(dir)?;
    let (a, b) = (dir.join("old.json"), dir.join("new.json"));
    std::fs::write(&a, serde_json::to_string_pretty(&demo_value())?)?;
    std::fs::write(&b, serde_json::to_string_pretty(&demo_rebuilt_value())?)?;
    Ok((a, b))
}
