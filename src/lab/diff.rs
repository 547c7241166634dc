//! Diffs of two runs: per case, rank moves, gained/lost candidates, score-breakdown deltas,
//! reason-code and selected-target changes, Jaccard and RBO; and summary counts.

use serde_json::Value;

use super::metrics::{jaccard, rbo};
use super::record::RunRecord;
use crate::jsonout::JsonWriter;

#[derive(Debug, Clone)]
pub struct CaseDiff {
    pub id: String,
    pub query: Option<String>,
    /// (tool, rank in A, rank in B)
    pub moves: Vec<(String, Option<usize>, Option<usize>)>,
    /// (tool, key, A, B) for breakdown values that differ
    pub breakdown: Vec<(String, String, Value, Value)>,
    pub selected: (Option<String>, Option<String>),
    pub codes_added: Vec<String>,
    pub codes_removed: Vec<String>,
    pub jaccard: f64,
    pub rbo: f64,
    /// The case exists on one side only.
    pub only_in: Option<char>,
}

impl CaseDiff {
    pub fn changed(&self) -> bool {
        self.only_in.is_some()
            || self.moves.iter().any(|(_, a, b)| a != b)
            || !self.breakdown.is_empty()
            || self.selected.0 != self.selected.1
            || !self.codes_added.is_empty()
            || !self.codes_removed.is_empty()
    }

    pub fn top1_changed(&self) -> bool {
        let a = self.moves.iter().find(|m| m.1 == Some(1)).map(|m| &m.0);
        let b = self.moves.iter().find(|m| m.2 == Some(1)).map(|m| &m.0);
        a != b
    }
}

pub fn diff_records(a: &RunRecord, b: &RunRecord) -> CaseDiff {
    let mut moves: Vec<(String, Option<usize>, Option<usize>)> = a
        .rows
        .iter()
        .map(|r| {
            (
                r.name.clone(),
                Some(r.rank),
                b.rows.iter().find(|x| x.name == r.name).map(|x| x.rank),
            )
        })
        .collect();
    for r in &b.rows {
        if !a.rows.iter().any(|x| x.name == r.name) {
            moves.push((r.name.clone(), None, Some(r.rank)));
        }
    }
    let mut breakdown = Vec::new();
    for ra in &a.rows {
        if let Some(rb) = b.rows.iter().find(|x| x.name == ra.name) {
            if let (Some(x), Some(y)) = (ra.score, rb.score)
                && x != y
            {
                breakdown.push((ra.name.clone(), "score".into(), x.into(), y.into()));
            }
            for (k, v) in &ra.breakdown {
                if let Some(w) = rb.breakdown.get(k)
                    && v != w
                {
                    breakdown.push((ra.name.clone(), k.clone(), v.clone(), w.clone()));
                }
            }
        }
    }
    let (na, nb) = (a.names(), b.names());
    CaseDiff {
        id: a.id.clone(),
        query: a.query.clone().or_else(|| b.query.clone()),
        moves,
        breakdown,
        selected: (a.selected_target.clone(), b.selected_target.clone()),
        codes_added: b
            .reason_codes
            .iter()
            .filter(|c| !a.reason_codes.contains(c))
            .cloned()
            .collect(),
        codes_removed: a
            .reason_codes
            .iter()
            .filter(|c| !b.reason_codes.contains(c))
            .cloned()
            .collect(),
        jaccard: jaccard(&na, &nb),
        rbo: rbo(&na, &nb, 0.9),
        only_in: None,
    }
}

/// Pairs records by id (falling back to position when ids do not match at all).
pub fn diff_sets(a: &[RunRecord], b: &[RunRecord]) -> Vec<CaseDiff> {
    let ids_match = a.iter().any(|x| b.iter().any(|y| y.id == x.id));
    let mut out = Vec::new();
    if ids_match {
        for x in a {
            match b.iter().find(|y| y.id == x.id) {
                Some(y) => out.push(diff_records(x, y)),
                None => out.push(only(x, 'A')),
            }
        }
        for y in b {
            if !a.iter().any(|x| x.id == y.id) {
                out.push(only(y, 'B'));
            }
        }
    } else {
        for (i, x) in a.iter().enumerate() {
            match b.get(i) {
                Some(y) => out.push(diff_records(x, y)),
                None => out.push(only(x, 'A')),
            }
        }
        for y in b.iter().skip(a.len()) {
            out.push(only(y, 'B'));
        }
    }
    out
}

fn only(r: &RunRecord, side: char) -> CaseDiff {
    CaseDiff {
        id: r.id.clone(),
        query: r.query.clone(),
        moves: Vec::new(),
        breakdown: Vec::new(),
        selected: (None, None),
        codes_added: Vec::new(),
        codes_removed: Vec::new(),
        jaccard: 0.0,
        rbo: 0.0,
        only_in: Some(side),
    }
}

pub use super::record::read_records;

/// The diff as one JSON object; `more` adds keys after `cases` (the blame of two graphs).
pub fn write_json(diffs: &[CaseDiff], w: &mut JsonWriter, more: impl FnOnce(&mut JsonWriter)) {
    let changed = diffs.iter().filter(|d| d.changed()).count();
    w.begin_obj();
    w.key("summary").begin_obj();
    w.key("cases").int(diffs.len() as i64);
    w.key("changed").int(changed as i64);
    w.key("top1_changed").int(
        diffs
            .iter()
            .filter(|d| d.only_in.is_none() && d.top1_changed())
            .count() as i64,
    );
    w.key("selected_target_changed").int(
        diffs
            .iter()
            .filter(|d| d.only_in.is_none() && d.selected.0 != d.selected.1)
            .count() as i64,
    );
    w.key("only_in_a")
        .int(diffs.iter().filter(|d| d.only_in == Some('A')).count() as i64);
    w.key("only_in_b")
        .int(diffs.iter().filter(|d| d.only_in == Some('B')).count() as i64);
    w.end_obj();
    w.key("cases").begin_arr();
    for d in diffs {
        w.begin_obj();
        w.key("id").str(&d.id);
        w.key("changed").bool(d.changed());
        if let Some(s) = d.only_in {
            w.key("only_in").str(&s.to_string());
            w.end_obj();
            continue;
        }
        w.key("moves").begin_arr();
        for (t, a, b) in &d.moves {
            w.begin_obj().key("tool").str(t);
            w.key("rank_a");
            match a {
                Some(r) => w.int(*r as i64),
                None => w.null(),
            };
            w.key("rank_b");
            match b {
                Some(r) => w.int(*r as i64),
                None => w.null(),
            };
            w.key("move").str(&marker(*a, *b, false));
            w.end_obj();
        }
        w.end_arr();
        w.key("breakdown_changes").begin_arr();
        for (t, k, a, b) in &d.breakdown {
            w.begin_obj()
                .key("tool")
                .str(t)
                .key("field")
                .str(k)
                .key("a")
                .value(a)
                .key("b")
                .value(b)
                .end_obj();
        }
        w.end_arr();
        w.key("selected_target_a").opt_str(d.selected.0.as_deref());
        w.key("selected_target_b").opt_str(d.selected.1.as_deref());
        w.key("reason_codes_added").str_list(&d.codes_added);
        w.key("reason_codes_removed").str_list(&d.codes_removed);
        w.key("jaccard").f64(d.jaccard);
        w.key("rbo").f64(d.rbo);
        w.end_obj();
    }
    w.end_arr();
    more(w);
    w.end_obj();
}

pub fn marker(a: Option<usize>, b: Option<usize>, ascii: bool) -> String {
    match (a, b) {
        (None, Some(_)) => "new".into(),
        (Some(_), None) => "gone".into(),
        (Some(x), Some(y)) if x == y => "=".into(),
        (Some(x), Some(y)) if y < x => format!("{}{}", if ascii { "^" } else { "↑" }, x - y),
        (Some(x), Some(y)) => format!("{}{}", if ascii { "v" } else { "↓" }, y - x),
        _ => String::new(),
    }
}

pub fn text(diffs: &[CaseDiff], ascii: bool) -> String {
    let mut s = String::new();
    for d in diffs.iter().filter(|d| d.changed()) {
        let q = d
            .query
            .as_deref()
            .map(|q| format!(" \"{}\"", crate::sanitize::line(q)))
            .unwrap_or_default();
        if let Some(side) = d.only_in {
            s.push_str(&format!(
                "{}{q}: only in {side}\n",
                crate::sanitize::line(&d.id)
            ));
            continue;
        }
        s.push_str(&format!(
            "{}{q}  jaccard {:.3} rbo {:.3}\n",
            crate::sanitize::line(&d.id),
            d.jaccard,
            d.rbo
        ));
        for (t, a, b) in d.moves.iter().filter(|m| m.1 != m.2) {
            s.push_str(&format!(
                "    {:<5} {}\n",
                marker(*a, *b, ascii),
                crate::sanitize::line(t)
            ));
        }
        for (t, k, a, b) in &d.breakdown {
            s.push_str(&format!(
                "    {} {k}: {a} -> {b}\n",
                crate::sanitize::line(t)
            ));
        }
        if d.selected.0 != d.selected.1 {
            s.push_str(&format!(
                "    selected {} -> {}\n",
                d.selected
                    .0
                    .as_deref()
                    .map(crate::sanitize::line)
                    .unwrap_or_else(|| "-".into()),
                d.selected
                    .1
                    .as_deref()
                    .map(crate::sanitize::line)
                    .unwrap_or_else(|| "-".into())
            ));
        }
        if !d.codes_added.is_empty() || !d.codes_removed.is_empty() {
            s.push_str(&format!(
                "    reason codes +[{}] -[{}]\n",
                d.codes_added.join(", "),
                d.codes_removed.join(", ")
            ));
        }
    }
    let changed = diffs.iter().filter(|d| d.changed()).count();
    s.push_str(&format!(
        "{changed} of {} changed; top-1 changed in {}; selected target changed in {}\n",
        crate::output::text::count(diffs.len() as u64, "case"),
        diffs
            .iter()
            .filter(|d| d.only_in.is_none() && d.top1_changed())
            .count(),
        diffs
            .iter()
            .filter(|d| d.only_in.is_none() && d.selected.0 != d.selected.1)
            .count()
    ));
    s
}
