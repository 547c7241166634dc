//! The Follow classifier's fast read of one JSON line: the value [`super::RunRecord::parse`]
//! reads, built straight from the line's bytes with only the parts that can change what a
//! classification shows (the follow entry: id, kind, query, parameters, the rows' names in
//! order, the selector's answer, reason codes, the labels — or the error that makes the
//! line unreadable). The rest is checked as JSON and skipped, never built: the rows' and
//! trace decisions' evidence, span events and timings, versions, subgraph texts,
//! statistics, the selector's candidate evidence. A result row becomes its name (a string
//! row, which the reader reads as a row of that name) once its rank, score and score
//! breakdown are checked to be what the reader accepts; a trace decision that is neither
//! ranked nor selected becomes null (the reader reads such a one for unknown keys alone).
//! The one reader then reads the smaller value, so its rules stay in one place;
//! `tests/follow_skim.rs` proves the entries equal to those of the whole value over every
//! fixture and over hostile lines.
//!
//! The line is walked with the structural scanner ([`crate::model::scan::Scan`]); what is
//! skipped is checked as strictly as a `serde_json::Value` parse checks it
//! ([`Scan::valid_value_parsed`]: not merely as serde skips it, which takes nesting past
//! its depth limit, numbers out of `f64`'s range and unpaired surrogates), and what is
//! kept is parsed from its slice. Anything the walk does not take — a line that is not
//! JSON or not an object, nesting past 100, a list where an object is expected (or the
//! reverse), a key written with an escape on the way to a kept part, serde_json's
//! raw-value marker as a first key, a repeated `outcome`, a row or check the reader would
//! refuse — is `None`: the caller parses the whole line into a value as before, which
//! says what is wrong.

use serde_json::{Map, Value};

use crate::model::scan::{RAW_VALUE_TOKEN, Scan};

/// Containers open at most on the fast path (serde_json allows 127); deeper is for the
/// whole parse.
const MAX_DEPTH: usize = 100;

/// `text` as the value the record reader needs for a classification, or `None` when the
/// whole line must be parsed instead (see the module's documentation).
pub fn value(text: &str) -> Option<Value> {
    let w = Walk {
        sc: Scan::new(text),
        text,
    };
    let i = w.sc.skip_ws(0);
    if text.as_bytes().get(i) != Some(&b'{') {
        return None;
    }
    let (v, end) = w.node(Part::Top, i, 0)?;
    (w.sc.skip_ws(end) == text.len()).then_some(v)
}

/// Where a value sits in a record, which says what of it is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// The line itself.
    Top,
    /// A list of result rows (`ranking`, `actual_top_3`, `results`, `retrieval.results`).
    Rows,
    /// A result row: kept as its name alone (see [`Walk::row`]).
    Row,
    /// A batch line's or golden case's `retrieval`.
    Retrieval,
    /// A golden case's `expected`.
    Expected,
    /// A selector block (`target_selector`, `selection`, `expected.selection`).
    Selector,
    /// A trace envelope's `spans`.
    Spans,
    Span,
    /// A span's `attributes` (a `target_selection` span's are the selector's answer).
    Answer,
    Decisions,
    /// A span's decision (see [`Walk::decision`]).
    Decision,
}

/// What becomes of one key of an object.
enum Field {
    /// Built as a whole value.
    Keep,
    /// Checked as JSON, left out.
    Drop,
    /// Built as the given part.
    Into(Part),
}

/// The selector's answer (what `read_answer` reads).
const ANSWER: [&str; 5] = [
    "selected_target",
    "llm_target",
    "reason_codes",
    "overrode_llm",
    "ambiguous",
];

/// The top-level keys the record reader reads for a classification besides the parts:
/// ids, query, labels, parameters (`knobs_from`, `answer_as_input`), the selector's answer
/// of a record that is a selector block, and a trace envelope's schema, id and request
/// attributes. The others (`stats`, `intent`, versions, timings, unknown keys) it reads
/// only for `why`, versions and unknown-key lists; a key the classification comes to
/// read must be added here.
const TOP: [&str; 19] = [
    "case_id",
    "id",
    "query",
    "expected_target",
    "expected_tools",
    "labels",
    "params",
    "selector",
    "provenance",
    "selected_target",
    "llm_target",
    "reason_codes",
    "overrode_llm",
    "ambiguous",
    "policy",
    "rank_signals",
    "schema_version",
    "trace_id",
    "attributes",
];

/// Keys of `part` (an object): what the record reader reads of it for a classification.
fn field(part: Part, key: &str) -> Field {
    use Field::{Drop, Into, Keep};
    match (part, key) {
        (Part::Top, "ranking" | "actual_top_3" | "results") => Into(Part::Rows),
        (Part::Top, "retrieval") | (Part::Expected, "retrieval") => Into(Part::Retrieval),
        (Part::Top, "expected") => Into(Part::Expected),
        (Part::Top, "target_selector" | "selection") | (Part::Expected, "selection") => {
            Into(Part::Selector)
        }
        (Part::Top, "spans") => Into(Part::Spans),
        (Part::Top, k) if TOP.contains(&k) => Keep,
        (Part::Retrieval, "results") => Into(Part::Rows),
        (Part::Selector, "policy" | "rank_signals") => Keep,
        (Part::Selector | Part::Answer, k) if ANSWER.contains(&k) => Keep,
        (Part::Span, "stage") => Keep,
        (Part::Span, "decisions") => Into(Part::Decisions),
        (Part::Span, "attributes") => Into(Part::Answer),
        _ => Drop,
    }
}

/// The part of each item of a list part.
fn item(part: Part) -> Option<Part> {
    match part {
        Part::Rows => Some(Part::Row),
        Part::Spans => Some(Part::Span),
        Part::Decisions => Some(Part::Decision),
        _ => None,
    }
}

/// A value the record reader checks and a classification does not show: accepted (and
/// left out) as the reader accepts it; anything else is for the whole parse to judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    /// A number or null (a row's or decision's score).
    Number,
    /// A positive integer or null (a row's rank).
    Rank,
    /// A number, boolean or null (a score breakdown's value).
    Scalar,
    /// Null, or an object of [`Check::Scalar`]s (a score breakdown).
    Breakdown,
    /// Null, or an object whose `score_breakdown` is a [`Check::Breakdown`] (a decision's
    /// evidence; its other keys are skipped).
    Evidence,
}

/// A walk over one line.
struct Walk<'t> {
    sc: Scan<'t>,
    text: &'t str,
}

impl Walk<'_> {
    /// End of the value at `i` (`depth` containers open around it), checked as a `Value`
    /// parse checks it.
    fn skip(&self, i: usize, depth: usize) -> Option<usize> {
        self.sc.valid_value_parsed(i, MAX_DEPTH.checked_sub(depth)?)
    }

    /// The value at `i`, parsed by serde_json from its slice (checked first, so the
    /// slice's own depth limit cannot differ from the line's), and its end.
    fn whole(&self, i: usize, depth: usize) -> Option<(Value, usize)> {
        let end = self.skip(i, depth)?;
        Some((self.parsed(&self.text[i..end])?, end))
    }

    /// A checked value's slice as a value: a string without escapes is its text, a
    /// literal itself, an integer of at most 19 digits a `u64`, anything else serde_json's
    /// parse of it.
    fn parsed(&self, t: &str) -> Option<Value> {
        match t.as_bytes() {
            [b'"', inner @ .., b'"'] if !inner.contains(&b'\\') => {
                Some(Value::String(t[1..t.len() - 1].to_string()))
            }
            b"null" => Some(Value::Null),
            b"true" => Some(Value::Bool(true)),
            b"false" => Some(Value::Bool(false)),
            d if d.len() <= 19 && d.iter().all(u8::is_ascii_digit) => {
                t.parse::<u64>().ok().map(Value::from)
            }
            _ => crate::jsonin::from_str(t).ok(),
        }
    }

    /// Calls `f(key, value_start)` for each member of the object at `i` and returns the
    /// end of the object; `None` for a key with an escape (it might spell a key read
    /// here) or serde_json's raw-value marker first.
    fn members(&self, i: usize, mut f: impl FnMut(&str, usize) -> Option<usize>) -> Option<usize> {
        let mut first = true;
        self.sc.each_member_checked(i, |key, at| {
            if key.bytes().any(|c| c == b'\\')
                || std::mem::take(&mut first) && key == RAW_VALUE_TOKEN
            {
                return None;
            }
            f(key, at)
        })
    }

    /// The value at `i` as `part` keeps it (`depth` containers open around it).
    fn node(&self, part: Part, i: usize, depth: usize) -> Option<(Value, usize)> {
        let b = self.text.as_bytes();
        match *b.get(i)? {
            b'{' if depth >= MAX_DEPTH || item(part).is_some() => None,
            b'{' if part == Part::Row => self.row(i, depth + 1),
            b'{' if part == Part::Decision => self.decision(i, depth + 1),
            b'{' => {
                let mut m = Map::new();
                let end = self.members(i, |key, at| {
                    let (v, end) = match field(part, key) {
                        Field::Drop => return self.skip(at, depth + 1),
                        Field::Keep => self.whole(at, depth + 1)?,
                        Field::Into(p) => self.node(p, at, depth + 1)?,
                    };
                    m.insert(key.to_string(), v);
                    Some(end)
                })?;
                Some((Value::Object(m), end))
            }
            b'[' => {
                let each = item(part).filter(|_| depth < MAX_DEPTH)?;
                let mut v = Vec::new();
                let end = self.sc.each_element_checked(i, |at| {
                    let (x, end) = self.node(each, at, depth + 1)?;
                    v.push(x);
                    Some(end)
                })?;
                Some((Value::Array(v), end))
            }
            _ => self.whole(i, depth),
        }
    }

    /// A result row object as its name, a string, which the record reader reads as a row
    /// of that name (its rank, score and evidence it reads for nothing a classification
    /// shows): when the object is one it accepts — its `name` (else its `tool`) a
    /// non-empty string, a `rank` null or a positive integer, a `score` null or a number,
    /// a `score_breakdown` null or an object of numbers, booleans and nulls.
    fn row(&self, i: usize, depth: usize) -> Option<(Value, usize)> {
        let (mut name, mut tool) = (None, None);
        let end = self.members(i, |key, at| match key {
            "name" => {
                let (v, end) = self.whole(at, depth)?;
                name = Some(v);
                Some(end)
            }
            // the tool counts only when there is no name (a golden case's is an object)
            "tool" if name.is_none() => {
                let (v, end) = self.whole(at, depth)?;
                tool = Some(v);
                Some(end)
            }
            "rank" => self.check(Check::Rank, at, depth),
            "score" => self.check(Check::Number, at, depth),
            "score_breakdown" => self.check(Check::Breakdown, at, depth),
            _ => self.skip(at, depth),
        })?;
        match name.or(tool) {
            Some(Value::String(n)) if !n.is_empty() => Some((Value::String(n), end)),
            _ => None,
        }
    }

    /// A span's decision with what the record reader reads of it for a classification:
    /// a ranked one's `outcome`, `subject` and `rank_after`, a selected one's `outcome` and
    /// `reason_codes`, and none of any other (null: the reader reads a decision of another
    /// outcome for unknown keys alone). The `score` and `evidence` of a ranked one (or of
    /// one whose outcome comes after them) are checked as the reader checks them, and left
    /// out; another's are only checked as JSON.
    fn decision(&self, i: usize, depth: usize) -> Option<(Value, usize)> {
        let b = self.text.as_bytes();
        // the slices of the values kept (the last of a repeated key, as a value keeps it)
        let (mut outcome, mut subject, mut rank, mut codes) = (None, None, None, None);
        let end = self.members(i, |key, at| {
            // not read yet, `ranked`, or written with escapes (it might spell it)
            let ranked = |o: &Option<std::ops::Range<usize>>| {
                o.as_ref().is_none_or(|r| {
                    let t = &b[r.clone()];
                    t == b"\"ranked\"" || t.contains(&b'\\')
                })
            };
            let slot = match key {
                "outcome" if outcome.is_some() => return None,
                "outcome" => &mut outcome,
                "subject" => &mut subject,
                "rank_after" => &mut rank,
                "reason_codes" => &mut codes,
                "score" if ranked(&outcome) => return self.check(Check::Number, at, depth),
                "evidence" if ranked(&outcome) => {
                    return self.check(Check::Evidence, at, depth);
                }
                _ => return self.skip(at, depth),
            };
            let end = self.skip(at, depth)?;
            *slot = Some(at..end);
            Some(end)
        })?;
        let outcome = match outcome {
            Some(r) => Some(self.parsed(&self.text[r])?),
            None => None,
        };
        let kept = match outcome.as_ref().and_then(Value::as_str) {
            Some("ranked") => [("subject", subject), ("rank_after", rank)],
            Some("selected") => [("reason_codes", codes), ("", None)],
            _ => return Some((Value::Null, end)),
        };
        let mut m = Map::new();
        m.insert("outcome".into(), outcome.unwrap_or_default());
        for (key, slice) in kept {
            if let Some(r) = slice {
                m.insert(key.into(), self.parsed(&self.text[r])?);
            }
        }
        Some((Value::Object(m), end))
    }

    /// End of the value at `i` when it passes `check`.
    fn check(&self, check: Check, i: usize, depth: usize) -> Option<usize> {
        let b = self.text.as_bytes();
        let c = *b.get(i)?;
        if c == b'n' {
            return self.skip(i, depth);
        }
        match check {
            Check::Number if c == b'-' || c.is_ascii_digit() => self.skip(i, depth),
            Check::Scalar if matches!(c, b'-' | b'0'..=b'9' | b't' | b'f') => self.skip(i, depth),
            Check::Rank => {
                // 1 to 19 digits, no sign, fraction or exponent: a `u64` of 1 or more
                let end = self.skip(i, depth)?;
                let digits = &b[i..end];
                (c != b'0' && digits.len() <= 19 && digits.iter().all(u8::is_ascii_digit))
                    .then_some(end)
            }
            Check::Breakdown | Check::Evidence if c == b'{' && depth < MAX_DEPTH => {
                self.members(i, |key, at| match check {
                    Check::Evidence if key != "score_breakdown" => self.skip(at, depth + 1),
                    Check::Evidence => self.check(Check::Breakdown, at, depth + 1),
                    _ => self.check(Check::Scalar, at, depth + 1),
                })
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_raw_value_marker_is_left_to_the_whole_parse_which_keeps_it_a_key() {
        // serde_json's own Value reads the string under its private marker as JSON; the
        // skim leaves an object opening with it to the whole parse (`crate::jsonin`), where
        // it is an ordinary key, as in Python's json
        let one = format!(r#"{{"{RAW_VALUE_TOKEN}":"[1]"}}"#);
        let v: Value = serde_json::from_str(&one).unwrap();
        assert_eq!(v, serde_json::json!([1]));
        assert_eq!(value(&one), None);
        assert_eq!(
            crate::jsonin::from_str(&one).unwrap(),
            serde_json::json!({RAW_VALUE_TOKEN: "[1]"})
        );
        let inner = format!(r#"{{"results":[{{"name":"a","x":{{"{RAW_VALUE_TOKEN}":"["}}}}]}}"#);
        assert!(serde_json::from_str::<Value>(&inner).is_err());
        assert_eq!(value(&inner), None);
        assert!(crate::jsonin::from_str(&inner).is_ok());
    }

    #[test]
    fn what_skipping_takes_a_value_refuses_and_so_does_the_fast_path() {
        let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        for bad in ["1e400", "\"\\ud800\"", "\"\\udc00\\ud800\"", deep.as_str()] {
            let line = format!(r#"{{"results":[{{"name":"a","semantic_evidence":{bad}}}]}}"#);
            assert!(serde_json::from_str::<Value>(&line).is_err(), "{bad}");
            assert!(
                serde_json::from_str::<serde::de::IgnoredAny>(&line).is_ok(),
                "{bad}"
            );
            assert_eq!(value(&line), None, "{bad}");
        }
        // what both take
        for good in ["1e-400", "1e300", "\"\\ud83d\\ude00\"", "-0", "1.5E+3"] {
            let line = format!(r#"{{"results":[{{"name":"a","semantic_evidence":{good}}}]}}"#);
            assert!(serde_json::from_str::<Value>(&line).is_ok(), "{good}");
            assert_eq!(value(&line), Some(serde_json::json!({"results": ["a"]})));
        }
    }

    #[test]
    fn evidence_is_left_out_and_the_rest_kept() {
        let line = r#"{"id":"r","results":[{"name":"a","score":1,"score_breakdown":{"seed":1.0,"history_demoted":false},"semantic_evidence":{"matched_terms":["x"]}},"b"],"target_selector":{"selected_target":"a","ambiguous":false,"why_selected":["long"]},"subgraph_text":"…"}"#;
        assert_eq!(
            value(line).unwrap(),
            serde_json::json!({"id":"r","results":["a","b"],"target_selector":{"selected_target":"a","ambiguous":false}})
        );
        // what the reader would refuse is for the whole parse
        for bad in [
            r#"{"results":[{"name":"a","score_breakdown":{"seed":"x"}}]}"#,
            r#"{"results":[{"name":"a","rank":0}]}"#,
            r#"{"results":[{"name":"a","rank":1.0}]}"#,
            r#"{"results":[{"name":"a","score":"1"}]}"#,
            r#"{"results":[{"name":""}]}"#,
            r#"{"results":[{"tool":{"name":"a"}}]}"#,
            r#"{"na\u006de":1}"#,
            r#"[1]"#,
        ] {
            assert_eq!(value(bad), None, "{bad}");
        }
    }
}
