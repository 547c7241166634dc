//! The presenter's walkthrough: `assets/demo/queries.txt` as steps. The `#` comment lines
//! above a query are its presenter note; `#=` lines set the step up (`llm NAME`,
//! `history NAME`) and state what the screen shows (`top`, `selected`, `rank NAME N`,
//! `expanded`, `absent`, `ambiguous yes|no`, `decision`, `reason`, `empty`). The claims are
//! checked against the engine by [`check_step`] in the tests, so the narration cannot drift
//! from the screen.

use crate::demo::DEMO_QUERIES;
use crate::engine::{Engine, Params, RowOrigin, SelectParams};

/// What a step says the screen shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    Top(String),
    Selected(String),
    Rank(String, usize),
    /// The row came in through graph expansion (it has `expanded_from`).
    Expanded(String),
    Absent(String),
    Ambiguous(bool),
    Decision(String),
    Reason(String),
    Empty,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DemoStep {
    pub query: String,
    /// The `# ---` section the query belongs to.
    pub section: String,
    /// The comment lines directly above the query, joined.
    pub note: String,
    pub llm_target: Option<String>,
    pub history: Vec<String>,
    pub claims: Vec<Claim>,
}

/// Parses a walkthrough file; a malformed `#=` line is an error naming its line.
pub fn parse_steps(text: &str) -> Result<Vec<DemoStep>, String> {
    let mut steps = Vec::new();
    let mut section = String::new();
    let mut note: Vec<String> = Vec::new();
    let mut llm: Option<String> = None;
    let mut history: Vec<String> = Vec::new();
    let mut claims: Vec<Claim> = Vec::new();
    for (no, raw) in text.lines().enumerate() {
        let l = raw.trim();
        if l.is_empty() {
            note.clear();
            continue;
        }
        if let Some(c) = l.strip_prefix("#=") {
            for part in c.split(';').map(str::trim).filter(|p| !p.is_empty()) {
                let words: Vec<&str> = part.split_whitespace().collect();
                let bad = || format!("walkthrough line {}: cannot read {part:?}", no + 1);
                match words.as_slice() {
                    ["llm", n] => llm = Some(n.to_string()),
                    ["history", n] => history.push(n.to_string()),
                    ["top", n] => claims.push(Claim::Top(n.to_string())),
                    ["selected", n] => claims.push(Claim::Selected(n.to_string())),
                    ["rank", n, r] => {
                        claims.push(Claim::Rank(n.to_string(), r.parse().map_err(|_| bad())?))
                    }
                    ["expanded", n] => claims.push(Claim::Expanded(n.to_string())),
                    ["absent", n] => claims.push(Claim::Absent(n.to_string())),
                    ["ambiguous", "yes"] => claims.push(Claim::Ambiguous(true)),
                    ["ambiguous", "no"] => claims.push(Claim::Ambiguous(false)),
                    ["decision", d] => claims.push(Claim::Decision(d.to_string())),
                    ["reason", r] => claims.push(Claim::Reason(r.to_string())),
                    ["empty"] => claims.push(Claim::Empty),
                    _ => return Err(bad()),
                }
            }
            continue;
        }
        if let Some(c) = l.strip_prefix('#') {
            let c = c.trim();
            if let Some(t) = c.strip_prefix("---") {
                section = t.trim().to_string();
                note.clear();
            } else {
                note.push(c.to_string());
            }
            continue;
        }
        steps.push(DemoStep {
            query: l.to_string(),
            section: section.clone(),
            note: note.join(" "),
            llm_target: llm.take(),
            history: std::mem::take(&mut history),
            claims: std::mem::take(&mut claims),
        });
        note.clear();
    }
    Ok(steps)
}

/// The embedded walkthrough.
pub fn demo_steps() -> Vec<DemoStep> {
    parse_steps(DEMO_QUERIES).expect("the embedded walkthrough is checked by the tests")
}

/// The parameters a step runs with: the explorer's defaults plus the step's set-up.
pub fn step_params(step: &DemoStep) -> (Params, SelectParams) {
    let params = Params {
        history: step.history.clone(),
        ..Params::default()
    };
    let select = SelectParams {
        llm_target: step.llm_target.clone(),
        ..SelectParams::default()
    };
    (params, select)
}

/// Runs a step and lists every way the screen disagrees with its claims and its note
/// (a tool the note names must be on screen: a row, the LLM target or history).
pub fn check_step(engine: &Engine, step: &DemoStep) -> Vec<String> {
    let (params, select) = step_params(step);
    let r = engine.retrieve(&step.query, &params);
    let s = engine.select(&r, &select);
    let names: Vec<&str> = r.rows.iter().map(|x| x.name.as_str()).collect();
    let rank = |n: &str| names.iter().position(|x| *x == n).map(|i| i + 1);
    let mut out = Vec::new();
    let mut fail = |m: String| out.push(format!("{:?}: {m}", step.query));
    for c in &step.claims {
        match c {
            Claim::Top(n) if names.first() != Some(&n.as_str()) => {
                fail(format!("top is {:?}, not {n}", names.first()))
            }
            Claim::Selected(n) if s.selected_target != *n => {
                fail(format!("selected is {}, not {n}", s.selected_target))
            }
            Claim::Rank(n, want) if rank(n) != Some(*want) => {
                fail(format!("{n} is at rank {:?}, not {want}", rank(n)))
            }
            Claim::Expanded(n) => {
                let row = r.rows.iter().find(|x| x.name == *n);
                if !row.is_some_and(|x| matches!(x.origin, RowOrigin::Expanded { .. })) {
                    fail(format!("{n} is not a row from graph expansion"));
                }
            }
            Claim::Absent(n) if rank(n).is_some() => fail(format!("{n} is on screen")),
            Claim::Ambiguous(a) if s.ambiguous != *a => {
                fail(format!("ambiguous is {}", s.ambiguous))
            }
            Claim::Decision(d) if s.decision != d => fail(format!("decision is {}", s.decision)),
            Claim::Reason(code) if !s.reason_codes.contains(&code.as_str()) => {
                fail(format!("reason codes are {:?}", s.reason_codes))
            }
            Claim::Empty if !names.is_empty() => fail(format!("{} rows", names.len())),
            _ => {}
        }
    }
    for word in step.note.split(|c: char| !c.is_alphanumeric() && c != '_') {
        let tool_like = word.len() > 3
            && word.chars().next().is_some_and(char::is_lowercase)
            && word.chars().any(char::is_uppercase);
        let shown = rank(word).is_some()
            || step.llm_target.as_deref() == Some(word)
            || step.history.iter().any(|h| h == word);
        if tool_like && engine.graph.tool_by_name(word).is_some() && !shown {
            fail(format!("the note names {word}, which is not on screen"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_match_the_query_list_and_carry_notes() {
        let steps = demo_steps();
        let queries: Vec<&str> = crate::demo::demo_queries();
        assert_eq!(
            steps.iter().map(|s| s.query.as_str()).collect::<Vec<_>>(),
            queries
        );
        let first = &steps[0];
        assert!(first.section.starts_with("BM25 seeds"), "{first:?}");
        assert!(first.note.contains("deleteExpiredCoupons"), "{first:?}");
        let pay = steps
            .iter()
            .find(|s| s.query == "get payment of an order")
            .unwrap();
        assert_eq!(pay.llm_target.as_deref(), Some("getPayment"));
        assert!(
            steps.iter().all(|s| !s.claims.is_empty()),
            "every step claims"
        );
        assert!(
            parse_steps("#= rank x y\nq\n")
                .unwrap_err()
                .contains("line 1")
        );
        assert!(parse_steps("#= frobnicate\nq\n").is_err());
    }

    /// UX trial defect 5: what each step's narration says is what the engine shows.
    #[test]
    fn the_narration_tells_the_truth() {
        let engine = Engine::new(crate::demo::load_demo().unwrap());
        let wrong: Vec<String> = demo_steps()
            .iter()
            .flat_map(|s| check_step(&engine, s))
            .collect();
        assert!(wrong.is_empty(), "{wrong:#?}");
        // the check bites: a wrong claim and a note naming an absent tool are caught
        let mut s = demo_steps().remove(0);
        s.claims.push(Claim::Selected("deleteCoupon".into()));
        s.note.push_str(" getMemberGrade");
        assert_eq!(check_step(&engine, &s).len(), 2);
    }
}
