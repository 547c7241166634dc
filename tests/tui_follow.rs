//! The Follow screen, headless: a file followed as it grows (records appended between
//! polls, a partial last line that waits for its newline, truncation, rotation, a file
//! that disappears and comes back), each record classified and replayed on the demo graph
//! (the planted drifts of `tests/fixtures/traces/drifts.jsonl` flagged by kind), pause,
//! the filters, Enter into Explore with the Why-not pane and Esc back, and the screen at
//! 80x24 and 120x40.

mod common;
use std::io::Write;
use std::path::{Path, PathBuf};

use ratatui::crossterm::event::KeyCode;
use toolscope::lab::follow::class_index;
use toolscope::tui::app::PaneId;
use toolscope::tui::caps::{Caps, ColorLevel};
use toolscope::tui::harness::Harness;
use toolscope::tui::screens::Screen;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/traces")
        .join(name)
}

/// The demo's reference envelopes, one per line.
fn demo_lines() -> Vec<String> {
    let gz = std::fs::read(fixture("demo.jsonl.gz")).unwrap();
    let bytes = toolscope::limits::gunzip("demo.jsonl.gz", gz).unwrap();
    String::from_utf8(bytes)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(String::from)
        .collect()
}

fn tmp(name: &str) -> PathBuf {
    common::tmp_dir("follow", name)
}

fn append(p: &Path, s: &str) {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(p)
        .unwrap();
    f.write_all(s.as_bytes()).unwrap();
}

fn caps() -> Caps {
    Caps::fixed(ColorLevel::Mono, false)
}

#[test]
fn records_arrive_as_written_and_the_reference_envelopes_reproduce() {
    let dir = tmp("grow");
    let log = dir.join("prod.jsonl");
    let lines = demo_lines();
    append(&log, &format!("{}\n", lines[..10].join("\n")));
    let mut h = Harness::follow(caps(), &log, true);
    assert_eq!(h.app.screen, Screen::Follow);
    h.follow_step(1_000);
    let f = h.app.follow.as_ref().unwrap();
    assert_eq!(f.stream.total.records, 10);
    assert_eq!(
        f.stream.total.statuses[0], 10,
        "every reference envelope reproduces"
    );
    // a partial last line waits for its newline
    let (a, b) = lines[10].split_at(lines[10].len() / 2);
    append(&log, a);
    h.follow_step(2_000);
    assert_eq!(h.app.follow.as_ref().unwrap().stream.total.records, 10);
    append(&log, &format!("{b}\n{}\n", lines[11..].join("\n")));
    h.follow_step(3_000);
    let f = h.app.follow.as_ref().unwrap();
    assert_eq!(f.stream.total.records as usize, lines.len());
    assert_eq!(
        f.stream.total.statuses[0] as usize,
        lines.len(),
        "{} reference envelopes, all reproduced",
        lines.len()
    );
    assert_eq!(f.stream.total.classes[class_index("unreadable")], 0);
    let s = h.screen(120, 40);
    assert!(s.contains(&format!("{} records", lines.len())), "{s}");
    assert!(s.contains(&format!("{} reproduced", lines.len())), "{s}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn planted_drifts_are_flagged_by_kind_and_bad_lines_are_listed() {
    let dir = tmp("drift");
    let log = dir.join("prod.jsonl");
    let mut h = Harness::follow(caps(), &log, true);
    h.follow_step(0);
    let s = h.screen(80, 24);
    assert!(s.contains("waiting for it"), "a missing file is said: {s}");
    assert_eq!(s.matches("waiting").count(), 1, "said once: {s}");
    std::fs::copy(fixture("drifts.jsonl"), &log).unwrap();
    append(&log, "not json at all\n");
    h.follow_step(1_000);
    let f = h.app.follow.as_ref().unwrap();
    assert!(f.missing.is_none(), "the file appeared");
    // seven lines of the fixture (the seventh a torn envelope), then the junk line
    assert_eq!(f.stream.total.records, 8);
    assert_eq!(
        f.stream.total.drifts,
        [1, 1, 1, 1],
        "one drift of each kind"
    );
    assert_eq!(f.stream.total.statuses[1], 4);
    let unreadable = f.stream.total.classes[class_index("unreadable")];
    assert_eq!(
        unreadable, 3,
        "the v2.0 envelope, the torn line and the junk line"
    );
    assert!(
        f.stream
            .errors
            .iter()
            .any(|(p, why)| p == "line 7" && why.starts_with("torn line")),
        "{:?}",
        f.stream.errors
    );
    assert!(
        f.stream
            .errors
            .iter()
            .any(|(_, why)| why.contains("schema_version")),
        "{:?}",
        f.stream.errors
    );
    // only the drifted ones
    h.keys("d");
    let f = h.app.follow.as_ref().unwrap();
    assert_eq!(f.visible().len(), 4);
    let s = h.screen(120, 40);
    assert!(
        s.contains(
            "drifted by kind version_skew 1 • stale_artifact 1 • parameters_differ 1 • unexplained 1"
        ),
        "{s}"
    );
    assert!(s.contains("! "), "drifted rows are marked: {s}");
    // the record under the cursor (the newest drifted) says where it differs
    assert!(s.contains("first difference /spans/0/decisions/"), "{s}");
    assert!(s.contains("drifted: unexplained"), "{s}");
    h.keys("x");
    assert_eq!(h.app.follow.as_ref().unwrap().visible().len(), 8);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn pause_filters_enter_and_back() {
    let dir = tmp("keys");
    let log = dir.join("prod.jsonl");
    let lines = demo_lines();
    append(&log, &format!("{}\n", lines[..20].join("\n")));
    let mut h = Harness::follow(caps(), &log, true);
    h.follow_step(1_000);
    h.key(KeyCode::Char(' '));
    append(&log, &format!("{}\n", lines[20..25].join("\n")));
    h.follow_step(2_000);
    let f = h.app.follow.as_ref().unwrap();
    assert_eq!((f.visible().len(), f.stream.total.records), (20, 25));
    assert!(h.screen(80, 24).contains("PAUSED (+5 new"));
    h.key(KeyCode::Char(' '));
    assert_eq!(h.app.follow.as_ref().unwrap().visible().len(), 25);
    // one class at a time, the classes with records in turn
    h.keys("c");
    let f = h.app.follow.as_ref().unwrap();
    let class = f.filter.class.expect("a class");
    assert!(f.visible().iter().all(|&i| f.stream.ring[i].class == class));
    h.keys(":class all");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.follow.as_ref().unwrap().filter.class, None);
    // text filter through the palette
    h.keys(":grep coupon");
    h.key(KeyCode::Enter);
    let f = h.app.follow.as_ref().unwrap();
    let n = f.visible().len();
    assert!((1..25).contains(&n), "{n}");
    h.keys("x");
    // Enter: the newest record in Explore, with its parameters and the Why-not pane
    let e = h.app.follow.as_ref().unwrap().current().unwrap().clone();
    h.key(KeyCode::Enter);
    assert_eq!(h.app.screen, Screen::Explore);
    assert_eq!(h.app.query.text, e.query.clone().unwrap());
    assert_eq!(h.app.params.top_k, e.knobs.as_ref().unwrap().params.top_k);
    assert_eq!(h.app.drill, PaneId::WhyNot);
    let s = h.screen(80, 24);
    assert!(s.contains(&format!("follow › line {}", e.line)), "{s}");
    h.key(KeyCode::Esc);
    assert_eq!(h.app.screen, Screen::Follow);
    assert_eq!(
        h.app.follow.as_ref().unwrap().current().unwrap().seq,
        e.seq,
        "back where it was"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn truncation_and_rotation_are_survived_without_a_graph() {
    let dir = tmp("rotate");
    let log = dir.join("prod.jsonl");
    let lines = demo_lines();
    append(&log, &format!("{}\n", lines[..5].join("\n")));
    let mut h = Harness::follow(caps(), &log, false);
    assert!(h.app.engine.is_none());
    h.follow_step(1_000);
    assert_eq!(h.app.follow.as_ref().unwrap().stream.total.records, 5);
    std::fs::write(&log, format!("{}\n", lines[5])).unwrap();
    h.follow_step(2_000);
    std::fs::rename(&log, dir.join("prod.jsonl.1")).unwrap();
    append(&log, &format!("{}\n{}\n", lines[6], lines[7]));
    h.follow_step(3_000);
    let f = h.app.follow.as_ref().unwrap();
    assert_eq!(f.stream.total.records, 8);
    assert_eq!((f.truncations, f.rotations), (1, 1));
    assert!(
        f.stream.total.statuses.iter().all(|n| *n == 0),
        "no graph: no replay"
    );
    let s = h.screen(80, 24);
    assert!(s.contains("rotated 1 · truncated 1"), "{s}");
    assert!(s.contains("no graph"), "{s}");
    // without a graph, the first Enter says that opening a record needs one
    h.key(KeyCode::Enter);
    assert!(h.app.flash.as_ref().unwrap().text.starts_with("no graph"));
    // rewritten in place, longer than before (same inode): a truncation, read from the top
    let six = format!("{}\n", lines[10..16].join("\n"));
    assert!(six.len() > std::fs::metadata(&log).unwrap().len() as usize);
    std::fs::write(&log, &six).unwrap();
    h.follow_step(4_000);
    let f = h.app.follow.as_ref().unwrap();
    assert_eq!((f.truncations, f.stream.total.records), (2, 14));
    let last = f.stream.ring.back().unwrap();
    assert_eq!(last.line, 6, "the new file's line numbers");
    assert_eq!(f.stream.total.classes[class_index("unreadable")], 0);
    // renamed away with no successor yet: rotated (said once), not removed
    std::fs::rename(&log, dir.join("prod.jsonl.2")).unwrap();
    h.follow_step(5_000);
    let s = h.screen(120, 40);
    assert!(
        s.contains("prod.jsonl: rotated (renamed away); waiting for it"),
        "{s}"
    );
    assert_eq!(s.matches("waiting").count(), 1, "{s}");
    append(&log, &format!("{}\n", lines[16]));
    h.follow_step(6_000);
    let f = h.app.follow.as_ref().unwrap();
    assert_eq!((f.rotations, f.missing.as_deref()), (2, None));
    std::fs::remove_file(&log).unwrap();
    h.follow_step(7_000);
    assert_eq!(
        h.app.follow.as_ref().unwrap().missing.as_deref(),
        Some("removed")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_screen_at_both_sizes() {
    let dir = tmp("snap");
    let log = dir.join("prod.jsonl");
    let lines = demo_lines();
    append(&log, &format!("{}\n", lines[..30].join("\n")));
    append(
        &log,
        &std::fs::read_to_string(fixture("drifts.jsonl"))
            .unwrap()
            .lines()
            .take(6)
            .map(|l| format!("{l}\n"))
            .collect::<String>(),
    );
    let mut h = Harness::follow(caps(), &log, true);
    h.follow_step(12_000);
    h.follow_step(25_000);
    // the class table lists the biggest classes first: at 80x24 the biggest is shown
    let f = h.app.follow.as_ref().unwrap();
    let biggest = toolscope::lab::follow::classes()
        .max_by_key(|c| f.stream.total.classes[class_index(c)])
        .unwrap();
    let s = h.screen(80, 24);
    let first_row = s
        .lines()
        .skip_while(|l| !(l.contains("class") && l.contains("total")))
        .nth(1)
        .unwrap_or("");
    assert!(
        first_row
            .trim_start_matches(|c: char| !c.is_alphanumeric())
            .starts_with(biggest),
        "{biggest}: {s}"
    );
    insta::assert_snapshot!("follow_80x24", h.screen(80, 24));
    insta::assert_snapshot!("follow_120x40", h.screen(120, 40));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Trial 2026-12-05 items 5 and 6: a record older than the ring is read again by its
/// byte offset (`o`, `:offset BYTE`) and opened like any other; the Record pane shows a
/// redacted parameter as recorded, never the default; Help lists the command.
#[test]
fn an_old_record_is_read_again_by_its_offset() {
    let dir = tmp("offset");
    let log = dir.join("prod.jsonl");
    let lines = demo_lines();
    append(&log, &format!("{}\n", lines[..12].join("\n")));
    let mut h = Harness::follow(caps(), &log, true);
    h.app.follow.as_mut().unwrap().stream.ring_cap = 4;
    h.follow_step(1_000);
    let f = h.app.follow.as_ref().unwrap();
    assert_eq!((f.stream.ring.len(), f.stream.dropped), (4, 8));
    assert_eq!(f.stream.ring.front().unwrap().line, 9);
    // line 2 is no longer kept: its offset is the length of line 1 and its newline
    let offset = lines[0].len() + 1;
    let want: serde_json::Value = serde_json::from_str(&lines[1]).unwrap();
    let query = want["attributes"]["query"].as_str().unwrap().to_string();
    h.key(KeyCode::Char('o'));
    h.keys(&offset.to_string());
    h.key(KeyCode::Enter);
    // with a graph it opens in Explore, as Enter does
    assert_eq!(h.app.screen, Screen::Explore, "{:?}", h.app.flash);
    assert_eq!(h.app.query.text, query);
    let flash = &h.app.flash.as_ref().unwrap().text;
    assert!(
        flash.contains("(line 2)") && flash.contains("token_budget not recorded"),
        "{flash}"
    );
    h.key(KeyCode::Esc);
    assert_eq!(h.app.screen, Screen::Follow);
    let f = h.app.follow.as_ref().unwrap();
    let e = f.current().unwrap();
    assert_eq!((e.line, e.offset as usize), (2, offset));
    assert_eq!(e.replay.as_ref().unwrap().status.name(), "reproduced");
    let s = h.screen(120, 40);
    assert!(s.contains(&format!("prod.jsonl:2 at byte {offset}")), "{s}");
    assert!(s.contains("read again by its offset"), "{s}");
    // the recorded parameter, not the default the replay would put in its place
    assert!(s.contains("token_budget=[REDACTED]"), "{s}");
    assert!(!s.contains("token_budget=2000"), "{s}");
    // a move in the list goes back to it
    h.key(KeyCode::Up);
    assert!(h.app.follow.as_ref().unwrap().pinned.is_none());
    // an offset inside a line names where the line starts; past the end says so
    h.keys(&format!(":offset {}", offset + 3));
    h.key(KeyCode::Enter);
    let flash = &h.app.flash.as_ref().unwrap().text;
    assert!(
        flash.contains(&format!("is inside line 2 (it starts at byte {offset})")),
        "{flash}"
    );
    h.keys(":offset 99999999");
    h.key(KeyCode::Enter);
    assert!(
        h.app.flash.as_ref().unwrap().text.contains("past the end"),
        "{:?}",
        h.app.flash
    );
    h.keys(":offset ten");
    h.key(KeyCode::Enter);
    assert!(
        h.app
            .flash
            .as_ref()
            .unwrap()
            .text
            .contains("give a byte offset"),
        "{:?}",
        h.app.flash
    );
    // Help lists it
    h.key(KeyCode::Char('?'));
    h.keys("offset");
    let s = h.screen(120, 40);
    assert!(s.contains("byte offset of the file again"), "{s}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Without a graph `:offset` shows the record read again in the Record pane, and says
/// that opening it in Explore needs a graph.
#[test]
fn without_a_graph_an_offset_shows_the_record() {
    let dir = tmp("offset-nograph");
    let log = dir.join("prod.jsonl");
    let lines = demo_lines();
    append(&log, &format!("{}\n", lines[..3].join("\n")));
    let mut h = Harness::follow(caps(), &log, false);
    h.follow_step(1_000);
    h.keys(":offset 0");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.screen, Screen::Follow);
    let flash = &h.app.flash.as_ref().unwrap().text;
    assert!(
        flash.contains("line 1 at byte 0, read again") && flash.contains("needs a graph"),
        "{flash}"
    );
    assert_eq!(h.app.follow.as_ref().unwrap().current().unwrap().line, 1);
    std::fs::remove_dir_all(&dir).unwrap();
}
