//! Stable-toolchain fuzzing: every parser of untrusted input is fed mutated valid inputs and
//! random bytes (proptest, a fixed number of cases so CI stays bounded) and must return a
//! value or an error, never panic. Parsers: the artifact loader (serial and mapped-size
//! inputs), specs (JSON and YAML) through the whole build, Arazzo workflows applied to a
//! built graph (an OpenAPI spec and an MCP list), the sniffer, captured evidence,
//! suites, learning suggestions and batch lines. `PROPTEST_CASES` raises the count.

use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn seed(p: &str) -> Vec<u8> {
    std::fs::read(root().join(p)).unwrap()
}

/// A mutation of `base`: byte flips, insertions of JSON/YAML tokens, cuts and splices.
fn mutated(base: Vec<u8>) -> impl Strategy<Value = Vec<u8>> {
    let tokens: Vec<&'static [u8]> = vec![
        b"{",
        b"}",
        b"[",
        b"]",
        b",",
        b":",
        b"\"",
        b"\\",
        b"\\u00",
        b"\\ud800",
        b"null",
        b"1e400",
        b"-0",
        b"NaN",
        b"\n",
        b"\x00",
        b"\xff",
        b"\xc3",
        b"&a",
        b"*a",
        b"<<: *a",
        b"- ",
        b"  ",
        b"\t",
        b"$ref",
        b"\"#/",
        b"\xe2\x80\x8d",
        b"\x1b[2J",
    ];
    let n = base.len().max(1);
    let edit = (0..n, 0..tokens.len(), 0u8..4, any::<u8>());
    proptest::collection::vec(edit, 1..8).prop_map(move |edits| {
        let mut b = base.clone();
        for (at, tok, kind, byte) in edits {
            let at = at.min(b.len());
            match kind {
                0 => {
                    if at < b.len() {
                        b[at] = byte;
                    }
                }
                1 => {
                    let t = tokens[tok];
                    b.splice(at..at, t.iter().copied());
                }
                2 => b.truncate(at),
                _ => {
                    let end = (at + 1 + byte as usize).min(b.len());
                    b.drain(at..end);
                }
            }
        }
        b
    })
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("toolscope-fuzz-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(64),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn artifact_loader(b in mutated(seed("tests/fixtures/edgy.json"))) {
        let _ = toolscope::model::load::load_graph_bytes("edgy.json", b.clone());
        let _ = toolscope::sniff::sniff(&String::from_utf8_lossy(&b));
    }

    #[test]
    fn artifact_loader_mapped_path(b in mutated(seed("tests/fixtures/edgy.json"))) {
        // above the mapping threshold: the file is mapped and split on worker threads
        let d = scratch("map");
        let p = d.join(format!("g-{:x}.json", b.len()));
        let mut big = b.clone();
        big.extend(std::iter::repeat_n(b' ', (20 << 10) - big.len().min(20 << 10)));
        std::fs::write(&p, &big).unwrap();
        let _ = toolscope::model::load::load_graph_file(&p);
        let _ = std::fs::remove_file(&p);
    }

    #[test]
    fn openapi_json_build(b in mutated(seed("tests/fixtures/ingest/users.openapi.json"))) {
        if let Ok(doc) = toolscope::ingest::source::parse_document("u.json", b) {
            let _ = toolscope::ingest::build_documents(vec![doc], &Default::default());
        }
    }

    #[test]
    fn swagger_yaml_build(b in mutated(seed("tests/fixtures/ingest/pets.swagger.yaml"))) {
        if let Ok(doc) = toolscope::ingest::source::parse_document("p.yaml", b) {
            let _ = toolscope::ingest::build_documents(vec![doc], &Default::default());
        }
    }

    #[test]
    fn mcp_and_function_lists(
        m in mutated(seed("tests/fixtures/ingest/tools.mcp.json")),
        f in mutated(seed("tests/fixtures/ingest/functions.json")),
    ) {
        for (name, b) in [("t.mcp.json", m), ("f.json", f)] {
            if let Ok(doc) = toolscope::ingest::source::parse_document(name, b) {
                let _ = toolscope::ingest::build_documents(vec![doc], &Default::default());
            }
        }
    }

    #[test]
    fn arazzo_workflows_applied(
        w in mutated(seed("tests/fixtures/ingest/arazzo/pets.arazzo.yaml")),
        j in mutated(seed("tests/fixtures/ingest/arazzo/fuzz-0064.arazzo.json")),
    ) {
        let spec = seed("tests/fixtures/ingest/arazzo/pets.openapi.yaml");
        let mcp = seed("tests/fixtures/ingest/arazzo/fuzz-0535.a.mcp.json");
        for (name, b) in [("w.arazzo.yaml", w), ("w.arazzo.json", j)] {
            if let Ok(doc) = toolscope::ingest::source::parse_document(name, b) {
                for base in [&spec, &mcp] {
                    let s = toolscope::ingest::source::parse_document("s.yaml", base.clone()).unwrap();
                    let d = toolscope::ingest::source::Document { name: doc.name.clone(), value: doc.value.clone(), kind: doc.kind, yaml: doc.yaml };
                    let _ = toolscope::ingest::capture_warnings(|| {
                        toolscope::ingest::build_documents(vec![s, d], &Default::default())
                    });
                }
            }
        }
    }

    #[test]
    fn evidence_records(b in mutated(evidence_seed())) {
        let d = scratch("ev");
        let p = d.join(format!("e-{:x}.jsonl", b.len()));
        std::fs::write(&p, &b).unwrap();
        let _ = toolscope::tui::records::read_set(&p);
        let _ = toolscope::lab::diff::read_records(&p);
        let _ = std::fs::remove_file(&p);
    }

    #[test]
    fn suites_and_batch_lines(b in mutated(br#"[{"case_id": "refund", "query": "approve refund", "expected_target": "approveRefund", "top_k": 3, "history": ["getRefund"]}]"#.to_vec())) {
        let text = String::from_utf8_lossy(&b);
        let _ = toolscope::lab::suite::parse_suite("s.json", "s", &text);
        let engine = toolscope::tui::harness::demo_engine();
        for line in text.lines() {
            let _ = toolscope::output::batch::batch_line(&engine, line);
        }
    }

    #[test]
    fn learning_suggestions(b in mutated(br#"[{"query_fingerprint": "f2430a572176f81f", "query_family": "approve refund", "status": "promoted", "observations": 2, "id": "target_preference:8cee9fc7a14e8fc2", "type": "target_preference", "target": "cancelOrder", "evidence": {"selected_target": "cancelOrder"}}]"#.to_vec())) {
        let d = scratch("learn");
        let p = d.join(format!("l-{:x}.json", b.len()));
        std::fs::write(&p, &b).unwrap();
        if let Ok(s) = toolscope::cli::query::load_learning(p.to_str().unwrap()) {
            let engine = toolscope::tui::harness::demo_engine();
            let params = toolscope::engine::Params { learning_suggestions: s, ..Default::default() };
            let _ = engine.retrieve("approve refund", &params);
        }
        let _ = std::fs::remove_file(&p);
    }

    #[test]
    fn random_bytes_everywhere(b in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let _ = toolscope::model::load::load_graph_bytes("r.json", b.clone());
        let _ = toolscope::ingest::source::parse_document("r.yaml", b.clone());
        let text = String::from_utf8_lossy(&b);
        let _ = toolscope::sniff::sniff(&text);
        let _ = toolscope::lab::suite::parse_suite("r.json", "r", &text);
    }
}

fn evidence_seed() -> Vec<u8> {
    let engine = toolscope::tui::harness::demo_engine();
    let mut out = String::new();
    for q in ["approve refund", "list orders"] {
        let line = format!(
            r#"{{"id": "{q}", "query": "{q}", "selector": {{"llm_target": "getRefund"}}}}"#
        );
        out.push_str(&toolscope::output::batch::batch_line(&engine, &line).unwrap());
        out.push('\n');
    }
    out.into_bytes()
}
