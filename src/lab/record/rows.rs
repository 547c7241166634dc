//! Result rows of a captured record: a response's (or fixture's, batch line's, golden
//! case's) rows, a trace envelope's ranked decisions and a selector block's candidates,
//! read strictly (a wrong type is an error naming the field) with the evidence the screens
//! show — badges, matched terms, why the row is in the top-K — and the keys outside
//! [`super::keys`].

use serde_json::Value;

use super::keys;
use super::{Malformed, RowRecord, RowShape, Why};

pub(super) fn num(v: Option<&Value>) -> Option<f64> {
    match v? {
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        _ => None,
    }
}

pub(super) fn flag(v: Option<&Value>) -> Option<bool> {
    match v? {
        Value::Bool(b) => Some(*b),
        Value::Number(n) => n.as_f64().map(|x| x != 0.0),
        _ => None,
    }
}

/// The strings of a list (others skipped; not a list: none).
pub(super) fn names(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// A rank (`None`: the position `i` gives it); the error names `at` + `/key`, built only
/// when there is one.
fn rank_of(v: Option<&Value>, i: usize, at: &str, key: &str) -> Result<usize, Malformed> {
    match v {
        None | Some(Value::Null) => Ok(i + 1),
        Some(x) => match x.as_u64() {
            Some(k) if k >= 1 => Ok(k as usize),
            _ => Err(Malformed::new(
                &format!("{at}/{key}"),
                "must be a positive integer",
            )),
        },
    }
}

fn score_of(v: Option<&Value>, at: &str, key: &str) -> Result<Option<f64>, Malformed> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => Ok(n.as_f64()),
        Some(_) => Err(Malformed::new(&format!("{at}/{key}"), "must be a number")),
    }
}

fn name_of(v: Option<&Value>, at: &str, key: &str) -> Result<String, Malformed> {
    match v {
        Some(Value::String(n)) if !n.is_empty() => Ok(n.clone()),
        Some(_) => Err(Malformed::new(
            &format!("{at}/{key}"),
            "must be a non-empty string",
        )),
        None => Err(Malformed::new(at, "has no name")),
    }
}

/// The evidence keys of a row (or of a trace decision's `evidence`), found in one pass
/// over its keys.
#[derive(Default)]
struct Evidence<'a> {
    breakdown: Option<&'a Value>,
    semantic: Option<&'a Value>,
    learning: Option<&'a Value>,
    expanded_from: Option<&'a Value>,
    edges: Option<&'a Value>,
}

impl<'a> Evidence<'a> {
    /// Keeps `x` when `k` is an evidence key.
    fn take(&mut self, k: &str, x: &'a Value) -> bool {
        let slot = match k {
            "score_breakdown" => &mut self.breakdown,
            "semantic_evidence" => &mut self.semantic,
            "learning_evidence" => &mut self.learning,
            "expanded_from" => &mut self.expanded_from,
            "edge_evidence" => &mut self.edges,
            _ => return false,
        };
        *slot = Some(x);
        true
    }
}

const BADGES: [&str; 5] = [
    "action_match",
    "resource_match",
    "module_match",
    "shape_match",
    "contract_match",
];

/// A row's evidence into `row` — breakdown (checked: numbers and booleans), chips,
/// badges, matched terms, why it is in the top-K (`seeds`: the record's `stats.seeds`)
/// and the unknown keys, under `prefix` — reading each object once.
fn apply(
    ev: &Evidence<'_>,
    row: &mut RowRecord,
    at: &str,
    prefix: &str,
    seeds: &[String],
) -> Result<(), Malformed> {
    let pointer = |rest: &str| format!("{at}/{}{rest}", prefix.replace('.', "/"));
    let mut from_breakdown = [None; 5];
    let mut graph_expansion = None;
    match ev.breakdown {
        None | Some(Value::Null) => {}
        Some(Value::Object(m)) => {
            for (k, x) in m {
                if !matches!(x, Value::Number(_) | Value::Bool(_) | Value::Null) {
                    let k = k.replace('~', "~0").replace('/', "~1");
                    return Err(Malformed::new(
                        &pointer(&format!("score_breakdown/{k}")),
                        "must be a number",
                    ));
                }
                match k.as_str() {
                    "seed" => row.chips[0] = num(Some(x)),
                    "graph" => row.chips[1] = num(Some(x)),
                    "learning" => row.chips[2] = num(Some(x)),
                    "history_demoted" => row.history_demoted = flag(Some(x)).unwrap_or(false),
                    "graph_expansion" => graph_expansion = flag(Some(x)),
                    b => match BADGES.iter().position(|n| *n == b) {
                        Some(i) => from_breakdown[i] = flag(Some(x)),
                        None => row
                            .unknown
                            .push((format!("{prefix}score_breakdown.{k}"), x.clone())),
                    },
                }
            }
            row.breakdown = m.clone();
        }
        Some(_) => {
            return Err(Malformed::new(
                &pointer("score_breakdown"),
                "must be an object",
            ));
        }
    }
    let mut from_semantic = [None; 5];
    if let Some(Value::Object(m)) = ev.semantic {
        for (k, x) in m {
            if let Some(i) = BADGES.iter().position(|n| n == k) {
                from_semantic[i] = flag(Some(x));
            } else if k == "matched_terms" {
                row.matched = names(Some(x));
            } else if k == "summary_matched_terms" {
                row.summary_matched = names(Some(x));
            } else if !keys::SEMANTIC.contains(&k.as_str()) {
                row.unknown
                    .push((format!("{prefix}semantic_evidence.{k}"), x.clone()));
            }
        }
    }
    for i in 0..5 {
        row.badges[i] = from_semantic[i].or(from_breakdown[i]);
    }
    if keys::any_unknown(ev.learning, keys::LEARNING) {
        let pre = format!("{prefix}learning_evidence.");
        keys::unknown_in(ev.learning, keys::LEARNING, &pre, &mut row.unknown);
    }
    if let Some(Value::Array(edges)) = ev.edges {
        for (j, e) in edges.iter().enumerate() {
            if keys::any_unknown(Some(e), keys::EDGE) {
                let pre = format!("{prefix}edge_evidence[{j}].");
                keys::unknown_in(Some(e), keys::EDGE, &pre, &mut row.unknown);
            }
        }
    }
    row.why = match ev.expanded_from {
        Some(Value::String(f)) => expanded(f, ev.edges),
        _ => why(row, graph_expansion, seeds),
    };
    Ok(())
}

/// Why a row with no recorded source is in the top-K: a seed when its seed score is
/// positive, graph expansion, learning, else a seed when `stats.seeds` names it.
fn why(row: &RowRecord, graph_expansion: Option<bool>, seeds: &[String]) -> Why {
    let seed = || Why::Seed(seeds.iter().position(|n| *n == row.name).map(|p| p + 1));
    let c = row.chips;
    if c[0].is_some_and(|x| x > 0.0) {
        seed()
    } else if graph_expansion == Some(true) || c[1].is_some_and(|x| x > 0.0) {
        Why::Graph
    } else if c[2].is_some_and(|x| x > 0.0) {
        Why::Learning
    } else if seeds.contains(&row.name) {
        seed()
    } else {
        Why::Unknown
    }
}

/// One result row of a response, batch line, golden case or fixture (an object, or a
/// bare tool name), its keys read in one pass.
fn read_row(r: &Value, i: usize, at: String, seeds: &[String]) -> Result<RowRecord, Malformed> {
    if let Some(name) = r.as_str() {
        let mut row = RowRecord {
            name: name.to_string(),
            rank: i + 1,
            at,
            ..Default::default()
        };
        row.why = why(&row, None, seeds);
        return Ok(row);
    }
    let Some(o) = r.as_object() else {
        return Err(Malformed::new(
            &at,
            "must be a result row (an object with a name)",
        ));
    };
    let mut ev = Evidence::default();
    let (mut name, mut tool, mut rank, mut score) = (None, None, None, None);
    let mut unknown = Vec::new();
    for (k, x) in o {
        match k.as_str() {
            "name" => name = Some(x),
            "tool" => tool = Some(x),
            "rank" => rank = Some(x),
            "score" => score = Some(x),
            k if ev.take(k, x) => {}
            _ => unknown.push((k.clone(), x.clone())),
        }
    }
    let (shape, key, named) = match name {
        Some(_) => (RowShape::Row, "name", name),
        None => (RowShape::ToolRow, "tool", tool),
    };
    let mut row = RowRecord {
        name: name_of(named, &at, key)?,
        rank: rank_of(rank, i, &at, "rank")?,
        score: score_of(score, &at, "score")?,
        shape,
        unknown,
        ..Default::default()
    };
    apply(&ev, &mut row, &at, "", seeds)?;
    row.at = at;
    Ok(row)
}

/// The rows of a list at `at` (`seeds`: the record's `stats.seeds`).
pub(super) fn read_rows(
    list: &[Value],
    at: &str,
    seeds: &[String],
) -> Result<Vec<RowRecord>, Malformed> {
    list.iter()
        .enumerate()
        .map(|(i, r)| read_row(r, i, format!("{at}/{i}"), seeds))
        .collect()
}

/// A selector block's candidates (`rank_signals`) as rows, in retrieval order: the name,
/// the retrieval score and the original rank.
pub(super) fn read_candidates(list: &[Value], at: &str) -> Result<Vec<RowRecord>, Malformed> {
    let mut rows = list
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let at = format!("{at}/{i}");
            let Some(o) = c.as_object() else {
                return Err(Malformed::new(&at, "must be a candidate object"));
            };
            let rank = rank_of(o.get("original_rank"), i, &at, "original_rank")?;
            let mut row = RowRecord {
                name: name_of(o.get("name"), &at, "name")?,
                rank,
                score: score_of(o.get("retrieval_score"), &at, "retrieval_score")?,
                why: Why::Rank(rank),
                shape: RowShape::Candidate,
                ..Default::default()
            };
            keys::unknown_of(o, keys::CANDIDATE, "", &mut row.unknown);
            row.at = at;
            Ok(row)
        })
        .collect::<Result<Vec<_>, _>>()?;
    rows.sort_by_key(|r| r.rank);
    Ok(rows)
}

/// A trace envelope's `retrieval` decision (outcome `ranked`) as a row; `i`: its place
/// among the ranked ones.
pub(super) fn read_decision(
    d: &Value,
    i: usize,
    at: String,
    seeds: &[String],
) -> Result<RowRecord, Malformed> {
    let Some(o) = d.as_object() else {
        return Err(Malformed::new(&at, "must be a decision object"));
    };
    let (mut subject, mut rank, mut score, mut evidence) = (None, None, None, None);
    let mut unknown = Vec::new();
    for (k, x) in o {
        match k.as_str() {
            "subject" => subject = Some(x),
            "rank_after" => rank = Some(x),
            "score" => score = Some(x),
            "evidence" => evidence = Some(x),
            k if keys::DECISION.contains(&k) => {}
            _ => unknown.push((k.clone(), x.clone())),
        }
    }
    let mut row = RowRecord {
        name: name_of(subject, &at, "subject")?,
        rank: rank_of(rank, i, &at, "rank_after")?,
        score: score_of(score, &at, "score")?,
        shape: RowShape::Decision,
        unknown,
        ..Default::default()
    };
    let mut ev = Evidence::default();
    match evidence {
        None | Some(Value::Null) => {}
        Some(Value::Object(m)) => {
            for (k, x) in m {
                if !ev.take(k, x) {
                    row.unknown.push((format!("evidence.{k}"), x.clone()));
                }
            }
        }
        Some(_) => {
            return Err(Malformed::new(
                &format!("{at}/evidence"),
                "must be an object",
            ));
        }
    }
    apply(&ev, &mut row, &at, "evidence.", seeds)?;
    row.at = at;
    Ok(row)
}

fn expanded(from: &str, edges: Option<&Value>) -> Why {
    let edge = edges
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .and_then(Value::as_object);
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    Why::Expanded {
        from: from.to_string(),
        relation: edge
            .and_then(|e| e.get("relation"))
            .map(text)
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| "(none)".into()),
        confidence: edge
            .and_then(|e| e.get("confidence"))
            .filter(|c| !c.is_null())
            .map(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Map;

    #[test]
    fn the_one_pass_readers_know_exactly_the_listed_keys() {
        // every evidence key of the list is taken, and nothing else
        let x = Value::Null;
        for k in keys::ROW_EVIDENCE {
            assert!(Evidence::default().take(k, &x), "{k}");
        }
        for k in keys::ROW.iter().chain(keys::DECISION) {
            assert_eq!(
                Evidence::default().take(k, &x),
                keys::ROW_EVIDENCE.contains(k),
                "{k}"
            );
        }
        // every breakdown key of the list is read, none is reported unknown
        let all: Map<String, Value> = keys::BREAKDOWN
            .iter()
            .map(|k| (k.to_string(), Value::from(1.0)))
            .collect();
        let v = Value::Object(Map::from_iter([(
            "score_breakdown".to_string(),
            Value::Object(all),
        )]));
        let mut ev = Evidence::default();
        ev.take("score_breakdown", &v["score_breakdown"]);
        let mut row = RowRecord::default();
        apply(&ev, &mut row, "", "", &[]).unwrap();
        assert!(row.unknown.is_empty(), "{:?}", row.unknown);
        assert_eq!(row.badges, [Some(true); 5]);
        assert_eq!(row.chips, [Some(1.0); 3]);
    }
}
