//! Query processing (spec §3.4): tokens, stopwords and expansions, and BM25 seed scoring
//! over the inverted index (§3.5, §3.6).

use regex::Regex;
use std::sync::LazyLock;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::canonical_combining_class;

use super::domain::DomainQuery;
use super::index::{Index, TermId};
use super::korean::KoreanQuery;
use super::lexicon::{EN_SYNONYMS, KO_EXPANSIONS};
use super::pytext;
use super::tokenize::Tokenizer;
use crate::model::{Graph, ToolId};

fn re(p: &str) -> Regex {
    Regex::new(&p.replace(r"\s", r"[\s\x1c-\x1f]")).expect("static pattern")
}

static NS_SCOPED: LazyLock<Regex> =
    LazyLock::new(|| re(r"\bin\s+(a|the|this|default|my)\s+namespace\b"));
static ALL_NS: LazyLock<Regex> = LazyLock::new(|| re(r"\ball\s+namespace"));
static EXEC: LazyLock<Regex> = LazyLock::new(|| re(r"\b(exec|execute)\b"));
static ATTACH: LazyLock<Regex> = LazyLock::new(|| re(r"\battach\b"));
static DELETE_ALL: LazyLock<Regex> = LazyLock::new(|| re(r"\bdelete\s+all\b"));
static REMOVE_ALL: LazyLock<Regex> = LazyLock::new(|| re(r"\bremove\s+all\b"));
static STATUS: LazyLock<Regex> = LazyLock::new(|| re(r"\bstatus\b"));
static LOGS: LazyLock<Regex> = LazyLock::new(|| re(r"\blogs?\b"));
static SCALE: LazyLock<Regex> = LazyLock::new(|| re(r"\bscale\b"));
static EPHEMERAL: LazyLock<Regex> = LazyLock::new(|| re(r"\bephemeral\b"));
static PROXY: LazyLock<Regex> = LazyLock::new(|| re(r"\bproxy\b"));

/// Where a query token came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenSource {
    Query,
    /// A rule of §3.4 / Appendix A.1, named.
    Rule(&'static str),
    Synonym(String),
    KoreanExact(String),
    KoreanSubstring(String),
}

#[derive(Debug, Clone)]
pub struct QueryToken {
    pub text: String,
    pub term: Option<TermId>,
    pub source: TokenSource,
}

/// The processed query: the token multiset BM25 scores with, and per-query rule state.
#[derive(Debug, Clone, Default)]
pub struct QueryPlan {
    pub raw_tokens: Vec<String>,
    pub removed_stopwords: Vec<String>,
    pub tokens: Vec<QueryToken>,
    pub domain: DomainQuery,
    pub korean: KoreanQuery,
}

impl QueryPlan {
    pub fn new(query: &str, index: &Index, tokenizer: &dyn Tokenizer) -> QueryPlan {
        let raw = tokenizer.tokenize(query);
        let mut plan = QueryPlan {
            raw_tokens: raw.clone(),
            ..Default::default()
        };
        if raw.is_empty() {
            return plan;
        }
        let mut kept: Vec<String> = Vec::new();
        for t in &raw {
            if index.is_stopword(t) {
                plan.removed_stopwords.push(t.clone());
            } else {
                kept.push(t.clone());
            }
        }
        if kept.is_empty() {
            kept = raw.clone();
            plan.removed_stopwords.clear();
        }
        let mut toks: Vec<(String, TokenSource)> = kept
            .iter()
            .map(|t| (t.clone(), TokenSource::Query))
            .collect();
        let ql = pytext::lower(query);
        let push = |toks: &mut Vec<(String, TokenSource)>, rule: &'static str, add: &[&str]| {
            toks.extend(add.iter().map(|t| (t.to_string(), TokenSource::Rule(rule))));
        };
        if NS_SCOPED.is_match(&ql) {
            push(&mut toks, "namespace_scope", &["namespac", "scoped"]);
        } else if ALL_NS.is_match(&ql) || ql.contains("cluster-wide") || ql.contains("across all") {
            push(&mut toks, "cluster_scope", &["cluster", "all"]);
        }
        if ql.contains("port-forward") || ql.contains("port forward") || ql.contains("portforward")
        {
            push(
                &mut toks,
                "port_forward",
                &["portforward", "port", "forward"],
            );
        }
        if EXEC.is_match(&ql) {
            push(&mut toks, "exec", &["exec"]);
        }
        if ATTACH.is_match(&ql) {
            push(&mut toks, "attach", &["attach"]);
        }
        if DELETE_ALL.is_match(&ql) || REMOVE_ALL.is_match(&ql) || ql.contains("at once") {
            push(&mut toks, "bulk", &["collect", "bulk"]);
        }
        plan.domain = DomainQuery::new(&ql);
        for (rule, add) in &plan.domain.appended {
            push(&mut toks, rule, add);
        }
        if STATUS.is_match(&ql) {
            push(&mut toks, "status", &["status"]);
        }
        if LOGS.is_match(&ql) {
            push(&mut toks, "log", &["log"]);
        }
        if SCALE.is_match(&ql) {
            push(&mut toks, "scale", &["scale"]);
        }
        if EPHEMERAL.is_match(&ql) {
            push(&mut toks, "ephemeral", &["ephemer"]);
        }
        if PROXY.is_match(&ql) {
            push(&mut toks, "proxy", &["proxy"]);
        }
        for t in &kept {
            if let Some((_, syn)) = EN_SYNONYMS.iter().find(|(k, _)| k == t) {
                toks.extend(
                    syn.iter()
                        .map(|s| (s.to_string(), TokenSource::Synonym(t.clone()))),
                );
            }
            if let Some((_, ex)) = KO_EXPANSIONS.iter().find(|(k, _)| k == t) {
                toks.extend(
                    ex.iter()
                        .map(|s| (s.to_string(), TokenSource::KoreanExact(t.clone()))),
                );
            }
        }
        for (k, ex) in KO_EXPANSIONS {
            if ql.contains(k) && !kept.iter().any(|t| t == k) {
                toks.extend(
                    ex.iter()
                        .map(|s| (s.to_string(), TokenSource::KoreanSubstring(k.to_string()))),
                );
            }
        }
        plan.tokens = toks
            .into_iter()
            .map(|(text, source)| QueryToken {
                term: index.term(&text),
                text,
                source,
            })
            .collect();
        plan.korean = KoreanQuery::new(query);
        plan
    }

    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }
}

/// Per-document multiplier parts of one BM25 hit (for explanations).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bm25Parts {
    pub sum: f64,
    pub name_penalty: f64,
    pub order_matched: usize,
    pub phrase: f64,
    pub route: f64,
    pub korean: f64,
}

/// Raw BM25 hits in tool order: `(tool, score)` for every tool with a positive sum.
pub fn bm25_hits(
    graph: &Graph,
    index: &Index,
    plan: &QueryPlan,
    scratch: &mut Vec<f64>,
) -> Vec<(ToolId, f64)> {
    let n = index.doc_count();
    if scratch.len() != n {
        scratch.clear();
        scratch.resize(n, 0.0);
    }
    let mut touched: Vec<ToolId> = Vec::new();
    for tok in &plan.tokens {
        let Some(term) = tok.term else { continue };
        for p in index.postings(term) {
            let d = p.doc as usize;
            if scratch[d] == 0.0 {
                touched.push(p.doc);
            }
            scratch[d] += index.term_score(term, p.tf, p.doc);
        }
    }
    touched.sort_unstable();
    touched.dedup();
    let m = plan.tokens.len();
    let mut out = Vec::with_capacity(touched.len());
    for doc in touched {
        let s = scratch[doc as usize];
        scratch[doc as usize] = 0.0;
        if s > 0.0 {
            out.push((doc, finish_score(graph, index, plan, doc, s, m, None)));
        }
    }
    out
}

/// Applies the long-name penalty, the order boost and the phrase multipliers to a sum.
pub fn finish_score(
    graph: &Graph,
    index: &Index,
    plan: &QueryPlan,
    doc: ToolId,
    sum: f64,
    m: usize,
    parts: Option<&mut Bm25Parts>,
) -> f64 {
    let mut s = sum;
    let name = &index.name_tokens[doc as usize];
    let l = name.len();
    let mut penalty = 1.0;
    if l > 6 {
        penalty = 1.0 / (1.0 + 0.15 * (l - 6) as f64);
        s *= penalty;
    }
    let mut ptr = 0usize;
    for &t in name {
        if ptr < m && plan.tokens[ptr].term == Some(t) {
            ptr += 1;
        }
    }
    s *= 1.0 + (ptr as f64 / m as f64) * 0.5;
    let tool = graph.tool(doc);
    let phrase = if plan.domain.any_multiplier() {
        plan.domain.phrase_multiplier(tool, None)
    } else {
        1.0
    };
    let route = plan.domain.route_multiplier(tool);
    let korean = if plan.korean.active() {
        plan.korean.multiplier(&tool.name, &tool.description)
    } else {
        1.0
    };
    let mult = ((1.0 * phrase) * route) * korean;
    s *= mult;
    if let Some(p) = parts {
        *p = Bm25Parts {
            sum,
            name_penalty: penalty,
            order_matched: ptr,
            phrase,
            route,
            korean,
        };
    }
    s
}

/// The first five hits by score, ties in tool order.
pub fn top_seeds(hits: &[(ToolId, f64)]) -> Vec<(ToolId, f64)> {
    let mut idx: Vec<usize> = (0..hits.len()).collect();
    idx.sort_by(|&a, &b| {
        hits[b]
            .1
            .partial_cmp(&hits[a].1)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.cmp(&b))
    });
    idx.into_iter().take(5).map(|i| hits[i]).collect()
}

fn strip_marks_lower(s: &str) -> String {
    let d: String = s
        .nfkd()
        .filter(|&c| canonical_combining_class(c) == 0)
        .collect();
    pytext::lower(&d)
}

fn is_fallback_separator(c: char) -> bool {
    matches!(
        c,
        '_' | '-' | '/' | '.' | ',' | ';' | ':' | '!' | '?' | '(' | ')'
    ) || pytext::is_space(c)
}

/// Substring fallback (spec §3.6) when BM25 found nothing: `(tool, score)` for the top five.
pub fn fallback_seeds(graph: &Graph, query: &str) -> Vec<(ToolId, f64)> {
    let q = strip_marks_lower(query);
    let terms: Vec<&str> = q
        .split(is_fallback_separator)
        .filter(|t| t.chars().count() > 1)
        .collect();
    if terms.is_empty() {
        return Vec::new();
    }
    let mut hits = Vec::new();
    for (i, tool) in graph.tools.iter().enumerate() {
        let name = strip_marks_lower(&tool.name);
        let desc = strip_marks_lower(&tool.description);
        let n = terms.iter().filter(|t| name.contains(**t)).count();
        let d = terms.iter().filter(|t| desc.contains(**t)).count();
        let score = n as f64 + 0.5 * d as f64;
        if score > 0.0 {
            hits.push((i as ToolId, score));
        }
    }
    top_seeds(&hits)
}
