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
    let w = GdWorker::spawn(a, b, ("old".into(), "new".into()), move |m| {
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
/// Diff screen (the tree fully open, the blame, the change) shows them harmlessly.
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
        for residue in ["[2J", "52;c", "]0;", "[31m", "[1m"] {
            assert!(!s.contains(residue), "{residue:?} in\n{s}");
        }
    }
    assert!(h.emitted.is_empty(), "nothing written to the terminal");
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
