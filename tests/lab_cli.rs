//! The lab on the command line: scrubbed capture (planted secrets never reach a written
//! file), check and regressions, diff, eval, and bad inputs.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

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

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("toolscope-lab-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

const PLANTED: &[&str] = &[
    "kim.minsu@example.co.kr",
    "Bearer abcdefghijklmnop1234",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
    "010-1234-5678",
    "221 Baker Street",
    "테헤란로 152",
    "110-234-567890",
    "4111 1111 1111 1111",
    "user_id=88231",
    "sk-live-abcdefghijklmnopqrstu",
    "AKIAIOSFODNN7EXAMPLE",
    "password: hunter2hunter2",
    "session=abc123def456ghi",
];

fn all_written(dir: &Path) -> String {
    let mut s = String::new();
    for e in std::fs::read_dir(dir).unwrap() {
        s.push_str(&std::fs::read_to_string(e.unwrap().path()).unwrap());
    }
    s
}

#[test]
fn capture_scrubs_planted_secrets_everywhere() {
    let d = tmp("scrub");
    // a graph whose tool descriptions and metadata carry secrets too
    let graph = d.join("g.json");
    std::fs::write(
        &graph,
        format!(
            r#"{{"graph":{{"nodes":[{{"id":"refundOrder","node_type":"tool"}},{{"id":"getOrder","node_type":"tool"}}],"edges":[]}},
               "tools":{{"refundOrder":{{"name":"refundOrder","description":"refund an order; contact {e} or {p}","metadata":{{"example":"{k}"}}}},
                         "getOrder":{{"name":"getOrder","description":"get order details {c}"}}}}}}"#,
            e = PLANTED[0],
            p = PLANTED[3],
            k = PLANTED[9],
            c = PLANTED[7]
        ),
    )
    .unwrap();
    let mut suite = String::new();
    for (i, secret) in PLANTED.iter().enumerate() {
        suite.push_str(&format!(
            "{{\"case_id\":\"case-{i} {secret}\",\"query\":\"refund order for {secret}\",\"expected_target\":\"refundOrder\"}}\n"
        ));
    }
    std::fs::write(d.join("suite.jsonl"), suite).unwrap();
    let out = d.join("fixtures");
    let (code, _, err) = run(&[
        "lab",
        "capture",
        graph.to_str().unwrap(),
        "--cases",
        d.join("suite.jsonl").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--set",
        &format!("history=[\"{}\"]", PLANTED[0]),
        "--set",
        &format!("llm_target=\"{}\"", "getOrder"),
    ]);
    assert_eq!(code, 0, "{err}");
    let written = all_written(&out);
    assert!(written.contains("refundOrder"), "fixtures were written");
    for secret in PLANTED {
        assert!(
            !written.contains(secret),
            "{secret:?} survived into a fixture"
        );
        for part in secret
            .split(|c: char| !c.is_alphanumeric())
            .filter(|p| p.len() >= 6)
        {
            assert!(
                !written.contains(part),
                "part {part:?} of {secret:?} survived"
            );
        }
    }
    assert!(
        !written.contains("contact"),
        "tool descriptions are never stored"
    );
    // replaying the scrubbed fixtures reproduces them
    let (code, stdout, _) = run(&[
        "lab",
        "check",
        graph.to_str().unwrap(),
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}");
}

#[test]
fn check_reports_regressions_and_corrupt_files() {
    let d = tmp("check");
    std::fs::write(d.join("suite.json"), r#"[{"case_id":"a","query":"refund approval","expected_target":"approveRefund"},{"case_id":"b","query":"주문 취소해줘","expected_target":"cancelOrder"}]"#).unwrap();
    let fx = d.join("fx");
    let (code, _, err) = run(&[
        "lab",
        "capture",
        "demo",
        "--cases",
        d.join("suite.json").to_str().unwrap(),
        "-o",
        fx.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    // refuses to overwrite
    let (_, out, _) = run(&[
        "lab",
        "capture",
        "demo",
        "--cases",
        d.join("suite.json").to_str().unwrap(),
        "-o",
        fx.to_str().unwrap(),
    ]);
    assert!(out.contains("already existed"), "{out}");
    let (code, out, _) = run(&["lab", "check", "demo", fx.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    // tamper with one fixture: the stored top-1 is swapped
    let f = fx.join("a.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
    v["ranking"][0]["name"] = "someOtherTool".into();
    v["actual_top_3"][0]["name"] = "someOtherTool".into();
    v["unknown_future_key"] = "kept".into();
    std::fs::write(&f, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    std::fs::write(fx.join("corrupt.json"), "{ not json").unwrap();
    let (code, out, err) = run(&["lab", "check", "demo", fx.to_str().unwrap()]);
    assert_eq!(code, 1, "regression exits 1: {out}");
    assert!(out.contains("FAIL a") && out.contains("PASS b"), "{out}");
    assert!(out.contains("someOtherTool"), "{out}");
    assert!(err.contains("corrupt.json:1:"), "{err}");
}

#[test]
fn diff_of_evidence_files_and_bad_suites() {
    let d = tmp("diff");
    let cases = d.join("cases.jsonl");
    std::fs::write(&cases, "{\"id\":\"c1\",\"query\":\"refund approval\",\"params\":{\"top_k\":5},\"selector\":{\"llm_target\":null,\"policy\":\"strong_evidence\"}}\n").unwrap();
    let a = Command::cargo_bin("toolscope")
        .unwrap()
        .args(["query", "demo", "--batch", cases.to_str().unwrap()])
        .output()
        .unwrap();
    std::fs::write(d.join("a.jsonl"), &a.stdout).unwrap();
    std::fs::write(&cases, "{\"id\":\"c1\",\"query\":\"refund approval\",\"params\":{\"top_k\":5,\"depth\":0},\"selector\":{\"llm_target\":null,\"policy\":\"strong_evidence\"}}\n").unwrap();
    let b = Command::cargo_bin("toolscope")
        .unwrap()
        .args(["query", "demo", "--batch", cases.to_str().unwrap()])
        .output()
        .unwrap();
    std::fs::write(d.join("b.jsonl"), &b.stdout).unwrap();
    let (code, out, _) = run(&[
        "lab",
        "diff",
        d.join("a.jsonl").to_str().unwrap(),
        d.join("b.jsonl").to_str().unwrap(),
        "--json",
    ]);
    assert!(code == 0 || code == 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["summary"]["cases"], 1);
    let (code, _, _) = run(&[
        "lab",
        "diff",
        d.join("a.jsonl").to_str().unwrap(),
        d.join("a.jsonl").to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "identical runs diff cleanly");

    std::fs::write(d.join("empty.json"), "[]").unwrap();
    let (code, _, err) = run(&[
        "lab",
        "eval",
        "demo",
        d.join("empty.json").to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("no cases"), "{err}");
    std::fs::write(
        d.join("ghost.json"),
        r#"[{"query":"refund approval","expected_target":"noSuchTool"}]"#,
    )
    .unwrap();
    let (code, out, err) = run(&[
        "lab",
        "eval",
        "demo",
        d.join("ghost.json").to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    assert!(err.contains("not in the graph"), "{err}");
    assert!(out.contains("hit@1 0.0000"), "{out}");
}

#[test]
fn eval_matches_the_reference_on_petstore() {
    let g = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if !g.join("golden/graphs/petstore3.json").exists() {
        println!("SKIP: ../shared/corpus not found");
        return;
    }
    let (code, out, _) = run(&[
        "lab",
        "eval",
        g.join("golden/graphs/petstore3.json").to_str().unwrap(),
        g.join("peer-bench/ground_truth/petstore.json")
            .to_str()
            .unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    // spec §9.B T13, produced by graph-tool-call: hit@1 13/23, hit@5 23/23
    assert_eq!(v["summary"]["hit@1"].as_f64().unwrap(), 13.0 / 23.0);
    assert_eq!(v["summary"]["hit@5"].as_f64().unwrap(), 1.0);
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// F9: suites with wrong types are errors naming the file and the JSON pointer.
#[test]
fn suites_with_wrong_types_are_refused() {
    let d = tmp("types");
    for (tag, case, want) in [
        (
            "tools-string",
            r#"{"query":"q","expected_tools":"listOrders"}"#,
            "/0/expected_tools: expected a list of tool names, got a string",
        ),
        (
            "tools-mixed",
            r#"{"query":"q","expected_tools":[5,null]}"#,
            "/0/expected_tools/0: expected a tool name, got an integer",
        ),
        (
            "top-k-neg",
            r#"{"query":"q","params":{"top_k":-1}}"#,
            "/0/params/top_k: expected a non-negative integer, got a negative integer",
        ),
        (
            "top-k-float",
            r#"{"query":"q","params":{"top_k":1e30}}"#,
            "/0/params/top_k: expected a non-negative integer, got a number",
        ),
        (
            "top-k-string",
            r#"{"query":"q","params":{"top_k":"5"}}"#,
            "/0/params/top_k: expected a non-negative integer, got a string",
        ),
        (
            "history",
            r#"{"query":"q","history":"x"}"#,
            "/0/history: expected a list of tool names, got a string",
        ),
        (
            "params",
            r#"{"query":"q","params":[1]}"#,
            "/0/params: expected a params object, got a list",
        ),
        (
            "selector",
            r#"{"query":"q","selector":5}"#,
            "/0/selector: expected a selector object, got an integer",
        ),
    ] {
        let f = d.join(format!("{tag}.json"));
        std::fs::write(&f, format!("[{case}]")).unwrap();
        for cmd in [
            vec!["lab", "eval", "demo", s(&f)],
            vec![
                "lab",
                "capture",
                "demo",
                "--cases",
                s(&f),
                "-o",
                s(&d.join("out")),
            ],
        ] {
            let (code, _, err) = run(&cmd);
            assert_eq!(code, 2, "{tag}: {err}");
            assert_eq!(err.lines().count(), 1, "{tag}: {err}");
            assert!(err.contains(&format!("{tag}.json:{want}")), "{tag}: {err}");
        }
        // JSON Lines name the line
        let f = d.join(format!("{tag}.jsonl"));
        std::fs::write(&f, format!("{{\"query\":\"ok\"}}\n{case}\n")).unwrap();
        let (code, _, err) = run(&["lab", "eval", "demo", s(&f)]);
        assert_eq!(code, 2, "{tag}: {err}");
        let want_line = format!("{tag}.jsonl:2 {}", want.trim_start_matches("/0"));
        assert!(err.contains(&want_line), "{tag}: {err} (want {want_line})");
    }
}
