//! The lab on the command line: scrubbed capture (planted secrets never reach a written
//! file), check and regressions, diff, eval, and bad inputs.

mod common;
use assert_cmd::Command;
use common::run;
use std::path::{Path, PathBuf};

fn tmp(name: &str) -> PathBuf {
    common::tmp_dir("lab", name)
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
    let (code, out, _) = run(&["lab", "check", "demo", fx.to_str().unwrap()]);
    assert_eq!(code, 1, "regression exits 1: {out}");
    assert!(out.contains("FAIL a") && out.contains("PASS b"), "{out}");
    assert!(out.contains("someOtherTool"), "{out}");
    // an invalid file in the folder is an input error (exit 2), the replay is still shown
    std::fs::write(fx.join("corrupt.json"), "{ not json").unwrap();
    let (code, out, err) = run(&["lab", "check", "demo", fx.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("FAIL a") && out.contains("1 invalid"), "{out}");
    assert!(
        err.contains("corrupt.json: is not listed in manifest.json"),
        "{err}"
    );
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
    let Some(g) = common::shared_corpus("eval_matches_the_reference_on_petstore") else {
        return;
    };
    let (code, out, _) = run(&[
        "lab",
        "eval",
        g.join("golden/graphs/petstore3.json").to_str().unwrap(),
        g.join("peer-bench/ground_truth/petstore.json")
            .to_str()
            .unwrap(),
        "--json",
        "--top-k",
        "5",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    // spec §9.B T13, at the reference's top_k 5, produced by graph-tool-call: hit@1 13/23, hit@5 23/23
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

/// The reliability trial's capture findings: ids that scrub to the same text (F1: it used
/// to loop forever), a case named like the manifest (F8), and a case named like the input
/// suite with `--force`.
#[test]
fn capture_names_are_unique_and_never_replace_the_manifest_or_an_input() {
    let d = tmp("names");
    let slack = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx";
    let same = format!(
        "{{\"id\":\"{slack}\",\"query\":\"list orders\"}}\n{{\"id\":\"{slack}\",\"query\":\"list orders\"}}\n{{\"case_id\":\"user 010-1234-5678\",\"query\":\"list orders\"}}\n{{\"case_id\":\"user 010-1234-5678\",\"query\":\"list orders\"}}\n"
    );
    std::fs::write(d.join("hang.jsonl"), same).unwrap();
    let out = d.join("f1");
    let start = std::time::Instant::now();
    let (code, _, err) = run(&[
        "lab",
        "capture",
        "demo",
        "--cases",
        d.join("hang.jsonl").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(start.elapsed() < std::time::Duration::from_secs(30));
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 5, "{names:?}");
    assert!(names.iter().all(|n| !n.contains("1234")), "{names:?}");
    let (code, out_text, err) = run(&["lab", "check", "demo", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{out_text}{err}");
    assert!(out_text.contains("4 passed"), "{out_text}");

    // F8: a case named "manifest" does not take the manifest's place
    std::fs::write(
        d.join("m.json"),
        r#"[{"case_id":"manifest","query":"list orders","expected_target":"listOrders"},{"case_id":"c2","query":"approve refund","expected_target":"approveRefund"}]"#,
    )
    .unwrap();
    let out = d.join("f8");
    let (code, _, err) = run(&[
        "lab",
        "capture",
        "demo",
        "--cases",
        d.join("m.json").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["kind"], "toolscope regression fixtures");
    assert_eq!(
        m["fixtures"],
        serde_json::json!(["manifest-2.json", "c2.json"])
    );
    let (code, out_text, _) = run(&["lab", "check", "demo", out.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out_text.contains("2 passed"), "{out_text}");

    // the input suite is never overwritten, even with --force
    let dir = d.join("in");
    std::fs::create_dir_all(&dir).unwrap();
    let suite_text = r#"[{"case_id":"suite","query":"list orders"}]"#;
    std::fs::write(dir.join("suite.json"), suite_text).unwrap();
    let (code, _, err) = run(&[
        "lab",
        "capture",
        "demo",
        "--cases",
        dir.join("suite.json").to_str().unwrap(),
        "-o",
        dir.to_str().unwrap(),
        "--force",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.join("suite.json")).unwrap(),
        suite_text
    );
    assert!(dir.join("suite-2.json").exists());

    // a folder holding another capture's manifest is refused without --force
    std::fs::write(out.join("manifest.json"), r#"{"kind":"something else"}"#).unwrap();
    let (code, _, err) = run(&[
        "lab",
        "capture",
        "demo",
        "--cases",
        d.join("m.json").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("belongs to another capture"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// F7: every corruption of the trial's table is caught, as an invalid fixture (exit 2,
/// naming the file and the field) or as a failed replay (exit 1).
#[test]
fn check_catches_every_corruption_of_the_trial() {
    let d = tmp("corrupt");
    std::fs::write(
        d.join("s.json"),
        r#"[{"case_id":"a","query":"list orders","expected_target":"listOrders"},{"case_id":"b","query":"approve refund","expected_target":"approveRefund"}]"#,
    )
    .unwrap();
    let base = d.join("base");
    let (code, _, err) = run(&[
        "lab",
        "capture",
        "demo",
        "--cases",
        d.join("s.json").to_str().unwrap(),
        "-o",
        base.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    type Edit = fn(&mut serde_json::Value);
    let edits: &[(&str, Edit, i32, &str)] = &[
        (
            "reversed",
            |v| v["ranking"].as_array_mut().unwrap().reverse(),
            2,
            "/ranking/0/rank",
        ),
        (
            "emptied",
            |v| v["ranking"] = serde_json::json!([]),
            2,
            "/actual_top_3",
        ),
        (
            "removed",
            |v| {
                v.as_object_mut().unwrap().remove("ranking");
            },
            2,
            "/ranking: is missing",
        ),
        (
            "last row dropped",
            |v| {
                v["ranking"].as_array_mut().unwrap().pop();
            },
            1,
            "the ranking had",
        ),
        (
            "top 3 reversed",
            |v| v["actual_top_3"].as_array_mut().unwrap().reverse(),
            2,
            "/actual_top_3",
        ),
        (
            "a string",
            |v| v["ranking"] = "nope".into(),
            2,
            "/ranking: must be a list",
        ),
        (
            "provenance",
            |v| v["provenance"] = serde_json::json!({"graph_fingerprint": "sha256:00"}),
            2,
            "/provenance/graph_fingerprint",
        ),
        (
            "top_k 1e30",
            |v| v["top_k"] = serde_json::json!(1e30),
            2,
            "/top_k",
        ),
        (
            "selected target",
            |v| v["target_selector"]["selected_target"] = "listRefunds".into(),
            1,
            "selected target",
        ),
    ];
    for (what, edit, want, says) in edits {
        let x = d.join("x");
        let _ = std::fs::remove_dir_all(&x);
        std::fs::create_dir_all(&x).unwrap();
        for e in std::fs::read_dir(&base).unwrap() {
            let p = e.unwrap().path();
            std::fs::copy(&p, x.join(p.file_name().unwrap())).unwrap();
        }
        let f = x.join("a.json");
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        edit(&mut v);
        std::fs::write(&f, v.to_string()).unwrap();
        let (code, out, err) = run(&["lab", "check", "demo", x.to_str().unwrap()]);
        assert_eq!(code, *want, "{what}: {out}{err}");
        assert!(
            out.contains(says) || err.contains(says),
            "{what}: {out}{err}"
        );
        if *want == 2 {
            assert!(err.contains("a.json:"), "{what}: {err}");
        }
    }
    // a broken manifest is an error, not ignored
    let x = d.join("x");
    std::fs::write(x.join("manifest.json"), "{ broken").unwrap();
    let (code, _, err) = run(&["lab", "check", "demo", x.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("manifest.json:1:"), "{err}");
    // lab diff: malformed responses are refused, not read as empty runs
    let r = d.join("r.json");
    let ok = Command::cargo_bin("toolscope")
        .unwrap()
        .args(["query", "demo", "list orders", "--json"])
        .output()
        .unwrap();
    std::fs::write(&r, &ok.stdout).unwrap();
    let good: serde_json::Value = serde_json::from_slice(&ok.stdout).unwrap();
    for (edit, says) in [
        ("results", "/results: must be a list"),
        ("item", "/results/0: must be a result row"),
        ("score", "/results/0/score: must be a number"),
        ("breakdown", "/results/0/score_breakdown: must be an object"),
    ] {
        let mut v = good.clone();
        match edit {
            "results" => v["results"] = 5.into(),
            "item" => v["results"][0] = 3.into(),
            "score" => v["results"][0]["score"] = "high".into(),
            _ => v["results"][0]["score_breakdown"] = serde_json::json!([1, 2]),
        }
        let b = d.join("b.json");
        std::fs::write(&b, v.to_string()).unwrap();
        let (code, _, err) = run(&["lab", "diff", r.to_str().unwrap(), b.to_str().unwrap()]);
        assert_eq!(code, 2, "{edit}: {err}");
        assert!(err.contains(says), "{edit}: {err}");
        assert_eq!(err.lines().count(), 1, "{edit}: {err}");
    }
}

/// Trial 2026-12-05 item 3: a spec given as GRAPH is built on load with the same
/// fingerprint on every run, so fixtures captured against it check against it; a changed
/// spec is still told apart.
#[test]
fn fixtures_captured_on_a_spec_check_against_the_same_spec() {
    let d = tmp("spec-fp");
    let spec = d.join("users.openapi.json");
    let src =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ingest/users.openapi.json");
    std::fs::copy(&src, &spec).unwrap();
    std::fs::write(
        d.join("suite.jsonl"),
        "{\"case_id\":\"a\",\"query\":\"list users\",\"expected_target\":\"listUsers\"}\n\
         {\"case_id\":\"b\",\"query\":\"delete a user\",\"expected_target\":\"deleteUser\"}\n",
    )
    .unwrap();
    let fx = d.join("fx");
    let (code, _, err) = run(&[
        "lab",
        "capture",
        s(&spec),
        "--cases",
        s(&d.join("suite.jsonl")),
        "-o",
        s(&fx),
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run(&["lab", "check", s(&spec), s(&fx)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("2 passed"), "{out}");
    // capturing again into the same folder is this capture's own
    let (code, out, err) = run(&[
        "lab",
        "capture",
        s(&spec),
        "--cases",
        s(&d.join("suite.jsonl")),
        "-o",
        s(&fx),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    // a changed spec is another graph
    let text = std::fs::read_to_string(&spec)
        .unwrap()
        .replace("List users", "List every user");
    std::fs::write(&spec, text).unwrap();
    let (code, _, err) = run(&["lab", "check", s(&spec), s(&fx)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("captured against another graph"), "{err}");
    // a saved artifact keeps its build time and its fingerprint is its file's sha256
    let built = d.join("built.json");
    let (code, _, err) = run(&["build", s(&spec), "-o", s(&built), "--quiet"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&built).unwrap()).unwrap();
    let at = v["metadata"]["built_at"].as_str().unwrap_or("");
    assert!(at.starts_with("20") && at.contains('T'), "{at:?}");
    std::fs::remove_dir_all(&d).unwrap();
}

/// Trial 2026-12-05 item 11: a folder holding a `.json` file that is not a fixture of the
/// capture is refused before anything is written (`lab check` would refuse the folder),
/// unless `--force`; an existing file as `-o` gets one line naming it and suggesting
/// `--force`, which replaces it with the folder.
#[test]
fn capture_refuses_a_folder_with_other_files_and_a_file_in_its_place() {
    let d = tmp("strangers");
    std::fs::write(
        d.join("suite.json"),
        r#"[{"case_id":"a","query":"refund approval","expected_target":"approveRefund"}]"#,
    )
    .unwrap();
    let suite = d.join("suite.json");
    let capture = |out: &Path, force: bool| {
        let mut args = vec!["lab", "capture", "demo", "--cases", s(&suite), "-o", s(out)];
        if force {
            args.push("--force");
        }
        run(&args)
    };
    let cap = d.join("cap");
    std::fs::create_dir_all(&cap).unwrap();
    std::fs::write(cap.join("mine.json"), "{\"mine\": true}").unwrap();
    std::fs::write(cap.join("notes.txt"), "not JSON, not read by lab check").unwrap();
    let (code, out, err) = capture(&cap, false);
    assert_eq!(code, 2, "{out}{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("cap/mine.json: is not a fixture of this capture") && err.contains("--force"),
        "{err}"
    );
    assert!(!cap.join("a.json").exists() && !cap.join("manifest.json").exists());
    // --force captures beside it (and lab check then names it, as before)
    let (code, _, err) = capture(&cap, true);
    assert_eq!(code, 0, "{err}");
    assert!(cap.join("a.json").exists());
    // this capture's own fixtures are no strangers: capturing again is fine
    std::fs::remove_file(cap.join("mine.json")).unwrap();
    let (code, out, err) = capture(&cap, false);
    assert_eq!(code, 0, "{out}{err}");
    // an existing file as the output: one line naming it, --force replaces it
    let file = d.join("out.json");
    std::fs::write(&file, "{}").unwrap();
    let (code, _, err) = capture(&file, false);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("out.json: exists and is not a folder") && err.contains("--force"),
        "{err}"
    );
    assert!(!err.contains("File exists"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "{}");
    let (code, _, err) = capture(&file, true);
    assert_eq!(code, 0, "{err}");
    assert!(file.join("a.json").exists() && file.join("manifest.json").exists());
    // the suite itself as the output: refused even with --force, and left as it was
    let before = std::fs::read_to_string(d.join("suite.json")).unwrap();
    let (code, _, err) = capture(&d.join("suite.json"), true);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is an input of this capture"), "{err}");
    assert_eq!(
        std::fs::read_to_string(d.join("suite.json")).unwrap(),
        before
    );
    std::fs::remove_dir_all(&d).unwrap();
}
