//! `lab check --junit FILE` and `--format github` (issue 20, item 5): the JUnit file is
//! checked against the structure of the common Jenkins/Ant junit.xsd (the elements, their
//! required attributes, the counts agreeing with the test cases, no attribute or element the
//! schema does not declare), hostile fixture and tool names are escaped and stripped of the
//! characters XML 1.0 forbids, an existing file is kept without `--force`, and the GitHub
//! annotations carry one `::error` per failing or invalid fixture with escaped properties.

mod common;
use common::run;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn tmp(name: &str) -> PathBuf {
    common::tmp_dir("junit", name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

const HOSTILE_ID: &str = "a <&> \"q\" 'x' \u{1}\u{1f}\u{7f} end";
const HOSTILE_TOOL: &str = "evil<tool>&\"'\u{2}";

/// Captures three demo fixtures, then makes `a` fail with hostile names.
fn fixtures(d: &Path) -> PathBuf {
    std::fs::write(
        d.join("suite.json"),
        r#"[{"case_id":"a","query":"refund approval","expected_target":"approveRefund"},
            {"case_id":"b","query":"주문 취소해줘","expected_target":"cancelOrder"},
            {"case_id":"c","query":"member detail","expected_target":"getMemberDetail"}]"#,
    )
    .unwrap();
    let fx = d.join("fx");
    let (code, _, err) = run(&[
        "lab",
        "capture",
        "demo",
        "--cases",
        s(&d.join("suite.json")),
        "-o",
        s(&fx),
    ]);
    assert_eq!(code, 0, "{err}");
    fx
}

fn tamper(fx: &Path) {
    let f = fx.join("a.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
    v["case_id"] = HOSTILE_ID.into();
    v["ranking"][0]["name"] = HOSTILE_TOOL.into();
    v["actual_top_3"][0]["name"] = HOSTILE_TOOL.into();
    std::fs::write(&f, serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

/// (required attributes, optional attributes, allowed children).
type Declared = (
    &'static [&'static str],
    &'static [&'static str],
    &'static [&'static str],
);

/// The attributes the Jenkins/Ant junit.xsd declares per element (required, optional)
/// and the children it allows.
fn schema(element: &str) -> Option<Declared> {
    Some(match element {
        "testsuites" => (
            &[],
            &[
                "name", "time", "tests", "failures", "disabled", "errors", "skipped",
            ],
            &["testsuite"],
        ),
        "testsuite" => (
            &["name", "tests"],
            &[
                "failures",
                "errors",
                "skipped",
                "time",
                "disabled",
                "timestamp",
                "hostname",
                "id",
                "package",
                "file",
                "log",
                "url",
                "version",
                "group",
            ],
            &["properties", "testcase", "system-out", "system-err"],
        ),
        "properties" => (&[], &[], &["property"]),
        "property" => (&["name", "value"], &[], &[]),
        "testcase" => (
            &["name"],
            &[
                "classname",
                "time",
                "assertions",
                "status",
                "group",
                "file",
                "line",
            ],
            &["skipped", "error", "failure", "system-out", "system-err"],
        ),
        "failure" | "error" => (&[], &["message", "type"], &[]),
        "skipped" => (&[], &["message"], &[]),
        "system-out" | "system-err" => (&[], &[], &[]),
        _ => return None,
    })
}

/// Checks every element against [`schema`] and the counts against the test cases; returns
/// the test cases as (name, classname, failure or error element if any).
/// A failure or error element: (element, message, type, text).
type Bad = (String, String, String, String);

/// A test case: (name, classname, its failure or error).
type TestCase = (String, String, Option<Bad>);

fn validate(xml: &str) -> Vec<TestCase> {
    for c in xml.chars() {
        let u = c as u32;
        assert!(
            matches!(c, '\t' | '\n' | '\r') || (u >= 0x20 && u != 0xfffe && u != 0xffff),
            "a character XML 1.0 forbids: U+{u:04X}"
        );
    }
    let doc = roxmltree::Document::parse(xml).expect("well-formed XML");
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
    for n in doc.descendants().filter(|n| n.is_element()) {
        let name = n.tag_name().name();
        let (required, optional, children) =
            schema(name).unwrap_or_else(|| panic!("element <{name}> is not in junit.xsd"));
        for a in required.iter() {
            assert!(n.attribute(*a).is_some(), "<{name}> lacks {a}");
        }
        for a in n.attributes() {
            assert!(
                required.contains(&a.name()) || optional.contains(&a.name()),
                "<{name}> has {}, which junit.xsd does not declare",
                a.name()
            );
        }
        for c in n.children().filter(|c| c.is_element()) {
            assert!(
                children.contains(&c.tag_name().name()),
                "<{name}> may not contain <{}>",
                c.tag_name().name()
            );
        }
        if !matches!(name, "failure" | "error" | "system-out" | "system-err") {
            assert!(
                n.children()
                    .all(|c| !c.is_text() || c.text().unwrap().trim().is_empty()),
                "<{name}> has text"
            );
        }
        for a in ["time"] {
            if let Some(t) = n.attribute(a) {
                assert!(t.parse::<f64>().is_ok_and(|t| t >= 0.0), "{name} {a}={t}");
            }
        }
    }
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let count = |n: roxmltree::Node, a: &str| -> usize { n.attribute(a).unwrap().parse().unwrap() };
    let suites: Vec<_> = root.children().filter(|c| c.is_element()).collect();
    assert_eq!(suites.len(), 1);
    let mut out = Vec::new();
    let (mut tests, mut failures, mut errors) = (0, 0, 0);
    for suite in &suites {
        let cases: Vec<_> = suite
            .children()
            .filter(|c| c.has_tag_name("testcase"))
            .collect();
        let with = |t: &str| {
            cases
                .iter()
                .filter(|c| c.children().any(|x| x.has_tag_name(t)))
                .count()
        };
        assert_eq!(count(*suite, "tests"), cases.len());
        assert_eq!(count(*suite, "failures"), with("failure"));
        assert_eq!(count(*suite, "errors"), with("error"));
        assert_eq!(count(*suite, "skipped"), with("skipped"));
        tests += cases.len();
        failures += with("failure");
        errors += with("error");
        for c in cases {
            assert!(c.attribute("classname").is_some() && c.attribute("time").is_some());
            let bad: Vec<_> = c
                .children()
                .filter(|x| x.has_tag_name("failure") || x.has_tag_name("error"))
                .collect();
            assert!(bad.len() <= 1, "one failure or error per testcase");
            out.push((
                c.attribute("name").unwrap().to_string(),
                c.attribute("classname").unwrap().to_string(),
                bad.first().map(|b| {
                    (
                        b.tag_name().name().to_string(),
                        b.attribute("message").expect("message").to_string(),
                        b.attribute("type").expect("type").to_string(),
                        b.text().unwrap_or("").to_string(),
                    )
                }),
            ));
        }
    }
    assert_eq!(count(root, "tests"), tests);
    assert_eq!(count(root, "failures"), failures);
    assert_eq!(count(root, "errors"), errors);
    out
}

#[test]
fn junit_follows_the_schema_and_escapes_hostile_names() {
    let d = tmp("schema");
    let fx = fixtures(&d);
    // all pass: one testcase per fixture, no failure
    let junit = d.join("ok.xml");
    let (code, out, err) = run(&["lab", "check", "demo", s(&fx), "--junit", s(&junit)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("3 passed, 0 failed, 0 invalid"), "{out}");
    let cases = validate(&std::fs::read_to_string(&junit).unwrap());
    let names: Vec<&str> = cases.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"]);
    assert!(cases.iter().all(|c| c.2.is_none()));
    assert!(cases[0].1.ends_with("a.json"), "{}", cases[0].1);

    // one drifting fixture with hostile names, one corrupt file
    tamper(&fx);
    std::fs::write(fx.join("corrupt.json"), "{ not json").unwrap();
    let (_, json, _) = run(&["lab", "check", "demo", s(&fx), "--json"]);
    let json: Value = serde_json::from_str(&json).unwrap();
    let diffs: Vec<String> = json["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["case_id"] == HOSTILE_ID)
        .unwrap()["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect();
    assert!(diffs.len() >= 2, "{diffs:?}");
    let junit = d.join("report.xml");
    let (code, _, err) = run(&["lab", "check", "demo", s(&fx), "--junit", s(&junit)]);
    assert_eq!(code, 2, "an invalid fixture is an input error: {err}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    let cases = validate(&xml);
    assert_eq!(cases.len(), 4, "3 replayed + 1 invalid");
    let stripped: String = HOSTILE_ID
        .chars()
        .filter(|c| *c >= ' ' || *c == '\t')
        .collect();
    assert_eq!(stripped, "a <&> \"q\" 'x' \u{7f} end");
    let bad = cases
        .iter()
        .find(|c| c.0 == stripped)
        .expect("the hostile case by its name");
    let (kind, message, ty, text) = bad.2.clone().unwrap();
    assert_eq!((kind.as_str(), ty.as_str()), ("failure", "fixture_drift"));
    // the failure's message is the first difference, its text every difference
    let clean = |x: &str| x.replace('\u{2}', "");
    assert_eq!(message, clean(&diffs[0]));
    assert!(message.contains("evil<tool>&\"'"), "{message}");
    assert_eq!(
        text,
        diffs
            .iter()
            .map(|x| clean(x))
            .collect::<Vec<_>>()
            .join("\n")
    );
    // escaped in the file, never raw
    assert!(xml.contains("evil&lt;tool&gt;&amp;&quot;&apos;"), "{xml}");
    let corrupt = cases
        .iter()
        .find(|c| c.1.ends_with("corrupt.json"))
        .unwrap();
    let (kind, message, ty, _) = corrupt.2.clone().unwrap();
    assert_eq!((kind.as_str(), ty.as_str()), ("error", "invalid_fixture"));
    assert_eq!(message, "is not listed in manifest.json");
    for (n, _, f) in &cases {
        if n == "b" || n == "c" {
            assert!(f.is_none(), "{n}");
        }
    }
}

#[test]
fn junit_refuses_to_overwrite_without_force() {
    let d = tmp("force");
    let fx = fixtures(&d);
    let junit = d.join("report.xml");
    std::fs::write(&junit, "keep me").unwrap();
    let (code, out, err) = run(&["lab", "check", "demo", s(&fx), "--junit", s(&junit)]);
    assert_eq!(code, 2, "{out}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("--junit ")
            && err.contains("report.xml: already exists (use --force to overwrite it)"),
        "{err}"
    );
    assert!(out.is_empty(), "refused before any work: {out}");
    assert_eq!(std::fs::read_to_string(&junit).unwrap(), "keep me");
    let (code, _, err) = run(&[
        "lab",
        "check",
        "demo",
        s(&fx),
        "--junit",
        s(&junit),
        "--force",
    ]);
    assert_eq!(code, 0, "{err}");
    validate(&std::fs::read_to_string(&junit).unwrap());
    // never over an input, never to standard output, --force only with --junit
    let (code, _, err) = run(&[
        "lab",
        "check",
        "demo",
        s(&fx),
        "--junit",
        s(&fx.join("a.json")),
        "--force",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("refusing to write the output over an input"),
        "{err}"
    );
    let (code, _, err) = run(&["lab", "check", "demo", s(&fx), "--junit", s(&fx), "--force"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("refusing to write the output over an input"),
        "{err}"
    );
    let (code, _, err) = run(&["lab", "check", "demo", s(&fx), "--junit", "-"]);
    assert_eq!(code, 2);
    assert!(err.contains("--junit -: give a file"), "{err}");
    let (code, _, _) = run(&["lab", "check", "demo", s(&fx), "--force"]);
    assert_eq!(code, 2);
}

/// Undoes GitHub's property escaping.
fn unescape(v: &str) -> String {
    v.replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%25", "%")
}

#[test]
fn github_annotations_one_per_failing_or_invalid_fixture() {
    let d = tmp("github");
    let fx = fixtures(&d);
    let (code, out, _) = run(&["lab", "check", "demo", s(&fx), "--format", "github"]);
    assert_eq!(code, 0);
    assert_eq!(out, "3 passed, 0 failed, 0 invalid\n");
    tamper(&fx);
    std::fs::write(fx.join("corrupt.json"), "{ not json").unwrap();
    let (code, out, err) = run(&["lab", "check", "demo", s(&fx), "--format", "github"]);
    assert_eq!(code, 2, "{out}{err}");
    let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("::error ")).collect();
    assert_eq!(errors.len(), 2, "{out}");
    assert_eq!(out.lines().last(), Some("2 passed, 1 failed, 1 invalid"));
    for l in &errors {
        assert!(
            !l.contains('\r') && !l.chars().any(|c| (c as u32) < 0x20),
            "{l:?}"
        );
        let (props, message) = l["::error ".len()..].split_once("::").unwrap();
        let props: Vec<(&str, String)> = props
            .split(',')
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap();
                assert!(!v.contains(':'), "an unescaped ':' in {k}: {v}");
                (k, unescape(v))
            })
            .collect();
        let get = |k: &str| props.iter().find(|p| p.0 == k).map(|p| p.1.clone());
        assert!(get("file").is_some() && get("line").is_some(), "{l}");
        let title = get("title").unwrap();
        let message = unescape(message);
        if get("file").unwrap().ends_with("a.json") {
            // the sanitiser shows the control characters; the title names the case
            assert!(
                title.starts_with("toolscope lab check: a <&> \"q\" 'x' \\x01\\x1f\\x7f end ("),
                "{title}"
            );
            assert!(
                message.lines().count() >= 2,
                "every difference on its own line: {message}"
            );
            assert!(
                message
                    .lines()
                    .next()
                    .unwrap()
                    .contains("evil<tool>&\"'\\x02"),
                "{message}"
            );
        } else {
            assert!(get("file").unwrap().ends_with("corrupt.json"), "{l}");
            assert_eq!(title, "toolscope lab check: invalid fixture");
            assert!(
                message.ends_with("is not listed in manifest.json"),
                "{message}"
            );
        }
    }
    // --json and --format together are refused
    let (code, _, _) = run(&[
        "lab",
        "check",
        "demo",
        s(&fx),
        "--json",
        "--format",
        "github",
    ]);
    assert_eq!(code, 2);
}
