//! Building graphs natively (`toolscope build`, specs as GRAPH): small project-owned
//! fixtures whose expected edges were produced by graph-tool-call 0.47.0, parity with the
//! shared golden graphs when the shared corpus is present (`../shared/corpus` or under
//! `$TOOLSCOPE_SHARED_DIR`; SKIP on the terminal otherwise), and bad inputs
//! (one-line errors naming file and place, never a panic).

mod common;

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn bin() -> Command {
    Command::cargo_bin("toolscope").unwrap()
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/ingest")
        .join(name)
}

fn tmp() -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "toolscope-ingest-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `toolscope build INPUTS -o OUT` (from `dir`) and returns the parsed output.
fn build_in(dir: &Path, inputs: &[&str]) -> Value {
    let out = tmp().join("out.json");
    let o = bin()
        .current_dir(dir)
        .arg("build")
        .args(inputs)
        .args(["-o", out.to_str().unwrap(), "--quiet", "--force"])
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "build failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    // read as Python's json reads it (serde_json's Value would read its private raw-value
    // key, which a test spec may carry, as JSON)
    toolscope::jsonin::from_slice(&std::fs::read(&out).unwrap()).unwrap()
}

fn edges(g: &Value) -> Vec<(String, String, String, Value, Value, String)> {
    g["graph"]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["source"].as_str().unwrap().to_string(),
                e["target"].as_str().unwrap().to_string(),
                e["relation"].as_str().unwrap_or("").to_string(),
                e.get("confidence").cloned().unwrap_or(Value::Null),
                e.get("conf_score").cloned().unwrap_or(Value::Null),
                e.get("evidence")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
            )
        })
        .collect()
}

/// `(id, node_type)` of every graph node, in order.
fn nodes(g: &Value) -> Vec<(&str, &str)> {
    g["graph"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["id"].as_str().unwrap(), n["node_type"].as_str().unwrap()))
        .collect()
}

type Row<'a> = (&'a str, &'a str, &'a str, &'a str, f64, &'a str);

/// The graph's (source, target, relation) triples, in order, are `want`.
fn assert_relations(g: &Value, want: &[(&str, &str, &str)]) {
    let got: Vec<(String, String, String)> =
        edges(g).into_iter().map(|e| (e.0, e.1, e.2)).collect();
    let want: Vec<(String, String, String)> = want
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect();
    assert_eq!(got, want);
}

fn assert_edges(g: &Value, want: &[Row]) {
    let got = edges(g);
    let want: Vec<_> = want
        .iter()
        .map(|(s, t, r, c, x, e)| {
            (
                s.to_string(),
                t.to_string(),
                r.to_string(),
                Value::String(c.to_string()),
                serde_json::json!(x),
                e.to_string(),
            )
        })
        .collect();
    assert_eq!(got, want);
}

/// `toolscope build` allocates with mimalloc and every other command with the system
/// allocator (src/allocator.rs); the graph must not depend on which one ran.
#[test]
fn the_build_is_the_same_with_either_allocator() {
    let dir = fixture("rules");
    let run = |allocator: Option<&str>| -> Value {
        let out = tmp().join(format!("alloc-{}.json", allocator.unwrap_or("default")));
        let mut cmd = bin();
        if let Some(a) = allocator {
            cmd.env("TOOLSCOPE_ALLOCATOR", a);
        }
        let o = cmd
            .current_dir(&dir)
            .args(["build", "fuzz-x408.openapi.json", "-o"])
            .arg(&out)
            .args(["--quiet", "--force"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap()
    };
    let (default, system, mimalloc) = (run(None), run(Some("system")), run(Some("mimalloc")));
    assert!(default["tools"].as_object().is_some_and(|t| !t.is_empty()));
    for other in [&system, &mimalloc] {
        for section in ["tools", "graph", "readiness_report", "edge_stats"] {
            assert_eq!(
                serde_json::to_string(&default[section]).unwrap(),
                serde_json::to_string(&other[section]).unwrap(),
                "{section}"
            );
        }
    }
}

/// A build whose input is big enough has its arena faulted in ahead while it parses
/// (`TOOLSCOPE_TIMING` says how much), and builds the same graph as with the system
/// allocator (no arena, nothing faulted in).
#[cfg(target_os = "linux")]
#[test]
fn memory_faulted_in_ahead_changes_nothing_built() {
    // 800 operations with 8 KB descriptions: 6.6 MB, above the 64 MiB / 10 threshold
    let long = "Lists the orders of one customer, newest first. ".repeat(170);
    let mut paths = serde_json::Map::new();
    for i in 0..800 {
        paths.insert(
            format!("/customers/{{customerId}}/orders{i}"),
            serde_json::json!({"get": {
                "operationId": format!("listOrders{i}"),
                "description": long,
                "parameters": [{"name": "customerId", "in": "path", "required": true,
                                "schema": {"type": "string"}}],
                "responses": {"200": {"description": "OK", "content": {"application/json":
                    {"schema": {"type": "object", "properties": {"orderId": {"type": "string"}}}}}}}
            }}),
        );
    }
    let spec = serde_json::json!({"openapi": "3.0.0", "info": {"title": "t", "version": "1"},
                                  "paths": paths});
    let dir = tmp();
    let input = dir.join("big.openapi.json");
    std::fs::write(&input, spec.to_string()).unwrap();
    assert!(std::fs::metadata(&input).unwrap().len() > (64 << 20) / 10);
    let run = |allocator: &str| {
        let out = dir.join(format!("big-{allocator}.json"));
        let o = bin()
            .env("TOOLSCOPE_ALLOCATOR", allocator)
            .env("TOOLSCOPE_TIMING", "1")
            .arg("build")
            .arg(&input)
            .arg("-o")
            .arg(&out)
            .args(["--quiet", "--force"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        (v, String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let ((ahead, said), (system, quiet)) = (run("mimalloc"), run("system"));
    let mib: usize = said
        .lines()
        .find_map(|l| l.strip_prefix("timing: faulting in "))
        .and_then(|l| l.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no prefault line in:\n{said}"));
    assert!(mib >= 64, "{said}");
    assert!(!quiet.contains("faulting in"), "{quiet}");
    assert_eq!(ahead["tools"].as_object().map(|t| t.len()), Some(800));
    // a file as big that is not a spec has nothing faulted in for it
    let text = dir.join("big-text.json");
    std::fs::write(&text, "a".repeat(8 << 20)).unwrap();
    let o = bin()
        .env("TOOLSCOPE_ALLOCATOR", "mimalloc")
        .env("TOOLSCOPE_TIMING", "1")
        .arg("build")
        .arg(&text)
        .arg("-o")
        .arg(dir.join("never.json"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{said}");
    assert!(!said.contains("faulting in"), "{said}");
    for section in ["tools", "graph", "readiness_report", "edge_stats"] {
        assert_eq!(
            serde_json::to_string(&ahead[section]).unwrap(),
            serde_json::to_string(&system[section]).unwrap(),
            "{section}"
        );
    }
}

#[test]
fn openapi3_fixture_gives_the_reference_edges() {
    let g = build_in(&fixture(""), &["users.openapi.json"]);
    let names: Vec<&str> = g["tools"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        names,
        [
            "listUsers",
            "createUser",
            "getUser",
            "deleteUser",
            "createOrder"
        ]
    );
    // expected values: graph-tool-call 0.47.0 build_openapi_collection_artifact on this file
    assert_edges(
        &g,
        &[
            (
                "listUsers",
                "getUser",
                "similar_to",
                "EXTRACTED",
                0.85,
                "listUsers (GET list) and getUser (GET single) are similar (same resource)",
            ),
            (
                "createUser",
                "deleteUser",
                "precedes",
                "EXTRACTED",
                0.85,
                "createUser (create) precedes deleteUser (delete) — same resource 'users'",
            ),
            (
                "getUser",
                "createUser",
                "requires",
                "EXTRACTED",
                0.9500000000000001,
                "getUser (GET single) requires createUser (POST) — same resource 'users' | api contract data flow: createUser.$.userId -> getUser.userId",
            ),
            (
                "getUser",
                "listUsers",
                "requires",
                "INFERRED",
                0.82,
                "api contract data flow: listUsers.$[*].userId -> getUser.userId",
            ),
            (
                "deleteUser",
                "getUser",
                "requires",
                "EXTRACTED",
                0.9,
                "deleteUser (/users/{userId}) requires data from getUser (/users/{userId})",
            ),
            (
                "deleteUser",
                "createUser",
                "requires",
                "INFERRED",
                0.87,
                "deleteUser has params referencing createUser's resource: user | api contract data flow: createUser.$.userId -> deleteUser.userId",
            ),
            (
                "deleteUser",
                "listUsers",
                "requires",
                "INFERRED",
                0.82,
                "api contract data flow: listUsers.$[*].userId -> deleteUser.userId",
            ),
            (
                "createOrder",
                "getUser",
                "requires",
                "INFERRED",
                0.85,
                "createOrder has param 'userId' referencing getUser's resource 'user'",
            ),
            (
                "createOrder",
                "createUser",
                "requires",
                "INFERRED",
                0.87,
                "createOrder has params referencing createUser's resource: user | api contract data flow: createUser.$.userId -> createOrder.userId",
            ),
            (
                "createOrder",
                "listUsers",
                "requires",
                "INFERRED",
                0.82,
                "api contract data flow: listUsers.$[*].userId -> createOrder.userId",
            ),
        ],
    );
    let t = &g["tools"]["getUser"];
    assert_eq!(t["description"], "Get user by ID");
    assert_eq!(t["domain"], "users");
    assert_eq!(
        t["parameters"][0],
        serde_json::json!({"name": "userId", "type": "string", "description": "User ID", "required": true, "enum": null})
    );
    assert_eq!(t["metadata"]["base_url"], "https://api.example.com/v1");
    assert_eq!(g["collection_graph_version"], "2");
}

/// Rule fixtures (`tests/fixtures/ingest/rules/*.openapi.json`): every tool (name,
/// parameters, full metadata in key order), node and edge as graph-tool-call 0.47.0 builds
/// them (`scripts/make-ingest-expectations.sh`). They pin the schema leaf walk (depth limit
/// 8, untyped `allOf` wrappers, oneOf/anyOf unions with discriminators, map leaves),
/// request-body union parameters, example-inferred fields and parameters, query-object
/// expansion, nullable dialects, response envelopes and aliases, the contract promotion
/// frequency floor and shared-ref evidence; the semantic summary; and the whole readiness
/// report with its graph-level issues (`graph-*`: candidates without data flow, isolated
/// tools, weak edge evidence, a ready collection, bare paths with a schema-less body and
/// unassigned resources, one oversized module); operations that share their responses
/// (`shared-responses*`: the same responses under other `produces`, with links, in another
/// member order, through a path item that is a `$ref`, whose operationIds are renamed but
/// not marked as duplicates). `fuzz-<seed>` are specs of
/// `scripts/fuzz_specs.py` on which the differential fuzzing found a difference (auth rows
/// and merged parameters, promoted-consume merging, duplicate operationIds, evidence merges).
#[test]
fn rule_fixtures_give_the_reference_tools_and_edges() {
    use std::io::Read;
    let dir = fixture("rules");
    let mut specs: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".openapi.json"))
        .collect();
    specs.sort();
    assert!(!specs.is_empty());
    for spec in specs {
        let name = spec.trim_end_matches(".openapi.json");
        let mut text = String::new();
        flate2::read::GzDecoder::new(
            std::fs::File::open(dir.join(format!("{name}.expected.json.gz"))).unwrap(),
        )
        .read_to_string(&mut text)
        .unwrap();
        let want: Value = serde_json::from_str(&text).unwrap();
        let got = build_in(&dir, &[&spec]);
        // compared as text: same values and the same key order
        let tools_got: Vec<Value> = match &got["tools"] {
            Value::Array(a) => a.clone(),
            Value::Object(m) => m.values().cloned().collect(),
            _ => panic!("no tools"),
        };
        let tools_want: Vec<Value> = match &want["tools"] {
            Value::Array(a) => a.clone(),
            Value::Object(m) => m.values().cloned().collect(),
            _ => panic!("no tools"),
        };
        assert_eq!(tools_got.len(), tools_want.len(), "{spec}: tool count");
        for (g, w) in tools_got.iter().zip(&tools_want) {
            assert_eq!(
                serde_json::to_string(g).unwrap(),
                serde_json::to_string(w).unwrap(),
                "{spec}: tool {}",
                w["name"]
            );
        }
        for part in ["nodes", "edges"] {
            assert_eq!(
                serde_json::to_string(&got["graph"][part]).unwrap(),
                serde_json::to_string(&want[part]).unwrap(),
                "{spec}: graph {part}"
            );
        }
        // the whole readiness report, part by part (the message names the part): summary,
        // coverage, graph_readiness (with the producer/consumer candidate count), issues in
        // order and recommendations
        let (rg, rw) = (&got["readiness_report"], &want["readiness_report"]);
        let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(rg), keys(rw), "{spec}: readiness_report keys");
        for part in keys(rw) {
            assert_eq!(
                serde_json::to_string(&rg[&part]).unwrap(),
                serde_json::to_string(&rw[&part]).unwrap(),
                "{spec}: readiness_report.{part}"
            );
        }
        assert_eq!(
            serde_json::to_string(&got["semantic_summary"]).unwrap(),
            serde_json::to_string(&want["semantic_summary"]).unwrap(),
            "{spec}: semantic_summary"
        );
    }
}

#[test]
fn swagger2_yaml_with_a_cyclic_schema_gives_the_reference_edges() {
    let g = build_in(&fixture(""), &["pets.swagger.yaml"]);
    // deletePet is deprecated: skipped
    assert_eq!(g["tools"].as_object().unwrap().len(), 3);
    assert_edges(
        &g,
        &[
            (
                "listPets",
                "getPet",
                "similar_to",
                "EXTRACTED",
                0.85,
                "listPets (GET list) and getPet (GET single) are similar (same resource)",
            ),
            (
                "getPet",
                "addPet",
                "requires",
                "EXTRACTED",
                0.9,
                "getPet (GET single) requires addPet (POST) — same resource 'pets'",
            ),
            (
                "getPet",
                "listPets",
                "requires",
                "INFERRED",
                0.82,
                "api contract data flow: listPets.$[*].petId -> getPet.petId",
            ),
        ],
    );
    let cyc = &g["tools"]["getPet"]["metadata"]["response_schema"]["properties"]["owner"]["properties"]
        ["pets"]["items"];
    assert_eq!(cyc["description"], "(circular ref: #/definitions/Pet)");
    assert_eq!(
        g["tools"]["listPets"]["metadata"]["base_url"],
        "https://pets.example.com/v2"
    );
}

#[test]
fn mcp_jsonrpc_result_builds_a_legacy_graph_with_a_category() {
    let g = build_in(&fixture(""), &["tools.mcp.json"]);
    assert_eq!(
        nodes(&g),
        [
            ("list_notes", "tool"),
            ("notes", "category"),
            ("create_note", "tool"),
            ("delete_note", "tool"),
            ("get_note", "tool")
        ]
    );
    let t = &g["tools"]["list_notes"];
    assert_eq!(t["tags"], serde_json::json!(["notes"]));
    assert_eq!(t["metadata"]["mcp_server"], "notes");
    assert_eq!(
        t["annotations"],
        serde_json::json!({"read_only_hint": true, "destructive_hint": null, "idempotent_hint": null, "open_world_hint": null})
    );
    // create_note has no annotations: inferred from the verb
    assert_eq!(
        g["tools"]["create_note"]["annotations"]["read_only_hint"],
        false
    );
    // the reference's graph (ToolGraph().ingest_mcp_tools(tools, server_name="notes"))
    assert_relations(
        &g,
        &[
            ("list_notes", "notes", "belongs_to"),
            ("create_note", "notes", "belongs_to"),
            ("delete_note", "notes", "belongs_to"),
            ("delete_note", "get_note", "requires"),
            ("get_note", "notes", "belongs_to"),
            ("get_note", "create_note", "requires"),
        ],
    );
}

#[test]
fn a_bare_mcp_list_has_no_server_and_categories_from_the_tool_names() {
    // the tools of tools.mcp.json as a bare list: no server name anywhere, so (as
    // ToolGraph().ingest_mcp_tools(tools) without server_name) the category is the noun
    // the names share and no tool records a server
    let g = build_in(&fixture(""), &["tools-bare.mcp.json"]);
    assert_eq!(
        nodes(&g),
        [
            ("list_notes", "tool"),
            ("note", "category"),
            ("create_note", "tool"),
            ("delete_note", "tool"),
            ("get_note", "tool")
        ]
    );
    let t = &g["tools"]["list_notes"];
    assert_eq!(t["tags"], serde_json::json!(["note"]));
    assert!(t["metadata"].get("mcp_server").is_none());
    assert!(t["metadata"]["execution"].get("server_name").is_none());
    assert_relations(
        &g,
        &[
            ("list_notes", "note", "belongs_to"),
            ("create_note", "note", "belongs_to"),
            ("delete_note", "note", "belongs_to"),
            ("delete_note", "get_note", "requires"),
            ("get_note", "note", "belongs_to"),
            ("get_note", "create_note", "requires"),
        ],
    );
}

#[test]
fn function_lists_openai_and_anthropic() {
    let g = build_in(&fixture(""), &["functions.json"]);
    let w = &g["tools"]["get_weather"];
    assert_eq!(w["tags"], serde_json::json!(["weather"]));
    assert_eq!(w["domain"], "weather");
    assert_eq!(w["metadata"], serde_json::json!({}));
    assert_eq!(w["parameters"][1]["enum"], serde_json::json!(["c", "f"]));
    assert_eq!(
        w["annotations"],
        serde_json::json!({"read_only_hint": true, "destructive_hint": false, "idempotent_hint": true, "open_world_hint": null})
    );
    let f = &g["tools"]["search_flights"];
    assert_eq!(f["parameters"].as_array().unwrap().len(), 2);
    assert_eq!(f["tags"], serde_json::json!(["flight"]));
}

/// A function list is added as one batch (`add_tools`): every tool node first, then the
/// category nodes; a domain named like a tool links to that tool (as graph-tool-call 0.47.0
/// builds `tests/fixtures/ingest/functions-batch.json`).
#[test]
fn a_function_list_registers_tools_before_categories() {
    let g = build_in(&fixture(""), &["functions-batch.json"]);
    assert_eq!(
        nodes(&g),
        [
            ("create-commit", "tool"),
            ("searchnetwork", "tool"),
            ("get-page", "tool"),
            ("commit", "category"),
            ("page", "category"),
        ]
    );
    let edges: Vec<(String, String, String)> =
        edges(&g).into_iter().map(|e| (e.0, e.1, e.2)).collect();
    assert_eq!(
        edges,
        [
            ("create-commit", "commit", "belongs_to"),
            ("searchnetwork", "searchnetwork", "belongs_to"),
            ("get-page", "page", "belongs_to"),
        ]
        .map(|(s, t, r)| (s.to_string(), t.to_string(), r.to_string()))
    );
}

#[test]
fn query_accepts_a_spec_directly() {
    let o = bin()
        .args([
            "query",
            fixture("users.openapi.json").to_str().unwrap(),
            "list users",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["results"][0]["name"], "listUsers");
    let o = bin()
        .args([
            "query",
            fixture("pets.swagger.yaml").to_str().unwrap(),
            "add a pet",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("addPet"));
}

// ------------------------------------------------------------------ shared corpus parity

fn corpus(what: &str) -> Option<PathBuf> {
    common::shared_corpus(what).filter(|p| p.join("golden/graphs").is_dir())
}

#[test]
fn peer_bench_specs_give_the_golden_graphs_byte_for_byte() {
    let Some(c) = corpus("peer_bench_specs_give_the_golden_graphs_byte_for_byte") else {
        return;
    };
    let peer = c.join("peer-bench");
    for s in ["petstore3", "github_subset", "ecommerce"] {
        let g = build_in(&peer, &[&format!("specs/{s}.json")]);
        let want: Value = serde_json::from_slice(
            &std::fs::read(c.join(format!("golden/graphs/{s}.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(edges(&g), edges(&want), "{s}: edges");
        let (a, b) = (
            g["tools"].as_object().unwrap(),
            want["tools"].as_object().unwrap(),
        );
        assert_eq!(
            a.keys().collect::<Vec<_>>(),
            b.keys().collect::<Vec<_>>(),
            "{s}: tool names"
        );
        // every tool row (metadata included), node and edge is byte-for-byte the reference's
        for (k, t) in b {
            assert_eq!(
                serde_json::to_string(&a[k]).unwrap(),
                serde_json::to_string(t).unwrap(),
                "{s}: tool {k}"
            );
        }
        assert_eq!(g["graph"]["nodes"], want["graph"]["nodes"], "{s}: nodes");
        assert_eq!(
            g["graph"]["edges"], want["graph"]["edges"],
            "{s}: edge attributes"
        );
    }
}

#[test]
fn mcp_lists_give_the_golden_graphs_exactly() {
    let Some(c) = corpus("mcp_lists_give_the_golden_graphs_exactly") else {
        return;
    };
    let dir = c.join("peer-bench/mcp_tools");
    let strip = |mut v: Value| {
        v["metadata"]["built_at"] = Value::Null;
        v
    };
    for s in [
        "docker",
        "filesystem",
        "git",
        "github",
        "playwright",
        "shell",
    ] {
        let g = build_in(&dir, &[&format!("{s}.json")]);
        let want: Value = serde_json::from_slice(
            &std::fs::read(c.join(format!("golden/graphs/mcp_{s}.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(strip(g), strip(want), "mcp_{s}");
    }
    let g = build_in(
        &dir,
        &[
            "filesystem.json",
            "github.json",
            "playwright.json",
            "git.json",
            "docker.json",
            "shell.json",
        ],
    );
    let want: Value =
        serde_json::from_slice(&std::fs::read(c.join("golden/graphs/mcp_mixed.json")).unwrap())
            .unwrap();
    assert_eq!(strip(g), strip(want), "mcp_mixed");
}

// ------------------------------------------------------------------------ bad inputs

/// `toolscope build FILE`: exit code 2 and one stderr line naming the file, the place and
/// the message.
fn build_error(name: &str, bytes: &[u8], place: &str, message: &str) {
    let d = tmp();
    let p = d.join(name);
    std::fs::write(&p, bytes).unwrap();
    let o = bin()
        .args([
            "build",
            p.to_str().unwrap(),
            "-o",
            d.join("o.json").to_str().unwrap(),
            "--force",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    let err = err.trim_end();
    assert_eq!(o.status.code(), Some(2), "{name}: {err}");
    let last = err.lines().last().unwrap_or("");
    assert!(!err.contains("panicked"), "{name}: {err}");
    assert!(last.contains(name), "{name}: names the file: {last}");
    assert!(last.contains(place), "{name}: names {place:?}: {last}");
    assert!(last.contains(message), "{name}: says {message:?}: {last}");
}

/// `toolscope build FILE --quiet` succeeds; returns (graph, stderr).
fn build_ok(name: &str, bytes: &[u8]) -> (Value, String) {
    build_ok_with(name, bytes, &["--quiet"])
}

/// `toolscope build FILE ARGS` succeeds; returns (graph, stderr).
fn build_ok_with(name: &str, bytes: &[u8], args: &[&str]) -> (Value, String) {
    let d = tmp();
    let p = d.join(name);
    std::fs::write(&p, bytes).unwrap();
    let out = d.join(format!("{name}.out.json"));
    let o = bin()
        .args([
            "build",
            p.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--force",
        ])
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "{name}: {err}");
    (
        serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap(),
        err,
    )
}

const OP: &str = r#"{"responses": {"200": {"description": "ok"}}}"#;

#[test]
fn bad_inputs_give_one_line_errors() {
    build_error(
        "bad.yaml",
        b"openapi: 3.0.0\npaths:\n  /a: [\n",
        ":",
        "invalid YAML",
    );
    build_error(
        "bad.json",
        b"{\"openapi\": \"3.0.0\", \"paths\": {]}",
        ":1:",
        "invalid JSON",
    );
    build_error(
        "trunc.json",
        b"{\"openapi\": \"3.0.0\",\n\"paths\": {",
        ":2:",
        "truncated JSON",
    );
    build_error(
        "nopaths.json",
        br#"{"openapi": "3.0.0", "info": {"title": "x"}}"#,
        "/paths",
        "no \"paths\"",
    );
    build_error(
        "empty-paths.yaml",
        b"openapi: 3.1.0\npaths: {}\n",
        "/paths",
        "no operations",
    );
    build_error(
        "v4.json",
        br#"{"openapi": "4.0", "paths": {}}"#,
        "/openapi",
        "unsupported OpenAPI version",
    );
    build_error(
        "remote.json",
        r##"{"openapi": "3.0.0", "paths": {"/a": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "https://example.com/s.json#/X"}}}}}}}}}"##.as_bytes(),
        "/paths/~1a/get/responses/200/content/application~1json/schema/$ref",
        "remote $ref",
    );
    build_error(
        "latin1.yaml",
        b"openapi: 3.0.0\ninfo: {title: caf\xe9}\n",
        "2:",
        "invalid UTF-8",
    );
    build_error(
        "latin1.json",
        b"{\"openapi\": \"3.0.0\", \"info\": {\"title\": \"caf\xe9\"}, \"paths\": {}}",
        ":1:",
        "invalid UTF-8",
    );
    build_error("scalar.json", b"42", "", "not a recognised input");
    build_error("mixed.json", b"[{\"name\": 1}, 3]", "/1", "not an object");
    let deep_json = "[".repeat(10_000) + &"]".repeat(10_000);
    build_error(
        "deep.json",
        format!("{{\"openapi\": \"3.0.0\", \"paths\": {deep_json}}}").as_bytes(),
        ":1:",
        "nesting",
    );
    let deep_yaml = format!(
        "openapi: 3.0.0\npaths: {}{}\n",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    build_error("deep.yaml", deep_yaml.as_bytes(), ":", "invalid YAML");
}

#[test]
fn skippable_problems_are_warnings() {
    // duplicate operationIds: renamed like the reference, with a warning
    let spec = r#"{"openapi": "3.0.0", "info": {"title": "Dup", "version": "1"}, "paths": {"/a": {"get": {"operationId": "getThing", "responses": {"200": {"description": "ok"}}}}, "/c": {"get": {"operationId": "getThing", "responses": {"200": {"description": "ok"}}}}}}"#;
    let (g, err) = build_ok("dup.json", spec.as_bytes());
    let names: Vec<&String> = g["tools"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["getThing", "getThing__get_c"]);
    assert!(err.contains("duplicate operationId \"getThing\""), "{err}");
    assert_eq!(
        g["tools"]["getThing__get_c"]["metadata"]["openapi"]["operation_id_deduped_name"],
        "getThing__get_c"
    );
    // a $ref to nothing: warned once, left unresolved
    let spec = format!(
        r##"{{"openapi": "3.0.0", "paths": {{"/a": {{"get": {{"responses": {{"200": {{"description": "ok", "content": {{"application/json": {{"schema": {{"$ref": "#/components/schemas/Nope"}}}}}}}}}}}}}}, "/b": {{"post": {OP}}}}}}}"##
    );
    let (g, err) = build_ok("missing-ref.json", spec.as_bytes());
    assert!(err.contains("#/components/schemas/Nope"), "{err}");
    assert_eq!(g["tools"].as_object().unwrap().len(), 2);
    // ... once however many operations (and threads) meet it, with the place it first
    // appears in the file; a name with an escape in it is shown escaped, in the one style
    let mut paths = serde_json::Map::new();
    for i in 0..300 {
        let r = if i % 2 == 0 {
            "#/components/schemas/Nope"
        } else {
            "#/x\u{1b}[2J"
        };
        paths.insert(
            format!("/a{i}"),
            serde_json::json!({"get": {"operationId": format!("op{i}"), "responses": {"200": {
                "description": "ok", "content": {"application/json": {"schema": {"$ref": r}}}}}}}),
        );
    }
    let spec = serde_json::json!({"openapi": "3.0.0", "paths": paths});
    let (g, err) = build_ok("missing-refs.json", spec.to_string().as_bytes());
    assert_eq!(g["tools"].as_object().unwrap().len(), 300);
    let warned: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("points to nothing"))
        .map(|l| &l[l.find("missing-refs.json:").unwrap_or(0)..])
        .collect();
    assert_eq!(
        warned,
        [
            "missing-refs.json:/paths/~1a0/get/responses/200/content/application~1json/schema/$ref: $ref \"#/components/schemas/Nope\" points to nothing; left unresolved",
            "missing-refs.json:/paths/~1a1/get/responses/200/content/application~1json/schema/$ref: $ref \"#/x\\x1b[2J\" points to nothing; left unresolved",
        ],
        "{err}"
    );
    // a schema that refers to itself builds
    let spec = r##"{"openapi": "3.0.0", "paths": {"/n": {"get": {"operationId": "getNode", "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Node"}}}}}}}},
      "components": {"schemas": {"Node": {"type": "object", "properties": {"nodeId": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}}}}}"##;
    let (g, _) = build_ok("cyclic.json", spec.as_bytes());
    assert_eq!(
        g["tools"]["getNode"]["metadata"]["response_schema"]["properties"]["children"]["items"]["description"],
        "(circular ref: #/components/schemas/Node)"
    );
    // a huge string (8 MB description)
    let big = "x".repeat(8 << 20);
    let spec = format!(
        r#"{{"openapi": "3.0.0", "paths": {{"/a": {{"get": {{"operationId": "getA", "description": "{big}", "responses": {{"200": {{"description": "ok"}}}}}}}}}}}}"#
    );
    let (g, _) = build_ok("huge.json", spec.as_bytes());
    assert_eq!(
        g["tools"]["getA"]["description"].as_str().unwrap().len(),
        8 << 20
    );
}

/// Spec strings are untrusted and may hold any characters, control characters included: one
/// that begins like the build's internal marker of frozen subtrees (the fixed tag earlier
/// versions used, or a made-up number) is an ordinary string, written escaped — never
/// spliced into the artifact as raw JSON.
#[test]
fn spec_text_that_imitates_a_frozen_subtree_stays_text() {
    let fakes = [
        "\u{0}\u{1}toolscope-frozen-json\u{1}0\u{1}\"x\"}]}INJECTED".to_string(),
        "\u{0}\u{1}0123456789abcdef\u{1}0\u{1}{\"evil\":1".to_string(),
        "\u{0}\u{1}0123456789abcdef\u{1}0\u{1}[[[[".to_string(),
    ];
    let spec = serde_json::json!({
        "openapi": "3.0.0",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/a": {"get": {
                "operationId": "getA",
                "summary": "get a",
                "description": fakes[0],
                "parameters": [{"name": "q", "in": "query",
                    "schema": {"type": "string", "default": fakes[1]}}],
                "responses": {"200": {"description": "ok", "content": {"application/json": {
                    "schema": {"type": "object", "properties": {
                        "id": {"type": "string", "description": fakes[2]}}}}}}}
            }},
            "/b": {"post": {"operationId": "createB", "summary": "create b",
                "responses": {"201": {"description": "ok"}}}}
        }
    });
    let dir = tmp();
    std::fs::write(dir.join("imitation.json"), spec.to_string()).unwrap();
    // `build_in` parses the artifact: it must be JSON
    let g = build_in(&dir, &["imitation.json"]);
    let text = serde_json::to_string(&g).unwrap();
    for f in &fakes {
        let quoted = serde_json::to_string(f).unwrap();
        assert!(text.contains(&quoted[1..quoted.len() - 1]), "{f:?} lost");
    }
}

/// serde_json's private raw-value key (`$serde_json::private::RawValue`) is an ordinary key
/// in a spec, as in Python's json and in the same spec as YAML: it does not turn the string
/// under it into JSON (a forged schema or parameter type), nor make a valid file an error.
#[test]
fn serde_json_raw_value_key_in_a_spec_is_an_ordinary_key() {
    let key = "$serde_json::private::RawValue";
    let spec = |schema: serde_json::Value| {
        serde_json::json!({
            "openapi": "3.0.0",
            "info": {"title": "t", "version": "1"},
            "paths": {"/a": {"get": {"operationId": "getA", "summary": "get a",
                "responses": {"200": {"description": "ok",
                    "content": {"application/json": {"schema": schema}}}}}},
                "/b": {"post": {"operationId": "createB", "summary": "create b",
                "responses": {"201": {"description": "ok"}}}}}
        })
    };
    let dir = tmp();
    for (name, schema) in [
        ("rv-only.json", serde_json::json!({key: "[1]"})),
        (
            "rv-more.json",
            serde_json::json!({key: "[1]", "type": "object"}),
        ),
        (
            "rv-torn.json",
            serde_json::json!({"type": "object", "properties": {
            "x": {key: "{\"evil\":"}}}),
        ),
    ] {
        let text = spec(schema.clone()).to_string();
        std::fs::write(dir.join(name), &text).unwrap();
        let g = build_in(&dir, &[name]);
        // the key and its string are in the artifact as given
        let out = serde_json::to_string(&g).unwrap();
        assert!(out.contains(&format!("\"{key}\"")), "{name}: key lost");
        let string = serde_json::to_string(&schema).unwrap();
        let inner = &string[string.find(':').unwrap() + 1..string.len() - 1];
        assert!(
            out.contains(inner) || name == "rv-torn.json",
            "{name}: {inner} lost"
        );
        assert!(g["tools"]["getA"].is_object(), "{name}");
    }
    // the same spec as YAML builds the same graph
    let yaml_dir = tmp();
    let y = format!(
        "openapi: 3.0.0\ninfo: {{title: t, version: '1'}}\npaths:\n  /a:\n    get:\n      operationId: getA\n      summary: get a\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {{'{key}': '[1]'}}\n  /b:\n    post:\n      operationId: createB\n      summary: create b\n      responses:\n        '201': {{description: ok}}\n"
    );
    std::fs::write(yaml_dir.join("rv-only.yaml"), y).unwrap();
    let from_yaml = build_in(&yaml_dir, &["rv-only.yaml"]);
    let from_json = build_in(&dir, &["rv-only.json"]);
    let md = |g: &serde_json::Value| g["tools"]["getA"]["metadata"]["response_schema"].clone();
    assert_eq!(md(&from_yaml), md(&from_json));
    assert_eq!(md(&from_json), serde_json::json!({key: "[1]"}));
}

/// The summary line counts in words that agree with the number, and `--help` gives the
/// exit codes every command uses.
#[test]
fn the_summary_line_and_the_help_say_it_in_plain_words() {
    let spec = r#"{"openapi": "3.0.0", "paths": {"/a": {"get": {"operationId": "getA", "responses": {"200": {"description": "ok"}}}}}}"#;
    let (g, err) = build_ok_with("one.json", spec.as_bytes(), &[]);
    assert_eq!(g["tools"].as_object().unwrap().len(), 1);
    assert!(err.contains("built 1 tool, 0 edges in "), "{err}");
    assert!(
        err.contains(", 1 tool from 1 operation in the specs"),
        "{err}"
    );
    assert!(
        err.contains("graph: 0 edges, 0 producer edges, 1 orphan tool\n"),
        "{err}"
    );
    let help = bin().arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains("Exit codes: 0 ok; 1 ran but found nothing"),
        "{help}"
    );
}
