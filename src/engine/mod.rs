//! The `graphify-0.47` engine: a library with no terminal, CLI or MCP code.
//!
//! [`Engine`] owns a loaded [`Graph`] and its BM25 [`index::Index`]; [`Engine::retrieve`]
//! reproduces `retrieve_graphify` and [`Engine::select`] `select_target_candidate`.

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
    /// Tool-side evidence terms, computed on first use.
    tool_terms: Vec<std::sync::OnceLock<semantic::ToolTerms>>,
    /// Tool-side selector facts, computed on first use.
    selector_facts: Vec<std::sync::OnceLock<select::SelectorFacts>>,
    /// Field names and semantic tags a tool's contract produces, computed on first use.
    produced: Vec<std::sync::OnceLock<Vec<String>>>,
}

impl Engine {
    pub fn new(graph: Graph) -> Engine {
        let tokenizer: Box<dyn tokenize::Tokenizer> = Box::new(tokenize::BuiltinTokenizer);
        let index = index::Index::build(&graph, tokenizer.as_ref());
        let tool_terms = (0..graph.tools.len())
            .map(|_| std::sync::OnceLock::new())
            .collect();
        let selector_facts = (0..graph.tools.len())
            .map(|_| std::sync::OnceLock::new())
            .collect();
        let produced = (0..graph.tools.len())
            .map(|_| std::sync::OnceLock::new())
            .collect();
        Engine {
            graph,
            index,
            tokenizer,
            tool_terms,
            selector_facts,
            produced,
        }
    }

    /// The field names and semantic tags of a tool's produces rows (promoted rows, else the
    /// `api_contract` ones), cached.
    pub fn produced_fields(&self, tool: crate::model::ToolId) -> &[String] {
        self.produced[tool as usize].get_or_init(|| {
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
        self.selector_facts[tool as usize]
            .get_or_init(|| select::SelectorFacts::new(&self.graph, tool, name))
    }

    /// The cached tool side of `semantic_evidence`.
    pub fn tool_terms(&self, tool: crate::model::ToolId) -> &semantic::ToolTerms {
        self.tool_terms[tool as usize]
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
