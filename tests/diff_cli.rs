//! `toolscope diff OLD NEW`, `counterfactual OLD --against NEW` and the `compare_artifacts`
//! evidence tool on the command line: the
//! demo graph and an edited copy (one description rewritten, one tool added), the JSON
//! contract scripts rely on, attributions that add up, and inputs left untouched.

mod common;

use common::{run, tmp_dir};
use serde_json::{Value, json};
use std::io::Read;
use std::path::PathBuf;

fn demo_value() -> Value {
    let mut text = String::new();
    flate2::read::GzDecoder::new(toolscope::demo::DEMO_GRAPH_GZ)
        .read_to_string(&mut text)
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

/// OLD (the demo) and NEW (getOrder's description names refunds; a new tool lists refunds
/// by order), written to a fresh folder of its own.
fn pair(name: &str) -> (PathBuf, PathBuf) {
    let d = tmp_dir("diffcli", name);
    let old = demo_value();
    let mut new = old.clone();
    let tools = new["tools"].as_object_mut().unwrap();
    tools["getOrder"]["description"] = json!("Returns one order with its refund and refund state");
    let mut added = tools["listOrders"].clone();
    added["name"] = json!("listOrderRefunds");
    added["description"] = json!("Lists the refunds of an order");
    added["metadata"]["path"] = json!("/orders/{orderId}/refunds");
    tools.insert("listOrderRefunds".into(), added);
    let (a, b) = (d.join("old.json"), d.join("new.json"));
    std::fs::write(&a, serde_json::to_vec(&old).unwrap()).unwrap();
    std::fs::write(&b, serde_json::to_vec(&new).unwrap()).unwrap();
    (a, b)
}

fn json_of(out: &str) -> Value {
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

#[test]
fn artifact_diff_json_names_the_changes() {
    let (a, b) = pair("artifact");
    let before = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let (code, out, err) = run(&["diff", a.to_str().unwrap(), b.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let v = json_of(&out);
    for k in ["old", "new", "tools", "edges", "corpus", "versions"] {
        assert!(v.get(k).is_some(), "key {k} missing: {out}");
    }
    assert_eq!(v["tools"]["added"], json!(["listOrderRefunds"]));
    assert_eq!(v["tools"]["removed"], json!([]));
    let changed = v["tools"]["changed"].as_array().unwrap();
    let get = changed
        .iter()
        .find(|c| c["name"] == "getOrder")
        .expect("getOrder changed");
    assert_eq!(get.get("renamed_from"), Some(&Value::Null), "{get}");
    assert!(
        get["fields"]
            .as_array()
            .unwrap()
            .contains(&json!("description")),
        "{get}"
    );
    let docs = v["corpus"]["documents"].as_array().unwrap();
    assert_eq!(
        docs[1].as_u64().unwrap(),
        docs[0].as_u64().unwrap() + 1,
        "one more document: {}",
        v["corpus"]
    );
    // inputs untouched, nothing written beside them
    assert_eq!(std::fs::read(&a).unwrap(), before.0);
    assert_eq!(std::fs::read(&b).unwrap(), before.1);
    assert_eq!(std::fs::read_dir(a.parent().unwrap()).unwrap().count(), 2);
}

#[test]
fn blame_of_one_query_adds_up_and_is_resolved() {
    let (a, b) = pair("blame");
    let (code, out, err) = run(&[
        "diff",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--query",
        "refund state of an order",
        "--expected",
        "getOrder",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json_of(&out);
    assert_eq!(v["case_id"], "query");
    assert_eq!(v["changed"], true, "{out}");
    assert_eq!(v["mechanism_status"], "resolved", "{out}");
    let (o, n) = (
        v["old"]["expected_score"].as_f64().unwrap(),
        v["new"]["expected_score"].as_f64().unwrap(),
    );
    let parts: f64 = v["attribution"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["effect"].as_f64().unwrap())
        .sum::<f64>()
        + v["residual"].as_f64().unwrap();
    assert!((parts - (n - o)).abs() < 1e-9, "{parts} != {} - {}", n, o);
    let groups: Vec<&str> = v["attribution"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["group"].as_str().unwrap())
        .collect();
    assert!(groups.contains(&"getOrder"), "{groups:?}");
    assert!(
        v["headline"].as_str().unwrap().contains("getOrder"),
        "{out}"
    );
}

/// A case whose ranking and selection stay but whose expected tool's score moves (the new
/// tool shifts the corpus statistics) is attributed too: the shares and the residual add
/// up to the score change, never an empty attribution beside a moved score.
#[test]
fn a_score_only_change_is_attributed_and_adds_up() {
    let (a, b) = pair("score-only");
    let (code, out, err) = run(&[
        "diff",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--query",
        "list payments",
        "--expected",
        "getOrderPayment",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json_of(&out);
    assert_eq!(v["changed"], false, "{out}");
    assert_eq!(v["scores_changed"], true, "{out}");
    let (o, n) = (
        v["old"]["expected_score"].as_f64().unwrap(),
        v["new"]["expected_score"].as_f64().unwrap(),
    );
    assert!(o != n, "the expected tool's score moves: {out}");
    let shares = v["attribution"].as_array().unwrap();
    assert!(!shares.is_empty(), "{out}");
    let parts: f64 = shares
        .iter()
        .map(|g| g["effect"].as_f64().unwrap())
        .sum::<f64>()
        + v["residual"].as_f64().unwrap();
    assert!((parts - (n - o)).abs() < 1e-9, "{parts} != {n} - {o}");
    assert_eq!(v["mechanism_status"], "resolved", "{out}");
    assert_eq!(v["method"], "exact", "{out}");
}

/// An expected tool in neither graph is refused with the closest names (exit 2), as
/// `triage` does, instead of silently blaming OLD's top-1.
#[test]
fn an_expected_tool_in_neither_graph_is_refused() {
    let (a, b) = pair("unknown-expected");
    let (code, out, err) = run(&[
        "diff",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--query",
        "refund state of an order",
        "--expected",
        "getOrdr",
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("\"getOrdr\" is a tool of neither graph"),
        "{err}"
    );
    assert!(err.contains("getOrder"), "closest names: {err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn counterfactual_against_a_second_graph() {
    let (a, b) = pair("counterfactual");
    let (sa, sb) = (a.to_str().unwrap(), b.to_str().unwrap());
    let q = "refund state of an order";
    let (code, out, err) = run(&["counterfactual", sa, q, "--against", sb, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v = json_of(&out);
    assert_eq!(v["mechanism_status"], "resolved", "{out}");
    assert_eq!(v["changed_knobs"][0]["knob"], "graph", "{out}");
    let get = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["tool"] == "getOrder")
        .expect("getOrder among the moves");
    assert_eq!(
        (get["base_rank"].as_u64(), get["variant_rank"].as_u64()),
        (Some(2), Some(1)),
        "getOrder's new description lifts it: {out}"
    );
    // the graph and a knob together are confounded
    let (code, out, _) = run(&[
        "counterfactual",
        sa,
        q,
        "--against",
        sb,
        "--set",
        "depth=1",
        "--json",
    ]);
    assert_eq!(code, 0);
    assert_eq!(json_of(&out)["mechanism_status"], "partial", "{out}");
    // text: the columns say old and new
    let (code, out, _) = run(&["counterfactual", sa, q, "--against", sb]);
    assert_eq!(code, 0);
    assert!(out.contains(" old ") && out.contains(" new "), "{out}");
    // a missing second graph is a one-line error naming it, exit 2
    let (code, _, err) = run(&["counterfactual", sa, q, "--against", "/nonexistent/x.json"]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/x.json"), "{err}");
    // without --against, --set is still required
    let (code, _, err) = run(&["counterfactual", sa, q]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn compare_artifacts_evidence_tool() {
    let (a, b) = pair("evidence");
    let (sa, sb) = (a.to_str().unwrap(), b.to_str().unwrap());
    let args = r#"{"query": "refund state of an order", "expected": "getOrder", "limit": 1}"#;
    let (code, out, err) = run(&[
        "evidence",
        "compare_artifacts",
        "--graph",
        sb,
        "--baseline",
        sa,
        "--args",
        args,
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json_of(&out);
    assert_eq!(v["read_only"], true);
    assert_eq!(v["returns_action_recommendations"], false);
    assert_eq!(v["mechanism_status"], "resolved", "{out}");
    assert_eq!(v["diff"]["tools"]["counts"]["added"], 1);
    assert_eq!(v["diff"]["tools"]["changed"].as_array().unwrap().len(), 1);
    assert_eq!(v["case"]["new"]["expected_rank"], 1, "{out}");
    assert_eq!(v["case"]["attribution"][0]["group"], "getOrder", "{out}");
    assert_eq!(v["provenance"]["formula_version"], "toolscope-blame/1");
    // the same numbers as `toolscope diff --query --json`
    let (_, line, _) = run(&[
        "diff",
        sa,
        sb,
        "--query",
        "refund state of an order",
        "--expected",
        "getOrder",
        "--json",
    ]);
    assert_eq!(v["case"], json_of(&line));
    // no baseline: a usage error; model-facing callers are not offered the tool
    let (code, _, err) = run(&["evidence", "compare_artifacts", "--graph", sb]);
    assert_eq!(code, 2);
    assert!(err.contains("--baseline"), "{err}");
    let (code, _, err) = run(&[
        "evidence",
        "compare_artifacts",
        "--graph",
        sb,
        "--baseline",
        sa,
        "--model",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unknown tool"), "{err}");
    // a bad limit names the argument and the range
    let (code, _, err) = run(&[
        "evidence",
        "compare_artifacts",
        "--graph",
        sb,
        "--baseline",
        sa,
        "--args",
        r#"{"limit": 5000}"#,
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("limit") && err.contains("1000"), "{err}");
}

/// The registry's attribution metric: the expected tool's rank move from the baseline to
/// the loaded graph, as a checked tree of change-group shares plus the residual.
#[test]
fn blame_rank_shift_metric_adds_up_to_the_rank_move() {
    let (a, b) = pair("metric");
    let (sa, sb) = (a.to_str().unwrap(), b.to_str().unwrap());
    let ev = |args: &str, extra: &[&str]| {
        let mut v = vec!["evidence", "explain_metric", "--graph", sb, "--args", args];
        v.extend_from_slice(extra);
        run(&v)
    };
    let args = r#"{"metric_id": "blame.rank_shift", "query": "refund state of an order", "scope_id": "getOrder"}"#;
    let (code, out, err) = ev(args, &["--baseline", sa]);
    assert_eq!(code, 0, "{err}");
    let v = json_of(&out);
    assert_eq!(v["metric_id"], "blame.rank_shift");
    assert_eq!(v["scope_id"], "getOrder");
    assert_eq!(v["mechanism_status"], "resolved", "{out}");
    assert_eq!(v["provenance"]["formula_version"], "toolscope-blame/1");
    assert_eq!(v["residual_check"]["failures"], json!([]), "{out}");
    // the value is the rank move; the children add up to it and name the changes
    let (old, new) = (v["ranks"]["old"].as_i64(), v["ranks"]["new"].as_i64());
    let top_k = 10;
    let moved = new.unwrap_or(top_k + 1) - old.unwrap_or(top_k + 1);
    assert_eq!(v["value"].as_f64(), Some(moved as f64), "{out}");
    assert_ne!(moved, 0, "the pair moves getOrder: {out}");
    let kids = v["tree"]["children"].as_array().unwrap();
    let sum: f64 = kids.iter().map(|k| k["value"].as_f64().unwrap()).sum();
    assert!((sum - moved as f64).abs() < 1e-9, "{out}");
    assert!(
        kids.iter()
            .any(|k| k["label"].as_str().unwrap().contains("getOrder")),
        "{out}"
    );
    assert_eq!(kids.last().unwrap()["label"], "residual");
    // the same numbers as compare_artifacts' case
    let (_, cmp, _) = run(&[
        "evidence",
        "compare_artifacts",
        "--graph",
        sb,
        "--baseline",
        sa,
        "--args",
        r#"{"query": "refund state of an order", "expected": "getOrder", "limit": 0}"#,
    ]);
    let c = json_of(&cmp);
    assert_eq!(c["case"]["old"]["expected_rank"].as_i64(), old, "{cmp}");
    assert_eq!(c["case"]["new"]["expected_rank"].as_i64(), new, "{cmp}");
    // without a baseline the metric is not offered, and asking for it is a tool error
    // that says why (as a suite metric without a suite is)
    let (code, _, err) = ev(args, &[]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("--baseline OLD"), "{err}");
    assert!(err.contains("blame.rank_shift"), "{err}");
    // model-facing callers never see it
    let (code, _, err) = ev(args, &["--baseline", sa, "--model"]);
    assert_eq!(code, 2, "{err}");
}

/// A graph given with a file truncated before its first key (the sniffer cannot say what
/// it is): the graph loader reads it and says where the JSON ends, one line naming the
/// file, exit 2, whichever side it is on; a run given with a graph says which is which.
#[test]
fn a_truncated_graph_names_where_its_json_ends() {
    let (a, b) = pair("torn");
    let torn = a.with_file_name("torn.json");
    let text = std::fs::read_to_string(&b).unwrap();
    std::fs::write(&torn, &text[..12]).unwrap();
    let (sa, st) = (a.to_str().unwrap(), torn.to_str().unwrap());
    for args in [["diff", sa, st], ["diff", st, sa]] {
        let (code, out, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{out}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with(&format!("toolscope: {st}:1:12")),
            "{args:?}: {err}"
        );
        assert!(err.contains("truncated JSON"), "{err}");
    }
    // --json too, and a missing NEW is named as missing
    let (code, _, err) = run(&["diff", sa, st, "--json"]);
    assert_eq!(code, 2);
    assert!(err.contains("truncated JSON"), "{err}");
    let (code, _, err) = run(&["diff", sa, "/nonexistent/new.json"]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/new.json"), "{err}");
    assert!(!err.contains("is a graph but"), "{err}");
    // a suite is no graph: said as such
    let suite = a.with_file_name("suite.json");
    std::fs::write(&suite, toolscope::tui::harness::DEMO_SUITE).unwrap();
    let (code, _, err) = run(&["diff", sa, suite.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("is a graph but"), "{err}");
}

/// `diff --help` says it takes two graphs or two runs, names its arguments as its usage
/// line does, and shows both by example.
#[test]
fn diff_help_names_both_pairs_with_examples() {
    let (code, help, _) = run(&["diff", "--help"]);
    assert_eq!(code, 0, "{help}");
    let usage = help.lines().find(|l| l.starts_with("Usage: ")).unwrap();
    assert!(usage.contains("<OLD> <NEW>"), "{usage}");
    assert!(usage.contains("two graphs, or two runs"), "{usage}");
    assert!(
        help.contains("  <OLD>  ") && help.contains("  <NEW>  "),
        "{help}"
    );
    let examples = help
        .split("Two graphs (")
        .nth(1)
        .expect("examples for two graphs");
    assert!(
        examples.contains("toolscope diff old.graph.json new.graph.json --json"),
        "{help}"
    );
    assert!(examples.contains("--cases suite.json --explore"), "{help}");
    assert!(
        examples.contains("Two runs (")
            && examples.contains("toolscope diff run-a.jsonl run-b.jsonl"),
        "{help}"
    );
}

/// A renamed operation is blamed as a rename, said once ("renamed A -> B"), and a case
/// whose expected tool was renamed says under which name NEW has it.
#[test]
fn a_renamed_expected_tool_is_named_under_its_new_name() {
    let d = tmp_dir("diffcli", "renamed");
    let (a, b) = toolscope::tui::harness::write_demo_pair(&d).unwrap();
    let suite = d.join("suite.json");
    std::fs::write(&suite, toolscope::tui::harness::DEMO_SUITE).unwrap();
    let (code, out, err) = run(&[
        "diff",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--cases",
        suite.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("from NEW: cancelOrder (renamed cancelOrderById)"),
        "{out}"
    );
    assert!(
        out.contains("renamed cancelOrder -> cancelOrderById (not in the query's terms)"),
        "{out}"
    );
    assert!(!out.contains("(renamed) changed"), "{out}");
}

/// A query with an escape sequence in it is shown once escaped, the way the sanitiser
/// writes it (`\x1b`), quoted, never raw and never escaped twice (`\\x1b`), in the
/// blame report, `lab diff` and the query table alike.
#[test]
fn a_query_with_an_escape_sequence_is_escaped_once() {
    let (a, b) = pair("escquery");
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let q = "list orders \u{1b}]0;pwned\u{7} now";
    let shown = "\"list orders \\x1b]0;pwned\\x07 now\"";
    let suite = a.replace("old.json", "suite.json");
    std::fs::write(
        &suite,
        serde_json::to_string(
            &json!([{"case_id": "esc", "query": q, "expected_target": "listOrders"}]),
        )
        .unwrap(),
    )
    .unwrap();
    for args in [
        vec!["diff", a, b, "--query", q],
        vec!["lab", "diff", a, b, "--cases", &suite],
        vec!["query", a, q],
    ] {
        let (code, out, err) = run(&args);
        assert!(code == 0 || code == 1, "{args:?}: {err}");
        assert!(
            !out.contains('\u{1b}') && !out.contains('\u{7}'),
            "{args:?}: raw: {out:?}"
        );
        assert!(!out.contains("\\\\x1b"), "{args:?}: escaped twice: {out}");
        assert!(out.contains(shown), "{args:?}: {out}");
    }
}
