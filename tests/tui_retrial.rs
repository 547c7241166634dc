//! The UX re-trial's open defects of issue 17, one test each (keys in, state and frames
//! out); each test's doc names the defect it proves fixed.

use ratatui::crossterm::event::KeyCode;
use toolscope::tui::caps::{Caps, ColorLevel};
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
