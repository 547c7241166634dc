//! Regression fixtures in the seed's shape: capture (scrubbed) and the fixture schema that
//! [`super::fixture_check`] validates before it replays.
//!
//! Capture runs every case with its own parameters (the case's `params`/`selector` over the
//! command line's, `--set` winning), scrubs everything it stores — query, case id, expected
//! tools, LLM target, history, suite and source names — *before* the run, so a fixture
//! replays exactly what it stores, and writes the pretty JSON with every terminal hazard
//! escaped. File names are unique in bounded time: the counter is appended after scrubbing,
//! `manifest` is reserved, and no fixture is ever written over an input of the capture.

use serde_json::{Value, json};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::record::RunRecord;
use super::scrub::{self, needs_scrub, scrub_str};
use super::suite::Suite;
use crate::engine::knobs::Knobs;
use crate::engine::{Engine, PROFILE, Params, REGISTRY_VERSION, SelectParams};
use crate::jsonout::JsonWriter;
use crate::sanitize;

/// What `manifest.json` says it is.
pub const MANIFEST_KIND: &str = "toolscope regression fixtures";
/// The manifest's file name (reserved: no fixture takes it).
pub const MANIFEST: &str = "manifest.json";
/// The longest file stem of a fixture, in characters.
const STEM_CHARS: usize = 120;

/// One fixture as written (and read back). `query`, `history` and `llm_target` are the
/// scrubbed values the run used.
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
    let rec = RunRecord::from_run(engine, case_id, &r, Some(&s));
    let expected_scrubbed: Vec<String> = expected.iter().map(|e| scrub_str(e)).collect();
    let mut w = JsonWriter::new();
    w.begin_obj();
    w.key("case_id").str(&scrub_str(case_id));
    w.key("query").str(query);
    w.key("query_fingerprint")
        .str(&crate::engine::learning::fingerprint(query));
    w.key("query_scrubbed").bool(scrubbed);
    w.key("expected_target")
        .opt_str(expected_scrubbed.first().map(|e| e.as_str()));
    w.key("expected_tools").str_list(&expected_scrubbed);
    w.key("labels_scrubbed")
        .bool(expected_scrubbed.as_slice() != expected);
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
        "history": params.history,
        "llm_target": sel.llm_target, "policy": sel.policy.as_str(),
    }));
    w.end_obj();
    w.end_obj();
    let v: Value = serde_json::from_str(&w.finish()).expect("fixture JSON");
    crate::jsonout::to_pretty_safe(&v) + "\n"
}

/// The file stem a case id scrubs to: letters, digits, `-` and `_`, at most
/// [`STEM_CHARS`] characters, `case` when nothing is left.
fn stem(case_id: &str) -> String {
    let s: String = scrub_str(case_id)
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(STEM_CHARS)
        .collect();
    if s.is_empty() { "case".into() } else { s }
}

/// Unique fixture file names. Names compare case-insensitively (a case-insensitive file
/// system must not merge two fixtures), `manifest` is taken from the start, and a
/// collision appends `-2`, `-3`, … to the scrubbed stem, so every call ends after at most
/// as many tries as names were handed out.
#[derive(Default)]
struct Names {
    used: HashSet<String>,
}

impl Names {
    fn new() -> Names {
        let mut n = Names::default();
        n.used.insert(MANIFEST.to_lowercase());
        n
    }

    fn take(&mut self, name: &str) -> bool {
        self.used.insert(name.to_lowercase())
    }

    fn unique(&mut self, case_id: &str) -> String {
        let stem = stem(case_id);
        let first = format!("{stem}.json");
        if self.take(&first) {
            return first;
        }
        (2..)
            .map(|n| format!("{stem}-{n}.json"))
            .find(|name| self.take(name))
            .expect("an unused counter")
    }
}

/// Outcome of a capture.
#[derive(Debug, Default)]
pub struct CaptureReport {
    pub written: Vec<PathBuf>,
    pub skipped_existing: Vec<PathBuf>,
    pub warnings: Vec<String>,
}

/// How a capture runs.
#[derive(Debug, Clone, Default)]
pub struct CaptureOptions {
    /// Defaults and command-line flags; each case's own parameters apply over them.
    pub base: Knobs,
    /// `--set KNOB=VALUE`, applied last.
    pub overrides: Vec<String>,
    /// Replace existing fixtures and a manifest of another capture.
    pub force: bool,
    /// The capture's inputs (suite, graph): never written over, whatever their names.
    pub inputs: Vec<PathBuf>,
}

fn is_input(path: &Path, inputs: &[PathBuf]) -> bool {
    inputs
        .iter()
        .any(|i| crate::output::file::is_same_file(path, i))
}

/// The basename of a graph source, scrubbed (a full path can carry a user name).
fn source_name(source: &str) -> String {
    let base = Path::new(source)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| source.to_string());
    scrub_str(&base)
}

/// Writes one file through the safe writer (temporary file renamed into place, no writing
/// through a symlink without `force`, never over an input).
fn write_file(path: &Path, text: &str, inputs: &[PathBuf], force: bool) -> Result<(), String> {
    let inputs: Vec<String> = inputs.iter().map(|p| p.display().to_string()).collect();
    let target = crate::output::file::prepare(&path.display().to_string(), &inputs, force)?;
    crate::output::file::write(&target, |w| w.write_all(text.as_bytes()))
}

/// Reads an existing manifest of `dir`: `Ok(None)` when there is none.
fn existing_manifest(path: &Path) -> Result<Option<Value>, String> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(None);
    }
    let shown = sanitize::path(path);
    let bytes = crate::limits::read_file(path).map_err(|e| e.to_string())?;
    let text = crate::model::load::into_text(&shown, bytes).map_err(|e| e.to_string())?;
    crate::jsonin::from_str(&text)
        .map(Some)
        .map_err(|e| crate::model::load::json_error(&shown, &e, "").to_string())
}

/// `dir` as a folder to capture into: an existing file there is refused without `force`
/// (with it, replaced by the folder; an input of the capture never is).
fn folder_for(dir: &Path, opts: &CaptureOptions) -> Result<(), String> {
    let shown = sanitize::path(dir);
    let is_file = std::fs::symlink_metadata(dir).is_ok() && !dir.is_dir();
    if is_file && (is_input(dir, &opts.inputs) || !opts.force) {
        let why = if is_input(dir, &opts.inputs) {
            "is an input of this capture, not a folder: give the folder to write".to_string()
        } else {
            "exists and is not a folder (lab capture writes one fixture per case into a \
             folder): give another name, or --force to replace the file"
                .to_string()
        };
        return Err(format!("{shown}: {why}"));
    }
    if is_file {
        std::fs::remove_file(dir).map_err(|e| crate::limits::io_error(&shown, &e).to_string())?;
    }
    std::fs::create_dir_all(dir).map_err(|e| crate::limits::io_error(&shown, &e).to_string())
}

/// Refuses (without `force`) a folder holding a `.json` file that would not be listed in
/// its manifest — neither a fixture of this capture (`listed`, `planned`) nor the
/// manifest — since `lab check` would then refuse the whole folder.
fn no_stranger(
    dir: &Path,
    listed: &[String],
    planned: &[String],
    opts: &CaptureOptions,
) -> Result<(), String> {
    if opts.force {
        return Ok(());
    }
    let files = super::record::folder_files(dir, &["json"]).map_err(|e| e.to_string())?;
    for f in files {
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !listed.contains(&name) && !planned.contains(&name) {
            return Err(format!(
                "{}: is not a fixture of this capture, and `lab check` would refuse the folder \
                 with it: capture into another folder, or --force to capture beside it",
                sanitize::path(&f)
            ));
        }
    }
    Ok(())
}

/// Captures every case of a suite into `dir`: one fixture per case plus `manifest.json`,
/// which lists every fixture of the folder. A folder that holds another capture's manifest
/// (another graph, or not a toolscope manifest) or another `.json` file, and a file in
/// place of the folder, are refused without `force`.
pub fn capture(
    engine: &Engine,
    suite: &Suite,
    dir: &Path,
    opts: &CaptureOptions,
) -> Result<CaptureReport, String> {
    folder_for(dir, opts)?;
    let fingerprint = format!("sha256:{}", engine.graph.fingerprint());
    let manifest_path = dir.join(MANIFEST);
    let mut listed: Vec<String> = Vec::new();
    if let Some(m) = existing_manifest(&manifest_path)? {
        let ours = m.get("kind").and_then(Value::as_str) == Some(MANIFEST_KIND)
            && m.get("graph_fingerprint").and_then(Value::as_str) == Some(&fingerprint);
        if !ours && !opts.force {
            return Err(format!(
                "{}: belongs to another capture (not this graph's fixtures): use another folder, \
                 or --force to replace it",
                sanitize::path(&manifest_path)
            ));
        }
        if ours {
            listed = m
                .get("fixtures")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
        }
    }
    // every fixture's name first: what the folder may hold besides them is checked before
    // anything is written
    let mut names = Names::new();
    let planned: Vec<String> = suite
        .cases
        .iter()
        .map(|c| {
            let mut name = names.unique(&c.id);
            while is_input(&dir.join(&name), &opts.inputs) {
                name = names.unique(&c.id);
            }
            name
        })
        .collect();
    no_stranger(dir, &listed, &planned, opts)?;
    let mut rep = CaptureReport::default();
    for (c, name) in suite.cases.iter().zip(planned) {
        let mut k = c.knobs(&opts.base, &opts.overrides)?;
        for e in &c.expected {
            if engine.graph.tool_id(e).is_none() {
                rep.warnings.push(format!(
                    "case {}: expected tool {} is not in the graph",
                    scrub_str(&c.id),
                    scrub_str(e)
                ));
            }
        }
        let scrubbed = needs_scrub(&c.query);
        let query = scrub_str(&c.query);
        k.params.history = k.params.history.iter().map(|h| scrub_str(h)).collect();
        k.select.llm_target = k.select.llm_target.as_deref().map(scrub_str);
        let path = dir.join(&name);
        if !listed.contains(&name) {
            listed.push(name.clone());
        }
        if std::fs::symlink_metadata(&path).is_ok() && !opts.force {
            rep.skipped_existing.push(path);
            continue;
        }
        let text = fixture_json(
            engine,
            &c.id,
            &query,
            scrubbed,
            &c.expected,
            &k.params,
            &k.select,
        );
        write_file(&path, &text, &opts.inputs, opts.force)?;
        rep.written.push(path);
    }
    let m = json!({
        "kind": MANIFEST_KIND,
        "suite": scrub_str(&suite.name),
        "cases": suite.cases.len(),
        "fixtures": listed,
        "graph_source": source_name(&engine.graph.info.source),
        "graph_fingerprint": fingerprint,
        "engine_profile": PROFILE,
        "toolscope_version": env!("CARGO_PKG_VERSION"),
        "scrubbing": scrub::SUMMARY,
    });
    let text = crate::jsonout::to_pretty_safe(&m) + "\n";
    // the manifest is this capture's own index: it is brought up to date (it was checked
    // above to be ours, or --force was given), but never through a symlink without --force
    if std::fs::symlink_metadata(&manifest_path).is_ok_and(|m| m.file_type().is_symlink())
        && !opts.force
    {
        return Err(format!(
            "{}: is a symbolic link: refusing to write through it (use --force)",
            sanitize::path(&manifest_path)
        ));
    }
    write_file(&manifest_path, &text, &opts.inputs, true)?;
    Ok(rep)
}
