//! Contrastive sibling analysis (spec §5.4, `contrast_target_candidates`) and its
//! combination with the base score (§5.5).

use std::collections::BTreeSet;

use super::base::{QueryAnalysis, ToolView};
use super::priority::preferred;
use super::terms::{
    Terms, ck_set, identifier_present, is_version_or_numeric, match_c, st, st_into,
};
use super::{Candidate, EvidenceExtra, EvidenceItem, QueryFacets};
use crate::engine::lexicon::*;
use crate::model::Graph;
use crate::model::tool::opt_str;
use crate::pytext::round;

type StrSet = rustc_hash::FxHashSet<&'static str>;

fn generic_q_base() -> &'static StrSet {
    static S: std::sync::LazyLock<StrSet> =
        std::sync::LazyLock::new(|| generic_with(CONTRAST_GENERIC_BASE).into_iter().collect());
    &S
}

fn facet_generic() -> &'static StrSet {
    static S: std::sync::LazyLock<StrSet> =
        std::sync::LazyLock::new(|| generic_with(FACET_GENERIC_BASE).into_iter().collect());
    &S
}

fn scope_of(terms: &Terms) -> &'static str {
    if SEL_ALL_SCOPE.iter().any(|s| terms.contains(*s)) {
        "all"
    } else if SEL_FILTERED_SCOPE.iter().any(|s| terms.contains(*s)) {
        "filtered"
    } else {
        "bounded"
    }
}

fn scope_adjustment(q: &str, c: &str) -> f64 {
    if q == c {
        if q == "all" || q == "filtered" {
            0.16
        } else {
            0.0
        }
    } else if c == "all" {
        if q == "filtered" { -0.16 } else { -0.12 }
    } else if q == "all" {
        -0.10
    } else if q == "filtered" && c == "bounded" {
        0.04
    } else {
        0.0
    }
}

/// A candidate's contrastive context; query independent, cached per tool.
#[derive(Debug, Clone)]
pub struct Ctx {
    group: String,
    surface: Terms,
    penalty_surface: Terms,
    consumes: Terms,
    produces: Terms,
    scope: &'static str,
    /// `surface` / `penalty_surface` without generic, tool-specific generic and
    /// version-like terms: qualifier candidates before the group's shared terms go
    qualifier_pool: Terms,
    penalty_pool: Terms,
}

fn join_nonempty(parts: &[String]) -> String {
    parts
        .iter()
        .filter(|s| !s.is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join(" ")
}

fn contract_dir<'a>(rows: impl Iterator<Item = &'a serde_json::Value>) -> Terms {
    let t = super::base::contract_terms(rows);
    ck_set(&t)
        .into_iter()
        .filter(|x| !is_version_or_numeric(x))
        .collect()
}

pub fn context(
    graph: &Graph,
    tool_id: crate::model::ToolId,
    name: &str,
    action: &str,
    declared: &str,
) -> Ctx {
    let tool = graph.tool(tool_id);
    let f = &tool.facts;
    let v = ToolView::new(tool);
    let (oa_op, oa_sum, oa_desc, oa_path) = match &f.openapi {
        Some(oa) => (
            opt_str(&oa.operation_id),
            opt_str(&oa.summary),
            opt_str(&oa.description),
            opt_str(&oa.path),
        ),
        None => Default::default(),
    };
    let (one_line, when) = match &f.ai {
        Some(ai) => (opt_str(&ai.one_line_summary), opt_str(&ai.when_to_use)),
        None => Default::default(),
    };
    let surface_text = join_nonempty(&[
        name.to_string(),
        tool.name.clone(),
        tool.description.clone(),
        oa_op,
        oa_sum.clone(),
        oa_desc,
        oa_path,
        one_line.clone(),
        when,
    ]);
    let surface = ck_set(&st(&surface_text));
    let penalty_surface = ck_set(&st(&join_nonempty(&[oa_sum, one_line, v.resource.clone()])));
    let p_rows = f.produces_or_api();
    let c_rows = f.consumes_or_api();
    let consumes = contract_dir(c_rows.iter());
    let produces = contract_dir(p_rows.iter());
    let scope = if action != "search" && declared != "list" {
        "bounded"
    } else if SEL_ALL_SCOPE.iter().any(|s| surface.contains(*s))
        || (surface.contains("no") && surface.contains("paging"))
    {
        "all"
    } else if SEL_FILTERED_SCOPE.iter().any(|s| surface.contains(*s)) || !consumes.is_empty() {
        "filtered"
    } else {
        "bounded"
    };
    let group_key = if !v.resource.is_empty() {
        v.resource.clone()
    } else if !v.module.is_empty() {
        v.module.clone()
    } else {
        "unknown".to_string()
    };
    let mut generic_extra = Terms::new();
    st_into(&v.resource, &mut generic_extra);
    st_into(&v.module, &mut generic_extra);
    let generic = generic_q_base();
    let pool = |terms: &Terms| -> Terms {
        terms
            .iter()
            .filter(|t| {
                !generic.contains(&t.as_str())
                    && !generic_extra.contains(*t)
                    && !is_version_or_numeric(t)
            })
            .cloned()
            .collect()
    };
    let qualifier_pool = pool(&surface);
    let penalty_pool = pool(&penalty_surface);
    Ctx {
        group: format!("{group_key}:siblings:all"),
        surface,
        penalty_surface,
        consumes,
        produces,
        scope,
        qualifier_pool,
        penalty_pool,
    }
}

fn intersect_all<'a>(sets: impl Iterator<Item = &'a Terms>) -> Terms {
    let mut acc: Option<Terms> = None;
    for s in sets {
        acc = Some(match acc {
            None => s.clone(),
            Some(a) => a.intersection(s).cloned().collect(),
        });
    }
    acc.unwrap_or_default()
}

/// A candidate's qualifiers: its pool (surface minus generic and version-like terms) minus
/// the terms every sibling of its group shares.
fn qualifiers(pool: &Terms, shared: &Terms) -> Terms {
    pool.iter()
        .filter(|t| !shared.contains(*t))
        .cloned()
        .collect()
}

fn item(source: &'static str, extra: EvidenceExtra, score: f64) -> EvidenceItem {
    EvidenceItem {
        source,
        extra,
        score: round(score, 6),
    }
}

fn list12(t: &Terms) -> Vec<String> {
    t.iter().take(12).cloned().collect()
}

/// Adds contrastive evidence to every candidate, combines scores and sorts the rows.
/// `ctx[i]` is the contrastive context of `rows[i]`.
pub fn apply(ctx: &[&Ctx], rows: &mut [Candidate], qa: &QueryAnalysis) -> QueryFacets {
    let qc = ck_set(&qa.qt);
    let q_scope = scope_of(&qc);
    // groups in first-seen order
    let mut groups: Vec<String> = Vec::new();
    for c in ctx {
        if !groups.contains(&c.group) {
            groups.push(c.group.clone());
        }
    }
    let mut quals: Vec<Terms> = vec![Terms::new(); rows.len()];
    let mut pquals: Vec<Terms> = vec![Terms::new(); rows.len()];
    for g in &groups {
        let members: Vec<usize> = (0..rows.len()).filter(|&i| ctx[i].group == *g).collect();
        if members.len() < 2 {
            // a lone candidate shares every term with its group: no qualifiers
            continue;
        }
        let shared = intersect_all(members.iter().map(|&i| &ctx[i].surface));
        let shared_p = intersect_all(members.iter().map(|&i| &ctx[i].penalty_surface));
        for &i in &members {
            quals[i] = qualifiers(&ctx[i].qualifier_pool, &shared);
            pquals[i] = qualifiers(&ctx[i].penalty_pool, &shared_p);
        }
    }
    for i in 0..rows.len() {
        let peers: Vec<usize> = (0..rows.len())
            .filter(|&j| ctx[j].group == ctx[i].group)
            .collect();
        let matched = match_c(&qc, &quals[i]);
        let min_q = peers.iter().map(|&j| quals[j].len()).min().unwrap_or(0);
        let penalized: Terms = if peers.len() > 1 && quals[i].len() > min_q && matched.is_empty() {
            pquals[i]
                .iter()
                .filter(|t| !matched.contains(*t))
                .cloned()
                .collect()
        } else {
            Terms::new()
        };
        let request = match_c(&qc, &ctx[i].consumes);
        let response = match_c(&qc, &ctx[i].produces);
        let mut ev: Vec<EvidenceItem> = Vec::new();
        if !matched.is_empty() {
            ev.push(item(
                "contrastive_qualifier_match",
                EvidenceExtra::MatchedTerms(list12(&matched)),
                f64::min(0.24, 0.06 * matched.len() as f64),
            ));
            if matched.contains("large") || matched.contains("small") {
                ev.push(item(
                    "hierarchy_level_match",
                    EvidenceExtra::MatchedTerms(list12(&matched)),
                    0.02,
                ));
            }
        }
        if !penalized.is_empty() {
            ev.push(item(
                "contrastive_unrequested_qualifier",
                EvidenceExtra::Terms(list12(&penalized)),
                -f64::min(0.14, 0.07 * penalized.len() as f64),
            ));
        }
        if !request.is_empty() {
            ev.push(item(
                "request_contract_fit",
                EvidenceExtra::MatchedTerms(list12(&request)),
                f64::min(0.10, 0.05 * request.len() as f64),
            ));
        }
        if !response.is_empty() {
            ev.push(item(
                "response_contract_fit",
                EvidenceExtra::MatchedTerms(list12(&response)),
                f64::min(0.12, 0.06 * response.len() as f64),
            ));
        }
        let scopes: BTreeSet<&str> = peers.iter().map(|&j| ctx[j].scope).collect();
        let adj = scope_adjustment(q_scope, ctx[i].scope);
        if scopes.len() > 1 && adj != 0.0 {
            let src = if adj > 0.0 {
                "scope_fit"
            } else {
                "scope_mismatch"
            };
            ev.push(item(
                src,
                EvidenceExtra::Scope {
                    value: ctx[i].scope.to_string(),
                    query_scope: q_scope.to_string(),
                    candidate_scope: ctx[i].scope.to_string(),
                },
                adj,
            ));
        }
        let mut sum = 0.0;
        for e in &ev {
            sum += e.score;
        }
        let adjustment = round(sum.clamp(-0.20, 0.28), 6);
        let row = &mut rows[i];
        row.base_selector_score = row.selector_score;
        row.contrastive_score = adjustment;
        row.selector_score = round((row.base_selector_score + adjustment).clamp(0.0, 1.0), 6);
        if ev.iter().any(|e| e.score >= 0.08) {
            row.strong_evidence = true;
        }
        row.evidence.extend(ev.iter().cloned());
        row.contrastive_evidence = ev;
    }
    rows.sort_by(|a, b| {
        b.selector_score
            .partial_cmp(&a.selector_score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.rank_or_max().cmp(&b.rank_or_max()))
    });
    let fg = facet_generic();
    QueryFacets {
        canonical_action: preferred(&qa.ap).to_string(),
        result_shape: preferred(&qa.sp).to_string(),
        identifier_present: identifier_present(&qc),
        content_term_count: qc
            .iter()
            .filter(|t| !fg.contains(&t.as_str()) && !is_version_or_numeric(t))
            .count(),
        scope: q_scope.to_string(),
    }
}
