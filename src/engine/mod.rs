//! The `graphify-0.47` engine: a library with no terminal, CLI or MCP code.
//!
//! [`Engine`] owns a loaded [`Graph`] and its BM25 [`index::Index`]; [`Engine::retrieve`]
//! reproduces `retrieve_graphify` and [`Engine::select`] `select_target_candidate`.

pub mod contract_view;
pub mod counterfactual;
pub mod docpatch;
pub mod domain;
pub mod expand;
pub mod explain;
pub mod index;
pub mod intent;
pub mod knobs;
pub mod korean;
pub mod learning;
pub mod lexicon;
pub mod metric;
pub mod params;
pub mod query;
pub mod retrieve;
pub mod rx;
pub mod select;
pub mod semantic;
pub mod subgraph;
pub mod tokenize;
pub mod trace;
pub mod triage;

use crate::model::Graph;

pub use params::{Params, SelectParams};
pub use retrieve::{Retrieval, Row, RowOrigin};
pub use select::Selection;

/// Name and version of the behaviour this engine reproduces.
pub const PROFILE: &str = "graphify-0.47";

/// Version of the metric formulas (the evidence registry's `formula_version`s and the
/// engine's explanation trees); fixtures record it in their provenance.
pub const REGISTRY_VERSION: &str = "toolscope-metrics/1";
pub const REFERENCE: &str = "graph-tool-call 0.47.0";

pub struct Engine {
    pub graph: Graph,
    pub index: index::Index,
    pub tokenizer: Box<dyn tokenize::Tokenizer>,
    /// Per-tool values computed on first use (they depend on the tool alone).
    caches: ToolCaches,
    /// The cache entry of each tool (`None`: tool id = entry): the hybrids of a blame share
    /// one set of entries, one per tool version.
    cache_of: Option<Vec<u32>>,
}

/// What the engine computes once per tool and keeps: the tool side of
/// `semantic_evidence`, the selector's query-independent facts, and the field names and
/// semantic tags its contract produces.
#[derive(Default)]
pub struct ToolCache {
    terms: std::sync::OnceLock<semantic::ToolTerms>,
    facts: std::sync::OnceLock<select::SelectorFacts>,
    produced: std::sync::OnceLock<Vec<String>>,
}

/// A shareable list of [`ToolCache`] entries.
#[derive(Clone)]
pub struct ToolCaches(std::sync::Arc<Vec<ToolCache>>);

impl ToolCaches {
    /// `n` empty entries.
    pub fn new(n: usize) -> ToolCaches {
        ToolCaches(std::sync::Arc::new(
            (0..n).map(|_| ToolCache::default()).collect(),
        ))
    }
}

impl Engine {
    pub fn new(graph: Graph) -> Engine {
        let tokenizer: Box<dyn tokenize::Tokenizer> = Box::new(tokenize::BuiltinTokenizer);
        let index = index::Index::build(&graph, tokenizer.as_ref());
        let caches = ToolCaches::new(graph.tools.len());
        Engine::from_parts(graph, index, caches, None)
    }

    /// An engine over `graph` with its index built already ([`index::Index::build_for_tools`]
    /// of its tools, beside the load: `crate::model::load::load_graph_file_with`).
    pub fn with_index(graph: Graph, index: index::Index) -> Engine {
        let caches = ToolCaches::new(graph.tools.len());
        Engine::from_parts(graph, index, caches, None)
    }

    /// An engine over `graph` whose BM25 scores use the corpus statistics of `stats`
    /// ([`index::Index::build_with_stats`]).
    pub fn with_corpus_stats(graph: Graph, stats: &index::Index) -> Engine {
        let tokenizer: Box<dyn tokenize::Tokenizer> = Box::new(tokenize::BuiltinTokenizer);
        let index = index::Index::build_with_stats(&graph, tokenizer.as_ref(), stats);
        let caches = ToolCaches::new(graph.tools.len());
        Engine::from_parts(graph, index, caches, None)
    }

    /// An engine from an index built elsewhere (a blame hybrid's, from cached documents)
    /// and shared per-tool caches: tool `t` uses entry `cache_of[t]` (the caller keeps
    /// one entry per tool version, so every hybrid holding that version shares it).
    pub fn from_parts(
        graph: Graph,
        index: index::Index,
        caches: ToolCaches,
        cache_of: Option<Vec<u32>>,
    ) -> Engine {
        Engine {
            graph,
            index,
            tokenizer: Box::new(tokenize::BuiltinTokenizer),
            caches,
            cache_of,
        }
    }

    fn cache(&self, tool: crate::model::ToolId) -> &ToolCache {
        let i = match &self.cache_of {
            Some(map) => map[tool as usize] as usize,
            None => tool as usize,
        };
        &self.caches.0[i]
    }

    /// The field names and semantic tags of a tool's produces rows (promoted rows, else the
    /// `api_contract` ones), cached.
    pub fn produced_fields(&self, tool: crate::model::ToolId) -> &[String] {
        self.cache(tool).produced.get_or_init(|| {
            let mut out: Vec<String> = Vec::new();
            for row in self.graph.tool(tool).facts.produces_or_api() {
                for k in ["field_name", "semantic_tag"] {
                    if let Some(s) = row.get(k).and_then(serde_json::Value::as_str)
                        && !out.iter().any(|x| x == s)
                    {
                        out.push(s.to_string());
                    }
                }
            }
            out
        })
    }

    /// The cached query-independent selector facts of a tool.
    pub fn selector_facts(&self, tool: crate::model::ToolId, name: &str) -> &select::SelectorFacts {
        self.cache(tool)
            .facts
            .get_or_init(|| select::SelectorFacts::new(&self.graph, tool, name))
    }

    /// The cached tool side of `semantic_evidence`.
    pub fn tool_terms(&self, tool: crate::model::ToolId) -> &semantic::ToolTerms {
        self.cache(tool)
            .terms
            .get_or_init(|| semantic::ToolTerms::new(self.graph.tool(tool)))
    }

    pub fn retrieve(&self, query: &str, params: &Params) -> Retrieval {
        retrieve::retrieve(self, query, params)
    }

    /// Runs the target selector over a retrieval's rows, as the golden cases do.
    pub fn select(&self, retrieval: &Retrieval, sel: &SelectParams) -> Selection {
        select::select_for_retrieval(self, retrieval, sel)
    }
}
