//! The selector's decision (spec §5.6): sibling comparison, margins, the override
//! assessment, reason codes and the why-selected / why-rejected explanations.

use super::base::QueryAnalysis;
use super::priority::norm_priority;
use super::{
    AMBIGUITY_BAND, Candidate, EvidenceItem, OVERRIDE_MARGIN, OverrideAssessment, QueryFacets,
    Selection, WhyRejected, WhySelected,
};
use crate::engine::lexicon::*;
use crate::engine::params::Policy;
use crate::pytext::{self, round};

const DECISIVE: &[&str] = &[
    "api_contract",
    "contrastive_qualifier_match",
    "contrastive_unrequested_qualifier",
    "detail_surface",
    "hierarchy_level_match",
    "identifier_detail_contract",
    "identifier_detail_surface",
    "request_contract_fit",
    "response_contract_fit",
    "scope_fit",
    "scope_mismatch",
];

/// Sources compared only between members of the same sibling family.
const FAMILY_ONLY: &[&str] = &[
    "contrastive_qualifier_match",
    "contrastive_unrequested_qualifier",
    "scope_fit",
    "scope_mismatch",
];

fn same_family(a: &Candidate, b: &Candidate) -> bool {
    let r = a.primary_resource.as_str();
    if !r.is_empty() && r != "unknown" && r != "unassigned" {
        return r == b.primary_resource;
    }
    !a.path_module.is_empty() && a.path_module == b.path_module
}

fn strongest<'a>(c: &'a Candidate, source: &str) -> Option<&'a EvidenceItem> {
    let mut best: Option<&EvidenceItem> = None;
    for e in c.evidence.iter().filter(|e| e.source == source) {
        if best.is_none_or(|b| e.score.abs() > b.score.abs()) {
            best = Some(e);
        }
    }
    best
}

fn action_like_terms() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = SEL_ACTION_SHAPE_SETS
        .iter()
        .flat_map(|s| s.iter().copied())
        .collect();
    v.extend(
        SEL_ALL_SCOPE
            .iter()
            .chain(SEL_FILTERED_SCOPE.iter())
            .copied(),
    );
    v
}

fn signature(item: Option<&EvidenceItem>, source: &str) -> Vec<String> {
    let Some(item) = item else { return Vec::new() };
    let mut vals = item.signature_values();
    if source == "contrastive_qualifier_match" || source == "contrastive_unrequested_qualifier" {
        let generic = action_like_terms();
        vals.retain(|t| !generic.iter().any(|g| t.contains(g)));
    }
    vals.sort();
    vals
}

/// Pairwise decisive evidence: (supporting, contradicting) sources for `w` over `i`.
fn pairwise(w: &Candidate, i: &Candidate) -> (Vec<&'static str>, Vec<&'static str>) {
    let fam = same_family(w, i);
    let mut sup = Vec::new();
    let mut con = Vec::new();
    for &src in DECISIVE {
        if !fam && FAMILY_ONLY.contains(&src) {
            continue;
        }
        let wi = strongest(w, src);
        let ii = strongest(i, src);
        let ws = wi.map(|e| e.score).unwrap_or(0.0);
        let is = ii.map(|e| e.score).unwrap_or(0.0);
        let distinct = signature(wi, src) != signature(ii, src);
        if !distinct {
            continue;
        }
        if ws - is >= 0.04 && (ws >= 0.06 || is <= -0.06) {
            sup.push(src);
        }
        if is - ws >= 0.04 && (is >= 0.06 || ws <= -0.06) {
            con.push(src);
        }
    }
    (sup, con)
}

fn strip_numeric_suffix(s: &str) -> &str {
    if let Some(pos) = s.rfind('_') {
        let tail = &s[pos + 1..];
        if !tail.is_empty() && tail.chars().all(|c| c.is_ascii_digit()) {
            return &s[..pos];
        }
    }
    s
}

fn shares_operation(a: &Candidate, b: &Candidate) -> bool {
    if a.name == b.name {
        return false;
    }
    let (oa, ob) = (
        pytext::lower(&a.operation_id),
        pytext::lower(&b.operation_id),
    );
    if oa.is_empty() || ob.is_empty() {
        return false;
    }
    if oa == ob {
        return true;
    }
    let (sa, sb) = (pytext::lower(&a.summary), pytext::lower(&b.summary));
    strip_numeric_suffix(&oa) == strip_numeric_suffix(&ob) && !sa.is_empty() && sa == sb
}

fn push_once(v: &mut Vec<&'static str>, code: &'static str) {
    if !v.contains(&code) {
        v.push(code);
    }
}

fn compatible(qa: &QueryAnalysis, action: &str) -> bool {
    qa.ap.is_empty() || action.is_empty() || norm_priority(&qa.ap, action) >= 0.5
}

fn score_of(c: &Candidate, source: &str) -> f64 {
    strongest(c, source).map(|e| e.score).unwrap_or(0.0)
}

pub fn no_candidates(llm: Option<String>, policy: &Policy) -> Selection {
    Selection {
        selected_target: llm.clone().unwrap_or_default(),
        llm_target: llm.clone(),
        confidence: 0.0,
        overrode_llm: false,
        ambiguous: false,
        needs_expansion: true,
        decision: "expand_candidates",
        recommended_action: "expand_candidates",
        reason_codes: vec!["no_candidates"],
        ambiguity_set: Vec::new(),
        why_selected: WhySelected {
            name: llm.clone().unwrap_or_default(),
            reason_codes: vec!["no_candidates"],
            evidence_sources: Vec::new(),
            selector_score: 0.0,
        },
        why_rejected: Vec::new(),
        query_facets: QueryFacets::default(),
        margin: 0.0,
        llm_margin: None,
        policy: policy.clone(),
        override_assessment: OverrideAssessment {
            evaluated: false,
            allowed: false,
            risk_level: "high",
            supporting_sources: Vec::new(),
            contradicting_sources: Vec::new(),
            reason_codes: vec!["no_candidates"],
            needs_expansion: false,
            winner: None,
            llm_target: None,
            winner_margin: None,
            llm_margin: None,
        },
        rows: Vec::new(),
        target_action_priority: Vec::new(),
        result_shape_priority: Vec::new(),
        learning_applied: false,
        sibling_comparison_applied: false,
        no_candidates: true,
        winner: String::new(),
        runner_up: None,
    }
}

/// The selector's decision over scored candidates: pick the winner (sibling comparison
/// against the LLM's target), measure the margins, assess an override, settle the reason
/// codes, explain the choice and mark the rows.
pub fn decide(
    mut rows: Vec<Candidate>,
    qa: &QueryAnalysis,
    facets: QueryFacets,
    llm_target: Option<String>,
    policy: &Policy,
    learning_applied: bool,
) -> Selection {
    let llm_idx = llm_target
        .as_ref()
        .and_then(|l| rows.iter().position(|r| r.name == *l));
    let pick = pick_winner(&rows, llm_idx);
    let winner = pick.winner;
    let m = margins(&rows, &pick, llm_idx);
    let assessment = assess_override(&rows, qa, winner, llm_idx, &m);
    let v = settle(
        &rows,
        &pick,
        &m,
        llm_idx,
        llm_target.is_some(),
        policy,
        &assessment,
    );
    let decision = decision_name(v.overrode, llm_idx.is_some(), llm_target.is_some());
    let recommended = if v.needs_expansion {
        "expand_candidates"
    } else {
        decision
    };

    let sel = &rows[v.selected];
    let why_selected = explain_selected(sel, v.selected, winner, llm_idx, v.overrode);
    let sel_score = sel.selector_score;
    let why_rejected = explain_rejected(&rows, v.selected, sel_score, &v.ambiguity_set);
    let winner_name = rows[winner].name.clone();
    let runner_up_name = m.runner_up.map(|i| rows[i].name.clone());
    let selected_name = rows[v.selected].name.clone();
    for (i, r) in rows.iter_mut().enumerate() {
        r.selected = i == v.selected;
        r.llm_target = Some(i) == llm_idx;
    }
    Selection {
        confidence: sel_score,
        selected_target: selected_name,
        llm_target,
        overrode_llm: v.overrode,
        ambiguous: v.ambiguous,
        needs_expansion: v.needs_expansion,
        decision,
        recommended_action: recommended,
        reason_codes: v.codes,
        ambiguity_set: v.ambiguity_set,
        why_selected,
        why_rejected,
        query_facets: facets,
        margin: m.margin,
        llm_margin: m.llm_margin,
        policy: policy.clone(),
        override_assessment: assessment,
        rows,
        target_action_priority: qa.ap.clone(),
        result_shape_priority: qa.sp.clone(),
        learning_applied,
        sibling_comparison_applied: pick.sibling_applied,
        no_candidates: false,
        winner: winner_name,
        runner_up: runner_up_name,
    }
}

/// The winner and the rows the decision compares it with.
struct Pick {
    /// Index of the winning row (the top row unless a sibling beat the LLM's target).
    winner: usize,
    /// Rows considered for the runner-up and the ambiguity set.
    decision_rows: Vec<usize>,
    /// Whether the sibling comparison chose the winner.
    sibling_applied: bool,
}

/// Sibling comparison: the top row wins, unless the LLM named a row and the first member
/// of its sibling family beats it on decisive evidence with nothing against — then that
/// sibling wins and only the family is compared.
fn pick_winner(rows: &[Candidate], llm_idx: Option<usize>) -> Pick {
    let mut pick = Pick {
        winner: 0,
        decision_rows: (0..rows.len()).collect(),
        sibling_applied: false,
    };
    if let Some(l) = llm_idx {
        let sib: Vec<usize> = (0..rows.len())
            .filter(|&i| same_family(&rows[i], &rows[l]))
            .collect();
        let sw = sib.first().copied().unwrap_or(l);
        if sw != l {
            let (sup, con) = pairwise(&rows[sw], &rows[l]);
            if !sup.is_empty() && con.is_empty() {
                pick = Pick {
                    winner: sw,
                    decision_rows: sib,
                    sibling_applied: true,
                };
            }
        }
    }
    pick
}

/// The runner-up and the winner's rounded margins over it and over the LLM's target.
struct Margins {
    /// First decision row other than the winner that is not the same operation.
    runner_up: Option<usize>,
    /// The winner's selector score.
    winner_score: f64,
    /// Winner minus runner-up (0 when there is none), rounded to 6 places.
    margin: f64,
    /// Winner minus the LLM's target, rounded to 6 places.
    llm_margin: Option<f64>,
}

/// Finds the runner-up and measures the margins.
fn margins(rows: &[Candidate], pick: &Pick, llm_idx: Option<usize>) -> Margins {
    let winner = pick.winner;
    let runner_up = pick
        .decision_rows
        .iter()
        .copied()
        .find(|&i| i != winner && !shares_operation(&rows[winner], &rows[i]));
    let ws = rows[winner].selector_score;
    let margin = round(
        ws - runner_up.map(|i| rows[i].selector_score).unwrap_or(0.0),
        6,
    );
    let llm_margin = llm_idx.map(|l| round(ws - rows[l].selector_score, 6));
    Margins {
        runner_up,
        winner_score: ws,
        margin,
        llm_margin,
    }
}

/// The override assessment: may the winner replace the LLM's target? Not evaluated when
/// the LLM named no candidate or named the winner; otherwise every blocking rule adds its
/// code, and the risk follows from what blocked.
fn assess_override(
    rows: &[Candidate],
    qa: &QueryAnalysis,
    winner: usize,
    llm_idx: Option<usize>,
    m: &Margins,
) -> OverrideAssessment {
    let (margin, llm_margin) = (m.margin, m.llm_margin);
    let Some(l) = llm_idx.filter(|&l| l != winner) else {
        return OverrideAssessment {
            evaluated: false,
            allowed: false,
            risk_level: "none",
            supporting_sources: Vec::new(),
            contradicting_sources: Vec::new(),
            reason_codes: Vec::new(),
            needs_expansion: false,
            winner: None,
            llm_target: None,
            winner_margin: Some(margin),
            llm_margin,
        };
    };
    let (w, lr) = (&rows[winner], &rows[l]);
    let (sup, con) = pairwise(w, lr);
    let mut codes: Vec<&'static str> = Vec::new();
    let mut needs = false;
    let action_incompatible =
        compatible(qa, &lr.canonical_action) && !compatible(qa, &w.canonical_action);
    if action_incompatible {
        push_once(&mut codes, "action_incompatible_override_blocked");
    }
    if m.runner_up.is_some() && margin < OVERRIDE_MARGIN {
        push_once(&mut codes, "candidate_tie_override_blocked");
        needs = true;
    }
    if llm_margin.unwrap_or(0.0) < OVERRIDE_MARGIN {
        push_once(&mut codes, "insufficient_pairwise_margin");
        needs = true;
    }
    if !w.strong_evidence {
        push_once(&mut codes, "weak_winner_evidence");
    }
    if sup.is_empty() {
        push_once(&mut codes, "non_discriminative_override_blocked");
        needs = true;
    }
    if sup == ["contrastive_unrequested_qualifier"]
        && (score_of(lr, "contrastive_unrequested_qualifier").abs() < 0.12
            || score_of(lr, "surface_terms") > score_of(w, "surface_terms") + 0.015)
    {
        push_once(&mut codes, "negative_only_override_blocked");
        needs = true;
    }
    if !con.is_empty() {
        push_once(&mut codes, "contradictory_evidence_override_blocked");
        needs = true;
    }
    if w.rank_or_max() > lr.rank_or_max() && sup.is_empty() {
        push_once(&mut codes, "lower_rank_surface_override_blocked");
    }
    let allowed = codes.is_empty();
    let risk = if allowed {
        "low"
    } else if action_incompatible || !con.is_empty() {
        "high"
    } else {
        "medium"
    };
    OverrideAssessment {
        evaluated: true,
        allowed,
        risk_level: risk,
        supporting_sources: sup,
        contradicting_sources: con,
        reason_codes: codes,
        needs_expansion: needs,
        winner: Some(w.name.clone()),
        llm_target: Some(lr.name.clone()),
        winner_margin: Some(margin),
        llm_margin,
    }
}

/// What the decision settled on: the selected row and the flags and codes that say why.
struct Verdict {
    /// Index of the selected row.
    selected: usize,
    /// The selection's reason codes, in the order the rules added them.
    codes: Vec<&'static str>,
    ambiguous: bool,
    overrode: bool,
    needs_expansion: bool,
    /// Names within the ambiguity band of the winner (plus the selected row when ambiguous).
    ambiguity_set: Vec<String>,
}

/// Settles the selection: override or preserve the LLM's target, flag ties and ambiguity,
/// build the ambiguity set and fall back to the winner's evidence code.
fn settle(
    rows: &[Candidate],
    pick: &Pick,
    m: &Margins,
    llm_idx: Option<usize>,
    has_llm_target: bool,
    policy: &Policy,
    assessment: &OverrideAssessment,
) -> Verdict {
    let winner = pick.winner;
    let mut selected = llm_idx.unwrap_or(winner);
    let mut codes: Vec<&'static str> = Vec::new();
    let mut ambiguous = false;
    let mut overrode = false;
    let mut needs_expansion = false;
    if let Some(l) = llm_idx
        && l != winner
    {
        if policy.may_override() && assessment.allowed {
            selected = winner;
            overrode = true;
            codes.push("llm_target_overridden");
        } else {
            ambiguous = true;
            for c in assessment.reason_codes.clone() {
                codes.push(c);
            }
            push_once(&mut codes, "ambiguous_target");
            needs_expansion = assessment.needs_expansion;
        }
    }
    if has_llm_target && llm_idx.is_none() {
        codes.push("llm_target_not_in_candidates");
        needs_expansion = true;
    }
    if m.margin < OVERRIDE_MARGIN && rows.len() > 1 && !overrode {
        ambiguous = true;
        push_once(&mut codes, "ambiguous_target");
        needs_expansion = true;
    }
    let ws = m.winner_score;
    let mut ambiguity_set: Vec<String> = pick
        .decision_rows
        .iter()
        .filter(|&&i| {
            let d = ws - rows[i].selector_score;
            (0.0..=AMBIGUITY_BAND).contains(&d)
        })
        .map(|&i| rows[i].name.clone())
        .collect();
    if ambiguous && !ambiguity_set.contains(&rows[selected].name) {
        ambiguity_set.push(rows[selected].name.clone());
    }
    if ambiguity_set.len() > 1 && !overrode {
        ambiguous = true;
        push_once(&mut codes, "ambiguous_target");
        push_once(&mut codes, "insufficient_contrastive_evidence");
    }
    if selected != winner && !overrode {
        codes.push("llm_target_preserved");
    }
    if codes.is_empty() {
        codes.push(if rows[winner].strong_evidence {
            "selected_by_strong_evidence"
        } else {
            "selected_by_rank"
        });
    }
    Verdict {
        selected,
        codes,
        ambiguous,
        overrode,
        needs_expansion,
        ambiguity_set,
    }
}

/// The decision's name: an override, the LLM's target preserved, a fallback when the LLM
/// named no candidate, or a plain selection.
fn decision_name(overrode: bool, llm_in_rows: bool, has_llm_target: bool) -> &'static str {
    if overrode {
        "override_llm"
    } else if llm_in_rows {
        "preserve_llm"
    } else if has_llm_target {
        "select_fallback"
    } else {
        "select"
    }
}

/// Why the selected row was chosen: its positive evidence sources, then how it won.
fn explain_selected(
    sel: &Candidate,
    selected: usize,
    winner: usize,
    llm_idx: Option<usize>,
    overrode: bool,
) -> WhySelected {
    let mut positive: Vec<&'static str> = Vec::new();
    for e in &sel.evidence {
        if e.score > 0.0 {
            push_once(&mut positive, e.source);
        }
    }
    let mut why_codes = positive.clone();
    if overrode {
        why_codes.push("llm_target_overridden");
    } else if Some(selected) == llm_idx {
        why_codes.push("llm_target_preserved");
    } else if selected == winner {
        why_codes.push("highest_selector_score");
    }
    if why_codes.is_empty() {
        why_codes.push("retrieval_rank");
    }
    WhySelected {
        name: sel.name.clone(),
        reason_codes: why_codes,
        evidence_sources: positive,
        selector_score: sel.selector_score,
    }
}

/// Why every other row was rejected: its negative evidence sources, its score gap to the
/// selected row and whether it was an unresolved sibling, preserved over, or outscored.
fn explain_rejected(
    rows: &[Candidate],
    selected: usize,
    sel_score: f64,
    ambiguity_set: &[String],
) -> Vec<WhyRejected> {
    rows.iter()
        .enumerate()
        .filter(|&(i, _)| i != selected)
        .map(|(_, r)| {
            let mut negative: Vec<&'static str> = Vec::new();
            for e in &r.evidence {
                if e.score < 0.0 {
                    push_once(&mut negative, e.source);
                }
            }
            let delta = round(sel_score - r.selector_score, 6);
            let mut rc = negative.clone();
            rc.push(if ambiguity_set.contains(&r.name) {
                "equivalent_or_unresolved_sibling"
            } else if delta < 0.0 {
                "llm_guard_preserved_target"
            } else {
                "lower_selector_score"
            });
            WhyRejected {
                name: r.name.clone(),
                reason_codes: rc,
                evidence_sources: negative,
                score_delta: delta,
            }
        })
        .collect()
}
