//! The parts of an artifact diff that are not one tool or one edge: BM25 corpus statistics
//! (which move every score), the versions and fingerprints the two files record, and their
//! `semantic_summary` and readiness summaries.

use serde_json::Value;

use super::leaves::{self, Leaves};
use crate::engine::index::Index;
use crate::model::Graph;

/// How many terms with the largest idf moves the diff keeps.
pub const IDF_KEPT: usize = 15;

/// One term's idf in both corpora (`None`: not in that corpus).
#[derive(Debug, Clone, PartialEq)]
pub struct IdfMove {
    pub term: String,
    pub old: Option<f64>,
    pub new: Option<f64>,
    pub df: (usize, usize),
}

#[derive(Debug, Clone, Default)]
pub struct CorpusDiff {
    pub documents: (usize, usize),
    pub avgdl: (f64, f64),
    pub terms: (usize, usize),
    /// Terms in the new corpus only, and in the old only.
    pub terms_added: usize,
    pub terms_removed: usize,
    /// Terms in both whose idf moved most (largest absolute change first).
    pub idf_moves: Vec<IdfMove>,
    /// Stopwords the new corpus has and the old had not, and the other way round.
    pub stopwords_added: Vec<String>,
    pub stopwords_removed: Vec<String>,
}

impl CorpusDiff {
    /// The statistics every BM25 score reads differ (document count, average length or a
    /// document frequency).
    pub fn shifted(&self) -> bool {
        self.documents.0 != self.documents.1
            || self.avgdl.0 != self.avgdl.1
            || self.terms_added > 0
            || self.terms_removed > 0
            || !self.idf_moves.is_empty()
            || !self.stopwords_added.is_empty()
            || !self.stopwords_removed.is_empty()
    }
}

pub fn diff_corpus(a: &Index, b: &Index) -> CorpusDiff {
    let mut moves: Vec<IdfMove> = Vec::new();
    let mut terms_removed = 0;
    for id in 0..a.term_count() as u32 {
        let term = a.term_text(id);
        match b.term(term) {
            None => terms_removed += 1,
            Some(j) => {
                let (x, y) = (a.idf(id), b.idf(j));
                if x != y {
                    moves.push(IdfMove {
                        term: term.to_string(),
                        old: Some(x),
                        new: Some(y),
                        df: (a.df(id), b.df(j)),
                    });
                }
            }
        }
    }
    let terms_added = (0..b.term_count() as u32)
        .filter(|&j| a.term(b.term_text(j)).is_none())
        .count();
    let delta = |m: &IdfMove| (m.new.unwrap_or(0.0) - m.old.unwrap_or(0.0)).abs();
    moves.sort_by(|x, y| {
        delta(y)
            .total_cmp(&delta(x))
            .then_with(|| x.term.cmp(&y.term))
    });
    moves.truncate(IDF_KEPT);
    let sorted = |ix: &Index, other: &Index| {
        let mut v: Vec<String> = ix
            .stopwords()
            .filter(|s| !other.is_stopword(s))
            .map(String::from)
            .collect();
        v.sort();
        v
    };
    CorpusDiff {
        documents: (a.doc_count(), b.doc_count()),
        avgdl: (a.avgdl, b.avgdl),
        terms: (a.term_count(), b.term_count()),
        terms_added,
        terms_removed,
        idf_moves: moves,
        stopwords_added: sorted(b, a),
        stopwords_removed: sorted(a, b),
    }
}

/// What a file records about itself at its top level (read by the loader, see
/// [`crate::model::graph::BuildFacts`]).
#[derive(Debug, Clone, Default)]
pub struct TopInfo {
    /// (key, value) for the version fields present, in [`VERSION_KEYS`] order.
    pub versions: Vec<(&'static str, Value)>,
    pub semantic_summary: Option<Value>,
    /// `readiness_report.summary`.
    pub readiness: Option<Value>,
    pub is_collection: bool,
}

/// The top-level fields that say which library, format and build wrote a file.
pub const VERSION_KEYS: &[&str] = &[
    "graph_tool_call_version",
    "library_version",
    "format_version",
    "collection_graph_version",
    "enrichment_status",
];

impl TopInfo {
    pub fn of(g: &Graph) -> TopInfo {
        let b = &g.info.build;
        let versions = [
            ("graph_tool_call_version", b.graph_tool_call_version.clone()),
            (
                "library_version",
                g.info.library_version.clone().map(Value::String),
            ),
            (
                "format_version",
                Some(Value::String(g.info.format_version.clone())),
            ),
            (
                "collection_graph_version",
                b.collection_graph_version.clone(),
            ),
            ("enrichment_status", b.enrichment_status.clone()),
        ]
        .into_iter()
        .filter_map(|(k, v)| Some((k, v?)))
        .collect();
        TopInfo {
            versions,
            semantic_summary: b.semantic_summary.clone(),
            readiness: b.readiness_summary.clone(),
            is_collection: g.info.is_collection,
        }
    }

    fn version(&self, key: &str) -> Option<&Value> {
        self.versions
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v)
    }
}

/// One version-like field of both files.
#[derive(Debug, Clone, PartialEq)]
pub struct VersionRow {
    pub key: &'static str,
    pub old: Option<String>,
    pub new: Option<String>,
}

impl VersionRow {
    pub fn differs(&self) -> bool {
        self.old != self.new
    }
}

/// The version fields, the engine profile both are ranked with, and the fingerprints.
pub fn versions(a: &TopInfo, b: &TopInfo, fp_a: &str, fp_b: &str) -> Vec<VersionRow> {
    let show = |v: Option<&Value>| {
        v.map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
    };
    let mut rows: Vec<VersionRow> = VERSION_KEYS
        .iter()
        .filter(|k| a.version(k).is_some() || b.version(k).is_some())
        .map(|k| VersionRow {
            key: k,
            old: show(a.version(k)),
            new: show(b.version(k)),
        })
        .collect();
    rows.push(VersionRow {
        key: "engine_profile",
        old: Some(crate::engine::PROFILE.into()),
        new: Some(crate::engine::PROFILE.into()),
    });
    rows.push(VersionRow {
        key: "fingerprint",
        old: Some(fp_a.to_string()),
        new: Some(fp_b.to_string()),
    });
    rows
}

/// Adds the differing summary leaves; returns why the comparison is partial (a summary or a
/// version field only one file has, or two library versions).
pub fn diff_summaries(a: &TopInfo, b: &TopInfo, out: &mut Leaves) -> Vec<String> {
    let mut partial = Vec::new();
    for (what, x, y) in [
        (
            "/semantic_summary",
            &a.semantic_summary,
            &b.semantic_summary,
        ),
        ("/readiness_summary", &a.readiness, &b.readiness),
    ] {
        match (x, y) {
            (Some(x), Some(y)) => leaves::diff_values(x, y, what, out),
            (None, None) => {}
            (Some(_), None) => partial.push(format!("{} only in OLD", &what[1..])),
            (None, Some(_)) => partial.push(format!("{} only in NEW", &what[1..])),
        }
    }
    for k in ["graph_tool_call_version", "library_version"] {
        match (a.version(k), b.version(k)) {
            (Some(x), Some(y)) if x != y => partial.push(format!(
                "{k} differs ({} vs {}): both are ranked as {} ranks them",
                crate::pytext::py_str(x),
                crate::pytext::py_str(y),
                crate::engine::PROFILE
            )),
            _ => {}
        }
    }
    if a.is_collection != b.is_collection {
        partial.push(
            "one is a collection artifact and one a saved graph: build facts compared where both have them"
                .into(),
        );
    }
    partial
}
