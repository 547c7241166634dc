//! The one record reader's rules: which rows a record has, unknown keys kept at every
//! level (trace envelopes included), and the walk's JSON Lines/document decision.
#![cfg(test)]

use super::walk::items_of;
use super::*;

fn parse(s: &str) -> RunRecord {
    let v: Value = serde_json::from_str(s).unwrap();
    RunRecord::parse(&v, "f").unwrap().unwrap()
}

fn names(r: &RunRecord) -> Vec<&str> {
    r.rows.iter().map(|x| x.name.as_str()).collect()
}

#[test]
fn a_records_own_rows_come_before_the_expected_ones() {
    // a response with a label: its rows are its results (the audit's both.json)
    let both = parse(
        r#"{"id":"c1","query":"approve refund","results":[{"name":"approveRefund","score":1.0}],
            "expected":{"retrieval":{"results":[{"name":"getRefund","score":1.0}]}}}"#,
    );
    assert_eq!(names(&both), ["approveRefund"]);
    assert_eq!(both.kind, RecordKind::Response);
    assert_eq!(both.rows[0].at, "/results/0");
    // a golden case has none of its own: the reference's answer
    let golden = parse(
        r#"{"id":"g","query":"q","expected":{"retrieval":{"results":[{"name":"getRefund"}],
            "stats":{"seeds":["getRefund"]}},"selection":{"selected_target":"getRefund"}}}"#,
    );
    assert_eq!(names(&golden), ["getRefund"]);
    assert_eq!(golden.kind, RecordKind::GoldenCase);
    assert_eq!(golden.rows[0].at, "/expected/retrieval/results/0");
    assert_eq!(golden.rows[0].why, Why::Seed(Some(1)));
    assert_eq!(golden.selected_target.as_deref(), Some("getRefund"));
    // a fixture: the full ranking over its top 3; a batch line: its retrieval
    let fixture = parse(
        r#"{"case_id":"x","ranking":[{"name":"a"},{"name":"b"}],"actual_top_3":[{"name":"z"}]}"#,
    );
    assert_eq!(names(&fixture), ["a", "b"]);
    assert_eq!(fixture.kind, RecordKind::Fixture);
    let batch =
        parse(r#"{"id":"b","retrieval":{"results":["a",{"tool":"b"}]},"results":[{"name":"z"}]}"#);
    assert_eq!(names(&batch), ["a", "b"]);
    assert_eq!(batch.rows[1].name_pointer(), "/retrieval/results/1/tool");
    // a selector block alone: its candidates in retrieval order
    let block = parse(
        r#"{"selected_target":"b","rank_signals":[{"name":"b","original_rank":2,"retrieval_score":0.5},
            {"name":"a","original_rank":1,"retrieval_score":0.9}]}"#,
    );
    assert_eq!(block.kind, RecordKind::SelectorBlock);
    assert_eq!(names(&block), ["a", "b"]);
    assert_eq!(block.rows[0].why, Why::Rank(1));
    assert_eq!(
        block.rows[0].score_pointer(),
        "/rank_signals/1/retrieval_score"
    );
}

#[test]
fn unknown_keys_are_kept_once_with_their_paths() {
    let r = parse(
        r#"{"results": [{"name": "a", "score": 1.0, "novel": 3,
            "score_breakdown": {"seed": 1.0, "graph": 0.0, "learning": 0.0, "new_signal": 0.5},
            "semantic_evidence": {"action_match": true, "matched_terms": ["x"]},
            "edge_evidence": [{"source": "s", "target": "a", "weight": 2}]}],
            "stats": {"seeds": ["a"], "gpu": true}, "engine_rev": "9",
            "target_selector": {"selected_target": "a", "x_sel": 1}}"#,
    );
    assert_eq!(r.kind, RecordKind::Response);
    let keys: Vec<&str> = r.unknown.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["engine_rev", "target_selector.x_sel", "stats.gpu"]);
    let rk: Vec<&str> = r.rows[0].unknown.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        rk,
        [
            "novel",
            "score_breakdown.new_signal",
            "edge_evidence[0].weight"
        ]
    );
    assert_eq!(r.rows[0].why, Why::Seed(Some(1)));
    assert_eq!(r.rows[0].badges[0], Some(true));
    assert_eq!(r.rows[0].matched, ["x"]);
    assert_eq!(r.unknown_count(), 6);
}

#[test]
fn a_trace_envelope_keeps_its_unknown_keys_at_every_level() {
    let mut v: Value =
        serde_json::from_str(include_str!("../../../tests/fixtures/traces/demo-one.json")).unwrap();
    v["x_custom"] = serde_json::json!({"a": 1});
    v["spans"][0]["x_span_extra"] = Value::from(true);
    v["spans"][0]["decisions"][1]["x_decision"] = Value::from(2);
    v["spans"][0]["decisions"][1]["evidence"]["x_evidence"] = Value::from(3);
    v["spans"][1]["decisions"][0]["x_sel_decision"] = Value::from(4);
    v["spans"][1]["events"] = serde_json::json!([{"name": "e", "timestamp": "t", "x_ev": 5}]);
    let r = RunRecord::parse(&v, "f").unwrap().unwrap();
    assert_eq!(r.kind, RecordKind::TraceEnvelope);
    assert_eq!(r.id, "trace-00001");
    let keys: Vec<&str> = r.unknown.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        keys,
        [
            "x_custom",
            "spans[0].x_span_extra",
            "spans[1].events[0].x_ev",
            "spans[1].decisions[0].x_sel_decision"
        ]
    );
    let row = r.rows.iter().find(|x| !x.unknown.is_empty()).unwrap();
    let rk: Vec<&str> = row.unknown.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(rk, ["x_decision", "evidence.x_evidence"]);
    assert_eq!(row.at, "/spans/0/decisions/1");
    assert_eq!(row.name_pointer(), "/spans/0/decisions/1/subject");
    // the reference's own keys are all known
    let clean: Value =
        serde_json::from_str(include_str!("../../../tests/fixtures/traces/demo-one.json")).unwrap();
    assert_eq!(
        RunRecord::parse(&clean, "f")
            .unwrap()
            .unwrap()
            .unknown_count(),
        0
    );
    // another schema is an error naming it
    v["schema_version"] = Value::from("2.0");
    let e = RunRecord::parse(&v, "f").unwrap_err();
    assert_eq!(e.pointer, "/schema_version");
    assert!(e.message.contains("\"2.0\""), "{e:?}");
}

fn read_all(items: Items) -> Vec<Result<(String, Value), String>> {
    items
        .map(|it| {
            it.into_value()
                .map(|(v, o)| (o.label, v))
                .map_err(|e| e.to_string())
        })
        .collect()
}

fn labels(r: &[Result<(String, Value), String>]) -> Vec<String> {
    r.iter()
        .map(|x| match x {
            Ok((l, _)) => l.clone(),
            Err(e) => format!("ERR {e}"),
        })
        .collect()
}

fn stream(text: &str) -> Vec<String> {
    labels(&read_all(
        items_of(std::io::Cursor::new(text.as_bytes().to_vec()), "s.jsonl").unwrap(),
    ))
}

#[test]
fn a_bad_first_line_is_one_error_of_a_json_lines_stream() {
    let rec = r#"{"results": [{"name": "a"}]}"#;
    // garbage, a torn record, and garbage later: each an error at its line
    let got = stream(&format!("garbage first line\n{rec}\n{rec}\n"));
    assert_eq!(got.len(), 3, "{got:?}");
    assert!(got[0].starts_with("ERR s.jsonl:1:"), "{got:?}");
    assert_eq!(got[1..], ["s.jsonl:2", "s.jsonl:3"]);
    let got = stream(&format!(
        "{{\"results\": [{{\"name\": \"a\"\n{rec}\n\n{rec}\nnope\n"
    ));
    assert!(got[0].starts_with("ERR s.jsonl:1:"), "{got:?}");
    assert_eq!(got[1..3], ["s.jsonl:2", "s.jsonl:4"]);
    assert!(got[3].starts_with("ERR s.jsonl:5:"), "{got:?}");
    // a pretty document is one document, a list of compact lines too
    let pretty =
        serde_json::to_string_pretty(&serde_json::json!([{"a": [1, {}]}, {"b": 2}])).unwrap();
    assert_eq!(stream(&pretty), ["s.jsonl#1", "s.jsonl#2"]);
    assert_eq!(
        stream("[\n{\"a\": 1},\n{\"b\": 2}\n]\n"),
        ["s.jsonl#1", "s.jsonl#2"]
    );
    // a pretty document cut short, or nothing but garbage: one error where it breaks
    let cut = stream(&pretty[..pretty.len() / 2]);
    assert_eq!(cut.len(), 1);
    assert!(cut[0].contains("truncated JSON"), "{cut:?}");
    let junk = stream("garbage\nat all\n");
    assert_eq!(junk.len(), 1);
    assert!(junk[0].contains("s.jsonl:1:1: not JSON"), "{junk:?}");
    // a compact list on one line is a list; an empty input has nothing
    assert_eq!(stream("[{\"a\":1},{\"b\":2}]"), ["s.jsonl#1", "s.jsonl#2"]);
    let empty = stream("\n  \n");
    assert_eq!(empty.len(), 1);
    assert!(empty[0].contains("empty: expected evidence"), "{empty:?}");
}

#[test]
fn a_one_line_file_is_one_document_and_gzip_is_read_as_it_streams() {
    use std::io::Write;
    let dir = crate::testutil::scratch("walk");
    let one = dir.join("one.json");
    std::fs::write(&one, "{\"results\": [{\"name\": \"a\"}]}\n\n").unwrap();
    let got = read_all(Items::open(one.to_str().unwrap()).unwrap());
    assert_eq!(labels(&got), ["one.json"]);
    let gz = dir.join("two.jsonl.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(b"{\"id\": 1}\n\n{\"id\": 2}\n").unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    let got = read_all(Items::open(gz.to_str().unwrap()).unwrap());
    assert_eq!(labels(&got), ["two.jsonl.gz:1", "two.jsonl.gz:3"]);
    let _ = std::fs::remove_dir_all(&dir);
}
