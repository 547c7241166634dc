//! The BM25 index over a graph's tools (spec §3.3, delta §2): one document per tool,
//! an inverted index of postings, document lengths and the automatic stopwords.
//!
//! Built once per graph. A query reads only the postings of its own terms.

use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;

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

/// Tokenises a chunk of tools; `extra` appends one token to one document (chunk-local
/// index), which is how [`Index::build_with_extra_token`] builds a document probe's corpus.
fn tokenize_chunk(
    tools: &[Tool],
    tokenizer: &dyn Tokenizer,
    extra: Option<(usize, &str)>,
) -> TokenChunk {
    let mut ids: FxHashMap<Box<str>, u32> = FxHashMap::default();
    let mut terms: Vec<Box<str>> = Vec::new();
    let intern =
        |t: String, ids: &mut FxHashMap<Box<str>, u32>, terms: &mut Vec<Box<str>>| -> u32 {
            if let Some(&i) = ids.get(t.as_str()) {
                return i;
            }
            let i = terms.len() as u32;
            let b: Box<str> = t.into_boxed_str();
            ids.insert(b.clone(), i);
            terms.push(b);
            i
        };
    let mut docs = Vec::with_capacity(tools.len());
    let mut buf = Vec::new();
    let mut slot: FxHashMap<u32, usize> = FxHashMap::default();
    for (i, tool) in tools.iter().enumerate() {
        buf.clear();
        document_tokens(tool, tokenizer, &mut buf);
        if let Some((d, t)) = extra
            && d == i
        {
            buf.push(t.to_string());
        }
        let dl = buf.len() as u32;
        slot.clear();
        let mut counts: Vec<(u32, u32)> = Vec::new();
        for t in buf.drain(..) {
            let id = intern(t, &mut ids, &mut terms);
            match slot.get(&id) {
                Some(&k) => counts[k].1 += 1,
                None => {
                    slot.insert(id, counts.len());
                    counts.push((id, 1));
                }
            }
        }
        let mut names = Vec::new();
        tokenizer.tokenize_into(&tool.name, &mut names);
        let name = names
            .into_iter()
            .map(|t| intern(t, &mut ids, &mut terms))
            .collect();
        docs.push(ChunkDoc { dl, counts, name });
    }
    TokenChunk { terms, docs }
}

#[derive(Debug, Default)]
pub struct Index {
    terms: FxHashMap<Box<str>, TermId>,
    term_text: Vec<Box<str>>,
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
    stopwords: FxHashSet<Box<str>>,
    /// Accent-stripped lower-cased (name, description) per tool for the substring fallback,
    /// built on the first query that needs it.
    fallback: std::sync::OnceLock<Vec<(Box<str>, Box<str>)>>,
}

impl Index {
    pub fn build(graph: &Graph, tokenizer: &dyn Tokenizer) -> Index {
        Index::build_inner(graph, tokenizer, None)
    }

    /// The index of the corpus with `token` appended once to tool `doc`'s document: a full
    /// rebuild, the reference that document probes' patched view is tested against.
    pub fn build_with_extra_token(
        graph: &Graph,
        tokenizer: &dyn Tokenizer,
        doc: ToolId,
        token: &str,
    ) -> Index {
        Index::build_inner(graph, tokenizer, Some((doc as usize, token)))
    }

    fn build_inner(
        graph: &Graph,
        tokenizer: &dyn Tokenizer,
        extra: Option<(usize, &str)>,
    ) -> Index {
        let n = graph.tools.len();
        let mut ix = Index::default();
        // tokenise documents on every core (chunk-local term ids), then merge in tool order
        let threads = std::thread::available_parallelism()
            .map(|t| t.get())
            .unwrap_or(1)
            .clamp(1, 8);
        let chunk = n.div_ceil(threads).max(256);
        let chunks: Vec<TokenChunk> = if n <= 256 || threads == 1 {
            vec![tokenize_chunk(&graph.tools, tokenizer, extra)]
        } else {
            std::thread::scope(|sc| {
                let handles: Vec<_> = graph
                    .tools
                    .chunks(chunk)
                    .enumerate()
                    .map(|(c, part)| {
                        let local = extra
                            .filter(|(d, _)| d / chunk == c)
                            .map(|(d, t)| (d % chunk, t));
                        sc.spawn(move || tokenize_chunk(part, tokenizer, local))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("index thread"))
                    .collect()
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
        ix.avgdl = if n > 0 { total as f64 / n as f64 } else { 0.0 };
        let nf = n as i64;
        ix.idf = ix
            .postings
            .iter()
            .map(|p| {
                let df = p.len() as i64;
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
        for w in BASE_STOPWORDS {
            ix.stopwords.insert((*w).into());
        }
        if n >= 10 {
            let protected: FxHashSet<&str> = PROTECTED_TERMS.iter().copied().collect();
            for (id, p) in ix.postings.iter().enumerate() {
                let term = &ix.term_text[id];
                if auto_stopword(term, p.len(), n, &protected) {
                    ix.stopwords.insert(term.clone());
                }
            }
        }
        ix
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

    fn intern(&mut self, t: String) -> TermId {
        if let Some(&id) = self.terms.get(t.as_str()) {
            return id;
        }
        let id = self.term_text.len() as TermId;
        let b: Box<str> = t.into_boxed_str();
        self.terms.insert(b.clone(), id);
        self.term_text.push(b);
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

fn push_tokens(tokenizer: &dyn Tokenizer, v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Null => {}
        Value::String(s) => tokenizer.tokenize_into(s, out),
        other => tokenizer.tokenize_into(&pytext::py_str(other), out),
    }
}

fn push_truthy(tokenizer: &dyn Tokenizer, v: Option<&Value>, out: &mut Vec<String>) {
    if let Some(v) = v
        && pytext::truthy(v)
    {
        push_tokens(tokenizer, v, out);
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
    tokenizer.tokenize_into(&tool.name, out);
    tokenizer.tokenize_into(&tool.description, out);
    for tag in &tool.tags {
        tokenizer.tokenize_into(tag, out);
    }
    for p in &tool.parameters {
        tokenizer.tokenize_into(&p.name, out);
        if !p.description.is_empty() {
            tokenizer.tokenize_into(&p.description, out);
        }
    }
    let f = &tool.facts;
    if f.has_metadata {
        if let Some(Value::String(m)) = &f.method
            && !m.is_empty()
        {
            out.push(pytext::lower(m));
        }
        if let Some(ai) = &f.ai {
            for v in [
                &ai.one_line_summary,
                &ai.when_to_use,
                &ai.when_not_to_use,
                &ai.primary_resource,
                &ai.canonical_action,
            ] {
                push_truthy(tokenizer, v.as_ref(), out);
            }
            for item in &ai.produces_semantics {
                if let Some(o) = item.as_object() {
                    push_truthy(tokenizer, o.get("semantic"), out);
                    push_truthy(tokenizer, o.get("json_path"), out);
                }
            }
            for item in &ai.consumes_semantics {
                if let Some(o) = item.as_object() {
                    push_truthy(tokenizer, o.get("semantic"), out);
                    push_truthy(tokenizer, o.get("field"), out);
                }
            }
            for item in &ai.pairs_well_with {
                if let Some(o) = item.as_object() {
                    push_truthy(tokenizer, o.get("reason"), out);
                }
            }
        }
        for row in f.produces.rows().iter().chain(f.consumes.rows().iter()) {
            let Some(o) = row.as_object() else { continue };
            let from_contract =
                o.get("contract_source").and_then(Value::as_str) == Some("api_contract");
            let signal = o.get("search_signal").is_some_and(pytext::truthy);
            if from_contract && !signal {
                continue;
            }
            for k in [
                "field_name",
                "semantic_tag",
                "json_path",
                "field_type",
                "kind",
                "description",
                "example_name",
            ] {
                push_truthy(tokenizer, o.get(k), out);
            }
            if let Some(Value::Array(aliases)) = o.get("value_path_aliases") {
                for a in aliases {
                    push_tokens(tokenizer, a, out);
                }
            }
            if let Some(Value::Array(values)) = o.get("enum") {
                for v in values.iter().filter(|v| !v.is_null()).take(20) {
                    tokenizer.tokenize_into(&pytext::py_str(v), out);
                }
            }
        }
        if let Some(Value::String(path)) = &f.path
            && !path.is_empty()
        {
            let method = f.method_str().unwrap_or("");
            let ctx = path_context(method, path);
            tokenizer.tokenize_into(&ctx, out);
            for seg in path.split('/') {
                if !seg.is_empty() && !seg.starts_with('{') {
                    tokenizer.tokenize_into(seg, out);
                }
            }
            let m = pytext::lower(method);
            if path.contains("{namespace}") || path.contains("{ns}") {
                out.push("namespac".into());
                out.push("scoped".into());
            } else if path.contains("/namespaces") || path.contains("/namespace") {
            } else if m == "get" || m == "list" || !path.contains("{name}") {
                out.push("cluster".into());
                out.push("all".into());
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
                out.extend(extra.iter().map(|s| s.to_string()));
            }
            if m == "delete" && !path.contains("{name}") {
                out.push("collect".into());
                out.push("bulk".into());
            }
        }
        for q in &f.example_queries {
            if let Value::String(s) = q {
                tokenizer.tokenize_into(s, out);
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
