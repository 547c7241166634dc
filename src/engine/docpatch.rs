//! Document probes: the BM25 index with one query term added once to one tool's indexed
//! text, everything else held fixed, without rebuilding the index.
//!
//! Adding a token to document X changes X's length (so the corpus' average length and with
//! it every document's length part), the term's document frequency (so its idf) and,
//! possibly, whether the term is an automatic stopword. [`DocPatch`] recomputes exactly
//! those statistics with the formulas of the index build and reads everything else (the
//! postings, the name tokens, the other terms' idf) from the shared, unchanged [`Index`];
//! scores are computed with the same floating-point operations in the same order as a full
//! rebuild ([`Index::build_with_extra_token`]), so the two agree bit for bit (tested).

use super::index::{B, Index, K1, TermId};
use super::query::{QueryPlan, TermLookup, collect_candidates};
use crate::model::ToolId;

/// One tool's document with one token added, as a patch over a shared index.
#[derive(Debug, Clone)]
pub struct DocPatch {
    pub doc: ToolId,
    /// The added token (a query token: already in the index's token form).
    pub text: String,
    /// The token's term id: its id in the index, or the next free id when it is new.
    pub term: TermId,
    pub new_term: bool,
    /// The token's frequency in the document before the patch.
    pub old_tf: u32,
    pub df_before: usize,
    pub df_after: usize,
    /// The term's idf before (None for a term new to the index) and after the patch.
    pub idf_before: Option<f64>,
    pub idf_after: f64,
    pub avgdl_before: f64,
    pub avgdl_after: f64,
    stopword: bool,
    len_part: Vec<f64>,
}

impl DocPatch {
    pub fn new(index: &Index, doc: ToolId, text: &str) -> DocPatch {
        let n = index.doc_count();
        let existing = index.term(text);
        let term = existing.unwrap_or(index.term_count() as TermId);
        let old_tf = existing.map(|t| index.tf(t, doc)).unwrap_or(0);
        let df_before = existing.map(|t| index.df(t)).unwrap_or(0);
        let df_after = df_before + usize::from(old_tf == 0);
        let nf = n as i64;
        let df = df_after as i64;
        let idf_after = (((nf - df) as f64 + 0.5) / (df as f64 + 0.5) + 1.0).ln();
        let total: u64 = index.dl.iter().map(|&d| d as u64).sum::<u64>() + 1;
        let avgdl_after = if n > 0 { total as f64 / n as f64 } else { 0.0 };
        let len_part = index
            .dl
            .iter()
            .enumerate()
            .map(|(d, &dl)| {
                let dl = if d == doc as usize { dl + 1 } else { dl };
                K1 * ((1.0 - B) + (B * dl as f64) / avgdl_after)
            })
            .collect();
        DocPatch {
            doc,
            text: text.to_string(),
            term,
            new_term: existing.is_none(),
            old_tf,
            df_before,
            df_after,
            idf_before: existing.map(|t| index.idf(t)),
            idf_after,
            avgdl_before: index.avgdl,
            avgdl_after,
            stopword: index.stopword_at_df(text, df_after),
            len_part,
        }
    }

    /// The patched corpus as a view over the shared index.
    pub fn view<'a>(&'a self, index: &'a Index) -> Patched<'a> {
        Patched { index, patch: self }
    }
}

/// A patched corpus: the shared index plus one [`DocPatch`].
#[derive(Clone, Copy)]
pub struct Patched<'a> {
    pub index: &'a Index,
    pub patch: &'a DocPatch,
}

impl TermLookup for Patched<'_> {
    fn is_stopword(&self, t: &str) -> bool {
        if t == self.patch.text {
            self.patch.stopword
        } else {
            self.index.is_stopword(t)
        }
    }

    fn term(&self, t: &str) -> Option<TermId> {
        if t == self.patch.text {
            Some(self.patch.term)
        } else {
            self.index.term(t)
        }
    }
}

impl Patched<'_> {
    pub fn idf(&self, term: TermId) -> f64 {
        if term == self.patch.term {
            self.patch.idf_after
        } else {
            self.index.idf(term)
        }
    }

    pub fn len_part(&self, doc: ToolId) -> f64 {
        self.patch.len_part[doc as usize]
    }

    /// The BM25 part of one term for one document, as the index build computes it.
    pub fn term_score(&self, term: TermId, tf: u32, doc: ToolId) -> f64 {
        let tf = tf as f64;
        self.idf(term) * (tf * (K1 + 1.0)) / (tf + self.len_part(doc))
    }

    /// The patched term's postings: the index's, with the patched document's frequency
    /// raised by one (inserted in document order when it had none).
    fn postings(&self, term: TermId) -> Vec<(ToolId, u32)> {
        let mut out: Vec<(ToolId, u32)> = if (term as usize) < self.index.term_count() {
            self.index
                .postings(term)
                .iter()
                .map(|p| (p.doc, p.tf))
                .collect()
        } else {
            Vec::new()
        };
        if term == self.patch.term {
            let doc = self.patch.doc;
            match out.binary_search_by_key(&doc, |p| p.0) {
                Ok(i) => out[i].1 += 1,
                Err(i) => out.insert(i, (doc, 1)),
            }
        }
        out
    }

    /// [`super::query::bm25_candidates`] over the patched corpus.
    pub fn bm25_candidates(&self, plan: &QueryPlan, scratch: &mut Vec<f64>) -> Vec<(ToolId, f64)> {
        let n = self.index.doc_count();
        if scratch.len() != n {
            scratch.clear();
            scratch.resize(n, 0.0);
        }
        let (mut lo, mut hi, mut touched) = (usize::MAX, 0usize, 0usize);
        for tok in &plan.tokens {
            let Some(term) = tok.term else { continue };
            if term != self.patch.term {
                let postings = self.index.postings(term);
                if let (Some(f), Some(l)) = (postings.first(), postings.last()) {
                    lo = lo.min(f.doc as usize);
                    hi = hi.max(l.doc as usize + 1);
                }
                touched += postings.len();
                let idf = self.index.idf(term);
                for p in postings {
                    let tf = p.tf as f64;
                    scratch[p.doc as usize] +=
                        idf * (tf * (K1 + 1.0)) / (tf + self.patch.len_part[p.doc as usize]);
                }
                continue;
            }
            let postings = self.postings(term);
            if let (Some(f), Some(l)) = (postings.first(), postings.last()) {
                lo = lo.min(f.0 as usize);
                hi = hi.max(l.0 as usize + 1);
            }
            touched += postings.len();
            for (doc, tf) in postings {
                scratch[doc as usize] += self.term_score(term, tf, doc);
            }
        }
        collect_candidates(self.index, plan, scratch, lo, hi, touched)
    }
}
