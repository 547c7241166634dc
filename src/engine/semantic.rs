//! Structured match evidence (`semantic_evidence`, spec §4.4). Computed after ranking and
//! never changes a score.

use rustc_hash::FxHashSet;
use serde_json::Value;
use std::collections::BTreeSet;
use unicode_normalization::UnicodeNormalization;

use super::lexicon::{
    ACTION_TERMS, EVIDENCE_GENERIC_BASE, EVIDENCE_KO_SUFFIXES, SHAPE_TERMS, STRONG_SINGLE_TERMS,
    WEAK_SINGLE_TERMS,
};
use crate::model::Tool;
use crate::model::tool::opt_str;
use crate::pytext;

pub type TermSet = FxHashSet<String>;

fn is_term_separator(c: char) -> bool {
    matches!(
        c,
        '_' | '-'
            | '/'
            | '.'
            | ','
            | ';'
            | ':'
            | '!'
            | '?'
            | '('
            | ')'
            | '['
            | ']'
            | '{'
            | '}'
            | '$'
            | '#'
    ) || pytext::is_space(c)
}

/// NFKC, then a space between `[a-z0-9]` and a following `[A-Z]`, then lower-case.
pub fn normalize_text(v: &str) -> String {
    let nf: String = v.nfkc().collect();
    let mut spaced = String::with_capacity(nf.len() + 4);
    let mut prev: Option<char> = None;
    for c in nf.chars() {
        if let Some(p) = prev
            && (p.is_ascii_lowercase() || p.is_ascii_digit())
            && c.is_ascii_uppercase()
        {
            spaced.push(' ');
        }
        spaced.push(c);
        prev = Some(c);
    }
    pytext::lower(&spaced)
}

fn all_hangul_or_digit(t: &str) -> bool {
    !t.is_empty()
        && t.chars()
            .all(|c| pytext::is_hangul_syllable(c) || c.is_ascii_digit())
}

pub fn all_hangul(t: &str) -> bool {
    !t.is_empty() && t.chars().all(pytext::is_hangul_syllable)
}

fn korean_strip(t: &str) -> Option<String> {
    let n = t.chars().count();
    if n < 3 || !all_hangul_or_digit(t) {
        return None;
    }
    for s in EVIDENCE_KO_SUFFIXES {
        if let Some(rest) = t.strip_suffix(s)
            && rest.chars().count() >= 2
        {
            return Some(rest.to_string());
        }
    }
    None
}

/// `terms(v)` of spec §4.4.
pub fn terms(v: &str) -> TermSet {
    let mut out = TermSet::default();
    add_terms(v, &mut out);
    out
}

pub fn add_terms(v: &str, out: &mut TermSet) {
    if v.is_empty() {
        return;
    }
    let norm = normalize_text(v);
    for t in norm.split(is_term_separator) {
        if t.chars().count() <= 1 {
            continue;
        }
        if let Some(s) = korean_strip(t)
            && s != t
        {
            out.insert(s);
        }
        out.insert(t.to_string());
    }
}

/// `match(L, R)`: exact overlap plus Korean substring overlap; a subset of `L`.
pub fn fuzzy_match(l: &TermSet, r: &TermSet) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let r_hangul: Vec<&String> = r
        .iter()
        .filter(|x| x.chars().count() >= 2 && all_hangul(x))
        .collect();
    for x in l {
        if r.contains(x) {
            out.insert(x.clone());
            continue;
        }
        if x.chars().count() >= 2
            && all_hangul(x)
            && r_hangul
                .iter()
                .any(|y| y.contains(x.as_str()) || x.contains(y.as_str()))
        {
            out.insert(x.clone());
        }
    }
    out
}

pub fn family_terms(
    table: &[(&str, &'static [&'static str])],
    key: &str,
) -> &'static [&'static str] {
    table
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| *v)
        .unwrap_or(&[])
}

fn generic_terms() -> &'static FxHashSet<&'static str> {
    static G: std::sync::LazyLock<FxHashSet<&'static str>> = std::sync::LazyLock::new(|| {
        let mut s: FxHashSet<&'static str> = EVIDENCE_GENERIC_BASE.iter().copied().collect();
        for (_, v) in ACTION_TERMS.iter().chain(SHAPE_TERMS.iter()) {
            s.extend(v.iter().copied());
        }
        s
    });
    &G
}

/// A term hits the normalised query: ASCII-letter terms as whole words, others as substrings.
pub fn term_hits(query_norm: &str, term: &str) -> bool {
    if !term.chars().any(|c| c.is_ascii_alphabetic()) {
        return query_norm.contains(term);
    }
    let bytes = query_norm.as_bytes();
    let mut from = 0;
    while let Some(pos) = query_norm[from..].find(term) {
        let s = from + pos;
        let e = s + term.len();
        let before_ok =
            s == 0 || !(bytes[s - 1].is_ascii_lowercase() || bytes[s - 1].is_ascii_digit());
        let after_ok =
            e == bytes.len() || !(bytes[e].is_ascii_lowercase() || bytes[e].is_ascii_digit());
        if before_ok && after_ok {
            return true;
        }
        from = s + query_norm[s..]
            .chars()
            .next()
            .map(|c| c.len_utf8())
            .unwrap_or(1);
    }
    false
}

fn any_hit(query_norm: &str, set: &[&str]) -> bool {
    set.iter().any(|t| term_hits(query_norm, t))
}

/// Query-side evidence facts, computed once per query.
#[derive(Debug, Clone, Default)]
pub struct QueryEvidence {
    pub terms: TermSet,
    pub terms_minus_generic: TermSet,
    pub result_shape: &'static str,
    pub action: &'static str,
}

impl QueryEvidence {
    pub fn new(query: &str) -> QueryEvidence {
        let terms = terms(query);
        let g = generic_terms();
        let terms_minus_generic = terms
            .iter()
            .filter(|t| !g.contains(t.as_str()))
            .cloned()
            .collect();
        let qn = normalize_text(query);
        let shape = if any_hit(&qn, family_terms(SHAPE_TERMS, "count")) {
            "count"
        } else if any_hit(&qn, family_terms(SHAPE_TERMS, "list")) {
            "list"
        } else if any_hit(&qn, STRONG_SINGLE_TERMS) {
            "single"
        } else if any_hit(&qn, family_terms(SHAPE_TERMS, "mutation")) {
            "mutation"
        } else if any_hit(&qn, WEAK_SINGLE_TERMS) {
            "single"
        } else {
            ""
        };
        let action = match shape {
            "list" => "search",
            "single" => "read",
            _ => ["delete", "create", "update", "action", "search", "read"]
                .into_iter()
                .find(|a| any_hit(&qn, family_terms(ACTION_TERMS, a)))
                .unwrap_or(""),
        };
        QueryEvidence {
            terms,
            terms_minus_generic,
            result_shape: shape,
            action,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct SemanticEvidence {
    pub canonical_action: String,
    pub primary_resource: String,
    pub result_shape: String,
    pub path_module: String,
    pub query_action: &'static str,
    pub query_result_shape: &'static str,
    pub action_match: bool,
    pub resource_match: bool,
    pub module_match: bool,
    pub shape_match: bool,
    pub contract_match: bool,
    pub summary_matched_terms: Vec<String>,
    pub summary_specificity: f64,
    pub matched_terms: Vec<String>,
}

fn facet(v: &Option<Value>) -> String {
    pytext::lower(pytext::strip(&opt_str(v)))
}

/// Union of `terms()` over the contract rows' field_name, semantic_tag, description and json_path.
pub fn contract_terms(tool: &Tool) -> TermSet {
    let mut out = TermSet::default();
    for row in tool.facts.contract_rows() {
        let Some(o) = row.as_object() else { continue };
        for k in ["field_name", "semantic_tag", "description", "json_path"] {
            if let Some(v) = o.get(k)
                && !v.is_null()
            {
                add_terms(&pytext::py_str(v), &mut out);
            }
        }
    }
    out
}

/// The tool side of the evidence: computed once per tool and cached by the engine.
#[derive(Debug, Clone, Default)]
pub struct ToolTerms {
    pub canonical_action: String,
    pub primary_resource: String,
    pub result_shape: String,
    pub path_module: String,
    pub action_terms: TermSet,
    pub resource_terms: TermSet,
    pub module_terms: TermSet,
    pub shape_terms: TermSet,
    pub contract: TermSet,
    pub summary_terms: TermSet,
    /// Primary-summary terms minus generic ones.
    pub primary: TermSet,
}

impl ToolTerms {
    pub fn new(tool: &Tool) -> ToolTerms {
        let f = &tool.facts;
        let empty_ai = Default::default();
        let ai = f.ai.as_ref().unwrap_or(&empty_ai);
        let empty_oa = Default::default();
        let oa = f.openapi.as_ref().unwrap_or(&empty_oa);
        let canonical_action = facet(&ai.canonical_action);
        let primary_resource = facet(&ai.primary_resource);
        let result_shape = facet(&ai.result_shape);
        let path_module = facet(&oa.path_module);
        let mut action_terms = terms(&canonical_action);
        action_terms.extend(
            family_terms(ACTION_TERMS, &canonical_action)
                .iter()
                .map(|s| s.to_string()),
        );
        let resource_terms = terms(&primary_resource.replace('/', " "));
        let module_terms = terms(&path_module.replace('/', " "));
        let shape_terms: TermSet = family_terms(SHAPE_TERMS, &result_shape)
            .iter()
            .map(|s| s.to_string())
            .collect();
        let contract = contract_terms(tool);
        let first_line = pytext::first_line(&tool.description).to_string();
        let one_line = opt_str(&ai.one_line_summary);
        let oa_summary = opt_str(&oa.summary);
        let when = opt_str(&ai.when_to_use);
        let mut summary_terms = TermSet::default();
        for v in [&one_line, &oa_summary, &when, &first_line] {
            add_terms(v, &mut summary_terms);
        }
        let primary_text = if !one_line.is_empty() {
            &one_line
        } else if !oa_summary.is_empty() {
            &oa_summary
        } else {
            &first_line
        };
        let g = generic_terms();
        let primary: TermSet = terms(primary_text)
            .into_iter()
            .filter(|t| !g.contains(t.as_str()))
            .collect();
        ToolTerms {
            canonical_action,
            primary_resource,
            result_shape,
            path_module,
            action_terms,
            resource_terms,
            module_terms,
            shape_terms,
            contract,
            summary_terms,
            primary,
        }
    }
}

pub fn evidence(tool: &Tool, q: &QueryEvidence) -> SemanticEvidence {
    evidence_with(&ToolTerms::new(tool), q)
}

pub fn evidence_with(t: &ToolTerms, q: &QueryEvidence) -> SemanticEvidence {
    let (action_terms, resource_terms, module_terms, shape_terms, contract) = (
        &t.action_terms,
        &t.resource_terms,
        &t.module_terms,
        &t.shape_terms,
        &t.contract,
    );
    let (canonical_action, primary_resource, result_shape, path_module) = (
        t.canonical_action.clone(),
        t.primary_resource.clone(),
        t.result_shape.clone(),
        t.path_module.clone(),
    );
    let summary_terms = &t.summary_terms;
    let summary_matches = fuzzy_match(&q.terms, summary_terms);
    let p = &t.primary;
    let spec_hits = fuzzy_match(&q.terms_minus_generic, p).len();
    let specificity = pytext::round(spec_hits as f64 / p.len().max(1) as f64, 6);

    let mut matched: BTreeSet<String> = BTreeSet::new();
    for t in &q.terms {
        if action_terms.contains(t)
            || resource_terms.contains(t)
            || module_terms.contains(t)
            || shape_terms.contains(t)
            || contract.contains(t)
        {
            matched.insert(t.clone());
        }
    }
    SemanticEvidence {
        action_match: !fuzzy_match(&q.terms, action_terms).is_empty(),
        resource_match: !fuzzy_match(&q.terms, resource_terms).is_empty(),
        module_match: !fuzzy_match(&q.terms, module_terms).is_empty(),
        shape_match: !fuzzy_match(&q.terms, shape_terms).is_empty(),
        contract_match: !fuzzy_match(&q.terms, contract).is_empty(),
        canonical_action,
        primary_resource,
        result_shape,
        path_module,
        query_action: q.action,
        query_result_shape: q.result_shape,
        summary_matched_terms: summary_matches.into_iter().collect(),
        summary_specificity: specificity,
        matched_terms: matched.into_iter().collect(),
    }
}
