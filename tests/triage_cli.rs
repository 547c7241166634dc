//! `toolscope triage` through the binary: one case as a diagnosis and as JSON, a suite as
//! counts per class and JSON Lines; the ranks, scores and selector verdicts it reports
//! equal what `query --json` reports for the same inputs, its probes equal
//! `counterfactual` run by hand, and bad input is one line and exit 2 (nothing written).

mod common;
use common::run;
use serde_json::Value;
use std::path::PathBuf;

fn json_of(args: &[&str]) -> Value {
    let (code, out, err) = run(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
}

fn tmp() -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "toolscope-triage-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn shared(what: &str) -> Option<PathBuf> {
    common::shared_corpus(what).filter(|p| p.join("golden/graphs").is_dir())
}

const CONTRACT_KEYS: &[&str] = &[
    "case_id",
    "query",
    "expected",
    "class",
    "full_rank",
    "findings",
    "evidence",
    "probes",
    "mechanism_status",
];

const CLASSES: &[&str] = &[
    "selected",
    "not_retrieved",
    "selector_ambiguous",
    "selector_overrode_llm",
    "selector_kept_llm_target",
    "selector_chose_other",
    "outranked",
];

#[test]
fn one_case_names_the_stage_the_deficit_and_the_probes() {
    let (code, out, err) = run(&[
        "triage",
        "demo",
        "approve refund",
        "--expected",
        "listOrders",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("class: not_retrieved (below_cutoff)"), "{out}");
    assert!(out.contains("past top_k 10"), "{out}");
    assert!(out.contains("deficit against the winner"), "{out}");
    assert!(out.contains("query terms the expected tool lacks"), "{out}");
    assert!(out.contains("probes (counterfactual evidence"), "{out}");
    assert!(out.contains("with top_k="), "{out}");
    let lower = out.to_lowercase();
    for advice in ["you should", "recommend", "we suggest"] {
        assert!(!lower.contains(advice), "{advice}: {out}");
    }
    // --expect is the same flag
    let (code, out2, _) = run(&["triage", "demo", "approve refund", "--expect", "listOrders"]);
    assert_eq!(code, 0);
    assert_eq!(out, out2);
}

/// The triage's rank, score, breakdown and selector verdict equal `query --json`'s.
#[test]
fn reported_numbers_equal_query_json() {
    for (q, x, llm) in [
        ("approve refund", "listOrders", None),
        ("approve refund", "approveRefund", None),
        ("count orders by status", "listOrders", None),
        ("refund approval", "listRefunds", Some("approveRefund")),
        ("list orders", "countOrders", Some("listOrders")),
        ("cancel my order", "cancelOrder", Some("getOrder")),
    ] {
        let mut ta = vec![
            "triage",
            "demo",
            q,
            "--expected",
            x,
            "--json",
            "--no-probes",
        ];
        let mut qa = vec!["query", "demo", q, "--json", "--select"];
        if let Some(l) = llm {
            ta.extend(["--llm-target", l]);
            qa.extend(["--llm-target", l]);
        }
        let t = json_of(&ta);
        let r = json_of(&qa);
        let rows = r["results"].as_array().unwrap();
        let pos = rows.iter().position(|row| row["name"] == x);
        let ev = &t["evidence"];
        assert_eq!(ev["rank"], Value::from(pos.map(|i| i + 1)), "{q} {x}");
        if let Some(i) = pos {
            assert_eq!(ev["score"], rows[i]["score"], "{q} {x}");
            for k in ["seed", "graph", "learning", "history_demoted"] {
                assert_eq!(
                    ev["score_breakdown"][k], rows[i]["score_breakdown"][k],
                    "{q} {x} {k}"
                );
            }
        } else {
            assert!(ev["score"].is_null());
        }
        let (sel, ts) = (&ev["selection"], &r["target_selector"]);
        for k in [
            "selected_target",
            "llm_target",
            "policy",
            "overrode_llm",
            "ambiguous",
            "reason_codes",
            "confidence",
            "margin",
            "decision",
        ] {
            assert_eq!(sel[k], ts[k], "{q} {x} {k}");
        }
        // the full rank is the position in an untruncated retrieval
        let wide = json_of(&["query", "demo", q, "--json", "--top-k", "10000"]);
        let full = wide["results"]
            .as_array()
            .unwrap()
            .iter()
            .position(|row| row["name"] == x)
            .map(|i| i + 1);
        assert_eq!(t["full_rank"], Value::from(full), "{q} {x}");
        assert!(CLASSES.contains(&t["class"].as_str().unwrap()));
        let selected = ts["selected_target"] == x;
        assert_eq!(t["class"] == "selected", selected, "{q} {x}");
    }
}

/// Applying a knob probe by hand with `counterfactual` gives the rank the probe reports.
#[test]
fn probes_reproduce_with_counterfactual() {
    let t = json_of(&[
        "triage",
        "demo",
        "approve refund",
        "--expected",
        "listOrders",
        "--json",
    ]);
    let probes = t["probes"].as_array().unwrap();
    assert!(!probes.is_empty());
    let mut checked = 0;
    for p in probes.iter().filter(|p| p["kind"] == "knob").step_by(3) {
        let set = p["set"].as_str().unwrap();
        let c = json_of(&[
            "counterfactual",
            "demo",
            "approve refund",
            "--set",
            set,
            "--json",
        ]);
        assert_eq!(c["mechanism_status"], "resolved", "{set}");
        let mv = c["moves"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["tool"] == "listOrders");
        let rank = mv.map(|m| m["variant_rank"].clone()).unwrap_or(Value::Null);
        assert_eq!(p["rank"], rank, "{set}");
        assert_eq!(
            p["selected_target"], c["selector_variant"]["selected_target"],
            "{set}"
        );
        checked += 1;
    }
    assert!(checked >= 5, "{checked}");
    assert!(probes.iter().any(|p| p["kind"] == "document"));
    for p in probes {
        let n = p["note"].as_str().unwrap().to_lowercase();
        assert!(!n.contains("should") && !n.contains("recommend"), "{n}");
    }
}

#[test]
fn a_suite_gets_counts_per_class_and_one_json_line_per_case() {
    let dir = tmp();
    let suite = dir.join("s.jsonl");
    std::fs::write(
        &suite,
        concat!(
            r#"{"case_id":"c1","query":"approve refund","expected_target":"listOrders"}"#,
            "\n",
            r#"{"case_id":"c2","query":"approve refund","expected_target":"approveRefund"}"#,
            "\n",
            r#"{"case_id":"c3","query":"count orders by status","expected_target":"listOrders"}"#,
            "\n",
            r#"{"case_id":"c4","query":"list orders","expected_target":"countOrders","llm_target":"listOrders","top_k":3}"#,
            "\n",
            r#"{"case_id":"c5","query":"list orders","expected_target":"noSuchTool"}"#,
            "\n",
        ),
    )
    .unwrap();
    let s = suite.to_str().unwrap();
    let (code, out, err) = run(&["triage", "demo", "--cases", s]);
    assert_eq!(code, 0, "{err}");
    let head: Vec<&str> = out.lines().take(12).collect();
    assert!(head[0].starts_with("suite s: 5 cases triaged"), "{out}");
    for c in CLASSES {
        assert!(out.lines().any(|l| l.starts_with(c)), "{c}: {out}");
    }
    assert!(out.contains("(no class: input)"), "{out}");
    assert!(out.contains("c5") && out.contains("closest names"), "{out}");
    let (code, out, _) = run(&["triage", "demo", "--cases", s, "--json"]);
    assert_eq!(code, 0);
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5);
    for v in &lines[..4] {
        for k in CONTRACT_KEYS {
            assert!(v.get(k).is_some(), "{k}: {v}");
        }
    }
    assert_eq!(lines[0]["class"], "not_retrieved");
    assert_eq!(lines[1]["class"], "selected");
    assert_eq!(lines[2]["class"], "outranked");
    assert_eq!(
        lines[3]["evidence"]["params"]["top_k"], 3,
        "the case's own top_k"
    );
    assert_eq!(
        lines[3]["evidence"]["selection"]["llm_target"],
        "listOrders"
    );
    assert!(lines[4]["class"].is_null() && lines[4]["error"].is_string());
    // a case's class equals the single-case command with the same parameters
    let one = json_of(&[
        "triage",
        "demo",
        "list orders",
        "--expected",
        "countOrders",
        "--llm-target",
        "listOrders",
        "--top-k",
        "3",
        "--json",
    ]);
    assert_eq!(one["class"], lines[3]["class"]);
    assert_eq!(one["full_rank"], lines[3]["full_rank"]);
}

/// `--side-effects` replays each outcome-changing probe over a suite, in text and JSON.
#[test]
fn side_effects_over_a_suite() {
    let dir = tmp();
    let suite = dir.join("fx.jsonl");
    std::fs::write(
        &suite,
        concat!(
            r#"{"case_id":"a","query":"approve refund","expected_target":"approveRefund"}"#,
            "\n",
            r#"{"case_id":"b","query":"list orders","expected_target":"listOrders"}"#,
            "\n",
        ),
    )
    .unwrap();
    let s = suite.to_str().unwrap();
    let args = [
        "triage",
        "demo",
        "approve refund",
        "--expected",
        "listOrders",
        "--side-effects",
        s,
    ];
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("side effects over"), "{out}");
    assert!(out.contains("top-1 would change in"), "{out}");
    let mut a = args.to_vec();
    a.push("--json");
    let v = json_of(&a);
    let fx = v["side_effects"].as_array().unwrap();
    let on = v["probes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| !p["turns_on"].as_array().unwrap().is_empty())
        .count();
    assert_eq!(fx.len(), on);
    for f in fx {
        assert_eq!(f["cases"], 2, "{f}");
    }
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let (code, out, err) = run(&[
        "triage",
        "demo",
        "approve refund",
        "--expected",
        "listOrder",
    ]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("\"listOrder\" is not a tool") && err.contains("listOrders"),
        "{err}"
    );
    let (code, _, err) = run(&["triage", "demo", "approve refund"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    let (code, _, err) = run(&[
        "triage",
        "demo",
        "q",
        "--expected",
        "x",
        "--set",
        "depth=-1",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--set: knob depth"), "{err}");
    // a suite without expected targets classifies nothing
    let dir = tmp();
    let suite = dir.join("nolabels.jsonl");
    std::fs::write(&suite, "{\"query\":\"approve refund\"}\n").unwrap();
    let (code, out, err) = run(&["triage", "demo", "--cases", suite.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty());
    assert!(err.contains("nothing to classify"), "{err}");
    // untrusted text reaches the terminal sanitised
    let (code, out, _) = run(&[
        "triage",
        "demo",
        "approve \u{1b}[31mrefund\u{7}",
        "--expected",
        "listOrders",
    ]);
    assert_eq!(code, 0);
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
}

/// Every labelled case of the golden suites gets exactly one class on its own graph, with
/// the case's parameters; the class counts add up.
#[test]
fn golden_suites_get_one_class_per_case() {
    let Some(root) = shared("golden_suites_get_one_class_per_case") else {
        return;
    };
    for g in ["petstore3", "ecommerce", "mcp_mixed"] {
        let graph = root.join(format!("golden/graphs/{g}.json"));
        let cases = root.join(format!("golden/cases/{g}.jsonl"));
        let (code, out, err) = run(&[
            "triage",
            graph.to_str().unwrap(),
            "--cases",
            cases.to_str().unwrap(),
            "--json",
            "--no-probes",
        ]);
        assert_eq!(code, 0, "{g}: {err}");
        let mut n = 0;
        for l in out.lines() {
            let v: Value = serde_json::from_str(l).unwrap();
            assert!(
                CLASSES.contains(&v["class"].as_str().unwrap_or("")),
                "{g}: {v}"
            );
            n += 1;
        }
        assert!(n > 10, "{g}: {n}");
    }
}
