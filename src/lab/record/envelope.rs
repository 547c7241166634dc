//! graph-tool-call 0.47.0 trace envelopes (`TraceEnvelope.to_dict()`, schema 1.0) read as
//! records: the request's query and parameters from `attributes`, the rows from the first
//! `retrieval` span's ranked decisions (in `rank_after` order, evidence included), the
//! selector's answer from the first `target_selection` span's attributes and its selected
//! decision's reason codes (less the recorder's `selector.*` markers). Every other key —
//! of the envelope, its spans, decisions and events — is kept as unknown when it is not
//! one the reference writes.

use serde_json::{Map, Value};

use super::keys::{self, any_unknown, unknown_of};
use super::{
    ENGINE_VERSION, Malformed, RecordKind, RunRecord, SelectorBlock, TRACE_SCHEMA, knobs_from,
    opt_string, read_answer, rows, strings,
};

/// Whether an object is a trace envelope (it has spans, or a schema version and a trace
/// id), whatever its schema version.
pub(super) fn is_envelope(o: &Map<String, Value>) -> bool {
    o.contains_key("spans") || o.contains_key("schema_version") && o.contains_key("trace_id")
}

fn decisions<'a>(span: &'a Map<String, Value>, at: &str) -> Result<&'a [Value], Malformed> {
    match span.get("decisions") {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(d)) => Ok(d),
        Some(_) => Err(Malformed::new(
            &format!("{at}/decisions"),
            "must be a list of decisions",
        )),
    }
}

fn outcome(d: &Value) -> Option<&str> {
    d.get("outcome").and_then(Value::as_str)
}

/// Reads an envelope into `rec` (its kind, id, query, knobs, versions, rows, selector and
/// unknown keys).
pub(super) fn read(o: &Map<String, Value>, rec: &mut RunRecord) -> Result<(), Malformed> {
    let schema = o.get("schema_version");
    if schema.and_then(Value::as_str) != Some(TRACE_SCHEMA) {
        return Err(Malformed::new(
            "/schema_version",
            &format!(
                "trace envelope schema_version {} is not supported (this version reads {TRACE_SCHEMA})",
                crate::sanitize::line(&schema.map_or_else(|| "(none)".into(), |s| s.to_string()))
            ),
        ));
    }
    rec.kind = RecordKind::TraceEnvelope;
    match o.get("trace_id") {
        Some(Value::String(id)) => rec.id = id.clone(),
        Some(Value::Number(n)) => rec.id = n.to_string(),
        Some(Value::Null) | None => {}
        Some(_) => return Err(Malformed::new("/trace_id", "must be a string")),
    }
    let attrs = match o.get("attributes") {
        None | Some(Value::Null) => None,
        Some(a @ Value::Object(_)) => Some(a),
        Some(_) => return Err(Malformed::new("/attributes", "must be an object")),
    };
    rec.query = opt_string(attrs.and_then(|a| a.get("query")), || {
        "/attributes/query".into()
    })?;
    rec.knobs = knobs_from(attrs, attrs, &mut rec.unknown_params);
    rec.fingerprint = attrs
        .and_then(|a| a.get("graph_fingerprint"))
        .and_then(Value::as_str)
        .map(String::from);
    if let Some(ver) = o.get("graph_tool_call_version").and_then(Value::as_str) {
        rec.versions.push((ver.to_string(), ENGINE_VERSION));
    }
    unknown_of(o, keys::ENVELOPE, "", &mut rec.unknown);
    let spans = match o.get("spans") {
        Some(Value::Array(s)) => s,
        _ => return Err(Malformed::new("/spans", "must be a list of spans")),
    };
    let (mut retrieval_seen, mut selection_seen) = (false, false);
    for (si, span) in spans.iter().enumerate() {
        let at = format!("/spans/{si}");
        let Some(s) = span.as_object() else {
            return Err(Malformed::new(&at, "must be a span object"));
        };
        let shown = format!("spans[{si}].");
        unknown_of(s, keys::SPAN, &shown, &mut rec.unknown);
        if let Some(Value::Array(events)) = s.get("events") {
            for (k, e) in events.iter().enumerate() {
                if let Some(e) = e.as_object() {
                    unknown_of(
                        e,
                        keys::EVENT,
                        &format!("{shown}events[{k}]."),
                        &mut rec.unknown,
                    );
                }
            }
        }
        let ds = decisions(s, &at)?;
        match s.get("stage").and_then(Value::as_str) {
            Some("retrieval") if !retrieval_seen => {
                retrieval_seen = true;
                retrieval(s, ds, &at, &shown, rec)?;
            }
            Some("target_selection") if !selection_seen => {
                selection_seen = true;
                selection(s, ds, &at, &shown, rec)?;
            }
            _ => decision_unknown(ds, &shown, None, rec),
        }
    }
    Ok(())
}

/// The unknown keys of decisions that are not rows (and of their evidence, against
/// `evidence_known` when the evidence has a known shape).
fn decision_unknown(
    ds: &[Value],
    shown: &str,
    evidence_known: Option<&[&str]>,
    rec: &mut RunRecord,
) {
    for (j, d) in ds.iter().enumerate() {
        let ev = d.get("evidence");
        let in_evidence = evidence_known.is_some_and(|k| any_unknown(ev, k));
        if !any_unknown(Some(d), keys::DECISION) && !in_evidence {
            continue;
        }
        let Some(d) = d.as_object() else { continue };
        let pre = format!("{shown}decisions[{j}].");
        unknown_of(d, keys::DECISION, &pre, &mut rec.unknown);
        if let (Some(known), Some(Value::Object(ev))) = (evidence_known, ev) {
            unknown_of(ev, known, &format!("{pre}evidence."), &mut rec.unknown);
        }
    }
}

fn retrieval(
    s: &Map<String, Value>,
    ds: &[Value],
    at: &str,
    shown: &str,
    rec: &mut RunRecord,
) -> Result<(), Malformed> {
    let attrs = s.get("attributes");
    if attrs.is_some_and(|a| a.get("result_count").is_some()) {
        rec.result_count_at = Some(format!("{at}/attributes/result_count"));
    }
    rec.seeds = rows::names(attrs.and_then(|a| a.get("seeds")));
    let mut ranked: Vec<(u64, usize)> = ds
        .iter()
        .enumerate()
        .filter(|(_, d)| outcome(d) == Some("ranked"))
        .map(|(j, d)| {
            let r = d.get("rank_after").and_then(Value::as_u64);
            (r.unwrap_or(u64::MAX), j)
        })
        .collect();
    ranked.sort();
    rec.rows = ranked
        .iter()
        .enumerate()
        .map(|(i, &(_, j))| {
            rows::read_decision(&ds[j], i, format!("{at}/decisions/{j}"), &rec.seeds)
        })
        .collect::<Result<_, _>>()?;
    // the decisions that are not rows (numbered as in the span)
    for (j, d) in ds.iter().enumerate() {
        if outcome(d) != Some("ranked")
            && any_unknown(Some(d), keys::DECISION)
            && let Some(d) = d.as_object()
        {
            let pre = format!("{shown}decisions[{j}].");
            unknown_of(d, keys::DECISION, &pre, &mut rec.unknown);
        }
    }
    Ok(())
}

fn selection(
    s: &Map<String, Value>,
    ds: &[Value],
    at: &str,
    shown: &str,
    rec: &mut RunRecord,
) -> Result<(), Malformed> {
    decision_unknown(ds, shown, Some(keys::CANDIDATE), rec);
    let block = match s.get("attributes") {
        Some(Value::Object(a)) => a,
        None | Some(Value::Null) => return Ok(()),
        Some(_) => {
            return Err(Malformed::new(
                &format!("{at}/attributes"),
                "must be an object",
            ));
        }
    };
    let at = format!("{at}/attributes");
    read_answer(block, &at, rec)?;
    let selected = ds
        .iter()
        .enumerate()
        .find(|(_, d)| outcome(d) == Some("selected"));
    let mut decision_codes_at = None;
    if let Some((j, d)) = selected
        && let Some(codes) = d.get("reason_codes")
    {
        let at = format!(
            "{}/decisions/{j}/reason_codes",
            at.trim_end_matches("/attributes")
        );
        rec.reason_codes = strings(Some(codes), || at.clone())?
            .into_iter()
            .filter(|c| !c.starts_with("selector."))
            .collect();
        decision_codes_at = Some(at);
    }
    rec.selector = Some(SelectorBlock {
        at,
        decision_codes_at,
    });
    Ok(())
}
