//! A generated bad-input corpus run through the real binary on every input path: artifact
//! load, build from a spec, Arazzo workflows applied to a spec, captured evidence, suites,
//! learning suggestions, batch lines.
//! Every case must end with exit 0 or 1 (accepted), or exit 2 with exactly one line on
//! stderr; never a signal (an abort, a crash), never a hang (each run has a time limit),
//! never over the address-space cap the test sets. The generator is deterministic; the
//! families follow the reliability trial (truncations, encodings, nesting, wrong types,
//! gzip damage and bombs, special files, `$ref` and YAML alias bombs, oversized records).
//!
//! About 650 cases run on two threads in well under a minute; the counts are printed at
//! the end (`cargo test --test bad_inputs -- --nocapture`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_toolscope");
/// Address-space cap of every run (the trial's cap).
const MEMORY_CAP: u64 = 4 << 30;
const TIME_LIMIT: Duration = Duration::from_secs(60);

/// How one input is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Path_ {
    Artifact,
    Build,
    Workflows,
    Evidence,
    Suite,
    Learning,
    Batch,
}

struct Case {
    family: String,
    path: Path_,
    file: PathBuf,
    /// extra environment (limits lowered so a small file crosses them)
    env: Vec<(&'static str, String)>,
}

fn scratch() -> PathBuf {
    let d = std::env::temp_dir().join(format!("toolscope-badin-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// Bases: one valid input per path.
fn bases(dir: &Path) -> Vec<(Path_, &'static str, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &str| std::fs::read(root.join(p)).unwrap();
    let demo_gz = read("assets/demo/commerce-backoffice.collection.json.gz");
    let mut demo = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&demo_gz[..]), &mut demo).unwrap();
    let response = Command::new(BIN)
        .args(["query", "demo", "refund approval", "--select", "--json"])
        .output()
        .unwrap()
        .stdout;
    std::fs::write(dir.join("good-response.json"), &response).unwrap();
    let cases = b"{\"id\": \"c1\", \"query\": \"list orders\", \"params\": {\"top_k\": 5}, \"selector\": {\"llm_target\": \"listOrders\", \"policy\": \"strong_evidence\"}}\n{\"id\": \"c2\", \"query\": \"approve refund\"}\n".to_vec();
    let batch_out = {
        let p = dir.join("cases.jsonl");
        std::fs::write(&p, &cases).unwrap();
        Command::new(BIN)
            .args(["query", "demo", "--batch", p.to_str().unwrap()])
            .output()
            .unwrap()
            .stdout
    };
    let learning = br#"[{"query_fingerprint": "f2430a572176f81f", "query_family": "approve refund", "collection_id": "demo", "status": "promoted", "observations": 2, "prior_failure_count": 0, "evidence_sources": ["run"], "id": "target_preference:8cee9fc7a14e8fc2", "type": "target_preference", "target": "cancelOrder", "evidence": {"selected_target": "cancelOrder", "llm_target": null, "target_selector": {}}}]"#.to_vec();
    let suite = br#"[{"case_id": "refund", "query": "approve refund", "expected_target": "approveRefund"}, {"case_id": "orders", "query": "list orders", "expected_tools": ["listOrders"]}]"#.to_vec();
    vec![
        (Path_::Artifact, "edgy", read("tests/fixtures/edgy.json")),
        (Path_::Artifact, "demo", demo),
        (
            Path_::Build,
            "openapi",
            read("tests/fixtures/ingest/users.openapi.json"),
        ),
        (
            Path_::Build,
            "swagger-yaml",
            read("tests/fixtures/ingest/pets.swagger.yaml"),
        ),
        (
            Path_::Build,
            "mcp",
            read("tests/fixtures/ingest/tools.mcp.json"),
        ),
        (
            Path_::Build,
            "functions",
            read("tests/fixtures/ingest/functions.json"),
        ),
        (
            Path_::Workflows,
            "arazzo-yaml",
            read("tests/fixtures/ingest/arazzo/pets.arazzo.yaml"),
        ),
        (
            Path_::Workflows,
            "arazzo-json",
            read("tests/fixtures/ingest/arazzo/fuzz-0064.arazzo.json"),
        ),
        (Path_::Evidence, "response", response),
        (Path_::Evidence, "batch-out", batch_out),
        (Path_::Suite, "suite", suite),
        (Path_::Learning, "learning", learning),
        (Path_::Batch, "cases", cases),
    ]
}

/// Generic damage applied to every base.
fn generic(base: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = vec![
        ("empty".into(), Vec::new()),
        ("whitespace".into(), b"  \n\t \r\n ".to_vec()),
        ("root-42".into(), b"42".to_vec()),
        ("root-string".into(), b"\"s\"".to_vec()),
        ("root-null".into(), b"null".to_vec()),
        ("root-true".into(), b"true".to_vec()),
        ("root-object".into(), b"{}".to_vec()),
        ("root-list".into(), b"[]".to_vec()),
        ("plain-text".into(), b"hello world, not json\n".to_vec()),
        ("deep-array-10k".into(), nest(b"[", b"]", 10_000)),
        ("deep-object-10k".into(), nest(b"{\"a\":", b"}", 10_000)),
        ("deep-array-100k".into(), nest(b"[", b"]", 100_000)),
        ("unclosed-1m".into(), vec![b'['; 1_000_000]),
        ("lone-surrogate".into(), b"{\"a\": \"\\ud800\"}".to_vec()),
        ("number-1e400".into(), b"{\"a\": 1e400}".to_vec()),
        ("nan".into(), b"{\"a\": NaN}".to_vec()),
        ("nul-only".into(), vec![0u8; 64]),
        (
            "gzip-garbage".into(),
            [&[0x1f, 0x8b][..], b"garbage, not deflate"].concat(),
        ),
        ("gzip-header-only".into(), gz(base)[..10].to_vec()),
        ("binary-noise".into(), noise(4096, 7)),
    ];
    let n = base.len();
    for (i, frac) in [0.01, 0.1, 0.33, 0.5, 0.77, 0.9, 0.99].iter().enumerate() {
        let at = ((n as f64) * frac) as usize;
        out.push((format!("truncated-{i}"), base[..at.min(n)].to_vec()));
    }
    if n > 2 {
        out.push(("truncated-last-byte".into(), base[..n - 1].to_vec()));
    }
    let mut with = |name: &str, f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = base.to_vec();
        f(&mut b);
        out.push((name.into(), b));
    };
    let mid = n / 2;
    with("bom", &|b| {
        b.splice(0..0, [0xef, 0xbb, 0xbf]).for_each(drop)
    });
    with("nul-inside", &|b| b.insert(mid.min(b.len()), 0));
    with("ctrl-inside", &|b| b.insert(mid.min(b.len()), 0x07));
    with("latin1-inside", &|b| b.insert(mid.min(b.len()), 0xe9));
    with("invalid-utf8", &|b| {
        b.splice(mid..mid, [0xff, 0xfe]).for_each(drop)
    });
    with("overlong-utf8", &|b| {
        b.splice(mid..mid, [0xc0, 0xaf]).for_each(drop)
    });
    with("trailing-garbage", &|b| {
        b.extend_from_slice(b"\n}}} garbage")
    });
    with("two-documents", &|b| {
        let c = b.clone();
        b.extend_from_slice(b"\n");
        b.extend_from_slice(&c);
    });
    with("crlf", &|b| {
        let c: Vec<u8> = b
            .iter()
            .flat_map(|&x| {
                if x == b'\n' {
                    vec![b'\r', b'\n']
                } else {
                    vec![x]
                }
            })
            .collect();
        *b = c;
    });
    with("cut-in-escape", &|b| {
        b.truncate(mid.min(b.len()));
        b.extend_from_slice(b"\"\\u12");
    });
    with("flipped-byte", &|b| {
        if !b.is_empty() {
            let i = mid.min(b.len() - 1);
            b[i] ^= 0x5a;
        }
    });
    with("utf16le", &|b| {
        let s = String::from_utf8_lossy(b).into_owned();
        *b = [0xff, 0xfe]
            .into_iter()
            .chain(s.encode_utf16().flat_map(|u| u.to_le_bytes()))
            .collect();
    });
    with("utf16be-nobom", &|b| {
        let s = String::from_utf8_lossy(b).into_owned();
        *b = s.encode_utf16().flat_map(|u| u.to_be_bytes()).collect();
    });
    with("gzip", &|b| *b = gz(b));
    with("gzip-double", &|b| *b = gz(&gz(b)));
    with("gzip-truncated", &|b| {
        let g = gz(b);
        *b = g[..g.len() * 2 / 3].to_vec();
    });
    with("gzip-bad-crc", &|b| {
        let mut g = gz(b);
        let l = g.len();
        g[l - 6] ^= 0xff;
        *b = g;
    });
    out
}

fn nest(open: &[u8], close: &[u8], depth: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity((open.len() + close.len()) * depth + 1);
    for _ in 0..depth {
        v.extend_from_slice(open);
    }
    v.extend_from_slice(b"1");
    for _ in 0..depth {
        v.extend_from_slice(close);
    }
    v
}

fn noise(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e3779b97f4a7c15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

type Family = (String, Vec<u8>, Vec<(&'static str, String)>);

fn add(v: &mut Vec<Family>, name: &str, bytes: &[u8]) {
    v.push((name.into(), bytes.to_vec(), Vec::new()));
}

/// Path-specific families.
fn specific(path: Path_) -> Vec<Family> {
    let none = Vec::new;
    let mut v: Vec<Family> = Vec::new();
    match path {
        Path_::Artifact => {
            add(
                &mut v,
                "no-graph",
                br#"{"format_version": "1", "tools": {}}"#,
            );
            add(
                &mut v,
                "graph-string",
                br#"{"format_version": "1", "graph": "x", "tools": {}}"#,
            );
            add(
                &mut v,
                "nodes-object",
                br#"{"format_version": "1", "graph": {"nodes": {}, "edges": []}, "tools": {}}"#,
            );
            add(
                &mut v,
                "edges-string",
                br#"{"format_version": "1", "graph": {"nodes": [], "edges": "e"}, "tools": {}}"#,
            );
            add(
                &mut v,
                "tools-list",
                br#"{"format_version": "1", "graph": {"nodes": [], "edges": []}, "tools": [1]}"#,
            );
            add(
                &mut v,
                "zero-tools",
                br#"{"format_version": "1", "graph": {"nodes": [], "edges": []}, "tools": {}}"#,
            );
            add(
                &mut v,
                "bad-version",
                br#"{"format_version": "99", "graph": {"nodes": [], "edges": []}, "tools": {}}"#,
            );
            add(&mut v, "dup-tool-key", br#"{"format_version": "1", "graph": {"nodes": [], "edges": []}, "tools": {"a": {"name": "a", "description": ""}, "a": {"name": "a", "description": ""}}}"#);
            add(&mut v, "tool-no-name", br#"{"format_version": "1", "graph": {"nodes": [], "edges": []}, "tools": {"a": {"description": 5}}}"#);
            add(&mut v, "dangling-edge", br#"{"format_version": "1", "graph": {"nodes": [{"id": "a", "node_type": "tool"}], "edges": [{"source": "a", "target": "zz", "relation": "requires"}]}, "tools": {"a": {"name": "a", "description": "list orders"}}}"#);
            add(&mut v, "self-loop", br#"{"format_version": "1", "graph": {"nodes": [{"id": "a", "node_type": "tool"}], "edges": [{"source": "a", "target": "a", "relation": "requires"}]}, "tools": {"a": {"name": "a", "description": "list orders"}}}"#);
            for (i, c) in [
                "\"high\"",
                "1e400",
                "-1e308",
                "1e-400",
                "-0",
                "123456789012345678901234567890",
                "[1]",
                "null",
            ]
            .iter()
            .enumerate()
            {
                let s = format!(
                    r#"{{"format_version": "1", "graph": {{"nodes": [{{"id": "a", "node_type": "tool"}}, {{"id": "b", "node_type": "tool"}}], "edges": [{{"source": "a", "target": "b", "relation": "requires", "conf_score": {c}, "confidence": {c}}}]}}, "tools": {{"a": {{"name": "a", "description": "list orders"}}, "b": {{"name": "b", "description": "get order"}}}}}}"#
                );
                v.push((format!("conf-{i}"), s.into_bytes(), none()));
            }
            let big_name = "n".repeat(1 << 20);
            v.push((
                "name-1mb".into(),
                format!(r#"{{"format_version": "1", "graph": {{"nodes": [], "edges": []}}, "tools": {{"{big_name}": {{"name": "{big_name}", "description": "list orders"}}}}}}"#).into_bytes(),
                none(),
            ));
            let deep = String::from_utf8(nest(b"[", b"]", 5000)).unwrap();
            v.push((
                "deep-metadata".into(),
                format!(r#"{{"format_version": "1", "graph": {{"nodes": [], "edges": []}}, "tools": {{"a": {{"name": "a", "description": "list orders", "metadata": {deep}}}}}}}"#).into_bytes(),
                none(),
            ));
            let many: String = (0..3000)
                .map(|i| format!(r#""t{i}": {{"name": "t{i}", "description": "list orders {i}"}}"#))
                .collect::<Vec<_>>()
                .join(",");
            let doc = format!(
                r#"{{"format_version": "1", "graph": {{"nodes": [], "edges": []}}, "tools": {{{many}}}}}"#
            );
            v.push((
                "over-tool-limit".into(),
                doc.clone().into_bytes(),
                vec![("TOOLSCOPE_MAX_TOOLS", "1000".into())],
            ));
            v.push((
                "over-input-limit".into(),
                doc.into_bytes(),
                vec![("TOOLSCOPE_MAX_INPUT_BYTES", "64K".into())],
            ));
            let zeros = vec![b' '; 300 << 20];
            v.push(("gzip-bomb-300m".into(), gz(&zeros), none()));
        }
        Path_::Build => {
            let op = |extra: &str| {
                format!(
                    r##"{{"openapi": "3.0.3", "info": {{"title": "t", "version": "1"}}, "paths": {{"/a": {{"get": {{"operationId": "getA", "responses": {{"200": {{"description": "ok", "content": {{"application/json": {{"schema": {extra}}}}}}}}}}}}}}}, "components": {{"schemas": {{"A": {{"$ref": "#/components/schemas/B"}}, "B": {{"$ref": "#/components/schemas/A"}}, "S": {{"type": "object", "properties": {{"s": {{"$ref": "#/components/schemas/S"}}}}}}}}}}}}"##
                )
            };
            for (n, s) in [
                ("ref-cycle", r##"{"$ref": "#/components/schemas/A"}"##),
                ("ref-self", r##"{"$ref": "#/components/schemas/S"}"##),
                ("ref-root", r##"{"$ref": "#"}"##),
                ("ref-nothing", r##"{"$ref": "#/components/schemas/Nope"}"##),
                (
                    "ref-bad-escape",
                    r##"{"$ref": "#/components/schemas/~2x"}"##,
                ),
                ("ref-not-string", r##"{"$ref": 5}"##),
                ("ref-http", r##"{"$ref": "http://example.com/x.json"}"##),
                ("ref-file", r##"{"$ref": "file:///etc/passwd"}"##),
                ("ref-relative", r##"{"$ref": "../other.json#/x"}"##),
                ("ref-etc", r##"{"$ref": "/etc/passwd"}"##),
            ] {
                v.push((n.into(), op(s).into_bytes(), none()));
            }
            // exponential fan-out: 4^d expansions from a few hundred bytes
            for d in [8usize, 12, 25] {
                let mut schemas = Vec::new();
                for i in 0..d {
                    let props: Vec<String> = "abcd"
                        .chars()
                        .map(|k| {
                            format!(r##""{k}": {{"$ref": "#/components/schemas/S{}"}}"##, i + 1)
                        })
                        .collect();
                    schemas.push(format!(
                        r#""S{i}": {{"type": "object", "properties": {{{}}}}}"#,
                        props.join(", ")
                    ));
                }
                schemas.push(format!(r#""S{d}": {{"type": "string"}}"#));
                let s = format!(
                    r##"{{"openapi": "3.0.3", "info": {{"title": "t", "version": "1"}}, "paths": {{"/a": {{"get": {{"operationId": "getA", "responses": {{"200": {{"description": "ok", "content": {{"application/json": {{"schema": {{"$ref": "#/components/schemas/S0"}}}}}}}}}}}}}}}}, "components": {{"schemas": {{{}}}}}}}"##,
                    schemas.join(", ")
                );
                v.push((format!("ref-bomb-4pow{d}"), s.into_bytes(), none()));
            }
            let chain: Vec<String> = (0..5000)
                .map(|i| format!(r##""C{i}": {{"$ref": "#/components/schemas/C{}"}}"##, i + 1))
                .collect();
            v.push(("ref-chain-5000".into(), format!(r##"{{"openapi": "3.0.3", "info": {{"title": "t", "version": "1"}}, "paths": {{"/a": {{"get": {{"operationId": "getA", "responses": {{"200": {{"description": "ok", "content": {{"application/json": {{"schema": {{"$ref": "#/components/schemas/C0"}}}}}}}}}}}}}}}}, "components": {{"schemas": {{{}, "C5000": {{"type": "string"}}}}}}}}"##, chain.join(", ")).into_bytes(), none()));
            add(
                &mut v,
                "no-paths",
                br#"{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}}"#,
            );
            add(
                &mut v,
                "paths-list",
                br#"{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": []}"#,
            );
            add(&mut v, "openapi-2", br#"{"openapi": "2.5", "paths": {}}"#);
            add(&mut v, "swagger-3", br#"{"swagger": "3.0", "paths": {}}"#);
            add(&mut v, "paths-no-version", br#"{"paths": {"/a": {}}}"#);
            add(&mut v, "dup-operation-ids", br#"{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"/a": {"get": {"operationId": "x", "responses": {}}}, "/b": {"get": {"operationId": "x", "responses": {}}}}}"#);
            add(&mut v, "operation-string", br#"{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"/a": {"get": "nope"}}}"#);
            add(
                &mut v,
                "mcp-no-name",
                br#"{"tools": [{"description": "x", "inputSchema": {}}]}"#,
            );
            add(&mut v, "mcp-empty", br#"{"tools": []}"#);
            add(&mut v, "mcp-dup", br#"{"tools": [{"name": "a", "inputSchema": {}}, {"name": "a", "inputSchema": {}}]}"#);
            add(
                &mut v,
                "mcp-item-number",
                br#"[{"name": "a", "inputSchema": {}}, 5]"#,
            );
            add(
                &mut v,
                "functions-bad",
                br#"[{"type": "function", "function": 5}]"#,
            );
            // YAML
            let laughs = "openapi: 3.0.0\ninfo: {title: t, version: '1'}\nx-a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\nx-b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nx-c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nx-d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\nx-e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nx-f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\nx-g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nx-h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\nx-i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\npaths: {}\n";
            add(&mut v, "yaml-billion-laughs", laughs.as_bytes());
            add(
                &mut v,
                "yaml-laughs-in-paths",
                laughs
                    .replace("x-", "  /x")
                    .replace("paths: {}\n", "")
                    .replace(
                        "info: {title: t, version: '1'}\n",
                        "info: {title: t, version: '1'}\npaths:\n",
                    )
                    .as_bytes(),
            );
            add(
                &mut v,
                "yaml-syntax",
                b"openapi: 3.0.0\ninfo: [unclosed\npaths: {}\n",
            );
            add(&mut v, "yaml-tabs", b"openapi: 3.0.0\n\tinfo: x\n");
            add(
                &mut v,
                "yaml-undefined-alias",
                b"openapi: 3.0.0\ninfo: *nope\npaths: {}\n",
            );
            add(
                &mut v,
                "yaml-recursive-anchor",
                b"openapi: 3.0.0\nx: &a [*a]\npaths: {}\n",
            );
            add(
                &mut v,
                "yaml-multi-doc",
                b"openapi: 3.0.0\npaths: {}\n---\nopenapi: 3.0.0\n",
            );
            add(
                &mut v,
                "yaml-python-tag",
                b"openapi: 3.0.0\nx: !!python/object:os.system ['ls']\npaths: {}\n",
            );
            add(
                &mut v,
                "yaml-dup-keys",
                b"openapi: 3.0.0\npaths: {}\npaths: {}\n",
            );
            add(
                &mut v,
                "yaml-huge-int",
                b"openapi: 3.0.0\nx: 123456789012345678901234567890123456789\npaths: {}\n",
            );
            add(
                &mut v,
                "yaml-merge",
                b"openapi: 3.0.0\nb: &b {x: 1}\nc: {<<: *b, y: 2}\npaths: {}\n",
            );
            add(&mut v, "yaml-nul", b"openapi: 3.0.0\x00\npaths: {}\n");
            let flow = format!(
                "openapi: 3.0.0\nx: {}1{}\npaths: {{}}\n",
                "[".repeat(10_000),
                "]".repeat(10_000)
            );
            add(&mut v, "yaml-deep-flow", flow.as_bytes());
            let block: String = (0..300)
                .map(|i| format!("{}k{i}:\n", "  ".repeat(i)))
                .collect();
            add(
                &mut v,
                "yaml-deep-block",
                format!("openapi: 3.0.0\npaths: {{}}\nx:\n{block}").as_bytes(),
            );
            let many: String = (0..2000).map(|i| format!(r##""/p{i}": {{"get": {{"operationId": "op{i}", "responses": {{"200": {{"description": "ok", "content": {{"application/json": {{"schema": {{"$ref": "#/components/schemas/T"}}}}}}}}}}}}}}"##)).collect::<Vec<_>>().join(",");
            let doc = format!(
                r#"{{"openapi": "3.0.3", "info": {{"title": "t", "version": "1"}}, "paths": {{{many}}}, "components": {{"schemas": {{"T": {{"type": "object", "properties": {{"a": {{"type": "string"}}, "b": {{"type": "integer"}}}}}}}}}}}}"#
            );
            v.push((
                "paths-2k-over-ref-total".into(),
                doc.into_bytes(),
                vec![("TOOLSCOPE_MAX_REF_NODES_TOTAL", "10000".into())],
            ));
            let many: String = (0..5000)
                .map(|i| {
                    format!(r#""/q{i}": {{"get": {{"operationId": "q{i}", "responses": {{}}}}}}"#)
                })
                .collect::<Vec<_>>()
                .join(",");
            v.push(("paths-5k".into(), format!(r#"{{"openapi": "3.0.3", "info": {{"title": "t", "version": "1"}}, "paths": {{{many}}}}}"#).into_bytes(), none()));
        }
        Path_::Evidence => {
            add(&mut v, "results-not-list", br#"{"results": "nope"}"#);
            add(&mut v, "results-number-item", br#"{"results": [5]}"#);
            add(
                &mut v,
                "results-no-name",
                br#"{"results": [{"score": 1.0}]}"#,
            );
            add(
                &mut v,
                "score-string",
                br#"{"results": [{"name": "a", "score": "high"}]}"#,
            );
            add(
                &mut v,
                "breakdown-list",
                br#"{"results": [{"name": "a", "score": 1.0, "score_breakdown": [1, 2]}]}"#,
            );
            add(
                &mut v,
                "selector-bad",
                br#"{"selected_target": 5, "reason_codes": "x"}"#,
            );
            add(
                &mut v,
                "fixture-ranking-str",
                br#"{"case_id": "c", "query": "q", "actual_top_3": [], "ranking": "nope"}"#,
            );
            add(
                &mut v,
                "jsonl-bad-line",
                b"{\"results\": []}\n{bad\n{\"results\": []}\n",
            );
            add(&mut v, "jsonl-line-array", b"{\"results\": []}\n[1, 2]\n");
            let line = format!(
                "{{\"results\": [{{\"name\": \"{}\"}}]}}\n",
                "x".repeat(3 << 20)
            );
            v.push((
                "record-over-limit".into(),
                line.into_bytes(),
                vec![("TOOLSCOPE_MAX_RECORD_BYTES", "1M".into())],
            ));
        }
        Path_::Suite => {
            add(
                &mut v,
                "expected-string",
                br#"[{"case_id": "a", "query": "q", "expected_tools": "listOrders"}]"#,
            );
            add(
                &mut v,
                "expected-mixed",
                br#"[{"case_id": "a", "query": "q", "expected_tools": [5, null]}]"#,
            );
            add(
                &mut v,
                "no-expected",
                br#"[{"case_id": "a", "query": "q"}]"#,
            );
            add(
                &mut v,
                "topk-negative",
                br#"{"id": "a", "query": "q", "params": {"top_k": -1}}"#,
            );
            add(
                &mut v,
                "topk-huge",
                br#"{"id": "a", "query": "q", "params": {"top_k": 1e30}}"#,
            );
            add(
                &mut v,
                "topk-string",
                br#"{"id": "a", "query": "q", "params": {"top_k": "5"}}"#,
            );
            add(
                &mut v,
                "history-string",
                br#"{"id": "a", "query": "q", "params": {"history": "x"}}"#,
            );
            add(
                &mut v,
                "params-list",
                br#"{"id": "a", "query": "q", "params": [1]}"#,
            );
            add(
                &mut v,
                "selector-number",
                br#"{"id": "a", "query": "q", "selector": 5}"#,
            );
            add(
                &mut v,
                "query-number",
                br#"[{"case_id": "a", "query": 5, "expected_target": "x"}]"#,
            );
            add(&mut v, "queries-object", br#"{"queries": {"a": 1}}"#);
            let q = "q".repeat(200 << 10);
            v.push((
                "query-200k".into(),
                format!(r#"[{{"case_id": "a", "query": "{q}", "expected_target": "x"}}]"#)
                    .into_bytes(),
                none(),
            ));
        }
        Path_::Learning => {
            add(&mut v, "suggestions-string", br#"{"suggestions": "x"}"#);
            add(&mut v, "item-number", br#"[5]"#);
            add(&mut v, "item-no-type", br#"[{"target": "cancelOrder"}]"#);
            add(
                &mut v,
                "jsonl-bad",
                b"{\"type\": \"target_preference\"}\n{bad\n",
            );
            add(&mut v, "observations-string", br#"[{"type": "target_preference", "status": "promoted", "target": "cancelOrder", "observations": "many", "query_family": 7}]"#);
        }
        Path_::Workflows => {
            let wf = |body: &str| format!("{{\"arazzo\": \"1.0.0\", \"workflows\": {body}}}");
            add(
                &mut v,
                "version-2",
                b"{\"arazzo\": \"2.0.0\", \"workflows\": []}",
            );
            add(
                &mut v,
                "version-number",
                b"{\"arazzo\": 1.0, \"workflows\": []}",
            );
            add(&mut v, "version-list", b"{\"arazzo\": [\"1.0.0\"]}");
            add(&mut v, "workflows-object", wf("{\"a\": 1}").as_bytes());
            add(
                &mut v,
                "steps-string",
                wf("[{\"workflowId\": \"w\", \"steps\": \"x\"}]").as_bytes(),
            );
            add(&mut v, "step-types", wf("[{\"workflowId\": 5, \"steps\": [null, 1, [], {\"stepId\": {}, \"operationId\": [1]}, {\"stepId\": \"a\", \"operationPath\": 7, \"parameters\": {\"x\": 1}, \"requestBody\": [1]}]}]").as_bytes());
            add(&mut v, "undeclared-source", wf("[{\"workflowId\": \"w\", \"steps\": [{\"stepId\": \"a\", \"operationId\": \"$sourceDescriptions.nope.listUsers\"}]}]").as_bytes());
            add(&mut v, "remote-ref", wf("[{\"workflowId\": \"w\", \"inputs\": {\"$ref\": \"http://example.com/i.json\"}, \"steps\": []}]").as_bytes());
            let refs = "$steps.a.outputs.x#/".repeat(20_000);
            add(&mut v, "expression-run", wf(&format!("[{{\"workflowId\": \"w\", \"steps\": [{{\"stepId\": \"a\", \"operationId\": \"listUsers\", \"outputs\": {{\"x\": \"$response.body#/a\"}}}}, {{\"stepId\": \"b\", \"operationId\": \"getUser\", \"parameters\": [{{\"name\": \"p\", \"value\": \"{refs}\"}}]}}]}}]")).as_bytes());
            let steps: Vec<String> = (0..20_000)
                .map(|i| format!("{{\"stepId\": \"s{i}\", \"operationId\": \"{}\", \"parameters\": [{{\"name\": \"p\", \"value\": \"$steps.s{}.outputs.o\"}}], \"outputs\": {{\"o\": \"$response.body#/id\"}}}}", ["listUsers", "getUser", "createUser"][i % 3], i / 2))
                .collect();
            add(
                &mut v,
                "steps-20k",
                wf(&format!(
                    "[{{\"workflowId\": \"w\", \"steps\": [{}]}}]",
                    steps.join(",")
                ))
                .as_bytes(),
            );
            let deep = format!(
                "{}\"$steps.a.outputs.x\"{}",
                "{\"k\": ".repeat(120),
                "}".repeat(120)
            );
            add(&mut v, "deep-request-body", wf(&format!("[{{\"workflowId\": \"w\", \"steps\": [{{\"stepId\": \"a\", \"operationId\": \"getUser\", \"requestBody\": {deep}}}]}}]")).as_bytes());
        }
        Path_::Batch => {
            add(&mut v, "no-query", b"{\"id\": 1}\n");
            add(&mut v, "query-number", b"{\"id\": 1, \"query\": 5}\n");
            add(
                &mut v,
                "params-string",
                b"{\"id\": 1, \"query\": \"q\", \"params\": \"x\"}\n",
            );
            add(
                &mut v,
                "topk-string",
                b"{\"id\": 1, \"query\": \"q\", \"params\": {\"top_k\": \"5\"}}\n",
            );
            add(
                &mut v,
                "topk-negative",
                b"{\"id\": 1, \"query\": \"q\", \"params\": {\"top_k\": -3}}\n",
            );
            add(
                &mut v,
                "selector-number",
                b"{\"id\": 1, \"query\": \"q\", \"selector\": 5}\n",
            );
            add(
                &mut v,
                "bad-second-line",
                b"{\"id\": 1, \"query\": \"q\"}\n{bad\n",
            );
            let q = "a".repeat(100 << 10);
            v.push((
                "query-100k".into(),
                format!("{{\"id\": 1, \"query\": \"{q}\"}}\n").into_bytes(),
                none(),
            ));
            let q = "a".repeat(3 << 20);
            v.push((
                "line-3m-over-limit".into(),
                format!("{{\"id\": 1, \"query\": \"{q}\"}}\n").into_bytes(),
                vec![("TOOLSCOPE_MAX_RECORD_BYTES", "1M".into())],
            ));
        }
    }
    v
}

/// The command line that reads `file` on `path`.
fn command(path: Path_, file: &Path, dir: &Path) -> Vec<String> {
    let f = file.to_str().unwrap().to_string();
    let s = |x: &str| x.to_string();
    match path {
        Path_::Artifact => vec![s("query"), f, s("list orders")],
        Path_::Build => vec![
            s("build"),
            f,
            s("-o"),
            dir.join("out.json").to_str().unwrap().into(),
            s("--force"),
            s("--quiet"),
        ],
        Path_::Workflows => vec![
            s("build"),
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/ingest/users.openapi.json")
                .to_str()
                .unwrap()
                .into(),
            f,
            s("-o"),
            dir.join("out.json").to_str().unwrap().into(),
            s("--force"),
            s("--quiet"),
        ],
        Path_::Evidence => vec![
            s("lab"),
            s("diff"),
            f,
            dir.join("good-response.json").to_str().unwrap().into(),
        ],
        Path_::Suite => vec![s("lab"), s("eval"), s("demo"), f],
        Path_::Learning => vec![
            s("query"),
            s("demo"),
            s("approve refund"),
            s("--learning"),
            f,
        ],
        Path_::Batch => vec![s("query"), s("demo"), s("--batch"), f],
    }
}

#[derive(Debug)]
#[allow(dead_code)] // the payloads are read through Debug in the failure report
enum Outcome {
    Accepted(i32),
    ClearError,
    Unclear(String),
    Crash(String),
    Hang,
}

fn run(args: &[String], env: &[(&'static str, String)], file_name: &str) -> Outcome {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .env_remove("RUST_BACKTRACE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    // SAFETY: setrlimit in the child before exec; async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: MEMORY_CAP,
                rlim_max: MEMORY_CAP,
            };
            libc::setrlimit(libc::RLIMIT_AS, &lim);
            Ok(())
        });
    }
    let mut child = cmd.spawn().expect("spawn");
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = std::io::Read::read_to_end(&mut err, &mut s);
        s
    });
    let t = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if t.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return Outcome::Hang;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stderr = String::from_utf8_lossy(&reader.join().unwrap()).into_owned();
    if let Some(sig) = status.signal() {
        return Outcome::Crash(format!(
            "signal {sig}: {}",
            stderr.lines().next().unwrap_or("")
        ));
    }
    match status.code() {
        Some(c @ (0 | 1)) => Outcome::Accepted(c),
        Some(2) => {
            let lines: Vec<&str> = stderr.trim_end().lines().collect();
            if lines.len() == 1 && lines[0].contains(file_name) && !stderr.contains("panicked") {
                Outcome::ClearError
            } else {
                Outcome::Unclear(stderr.trim_end().to_string())
            }
        }
        other => Outcome::Crash(format!("exit {other:?}: {stderr}")),
    }
}

fn cases(dir: &Path) -> Vec<Case> {
    let mut out = Vec::new();
    let mut n = 0usize;
    let mut put = |out: &mut Vec<Case>,
                   path: Path_,
                   family: String,
                   bytes: &[u8],
                   env: Vec<(&'static str, String)>| {
        n += 1;
        let ext = if family.contains("yaml") {
            "yaml"
        } else {
            "json"
        };
        let file = dir.join(format!("c{n:04}-{}.{ext}", family.replace(['/', ' '], "_")));
        std::fs::write(&file, bytes).unwrap();
        out.push(Case {
            family,
            path,
            file,
            env,
        });
    };
    for (path, name, base) in bases(dir) {
        for (fam, bytes) in generic(&base) {
            put(&mut out, path, format!("{name}/{fam}"), &bytes, Vec::new());
        }
    }
    for path in [
        Path_::Artifact,
        Path_::Build,
        Path_::Workflows,
        Path_::Evidence,
        Path_::Suite,
        Path_::Learning,
        Path_::Batch,
    ] {
        for (fam, bytes, env) in specific(path) {
            put(
                &mut out,
                path,
                format!("{path:?}/{fam}").to_lowercase(),
                &bytes,
                env,
            );
        }
    }
    // special files, on every path
    let fifo = dir.join("a-fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo with a NUL-terminated path.
    unsafe { libc::mkfifo(c.as_ptr(), 0o600) };
    let sub = dir.join("a-folder");
    std::fs::create_dir_all(&sub).unwrap();
    let dangling = dir.join("dangling-link");
    let _ = std::os::unix::fs::symlink(dir.join("nothing-here"), &dangling);
    let lp = dir.join("loop-link");
    let _ = std::os::unix::fs::symlink(&lp, &lp);
    for path in [
        Path_::Artifact,
        Path_::Build,
        Path_::Workflows,
        Path_::Evidence,
        Path_::Suite,
        Path_::Learning,
        Path_::Batch,
    ] {
        for special in [
            fifo.clone(),
            PathBuf::from("/dev/zero"),
            PathBuf::from("/dev/urandom"),
            PathBuf::from("/dev/null"),
            PathBuf::from("/proc/self/mem"),
            dir.join("missing.json"),
            dangling.clone(),
            lp.clone(),
            sub.clone(),
        ] {
            out.push(Case {
                family: format!("{path:?}/special:{}", special.display()).to_lowercase(),
                path,
                file: special,
                env: Vec::new(),
            });
        }
    }
    out
}

#[test]
fn no_bad_input_crashes_hangs_or_answers_unclearly() {
    let dir = scratch();
    let all = cases(&dir);
    let work = std::sync::Mutex::new(all.iter());
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let Some(c) = work.lock().unwrap().next() else {
                        break;
                    };
                    let name = c.file.file_name().unwrap().to_string_lossy().into_owned();
                    let out = run(&command(c.path, &c.file, &dir), &c.env, &name);
                    results.lock().unwrap().push((c.family.clone(), out));
                }
            });
        }
    });
    let results = results.into_inner().unwrap();
    let (mut accepted, mut clear, mut bad) = (0, 0, Vec::new());
    for (fam, o) in &results {
        match o {
            Outcome::Accepted(_) => accepted += 1,
            Outcome::ClearError => clear += 1,
            other => bad.push(format!("{fam}: {other:?}")),
        }
    }
    println!(
        "bad-input corpus: {} tried ({} generated), {clear} clear errors, {accepted} accepted, {} failures",
        results.len(),
        all.len(),
        bad.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        bad.is_empty(),
        "{} cases failed:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
