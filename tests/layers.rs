//! The import direction of the crate's layers, checked from the sources: each top-level
//! module may use only the modules below it (ARCHITECTURE.md, "Layers"), and inside the
//! explorer the state and update side never reaches into `tui/views/` (views read state and
//! `tui/derive.rs`; only the runtime that draws calls a view). Comments and `#[cfg(test)]`
//! modules (and files that start `#![cfg(test)]`) are not counted (a test may use the
//! embedded demo graph).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each module and what it may import (the foundation files import only each other).
const ALLOWED: &[(&str, &[&str])] = &[
    ("error", &[]),
    ("sanitize", &[]),
    ("pytext", &[]),
    ("par", &[]),
    ("prefault", &[]),
    ("jsonout", &["pytext", "sanitize"]),
    ("jsonin", &[]),
    // unit-test helpers (`#[cfg(test)]`: every layer's tests may use them)
    ("testutil", &[]),
    ("limits", &["error", "sanitize"]),
    ("sniff", &["error", "limits", "sanitize"]),
    (
        "model",
        &["error", "sanitize", "limits", "par", "pytext", "jsonout"],
    ),
    ("demo", &["error", "model"]),
    (
        "engine",
        &[
            "error", "sanitize", "limits", "par", "pytext", "jsonin", "jsonout", "model",
        ],
    ),
    (
        "ingest",
        &[
            "error", "sanitize", "limits", "par", "prefault", "pytext", "jsonin", "jsonout",
            "model",
        ],
    ),
    (
        "output",
        &[
            "error", "sanitize", "limits", "par", "pytext", "jsonin", "jsonout", "model", "engine",
        ],
    ),
    (
        "lab",
        &[
            "error", "sanitize", "limits", "par", "pytext", "jsonin", "jsonout", "model", "engine",
            "output",
        ],
    ),
    (
        "evidence",
        &[
            "error", "sanitize", "limits", "par", "pytext", "jsonin", "jsonout", "model", "demo",
            "engine", "output", "lab", "ingest",
        ],
    ),
    (
        "tui",
        &[
            "error", "sanitize", "limits", "par", "pytext", "jsonin", "jsonout", "sniff", "model",
            "demo", "engine", "ingest", "output", "lab", "evidence",
        ],
    ),
    (
        "cli",
        &[
            "error", "sanitize", "limits", "par", "prefault", "pytext", "jsonin", "jsonout",
            "sniff", "model", "demo", "engine", "ingest", "output", "lab", "evidence", "tui",
        ],
    ),
];

fn code_of(src: &str) -> String {
    let mut out = String::new();
    for line in src.lines() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]") || t.starts_with("#![cfg(test)]") {
            break;
        }
        if t.starts_with("//") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The explorer files that may call a view: the runtime that draws a frame, the headless
/// harness that draws one for tests and the screen export.
const DRAWS: &[&str] = &["tui/mod.rs", "tui/harness.rs", "tui/export.rs"];

/// Each `crate::NAME` a file's code names (comments and tests left out).
fn crate_names(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + 7..];
        out.push(
            rest.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect(),
        );
    }
    out
}

/// Every `.rs` file under `src/` as (path relative to `src/`, code without comments and
/// tests).
fn sources() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    files
        .into_iter()
        .map(|f| {
            let rel = f
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, code_of(&std::fs::read_to_string(&f).unwrap()))
        })
        .collect()
}

fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn no_module_imports_a_layer_above_it() {
    let allowed: BTreeMap<&str, BTreeSet<&str>> = ALLOWED
        .iter()
        .map(|(m, a)| (*m, a.iter().copied().collect()))
        .collect();
    let mut broken = Vec::new();
    for (rel, code) in sources() {
        let module = rel
            .split('/')
            .next()
            .unwrap()
            .trim_end_matches(".rs")
            .to_string();
        let Some(ok) = allowed.get(module.as_str()) else {
            // lib.rs, main.rs, allocator.rs sit above every layer
            continue;
        };
        for name in crate_names(&code) {
            if name != module && allowed.contains_key(name.as_str()) && !ok.contains(name.as_str())
            {
                broken.push(format!("{rel}: {module} -> {name}"));
            }
        }
    }
    broken.sort();
    broken.dedup();
    assert!(
        broken.is_empty(),
        "imports that run up the layers:\n{}",
        broken.join("\n")
    );
}

/// Every module in [`ALLOWED`] is a top-level module of the crate and every top-level
/// module is in it (or sits above the layers), so a new module cannot skip the check.
#[test]
fn every_module_has_a_layer() {
    let above = ["lib", "main", "allocator"];
    let mut found: BTreeSet<String> = BTreeSet::new();
    for (rel, _) in sources() {
        found.insert(
            rel.split('/')
                .next()
                .unwrap()
                .trim_end_matches(".rs")
                .into(),
        );
    }
    let listed: BTreeSet<String> = ALLOWED.iter().map(|(m, _)| m.to_string()).collect();
    let missing: Vec<&String> = found
        .iter()
        .filter(|m| !listed.contains(*m) && !above.contains(&m.as_str()))
        .collect();
    assert!(missing.is_empty(), "modules without a layer: {missing:?}");
    let stale: Vec<&String> = listed.difference(&found).collect();
    assert!(stale.is_empty(), "layers naming no module: {stale:?}");
}

/// The explorer's state and update side (`tui/` outside `views/`) reads derived state from
/// `tui/derive.rs`, never from a view; `derive.rs` itself reads no view. Only the files
/// that draw ([`DRAWS`]) call `views::`.
#[test]
fn explorer_state_never_calls_a_view() {
    let mut broken = Vec::new();
    for (rel, code) in sources() {
        if !rel.starts_with("tui/")
            || rel.starts_with("tui/views/")
            || DRAWS.contains(&rel.as_str())
        {
            continue;
        }
        for line in code.lines() {
            let mut rest = line;
            while let Some(at) = rest.find("views::") {
                let before = rest[..at].chars().next_back();
                if !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                    broken.push(format!("{rel}: {}", line.trim()));
                    break;
                }
                rest = &rest[at + 7..];
            }
        }
    }
    assert!(
        broken.is_empty(),
        "explorer state reaching into views (move it to tui/derive.rs):\n{}",
        broken.join("\n")
    );
}
