//! The Diff screen on two graphs (the demo graph and a rebuild of it), headless: the case
//! list shows each case's old → new rank and blame headline, the blame column names each
//! moved tool's top cause, `x` applies a cause alone to OLD and re-ranks the case, Enter
//! shows the change, the tree opens, a typed query is blamed live, stale answers are
//! dropped and the worker answers a query before it finishes a suite.

use std::sync::Arc;
use std::sync::mpsc::channel;
use std::time::Duration;

use ratatui::crossterm::event::KeyCode;
use toolscope::tui::app::AppEvent;
use toolscope::tui::caps::{Caps, ColorLevel};
use toolscope::tui::gdiff::GdTab;
use toolscope::tui::gdiff::work::{GdJob, GdMsg, GdWorker, suite_specs};
use toolscope::tui::harness::{Harness, demo_pair, demo_suite};

fn mono() -> Caps {
    Caps::fixed(ColorLevel::Mono, false)
}

fn suite_harness() -> Harness {
    let (a, b) = demo_pair();
    Harness::graphs(mono(), a, b, Some(demo_suite()), None)
}

/// Moves the case cursor to the case `id`.
fn goto(h: &mut Harness, id: &str) {
    for _ in 0..20 {
        let v = h.app.gdiff.as_ref().unwrap();
        if v.current().is_some_and(|c| c.id == id) {
            return;
        }
        h.keys("j");
    }
    panic!("no case {id}");
}

#[test]
fn the_case_list_shows_rank_moves_and_headlines() {
    let mut h = suite_harness();
    let v = h.app.gdiff.as_ref().unwrap();
    assert!(v.diff.is_some(), "the artifact diff arrived");
    assert_eq!(v.blamed, 6, "every case blamed");
    let s = h.screen(120, 40);
    let orders = s.lines().find(|l| l.contains("orders ")).unwrap();
    assert!(orders.contains("2 → 3"), "{orders}");
    assert!(
        orders.contains("listOrders fell 2 -> 3: 1.00 new tool listOrdersV2 ranks above it"),
        "{orders}"
    );
    assert!(s.contains("tools +1 -1 ~2"), "{s}");
}

#[test]
fn the_blame_column_names_each_moved_tools_top_cause() {
    let mut h = suite_harness();
    goto(&mut h, "orders");
    let c = h.app.gdiff.as_ref().unwrap().current().unwrap().clone();
    assert!(c.changed && c.resolved);
    assert_eq!(c.rank, (Some(2), Some(3)));
    // every moved tool has a cause, and the tracked one's is the largest share
    assert!(!c.blame.is_empty());
    assert_eq!(c.cause_of("listOrders"), Some(0));
    assert_eq!(c.causes[0].label, "new tool listOrdersV2 ranks above it");
    let s = h.screen(120, 40);
    let row = s
        .lines()
        .find(|l| l.contains("listOrders ") && l.contains('↓'))
        .unwrap();
    assert!(row.contains("[1] new tool listOrdersV2"), "{row}");
    assert!(s.contains("blame"), "{s}");
}

#[test]
fn x_applies_a_cause_alone_to_old_and_reranks_the_case() {
    let mut h = suite_harness();
    goto(&mut h, "orders");
    h.key(KeyCode::Tab);
    h.keys("x");
    let v = h.app.gdiff.as_ref().unwrap();
    assert_eq!(v.toggled, vec![0]);
    let (on, r) = v.rerank.clone().expect("re-ranked");
    assert_eq!(on, vec![0]);
    let rank = |n: &str| r.rows.iter().position(|x| x.0 == n).map(|i| i + 1);
    // the new tool alone moves listOrders from 2 to 3, as in NEW
    assert_eq!(rank("listOrders"), Some(3));
    assert_eq!(rank("listOrdersV2"), Some(2));
    let s = h.screen(120, 40);
    assert!(s.contains("# OLD + [1]"), "{s}");
    assert!(s.contains("in NEW"), "{s}");
    assert!(s.contains("[1] on"), "{s}");
    // again: back to OLD vs NEW
    h.keys("x");
    let v = h.app.gdiff.as_ref().unwrap();
    assert!(v.toggled.is_empty() && v.rerank.is_none());
    assert!(h.screen(120, 40).contains("# NEW new.json"));
}

#[test]
fn a_stale_rerank_is_dropped() {
    let mut h = suite_harness();
    goto(&mut h, "orders");
    h.key(KeyCode::Tab);
    h.keys("x");
    let g = h.app.gdiff.as_ref().unwrap().rerank_gen;
    let stale = GdMsg::Rerank {
        generation: g - 1,
        out: toolscope::tui::gdiff::work::Reranked {
            rows: vec![("nothing".into(), 1.0)],
            selected: String::new(),
        },
    };
    h.event(AppEvent::Gd(stale));
    let (_, r) = h.app.gdiff.as_ref().unwrap().rerank.clone().unwrap();
    assert_ne!(r.rows[0].0, "nothing");
}

#[test]
fn enter_on_a_cause_shows_the_change() {
    let mut h = suite_harness();
    goto(&mut h, "orders");
    h.key(KeyCode::Enter);
    h.key(KeyCode::Enter);
    let v = h.app.gdiff.as_ref().unwrap();
    assert_eq!(v.tab, GdTab::Change);
    assert_eq!(v.opened, Some(0));
    let s = h.screen(120, 40);
    assert!(s.contains("tool_added listOrdersV2: added"), "{s}");
    assert!(s.contains("old  (absent)"), "{s}");
    assert!(s.contains("new  Lists orders with refund filters"), "{s}");
    // Esc: back to the causes
    h.key(KeyCode::Esc);
    assert_eq!(h.app.gdiff.as_ref().unwrap().tab, GdTab::Blame);
}

#[test]
fn the_artifact_diff_tree_opens_and_closes() {
    let mut h = suite_harness();
    h.keys("1");
    let s = h.screen(120, 40);
    assert!(s.contains("Tools  +1 -1 ~2"), "{s}");
    assert!(!s.contains("+ listOrdersV2"), "{s}");
    // the second row is "added"
    h.keys("j");
    h.key(KeyCode::Enter);
    let s = h.screen(120, 40);
    assert!(s.contains("+ listOrdersV2"), "{s}");
    h.key(KeyCode::Enter);
    assert!(!h.screen(120, 40).contains("+ listOrdersV2"));
}

#[test]
fn a_typed_query_is_blamed_live() {
    let (a, b) = demo_pair();
    let mut h = Harness::graphs(mono(), a, b, None, None);
    assert!(h.screen(80, 24).contains("type / and a query"));
    h.keys("/list orders");
    let s = h.screen(80, 24);
    assert!(s.lines().next().unwrap().contains("list orders"), "{s}");
    let v = h.app.gdiff.as_ref().unwrap();
    let c = v.current().expect("the query blamed");
    assert_eq!(c.query, "list orders");
    assert!(c.changed);
    // an answer to an older text is dropped
    let g = v.live_gen;
    let mut old = c.clone();
    old.query = "list".into();
    h.event(AppEvent::Gd(GdMsg::Query {
        generation: g - 1,
        case: Box::new(old),
    }));
    let v = h.app.gdiff.as_ref().unwrap();
    assert_eq!(v.current().unwrap().query, "list orders");
    h.key(KeyCode::Enter);
    assert!(!h.app.input_active);
    assert!(h.screen(80, 24).contains("new tool listOrdersV2"));
}

/// The worker answers a query and a re-rank before it finishes a suite it had started.
#[test]
fn the_worker_answers_a_query_before_the_rest_of_a_suite() {
    let (a, b) = demo_pair();
    let mut suite = demo_suite();
    let base = suite.cases.clone();
    for i in 0..5 {
        suite.cases.extend(base.iter().map(|c| {
            let mut c = c.clone();
            c.id = format!("{}-{i}", c.id);
            c
        }));
    }
    let specs = suite_specs(&suite, &Default::default());
    let (tx, rx) = channel();
    let w = GdWorker::spawn(a, b, ("old".into(), "new".into()), 1, move |m| {
        tx.send(m).is_ok()
    });
    let cases = Arc::new(specs.clone());
    w.submit(GdJob::Suite {
        generation: 1,
        cases,
    });
    let mut q = specs[3].clone();
    q.query = "list orders".into();
    w.submit(GdJob::Query {
        generation: 2,
        case: q,
    });
    let mut seen: Vec<String> = Vec::new();
    let mut blamed = 0;
    while blamed < specs.len() {
        match rx
            .recv_timeout(Duration::from_secs(60))
            .expect("worker answers")
        {
            GdMsg::Ready { .. } => seen.push("ready".into()),
            GdMsg::Cases { cases, .. } => {
                blamed += cases.len();
                seen.push(format!("cases {blamed}"));
            }
            GdMsg::Query { .. } => seen.push("query".into()),
            other => panic!("unexpected {other:?}"),
        }
    }
    let q = seen
        .iter()
        .position(|s| s == "query")
        .expect("query answered");
    assert!(
        q + 1 < seen.len(),
        "the query waited for the suite: {seen:?}"
    );
}

/// A rebuild whose new tool's name and description, a rewritten description and an edge's
/// evidence hold escape sequences, control characters and bidi overrides: every tab of the
/// Diff screen (the tree fully open, the blame, the change) shows them harmlessly, and
/// visibly (`\x1b[2J`), so the operator sees the text was hostile.
#[test]
fn escape_sequences_in_two_graphs_render_harmlessly() {
    use serde_json::json;
    use toolscope::engine::Engine;
    let evil = "evil\u{1b}]52;c;QUFBQQ==\u{7}Orders";
    let old = toolscope::tui::harness::demo_value();
    let mut new = old.clone();
    let tools = new["tools"].as_object_mut().unwrap();
    tools["getOrder"]["description"] =
        json!("order \u{1b}[2J\u{1b}[H wiped \u{202e}gnirts\u{202c}");
    let mut added = tools["listOrders"].clone();
    added["name"] = json!(evil);
    added["description"] = json!("list orders \u{1b}]0;title\u{7} \u{8}\u{8} \u{9b}31m now");
    added["metadata"]["path"] = json!("/evil/\u{1b}[1m{id}");
    tools.insert(evil.into(), added);
    let graph = new["graph"].as_object_mut().unwrap();
    graph["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!({"id": evil, "node_type": "tool"}));
    graph["edges"].as_array_mut().unwrap().push(json!({
        "source": "listOrders", "target": evil, "relation": "similar_to\u{1b}[31m",
        "confidence": "EXTRACTED", "evidence": "pwned \u{1b}[2J cleared \u{202e}evil\u{202c}"}));
    let engine = |v: &serde_json::Value| {
        let bytes = serde_json::to_vec(v).unwrap();
        let g = toolscope::model::load::load_graph_bytes("g.json", bytes).unwrap();
        Arc::new(Engine::new(g))
    };
    let mut h = Harness::graphs(
        Caps::fixed(ColorLevel::Ansi16, false),
        engine(&old),
        engine(&new),
        None,
        Some("list orders"),
    );
    let c = h
        .app
        .gdiff
        .as_ref()
        .unwrap()
        .current()
        .expect("blamed")
        .clone();
    assert!(c.changed, "the evil tool moves the case");
    let mut screens = Vec::new();
    // the blame with the blame column, then each cause's change
    h.key(KeyCode::Enter);
    screens.push(h.screen(120, 40));
    for i in 0..c.causes.len() {
        h.keys("2");
        h.app.gdiff.as_mut().unwrap().panes[GdTab::Blame.index()].cursor = i;
        h.key(KeyCode::Enter);
        screens.push(h.screen(120, 40));
        h.keys("x");
        screens.push(h.screen(120, 40));
        h.keys("x");
    }
    // the tree with every branch open
    h.keys("1");
    loop {
        let v = h.app.gdiff.as_mut().unwrap();
        let shut: Vec<String> = v
            .tree_items()
            .into_iter()
            .filter(|i| i.branch && !i.open)
            .map(|i| i.key)
            .collect();
        if shut.is_empty() {
            break;
        }
        v.open.extend(shut);
    }
    h.render(120, 400);
    let tall = h.render(120, 400);
    let tree = toolscope::tui::export::to_text(&tall);
    assert!(tree.contains("evil"), "{tree}");
    screens.push(tree);
    for s in &screens {
        for ch in s.chars() {
            let bad = (ch.is_control() && ch != '\n')
                || matches!(ch as u32, 0x202a..=0x202e | 0x2066..=0x2069 | 0x200e | 0x200f);
            assert!(!bad, "control or bidi character {ch:?} on screen:\n{s}");
        }
        // what is left of a sequence is printable text after a visible `\x1b`, never a
        // sequence a terminal would act on
        for residue in ["[2J", "]52;c", "]0;", "[31m", "[1m"] {
            for (at, _) in s.match_indices(residue) {
                assert!(
                    s[..at].ends_with("\\x1b"),
                    "{residue:?} without its ESC shown in\n{s}"
                );
            }
        }
    }
    // the hostile text is shown, escaped, not dropped: an operator sees it
    let all = screens.concat();
    for shown in [
        "\\x1b[2J",
        "\\x1b]52;c;QUFBQQ==\\x07",
        "\\u{202e}",
        "\\x08\\x08",
    ] {
        assert!(all.contains(shown), "{shown} is not on any screen");
    }
    assert!(h.emitted.is_empty(), "nothing written to the terminal");
}

/// A fresh folder under target/ with the demo graph and its rebuild (`old.json`,
/// `new.json`) and NEW truncated before its first key (`torn.json`).
fn pair_files(name: &str) -> (String, String, String) {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("gd-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    let (a, b) = toolscope::tui::harness::write_demo_pair(&dir).unwrap();
    let torn = dir.join("torn.json");
    let text = std::fs::read_to_string(&b).unwrap();
    // `{` and the start of the first key: the sniffer cannot say what it is
    let cut = text.find('"').unwrap() + 6;
    std::fs::write(&torn, &text[..cut]).unwrap();
    let s = |p: &std::path::Path| p.to_string_lossy().into_owned();
    (s(&a), s(&b), s(&torn))
}

fn palette(h: &mut Harness, cmd: &str) {
    h.keys(":");
    h.keys(cmd);
    h.key(KeyCode::Enter);
}

fn flash(h: &Harness) -> String {
    h.app
        .flash
        .as_ref()
        .map(|f| f.text.clone())
        .unwrap_or_default()
}

/// `:diff OLD NEW` from Explore: the pair loads off the UI thread (the Diff screen shows
/// its progress meanwhile), the Diff screen opens on it, and Esc on the case list goes
/// back to Explore with its query.
#[test]
fn diff_old_new_from_the_palette_opens_the_diff_screen_and_esc_returns() {
    use toolscope::tui::screens::Screen;
    let (a, b, _) = pair_files("palette");
    let mut h = Harness::demo(mono());
    h.keys("/list orders");
    h.key(KeyCode::Enter);
    h.hold_loads = true;
    palette(&mut h, &format!("diff {a} {b}"));
    assert_eq!(h.app.screen, Screen::Diff);
    assert!(h.app.gd_load.is_some(), "{}", flash(&h));
    let s = h.screen(80, 24);
    assert!(s.contains("loading old.json and new.json"), "{s}");
    assert!(s.contains("Esc goes back"), "{s}");
    // the footer offers only the keys that work meanwhile
    assert!(!s.contains("j/k move") && s.contains("? help"), "{s}");
    // keys other than the ones that leave do nothing while it loads
    h.keys("jx2");
    assert!(h.app.gd_load.is_some() && h.app.gdiff.is_none());
    assert!(flash(&h).contains("still loading"), "{}", flash(&h));
    h.finish_loads();
    assert!(h.app.gd_load.is_none());
    let v = h.app.gdiff.as_ref().expect("the Diff screen of two graphs");
    assert_eq!(
        (v.old_label.as_str(), v.new_label.as_str()),
        ("old.json", "new.json")
    );
    assert!(v.diff.is_some(), "the artifact diff arrived");
    // the query box's text is the first case, blamed
    let c = v.current().expect("the query blamed");
    assert_eq!(c.query, "list orders");
    assert!(c.changed);
    let s = h.screen(80, 24);
    assert!(s.contains("tools +1 -1 ~2"), "{s}");
    // Esc: the pane, then the list, then back to Explore
    h.key(KeyCode::Enter);
    h.key(KeyCode::Esc);
    assert_eq!(h.app.screen, Screen::Diff);
    h.key(KeyCode::Esc);
    assert_eq!(h.app.screen, Screen::Explore);
    assert_eq!(h.app.query.text, "list orders");
    // `:diff` alone shows it again, and Esc comes back again
    palette(&mut h, "diff");
    assert_eq!(h.app.screen, Screen::Diff);
    h.key(KeyCode::Esc);
    assert_eq!(h.app.screen, Screen::Explore);
}

/// `:diff NEW` compares the loaded graph (OLD) with a file; Esc while it loads goes back
/// and the load's answer is dropped.
#[test]
fn diff_new_against_the_loaded_graph_and_esc_while_loading() {
    use toolscope::tui::screens::Screen;
    let (_, b, _) = pair_files("against");
    let mut h = Harness::demo(mono());
    h.hold_loads = true;
    palette(&mut h, &format!("diff {b}"));
    assert!(h.app.gd_loading_here());
    h.key(KeyCode::Esc);
    assert_eq!(h.app.screen, Screen::Explore);
    assert!(flash(&h).contains("stopped waiting"), "{}", flash(&h));
    h.finish_loads();
    assert!(h.app.gdiff.is_none(), "a cancelled load opens nothing");
    assert_eq!(h.app.screen, Screen::Explore);
    // again, to the end: OLD is the demo graph the explorer has loaded
    h.hold_loads = false;
    palette(&mut h, &format!("diff {b}"));
    let v = h.app.gdiff.as_ref().expect("opened");
    assert_eq!(
        (v.old_label.as_str(), v.new_label.as_str()),
        ("demo", "new.json")
    );
    assert_eq!(h.app.screen, Screen::Diff);
    assert!(v.diff.is_some());
    // a second pair replaces the first; the first's late answers are dropped
    let epoch = v.epoch;
    palette(&mut h, &format!("diff {b} {b}"));
    let v = h.app.gdiff.as_ref().unwrap();
    assert!(v.epoch > epoch);
    assert_eq!(v.new_label, "new.json");
    let groups = v.groups;
    h.event(AppEvent::Gd(GdMsg::Failed {
        epoch,
        message: "late".into(),
    }));
    let v = h.app.gdiff.as_ref().unwrap();
    assert!(v.failed.is_none() && v.groups == groups);
}

/// Bad arguments are one line naming the file, and the screen stays where it was: a
/// missing file, a run where a graph is needed, and NEW truncated (the loader's line and
/// column, off the UI thread).
#[test]
fn diff_from_the_palette_names_the_file_that_is_wrong() {
    use toolscope::tui::screens::Screen;
    let (a, _, torn) = pair_files("bad");
    let mut h = Harness::demo(mono());
    palette(&mut h, "diff /nonexistent/new.json");
    assert_eq!(h.app.screen, Screen::Explore);
    assert!(flash(&h).contains("/nonexistent/new.json"), "{}", flash(&h));
    assert!(h.app.gd_load.is_none());
    palette(&mut h, &format!("diff {a} {torn}"));
    assert_eq!(h.app.screen, Screen::Explore, "back where :diff was typed");
    let f = flash(&h);
    // the place where the JSON ends: line 2 (after the `{`), a column
    assert!(f.starts_with(&format!("{torn}:2:")), "{f}");
    assert!(f.contains("truncated JSON"), "{f}");
    assert!(!f.contains('\n'));
    assert!(h.app.gdiff.is_none());
    // a folder of fixtures against a graph: what each is
    let dir = std::path::Path::new(&a)
        .parent()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    palette(&mut h, &format!("diff {a} {dir}"));
    assert!(flash(&h).contains("is a graph but"), "{}", flash(&h));
    // the help lists :diff with its arguments
    h.keys("?");
    h.keys("diff OLD");
    let s = h.screen(120, 40);
    assert!(s.contains("OLD NEW"), "{s}");
}

/// The header at 80 columns with long file names: the counts always show, the names are
/// cut so that they still differ (here from where they differ: the versions).
#[test]
fn the_header_keeps_the_counts_with_long_file_names() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gd-long");
    let _ = std::fs::remove_dir_all(&dir);
    let (a, b) = toolscope::tui::harness::write_demo_pair(&dir).unwrap();
    let la = dir.join("github-rest-api-22.0.0-collection-artifact.graph.json");
    let lb = dir.join("github-rest-api-23.0.2-collection-artifact-rebuilt.graph.json");
    std::fs::rename(&a, &la).unwrap();
    std::fs::rename(&b, &lb).unwrap();
    let mut h = Harness::demo(mono());
    palette(
        &mut h,
        &format!("diff {} {}", la.to_string_lossy(), lb.to_string_lossy()),
    );
    h.render(80, 24);
    let s = h.screen(80, 24);
    let head = s.lines().next().unwrap();
    assert!(head.contains("tools +1 -1 ~2  edges +1 -3 ~1"), "{head}");
    // the names differ only inside a long common start and end: shown from there
    assert!(head.contains("22.0.0") && head.contains("23.0.2"), "{head}");
    assert!(head.contains('…'), "{head}");
    insta::with_settings!({ snapshot_path => "snapshots", prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!("graphs_long_names_80x24", s);
    });
    // narrower: the counts' short form, still whole
    let s = h.screen(60, 24);
    let head = s.lines().next().unwrap();
    assert!(head.contains("tools +1-1~2 edges +1-3~1"), "{head}");
}

/// A moved tool that is not the tracked one is blamed on the change with the largest
/// Shapley share of its own rank move, even one with no share of the tracked tool's
/// change (listed after the case's causes); the causes say what each tops and by how much.
#[test]
fn an_untracked_moved_tool_is_blamed_on_its_own_largest_share() {
    let mut h = suite_harness();
    goto(&mut h, "cancel-ko");
    let c = h.app.gdiff.as_ref().unwrap().current().unwrap().clone();
    assert!(c.changed && c.resolved);
    let tracked = c.tracked.clone().unwrap();
    let k = c
        .cause_of("getOrder")
        .expect("getOrder moved and is blamed");
    assert_ne!(Some(k), c.cause_of(&tracked));
    let cause = &c.causes[k];
    assert!(
        cause.label.starts_with("getOrder's document"),
        "{}",
        cause.label
    );
    assert_eq!(
        cause.share,
        Some(0.0),
        "no share of the tracked tool's change"
    );
    let (_, share) = cause.tools.iter().find(|t| t.0 == "getOrder").unwrap();
    assert!((share - 1.0).abs() < 1e-9, "{share}");
    // every moved tool is attributed: the parts of its move add up to it
    assert!(c.blame.iter().all(|(_, b)| b.is_some()), "{:?}", c.blame);
    h.key(KeyCode::Enter);
    let s = h.screen(120, 40);
    let row = s
        .lines()
        .find(|l| l.contains(" getOrder ") && l.contains(&format!("[{}]", k + 1)))
        .unwrap_or_else(|| panic!("no blamed getOrder row:\n{s}"));
    assert!(row.contains("getOrder's document"), "{row}");
    assert!(s.contains("(tops getOrder, "), "{s}");
    assert!(
        s.contains("blame column: each moved tool's largest Shapley share"),
        "{s}"
    );
}

/// At 80x24 the Blame tab is taller than its pane: with the pane focused the cursor sits on
/// the causes at the bottom, and `k` (or `g`) there scrolls back up to the case line and
/// the two columns' headings; `j` moves on among the causes, in view again.
#[test]
fn the_blame_tabs_headings_are_reachable_when_the_pane_is_focused() {
    let mut h = suite_harness();
    goto(&mut h, "orders");
    h.key(KeyCode::Tab);
    h.keys("2");
    let heading = |s: &str| s.lines().any(|l| l.contains("# OLD old.json"));
    let causes = |s: &str| s.lines().any(|l| l.contains("Causes ("));
    let s = h.screen(80, 24);
    assert!(causes(&s) && !heading(&s), "the causes, scrolled: {s}");
    h.keys("k");
    let s = h.screen(80, 24);
    assert!(heading(&s), "k at the first cause scrolls up: {s}");
    h.keys("j");
    let s = h.screen(80, 24);
    assert!(causes(&s), "j comes back to the causes: {s}");
    h.keys("g");
    let s = h.screen(80, 24);
    assert!(heading(&s) && s.contains("orders"), "g: the top: {s}");
    // the cursor stayed on the first cause: x still applies it
    h.keys("x");
    assert_eq!(h.app.gdiff.as_ref().unwrap().toggled, vec![0]);
}

/// `G` and `g` go to the last and the first row of the artifact-diff tree, as on the
/// other lists, with every branch open and the tree taller than the pane.
#[test]
fn g_and_shift_g_on_the_artifact_diff_tree() {
    let mut h = suite_harness();
    h.key(KeyCode::Tab);
    h.keys("1");
    // open every closed branch, from the bottom up so the rows above stay put
    let n = h.app.gdiff.as_ref().unwrap().tree_items().len();
    for i in (0..n).rev() {
        let v = h.app.gdiff.as_ref().unwrap();
        if v.tree_items()[i].branch && !v.tree_items()[i].open {
            h.keys("g");
            for _ in 0..i {
                h.keys("j");
            }
            h.key(KeyCode::Enter);
        }
    }
    let items = h.app.gdiff.as_ref().unwrap().tree_items();
    h.keys("G");
    let s = h.screen(80, 24);
    let last = items.last().unwrap();
    assert_eq!(
        h.app.gdiff.as_ref().unwrap().panes[0].cursor,
        items.len() - 1
    );
    assert!(s.contains(&last.label), "the last row shows: {s}");
    h.keys("g");
    let s = h.screen(80, 24);
    assert_eq!(h.app.gdiff.as_ref().unwrap().panes[0].cursor, 0);
    assert!(s.contains("Tools  +1 -1"), "the first row shows: {s}");
}
