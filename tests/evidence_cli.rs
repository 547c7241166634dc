//! The evidence commands on the command line: contracts, explain, trace, counterfactual,
//! and their bad-input answers (never a crash, nothing written).

mod common;
use assert_cmd::Command;
use common::run;

#[test]
fn contracts_declare_read_only_and_no_recommendations() {
    let (code, out, _) = run(&["evidence", "contracts", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let list = v.as_array().unwrap();
    assert_eq!(list.len(), 10);
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
fn trace_names_an_unknown_tool_with_the_closest_ones() {
    let (code, out, err) = run(&["trace", "demo", "refund approval", "--tool", "aproveRefund"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("\"aproveRefund\" is not a tool of demo") && err.contains("approveRefund"),
        "{err}"
    );
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

/// Audit of issue 17 (UX trial defect 14): `--set learning=false` without learning
/// suggestions changes nothing; the text and `--json` say so and the status is
/// `unresolved` (no counterfactual), as the explorer's Counterfactual pane says. With
/// `--learning FILE` the same knob is a resolved one-knob comparison.
#[test]
fn learning_knob_without_suggestions_is_unresolved_and_says_why() {
    let inert = "the learning knob cannot change anything without learning suggestions";
    let args = [
        "counterfactual",
        "demo",
        "approve refund",
        "--set",
        "learning=false",
    ];
    let (code, out, _) = run(&args);
    assert_eq!(code, 0);
    assert!(out.starts_with("mechanism_status: unresolved"), "{out}");
    assert!(out.contains(inert), "{out}");
    let (code, out, _) = run(&[&args[..], &["--json"]].concat());
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["mechanism_status"], "unresolved", "{v}");
    assert!(v["contract_note"].as_str().unwrap().contains(inert), "{v}");
    // the change is still reported as made: one knob, learning true -> false
    assert_eq!(v["changed_knobs"][0]["knob"], "learning", "{v}");
    // with a second knob that acts, the comparison is resolved and the note says both
    let (_, out, _) = run(&[&args[..], &["--set", "depth=1"]].concat());
    assert!(out.starts_with("mechanism_status: resolved"), "{out}");
    assert!(out.contains("(depth)") && out.contains(inert), "{out}");
    // with suggestions the knob acts: resolved, and the promoted target loses its boost
    let d = common::tmp_dir("cf", "learning");
    let file = d.join("learning.json");
    std::fs::write(
        &file,
        r#"[{"query_fingerprint": "f2430a572176f81f", "query_family": "approve refund",
            "collection_id": "demo", "status": "promoted", "observations": 2,
            "prior_failure_count": 0, "evidence_sources": ["run"],
            "id": "target_preference:8cee9fc7a14e8fc2", "type": "target_preference",
            "target": "cancelOrder"}]"#,
    )
    .unwrap();
    let (code, out, err) = run(&[&args[..], &["--learning", file.to_str().unwrap()]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("mechanism_status: resolved"), "{out}");
    assert!(!out.contains(inert), "{out}");
    assert!(!out.contains("jaccard 1.0000  rbo(p=0.9) 1.0000"), "{out}");
}

#[test]
fn bad_evidence_inputs_are_clear_errors() {
    let (code, _, err) = run(&[
        "evidence",
        "explain_metric",
        "--args",
        "{\"metric_id\": \"nope\", \"query\": \"x\"}",
    ]);
    // an unknown metric is an invalid argument (exit 2) naming the allowed ones
    assert_eq!(code, 2);
    assert!(
        err.contains(r#"metric_id: unknown metric "nope"; allowed: retrieval.score"#),
        "{err}"
    );
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

/// JSON-RPC lines from the server's standard output.
fn responses(stdout: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn mcp_survives_bad_bytes_and_long_lines() {
    let mut input: Vec<u8> = Vec::new();
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\xff\xfe\n");
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
    input.extend_from_slice(
        b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":{\"pad\":\"",
    );
    input.extend_from_slice(&vec![b'x'; 2000]);
    input.extend_from_slice(b"\"}}\n{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}\n");
    let out = Command::cargo_bin("toolscope")
        .unwrap()
        .args(["mcp", "demo"])
        .env("TOOLSCOPE_MAX_RECORD_BYTES", "1K")
        .write_stdin(input)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let r = responses(&out.stdout);
    assert_eq!(r.len(), 5, "{r:?}");
    assert_eq!(r[0]["id"], 1);
    assert_eq!(r[1]["error"]["code"], -32700);
    assert_eq!(r[1]["id"], serde_json::Value::Null);
    assert_eq!(r[2]["id"], 2);
    assert_eq!(r[2]["result"], serde_json::json!({}));
    assert_eq!(r[3]["error"]["code"], -32600);
    let m = r[3]["error"]["message"].as_str().unwrap();
    assert!(
        m.contains("exceeds the 1 KiB limit on bytes per record"),
        "{m}"
    );
    assert_eq!(r[4]["id"], 4);
    assert_eq!(r[4]["result"], serde_json::json!({}));
}

/// Peak resident memory of a running process in KiB (Linux `VmHWM`).
fn peak_kib(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let l = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    l.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn mcp_refuses_a_50_mb_query_quickly_with_little_memory() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command as Std, Stdio};
    let mut child = Std::new(env!("CARGO_BIN_EXE_toolscope"))
        .args(["mcp", "demo", "--budget", "5"])
        .env_remove("TOOLSCOPE_MAX_RECORD_BYTES")
        .env_remove("TOOLSCOPE_MAX_QUERY_BYTES")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut read = || {
        let mut l = String::new();
        stdout.read_line(&mut l).unwrap();
        serde_json::from_str::<serde_json::Value>(&l).unwrap()
    };
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"0\"}}}\n")
        .unwrap();
    assert_eq!(read()["result"]["protocolVersion"], "2025-11-25");
    let t = std::time::Instant::now();
    let mut line = Vec::with_capacity((50 << 20) + 200);
    line.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"lookup_recorded_run\",\"arguments\":{\"query\":\"");
    for _ in 0..(50 << 20) / 16 {
        line.extend_from_slice(b"refund approval ");
    }
    line.extend_from_slice(b"\"}}}\n");
    stdin.write_all(&line).unwrap();
    drop(line);
    let r = read();
    let took = t.elapsed();
    let peak = peak_kib(child.id());
    assert_eq!(r["id"], 1);
    assert_eq!(r["result"]["isError"], true, "{r}");
    let m = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(m.contains("query: the query is 50 MiB long"), "{m}");
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n")
        .unwrap();
    assert_eq!(read()["id"], 2);
    drop(stdin);
    assert!(child.wait().unwrap().success());
    // unbounded, this call took 19 s and 5.8 GB; now it is a size check on the parsed line
    println!("50 MB query refused in {took:?}, server peak RSS {peak:?} KiB");
    assert!(took.as_secs() < 30, "{took:?}");
    if let Some(kib) = peak {
        assert!(kib < 400 << 10, "peak RSS {kib} KiB");
    }
}

#[test]
fn explain_rank_gap_on_the_command_line_is_the_triage_json_without_probes() {
    let (code, out, err) = run(&[
        "evidence",
        "explain_rank_gap",
        "--args",
        r#"{"query": "approve refund", "expected": "listOrders"}"#,
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["class"], "not_retrieved");
    assert_eq!(v["sub_cause"], "below_cutoff");
    assert!(v.get("probes").is_none(), "{v}");
    assert_eq!(v["returns_action_recommendations"], false);
    let (code, out, err) = run(&[
        "triage",
        "demo",
        "approve refund",
        "--expected",
        "listOrders",
        "--no-probes",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let t: serde_json::Value = serde_json::from_str(&out).unwrap();
    for (k, x) in t.as_object().unwrap() {
        if k != "probes" {
            assert_eq!(&v[k], x, "{k}: the tool and triage --json differ");
        }
    }
    // an expected name that is not a tool: exit 2, the closest names, nothing on stdout
    let (code, out, err) = run(&[
        "evidence",
        "explain_rank_gap",
        "--args",
        r#"{"query": "approve refund", "expected": "approveRefnd"}"#,
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains(r#"expected: expected tool "approveRefnd" is not a tool of this graph; closest names: approveRefund"#),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    let (code, _, err) = run(&[
        "evidence",
        "explain_rank_gap",
        "--args",
        r#"{"query": "x"}"#,
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains(r#"missing required argument "expected""#),
        "{err}"
    );
}

#[test]
fn explain_rank_gap_over_mcp_stdio() {
    let lines = [
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"explain_rank_gap","arguments":{"query":"refund approval","expected":"listRefunds","params":{"top_k":5}}}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"explain_rank_gap","arguments":{"query":"refund approval","expected":"approveRefnd"}}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"explain_rank_gap","arguments":{"query":"refund approval"}}}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"explain_rank_gap","arguments":{"query":"refund approval","expected":"listRefunds","llm_target":"approveRefund"}}}"#,
    ];
    let out = Command::cargo_bin("toolscope")
        .unwrap()
        .args(["mcp", "demo"])
        .write_stdin(format!("{}\n", lines.join("\n")))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let r = responses(&out.stdout);
    assert_eq!(r.len(), 6, "{r:?}");
    let tools = r[1]["result"]["tools"].as_array().unwrap();
    let t = tools
        .iter()
        .find(|t| t["name"] == "explain_rank_gap")
        .expect("explain_rank_gap is listed");
    assert_eq!(
        t["inputSchema"]["required"],
        serde_json::json!(["query", "expected"])
    );
    for k in ["query", "expected", "llm_target", "policy", "params"] {
        assert!(t["inputSchema"]["properties"].get(k).is_some(), "{k}");
    }
    assert_eq!(
        t["_meta"]["dev.toolscope/returns_action_recommendations"],
        false
    );
    // a result: structured, with its text mirror, no probes, the retrieval scope
    let ok = &r[2]["result"];
    assert_eq!(ok["isError"], false, "{ok}");
    let s = &ok["structuredContent"];
    let mirror: serde_json::Value =
        serde_json::from_str(ok["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(&mirror, s);
    assert_eq!(s["expected"], "listRefunds");
    assert_eq!(s["class_scope"], "retrieval");
    assert_eq!(s["evidence"]["top_k"], 5);
    assert!(s["evidence"].get("selection").is_none(), "{s}");
    assert!(!ok.to_string().contains("probe"), "{ok}");
    assert!(s["provenance"]["graph"]["fingerprint"].is_string());
    // an unknown expected name: an isError result naming it and the closest names
    let bad = &r[3]["result"];
    assert_eq!(bad["isError"], true, "{bad}");
    let m = bad["content"][0]["text"].as_str().unwrap();
    assert!(
        m.starts_with("invalid arguments for explain_rank_gap: expected: ")
            && m.contains(
                r#""approveRefnd" is not a tool of this graph; closest names: approveRefund"#
            ),
        "{m}"
    );
    let missing = &r[4]["result"];
    assert_eq!(missing["isError"], true, "{missing}");
    assert!(
        missing["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains(r#"missing required argument "expected""#)
    );
    // the selector's knobs are post-decision: refused to the model
    let post = &r[5]["result"];
    assert_eq!(post["isError"], true, "{post}");
    assert!(
        post["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("post-decision")
    );
}
