//! Explorer state tests: keys in, state out (no terminal; queries run inline).

use ratatui::crossterm::event::{
    Event, KeyCode, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use std::sync::Arc;
use toolscope::tui::app::{AppEvent, Effect, FlashLevel, Overlay, PaneId, run_job};
use toolscope::tui::caps::{Caps, ColorLevel};
use toolscope::tui::harness::{Harness, demo_engine};

fn demo() -> Harness {
    Harness::demo(Caps::fixed(ColorLevel::Ansi16, false))
}

fn top(h: &Harness) -> String {
    h.app.retrieval().unwrap().rows[0].name.clone()
}

fn row_names(h: &Harness) -> Vec<String> {
    h.app
        .retrieval()
        .unwrap()
        .rows
        .iter()
        .map(|r| r.name.clone())
        .collect()
}

fn goto_demo(h: &mut Harness, n: usize) {
    h.keys(":");
    h.keys(&format!("demo {n}"));
    h.key(KeyCode::Enter);
}

#[test]
fn starts_on_the_first_demo_step() {
    let h = demo();
    assert_eq!(h.app.query.text, "delete expired coupons");
    assert_eq!(h.app.demo.pos, Some(0));
    assert_eq!(top(&h), "deleteExpiredCoupons");
    let s = h.app.selection().unwrap();
    assert_eq!(s.selected_target, "deleteExpiredCoupons");
    assert!(!s.ambiguous);
    assert!(!h.app.running());
    assert_eq!(h.app.focus, PaneId::Candidates);
}

#[test]
fn typing_searches_as_you_type_and_esc_leaves_the_line() {
    let mut h = demo();
    h.keys("/");
    assert!(h.app.input_active);
    h.press(KeyCode::Char('u'), KeyModifiers::CONTROL); // clear the line
    assert_eq!(h.app.query.text, "");
    let before = h.app.generation;
    h.keys("approve refund");
    assert_eq!(h.app.query.text, "approve refund");
    // one job per keystroke
    assert_eq!(h.app.generation, before + "approve refund".len() as u64);
    assert_eq!(top(&h), "approveRefund");
    // the walkthrough step no longer matches the query
    assert_eq!(h.app.demo.pos, None);
    // q is text while typing
    h.keys("q");
    assert_eq!(h.app.query.text, "approve refundq");
    assert!(!h.app.quit);
    h.key(KeyCode::Backspace);
    h.key(KeyCode::Left);
    h.key(KeyCode::Left);
    h.keys("x");
    assert_eq!(h.app.query.text, "approve refuxnd");
    h.press(KeyCode::Char('w'), KeyModifiers::CONTROL);
    assert_eq!(h.app.query.text, "approve nd");
    h.key(KeyCode::Esc);
    assert!(!h.app.input_active);
    h.keys("q");
    assert!(h.app.quit);
}

#[test]
fn stale_results_are_dropped() {
    let mut h = demo();
    let engine = demo_engine();
    h.keys("/");
    h.press(KeyCode::Char('u'), KeyModifiers::CONTROL);
    // simulate the worker: two jobs issued, the older one answers last
    let fx1 = h.app.on_event(AppEvent::Input(Event::Key(
        ratatui::crossterm::event::KeyEvent::new(KeyCode::Char('a'), KeyModifiers::NONE),
    )));
    let fx2 = h.app.on_event(AppEvent::Input(Event::Key(
        ratatui::crossterm::event::KeyEvent::new(KeyCode::Char('b'), KeyModifiers::NONE),
    )));
    let job = |fx: Vec<Effect>| match fx.into_iter().next() {
        Some(Effect::Query(j)) => j,
        _ => panic!("expected a query job"),
    };
    let (j1, j2) = (job(fx1), job(fx2));
    assert!(j2.generation > j1.generation);
    let out2 = run_job(&engine, &j2);
    let out1 = run_job(&engine, &j1);
    h.event(AppEvent::Query(out2));
    assert!(!h.app.running());
    assert_eq!(h.app.retrieval().unwrap().query, "ab");
    h.event(AppEvent::Query(out1));
    assert_eq!(
        h.app.retrieval().unwrap().query,
        "ab",
        "stale result dropped"
    );
}

#[test]
fn ctrl_c_always_quits() {
    for setup in [
        vec![KeyCode::Char('/')],
        vec![KeyCode::Char('?')],
        vec![KeyCode::Char(':')],
        vec![],
    ] {
        let mut h = demo();
        for k in setup {
            h.key(k);
        }
        h.press(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert!(h.app.quit);
    }
    let mut h = Harness::loading(Caps::fixed(ColorLevel::Mono, false));
    h.press(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert!(h.app.quit);
}

#[test]
fn moving_is_clamped() {
    let mut h = demo();
    let n = h.app.rows_len();
    h.keys("k");
    assert_eq!(h.app.row, 0);
    h.keys("jj");
    assert_eq!(h.app.row, 2);
    h.key(KeyCode::Down);
    assert_eq!(h.app.row, 3);
    h.keys("G");
    assert_eq!(h.app.row, n - 1);
    h.keys("j");
    assert_eq!(h.app.row, n - 1);
    h.keys("g");
    assert_eq!(h.app.row, 0);
}

#[test]
fn tab_cycles_panes_and_numbers_jump() {
    let mut h = demo();
    let order: Vec<PaneId> = (0..10)
        .map(|_| {
            let p = h.app.focus;
            h.key(KeyCode::Tab);
            p
        })
        .collect();
    assert_eq!(
        order,
        vec![
            PaneId::Candidates,
            PaneId::Detail,
            PaneId::Selector,
            PaneId::Graph,
            PaneId::Subgraph,
            PaneId::Explain,
            PaneId::Trace,
            PaneId::Counterfactual,
            PaneId::WhyNot,
            PaneId::Candidates
        ]
    );
    assert_eq!(h.app.focus, PaneId::Detail);
    h.press(KeyCode::BackTab, KeyModifiers::SHIFT);
    h.press(KeyCode::BackTab, KeyModifiers::SHIFT);
    assert_eq!(h.app.focus, PaneId::WhyNot);
    h.keys("3");
    assert_eq!(h.app.focus, PaneId::Selector);
    assert_eq!(h.app.drill, PaneId::Selector);
    h.key(KeyCode::Esc);
    assert_eq!(h.app.focus, PaneId::Candidates);
    // the drill area keeps showing the last drill pane
    assert_eq!(h.app.drill, PaneId::Selector);
    h.key(KeyCode::Enter);
    assert_eq!(h.app.focus, PaneId::Detail);
}

#[test]
fn llm_target_override_and_policy() {
    let mut h = demo();
    goto_demo(&mut h, 7);
    assert_eq!(h.app.query.text, "get payment of an order");
    // the scene sets the model's pick
    let s = h.app.selection().unwrap();
    assert_eq!(s.llm_target.as_deref(), Some("getPayment"));
    assert!(s.overrode_llm);
    assert_eq!(s.selected_target, "getOrderPayment");
    assert!(s.reason_codes.contains(&"llm_target_overridden"));
    // manual_review never overrides
    h.keys("pp");
    assert_eq!(h.app.select.policy, "manual_review");
    let s = h.app.selection().unwrap();
    assert!(!s.overrode_llm);
    assert_eq!(s.selected_target, "getPayment");
    h.keys("p");
    assert_eq!(h.app.select.policy, "strong_evidence");
    // x clears, l sets from the row, l again unsets
    h.keys("x");
    assert_eq!(h.app.selection().unwrap().llm_target, None);
    h.keys("j");
    let second = row_names(&h)[1].clone();
    h.keys("l");
    assert_eq!(h.app.select.llm_target.as_deref(), Some(second.as_str()));
    assert_eq!(h.app.row, 1, "the selected row is kept across the re-run");
    h.keys("l");
    assert_eq!(h.app.select.llm_target, None);
}

#[test]
fn llm_target_from_the_selector_pane_and_by_name() {
    let mut h = demo();
    goto_demo(&mut h, 7);
    h.keys("3");
    h.keys("j");
    let name = h.app.selection().unwrap().rows[1].name.clone();
    h.key(KeyCode::Enter);
    assert_eq!(h.app.select.llm_target.as_deref(), Some(name.as_str()));
    // t opens the palette on `llm `; typing filters the tool names
    h.keys("t");
    assert!(matches!(&h.app.overlay, Overlay::Palette(p) if p.input.text == "llm "));
    h.keys("cancelPay");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.select.llm_target.as_deref(), Some("cancelPayment"));
    assert!(matches!(h.app.overlay, Overlay::None));
    // `:llm` alone unsets
    h.keys(":llm");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.select.llm_target, None);
}

#[test]
fn demo_scenes_show_what_the_walkthrough_says() {
    let mut h = demo();
    let steps = h.app.demo.steps.clone();
    let idx = |q: &str| steps.iter().position(|s| s.query == q).unwrap() + 1;
    goto_demo(&mut h, idx("member detail"));
    let s = h.app.selection().unwrap();
    assert_eq!(s.llm_target.as_deref(), Some("getMemberDetail"));
    assert!(!s.overrode_llm && s.selected_target == "getMemberDetail");
    goto_demo(&mut h, idx("exchange item for another size"));
    let s = h.app.selection().unwrap();
    assert!(s.overrode_llm && s.selected_target == "requestExchange");
    goto_demo(&mut h, idx("request return for an order"));
    assert_eq!(h.app.params.history, vec!["requestReturn".to_string()]);
    assert_eq!(top(&h), "requestExchange");
    // n and N step and wrap
    goto_demo(&mut h, 1);
    h.keys("N");
    assert_eq!(h.app.demo.pos, Some(steps.len() - 1));
    assert_eq!(h.app.query.text, "zzqx flurble");
    assert_eq!(h.app.rows_len(), 0);
    h.keys("n");
    assert_eq!(h.app.demo.pos, Some(0));
    h.keys("n");
    assert_eq!(h.app.query.text, steps[1].query);
    assert!(h.app.params.history.is_empty() && h.app.select.llm_target.is_none());
}

#[test]
fn parameters_rerun_live() {
    let mut h = demo();
    assert_eq!(h.app.rows_len(), 10);
    h.keys("---");
    assert_eq!(h.app.params.top_k, 7);
    assert_eq!(h.app.rows_len(), 7);
    h.keys("+");
    assert_eq!(h.app.rows_len(), 8);
    h.keys("<<");
    assert_eq!(h.app.params.depth, 0);
    assert!(
        h.app
            .retrieval()
            .unwrap()
            .rows
            .iter()
            .all(|r| !r.breakdown.graph_expansion),
        "depth 0: seeds only"
    );
    h.keys("<");
    assert_eq!(h.app.flash.as_ref().unwrap().level, FlashLevel::Warn);
    h.keys(">>");
    assert_eq!(h.app.params.depth, 2);
    h.keys("B");
    assert_eq!(h.app.params.token_budget, 1000);
    h.keys("bb");
    assert_eq!(h.app.params.token_budget, 4000);
    assert_eq!(h.app.retrieval().unwrap().params.token_budget, 4000);
    // history: h adds the selected tool, which is demoted
    let first = top(&h);
    let score = h.app.retrieval().unwrap().rows[0].score;
    h.keys("h");
    assert_eq!(h.app.params.history, vec![first.clone()]);
    let r = h.app.retrieval().unwrap().row(&first).unwrap();
    assert!(r.breakdown.history_demoted);
    assert!((r.score - score * 0.6).abs() < 1e-9);
    h.keys("H");
    assert!(h.app.params.history.is_empty());
    assert_eq!(top(&h), first);
    // learning: disabled without --learning, and the message says why
    h.keys("L");
    let f = h.app.flash.clone().unwrap();
    assert_eq!(f.level, FlashLevel::Warn);
    assert!(f.text.contains("--learning"), "{}", f.text);
    h.keys("r");
    assert_eq!(h.app.params.top_k, 10);
    assert_eq!(h.app.params.token_budget, 2000);
}

#[test]
fn learning_toggle_with_suggestions() {
    let mut h = demo();
    h.app.set_learning(vec![serde_json::json!({
        "suggestion_id": "s1", "suggestion_type": "target_preference", "status": "promoted",
        "query_family": "delete expired coupons", "target": "deleteCoupon", "observations": 9
    })]);
    h.keys("L");
    assert!(!h.app.params.learning_enabled);
    assert!(h.app.flash.as_ref().unwrap().text.contains("off"));
    h.keys("L");
    assert!(h.app.params.learning_enabled);
}

#[test]
fn graph_jumps_and_comes_back() {
    let mut h = demo();
    goto_demo(&mut h, 4); // approve refund
    h.keys("4");
    assert_eq!(h.app.focus, PaneId::Graph);
    let root = h.app.graph_focus().unwrap();
    h.keys("j");
    let target = toolscope::tui::derive::cursor_target(&h.app).unwrap();
    h.key(KeyCode::Enter);
    assert_eq!(h.app.graph_stack, vec![root, target]);
    assert_eq!(h.app.graph_focus(), Some(target));
    h.key(KeyCode::Enter);
    assert_eq!(h.app.graph_stack.len(), 3);
    h.key(KeyCode::Esc);
    assert_eq!(h.app.graph_stack.len(), 2);
    h.key(KeyCode::Esc);
    assert!(h.app.graph_stack.is_empty());
    assert_eq!(h.app.graph_focus(), Some(root));
    // the cursor is back on the neighbour we jumped to
    assert_eq!(toolscope::tui::derive::cursor_target(&h.app), Some(target));
    assert_eq!(h.app.focus, PaneId::Graph);
    h.key(KeyCode::Esc);
    assert_eq!(h.app.focus, PaneId::Candidates);
}

#[test]
fn copy_emits_osc52_with_the_rows_evidence_json() {
    use base64::Engine as _;
    let mut h = demo();
    h.keys("j");
    h.keys("y");
    let seq = h.emitted.last().expect("an OSC 52 sequence");
    let b64 = seq
        .strip_prefix("\u{1b}]52;c;")
        .and_then(|s| s.strip_suffix('\u{7}'))
        .unwrap();
    let json = String::from_utf8(
        base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap(),
    )
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["name"], "deleteCoupon");
    assert!(v["score_breakdown"].is_object() && v["edge_evidence"].is_array());
    // UX trial defect 6: OSC 52 is never reported as a success
    let f = h.app.flash.clone().unwrap();
    assert!(
        f.text.starts_with("evidence JSON of deleteCoupon (row 2)")
            && f.text.contains(&format!("({} bytes)", json.len()))
            && f.text.contains("unconfirmed"),
        "{}",
        f.text
    );
    assert_eq!(f.level, FlashLevel::Warn);
    // the fallback that always works: a file, never overwritten, named in the message
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("copies");
    let _ = std::fs::remove_dir_all(&dir);
    h.copy_dir = Some(dir.clone());
    h.keys("yy");
    let f = h.app.flash.clone().unwrap();
    assert_eq!(f.level, FlashLevel::Info);
    let second = dir.join("copy-002-deleteCoupon.json");
    assert!(f.text.contains(&second.display().to_string()), "{}", f.text);
    assert_eq!(std::fs::read_to_string(&second).unwrap(), json);
    assert!(dir.join("copy-001-deleteCoupon.json").exists());
    // inside tmux the sequence is wrapped for passthrough
    let mut caps = Caps::fixed(ColorLevel::Ansi16, false);
    caps.clipboard.tmux_passthrough = true;
    let mut h = Harness::demo(caps);
    h.keys("y");
    assert!(h.emitted[0].starts_with("\u{1b}]52;c;"));
    assert!(h.emitted[0].contains("\u{1b}Ptmux;\u{1b}\u{1b}]52;c;"));
}

#[test]
fn save_asks_the_runtime_and_writes_three_files() {
    let mut h = demo();
    h.keys("s");
    assert_eq!(h.saves, 1);
    let dir = std::env::temp_dir().join(format!("toolscope-save-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let paths = toolscope::tui::export::save(&h.app, 80, 24, &dir).unwrap();
    let names: Vec<String> = paths
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        ["screen-001.txt", "screen-001.svg", "screen-001.html"]
    );
    let txt = std::fs::read_to_string(&paths[0]).unwrap();
    assert!(txt.contains("deleteExpiredCoupons"));
    let again = toolscope::tui::export::save(&h.app, 80, 24, &dir).unwrap();
    assert!(again[0].ends_with("screen-002.txt"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn help_overlay_filters_as_you_type() {
    let mut h = demo();
    h.keys("?");
    assert!(matches!(h.app.overlay, Overlay::Help(_)));
    h.keys("polic");
    assert!(matches!(&h.app.overlay, Overlay::Help(s) if s.filter.text == "polic"));
    let screen = h.screen(120, 40);
    assert!(screen.contains("Next selector policy"), "{screen}");
    assert!(!screen.contains("Copy the selected row"), "{screen}");
    h.key(KeyCode::Esc); // clears the filter
    assert!(matches!(&h.app.overlay, Overlay::Help(s) if s.filter.is_empty()));
    h.key(KeyCode::Esc); // closes
    assert!(matches!(h.app.overlay, Overlay::None));
    h.key(KeyCode::F(1));
    assert!(matches!(h.app.overlay, Overlay::Help(_)));
    h.keys("?");
    assert!(matches!(h.app.overlay, Overlay::None));
}

#[test]
fn palette_runs_commands_with_arguments() {
    let mut h = demo();
    h.keys(":topk 5");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.params.top_k, 5);
    h.keys(":theme light");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.theme.kind.as_str(), "light");
    h.keys(":query list orders");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.query.text, "list orders");
    assert!(h.app.selection().unwrap().ambiguous);
    // fuzzy: "subg" runs the subgraph pane
    h.keys(":subg");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.focus, PaneId::Subgraph);
    // a disabled command says why
    h.keys(":history-clear");
    h.key(KeyCode::Enter);
    assert!(
        h.app
            .flash
            .as_ref()
            .unwrap()
            .text
            .contains("history is empty")
    );
    // bad argument
    h.keys(":depth 99");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.params.depth, 2);
    assert_eq!(h.app.flash.as_ref().unwrap().level, FlashLevel::Warn);
    // Esc closes without running
    h.keys(":quit");
    h.key(KeyCode::Esc);
    assert!(!h.app.quit);
    h.keys(":quit");
    h.key(KeyCode::Enter);
    assert!(h.app.quit);
}

#[test]
fn paste_goes_into_the_query_sanitised() {
    let mut h = demo();
    h.keys("/");
    h.press(KeyCode::Char('u'), KeyModifiers::CONTROL);
    h.event(AppEvent::Input(Event::Paste(
        "approve\u{1b}[31m refund\n".into(),
    )));
    assert_eq!(h.app.query.text, "approve refund ");
    assert_eq!(top(&h), "approveRefund");
}

#[test]
fn mouse_only_with_the_flag() {
    let click = |row: u16| {
        AppEvent::Input(Event::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: 10,
            row,
            modifiers: KeyModifiers::NONE,
        }))
    };
    let mut h = demo();
    h.render(120, 40);
    h.event(click(6));
    assert_eq!(h.app.row, 0, "mouse is off by default");
    let mut caps = Caps::fixed(ColorLevel::Ansi16, false);
    caps.mouse = true;
    let mut h = Harness::demo(caps);
    h.render(120, 40);
    let top = h.app.layout.table_rows.unwrap().y;
    h.event(click(top + 3));
    assert_eq!(h.app.row, 3);
    h.event(AppEvent::Input(Event::Mouse(MouseEvent {
        kind: MouseEventKind::ScrollDown,
        column: 10,
        row: top,
        modifiers: KeyModifiers::NONE,
    })));
    assert_eq!(h.app.row, 4);
}

#[test]
fn loading_keeps_help_and_quit() {
    let mut h = Harness::loading(Caps::fixed(ColorLevel::Ansi16, false));
    h.keys("j");
    assert!(h.app.flash.as_ref().unwrap().text.contains("loading"));
    h.keys("?");
    assert!(matches!(h.app.overlay, Overlay::Help(_)));
    h.key(KeyCode::Esc);
    h.event(AppEvent::Progress(toolscope::tui::app::LoadProgress {
        phase: "parsing JSON".into(),
        fraction: 0.5,
        detail: "4.5 MiB".into(),
    }));
    assert!(h.screen(80, 24).contains("parsing JSON"));
    h.keys("q");
    assert!(h.app.quit);
    // a failed load quits with the message kept for the runtime to print
    let mut h = Harness::loading(Caps::fixed(ColorLevel::Ansi16, false));
    h.event(AppEvent::Loaded(Err("x.json: no such file".into())));
    assert!(h.app.quit);
    assert_eq!(h.app.load_error.as_deref(), Some("x.json: no such file"));
    let _ = Arc::strong_count(&demo_engine());
}

fn learning_suggestion() -> serde_json::Value {
    serde_json::json!({
        "query_fingerprint": "f2430a572176f81f", "query_family": "approve refund",
        "collection_id": "demo", "status": "promoted", "observations": 2,
        "prior_failure_count": 0, "evidence_sources": ["run"],
        "id": "target_preference:8cee9fc7a14e8fc2", "type": "target_preference",
        "target": "cancelOrder",
        "evidence": {"selected_target": "cancelOrder", "llm_target": null, "target_selector": {}}
    })
}

#[test]
fn learning_suggestions_show_as_chip_evidence_and_toggle() {
    let mut h = demo();
    h.app.set_learning(vec![learning_suggestion()]);
    h.keys(":query approve refund");
    h.key(KeyCode::Enter);
    let r = h.app.retrieval().unwrap();
    assert!(r.stats.learning_applied);
    let row = r.row("cancelOrder").unwrap();
    assert!(row.breakdown.learning > 0.0 && row.learning.is_some());
    let idx = r.rows.iter().position(|x| x.name == "cancelOrder").unwrap();
    for _ in 0..idx {
        h.keys("j");
    }
    h.key(KeyCode::Enter);
    h.render(120, 40);
    h.keys("G");
    let screen = h.screen(120, 40);
    assert!(screen.contains("learning_evidence"), "{screen}");
    assert!(
        screen.contains("target_preference:8cee9fc7a14e8fc2"),
        "{screen}"
    );
    assert!(screen.contains("learn on"), "{screen}");
    h.keys("L");
    let r = h.app.retrieval().unwrap();
    assert!(!r.stats.learning_applied);
    assert!(r.rows.iter().all(|x| x.breakdown.learning == 0.0));
    assert!(h.screen(120, 40).contains("learn off"));
}

fn palette_error(h: &Harness) -> Option<String> {
    match &h.app.overlay {
        Overlay::Palette(p) => p.error.clone(),
        _ => None,
    }
}

fn flash(h: &Harness) -> String {
    h.app
        .flash
        .as_ref()
        .map(|f| f.text.clone())
        .unwrap_or_default()
}

/// UX trial defects 1 and 2: the palette never runs a guess.
#[test]
fn palette_runs_nothing_on_a_guess() {
    let mut h = demo();
    // `:` then Enter closes the palette; it does not quit
    h.keys(":");
    h.key(KeyCode::Enter);
    assert!(!h.app.quit);
    assert!(matches!(h.app.overlay, Overlay::None));
    // unknown text: answered in the palette, nothing changes
    let (focus, zoom, depth) = (h.app.focus, h.app.zoom, h.app.params.depth);
    for typed in ["zzz", "nonsense", "depht 0"] {
        h.keys(&format!(":{typed}"));
        h.key(KeyCode::Enter);
        let e = palette_error(&h).unwrap_or_else(|| panic!("{typed}: no answer"));
        assert!(e.starts_with("unknown command: "), "{typed}: {e}");
        assert_eq!(
            (h.app.focus, h.app.zoom, h.app.params.depth),
            (focus, zoom, depth)
        );
        h.key(KeyCode::Esc);
    }
    // the answer names a key that works in the palette (? would be typed there)
    h.keys(":zzz");
    h.key(KeyCode::Enter);
    let e = palette_error(&h).unwrap();
    assert!(e.contains("F1 lists keys") && !e.contains("? lists"), "{e}");
    h.key(KeyCode::F(1));
    assert!(
        matches!(h.app.overlay, Overlay::Help(_)),
        "F1 opens help from the palette"
    );
    h.key(KeyCode::Esc);
    h.keys(":depht");
    h.key(KeyCode::Enter);
    assert!(
        palette_error(&h).unwrap().contains(":depth"),
        "closest name offered"
    );
    // typing again clears the answer; the argument is kept and used
    h.press(KeyCode::Char('u'), KeyModifiers::CONTROL);
    assert_eq!(palette_error(&h), None);
    h.keys("depth 0");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.params.depth, 0);
    assert_eq!(flash(&h), "depth 2 → 0");
    // an ambiguous prefix and a stray argument run nothing
    h.keys(":dep");
    h.key(KeyCode::Enter);
    assert!(palette_error(&h).unwrap().starts_with("ambiguous"));
    h.key(KeyCode::Esc);
    h.keys(":zoom 3");
    h.key(KeyCode::Enter);
    assert!(palette_error(&h).unwrap().contains("takes no argument"));
    assert!(!h.app.zoom);
    h.key(KeyCode::Esc);
    // exiting and discarding commands need their whole name, even when highlighted
    h.keys(":qui");
    h.key(KeyCode::Enter);
    assert!(!h.app.quit);
    h.key(KeyCode::Esc);
    h.keys(":res");
    h.key(KeyCode::Enter);
    assert!(palette_error(&h).unwrap().contains("whole name"));
    h.key(KeyCode::Esc);
    h.keys(":");
    for _ in 0..200 {
        h.key(KeyCode::Down);
    }
    h.key(KeyCode::Enter);
    assert!(
        !h.app.quit,
        "the last entry is an exiting command: it needs its name"
    );
    h.key(KeyCode::Esc);
    // nothing is highlighted until an arrow moves; Up above the first clears it
    h.keys(":");
    assert!(matches!(&h.app.overlay, Overlay::Palette(p) if p.selected.is_none()));
    h.key(KeyCode::Down);
    assert!(matches!(&h.app.overlay, Overlay::Palette(p) if p.selected == Some(0)));
    h.key(KeyCode::Up);
    assert!(matches!(&h.app.overlay, Overlay::Palette(p) if p.selected.is_none()));
    h.key(KeyCode::Esc);
}

/// Defects 12, 19 and 20: `/` starts a fresh query, and every parameter key says what it did.
#[test]
fn fresh_query_and_honest_parameter_feedback() {
    let mut h = demo();
    h.keys("/");
    h.keys("abc");
    assert_eq!(
        h.app.query.text, "abc",
        "typing replaces the selected query"
    );
    h.key(KeyCode::Esc);
    h.keys("/");
    h.key(KeyCode::End);
    h.keys("d");
    assert_eq!(
        h.app.query.text, "abcd",
        "End keeps the text to go on editing"
    );
    h.key(KeyCode::Esc);
    h.keys("/");
    h.key(KeyCode::Backspace);
    assert_eq!(h.app.query.text, "", "deleting a selected query clears it");
    h.keys("list orders");
    h.key(KeyCode::Enter);
    h.keys("+");
    assert_eq!(flash(&h), "top_k 10 → 11");
    h.keys("-");
    assert_eq!(flash(&h), "top_k 11 → 10");
    h.keys(">");
    assert_eq!(flash(&h), "depth 2 → 3");
    h.keys("b");
    assert!(flash(&h).starts_with("token_budget "), "{}", flash(&h));
    h.keys("x");
    assert!(flash(&h).contains("no LLM target is set"), "{}", flash(&h));
    h.keys(":llm fooBar");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.flash.as_ref().unwrap().level, FlashLevel::Warn);
    assert!(
        flash(&h).contains("not a tool in this graph"),
        "{}",
        flash(&h)
    );
    h.keys("x");
    assert_eq!(flash(&h), "LLM target fooBar unset");
    h.keys(":topk 1");
    h.key(KeyCode::Enter);
    h.keys("-");
    assert!(flash(&h).contains("minimum (1)"), "{}", flash(&h));
}

/// Defect 16: the help filter matches word prefixes, Ctrl-U clears it, and the keys of
/// text inputs and overlays are listed.
#[test]
fn help_filter_is_word_prefixes_and_lists_every_key() {
    use toolscope::tui::views::help::filter_matches;
    assert!(filter_matches("vis", "the visited nodes"));
    assert!(
        !filter_matches("vis", "a status bar"),
        "no loose fuzzy match"
    );
    assert!(filter_matches("ctrl-u", "Ctrl-U Delete to the start"));
    assert!(filter_matches("del sta", "Ctrl-U Delete to the start"));
    let mut h = demo();
    h.keys("?");
    h.keys("vis");
    h.press(KeyCode::Char('u'), KeyModifiers::CONTROL);
    assert!(matches!(&h.app.overlay, Overlay::Help(s) if s.filter.text.is_empty()));
    let screen = h.screen(120, 40);
    assert!(!screen.contains("filter: u"), "Ctrl-U is not typed");
    h.keys("line editing");
    let screen = h.screen(120, 40);
    assert!(screen.contains("Line editing"), "{screen}");
    assert!(screen.contains("Ctrl-U"), "{screen}");
}

/// A new user's trial: the table's `ARMSC` header is found by the help filter, and a trace
/// command before any trace says how to get one (it is recorded when the Trace pane opens,
/// not "still being recorded").
#[test]
fn help_finds_the_badge_header_and_says_how_to_get_a_trace() {
    let s = help_filtered("armsc");
    assert!(s.contains("badge column"), "{s}");
    let s = help_filtered("trace stage");
    assert!(s.contains("no trace yet"), "{s}");
    assert!(!s.contains("still being recorded"), "{s}");
}

/// The demo's help overlay filtered by `filter`, at 120x40.
fn help_filtered(filter: &str) -> String {
    let mut h = demo();
    h.keys("?");
    h.keys(filter);
    h.screen(120, 40)
}

/// Audit of issue 17 (UX trial defect 16): the help says there are nine panes, and a
/// command whose keys work in different panes says where each one works (`l` picks the
/// LLM target in Candidates and Selector, Enter only in Selector: in Candidates Enter
/// opens the evidence).
#[test]
fn help_says_where_each_key_works() {
    let mut h = demo();
    h.keys("?");
    h.keys("llm target");
    let s = h.screen(120, 40);
    let pick: Vec<&str> = s
        .lines()
        .filter(|l| l.contains("Make the selected row the LLM target"))
        .collect();
    assert_eq!(pick.len(), 2, "one row per place: {s}");
    assert!(
        pick[0].contains("│  l   ") && pick[0].contains("[candidates, selector]"),
        "{s}"
    );
    assert!(
        pick[1].contains("│  Enter   ") && pick[1].contains("[selector]"),
        "{s}"
    );
    assert!(
        !s.contains("l Enter"),
        "no key list that reads as one place: {s}"
    );
    h.press(KeyCode::Char('u'), KeyModifiers::CONTROL);
    h.keys("next pane");
    let s = h.screen(120, 40);
    assert!(
        s.contains("all nine in turn, 1 Candidates to 9 Why-not"),
        "{s}"
    );
    assert!(!s.contains("eight"), "{s}");
    // the Lab's failed-case mark is in the legend, drawn as the Lab draws it
    h.press(KeyCode::Char('u'), KeyModifiers::CONTROL);
    h.keys("failed case");
    let s = h.screen(120, 40);
    assert!(s.contains("•                lab: a failed case"), "{s}");
}

/// Audit of issue 17 (issue item 6): find works in the help overlay as in the panes:
/// Ctrl-F opens the find line, typing finds (count shown, matches highlighted, the view
/// scrolls to the current one), Enter keeps it, n/N step and wrap, Esc closes the find
/// before it clears the filter or closes the overlay. Without a find, n is typed.
#[test]
fn find_in_the_help_overlay_steps_through_matches() {
    let mut h = demo();
    h.keys("?");
    h.keys("n");
    assert!(
        matches!(&h.app.overlay, Overlay::Help(s) if s.filter.text == "n"),
        "n filters"
    );
    h.press(KeyCode::Char('u'), KeyModifiers::CONTROL);
    h.press(KeyCode::Char('f'), KeyModifiers::CONTROL);
    h.keys("pane");
    let s = h.screen(80, 24);
    let top = s
        .lines()
        .find(|l| l.contains("find: pane_"))
        .unwrap_or_else(|| panic!("{s}"));
    let total: usize = top
        .split("1/")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count: {top}"));
    assert!(total > 3, "{top}");
    assert!(s.lines().last().unwrap().contains("Ctrl-C quit"), "{s}");
    h.key(KeyCode::Enter);
    let s = h.screen(80, 24);
    assert!(s.contains("find: pane "), "kept: {s}");
    assert!(s.lines().last().unwrap().contains("n/N next/prev"), "{s}");
    h.keys("n");
    assert!(h.screen(80, 24).contains(&format!("2/{total}")));
    h.keys("NN");
    let s = h.screen(80, 24);
    assert!(s.contains(&format!("{total}/{total}")), "wraps: {s}");
    // the view followed the current match: the last "pane" is far below the first page
    let scroll = match &h.app.overlay {
        Overlay::Help(st) => st.scroll,
        _ => panic!("help is open"),
    };
    assert!(scroll > 0, "scrolled to the match");
    assert!(matches!(&h.app.overlay, Overlay::Help(st) if st.filter.is_empty()));
    // Esc: the find first, then the overlay
    h.key(KeyCode::Esc);
    let s = h.screen(80, 24);
    assert!(!s.contains("find: pane"), "{s}");
    assert!(matches!(h.app.overlay, Overlay::Help(_)));
    h.keys("n");
    assert!(
        matches!(&h.app.overlay, Overlay::Help(s) if s.filter.text == "n"),
        "typed again"
    );
    h.key(KeyCode::Esc);
    h.key(KeyCode::Esc);
    assert!(matches!(h.app.overlay, Overlay::None));
    // a pattern that is not there says so, and n warns instead of stepping
    h.keys("?");
    h.press(KeyCode::Char('f'), KeyModifiers::CONTROL);
    h.keys("zzqx");
    let s = h.screen(80, 24);
    assert!(s.contains("find: zzqx_  no match"), "{s}");
    h.key(KeyCode::Enter);
    h.keys("n");
    let f = h.app.flash.clone().expect("a warning");
    assert!(
        f.text.contains("no match for \"zzqx\" in the help"),
        "{}",
        f.text
    );
}

/// UX trial defect 5: the narration opens in full with `i`, and says so once the
/// parameters no longer match the step it narrates.
#[test]
fn narration_opens_in_full_and_goes_stale_honestly() {
    let mut h = demo();
    let s = h.screen(80, 24);
    assert!(
        s.contains("i: full"),
        "a cut narration points to the rest: {s}"
    );
    h.keys("i");
    assert!(matches!(h.app.overlay, Overlay::Note));
    let s = h.screen(80, 24);
    assert!(s.contains("rank 1 is deleteExpiredCoupons"), "{s}");
    assert!(s.contains("deleteCoupon by a wide"), "the note wraps: {s}");
    h.key(KeyCode::Esc);
    assert!(matches!(h.app.overlay, Overlay::None));
    // walkthrough steps run at their own parameters
    h.keys("+");
    assert!(!h.app.demo_on_screen().unwrap().1);
    h.keys("j"); // the next key clears the "top_k 10 → 11" message
    let s = h.screen(120, 40);
    assert!(s.contains("parameters changed"), "{s}");
    goto_demo(&mut h, 7);
    assert_eq!(h.app.params.top_k, 10);
    assert_eq!(h.app.select.llm_target.as_deref(), Some("getPayment"));
    assert!(h.app.demo_on_screen().unwrap().1);
    h.keys("x");
    assert!(
        !h.app.demo_on_screen().unwrap().1,
        "unsetting the LLM target is a change"
    );
}

fn click_at(column: u16, row: u16) -> AppEvent {
    AppEvent::Input(Event::Mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column,
        row,
        modifiers: KeyModifiers::NONE,
    }))
}

/// The text of row `y`, columns `x0..x1`, of a buffer.
fn cells(buf: &ratatui::buffer::Buffer, y: u16, x0: u16, x1: u16) -> String {
    (x0..x1).map(|x| buf[(x, y)].symbol()).collect()
}

#[test]
fn a_click_on_a_pane_tab_label_switches_to_that_pane() {
    let mut caps = Caps::fixed(ColorLevel::Ansi16, false);
    caps.mouse = true;
    for (w, ht) in [(120u16, 40u16), (80, 24)] {
        let mut h = Harness::demo(caps.clone());
        for target in [
            PaneId::Trace,
            PaneId::Selector,
            PaneId::Counterfactual,
            PaneId::Graph,
            PaneId::Detail,
        ] {
            h.render(w, ht);
            let buf = h.render(w, ht);
            let tabs = h.app.layout.tabs.clone();
            assert_eq!(tabs.len(), PaneId::DRILL.len(), "{w}x{ht}: {tabs:?}");
            let t = *tabs.iter().find(|t| t.pane == target).unwrap();
            // the hit box is the label as drawn: it starts with the pane's number
            let num = PaneId::ALL.iter().position(|p| *p == target).unwrap() + 1;
            let drawn = cells(&buf, t.y, t.x0, t.x1);
            assert!(
                drawn.starts_with(&num.to_string()),
                "{w}x{ht} {target:?}: {drawn:?}"
            );
            // its last cell, so a box one cell too far left or right fails
            h.event(click_at(t.x1 - 1, t.y));
            assert_eq!(h.app.focus, target, "{w}x{ht}: clicked {drawn:?}");
            assert_eq!(h.app.drill, target, "{w}x{ht}");
        }
        // the separator between two labels and the cell after the last are not tabs
        h.render(w, ht);
        let buf = h.render(w, ht);
        let tabs = h.app.layout.tabs.clone();
        let sep = tabs[0].x1 + 1;
        assert_eq!(cells(&buf, tabs[0].y, sep, sep + 1), "│");
        h.event(click_at(sep, tabs[0].y));
        assert_eq!(h.app.focus, PaneId::Detail, "{w}x{ht}: separator");
        assert_eq!(h.app.drill, PaneId::Detail);
    }
    // without --mouse a click on a tab does nothing
    let mut h = demo();
    h.render(120, 40);
    let t = *h
        .app
        .layout
        .tabs
        .iter()
        .find(|t| t.pane == PaneId::Trace)
        .unwrap();
    h.event(click_at(t.x0, t.y));
    assert_eq!(h.app.drill, PaneId::Detail);
}

#[test]
fn scroll_markers_sit_in_the_frame_never_over_content() {
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    use toolscope::tui::views::{doc, drill_doc};
    let mut marked = 0;
    for (w, ht) in [(80u16, 24u16), (120, 40)] {
        for pane in PaneId::DRILL {
            let mut h = demo();
            goto_demo(&mut h, 4);
            h.app.focus_pane(pane);
            h.render(w, ht);
            let buf = h.render(w, ht);
            let l = h.app.layout.clone();
            let inner = l.drill_area.unwrap();
            // every row of the document, drawn on a buffer tall enough for all of them
            let d = drill_doc(&h.app, pane);
            let tall_area = Rect::new(0, 0, inner.width, l.drill_rows.max(1) as u16);
            let mut tall = Buffer::empty(tall_area);
            let st = *h.app.pane(pane);
            let focused = h.app.focus == pane && !h.app.input_active;
            doc::render(
                &d,
                tall_area,
                &mut tall,
                &st,
                focused,
                &h.app.theme,
                h.app.caps.glyphs(),
            );
            // each visible row is the document's row, cell for cell
            for i in 0..inner.height {
                let shown = cells(&buf, inner.y + i, inner.x, inner.x + inner.width);
                let want = l.drill_scroll + i as usize;
                let full = if want < l.drill_rows {
                    cells(&tall, want as u16, 0, inner.width)
                } else {
                    " ".repeat(inner.width as usize)
                };
                assert_eq!(shown, full, "{w}x{ht} {pane:?} row {i}");
            }
            let top = cells(&buf, inner.y - 1, 0, w);
            if l.drill_rows > inner.height as usize {
                let m = format!(
                    " {}/{} ",
                    (l.drill_scroll + inner.height as usize).min(l.drill_rows),
                    l.drill_rows
                );
                // at the right end of the frame's top line, one border cell before its end
                let tail: String = top.chars().rev().take(m.chars().count() + 1).collect();
                let tail: String = tail.chars().rev().collect();
                assert!(tail.starts_with(&m), "{w}x{ht} {pane:?}: {m:?} in {top:?}");
                // and clear of the tabs
                let last_tab = l.tabs.iter().map(|t| t.x1).max().unwrap();
                assert!(last_tab + (m.chars().count() as u16) < w, "{top:?}");
                marked += 1;
            }
        }
    }
    assert!(marked >= 4, "only {marked} panes scrolled");
}

/// Issue 17 item 6: find inside a pane, as state.
#[test]
fn find_in_a_pane_counts_steps_and_closes() {
    let mut h = demo();
    h.keys("2o");
    h.press(KeyCode::Char('f'), KeyModifiers::CONTROL);
    assert!(h.app.find.as_ref().is_some_and(|f| f.typing));
    h.keys("coupon");
    h.render(120, 40);
    let n = h.app.find.as_ref().unwrap().matches;
    assert!(n > 2, "{n} matches");
    // while typing, n is text; after Enter it steps
    h.key(KeyCode::Enter);
    h.keys("n");
    assert_eq!(h.app.find.as_ref().unwrap().current, 1);
    assert_eq!(h.app.demo.pos, Some(0), "n stepped the find, not the demo");
    h.render(120, 40);
    h.keys("NN");
    assert_eq!(h.app.find.as_ref().unwrap().current, n - 1, "wraps");
    let s = h.screen(120, 40);
    assert!(s.contains(&format!("find: coupon  {n}/{n}")), "{s}");
    // Esc clears the find first, then goes back as before
    h.key(KeyCode::Esc);
    assert!(h.app.find.is_none());
    assert_eq!(h.app.focus, PaneId::Detail);
    h.keys("n");
    assert_eq!(
        h.app.demo.pos,
        Some(1),
        "without a find, n is the next demo step"
    );
    // no match says so
    h.keys("3");
    h.press(KeyCode::Char('f'), KeyModifiers::CONTROL);
    h.keys("zzqx");
    h.render(120, 40);
    h.key(KeyCode::Enter);
    h.keys("n");
    assert!(flash(&h).contains("no match"), "{}", flash(&h));
}

/// A newcomer trial's finding: long palette input scrolls so its end (the cursor) stays in
/// view, as the query line does.
#[test]
fn long_palette_input_keeps_the_cursor_in_view() {
    let mut h = demo();
    h.keys(":");
    h.keys(&format!("whynot {}ZZZEND", "a".repeat(120)));
    let s = h.screen(80, 24);
    assert!(s.contains("ZZZEND"), "{s}");
    // and the query line still does
    h.key(KeyCode::Esc);
    h.keys("/");
    h.keys(&format!("{}QEND", "b".repeat(150)));
    assert!(h.screen(80, 24).contains("QEND"));
}

fn palette_text(h: &Harness) -> String {
    match &h.app.overlay {
        Overlay::Palette(p) => p.input.text.clone(),
        _ => String::new(),
    }
}

/// Re-trial N1: Tab completes what was typed by name and keeps its argument; it never
/// swaps in a loosely matching command.
#[test]
fn palette_tab_completes_by_name_and_keeps_the_argument() {
    let mut h = demo();
    let depth = h.app.params.depth;
    // a misspelt word: its one closest name, the argument kept
    h.keys(":depht 0");
    h.key(KeyCode::Tab);
    assert_eq!(palette_text(&h), "depth 0");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.params.depth, 0);
    assert_eq!(flash(&h), format!("depth {depth} → 0"));
    // a unique prefix completes the whole name
    h.keys(":zoo");
    h.key(KeyCode::Tab);
    assert_eq!(palette_text(&h), "zoom");
    h.key(KeyCode::Esc);
    // a shared prefix completes to what the names share, nothing is run
    h.keys(":dep");
    h.key(KeyCode::Tab);
    assert_eq!(palette_text(&h), "depth");
    assert!(matches!(h.app.overlay, Overlay::Palette(_)));
    h.key(KeyCode::Esc);
    // nothing close: the palette says so and the text stays
    h.keys(":qqqqqqq 3");
    h.key(KeyCode::Tab);
    assert_eq!(palette_text(&h), "qqqqqqq 3");
    assert!(palette_error(&h).unwrap().starts_with("unknown command"));
    h.key(KeyCode::Esc);
    assert_eq!(h.app.params.depth, 0);
}

/// UX re-trial N5: while a pane's find line is typed, the footer shows the find's keys
/// (from the find key table), not the query line's (`Tab panes` would be typed away);
/// once kept, the pane's own footer is back.
#[test]
fn find_line_footer_shows_the_find_keys() {
    let mut h = demo();
    h.keys("2");
    let pane_footer = h.screen(80, 24).lines().last().unwrap().to_string();
    h.press(KeyCode::Char('f'), KeyModifiers::CONTROL);
    let s = h.screen(80, 24);
    let footer = s.lines().last().unwrap();
    for want in [
        "Enter keep",
        "next/prev",
        "Esc close",
        "F1 help",
        "Ctrl-C quit",
    ] {
        assert!(footer.contains(want), "{want:?} in {footer:?}");
    }
    for not in ["done", "Tab", "move"] {
        assert!(!footer.contains(not), "{not:?} in {footer:?}");
    }
    // the keys it names do what it says
    h.keys("coupon");
    h.render(80, 24);
    let n = h.app.find.as_ref().unwrap().matches;
    assert!(n > 2);
    h.key(KeyCode::Down);
    assert_eq!(h.app.find.as_ref().unwrap().current, 1, "next");
    h.key(KeyCode::Up);
    assert_eq!(h.app.find.as_ref().unwrap().current, 0, "prev");
    h.key(KeyCode::Enter);
    assert!(h.app.find.as_ref().is_some_and(|f| !f.typing), "kept");
    let s = h.screen(80, 24);
    assert_eq!(
        s.lines().last().unwrap(),
        pane_footer,
        "the pane's footer again"
    );
    h.press(KeyCode::Char('f'), KeyModifiers::CONTROL);
    h.key(KeyCode::Esc);
    assert!(h.app.find.is_none(), "Esc closes");
}

/// UX re-trial N4: a fresh `/` selects the whole query, and that shows: the query in
/// reverse video (in the no-colour and ASCII modes too) with what typing will do; End
/// keeps the text to edit it, and the selection (and the hint) go.
#[test]
fn a_selected_query_shows_as_selected() {
    use ratatui::style::Modifier;
    for (color, ascii) in [
        (ColorLevel::Ansi16, false),
        (ColorLevel::Mono, false),
        (ColorLevel::Mono, true),
    ] {
        let mut h = Harness::demo(Caps::fixed(color, ascii));
        let q = "delete expired coupons";
        let reversed = |buf: &ratatui::buffer::Buffer| {
            (2..2 + q.len() as u16).all(|x| buf[(x, 0)].modifier.contains(Modifier::REVERSED))
        };
        let top = |buf: &ratatui::buffer::Buffer| -> String {
            (0..buf.area.width).map(|x| buf[(x, 0)].symbol()).collect()
        };
        let buf = h.render(80, 24);
        assert!(!reversed(&buf), "not selected before /");
        h.keys("/");
        assert!(h.app.input_active && h.app.query.selected);
        let buf = h.render(80, 24);
        assert!(
            top(&buf).starts_with(&format!("/ {q}  typing replaces; End/Ctrl-E edits")),
            "{}",
            top(&buf)
        );
        assert!(
            reversed(&buf),
            "{color:?} ascii {ascii}: the query is reverse video"
        );
        assert!(
            !buf[(1, 0)].modifier.contains(Modifier::REVERSED),
            "only the text"
        );
        h.key(KeyCode::End);
        let buf = h.render(80, 24);
        assert!(!reversed(&buf));
        assert!(!top(&buf).contains("typing replaces"), "{}", top(&buf));
        assert_eq!(h.app.query.text, q);
        // typing after / replaces it (and the selection is gone)
        h.key(KeyCode::Esc);
        h.keys("/x");
        assert_eq!(h.app.query.text, "x");
        let buf = h.render(80, 24);
        assert!(!buf[(2, 0)].modifier.contains(Modifier::REVERSED));
    }
}
