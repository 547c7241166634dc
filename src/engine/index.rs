//! The BM25 index over a graph's tools (spec §3.3, delta §2): one document per tool,
//! an inverted index of postings, document lengths and the automatic stopwords.
//!
//! Built once per graph. A query reads only the postings of its own terms.

use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;
use std::sync::Arc;

use super::contract_view::{
    CONTRACT_SOURCE, DESCRIPTION, ENUM, EXAMPLE_NAME, FIELD_NAME, FIELD_TYPE, Field, JSON_PATH,
    KIND, SEARCH_SIGNAL, SEMANTIC_TAG, VALUE_PATH_ALIASES, for_each_contract_row,
};
use super::lexicon::{BASE_STOPWORDS, PROTECTED_TERMS};
use super::tokenize::Tokenizer;
use crate::model::{Graph, Tool, ToolId};
use crate::pytext;

pub const K1: f64 = 1.2;
pub const B: f64 = 0.75;

pub type TermId = u32;

#[derive(Debug, Clone, Copy)]
pub struct Posting {
    pub doc: ToolId,
    pub tf: u32,
    /// This term's BM25 part for this document (`term_score`), computed once.
    pub score: f64,
}

/// Documents of one chunk of tools with chunk-local term ids.
struct TokenChunk {
    terms: Vec<Box<str>>,
    docs: Vec<ChunkDoc>,
}

struct ChunkDoc {
    dl: u32,
    /// (local term, tf) in first-occurrence order
    counts: Vec<(u32, u32)>,
    name: Vec<u32>,
}

/// A chunk's dictionary while it is built: term ids by text, and texts by id.
#[derive(Default)]
struct Interner {
    ids: FxHashMap<Box<str>, u32>,
    terms: Vec<Box<str>>,
}

impl Interner {
    /// The id of `t`, added when new (only a new term is copied).
    fn id(&mut self, t: &str) -> u32 {
        if let Some(&i) = self.ids.get(t) {
            return i;
        }
        let i = self.terms.len() as u32;
        let b: Box<str> = t.into();
        self.ids.insert(b.clone(), i);
        self.terms.push(b);
        i
    }
}

/// Tokenises a chunk of tools; `extra` appends one token to one document (chunk-local
/// index), which is how [`Index::build_with_extra_token`] builds a document probe's corpus.
fn tokenize_chunk(
    tools: &[std::sync::Arc<Tool>],
    tokenizer: &dyn Tokenizer,
    extra: Option<(usize, &str)>,
) -> TokenChunk {
    let mut dict = Interner::default();
    let mut docs = Vec::with_capacity(tools.len());
    // per chunk-local term: 1 + its place in the current document's counts (0: absent)
    let mut slot: Vec<u32> = Vec::new();
    for (i, tool) in tools.iter().enumerate() {
        let mut dl = 0u32;
        let mut counts: Vec<(u32, u32)> = Vec::new();
        {
            let mut add = |t: &str| {
                dl += 1;
                let id = dict.id(t) as usize;
                if id >= slot.len() {
                    slot.resize(id + 1, 0);
                }
                match slot[id] {
                    0 => {
                        counts.push((id as u32, 1));
                        slot[id] = counts.len() as u32;
                    }
                    k => counts[k as usize - 1].1 += 1,
                }
            };
            each_document_token(tool, tokenizer, &mut add);
            if let Some((d, t)) = extra
                && d == i
            {
                add(t);
            }
        }
        for &(id, _) in &counts {
            slot[id as usize] = 0;
        }
        let mut name = Vec::new();
        tokenizer.each_token(&tool.name, &mut |t| name.push(dict.id(t)));
        docs.push(ChunkDoc { dl, counts, name });
    }
    TokenChunk {
        terms: dict.terms,
        docs,
    }
}

#[derive(Debug, Default)]
pub struct Index {
    /// Term ids by text, and texts by id (shared by the blame hybrids of one cache).
    terms: Arc<FxHashMap<Box<str>, TermId>>,
    term_text: Arc<Vec<Box<str>>>,
    postings: Vec<Vec<Posting>>,
    /// idf per term, `ln((N - df + 0.5) / (df + 0.5) + 1.0)`.
    idf: Vec<f64>,
    /// Document length in tokens.
    pub dl: Vec<u32>,
    /// `k1 * ((1 - b) + (b * dl) / avgdl)` per document.
    len_part: Vec<f64>,
    pub avgdl: f64,
    /// Term ids of each tool's name tokens, for the long-name penalty and the order boost.
    pub name_tokens: Vec<Vec<TermId>>,
    stopwords: Arc<FxHashSet<Box<str>>>,
    /// Accent-stripped lower-cased (name, description) per tool for the substring fallback,
    /// built on the first query that needs it.
    fallback: std::sync::OnceLock<Vec<(Box<str>, Box<str>)>>,
}

/// One document's tokens with the ids of a [`TokenCache`]'s dictionary.
#[derive(Debug, Clone)]
pub struct CachedDoc {
    dl: u32,
    /// (term, tf) in first-occurrence order
    counts: Vec<(u32, u32)>,
    name: Vec<u32>,
}

/// Documents tokenised once, to be assembled into many indexes ([`Index::from_cache`]).
#[derive(Debug, Default)]
pub struct TokenCache {
    terms: Arc<Vec<Box<str>>>,
    ids: Arc<FxHashMap<Box<str>, u32>>,
    docs: Vec<CachedDoc>,
    /// Per term, how many cached documents hold it (a bound on any index's postings).
    df_bound: Vec<u32>,
}

/// The scores of a [`TokenCache`]'s documents under one corpus's statistics: every
/// posting's BM25 part, each document's length part, each term's idf and the stopwords.
#[derive(Debug)]
pub struct ScoreTable {
    idf: Vec<f64>,
    len_part: Vec<f64>,
    scores: Vec<Vec<f64>>,
    avgdl: f64,
    stopwords: Arc<FxHashSet<Box<str>>>,
}

impl ScoreTable {
    /// The cache's documents scored as `stats` scores (its document count, average
    /// length, document frequencies and stopwords), exactly as [`Index::build_with_stats`].
    pub fn new(cache: &TokenCache, stats: &Index) -> ScoreTable {
        let nf = stats.doc_count() as i64;
        let idf: Vec<f64> = cache
            .terms
            .iter()
            .map(|t| {
                let df = stats.term(t).map_or(0, |i| stats.df(i) as i64);
                (((nf - df) as f64 + 0.5) / (df as f64 + 0.5) + 1.0).ln()
            })
            .collect();
        let len_part: Vec<f64> = cache
            .docs
            .iter()
            .map(|d| K1 * ((1.0 - B) + (B * d.dl as f64) / stats.avgdl))
            .collect();
        let scores = cache
            .docs
            .iter()
            .zip(&len_part)
            .map(|(d, &lp)| {
                d.counts
                    .iter()
                    .map(|&(t, tf)| {
                        let tf = tf as f64;
                        idf[t as usize] * (tf * (K1 + 1.0)) / (tf + lp)
                    })
                    .collect()
            })
            .collect();
        ScoreTable {
            idf,
            len_part,
            scores,
            avgdl: stats.avgdl,
            stopwords: stats.stopwords.clone(),
        }
    }
}

impl TokenCache {
    /// Appends the documents of `graph`'s tools, in tool order (tokenised on every core);
    /// returns the cache index of its first tool.
    pub fn add_graph(&mut self, graph: &Graph, tokenizer: &dyn Tokenizer) -> u32 {
        let first = self.docs.len() as u32;
        let chunks = crate::par::map_chunks(&graph.tools, |part, _| {
            tokenize_chunk(part, tokenizer, None)
        });
        let ids = Arc::make_mut(&mut self.ids);
        let terms = Arc::make_mut(&mut self.terms);
        for c in chunks {
            let global: Vec<u32> = c
                .terms
                .into_iter()
                .map(|t| match ids.get(&t) {
                    Some(&i) => i,
                    None => {
                        let i = terms.len() as u32;
                        ids.insert(t.clone(), i);
                        terms.push(t);
                        self.df_bound.push(0);
                        i
                    }
                })
                .collect();
            for d in c.docs {
                for &(l, _) in &d.counts {
                    self.df_bound[global[l as usize] as usize] += 1;
                }
                self.docs.push(CachedDoc {
                    dl: d.dl,
                    counts: d
                        .counts
                        .into_iter()
                        .map(|(l, tf)| (global[l as usize], tf))
                        .collect(),
                    name: d.name.into_iter().map(|l| global[l as usize]).collect(),
                });
            }
        }
        first
    }

    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }
}

impl Index {
    pub fn build(graph: &Graph, tokenizer: &dyn Tokenizer) -> Index {
        Index::build_inner(&graph.tools, tokenizer, None, None)
    }

    /// The index of `tools` (a graph's tools, in order): [`Index::build`] of their graph,
    /// before the graph has its nodes and edges.
    pub fn build_for_tools(tools: &[Arc<Tool>], tokenizer: &dyn Tokenizer) -> Index {
        Index::build_inner(tools, tokenizer, None, None)
    }

    /// The index of `graph`'s documents scored with the corpus statistics of `stats` (its
    /// document count, average length, document frequencies and stopwords) instead of
    /// their own: a blame hybrid's documents under the old or the new corpus. With
    /// `stats` built from the same documents this is [`Index::build`] exactly.
    pub fn build_with_stats(graph: &Graph, tokenizer: &dyn Tokenizer, stats: &Index) -> Index {
        Index::build_inner(&graph.tools, tokenizer, None, Some(stats))
    }

    /// The index of the corpus with `token` appended once to tool `doc`'s document: a full
    /// rebuild, the reference that document probes' patched view is tested against.
    pub fn build_with_extra_token(
        graph: &Graph,
        tokenizer: &dyn Tokenizer,
        doc: ToolId,
        token: &str,
    ) -> Index {
        Index::build_inner(&graph.tools, tokenizer, Some((doc as usize, token)), None)
    }

    fn build_inner(
        tools: &[Arc<Tool>],
        tokenizer: &dyn Tokenizer,
        extra: Option<(usize, &str)>,
        stats: Option<&Index>,
    ) -> Index {
        let n = tools.len();
        let mut ix = Index::default();
        // tokenise documents on every core (chunk-local term ids), then merge in tool order
        let chunks: Vec<TokenChunk> = if n <= 256 {
            vec![tokenize_chunk(tools, tokenizer, extra)]
        } else {
            crate::par::map_chunks(tools, |part, start| {
                let local = extra
                    .filter(|(d, _)| (start..start + part.len()).contains(d))
                    .map(|(d, t)| (d - start, t));
                tokenize_chunk(part, tokenizer, local)
            })
        };
        let mut total: u64 = 0;
        let mut doc: ToolId = 0;
        for c in chunks {
            let global: Vec<TermId> = c
                .terms
                .into_iter()
                .map(|t| ix.intern(t.into_string()))
                .collect();
            for d in c.docs {
                total += d.dl as u64;
                ix.dl.push(d.dl);
                for (local, tf) in d.counts {
                    ix.postings[global[local as usize] as usize].push(Posting {
                        doc,
                        tf,
                        score: 0.0,
                    });
                }
                ix.name_tokens
                    .push(d.name.into_iter().map(|l| global[l as usize]).collect());
                doc += 1;
            }
        }
        ix.score(total, stats);
        ix
    }

    /// Computes the average length, idf, length parts, posting scores and stopwords once
    /// the postings, lengths and name tokens are in (`total`: the sum of the lengths), from
    /// the index's own corpus or from `stats`'s.
    fn score(&mut self, total: u64, stats: Option<&Index>) {
        let ix = self;
        let n = ix.dl.len();
        ix.avgdl = if n > 0 { total as f64 / n as f64 } else { 0.0 };
        let mut nf = n as i64;
        if let Some(st) = stats {
            ix.avgdl = st.avgdl;
            nf = st.doc_count() as i64;
        }
        let df_of = |id: usize, p: &Vec<Posting>| match stats {
            None => p.len() as i64,
            Some(st) => st.term(&ix.term_text[id]).map_or(0, |t| st.df(t) as i64),
        };
        ix.idf = ix
            .postings
            .iter()
            .enumerate()
            .map(|(id, p)| {
                let df = df_of(id, p);
                (((nf - df) as f64 + 0.5) / (df as f64 + 0.5) + 1.0).ln()
            })
            .collect();
        ix.len_part = ix
            .dl
            .iter()
            .map(|&dl| K1 * ((1.0 - B) + (B * dl as f64) / ix.avgdl))
            .collect();
        for (term, postings) in ix.postings.iter_mut().enumerate() {
            let idf = ix.idf[term];
            for p in postings.iter_mut() {
                let tf = p.tf as f64;
                p.score = idf * (tf * (K1 + 1.0)) / (tf + ix.len_part[p.doc as usize]);
            }
        }
        if let Some(st) = stats {
            ix.stopwords = st.stopwords.clone();
            return;
        }
        let mut stop: FxHashSet<Box<str>> = FxHashSet::default();
        for w in BASE_STOPWORDS {
            stop.insert((*w).into());
        }
        if n >= 10 {
            let protected: FxHashSet<&str> = PROTECTED_TERMS.iter().copied().collect();
            for (id, p) in ix.postings.iter().enumerate() {
                let term = &ix.term_text[id];
                if auto_stopword(term, p.len(), n, &protected) {
                    stop.insert(term.clone());
                }
            }
        }
        ix.stopwords = Arc::new(stop);
    }

    /// The index of the cached documents `docs` (cache indexes, in tool order) scored with
    /// the corpus statistics `table` holds: a blame hybrid's index, assembled without
    /// tokenising or scoring again. Its dictionary is the cache's (a term no listed
    /// document holds has no postings, which ranks exactly as a term the index lacks).
    pub fn from_cache(cache: &TokenCache, table: &ScoreTable, docs: &[u32]) -> Index {
        let mut postings: Vec<Vec<Posting>> = cache
            .df_bound
            .iter()
            .map(|&n| Vec::with_capacity(n as usize))
            .collect();
        let mut dl = Vec::with_capacity(docs.len());
        let mut len_part = Vec::with_capacity(docs.len());
        let mut name_tokens = Vec::with_capacity(docs.len());
        for (d, &c) in docs.iter().enumerate() {
            let doc = &cache.docs[c as usize];
            dl.push(doc.dl);
            len_part.push(table.len_part[c as usize]);
            for (&(t, tf), &score) in doc.counts.iter().zip(&table.scores[c as usize]) {
                postings[t as usize].push(Posting {
                    doc: d as ToolId,
                    tf,
                    score,
                });
            }
            name_tokens.push(doc.name.clone());
        }
        Index {
            terms: cache.ids.clone(),
            term_text: cache.terms.clone(),
            postings,
            idf: table.idf.clone(),
            dl,
            len_part,
            avgdl: table.avgdl,
            name_tokens,
            stopwords: table.stopwords.clone(),
            fallback: Default::default(),
        }
    }

    /// Whether a term with document frequency `df` would be a stopword of this corpus (a
    /// base stopword, or the automatic rule: in at least 70% of 10 or more documents and at
    /// most 4 characters, unless protected). For a document probe's patched corpus.
    pub fn stopword_at_df(&self, term: &str, df: usize) -> bool {
        if self.stopwords.contains(term) {
            return true;
        }
        let n = self.doc_count();
        let protected: FxHashSet<&str> = PROTECTED_TERMS.iter().copied().collect();
        n >= 10 && auto_stopword(term, df, n, &protected)
    }

    /// The id of `t`, added when new (while building: the dictionary is not shared yet,
    /// so `make_mut` never copies it).
    fn intern(&mut self, t: String) -> TermId {
        if let Some(&id) = self.terms.get(t.as_str()) {
            return id;
        }
        let id = self.term_text.len() as TermId;
        let b: Box<str> = t.into_boxed_str();
        Arc::make_mut(&mut self.terms).insert(b.clone(), id);
        Arc::make_mut(&mut self.term_text).push(b);
        self.postings.push(Vec::new());
        id
    }

    pub fn term(&self, t: &str) -> Option<TermId> {
        self.terms.get(t).copied()
    }

    pub fn term_text(&self, id: TermId) -> &str {
        &self.term_text[id as usize]
    }

    pub fn postings(&self, id: TermId) -> &[Posting] {
        &self.postings[id as usize]
    }

    pub fn df(&self, id: TermId) -> usize {
        self.postings[id as usize].len()
    }

    pub fn idf(&self, id: TermId) -> f64 {
        self.idf[id as usize]
    }

    pub fn len_part(&self, doc: ToolId) -> f64 {
        self.len_part[doc as usize]
    }

    /// Per tool: accent-stripped lower-cased name and description (spec §3.6).
    pub fn fallback_texts(&self, graph: &Graph) -> &[(Box<str>, Box<str>)] {
        self.fallback.get_or_init(|| {
            graph
                .tools
                .iter()
                .map(|t| {
                    (
                        super::query::strip_marks_lower(&t.name).into_boxed_str(),
                        super::query::strip_marks_lower(&t.description).into_boxed_str(),
                    )
                })
                .collect()
        })
    }

    pub fn is_stopword(&self, t: &str) -> bool {
        self.stopwords.contains(t)
    }

    /// The corpus's stopwords (base and automatic), in no particular order.
    pub fn stopwords(&self) -> impl Iterator<Item = &str> {
        self.stopwords.iter().map(|s| &**s)
    }

    pub fn doc_count(&self) -> usize {
        self.dl.len()
    }

    pub fn term_count(&self) -> usize {
        self.term_text.len()
    }

    /// The BM25 part of one query term for one document (delta §7 item 1 order).
    pub fn term_score(&self, term: TermId, tf: u32, doc: ToolId) -> f64 {
        let tf = tf as f64;
        self.idf(term) * (tf * (K1 + 1.0)) / (tf + self.len_part(doc))
    }

    /// Term frequency of `term` in `doc` (binary search over the postings).
    pub fn tf(&self, term: TermId, doc: ToolId) -> u32 {
        let p = &self.postings[term as usize];
        match p.binary_search_by_key(&doc, |x| x.doc) {
            Ok(i) => p[i].tf,
            Err(_) => 0,
        }
    }
}

/// The automatic stopword rule of spec §3.3.
fn auto_stopword(term: &str, df: usize, n: usize, protected: &FxHashSet<&str>) -> bool {
    df as f64 / n as f64 >= 0.7 && pytext::char_len(term) <= 4 && !protected.contains(term)
}

fn push_tokens(tokenizer: &dyn Tokenizer, v: &Value, f: &mut dyn FnMut(&str)) {
    match v {
        Value::Null => {}
        Value::String(s) => tokenizer.each_token(s, f),
        other => tokenizer.each_token(&pytext::py_str(other), f),
    }
}

fn push_truthy(tokenizer: &dyn Tokenizer, v: Option<&Value>, f: &mut dyn FnMut(&str)) {
    if let Some(v) = v
        && pytext::truthy(v)
    {
        push_tokens(tokenizer, v, f);
    }
}

/// [`push_tokens`] of a contract row's value.
fn push_field(tokenizer: &dyn Tokenizer, v: &Field<'_>, emit: &mut dyn FnMut(&str)) {
    match v {
        Field::Str(s) => tokenizer.each_token(s, emit),
        other => push_tokens(tokenizer, &other.to_value(), emit),
    }
}

const SUB_RESOURCES: &[&str] = &[
    "exec",
    "attach",
    "portforward",
    "proxy",
    "log",
    "status",
    "scale",
    "finalize",
    "binding",
    "eviction",
    "ephemeralcontainers",
];

/// The index-only path hint of 0.47 (delta §2).
pub fn path_context(method: &str, path: &str) -> String {
    let segs: Vec<&str> = path
        .split('/')
        .filter(|s| !s.is_empty() && !s.starts_with('{'))
        .collect();
    if segs.len() < 3 {
        return String::new();
    }
    let m = pytext::lower(method);
    let mut hints: Vec<String> = Vec::new();
    if path.contains("{namespace}") || path.contains("{ns}") {
        hints.push("namespaced".into());
    } else if !path.contains("{name}") && (m == "get" || m == "delete") {
        hints.push("cluster-wide".into());
    }
    let last = segs[segs.len() - 1];
    if SUB_RESOURCES.contains(&pytext::lower(last).as_str()) {
        hints.push(format!("{} of {}", last, segs[segs.len() - 2]));
    }
    if m == "delete" && !path.contains("{name}") {
        hints.push("collection".into());
    }
    hints.join(", ")
}

/// The token list of one tool's BM25 document, in the reference's order.
pub fn document_tokens(tool: &Tool, tokenizer: &dyn Tokenizer, out: &mut Vec<String>) {
    each_document_token(tool, tokenizer, &mut |t| out.push(t.to_string()));
}

/// Calls `f` with each token of one tool's BM25 document, in the reference's order.
pub fn each_document_token(tool: &Tool, tokenizer: &dyn Tokenizer, emit: &mut dyn FnMut(&str)) {
    tokenizer.each_token(&tool.name, emit);
    tokenizer.each_token(&tool.description, emit);
    for tag in &tool.tags {
        tokenizer.each_token(tag, emit);
    }
    for p in &tool.parameters {
        tokenizer.each_token(&p.name, emit);
        if !p.description.is_empty() {
            tokenizer.each_token(&p.description, emit);
        }
    }
    let f = &tool.facts;
    if f.has_metadata {
        if let Some(Value::String(m)) = &f.method
            && !m.is_empty()
        {
            emit(&pytext::lower(m));
        }
        if let Some(ai) = &f.ai {
            for v in [
                &ai.one_line_summary,
                &ai.when_to_use,
                &ai.when_not_to_use,
                &ai.primary_resource,
                &ai.canonical_action,
            ] {
                push_truthy(tokenizer, v.as_ref(), emit);
            }
            for item in &ai.produces_semantics {
                if let Some(o) = item.as_object() {
                    push_truthy(tokenizer, o.get("semantic"), emit);
                    push_truthy(tokenizer, o.get("json_path"), emit);
                }
            }
            for item in &ai.consumes_semantics {
                if let Some(o) = item.as_object() {
                    push_truthy(tokenizer, o.get("semantic"), emit);
                    push_truthy(tokenizer, o.get("field"), emit);
                }
            }
            for item in &ai.pairs_well_with {
                if let Some(o) = item.as_object() {
                    push_truthy(tokenizer, o.get("reason"), emit);
                }
            }
        }
        for rows in [&f.produces, &f.consumes] {
            for_each_contract_row(rows, &mut |o| {
                let from_contract =
                    o.get(CONTRACT_SOURCE).and_then(Field::as_str) == Some("api_contract");
                let signal = o.get(SEARCH_SIGNAL).is_some_and(Field::truthy);
                if from_contract && !signal {
                    return;
                }
                for k in [
                    FIELD_NAME,
                    SEMANTIC_TAG,
                    JSON_PATH,
                    FIELD_TYPE,
                    KIND,
                    DESCRIPTION,
                    EXAMPLE_NAME,
                ] {
                    if let Some(v) = o.get(k)
                        && v.truthy()
                    {
                        push_field(tokenizer, v, emit);
                    }
                }
                if let Some(Field::List(aliases)) = o.get(VALUE_PATH_ALIASES) {
                    for a in aliases {
                        push_field(tokenizer, a, emit);
                    }
                }
                if let Some(Field::List(values)) = o.get(ENUM) {
                    for v in values.iter().filter(|v| !v.is_null()).take(20) {
                        match v {
                            Field::Str(s) => tokenizer.each_token(s, emit),
                            other => tokenizer.each_token(&pytext::py_str(&other.to_value()), emit),
                        }
                    }
                }
            });
        }
        if let Some(Value::String(path)) = &f.path
            && !path.is_empty()
        {
            let method = f.method_str().unwrap_or("");
            let ctx = path_context(method, path);
            tokenizer.each_token(&ctx, emit);
            for seg in path.split('/') {
                if !seg.is_empty() && !seg.starts_with('{') {
                    tokenizer.each_token(seg, emit);
                }
            }
            let m = pytext::lower(method);
            if path.contains("{namespace}") || path.contains("{ns}") {
                emit("namespac");
                emit("scoped");
            } else if path.contains("/namespaces") || path.contains("/namespace") {
            } else if m == "get" || m == "list" || !path.contains("{name}") {
                emit("cluster");
                emit("all");
            }
            if let Some(last) = path
                .split('/')
                .rev()
                .find(|s| !s.is_empty() && !s.starts_with('{'))
            {
                let extra: &[&str] = match pytext::lower(last).as_str() {
                    "exec" => &["exec", "execut"],
                    "attach" => &["attach"],
                    "portforward" => &["portforward", "port", "forward"],
                    "proxy" => &["proxy"],
                    "log" => &["log"],
                    "status" => &["status"],
                    "scale" => &["scale"],
                    "finalize" => &["finaliz"],
                    "binding" => &["bind"],
                    "eviction" => &["evict"],
                    "ephemeralcontainers" => &["ephemer", "container"],
                    _ => &[],
                };
                for t in extra {
                    emit(t);
                }
            }
            if m == "delete" && !path.contains("{name}") {
                emit("collect");
                emit("bulk");
            }
        }
        for q in &f.example_queries {
            if let Value::String(s) = q {
                tokenizer.each_token(s, emit);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_context_rules() {
        assert_eq!(
            path_context("get", "/repos/{owner}/{repo}/actions/runs"),
            "cluster-wide"
        );
        assert_eq!(
            path_context("GET", "/api/v1/namespaces/{namespace}/pods/{name}/exec"),
            "namespaced, exec of pods"
        );
        assert_eq!(
            path_context("delete", "/api/v1/namespaces/{namespace}/pods"),
            "namespaced, collection"
        );
        assert_eq!(path_context("get", "/pets/{id}"), "");
    }
}
