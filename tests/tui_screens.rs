//! State tests of the evidence panes (Explain, Trace, Counterfactual, the breadcrumbs)
//! and of the Evidence, Diff and Lab screens: keys in, state out.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use toolscope::engine::explain::Status;
use toolscope::tui::app::{AppEvent, Effect, FlashLevel, PaneId};
use toolscope::tui::caps::{Caps, ColorLevel};
use toolscope::tui::drill::Metric;
use toolscope::tui::event::Source;
use toolscope::tui::harness::{Harness, demo_suite, write_demo_evidence};
use toolscope::tui::records::{FileKind, detect};
use toolscope::tui::screens::{DiffFocus, EvFocus, EvTab, LabSort, Screen};
use toolscope::tui::views;

fn caps() -> Caps {
    Caps::fixed(ColorLevel::Ansi16, false)
}

fn demo() -> Harness {
    Harness::demo(caps())
}

fn goto_demo(h: &mut Harness, n: usize) {
    h.keys(&format!(":demo {n}"));
    h.key(KeyCode::Enter);
}

fn evidence_dir() -> PathBuf {
    static D: OnceLock<PathBuf> = OnceLock::new();
    D.get_or_init(|| {
        // rewritten on every run, under target/ (never in the system temp folder)
        let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screens-evidence");
        write_demo_evidence(&d).expect("demo evidence");
        d
    })
    .clone()
}

#[test]
fn explain_pane_shows_a_checked_tree_that_folds() {
    let mut h = demo();
    goto_demo(&mut h, 4); // approve refund
    h.keys("j"); // requestRefund, pulled in over an edge
    h.keys("6");
    assert_eq!(h.app.focus, PaneId::Explain);
    let out = h.app.explain.out.clone().expect("explained");
    assert_eq!(out.key.tool, "requestRefund");
    assert_eq!(out.key.metric, Metric::RetrievalScore);
    assert_eq!(out.status, Status::Resolved);
    assert!(out.failures.is_empty());
    assert!(out.max_residual <= 1e-9);
    let tree = out.tree.expect("tree");
    assert_eq!(tree.label, "retrieval.score");
    // Enter folds the root: one visible node; again unfolds
    let n = toolscope::tui::derive::visible(&h.app).len();
    assert!(n > 3);
    h.key(KeyCode::Enter);
    assert_eq!(toolscope::tui::derive::visible(&h.app).len(), 1);
    h.key(KeyCode::Char(' '));
    assert_eq!(toolscope::tui::derive::visible(&h.app).len(), n);
    // Right on an open node goes to its first child; Left goes back to the parent
    h.key(KeyCode::Right);
    assert_eq!(h.app.pane(PaneId::Explain).cursor, 1);
    h.key(KeyCode::Left);
    h.key(KeyCode::Left);
    assert_eq!(h.app.pane(PaneId::Explain).cursor, 0);
    // e unfolds everything
    h.keys("e");
    assert!(toolscope::tui::derive::visible(&h.app).len() > n);
    // the chip view has no items; v goes back
    h.keys("v");
    assert!(h.app.explain.chips);
    assert_eq!(
        toolscope::tui::derive::item_count(&h.app, PaneId::Explain),
        0
    );
    let s = h.screen(120, 40);
    assert!(s.contains("[depth decay (depth 1) 0.666667]"), "{s}");
    h.keys("v");
    assert!(!h.app.explain.chips);
}

#[test]
fn explain_metrics_switch_and_stay_resolved() {
    let mut h = demo();
    goto_demo(&mut h, 7); // get payment of an order, LLM target getPayment
    h.keys("6");
    let mut seen = Vec::new();
    for _ in 0..Metric::LIVE.len() {
        let out = h.app.explain.out.clone().expect("explained");
        assert_eq!(out.key.metric, h.app.explain.metric);
        if let Some(t) = &out.tree {
            assert_eq!(out.status, Status::Resolved, "{}", out.key.metric.id());
            assert!(
                t.label
                    .starts_with(out.key.metric.id().split('.').next().unwrap())
            );
        }
        seen.push(out.key.metric);
        h.keys("m");
    }
    assert_eq!(seen, Metric::LIVE.to_vec());
    // the LLM margin exists because the scene sets an LLM target
    h.keys(":metric llm_margin");
    h.key(KeyCode::Enter);
    let out = h.app.explain.out.clone().unwrap();
    assert_eq!(out.key.metric, Metric::SelectorLlmMargin);
    assert!(out.tree.is_some());
    let s = h.screen(120, 40);
    assert!(s.contains("RESOLVED"), "{s}");
    assert!(s.contains("selector.llm_margin"), "{s}");
    // an unknown metric says which exist
    h.keys(":metric bogus");
    h.key(KeyCode::Enter);
    assert!(
        h.app
            .flash
            .as_ref()
            .unwrap()
            .text
            .contains("selector.margin")
    );
}

#[test]
fn the_selector_pane_explains_the_candidate_under_its_cursor() {
    let mut h = demo();
    goto_demo(&mut h, 7);
    h.keys("3jj");
    let name = h.app.selection().unwrap().rows[2].name.clone();
    h.keys("e");
    assert_eq!(h.app.focus, PaneId::Explain);
    assert_eq!(h.app.selected_row().unwrap().name, name);
    let out = h.app.explain.out.clone().unwrap();
    assert_eq!(out.key.metric, Metric::SelectorScore);
    assert_eq!(out.key.tool, name);
    assert_eq!(out.status, Status::Resolved);
}

#[test]
fn evidence_jobs_go_to_the_worker_not_the_ui_thread() {
    let mut h = demo();
    let press = |h: &mut Harness, c: char| {
        h.app.on_event(AppEvent::Input(Event::Key(KeyEvent::new(
            KeyCode::Char(c),
            KeyModifiers::NONE,
        ))))
    };
    for (c, kind) in [('6', 0usize), ('7', 1), ('8', 2)] {
        let fx = press(&mut h, c);
        let jobs: Vec<usize> = fx
            .iter()
            .filter_map(|e| match e {
                Effect::Evidence(j) => Some(j.kind()),
                _ => None,
            })
            .collect();
        assert_eq!(jobs, vec![kind], "pane {c}");
        // asked once: the same key again sends nothing
        assert!(h.app.sync_drill().is_empty());
    }
    assert!(h.app.trace.out.is_none(), "nothing ran on the UI thread");
}

#[test]
fn trace_pane_filters_by_tool_and_stage() {
    let mut h = demo();
    goto_demo(&mut h, 4);
    h.keys("j7");
    assert_eq!(h.app.focus, PaneId::Trace);
    let total = h.app.trace.out.as_ref().unwrap().trace.events.len();
    let ev = toolscope::tui::derive::events(&h.app);
    assert!(!ev.is_empty() && ev.len() < total);
    assert!(ev.iter().all(|e| e.mentions("requestRefund")));
    assert!(ev.iter().any(|e| e.kind == "edge_scored"));
    h.keys("a");
    assert_eq!(toolscope::tui::derive::events(&h.app).len(), total);
    h.keys("f"); // first stage
    let stage = h.app.trace.stage.clone().expect("a stage");
    assert!(
        toolscope::tui::derive::events(&h.app)
            .iter()
            .all(|e| e.stage == stage)
    );
    h.keys(":stage expand");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.trace.stage.as_deref(), Some("expand"));
    h.keys(":stage all");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.trace.stage, None);
    // another row: the trace follows it (same recording)
    h.keys("a1j7");
    assert!(
        toolscope::tui::derive::events(&h.app)
            .iter()
            .all(|e| e.mentions("listRefunds"))
    );
}

#[test]
fn counterfactual_changes_one_knob() {
    let mut h = demo();
    goto_demo(&mut h, 4);
    h.keys("8");
    assert_eq!(h.app.focus, PaneId::Counterfactual);
    let cmp = h.app.cf.out.as_ref().unwrap().result.clone().unwrap();
    assert_eq!(cmp.contract.status, "resolved");
    assert_eq!(cmp.contract.changed.len(), 1);
    assert_eq!(cmp.contract.changed[0].0, "depth");
    assert_eq!(cmp.gained().len(), 1);
    assert_eq!(cmp.lost().len(), 1);
    // Left steps the value down: depth 0, no graph expansion
    h.key(KeyCode::Left);
    assert_eq!(h.app.cf.value, Some(serde_json::json!(0)));
    let cmp = h.app.cf.out.as_ref().unwrap().result.clone().unwrap();
    assert!(cmp.variant.rows.iter().all(|r| r.breakdown.graph == 0.0));
    assert!(cmp.jaccard < 1.0);
    // typed: top_k 3 loses seven tools
    h.keys(":cf top_k=3");
    h.key(KeyCode::Enter);
    let cmp = h.app.cf.out.as_ref().unwrap().result.clone().unwrap();
    assert_eq!(cmp.contract.changed[0].0, "top_k");
    assert_eq!(cmp.lost().len(), 7);
    let s = h.screen(120, 40);
    assert!(s.contains("RESOLVED"), "{s}");
    assert!(s.contains("gone") || s.contains("lost 7"), "{s}");
    // each lost tool is marked in letters in the base column (not by colour alone)
    let gone = s
        .lines()
        .filter(|l| {
            l.trim_start_matches('│')
                .split('│')
                .next()
                .is_some_and(|left| left.trim_end().ends_with("gone"))
        })
        .count();
    assert_eq!(gone, 7, "{s}");
    // the same value as the base: nothing differs, honestly unresolved
    h.keys(":cf top_k=10");
    h.key(KeyCode::Enter);
    let cmp = h.app.cf.out.as_ref().unwrap().result.clone().unwrap();
    assert_eq!(cmp.contract.status, "unresolved");
    // m cycles the knob; the LLM target changes the selector outcome
    h.keys(":knob llm_target");
    h.key(KeyCode::Enter);
    h.keys(":cf llm_target=rejectRefund");
    h.key(KeyCode::Enter);
    let cmp = h.app.cf.out.as_ref().unwrap().result.clone().unwrap();
    assert_eq!(cmp.contract.changed[0].0, "llm_target");
    assert_eq!(cmp.jaccard, 1.0);
    // not an authorised knob
    h.keys(":cf graph=other");
    h.key(KeyCode::Enter);
    let f = h.app.flash.clone().unwrap();
    assert_eq!(f.level, FlashLevel::Warn);
    assert!(f.text.contains("not an authorised knob"), "{}", f.text);
    // every knob steps without a panic and keeps one change
    for _ in 0..10 {
        h.keys("m");
        h.key(KeyCode::Right);
        h.key(KeyCode::Right);
        let out = h.app.cf.out.as_ref().unwrap();
        if let Ok(c) = &out.result {
            assert!(c.contract.changed.len() <= 1);
        }
    }
}

/// Audit of issue 17 (UX trial item 27): on MCP graphs `matched_terms` is often empty
/// while the summary matched; the matched column then shows the summary's terms in
/// parentheses (told apart from the plain ones), and an exact residual reads `0`.
#[test]
fn summary_matched_terms_fill_the_matched_column_marked() {
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ingest/tools.mcp.json");
    let source = Source::Spec(spec);
    let (engine, _) = toolscope::tui::event::load(&source, &mut |_| {}).expect("an MCP graph");
    let engine = std::sync::Arc::new(engine);
    let mut h = Harness::with(caps(), source.clone(), engine.clone(), Some("show notes"));
    for (w, ht) in [(80u16, 24u16), (120, 40)] {
        let s = h.screen(w, ht);
        let row = s
            .lines()
            .find(|l| l.contains("1 list_notes "))
            .unwrap_or_else(|| panic!("{s}"));
        assert!(row.contains(" (notes) "), "{w}x{ht}: {row}");
    }
    // plain matched terms win, unmarked: get_note matched "note" (its summary: note, read)
    let mut h = Harness::with(caps(), source, engine, Some("read a note"));
    let s = h.screen(120, 40);
    let row = s
        .lines()
        .find(|l| l.contains("1 get_note "))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(row.contains(" note ") && !row.contains('('), "{row}");
    // the Explain tree: an exact accounting shows residual 0, never 0.0e0
    let mut h = demo();
    goto_demo(&mut h, 4);
    h.keys("j6");
    let s = h.screen(120, 40);
    assert!(s.contains("(residual 0)"), "{s}");
    assert!(s.contains("max |residual| 0 <= 1e-9"), "{s}");
    assert!(!s.contains("0.0e0"), "{s}");
}

/// Audit of issue 17 (UX trial defect 22): at 80 columns the candidates table keeps a
/// compact matched-terms column; the chips give way (the score is their sum and "why"
/// says which one applies), and "why" keeps its source tool.
#[test]
fn matched_terms_stay_at_80_columns() {
    for c in [caps(), Caps::fixed(ColorLevel::Mono, false)] {
        let mut h = Harness::demo(c);
        goto_demo(&mut h, 4);
        let s = h.screen(80, 24);
        let head = s.lines().find(|l| l.contains("# tool")).unwrap_or("");
        assert!(head.contains("matched"), "{s}");
        assert!(!head.contains("grph"), "the chips give way: {head}");
        // a table row: its rank, then the name
        let row = |rank: usize, name: &str| {
            s.lines()
                .find(|l| l.contains(&format!("{rank} {name} ")))
                .unwrap_or_else(|| panic!("{name}: {s}"))
                .to_string()
        };
        assert!(row(1, "approveRefund").contains("approve,refund"), "{s}");
        assert!(row(3, "listRefunds").contains(" refund "), "{s}");
        assert!(row(2, "requestRefund").contains("← approveRefund"), "{s}");
    }
}

/// Audit of issue 17: the learning knob without learning suggestions is `unresolved` in
/// the pane as on the command line, with the same words.
#[test]
fn counterfactual_learning_knob_without_suggestions_is_unresolved() {
    let mut h = demo();
    goto_demo(&mut h, 4);
    h.keys("8:knob learning");
    h.key(KeyCode::Enter);
    let cmp = h.app.cf.out.as_ref().unwrap().result.clone().unwrap();
    assert_eq!(cmp.contract.changed[0].0, "learning");
    assert_eq!(cmp.contract.status, "unresolved");
    let s = h.screen(120, 40);
    assert!(s.contains("UNRESOLVED"), "{s}");
    assert!(
        s.contains("cannot change anything without learning suggestions"),
        "{s}"
    );
}

/// Audit of issue 17: the side-by-side marks (`*` selected, `L` LLM target, each in its
/// own cell as in the candidates table) sit between the rank and the name with a space,
/// never glued to the name (`2LgetPayment`).
#[test]
fn counterfactual_marks_are_separated_from_names() {
    let mut h = demo();
    goto_demo(&mut h, 7);
    h.keys("8:knob policy");
    h.key(KeyCode::Enter);
    for (w, ht) in [(80u16, 24u16), (120, 40)] {
        let s = h.screen(w, ht);
        let rows: Vec<&str> = s.lines().filter(|l| l.contains("getPayment ")).collect();
        assert!(
            rows.iter().any(|l| l.contains("2 L getPayment")),
            "{w}x{ht}: {s}"
        );
        assert!(
            s.lines().any(|l| l.contains("1*  getOrderPayment")),
            "{w}x{ht}: {s}"
        );
        for l in s.lines() {
            let b = l.as_bytes();
            let glued = b.windows(3).any(|x| {
                x[0].is_ascii_digit() && (x[1] == b'*' || x[1] == b'L') && x[2].is_ascii_lowercase()
            });
            assert!(!glued, "{w}x{ht}: mark glued to a name: {l}");
        }
    }
}

#[test]
fn breadcrumbs_follow_explain_trace_counterfactual_and_esc_goes_back() {
    let mut h = demo();
    goto_demo(&mut h, 4);
    h.keys("j6");
    assert_eq!(h.app.drill_path, vec![PaneId::Explain]);
    h.keys("]");
    assert_eq!(h.app.focus, PaneId::Trace);
    assert_eq!(h.app.drill_path, vec![PaneId::Explain, PaneId::Trace]);
    assert!(!h.app.trace.all, "the trace of the explained tool");
    h.keys("]");
    assert_eq!(h.app.focus, PaneId::Counterfactual);
    assert_eq!(h.app.drill_path.len(), 3);
    let s = h.screen(120, 40);
    assert!(
        s.contains("Explain requestRefund retrieval.score › Trace requestRefund › Counterfactual depth 2 → 1"),
        "{s}"
    );
    h.key(KeyCode::Esc);
    assert_eq!(h.app.focus, PaneId::Trace);
    h.keys("[");
    assert_eq!(h.app.focus, PaneId::Explain);
    assert_eq!(h.app.drill_path, vec![PaneId::Explain]);
    h.key(KeyCode::Esc);
    assert_eq!(h.app.focus, PaneId::Candidates);
    // a pane opened by number starts its own path
    h.keys("7");
    assert_eq!(h.app.drill_path, vec![PaneId::Trace]);
    h.key(KeyCode::Esc);
    assert_eq!(h.app.focus, PaneId::Candidates);
}

#[test]
fn evidence_screen_reads_trace_envelopes() {
    let traces = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/traces");
    let h = Harness::opened(caps(), Source::Evidence(traces.join("drifts.jsonl")));
    assert_eq!(h.app.screen, Screen::Evidence);
    let e = h.app.evidence.clone().unwrap();
    // 5 envelopes read; the unsupported schema and the torn last line are named
    assert_eq!(e.set.records.len(), 5, "{:?}", e.set.errors);
    assert_eq!(e.set.errors.len(), 2, "{:?}", e.set.errors);
    assert!(e.set.errors.iter().any(|m| m.contains("schema_version")));
    let r = e.current().unwrap();
    assert_eq!(r.kind, "trace envelope");
    assert_eq!(r.id, "drift-version-skew");
    assert_eq!(r.query.as_deref(), Some("cancel my order"));
    assert_eq!(r.rows.len(), 5);
    assert_eq!(r.rows[0].name, "cancelOrder");
    assert!(r.selected_target.is_some());
}

#[test]
fn evidence_screen_reads_a_response_without_a_graph() {
    let mut h = Harness::opened(caps(), Source::Evidence(evidence_dir().join("newer.json")));
    assert_eq!(h.app.screen, Screen::Evidence);
    assert!(h.app.engine.is_none());
    let e = h.app.evidence.clone().unwrap();
    assert!(e.set.errors.is_empty());
    let r = e.current().unwrap();
    assert_eq!(r.kind, "response");
    assert_eq!(r.rows.len(), 10);
    assert_eq!(r.selected_target.as_deref(), Some("getOrderPayment"));
    assert_eq!(r.llm_target.as_deref(), Some("getPayment"));
    // unknown keys kept: the record's and the rows'
    let keys: Vec<&str> = r.unknown.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["engine_rev"]);
    assert_eq!(r.unknown_count(), 3);
    let s = h.screen(120, 40);
    assert!(s.contains("3 unknown keys"), "{s}");
    assert!(s.contains("overrode LLM"), "{s}");
    // the same rows as Explore shows for the query
    let mut x = demo();
    goto_demo(&mut x, 7);
    let live = views::explore::table_rows(&x.app);
    let read = views::evidence::table_rows(&h.app, r);
    assert_eq!(live, read);
    // row detail with the unknown key, selector and record tabs
    h.keys("j2");
    let e = h.app.evidence.as_ref().unwrap();
    assert_eq!((e.focus, e.tab, e.row), (EvFocus::Pane, EvTab::Row, 1));
    h.render(120, 40);
    h.keys("G");
    let s = h.screen(120, 40);
    assert!(s.contains("?novel_signal 0.25"), "{s}");
    h.keys("3");
    let s = h.screen(120, 40);
    assert!(s.contains("llm_target_overridden"), "{s}");
    h.keys("4");
    h.render(120, 40);
    h.keys("G");
    let s = h.screen(120, 40);
    assert!(s.contains("? engine_rev"), "{s}");
    // o unfolds the record's JSON (pretty-printed once, sanitised)
    h.keys("o");
    let e = h.app.evidence.as_ref().unwrap();
    assert!(e.json_open);
    let (key, lines) = e.json.clone().expect("unfolded");
    assert_eq!(key, (0, None));
    assert!(
        lines
            .iter()
            .any(|l| l.contains("\"engine_rev\": \"v2-preview\""))
    );
    let s = h.screen(120, 40);
    assert!(s.contains("record JSON"), "{s}");
    assert!(s.contains("o folds"), "{s}");
    // y copies the row JSON; explore-only keys do nothing here
    h.keys("1y");
    assert_eq!(h.emitted.len(), 1);
    h.keys("/");
    assert!(!h.app.input_active);
    h.keys("q");
    assert!(h.app.quit);
}

#[test]
fn a_selector_block_alone_lists_its_candidates_in_retrieval_order() {
    let h = Harness::opened(
        caps(),
        Source::Evidence(evidence_dir().join("selector.json")),
    );
    let e = h.app.evidence.as_ref().unwrap();
    let r = e.current().unwrap();
    assert_eq!(r.kind, "selector block");
    assert_eq!(e.tab, EvTab::Selector);
    assert_eq!(r.rows.len(), 10);
    let ranks: Vec<usize> = r.rows.iter().map(|x| x.rank).collect();
    assert_eq!(ranks, (1..=10).collect::<Vec<_>>());
    assert_eq!(r.rows[0].name, "getOrderPayment");
    assert!(r.unknown.is_empty());
}

#[test]
fn evidence_stream_has_a_record_list() {
    let mut h = Harness::opened(
        caps(),
        Source::Evidence(evidence_dir().join("stream.jsonl")),
    );
    let e = h.app.evidence.as_ref().unwrap();
    assert_eq!(e.set.records.len(), 3);
    assert_eq!(e.focus, EvFocus::Records);
    assert_eq!(e.current().unwrap().kind, "batch line");
    h.keys("j");
    assert_eq!(h.app.evidence.as_ref().unwrap().record, 1);
    h.keys("]");
    assert_eq!(h.app.evidence.as_ref().unwrap().record, 2);
    h.keys("[");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.evidence.as_ref().unwrap().focus, EvFocus::Rows);
    h.key(KeyCode::Esc);
    assert_eq!(h.app.evidence.as_ref().unwrap().focus, EvFocus::Records);
    // a fixture folder reads as records too (the manifest aside)
    let h = Harness::opened(caps(), Source::Evidence(evidence_dir().join("good")));
    let e = h.app.evidence.as_ref().unwrap();
    assert_eq!(e.set.records.len(), 6);
    assert!(e.set.records.iter().all(|r| r.kind == "fixture"));
}

#[test]
fn bad_input_in_evidence_is_reported_and_the_rest_read() {
    let d = std::env::temp_dir().join(format!("toolscope-badev-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let good = std::fs::read_to_string(evidence_dir().join("stream.jsonl")).unwrap();
    let mixed = format!(
        "{}\nnot json\n{{\"hello\": 1}}\n",
        good.lines().next().unwrap()
    );
    std::fs::write(d.join("mixed.jsonl"), mixed).unwrap();
    let h = Harness::opened(caps(), Source::Evidence(d.join("mixed.jsonl")));
    let e = h.app.evidence.as_ref().unwrap();
    assert_eq!(e.set.records.len(), 1);
    assert_eq!(e.set.errors.len(), 2);
    let f = h.app.flash.as_ref().unwrap();
    assert_eq!(f.level, FlashLevel::Warn);
    assert!(f.text.contains("mixed.jsonl:2"), "{}", f.text);
    // nothing readable at all: an error, and the explorer ends with it
    std::fs::write(d.join("empty.json"), "{\"hello\": 1}").unwrap();
    let h = Harness::opened(caps(), Source::Evidence(d.join("empty.json")));
    let f = h.app.flash.as_ref().unwrap();
    assert_eq!(f.level, FlashLevel::Error);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn diff_screen_lists_cases_and_filters_changed_ones() {
    let d = evidence_dir();
    let mut h = Harness::opened(caps(), Source::Diff(d.join("bad"), d.join("good")));
    assert_eq!(h.app.screen, Screen::Diff);
    let v = h.app.diffv.as_ref().unwrap();
    assert!(v.errors.is_empty());
    assert_eq!(v.cases.len(), 6);
    assert!(v.cases.iter().all(|c| c.a.is_some() && c.b.is_some()));
    // the same file twice: nothing changed, the filter empties the list
    let mut same = Harness::opened(caps(), Source::Diff(d.join("good"), d.join("good")));
    let v = same.app.diffv.as_ref().unwrap();
    assert_eq!(v.changed(), 0);
    assert_eq!(v.a_label, "A good");
    same.keys("c");
    assert!(same.app.diffv.as_ref().unwrap().visible().is_empty());
    let s = same.screen(80, 24);
    assert!(s.contains("no changed case"), "{s}");
    // navigation
    h.keys("jj");
    assert_eq!(h.app.diffv.as_ref().unwrap().cursor, 2);
    h.key(KeyCode::Enter);
    assert_eq!(h.app.diffv.as_ref().unwrap().focus, DiffFocus::Detail);
    h.key(KeyCode::Esc);
    assert_eq!(h.app.diffv.as_ref().unwrap().focus, DiffFocus::Cases);
    h.key(KeyCode::Tab);
    assert_eq!(h.app.diffv.as_ref().unwrap().focus, DiffFocus::Detail);
    // batch output diffs by id too
    let h = Harness::opened(
        caps(),
        Source::Diff(d.join("stream.jsonl"), d.join("stream.jsonl")),
    );
    assert_eq!(h.app.diffv.as_ref().unwrap().cases.len(), 3);
}

#[test]
fn diff_names_cases_found_on_one_side_only() {
    let d = std::env::temp_dir().join(format!("toolscope-only-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let all = std::fs::read_to_string(evidence_dir().join("stream.jsonl")).unwrap();
    let two: String = all.lines().take(2).map(|l| format!("{l}\n")).collect();
    std::fs::write(d.join("two.jsonl"), two).unwrap();
    let mut h = Harness::opened(
        caps(),
        Source::Diff(evidence_dir().join("stream.jsonl"), d.join("two.jsonl")),
    );
    let v = h.app.diffv.as_ref().unwrap();
    assert_eq!(v.cases.len(), 3);
    let only: Vec<(&str, Option<char>)> = v
        .cases
        .iter()
        .map(|c| (c.diff.id.as_str(), c.diff.only_in))
        .collect();
    assert_eq!(only, [("c1", None), ("c2", None), ("c3", Some('A'))]);
    assert_eq!(v.changed(), 1);
    h.keys("G");
    let s = h.screen(120, 40);
    assert!(s.contains("only in A"), "{s}");
    // a case on one side only compares nothing: its row claims no "same" target and no
    // overlap scores (audit: `only in B … selected same`)
    let row = s.lines().find(|l| l.contains("only in A")).unwrap();
    assert!(!row.contains(" same ") && !row.contains("changed"), "{row}");
    assert!(!row.contains("0.0000"), "{row}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_trace_envelopes_unknown_keys_are_shown_like_a_responses() {
    // the audit's envx.jsonl: a reference envelope with a top-level x_custom and a span
    // field x_span_extra (and a decision's own key, shown on its row)
    let traces = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/traces");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(traces.join("demo-one.json")).unwrap())
            .unwrap();
    v["x_custom"] = serde_json::json!({"a": 1});
    v["spans"][0]["x_span_extra"] = "kept".into();
    v["spans"][0]["decisions"][0]["x_decision"] = 7.into();
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("envx");
    std::fs::create_dir_all(&d).unwrap();
    let f = d.join("envx.jsonl");
    std::fs::write(&f, format!("{}\n", serde_json::to_string(&v).unwrap())).unwrap();
    let mut h = Harness::opened(caps(), Source::Evidence(f));
    let e = h.app.evidence.clone().unwrap();
    let r = e.current().unwrap();
    assert_eq!(r.kind, "trace envelope");
    assert_eq!(r.unknown_count(), 3, "{:?}", r.unknown);
    h.keys("4");
    h.render(120, 40);
    h.keys("G");
    let s = h.screen(120, 40);
    assert!(s.contains("unknown keys (2)"), "{s}");
    assert!(s.contains("x_custom"), "{s}");
    assert!(s.contains("spans[0].x_span_extra"), "{s}");
    h.keys("1g2");
    assert_eq!(h.app.evidence.as_ref().unwrap().row, 0);
    h.render(120, 40);
    h.keys("G");
    let s = h.screen(120, 40);
    assert!(s.contains("? x_decision = 7"), "{s}");
}

#[test]
fn lab_screen_evaluates_sorts_and_opens_a_case_in_explore() {
    let mut h = Harness::lab(caps(), demo_suite(), "demo-suite.json");
    assert_eq!(h.app.screen, Screen::Lab);
    let l = h.app.lab.as_ref().unwrap();
    assert!(!l.running);
    assert_eq!(l.results.len(), 6);
    assert_eq!(l.done, 6);
    let s = l.summary.as_ref().unwrap();
    // the same numbers as lab::eval on the whole suite
    let (_, want) = toolscope::lab::eval::evaluate(
        &toolscope::tui::harness::demo_engine(),
        &demo_suite(),
        &Default::default(),
        &[],
        10,
    )
    .unwrap();
    assert_eq!((s.hit1, s.hit5, s.mrr), (want.hit1, want.hit5, want.mrr));
    assert_eq!(s.selector_accuracy, want.selector_accuracy);
    // worst first
    let first = l.current().unwrap().clone();
    assert!(first.rr < 1.0 || first.selector_correct < 1.0);
    h.keys("oo");
    assert_eq!(h.app.lab.as_ref().unwrap().sort, LabSort::Rank);
    h.keys(":sort id");
    h.key(KeyCode::Enter);
    let l = h.app.lab.as_ref().unwrap();
    assert_eq!(l.sort, LabSort::Id);
    h.keys("g");
    assert_eq!(h.app.lab.as_ref().unwrap().current().unwrap().id, "cancel");
    // Enter: the case in Explore with its query; Esc comes back
    h.key(KeyCode::Enter);
    assert_eq!(h.app.screen, Screen::Explore);
    assert_eq!(h.app.query.text, "cancel my order");
    assert_eq!(h.app.params.top_k, 10);
    assert_eq!(h.app.retrieval().unwrap().rows[0].name, "cancelOrder");
    let s = h.screen(120, 40);
    assert!(s.contains("lab › cancel"), "{s}");
    h.key(KeyCode::Esc);
    assert_eq!(h.app.screen, Screen::Lab);
    // :lab with a bad file says why and keeps the lab
    h.keys(":lab /nonexistent/suite.json");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.flash.as_ref().unwrap().level, FlashLevel::Error);
    assert_eq!(h.app.lab.as_ref().unwrap().results.len(), 6);
}

#[test]
fn lab_progress_arrives_in_parts_and_stale_runs_are_dropped() {
    let mut h = Harness::lab(caps(), demo_suite(), "demo-suite.json");
    let gen_before = h.app.lab_generation;
    // a newer evaluation replaces the old one: its messages are ignored
    let fx = h.app.start_lab(demo_suite(), "again");
    assert!(matches!(fx.as_slice(), [Effect::Lab(_)]));
    assert_eq!(h.app.lab_generation, gen_before + 1);
    h.event(AppEvent::Lab(toolscope::tui::screens::LabMsg::Progress {
        generation: gen_before,
        total: 6,
        results: Vec::new(),
        classes: Vec::new(),
    }));
    assert!(h.app.lab.as_ref().unwrap().running);
    let s = h.screen(80, 24);
    assert!(s.contains("evaluating 0/6"), "{s}");
}

#[test]
fn files_are_sent_to_their_screen_by_content() {
    let d = evidence_dir();
    assert_eq!(detect(&d.join("newer.json")), FileKind::Evidence);
    assert_eq!(detect(&d.join("stream.jsonl")), FileKind::Evidence);
    assert_eq!(detect(&d.join("good")), FileKind::Evidence);
    assert_eq!(detect(&d.join("good/refund.json")), FileKind::Evidence);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    assert_eq!(
        detect(&root.join("assets/demo/commerce-backoffice.collection.json.gz")),
        FileKind::Graph
    );
    assert_eq!(
        detect(&root.join("assets/demo/commerce-backoffice.openapi.yaml")),
        FileKind::Spec
    );
    assert_eq!(
        detect(&root.join("tests/golden/demo.jsonl.gz")),
        FileKind::Evidence
    );
    let s = d.join("suite.json");
    std::fs::write(&s, toolscope::tui::harness::DEMO_SUITE).unwrap();
    assert_eq!(detect(&s), FileKind::Suite);
}

#[test]
fn cli_refuses_what_it_cannot_open_before_taking_the_terminal() {
    use assert_cmd::Command;
    let d = evidence_dir();
    let s = d.join("suite-cli.json");
    std::fs::write(&s, toolscope::tui::harness::DEMO_SUITE).unwrap();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let spec = root.join("assets/demo/commerce-backoffice.openapi.yaml");
    // trial 2026-12-05 items 10 and 18: an empty folder is refused as `lab replay` refuses
    // it, and a bad file is named with its place, not hidden behind "needs a terminal"
    let empty = d.join("empty-folder");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::write(empty.join("notes.txt"), "no evidence here").unwrap();
    let garbage = d.join("garbage.bin");
    std::fs::write(&garbage, b"garbag\xff\xfe\x00\x01").unwrap();
    let p = |p: &PathBuf| p.to_str().unwrap().to_string();
    for (args, want) in [
        (
            vec![p(&empty)],
            format!("{}: no .json or .jsonl file in the folder", p(&empty)),
        ),
        (
            vec![p(&empty), p(&d.join("newer.json"))],
            format!("{}: no .json or .jsonl file in the folder", p(&empty)),
        ),
        (vec![p(&garbage)], format!("{}:1:7", p(&garbage))),
    ] {
        let out = Command::cargo_bin("toolscope")
            .unwrap()
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(&want), "{args:?}: {err}");
    }
    for (args, want) in [
        (vec![s.to_str().unwrap().to_string()], "--cases"),
        // a spec is built on load now: without a terminal the explorer says it needs one
        (vec![spec.to_str().unwrap().to_string()], "needs a terminal"),
        (vec!["a".into(), "b".into(), "c".into()], "unexpected value"),
        (vec!["/nonexistent.json".into()], "no such file"),
        (
            vec![
                d.join("newer.json").to_str().unwrap().to_string(),
                "--cases".into(),
                s.to_str().unwrap().to_string(),
            ],
            "--cases needs a graph",
        ),
        (
            vec![
                "diff".into(),
                "/nonexistent-a".into(),
                "/nonexistent-b".into(),
            ],
            "no such file",
        ),
    ] {
        let out = Command::cargo_bin("toolscope")
            .unwrap()
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

/// UX trial defect 3: at 80x24 the footer keeps `? help` and `q quit` in every pane, mode
/// and screen (`F1 help` and `Ctrl-C quit` while typing, where `?` and `q` are text). In
/// the help overlay, where help is already open, it keeps the way out (`Esc close`) and
/// `Ctrl-C quit`.
#[test]
fn help_and_quit_stay_on_the_footer_at_80x24() {
    fn footer(h: &mut Harness) -> String {
        let s = h.screen(80, 24);
        s.lines().last().unwrap_or("").to_string()
    }
    fn check(what: &str, f: &str) {
        let typing = f.contains("F1 help") && f.contains("Ctrl-C quit");
        let normal = f.contains("? help") && f.contains("q quit");
        assert!(typing || normal, "{what}: {f}");
    }
    fn check_typing(what: &str, f: &str) {
        assert!(
            f.contains("F1 help") && f.contains("Ctrl-C quit"),
            "{what}: {f}"
        );
        assert!(!f.contains("j/k"), "{what}: no j/k while typing: {f}");
    }
    let mut h = Harness::demo(caps());
    for pane in 1..=9 {
        h.keys(&pane.to_string());
        let f = footer(&mut h);
        check(&format!("pane {pane}"), &f);
        assert!(!f.contains("F1 help"), "pane {pane}: {f}");
    }
    // pane 9 with an expected tool set (its own hints)
    h.keys("1jw");
    assert_eq!(h.app.focus, PaneId::WhyNot);
    check("why-not with a triage", &footer(&mut h));
    // the Explain pane's chip view
    h.keys("6v");
    assert!(h.app.explain.chips);
    let f = footer(&mut h);
    check("explain chips", &f);
    assert!(f.contains("v tree"), "the chip view's own hint: {f}");
    h.keys("v");
    // typing: the query line, a find line in a pane, the palette
    h.keys("1/");
    check_typing("typing the query", &footer(&mut h));
    h.key(KeyCode::Esc);
    h.keys("2");
    h.press(KeyCode::Char('f'), KeyModifiers::CONTROL);
    check_typing("typing a find", &footer(&mut h));
    h.key(KeyCode::Esc);
    h.keys(":");
    check_typing("the palette", &footer(&mut h));
    h.keys("zzz");
    h.key(KeyCode::Enter);
    check_typing("the palette with an unknown command", &footer(&mut h));
    // F1 there opens help, as the footer says
    h.key(KeyCode::F(1));
    assert!(matches!(
        h.app.overlay,
        toolscope::tui::app::Overlay::Help(_)
    ));
    h.key(KeyCode::Esc);
    // the narration overlay: q closes it, so quitting is Ctrl-C there
    h.keys("i");
    assert!(matches!(h.app.overlay, toolscope::tui::app::Overlay::Note));
    let f = footer(&mut h);
    check_typing("the narration", &f);
    assert!(!f.contains("q quit"), "q closes the narration: {f}");
    h.key(KeyCode::Esc);
    // the help overlay: help is open; the footer keeps the way out and quitting
    h.keys("?");
    let f = footer(&mut h);
    assert!(
        f.contains("Esc close") && f.contains("Ctrl-C quit"),
        "help: {f}"
    );
    h.press(KeyCode::Char('f'), KeyModifiers::CONTROL);
    let f = footer(&mut h);
    assert!(
        f.contains("Esc close") && f.contains("Ctrl-C quit"),
        "help find: {f}"
    );
    h.key(KeyCode::Esc);
    h.key(KeyCode::Esc);
    assert!(matches!(h.app.overlay, toolscope::tui::app::Overlay::None));
    let d = evidence_dir();
    for source in [
        Source::Evidence(d.join("newer.json")),
        Source::Diff(d.join("bad"), d.join("good")),
    ] {
        let mut h = Harness::opened(caps(), source);
        let f = footer(&mut h);
        check(&format!("{:?}", h.app.screen), &f);
    }
    let mut h = Harness::lab(caps(), demo_suite(), "demo suite");
    let f = footer(&mut h);
    check("lab", &f);
    // the Follow screen, with and without a graph
    let log = evidence_dir().join("stream.jsonl");
    for graph in [true, false] {
        let mut h = Harness::follow(caps(), &log, graph);
        h.follow_step(1_000);
        assert_eq!(h.app.screen, Screen::Follow);
        check(&format!("follow (graph {graph})"), &footer(&mut h));
        // its text filter types
        h.keys("/");
        check_typing("follow's text filter", &footer(&mut h));
    }
}

/// Audit of issue 17 (UX trial defect 22): the Lab header has a compact form at 80
/// columns; the parameters the cases ran with (k, depth, policy) always show, the graph's
/// size and then the suite's name give way.
#[test]
fn lab_header_keeps_the_parameters_at_80_columns() {
    let header =
        |h: &mut Harness, w: u16, ht: u16| h.screen(w, ht).lines().next().unwrap_or("").to_string();
    let mut h = Harness::lab(caps(), demo_suite(), "demo-suite.json");
    let wide = header(&mut h, 120, 40);
    assert!(
        wide.contains(
            "demo-suite.json  6 cases  on demo (123 tools)  k=10 depth=2 policy strong_evidence"
        ),
        "{wide}"
    );
    // at 80 the tool count gives way first
    let narrow = header(&mut h, 80, 24);
    assert!(
        narrow.ends_with("demo-suite.json  6 cases  on demo  k=10 depth=2 policy strong_evidence"),
        "{narrow}"
    );
    // a longer name: the words "depth" and "policy" go, then the graph, then the name is cut
    let mut h = Harness::lab(caps(), demo_suite(), "ground_truth/demo-suite.json");
    let narrow = header(&mut h, 80, 24);
    assert!(
        narrow
            .ends_with("ground_truth/demo-suite.json  6 cases  on demo  k=10 d=2 strong_evidence"),
        "{narrow}"
    );
    let long = "peer-bench/ground_truth/a-very-long-regression-suite-name.json";
    let mut h = Harness::lab(caps(), demo_suite(), long);
    let narrow = header(&mut h, 80, 24);
    assert!(
        narrow.ends_with("6 cases  k=10 d=2 strong_evidence"),
        "{narrow}"
    );
    assert!(
        narrow.contains("peer-bench/ground"),
        "the name is cut, not dropped: {narrow}"
    );
}

/// UX trial defects 7 and 8: an unlabelled suite is not 80 failures, and expected tools
/// the graph lacks are named on the Lab screen as `lab eval` names them.
#[test]
fn lab_shows_unlabelled_cases_and_missing_expected_tools() {
    let mut suite = demo_suite();
    for c in &mut suite.cases {
        c.expected.clear();
    }
    let n = suite.cases.len();
    let mut h = Harness::lab(caps(), suite, "unlabelled");
    let s = h.screen(120, 40);
    assert!(
        s.contains(&format!(
            "unlabelled suite: {n} cases have no expected tool"
        )),
        "{s}"
    );
    assert!(
        !s.contains(" miss "),
        "no hit/miss for unlabelled cases: {s}"
    );
    assert!(!s.contains("hit@1"), "no metrics: {s}");
    let mut suite = demo_suite();
    suite.cases[0].expected = vec!["findPetsByStatus".into()];
    let first = suite.cases[0].id.clone();
    let mut h = Harness::lab(caps(), suite, "missing");
    let s = h.screen(80, 24);
    assert!(
        s.contains(&format!(
            "warning: 1 expected tool is not in the graph (first: {first}: findPetsB"
        )),
        "{s}"
    );
}

/// The text of row `y` of a buffer.
fn row_text(buf: &ratatui::buffer::Buffer, y: u16) -> String {
    (0..buf.area.width)
        .map(|x| buf[(x, y)].symbol().to_string())
        .collect()
}

/// UX re-trial N2: Enter on a Trace pane find keeps the view on the current match (an
/// event far below the cursor), highlighted, as n/N and typing put it there; moving the
/// cursor takes the view back to the cursor.
#[test]
fn trace_find_keeps_the_match_in_view_on_enter() {
    use ratatui::style::Modifier;
    let mut h = demo();
    goto_demo(&mut h, 4); // approve refund
    h.keys("7a");
    h.press(KeyCode::Char('f'), KeyModifiers::CONTROL);
    h.keys("getRefund -> approveRefund");
    let pat = "getRefund -> approveRefund";
    let on_screen = |buf: &ratatui::buffer::Buffer| -> Option<(String, bool)> {
        (0..buf.area.height).find_map(|y| {
            let t = row_text(buf, y);
            let x = t.find(&format!("expand    edge_skipped         {pat}"))?;
            let x = t[..x].chars().count() + "expand    edge_skipped         ".len();
            let hi = buf[(x as u16, y)].modifier.contains(Modifier::REVERSED);
            Some((t, hi))
        })
    };
    let typing = h.render(80, 24);
    let (row, hi) = on_screen(&typing).expect("the match is in view while typing");
    assert!(row.contains("  21 expand"), "{row}");
    assert!(hi, "the current match is highlighted while typing");
    let f = h.app.find.as_ref().unwrap();
    assert_eq!((f.current, f.matches), (0, 2));
    h.key(KeyCode::Enter);
    for _ in 0..2 {
        // kept, frame after frame
        let kept = h.render(80, 24);
        let (row, hi) = on_screen(&kept).expect("Enter keeps the match in view");
        assert!(row.contains("  21 expand"), "{row}");
        assert!(hi, "and highlighted");
    }
    let s = h.screen(80, 24);
    assert!(s.contains("find: getRefund -> approveRefund  1/2"), "{s}");
    assert!(
        !s.contains("   1 query     query_tokens"),
        "not back at event 1: {s}"
    );
    // moving the cursor brings the cursor back into view
    h.keys("j");
    let s = h.screen(80, 24);
    assert!(s.contains("   2 bm25      bm25_hits"), "{s}");
}

fn explain_shows(h: &Harness, label: &str) -> bool {
    toolscope::tui::derive::visible(&h.app)
        .iter()
        .any(|v| v.node.label == label)
}

/// UX re-trial N3: a find in the Explain tree searches folded nodes too, unfolding the
/// path to each match while typed; Enter keeps them unfolded, Esc while typing folds
/// them back.
#[test]
fn explain_find_unfolds_folded_matches() {
    let mut h = demo();
    h.keys("6");
    assert_eq!(h.app.focus, PaneId::Explain);
    let folded = toolscope::tui::derive::visible(&h.app).len();
    assert!(!explain_shows(&h, "idf"), "idf starts folded");
    let s = h.screen(80, 24);
    assert!(s.contains("(5 folded)"), "{s}");
    h.press(KeyCode::Char('f'), KeyModifiers::CONTROL);
    h.keys("idf");
    assert!(explain_shows(&h, "idf"), "typing unfolds the path");
    let s = h.screen(80, 24);
    let f = h.app.find.as_ref().unwrap();
    assert_eq!(f.matches, 5, "one idf per query term: {s}");
    assert!(s.contains("find: idf_  1/5"), "{s}");
    assert!(s.contains("idf = "), "the current match is in view: {s}");
    // Esc while typing: the find closes and the folds come back
    h.key(KeyCode::Esc);
    assert!(h.app.find.is_none());
    assert!(!explain_shows(&h, "idf"));
    assert_eq!(toolscope::tui::derive::visible(&h.app).len(), folded);
    // Enter keeps the pattern and the unfolded path, also after Esc closes the find
    h.press(KeyCode::Char('f'), KeyModifiers::CONTROL);
    h.keys("idf");
    h.key(KeyCode::Enter);
    let s = h.screen(80, 24);
    assert!(s.contains("find: idf  1/5"), "{s}");
    assert!(s.contains("idf = "), "{s}");
    h.keys("n");
    assert_eq!(h.app.find.as_ref().unwrap().current, 1);
    h.key(KeyCode::Esc);
    assert!(h.app.find.is_none());
    assert!(explain_shows(&h, "idf"), "kept unfolded");
    // what was unfolded for the find folds as any node does
    h.keys("e"); // every node unfolded
    h.keys("e"); // back to the default folds
    assert!(!explain_shows(&h, "idf"));
    // a pattern given whole (:find) unfolds as Enter keeps it
    h.keys(":find length norm");
    h.key(KeyCode::Enter);
    assert!(explain_shows(&h, "length norm"));
    let s = h.screen(80, 24);
    assert!(s.contains("find: length norm  1/5"), "{s}");
}
