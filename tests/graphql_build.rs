//! GraphQL introspection builds against graph-tool-call 0.47.0: every fixture under
//! `tests/fixtures/ingest/graphql` is built with `toolscope build` (with `--endpoint` when
//! a `<name>.graphql.endpoint` sidecar exists) and its tools (key order included), nodes
//! and edges must equal the reference's saved graph, its issues the reference's ingest
//! result's `issues` and the readiness summary must list them (expectations written by
//! `scripts/make-ingest-expectations.sh`). Then the bad inputs: a response without
//! `__schema`, an `errors` response, wrong types — one line naming file and place, exit 2.

use assert_cmd::Command;
use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ingest/graphql")
}

fn tmp() -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "toolscope-graphql-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn text(v: &Value) -> String {
    serde_json::to_string(v).unwrap()
}

fn expected(name: &str) -> Value {
    let mut s = String::new();
    flate2::read::GzDecoder::new(
        std::fs::File::open(dir().join(format!("{name}.expected.json.gz"))).unwrap(),
    )
    .read_to_string(&mut s)
    .unwrap();
    serde_json::from_str(&s).unwrap()
}

fn endpoint(name: &str) -> Option<String> {
    std::fs::read_to_string(dir().join(format!("{name}.graphql.endpoint"))).ok()
}

#[test]
fn graphql_fixtures_give_the_reference_graph_and_issues() {
    let mut names: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".graphql.json").map(String::from))
        .collect();
    names.sort();
    assert!(names.len() >= 15, "{names:?}");
    let out = tmp().join("out.json");
    let mut identical = 0;
    for name in &names {
        let want = expected(name);
        let ep = endpoint(name);
        let mut cmd = Command::cargo_bin("toolscope").unwrap();
        cmd.current_dir(dir())
            .args(["build", &format!("{name}.graphql.json"), "-o"])
            .arg(&out)
            .arg("--force");
        if let Some(e) = &ep {
            cmd.args(["--endpoint", e]);
        }
        let o = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{name}: {stderr}");
        let got: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        let (tg, tw) = (
            got["tools"].as_object().unwrap(),
            want["tools"].as_object().unwrap(),
        );
        assert_eq!(
            tg.keys().collect::<Vec<_>>(),
            tw.keys().collect::<Vec<_>>(),
            "{name}: tool names"
        );
        for (k, w) in tw {
            assert_eq!(text(&tg[k]), text(w), "{name}: tool {k}");
        }
        assert_eq!(
            text(&got["graph"]["nodes"]),
            text(&want["nodes"]),
            "{name}: nodes"
        );
        assert_eq!(
            text(&got["graph"]["edges"]),
            text(&want["edges"]),
            "{name}: edges"
        );
        // the ingest result's issues, in full, from the library
        let doc: Value = serde_json::from_slice(
            &std::fs::read(dir().join(format!("{name}.graphql.json"))).unwrap(),
        )
        .unwrap();
        let res = toolscope::ingest::graphql::ingest(name, &doc, ep.as_deref()).unwrap();
        let issues: Vec<Value> = res
            .issues
            .iter()
            .map(|i| {
                serde_json::json!({"severity": i.severity, "code": i.code, "message": i.message,
                                   "tool": i.tool, "evidence": i.evidence})
            })
            .collect();
        assert_eq!(
            text(&Value::Array(issues)),
            text(&want["issues"]),
            "{name}: issues"
        );
        assert_eq!(Value::Bool(res.ready()), want["ready"], "{name}: ready");
        // and the summary names each of them
        for i in want["issues"].as_array().unwrap() {
            let code = i["code"].as_str().unwrap();
            assert!(
                stderr.contains(code),
                "{name}: {code} not in the summary:\n{stderr}"
            );
        }
        let ready = if want["ready"] == Value::Bool(true) {
            "readiness: ready"
        } else {
            "readiness: not ready"
        };
        assert!(stderr.contains(ready), "{name}: {stderr}");
        identical += 1;
    }
    assert_eq!(identical, names.len());
    eprintln!("graphql parity: {identical}/{} identical", names.len());
}

#[test]
fn the_summary_names_the_endpoint_blocker_and_the_flag() {
    let out = tmp().join("summary.json");
    let o = Command::cargo_bin("toolscope")
        .unwrap()
        .current_dir(dir())
        .args(["build", "users-nested-inputs.graphql.json", "-o"])
        .arg(&out)
        .arg("--force")
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{e}");
    assert!(
        e.contains("readiness: not ready (GraphQL ingest), 3 tools from 4 root fields"),
        "{e}"
    );
    assert!(e.contains("blocker  graphql_endpoint_required x1: GraphQL introspection does not include an endpoint URL."), "{e}");
    assert!(
        e.contains("warning  graphql_deprecated_fields_skipped x1"),
        "{e}"
    );
    assert!(e.contains("--endpoint URL"), "{e}");
    let o = Command::cargo_bin("toolscope")
        .unwrap()
        .current_dir(dir())
        .args(["build", "users-nested-inputs.graphql.json", "-o"])
        .arg(&out)
        .args(["--force", "--endpoint", "https://api.example.com/graphql"])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("readiness: ready (GraphQL ingest)"), "{e}");
    assert!(!e.contains("blocker"), "{e}");
    let got: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(
        got["tools"]["query_user"]["metadata"]["execution"]["endpoint"],
        "https://api.example.com/graphql"
    );
    // a spec given as GRAPH is built on load
    let o = Command::cargo_bin("toolscope")
        .unwrap()
        .current_dir(dir())
        .args([
            "query",
            "users-nested-inputs.graphql.json",
            "create a user",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["results"][0]["name"], "mutation_createUser");
}

#[test]
fn bad_graphql_documents_are_one_line_errors() {
    let d = tmp();
    let cases: &[(&str, &str, &str)] = &[
        (
            "{\"data\": {}}",
            "/data/__schema",
            "invalid_graphql_introspection",
        ),
        (
            "{\"errors\": [{\"message\": \"introspection is disabled\"}], \"data\": null}",
            "/errors/0/message",
            "introspection is disabled",
        ),
        ("{\"errors\": []}", "/data", "invalid_graphql_introspection"),
        (
            "{\"data\": {\"__schema\": null}}",
            "/data/__schema",
            "invalid_graphql_introspection",
        ),
        (
            "{\"__schema\": []}",
            "/__schema",
            "invalid_graphql_introspection",
        ),
        ("{\"data\": []}", "/data", "invalid_graphql_introspection"),
        ("{\"__schema\": {}}", "/__schema", "no usable root field"),
        (
            "{\"__schema\": {\"queryType\": {\"name\": 5}, \"types\": \"x\"}}",
            "/__schema",
            "no usable root field",
        ),
        (
            "{\"__schema\": {\"queryType\": {\"name\": \"Q\"}, \"types\": [{\"kind\": \"OBJECT\", \"name\": \"Q\", \"fields\": [{\"name\": \"bad-name\", \"type\": {\"kind\": \"SCALAR\", \"name\": \"Int\"}}, 7, {\"name\": \"x\", \"type\": {\"kind\": \"LIST\"}}]}]}}",
            "/__schema",
            "no usable root field",
        ),
    ];
    for (i, (body, place, what)) in cases.iter().enumerate() {
        let f = d.join(format!("bad-{i}.json"));
        std::fs::write(&f, body).unwrap();
        let o = Command::cargo_bin("toolscope")
            .unwrap()
            .arg("build")
            .arg(&f)
            .args(["-o", d.join("never.json").to_str().unwrap(), "--force"])
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{body}: {e}");
        assert_eq!(e.trim_end().lines().count(), 1, "{body}: {e}");
        assert!(e.contains(&format!("bad-{i}.json:{place}")), "{body}: {e}");
        assert!(e.contains(what), "{body}: {e}");
        assert!(!d.join("never.json").exists());
    }
}
