//! Arazzo workflow descriptions against graph-tool-call 0.47.0: every case under
//! `tests/fixtures/ingest/arazzo` (specs `<name>.a.json`, `.b.json`, `.openapi.yaml`, an
//! MCP list `.a.mcp.json` or a GraphQL schema `.a.graphql.json`; descriptions
//! `<name>.arazzo.*`, `<name>.2.arazzo.*`) is built both ways — `toolscope build SPECS…
//! WORKFLOWS… -o OUT` (the reference's `build_openapi_collection_artifact(…,
//! workflow_sources=…)`, or for an MCP list / GraphQL schema the tool graph +
//! `apply_arazzo_workflows` + `save`) and `toolscope build SAVED
//! WORKFLOWS… -o OUT` on the graph built from the specs (`ToolGraph.load`,
//! `apply_arazzo_workflows`, `save`) — and each output must equal the reference's text byte
//! for byte once the timestamps are blanked (expectations written by
//! `scripts/make-ingest-expectations.sh`). A case with `.expect-error` names an undeclared
//! source description: one line naming file and place, exit 2. Then the other bad inputs and
//! the summary `build` prints.

use assert_cmd::Command;
use std::io::Read;
use std::path::{Path, PathBuf};

mod common;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ingest/arazzo")
}

/// `"built_at"` and `"created_at"` values blanked, as the expectations store them.
fn blank(text: &str) -> String {
    let re = regex::Regex::new(r#""(built_at|created_at)": "[^"]*""#).unwrap();
    re.replace_all(text, r#""$1": """#).into_owned()
}

fn expected(name: &str) -> String {
    let mut s = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(dir().join(name)).unwrap())
        .read_to_string(&mut s)
        .unwrap();
    s
}

/// `toolscope build ARGS… --force` run in the fixture folder (with the fixtures' GraphQL
/// endpoint when a GraphQL schema is among the inputs): (exit code, stderr).
fn build(args: &[&str]) -> (i32, String) {
    let mut cmd = Command::cargo_bin("toolscope").unwrap();
    cmd.current_dir(dir())
        .arg("build")
        .args(args)
        .arg("--force");
    if args.iter().any(|a| a.ends_with(".graphql.json")) {
        cmd.args(["--endpoint", "https://api.example.com/graphql"]);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

struct Case {
    name: String,
    specs: Vec<String>,
    workflows: Vec<String>,
    error: bool,
}

fn cases() -> Vec<Case> {
    let mut files: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    files.sort();
    let spec_re =
        regex::Regex::new(r"^([a-z0-9-]+?)\.(a|b|openapi)\.(json|yaml|mcp\.json|graphql\.json)$")
            .unwrap();
    let mut out: Vec<Case> = Vec::new();
    for f in &files {
        let Some(c) = spec_re.captures(f) else {
            continue;
        };
        let name = c[1].to_string();
        match out.iter_mut().find(|x| x.name == name) {
            Some(x) => x.specs.push(f.clone()),
            None => out.push(Case {
                name,
                specs: vec![f.clone()],
                workflows: Vec::new(),
                error: false,
            }),
        }
    }
    for c in &mut out {
        for prefix in [
            format!("{}.arazzo.", c.name),
            format!("{}.2.arazzo.", c.name),
        ] {
            c.workflows
                .extend(files.iter().filter(|f| f.starts_with(&prefix)).cloned());
        }
        c.error = files.contains(&format!("{}.expect-error", c.name));
    }
    out
}

/// The first line where two texts differ, for a readable failure.
fn first_line_diff(want: &str, got: &str) -> String {
    for (i, (a, b)) in want.lines().zip(got.lines()).enumerate() {
        if a != b {
            return format!("line {}: want {a:?}, got {b:?}", i + 1);
        }
    }
    format!(
        "lengths differ: want {} lines, got {}",
        want.lines().count(),
        got.lines().count()
    )
}

#[test]
fn arazzo_fixtures_give_the_reference_output_both_ways() {
    let cases = cases();
    assert!(cases.len() >= 18, "{}", cases.len());
    let tmp = common::tmp_dir("arazzo", "parity");
    let out = tmp.join("out.json");
    let saved = tmp.join("saved.json");
    let (out_s, saved_s) = (out.to_str().unwrap(), saved.to_str().unwrap());
    let (mut identical, mut total, mut errors) = (0, 0, 0);
    let mut failures = Vec::new();
    for c in &cases {
        let inputs: Vec<&str> = c
            .specs
            .iter()
            .chain(&c.workflows)
            .map(String::as_str)
            .collect();
        if c.error {
            let (code, err) = build(&[&inputs[..], &["-o", out_s]].concat());
            assert_eq!(code, 2, "{}: {err}", c.name);
            assert_eq!(err.lines().count(), 1, "{}: {err}", c.name);
            assert!(
                err.contains(".arazzo.")
                    && err.contains("/workflows/")
                    && err.contains("source description"),
                "{}: {err}",
                c.name
            );
            errors += 1;
            continue;
        }
        // the same run
        total += 1;
        let (code, err) = build(&[&inputs[..], &["-o", out_s, "--quiet"]].concat());
        assert_eq!(code, 0, "{}: {err}", c.name);
        let got = blank(&std::fs::read_to_string(&out).unwrap());
        let want = expected(&format!("{}.build.expected.json.gz", c.name));
        if got == want {
            identical += 1;
        } else {
            failures.push(format!(
                "{} (build): {}",
                c.name,
                first_line_diff(&want, &got)
            ));
        }
        // a saved graph
        total += 1;
        let specs: Vec<&str> = c.specs.iter().map(String::as_str).collect();
        let (code, err) = build(&[&specs[..], &["-o", saved_s, "--quiet"]].concat());
        assert_eq!(code, 0, "{}: {err}", c.name);
        let wfs: Vec<&str> = c.workflows.iter().map(String::as_str).collect();
        let (code, err) = build(&[&[saved_s][..], &wfs[..], &["-o", out_s, "--quiet"]].concat());
        assert_eq!(code, 0, "{}: {err}", c.name);
        let got = blank(&std::fs::read_to_string(&out).unwrap());
        let want = expected(&format!("{}.saved.expected.json.gz", c.name));
        if got == want {
            identical += 1;
        } else {
            failures.push(format!(
                "{} (saved): {}",
                c.name,
                first_line_diff(&want, &got)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(errors >= 2);
    eprintln!(
        "arazzo parity: {identical}/{total} identical ({} cases, both ways); {errors} undeclared-source cases refused",
        cases.len() - errors
    );
}

#[test]
fn the_summary_reports_workflows_and_missing_operations() {
    let tmp = common::tmp_dir("arazzo", "summary");
    let out = tmp.join("onboard.json");
    let (code, err) = build(&[
        "users.openapi.json",
        "users.arazzo.yaml",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(
            "warning: users.arazzo.yaml:/workflows/0/steps/2: step \"welcome\" of workflow \"onboard\": operation \"sendWelcomeEmail\" is not in the graph"
        ),
        "{err}"
    );
    assert!(err.contains("readiness: "), "{err}");
    assert!(
        err.contains(
            "workflows: 1 Arazzo description, 2 workflows, 6 steps -> 4 relations (runtime_reference 4), 1 step's operation not in the graph"
        ),
        "{err}"
    );
    assert!(
        err.contains("  edges: 4 added, 0 merged; 2 binding aliases on producing tools"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(v["workflow_summary"]["relation_count"], 4);
    assert_eq!(v["metadata"]["build_options"]["workflow_source_count"], 1);
}

/// Writes `text` to a file in a fresh folder next to a copy of the users spec.
fn bad_case(name: &str, text: &str) -> (PathBuf, PathBuf) {
    let d = common::tmp_dir("arazzo-bad", name);
    let spec = d.join("users.openapi.json");
    std::fs::copy(dir().join("users.openapi.json"), &spec).unwrap();
    let wf = d.join(format!("{name}.arazzo.yaml"));
    std::fs::write(&wf, text).unwrap();
    (spec, wf)
}

fn one_line_error(args: &[&str], file: &str, place: &str, words: &str) {
    let (code, _, err) = common::run(args);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("toolscope: "), "{err}");
    assert!(err.contains(file), "{err}");
    assert!(err.contains(place), "{err}");
    assert!(err.contains(words), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_arazzo_inputs_are_one_line_errors() {
    let step =
        "workflows:\n  - workflowId: w\n    steps:\n      - {stepId: a, operationId: listUsers}\n";
    for (name, text, place, words) in [
        (
            "v2",
            format!("arazzo: 2.0.0\n{step}"),
            ":/arazzo:",
            "unsupported Arazzo version \"2.0.0\" (1.0.x expected)",
        ),
        (
            "float",
            format!("arazzo: 1.0\n{step}"),
            ":/arazzo:",
            "unsupported Arazzo version",
        ),
        (
            "undeclared",
            "arazzo: 1.0.0\nsourceDescriptions: [{name: api, url: ./users.openapi.json}]\nworkflows:\n  - workflowId: w\n    steps:\n      - {stepId: a, operationId: $sourceDescriptions.pets.listUsers}\n".into(),
            ":/workflows/0/steps/0/operationId:",
            "source description \"pets\" is not declared in sourceDescriptions (api)",
        ),
        (
            "undeclared-path",
            "arazzo: 1.0.0\nworkflows:\n  - workflowId: w\n    steps:\n      - {stepId: a, operationPath: '{$sourceDescriptions.pets.url}#/paths/~1users/get'}\n".into(),
            ":/workflows/0/steps/0/operationPath:",
            "source description \"pets\" is not declared",
        ),
        (
            "remote-ref",
            format!(
                "arazzo: 1.0.0\ncomponents:\n  inputs:\n    a: {{$ref: 'https://example.com/s.json#/A'}}\n{step}"
            ),
            ":/components/inputs/a/$ref:",
            "remote $ref \"https://example.com/s.json#/A\" is not followed (nothing is fetched)",
        ),
    ] {
        let (spec, wf) = bad_case(name, &text);
        let out = spec.with_file_name("out.json");
        one_line_error(
            &[
                "build",
                spec.to_str().unwrap(),
                wf.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ],
            &format!("{name}.arazzo.yaml"),
            place,
            words,
        );
        assert!(!out.exists(), "{name}: nothing is written");
    }
}

#[test]
fn arazzo_needs_one_graph() {
    let d = common::tmp_dir("arazzo-graph", "one");
    let out = d.join("out.json");
    let o = out.to_str().unwrap();
    let wf = dir().join("users.arazzo.yaml");
    let spec = dir().join("users.openapi.json");
    let (w, s) = (wf.to_str().unwrap(), spec.to_str().unwrap());
    // alone
    one_line_error(
        &["build", w, "-o", o],
        "users.arazzo.yaml",
        "",
        "applies to a graph",
    );
    // two graphs, or a graph and a spec
    let saved = d.join("saved.json");
    let (code, _, err) = common::run(&["build", s, "-o", saved.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let g = saved.to_str().unwrap();
    one_line_error(
        &["build", g, s, w, "-o", o],
        "users.openapi.json",
        "",
        "is a saved graph",
    );
    one_line_error(
        &["build", g, g, w, "-o", o],
        "saved.json",
        "",
        "is a saved graph",
    );
    // a remote workflow source is not fetched
    one_line_error(
        &["build", s, "https://example.com/w.arazzo.yaml", "-o", o],
        "https://example.com/w.arazzo.yaml",
        "",
        "not fetched",
    );
    // as a GRAPH argument, the builder says what it needs
    let (code, _, err) = common::run(&["query", w, "create a user"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("applies to a graph"), "{err}");
}

#[test]
fn arazzo_is_its_own_input_kind() {
    use toolscope::sniff::{Kind, sniff};
    assert_eq!(sniff("arazzo: 1.0.1\ninfo: {}\n"), Kind::Arazzo);
    assert_eq!(
        sniff(r#"{"arazzo": "1.0.0", "workflows": []}"#),
        Kind::Arazzo
    );
    let text = std::fs::read_to_string(dir().join("pets.arazzo.yaml")).unwrap();
    assert_eq!(sniff(&text), Kind::Arazzo);
    let doc = toolscope::ingest::source::parse_document("p.yaml", text.into_bytes()).unwrap();
    assert_eq!(doc.kind, toolscope::ingest::source::InputKind::Arazzo);
}
