//! `lab replay`: does production agree with this artifact? Every recorded decision whose
//! query and parameters are present is recomputed and compared field by field with what
//! was recorded — names, order, rounded scores, the selector's target, flags and reason
//! codes — and a disagreement is classified.
//!
//! Records are read with the one evidence walk ([`super::record::walk`]): graph-tool-call
//! 0.47.0 trace envelopes (`TraceEnvelope.to_dict()`, schema 1.0: the request's query and
//! parameters in `attributes`, the ranked rows as the `retrieval` span's decisions, the
//! selector's answer as the `target_selection` span's attributes), toolscope batch lines
//! with their query, golden cases (`query`, `params`, `selector`, `expected`), and
//! regression fixtures. A record that says nothing replayable is `partial` (its query was
//! scrubbed, or it has none), never a false alarm.
//!
//! A drift is classified in this order: `version_skew` (the recorded engine version or
//! profile is not this engine's), `stale_artifact` (the recorded graph fingerprint differs,
//! or a recorded tool is not in this graph), `parameters_differ` (a nearby authorised
//! setting reproduces the record: one knob at a time over a declared grid, then top_k with
//! depth), else `unexplained`.

use serde_json::{Map, Value};

use crate::engine::knobs::Knobs;
use crate::engine::{Engine, PROFILE, Params, Retrieval, SelectParams, Selection};

/// The engine version whose decisions this engine reproduces.
pub const ENGINE_VERSION: &str = "0.47.0";
/// The recorder keeps this many characters of a text attribute and appends `...`.
pub const TRACE_TEXT_CHARS: usize = 240;
pub use super::record::TRACE_SCHEMA;

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

/// One record as far as replay needs it.
struct Recorded<'a> {
    kind: &'static str,
    id: Option<String>,
    query: Option<String>,
    knobs: Knobs,
    /// Versions the record names (engine version, profile), with what they should be.
    versions: Vec<(String, &'static str)>,
    fingerprint: Option<String>,
    /// `(pointer, value, what)`: the recorded fields to compare, in order.
    fields: Vec<(String, &'a Value, Field)>,
    /// Tool names the record mentions.
    tools: Vec<&'a str>,
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

fn uint(v: Option<&Value>) -> Option<usize> {
    v.and_then(Value::as_u64).map(|x| x as usize)
}

fn strings(v: Option<&Value>) -> Option<Vec<String>> {
    v.and_then(Value::as_array).map(|a| {
        a.iter()
            .filter_map(|x| x.as_str().map(String::from))
            .collect()
    })
}

/// Applies `params`-like keys (`top_k`, `depth`, `token_budget`, `history`) of `p` and
/// `llm_target`/`policy` of `s` over the defaults. Redacted or missing values keep the
/// default.
fn knobs_from(p: Option<&Value>, s: Option<&Value>) -> Knobs {
    let mut k = Knobs::default();
    if let Some(p) = p {
        if let Some(x) = uint(p.get("top_k")) {
            k.params.top_k = x;
        }
        if let Some(x) = uint(p.get("depth")) {
            k.params.depth = x;
        }
        if let Some(x) = uint(p.get("token_budget")) {
            k.params.token_budget = x;
        }
        if let Some(h) = strings(p.get("history")) {
            k.params.history = h;
        }
        if let Some(l) = p.get("learning_suggestions").and_then(Value::as_array) {
            k.params.learning_suggestions = l.clone();
        }
    }
    if let Some(s) = s {
        k.select.llm_target = s
            .get("llm_target")
            .and_then(Value::as_str)
            .map(String::from);
        if let Some(p) = s.get("policy").and_then(Value::as_str) {
            k.select.policy = p.to_string();
        }
    }
    k
}

fn rows_fields<'a>(rows: &'a [Value], base: &str, out: &mut Vec<(String, &'a Value, Field)>) {
    for (i, r) in rows.iter().enumerate() {
        if let Some(n) = r.get("name") {
            out.push((format!("{base}/{i}/name"), n, Field::RowName(i)));
        }
        if let Some(s) = r.get("score").filter(|s| s.is_number()) {
            out.push((format!("{base}/{i}/score"), s, Field::RowScore(i)));
        }
    }
}

fn selection_fields<'a>(sel: &'a Value, base: &str, out: &mut Vec<(String, &'a Value, Field)>) {
    for &k in SELECTION_KEYS {
        if let Some(v) = sel.get(k) {
            out.push((format!("{base}/{k}"), v, Field::Selection(k)));
        }
    }
    if let Some(v) = sel.get("reason_codes") {
        out.push((
            format!("{base}/reason_codes"),
            v,
            Field::Selection("reason_codes"),
        ));
    }
}

/// Reads a trace envelope; `Err` names what makes it unusable.
fn envelope(v: &Value) -> Result<Recorded<'_>, String> {
    let schema = v
        .get("schema_version")
        .and_then(Value::as_str)
        .unwrap_or("");
    if schema != TRACE_SCHEMA {
        return Err(format!(
            "trace envelope schema_version {} is not supported (this version reads {TRACE_SCHEMA})",
            crate::sanitize::line(
                &v.get("schema_version")
                    .map(|x| x.to_string())
                    .unwrap_or_else(|| "(none)".into())
            )
        ));
    }
    let attrs = v.get("attributes");
    let mut rec = Recorded {
        kind: "trace envelope",
        id: v.get("trace_id").and_then(Value::as_str).map(String::from),
        query: attrs
            .and_then(|a| a.get("query"))
            .and_then(Value::as_str)
            .map(String::from),
        knobs: knobs_of(v).unwrap_or_default(),
        versions: Vec::new(),
        fingerprint: attrs
            .and_then(|a| a.get("graph_fingerprint"))
            .and_then(Value::as_str)
            .map(String::from),
        fields: Vec::new(),
        tools: Vec::new(),
    };
    if let Some(ver) = v.get("graph_tool_call_version").and_then(Value::as_str) {
        rec.versions.push((ver.to_string(), ENGINE_VERSION));
    }
    let spans = v
        .get("spans")
        .and_then(Value::as_array)
        .ok_or("a trace envelope without spans")?;
    for (si, span) in spans.iter().enumerate() {
        let stage = span.get("stage").and_then(Value::as_str).unwrap_or("");
        let decisions = span.get("decisions").and_then(Value::as_array);
        match stage {
            "retrieval" => {
                if let Some(n) = span.pointer("/attributes/result_count") {
                    rec.fields.push((
                        format!("/spans/{si}/attributes/result_count"),
                        n,
                        Field::RowCount,
                    ));
                }
                let mut ranked: Vec<(usize, usize)> = decisions
                    .into_iter()
                    .flatten()
                    .enumerate()
                    .filter(|(_, d)| d.get("outcome").and_then(Value::as_str) == Some("ranked"))
                    .map(|(j, d)| (uint(d.get("rank_after")).unwrap_or(usize::MAX), j))
                    .collect();
                ranked.sort();
                let ds = decisions.map(Vec::as_slice).unwrap_or_default();
                for (i, &(_, j)) in ranked.iter().enumerate() {
                    let d = &ds[j];
                    if let Some(s) = d.get("subject") {
                        rec.fields.push((
                            format!("/spans/{si}/decisions/{j}/subject"),
                            s,
                            Field::RowName(i),
                        ));
                        if let Some(name) = s.as_str() {
                            rec.tools.push(name);
                        }
                    }
                    if let Some(s) = d.get("score").filter(|s| s.is_number()) {
                        rec.fields.push((
                            format!("/spans/{si}/decisions/{j}/score"),
                            s,
                            Field::RowScore(i),
                        ));
                    }
                }
            }
            "target_selection" => {
                if let Some(a) = span.get("attributes") {
                    selection_fields(a, &format!("/spans/{si}/attributes"), &mut rec.fields);
                    if let Some(t) = a.get("selected_target").and_then(Value::as_str) {
                        rec.tools.push(t);
                    }
                }
                for (j, d) in decisions.into_iter().flatten().enumerate() {
                    if d.get("outcome").and_then(Value::as_str) == Some("selected")
                        && let Some(c) = d.get("reason_codes")
                    {
                        rec.fields.push((
                            format!("/spans/{si}/decisions/{j}/reason_codes"),
                            c,
                            Field::SelectedCodes,
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    Ok(rec)
}

/// Reads any supported record; `Err` names what makes it unusable, `Ok(None)`: not a
/// record at all.
fn recorded(v: &Value) -> Result<Option<Recorded<'_>>, String> {
    let Some(o) = v.as_object() else {
        return Ok(None);
    };
    if o.contains_key("spans") || o.contains_key("schema_version") {
        return envelope(v).map(Some);
    }
    let id = o.get("case_id").or_else(|| o.get("id")).and_then(|x| {
        x.as_str()
            .map(String::from)
            .or_else(|| x.as_u64().map(|n| n.to_string()))
    });
    let query = o.get("query").and_then(Value::as_str).map(String::from);
    let mut fields = Vec::new();
    let mut tools = Vec::new();
    let mut versions = Vec::new();
    let mut fingerprint = None;
    let (kind, knobs) = if let Some(exp) = o.get("expected").filter(|e| e.is_object()) {
        if let Some(rows) = exp.pointer("/retrieval/results").and_then(Value::as_array) {
            rows_fields(rows, "/expected/retrieval/results", &mut fields);
        }
        if let Some(sel) = exp.get("selection").filter(|s| s.is_object()) {
            selection_fields(sel, "/expected/selection", &mut fields);
        }
        ("golden case", knobs_of(v).unwrap_or_default())
    } else if o.contains_key("ranking") || o.contains_key("target_selector") {
        if let Some(rows) = o.get("ranking").and_then(Value::as_array) {
            rows_fields(rows, "/ranking", &mut fields);
        }
        if let Some(sel) = o.get("target_selector").filter(|s| s.is_object()) {
            for k in [
                "selected_target",
                "llm_target",
                "overrode_llm",
                "ambiguous",
                "reason_codes",
            ] {
                if let Some(x) = sel.get(k) {
                    fields.push((format!("/target_selector/{k}"), x, Field::Selection(k)));
                }
            }
        }
        if let Some(prof) = v
            .pointer("/provenance/engine_profile")
            .and_then(Value::as_str)
        {
            versions.push((prof.to_string(), PROFILE));
        }
        fingerprint = v
            .pointer("/provenance/graph_fingerprint")
            .and_then(Value::as_str)
            .map(String::from);
        ("fixture", knobs_of(v).unwrap_or_default())
    } else if let Some(ret) = o.get("retrieval").filter(|r| r.is_object()) {
        if let Some(rows) = ret.get("results").and_then(Value::as_array) {
            rows_fields(rows, "/retrieval/results", &mut fields);
        }
        if let Some(sel) = o.get("selection").filter(|s| s.is_object()) {
            selection_fields(sel, "/selection", &mut fields);
        }
        ("batch line", knobs_of(v).unwrap_or_default())
    } else if let Some(rows) = o.get("results").and_then(Value::as_array) {
        rows_fields(rows, "/results", &mut fields);
        if let Some(sel) = o.get("target_selector").filter(|s| s.is_object()) {
            selection_fields(sel, "/target_selector", &mut fields);
        }
        ("response", knobs_of(v).unwrap_or_default())
    } else {
        return Ok(None);
    };
    for (_, v, f) in &fields {
        if matches!(f, Field::RowName(_) | Field::Selection("selected_target"))
            && let Some(n) = v.as_str()
        {
            tools.push(n);
        }
    }
    Ok(Some(Recorded {
        kind,
        id,
        query,
        knobs,
        versions,
        fingerprint,
        fields,
        tools,
    }))
}

/// The parameters a record was decided with (the knobs a replay uses), by the record's
/// kind, in [`recorded`]'s order: an envelope's attributes, a fixture's
/// `provenance.params`, else `params` and `selector`. `None`: not a record.
pub fn knobs_of(v: &Value) -> Option<Knobs> {
    let o = v.as_object()?;
    if o.contains_key("spans") || o.contains_key("schema_version") {
        let a = v.get("attributes");
        return Some(knobs_from(a, a));
    }
    let own = || knobs_from(o.get("params"), o.get("selector"));
    if o.get("expected").is_some_and(Value::is_object) {
        return Some(own());
    }
    if o.contains_key("ranking") || o.contains_key("target_selector") {
        let p = v.pointer("/provenance/params");
        return Some(knobs_from(p, p));
    }
    if o.get("retrieval").is_some_and(Value::is_object)
        || o.get("results").is_some_and(Value::is_array)
    {
        return Some(own());
    }
    None
}

/// A recomputed decision, in the shapes the records are compared with.
struct Recomputed {
    r: Retrieval,
    selection: Value,
}

fn recompute(engine: &Engine, query: &str, k: &Knobs) -> Recomputed {
    let r = engine.retrieve(query, &k.params);
    let s: Selection = engine.select(&r, &k.select);
    let selection =
        serde_json::from_str(&crate::output::json::selection_json(&s)).unwrap_or(Value::Null);
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
fn first_difference(rec: &Recorded<'_>, rc: &Recomputed) -> Option<Difference> {
    let recorded_rows = rec
        .fields
        .iter()
        .filter(|(_, _, f)| matches!(f, Field::RowName(_)))
        .count();
    for (p, v, f) in &rec.fields {
        let got = value_of(rc, *f);
        if !same(v, &got, *f) {
            return Some(Difference {
                pointer: p.clone(),
                recorded: (*v).clone(),
                recomputed: got,
            });
        }
    }
    let counted = rec.fields.iter().any(|(_, _, f)| *f == Field::RowCount);
    if !counted && recorded_rows > 0 && rc.r.rows.len() > recorded_rows && rec.kind != "fixture" {
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
        push(format!("policy={pol}"), &|_, s| s.policy = pol.to_string());
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

fn classify(engine: &Engine, rec: &Recorded<'_>, query: &str) -> (DriftKind, Option<String>) {
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
    if let Some(missing) = rec.tools.iter().find(|t| engine.graph.tool_id(t).is_none()) {
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
        if first_difference(rec, &rc).is_none() {
            return (
                DriftKind::ParametersDiffer,
                Some(format!("reproduced with {what}")),
            );
        }
    }
    (DriftKind::Unexplained, None)
}

/// Replays one value of an evidence file. `label` names it when it has no id.
pub fn replay_value(engine: &Engine, v: &Value, label: &str) -> Option<Outcome> {
    let outcome = |kind, status, detail: Option<String>, id: Option<String>| Outcome {
        record: id.unwrap_or_else(|| label.to_string()),
        kind,
        status,
        drift_kind: None,
        difference: None,
        detail,
    };
    let rec = match recorded(v) {
        Ok(Some(r)) => r,
        Ok(None) => {
            return Some(outcome(
                "record",
                Status::Unreadable,
                Some(super::record::NOT_A_RECORD.into()),
                None,
            ));
        }
        Err(e) => return Some(outcome("trace envelope", Status::Unreadable, Some(e), None)),
    };
    let id = rec.id.clone().map(|i| format!("{label} {i}"));
    let Some(query) = rec.query.as_deref() else {
        return Some(outcome(
            rec.kind,
            Status::Partial,
            Some("no query text recorded".into()),
            id,
        ));
    };
    if query.contains("[REDACTED") {
        return Some(outcome(
            rec.kind,
            Status::Partial,
            Some("the query was scrubbed".into()),
            id,
        ));
    }
    if rec.kind == "trace envelope"
        && query.ends_with("...")
        && query.chars().count() == TRACE_TEXT_CHARS + 3
    {
        return Some(outcome(
            rec.kind,
            Status::Partial,
            Some(format!(
                "the recorder cut the query at {TRACE_TEXT_CHARS} characters"
            )),
            id,
        ));
    }
    if crate::limits::check_query(query).is_err() {
        return Some(outcome(
            rec.kind,
            Status::Unreadable,
            Some("the query is over the query limit".into()),
            id,
        ));
    }
    if rec.fields.is_empty() {
        return Some(outcome(
            rec.kind,
            Status::Partial,
            Some("no ranked rows or selection recorded".into()),
            id,
        ));
    }
    let rc = recompute(engine, query, &rec.knobs);
    match first_difference(&rec, &rc) {
        None => Some(outcome(rec.kind, Status::Reproduced, None, id)),
        Some(d) => {
            let (kind, detail) = classify(engine, &rec, query);
            let mut o = outcome(rec.kind, Status::Drifted, detail, id);
            o.drift_kind = Some(kind);
            o.difference = Some(d);
            Some(o)
        }
    }
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

/// Replays a batch of values on every core, in order.
fn replay_batch(engine: &Engine, items: &[(String, Value)]) -> Vec<Outcome> {
    crate::par::map_heavy(items, |(label, v)| replay_value(engine, v, label))
        .into_iter()
        .flatten()
        .collect()
}

/// Replays every record of `paths` (files, fixture folders, or `-` for standard input) on
/// every core. Parts that cannot be read — a torn or non-JSON line, a value that is no
/// record — are `unreadable` outcomes with their place, never fatal; `Err` only when a
/// path cannot be read at all.
pub fn replay_paths(
    engine: &Engine,
    paths: &[String],
) -> Result<Vec<Outcome>, crate::error::InputError> {
    // records are replayed in batches as they are read, so memory holds one batch of
    // values (and the outcomes), not the whole file's values
    const BATCH: usize = 4096;
    let mut out: Vec<Outcome> = Vec::new();
    let mut items: Vec<(String, Value)> = Vec::with_capacity(BATCH);
    let mut unreadable: Vec<Outcome> = Vec::new();
    for p in paths {
        let mut visit = |v: &Value, o: &super::record::Origin| {
            items.push((o.label.clone(), v.clone()));
            if items.len() == BATCH {
                out.extend(replay_batch(engine, &items));
                items.clear();
            }
            Ok(())
        };
        let errors = if p == "-" {
            let bytes = crate::limits::read_file_or_stdin("-")?;
            let bytes = crate::limits::gunzip("-", bytes)?;
            let text = crate::model::load::into_text("-", bytes)?;
            super::record::walk_text("-", "-", "stdin", &text, &mut visit)
        } else {
            super::record::walk(std::path::Path::new(p), &mut visit)?
        };
        for e in errors {
            let place = if e.place.is_empty() {
                e.file.clone()
            } else {
                format!("{}:{}", e.file, e.place)
            };
            unreadable.push(Outcome {
                record: place,
                kind: "record",
                status: Status::Unreadable,
                drift_kind: None,
                difference: None,
                detail: Some(e.message),
            });
        }
    }
    out.extend(replay_batch(engine, &items));
    out.extend(unreadable);
    Ok(out)
}
