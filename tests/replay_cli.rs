//! `lab replay` through the binary: real graph-tool-call 0.47.0 trace envelopes
//! (tests/fixtures/traces, recorded by scripts/make-trace-envelopes.sh with the
//! reference's TraceRecorder and adapters) reproduce on the graphs they were recorded on,
//! the golden case files reproduce, and a file of planted drifts — one per kind, each made
//! by the reference the way production makes it — is classified exactly.

use assert_cmd::Command;
mod common;

use std::path::{Path, PathBuf};

fn toolscope(args: &[&str], stdin: Option<Vec<u8>>) -> (i32, String, String) {
    let mut c = Command::cargo_bin("toolscope").unwrap();
    c.args(args);
    if let Some(s) = stdin {
        c.write_stdin(s);
    }
    let out = c.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn traces(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/traces")
        .join(name)
        .display()
        .to_string()
}

fn golden(what: &str) -> Option<PathBuf> {
    common::shared_golden(what)
}

fn lines(out: &str) -> Vec<serde_json::Value> {
    out.lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn reference_envelopes_of_the_demo_reproduce() {
    let (code, out, err) = toolscope(
        &[
            "lab",
            "replay",
            "demo",
            &traces("demo.jsonl.gz"),
            &traces("demo-list.json"),
            &traces("demo-one.json"),
        ],
        None,
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.starts_with("64 records: 64 reproduced, 0 drifted, 0 partial, 0 unreadable"),
        "{out}"
    );
}

#[test]
fn reference_envelopes_and_golden_cases_of_the_golden_graphs_reproduce() {
    let Some(g) = golden("reference_envelopes_and_golden_cases_of_the_golden_graphs_reproduce")
    else {
        return;
    };
    for (graph, file, records, partial) in [
        ("ecommerce", traces("ecommerce.jsonl.gz"), 284, 3),
        ("github_subset", traces("github_subset.jsonl.gz"), 252, 3),
    ] {
        let gp = g.join("graphs").join(format!("{graph}.json"));
        let (code, out, err) = toolscope(
            &["lab", "replay", gp.to_str().unwrap(), &file, "--json"],
            None,
        );
        assert_eq!(code, 0, "{err}");
        let l = lines(&out);
        let s = &l.last().unwrap()["summary"];
        assert_eq!(s["records"], records, "{graph}: {s}");
        assert_eq!(s["reproduced"], records - partial, "{graph}: {s}");
        assert_eq!(s["drifted"], 0, "{graph}: {s}");
        // the partial ones: queries the recorder cut at 240 characters
        for r in l.iter().filter(|r| r["status"] == "partial") {
            assert!(
                r["detail"].as_str().unwrap().contains("240 characters"),
                "{r}"
            );
        }
    }
    // every golden case of every golden graph (3,059 decisions of the reference, learning
    // suggestions included) reproduces
    let mut total = 0;
    for e in std::fs::read_dir(g.join("graphs")).unwrap() {
        let gp = e.unwrap().path();
        let name = gp.file_stem().unwrap().to_string_lossy().into_owned();
        let cases = g.join("cases").join(format!("{name}.jsonl"));
        if gp.extension().is_none_or(|x| x != "json") || !cases.exists() {
            continue;
        }
        let (code, out, err) = toolscope(
            &[
                "lab",
                "replay",
                gp.to_str().unwrap(),
                cases.to_str().unwrap(),
                "--json",
            ],
            None,
        );
        assert_eq!(code, 0, "{name}: {err}");
        let s = lines(&out).last().unwrap()["summary"].clone();
        assert_eq!(s["reproduced"], s["records"], "{name}: {s}");
        total += s["records"].as_u64().unwrap();
    }
    assert!(total > 0);
}

#[test]
fn planted_drifts_are_classified_exactly() {
    let (code, out, err) = toolscope(
        &["lab", "replay", "demo", &traces("drifts.jsonl"), "--json"],
        None,
    );
    assert_eq!(code, 1, "anything drifted exits 1: {err}");
    let l = lines(&out);
    let by_id = |id: &str| {
        l.iter()
            .find(|r| r["record"].as_str().unwrap().ends_with(id))
            .unwrap_or_else(|| panic!("{id} in {out}"))
            .clone()
    };
    for (id, kind) in [
        ("drift-version-skew", "version_skew"),
        ("drift-stale-artifact", "stale_artifact"),
        ("drift-parameters-differ", "parameters_differ"),
        ("drift-unexplained", "unexplained"),
    ] {
        let r = by_id(id);
        assert_eq!(r["status"], "drifted", "{r}");
        assert_eq!(r["drift_kind"], kind, "{r}");
        let p = r["first_difference"].as_str().unwrap();
        assert!(p.starts_with("/spans/0/decisions/"), "{r}");
        assert_ne!(r["recorded"], r["recomputed"], "{r}");
    }
    assert_eq!(
        by_id("drift-parameters-differ")["detail"],
        "reproduced with depth=0"
    );
    assert!(
        by_id("drift-stale-artifact")["detail"]
            .as_str()
            .unwrap()
            .contains("getOrderV2 is not in this graph")
    );
    assert_eq!(by_id("partial-scrubbed-query")["status"], "partial");
    let unreadable: Vec<_> = l.iter().filter(|r| r["status"] == "unreadable").collect();
    assert_eq!(unreadable.len(), 2, "{out}");
    assert!(unreadable.iter().any(|r| {
        r["detail"]
            .as_str()
            .unwrap()
            .contains("schema_version \"2.0\"")
    }));
    assert!(
        unreadable
            .iter()
            .any(|r| r["record"].as_str().unwrap().contains("drifts.jsonl:7"))
    );
    let s = &l.last().unwrap()["summary"];
    assert_eq!(
        s["drift_kinds"],
        serde_json::json!({"version_skew": 1, "stale_artifact": 1, "parameters_differ": 1, "unexplained": 1})
    );
    // the human summary says the same
    let (_, text, _) = toolscope(&["lab", "replay", "demo", &traces("drifts.jsonl")], None);
    assert!(text.starts_with("7 records: 0 reproduced, 4 drifted (version_skew 1, stale_artifact 1, parameters_differ 1, unexplained 1), 1 partial, 2 unreadable"), "{text}");
}

#[test]
fn lab_diff_reads_trace_envelopes() {
    let f = traces("demo-list.json");
    let (code, out, err) = toolscope(&["lab", "diff", &f, &f], None);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("0 of 3 cases changed"), "{out}");
    // the unsupported schema is one error with its place, not an empty run
    let (code, _, err) = toolscope(&["lab", "diff", &f, &traces("drifts.jsonl")], None);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("drifts.jsonl:6"), "{err}");
}

#[test]
fn standard_input_and_bad_paths() {
    let bytes = std::fs::read(traces("demo-list.json")).unwrap();
    let (code, out, _) = toolscope(&["lab", "replay", "demo", "-"], Some(bytes));
    assert_eq!(code, 0);
    assert!(out.starts_with("3 records: 3 reproduced"), "{out}");
    let (code, _, err) = toolscope(&["lab", "replay", "demo", "/no/such/file.jsonl"], None);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("/no/such/file.jsonl"), "{err}");

    // a pretty document cut short is one error where it breaks, not hundreds of
    // "JSON Lines" errors; nothing readable at all is bad input (exit 2, one line)
    let dir = std::env::temp_dir().join(format!("toolscope-replay-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let pretty = std::fs::read(traces("demo-one.json")).unwrap();
    let cut = dir.join("cut.json");
    std::fs::write(&cut, &pretty[..pretty.len() / 2]).unwrap();
    let (code, out, err) = toolscope(&["lab", "replay", "demo", cut.to_str().unwrap()], None);
    assert_eq!(code, 2, "{out}{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("no record could be read") && err.contains("truncated JSON"),
        "{err}"
    );
    // a FIFO is refused by type, never waited on
    #[cfg(unix)]
    {
        let fifo = dir.join("fifo.jsonl");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let (code, _, err) = toolscope(&["lab", "replay", "demo", fifo.to_str().unwrap()], None);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("FIFO"), "{err}");
    }
    // a file name with an escape sequence and a zero-width character reaches the
    // terminal inert
    let evil = dir.join("ev\u{1b}]0;PWNED\u{7}\u{200b}il.jsonl");
    std::fs::copy(traces("drifts.jsonl"), &evil).unwrap();
    let (code, out, err) = toolscope(&["lab", "replay", "demo", evil.to_str().unwrap()], None);
    assert_eq!(code, 1);
    assert!(
        !out.contains('\u{1b}') && !out.contains('\u{200b}'),
        "{out}"
    );
    assert!(!err.contains('\u{1b}'), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// UX trial defects 9 and 10: a batch output line carries its query and knobs, so it can be
/// read, replayed and opened on a graph as a case list; records without a query on a graph
/// are a one-line usage error, not a meaningless Diff.
#[test]
fn batch_output_carries_its_query_and_opens_on_a_graph() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("batch-query");
    std::fs::create_dir_all(&dir).unwrap();
    let cases = dir.join("cases.jsonl");
    std::fs::write(
        &cases,
        "{\"id\":\"a\",\"query\":\"cancel my order\",\"params\":{\"top_k\":5},\"selector\":{\"llm_target\":\"getOrder\"}}\n\
         {\"id\":\"b\",\"query\":\"approve refund\"}\n",
    )
    .unwrap();
    let (code, out, err) = toolscope(&["query", "demo", "--batch", cases.to_str().unwrap()], None);
    assert_eq!(code, 0, "{err}");
    let recs = lines(&out);
    assert_eq!(recs[0]["query"], "cancel my order");
    assert_eq!(recs[0]["params"]["top_k"], 5);
    assert_eq!(recs[0]["selector"]["llm_target"], "getOrder");
    assert_eq!(recs[0]["retrieval"]["results"].as_array().unwrap().len(), 5);
    assert!(recs[1].get("params").is_none() && recs[1]["selection"].is_null());
    let run = dir.join("run.jsonl");
    std::fs::write(&run, &out).unwrap();
    let (code, out, err) = toolscope(&["lab", "replay", "demo", run.to_str().unwrap()], None);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("2 reproduced, 0 drifted"), "{out}");
    let noq = dir.join("noq.jsonl");
    std::fs::write(
        &noq,
        "{\"id\":\"x\",\"retrieval\":{\"results\":[]},\"selection\":null}\n",
    )
    .unwrap();
    let (code, _, err) = toolscope(&["demo", noq.to_str().unwrap()], None);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("noq.jsonl:/query"), "{err}");
}

/// The demo's reference envelopes, one per line.
fn demo_lines() -> Vec<String> {
    let gz = std::fs::read(traces("demo.jsonl.gz")).unwrap();
    let text = String::from_utf8(toolscope::limits::gunzip("demo.jsonl.gz", gz).unwrap()).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(String::from)
        .collect()
}

/// Audit bug 1: `lab replay … -` is a streaming filter. Standard input arrives through a
/// pipe in two parts with a pause: the first part's verdicts are read off standard output
/// before the second part is written (the summary comes at the end).
#[test]
fn replay_streams_standard_input_as_it_arrives() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    use std::time::Duration;
    let lines = demo_lines();
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .args(["lab", "replay", "demo", "-", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(stdout).lines() {
            if tx.send(l.unwrap()).is_err() {
                break;
            }
        }
    });
    stdin
        .write_all(format!("{}\n", lines[..5].join("\n")).as_bytes())
        .unwrap();
    stdin.flush().unwrap();
    for i in 0..5 {
        let l = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("verdict {} before the rest was written", i + 1));
        let v: serde_json::Value = serde_json::from_str(&l).unwrap();
        assert_eq!(v["status"], "reproduced", "{l}");
        assert_eq!(v["record"], format!("-:{} trace-0000{}", i + 1, i + 1));
    }
    // nothing more while the input pauses: the summary waits for the end
    assert!(rx.recv_timeout(Duration::from_millis(300)).is_err());
    stdin
        .write_all(format!("{}\n", lines[5..10].join("\n")).as_bytes())
        .unwrap();
    drop(stdin);
    let rest: Vec<String> = rx.iter().collect();
    assert_eq!(rest.len(), 6, "{rest:?}");
    let s: serde_json::Value = serde_json::from_str(&rest[5]).unwrap();
    assert_eq!(s["summary"]["records"], 10);
    assert_eq!(s["summary"]["reproduced"], 10);
    assert!(child.wait().unwrap().success());
}

/// Audit bug 2: a bad first line (garbage, or a record torn mid-string) is one unreadable
/// line of a JSON Lines file, counted and listed like a bad line anywhere else — from a
/// file, from standard input, and on the Evidence screen; only input where nothing at all
/// is readable is an error.
#[test]
fn a_bad_first_line_is_counted_like_any_other() {
    let lines = demo_lines();
    let dir = common::tmp_dir("replay", "first-line");
    let torn = &lines[0][..300];
    for (name, first) in [("gfirst.jsonl", "garbage first line"), ("torn.jsonl", torn)] {
        let f = dir.join(name);
        std::fs::write(&f, format!("{first}\n{}\n{}\n", lines[0], lines[1])).unwrap();
        let fs = f.to_str().unwrap();
        let (code, out, err) = toolscope(&["lab", "replay", "demo", fs], None);
        assert_eq!(code, 0, "{name}: {out}{err}");
        assert!(
            out.starts_with("3 records: 2 reproduced, 0 drifted, 0 partial, 1 unreadable"),
            "{name}: {out}"
        );
        let listed = out.lines().nth(1).unwrap_or_default();
        assert!(
            listed.starts_with("unreadable ") && listed.contains(&format!("{name}:1:")),
            "{name}: {out}"
        );
        let bytes = std::fs::read(&f).unwrap();
        let (code, out, _) = toolscope(&["lab", "replay", "demo", "-", "--json"], Some(bytes));
        assert_eq!(code, 0, "{name} on stdin: {out}");
        let l = lines_of(&out);
        assert_eq!(l[0]["status"], "unreadable", "{out}");
        assert!(
            l[0]["record"].as_str().unwrap().starts_with("-:1:"),
            "{out}"
        );
        assert_eq!(l[3]["summary"]["reproduced"], 2, "{out}");
        // `toolscope FILE` opens it on the Evidence screen (not as a broken graph)
        assert_eq!(
            toolscope::tui::records::detect(&f),
            toolscope::tui::records::FileKind::Evidence,
            "{name}"
        );
        let set = toolscope::tui::records::read_set(&f).unwrap();
        assert_eq!(set.records.len(), 2, "{name}: {:?}", set.errors);
        assert_eq!(set.errors.len(), 1);
        assert!(
            set.errors[0].contains(&format!("{name}:1:")),
            "{:?}",
            set.errors
        );
    }
    // nothing readable at all (one torn line): bad input, one line naming where it breaks
    let f = dir.join("torn-only.jsonl");
    std::fs::write(&f, torn).unwrap();
    let (code, out, err) = toolscope(&["lab", "replay", "demo", f.to_str().unwrap()], None);
    assert_eq!(code, 2, "{out}{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("no record could be read")
            && err.contains("torn-only.jsonl:1:300: truncated JSON"),
        "{err}"
    );
}

fn lines_of(out: &str) -> Vec<serde_json::Value> {
    lines(out)
}

/// A service's logged response names the LLM's pick only in its `target_selector` answer
/// (no `selector` request): the replay feeds that pick back to the selector, and a
/// different pick in the log is a drift, not a reproduction.
#[test]
fn a_logged_response_replays_with_the_llm_pick_it_recorded() {
    let dir = common::tmp_dir("replay", "llm-pick");
    let rec = r#"{"id": "x", "query": "cancel my order", "params": {"top_k": 5}, "results": [{"name": "cancelOrder", "score": 1.0}, {"name": "cancelPayment", "score": 0.6129}, {"name": "getOrder", "score": 0.6}, {"name": "createOrder", "score": 0.6}, {"name": "updateOrder", "score": 0.5128}], "target_selector": {"selected_target": "getOrder", "llm_target": "getOrder", "overrode_llm": false, "ambiguous": true, "reason_codes": ["candidate_tie_override_blocked", "non_discriminative_override_blocked", "ambiguous_target", "insufficient_contrastive_evidence", "llm_target_preserved"]}}"#;
    let f = dir.join("responses.jsonl");
    std::fs::write(&f, format!("{rec}\n")).unwrap();
    let (code, out, err) = toolscope(
        &["lab", "replay", "demo", f.to_str().unwrap(), "--json"],
        None,
    );
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(lines(&out)[0]["status"], "reproduced", "{out}");
    // the same answer logged for another pick no longer reproduces
    let other = rec.replace(
        r#""llm_target": "getOrder""#,
        r#""llm_target": "cancelOrder""#,
    );
    std::fs::write(&f, format!("{other}\n")).unwrap();
    let (code, out, _) = toolscope(
        &["lab", "replay", "demo", f.to_str().unwrap(), "--json"],
        None,
    );
    assert_eq!(code, 1, "{out}");
    assert_eq!(lines(&out)[0]["status"], "drifted", "{out}");
}

/// Trial 2026-12-05 item 6: a redacted parameter is unknown, never the default. The
/// reference's recorder redacts `token_budget` in every envelope; it only bounds the
/// subgraph text, which replay does not compare, so those still reproduce. A redacted
/// `depth` (or `top_k`, `history`, …) makes the record partial, not a drift against the
/// default.
#[test]
fn a_redacted_parameter_is_unknown_not_the_default() {
    let dir = common::tmp_dir("replay", "redacted");
    let lines = demo_lines();
    let mut v: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(v["attributes"]["token_budget"], "[REDACTED]");
    let as_recorded = serde_json::to_string(&v).unwrap();
    v["attributes"]["depth"] = "[REDACTED]".into();
    let depth = serde_json::to_string(&v).unwrap();
    v["attributes"]["depth"] = 2.into();
    v["attributes"]["top_k"] = "five".into();
    let top_k = serde_json::to_string(&v).unwrap();
    let f = dir.join("redacted.jsonl");
    std::fs::write(&f, format!("{as_recorded}\n{depth}\n{top_k}\n")).unwrap();
    let (code, out, err) = toolscope(
        &["lab", "replay", "demo", f.to_str().unwrap(), "--json"],
        None,
    );
    assert_eq!(code, 0, "{out}{err}");
    let l = lines_of(&out);
    assert_eq!(l[0]["status"], "reproduced", "{out}");
    assert_eq!(l[1]["status"], "partial", "{out}");
    assert_eq!(
        l[1]["detail"],
        "parameter depth was redacted: its value is unknown"
    );
    assert_eq!(l[2]["status"], "partial", "{out}");
    assert_eq!(
        l[2]["detail"],
        "parameter top_k was recorded as \"five\": its value is unknown"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Trial 2026-12-05 items 8 and 18: every record of `lab replay` is named by its file as
/// given on the command line (readable or not, so two files of one name in two folders
/// are told apart), and one record is "1 record".
#[test]
fn records_are_named_by_the_path_as_given_and_counted_in_words() {
    let dir = common::tmp_dir("replay", "names");
    let lines = demo_lines();
    for sub in ["a", "b"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
        v.as_object_mut().unwrap().remove("trace_id");
        std::fs::write(
            dir.join(sub).join("log.jsonl"),
            format!("{}\n{{torn\n", serde_json::to_string(&v).unwrap()),
        )
        .unwrap();
    }
    let a = dir.join("a/log.jsonl").display().to_string();
    let b = dir.join("b/log.jsonl").display().to_string();
    let (_, out, err) = toolscope(&["lab", "replay", "demo", &a, &b, "--json"], None);
    let l = lines_of(&out);
    let names: Vec<&str> = l[..4]
        .iter()
        .map(|r| r["record"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            format!("{a}:1"),
            format!("{a}:2:2"),
            format!("{b}:1"),
            format!("{b}:2:2")
        ],
        "{out}{err}"
    );
    // a folder's files are named under the folder as given
    let (_, out, _) = toolscope(
        &[
            "lab",
            "replay",
            "demo",
            dir.join("a").to_str().unwrap(),
            "--json",
        ],
        None,
    );
    assert_eq!(lines_of(&out)[0]["record"], format!("{a}:1"));
    // one record: "1 record", in the summary
    let one = dir.join("one.jsonl");
    std::fs::write(&one, format!("{}\n", lines[0])).unwrap();
    let (code, out, _) = toolscope(&["lab", "replay", "demo", one.to_str().unwrap()], None);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("1 record: 1 reproduced, 0 drifted, 0 partial, 0 unreadable"),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bench_times_following_a_file_as_the_follow_screen_reads_it() {
    let drifts = traces("drifts.jsonl");
    let queries = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/demo/queries.txt")
        .display()
        .to_string();
    let n = std::fs::read_to_string(&drifts)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count();
    let (code, out, err) = toolscope(
        &["bench", "demo", "--queries", &queries, "--follow", &drifts],
        None,
    );
    assert_eq!(code, 0, "{err}");
    let r: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
    assert_eq!(r["follow_records"], n as u64);
    // classifying is timed three times and the median is the rate
    let runs = r["follow_classify_runs_s"].as_array().expect("the passes");
    assert_eq!(runs.len(), 3);
    let mut s: Vec<f64> = runs.iter().map(|x| x.as_f64().unwrap()).collect();
    s.sort_by(f64::total_cmp);
    assert_eq!(r["follow_classify_s"].as_f64(), Some(s[1]));
    // the planted drifts replay as drifted on the demo
    assert!(r["follow_drifted"].as_u64().unwrap() >= 4, "{out}");
}

/// serde_json's private raw-value key (`$serde_json::private::RawValue`) is an ordinary key
/// in captured evidence, as Python's json reads it: it does not turn a string into the
/// recorded query or rows, and a valid line carrying it is not "torn".
#[test]
fn serde_json_raw_value_key_in_a_record_is_an_ordinary_key() {
    let key = "$serde_json::private::RawValue";
    let rec = |v: serde_json::Value| v.to_string() + "\n";
    let input = [
        rec(serde_json::json!({"query": {key: "\"approve refund\""},
            "results": [{"name": "approveRefund", "score": 1.0}]})),
        rec(serde_json::json!({"query": "approve refund",
            "results": {key: "[{\"name\":\"approveRefund\",\"score\":1.0}]"}})),
        rec(serde_json::json!({"query": "approve refund",
            "results": [{"name": "approveRefund", "score": 1.0, "x": {key: "{"}}]})),
    ]
    .concat();
    let (_, out, err) = toolscope(
        &["lab", "replay", "demo", "-", "--json"],
        Some(input.into()),
    );
    let l = lines(&out);
    assert_eq!(l.len(), 4, "{out}{err}");
    assert_eq!(l[0]["status"], "unreadable", "{}", l[0]);
    assert!(
        l[0]["detail"].as_str().unwrap().contains("/query"),
        "{}",
        l[0]
    );
    assert_eq!(l[1]["status"], "unreadable", "{}", l[1]);
    assert!(
        l[1]["detail"].as_str().unwrap().contains("/results"),
        "{}",
        l[1]
    );
    // read, then replayed like any record (not a torn line)
    assert_ne!(l[2]["status"], "unreadable", "{}", l[2]);
}
