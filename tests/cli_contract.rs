//! The command line's contract: exit codes, one-line input errors naming file and place,
//! JSON output shape, batch mode and closed pipes. Every input here is made by the test.

use assert_cmd::Command;
use std::io::Write;
use std::path::{Path, PathBuf};

fn bin() -> Command {
    Command::cargo_bin("toolscope").unwrap()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn tmp() -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "toolscope-cli-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `toolscope query FILE hello`; returns (exit code, stdout, stderr).
fn query_file(path: &Path) -> (i32, String, String) {
    let out = bin()
        .args(["query", path.to_str().unwrap(), "hello"])
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn assert_input_error(path: &Path, place: &str, message: &str) {
    let (code, _, err) = query_file(path);
    assert_eq!(code, 2, "exit code for {}: {err}", path.display());
    let err = err.trim_end();
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(
        err.contains(&path.display().to_string()),
        "names the file: {err}"
    );
    assert!(err.contains(place), "names the place {place:?}: {err}");
    assert!(err.contains(message), "says {message:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_inputs_give_one_line_errors_with_exit_code_2() {
    let d = tmp();
    assert_input_error(&d.join("missing.json"), "missing.json", "no such file");
    assert_input_error(&write(&d, "empty.json", b""), "empty.json", "empty file");
    assert_input_error(
        &write(&d, "blank.json", b"\n \n\n"),
        "blank.json",
        "nothing but whitespace (4 bytes)",
    );
    assert_input_error(
        &write(&d, "trunc.json", b"{\"graph\": {\"nodes\": [\n"),
        ":2:",
        "truncated JSON",
    );
    assert_input_error(
        &write(&d, "invalid.json", b"{\"graph\": {\"nodes\": [}]}}"),
        ":1:",
        "invalid JSON",
    );
    assert_input_error(
        &write(
            &d,
            "shape.json",
            b"{\"graph\": {\"nodes\": []}, \"tools\": []}",
        ),
        "/tools",
        "invalid type",
    );
    assert_input_error(
        &write(&d, "param.json", br#"{"graph":{"nodes":[]},"tools":{"a":{"name":"a","parameters":[{"type":"string"}]}}}"#),
        "/tools/a/parameters/0",
        "missing field `name`",
    );
    assert_input_error(
        &write(
            &d,
            "dup.json",
            br#"{"graph":{"nodes":[]},"tools":{"a":{"name":"a"},"a":{"name":"a"}}}"#,
        ),
        "/tools",
        "duplicate tool name",
    );
    assert_input_error(
        &write(
            &d,
            "latin1.json",
            b"{\"graph\":{\"nodes\":[]},\"tools\":{\"a\":{\"name\":\"caf\xe9\"}}}",
        ),
        ":1:",
        "UTF-8",
    );
    assert_input_error(
        &write(&d, "nograph.json", b"{\"tools\": {}}"),
        "/graph",
        "no \"graph\"",
    );
    assert_input_error(
        &write(&d, "array.json", b"[1, 2]"),
        "1:1",
        "expected a JSON object",
    );
    assert_input_error(
        &write(
            &d,
            "version.json",
            b"{\"format_version\": \"9\", \"graph\": {}}",
        ),
        "/format_version",
        "unsupported",
    );
    assert_input_error(
        &write(&d, "spec.json", b"{\"openapi\": \"3.0.0\", \"paths\": {}}"),
        "/paths",
        "no operations",
    );
    // tool rows are split off by a structural scan; errors inside them must still name the
    // line:column and the pointer as a whole-file parse does
    for (file, body, place, message) in [
        ("row-literal.json", &b"{\"graph\":{\"nodes\":[]},\n\"tools\":{\"a\":{\"name\":\"a\",\"x\":tru},\"b\":{\"name\":\"b\"}}}"[..], "2:33 /tools/a", "expected ident"),
        ("row-escape.json", &b"{\"graph\":{\"nodes\":[]},\n\"tools\":{\"a\":{\"name\":\"a\",\"x\":\"bad\\q\"}}}"[..], "2:35 /tools/a", "invalid escape"),
        ("row-control.json", &b"{\"graph\":{\"nodes\":[]},\n\"tools\":{\"a\":{\"name\":\"a\",\"x\":\"c\x01\"}}}"[..], "2:31 /tools/a", "control character"),
        ("row-type.json", &b"{\"graph\":{\"nodes\":[]},\n\"tools\":{\"a\":{\"name\":5}}}"[..], "2:22 /tools/a/name", "invalid type"),
        ("row-escaped-dup.json", &b"{\"graph\":{\"nodes\":[]},\n\"tools\":{\"a\\u0062\":{\"name\":\"ab\"}, \"ab\":{\"name\":\"x\"}}}"[..], "/tools", "duplicate tool name \"ab\""),
        ("row-open.json", &b"{\"graph\":{\"nodes\":[]},\n\"tools\":{\"a\":{\"name\":\"a\", \"d\": \"}}}"[..], ":2:", "truncated JSON"),
    ] {
        assert_input_error(&write(&d, file, body), place, message);
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b"{\"graph\": ").unwrap();
    assert_input_error(
        &write(&d, "trunc.json.gz", &gz.finish().unwrap()),
        "trunc.json.gz",
        "truncated JSON",
    );
    assert_input_error(
        &write(&d, "badgz.json.gz", b"\x1f\x8b\x08\x00garbage"),
        "badgz.json.gz",
        "gzip",
    );
}

#[test]
fn edges_to_undeclared_nodes_warn_and_still_rank() {
    let d = tmp();
    let p = write(
        &d,
        "undeclared.json",
        br#"{"graph":{"nodes":[{"id":"a","node_type":"tool"}],"edges":[{"source":"a","target":"ghost","relation":"requires"}]},
            "tools":{"a":{"name":"a","description":"hello world"}}}"#,
    );
    let (code, out, err) = query_file(&p);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("/graph/edges/0") && err.contains("ghost"),
        "{err}"
    );
    assert!(out.contains("seed #1"), "{out}");
}

#[test]
fn no_result_exits_1_and_gzip_loads() {
    let d = tmp();
    let json = br#"{"graph":{"nodes":[{"id":"a","node_type":"tool"}],"edges":[]},"tools":{"a":{"name":"a","description":"hello world"}}}"#;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(json).unwrap();
    let p = write(&d, "g.bin", &gz.finish().unwrap());
    let (code, out, _) = query_file(&p);
    assert_eq!(code, 0);
    assert!(out.contains("hello") || out.contains(" a "), "{out}");
    let out = bin()
        .args(["query", p.to_str().unwrap(), "zzqx flurble"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no result"));
}

#[test]
fn json_output_has_reference_keys_and_selector_block() {
    let out = bin()
        .args([
            "query",
            "demo",
            "주문 취소해줘",
            "--top-k",
            "3",
            "--select",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "results",
            "subgraph_text",
            "intent",
            "stats",
            "target_selector"
        ]
    );
    let row = &v["results"][0];
    let row_keys: Vec<&String> = row.as_object().unwrap().keys().collect();
    assert_eq!(
        &row_keys[..5],
        [
            "name",
            "score",
            "tool",
            "score_breakdown",
            "semantic_evidence"
        ]
    );
    assert_eq!(v["results"].as_array().unwrap().len(), 3);
    assert_eq!(
        v["target_selector"]["policy_revision"],
        "contrastive-risk-limiting-selector-v4"
    );
    assert!(v["intent"]["read"].is_f64(), "intent shares are floats");
    assert!(v["stats"]["visited_nodes"].is_u64(), "counts are integers");
}

#[test]
fn usage_errors_exit_2() {
    let out = bin()
        .args(["query", "demo", "x", "--top-k", "-1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = bin().args(["query", "demo"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = bin()
        .args(["no-such-command-or-file-xyz", "extra"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn batch_mode_writes_one_line_per_case_and_reports_bad_lines() {
    let d = tmp();
    let cases = write(
        &d,
        "cases.jsonl",
        "{\"id\":\"c1\",\"query\":\"list orders\",\"params\":{\"top_k\":2,\"depth\":2,\"token_budget\":2000,\"history\":[]},\"selector\":null,\"expected\":{\"ignored\":true}}\n\
         \n\
         {\"id\":\"c2\",\"query\":\"주문 취소\",\"params\":{\"top_k\":1,\"depth\":1,\"token_budget\":100,\"history\":[]},\"selector\":{\"llm_target\":\"getOrder\",\"policy\":\"risk_limited\"}}\n"
            .as_bytes(),
    );
    let out = bin()
        .args(["query", "demo", "--batch", cases.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["id"], "c1");
    assert!(lines[0]["selection"].is_null());
    assert_eq!(
        lines[0]["retrieval"]["results"].as_array().unwrap().len(),
        2
    );
    assert_eq!(lines[1]["selection"]["llm_target"], "getOrder");

    let bad = write(
        &d,
        "bad.jsonl",
        b"{\"id\":\"ok\",\"query\":\"orders\"}\n{\"id\": oops}\n",
    );
    let out = bin()
        .args(["query", "demo", "--batch", bad.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.jsonl:2:"), "{err}");
}

#[test]
fn closed_pipe_is_not_an_error() {
    let d = tmp();
    let mut cases = String::new();
    for i in 0..400 {
        cases.push_str(&format!("{{\"id\":\"c{i}\",\"query\":\"order refund coupon member {i}\",\"params\":{{\"top_k\":20}},\"selector\":null}}\n"));
    }
    let p = write(&d, "many.jsonl", cases.as_bytes());
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("toolscope"))
        .args(["query", "demo", "--batch", p.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut buf = [0u8; 1024];
    std::io::Read::read_exact(&mut stdout, &mut buf).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn terminal_output_is_sanitised() {
    let d = tmp();
    let p = write(
        &d,
        "evil.json",
        "{\"graph\":{\"nodes\":[{\"id\":\"evil\\u001b]52;c;AAAA\\u0007tool\",\"node_type\":\"tool\"}],\"edges\":[]},\
          \"tools\":{\"evil\\u001b]52;c;AAAA\\u0007tool\":{\"name\":\"evil\\u001b]52;c;AAAA\\u0007tool\",\"description\":\"hello \\u001b[2J world\"}}}"
            .as_bytes(),
    );
    let (code, out, _) = query_file(&p);
    assert_eq!(code, 0);
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
    // shown, not dropped: the operator sees the name was hostile
    assert!(out.contains("evil\\x1b]52;c;AAAA\\x07tool"), "{out}");
}

#[test]
fn select_runs_on_named_candidates() {
    let out = bin()
        .args([
            "select",
            "demo",
            "refund approval",
            "--candidates",
            "getRefund,approveRefund,rejectRefund",
            "--llm-target",
            "approveRefund",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // checked against graph-tool-call 0.47.0's select_target_candidate with the same inputs
    assert_eq!(v["selected_target"], "approveRefund");
    assert_eq!(
        v["reason_codes"],
        serde_json::json!([
            "weak_winner_evidence",
            "ambiguous_target",
            "insufficient_contrastive_evidence",
            "llm_target_preserved"
        ])
    );
    assert_eq!(v["rank_signals"][0]["name"], "getRefund");
}

/// A tool graph of `n` tools, each with a long description, large enough (> 8 MiB for 3000
/// tools) for the memory-mapped, multi-threaded load path.
fn big_graph(n: usize, row: impl Fn(usize) -> String) -> Vec<u8> {
    let nodes: Vec<String> = (0..n)
        .map(|i| format!("{{\"id\": \"t{i}\", \"node_type\": \"tool\"}}"))
        .collect();
    let mut s = format!(
        "{{\"graph\": {{\"nodes\": [{}], \"edges\": []}},\n\"tools\": {{\n",
        nodes.join(", ")
    );
    for i in 0..n {
        if i > 0 {
            s.push_str(",\n");
        }
        s.push_str(&row(i));
    }
    s.push_str("\n}}\n");
    s.into_bytes()
}

/// A word unique to `i` (letters only, so it is one token).
fn word(mut i: usize) -> String {
    let mut w = String::from("wid");
    loop {
        w.push((b'a' + (i % 26) as u8) as char);
        i /= 26;
        if i == 0 {
            return w;
        }
    }
}

fn plain_row(i: usize) -> String {
    format!(
        "\"t{i}\": {{\"name\": \"t{i}\", \"description\": \"list {} {}\", \"metadata\": {{\"method\": \"get\", \"path\": \"/w/{i}\"}}}}",
        word(i),
        "padding words ".repeat(220)
    )
}

#[test]
fn large_files_load_on_the_parallel_path_with_the_same_errors() {
    let d = tmp();
    let n = 3000;
    let good = write(&d, "big.json", &big_graph(n, plain_row));
    assert!(std::fs::metadata(&good).unwrap().len() > 8 << 20);
    let out = bin()
        .args([
            "query",
            good.to_str().unwrap(),
            &word(2999),
            "--json",
            "--top-k",
            "1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["results"][0]["name"], "t2999");
    assert_eq!(v["results"][0]["tool"]["metadata"]["path"], "/w/2999");

    // a few MB: mapped, read on one thread with its pages let go in steps
    let mid = write(&d, "mid.json", &big_graph(1000, plain_row));
    let len = std::fs::metadata(&mid).unwrap().len();
    assert!(len > 2 << 20 && len < 8 << 20);
    let out = bin()
        .args([
            "query",
            mid.to_str().unwrap(),
            &word(998),
            "--json",
            "--top-k",
            "1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["results"][0]["name"], "t998");
    assert_eq!(v["results"][0]["tool"]["metadata"]["path"], "/w/998");

    // line of row i is i + 3
    let bad = big_graph(n, |i| {
        if i == 2500 {
            "\"t2500\": {\"name\": \"t2500\", \"x\": nul}".into()
        } else {
            plain_row(i)
        }
    });
    assert_input_error(&write(&d, "big-bad.json", &bad), "2503:", "/tools/t2500");
    let dup = big_graph(n, |i| {
        if i == 2700 {
            plain_row(7)
        } else {
            plain_row(i)
        }
    });
    assert_input_error(
        &write(&d, "big-dup.json", &dup),
        "/tools",
        "duplicate tool name \"t7\"",
    );
    let mut latin = big_graph(n, plain_row);
    let at = latin.len() - 100;
    latin[at] = 0xe9;
    assert_input_error(&write(&d, "big-latin1.json", &latin), ":3002:", "UTF-8");
    let trunc = big_graph(n, plain_row);
    assert_input_error(
        &write(&d, "big-trunc.json", &trunc[..trunc.len() - 5]),
        "big-trunc.json",
        "truncated JSON",
    );
}

/// The reliability trial's F10: `build -o -` into a pipe that closes early exits 0.
#[test]
fn build_to_a_closed_pipe_is_not_an_error() {
    let spec =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ingest/users.openapi.json");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("toolscope"))
        .args(["build", spec.to_str().unwrap(), "-o", "-", "--quiet"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut one = [0u8; 1];
    std::io::Read::read_exact(&mut stdout, &mut one).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The trial's overwrite findings: `build X -o X` kept the artifact in place of the spec,
/// `-o existing` overwrote without asking, `-o link` wrote through a symlink.
#[test]
fn build_never_destroys_an_input_or_an_existing_file() {
    let d = tmp();
    let src = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ingest/users.openapi.json"),
    )
    .unwrap();
    let spec = write(&d, "spec.json", &src);
    let s = spec.to_str().unwrap();
    let run = |args: &[&str]| bin().args(args).output().unwrap();
    // the output is the input: refused, with or without --force
    for extra in [&[][..], &["--force"][..]] {
        let o = run(&[&["build", s, "-o", s], extra].concat());
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains("is the input"), "{err}");
        assert_eq!(std::fs::read(&spec).unwrap(), src, "the spec is intact");
    }
    // an existing file is kept without --force, replaced with it
    let out = write(&d, "precious.json", b"precious");
    let o = run(&["build", s, "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--force"));
    assert_eq!(std::fs::read(&out).unwrap(), b"precious");
    let o = run(&[
        "build",
        s,
        "-o",
        out.to_str().unwrap(),
        "--force",
        "--quiet",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(std::fs::read_to_string(&out).unwrap().contains("\"tools\""));
    // a symlink to the input is the input; a symlink elsewhere needs --force
    #[cfg(unix)]
    {
        let link = d.join("link.json");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&spec, &link).unwrap();
        let o = run(&["build", s, "-o", link.to_str().unwrap(), "--force"]);
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(std::fs::read(&spec).unwrap(), src);
        let victim = write(&d, "victim.txt", b"victim");
        let l2 = d.join("l2.json");
        let _ = std::fs::remove_file(&l2);
        std::os::unix::fs::symlink(&victim, &l2).unwrap();
        let o = run(&["build", s, "-o", l2.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(std::fs::read(&victim).unwrap(), b"victim");
    }
    // no temporary file is left behind by any of it
    let left: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// The trial's F2 and F3: an exponential `$ref` fan-out and a YAML "billion laughs" are
/// one-line errors naming the file, the place and the limit, in bounded time.
#[test]
fn ref_and_alias_bombs_stop_at_their_limits() {
    let d = tmp();
    let depth = 12;
    let mut schemas = Vec::new();
    for i in 0..depth {
        let props: Vec<String> = "abcd"
            .chars()
            .map(|k| format!(r##""{k}": {{"$ref": "#/components/schemas/S{}"}}"##, i + 1))
            .collect();
        schemas.push(format!(
            r#""S{i}": {{"type": "object", "properties": {{{}}}}}"#,
            props.join(", ")
        ));
    }
    schemas.push(format!(r#""S{depth}": {{"type": "string"}}"#));
    let spec = format!(
        r##"{{"openapi": "3.0.3", "info": {{"title": "t", "version": "1"}}, "paths": {{"/a": {{"get": {{"operationId": "getA", "responses": {{"200": {{"description": "ok", "content": {{"application/json": {{"schema": {{"$ref": "#/components/schemas/S0"}}}}}}}}}}}}}}}}, "components": {{"schemas": {{{}}}}}}}"##,
        schemas.join(", ")
    );
    let bomb = write(&d, "refbomb.json", spec.as_bytes());
    let t = std::time::Instant::now();
    let o = bin()
        .args([
            "build",
            bomb.to_str().unwrap(),
            "-o",
            d.join("rb.out").to_str().unwrap(),
            "--force",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    for want in ["refbomb.json", "/paths/~1a/get", "TOOLSCOPE_MAX_REF_NODES"] {
        assert!(err.contains(want), "{want}: {err}");
    }
    assert!(
        t.elapsed().as_secs() < 30,
        "stopped early: {:?}",
        t.elapsed()
    );
    let mut yaml = String::from(
        "openapi: 3.0.0\ninfo: {title: t, version: '1'}\nx-a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    for w in names.windows(2) {
        yaml.push_str(&format!(
            "x-{}: &{} [{}]\n",
            w[1],
            w[1],
            vec![format!("*{}", w[0]); 9].join(",")
        ));
    }
    yaml.push_str("paths: {}\n");
    let laughs = write(&d, "laughs.yaml", yaml.as_bytes());
    let o = bin()
        .args([
            "build",
            laughs.to_str().unwrap(),
            "-o",
            d.join("l.out").to_str().unwrap(),
            "--force",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("laughs.yaml:") && err.contains("TOOLSCOPE_MAX_YAML_ALIAS_NODES"),
        "{err}"
    );
}

/// Special files are refused by type before they are opened: no path blocks on a FIFO or
/// reads `/dev/zero` until memory runs out (the trial's F4 and F6).
#[cfg(unix)]
#[test]
fn special_files_are_refused_at_once() {
    let d = tmp();
    let fifo = d.join("fifo");
    let _ = std::fs::remove_file(&fifo);
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo with a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let f = fifo.to_str().unwrap();
    for args in [
        vec!["query", f, "x"],
        vec!["build", f, "-o", "/dev/null"],
        vec!["query", "demo", "--batch", f],
        vec!["query", "demo", "--batch", "/dev/zero"],
        vec!["query", "/dev/zero", "x"],
        vec!["lab", "eval", "demo", f],
        vec!["query", "demo", "x", "--learning", f],
    ] {
        let t = std::time::Instant::now();
        let o = bin()
            .args(&args)
            .timeout(std::time::Duration::from_secs(10))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains("not a regular file"), "{args:?}: {err}");
        assert!(t.elapsed().as_secs() < 5, "{args:?} took {:?}", t.elapsed());
    }
}

/// Two MCP tools with one name: the later replaces the earlier, and the build says so.
#[test]
fn duplicate_tool_names_in_a_list_are_warned() {
    let d = tmp();
    let list = write(
        &d,
        "dup.mcp.json",
        br#"{"tools": [{"name": "readFile", "description": "read a file", "inputSchema": {}}, {"name": "readFile", "description": "read it again", "inputSchema": {}}]}"#,
    );
    let o = bin()
        .args([
            "build",
            list.to_str().unwrap(),
            "-o",
            d.join("dup.out").to_str().unwrap(),
            "--force",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("dup.mcp.json:/tools/1: duplicate tool name \"readFile\""),
        "{err}"
    );
}

/// `doctor` reports the colour mode in force, whether the explorer's flags come before the
/// subcommand (`toolscope --color 16 doctor`) or after it, and what auto-detection picks.
#[test]
fn doctor_reports_the_colour_mode_in_force() {
    let doctor = |args: &[&str], term: &str| {
        let out = bin()
            .args(args)
            .env("TERM", term)
            .env("COLORTERM", "truecolor")
            .env_remove("NO_COLOR")
            .env_remove("TMUX")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.trim_start().starts_with("colour") || l.trim_start().starts_with("theme"))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let c16 = "colour 16 colours (SGR 30-37/90-97 and 40-47/100-107 only) (--color 16)";
    for args in [
        &["--color", "16", "doctor"][..],
        &["doctor", "--color", "16"][..],
    ] {
        let got = doctor(args, "xterm-256color");
        assert!(got.contains(c16), "{args:?}: {got}");
    }
    // after the subcommand wins; a flag only before it still counts
    let got = doctor(
        &[
            "--color", "16", "--theme", "light", "doctor", "--color", "256",
        ],
        "xterm-256color",
    );
    assert!(got.contains("colour 256 colours (--color 256)"), "{got}");
    assert!(got.contains("theme light"), "{got}");
    let out = bin()
        .args(["doctor"])
        .env("TERM", "xterm")
        .env_remove("COLORTERM")
        .env_remove("NO_COLOR")
        .env_remove("TMUX")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("16 colours (SGR 30-37/90-97 and 40-47/100-107 only) (TERM=xterm"),
        "{text}"
    );
}
