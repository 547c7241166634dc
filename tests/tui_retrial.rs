//! The UX re-trial's open defects of issue 17 and the gaps its acceptance check found,
//! one test each (keys in, state and frames out); each test's doc names the defect it
//! proves fixed.

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

/// The Candidates box's rows at `w`x`h`: the title's count and the ranks drawn under it.
fn candidates(h: &mut Harness, w: u16, ht: u16) -> (String, Vec<usize>) {
    let screen = h.screen(w, ht);
    let lines: Vec<&str> = screen.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains(" 1 Candidates ("))
        .unwrap_or_else(|| panic!("{w}x{ht}: no Candidates title\n{screen}"));
    let title = lines[at];
    let count = title[title.find(" 1 Candidates (").unwrap() + 14..]
        .split(')')
        .next()
        .unwrap()
        .trim_start_matches('(')
        // the tight form of a narrow title (`1-5/12`) says the same as `1-5 of 12`
        .replace('/', " of ");
    let ranks = lines[at + 2..]
        .iter()
        .map(|l| l.trim_start_matches('│'))
        .map_while(|l| {
            let head: String = l.chars().skip(3).take(4).collect();
            head.trim().parse::<usize>().ok()
        })
        .collect();
    (count, ranks)
}

/// Issue 17 acceptance, section (a): rows the Candidates box cannot show are no secret.
/// The title counts the rows shown of all (`(1-10 of 12)` at 80x24 with top_k 12, `(3-12
/// of 12)` at the bottom), at every size, and says `(12)` only when all twelve show; a
/// title that would cut the selection after it uses the tight form (`(1-4/12)`).
#[test]
fn hidden_candidate_rows_are_counted_in_the_title_at_every_size() {
    let mut h = demo();
    h.keys("++");
    assert_eq!(h.app.rows_len(), 12);
    let (count, ranks) = candidates(&mut h, 80, 24);
    assert_eq!(count, "1-10 of 12");
    assert_eq!(ranks, (1..=10).collect::<Vec<_>>());
    h.keys("G");
    let (count, ranks) = candidates(&mut h, 80, 24);
    assert_eq!(count, "3-12 of 12");
    assert_eq!(ranks, (3..=12).collect::<Vec<_>>());
    h.keys("g");
    for (w, ht) in [
        (40, 10),
        (60, 14),
        (60, 20),
        (80, 24),
        (100, 30),
        (120, 40),
        (200, 60),
    ] {
        let (count, ranks) = candidates(&mut h, w, ht);
        assert!(!ranks.is_empty(), "{w}x{ht}");
        if ranks.len() == 12 {
            assert_eq!(count, "12", "{w}x{ht}");
        } else {
            let (a, b) = (ranks[0], ranks[ranks.len() - 1]);
            assert_eq!(count, format!("{a}-{b} of 12"), "{w}x{ht}");
        }
    }
    let narrow = h.screen(40, 10);
    assert!(narrow.contains(" 1 Candidates (1-"), "{narrow}");
    assert!(narrow.contains("/12)"), "{narrow}");
    // all ten shown: the plain count
    h.keys("--");
    let (count, ranks) = candidates(&mut h, 120, 40);
    assert_eq!((count.as_str(), ranks.len()), ("10", 10));
}

/// Issue 17 acceptance, defect 21 at 60 columns: the pane names (short forms) win over
/// the selected tool's name in the tab line (it read `2 Detail │ 3 │ 4 │ … │ 9 │
/// deleteExpir…`); 80 columns keep their spaced form and the scroll marker.
#[test]
fn pane_names_win_over_the_tool_name_at_60_columns() {
    let mut h = demo();
    let tabs = |s: &str| {
        s.lines()
            .find(|l| l.contains("2 Detail"))
            .unwrap_or_else(|| panic!("{s}"))
            .to_string()
    };
    let narrow = tabs(&h.screen(60, 20));
    for name in [
        "3 Sel", "4 Graph", "5 Sub", "6 Expl", "7 Trace", "8 CF", "9 Why",
    ] {
        assert!(narrow.contains(name), "{name}: {narrow}");
    }
    assert!(!narrow.contains("deleteExp"), "{narrow}");
    let wide = tabs(&h.screen(80, 24));
    assert!(
        wide.contains("2 Detail │ 3 Sel │ 4 Graph │ 5 Sub │ 6 Expl │ 7 Trace │ 8 CF │ 9 Why"),
        "{wide}"
    );
    assert!(
        wide.trim_end().ends_with("/29 ─"),
        "the scroll marker stays: {wide}"
    );
    // whichever pane is shown, even Counterfactual (whose full name does not fit), every
    // pane keeps a readable name at 60 columns
    for key in ["2", "3", "4", "5", "6", "7", "8", "9"] {
        h.keys(key);
        let s = h.screen(60, 20);
        let line = s
            .lines()
            .find(|l| l.contains("2 Det"))
            .unwrap_or_else(|| panic!("{key}: {s}"));
        for name in [
            "3 Sel", "4 Graph", "5 Sub", "6 Expl", "7 Trace", "8 C", "9 Why",
        ] {
            assert!(line.contains(name), "{key}: {name}: {line}");
        }
    }
}

/// Issue 17 acceptance, defect 22: a Lab row whose selected and expected tools share a
/// start is cut so that the two still differ (a miss read `findPetsBy… findPetsBy…`).
#[test]
fn a_lab_miss_never_looks_like_a_hit_at_80_columns() {
    let s = suite(concat!(
        r#"{"id": "c", "query": "delete expired coupons", "expected_target": "deleteExpiredCouponsNightly"}"#,
        "\n",
    ));
    let mut h = Harness::lab(caps(), s, "s.jsonl");
    let selected = h.app.lab.as_ref().unwrap().results[0].selected.clone();
    assert_eq!(selected, "deleteExpiredCoupons");
    for w in [60, 80, 100] {
        let screen = h.screen(w, 24);
        let row = screen
            .lines()
            .find(|l| l.contains("c ") && l.contains("miss"))
            .unwrap_or_else(|| panic!("{screen}"));
        let names: Vec<&str> = row
            .split_whitespace()
            .filter(|t| t.starts_with("del") || t.starts_with("…"))
            .take(2)
            .collect();
        assert_eq!(names.len(), 2, "{w}: {row}");
        assert_ne!(names[0], names[1], "{w}: {row}");
    }
}

/// Issue 17 acceptance, W5: the Diff screen's top-1 column takes what its names need
/// (at most about half of what is left), so the query keeps a fair share at 80 columns
/// (it had 7 cells beside 26 of mostly blank top-1); changed top-1 names stay apart.
#[test]
fn diff_at_80_columns_gives_the_query_a_fair_share() {
    let engine = toolscope::tui::harness::demo_engine();
    let d = std::env::temp_dir().join(format!("toolscope-diff80-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let query = "delete expired coupons from the spring campaign";
    let line = |history: &str| {
        let case = format!(
            r#"{{"id":"regression/long-case-id/0001","query":"{query}","params":{{"top_k":5,"history":[{history}]}}}}"#
        );
        toolscope::output::batch::batch_line(&engine, &case).expect("batch line") + "\n"
    };
    std::fs::write(d.join("a.jsonl"), line("")).unwrap();
    std::fs::write(
        d.join("b.jsonl"),
        line(r#""deleteExpiredCoupons","deleteExpiredCoupons","deleteExpiredCoupons""#),
    )
    .unwrap();
    let mut h = Harness::opened(
        caps(),
        toolscope::tui::event::Source::Diff(d.join("a.jsonl"), d.join("b.jsonl")),
    );
    let screen = h.screen(80, 24);
    let row = screen
        .lines()
        .find(|l| l.contains("regression/long"))
        .unwrap_or_else(|| panic!("{screen}"));
    let q = row
        .find("delete expired")
        .unwrap_or_else(|| panic!("{row}"));
    let shown = row[q..].trim_end().chars().count();
    assert!(shown >= 14, "the query keeps a fair share: {row}");
    let v = h.app.diffv.as_ref().unwrap();
    if v.cases[0].diff.top1_changed() {
        assert!(row.contains("→") || row.contains("->"), "{row}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// Issue 17 acceptance, defect 7: the Lab header reports every parameter the cases set
/// for themselves as top_k is (`depth per case 1-3`, `policy per case (2)`), the shared
/// ones as values, and a case's own values are in its pane.
#[test]
fn the_lab_header_reports_each_per_case_parameter() {
    let s = suite(concat!(
        r#"{"id": "a", "query": "approve refund", "expected": ["approveRefund"], "params": {"depth": 1}, "selector": {"policy": "risk_limited"}}"#,
        "\n",
        r#"{"id": "b", "query": "list orders", "expected": ["listOrders"], "params": {"depth": 3}}"#,
        "\n",
        r#"{"id": "c", "query": "cancel my order", "expected": ["cancelOrder"]}"#,
        "\n"
    ));
    let mut h = Harness::lab(caps(), s, "s.jsonl");
    let header = |h: &mut Harness, w: u16| h.screen(w, 24).lines().next().unwrap().to_string();
    let wide = header(&mut h, 140);
    assert!(
        wide.contains("k=10 depth per case 1-3 policy per case (2)"),
        "{wide}"
    );
    assert!(
        !wide.contains("d=2") && !wide.contains("strong_evidence"),
        "{wide}"
    );
    let narrow = header(&mut h, 80);
    assert!(
        narrow.contains("depth per case 1-3") && narrow.contains("policy per case (2)"),
        "{narrow}"
    );
    for w in [40, 60] {
        let s = header(&mut h, w);
        assert!(s.contains("per case"), "{w}: {s}");
    }
    // fixed ones stay values: the same suite without its own depth and policy
    let s = suite(concat!(
        r#"{"id": "a", "query": "approve refund", "expected": ["approveRefund"], "params": {"depth": 2}, "selector": {"policy": "strong_evidence"}}"#,
        "\n",
    ));
    let mut fixed = Harness::lab(caps(), s, "s.jsonl");
    let line = header(&mut fixed, 120);
    assert!(
        line.ends_with("k=10 depth=2 policy strong_evidence"),
        "{line}"
    );
    // the case's pane names its own values
    h.keys("o");
    while h.app.lab.as_ref().unwrap().sort.name() != "id" {
        h.keys("o");
    }
    let screen = h.screen(120, 40);
    assert!(
        screen.contains("runs with its own depth 1, policy risk_limited"),
        "{screen}"
    );
}

/// Issue 17 acceptance, defect 2's nit: the list under an unknown command's answer leads
/// with the names the answer offers (`:depht 0`: "closest: :depth" above `depth`, not
/// `depth-down` alone; `:top-k 0` lists `topk` and `top`, not nothing).
#[test]
fn the_palette_list_agrees_with_closest() {
    let h = demo();
    let names = |text: &str| -> Vec<&'static str> {
        palette_items_for(&h.app, text)
            .into_iter()
            .filter_map(|it| match it {
                toolscope::tui::app::PaletteItem::Command(id) => Some(commands::get(id).name),
                _ => None,
            })
            .collect()
    };
    for (typed, word) in [("depht 0", "depht"), ("top-k 0", "top-k"), ("hepl", "hepl")] {
        let near = commands::closest(word);
        assert!(!near.is_empty(), "{typed}");
        let list = names(typed);
        assert_eq!(&list[..near.len()], &near[..], "{typed}: {list:?}");
    }
    assert_eq!(names("depht 0")[0], "depth");
}

/// Issue 17 acceptance, defect 20's nit: `r` says what it changed, as every other
/// parameter key does, and that nothing changed when nothing did.
#[test]
fn reset_says_what_it_changed() {
    let mut h = demo();
    h.keys("++<");
    assert_eq!((h.app.params.top_k, h.app.params.depth), (12, 1));
    h.keys("r");
    assert_eq!(flash(&h), "reset: top_k 12 → 10, depth 1 → 2");
    assert_eq!((h.app.params.top_k, h.app.params.depth), (10, 2));
    h.keys("r");
    assert!(flash(&h).contains("nothing changed"), "{}", flash(&h));
    h.keys("p");
    h.keys("r");
    assert!(flash(&h).starts_with("reset: policy "), "{}", flash(&h));
}

/// Issue 17 acceptance, defect 13's nit: `:cf history=` with names the graph lacks warns
/// as `:history` and `:llm` do (it was accepted silently as RESOLVED).
#[test]
fn cf_history_with_unknown_names_warns() {
    let mut h = demo();
    h.keys(":cf history=foo bar");
    h.key(KeyCode::Enter);
    let f = h.app.flash.clone().expect("a warning");
    assert_eq!(f.level, FlashLevel::Warn, "{}", f.text);
    assert!(
        f.text.contains("not a tool in this graph") && f.text.contains("foo"),
        "{}",
        f.text
    );
    h.keys(":cf history=getRefund");
    h.key(KeyCode::Enter);
    assert!(
        h.app
            .flash
            .as_ref()
            .is_none_or(|f| f.level != FlashLevel::Warn),
        "{}",
        flash(&h)
    );
    h.keys(":cf llm_target=fooBar");
    h.key(KeyCode::Enter);
    assert!(flash(&h).contains("fooBar"), "{}", flash(&h));
}

/// Issue 17 acceptance, W6 with NO_COLOR: a find's other matches are underlined and not
/// bold, so they differ from Detail's bold underlined section headings; the current one
/// is reversed.
#[test]
fn nocolor_find_matches_differ_from_headings() {
    use ratatui::crossterm::event::KeyModifiers;
    use ratatui::style::Modifier;
    let mut h = demo();
    h.keys("2");
    h.press(KeyCode::Char('f'), KeyModifiers::CONTROL);
    h.keys("top");
    h.key(KeyCode::Enter);
    let buf = h.render(120, 40);
    let mut heading = None;
    let (mut current, mut other) = (Vec::new(), Vec::new());
    for y in 0..buf.area.height {
        let row: String = (0..buf.area.width)
            .map(|x| buf[(x, y)].symbol().to_string())
            .collect();
        if let Some(i) = row.find("top") {
            let x = row[..i].chars().count() as u16;
            let m = buf[(x, y)].modifier;
            if m.contains(Modifier::REVERSED) {
                current.push(m);
            } else if m.contains(Modifier::UNDERLINED) {
                other.push(m);
            }
        }
        if heading.is_none()
            && let Some(i) = row.find("why it is in the")
        {
            let x = row[..i].chars().count() as u16;
            heading = Some(buf[(x, y)].modifier);
        }
    }
    let heading = heading.expect("a Detail heading");
    assert!(
        heading.contains(Modifier::BOLD | Modifier::UNDERLINED),
        "{heading:?}"
    );
    assert_eq!(current.len(), 1, "{current:?}");
    assert!(!other.is_empty(), "another match in view");
    for m in other {
        assert!(!m.contains(Modifier::BOLD), "{m:?}");
        assert_ne!(m, heading);
    }
}
