//! Regression fixtures in the seed's shape: capture (scrubbed) and check (replay).

use serde_json::{Value, json};
use std::path::{Path, PathBuf};

use super::record::RunRecord;
use super::scrub::{needs_scrub, scrub_str};
use super::suite::Suite;
use crate::engine::{Engine, PROFILE, Params, REGISTRY_VERSION, SelectParams};
use crate::jsonout::JsonWriter;

/// One fixture as written (and read back).
pub fn fixture_json(
    engine: &Engine,
    case_id: &str,
    query: &str,
    scrubbed: bool,
    expected: &[String],
    params: &Params,
    sel: &SelectParams,
) -> String {
    let r = engine.retrieve(query, params);
    let s = engine.select(&r, sel);
    let rec = RunRecord::from_run(case_id, &r, Some(&s));
    let mut w = JsonWriter::new();
    w.begin_obj();
    w.key("case_id").str(&scrub_str(case_id));
    w.key("query").str(query);
    w.key("query_fingerprint")
        .str(&crate::engine::learning::fingerprint(query));
    w.key("query_scrubbed").bool(scrubbed);
    w.key("expected_target")
        .opt_str(expected.first().map(|e| e.as_str()));
    w.key("expected_tools").str_list(expected);
    w.key("top_k").int(params.top_k as i64);
    let write_rows = |w: &mut JsonWriter, n: usize| {
        w.begin_arr();
        for row in rec.rows.iter().take(n) {
            w.begin_obj();
            w.key("name").str(&row.name);
            w.key("rank").int(row.rank as i64);
            w.key("score").opt_f64(row.score);
            w.key("score_breakdown")
                .value(&Value::Object(row.breakdown.clone()));
            w.end_obj();
        }
        w.end_arr();
    };
    w.key("actual_top_3");
    write_rows(&mut w, 3);
    w.key("ranking");
    write_rows(&mut w, usize::MAX);
    w.key("target_selector").begin_obj();
    w.key("selected_target").str(&s.selected_target);
    w.key("llm_target").opt_str(s.llm_target.as_deref());
    w.key("overrode_llm").bool(s.overrode_llm);
    w.key("ambiguous").bool(s.ambiguous);
    w.key("reason_codes").str_list(&s.reason_codes);
    w.end_obj();
    let ids: Vec<String> = r
        .signals
        .iter()
        .map(|l| crate::pytext::py_str(&l.suggestion_id))
        .collect();
    w.key("learning_suggestion_ids").str_list(&ids);
    w.key("provenance").begin_obj();
    w.key("graph_fingerprint")
        .str(&format!("sha256:{}", engine.graph.fingerprint()));
    w.key("engine_profile").str(PROFILE);
    w.key("registry_version").str(REGISTRY_VERSION);
    w.key("toolscope_version").str(env!("CARGO_PKG_VERSION"));
    w.key("params").value(&json!({
        "top_k": params.top_k, "depth": params.depth, "token_budget": params.token_budget,
        "history": params.history.iter().map(|h| scrub_str(h)).collect::<Vec<_>>(),
        "llm_target": sel.llm_target, "policy": sel.policy,
    }));
    w.end_obj();
    w.end_obj();
    let v: Value = serde_json::from_str(&w.finish()).expect("fixture JSON");
    serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
}

fn file_name(case_id: &str) -> String {
    let mut s: String = scrub_str(case_id)
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    s.truncate(120);
    if s.is_empty() {
        s = "case".into();
    }
    format!("{s}.json")
}

/// Outcome of a capture.
#[derive(Debug, Default)]
pub struct CaptureReport {
    pub written: Vec<PathBuf>,
    pub skipped_existing: Vec<PathBuf>,
    pub warnings: Vec<String>,
}

/// Captures every case of a suite into `dir`: one fixture per case plus `manifest.json`.
/// Queries are scrubbed before they are run, so a fixture replays exactly what it stores.
pub fn capture(
    engine: &Engine,
    suite: &Suite,
    dir: &Path,
    params: &Params,
    sel: &SelectParams,
    force: bool,
) -> std::io::Result<CaptureReport> {
    std::fs::create_dir_all(dir)?;
    let mut rep = CaptureReport::default();
    let mut used = std::collections::HashSet::new();
    for c in &suite.cases {
        for e in &c.expected {
            if engine.graph.tool_id(e).is_none() {
                rep.warnings.push(format!(
                    "case {}: expected tool {e:?} is not in the graph",
                    scrub_str(&c.id)
                ));
            }
        }
        let scrubbed = needs_scrub(&c.query);
        let query = scrub_str(&c.query);
        let mut p = params.clone();
        if let Some(k) = c.top_k {
            p.top_k = k;
        }
        let mut name = file_name(&c.id);
        let mut n = 2;
        while !used.insert(name.clone()) {
            name = file_name(&format!("{}-{n}", c.id));
            n += 1;
        }
        let path = dir.join(&name);
        if path.exists() && !force {
            rep.skipped_existing.push(path);
            continue;
        }
        std::fs::write(
            &path,
            fixture_json(engine, &c.id, &query, scrubbed, &c.expected, &p, sel),
        )?;
        rep.written.push(path);
    }
    let manifest = dir.join("manifest.json");
    if !manifest.exists() || force {
        let m = json!({
            "kind": "toolscope regression fixtures",
            "suite": suite.name,
            "cases": suite.cases.len(),
            "graph_source": engine.graph.info.source,
            "graph_fingerprint": format!("sha256:{}", engine.graph.fingerprint()),
            "engine_profile": PROFILE,
            "toolscope_version": env!("CARGO_PKG_VERSION"),
            "scrubbing": "queries, ids and history scrubbed of secrets, credentials and personal data; no request or response bodies are stored",
        });
        std::fs::write(
            &manifest,
            serde_json::to_string_pretty(&m).unwrap_or_default() + "\n",
        )?;
    }
    Ok(rep)
}

/// The result of replaying one fixture.
#[derive(Debug, Clone)]
pub struct CheckResult {
    pub file: PathBuf,
    pub case_id: String,
    pub differences: Vec<String>,
}

impl CheckResult {
    pub fn passed(&self) -> bool {
        self.differences.is_empty()
    }
}

/// Replays fixtures. Unreadable files are reported in the second list.
pub fn check(engine: &Engine, dir: &Path) -> std::io::Result<(Vec<CheckResult>, Vec<String>)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "json")
                && p.file_name().is_some_and(|n| n != "manifest.json")
        })
        .collect();
    files.sort();
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for f in files {
        let text = match std::fs::read_to_string(&f) {
            Ok(t) => t,
            Err(e) => {
                errors.push(format!("{}: {e}", f.display()));
                continue;
            }
        };
        let v: Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                errors.push(
                    crate::model::load::json_error(&f.display().to_string(), &e, "").to_string(),
                );
                continue;
            }
        };
        let Some(want) = RunRecord::from_json(&v, "?") else {
            errors.push(format!(
                "{}: not a fixture (no ranking and no target_selector)",
                f.display()
            ));
            continue;
        };
        let Some(query) = want.query.clone() else {
            errors.push(format!(
                "{}: the fixture has no query to replay",
                f.display()
            ));
            continue;
        };
        let pv = v
            .get("provenance")
            .and_then(|p| p.get("params"))
            .cloned()
            .unwrap_or(Value::Null);
        let d = Params::default();
        let params = Params {
            top_k: pv
                .get("top_k")
                .and_then(Value::as_u64)
                .map(|x| x as usize)
                .or(v.get("top_k").and_then(Value::as_u64).map(|x| x as usize))
                .unwrap_or(d.top_k),
            depth: pv
                .get("depth")
                .and_then(Value::as_u64)
                .map(|x| x as usize)
                .unwrap_or(d.depth),
            token_budget: pv
                .get("token_budget")
                .and_then(Value::as_u64)
                .map(|x| x as usize)
                .unwrap_or(d.token_budget),
            history: pv
                .get("history")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default(),
            ..d
        };
        let sel = SelectParams {
            llm_target: pv
                .get("llm_target")
                .and_then(Value::as_str)
                .map(String::from),
            policy: pv
                .get("policy")
                .and_then(Value::as_str)
                .unwrap_or("strong_evidence")
                .to_string(),
        };
        let r = engine.retrieve(&query, &params);
        let s = engine.select(&r, &sel);
        let got = RunRecord::from_run(&want.id, &r, Some(&s));
        out.push(CheckResult {
            file: f,
            case_id: want.id.clone(),
            differences: differences(&want, &got),
        });
    }
    Ok((out, errors))
}

/// What differs between a stored record and a replay (rows present in the stored record).
pub fn differences(want: &RunRecord, got: &RunRecord) -> Vec<String> {
    let mut d = Vec::new();
    for w in &want.rows {
        match got.rows.iter().find(|g| g.name == w.name) {
            None => d.push(format!("{} (rank {}) is no longer ranked", w.name, w.rank)),
            Some(g) => {
                if g.rank != w.rank {
                    d.push(format!(
                        "{} moved from rank {} to {}",
                        w.name, w.rank, g.rank
                    ));
                }
                if let (Some(a), Some(b)) = (w.score, g.score)
                    && a != b
                {
                    d.push(format!("{} score {a} -> {b}", w.name));
                }
                for (k, v) in &w.breakdown {
                    if let Some(gv) = g.breakdown.get(k)
                        && gv != v
                    {
                        d.push(format!("{} score_breakdown.{k} {v} -> {gv}", w.name));
                    }
                }
            }
        }
    }
    let n = want.rows.len();
    for g in got.rows.iter().take(n) {
        if !want.rows.iter().any(|w| w.name == g.name) {
            d.push(format!("{} entered at rank {}", g.name, g.rank));
        }
    }
    if want.selected_target.is_some() && want.selected_target != got.selected_target {
        d.push(format!(
            "selected target {} -> {}",
            want.selected_target.as_deref().unwrap_or("-"),
            got.selected_target.as_deref().unwrap_or("-")
        ));
    }
    if want.selected_target.is_some() && want.reason_codes != got.reason_codes {
        d.push(format!(
            "reason codes [{}] -> [{}]",
            want.reason_codes.join(", "),
            got.reason_codes.join(", ")
        ));
    }
    d
}
