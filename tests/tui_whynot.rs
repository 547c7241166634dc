//! The explorer's Why-not pane: `w`, `:whynot NAME`, the expected tool's mark in the
//! candidates table, the triage it shows (the engine's, as `toolscope triage` computes it),
//! Enter on a knob probe (the Counterfactual pane reproduces the probe's rank), and a lab
//! case opened in Explore with its expected tool triaged.

use ratatui::crossterm::event::KeyCode;
use toolscope::engine::triage::{ProbeChange, TriageOptions, triage};
use toolscope::tui::app::{FlashLevel, PaneId};
use toolscope::tui::caps::{Caps, ColorLevel};
use toolscope::tui::drill::base_knobs;
use toolscope::tui::harness::{Harness, demo_engine, demo_suite};
use toolscope::tui::screens::Screen;

fn demo() -> Harness {
    Harness::demo(Caps::fixed(ColorLevel::Mono, false))
}

fn query(h: &mut Harness, q: &str) {
    h.keys(&format!(":query {q}"));
    h.key(KeyCode::Enter);
}

fn names(h: &Harness) -> Vec<String> {
    h.app
        .retrieval()
        .unwrap()
        .rows
        .iter()
        .map(|r| r.name.clone())
        .collect()
}

#[test]
fn w_on_a_row_triages_it_as_the_cli_does() {
    let mut h = demo();
    query(&mut h, "refund an order");
    h.keys("jj");
    let name = names(&h)[2].clone();
    h.keys("w");
    assert_eq!(h.app.focus, PaneId::WhyNot);
    assert_eq!(h.app.whynot.expected, vec![name.clone()]);
    let t = h.app.whynot.triage().expect("the triage arrived").clone();
    // the same value as the engine's triage with the explorer's parameters
    let knobs = base_knobs(&h.app).unwrap();
    let want = triage(
        &demo_engine(),
        "refund an order",
        std::slice::from_ref(&name),
        &knobs,
        &TriageOptions::default(),
    )
    .unwrap();
    assert_eq!(t.class, want.class);
    assert_eq!((t.rank, t.full_rank), (want.rank, want.full_rank));
    assert_eq!(t.probes.len(), want.probes.len());
    assert_eq!(t.rank, Some(3));
    // the pane shows the class and the sections; the table marks the tool and its rank
    let s = h.screen(120, 40);
    assert!(s.contains(&format!("expected {name}")), "{s}");
    assert!(s.contains(&t.class.as_str().to_uppercase()), "{s}");
    assert!(s.contains(&format!("? #3 {name}")), "{s}");
    let row = s
        .lines()
        .find(|l| l.contains(&format!(" 3 {name}")))
        .unwrap();
    assert!(row.contains('?'), "{row}");
    // every section is reachable: zoomed, the whole pane scrolls item by item
    h.keys("z");
    let mut seen = String::new();
    for _ in 0..40 {
        seen.push_str(&h.screen(80, 24));
        h.keys("j");
    }
    for part in [
        "Deficit against the winner",
        "Tools above",
        "Expansion path",
        "Findings",
        "Probes:",
    ] {
        assert!(seen.contains(part), "{part} missing");
    }
    // w on the same row again unsets it
    h.keys("z");
    h.key(KeyCode::Esc);
    h.keys("w");
    assert!(h.app.whynot.expected.is_empty());
    assert!(!h.screen(120, 40).contains(&format!("? #3 {name}")));
}

#[test]
fn whynot_names_a_tool_outside_the_results_and_refuses_unknown_names() {
    let mut h = demo();
    query(&mut h, "refund an order");
    let rows = names(&h);
    let engine = demo_engine();
    let outside = engine
        .graph
        .tools
        .iter()
        .map(|t| t.name.clone())
        .find(|n| !rows.contains(n))
        .unwrap();
    h.keys(&format!(":whynot {outside}"));
    h.key(KeyCode::Enter);
    assert_eq!(h.app.whynot.expected, vec![outside.clone()]);
    let t = h.app.whynot.triage().unwrap().clone();
    assert_eq!(t.class.as_str(), "not_retrieved");
    let s = h.screen(120, 40);
    let place = match t.full_rank {
        Some(f) => format!("? #{f} past top-K {outside}"),
        None => format!("? unscored {outside}"),
    };
    assert!(s.contains(&place), "{place}\n{s}");
    assert!(s.contains("NOT_RETRIEVED"), "{s}");
    // a name that is not a tool: a warning with the closest names, nothing changes
    h.keys(":whynot approveRefnd");
    h.key(KeyCode::Enter);
    let f = h.app.flash.as_ref().unwrap();
    assert_eq!(f.level, FlashLevel::Warn);
    assert!(f.text.contains("approveRefund"), "{}", f.text);
    assert_eq!(h.app.whynot.expected, vec![outside]);
    // :whynot-clear unsets
    h.keys(":whynot-clear");
    h.key(KeyCode::Enter);
    assert!(h.app.whynot.expected.is_empty());
}

#[test]
fn enter_on_a_knob_probe_opens_it_in_the_counterfactual_pane_with_the_same_rank() {
    let mut h = demo();
    query(&mut h, "refund an order");
    h.keys("jjw");
    let t = h.app.whynot.triage().unwrap().clone();
    let (shown, _) = t.probes_by_effect();
    let (i, probe) = shown
        .iter()
        .enumerate()
        .find(|(_, p)| matches!(p.change, ProbeChange::Knob { .. }) && p.rank.is_some())
        .map(|(i, p)| (i, (*p).clone()))
        .expect("a knob probe that keeps it retrieved");
    let (items, probes) = toolscope::tui::derive::whynot_items(&h.app).unwrap();
    assert_eq!(probes, shown.len());
    // Enter on a section title opens nothing
    h.key(KeyCode::Enter);
    assert_eq!(h.app.focus, PaneId::WhyNot);
    for _ in 0..(items - probes + i) {
        h.keys("j");
    }
    h.key(KeyCode::Enter);
    assert_eq!(h.app.focus, PaneId::Counterfactual);
    let cmp = h
        .app
        .cf
        .out
        .as_ref()
        .unwrap()
        .result
        .as_ref()
        .unwrap()
        .clone();
    let rank = cmp
        .variant
        .rows
        .iter()
        .position(|r| r.name == t.expected)
        .map(|r| r + 1);
    assert_eq!(rank, probe.rank, "the counterfactual reproduces the probe");
    // Esc comes back to the Why-not pane
    h.key(KeyCode::Esc);
    assert_eq!(h.app.focus, PaneId::WhyNot);
}

#[test]
fn a_lab_case_opens_in_explore_with_its_expected_tool_triaged() {
    let mut h = Harness::lab(Caps::fixed(ColorLevel::Mono, false), demo_suite(), "demo");
    h.keys(":sort id");
    h.key(KeyCode::Enter);
    h.keys("g");
    let case = h.app.lab.as_ref().unwrap().current().unwrap().clone();
    h.key(KeyCode::Enter);
    assert_eq!(h.app.screen, Screen::Explore);
    assert_eq!(h.app.drill, PaneId::WhyNot);
    assert_eq!(h.app.whynot.expected, case.expected);
    let t = h.app.whynot.triage().unwrap();
    assert_eq!(t.query, case.query);
    let s = h.screen(80, 24);
    assert!(s.contains("9 Why-not"), "{s}");
    assert!(s.contains(&format!("expected {}", case.expected[0])), "{s}");
}

#[test]
fn the_lab_lists_each_cases_triage_class_sorted_and_filtered_by_class() {
    let mut h = Harness::lab(Caps::fixed(ColorLevel::Mono, false), demo_suite(), "demo");
    let l = h.app.lab.as_ref().unwrap();
    assert_eq!(l.sort, toolscope::tui::screens::LabSort::Class);
    assert_eq!(l.classes.len(), l.results.len());
    // the class of every case is the engine's (suite triage without probes)
    let opts = TriageOptions {
        probes: false,
        document_probes: false,
        ..TriageOptions::default()
    };
    let want = toolscope::lab::triage::triage_suite(
        &demo_engine(),
        &demo_suite(),
        &toolscope::engine::knobs::Knobs::default(),
        &opts,
    );
    for (i, r) in l.results.iter().enumerate() {
        let w = want.iter().find(|w| w.id == r.id).unwrap();
        assert_eq!(
            l.classes[i].name(),
            w.outcome.as_ref().unwrap().class.as_str(),
            "{}",
            r.id
        );
    }
    // failures first: the first listed case is not selected when any case failed
    let order = l.order();
    let failing = l.classes.iter().filter(|c| c.name() != "selected").count();
    assert!(failing > 0);
    assert_ne!(l.class(order[0]).unwrap().name(), "selected");
    let selected = l.results.len() - failing;
    let counts = l.class_counts();
    let s = h.screen(120, 40);
    assert!(s.contains("triage "), "{s}");
    assert!(s.contains(&format!("selected {selected}")), "{s}");
    // c: one class at a time, in the counts' order, then all again
    h.keys("c");
    let l = h.app.lab.as_ref().unwrap();
    assert_eq!(l.filter, Some(counts[0].0));
    assert_eq!(l.order().len(), counts[0].1);
    for _ in 1..counts.len() {
        h.keys("c");
    }
    assert_eq!(
        h.app.lab.as_ref().unwrap().filter,
        Some(counts.last().unwrap().0)
    );
    h.keys("c");
    assert_eq!(h.app.lab.as_ref().unwrap().filter, None);
    // :class NAME, and an unknown name changes nothing
    h.keys(":class selected");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.lab.as_ref().unwrap().filter, Some("selected"));
    assert!(h.screen(120, 40).contains("only selected"));
    h.keys(":class nonsense");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.flash.as_ref().unwrap().level, FlashLevel::Warn);
    assert_eq!(h.app.lab.as_ref().unwrap().filter, Some("selected"));
    h.keys(":class all");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.lab.as_ref().unwrap().filter, None);
}

fn evidence_dir() -> std::path::PathBuf {
    let d = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("whynot-evidence");
    toolscope::tui::harness::write_demo_evidence(&d).expect("demo evidence");
    d
}

#[test]
fn captured_evidence_is_classified_without_a_graph_and_replayed_with_one() {
    use toolscope::tui::event::Source;
    use toolscope::tui::screens::EvTab;
    let d = evidence_dir();
    // a fixture of the demo suite names its expected tool: the Why-not tab classifies it
    let mut h = Harness::opened(
        Caps::fixed(ColorLevel::Mono, false),
        Source::Evidence(d.join("good/orders.json")),
    );
    h.keys("5");
    let e = h.app.evidence.as_ref().unwrap();
    assert_eq!(e.tab, EvTab::WhyNot);
    assert_eq!(e.expected_tool().as_deref(), Some("listOrders"));
    let (_, t) = e.whynot.as_ref().expect("computed");
    let rec = &e.current().unwrap().rec;
    assert_eq!(*t, toolscope::lab::captured::from_record(rec, "listOrders"));
    assert!(t.class.is_some(), "{t:?}");
    let s = h.screen(100, 30);
    assert!(s.contains("expected listOrders"), "{s}");
    assert!(s.contains("from the captured fields alone"), "{s}");
    // w on another row asks about that one; the table marks it
    h.key(KeyCode::Esc);
    h.keys("jw");
    let e = h.app.evidence.as_ref().unwrap();
    let second = e.current().unwrap().rows[1].name.clone();
    assert_eq!(e.expected_tool(), Some(second.clone()));
    assert_eq!(e.whynot.as_ref().unwrap().1.rank, Some(2));
    let s = h.screen(100, 30);
    let row = s
        .lines()
        .find(|l| l.contains(&format!(" 2 {second}")))
        .unwrap();
    assert!(row.contains('?'), "{row}");
    // with the graph loaded, a drifted record carries artifact_changed
    let mut h = demo();
    let traces = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/traces");
    h.keys(&format!(
        ":evidence {}",
        traces.join("drifts.jsonl").display()
    ));
    h.key(KeyCode::Enter);
    assert_eq!(h.app.screen, Screen::Evidence);
    let i = h
        .app
        .evidence
        .as_ref()
        .unwrap()
        .set
        .records
        .iter()
        .position(|r| r.id == "drift-unexplained")
        .unwrap();
    for _ in 0..i {
        h.keys("j");
    }
    h.key(KeyCode::Enter);
    h.keys("w");
    let (_, t) = h.app.evidence.as_ref().unwrap().whynot.clone().unwrap();
    assert!(
        t.findings.iter().any(|f| f.kind() == "artifact_changed"),
        "{t:?}"
    );
    assert!(h.screen(100, 30).contains("artifact_changed"));
}

#[test]
fn s_on_a_probe_replays_it_over_the_labs_suite() {
    let mut h = Harness::lab(Caps::fixed(ColorLevel::Mono, false), demo_suite(), "demo");
    // the first case by class is a failing one: open it, step to its first probe
    h.key(KeyCode::Enter);
    assert_eq!(h.app.screen, Screen::Explore);
    h.keys("9");
    let (items, probes) = toolscope::tui::derive::whynot_items(&h.app).unwrap();
    assert!(probes > 0, "a failing case has probes");
    for _ in 0..(items - probes) {
        h.keys("j");
    }
    h.keys("S");
    let t = h.app.whynot.triage().unwrap().clone();
    let probe = t.probes_by_effect().0[0].clone();
    let got = *h
        .app
        .whynot
        .effects_of(&probe.change.label())
        .expect("side effects arrived");
    let engine = demo_engine();
    let base = base_knobs(&h.app).unwrap();
    let want = toolscope::lab::triage::side_effects(
        &engine,
        &demo_suite(),
        &base,
        &probe.change,
        engine.graph.tool_id(&t.expected).unwrap(),
    );
    assert_eq!(got, want);
    assert_eq!(got.cases, 6);
    let s = h.screen(120, 40);
    assert!(s.contains("over the lab's 6 case(s)"), "{s}");
    // without a suite, S says where one comes from
    let mut h = demo();
    query(&mut h, "refund an order");
    h.keys("jjw");
    let (items, probes) = toolscope::tui::derive::whynot_items(&h.app).unwrap();
    for _ in 0..(items - probes) {
        h.keys("j");
    }
    h.keys("S");
    let f = h.app.flash.as_ref().unwrap();
    assert_eq!(f.level, FlashLevel::Warn);
    assert!(f.text.contains(":lab SUITE"), "{}", f.text);
}

/// The trial's findings: `w` in the pane and `:whynot` alone unset; the selected expected
/// tool keeps its `?`; the Lab's narrow class names filter; unlabelled cases are no failures.
#[test]
fn unsetting_marks_and_class_names_as_the_list_shows_them() {
    let mut h = demo();
    query(&mut h, "refund an order");
    let top = names(&h)[0].clone();
    h.keys("w");
    assert_eq!(h.app.focus, PaneId::WhyNot);
    let s = h.screen(80, 24);
    assert!(s.contains(&format!("? #1 selected {top}")), "{s}");
    let row = s
        .lines()
        .find(|l| l.contains(&format!(" 1 {top}")))
        .unwrap();
    assert!(row.contains("*?"), "{row}");
    // w inside the pane unsets
    h.keys("w");
    assert!(h.app.whynot.expected.is_empty());
    // :whynot alone unsets too
    h.key(KeyCode::Esc);
    h.keys("w");
    assert!(!h.app.whynot.expected.is_empty());
    h.keys(":whynot");
    h.key(KeyCode::Enter);
    assert!(h.app.whynot.expected.is_empty());
    // the Lab: `ambiguous` (the narrow column's name) filters selector_ambiguous
    let mut h = Harness::lab(Caps::fixed(ColorLevel::Mono, false), demo_suite(), "demo");
    h.keys(":class ambiguous");
    h.key(KeyCode::Enter);
    assert_eq!(
        h.app.lab.as_ref().unwrap().filter,
        Some("selector_ambiguous")
    );
}

/// UX trial defects 14 and 15: stepping a knob skips the base's own value (no "nothing
/// differs" variant by accident), and the side-by-side lists mark each side's selected
/// target `*` and LLM target `L`.
#[test]
fn counterfactual_steps_past_the_base_value_and_marks_the_targets() {
    let mut h = demo();
    query(&mut h, "refund an order");
    h.keys("8");
    // depth: base 2, the default variant 1; Right would give 2 (the base): it gives 3
    assert_eq!(h.app.params.depth, 2);
    h.key(KeyCode::Right);
    assert_eq!(h.app.cf.value, Some(serde_json::json!(3)));
    h.key(KeyCode::Left);
    assert_eq!(h.app.cf.value, Some(serde_json::json!(1)));
    // the LLM target: both sides mark it, and the selected target
    h.keys(":cf llm_target=getOrder");
    h.key(KeyCode::Enter);
    let cmp = h.app.cf.out.as_ref().unwrap().result.clone().unwrap();
    let s = h.screen(120, 40);
    let sel = cmp
        .variant_selection
        .as_ref()
        .unwrap()
        .selected_target
        .clone();
    // the two mark cells (`*`, `L`) between the rank and the name
    let marked = |m: char, name: &str| {
        let forms = [
            format!("{m} {name}"),
            format!("{m}  {name}"),
            format!("{m}L {name}"),
        ];
        s.lines().any(|l| {
            l.split('│')
                .any(|half| forms.iter().any(|f| half.contains(f.as_str())))
        })
    };
    assert!(marked('*', &sel), "{s}");
    if sel != "getOrder" {
        assert!(marked('L', "getOrder"), "{s}");
    }
}

/// The pane's item count is computed from the triage (it runs on every key and frame);
/// it must be exactly the items the pane draws, for every kind of case.
#[test]
fn the_counted_items_are_the_drawn_items() {
    let mut h = demo();
    for (q, pick) in [
        ("refund an order", "jjw"),
        ("refund an order", "w"),
        ("delete expired coupons", "w"),
        ("cancel my order", "jw"),
    ] {
        query(&mut h, q);
        h.key(KeyCode::Esc);
        h.keys(pick);
        let (items, _) = toolscope::tui::derive::whynot_items(&h.app).unwrap();
        assert_eq!(
            items,
            toolscope::tui::views::whynot::doc(&h.app).items(),
            "{q}"
        );
        h.key(KeyCode::Esc);
        h.keys(":whynot-clear");
        h.key(KeyCode::Enter);
    }
    let rows = names(&h);
    let outside = demo_engine()
        .graph
        .tools
        .iter()
        .map(|t| t.name.clone())
        .find(|n| !rows.contains(n))
        .unwrap();
    h.keys(&format!(":whynot {outside}"));
    h.key(KeyCode::Enter);
    let (items, _) = toolscope::tui::derive::whynot_items(&h.app).unwrap();
    assert_eq!(items, toolscope::tui::views::whynot::doc(&h.app).items());
}
