//! `lab replay`: does production agree with this artifact? Every recorded decision whose
//! query and parameters are present is recomputed and compared field by field with what
//! was recorded — names, order, rounded scores, the selector's target, flags and reason
//! codes — and a disagreement is classified.
//!
//! Records are read as a stream ([`super::record::Items`]) by the one record reader
//! ([`super::record::RunRecord::parse`]), so replay compares exactly the rows and the
//! selector block the Evidence and Diff screens show: graph-tool-call 0.47.0 trace
//! envelopes (`TraceEnvelope.to_dict()`, schema 1.0), toolscope batch lines with their
//! query, responses, golden cases (`query`, `params`, `selector`, `expected`), and
//! regression fixtures; each difference is a JSON pointer into the record as recorded. A
//! record that says nothing replayable is `partial` (its query was scrubbed, or it has
//! none, or a parameter the ranking depends on was redacted: an unknown value is never
//! replaced by a default), never a false alarm. Memory holds one batch of records, never the file or the
//! outcomes.
//!
//! A drift is classified in this order: `version_skew` (the recorded engine version or
//! profile is not this engine's), `stale_artifact` (the recorded graph fingerprint differs,
//! or a recorded tool is not in this graph), `parameters_differ` (a nearby authorised
//! setting reproduces the record: one knob at a time over a declared grid, then top_k with
//! depth), else `unexplained`.

use serde_json::{Map, Value};

use super::record::{Item, Items, NOT_A_RECORD, RecordKind, RowShape, RunRecord};
use crate::engine::knobs::Knobs;
use crate::engine::{Engine, Params, Retrieval, SelectParams, Selection};

/// The recorder keeps this many characters of a text attribute and appends `...`.
pub const TRACE_TEXT_CHARS: usize = 240;
pub use super::record::{ENGINE_VERSION, TRACE_SCHEMA};

/// What became of one record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Reproduced,
    Drifted,
    Partial,
    Unreadable,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Reproduced => "reproduced",
            Status::Drifted => "drifted",
            Status::Partial => "partial",
            Status::Unreadable => "unreadable",
        }
    }
}

/// Why a recorded decision and the recomputed one disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriftKind {
    VersionSkew,
    StaleArtifact,
    ParametersDiffer,
    Unexplained,
}

impl DriftKind {
    pub const ALL: [DriftKind; 4] = [
        DriftKind::VersionSkew,
        DriftKind::StaleArtifact,
        DriftKind::ParametersDiffer,
        DriftKind::Unexplained,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DriftKind::VersionSkew => "version_skew",
            DriftKind::StaleArtifact => "stale_artifact",
            DriftKind::ParametersDiffer => "parameters_differ",
            DriftKind::Unexplained => "unexplained",
        }
    }
}

/// The first field where the record and the replay disagree.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// A JSON pointer into the recorded value.
    pub pointer: String,
    pub recorded: Value,
    pub recomputed: Value,
}

/// The verdict on one record.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The record's id, else `FILE:LINE` (or `FILE#N` in a list).
    pub record: String,
    pub kind: &'static str,
    pub status: Status,
    pub drift_kind: Option<DriftKind>,
    pub difference: Option<Difference>,
    /// For `partial` and `unreadable`: why; for `version_skew` and `stale_artifact`: what
    /// differs; for `parameters_differ`: the setting that reproduces the record.
    pub detail: Option<String>,
}

/// Which recomputed value a recorded field is compared with.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Field {
    /// The name of retrieval row `i` (or null past the end).
    RowName(usize),
    /// The rounded score of retrieval row `i`.
    RowScore(usize),
    /// The number of retrieval rows.
    RowCount,
    /// A top-level key of the selector's answer.
    Selection(&'static str),
    /// The selector's reason codes, without the recorder's `selector.*` markers.
    SelectedCodes,
}

const SELECTION_KEYS: &[&str] = &[
    "selected_target",
    "llm_target",
    "overrode_llm",
    "ambiguous",
    "needs_expansion",
    "decision",
    "recommended_action",
    "margin",
    "policy",
    "override_assessment",
];

/// `(pointer, recorded value, what)`: the recorded fields a replay compares, in order —
/// the recorded row count, each row's name and score, then the selector's answer.
type Fields = Vec<(String, Value, Field)>;

fn fields_of(rec: &RunRecord, v: &Value) -> Fields {
    let mut out = Vec::new();
    let at = |p: &String| v.pointer(p).cloned().map(|x| (p.clone(), x));
    if let Some((p, n)) = rec.result_count_at.as_ref().and_then(at) {
        out.push((p, n, Field::RowCount));
    }
    // a selector block's candidates are the selector's view, not a recorded retrieval
    if rec
        .rows
        .first()
        .is_none_or(|r| r.shape != RowShape::Candidate)
    {
        for (i, r) in rec.rows.iter().enumerate() {
            out.push((
                r.name_pointer(),
                Value::from(r.name.as_str()),
                Field::RowName(i),
            ));
            if let Some(s) = r.score {
                out.push((r.score_pointer(), Value::from(s), Field::RowScore(i)));
            }
        }
    }
    if let (Some(sel), Some(block)) = (&rec.selector, rec.selector_block(v)) {
        for &k in SELECTION_KEYS.iter().chain(&["reason_codes"]) {
            if let Some(x) = block.get(k) {
                out.push((format!("{}/{k}", sel.at), x.clone(), Field::Selection(k)));
            }
        }
        if let Some((p, x)) = sel.decision_codes_at.as_ref().and_then(at) {
            out.push((p, x, Field::SelectedCodes));
        }
    }
    out
}

/// The tool names a record mentions: its rows and the selected target.
fn tools_of(rec: &RunRecord) -> impl Iterator<Item = &str> {
    rec.rows
        .iter()
        .map(|r| r.name.as_str())
        .chain(rec.selected_target.as_deref())
}

/// A recomputed decision, in the shapes the records are compared with.
struct Recomputed {
    r: Retrieval,
    selection: Value,
}

fn recompute(engine: &Engine, query: &str, k: &Knobs) -> Recomputed {
    let r = engine.retrieve(query, &k.params);
    let s: Selection = engine.select(&r, &k.select);
    let selection = serde_json::from_str(&crate::output::json::selection_verdict_json(&s))
        .unwrap_or(Value::Null);
    Recomputed { r, selection }
}

fn value_of(rc: &Recomputed, f: Field) -> Value {
    match f {
        Field::RowName(i) => {
            rc.r.rows
                .get(i)
                .map_or(Value::Null, |r| Value::from(r.name.as_str()))
        }
        Field::RowScore(i) => {
            rc.r.rows
                .get(i)
                .map_or(Value::Null, |r| Value::from(r.rounded_score()))
        }
        Field::RowCount => Value::from(rc.r.rows.len()),
        Field::Selection(k) => rc.selection.get(k).cloned().unwrap_or(Value::Null),
        Field::SelectedCodes => rc
            .selection
            .get("reason_codes")
            .cloned()
            .unwrap_or(Value::Null),
    }
}

/// Equal as the reference would write them: numbers by value, the recorder's
/// `selector.*` markers aside, objects key by key.
fn same(recorded: &Value, recomputed: &Value, f: Field) -> bool {
    match (recorded, recomputed) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::Array(a), Value::Array(b)) if f == Field::SelectedCodes => {
            let a: Vec<&Value> = a
                .iter()
                .filter(|c| !c.as_str().is_some_and(|s| s.starts_with("selector.")))
                .collect();
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| *x == y)
        }
        (Value::Object(a), Value::Object(b)) => a
            .iter()
            .all(|(k, v)| b.get(k).is_some_and(|w| same(v, w, f))),
        (a, b) => a == b,
    }
}

/// The first recorded field the recomputed decision does not reproduce. Rows the replay
/// has beyond the recorded ones count when the record gives its row count.
fn first_difference(kind: RecordKind, fields: &Fields, rc: &Recomputed) -> Option<Difference> {
    let recorded_rows = fields
        .iter()
        .filter(|(_, _, f)| matches!(f, Field::RowName(_)))
        .count();
    for (p, v, f) in fields {
        let got = value_of(rc, *f);
        if !same(v, &got, *f) {
            return Some(Difference {
                pointer: p.clone(),
                recorded: v.clone(),
                recomputed: got,
            });
        }
    }
    let counted = fields.iter().any(|(_, _, f)| *f == Field::RowCount);
    if !counted
        && recorded_rows > 0
        && rc.r.rows.len() > recorded_rows
        && kind != RecordKind::Fixture
    {
        let extra = &rc.r.rows[recorded_rows];
        return Some(Difference {
            pointer: format!("(row {})", recorded_rows + 1),
            recorded: Value::Null,
            recomputed: Value::from(extra.name.as_str()),
        });
    }
    None
}

/// Nearby authorised settings, one knob at a time, then top_k with depth.
fn nearby(k: &Knobs) -> Vec<(String, Knobs)> {
    let mut out = Vec::new();
    let mut push = |what: String, f: &dyn Fn(&mut Params, &mut SelectParams)| {
        let mut n = k.clone();
        f(&mut n.params, &mut n.select);
        if n != *k && !out.iter().any(|(_, m)| *m == n) {
            out.push((what, n));
        }
    };
    for t in [1usize, 3, 5, 10, 20] {
        push(format!("top_k={t}"), &|p, _| p.top_k = t);
    }
    for d in 0..=3usize {
        push(format!("depth={d}"), &|p, _| p.depth = d);
    }
    for b in [500usize, 1000, 2000, 4000, 8000] {
        push(format!("token_budget={b}"), &|p, _| p.token_budget = b);
    }
    for pol in ["strong_evidence", "risk_limited"] {
        push(format!("policy={pol}"), &|_, s| s.policy = pol.into());
    }
    push("llm_target=null".into(), &|_, s| s.llm_target = None);
    push("history=[]".into(), &|p, _| p.history.clear());
    for t in [1usize, 3, 5, 10, 20] {
        for d in 0..=3usize {
            push(format!("top_k={t}, depth={d}"), &|p, _| {
                p.top_k = t;
                p.depth = d;
            });
        }
    }
    out
}

fn classify(
    engine: &Engine,
    rec: &RunRecord,
    fields: &Fields,
    query: &str,
) -> (DriftKind, Option<String>) {
    for (got, want) in &rec.versions {
        if got != want {
            return (
                DriftKind::VersionSkew,
                Some(format!(
                    "recorded by {} (this engine: {want})",
                    crate::sanitize::line(got)
                )),
            );
        }
    }
    if let Some(fp) = &rec.fingerprint {
        let ours = format!("sha256:{}", engine.graph.fingerprint());
        if *fp != ours && fp.trim_start_matches("sha256:") != engine.graph.fingerprint() {
            return (
                DriftKind::StaleArtifact,
                Some(format!(
                    "recorded against graph {}, this graph is {ours}",
                    crate::sanitize::line(fp)
                )),
            );
        }
    }
    if let Some(missing) = tools_of(rec).find(|t| engine.graph.tool_id(t).is_none()) {
        return (
            DriftKind::StaleArtifact,
            Some(format!(
                "{} is not in this graph",
                crate::sanitize::line(missing)
            )),
        );
    }
    for (what, k) in nearby(&rec.knobs) {
        let rc = recompute(engine, query, &k);
        if first_difference(rec.kind, fields, &rc).is_none() {
            return (
                DriftKind::ParametersDiffer,
                Some(format!("reproduced with {what}")),
            );
        }
    }
    (DriftKind::Unexplained, None)
}

/// Replays one value of an evidence file: read with the one record reader, then
/// [`replay_record`]. `label` names it (its place in the file).
pub fn replay_value(engine: &Engine, v: &Value, label: &str) -> Outcome {
    match RunRecord::parse(v, "") {
        Ok(Some(rec)) => replay_record(engine, &rec, v, label),
        Ok(None) => unreadable(label, NOT_A_RECORD.into()),
        Err(m) if m.pointer.is_empty() => unreadable(label, m.message),
        Err(m) => unreadable(label, format!("{}: {}", m.pointer, m.message)),
    }
}

/// An `unreadable` outcome for the part at `place`.
pub fn unreadable(place: &str, why: String) -> Outcome {
    Outcome {
        record: place.to_string(),
        kind: "record",
        status: Status::Unreadable,
        drift_kind: None,
        difference: None,
        detail: Some(why),
    }
}

/// Replays one record, read from `v` (the fields it compares are read there, by the
/// record's pointers). `label` names it (its place in the file); the outcome's `record`
/// is the label and the record's own id when it has one (read with an empty fallback id).
pub fn replay_record(engine: &Engine, rec: &RunRecord, v: &Value, label: &str) -> Outcome {
    let outcome = |status, detail: Option<String>| Outcome {
        record: if rec.id.is_empty() {
            label.to_string()
        } else {
            format!("{label} {}", rec.id)
        },
        kind: rec.kind.name(),
        status,
        drift_kind: None,
        difference: None,
        detail,
    };
    let Some(query) = rec.query.as_deref() else {
        return outcome(Status::Partial, Some("no query text recorded".into()));
    };
    if query.contains("[REDACTED") {
        return outcome(Status::Partial, Some("the query was scrubbed".into()));
    }
    if rec.kind == RecordKind::TraceEnvelope
        && query.ends_with("...")
        && query.chars().count() == TRACE_TEXT_CHARS + 3
    {
        return outcome(
            Status::Partial,
            Some(format!(
                "the recorder cut the query at {TRACE_TEXT_CHARS} characters"
            )),
        );
    }
    if crate::limits::check_query(query).is_err() {
        return outcome(
            Status::Unreadable,
            Some("the query is over the query limit".into()),
        );
    }
    if let Some(why) = unknown_parameter(rec) {
        return outcome(Status::Partial, Some(why));
    }
    let fields = fields_of(rec, v);
    if fields.is_empty() {
        return outcome(
            Status::Partial,
            Some("no ranked rows or selection recorded".into()),
        );
    }
    let rc = recompute(engine, query, &rec.knobs);
    match first_difference(rec.kind, &fields, &rc) {
        None => outcome(Status::Reproduced, None),
        Some(d) => {
            let (kind, detail) = classify(engine, rec, &fields, query);
            let mut o = outcome(Status::Drifted, detail);
            o.drift_kind = Some(kind);
            o.difference = Some(d);
            o
        }
    }
}

/// Why a record cannot be replayed for a parameter whose recorded value is unknown
/// (redacted, or unusable), never replaced by a default. `token_budget` aside: it only
/// bounds the subgraph text, which a replay does not compare (graph-tool-call 0.47.0's
/// recorder redacts it in every envelope, its name looking like a secret's).
fn unknown_parameter(rec: &RunRecord) -> Option<String> {
    let (name, v) = rec
        .unknown_params
        .iter()
        .find(|(name, _)| name != "token_budget")?;
    let how = if super::record::is_redacted(v) {
        "redacted".to_string()
    } else {
        format!(
            "recorded as {}",
            crate::sanitize::line(&crate::jsonout::to_compact_safe(v))
        )
    };
    Some(format!(
        "parameter {} was {how}: its value is unknown",
        crate::sanitize::line(name)
    ))
}

/// Counts over a replay.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    pub records: usize,
    pub reproduced: usize,
    pub drifted: usize,
    pub partial: usize,
    pub unreadable: usize,
    /// Drifted records per kind, in [`DriftKind::ALL`] order.
    pub by_kind: [usize; 4],
}

impl Summary {
    pub fn add(&mut self, o: &Outcome) {
        self.records += 1;
        match o.status {
            Status::Reproduced => self.reproduced += 1,
            Status::Drifted => self.drifted += 1,
            Status::Partial => self.partial += 1,
            Status::Unreadable => self.unreadable += 1,
        }
        if let Some(k) = o.drift_kind {
            self.by_kind[DriftKind::ALL.iter().position(|x| *x == k).unwrap_or(3)] += 1;
        }
    }
}

/// One outcome as a JSON object (a line of `lab replay --json`).
pub fn outcome_json(o: &Outcome) -> String {
    let mut m = Map::new();
    m.insert("record".into(), o.record.clone().into());
    m.insert("kind".into(), o.kind.into());
    m.insert("status".into(), o.status.name().into());
    m.insert(
        "drift_kind".into(),
        o.drift_kind
            .map(|k| Value::from(k.name()))
            .unwrap_or(Value::Null),
    );
    let d = o.difference.as_ref();
    m.insert(
        "first_difference".into(),
        d.map(|d| Value::from(d.pointer.as_str()))
            .unwrap_or(Value::Null),
    );
    m.insert(
        "recorded".into(),
        d.map(|d| d.recorded.clone()).unwrap_or(Value::Null),
    );
    m.insert(
        "recomputed".into(),
        d.map(|d| d.recomputed.clone()).unwrap_or(Value::Null),
    );
    m.insert(
        "detail".into(),
        o.detail.clone().map(Value::from).unwrap_or(Value::Null),
    );
    crate::jsonout::to_compact_safe(&Value::Object(m))
}

/// Lines (or values) replayed together on every core; fewer when the input stalls.
pub const BATCH: usize = 1024;

/// Replays one part of an evidence stream (a line is parsed here, on a worker).
fn replay_item(engine: &Engine, item: &Item) -> Outcome {
    match item {
        Item::Value(v, o) => replay_value(engine, v, &o.label),
        Item::Line(bytes, o) => match crate::jsonin::from_slice(bytes) {
            Ok(v) => replay_value(engine, &v, &o.label),
            Err(e) => {
                let line = o.place.parse().unwrap_or(0);
                error_outcome(walk_line_error(&o.file, &e, line))
            }
        },
        Item::Error(e) => error_outcome(e.clone()),
    }
}

fn walk_line_error(file: &str, e: &serde_json::Error, line: usize) -> crate::error::InputError {
    crate::model::load::json_error(file, e, "").with_line(line)
}

/// The `unreadable` outcome of a part that could not be read, at its place.
fn error_outcome(e: crate::error::InputError) -> Outcome {
    let place = if e.place.is_empty() {
        e.file.clone()
    } else {
        format!("{}:{}", e.file, e.place)
    };
    unreadable(&place, e.message)
}

/// The parts of `paths` (files, fixture folders, or `-` for standard input), opened up
/// front so a path that cannot be read fails before anything is replayed.
fn sources(
    paths: &[String],
) -> Result<Vec<Box<dyn Iterator<Item = Item> + Send>>, crate::error::InputError> {
    let mut out: Vec<Box<dyn Iterator<Item = Item> + Send>> = Vec::new();
    for p in paths {
        let path = std::path::Path::new(p);
        if p != "-" && path.is_dir() {
            let files = super::record::folder_files(path, &["json", "jsonl"])?;
            if files.is_empty() {
                let e = crate::error::InputError::new(
                    &crate::limits::shown(path),
                    "",
                    "no .json or .jsonl file in the folder".into(),
                );
                out.push(Box::new(std::iter::once(Item::Error(e))));
            }
            for f in files {
                match Items::open_as_given(&f.to_string_lossy()) {
                    Ok(items) => out.push(Box::new(items)),
                    Err(e) => out.push(Box::new(std::iter::once(Item::Error(e)))),
                }
            }
        } else {
            out.push(Box::new(Items::open_as_given(p)?));
        }
    }
    Ok(out)
}

/// Replays every record of `paths` (files, fixture folders, or `-` for standard input)
/// as a stream: a reader thread reads ahead (at most [`BATCH`] parts), and the parts read
/// so far — a full batch, or fewer when the reader has nothing more yet — are replayed on
/// every core and handed to `emit` in input order, so memory holds one batch and a pipe's
/// records come out as they arrive. `emit` returns false to stop (its output was closed).
/// Parts that cannot be read (a torn or non-JSON line, a value that is no record) are
/// `unreadable` outcomes with their place, never fatal; `Err` only when a path cannot be
/// opened at all (before anything is replayed).
pub fn replay_stream(
    engine: &Engine,
    paths: &[String],
    emit: &mut dyn FnMut(&[Outcome]) -> bool,
) -> Result<(), crate::error::InputError> {
    use std::sync::mpsc::{TryRecvError, sync_channel};
    let parts = sources(paths)?;
    let (tx, rx) = sync_channel::<Item>(BATCH);
    // not joined: when the output closes, a reader blocked on a quiet pipe is left behind
    std::thread::spawn(move || {
        for item in parts.into_iter().flatten() {
            if tx.send(item).is_err() {
                break;
            }
        }
    });
    let mut batch: Vec<Item> = Vec::with_capacity(BATCH);
    while let Ok(first) = rx.recv() {
        batch.push(first);
        while batch.len() < BATCH {
            match rx.try_recv() {
                Ok(it) => batch.push(it),
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => break,
            }
        }
        let outcomes = crate::par::map_heavy(&batch, |it| replay_item(engine, it));
        batch.clear();
        if !emit(&outcomes) {
            break;
        }
    }
    Ok(())
}
