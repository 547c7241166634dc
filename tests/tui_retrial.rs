//! The UX re-trial's open defects of issue 17, one test each (keys in, state and frames
//! out); each test's doc names the defect it proves fixed.

use ratatui::crossterm::event::KeyCode;
use toolscope::output::row::{RowView, Why};
use toolscope::tui::app::{AppEvent, FlashLevel, LoadProgress, Overlay, palette_items_for};
use toolscope::tui::caps::{Caps, ColorLevel};
use toolscope::tui::commands;
use toolscope::tui::harness::Harness;

fn caps() -> Caps {
    Caps::fixed(ColorLevel::Mono, false)
}

fn demo() -> Harness {
    Harness::demo(caps())
}

fn flash(h: &Harness) -> String {
    h.app
        .flash
        .as_ref()
        .map(|f| f.text.clone())
        .unwrap_or_default()
}

/// The text inside a box drawn over the screen: each line's part between its first and
/// last `│`, trimmed, joined with `sep`.
fn boxed(screen: &str, sep: &str) -> String {
    screen
        .lines()
        .filter_map(|l| {
            let a = l.find('│')?;
            let b = l.rfind('│')?;
            (b > a).then(|| l[a + '│'.len_utf8()..b].trim().to_string())
        })
        .collect::<Vec<_>>()
        .join(sep)
}

fn suite(text: &str) -> toolscope::lab::suite::Suite {
    toolscope::lab::suite::parse_suite("s.jsonl", "s", text).expect("suite")
}

/// N6: a message longer than the info line says where the rest is, and the message log
/// (a registry command, so help lists it) shows it in full, newest first.
#[test]
fn a_long_message_is_readable_in_the_message_log() {
    let mut h = demo();
    let long = "/no/such/folder/with/a/rather/long/name/that/goes/on/and/on/suite.jsonl";
    h.keys(&format!(":lab {long}"));
    h.key(KeyCode::Enter);
    let text = flash(&h);
    assert!(text.contains(long), "{text}");
    let screen = h.screen(80, 24);
    let info = screen.lines().nth(1).unwrap();
    assert!(info.trim_end().ends_with("I: all"), "{info}");
    // a newer message, then the log: both, newest first, the long one in full
    h.keys("+");
    let newer = flash(&h);
    h.keys("I");
    assert!(matches!(h.app.overlay, Overlay::Messages));
    let screen = h.screen(80, 24);
    assert!(boxed(&screen, "").contains(long), "{screen}");
    let at_new = screen.find(&newer).expect("the newer message");
    let at_old = screen.find("/no/such/folder").expect("the long message");
    assert!(at_new < at_old, "newest first:\n{screen}");
    h.key(KeyCode::Esc);
    assert!(matches!(h.app.overlay, Overlay::None));
    // the help lists it by key and name
    h.keys("?");
    h.keys("messages");
    let help = h.screen(120, 40);
    assert!(
        help.contains(":messages") && help.contains("  I "),
        "{help}"
    );
    // the log keeps the recent ones only
    for i in 0..(toolscope::tui::app::MESSAGE_LOG + 5) {
        h.app.set_flash(FlashLevel::Info, format!("m{i}"));
    }
    assert_eq!(h.app.messages.len(), toolscope::tui::app::MESSAGE_LOG);
}

/// N9/N10: at 80 and 120 columns every row pulled in over an edge shows its source tool
/// whole after the arrow (the relation and confidence are shortened or dropped first).
#[test]
fn why_keeps_the_source_tool_at_80_and_120_columns() {
    for (query, w, hh) in [
        ("delete expired coupons", 80u16, 24u16),
        ("get payment of an order", 80, 24),
        ("get payment of an order", 120, 40),
        ("approve refund", 120, 40),
    ] {
        let mut h = demo();
        h.keys("/");
        h.keys(query);
        h.key(KeyCode::Enter);
        let screen = h.screen(w, hh);
        let engine = h.app.engine.clone().unwrap();
        let rows = &h.app.retrieval().unwrap().rows;
        let mut checked = 0;
        for (i, v) in RowView::all(&engine, rows).enumerate() {
            let Why::Expanded { from, .. } = v.why() else {
                continue;
            };
            // the table row: its rank, then its name
            let row = format!("{:>3} {} ", i + 1, v.name);
            let Some(line) = screen.lines().find(|l| l.contains(&row)) else {
                continue;
            };
            assert!(
                line.contains(&format!("← {from}")),
                "{query} at {w}: {line}"
            );
            checked += 1;
        }
        assert!(checked > 0, "{query} at {w}: no expanded row on\n{screen}");
    }
}

/// N11: exact and prefix matches first, then the rest; the quit entry says what it does
/// and where its keys work.
#[test]
fn palette_lists_exact_and_prefix_matches_first() {
    let h = demo();
    let names = |text: &str| -> Vec<&'static str> {
        palette_items_for(&h.app, text)
            .into_iter()
            .map(|it| match it {
                toolscope::tui::app::PaletteItem::Command(id) => commands::get(id).name,
                _ => "",
            })
            .collect()
    };
    assert_eq!(&names("quit")[..2], ["quit", "quit!"]);
    let q = names("q");
    assert_eq!(&q[..3], ["query", "quit!", "quit"], "{q:?}");
    let clear = names("clear");
    let parts: Vec<_> = clear.iter().take_while(|n| n.ends_with("-clear")).collect();
    assert!(parts.len() >= 3, "{clear:?}");
    assert_eq!(parts.last().unwrap(), &&"history-clear", "exiting last");
    assert_eq!(names("depth")[0], "depth");
    // a value typed exactly comes first, then the values it begins
    let vals: Vec<String> = palette_items_for(&h.app, "llm getOrder")
        .into_iter()
        .map(|it| match it {
            toolscope::tui::app::PaletteItem::Value { value, .. } => value,
            _ => String::new(),
        })
        .collect();
    assert_eq!(vals[0], "getOrder");
    let prefixed = vals
        .iter()
        .take_while(|v| v.starts_with("getOrder"))
        .count();
    assert!(
        vals[prefixed..].iter().all(|v| !v.starts_with("getOrder")),
        "{vals:?}"
    );
    // the quit entry: what it does, its key, and Esc only where it quits
    let mut h = demo();
    h.keys(":quit");
    let screen = h.screen(120, 40);
    let row = screen
        .lines()
        .find(|l| l.contains("quit  ") && l.contains("Quit the explorer"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(row.contains("  q  Esc [while loading]"), "{row}");
}

/// N15: `? help` and `q quit` at every size the explorer draws, on every screen, with a
/// message shown too; the help overlay keeps each command's `:name` at 80 columns.
#[test]
fn help_and_quit_stay_on_the_footer_at_every_size() {
    let last = |s: &str| s.lines().last().unwrap_or("").to_string();
    for (w, hh) in [(40u16, 10u16), (40, 12), (60, 14), (80, 24), (120, 40)] {
        let mut h = demo();
        let f = last(&h.screen(w, hh));
        assert!(
            f.contains("? help") && f.contains("q quit"),
            "{w}x{hh}: {f}"
        );
        h.keys("+");
        assert!(h.app.flash.is_some());
        let s = h.screen(w, hh);
        assert!(last(&s).contains("q quit"), "{w}x{hh} with a message:\n{s}");
        assert!(
            s.contains("top_k"),
            "{w}x{hh}: the message is shown too:\n{s}"
        );
        let mut lab = Harness::lab(caps(), toolscope::tui::harness::demo_suite(), "demo");
        let f = last(&lab.screen(w, hh));
        assert!(
            f.contains("? help") && f.contains("q quit"),
            "lab {w}x{hh}: {f}"
        );
    }
    let mut h = demo();
    h.keys("?");
    let help = h.screen(80, 24);
    for name in [
        ":quit!", ":query", ":done", ":theme", ":help", ":palette", ":quit",
    ] {
        assert!(help.contains(name), "{name} missing at 80 columns:\n{help}");
    }
    // too small: the way out is still said
    let s = h.screen(39, 10);
    assert!(s.contains("Ctrl-C quits"), "{s}");
}

/// N16: when the selector keeps the LLM's choice, the Counterfactual lists mark that row
/// `*L`, as the candidates table does.
#[test]
fn counterfactual_marks_the_llm_target_on_the_selected_row() {
    let mut h = demo();
    h.keys(":demo 7");
    h.key(KeyCode::Enter);
    h.keys(":llm getOrderPayment");
    h.key(KeyCode::Enter);
    h.keys("8");
    let screen = h.screen(120, 40);
    let lists: Vec<&str> = screen
        .lines()
        .filter(|l| l.contains("getOrderPayment") && l.contains("1.0000"))
        .collect();
    assert!(
        lists.iter().any(|l| l.contains("1*L getOrderPayment")),
        "{screen}"
    );
    assert!(screen.contains("= LLM target"), "{screen}");
    // an overridden LLM target keeps its own `L` on its row
    h.keys(":llm getPayment");
    h.key(KeyCode::Enter);
    let screen = h.screen(120, 40);
    assert!(screen.contains("2 L getPayment"), "{screen}");
}

/// N17: the loading box wraps a long note and keeps the keys, at 80 and 120 columns.
#[test]
fn the_loading_box_shows_its_whole_text() {
    let detail = "large plain files are mapped and parsed in place (the screen stays \
                  responsive; q quits) and this note goes on past any box width";
    for (w, hh) in [(80u16, 24u16), (120, 40), (40, 10)] {
        let mut h = Harness::loading(caps());
        h.event(AppEvent::Progress(LoadProgress {
            phase: "opening".into(),
            fraction: 0.05,
            detail: detail.into(),
        }));
        let screen = h.screen(w, hh);
        assert!(screen.contains("q quits"), "{w}x{hh}:\n{screen}");
        if hh >= 24 {
            let words = boxed(&screen, " ");
            assert!(words.contains("past any box width"), "{w}x{hh}:\n{screen}");
            assert!(!screen.contains('…'), "nothing cut at {w}x{hh}:\n{screen}");
        }
    }
}

/// N18: a bad integer reads the same from a palette command and from a knob.
#[test]
fn a_bad_integer_is_worded_one_way() {
    let mut h = demo();
    h.keys(":depth x");
    h.key(KeyCode::Enter);
    let palette = flash(&h);
    h.keys(":cf depth=x");
    h.key(KeyCode::Enter);
    let knob = flash(&h);
    assert_eq!(palette, "depth: expected an integer from 0 to 8, got \"x\"");
    assert_eq!(
        knob,
        "knob depth: expected an integer from 0 to 100, got \"x\""
    );
    h.keys(":topk 999");
    h.key(KeyCode::Enter);
    assert_eq!(
        flash(&h),
        "top_k: expected an integer from 1 to 200, got 999"
    );
}

/// Trial defect 7: a case's own top_k is shown on the Lab screen and used when the case
/// opens in Explore (not replaced by the explorer's k=10).
#[test]
fn a_cases_own_top_k_is_shown_and_kept() {
    let s = suite(concat!(
        r#"{"id": "own", "query": "approve refund", "expected": ["approveRefund"], "params": {"top_k": 3}}"#,
        "\n",
        r#"{"id": "lab", "query": "list orders", "expected": ["listOrders"]}"#,
        "\n"
    ));
    let mut h = Harness::lab(caps(), s, "s.jsonl");
    let screen = h.screen(120, 40);
    let header = screen.lines().next().unwrap();
    assert!(header.contains("top_k per case 3, else 10"), "{header}");
    h.keys("o");
    while h.app.lab.as_ref().unwrap().sort.name() != "id" {
        h.keys("o");
    }
    let first = h.app.lab.as_ref().unwrap().current().unwrap().id.clone();
    assert_eq!(first, "lab");
    assert!(!h.screen(120, 40).contains("the case's own"));
    h.keys("j");
    let screen = h.screen(120, 40);
    assert!(
        screen.contains("top_k 3 (the case's own; the lab's is 10)"),
        "{screen}"
    );
    h.key(KeyCode::Enter);
    assert_eq!(h.app.params.top_k, 3);
    assert_eq!(h.app.rows_len(), 3);
    assert!(flash(&h).contains("its own top_k 3"), "{}", flash(&h));
    h.key(KeyCode::Esc);
    h.keys("k");
    h.key(KeyCode::Enter);
    assert_eq!(
        h.app.params.top_k, 10,
        "a case without its own: the lab's k"
    );
}

/// `run_lab` never hides an evaluation error as an empty result: the Lab screen and a
/// message say why the suite was not evaluated.
#[test]
fn a_suite_the_lab_cannot_evaluate_says_why() {
    let s = suite(concat!(
        r#"{"id": "a", "query": "approve refund", "expected": ["approveRefund"]}"#,
        "\n",
        r#"{"id": "b", "query": "delete coupons", "expected": ["deleteCoupon"], "params": {"depth": 1000}}"#,
        "\n"
    ));
    let mut h = Harness::lab(caps(), s, "bad.jsonl");
    let l = h.app.lab.as_ref().unwrap();
    assert!(!l.running);
    let e = l.error.clone().expect("the error is kept");
    assert!(e.contains("case b") && e.contains("depth"), "{e}");
    assert_eq!(h.app.flash.as_ref().unwrap().level, FlashLevel::Error);
    assert!(flash(&h).contains("not evaluated"), "{}", flash(&h));
    let screen = h.screen(100, 30);
    assert!(screen.contains("not evaluated: case b"), "{screen}");
    assert!(!screen.contains("unlabelled suite"), "{screen}");
}
