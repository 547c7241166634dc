//! Query processing (spec §3.4): tokens, stopwords and expansions, and BM25 seed scoring
//! over the inverted index (§3.5, §3.6).

use super::rx::LazyRegex;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::canonical_combining_class;

use super::domain::DomainQuery;
use super::index::{Index, TermId};
use super::korean::KoreanQuery;
use super::lexicon::{EN_SYNONYMS, KO_EXPANSIONS};
use super::tokenize::Tokenizer;
use crate::model::{Graph, ToolId};
use crate::pytext;

static NS_SCOPED: LazyRegex = LazyRegex::new(r"\bin\s+(a|the|this|default|my)\s+namespace\b");
static ALL_NS: LazyRegex = LazyRegex::new(r"\ball\s+namespace");
static EXEC: LazyRegex = LazyRegex::new(r"\b(exec|execute)\b");
static ATTACH: LazyRegex = LazyRegex::new(r"\battach\b");
static DELETE_ALL: LazyRegex = LazyRegex::new(r"\bdelete\s+all\b");
static REMOVE_ALL: LazyRegex = LazyRegex::new(r"\bremove\s+all\b");
static STATUS: LazyRegex = LazyRegex::new(r"\bstatus\b");
static LOGS: LazyRegex = LazyRegex::new(r"\blogs?\b");
static SCALE: LazyRegex = LazyRegex::new(r"\bscale\b");
static EPHEMERAL: LazyRegex = LazyRegex::new(r"\bephemeral\b");
static PROXY: LazyRegex = LazyRegex::new(r"\bproxy\b");

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

/// What a query plan asks of the index: stopwords and term ids. The index answers it; a
/// document probe's patched view ([`super::docpatch::DocPatch`]) answers it for the
/// patched corpus.
pub trait TermLookup {
    fn is_stopword(&self, t: &str) -> bool;
    fn term(&self, t: &str) -> Option<TermId>;
}

impl TermLookup for Index {
    #[inline]
    fn is_stopword(&self, t: &str) -> bool {
        Index::is_stopword(self, t)
    }

    #[inline]
    fn term(&self, t: &str) -> Option<TermId> {
        Index::term(self, t)
    }
}

impl QueryPlan {
    pub fn new(query: &str, index: &Index, tokenizer: &dyn Tokenizer) -> QueryPlan {
        QueryPlan::with_terms(query, index, tokenizer)
    }

    /// [`QueryPlan::new`] over any term lookup.
    pub fn with_terms<L: TermLookup + ?Sized>(
        query: &str,
        index: &L,
        tokenizer: &dyn Tokenizer,
    ) -> QueryPlan {
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

/// BM25 candidates in tool order: `(tool, partial score)` for every tool with a positive
/// sum, where the partial score already includes the long-name penalty and the order boost
/// but not the phrase multipliers (see [`full_score`]).
pub fn bm25_candidates(
    index: &Index,
    plan: &QueryPlan,
    scratch: &mut Vec<f64>,
) -> Vec<(ToolId, f64)> {
    let n = index.doc_count();
    if scratch.len() != n {
        scratch.clear();
        scratch.resize(n, 0.0);
    }
    let mut touched = 0usize;
    let mut lo = usize::MAX;
    let mut hi = 0usize;
    for tok in &plan.tokens {
        let Some(term) = tok.term else { continue };
        let postings = index.postings(term);
        if let (Some(f), Some(l)) = (postings.first(), postings.last()) {
            lo = lo.min(f.doc as usize);
            hi = hi.max(l.doc as usize + 1);
        }
        touched += postings.len();
        for p in postings {
            scratch[p.doc as usize] += p.score;
        }
    }
    collect_candidates(index, plan, scratch, lo, hi, touched)
}

/// The candidates of BM25 sums accumulated in `scratch[lo..hi]`, in tool order, with the
/// partial score of each positive sum; resets the scratch as it goes.
pub(crate) fn collect_candidates(
    index: &Index,
    plan: &QueryPlan,
    scratch: &mut [f64],
    lo: usize,
    hi: usize,
    touched: usize,
) -> Vec<(ToolId, f64)> {
    let m = plan.tokens.len();
    let mut out = Vec::with_capacity(touched.min(scratch.len()));
    if lo < hi {
        // tool order; resets the scratch as it goes
        for (d, slot) in scratch[lo..hi].iter_mut().enumerate() {
            let s = *slot;
            if s != 0.0 {
                *slot = 0.0;
                if s > 0.0 {
                    let doc = (lo + d) as ToolId;
                    out.push((doc, partial_score(index, plan, doc, s, m)));
                }
            }
        }
    }
    out
}

/// `sum` with the long-name penalty and the order boost applied (in the reference's order).
pub fn partial_score(index: &Index, plan: &QueryPlan, doc: ToolId, sum: f64, m: usize) -> f64 {
    let mut s = sum;
    let name = &index.name_tokens[doc as usize];
    let l = name.len();
    if l > 6 {
        s *= 1.0 / (1.0 + 0.15 * (l - 6) as f64);
    }
    let mut ptr = 0usize;
    for &t in name {
        if ptr < m && plan.tokens[ptr].term == Some(t) {
            ptr += 1;
        }
    }
    s * (1.0 + (ptr as f64 / m as f64) * 0.5)
}

/// The phrase multiplier `M` of one document (1.0 when no rule applies).
pub fn phrase_multiplier(graph: &Graph, plan: &QueryPlan, doc: ToolId) -> f64 {
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
    ((1.0 * phrase) * route) * korean
}

/// The final BM25 score of a candidate from its partial score.
pub fn full_score(graph: &Graph, plan: &QueryPlan, doc: ToolId, partial: f64) -> f64 {
    partial * phrase_multiplier(graph, plan, doc)
}

/// An upper bound of the phrase multiplier over all documents, or `None` when unbounded
/// rules are active (then every candidate is scored).
fn multiplier_bound(plan: &QueryPlan) -> Option<f64> {
    if plan.domain.any_multiplier() {
        return None;
    }
    let route = if plan.domain.route_active() { 3.0 } else { 1.0 };
    let korean = if plan.korean.active() { 2.0 } else { 1.0 };
    Some(route * korean)
}

/// Every candidate with its final score, in tool order (for traces).
pub fn all_hits(graph: &Graph, plan: &QueryPlan, cands: &[(ToolId, f64)]) -> Vec<(ToolId, f64)> {
    cands
        .iter()
        .map(|&(d, p)| (d, full_score(graph, plan, d, p)))
        .collect()
}

/// The five best candidates by final score (ties in tool order) — what the reference's
/// stable sort yields — scoring only candidates that could still enter the top five.
pub fn top_seeds_pruned(
    graph: &Graph,
    plan: &QueryPlan,
    cands: &[(ToolId, f64)],
) -> Vec<(ToolId, f64)> {
    let Some(bound) = multiplier_bound(plan) else {
        return top_seeds(&all_hits(graph, plan, cands));
    };
    if bound == 1.0 {
        return top_seeds(cands);
    }
    // candidates by partial score, best first (ties in tool order), popped lazily
    let mut heap: std::collections::BinaryHeap<Ranked> = cands
        .iter()
        .enumerate()
        .map(|(i, c)| Ranked(c.1, i))
        .collect();
    let order = std::iter::from_fn(move || heap.pop().map(|r| r.1));
    // conservative: a candidate whose partial score times the bound (plus rounding slack)
    // is below the fifth best final score cannot be among the seeds
    let slack = bound * (1.0 + 1e-9);
    let mut best: Vec<(ToolId, f64)> = Vec::new();
    for i in order {
        let (doc, partial) = cands[i];
        if best.len() == 5 && partial * slack < best[4].1 {
            break;
        }
        let f = full_score(graph, plan, doc, partial);
        best.push((doc, f));
        best.sort_by(|a, b| {
            b.1.partial_cmp(&a.1)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(a.0.cmp(&b.0))
        });
        best.truncate(5);
    }
    best
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
/// Max-heap entry: higher score first, then lower index.
#[derive(PartialEq)]
struct Ranked(f64, usize);

impl Eq for Ranked {}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0
            .partial_cmp(&other.0)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(other.1.cmp(&self.1))
    }
}

/// The first `k` entries by score descending, ties in input order (a stable sort's prefix).
pub fn top_k_stable(hits: &[(ToolId, f64)], k: usize) -> Vec<(ToolId, f64)> {
    let mut best: Vec<(usize, f64)> = Vec::with_capacity(k + 1);
    for (i, h) in hits.iter().enumerate() {
        if best.len() == k && h.1.partial_cmp(&best[k - 1].1) != Some(std::cmp::Ordering::Greater) {
            continue;
        }
        let pos = best.iter().position(|b| h.1 > b.1).unwrap_or(best.len());
        best.insert(pos, (i, h.1));
        best.truncate(k);
    }
    best.into_iter().map(|(i, _)| hits[i]).collect()
}

pub fn top_seeds(hits: &[(ToolId, f64)]) -> Vec<(ToolId, f64)> {
    if hits.len() > 64 {
        return top_k_stable(hits, 5);
    }
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

pub fn strip_marks_lower(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
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

/// The substring fallback's score of one tool (0.0 when no query term occurs in its name
/// or description), as [`fallback_seeds`] computes it.
pub fn fallback_score(graph: &Graph, index: &Index, query: &str, doc: ToolId) -> f64 {
    let q = strip_marks_lower(query);
    let terms: Vec<&str> = q
        .split(is_fallback_separator)
        .filter(|t| t.chars().count() > 1)
        .collect();
    let Some((name, desc)) = index.fallback_texts(graph).get(doc as usize) else {
        return 0.0;
    };
    let n = terms.iter().filter(|t| name.contains(**t)).count();
    let d = terms.iter().filter(|t| desc.contains(**t)).count();
    n as f64 + 0.5 * d as f64
}

/// Substring fallback (spec §3.6) when BM25 found nothing: `(tool, score)` for the top five.
pub fn fallback_seeds(graph: &Graph, index: &Index, query: &str) -> Vec<(ToolId, f64)> {
    let q = strip_marks_lower(query);
    let terms: Vec<&str> = q
        .split(is_fallback_separator)
        .filter(|t| t.chars().count() > 1)
        .collect();
    if terms.is_empty() {
        return Vec::new();
    }
    let mut hits = Vec::new();
    for (i, (name, desc)) in index.fallback_texts(graph).iter().enumerate() {
        let n = terms.iter().filter(|t| name.contains(**t)).count();
        let d = terms.iter().filter(|t| desc.contains(**t)).count();
        let score = n as f64 + 0.5 * d as f64;
        if score > 0.0 {
            hits.push((i as ToolId, score));
        }
    }
    top_seeds(&hits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Engine;

    #[test]
    fn pruned_seeds_equal_full_scoring() {
        let engine = Engine::new(crate::demo::load_demo().unwrap());
        let mut queries: Vec<String> = crate::demo::demo_queries()
            .iter()
            .map(|s| s.to_string())
            .collect();
        for extra in [
            "환불 목록 조회",
            "회원 정보 수정",
            "쿠폰 발급 내역",
            "정산 비교 대사",
            "권한 버튼 설정",
            "배송 상태 확인해줘",
            "route from a to b fastest",
        ] {
            queries.push(extra.into());
        }
        let mut scratch = Vec::new();
        for q in &queries {
            let plan = QueryPlan::new(q, &engine.index, engine.tokenizer.as_ref());
            let cands = bm25_candidates(&engine.index, &plan, &mut scratch);
            let full = all_hits(&engine.graph, &plan, &cands);
            let mut idx: Vec<usize> = (0..full.len()).collect();
            idx.sort_by(|&a, &b| full[b].1.partial_cmp(&full[a].1).unwrap().then(a.cmp(&b)));
            let want: Vec<(ToolId, f64)> = idx.into_iter().take(5).map(|i| full[i]).collect();
            assert_eq!(top_seeds_pruned(&engine.graph, &plan, &cands), want, "{q}");
        }
    }

    #[test]
    fn top_k_stable_keeps_input_order_on_ties() {
        let hits: Vec<(ToolId, f64)> =
            vec![(0, 1.0), (1, 2.0), (2, 1.0), (3, 2.0), (4, 0.5), (5, 1.0)];
        assert_eq!(top_k_stable(&hits, 3), vec![(1, 2.0), (3, 2.0), (0, 1.0)]);
        assert_eq!(top_k_stable(&hits, 10).len(), 6);
    }
}
