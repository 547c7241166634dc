//! Snapshots of every screen, pane and overlay on ratatui's buffer at 80x24 and 120x40, in
//! colour (the styles are part of the snapshot), NO_COLOR and `--ascii`; every screen at
//! tiny sizes without panicking; an input with escape sequences rendered harmlessly.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyModifiers};
use ratatui::style::{Color, Modifier};
use toolscope::engine::Engine;
use toolscope::tui::app::{AppEvent, LoadProgress};
use toolscope::tui::caps::{Caps, ColorLevel};
use toolscope::tui::event::Source;
use toolscope::tui::harness::{Harness, demo_engine};
use toolscope::tui::theme::ThemeKind;

#[derive(Clone, Copy, Debug)]
enum Mode {
    Colour,
    NoColor,
    Ascii,
}

impl Mode {
    fn caps(self) -> Caps {
        match self {
            Mode::Colour => Caps::fixed(ColorLevel::Ansi16, false),
            Mode::NoColor => Caps::fixed(ColorLevel::Mono, false),
            Mode::Ascii => Caps::fixed(ColorLevel::Ansi16, true),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Mode::Colour => "colour",
            Mode::NoColor => "nocolor",
            Mode::Ascii => "ascii",
        }
    }
}

fn demo_step(h: &mut Harness, n: usize) {
    h.keys(&format!(":demo {n}"));
    h.key(KeyCode::Enter);
}

type Setup = fn(Caps) -> Harness;

/// Captured demo evidence (responses, a batch stream, a bad and a good fixture run),
/// written once per test process.
fn evidence_dir() -> PathBuf {
    static D: OnceLock<PathBuf> = OnceLock::new();
    D.get_or_init(|| {
        // rewritten on every run, under target/ (never in the system temp folder)
        let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("snap-evidence");
        toolscope::tui::harness::write_demo_evidence(&d).expect("demo evidence");
        d
    })
    .clone()
}

fn evidence(c: Caps, file: &str) -> Harness {
    Harness::opened(c, Source::Evidence(evidence_dir().join(file)))
}

fn bad_vs_good(c: Caps) -> Harness {
    let d = evidence_dir();
    Harness::opened(c, Source::Diff(d.join("bad"), d.join("good")))
}

/// Every screen, as a setup on a fresh harness.
const SCREENS: &[(&str, Setup)] = &[
    ("explore", |c| Harness::demo(c)),
    ("detail", |c| {
        let mut h = Harness::demo(c);
        demo_step(&mut h, 4);
        h.keys("j");
        h.key(KeyCode::Enter);
        h
    }),
    ("detail_json", |c| {
        let mut h = Harness::demo(c);
        h.keys("2o");
        h.keys("G");
        h
    }),
    ("detail_learning", |c| {
        let mut h = Harness::demo(c);
        h.app.set_learning(vec![serde_json::json!({
            "query_fingerprint": "f2430a572176f81f", "query_family": "approve refund",
            "collection_id": "demo", "status": "promoted", "observations": 2,
            "prior_failure_count": 0, "evidence_sources": ["run"],
            "id": "target_preference:8cee9fc7a14e8fc2", "type": "target_preference",
            "target": "cancelOrder"
        })]);
        demo_step(&mut h, 4);
        h.keys("jj");
        h.key(KeyCode::Enter);
        h.render(120, 40);
        h.keys("G");
        h
    }),
    ("selector", |c| {
        let mut h = Harness::demo(c);
        demo_step(&mut h, 7);
        h.keys("3");
        h
    }),
    ("graph", |c| {
        let mut h = Harness::demo(c);
        demo_step(&mut h, 4);
        h.keys("4j");
        h.key(KeyCode::Enter);
        h
    }),
    ("subgraph", |c| {
        let mut h = Harness::demo(c);
        demo_step(&mut h, 5);
        h.keys("5");
        h
    }),
    ("input", |c| {
        let mut h = Harness::demo(c);
        h.keys("/");
        h.press(KeyCode::Char('u'), KeyModifiers::CONTROL);
        h.keys("주문 취소해줘");
        h
    }),
    ("empty", |c| {
        let mut h = Harness::demo(c);
        h.keys(":query zzqx flurble");
        h.key(KeyCode::Enter);
        h
    }),
    ("zoom_selector", |c| {
        let mut h = Harness::demo(c);
        demo_step(&mut h, 11);
        h.keys("3z");
        h
    }),
    ("help", |c| {
        let mut h = Harness::demo(c);
        h.keys("?");
        h
    }),
    ("help_filtered", |c| {
        let mut h = Harness::demo(c);
        h.keys("?");
        h.keys("graph");
        h
    }),
    ("help_find", |c| {
        let mut h = Harness::demo(c);
        h.keys("?");
        h.press(KeyCode::Char('f'), KeyModifiers::CONTROL);
        h.keys("pane");
        h.key(KeyCode::Enter);
        // the runtime renders after every key: the render counts the matches n steps
        h.render(120, 40);
        h.keys("n");
        h
    }),
    ("palette", |c| {
        let mut h = Harness::demo(c);
        h.keys(":llm getP");
        h
    }),
    ("copied", |c| {
        let mut h = Harness::demo(c);
        h.keys("y");
        h
    }),
    ("explain", |c| {
        let mut h = Harness::demo(c);
        demo_step(&mut h, 4);
        h.keys("j6");
        h
    }),
    ("explain_chips", |c| {
        let mut h = Harness::demo(c);
        demo_step(&mut h, 4);
        h.keys("j6v");
        h
    }),
    ("explain_selector", |c| {
        let mut h = Harness::demo(c);
        demo_step(&mut h, 7);
        h.keys("6:metric selector.confidence");
        h.key(KeyCode::Enter);
        h
    }),
    ("trace", |c| {
        let mut h = Harness::demo(c);
        demo_step(&mut h, 4);
        h.keys("j6]");
        h
    }),
    ("counterfactual", |c| {
        let mut h = Harness::demo(c);
        demo_step(&mut h, 4);
        h.keys("6]]");
        h
    }),
    ("whynot", |c| {
        let mut h = Harness::demo(c);
        h.keys(":query refund an order");
        h.key(KeyCode::Enter);
        h.keys("jjw");
        h
    }),
    ("whynot_probes", |c| {
        let mut h = Harness::demo(c);
        h.keys(":query refund an order");
        h.key(KeyCode::Enter);
        h.keys("jjw");
        h.render(120, 40);
        h.keys("G");
        h
    }),
    ("evidence", |c| evidence(c, "newer.json")),
    ("evidence_row", |c| {
        let mut h = evidence(c, "newer.json");
        h.keys("j2");
        h.render(120, 40);
        h.keys("G");
        h
    }),
    ("evidence_selector", |c| {
        let mut h = evidence(c, "newer.json");
        h.keys("3");
        h
    }),
    ("evidence_selector_block", |c| evidence(c, "selector.json")),
    ("evidence_stream", |c| {
        let mut h = evidence(c, "stream.jsonl");
        h.keys("j");
        h
    }),
    ("diff", bad_vs_good),
    ("diff_detail", |c| {
        let mut h = bad_vs_good(c);
        h.keys("j");
        h.key(KeyCode::Enter);
        h
    }),
    ("graphs", |c| {
        let (a, b) = toolscope::tui::harness::demo_pair();
        let suite = toolscope::tui::harness::demo_suite();
        let mut h = Harness::graphs(c, a, b, Some(suite), None);
        h.keys("jjj");
        h
    }),
    ("graphs_applied", |c| {
        let (a, b) = toolscope::tui::harness::demo_pair();
        let suite = toolscope::tui::harness::demo_suite();
        let mut h = Harness::graphs(c, a, b, Some(suite), None);
        h.keys("jjj");
        h.key(KeyCode::Tab);
        h.keys("x");
        h
    }),
    ("graphs_change", |c| {
        let (a, b) = toolscope::tui::harness::demo_pair();
        let suite = toolscope::tui::harness::demo_suite();
        let mut h = Harness::graphs(c, a, b, Some(suite), None);
        h.keys("jjj");
        h.key(KeyCode::Enter);
        h.key(KeyCode::Enter);
        h
    }),
    ("graphs_tree", |c| {
        let (a, b) = toolscope::tui::harness::demo_pair();
        let mut h = Harness::graphs(c, a, b, None, None);
        h.keys("1jjjj");
        h.key(KeyCode::Enter);
        h
    }),
    ("lab", |c| {
        Harness::lab(c, toolscope::tui::harness::demo_suite(), "demo-suite.json")
    }),
    ("loading", |c| {
        let mut h = Harness::loading(c);
        h.event(AppEvent::Progress(LoadProgress {
            phase: "decompressing".into(),
            fraction: 0.4,
            detail: "12.0 MiB of 30.0 MiB compressed".into(),
        }));
        h
    }),
];

fn colour_name(c: Color) -> String {
    match c {
        Color::Indexed(i) => format!("i{i}"),
        Color::Rgb(r, g, b) => format!("#{r:02x}{g:02x}{b:02x}"),
        other => format!("{other:?}"),
    }
}

/// The screen text, then one style letter per cell, then the legend of the letters.
fn encode(buf: &Buffer, with_styles: bool) -> String {
    let a = buf.area;
    let text = toolscope::tui::export::to_text(buf);
    if !with_styles {
        return text;
    }
    let mut ids: HashMap<(Color, Color, Modifier), char> = HashMap::new();
    let mut legend: Vec<String> = Vec::new();
    let alphabet: Vec<char> = ('a'..='z').chain('A'..='Z').chain('0'..='9').collect();
    let mut rows = String::new();
    for y in a.y..a.y + a.height {
        let mut row = String::new();
        for x in a.x..a.x + a.width {
            let c = &buf[(x, y)];
            let key = (c.fg, c.bg, c.modifier);
            if key == (Color::Reset, Color::Reset, Modifier::empty()) {
                row.push('.');
                continue;
            }
            let next = alphabet.get(ids.len()).copied().unwrap_or('?');
            let id = *ids.entry(key).or_insert_with(|| {
                let mut d = Vec::new();
                if c.fg != Color::Reset {
                    d.push(format!("fg={}", colour_name(c.fg)));
                }
                if c.bg != Color::Reset {
                    d.push(format!("bg={}", colour_name(c.bg)));
                }
                if !c.modifier.is_empty() {
                    d.push(format!("{:?}", c.modifier));
                }
                legend.push(format!("{next} {}", d.join(" ")));
                next
            });
            row.push(id);
        }
        rows.push_str(row.trim_end_matches('.'));
        rows.push('\n');
    }
    format!(
        "{text}--- styles ('.' = default)\n{rows}--- legend\n{}\n",
        legend.join("\n")
    )
}

fn snap(name: &str, content: String) {
    insta::with_settings!({ snapshot_path => "snapshots", prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!(name, content);
    });
}

#[test]
fn every_screen_in_every_mode_and_size() {
    for (screen, setup) in SCREENS {
        for mode in [Mode::Colour, Mode::NoColor, Mode::Ascii] {
            for (w, h) in [(80u16, 24u16), (120, 40)] {
                let mut hs = setup(mode.caps());
                // render twice: the first render measures, the second uses the layout
                hs.render(w, h);
                let buf = hs.render(w, h);
                let styles = !matches!(mode, Mode::Ascii);
                snap(
                    &format!("{screen}_{w}x{h}_{}", mode.name()),
                    encode(&buf, styles),
                );
                if matches!(mode, Mode::Ascii) {
                    let text = toolscope::tui::export::to_text(&buf);
                    // every glyph the app draws is ASCII; only graph content may not be
                    for ch in text.chars() {
                        assert!(
                            ch.is_ascii() || is_hangul(ch),
                            "{screen} {w}x{h}: non-ASCII glyph {ch:?}"
                        );
                    }
                }
            }
        }
    }
}

fn is_hangul(c: char) -> bool {
    matches!(c as u32, 0xac00..=0xd7a3 | 0x3131..=0x318e | 0x1100..=0x11ff)
}

#[test]
fn themes_and_colour_levels() {
    for (kind, level) in [
        (ThemeKind::Light, ColorLevel::Ansi16),
        (ThemeKind::HighContrast, ColorLevel::Ansi16),
        (ThemeKind::Dark, ColorLevel::Ansi256),
        (ThemeKind::Light, ColorLevel::TrueColor),
    ] {
        let mut caps = Caps::fixed(level, false);
        caps.theme = kind;
        let mut h = Harness::demo(caps);
        demo_step(&mut h, 7);
        h.render(120, 40);
        let buf = h.render(120, 40);
        snap(
            &format!("theme_{}_{:?}", kind.as_str(), level).to_lowercase(),
            encode(&buf, true),
        );
    }
}

/// The status bar reads in words when there is room and stays compact at 80 columns:
/// the same demo screen at 80x24, 120x40 and 160x40.
#[test]
fn status_bar_reads_in_words_when_there_is_room() {
    let status = |h: &mut Harness, w: u16, ht: u16| -> (String, Buffer) {
        h.render(w, ht);
        let buf = h.render(w, ht);
        let text = toolscope::tui::export::to_text(&buf);
        let line = text.lines().nth(ht as usize - 2).unwrap_or("").to_string();
        (line, buf)
    };
    let mut h = Harness::demo(Mode::NoColor.caps());
    let (wide, buf) = status(&mut h, 160, 40);
    snap("status_160x40", encode(&buf, false));
    for words in [
        "demo 123 tools 669 edges",
        "intent delete: read 0 write 0 delete 1",
        "top_k 10 depth 2",
        "tokens 1568/2000",
        "visited 72 nodes/67 edges",
    ] {
        assert!(wide.contains(words), "160: {words:?} in {wide:?}");
    }
    let (mid, _) = status(&mut h, 120, 40);
    for words in [
        "intent delete: read 0 write 0 delete 1",
        "tokens 1568/2000",
        "visited 72 nodes/67 edges",
    ] {
        assert!(mid.contains(words), "120: {words:?} in {mid:?}");
    }
    let (narrow, buf) = status(&mut h, 80, 24);
    snap("status_80x24", encode(&buf, false));
    assert!(narrow.contains("delete r0 w0 d1"), "80: {narrow:?}");
    assert!(narrow.contains("vis 72n/67e"), "80: {narrow:?}");
    assert!(!narrow.contains('…'), "80: nothing cut: {narrow:?}");
    // a longer parameter segment shrinks the rest further, never cuts it
    h.keys("h");
    let (narrow, _) = status(&mut h, 80, 24);
    assert!(narrow.contains("hist 1"), "80: {narrow:?}");
    assert!(narrow.contains("tok 1568/2000"), "80: {narrow:?}");
    assert!(!narrow.contains('…'), "80: nothing cut: {narrow:?}");
    let (wide, _) = status(&mut h, 160, 40);
    assert!(wide.contains("top_k 10 depth 2 history 1"), "160: {wide:?}");
    // the help legend explains every segment, readable at 80 columns
    let mut h = Harness::demo(Mode::NoColor.caps());
    h.keys("?status bar");
    let s = h.screen(80, 24);
    let legend: Vec<&str> = s.lines().filter(|l| l.contains("status bar:")).collect();
    assert_eq!(legend.len(), 7, "{s}");
    for l in legend {
        // inside the overlay's frame (the screen behind it shows at the sides)
        let inside = l.split('│').nth(1).unwrap_or(l);
        assert!(!inside.contains('…'), "cut: {l}");
    }
}

/// At 80 columns the help wraps a long entry under its label and never cuts one: every
/// row inside the frame, page by page, ends without an ellipsis, and the longest labels
/// are there whole, with where their keys work.
#[test]
fn help_at_80_columns_wraps_and_never_cuts() {
    let mut h = Harness::demo(Mode::NoColor.caps());
    h.keys("?");
    let mut seen = String::new();
    let mut last = String::new();
    for _ in 0..60 {
        let s = h.screen(80, 24);
        if s == last {
            break;
        }
        // the overlay's content rows: under its title and filter, above its bottom frame
        for l in s.lines().skip(3).take(19) {
            let inside = l.split('│').nth(1).unwrap_or("");
            assert!(!inside.contains('…'), "cut: {l}");
            seen.push_str(inside.trim());
            seen.push(' ');
        }
        last = s;
        h.key(KeyCode::PageDown);
    }
    let seen = seen.split_whitespace().collect::<Vec<_>>().join(" ");
    for whole in [
        "Quit now (always works: while typing, loading or in an overlay) :quit!",
        "Leave the query line (results stay) :done [query line] (not in this pane)",
        "Run the highlighted entry, else the typed command (exact name or unique prefix); empty closes",
    ] {
        assert!(seen.contains(whole), "{whole:?} whole in: {seen}");
    }
}

#[test]
fn small_terminals_collapse_then_say_too_small() {
    let caps = Mode::Colour.caps();
    for (w, h) in [(60u16, 14u16), (40, 10), (39, 10), (80, 9)] {
        let mut hs = Harness::demo(caps.clone());
        hs.render(w, h);
        let buf = hs.render(w, h);
        snap(&format!("small_{w}x{h}"), encode(&buf, false));
    }
    // the other screens collapse too
    let others: [(&str, Setup); 5] = [
        (
            "explain",
            SCREENS[SCREENS.iter().position(|s| s.0 == "explain").unwrap()].1,
        ),
        (
            "counterfactual",
            SCREENS[SCREENS
                .iter()
                .position(|s| s.0 == "counterfactual")
                .unwrap()]
            .1,
        ),
        ("evidence_stream", |c| evidence(c, "stream.jsonl")),
        ("diff", bad_vs_good),
        ("lab", |c| {
            Harness::lab(c, toolscope::tui::harness::demo_suite(), "demo-suite.json")
        }),
    ];
    for (name, setup) in others {
        for (w, h) in [(60u16, 14u16), (40, 10)] {
            let mut hs = setup(caps.clone());
            hs.render(w, h);
            let buf = hs.render(w, h);
            snap(&format!("small_{name}_{w}x{h}"), encode(&buf, false));
        }
    }
    let mut hs = Harness::demo(caps);
    let s = hs.screen(20, 5);
    assert!(s.contains("too small"), "{s}");
    assert!(s.contains("20×5"), "{s}");
}

#[test]
fn no_screen_panics_at_any_size() {
    let widths = [
        0u16, 1, 2, 5, 10, 20, 39, 40, 41, 55, 79, 80, 100, 119, 120, 200,
    ];
    let heights = [
        0u16, 1, 2, 3, 5, 9, 10, 11, 12, 13, 15, 16, 20, 24, 29, 30, 40, 60,
    ];
    for (screen, setup) in SCREENS {
        for mode in [Mode::Colour, Mode::Ascii] {
            let mut h = setup(mode.caps());
            for &w in &widths {
                for &hh in &heights {
                    let _ = h.render(w, hh);
                }
            }
            // 20x5 and 1x1 explicitly, after moving around at that size
            for (w, hh) in [(20u16, 5u16), (1, 1)] {
                h.render(w, hh);
                for k in ["j", "k", "G", "g"] {
                    h.keys(k);
                    h.render(w, hh);
                }
                h.key(KeyCode::PageDown);
                let b = h.render(w, hh);
                assert_eq!(b.area.width, w, "{screen}");
            }
        }
    }
}

/// A graph whose tool names, descriptions and edge evidence hold escape sequences,
/// control characters and bidi overrides.
fn evil_engine() -> Arc<Engine> {
    let json = r#"{
      "graph": {"nodes": [
          {"id": "evil\u001b]52;c;QUFBQQ==\u0007Tool", "node_type": "tool"},
          {"id": "listEvil", "node_type": "tool"}],
        "edges": [{"source": "listEvil", "target": "evil\u001b]52;c;QUFBQQ==\u0007Tool",
                   "relation": "requires\u001b[31m", "confidence": "EXTRACTED",
                   "evidence": "pwned \u001b[2J\u001b[H cleared \u202eevil\u202c"}]},
      "tools": {
        "evil\u001b]52;c;QUFBQQ==\u0007Tool": {
          "name": "evil\u001b]52;c;QUFBQQ==\u0007Tool",
          "description": "delete evil things \u001b[2J\u001b[H\u001b]0;title\u0007 \u0008\u0008 \u202egnirts\u202c \u009b31m done",
          "tags": ["x\u001b[5mblink"],
          "metadata": {"method": "delete", "path": "/evil/\u001b[1m{id}"}},
        "listEvil": {"name": "listEvil", "description": "list evil things"}
      }
    }"#;
    let g =
        toolscope::model::load::load_graph_bytes("evil.json", json.as_bytes().to_vec()).unwrap();
    Arc::new(Engine::new(g))
}

#[test]
fn escape_sequences_in_inputs_render_harmlessly() {
    let engine = evil_engine();
    let mut h = Harness::with(
        Mode::Colour.caps(),
        Source::File("evil.json".into()),
        engine,
        Some("delete evil"),
    );
    assert!(h.app.rows_len() >= 1);
    let mut screens = Vec::new();
    for keys in ["", "2", "3", "4", "5", "2o", "?", ":llm evil"] {
        let mut hh = Harness::with(
            Mode::Colour.caps(),
            Source::File("evil.json".into()),
            evil_engine(),
            Some("delete evil"),
        );
        hh.keys(keys);
        if keys == "4" {
            // also the neighbour's evidence
            hh.keys("j");
        }
        hh.render(120, 40);
        screens.push((keys, hh.render(120, 40)));
    }
    h.keys("y");
    assert_eq!(h.emitted.len(), 1, "only our own OSC 52 is emitted");
    for (keys, buf) in &screens {
        for cell in buf.content() {
            for ch in cell.symbol().chars() {
                let bad = ch.is_control()
                    || matches!(ch as u32, 0x202a..=0x202e | 0x2066..=0x2069 | 0x200e | 0x200f);
                assert!(
                    !bad,
                    "after {keys:?}: control or bidi character {ch:?} on screen"
                );
            }
        }
        let text = toolscope::tui::export::to_text(buf);
        if *keys == "2o" {
            // the tool JSON shows escapes as JSON text (\u001b), never as raw bytes
            assert!(text.contains("\\u001b[2J"), "{text}");
            continue;
        }
        residues_follow_a_visible_esc(&text, keys);
    }
    let detail = toolscope::tui::export::to_text(&screens[1].1);
    // the sanitiser shows what it found (an operator sees the name was hostile)
    assert!(detail.contains("\\x1b[2J"), "{detail}");
    assert!(
        detail.contains("evil\\x1b]52;c;QUFBQQ==\\x07Tool"),
        "{detail}"
    );
    assert!(detail.contains("\\u{202e}gnirts"), "{detail}");
    assert!(detail.contains("\\x08"), "{detail}");
    let _ = demo_engine();
}

/// Issue 6's check: the demo suite captured twice (a bad run with graph expansion off and a
/// good run with the defaults) opens in the Diff screen with every case paired, nothing
/// unreadable, and the changes named.
#[test]
fn a_captured_bad_run_and_a_good_run_of_the_demo_diff_cleanly() {
    let d = evidence_dir();
    let mut h = bad_vs_good(Mode::Colour.caps());
    let v = h.app.diffv.as_ref().unwrap();
    assert!(v.errors.is_empty(), "{:?}", v.errors);
    assert!(h.app.flash.is_none(), "{:?}", h.app.flash);
    assert_eq!(v.cases.len(), 6);
    assert!(v.cases.iter().all(|c| c.diff.only_in.is_none()));
    // depth 0 keeps only the seeds: every case gains the graph-expanded tools
    assert!(v.cases.iter().all(|c| c.diff.changed()));
    let orders = v.cases.iter().find(|c| c.diff.id == "orders").unwrap();
    assert_ne!(orders.diff.selected.0, orders.diff.selected.1);
    for (w, hh) in [(80u16, 24u16), (120, 40)] {
        h.render(w, hh);
        let buf = h.render(w, hh);
        let text = toolscope::tui::export::to_text(&buf);
        assert!(text.contains("6 of 6 cases changed"), "{text}");
        assert!(!text.contains("unreadable"), "{text}");
        snap(&format!("diff_bad_vs_good_{w}x{hh}"), encode(&buf, true));
    }
    let _ = d;
}

/// Evidence whose names, keys and values hold escape sequences, control characters and
/// bidi overrides is drawn harmlessly on every tab.
#[test]
fn escape_sequences_in_evidence_render_harmlessly() {
    let d = std::env::temp_dir().join(format!("toolscope-evil-ev-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let evil = r#"{"results": [{"name": "evil\u001b]52;c;QUFBQQ==\u0007Tool", "score": 1.0,
        "tool": {"name": "x", "description": "pwned \u001b[2J\u001b[H cleared \u202eevil\u202c",
                 "metadata": {"method": "get\u001b[31m", "path": "/e/\u001b[1m{id}"}},
        "score_breakdown": {"seed": 1.0, "graph": 0.0, "learning": 0.0, "x\u001b[5mblink": 1},
        "semantic_evidence": {"matched_terms": ["a\u0008\u0008b"]},
        "edge_evidence": [{"source": "s\u001b]0;title\u0007", "target": "t", "relation": "r\u009b31m",
                           "evidence": "\u001b[2J"}],
        "expanded_from": "s\u001b]0;title\u0007"}],
        "stats": {"seeds": []},
        "target_selector": {"selected_target": "evil\u001b]52;c;QUFBQQ==\u0007Tool",
                            "reason_codes": ["code\u001b[31m"], "new\u001b[2Jkey": "\u202e"},
        "unknown\u001b[1m": "\u001b]52;c;QUFBQQ==\u0007"}"#;
    std::fs::write(d.join("evil.json"), evil).unwrap();
    for keys in ["", "2", "2G", "3", "4", "4G", "2o", "4o"] {
        let mut h = Harness::opened(Mode::Colour.caps(), Source::Evidence(d.join("evil.json")));
        assert!(h.app.evidence.as_ref().unwrap().set.errors.is_empty());
        h.render(120, 40);
        h.keys(keys);
        h.render(120, 40);
        let buf = h.render(120, 40);
        for cell in buf.content() {
            for ch in cell.symbol().chars() {
                let bad = ch.is_control()
                    || matches!(ch as u32, 0x202a..=0x202e | 0x2066..=0x2069 | 0x200e | 0x200f);
                assert!(!bad, "after {keys:?}: control or bidi character {ch:?}");
            }
        }
        let text = toolscope::tui::export::to_text(&buf);
        if keys.ends_with('o') || keys.starts_with('4') {
            // unfolded JSON and unknown keys' values show escapes as JSON text (\u001b),
            // never as raw bytes
            if keys.starts_with('4') {
                assert!(text.contains("\\u001b]52"), "{text}");
            }
            continue;
        }
        residues_follow_a_visible_esc(&text, keys);
        if keys.is_empty() {
            assert!(text.contains("evil\\x1b]52;c;QUFBQQ==\\x07Tool"), "{text}");
        }
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// What is left of an escape sequence on screen follows its ESC shown as text (`\x1b`, or
/// `\u001b` in JSON): printable text a terminal does not act on.
fn residues_follow_a_visible_esc(text: &str, keys: &str) {
    for residue in ["[2J", "]52;c", "]0;", "[31m", "[5m", "[1m"] {
        for (at, _) in text.match_indices(residue) {
            let before = &text[..at];
            assert!(
                before.ends_with("\\x1b") || before.ends_with("\\u001b"),
                "after {keys:?}: {residue:?} without its ESC shown in\n{text}"
            );
        }
    }
}

/// The SGR sequences (their parameters) in a terminal byte stream.
fn sgr_params(bytes: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == 0x1b && bytes[i + 1] == b'[' {
            let start = i + 2;
            let mut j = start;
            while j < bytes.len() && (0x20..=0x3f).contains(&bytes[j]) {
                j += 1;
            }
            if j < bytes.len() && bytes[j] == b'm' {
                out.push(String::from_utf8_lossy(&bytes[start..j]).into_owned());
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// SGR parameters that name a colour in the extended syntax (`38;5;N`, `48;2;R;G;B`, …).
fn extended_colours(params: &[String]) -> usize {
    params
        .iter()
        .map(|p| {
            let v: Vec<&str> = p.split(';').collect();
            v.windows(2)
                .filter(|w| matches!(w[0], "38" | "48" | "58") && matches!(w[1], "5" | "2"))
                .count()
        })
        .sum()
}

/// A byte sink the test keeps a handle on while the terminal owns the writer.
#[derive(Clone, Default)]
struct Sink(Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The bytes one frame of `h` writes through the explorer's backend at `level`.
fn frame_bytes(h: &mut Harness, w: u16, ht: u16, level: ColorLevel) -> Vec<u8> {
    use ratatui::layout::Rect;
    use ratatui::{Terminal, TerminalOptions, Viewport};
    h.render(w, ht);
    let sink = Sink::default();
    let backend = toolscope::tui::sgr::backend(sink.clone(), level);
    let mut t = Terminal::with_options(
        backend,
        TerminalOptions {
            viewport: Viewport::Fixed(Rect::new(0, 0, w, ht)),
        },
    )
    .unwrap();
    t.draw(|f| {
        toolscope::tui::views::render(&h.app, f);
    })
    .unwrap();
    drop(t);
    sink.0.lock().unwrap().clone()
}

#[test]
fn sixteen_colours_write_only_the_classic_sgr() {
    let (mut frames, mut before, mut classic) = (0usize, 0usize, 0usize);
    for (screen, setup) in SCREENS {
        for kind in ThemeKind::ALL {
            for (w, ht) in [(80u16, 24u16), (120, 40)] {
                let mut caps = Caps::fixed(ColorLevel::Ansi16, false);
                caps.theme = kind;
                let mut h = setup(caps);
                let out = sgr_params(&frame_bytes(&mut h, w, ht, ColorLevel::Ansi16));
                assert_eq!(
                    extended_colours(&out),
                    0,
                    "{screen} {kind:?} {w}x{ht}: {:?}",
                    out.iter()
                        .filter(|p| extended_colours(std::slice::from_ref(p)) > 0)
                        .take(5)
                        .collect::<Vec<_>>()
                );
                for p in &out {
                    for n in p.split(';').filter_map(|x| x.parse::<u16>().ok()) {
                        // no extended-colour introducer at all, whatever follows it
                        assert!(
                            !matches!(n, 38 | 48 | 58),
                            "{screen} {kind:?} {w}x{ht}: SGR {p}"
                        );
                        if matches!(n, 30..=37 | 90..=97 | 40..=47 | 100..=107) {
                            classic += 1;
                        }
                    }
                }
                // the same frame without the filter: what crossterm writes by itself
                let raw = sgr_params(&frame_bytes(&mut h, w, ht, ColorLevel::Ansi256));
                before += extended_colours(&raw);
                frames += 1;
            }
        }
    }
    eprintln!(
        "{frames} frames at 16 colours: 0 extended-colour SGR ({before} without the filter), \
         {classic} classic colour codes"
    );
    assert!(before > 0 && classic > 0, "{before} {classic}");
}
