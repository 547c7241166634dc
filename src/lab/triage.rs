//! Suite triage: every case of a suite triaged by the engine's [`crate::engine::triage`]
//! with its own parameters (a case's `llm_target`, `policy`, `top_k`, `depth`,
//! `token_budget` and `history` override the command line's), in parallel across cores,
//! and the counts per failure class.
//!
//! Case parameters are read flat (`{"top_k": 5, "llm_target": "x"}`, the fixture format)
//! or nested as the golden case files carry them (`{"params": {...}, "selector": {...}}`).

use super::suite::{Case, Suite};
use crate::engine::Engine;
use crate::engine::docpatch::DocPatch;
use crate::engine::knobs::Knobs;
use crate::engine::triage::probes::top_tools;
use crate::engine::triage::{CLASSES, ProbeChange, Triage, TriageError, TriageOptions, triage};
use crate::model::ToolId;

/// The triage of one case, or why it could not be triaged.
#[derive(Debug, Clone)]
pub struct CaseTriage {
    pub id: String,
    pub query: String,
    pub expected: Vec<String>,
    pub outcome: Result<Triage, CaseError>,
}

/// Why a case got no class.
#[derive(Debug, Clone, PartialEq)]
pub enum CaseError {
    /// None of its expected names is a tool of the graph (the first, with the closest
    /// names), or it names none.
    Expected(TriageError),
    /// A case parameter is out of range or of the wrong type.
    Params(String),
}

impl std::fmt::Display for CaseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CaseError::Expected(e) => write!(f, "{e}"),
            CaseError::Params(m) => write!(f, "case parameters: {m}"),
        }
    }
}

/// The knobs of a case: `base` with the case's own parameters applied (the suite reader
/// type-checked them: [`Case::knobs`]).
pub fn case_knobs(base: &Knobs, case: &Case) -> Result<Knobs, String> {
    case.knobs(base, &[])
}

/// The expected names of a case that are tools of the graph (all of them when none is, so
/// that the error names the first).
fn known_expected(engine: &Engine, case: &Case) -> Vec<String> {
    let known: Vec<String> = case
        .expected
        .iter()
        .filter(|e| engine.graph.tool_id(e).is_some())
        .cloned()
        .collect();
    if known.is_empty() {
        case.expected.clone()
    } else {
        known
    }
}

/// Triage of one case of a suite.
pub fn triage_case(engine: &Engine, case: &Case, base: &Knobs, opts: &TriageOptions) -> CaseTriage {
    let outcome = match case_knobs(base, case) {
        Err(m) => Err(CaseError::Params(m)),
        Ok(k) => triage(engine, &case.query, &known_expected(engine, case), &k, opts)
            .map_err(CaseError::Expected),
    };
    CaseTriage {
        id: case.id.clone(),
        query: case.query.clone(),
        expected: case.expected.clone(),
        outcome,
    }
}

/// Whether any case of the suite names an expected tool.
pub fn has_labels(suite: &Suite) -> bool {
    suite.cases.iter().any(|c| !c.expected.is_empty())
}

/// Triage of every case with an expected tool, in suite order, parallel across cores.
/// Cases without an expected tool are skipped (nothing to classify).
pub fn triage_suite(
    engine: &Engine,
    suite: &Suite,
    base: &Knobs,
    opts: &TriageOptions,
) -> Vec<CaseTriage> {
    let cases: Vec<&Case> = suite
        .cases
        .iter()
        .filter(|c| !c.expected.is_empty())
        .collect();
    crate::par::map_heavy(&cases, |c| triage_case(engine, c, base, opts))
}

/// Cases per class in [`CLASSES`] order (every class listed, zeros included), then the
/// number of cases that got no class.
pub fn counts(results: &[CaseTriage]) -> (Vec<(&'static str, usize)>, usize) {
    let mut out: Vec<(&'static str, usize)> = CLASSES.iter().map(|c| (*c, 0)).collect();
    let mut unclassified = 0;
    for r in results {
        match &r.outcome {
            Ok(t) => {
                if let Some(slot) = out.iter_mut().find(|(c, _)| *c == t.class.as_str()) {
                    slot.1 += 1;
                }
            }
            Err(_) => unclassified += 1,
        }
    }
    (out, unclassified)
}

/// What one probe's change does to the other cases of a suite (retrieval only: top-1 and
/// hit@k of each labelled case, base against variant, each case with its own parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SideEffects {
    pub cases: usize,
    pub top1_changed: usize,
    pub hit_gained: usize,
    pub hit_lost: usize,
}

fn replay(
    engine: &Engine,
    case: &Case,
    base: &Knobs,
    change: &ProbeChange,
    patch: Option<&DocPatch>,
) -> Option<(bool, i8)> {
    let k = case_knobs(base, case).ok()?;
    let before = top_tools(engine, &case.query, &k.params, None);
    let after = match change {
        ProbeChange::Knob { set, .. } => {
            let v = k.set_from_str(set).ok()?;
            top_tools(engine, &case.query, &v.params, None)
        }
        ProbeChange::Document { .. } => top_tools(engine, &case.query, &k.params, patch),
    };
    let hit = |v: &[ToolId]| {
        v.iter()
            .any(|t| case.expected.iter().any(|e| engine.graph.tool_key(*t) == e))
    };
    let d = i8::from(hit(&after)) - i8::from(hit(&before));
    Some((before.first() != after.first(), d))
}

/// Replays one probe's change over every labelled case of `suite` (in parallel; a
/// document probe's patch is built once over the shared, unchanged index).
pub fn side_effects(
    engine: &Engine,
    suite: &Suite,
    base: &Knobs,
    change: &ProbeChange,
    expected_tool: ToolId,
) -> SideEffects {
    let patch = match change {
        ProbeChange::Document { term, .. } => {
            Some(DocPatch::new(&engine.index, expected_tool, term))
        }
        ProbeChange::Knob { .. } => None,
    };
    let cases: Vec<&Case> = suite
        .cases
        .iter()
        .filter(|c| !c.expected.is_empty())
        .collect();
    let patch = patch.as_ref();
    let per: Vec<(bool, i8)> =
        crate::par::map_heavy(&cases, |c| replay(engine, c, base, change, patch))
            .into_iter()
            .flatten()
            .collect();
    SideEffects {
        cases: per.len(),
        top1_changed: per.iter().filter(|p| p.0).count(),
        hit_gained: per.iter().filter(|p| p.1 > 0).count(),
        hit_lost: per.iter().filter(|p| p.1 < 0).count(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::suite::parse_suite;

    fn demo() -> Engine {
        Engine::new(crate::demo::load_demo().unwrap())
    }

    #[test]
    fn case_parameters_override_the_base_flat_or_nested() {
        let s = parse_suite(
            "t.jsonl",
            "t",
            concat!(
                r#"{"case_id":"a","query":"q","expected_target":"listOrders","top_k":3,"llm_target":"getOrder","policy":"risk_limited"}"#,
                "\n",
                r#"{"id":"b","query":"q","labels":{"expected_tools":["listOrders"]},"params":{"top_k":6,"depth":1,"token_budget":900,"history":["x"]},"selector":{"llm_target":null,"policy":"strong_evidence"}}"#,
                "\n"
            ),
        )
        .unwrap();
        // a parameter of the wrong type is refused when the suite is read
        let bad = r#"{"case_id":"c","query":"q","expected_target":"listOrders","depth":-1}"#;
        assert!(
            parse_suite("t.jsonl", "t", bad)
                .unwrap_err()
                .to_string()
                .contains("depth")
        );
        let mut base = Knobs::default();
        base.params.depth = 3;
        base.select.llm_target = Some("cancelOrder".into());
        let a = case_knobs(&base, &s.cases[0]).unwrap();
        assert_eq!(
            (
                a.params.top_k,
                a.params.depth,
                a.select.llm_target.as_deref()
            ),
            (3, 3, Some("getOrder"))
        );
        assert_eq!(a.select.policy, "risk_limited");
        let b = case_knobs(&base, &s.cases[1]).unwrap();
        assert_eq!(
            (b.params.top_k, b.params.depth, b.params.token_budget),
            (6, 1, 900)
        );
        assert_eq!(b.params.history, vec!["x".to_string()]);
        assert_eq!(b.select.llm_target, None, "an explicit null overrides");
    }

    #[test]
    fn suite_triage_classifies_labelled_cases_and_counts_them() {
        let e = demo();
        let s = parse_suite(
            "t.jsonl",
            "t",
            concat!(
                r#"{"case_id":"a","query":"approve refund","expected_target":"listOrders"}"#,
                "\n",
                r#"{"case_id":"b","query":"approve refund","expected_target":"noSuchTool"}"#,
                "\n",
                r#"{"case_id":"c","query":"approve refund"}"#,
                "\n",
                r#"{"case_id":"d","query":"approve refund","expected_tools":["noSuchTool","listOrders"]}"#,
                "\n"
            ),
        )
        .unwrap();
        let opts = TriageOptions {
            probes: false,
            document_probes: false,
            ..TriageOptions::default()
        };
        let r = triage_suite(&e, &s, &Knobs::default(), &opts);
        let ids: Vec<&str> = r.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(
            ids,
            ["a", "b", "d"],
            "a case without labels is not classified"
        );
        let (counts, unclassified) = counts(&r);
        assert_eq!(unclassified, 1);
        assert_eq!(counts.iter().map(|c| c.1).sum::<usize>(), 2);
        assert!(matches!(
            &r[1].outcome,
            Err(CaseError::Expected(TriageError::UnknownTool { .. }))
        ));
        let d = r[2].outcome.as_ref().unwrap();
        assert_eq!(d.expected, "listOrders", "unknown names are left out");
    }

    /// A side-effect replay equals re-running each case by hand with the change applied.
    #[test]
    fn side_effects_equal_per_case_reruns() {
        let e = demo();
        let s = parse_suite(
            "t.jsonl",
            "t",
            concat!(
                r#"{"case_id":"a","query":"approve refund","expected_target":"listOrders"}"#,
                "\n",
                r#"{"case_id":"b","query":"list orders","expected_target":"listOrders"}"#,
                "\n",
                r#"{"case_id":"c","query":"count orders by status","expected_target":"countOrders"}"#,
                "\n",
                r#"{"case_id":"d","query":"refund approval","expected_target":"listRefunds"}"#,
                "\n"
            ),
        )
        .unwrap();
        let base = Knobs::default();
        let change = ProbeChange::Knob {
            knob: "top_k",
            value: 1.into(),
            set: "top_k=1".into(),
        };
        let tool = e.graph.tool_id("listOrders").unwrap();
        let fx = side_effects(&e, &s, &base, &change, tool);
        let v = base.set_from_str("top_k=1").unwrap();
        let (mut lost, mut top1) = (0, 0);
        for c in &s.cases {
            let a = e.retrieve(&c.query, &base.params);
            let b = e.retrieve(&c.query, &v.params);
            let hit =
                |r: &crate::engine::Retrieval| r.rows.iter().any(|x| c.expected.contains(&x.name));
            lost += usize::from(hit(&a) && !hit(&b));
            top1 += usize::from(a.rows.first().map(|r| &r.name) != b.rows.first().map(|r| &r.name));
        }
        assert_eq!(fx.cases, 4);
        assert_eq!(
            (fx.hit_lost, fx.top1_changed, fx.hit_gained),
            (lost, top1, 0)
        );
        assert!(fx.hit_lost > 0);
    }
}
