//! The evidence tools' compact contracts: name, audience, inputs, outputs and limits of
//! every read-only evidence tool, and the JSON Schemas MCP serves for them. The
//! implementation is [`super::tools::Session`].

use serde_json::{Map, Value, json};

use super::registry::Visibility;
use crate::jsonout::JsonWriter;

/// The fewest distinct case queries a suite needs before a model-facing caller is shown a
/// label-dependent aggregate (`lab.*`, a suite counterfactual's hit@k and MRR): over one
/// case, hit@k swept over `top_k` is that case's hidden rank.
pub const LAB_MIN_CASES: usize = 20;

/// Distinct parameter sets a model-facing session may evaluate against the labels (each
/// `lab.*` call or suite counterfactual side with knobs not evaluated before uses one);
/// repeating an evaluated set is free. Separate from the call budget.
pub const LAB_SWEEP_BUDGET: usize = 4;

/// The most events one trace call returns.
pub const TRACE_LIMIT_MAX: u64 = 10_000;

/// The stages a trace's events belong to (`trace_event`'s `stage` filter).
pub const TRACE_STAGES: &[&str] = &[
    "query", "bm25", "seeds", "intent", "expand", "history", "learning", "rank", "render",
    "selector",
];

/// Why the selector's knobs are refused to model-facing callers.
pub(crate) const POST_DECISION_KNOBS: &str = "llm_target and policy are post-decision knobs and are not available to model-facing callers (authorised for models: top_k, depth, token_budget, history, learning, relation_weight, confidence_factor, intent)";

/// What a model-facing caller of `explain_rank_gap` is shown of the class.
pub const RANK_GAP_SCOPE: &str = "model-facing callers get the retrieval-stage class only (not_retrieved, outranked, or null when the tool ranks first) and no selector verdict: the selector's verdict is post-decision; operators get the full class and the verdict";

/// The label threat model, as the contracts and withheld answers state it.
pub const LABEL_THREAT: &str = "lab.* values and suite hit@k/MRR are aggregates over labels a model-facing caller never sees; since an aggregate over few cases, or many aggregates over varied parameters, can reveal a label, a model-facing caller gets them only over a suite of at least 20 distinct case queries, never for one case or a subset, and each distinct parameter set evaluated against the labels uses one of 4 label-sweep units per session (repeats are free): this limits, not removes, what aggregates reveal about labels";

/// Who is calling: a model (sees the current decision only) or an operator (sees all).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    Model,
    Operator,
}

impl Audience {
    pub fn sees(self, v: Visibility) -> bool {
        match self {
            Audience::Operator => true,
            Audience::Model => v != Visibility::PostDecision,
        }
    }
}

/// One evidence-tool contract.
pub struct ToolContract {
    pub name: &'static str,
    pub title: &'static str,
    pub purpose: &'static str,
    /// (name, JSON type, required, description)
    pub inputs: &'static [(&'static str, &'static str, bool, &'static str)],
    pub outputs: &'static [&'static str],
    pub visibility_scope: &'static str,
    pub limitations: &'static [&'static str],
    /// Offered to model-facing callers.
    pub model_facing: bool,
}

pub(crate) const QUERY_IN: (&str, &str, bool, &str) = (
    "query",
    "string",
    false,
    "the query to evaluate (or case_id with --cases)",
);
pub(crate) const CASE_IN: (&str, &str, bool, &str) = (
    "case_id",
    "string",
    false,
    "a case id of the loaded suite; its query is used",
);
pub(crate) const PARAMS_IN: (&str, &str, bool, &str) = (
    "params",
    "object",
    false,
    "knobs: top_k, depth, token_budget, history, learning, relation_weight, confidence_factor, intent, llm_target, policy",
);

pub const CONTRACTS: &[ToolContract] = &[
    ToolContract {
        name: "list_available_tools",
        title: "List evidence tools",
        purpose: "List the evidence tools available in this session with their purpose, the call budget and the visibility boundary.",
        inputs: &[],
        outputs: &["tools[]", "call_budget", "visibility_boundary"],
        visibility_scope: "current_decision",
        limitations: &["lists capabilities only; says nothing about any query"],
        model_facing: true,
    },
    ToolContract {
        name: "list_available_metrics",
        title: "List metrics",
        purpose: "List the registered metrics visible in this session (id, unit, visibility).",
        inputs: &[],
        outputs: &["metrics[]", "registry_version"],
        visibility_scope: "current_decision",
        limitations: &["metric definitions are not interpretations of any value"],
        model_facing: true,
    },
    ToolContract {
        name: "describe_metric",
        title: "Describe a metric",
        purpose: "Return a metric's registry entry: unit, formula version, source fields, decomposer, trace hook, visibility, supported counterfactuals.",
        inputs: &[(
            "metric_id",
            "string",
            true,
            "a metric id from list_available_metrics",
        )],
        outputs: &[
            "metric_id",
            "unit",
            "formula_version",
            "source_fields",
            "decomposer",
            "trace_hook",
            "visibility_scope",
            "supported_counterfactuals",
        ],
        visibility_scope: "current_decision",
        limitations: &["a definition, not a statement about what a value means for a decision"],
        model_facing: true,
    },
    ToolContract {
        name: "explain_metric",
        title: "Explain a metric value",
        purpose: "Return a metric value, its deterministic accounting decomposition as a checked tree, and provenance.",
        inputs: &[
            (
                "metric_id",
                "string",
                true,
                "e.g. retrieval.score, retrieval.seed, retrieval.graph",
            ),
            QUERY_IN,
            CASE_IN,
            (
                "scope_id",
                "string",
                false,
                "the tool name, for per-tool metrics",
            ),
            PARAMS_IN,
        ],
        outputs: &[
            "value",
            "decomposition_type",
            "components[]",
            "tree",
            "residual_check",
            "provenance",
            "mechanism_status",
        ],
        visibility_scope: "current_decision",
        limitations: &[
            "accounting decomposition does not establish causality",
            "values are recomputed on the loaded graph; a different artifact gives different values",
            LABEL_THREAT,
        ],
        model_facing: true,
    },
    ToolContract {
        name: "trace_event",
        title: "Trace a query's pipeline",
        purpose: "Return the ordered, typed events of one query: tokens and expansions, BM25 hits, seeds, intent, each edge the expansion walked, demotion, learning, ranking and truncation.",
        inputs: &[
            QUERY_IN,
            CASE_IN,
            PARAMS_IN,
            ("stage", "string", false, "only events of this stage"),
            (
                "limit",
                "integer",
                false,
                "at most this many events (default 200)",
            ),
        ],
        outputs: &["events[]", "event_count", "provenance", "mechanism_status"],
        visibility_scope: "current_decision",
        limitations: &[
            "an event trace shows how values came about; it does not say which event mattered",
        ],
        model_facing: true,
    },
    ToolContract {
        name: "trace_entity",
        title: "Trace one tool",
        purpose: "Return all events of one query that concern one tool.",
        inputs: &[
            QUERY_IN,
            CASE_IN,
            ("tool", "string", true, "the tool name"),
            PARAMS_IN,
        ],
        outputs: &["events[]", "provenance", "mechanism_status"],
        visibility_scope: "current_decision",
        limitations: &["events of other tools that affected this one indirectly are not included"],
        model_facing: true,
    },
    ToolContract {
        name: "compare_bounded_counterfactual",
        title: "Compare a bounded counterfactual",
        purpose: "Run the same query (or the loaded suite) on the same graph with exactly one authorised knob changed and report what moved.",
        inputs: &[
            QUERY_IN,
            CASE_IN,
            (
                "change",
                "object",
                true,
                "the knob to change, e.g. {\"depth\": 1}",
            ),
            (
                "base",
                "object",
                false,
                "the base knobs (default: the engine defaults)",
            ),
            (
                "suite",
                "boolean",
                false,
                "compare over every case of the loaded suite (aggregate deltas with bootstrap intervals)",
            ),
        ],
        outputs: &[
            "moves[]",
            "gained",
            "lost",
            "jaccard",
            "rbo",
            "mechanism_status",
            "changed_knobs",
            "provenance",
        ],
        visibility_scope: "current_decision",
        limitations: &[
            "resolved only when exactly one authorised knob that can act differs on the same graph (learning without learning suggestions cannot)",
            "a counterfactual on one query does not generalise to other queries",
            LABEL_THREAT,
        ],
        model_facing: true,
    },
    ToolContract {
        name: "explain_rank_gap",
        title: "Explain a rank gap",
        purpose: "For one query and a named tool, return where that tool stands in one retrieval run and how its scores compare with the rows above it: the failure class (and sub-cause), its rank and full rank, secondary findings, the deficit against the first row (and the last row inside top_k) per query term (BM25 part, idf, tf, missing terms) and per multiplier, every tool ranked above it channel by channel (seed, graph, learning, history demotions, match flags), and the expansion path from the nearest seed.",
        inputs: &[
            ("query", "string", true, "the query to evaluate"),
            (
                "expected",
                "string",
                true,
                "the tool whose place is explained: a tool name of the graph",
            ),
            (
                "llm_target",
                "string",
                false,
                "the tool the model named, handed to the selector with the rows (post-decision: operators only)",
            ),
            (
                "policy",
                "string",
                false,
                "the selector policy: strong_evidence, risk_limited or manual_review (post-decision: operators only)",
            ),
            PARAMS_IN,
        ],
        outputs: &[
            "query",
            "expected",
            "class",
            "sub_cause",
            "full_rank",
            "findings[]",
            "evidence",
            "mechanism_status",
            "provenance",
        ],
        visibility_scope: "current_decision",
        limitations: &[
            "an accounting of one run on the loaded graph: the class, the deficit and the channel differences show how the scores came about, not which change would alter them",
            RANK_GAP_SCOPE,
            "no variant runs: the result holds no re-runs with other knobs or documents",
        ],
        model_facing: true,
    },
    ToolContract {
        name: "lookup_recorded_run",
        title: "Look up a recorded retrieval run",
        purpose: "Return what the retriever returned for a query (ranked rows with score breakdowns) as a recorded algorithm output with provenance.",
        inputs: &[QUERY_IN, CASE_IN, PARAMS_IN],
        outputs: &["run", "provenance", "framing"],
        visibility_scope: "current_decision",
        limitations: &["a record of an algorithm's output, not a recommendation of any tool"],
        model_facing: true,
    },
    ToolContract {
        name: "compare_artifacts",
        title: "Compare two graph artifacts",
        purpose: "Report what changed between the baseline graph (OLD, loaded with --baseline) and the loaded graph (NEW): tools added, removed, renamed and changed (which fields, which the engine reads), edges, nodes, corpus statistics and versions; for a query, how its ranking and selection moved and which change groups moved it (additive Shapley shares from replays on hybrid graphs, with the residual).",
        inputs: &[
            QUERY_IN,
            CASE_IN,
            (
                "expected",
                "string",
                false,
                "the tool whose rank and score are tracked (default: the case's expected tool, else OLD's top-1)",
            ),
            PARAMS_IN,
            (
                "limit",
                "integer",
                false,
                "list at most this many names per section of the diff (default 20, 0 for the counts alone, at most 1000; the counts are always whole)",
            ),
        ],
        outputs: &["diff", "case", "mechanism_status", "baseline", "provenance"],
        visibility_scope: "operator",
        limitations: &[
            "needs a baseline graph: toolscope evidence compare_artifacts --graph NEW --baseline OLD",
            "a case's shares attribute one query's move to the change groups that touch it: they say which change moved it, not which change to make or undo",
            "beyond 7 players the shares are estimated from sampled orders with a stated 95% error bound",
            "operator-facing: the case carries the selector's outcome on both graphs",
        ],
        model_facing: false,
    },
];

pub fn contract(name: &str) -> Option<&'static ToolContract> {
    CONTRACTS.iter().find(|c| c.name == name)
}

pub fn write_contract(c: &ToolContract, w: &mut JsonWriter) {
    w.begin_obj();
    w.key("tool_name").str(c.name);
    w.key("purpose").str(c.purpose);
    w.key("inputs").begin_obj();
    for (n, t, req, d) in c.inputs {
        w.key(n)
            .begin_obj()
            .key("type")
            .str(t)
            .key("required")
            .bool(*req)
            .key("description")
            .str(d)
            .end_obj();
    }
    w.end_obj();
    w.key("outputs").str_list(c.outputs);
    w.key("read_only").bool(true);
    w.key("returns_action_recommendations").bool(false);
    w.key("visibility_scope").str(c.visibility_scope);
    w.key("limitations").str_list(c.limitations);
    w.end_obj();
}

/// The JSON Schema of a tool's arguments (for MCP `inputSchema`).
pub fn input_schema(c: &ToolContract) -> Value {
    let mut props = Map::new();
    let mut required = Vec::new();
    for (n, t, req, d) in c.inputs {
        props.insert(n.to_string(), json!({"type": t, "description": d}));
        if *req {
            required.push(Value::from(*n));
        }
    }
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

/// The JSON Schema of a tool's structured result (for MCP `outputSchema`).
pub fn output_schema(c: &ToolContract) -> Value {
    let mut props = Map::new();
    for o in c.outputs {
        let name = o.trim_end_matches("[]");
        let schema = if o.ends_with("[]") {
            json!({"type": "array"})
        } else if *o == "mechanism_status" {
            json!({"type": "string", "enum": ["resolved", "partial", "unresolved"]})
        } else {
            json!({})
        };
        props.insert(name.to_string(), schema);
    }
    props.insert(
        "read_only".into(),
        json!({"type": "boolean", "const": true}),
    );
    props.insert(
        "returns_action_recommendations".into(),
        json!({"type": "boolean", "const": false}),
    );
    json!({"type": "object", "properties": props, "required": ["read_only", "returns_action_recommendations"]})
}
