//! Shared helpers of the integration tests: exact JSON comparison (types, key order,
//! bit-equal floats), running golden-format case files through the engine, running the
//! binary, and a fresh temporary folder per test.
#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use toolscope::engine::Engine;
use toolscope::output::batch::batch_line;

pub mod shared_corpus;

/// The shared corpus folder (`../shared/corpus`, or under `$TOOLSCOPE_SHARED_DIR`), when
/// present; when absent, says so on the terminal (see [`skip`]) naming `what` is skipped.
pub fn shared_corpus(what: &str) -> Option<PathBuf> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let env = std::env::var_os(shared_corpus::ENV);
    let found = shared_corpus::corpus_at(manifest, env.as_deref());
    if found.is_none() {
        skip(&format!(
            "{what}: {}",
            shared_corpus::absent_note(manifest, env.as_deref())
        ));
    }
    found
}

/// The shared golden vectors (`corpus/golden` with its `cases/`), when present.
pub fn shared_golden(what: &str) -> Option<PathBuf> {
    let g = shared_corpus(what)?.join("golden");
    if g.join("cases").is_dir() {
        Some(g)
    } else {
        skip(&format!("{what}: {} has no cases/", g.display()));
        None
    }
}

/// Says that a test skips its check, on the terminal: written to the process's standard
/// error directly, which the test harness does not capture, so `cargo test` shows it
/// without `--nocapture`.
pub fn skip(why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "SKIP: {why}");
}

/// First difference between `want` and `got`: numbers must have the same JSON type
/// (integer vs float) and the same value bit for bit; objects the same keys in the same order.
pub fn first_diff(want: &Value, got: &Value, path: &str) -> Option<String> {
    match (want, got) {
        (Value::Number(a), Value::Number(b)) => {
            if a.is_f64() != b.is_f64() {
                return Some(format!("{path}: number type differs: want {a}, got {b}"));
            }
            if a.is_f64() {
                let (x, y) = (a.as_f64().unwrap(), b.as_f64().unwrap());
                if x.to_bits() != y.to_bits() {
                    return Some(format!("{path}: want {x:?}, got {y:?}"));
                }
            } else if a != b {
                return Some(format!("{path}: want {a}, got {b}"));
            }
            None
        }
        (Value::Object(a), Value::Object(b)) => {
            let ka: Vec<&String> = a.keys().collect();
            let kb: Vec<&String> = b.keys().collect();
            if ka != kb {
                return Some(format!("{path}: keys differ: want {ka:?}, got {kb:?}"));
            }
            for (k, v) in a {
                if let Some(d) = first_diff(v, &b[k], &format!("{path}.{k}")) {
                    return Some(d);
                }
            }
            None
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                return Some(format!("{path}: length want {}, got {}", a.len(), b.len()));
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                if let Some(d) = first_diff(x, y, &format!("{path}[{i}]")) {
                    return Some(d);
                }
            }
            None
        }
        _ => (want != got).then(|| {
            let s = |v: &Value| v.to_string().chars().take(120).collect::<String>();
            format!("{path}: want {}, got {}", s(want), s(got))
        }),
    }
}

/// Runs every case of a golden-format JSON Lines file; returns (identical, total, failures).
pub fn run_cases(engine: &Engine, cases: &Path) -> (usize, usize, Vec<String>) {
    let bytes = std::fs::read(cases).unwrap_or_else(|e| panic!("{}: {e}", cases.display()));
    let bytes =
        toolscope::model::load::maybe_gunzip(&cases.display().to_string(), bytes).expect("gzip");
    let text = String::from_utf8(bytes).expect("UTF-8 cases");
    let (mut same, mut total) = (0, 0);
    let mut failures = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        total += 1;
        let case: Value = serde_json::from_str(line).expect("case line is JSON");
        let id = case["id"].as_str().unwrap_or("?").to_string();
        let out = batch_line(engine, line).expect("case runs");
        let got: Value = serde_json::from_str(&out).expect("output is JSON");
        let want = &case["expected"];
        let mut diff = first_diff(&want["retrieval"], &got["retrieval"], "$.retrieval");
        if diff.is_none() {
            diff = first_diff(&want["selection"], &got["selection"], "$.selection");
        }
        match diff {
            None => same += 1,
            Some(d) => failures.push(format!("{id}: {d}")),
        }
    }
    (same, total, failures)
}

/// Runs the `toolscope` binary: (exit code, stdout, stderr).
pub fn run(args: &[&str]) -> (i32, String, String) {
    let out = assert_cmd::Command::cargo_bin("toolscope")
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

/// An empty folder `toolscope-PREFIX-PID-NAME` under the system's temporary folder.
pub fn tmp_dir(prefix: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("toolscope-{prefix}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
