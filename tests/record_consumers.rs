//! One captured-record reader for every consumer (issue 16 item 2): one file read by the
//! Evidence screen, the Diff screen, `lab diff`, the Follow screen's classifier and
//! `lab replay` gives the same rows in the same order — including a record that carries
//! both its own `results` and a golden `expected.retrieval` (the audit's `both.json`),
//! whose rows are its own results everywhere.

mod common;

use std::path::{Path, PathBuf};

use serde_json::Value;

fn fixture() -> PathBuf {
    let traces = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/traces");
    let env: Value =
        serde_json::from_str(&std::fs::read_to_string(traces.join("demo-one.json")).unwrap())
            .unwrap();
    let lines = [
        // a response with a label: its rows are its results, not the expected ones
        r#"{"id":"c1","query":"approve refund","results":[{"name":"requestRefund","score":1.0},{"name":"approveRefund","score":0.5}],"expected":{"retrieval":{"results":[{"name":"getRefund","score":1.0}]}}}"#.to_string(),
        // a golden case has none of its own: the reference's answer
        r#"{"id":"c2","query":"approve refund","expected":{"retrieval":{"results":[{"name":"getRefund","score":1.0},{"name":"approveRefund","score":0.9}]}}}"#.to_string(),
        // a fixture: its full ranking, not its top 3
        r#"{"case_id":"c3","query":"approve refund","actual_top_3":[{"name":"listRefunds","rank":1}],"ranking":[{"name":"getRefund","rank":1},{"name":"listRefunds","rank":2}],"target_selector":{"selected_target":"getRefund"}}"#.to_string(),
        // a batch line: its retrieval, over a stray top-level results
        r#"{"id":"c4","query":"approve refund","retrieval":{"results":[{"name":"cancelOrder","score":0.4}]},"results":[{"name":"getOrder"}]}"#.to_string(),
        // a trace envelope: its ranked retrieval decisions
        serde_json::to_string(&env).unwrap(),
    ];
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("record-consumers");
    std::fs::create_dir_all(&d).unwrap();
    let f = d.join("both.jsonl");
    std::fs::write(&f, lines.join("\n") + "\n").unwrap();
    f
}

fn env_rows() -> Vec<String> {
    let traces = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/traces");
    let env: Value =
        serde_json::from_str(&std::fs::read_to_string(traces.join("demo-one.json")).unwrap())
            .unwrap();
    let mut ranked: Vec<(u64, String)> = env["spans"][0]["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["outcome"] == "ranked")
        .map(|d| {
            (
                d["rank_after"].as_u64().unwrap(),
                d["subject"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    ranked.sort();
    ranked.into_iter().map(|(_, n)| n).collect()
}

/// What every consumer must see: the rows of each record, in order.
fn want() -> Vec<(String, Vec<String>)> {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        ("c1".into(), s(&["requestRefund", "approveRefund"])),
        ("c2".into(), s(&["getRefund", "approveRefund"])),
        ("c3".into(), s(&["getRefund", "listRefunds"])),
        ("c4".into(), s(&["cancelOrder"])),
        ("trace-00001".into(), env_rows()),
    ]
}

#[test]
fn every_consumer_reads_the_same_rows_in_the_same_order() {
    let f = fixture();
    let want = want();
    // lab diff, lab check and the Diff screen's reader
    let (recs, errors) = toolscope::lab::record::read_records(&f).unwrap();
    assert!(errors.is_empty(), "{errors:?}");
    let got: Vec<(String, Vec<String>)> = recs.iter().map(|r| (r.id.clone(), r.names())).collect();
    assert_eq!(got, want, "lab::record::read_records");
    // the Evidence screen
    let set = toolscope::tui::records::read_set(&f).unwrap();
    let got: Vec<(String, Vec<String>)> = set
        .records
        .iter()
        .map(|r| {
            (
                r.id.clone(),
                r.rows.iter().map(|x| x.name.clone()).collect(),
            )
        })
        .collect();
    assert_eq!(got, want, "Evidence screen");
    // the Diff screen
    let diff = toolscope::tui::screens::load_diff(&f, &f).unwrap();
    let got: Vec<(String, Vec<String>)> =
        diff.a.iter().map(|r| (r.id.clone(), r.names())).collect();
    assert_eq!(got, want, "Diff screen");
    // the Follow screen's classifier: each line's top row
    let text = std::fs::read_to_string(&f).unwrap();
    for (i, (line, (id, rows))) in text.lines().zip(&want).enumerate() {
        let at = toolscope::lab::follow::At {
            seq: i as u64 + 1,
            file_gen: 1,
            line: i as u64 + 1,
            offset: 0,
            at_ms: 0,
        };
        let e = toolscope::lab::follow::classify_line(None, line, true, at);
        assert_eq!(e.id, *id, "Follow");
        assert_eq!(
            e.top.as_deref(),
            rows.first().map(String::as_str),
            "Follow {id}"
        );
    }
    // lab diff: the moves list A's rows in order
    let fs = f.to_str().unwrap();
    let (code, out, err) = common::run(&["lab", "diff", fs, fs, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let got: Vec<(String, Vec<String>)> = v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let tools = c["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["tool"].as_str().unwrap().to_string())
                .collect();
            (c["id"].as_str().unwrap().to_string(), tools)
        })
        .collect();
    assert_eq!(got, want, "lab diff");
}

#[test]
fn replay_compares_the_rows_the_screens_show() {
    let f = fixture();
    let (code, out, err) = common::run(&["lab", "replay", "demo", f.to_str().unwrap(), "--json"]);
    assert_eq!(code, 1, "c1's planted first row drifts: {out}{err}");
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let by = |id: &str| {
        lines
            .iter()
            .find(|l| l["record"].as_str().is_some_and(|r| r.ends_with(id)))
            .unwrap_or_else(|| panic!("{id} in {out}"))
    };
    // c1: compared against its own results (requestRefund first), not expected.retrieval
    let c1 = by(" c1");
    assert_eq!(c1["kind"], "response");
    assert_eq!(c1["status"], "drifted");
    assert_eq!(c1["first_difference"], "/results/0/name", "{c1}");
    assert_eq!(c1["recorded"], "requestRefund", "{c1}");
    // c2: a golden case, against the reference's answer
    let c2 = by(" c2");
    assert_eq!(c2["kind"], "golden case");
    assert!(
        c2["first_difference"]
            .as_str()
            .is_none_or(|p| p.starts_with("/expected/retrieval/results/")),
        "{c2}"
    );
    // c4: the batch line's retrieval, not the stray results
    let c4 = by(" c4");
    assert!(
        c4["first_difference"]
            .as_str()
            .is_none_or(|p| p.starts_with("/retrieval/results/")),
        "{c4}"
    );
    assert_eq!(by("trace-00001")["status"], "reproduced");
}
