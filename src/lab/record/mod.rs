//! The one reader of captured evidence: a [`RunRecord`] — the typed form of one recorded
//! decision — read from any of the shapes toolscope meets (regression fixtures,
//! `retrieve_graphify` responses, batch lines, golden cases, selector blocks and
//! graph-tool-call 0.47.0 trace envelopes) or made from a live run. The Evidence, Diff,
//! Lab and Follow screens, `lab check`, `lab diff` and `lab replay` all read records
//! here, so one file gives every consumer the same rows in the same order; the TUI keeps
//! only presentation.
//!
//! **Which rows a record has** (the one rule): what the record says was returned — a
//! fixture's `ranking` (else its `actual_top_3`), a batch line's `retrieval.results`, a
//! response's `results`, a trace envelope's ranked `retrieval` decisions — and only a
//! record with none of its own (a golden case) is read from `expected.retrieval.results`,
//! the reference's answer. A record carrying both `results` and `expected` is a response
//! with a label: its rows are its `results`. A selector block alone lists its
//! `rank_signals` candidates in retrieval order. The selector block is read in the same
//! order: `target_selector`, `selection`, `expected.selection`, a trace envelope's
//! `target_selection` span, or the record itself when it is one.
//!
//! Keys outside [`keys`] are kept with their values (`unknown`, at every level, rows
//! included), never compared and never dropped. Files, lists, JSON Lines, gzip and
//! standard input are walked by [`walk`].

mod envelope;
pub mod keys;
mod rows;
pub mod skim;
pub mod walk;

use serde_json::{Map, Value};

use crate::engine::knobs::Knobs;
use crate::engine::{Engine, PROFILE, Retrieval, Selection};
use crate::output::row::{Badges, Chips, RowView};

/// Why a row is in the top-K (one type for live and recorded rows).
pub use crate::output::row::Why;

pub use walk::{Item, Items, NOT_A_RECORD, Origin, folder_files, read_records, walk};

/// The trace envelope schema this version reads.
pub const TRACE_SCHEMA: &str = "1.0";
/// The engine version whose decisions this engine reproduces.
pub const ENGINE_VERSION: &str = "0.47.0";

/// What a captured record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RecordKind {
    Fixture,
    Response,
    BatchLine,
    GoldenCase,
    SelectorBlock,
    TraceEnvelope,
    /// Made from a live run (or a value with a selector block but no other mark).
    #[default]
    Record,
}

impl RecordKind {
    pub fn name(self) -> &'static str {
        match self {
            RecordKind::Fixture => "fixture",
            RecordKind::Response => "response",
            RecordKind::BatchLine => "batch line",
            RecordKind::GoldenCase => "golden case",
            RecordKind::SelectorBlock => "selector block",
            RecordKind::TraceEnvelope => "trace envelope",
            RecordKind::Record => "record",
        }
    }
}

impl PartialEq<&str> for RecordKind {
    fn eq(&self, other: &&str) -> bool {
        self.name() == *other
    }
}

impl std::fmt::Display for RecordKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How a row is laid out in its record: where its name, score and evidence sit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RowShape {
    /// A result row (`name` or `tool`, `score`, evidence beside them), or a bare name.
    #[default]
    Row,
    /// The same, named by `tool`.
    ToolRow,
    /// A trace decision: `subject`, `score`, evidence under `evidence`.
    Decision,
    /// A selector candidate (`rank_signals`): `name`, `retrieval_score`, `original_rank`.
    Candidate,
}

/// One ranked row of a record.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RowRecord {
    pub name: String,
    pub rank: usize,
    pub score: Option<f64>,
    /// `score_breakdown` as given (numbers and booleans).
    pub breakdown: Map<String, Value>,
    /// seed, graph and learning of the score breakdown.
    pub chips: Chips,
    /// The breakdown's `history_demoted`.
    pub history_demoted: bool,
    /// action, resource, module, shape, contract matches (`semantic_evidence`, else the
    /// breakdown's numbers).
    pub badges: Badges,
    /// `semantic_evidence.matched_terms`.
    pub matched: Vec<String>,
    /// `semantic_evidence.summary_matched_terms`: query terms found in the summary (the
    /// matched column shows them when `matched` is empty).
    pub summary_matched: Vec<String>,
    pub why: Why,
    /// Where the row sits in its record (a JSON pointer; empty for a live run's rows).
    pub at: String,
    pub shape: RowShape,
    /// Keys of the row (and its nested evidence) outside [`keys`]: (path, value).
    pub unknown: Vec<(String, Value)>,
}

impl RowRecord {
    /// Where the row's name sits in the record.
    pub fn name_pointer(&self) -> String {
        let key = match self.shape {
            RowShape::ToolRow => "tool",
            RowShape::Decision => "subject",
            RowShape::Row | RowShape::Candidate => "name",
        };
        format!("{}/{key}", self.at)
    }

    /// Where the row's score sits in the record.
    pub fn score_pointer(&self) -> String {
        let key = match self.shape {
            RowShape::Candidate => "retrieval_score",
            _ => "score",
        };
        format!("{}/{key}", self.at)
    }

    /// Where the row's evidence (score breakdown, semantic and edge evidence) sits.
    pub fn evidence_pointer(&self) -> String {
        match self.shape {
            RowShape::Decision => format!("{}/evidence", self.at),
            _ => self.at.clone(),
        }
    }
}

/// Where a record's selector block sits (its typed answer is on the record; the block
/// itself is read from the record as given: [`RunRecord::selector_block`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SelectorBlock {
    /// A JSON pointer (empty when the record is the block).
    pub at: String,
    /// A trace envelope's selected decision: where its reason codes sit (as recorded,
    /// with the recorder's `selector.*` markers).
    pub decision_codes_at: Option<String>,
}

/// One recorded decision, typed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunRecord {
    /// `case_id`, `id` or `trace_id`; else the place it was read from.
    pub id: String,
    pub kind: RecordKind,
    pub query: Option<String>,
    pub rows: Vec<RowRecord>,
    pub selector: Option<SelectorBlock>,
    pub selected_target: Option<String>,
    pub llm_target: Option<String>,
    pub reason_codes: Vec<String>,
    pub overrode_llm: Option<bool>,
    pub ambiguous: Option<bool>,
    /// The labelled expected tools.
    pub expected: Vec<String>,
    /// `stats.seeds` (a trace envelope's retrieval attributes).
    pub seeds: Vec<String>,
    /// The parameters the decision was made with (defaults where none are recorded).
    pub knobs: Knobs,
    /// Parameters recorded without a usable value (redacted, `"[REDACTED]"`, or of
    /// another type), with the value as recorded: their value is unknown, and [`knobs`]
    /// holds the default in their place, which nothing may take for the recorded one.
    ///
    /// [`knobs`]: RunRecord::knobs
    pub unknown_params: Vec<(String, Value)>,
    /// Engine versions the record names, each with this engine's: `(recorded, ours)`.
    pub versions: Vec<(String, &'static str)>,
    /// The graph fingerprint the record names.
    pub fingerprint: Option<String>,
    /// Where a trace envelope's recorded row count sits.
    pub result_count_at: Option<String>,
    /// Keys outside [`keys`], with their values: (path, value).
    pub unknown: Vec<(String, Value)>,
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

impl RunRecord {
    pub fn names(&self) -> Vec<String> {
        self.rows.iter().map(|r| r.name.clone()).collect()
    }

    /// The selector block in `v`, the value this record was read from.
    pub fn selector_block<'v>(&self, v: &'v Value) -> Option<&'v Map<String, Value>> {
        v.pointer(&self.selector.as_ref()?.at)?.as_object()
    }

    /// Unknown keys of the record and of its rows.
    pub fn unknown_count(&self) -> usize {
        self.unknown.len() + self.rows.iter().map(|r| r.unknown.len()).sum::<usize>()
    }

    /// The record as a live run makes it: each row's projection
    /// ([`crate::output::row::RowView`]: the breakdown with the semantic matches as
    /// 1.0/0.0, rounded score, chips and badges), and the selector's answer.
    pub fn from_run(
        engine: &Engine,
        id: &str,
        r: &Retrieval,
        sel: Option<&Selection>,
    ) -> RunRecord {
        let rows = RowView::all(engine, &r.rows)
            .map(|v| RowRecord {
                name: v.name.to_string(),
                rank: v.rank,
                score: Some(v.rounded),
                breakdown: v.breakdown_map(),
                chips: v.chips_known(),
                history_demoted: v.history_demoted,
                badges: v.badges_known(),
                // matched terms and why stay unset: a live record holds what a fixture
                // file keeps, so `lab check` compares like with like
                ..Default::default()
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
    /// no selection); `Err`: it is one, but a field has the wrong type (or it is a trace
    /// envelope of another schema) — the error names the field by JSON pointer, relative
    /// to `v`.
    pub fn parse(v: &Value, fallback_id: &str) -> Result<Option<RunRecord>, Malformed> {
        let Some(o) = v.as_object() else {
            return Ok(None);
        };
        let mut rec = RunRecord {
            id: fallback_id.to_string(),
            ..Default::default()
        };
        if envelope::is_envelope(o) {
            envelope::read(o, &mut rec)?;
        } else {
            read_plain(o, &mut rec)?;
        }
        if rec.rows.is_empty() && rec.selected_target.is_none() {
            return Ok(None);
        }
        Ok(Some(rec))
    }
}

/// The kind of a record that is not a trace envelope, from its keys.
fn plain_kind(o: &Map<String, Value>) -> RecordKind {
    let expected_retrieval = o
        .get("expected")
        .and_then(|e| e.get("retrieval"))
        .is_some_and(Value::is_object);
    if o.contains_key("case_id") || o.contains_key("actual_top_3") || o.contains_key("ranking") {
        RecordKind::Fixture
    } else if o.contains_key("retrieval") {
        RecordKind::BatchLine
    } else if o.contains_key("results") {
        RecordKind::Response
    } else if expected_retrieval {
        RecordKind::GoldenCase
    } else if o.contains_key("selected_target") {
        RecordKind::SelectorBlock
    } else {
        RecordKind::Record
    }
}

/// Reads a fixture, response, batch line, golden case or selector block.
fn read_plain(o: &Map<String, Value>, rec: &mut RunRecord) -> Result<(), Malformed> {
    rec.kind = plain_kind(o);
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
    rec.query = opt_string(o.get("query"), || "/query".into())?;
    if let Some(t) = opt_string(o.get("expected_target"), || "/expected_target".into())? {
        rec.expected = vec![t];
    } else if o.get("expected_tools").is_some_and(|x| !x.is_null()) {
        rec.expected = strings(o.get("expected_tools"), || "/expected_tools".into())?;
    } else if let Some(l) = o.get("labels").filter(|l| l.is_object()) {
        rec.expected = strings(l.get("expected_tools"), || "/labels/expected_tools".into())?;
    }
    let retrieval = o.get("retrieval").filter(|r| r.is_object());
    let expected = o.get("expected").filter(|e| e.is_object());
    let expected_retrieval = expected
        .and_then(|e| e.get("retrieval"))
        .filter(|r| r.is_object());
    // the retrieval the rows come from carries the stats
    let own_retrieval = retrieval.or(if o.contains_key("results") {
        None
    } else {
        expected_retrieval
    });
    rec.seeds = rows::names(
        own_retrieval
            .and_then(|r| r.get("stats"))
            .or_else(|| o.get("stats"))
            .and_then(|s| s.get("seeds")),
    );
    // the one row rule (see the module's documentation)
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
    for (list, at) in sources {
        match list {
            None | Some(Value::Null) => continue,
            Some(Value::Array(list)) => {
                rec.rows = rows::read_rows(list, at, &rec.seeds)?;
                break;
            }
            Some(_) => return Err(Malformed::new(at, "must be a list of result rows")),
        }
    }
    read_selector(o, expected, rec)?;
    if rec.rows.is_empty()
        && let Some(sel) = &rec.selector
        && let Some(Value::Array(c)) = selector_of(o, &sel.at).and_then(|b| b.get("rank_signals"))
    {
        // a selector block alone: its candidates, in retrieval order
        rec.rows = rows::read_candidates(c, &format!("{}/rank_signals", sel.at))?;
    }
    let provenance = o.get("provenance");
    let prov = |k: &str| provenance.and_then(|p| p.get(k));
    rec.knobs = match prov("params").filter(|p| p.is_object()) {
        Some(p) => knobs_from(Some(p), Some(p), &mut rec.unknown_params),
        None => knobs_from(o.get("params"), o.get("selector"), &mut rec.unknown_params),
    };
    answer_as_input(o, rec);
    if let Some(profile) = prov("engine_profile").and_then(Value::as_str) {
        rec.versions.push((profile.to_string(), PROFILE));
    }
    rec.fingerprint = prov("graph_fingerprint")
        .and_then(Value::as_str)
        .map(String::from);
    plain_unknown(o, own_retrieval, rec);
    Ok(())
}

/// The selector's answer names what it was given: its `llm_target` and `policy` are the
/// selector's inputs when the record does not state them as such (a service's logged
/// response carries `target_selector` but no `selector` request), so a replay feeds the
/// recorded LLM pick back in instead of running the selector without one.
fn answer_as_input(o: &Map<String, Value>, rec: &mut RunRecord) {
    let Some(sel) = &rec.selector else {
        return;
    };
    let stated = |k: &str| {
        o.get("selector").is_some_and(|s| s.get(k).is_some())
            || o.get("provenance")
                .and_then(|p| p.get("params"))
                .is_some_and(|p| p.get(k).is_some())
    };
    if !stated("llm_target") && rec.knobs.select.llm_target.is_none() {
        rec.knobs.select.llm_target = rec.llm_target.clone().filter(|t| !t.is_empty());
    }
    if !stated("policy")
        && let Some(p) = selector_of(o, &sel.at)
            .and_then(|b| b.get("policy"))
            .and_then(Value::as_str)
    {
        rec.knobs.select.policy = p.into();
    }
}

/// The selector block of a plain record, and the answer it gives.
fn read_selector(
    o: &Map<String, Value>,
    expected: Option<&Value>,
    rec: &mut RunRecord,
) -> Result<(), Malformed> {
    let found = [
        (o.get("target_selector"), "/target_selector"),
        (o.get("selection"), "/selection"),
        (
            expected.and_then(|e| e.get("selection")),
            "/expected/selection",
        ),
    ]
    .into_iter()
    .find_map(|(s, at)| s.filter(|s| !s.is_null()).map(|s| (s, at)));
    let (block, at) = match found {
        Some((Value::Object(s), at)) => (s, at),
        Some((_, at)) => return Err(Malformed::new(at, "must be an object")),
        None if o.contains_key("selected_target") => (o, ""),
        None => return Ok(()),
    };
    read_answer(block, at, rec)?;
    rec.selector = Some(SelectorBlock {
        at: at.to_string(),
        decision_codes_at: None,
    });
    Ok(())
}

/// The selector block of a plain record `o` at `at` (as [`read_selector`] found it).
fn selector_of<'a>(o: &'a Map<String, Value>, at: &str) -> Option<&'a Map<String, Value>> {
    match at {
        "" => Some(o),
        "/expected/selection" => o.get("expected")?.get("selection")?.as_object(),
        _ => o.get(at.trim_start_matches('/'))?.as_object(),
    }
}

/// The unknown keys of a plain record, outside its rows (`retrieval`: the retrieval its
/// rows came from, when they came from one).
fn plain_unknown(o: &Map<String, Value>, retrieval: Option<&Value>, rec: &mut RunRecord) {
    use keys::{any_unknown, unknown_in, unknown_of};
    let out = &mut rec.unknown;
    if rec.kind == RecordKind::SelectorBlock {
        unknown_of(o, keys::SELECTOR, "", out);
    } else {
        unknown_of(o, keys::TOP, "", out);
        for key in ["target_selector", "selection"] {
            if any_unknown(o.get(key), keys::SELECTOR) {
                unknown_in(o.get(key), keys::SELECTOR, &format!("{key}."), out);
            }
        }
    }
    if let Some(e) = o.get("expected") {
        unknown_in(Some(e), keys::EXPECTED, "expected.", out);
        unknown_in(
            e.get("retrieval"),
            keys::RETRIEVAL,
            "expected.retrieval.",
            out,
        );
        unknown_in(
            e.get("selection"),
            keys::SELECTOR,
            "expected.selection.",
            out,
        );
    }
    if let Some(r) = o.get("retrieval") {
        unknown_in(Some(r), keys::RETRIEVAL, "retrieval.", out);
    }
    let pre = match retrieval {
        Some(_) if o.contains_key("retrieval") => "retrieval.",
        Some(_) => "expected.retrieval.",
        None => "",
    };
    for (key, known) in [("stats", keys::STATS), ("intent", keys::INTENT)] {
        let (v, pre) = match retrieval.and_then(|r| r.get(key)) {
            Some(x) => (Some(x), pre),
            None => (o.get(key), ""),
        };
        if any_unknown(v, known) {
            unknown_in(v, known, &format!("{pre}{key}."), out);
        }
    }
    unknown_in(o.get("provenance"), keys::PROVENANCE, "provenance.", out);
}

/// Whether a recorded value is a scrubber's redaction marker (`"[REDACTED]"`,
/// `"[REDACTED:email]"`, …).
pub fn is_redacted(v: &Value) -> bool {
    v.as_str().is_some_and(|s| s.contains("[REDACTED"))
}

/// Applies `params`-like keys (`top_k`, `depth`, `token_budget`, `history`,
/// `learning_suggestions`) of `p` and `llm_target`/`policy` of `s` over the defaults.
/// Missing (or null) values keep the default; a value that is there but unusable —
/// redacted, or of another type — is pushed on `unknown` with the value as recorded (the
/// default stays in its place, to be used by nobody as if it were recorded).
fn knobs_from(p: Option<&Value>, s: Option<&Value>, unknown: &mut Vec<(String, Value)>) -> Knobs {
    let mut k = Knobs::default();
    // the value of `key` in `o` when usable; an unusable one is noted as unknown
    let mut get = |o: Option<&Value>, key: &str, usable: &dyn Fn(&Value) -> bool| {
        let v = o?.get(key).filter(|v| !v.is_null())?;
        if usable(v) && !is_redacted(v) {
            Some(v.clone())
        } else {
            unknown.push((key.to_string(), v.clone()));
            None
        }
    };
    let uint = |v: &Value| v.is_u64();
    let strings = |v: &Value| {
        v.as_array()
            .is_some_and(|a| a.iter().all(|x| x.is_string() && !is_redacted(x)))
    };
    let size = |v: Value| v.as_u64().unwrap_or_default() as usize;
    if let Some(x) = get(p, "top_k", &uint) {
        k.params.top_k = size(x);
    }
    if let Some(x) = get(p, "depth", &uint) {
        k.params.depth = size(x);
    }
    if let Some(x) = get(p, "token_budget", &uint) {
        k.params.token_budget = size(x);
    }
    if let Some(Value::Array(h)) = get(p, "history", &strings) {
        k.params.history = h
            .iter()
            .filter_map(|x| x.as_str().map(String::from))
            .collect();
    }
    if let Some(Value::Array(l)) = get(p, "learning_suggestions", &Value::is_array) {
        k.params.learning_suggestions = l;
    }
    if let Some(Value::String(t)) = get(s, "llm_target", &Value::is_string) {
        k.select.llm_target = Some(t);
    }
    if let Some(Value::String(p)) = get(s, "policy", &Value::is_string) {
        k.select.policy = p.as_str().into();
    }
    k
}

// (the error's pointer is built only when there is an error)

fn opt_string(v: Option<&Value>, at: impl FnOnce() -> String) -> Result<Option<String>, Malformed> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(Malformed::new(&at(), "must be a string")),
    }
}

fn opt_bool(v: Option<&Value>, at: impl FnOnce() -> String) -> Result<Option<bool>, Malformed> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(Malformed::new(&at(), "must be true or false")),
    }
}

fn strings(v: Option<&Value>, at: impl Fn() -> String) -> Result<Vec<String>, Malformed> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, x)| match x {
                Value::String(s) => Ok(s.clone()),
                _ => Err(Malformed::new(&format!("{}/{i}", at()), "must be a string")),
            })
            .collect(),
        Some(_) => Err(Malformed::new(&at(), "must be a list of strings")),
    }
}

/// The selector's typed answer from its block at `at`: target, LLM target, reason codes
/// and flags.
fn read_answer(block: &Map<String, Value>, at: &str, rec: &mut RunRecord) -> Result<(), Malformed> {
    let p = |k: &'static str| move || format!("{at}/{k}");
    rec.selected_target = opt_string(block.get("selected_target"), p("selected_target"))?;
    rec.llm_target = opt_string(block.get("llm_target"), p("llm_target"))?;
    rec.reason_codes = strings(block.get("reason_codes"), p("reason_codes"))?;
    rec.overrode_llm = opt_bool(block.get("overrode_llm"), p("overrode_llm"))?;
    rec.ambiguous = opt_bool(block.get("ambiguous"), p("ambiguous"))?;
    Ok(())
}

#[cfg(test)]
mod tests;
