//! The Follow classifier's fast path (`lab::record::skim`: the line walked, evidence
//! checked and skipped, only what a classification shows built) against the whole parse
//! it stands in for (`classify_line_whole`: the line parsed into a `serde_json::Value`):
//! the entries — class, basis, rank, reason codes, ids, query, parameters and unknown
//! parameters, tools, or the unreadable line's reason and line number — are equal over
//! every fixture under `tests/fixtures` and `tests/golden` (reference trace envelopes,
//! golden cases), the shared golden cases when present, batch outputs, logged responses
//! and lab fixtures made from the golden cases on the demo graph, and over hostile lines:
//! torn, not JSON, unknown kinds, unsupported schema versions, every field of each shape
//! replaced by values of other types or removed, repeated keys, keys and strings written
//! with escapes, unpaired surrogates, numbers out of range, deep nesting, serde_json's
//! raw-value marker, and random combinations of these (proptest). The real records must
//! take the fast path (else it proves nothing).

mod common;

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use toolscope::engine::{Engine, Params, SelectParams};
use toolscope::lab::follow::{At, classify_line, classify_line_whole};
use toolscope::lab::record::skim;

fn at() -> At {
    At {
        seq: 7,
        file_gen: 1,
        line: 7,
        offset: 700,
        at_ms: 0,
    }
}

/// Lines compared; of them, the JSON objects, and how many of those the fast path took.
#[derive(Default, Debug)]
struct Tally {
    lines: usize,
    objects: usize,
    fast: usize,
}

impl Tally {
    fn same(&mut self, line: &str, what: &str) {
        let fast = classify_line(None, line, true, at());
        let whole = classify_line_whole(None, line, true, at());
        assert_eq!(fast, whole, "{what}: {line:.400}");
        self.lines += 1;
        if matches!(serde_json::from_str(line), Ok(Value::Object(_))) {
            self.objects += 1;
            self.fast += usize::from(skim::value(line).is_some());
        }
    }
}

fn read_text(p: &Path) -> Option<String> {
    let bytes = std::fs::read(p).ok()?;
    let name = p.display().to_string();
    let bytes = if name.ends_with(".gz") {
        toolscope::limits::gunzip(&name, bytes).ok()?
    } else {
        bytes
    };
    String::from_utf8(bytes).ok()
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Every line of `text`, the whole text when it is one JSON document over several lines,
/// each item of a list document, and each record pretty-printed (whitespace everywhere).
fn compare_text(text: &str, what: &str, t: &mut Tally) {
    for (n, line) in text.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        t.same(line, &format!("{what}:{}", n + 1));
        if let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(line)
            && line.len() < 200_000
        {
            t.same(
                &serde_json::to_string_pretty(&v).unwrap(),
                &format!("{what}:{} pretty", n + 1),
            );
        }
    }
    if text.trim().lines().count() > 1 {
        t.same(text, &format!("{what} (whole)"));
    }
    if let Ok(Value::Array(items)) = serde_json::from_str::<Value>(text) {
        for (k, x) in items.iter().enumerate() {
            t.same(&x.to_string(), &format!("{what}[{k}]"));
        }
    }
}

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn demo_engine() -> Engine {
    Engine::new(toolscope::demo::load_demo().unwrap())
}

/// The demo's golden cases (lines).
fn demo_cases() -> Vec<String> {
    read_text(&manifest().join("tests/golden/demo.jsonl.gz"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(String::from)
        .collect()
}

/// What a service logs per request (as `scripts/bench-follow.sh` makes them): rows with
/// names, scores and breakdowns, the selector's verdict, the parameters.
fn response(i: usize, batch: &Value) -> String {
    let sel = &batch["selection"];
    let rows: Vec<Value> = batch["retrieval"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| json!({"name": r["name"], "score": r["score"], "score_breakdown": r["score_breakdown"]}))
        .collect();
    let mut block = Map::new();
    for k in [
        "selected_target",
        "llm_target",
        "overrode_llm",
        "ambiguous",
        "reason_codes",
    ] {
        block.insert(k.into(), sel.get(k).cloned().unwrap_or(Value::Null));
    }
    json!({"id": format!("req-{i}"), "query": batch["query"], "params": {"top_k": 10, "depth": 2},
           "results": rows, "target_selector": block})
    .to_string()
}

#[test]
fn every_fixture_reads_the_same_on_both_paths() {
    let mut files = Vec::new();
    files_under(&manifest().join("tests/fixtures"), &mut files);
    files_under(&manifest().join("tests/golden"), &mut files);
    assert!(files.len() > 100, "{} fixture files", files.len());
    let mut t = Tally::default();
    let mut envelopes = Tally::default();
    for f in &files {
        let Some(text) = read_text(f) else { continue };
        let what = f.strip_prefix(manifest()).unwrap().display().to_string();
        if what.contains("traces") {
            compare_text(&text, &what, &mut envelopes);
        } else {
            compare_text(&text, &what, &mut t);
        }
    }
    // the reference envelopes (and their pretty forms) all take the fast path
    assert!(envelopes.objects > 1000, "{envelopes:?}");
    assert_eq!(envelopes.fast, envelopes.objects, "{envelopes:?}");
    assert!(t.lines > 1000, "{t:?}");
    eprintln!("fixtures: {t:?}; trace envelopes: {envelopes:?}");
}

#[test]
fn shared_golden_cases_read_the_same_on_both_paths() {
    let Some(g) = common::shared_golden("shared_golden_cases_read_the_same_on_both_paths") else {
        return;
    };
    let mut files = Vec::new();
    files_under(&g.join("cases"), &mut files);
    let mut t = Tally::default();
    for f in &files {
        let text = read_text(f).unwrap();
        for (n, line) in text.lines().filter(|l| !l.trim().is_empty()).enumerate() {
            t.same(line, &format!("{}:{}", f.display(), n + 1));
        }
    }
    assert_eq!(t.objects, 3059);
    assert_eq!(t.fast, t.objects, "every golden case takes the fast path");
}

#[test]
fn batch_outputs_responses_and_lab_fixtures_read_the_same_on_both_paths() {
    let engine = demo_engine();
    let mut batch = Tally::default();
    let mut responses = Tally::default();
    let mut fixtures = Tally::default();
    for (i, case) in demo_cases().iter().enumerate() {
        let out = toolscope::output::batch::batch_line(&engine, case).unwrap();
        batch.same(&out, &format!("batch line {i}"));
        let b: Value = serde_json::from_str(&out).unwrap();
        responses.same(&response(i, &b), &format!("response {i}"));
        let c: Value = serde_json::from_str(case).unwrap();
        let expected: Vec<String> = c["expected"]["selection"]["selected_target"]
            .as_str()
            .map(|s| vec![s.to_string()])
            .unwrap_or_default();
        let params = Params {
            top_k: c["params"]["top_k"].as_u64().unwrap_or(5) as usize,
            ..Params::default()
        };
        let fx = toolscope::lab::fixture::fixture_json(
            &engine,
            &format!("case-{i}"),
            c["query"].as_str().unwrap(),
            false,
            &expected,
            &params,
            &SelectParams::default(),
        );
        fixtures.same(&fx, &format!("lab fixture {i}"));
    }
    for t in [&batch, &responses, &fixtures] {
        assert_eq!(t.objects, 285, "{t:?}");
        assert_eq!(t.fast, t.objects, "{t:?}");
    }
}

// ---- hostile lines ----

/// Raw JSON texts put in place of a value: other types, the values the reader tells apart,
/// and what a value parse refuses that a skip takes.
fn alternatives() -> Vec<String> {
    let mut v: Vec<String> = [
        "null",
        "true",
        "false",
        "0",
        "1",
        "-1",
        "2.5",
        "1.0",
        "-0",
        "18446744073709551616",
        "\"\"",
        "\"x\"",
        "\"ranked\"",
        "\"selected\"",
        "\"retrieval\"",
        "\"target_selection\"",
        "\"1.0\"",
        "\"[REDACTED]\"",
        "[]",
        "{}",
        "[\"x\"]",
        "[1]",
        "{\"a\":1}",
        "{\"name\":\"x\"}",
        "1e400",
        "-1e400",
        "1e-400",
        "\"\\ud800\"",
        "\"\\udc00x\"",
        "\"\\ud83d\\ude00\"",
        "\"a\\u0000b\"",
        "{\"$serde_json::private::RawValue\":\"1\"}",
        "{\"$serde_json::private::RawValue\":\"[\"}",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.push(format!("{}1{}", "[".repeat(130), "]".repeat(130)));
    v.push(format!("{}1{}", "[".repeat(118), "]".repeat(118)));
    v.push(format!(
        "{}{}",
        "{\"a\":".repeat(125),
        "1".to_string() + &"}".repeat(125)
    ));
    v.push(format!("1{}", "0".repeat(320)));
    v.push(format!("1{}", "0".repeat(308)));
    v.push(format!("-{}", "9".repeat(308)));
    for n in [
        "1e308",
        "2e308",
        "1.7976931348623157e308",
        "1.7976931348623159e308",
        "1e-99999",
    ] {
        v.push(n.to_string());
    }
    v
}

const MARK: &str = "@@skim-mark@@";

/// Every path of `v` (JSON pointers), parents before children.
fn paths(v: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                paths(
                    x,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                paths(x, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// `v` with the value at `path` written as `raw`.
fn with_raw(v: &Value, path: &str, raw: &str) -> String {
    let mut w = v.clone();
    *w.pointer_mut(path).unwrap() = Value::String(MARK.into());
    w.to_string().replacen(&format!("\"{MARK}\""), raw, 1)
}

/// The object at `path` written member by member as `f` says (key text, value text).
fn object_as(v: &Value, path: &str, f: impl Fn(&str, &Value) -> Vec<(String, String)>) -> String {
    let Some(Value::Object(m)) = v.pointer(path) else {
        unreachable!()
    };
    let members: Vec<String> = m
        .iter()
        .flat_map(|(k, x)| f(k, x))
        .map(|(k, x)| format!("{k}:{x}"))
        .collect();
    with_raw(v, path, &format!("{{{}}}", members.join(",")))
}

/// A string as JSON with every character escaped (`\uXXXX`, surrogate pairs above the
/// basic plane).
fn escaped(s: &str) -> String {
    let mut out = String::from("\"");
    for u in s.encode_utf16() {
        out.push_str(&format!("\\u{u:04x}"));
    }
    out + "\""
}

/// Every mutation of one field of `seed`: each path replaced by each alternative (for the
/// first two items of a list; every other item gets the refused ones only),
/// each key removed, repeated before and after with another value, and written with
/// escapes.
fn mutations(seed: &Value) -> Vec<String> {
    let alts = alternatives();
    let refused: Vec<&String> = alts
        .iter()
        .filter(|a| serde_json::from_str::<Value>(a).is_err() || a.contains("RawValue"))
        .collect();
    let mut all = Vec::new();
    paths(seed, String::new(), &mut all);
    let mut out = Vec::new();
    for p in &all {
        // the third and fourth items of a list, and what lies deep in evidence, get the
        // refused alternatives only
        let minor = p
            .split('/')
            .any(|part| part.parse::<usize>().is_ok_and(|i| i >= 2))
            || p.matches('/').count() >= 7 && !p.contains("score_breakdown");
        let these: Vec<&String> = if minor {
            refused.clone()
        } else {
            alts.iter().collect()
        };
        for a in these {
            out.push(with_raw(seed, p, a));
        }
        if let Some(Value::Object(m)) = seed.pointer(p) {
            if minor {
                continue;
            }
            for k in m.keys() {
                let key = |k: &str| serde_json::to_string(k).unwrap();
                for other in ["null", "\"x\"", "1", "[]", "{}"] {
                    for before in [true, false] {
                        out.push(object_as(seed, p, |kk, x| {
                            let mine = (key(kk), x.to_string());
                            if kk != k {
                                return vec![mine];
                            }
                            let dup = (key(kk), other.to_string());
                            if before {
                                vec![dup, mine]
                            } else {
                                vec![mine, dup]
                            }
                        }));
                    }
                }
                out.push(object_as(seed, p, |kk, x| {
                    if kk == k {
                        vec![]
                    } else {
                        vec![(key(kk), x.to_string())]
                    }
                }));
                out.push(object_as(seed, p, |kk, x| {
                    let name = if kk == k { escaped(kk) } else { key(kk) };
                    vec![(name, x.to_string())]
                }));
            }
        }
    }
    out
}

/// The seeds: one record of each shape.
fn seeds() -> Vec<(String, Value)> {
    let traces = manifest().join("tests/fixtures/traces");
    // the demo's first envelope, three decisions to a span (ranked ones, the selected one
    // and others)
    let mut one: Value =
        serde_json::from_str(&read_text(&traces.join("demo-one.json")).unwrap()).unwrap();
    for span in one["spans"].as_array_mut().unwrap() {
        span["decisions"].as_array_mut().unwrap().truncate(3);
    }
    let engine = demo_engine();
    let case = &demo_cases()[3];
    let batch: Value =
        serde_json::from_str(&toolscope::output::batch::batch_line(&engine, case).unwrap())
            .unwrap();
    let resp: Value = serde_json::from_str(&response(0, &batch)).unwrap();
    // a golden case, its rows cut to three (the tool definitions are long)
    let mut golden: Value = serde_json::from_str(case).unwrap();
    if let Some(Value::Array(r)) = golden.pointer_mut("/expected/retrieval/results") {
        r.truncate(3);
        for row in r.iter_mut() {
            row["tool"] = json!({"name": row["name"], "description": "d"});
        }
    }
    let mut batch_short = batch.clone();
    if let Some(Value::Array(r)) = batch_short.pointer_mut("/retrieval/results") {
        r.truncate(3);
        for row in r.iter_mut() {
            row["tool"] = json!({"name": row["name"], "description": "d"});
        }
    }
    batch_short["subgraph_text"] = json!("…");
    let fixture = json!({"case_id": "c3", "query": "approve refund", "expected_target": "getRefund",
        "actual_top_3": [{"name": "listRefunds", "rank": 1}],
        "ranking": [{"name": "getRefund", "rank": 1, "score": 1.0}, {"name": "listRefunds", "rank": 2}],
        "target_selector": {"selected_target": "getRefund", "ambiguous": false},
        "provenance": {"params": {"top_k": 3, "llm_target": "x"}, "engine_profile": "p"}});
    let block = json!({"selected_target": "getRefund", "llm_target": "listRefunds", "overrode_llm": true,
        "ambiguous": false, "reason_codes": ["override_margin_met"], "policy": "strong_evidence",
        "rank_signals": [{"name": "listRefunds", "original_rank": 2, "retrieval_score": 0.5},
                         {"name": "getRefund", "original_rank": 1, "retrieval_score": 1.0}]});
    vec![
        ("envelope".into(), one),
        ("response".into(), resp),
        ("batch line".into(), batch_short),
        ("golden case".into(), golden),
        ("fixture".into(), fixture),
        ("selector block".into(), block),
    ]
}

#[test]
fn hostile_lines_read_the_same_on_both_paths() {
    let mut t = Tally::default();
    for line in [
        "",
        "hello",
        "{",
        "}",
        "nul",
        "[1,2",
        "{\"a\":1}}",
        "{\"a\":1} x",
        "{\"x\":1}",
        "[]",
        "[{\"results\":[\"a\"]}]",
        "\"results\"",
        "1",
        "{\"schema_version\":\"9.9\",\"spans\":[]}",
        "{\"schema_version\":2,\"trace_id\":\"t\"}",
        "{\"schema_version\":null,\"spans\":[]}",
        "{\"trace_id\":\"t\",\"spans\":[]}",
        "{\"schema_version\":\"1.0\",\"trace_id\":\"t\"}",
        "{\"schema_version\":\"1.0\",\"spans\":{}}",
        "\u{feff}{\"results\":[\"a\"]}",
        "{\"results\":[\"a\"]}\r",
        " \t{\"results\" : [ \"a\" , \"b\" ] }\t ",
    ] {
        t.same(line, "literal");
    }
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    for n in [126, 127, 128, 129] {
        t.same(&deep(n), "deep list");
        let obj = format!("{{\"results\":[\"a\"],\"x\":{}}}", deep(n - 1));
        t.same(&obj, "deep under a dropped key");
        let kept = format!("{{\"results\":[\"a\"],\"params\":{}}}", deep(n - 1));
        t.same(&kept, "deep under a kept key");
    }
    let bytes = classify_line(None, "x", false, at());
    assert_eq!(bytes, classify_line_whole(None, "x", false, at()));
    for (name, seed) in seeds() {
        let text = seed.to_string();
        t.same(&text, &name);
        assert!(skim::value(&text).is_some(), "{name} takes the fast path");
        // torn: cut anywhere (every 7th byte, at a character boundary)
        for cut in (0..text.len()).step_by(7) {
            if text.is_char_boundary(cut) {
                t.same(&text[..cut], &format!("{name} torn at {cut}"));
            }
        }
        // every string written with escapes, keys included
        let all_escaped = escape_all(&seed);
        t.same(&all_escaped, &format!("{name} escaped"));
        for line in mutations(&seed) {
            t.same(&line, &format!("{name} mutated"));
        }
    }
    eprintln!("hostile: {t:?}");
    assert!(t.lines > 10_000, "{t:?}");
}

/// `v` as JSON with every character of every key and string escaped.
fn escape_all(v: &Value) -> String {
    match v {
        Value::String(s) => escaped(s),
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(escape_all).collect::<Vec<_>>().join(",")
        ),
        Value::Object(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, x)| format!("{}:{}", escaped(k), escape_all(x)))
                .collect::<Vec<_>>()
                .join(",")
        ),
        x => x.to_string(),
    }
}

/// Keys the readers tell apart, to rename a key into.
const KEYS: [&str; 24] = [
    "name",
    "tool",
    "rank",
    "score",
    "score_breakdown",
    "subject",
    "outcome",
    "rank_after",
    "reason_codes",
    "evidence",
    "stage",
    "decisions",
    "attributes",
    "spans",
    "results",
    "ranking",
    "retrieval",
    "expected",
    "selection",
    "target_selector",
    "selected_target",
    "schema_version",
    "trace_id",
    "query",
];

/// One change to a record: a value replaced (by an alternative that is JSON), a key
/// removed or renamed, two list items swapped.
#[derive(Debug, Clone)]
enum Change {
    Replace(usize, usize),
    Remove(usize),
    Rename(usize, usize),
    Swap(usize),
}

fn apply(v: &mut Value, change: &Change) {
    let mut all = Vec::new();
    paths(v, String::new(), &mut all);
    let alts: Vec<Value> = alternatives()
        .iter()
        .filter_map(|a| serde_json::from_str(a).ok())
        .collect();
    let pick = |i: usize| all[i % all.len()].clone();
    match change {
        Change::Replace(p, a) => {
            *v.pointer_mut(&pick(*p)).unwrap() = alts[a % alts.len()].clone();
        }
        Change::Remove(p) | Change::Rename(p, _) => {
            let p = pick(*p);
            let Some((parent, key)) = p.rsplit_once('/') else {
                return;
            };
            let key = key.replace("~1", "/").replace("~0", "~");
            if let Some(Value::Object(m)) = v.pointer_mut(parent)
                && let Some(x) = m.shift_remove(&key)
                && let Change::Rename(_, k) = change
            {
                m.insert(KEYS[k % KEYS.len()].into(), x);
            }
        }
        Change::Swap(p) => {
            if let Some(Value::Array(a)) = v.pointer_mut(&pick(*p))
                && a.len() > 1
            {
                let last = a.len() - 1;
                a.swap(0, last);
            }
        }
    }
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        (any::<usize>(), any::<usize>()).prop_map(|(p, a)| Change::Replace(p, a)),
        any::<usize>().prop_map(Change::Remove),
        (any::<usize>(), any::<usize>()).prop_map(|(p, k)| Change::Rename(p, k)),
        any::<usize>().prop_map(Change::Swap),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_changes_read_the_same_on_both_paths(
        seed in 0usize..6,
        changes in proptest::collection::vec(change(), 1..5),
        raw in proptest::option::of((any::<usize>(), any::<usize>())),
    ) {
        let seeds = seeds_once();
        let mut v = seeds[seed].1.clone();
        for c in &changes {
            apply(&mut v, c);
        }
        let mut line = v.to_string();
        if let Some((p, a)) = raw {
            // one raw text in place of a value (those a value parse refuses included)
            let mut all = Vec::new();
            paths(&v, String::new(), &mut all);
            let alts = alternatives();
            line = with_raw(&v, &all[p % all.len()], &alts[a % alts.len()]);
        }
        let fast = classify_line(None, &line, true, at());
        let whole = classify_line_whole(None, &line, true, at());
        prop_assert_eq!(fast, whole, "{:?}: {:.400}", changes, line);
    }
}

fn seeds_once() -> &'static [(String, Value)] {
    static SEEDS: std::sync::OnceLock<Vec<(String, Value)>> = std::sync::OnceLock::new();
    SEEDS.get_or_init(seeds)
}
