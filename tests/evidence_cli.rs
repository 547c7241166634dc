//! The evidence commands on the command line: contracts, explain, trace, counterfactual,
//! and their bad-input answers (never a crash, nothing written).

use assert_cmd::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("toolscope")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn contracts_declare_read_only_and_no_recommendations() {
    let (code, out, _) = run(&["evidence", "contracts", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let list = v.as_array().unwrap();
    assert_eq!(list.len(), 8);
    for c in list {
        assert_eq!(c["read_only"], true);
        assert_eq!(c["returns_action_recommendations"], false);
        assert!(!c["limitations"].as_array().unwrap().is_empty());
        assert!(c["visibility_scope"].is_string());
    }
}

#[test]
fn explain_prints_a_resolved_tree() {
    let (code, out, err) = run(&[
        "explain",
        "demo",
        "refund approval",
        "--tool",
        "listRefunds",
        "--ascii",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("mechanism_status: resolved"), "{out}");
    assert!(
        out.contains("relation weight") && out.contains("bm25_term"),
        "{out}"
    );
    let (code, out, _) = run(&[
        "explain",
        "demo",
        "refund approval",
        "--metric",
        "selector.confidence",
        "--json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["mechanism_status"], "resolved");
}

#[test]
fn trace_and_counterfactual() {
    let (code, out, _) = run(&["trace", "demo", "주문 취소해줘", "--stage", "seeds"]);
    assert_eq!(code, 0);
    assert!(out.contains("seed_chosen"), "{out}");
    let (code, out, _) = run(&[
        "counterfactual",
        "demo",
        "refund approval",
        "--set",
        "relation_weight=requires:0.1",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("mechanism_status: resolved"), "{out}");
    let (code, out, _) = run(&[
        "counterfactual",
        "demo",
        "refund approval",
        "--set",
        "depth=1",
        "--set",
        "top_k=3",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("mechanism_status: partial"), "{out}");
}

#[test]
fn bad_evidence_inputs_are_clear_errors() {
    let (code, _, err) = run(&[
        "evidence",
        "explain_metric",
        "--args",
        "{\"metric_id\": \"nope\", \"query\": \"x\"}",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("unknown metric"), "{err}");
    let (code, _, err) = run(&["evidence", "explain_metric", "--args", "{not json"]);
    assert_eq!(code, 2);
    assert!(err.contains("--args"), "{err}");
    let (code, _, err) = run(&["evidence", "no_such_tool"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown tool"), "{err}");
    let (code, _, err) = run(&["counterfactual", "demo", "x", "--set", "graph=other"]);
    assert_eq!(code, 2);
    assert!(err.contains("not an authorised knob"), "{err}");
    let (code, _, err) = run(&[
        "evidence",
        "compare_bounded_counterfactual",
        "--args",
        "{\"query\": \"x\", \"change\": {\"depth\": \"deep\"}}",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("knob depth"), "{err}");
    assert!(!err.contains("panicked"));
}

#[test]
fn foreign_event_log_with_bad_lines_still_answers() {
    let (code, out, err) = run(&[
        "evidence",
        "trace_event",
        "--registry",
        "assets/examples/dispatch/registry.json",
        "--events",
        "assets/examples/dispatch/events.jsonl",
        "--args",
        "{\"decision_point\": 3}",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning: skipped") && err.contains("events.jsonl:8"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(
        v["events"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["decision_point"].as_i64().unwrap() <= 3)
    );
}
