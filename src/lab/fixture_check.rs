//! `lab check`: validate a fixture folder against the schema [`super::fixture`] writes, then
//! replay every fixture and report what differs.
//!
//! Validation comes first and is strict, so a corrupt or tampered fixture cannot pass by
//! saying less: the folder has a toolscope manifest that lists exactly its fixtures and was
//! captured against this graph (unless `--any-graph`); every fixture has its case id, query,
//! `top_k` within the limit, a ranking whose rows are numbered 1, 2, … in order, an
//! `actual_top_3` equal to the ranking's head, a complete selector block and provenance
//! whose parameters agree with the fixture. Anything else is an error naming the file and
//! the JSON pointer. The replay then compares the whole ranking (length, order, scores,
//! breakdowns) and the whole selector block.

use serde_json::Value;
use std::path::{Path, PathBuf};

use super::fixture::{MANIFEST, MANIFEST_KIND};
use super::record::{RunRecord, folder_files};
use crate::engine::{Engine, Params, SelectParams};
use crate::error::InputError;
use crate::limits;

/// The result of replaying one fixture.
#[derive(Debug, Clone)]
pub struct CheckResult {
    pub file: PathBuf,
    pub case_id: String,
    pub differences: Vec<String>,
    /// How long the replay took (retrieval, selection and comparison), in seconds.
    pub seconds: f64,
}

impl CheckResult {
    pub fn passed(&self) -> bool {
        self.differences.is_empty()
    }
}

/// Everything `lab check` found.
#[derive(Debug, Default)]
pub struct CheckReport {
    pub results: Vec<CheckResult>,
    /// Fixtures or manifest entries that are not valid (nothing was replayed for them).
    pub invalid: Vec<InputError>,
    /// Things worth saying that are not failures (a replay on another graph).
    pub notes: Vec<String>,
}

/// A fixture that passed validation: what to run and what it recorded.
struct Fixture {
    case_id: String,
    query: String,
    params: Params,
    select: SelectParams,
    want: RunRecord,
}

/// Reads a JSON file within the limits: errors name the file and the place.
fn read_json(path: &Path) -> Result<Value, InputError> {
    let shown = limits::shown(path);
    let bytes = limits::read_file(path)?;
    let text = crate::model::load::into_text(&shown, bytes)?;
    crate::jsonin::from_str(&text).map_err(|e| crate::model::load::json_error(&shown, &e, ""))
}

/// A typed view of one field, with errors at its pointer.
struct At<'a> {
    file: &'a str,
    v: &'a Value,
}

impl<'a> At<'a> {
    fn err(&self, pointer: &str, message: impl Into<String>) -> InputError {
        InputError::new(self.file, pointer, message.into())
    }

    fn get(&self, pointer: &str) -> Option<&'a Value> {
        self.v.pointer(pointer).filter(|x| !x.is_null())
    }

    fn string(&self, pointer: &str) -> Result<&'a str, InputError> {
        match self.v.pointer(pointer) {
            Some(Value::String(s)) => Ok(s),
            Some(_) => Err(self.err(pointer, "must be a string")),
            None => Err(self.err(pointer, "is missing")),
        }
    }

    fn opt_string(&self, pointer: &str) -> Result<Option<&'a str>, InputError> {
        match self.v.pointer(pointer) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(self.err(pointer, "must be a string or null")),
        }
    }

    fn boolean(&self, pointer: &str) -> Result<bool, InputError> {
        match self.v.pointer(pointer) {
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(self.err(pointer, "must be true or false")),
            None => Err(self.err(pointer, "is missing")),
        }
    }

    fn count(&self, pointer: &str, min: u64, max: u64) -> Result<usize, InputError> {
        match self.v.pointer(pointer) {
            Some(x) => match x.as_u64() {
                Some(n) if (min..=max).contains(&n) => Ok(n as usize),
                _ => Err(self.err(pointer, format!("must be an integer from {min} to {max}"))),
            },
            None => Err(self.err(pointer, "is missing")),
        }
    }

    fn strings(&self, pointer: &str) -> Result<Vec<String>, InputError> {
        match self.v.pointer(pointer) {
            Some(Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(i, x)| {
                    x.as_str()
                        .map(String::from)
                        .ok_or_else(|| self.err(&format!("{pointer}/{i}"), "must be a string"))
                })
                .collect(),
            Some(_) => Err(self.err(pointer, "must be a list of strings")),
            None => Err(self.err(pointer, "is missing")),
        }
    }
}

fn is_fingerprint(s: &str) -> bool {
    s.strip_prefix("sha256:").is_some_and(|h| {
        !h.is_empty() && h.len() <= 128 && h.bytes().all(|b| b.is_ascii_hexdigit())
    })
}

/// Validates one fixture against the schema capture writes and against the graph.
fn validate(v: &Value, file: &str, graph_fp: &str, any_graph: bool) -> Result<Fixture, InputError> {
    let at = At { file, v };
    if !v.is_object() {
        return Err(at.err("", "not a fixture (a JSON object is expected)"));
    }
    let case_id = at.string("/case_id")?.to_string();
    let query = at.string("/query")?.to_string();
    limits::check_query(&query).map_err(|e| at.err("/query", e))?;
    at.boolean("/query_scrubbed")?;
    at.opt_string("/expected_target")?;
    at.strings("/expected_tools")?;
    let max_k = limits::TOP_K.get();
    let top_k = at.count("/top_k", 1, max_k)?;
    let rows = match at.get("/ranking") {
        Some(Value::Array(rows)) => rows,
        Some(_) => return Err(at.err("/ranking", "must be a list of result rows")),
        None => return Err(at.err("/ranking", "is missing")),
    };
    if rows.len() > top_k {
        return Err(at.err(
            "/ranking",
            format!(
                "has {} rows, more than the fixture's top_k {top_k}",
                rows.len()
            ),
        ));
    }
    for (i, row) in rows.iter().enumerate() {
        let p = format!("/ranking/{i}");
        at.string(&format!("{p}/name"))?;
        if row.get("rank").and_then(Value::as_u64) != Some(i as u64 + 1) {
            return Err(at.err(
                &format!("{p}/rank"),
                format!("must be {} (rows are ranked in order)", i + 1),
            ));
        }
        match row.get("score") {
            Some(Value::Number(_)) => {}
            _ => return Err(at.err(&format!("{p}/score"), "must be a number")),
        }
        if !row.get("score_breakdown").is_some_and(Value::is_object) {
            return Err(at.err(&format!("{p}/score_breakdown"), "must be an object"));
        }
    }
    let head = &rows[..rows.len().min(3)];
    match at.get("/actual_top_3") {
        Some(Value::Array(top)) if top.as_slice() == head => {}
        Some(_) => {
            return Err(at.err("/actual_top_3", "must be the first 3 rows of the ranking"));
        }
        None => return Err(at.err("/actual_top_3", "is missing")),
    }
    let selected = at.string("/target_selector/selected_target")?;
    let llm = at.opt_string("/target_selector/llm_target")?;
    at.boolean("/target_selector/overrode_llm")?;
    at.boolean("/target_selector/ambiguous")?;
    at.strings("/target_selector/reason_codes")?;
    let fp = at.string("/provenance/graph_fingerprint")?;
    if !is_fingerprint(fp) {
        return Err(at.err(
            "/provenance/graph_fingerprint",
            "must be sha256: and hexadecimal digits",
        ));
    }
    if fp != graph_fp && !any_graph {
        return Err(at.err(
            "/provenance/graph_fingerprint",
            format!("captured against another graph ({}), this graph is {graph_fp} (--any-graph replays anyway)", crate::sanitize::line(fp)),
        ));
    }
    for key in ["engine_profile", "registry_version", "toolscope_version"] {
        at.string(&format!("/provenance/{key}"))?;
    }
    let d = Params::default();
    let params = Params {
        top_k: at.count("/provenance/params/top_k", 1, max_k)?,
        depth: at.count(
            "/provenance/params/depth",
            0,
            crate::engine::knobs::DEPTH_MAX,
        )?,
        token_budget: at.count("/provenance/params/token_budget", 0, u32::MAX as u64)?,
        history: at.strings("/provenance/params/history")?,
        ..d
    };
    if params.top_k != top_k {
        return Err(at.err(
            "/provenance/params/top_k",
            format!("is {}, the fixture's top_k is {top_k}", params.top_k),
        ));
    }
    let select = SelectParams {
        llm_target: at
            .opt_string("/provenance/params/llm_target")?
            .map(String::from),
        policy: at.string("/provenance/params/policy")?.into(),
    };
    if select.llm_target.as_deref() != llm {
        return Err(at.err(
            "/target_selector/llm_target",
            "differs from /provenance/params/llm_target",
        ));
    }
    let want = match RunRecord::parse(v, &case_id) {
        Ok(Some(r)) => r,
        Ok(None) => return Err(at.err("", "not a fixture (no ranking and no target_selector)")),
        Err(m) => return Err(at.err(&m.pointer, m.message)),
    };
    debug_assert_eq!(want.selected_target.as_deref(), Some(selected));
    Ok(Fixture {
        case_id,
        query,
        params,
        select,
        want,
    })
}

/// Reads and validates `DIR/manifest.json`: the fixture names it lists.
fn manifest(
    dir: &Path,
    graph_fp: &str,
    any_graph: bool,
    rep: &mut CheckReport,
) -> Result<Vec<String>, InputError> {
    let path = dir.join(MANIFEST);
    let shown = limits::shown(&path);
    if std::fs::symlink_metadata(&path).is_err() {
        return Err(InputError::new(
            &shown,
            "",
            "is missing: not a fixture folder written by `toolscope lab capture`".into(),
        ));
    }
    let v = read_json(&path)?;
    let at = At {
        file: &shown,
        v: &v,
    };
    if at.string("/kind")? != MANIFEST_KIND {
        return Err(at.err("/kind", format!("must be {MANIFEST_KIND:?}")));
    }
    let fp = at.string("/graph_fingerprint")?;
    if fp != graph_fp {
        if !any_graph {
            return Err(at.err(
                "/graph_fingerprint",
                format!(
                    "captured against another graph ({}), this graph is {graph_fp} (--any-graph replays anyway)",
                    crate::sanitize::line(fp)
                ),
            ));
        }
        rep.notes.push(format!(
            "replayed on another graph: captured against {}, this graph is {graph_fp}",
            crate::sanitize::line(fp)
        ));
    }
    let listed = at.strings("/fixtures")?;
    for (i, name) in listed.iter().enumerate() {
        let bad = name.is_empty()
            || name.contains(['/', '\\'])
            || name == ".."
            || name == MANIFEST
            || !name.ends_with(".json");
        if bad {
            return Err(at.err(
                &format!("/fixtures/{i}"),
                "must be a fixture file name in this folder",
            ));
        }
    }
    Ok(listed)
}

/// Validates and replays a fixture folder. `Err`: the folder or its manifest is unusable.
pub fn check(engine: &Engine, dir: &Path, any_graph: bool) -> Result<CheckReport, InputError> {
    let graph_fp = format!("sha256:{}", engine.graph.fingerprint());
    let mut rep = CheckReport::default();
    let files = folder_files(dir, &["json"])?;
    let listed = manifest(dir, &graph_fp, any_graph, &mut rep)?;
    let manifest_shown = limits::shown(&dir.join(MANIFEST));
    for (i, name) in listed.iter().enumerate() {
        if !files
            .iter()
            .any(|f| f.file_name().is_some_and(|n| n == name.as_str()))
        {
            rep.invalid.push(InputError::new(
                &manifest_shown,
                &format!("/fixtures/{i}"),
                format!(
                    "lists {}, which is not in the folder",
                    crate::sanitize::line(name)
                ),
            ));
        }
    }
    for f in files {
        let shown = limits::shown(&f);
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !listed.contains(&name) {
            rep.invalid.push(InputError::new(
                &shown,
                "",
                "is not listed in manifest.json".into(),
            ));
            continue;
        }
        let fixture = match read_json(&f).and_then(|v| validate(&v, &shown, &graph_fp, any_graph)) {
            Ok(x) => x,
            Err(e) => {
                rep.invalid.push(e);
                continue;
            }
        };
        let started = std::time::Instant::now();
        let r = engine.retrieve(&fixture.query, &fixture.params);
        let s = engine.select(&r, &fixture.select);
        let got = RunRecord::from_run(engine, &fixture.case_id, &r, Some(&s));
        let differences = differences(&fixture.want, &got);
        rep.results.push(CheckResult {
            file: f,
            case_id: fixture.case_id,
            differences,
            seconds: started.elapsed().as_secs_f64(),
        });
    }
    Ok(rep)
}

/// What differs between a stored record and a replay: the ranking's length, every row's
/// rank, score and breakdown, rows that entered, and the whole selector block.
pub fn differences(want: &RunRecord, got: &RunRecord) -> Vec<String> {
    let mut d = Vec::new();
    if want.rows.len() != got.rows.len() {
        d.push(format!(
            "the ranking had {} rows, the replay has {}",
            want.rows.len(),
            got.rows.len()
        ));
    }
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
                    match g.breakdown.get(k) {
                        Some(gv) if gv != v => {
                            d.push(format!("{} score_breakdown.{k} {v} -> {gv}", w.name))
                        }
                        None => {
                            d.push(format!("{} score_breakdown.{k} is no longer given", w.name))
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    for g in &got.rows {
        if !want.rows.iter().any(|w| w.name == g.name) {
            d.push(format!("{} entered at rank {}", g.name, g.rank));
        }
    }
    let opt = |x: &Option<String>| x.as_deref().unwrap_or("-").to_string();
    if want.selected_target.is_some() {
        if want.selected_target != got.selected_target {
            d.push(format!(
                "selected target {} -> {}",
                opt(&want.selected_target),
                opt(&got.selected_target)
            ));
        }
        if want.reason_codes != got.reason_codes {
            d.push(format!(
                "reason codes [{}] -> [{}]",
                want.reason_codes.join(", "),
                got.reason_codes.join(", ")
            ));
        }
        if want.llm_target != got.llm_target {
            d.push(format!(
                "llm_target {} -> {}",
                opt(&want.llm_target),
                opt(&got.llm_target)
            ));
        }
        let flag = |x: Option<bool>| x.map_or("-".to_string(), |b| b.to_string());
        if want.overrode_llm.is_some() && want.overrode_llm != got.overrode_llm {
            d.push(format!(
                "overrode_llm {} -> {}",
                flag(want.overrode_llm),
                flag(got.overrode_llm)
            ));
        }
        if want.ambiguous.is_some() && want.ambiguous != got.ambiguous {
            d.push(format!(
                "ambiguous {} -> {}",
                flag(want.ambiguous),
                flag(got.ambiguous)
            ));
        }
    }
    d
}
