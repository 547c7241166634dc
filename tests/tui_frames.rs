//! The frame keeps its shape whatever text the inputs carry: tool names, descriptions,
//! tags and edge evidence drawn from random Unicode (controls, escape sequences, bidi and
//! zero-width characters, joiners, separators, tags, combining marks, wide CJK and emoji)
//! are rendered in every pane at 80x24 and 120x40, and every row of the buffer has exactly
//! the terminal's width in cells, with no hazardous character in any cell and the border
//! glyphs where the layout put them (a property test over random strings).

use proptest::prelude::*;
use ratatui::buffer::Buffer;
use std::sync::Arc;
use toolscope::engine::Engine;
use toolscope::tui::caps::{Caps, ColorLevel};
use toolscope::tui::event::Source;
use toolscope::tui::harness::Harness;
use unicode_width::UnicodeWidthStr;

/// Characters that have broken terminal frames, and ordinary ones around them.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("\u{200b}".to_string()),
        Just("\u{200c}".to_string()),
        Just("\u{200d}".to_string()),
        Just("\u{2060}".to_string()),
        Just("\u{feff}".to_string()),
        Just("\u{ad}".to_string()),
        Just("\u{34f}".to_string()),
        Just("\u{180e}".to_string()),
        Just("\u{2028}".to_string()),
        Just("\u{2029}".to_string()),
        Just("\u{e0041}".to_string()),
        Just("\u{fff9}".to_string()),
        Just("\u{3164}".to_string()),
        Just("\u{fe0f}".to_string()),
        Just("\u{202e}".to_string()),
        Just("\u{2066}".to_string()),
        Just("\u{1b}[2J".to_string()),
        Just("\u{1b}]0;T\u{7}".to_string()),
        Just("\u{9b}31m".to_string()),
        Just("\u{7f}".to_string()),
        Just("\n".to_string()),
        Just("\r".to_string()),
        Just("\t".to_string()),
        Just("👨\u{200d}👩\u{200d}👧".to_string()),
        Just("❤\u{fe0f}".to_string()),
        Just("e\u{301}".to_string()),
        Just("주문".to_string()),
        Just("ｆｕｌｌ".to_string()),
        "[a-z]{1,8}",
        any::<char>().prop_map(|c| c.to_string()),
    ]
}

fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(piece(), 1..12).prop_map(|v| v.concat())
}

fn engine(names: &[String], descs: &[String]) -> Arc<Engine> {
    let mut tools = serde_json::Map::new();
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    for (i, (n, d)) in names.iter().zip(descs).enumerate() {
        let name = format!("{n}{i}");
        nodes.push(serde_json::json!({"id": name, "node_type": "tool"}));
        if i > 0 {
            edges.push(
                serde_json::json!({"source": format!("{}{}", names[0], 0), "target": name,
                "relation": "requires", "confidence": "EXTRACTED", "evidence": d}),
            );
        }
        tools.insert(
            name.clone(),
            serde_json::json!({"name": name, "description": format!("list orders {d}"),
                "tags": [d], "metadata": {"method": "get", "path": format!("/orders/{d}")}}),
        );
    }
    let g = serde_json::json!({"graph": {"nodes": nodes, "edges": edges}, "tools": tools});
    let bytes = serde_json::to_vec(&g).unwrap();
    let graph = toolscope::model::load::load_graph_bytes("frames.json", bytes).unwrap();
    Arc::new(Engine::new(graph))
}

/// Checked independently of the sanitiser's own rule: controls, format characters (bidi,
/// zero-width, tags, BOM, soft hyphen), line and paragraph separators, variation
/// selectors, the combining grapheme joiner and the Hangul fillers.
fn hazardous(c: char) -> bool {
    use unicode_general_category::{GeneralCategory as G, get_general_category};
    matches!(
        get_general_category(c),
        G::Control | G::Format | G::LineSeparator | G::ParagraphSeparator
    ) || matches!(c as u32, 0xfe00..=0xfe0f | 0xe0100..=0xe01ef | 0x34f | 0x115f | 0x1160 | 0x3164 | 0xffa0)
}

/// Every row is exactly `w` cells wide (wide characters counted as two, their second cell
/// empty) and no cell holds a hazardous character.
fn check(buf: &Buffer, w: u16, what: &str) -> Result<(), TestCaseError> {
    let a = buf.area;
    for y in a.y..a.y + a.height {
        let mut width = 0usize;
        let mut skip = 0usize;
        for x in a.x..a.x + a.width {
            let sym = buf[(x, y)].symbol();
            for c in sym.chars() {
                prop_assert!(!hazardous(c), "{what}: hazardous {:?} at ({x},{y})", c);
            }
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let cw = sym.width().max(1);
            prop_assert!(cw <= 2, "{what}: cell ({x},{y}) {sym:?} is {cw} wide");
            width += cw;
            skip = cw - 1;
        }
        prop_assert_eq!(width, w as usize, "{} row {}", what, y);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_unicode_never_changes_the_frame(
        names in proptest::collection::vec(text(), 3..5),
        descs in proptest::collection::vec(text(), 5),
    ) {
        let e = engine(&names, &descs);
        for (w, h) in [(80u16, 24u16), (120, 40)] {
            for keys in ["", "2", "3", "4", "5", "6", "7", "j2"] {
                let mut hh = Harness::with(
                    Caps::fixed(ColorLevel::Ansi16, false),
                    Source::File("frames.json".into()),
                    e.clone(),
                    Some("list orders"),
                );
                prop_assert!(hh.app.rows_len() >= 3, "every tool is ranked for the query");
                hh.keys(keys);
                let buf = hh.render(w, h);
                check(&buf, w, &format!("{w}x{h} after {keys:?}"))?;
                // the outer border: the pane boxes start and end on the same columns
                let last = buf.area.width - 1;
                for y in 3..h - 3 {
                    let (l, r) = (buf[(0, y)].symbol(), buf[(last, y)].symbol());
                    if w >= 100 {
                        prop_assert!(["│", "╭", "╰", "├", "┤", "╮", "╯", "─"].contains(&l), "left border {l:?} at row {y}");
                        prop_assert!(["│", "╭", "╰", "├", "┤", "╮", "╯", "─"].contains(&r), "right border {r:?} at row {y}");
                    }
                }
            }
        }
    }
}
