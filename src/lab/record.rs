//! A run record: the compact, comparable form of one query's evidence, read from any of
//! the formats toolscope meets (fixtures, `retrieve_graphify` responses, batch lines,
//! selector blocks) or made from a live run.

use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

use crate::error::InputError;

use crate::engine::{Retrieval, Selection};

#[derive(Debug, Clone, PartialEq)]
pub struct RowRecord {
    pub name: String,
    pub rank: usize,
    pub score: Option<f64>,
    /// `score_breakdown` as given (numbers and booleans).
    pub breakdown: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunRecord {
    pub id: String,
    pub query: Option<String>,
    pub rows: Vec<RowRecord>,
    pub selected_target: Option<String>,
    pub llm_target: Option<String>,
    pub reason_codes: Vec<String>,
    pub overrode_llm: Option<bool>,
    pub ambiguous: Option<bool>,
    pub expected: Vec<String>,
    /// Keys this reader does not know, kept for display.
    pub unknown_keys: Vec<String>,
}

impl RunRecord {
    pub fn names(&self) -> Vec<String> {
        self.rows.iter().map(|r| r.name.clone()).collect()
    }

    pub fn from_run(id: &str, r: &Retrieval, sel: Option<&Selection>) -> RunRecord {
        let rows = r
            .rows
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let b = &row.breakdown;
                let s = &row.semantic;
                let mut m = Map::new();
                let f = |x: bool| Value::from(if x { 1.0 } else { 0.0 });
                m.insert("seed".into(), b.seed.into());
                m.insert("graph".into(), b.graph.into());
                m.insert("learning".into(), b.learning.into());
                m.insert("history_demoted".into(), b.history_demoted.into());
                m.insert("action_match".into(), f(s.action_match));
                m.insert("resource_match".into(), f(s.resource_match));
                m.insert("module_match".into(), f(s.module_match));
                m.insert("shape_match".into(), f(s.shape_match));
                m.insert("contract_match".into(), f(s.contract_match));
                m.insert("graph_expansion".into(), f(b.graph_expansion));
                RowRecord {
                    name: row.name.clone(),
                    rank: i + 1,
                    score: Some(row.rounded_score()),
                    breakdown: m,
                }
            })
            .collect();
        let mut rec = RunRecord {
            id: id.to_string(),
            query: Some(r.query.clone()),
            rows,
            ..Default::default()
        };
        if let Some(s) = sel {
            rec.selected_target = Some(s.selected_target.clone());
            rec.llm_target = s.llm_target.clone();
            rec.reason_codes = s.reason_codes.iter().map(|c| c.to_string()).collect();
            rec.overrode_llm = Some(s.overrode_llm);
            rec.ambiguous = Some(s.ambiguous);
        }
        rec
    }

    /// Reads a record from a JSON object of any supported shape (lenient: a malformed
    /// record reads as none). Prefer [`RunRecord::parse`], which says what is wrong.
    pub fn from_json(v: &Value, fallback_id: &str) -> Option<RunRecord> {
        Self::parse(v, fallback_id).ok().flatten()
    }

    /// Reads a record from a JSON object of any supported shape. `fallback_id` names it
    /// when the object has no id. `Ok(None)`: the value is not a record at all (no rows and
    /// no selection); `Err`: it is one, but a field has the wrong type — the error names
    /// the field by JSON pointer, relative to `v`.
    pub fn parse(v: &Value, fallback_id: &str) -> Result<Option<RunRecord>, Malformed> {
        if let Some(schema) = v.get("spans").and(v.get("schema_version"))
            && schema.as_str() != Some(TRACE_SCHEMA)
        {
            return Err(Malformed::new(
                "/schema_version",
                &format!(
                    "trace envelope schema_version {} is not supported (this version reads {TRACE_SCHEMA})",
                    crate::sanitize::line(&schema.to_string())
                ),
            ));
        }
        let normalised = envelope_as_response(v);
        let v = normalised.as_ref().unwrap_or(v);
        let Some(o) = v.as_object() else {
            return Ok(None);
        };
        let mut rec = RunRecord {
            id: fallback_id.to_string(),
            ..Default::default()
        };
        for k in ["case_id", "id"] {
            match o.get(k) {
                Some(Value::String(id)) => {
                    rec.id = id.clone();
                    break;
                }
                Some(Value::Number(n)) => {
                    rec.id = n.to_string();
                    break;
                }
                Some(Value::Null) | None => {}
                Some(_) => return Err(Malformed::new(&format!("/{k}"), "must be a string")),
            }
        }
        rec.query = opt_string(o.get("query"), "/query")?;
        rec.unknown_keys = o
            .keys()
            .filter(|k| !KNOWN_KEYS.contains(&k.as_str()))
            .cloned()
            .collect();
        if let Some(t) = opt_string(o.get("expected_target"), "/expected_target")? {
            rec.expected = vec![t];
        } else if o.get("expected_tools").is_some_and(|x| !x.is_null()) {
            rec.expected = strings(o.get("expected_tools"), "/expected_tools")?;
        } else if let Some(l) = o.get("labels").filter(|l| l.is_object()) {
            rec.expected = strings(l.get("expected_tools"), "/labels/expected_tools")?;
        }
        // rows: fixture ranking > actual_top_3 > retrieval.results > results > expected.retrieval.results
        let retrieval = o.get("retrieval").filter(|r| r.is_object());
        let expected_retrieval = o
            .get("expected")
            .and_then(|e| e.get("retrieval"))
            .filter(|r| r.is_object());
        let sources = [
            (o.get("ranking"), "/ranking"),
            (o.get("actual_top_3"), "/actual_top_3"),
            (
                retrieval.and_then(|r| r.get("results")),
                "/retrieval/results",
            ),
            (o.get("results"), "/results"),
            (
                expected_retrieval.and_then(|r| r.get("results")),
                "/expected/retrieval/results",
            ),
        ];
        for (rows, at) in sources {
            match rows {
                None | Some(Value::Null) => continue,
                Some(Value::Array(rows)) => {
                    rec.rows = rows
                        .iter()
                        .enumerate()
                        .map(|(i, r)| row_from(r, i, &format!("{at}/{i}")))
                        .collect::<Result<_, _>>()?;
                    break;
                }
                Some(_) => return Err(Malformed::new(at, "must be a list of result rows")),
            }
        }
        let sel = [
            (o.get("target_selector"), "/target_selector"),
            (o.get("selection"), "/selection"),
            (
                o.get("expected").and_then(|e| e.get("selection")),
                "/expected/selection",
            ),
        ]
        .into_iter()
        .find_map(|(s, at)| s.filter(|s| !s.is_null()).map(|s| (s, at)));
        let sel = match sel {
            Some((s, at)) if s.is_object() => Some((s, at.to_string())),
            Some((_, at)) => return Err(Malformed::new(at, "must be an object")),
            None => o
                .contains_key("selected_target")
                .then(|| (v, String::new())),
        };
        if let Some((s, at)) = sel {
            rec.selected_target =
                opt_string(s.get("selected_target"), &format!("{at}/selected_target"))?;
            rec.llm_target = opt_string(s.get("llm_target"), &format!("{at}/llm_target"))?;
            rec.reason_codes = match s.get("reason_codes") {
                None | Some(Value::Null) => Vec::new(),
                x => strings(x, &format!("{at}/reason_codes"))?,
            };
            rec.overrode_llm = opt_bool(s.get("overrode_llm"), &format!("{at}/overrode_llm"))?;
            rec.ambiguous = opt_bool(s.get("ambiguous"), &format!("{at}/ambiguous"))?;
        }
        if rec.rows.is_empty() && rec.selected_target.is_none() {
            return Ok(None);
        }
        Ok(Some(rec))
    }
}

/// The trace envelope schema this version reads.
pub const TRACE_SCHEMA: &str = "1.0";

/// A graph-tool-call trace envelope (`TraceEnvelope.to_dict()`: `schema_version` and
/// `spans`) in the shape of a response, so every reader of records sees one: `id` (the
/// trace id), `query` (from the attributes), `results` (the `retrieval` span's ranked
/// decisions in rank order: name, score, rank and the evidence they carry) and
/// `target_selector` (the `target_selection` span's attributes, with the selected
/// decision's reason codes less the recorder's `selector.*` markers). `None` for anything
/// else. `lab replay` reads envelopes itself, to point into them.
pub fn envelope_as_response(v: &Value) -> Option<Value> {
    let o = v.as_object()?;
    let spans = o.get("spans")?.as_array()?;
    o.get("schema_version")?;
    let mut out = Map::new();
    if let Some(id) = o.get("trace_id") {
        out.insert("id".into(), id.clone());
    }
    if let Some(q) = o.get("attributes").and_then(|a| a.get("query")) {
        out.insert("query".into(), q.clone());
    }
    let stage = |name: &str| {
        spans
            .iter()
            .find(|s| s.get("stage").and_then(Value::as_str) == Some(name))
    };
    // borrowed: only the fields a row keeps are copied
    fn decisions(s: &Value) -> &[Value] {
        s.get("decisions")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
    }
    if let Some(r) = stage("retrieval") {
        let mut ranked: Vec<&Value> = decisions(r)
            .iter()
            .filter(|d| d.get("outcome").and_then(Value::as_str) == Some("ranked"))
            .collect();
        ranked.sort_by_key(|d| {
            d.get("rank_after")
                .and_then(Value::as_u64)
                .unwrap_or(u64::MAX)
        });
        let rows = ranked
            .into_iter()
            .map(|d| {
                let mut row = Map::new();
                for (k, from) in [
                    ("name", "subject"),
                    ("score", "score"),
                    ("rank", "rank_after"),
                ] {
                    if let Some(x) = d.get(from) {
                        row.insert(k.into(), x.clone());
                    }
                }
                if let Some(Value::Object(ev)) = d.get("evidence") {
                    for (k, x) in ev {
                        row.entry(k.clone()).or_insert_with(|| x.clone());
                    }
                }
                Value::Object(row)
            })
            .collect();
        out.insert("results".into(), Value::Array(rows));
    }
    if let Some(t) = stage("target_selection")
        && let Some(Value::Object(attrs)) = t.get("attributes")
    {
        let mut sel = attrs.clone();
        if let Some(codes) = decisions(t)
            .iter()
            .find(|d| d.get("outcome").and_then(Value::as_str) == Some("selected"))
            .and_then(|d| d.get("reason_codes"))
            .and_then(Value::as_array)
        {
            let codes: Vec<Value> = codes
                .iter()
                .filter(|c| !c.as_str().is_some_and(|s| s.starts_with("selector.")))
                .cloned()
                .collect();
            sel.insert("reason_codes".into(), Value::Array(codes));
        }
        out.insert("target_selector".into(), Value::Object(sel));
    }
    Some(Value::Object(out))
}

/// What is wrong with a record that has the shape of one: a JSON pointer (relative to the
/// record) and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed {
    pub pointer: String,
    pub message: String,
}

impl Malformed {
    fn new(pointer: &str, message: &str) -> Malformed {
        Malformed {
            pointer: pointer.to_string(),
            message: message.to_string(),
        }
    }
}

/// The keys a record of any supported shape may carry (others are kept and shown, never
/// compared).
pub const KNOWN_KEYS: &[&str] = &[
    "case_id",
    "id",
    "query",
    "query_fingerprint",
    "query_scrubbed",
    "expected_target",
    "expected_tools",
    "labels_scrubbed",
    "top_k",
    "actual_top_3",
    "ranking",
    "target_selector",
    "selection",
    "retrieval",
    "results",
    "subgraph_text",
    "intent",
    "stats",
    "provenance",
    "learning_suggestion_ids",
    "params",
    "category",
    "graph",
    "selector",
    "labels",
    "expected",
    "note",
];

fn opt_string(v: Option<&Value>, at: &str) -> Result<Option<String>, Malformed> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(Malformed::new(at, "must be a string")),
    }
}

fn opt_bool(v: Option<&Value>, at: &str) -> Result<Option<bool>, Malformed> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(Malformed::new(at, "must be true or false")),
    }
}

fn strings(v: Option<&Value>, at: &str) -> Result<Vec<String>, Malformed> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, x)| match x {
                Value::String(s) => Ok(s.clone()),
                _ => Err(Malformed::new(&format!("{at}/{i}"), "must be a string")),
            })
            .collect(),
        Some(_) => Err(Malformed::new(at, "must be a list of strings")),
    }
}

fn row_from(r: &Value, i: usize, at: &str) -> Result<RowRecord, Malformed> {
    if let Some(name) = r.as_str() {
        return Ok(RowRecord {
            name: name.to_string(),
            rank: i + 1,
            score: None,
            breakdown: Map::new(),
        });
    }
    let Some(o) = r.as_object() else {
        return Err(Malformed::new(
            at,
            "must be a result row (an object with a name)",
        ));
    };
    let name = match o.get("name").or_else(|| o.get("tool")) {
        Some(Value::String(n)) if !n.is_empty() => n.clone(),
        Some(_) => {
            return Err(Malformed::new(
                &format!("{at}/name"),
                "must be a non-empty string",
            ));
        }
        None => return Err(Malformed::new(at, "has no name")),
    };
    let rank = match o.get("rank") {
        None | Some(Value::Null) => i + 1,
        Some(x) => match x.as_u64() {
            Some(k) if k >= 1 => k as usize,
            _ => {
                return Err(Malformed::new(
                    &format!("{at}/rank"),
                    "must be a positive integer",
                ));
            }
        },
    };
    let score = match o.get("score") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => n.as_f64(),
        Some(_) => return Err(Malformed::new(&format!("{at}/score"), "must be a number")),
    };
    let breakdown = match o.get("score_breakdown") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => {
            for (k, x) in m {
                if !matches!(x, Value::Number(_) | Value::Bool(_) | Value::Null) {
                    return Err(Malformed::new(
                        &format!(
                            "{at}/score_breakdown/{}",
                            k.replace('~', "~0").replace('/', "~1")
                        ),
                        "must be a number",
                    ));
                }
            }
            m.clone()
        }
        Some(_) => {
            return Err(Malformed::new(
                &format!("{at}/score_breakdown"),
                "must be an object",
            ));
        }
    };
    Ok(RowRecord {
        name,
        rank,
        score,
        breakdown,
    })
}

/// Where a value of an evidence file sits.
#[derive(Debug, Clone)]
pub struct Origin {
    /// The file, as shown in messages (sanitised).
    pub file: String,
    /// The file's name with the item (`f.json`, `f.json#2`, `f.jsonl:3`), for display.
    pub label: String,
    /// The id a record without one takes (`f`, `f#2`, `f:3`).
    pub fallback_id: String,
    /// The place inside the file: empty, a JSON pointer (`/1`) or a line number.
    pub place: String,
}

impl Origin {
    /// An error about this value, at `pointer` inside it.
    pub fn error(&self, pointer: &str, message: String) -> InputError {
        let place = match (self.place.as_str(), pointer) {
            (p, "") => p.to_string(),
            (p, ptr) if p.starts_with('/') || p.is_empty() => format!("{p}{ptr}"),
            (line, ptr) => format!("{line} {ptr}"),
        };
        InputError::new(&self.file, &place, message)
    }
}

/// The message for a value that is none of the kinds a record can be.
pub const NOT_A_RECORD: &str = "not a retrieval response, selector block or fixture";

/// Reads every JSON value of an evidence file (one value, a list, or JSON Lines) or of a
/// folder of them (`*.json` and `*.jsonl`, sorted, `manifest.json` aside) and hands each
/// to `visit`. Returns the errors of the parts that could not be read or that `visit`
/// refused, in file order; `Err` only when `path` itself cannot be read. The one walk over
/// captured evidence: `lab diff`, `lab check` and the Evidence and Diff screens use it.
pub fn walk(
    path: &Path,
    visit: &mut dyn FnMut(&Value, &Origin) -> Result<(), InputError>,
) -> Result<Vec<InputError>, InputError> {
    let mut errors = Vec::new();
    let shown = crate::limits::shown(path);
    let meta = std::fs::metadata(path).map_err(|e| crate::limits::io_error(&shown, &e))?;
    if meta.is_dir() {
        let files = folder_files(path, &["json", "jsonl"])?;
        if files.is_empty() {
            errors.push(InputError::new(
                &shown,
                "",
                "no .json or .jsonl file in the folder".into(),
            ));
        }
        for f in files {
            match walk(&f, visit) {
                Ok(e) => errors.extend(e),
                Err(e) => errors.push(e),
            }
        }
        return Ok(errors);
    }
    let bytes = crate::limits::read_file(path)?;
    let bytes = crate::limits::gunzip(&shown, bytes)?;
    let text = crate::model::load::into_text(&shown, bytes)?;
    let label = path
        .file_name()
        .map(|f| crate::sanitize::line(&f.to_string_lossy()))
        .unwrap_or_else(|| shown.clone());
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    errors.extend(walk_text(&shown, &label, &stem, &text, visit));
    Ok(errors)
}

/// [`walk`] over text already read (standard input, for one): `shown` names it in
/// messages, `label` and `stem` make the records' labels and fallback ids.
pub fn walk_text(
    shown: &str,
    label: &str,
    stem: &str,
    text: &str,
    visit: &mut dyn FnMut(&Value, &Origin) -> Result<(), InputError>,
) -> Vec<InputError> {
    let mut errors = Vec::new();
    let origin = |label: String, fallback_id: String, place: String| Origin {
        file: shown.to_string(),
        label,
        fallback_id,
        place,
    };
    let mut push = |r: Result<(), InputError>| {
        if let Err(e) = r {
            errors.push(e);
        }
    };
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(items)) => {
            for (i, v) in items.iter().enumerate() {
                let o = origin(
                    format!("{label}#{}", i + 1),
                    format!("{stem}#{}", i + 1),
                    format!("/{i}"),
                );
                push(visit(v, &o));
            }
        }
        Ok(v) => push(visit(
            &v,
            &origin(label.to_string(), stem.to_string(), String::new()),
        )),
        Err(whole) if !first_line_is_json(text) => {
            // not JSON Lines either (a document cut short, or plain text): one error,
            // where the document breaks
            push(Err(crate::model::load::not_json(
                shown,
                text,
                "evidence (a retrieval response, fixture, selector block or JSON Lines of them)",
            )
            .unwrap_or_else(|| {
                crate::model::load::json_error(shown, &whole, "")
            })));
        }
        Err(whole) => {
            let mut any_line = false;
            for (i, line) in text.split('\n').enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                any_line = true;
                match serde_json::from_str::<Value>(line) {
                    Ok(v) => {
                        let o = origin(
                            format!("{label}:{}", i + 1),
                            format!("{stem}:{}", i + 1),
                            (i + 1).to_string(),
                        );
                        push(visit(&v, &o));
                    }
                    Err(e) => push(Err(
                        crate::model::load::json_error(shown, &e, "").with_line(i + 1)
                    )),
                }
            }
            if !any_line {
                push(Err(crate::model::load::json_error(shown, &whole, "")));
            }
        }
    }
    errors
}

/// Whether the first non-empty line of `text` is a JSON value on its own: what makes a
/// file that is not one JSON document JSON Lines rather than a broken document.
fn first_line_is_json(text: &str) -> bool {
    text.split('\n')
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| serde_json::from_str::<serde::de::IgnoredAny>(l).is_ok())
}

/// The files of a folder with one of `extensions`, sorted, `manifest.json` aside.
pub fn folder_files(dir: &Path, extensions: &[&str]) -> Result<Vec<PathBuf>, InputError> {
    let shown = crate::limits::shown(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| crate::limits::io_error(&shown, &e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension()
                .is_some_and(|x| extensions.iter().any(|e| x == *e))
                && p.file_name().is_some_and(|n| n != "manifest.json")
        })
        .collect();
    files.sort();
    Ok(files)
}

/// Reads every record of an evidence file or folder with [`walk`] and [`RunRecord::parse`]:
/// values that are no record and records with a malformed field are errors.
pub fn read_records(path: &Path) -> Result<(Vec<RunRecord>, Vec<InputError>), InputError> {
    let mut recs = Vec::new();
    let errors = walk(
        path,
        &mut |v, o| match RunRecord::parse(v, &o.fallback_id) {
            Ok(Some(r)) => {
                recs.push(r);
                Ok(())
            }
            Ok(None) => Err(o.error("", NOT_A_RECORD.into())),
            Err(m) => Err(o.error(&m.pointer, m.message)),
        },
    )?;
    Ok((recs, errors))
}
