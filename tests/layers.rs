//! The import direction of the crate's layers, checked from the sources: each top-level
//! module may use only the modules below it (ARCHITECTURE.md, "Layers"). Comments and
//! `#[cfg(test)]` modules (and files that start `#![cfg(test)]`) are not counted (a test may
//! use the embedded demo graph).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each module and what it may import (the foundation files import only each other).
const ALLOWED: &[(&str, &[&str])] = &[
    ("error", &[]),
    ("sanitize", &[]),
    ("pytext", &[]),
    ("par", &[]),
    ("jsonout", &["pytext", "sanitize"]),
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
            "error", "sanitize", "limits", "par", "pytext", "jsonout", "model",
        ],
    ),
    (
        "ingest",
        &[
            "error", "sanitize", "limits", "par", "pytext", "jsonout", "model",
        ],
    ),
    (
        "output",
        &[
            "error", "sanitize", "limits", "par", "pytext", "jsonout", "model", "engine",
        ],
    ),
    (
        "lab",
        &[
            "error", "sanitize", "limits", "par", "pytext", "jsonout", "model", "engine", "output",
        ],
    ),
    (
        "evidence",
        &[
            "error", "sanitize", "limits", "par", "pytext", "jsonout", "model", "demo", "engine",
            "output", "lab", "ingest",
        ],
    ),
    (
        "tui",
        &[
            "error", "sanitize", "limits", "par", "pytext", "jsonout", "sniff", "model", "demo",
            "engine", "ingest", "output", "lab", "evidence",
        ],
    ),
    (
        "cli",
        &[
            "error", "sanitize", "limits", "par", "pytext", "jsonout", "sniff", "model", "demo",
            "engine", "ingest", "output", "lab", "evidence", "tui",
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
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let allowed: BTreeMap<&str, BTreeSet<&str>> = ALLOWED
        .iter()
        .map(|(m, a)| (*m, a.iter().copied().collect()))
        .collect();
    let mut files = Vec::new();
    walk(&src, &mut files);
    let mut broken = Vec::new();
    for f in files {
        let rel = f
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
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
        let code = code_of(&std::fs::read_to_string(&f).unwrap());
        let mut rest = code.as_str();
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + 7..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
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
