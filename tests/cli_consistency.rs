//! Shell integration and command-line consistency (issue 17, items 9 and 10; trial defect
//! 26): completion scripts and the man page come from the clap definitions; `--top-k 0` and
//! unknown policies are usage errors naming the allowed values; a missing file reads the
//! same everywhere; type errors name the JSON pointer; plain text is called plain text;
//! `doctor` names NO_COLOR only when it is set; `lab eval` prints each metric once, uses the
//! explorer's k and evaluates an unlabelled suite as unlabelled. Every input is made here.

mod common;

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn bin() -> Command {
    Command::cargo_bin("toolscope").unwrap()
}

/// Runs toolscope; returns (exit code, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let out = bin().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn tmp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "toolscope-consistency-{}-{tag}",
        std::process::id()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// A usage or input error: exit 2, nothing on stdout, exactly one line on stderr.
fn one_line_error(args: &[&str]) -> String {
    let (code, out, err) = run(args);
    assert_eq!(code, 2, "{args:?}: exit code; stderr: {err}");
    assert!(out.is_empty(), "{args:?}: stdout {out:?}");
    assert_eq!(err.lines().count(), 1, "{args:?}: one line, got {err:?}");
    assert!(err.starts_with("toolscope: "), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    err
}

#[test]
fn completions_for_each_shell_name_the_subcommands() {
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let (code, out, err) = run(&["completions", shell]);
        assert_eq!(code, 0, "{shell}: {err}");
        assert!(out.len() > 1000, "{shell}: {} bytes", out.len());
        for word in ["query", "lab", "eval", "triage", "top-k", "completions"] {
            assert!(out.contains(word), "{shell} script lacks {word}");
        }
    }
    let (code, out, _) = run(&["completions", "bash"]);
    assert_eq!(code, 0);
    assert!(out.contains("complete -F"), "a bash completion function");
    let (_, out, _) = run(&["completions", "fish"]);
    assert!(out.contains("complete -c toolscope"), "fish completions");
    let err = one_line_error(&["completions", "tcsh"]);
    assert!(err.contains("possible values: bash"), "{err}");
}

#[test]
fn man_page_is_roff_and_names_every_subcommand() {
    let (code, out, err) = run(&["man"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with('.'),
        "roff control line first: {:?}",
        &out[..40]
    );
    let th = out
        .lines()
        .find(|l| l.starts_with(".TH "))
        .expect(".TH header");
    assert!(th.starts_with(".TH toolscope 1 "), "{th}");
    assert!(
        out.lines().take(4).any(|l| l.starts_with(".TH ")),
        "the title comes first"
    );
    for section in [".SH NAME", ".SH SYNOPSIS", ".SH OPTIONS", ".SH COMMANDS"] {
        assert!(out.lines().any(|l| l == section), "lacks {section}");
    }
    for sub in [
        "query",
        "select",
        "triage",
        "lab",
        "lab eval",
        "lab capture",
        "doctor",
        "completions",
        "man",
    ] {
        let heading = format!(".SS \"toolscope {sub}\"");
        assert!(out.lines().any(|l| l == heading), "lacks {heading}");
    }
    assert!(
        !out.contains("toolscope bench"),
        "hidden command in the man page"
    );
    assert!(
        !out.contains("\"toolscope help\""),
        "clap's help command is not a section"
    );
    // the options of a subcommand are there, roff-escaped
    assert!(out.contains("\\-\\-top\\-k"), "subcommand options");
    // one string definition, not one per rendered part
    assert_eq!(out.matches(".ds Aq").count(), 2, ".ie/.el pair once");
}

#[test]
fn top_k_zero_is_a_usage_error_naming_the_range() {
    let d = tmp("topk");
    let suite = write(
        &d,
        "s.json",
        r#"[{"query":"approve a refund","expected_tools":["approveRefund"]}]"#,
    );
    let out_dir = d.join("fx");
    for args in [
        vec!["query", "demo", "refund approval", "--top-k", "0"],
        vec![
            "triage",
            "demo",
            "refund",
            "--expected",
            "approveRefund",
            "--top-k",
            "0",
        ],
        vec!["lab", "eval", "demo", &suite, "--top-k", "0"],
        vec![
            "lab", "diff", "demo", "demo", "--cases", &suite, "--top-k", "0",
        ],
        vec![
            "lab",
            "capture",
            "demo",
            "--cases",
            &suite,
            "-o",
            out_dir.to_str().unwrap(),
            "--top-k",
            "0",
        ],
    ] {
        let err = one_line_error(&args);
        assert!(err.contains("'--top-k <TOP_K>'"), "{args:?}: {err}");
        assert!(err.contains("from 1 to 10000"), "{args:?}: {err}");
        assert!(err.contains("0 returns no result"), "{args:?}: {err}");
    }
    assert!(!out_dir.exists(), "nothing captured");
    let err = one_line_error(&["query", "demo", "x", "--top-k", "10001"]);
    assert!(err.contains("from 1 to 10000"), "{err}");
    // the smallest allowed value runs
    let (code, out, _) = run(&["query", "demo", "refund approval", "--top-k", "1", "--json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["results"].as_array().unwrap().len(), 1);
}

#[test]
fn unknown_policy_is_a_usage_error_listing_the_policies() {
    for args in [
        vec!["query", "demo", "refund", "--select", "--policy", "bogus"],
        vec![
            "select",
            "demo",
            "refund",
            "--candidates",
            "approveRefund",
            "--policy",
            "bogus",
        ],
        vec![
            "triage",
            "demo",
            "refund",
            "--expected",
            "approveRefund",
            "--policy",
            "bogus",
        ],
    ] {
        let err = one_line_error(&args);
        assert!(err.contains("'bogus'"), "{err}");
        assert!(
            err.contains("[possible values: strong_evidence, risk_limited, manual_review]"),
            "{args:?}: {err}"
        );
    }
    let err = one_line_error(&["query", "demo", "refund", "--policy", "risk"]);
    assert!(
        err.contains("a similar value exists: 'risk_limited'"),
        "{err}"
    );
    // every listed policy is accepted and reaches the selector
    for p in ["strong_evidence", "risk_limited", "manual_review"] {
        let (code, out, err) = run(&["query", "demo", "approve refund", "--select", "--policy", p]);
        assert_eq!(code, 0, "{p}: {err}");
        assert!(out.contains(&format!("policy {p}")), "{p}: {out}");
    }
}

#[test]
fn a_missing_file_reads_the_same_everywhere() {
    let gone = "/nonexistent-toolscope/x.json";
    let want = format!("toolscope: {gone}: no such file\n");
    for args in [
        vec!["query", gone, "x"],
        vec!["query", "demo", "--batch", gone],
        vec!["query", "demo", "x", "--learning", gone],
        vec!["select", "demo", "x", "--from", gone],
        vec!["lab", "eval", "demo", gone],
        vec!["lab", "eval", gone, gone],
        vec!["lab", "check", "demo", gone],
        vec!["lab", "diff", gone, gone],
        vec!["lab", "replay", "demo", gone],
        vec!["triage", "demo", "--cases", gone],
        vec!["explain", gone, "x"],
        vec!["build", gone, "-o", "/nonexistent-toolscope/out.json"],
        vec!["bench", "demo", "--queries", gone],
        vec!["diff", gone, "/nonexistent-toolscope/y.json"],
        vec![gone],
    ] {
        let (code, out, err) = run(&args);
        assert_eq!(code, 2, "{args:?}");
        assert!(out.is_empty(), "{args:?}");
        assert_eq!(err, want, "{args:?}");
    }
}

#[test]
fn a_type_error_in_a_batch_line_names_the_json_pointer() {
    let d = tmp("batch");
    let f = write(
        &d,
        "cases.jsonl",
        "{\"id\":\"a\",\"query\":\"list orders\"}\n{\"id\":\"b\",\"query\":\"list orders\",\"params\":{\"top_k\":\"x\"}}\n",
    );
    let (code, out, err) = run(&["query", "demo", "--batch", &f]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(out.lines().count(), 1, "the good first line is answered");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("cases.jsonl:2:")
            && err.contains(" /params/top_k: invalid type: string \"x\""),
        "{err}"
    );
    let f = write(
        &d,
        "sel.jsonl",
        "{\"query\":\"q\",\"selector\":{\"policy\":7}}\n",
    );
    let err = one_line_error(&["query", "demo", "--batch", &f]);
    assert!(
        err.contains(":1:") && err.contains("/selector/policy: invalid type"),
        "{err}"
    );
}

#[test]
fn a_plain_text_file_is_called_what_it_is() {
    let d = tmp("plain");
    let f = write(&d, "notes.txt", "hello, these are my notes\nsecond line\n");
    for (args, want) in [
        (
            vec!["build", &f, "-o", "-"],
            "plain text, not a recognised input",
        ),
        (vec!["query", &f, "x"], "not JSON"),
        (
            vec!["lab", "eval", "demo", &f],
            "1:1: not JSON: expected a suite object",
        ),
        (
            vec!["triage", "demo", "--cases", &f],
            "not JSON: expected a suite object",
        ),
        (
            vec!["query", "demo", "x", "--learning", &f],
            "not JSON: expected learning",
        ),
        (
            vec!["select", "demo", "x", "--from", &f],
            "not JSON: expected a retrieval response",
        ),
        (
            vec!["query", "demo", "--batch", &f],
            "1:1: not JSON: expected a case object",
        ),
        (vec!["lab", "diff", &f, &f], "not JSON: expected evidence"),
    ] {
        let err = one_line_error(&args);
        assert!(err.contains(&f), "{args:?}: names the file: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("scalar"), "{args:?}: {err}");
    }
}

#[test]
fn a_missing_query_shows_the_usage_as_help_does() {
    let (_, help, _) = run(&["query", "--help"]);
    let usage = help
        .lines()
        .find(|l| l.starts_with("Usage: "))
        .unwrap()
        .trim_start_matches("Usage: ")
        .to_string();
    assert_eq!(usage, "toolscope query [OPTIONS] <GRAPH> <QUERY>");
    assert!(help.contains("--batch <CASES.jsonl>"), "{help}");
    let err = one_line_error(&["query", "demo"]);
    assert!(err.contains("not provided: <QUERY>"), "{err}");
    assert!(err.contains(&format!("usage: {usage} | ")), "{err}");
    // the same for a command without an override: --help's usage, [OPTIONS] included
    let (_, help, _) = run(&["lab", "eval", "--help"]);
    assert!(
        help.contains("Usage: toolscope lab eval [OPTIONS] <GRAPH> <SUITE>"),
        "{help}"
    );
    let err = one_line_error(&["lab", "eval", "demo"]);
    assert!(
        err.contains("usage: toolscope lab eval [OPTIONS] <GRAPH> <SUITE> (see --help)"),
        "{err}"
    );
}

#[test]
fn doctor_names_no_color_only_when_it_is_set() {
    let colour = |no_color: Option<&str>| {
        let mut c = bin();
        c.arg("doctor")
            .env("TERM", "dumb")
            .env_remove("COLORTERM")
            .env_remove("TMUX");
        match no_color {
            Some(v) => c.env("NO_COLOR", v),
            None => c.env_remove("NO_COLOR"),
        };
        let out = c.output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .find(|l| l.trim_start().starts_with("colour"))
            .unwrap()
            .to_string()
    };
    let dumb = colour(None);
    assert!(
        dumb.contains("none (bold/reverse/underline only)"),
        "{dumb}"
    );
    assert!(dumb.contains("TERM=dumb"), "{dumb}");
    assert!(!dumb.contains("NO_COLOR"), "{dumb}");
    let set = colour(Some("1"));
    assert!(set.contains("NO_COLOR is set"), "{set}");
}

/// The metrics line of `lab eval`'s text output.
fn metrics_line(out: &str) -> &str {
    out.lines().nth(1).unwrap()
}

#[test]
fn lab_eval_prints_each_metric_once_at_the_explorers_k() {
    let d = tmp("eval");
    let suite = write(
        &d,
        "s.json",
        r#"[{"query":"approve a refund","expected_tools":["approveRefund"]},
            {"query":"list orders of a member","expected_tools":["listMemberOrders"]}]"#,
    );
    // the default k is the explorer's (its Lab screen evaluates at the engine's default top_k)
    let explorer_k = toolscope::engine::Params::default().top_k;
    assert_eq!(explorer_k, 10);
    let (code, out, err) = run(&["lab", "eval", "demo", &suite]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.lines().next().unwrap().ends_with("· 2 cases · k=10"),
        "{out}"
    );
    assert_eq!(
        metrics_line(&out),
        "hit@1 1.0000  hit@5 1.0000  hit@10 1.0000  recall@10 1.0000  MRR 1.0000  selector accuracy 1.0000"
    );
    let (_, help, _) = run(&["lab", "eval", "--help"]);
    assert!(help.contains("[default: 10]"), "{help}");
    for (k, want) in [
        ("5", vec!["hit@1", "hit@5", "recall@5"]),
        ("3", vec!["hit@1", "hit@3", "recall@3"]),
        ("1", vec!["hit@1", "recall@1"]),
    ] {
        let (_, out, _) = run(&["lab", "eval", "demo", &suite, "--top-k", k]);
        let names: Vec<&str> = metrics_line(&out)
            .split("  ")
            .map(|m| m.rsplit_once(' ').unwrap().0)
            .collect();
        let mut want = want.clone();
        want.extend(["MRR", "selector accuracy"]);
        assert_eq!(names, want, "k={k}: {out}");
        let (_, json, _) = run(&["lab", "eval", "demo", &suite, "--top-k", k, "--json"]);
        for m in &want {
            let key = format!("\"{}\":", m.replace(' ', "_"));
            assert_eq!(json.matches(&key).count(), 1, "k={k}: {key} once in {json}");
        }
        let v: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["summary"]["k"].to_string(), k);
    }
}

#[test]
fn an_unlabelled_suite_is_evaluated_as_unlabelled() {
    let d = tmp("unlabelled");
    let queries = [
        "approve a refund",
        "list orders of a member",
        "cancel an order",
    ];
    let lines: Vec<String> = queries
        .iter()
        .enumerate()
        .map(|(i, q)| format!("{{\"id\":\"u{i}\",\"query\":\"{q}\"}}"))
        .collect();
    let suite = write(&d, "unlabelled.jsonl", &(lines.join("\n") + "\n"));
    let (code, out, err) = run(&["lab", "eval", "demo", &suite]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("unlabelled suite: 3 cases have no expected tool"),
        "{out}"
    );
    for word in ["hit@", "recall@", "MRR", "selector accuracy", " ok ", " x "] {
        assert!(
            !out.contains(word),
            "no {word:?} on an unlabelled suite: {out}"
        );
    }
    // each case with its rank-1 tool and the selector's target, as `query --select` gives
    for (i, q) in queries.iter().enumerate() {
        let (_, j, _) = run(&["query", "demo", q, "--select", "--json"]);
        let v: Value = serde_json::from_str(&j).unwrap();
        let top = v["results"][0]["name"].as_str().unwrap();
        let selected = v["target_selector"]["selected_target"].as_str().unwrap();
        let row = out
            .lines()
            .find(|l| l.starts_with(&format!("u{i} ")))
            .unwrap_or_else(|| panic!("case u{i} listed: {out}"));
        let cols: Vec<&str> = row.split_whitespace().collect();
        assert_eq!((cols[1], cols[2]), (top, selected), "{row}");
    }
    let (code, json, _) = run(&["lab", "eval", "demo", &suite, "--json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&json).unwrap();
    let s = &v["summary"];
    assert_eq!(
        (s["cases"].as_u64(), s["labelled"].as_u64()),
        (Some(3), Some(0))
    );
    for m in [
        "hit@1",
        "hit@5",
        "hit@10",
        "recall@10",
        "MRR",
        "selector_accuracy",
    ] {
        assert!(s[m].is_null(), "{m} is null: {s}");
    }
    for c in v["cases"].as_array().unwrap() {
        assert_eq!(c["labelled"], false);
        assert!(c["rr"].is_null() && c["selector_correct"].is_null(), "{c}");
        assert!(c["selected"].as_str().is_some_and(|t| !t.is_empty()), "{c}");
    }
    // a comparison has nothing to compare
    let (code, out, err) = run(&["lab", "eval", "demo", &suite, "--vs-set", "depth=1"]);
    assert_eq!(code, 0);
    assert!(!out.contains("Δ"), "{out}");
    assert!(
        err.contains("unlabelled suite has no metrics to compare"),
        "{err}"
    );
}

#[test]
fn a_partly_labelled_suite_is_scored_over_its_labelled_cases() {
    let d = tmp("mixed");
    let suite = write(
        &d,
        "mixed.jsonl",
        concat!(
            "{\"id\":\"l1\",\"query\":\"approve a refund\",\"labels\":{\"expected_tools\":[\"approveRefund\"]}}\n",
            "{\"id\":\"u1\",\"query\":\"list orders of a member\"}\n"
        ),
    );
    let (code, out, err) = run(&["lab", "eval", "demo", &suite]);
    assert_eq!(code, 0, "{err}");
    // the unlabelled case does not count as a miss (hit@1 would be 0.5) nor as recall 1.0
    assert!(
        metrics_line(&out).starts_with("hit@1 1.0000  hit@5 1.0000"),
        "{out}"
    );
    assert!(
        out.contains("1 case has no expected tool: not scored"),
        "{out}"
    );
    let (_, json, _) = run(&["lab", "eval", "demo", &suite, "--json"]);
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["summary"]["labelled"], 1);
    assert_eq!(v["summary"]["unlabelled"], 1);
    assert_eq!(v["summary"]["hit@1"], 1.0);
    let ids: Vec<&str> = v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["l1", "u1"], "labelled first");
}

/// Re-trial N8: a batch's cases carry their own parameters; a parameter flag given with
/// `--batch` is refused, not silently ignored.
#[test]
fn parameter_flags_are_refused_with_a_batch() {
    let d = tmp("batch-flags");
    let f = write(
        &d,
        "cases.jsonl",
        "{\"id\":\"a\",\"query\":\"list orders\"}\n",
    );
    for flag in [
        &["--top-k", "3"][..],
        &["--depth", "1"],
        &["--policy", "manual_review"],
        &["--llm-target", "getOrder"],
        &["--select"],
        &["--history", "getOrder"],
    ] {
        let mut args = vec!["query", "demo", "--batch", &f];
        args.extend_from_slice(flag);
        let err = one_line_error(&args);
        assert!(err.contains("cannot be used with"), "{flag:?}: {err}");
    }
    let (code, out, _) = run(&["query", "demo", "--batch", &f]);
    assert_eq!((code, out.lines().count()), (0, 1));
}

/// Re-trial N7: a golden case with `top_k` 0 (the reference answers it with no rows) is
/// evaluated with the rest of its suite, not refused as if `--set` had said it.
#[test]
fn a_golden_suite_with_a_top_k_0_case_is_evaluated_whole() {
    let Some(g) = common::shared_golden("a_golden_suite_with_a_top_k_0_case_is_evaluated_whole")
    else {
        return;
    };
    let graph = g.join("graphs/petstore3.json");
    let cases = g.join("cases/petstore3.jsonl");
    let (code, out, err) = run(&[
        "lab",
        "eval",
        graph.to_str().unwrap(),
        cases.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("petstore3 · 260 cases"), "{out}");
    // a bad --set is still named as such
    let err = one_line_error(&[
        "lab",
        "eval",
        graph.to_str().unwrap(),
        cases.to_str().unwrap(),
        "--set",
        "top_k=0",
    ]);
    assert!(err.contains("--set: knob top_k"), "{err}");
}

/// Every option and argument of every command says what it does in `--help` (`lab diff
/// --base`, `--json` and `--ascii` and `lab eval --set` and `--json` printed a bare flag).
#[test]
fn every_option_has_help_text() {
    use clap::CommandFactory;
    fn walk(cmd: &clap::Command, path: &str, bare: &mut Vec<String>) {
        for a in cmd.get_arguments() {
            let id = a.get_id().as_str();
            if id == "help" || id == "version" {
                continue;
            }
            if a.get_help().is_none() && a.get_long_help().is_none() {
                bare.push(format!("{path} {id}"));
            }
        }
        for s in cmd.get_subcommands() {
            walk(s, &format!("{path} {}", s.get_name()), bare);
        }
    }
    let mut cmd = toolscope::cli::Cli::command();
    cmd.build();
    let mut bare = Vec::new();
    walk(&cmd, "toolscope", &mut bare);
    assert!(bare.is_empty(), "options without help: {bare:?}");
}
