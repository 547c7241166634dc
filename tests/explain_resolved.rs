//! Every reported score of every golden case explains with a `resolved` tree: the tree's
//! root equals the reported (rounded) value and every node's combination adds up.

mod common;

use serde::Deserialize;
use serde_json::Value;
use std::path::Path;
use toolscope::engine::explain::{
    RowMetric, Status, explain_confidence, explain_margin, explain_row,
};
use toolscope::engine::{Engine, Params, SelectParams};
use toolscope::model::load::{load_graph_file, maybe_gunzip};

#[derive(Deserialize)]
struct Case {
    id: String,
    query: String,
    params: P,
    selector: Option<S>,
}
#[derive(Deserialize)]
struct P {
    top_k: usize,
    depth: usize,
    token_budget: usize,
    history: Vec<String>,
    #[serde(default)]
    learning_suggestions: Vec<Value>,
}
#[derive(Deserialize)]
struct S {
    llm_target: Option<String>,
    policy: String,
}

/// Returns (trees checked, resolved, failures).
fn check_file(engine: &Engine, cases: &Path) -> (usize, usize, Vec<String>) {
    let bytes = maybe_gunzip("cases", std::fs::read(cases).unwrap()).unwrap();
    let text = String::from_utf8(bytes).unwrap();
    let (mut n, mut ok) = (0, 0);
    let mut bad = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let c: Case = serde_json::from_str(line).unwrap();
        let params = Params {
            top_k: c.params.top_k,
            depth: c.params.depth,
            token_budget: c.params.token_budget,
            history: c.params.history,
            learning_suggestions: c.params.learning_suggestions,
            ..Params::default()
        };
        let r = engine.retrieve(&c.query, &params);
        let mut trees = Vec::new();
        for row in r.rows.iter().take(10) {
            for m in [RowMetric::Score, RowMetric::Seed, RowMetric::Graph] {
                trees.push((
                    format!("{} {m:?}", row.name),
                    explain_row(engine, &r, &row.name, m),
                ));
            }
        }
        if let Some(s) = c.selector {
            let sel = engine.select(
                &r,
                &SelectParams {
                    llm_target: s.llm_target,
                    policy: s.policy.into(),
                },
            );
            trees.push(("confidence".into(), explain_confidence(&sel)));
            if !sel.no_candidates {
                trees.push(("margin".into(), explain_margin(&sel, false)));
            }
            if sel.llm_margin.is_some() {
                trees.push(("llm_margin".into(), explain_margin(&sel, true)));
            }
        }
        for (what, t) in trees {
            n += 1;
            match t {
                None => bad.push(format!("{}: {what}: no explanation", c.id)),
                Some(t) => {
                    let (st, errs) = t.check();
                    if st == Status::Resolved {
                        ok += 1;
                    } else if bad.len() < 10 {
                        bad.push(format!("{}: {what}: {} {errs:?}", c.id, st.as_str()));
                    }
                }
            }
        }
    }
    (n, ok, bad)
}

#[test]
fn project_golden_scores_explain_resolved() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let demo = Engine::new(toolscope::demo::load_demo().unwrap());
    let edgy = Engine::new(load_graph_file(&root.join("tests/fixtures/edgy.json")).unwrap());
    for (engine, file) in [
        (&demo, "tests/golden/demo.jsonl.gz"),
        (&edgy, "tests/golden/edgy.jsonl.gz"),
    ] {
        let (n, ok, bad) = check_file(engine, &root.join(file));
        println!("{file}: {ok}/{n} explanation trees resolved");
        assert_eq!(ok, n, "{bad:#?}");
    }
}

#[test]
fn shared_golden_scores_explain_resolved() {
    let Some(dir) = common::shared_golden("shared_golden_scores_explain_resolved") else {
        return;
    };
    let (mut n, mut ok) = (0, 0);
    let mut bad = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(dir.join("cases"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for f in files {
        let name = f.file_stem().unwrap().to_string_lossy().to_string();
        let engine =
            Engine::new(load_graph_file(&dir.join("graphs").join(format!("{name}.json"))).unwrap());
        let (a, b, c) = check_file(&engine, &f);
        n += a;
        ok += b;
        bad.extend(c);
    }
    println!("shared golden: {ok}/{n} explanation trees resolved");
    assert_eq!(ok, n, "{bad:#?}");
}
