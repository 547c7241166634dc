//! Readiness report (spec §8.1), edge-quality summary (§1.4) and the printed summary.

use super::row::Row;
use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::schema::{OutGraph, ToolSchema};

fn has_source(sources: &[std::borrow::Cow<str>], s: &[&str]) -> bool {
    sources.iter().any(|x| s.contains(&x.as_ref()))
}

fn rate(n: usize, total: usize) -> f64 {
    if total == 0 {
        0.0
    } else {
        crate::pytext::round(n as f64 / total as f64, 6)
    }
}

/// What the edge-quality summary and the graph checks count over every edge, read in one
/// pass over the edges' attributes on every core (each edge's compact text is parsed once).
#[derive(Default)]
pub struct EdgeTally {
    total: usize,
    data: usize,
    structural: usize,
    name: usize,
    manual: usize,
    wf: usize,
    trace: usize,
    strong: usize,
    visual: usize,
    /// edges that carry data (requires, precedes, produces_for, or a data flow)
    producer: usize,
    /// edges per relation, in first-seen order
    rel: IndexMap<String, usize>,
}

impl EdgeTally {
    pub fn of(g: &OutGraph) -> EdgeTally {
        // contiguous chunks of source nodes, tallied in parallel and added up in order
        crate::par::map_chunks(&g.succ, |chunk, _| {
            let mut t = EdgeTally::default();
            for m in chunk {
                for a in m.values() {
                    t.count(a);
                }
            }
            t
        })
        .into_iter()
        .fold(EdgeTally::default(), EdgeTally::add)
    }

    fn add(mut self, o: EdgeTally) -> EdgeTally {
        self.total += o.total;
        self.data += o.data;
        self.structural += o.structural;
        self.name += o.name;
        self.manual += o.manual;
        self.wf += o.wf;
        self.trace += o.trace;
        self.strong += o.strong;
        self.visual += o.visual;
        self.producer += o.producer;
        for (k, v) in o.rel {
            *self.rel.entry(k).or_default() += v;
        }
        self
    }

    fn count(&mut self, a: &super::schema::EdgeAttrs) {
        use super::schema::Scalar;
        let [r, ev, conf, cs, df, kind, sources, is_manual] = a.pick([
            "relation",
            "evidence",
            "confidence",
            "conf_score",
            "data_flow",
            "kind",
            "evidence_sources",
            "is_manual",
        ]);
        self.total += 1;
        let r = r.as_ref().and_then(Scalar::as_str).unwrap_or("");
        super::bump(&mut self.rel, r);
        let ev = ev.as_ref().and_then(Scalar::as_str).unwrap_or("");
        let conf = conf.as_ref().and_then(Scalar::as_str).unwrap_or("");
        let cs = cs.as_ref().and_then(Scalar::as_f64).unwrap_or(0.0);
        let df = df.is_some_and(|d| !d.is_null());
        let a = sources.as_ref().map_or(&[][..], Scalar::strs);
        if matches!(r, "requires" | "precedes" | "produces_for") || df {
            self.producer += 1;
        }
        if kind.as_ref().and_then(Scalar::as_str) == Some("data")
            || df
            || matches!(r, "requires" | "produces_for")
        {
            self.data += 1;
        }
        if has_source(a, &["structural"])
            || [
                "path hierarchy",
                "crud",
                "shared schema",
                "$ref",
                "structural",
            ]
            .iter()
            .any(|k| ev.contains(k))
        {
            self.structural += 1;
        }
        if has_source(a, &["name_based"]) || ev.contains("name/rpc") {
            self.name += 1;
        }
        if has_source(a, &["manual"]) || is_manual.as_ref().and_then(Scalar::as_bool) == Some(true)
        {
            self.manual += 1;
        }
        if has_source(a, &["arazzo"]) {
            self.wf += 1;
        }
        if has_source(a, &["run", "proven"]) {
            self.trace += 1;
        }
        if has_source(a, &["api_contract", "arazzo", "openapi_link", "structural"])
            || (conf == "EXTRACTED" && cs >= 0.85)
        {
            self.strong += 1;
        }
        if has_source(
            a,
            &[
                "api_contract",
                "arazzo",
                "openapi_link",
                "manual",
                "run",
                "proven",
            ],
        ) || (df && matches!(conf, "EXTRACTED" | "INFERRED"))
            || (matches!(r, "requires" | "precedes") && conf == "EXTRACTED" && cs >= 0.9)
        {
            self.visual += 1;
        }
    }
}

/// The edge-quality summary (§1.4) of the edges tallied.
pub fn edge_quality_summary(t: &EdgeTally) -> Value {
    json!({
        "total": t.total,
        "data_flow": t.data,
        "structural": t.structural,
        "name_based": t.name,
        "manual": t.manual,
        "workflow": t.wf,
        "trace": t.trace,
        "strong_deterministic_evidence": t.strong,
        "visual_edge_candidate_count": t.visual,
        "strong_deterministic_evidence_rate": rate(t.strong, t.total),
        "visual_edge_candidate_rate": rate(t.visual, t.total),
        "relation_counts": relation_counts(&t.rel),
    })
}

/// What the readiness checks read of an operation's request body, taken before the body
/// rows are frozen (see [`super::frozen`]).
#[derive(Clone, Debug, Default)]
pub struct OperationFacts {
    /// request media types outside the executor's renderers, in declaration order
    pub unsupported_content_types: Vec<String>,
    /// request body json paths through arrays (`[*]`), sorted and unique
    pub request_array_paths: Vec<String>,
    /// a body schema that is a bare object: (required, example-inferred field count)
    pub generic_body: Option<(Value, usize)>,
    /// a required body with media types but no schema: its media types
    pub body_without_schema: Option<Vec<String>>,
    pub has_request_content_types: bool,
    pub has_request_schema: bool,
    /// counts over the raw `api_contract` rows, taken before they are frozen
    pub contract: ContractCounts,
    /// the rows' loose field keys, for the producer/consumer candidate count
    pub contract_keys: ContractKeys,
}

/// Loose field keys of one tool's raw `api_contract` rows.
#[derive(Clone, Debug, Default)]
pub struct ContractKeys {
    /// every produced key, sorted and unique
    pub produces: Vec<String>,
    /// the key of each required consume row, in row order (a key can repeat)
    pub required_consumes: Vec<String>,
}

impl ContractKeys {
    pub fn of_rows(produce_rows: &[Row], consume_rows: &[Row]) -> ContractKeys {
        let key = |r: &Row| {
            super::build::contracts::loose(
                r.get("field_name").and_then(Value::as_str).unwrap_or(""),
            )
        };
        let mut produces: Vec<String> = produce_rows
            .iter()
            .map(key)
            .filter(|k| !k.is_empty())
            .collect();
        produces.sort_unstable();
        produces.dedup();
        let required_consumes = consume_rows
            .iter()
            .filter(|r| r.get("required").is_some_and(crate::pytext::truthy))
            .map(key)
            .filter(|k| !k.is_empty())
            .collect();
        ContractKeys {
            produces,
            required_consumes,
        }
    }
}

/// Required consume rows whose field some other tool produces (loose keys): the pairs a
/// data-flow edge could connect.
fn producer_consumer_candidates(tools: &[ToolSchema]) -> usize {
    let mut producers: rustc_hash::FxHashMap<&str, usize> = Default::default();
    for t in tools {
        for k in &t.readiness.contract_keys.produces {
            *producers.entry(k.as_str()).or_default() += 1;
        }
    }
    crate::par::map(tools, |t| {
        let keys = &t.readiness.contract_keys;
        keys.required_consumes
            .iter()
            .filter(|k| {
                let own = keys.produces.binary_search(k).is_ok() as usize;
                producers.get(k.as_str()).copied().unwrap_or(0) > own
            })
            .count()
    })
    .into_iter()
    .sum()
}

#[derive(Clone, Copy, Debug, Default)]
pub struct ContractCounts {
    pub consumes: usize,
    pub produces: usize,
    pub auth: usize,
    pub context: usize,
    pub enums: usize,
    pub example_inferred: usize,
    /// produce rows a body view can address (value-path aliases, not response headers)
    pub body_view: usize,
}

impl ContractCounts {
    /// The counts of produce rows and consume rows counted apart (every count is a sum
    /// over the two lists, or over one of them).
    pub fn plus(self, o: ContractCounts) -> ContractCounts {
        ContractCounts {
            consumes: self.consumes + o.consumes,
            produces: self.produces + o.produces,
            auth: self.auth + o.auth,
            context: self.context + o.context,
            enums: self.enums + o.enums,
            example_inferred: self.example_inferred + o.example_inferred,
            body_view: self.body_view + o.body_view,
        }
    }

    pub fn of_rows(produces: &[Row], consumes: &[Row]) -> ContractCounts {
        let kind = |r: &&Row, k: &str| r.get("kind").and_then(Value::as_str) == Some(k);
        let both = || consumes.iter().chain(produces);
        ContractCounts {
            consumes: consumes.len(),
            produces: produces.len(),
            auth: consumes.iter().filter(|r| kind(r, "auth")).count(),
            context: consumes.iter().filter(|r| kind(r, "context")).count(),
            enums: both()
                .filter(|r| r.get("enum").is_some_and(crate::pytext::truthy))
                .count(),
            example_inferred: both()
                .filter(|r| {
                    r.get("schema_inferred_from").and_then(Value::as_str) == Some("example")
                })
                .count(),
            body_view: produces
                .iter()
                .filter(|r| {
                    r.get("location").and_then(Value::as_str) != Some("response_header")
                        && r.get("value_path_aliases")
                            .is_some_and(crate::pytext::truthy)
                })
                .count(),
        }
    }
}

/// Media types the reference's executor renders: JSON (and `+json`), form, multipart,
/// plain text and raw bytes.
fn supported_content_type(ct: &str) -> bool {
    let base = ct
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    base == "application/json"
        || base.ends_with("+json")
        || base == "application/x-www-form-urlencoded"
        || base.starts_with("multipart/")
        || base == "text/plain"
        || base == "application/octet-stream"
        || base == "*/*"
}

impl OperationFacts {
    pub fn of_request_body(rb: &Value) -> OperationFacts {
        let rows = |k: &str| {
            rb.get(k)
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or(&[])
        };
        let content_types: Vec<&str> = rows("content_types")
            .iter()
            .filter_map(|r| r.get("content_type").and_then(Value::as_str))
            .collect();
        let unsupported_content_types = content_types
            .iter()
            .filter(|c| !supported_content_type(c))
            .map(|c| c.to_string())
            .collect();
        let mut request_array_paths: Vec<String> = rows("all_fields")
            .iter()
            .filter_map(|r| r.get("json_path").and_then(Value::as_str))
            .filter(|p| p.contains("[*]"))
            .map(String::from)
            .collect();
        request_array_paths.sort();
        request_array_paths.dedup();
        let schema = rb.get("schema").and_then(Value::as_object);
        let generic = schema.is_some_and(|s| {
            !s.is_empty()
                && s.get("type").is_none_or(|t| t.as_str() == Some("object"))
                && !s.get("properties").is_some_and(crate::pytext::truthy)
                && !["allOf", "oneOf", "anyOf", "additionalProperties", "items"]
                    .iter()
                    .any(|k| s.contains_key(*k))
                && rows("fields").is_empty()
        });
        let generic_body = generic.then(|| {
            let examples = rows("all_fields")
                .iter()
                .filter(|r| {
                    r.get("schema_inferred_from").and_then(Value::as_str) == Some("example")
                })
                .count();
            (rb.get("required").cloned().unwrap_or(Value::Null), examples)
        });
        let body_without_schema = (rb.get("required").and_then(Value::as_bool) == Some(true)
            && !content_types.is_empty()
            && schema.is_none_or(|s| s.is_empty()))
        .then(|| content_types.iter().map(|c| c.to_string()).collect());
        OperationFacts {
            unsupported_content_types,
            request_array_paths,
            generic_body,
            body_without_schema,
            has_request_content_types: !content_types.is_empty(),
            // a schema, or field rows inferred from examples
            has_request_schema: schema.is_some_and(|s| !s.is_empty()) || !rows("fields").is_empty(),
            contract: ContractCounts::default(),
            contract_keys: ContractKeys::default(),
        }
    }
}

/// Python truthiness of a metadata value that may be frozen (a frozen value is a non-empty
/// container).
fn truthy_or_frozen(v: Option<&Value>) -> bool {
    v.is_some_and(|v| super::frozen::is_frozen(v) || crate::pytext::truthy(v))
}

/// What the report's graph-level counts read of one tool's metadata, read once per tool
/// (on every core): the counts are then sums over these.
struct ToolFacts<'t> {
    /// no canonical action (or `unknown`)
    action_unknown: bool,
    /// no primary resource (or `unassigned`)
    resource_missing: bool,
    /// no path module
    module_missing: bool,
    /// `openapi.operation_id`, else the tool's name
    operation_id: &'t str,
    deprecated: bool,
    /// the selected response has a schema
    response_schema: bool,
    /// the api contract lists produces, consumes or links
    contract: bool,
    /// the api contract's links
    links: usize,
    /// the selected response has an envelope
    envelope: bool,
}

impl<'t> ToolFacts<'t> {
    fn of(t: &'t ToolSchema) -> ToolFacts<'t> {
        let ai = t.metadata.get("ai_metadata");
        let ai_str = |k: &str| ai.and_then(|a| a.get(k)).and_then(Value::as_str);
        let oa = t.metadata.get("openapi");
        let oa_get = |k: &str| oa.and_then(|o| o.get(k));
        let response = oa_get("response");
        let contract = t.metadata.get("api_contract");
        ToolFacts {
            action_unknown: ai_str("canonical_action")
                .is_none_or(|a| a.is_empty() || a == "unknown"),
            resource_missing: ai_str("primary_resource")
                .is_none_or(|r| r.is_empty() || r == "unassigned"),
            module_missing: oa_get("path_module")
                .and_then(Value::as_str)
                .is_none_or(str::is_empty),
            operation_id: oa_get("operation_id")
                .and_then(Value::as_str)
                .unwrap_or(&t.name),
            deprecated: oa_get("deprecated").and_then(Value::as_bool) == Some(true),
            response_schema: truthy_or_frozen(response.and_then(|r| r.get("schema"))),
            contract: ["produces", "consumes", "links"]
                .iter()
                .any(|k| truthy_or_frozen(contract.and_then(|c| c.get(*k)))),
            links: contract
                .and_then(|c| c.get("links"))
                .and_then(Value::as_array)
                .map_or(0, Vec::len),
            envelope: response
                .and_then(|r| r.get("envelope"))
                .is_some_and(crate::pytext::truthy),
        }
    }
}

/// The tools whose facts pass `keep`, in order.
fn tools_where<'t>(
    tools: &'t [ToolSchema],
    facts: &[ToolFacts],
    keep: impl Fn(&ToolFacts) -> bool,
) -> Vec<&'t ToolSchema> {
    tools
        .iter()
        .zip(facts)
        .filter(|(_, f)| keep(f))
        .map(|(t, _)| t)
        .collect()
}

struct Issue {
    severity: &'static str,
    code: &'static str,
    tool: Option<String>,
    message: String,
    evidence: Value,
    recommendation: &'static str,
}

fn sev_rank(s: &str) -> u8 {
    match s {
        "blocker" => 0,
        "warning" => 1,
        _ => 2,
    }
}

/// The readiness report (a subset of the reference's checks): each tool's issues, then the
/// graph's (semantic coverage, connectivity, edge evidence), sorted by severity, tool and
/// code; the summary, coverage, graph readiness and recommendations.
pub fn report(
    tools: &[ToolSchema],
    g: &OutGraph,
    tally: &EdgeTally,
    edge_quality: &Value,
    semantic_summary: &Value,
) -> Value {
    // each tool's issues on every core, in the tools' order
    let mut issues: Vec<Issue> = crate::par::map(tools, |t| {
        let mut mine = Vec::new();
        tool_issues(t, &mut mine);
        mine
    })
    .into_iter()
    .flatten()
    .collect();
    let facts = crate::par::map(tools, ToolFacts::of);
    semantic_issues(tools, &facts, semantic_summary, &mut issues);
    let stats = graph_issues(tools, g, tally, edge_quality, &mut issues);
    sort_issues(&mut issues);
    let summary = summary(&facts, &issues);
    let rcm = relation_counts(stats.rel);
    let recs = recommendations(&issues);
    let coverage = coverage(tools, &facts, &issues, semantic_summary);
    // the issue rows are moved in (`json!` would copy each one through the serializer)
    let issue_rows: Vec<Value> = issues
        .into_iter()
        .map(|i| {
            super::schema::object([
                ("severity", json!(i.severity)),
                ("code", json!(i.code)),
                ("tool", i.tool.map_or(Value::Null, Value::String)),
                ("message", Value::String(i.message)),
                ("evidence", i.evidence),
                ("recommendation", json!(i.recommendation)),
            ])
        })
        .collect();
    let mut report = json!({
        "summary": summary,
        "coverage": coverage,
        "graph_readiness": {
            "edge_count": g.edge_count(),
            "relation_counts": rcm,
            "producer_edge_count": stats.producer,
            "orphan_tool_count": stats.orphans.len(),
            "isolated_tool_count": stats.orphans.len(),
            "orphan_tools": stats.orphans,
            "producer_consumer_candidate_count": stats.candidates,
            // the graph object exists, edges or not
            "graph_available": true,
            "edge_quality_summary": edge_quality,
        },
    });
    if let Value::Object(m) = &mut report {
        m.insert("issues".into(), Value::Array(issue_rows));
        m.insert("recommendations".into(), Value::Array(recs));
    }
    report
}

/// One tool's issues, in the order the reference checks them.
fn tool_issues(t: &ToolSchema, issues: &mut Vec<Issue>) {
    let oa = t.metadata.get("openapi");
    operation_id_issues(t, oa, issues);
    let md = &t.metadata;
    let method = t.meta_str("method");
    let path = t.meta_str("path");
    let issue = |severity, code, message: &str, evidence, recommendation| Issue {
        severity,
        code,
        tool: Some(t.name.clone()),
        message: message.into(),
        evidence,
        recommendation,
    };
    let f = &t.readiness;
    if let Some(content_types) = &f.body_without_schema {
        issues.push(issue(
            "blocker",
            "missing_request_schema",
            "Required request body declares content but no schema.",
            json!({"method": method, "path": path, "content_types": content_types}),
            "Add a requestBody schema or concrete request examples for executable fields.",
        ));
    }
    if let Some((required, examples)) = &f.generic_body {
        issues.push(issue(
            if *examples == 0 { "blocker" } else { "warning" },
            "generic_request_body",
            "Request body schema is a generic object without declared properties.",
            json!({"method": method, "path": path, "required": required, "example_field_count": examples}),
            "Declare body properties in schema; examples are useful but should not be the only contract.",
        ));
    }
    if let Some(evidence) = oa.and_then(|o| o.get("security")).and_then(auth_evidence) {
        issues.push(issue(
            "warning",
            "auth_required",
            "OpenAPI security is required for execution.",
            evidence,
            "Provide credentials in the XGEN adapter or executor layer; do not store secrets in the graph.",
        ));
    }
    for ct in &f.unsupported_content_types {
        issues.push(issue(
            "warning",
            "unsupported_content_type",
            "Request body declares a media type outside the built-in executor renderers.",
            json!({"content_type": ct}),
            "Add an adapter renderer for this media type or prefer JSON/form/multipart/raw body.",
        ));
    }
    let resp = oa.and_then(|o| o.get("response"));
    let status = resp.and_then(|r| r.get("status")).and_then(Value::as_str);
    let resp_present = ["schema", "fields", "headers"]
        .iter()
        .any(|k| truthy_or_frozen(resp.and_then(|r| r.get(*k))));
    if !resp_present {
        issues.push(issue(
            "warning",
            "missing_response_schema",
            "No success response schema or response fields were extracted.",
            json!({"method": method, "path": path, "status": status}),
            "Add a 2xx response schema or examples so producer search and plan binding can use outputs.",
        ));
    }
    let contract = md.get("api_contract");
    if !["produces", "consumes", "links"]
        .iter()
        .any(|k| truthy_or_frozen(contract.and_then(|c| c.get(*k))))
    {
        issues.push(issue(
            "warning",
            "no_contract_fields",
            "No request, response, auth, or link contract fields were extracted.",
            json!({"method": method, "path": path}),
            "Add request/response schemas or examples so graph search has contract evidence.",
        ));
    }
    if !f.request_array_paths.is_empty() {
        issues.push(issue(
            "info",
            "array_leaf_alignment_required",
            "Request body contains array leaf fields that require row-wise alignment.",
            json!({"array_paths": f.request_array_paths}),
            "Forward array diagnostics from HttpExecutor so missing indexes can be resumed precisely.",
        ));
    }
    if let Some(env) = resp
        .and_then(|r| r.get("envelope"))
        .filter(|e| crate::pytext::truthy(e))
    {
        issues.push(issue(
            "info",
            "response_envelope_detected",
            "Success response appears to use a wrapper envelope.",
            json!({"envelope": env}),
            "Keep body_view/value-path metadata when forwarding runtime responses.",
        ));
    }
}

/// A generated or a duplicated operationId.
fn operation_id_issues(t: &ToolSchema, oa: Option<&Value>, issues: &mut Vec<Issue>) {
    if oa
        .and_then(|o| o.get("operation_id_generated"))
        .and_then(Value::as_bool)
        == Some(true)
    {
        issues.push(Issue {
            severity: "warning",
            code: "missing_operation_id",
            tool: Some(t.name.clone()),
            message: "OperationId was generated from method and path.".into(),
            evidence: json!({
                "method": t.meta_str("method"),
                "path": t.meta_str("path"),
                "operation_id": t.name,
            }),
            recommendation: "Add a stable operationId so tool names and saved plans stay stable.",
        });
    }
    if let Some(o) = oa.filter(|o| {
        o.get("operation_id_duplicate")
            .is_some_and(crate::pytext::truthy)
    }) {
        issues.push(Issue {
            severity: "warning",
            code: "duplicate_operation_id",
            tool: Some(t.name.clone()),
            message: "OperationId is duplicated and the tool name was deduped.".into(),
            evidence: json!({
                "operation_id": o.get("operation_id_original").cloned().unwrap_or(Value::Null),
                "duplicate_count": o.get("operation_id_duplicate_count").cloned().unwrap_or(Value::Null),
                "duplicate_index": o.get("operation_id_duplicate_index").cloned().unwrap_or(Value::Null),
                "deduped_name": o.get("operation_id_deduped_name").cloned().unwrap_or(Value::Null),
            }),
            recommendation: "Make operationId values unique, or use operationRef for ambiguous OpenAPI links.",
        });
    }
}

/// `auth_required`'s evidence: the schemes the requirements name and their credentials
/// (an apiKey's name, else `Authorization`); None when no requirement names a scheme.
fn auth_evidence(sec: &Value) -> Option<Value> {
    let mut schemes: Vec<&str> = sec
        .get("requirements")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .flat_map(|r| r.keys().map(String::as_str))
        .collect();
    schemes.sort_unstable();
    schemes.dedup();
    if schemes.is_empty() {
        return None;
    }
    let defs = sec.get("schemes");
    let mut credentials: Vec<&str> = schemes
        .iter()
        .map(|s| {
            let d = defs.and_then(|d| d.get(*s));
            if d.and_then(|d| d.get("type")).and_then(Value::as_str) == Some("apiKey") {
                d.and_then(|d| d.get("name"))
                    .and_then(Value::as_str)
                    .unwrap_or("")
            } else {
                "Authorization"
            }
        })
        .collect();
    credentials.sort_unstable();
    credentials.dedup();
    Some(json!({"schemes": schemes, "credentials": credentials}))
}

/// Graph-level semantic coverage: canonical actions and primary resources below the
/// semantic graph targets, and a module cluster too large to browse.
fn semantic_issues(
    tools: &[ToolSchema],
    facts: &[ToolFacts],
    semantic_summary: &Value,
    issues: &mut Vec<Issue>,
) {
    // graph-level: canonical-action coverage below the semantic graph target
    let unknown = tools_where(tools, facts, |f| f.action_unknown);
    let known_rate = rate(tools.len() - unknown.len(), tools.len());
    if !tools.is_empty() && known_rate < 0.9 {
        let samples: Vec<Value> = unknown
            .iter()
            .take(5)
            .map(|t| super::build::semantics::unknown_sample(t, &["canonical_action"]))
            .collect();
        issues.push(Issue {
            severity: "warning",
            code: "semantic_action_unknown_rate_high",
            tool: None,
            message: "Canonical action coverage is below the XGEN semantic graph target.".into(),
            evidence: json!({
                "canonical_action_known_rate": known_rate,
                "target": 0.9,
                "unknown_samples": samples,
            }),
            recommendation: "Add operationId verbs, summaries, or adapter action_aliases so search can distinguish search/read/write/action tools.",
        });
    }
    // graph-level: primary-resource coverage below the semantic graph target; the samples
    // are the first ten tools without a resource or a path module, naming which of the two
    let assigned = facts.iter().filter(|f| !f.resource_missing).count();
    let assigned_rate = rate(assigned, tools.len());
    if !tools.is_empty() && assigned_rate < 0.75 {
        let samples: Vec<Value> = tools
            .iter()
            .zip(facts)
            .filter_map(|(t, f)| {
                let mut missing = Vec::new();
                if f.resource_missing {
                    missing.push("primary_resource");
                }
                if f.module_missing {
                    missing.push("path_module");
                }
                (!missing.is_empty()).then(|| super::build::semantics::unknown_sample(t, &missing))
            })
            .take(10)
            .collect();
        issues.push(Issue {
            severity: "warning",
            code: "semantic_resource_unassigned_rate_high",
            tool: None,
            message: "Primary resource coverage is below the XGEN semantic graph target.".into(),
            evidence: json!({
                "primary_resource_assigned_rate": assigned_rate,
                "target": 0.75,
                "unknown_samples": samples,
            }),
            recommendation: "Use tags, stable path modules, or adapter resource_aliases so the graph can cluster tools by business resource.",
        });
    }
    // graph-level: a module cluster too large to browse (from 100 tools on)
    let largest = semantic_summary
        .get("top_modules")
        .and_then(|m| m.get(0))
        .cloned()
        .unwrap_or(Value::Null);
    let largest_rate = largest.get("rate").and_then(Value::as_f64).unwrap_or(0.0);
    let module_rate = semantic_summary
        .get("path_module_assigned_rate")
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    if tools.len() >= 100 && (largest_rate >= 0.5 || module_rate < 0.95) {
        issues.push(Issue {
            severity: "info",
            code: "module_cluster_too_large",
            tool: None,
            message: "One module cluster is large enough to reduce graph browsing value.".into(),
            evidence: json!({
                "largest_module": largest,
                "path_module_assigned_rate": module_rate,
            }),
            recommendation: "Pass module_aliases or improve path grouping so XGEN can show smaller collection map clusters before rendering node-level graphs.",
        });
    }
}

/// What the graph readiness block reports of the graph's shape.
struct GraphStats<'g> {
    /// tools with no edge in or out, sorted
    orphans: Vec<&'g String>,
    /// edges per relation
    rel: &'g IndexMap<String, usize>,
    /// edges that carry data (requires, precedes, produces_for, or a data flow)
    producer: usize,
    /// tool pairs whose contract fields suggest a producer and a consumer
    candidates: usize,
}

/// Graph-level connectivity and edge evidence: no data-flow edge where contracts suggest
/// pairs, every tool isolated, or no edge with strong deterministic evidence.
fn graph_issues<'g>(
    tools: &[ToolSchema],
    g: &'g OutGraph,
    tally: &'g EdgeTally,
    edge_quality: &Value,
    issues: &mut Vec<Issue>,
) -> GraphStats<'g> {
    let mut connected = vec![false; g.nodes.len()];
    for (si, m) in g.succ.iter().enumerate() {
        for &ti in m.keys() {
            connected[si] = true;
            connected[ti] = true;
        }
    }
    let mut orphans: Vec<&String> = g
        .nodes
        .keys()
        .enumerate()
        .filter(|(i, _)| !connected[*i])
        .map(|(_, k)| k)
        .collect();
    orphans.sort();
    let (rel, producer) = (&tally.rel, tally.producer);
    let candidates = producer_consumer_candidates(tools);
    if candidates > 0 && producer == 0 {
        issues.push(Issue {
            severity: "warning",
            code: "low_graph_connectivity",
            tool: None,
            message: "Contract fields suggest producer/consumer pairs, but no data-flow edges exist."
                .into(),
            evidence: json!({
                "producer_consumer_candidate_count": candidates,
                "edge_count": g.edge_count(),
            }),
            recommendation: "Enable graphify contract promotion or relink the collection before Planflow rollout.",
        });
    } else if tools.len() > 1 && orphans.len() == tools.len() {
        issues.push(Issue {
            severity: "warning",
            code: "low_graph_connectivity",
            tool: None,
            message: "All tools are isolated in the graph.".into(),
            evidence: json!({"orphan_tool_count": orphans.len()}),
            recommendation: "Run dependency detection or graphify ingestion so retrieval can use graph expansion.",
        });
    }
    let strong = edge_quality
        .get("strong_deterministic_evidence")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    if g.edge_count() > 0 && strong == 0 {
        issues.push(Issue {
            severity: "warning",
            code: "weak_edge_evidence",
            tool: None,
            message: "Graph has edges, but none carry strong deterministic evidence.".into(),
            evidence: json!({
                "edge_count": g.edge_count(),
                "edge_quality_summary": edge_quality,
            }),
            recommendation: "Prefer api_contract/openapi_link/manual/run evidence for Planflow graph edges and keep name-based edges as low-trust expansion hints.",
        });
    }
    GraphStats {
        orphans,
        rel,
        producer,
        candidates,
    }
}

/// Sorts the issues by severity, then tool (graph-level first), then code; stable, so
/// issues alike keep the order they were found in.
fn sort_issues(issues: &mut [Issue]) {
    issues.sort_by(|a, b| {
        sev_rank(a.severity)
            .cmp(&sev_rank(b.severity))
            .then_with(|| {
                a.tool
                    .as_deref()
                    .unwrap_or("")
                    .cmp(b.tool.as_deref().unwrap_or(""))
            })
            .then_with(|| a.code.cmp(b.code))
    });
}

/// `readiness_report.summary`: the counts, the score (100, less 15 a blocker and 5 a
/// warning) and the status.
fn summary(facts: &[ToolFacts], issues: &[Issue]) -> Value {
    let blockers = issues.iter().filter(|i| i.severity == "blocker").count();
    let warnings = issues.iter().filter(|i| i.severity == "warning").count();
    let score = (100i64 - 15 * blockers as i64 - 5 * warnings as i64).clamp(0, 100);
    let status = if blockers > 0 {
        "blocked"
    } else if warnings > 0 || score < 90 {
        "warning"
    } else {
        "ready"
    };
    // the summary counts built tools (deprecated operations are skipped before)
    // operations count by operationId: duplicate ids (renamed tools) count once
    let unique_operations = facts
        .iter()
        .map(|f| f.operation_id)
        .collect::<rustc_hash::FxHashSet<_>>()
        .len();
    let deprecated = facts.iter().filter(|f| f.deprecated).count();
    json!({
        "tool_count": facts.len(),
        "operation_count": facts.len(),
        "unique_tool_count": facts.len(),
        "unique_operation_count": unique_operations,
        "deprecated_tool_count": deprecated,
        "readiness_score": score,
        "status": status,
    })
}

/// Edges per relation, by relation name.
fn relation_counts(rel: &IndexMap<String, usize>) -> Map<String, Value> {
    let mut rc: Vec<(&String, &usize)> = rel.iter().collect();
    rc.sort();
    let mut rcm = Map::new();
    for (k, v) in rc {
        rcm.insert(k.clone(), json!(v));
    }
    rcm
}

/// The issues' recommendations, each once in issue order (or the ready note).
fn recommendations(issues: &[Issue]) -> Vec<Value> {
    let mut recs: Vec<Value> = Vec::new();
    for i in issues {
        let r = json!(i.recommendation);
        if !recs.contains(&r) {
            recs.push(r);
        }
    }
    if recs.is_empty() {
        recs.push(json!(
            "Collection is ready for graph search and Planflow smoke testing."
        ));
    }
    recs
}

/// `readiness_report.coverage`: schema and contract coverage, field counts, envelope samples,
/// the reasons behind missing contracts and the semantic coverage.
fn coverage(tools: &[ToolSchema], facts: &[ToolFacts], issues: &[Issue], sem: &Value) -> Value {
    let n = tools.len();
    let rate4 = |k: usize| {
        if n == 0 {
            0.0
        } else {
            crate::pytext::round(k as f64 / n as f64, 4)
        }
    };
    fn oa(t: &ToolSchema) -> Option<&Value> {
        t.metadata.get("openapi")
    }
    fn response(t: &ToolSchema) -> Option<&Value> {
        oa(t).and_then(|o| o.get("response"))
    }
    // a body with media types, or a schema (a Swagger 2.0 body parameter without `consumes`)
    let request_body = tools
        .iter()
        .filter(|t| t.readiness.has_request_content_types || t.readiness.has_request_schema)
        .count();
    let request_schema = tools
        .iter()
        .filter(|t| t.readiness.has_request_schema)
        .count();
    let response_schema = facts.iter().filter(|f| f.response_schema).count();
    let contract_tools = facts.iter().filter(|f| f.contract).count();
    let links: usize = facts.iter().map(|f| f.links).sum();
    let mut c = ContractCounts::default();
    for t in tools {
        let x = t.readiness.contract;
        c.consumes += x.consumes;
        c.produces += x.produces;
        c.auth += x.auth;
        c.context += x.context;
        c.enums += x.enums;
        c.example_inferred += x.example_inferred;
        c.body_view += x.body_view;
    }
    let sources = c.consumes + c.produces + links;
    let envelopes = tools_where(tools, facts, |f| f.envelope);
    let samples: Vec<Value> = envelopes
        .iter()
        .take(20)
        .map(|t| {
            let o = oa(t);
            let field = |v: Option<&Value>, k: &str| v.and_then(|v| v.get(k)).cloned();
            let env = response(t).and_then(|r| r.get("envelope"));
            json!({
                "tool": t.name,
                "operation_id": field(o, "operation_id"),
                "method": field(o, "method"),
                "path": field(o, "path"),
                "status": field(response(t), "status"),
                "wrapper_path": field(env, "wrapper_path"),
                "collection_path": field(env, "collection_path"),
                "item_path": field(env, "item_path"),
            })
        })
        .collect();
    let mut reasons: Vec<(&str, usize)> = Vec::new();
    for i in issues {
        if matches!(
            i.code,
            "missing_response_schema"
                | "no_contract_fields"
                | "unsupported_content_type"
                | "missing_request_schema"
                | "generic_request_body"
        ) {
            match reasons.iter_mut().find(|(k, _)| *k == i.code) {
                Some((_, v)) => *v += 1,
                None => reasons.push((i.code, 1)),
            }
        }
    }
    reasons.sort();
    let mut by_reason = Map::new();
    for (k, v) in reasons {
        by_reason.insert(k.into(), json!(v));
    }
    let mut source_counts = Map::new();
    if sources > 0 {
        source_counts.insert("api_contract".into(), json!(sources));
    }
    let s = |k: &str| sem.get(k).cloned().unwrap_or(Value::Null);
    json!({
        "request_body_tool_count": request_body,
        "request_schema_tool_count": request_schema,
        "request_schema_coverage": rate4(request_schema),
        "response_schema_tool_count": response_schema,
        "response_schema_coverage": rate4(response_schema),
        "contract_tool_count": contract_tools,
        "contract_tool_coverage": rate4(contract_tools),
        "observed_contract_coverage": {"tool_count": contract_tools, "rate": rate4(contract_tools)},
        "contract_source_counts": source_counts,
        "consumes_field_count": c.consumes,
        "produces_field_count": c.produces,
        "auth_field_count": c.auth,
        "context_field_count": c.context,
        "enum_field_count": c.enums,
        "example_inferred_field_count": c.example_inferred,
        "response_envelope_tool_count": envelopes.len(),
        "response_envelope_sample_count": samples.len(),
        "response_envelope_samples": samples,
        "missing_contract_by_reason": by_reason,
        "body_view_candidate_count": c.body_view,
        "openapi_link_count": links,
        "semantic_action_known_count": s("canonical_action_known_count"),
        "semantic_action_known_rate": s("canonical_action_known_rate"),
        "semantic_resource_assigned_count": s("primary_resource_assigned_count"),
        "semantic_resource_assigned_rate": s("primary_resource_assigned_rate"),
        "semantic_module_assigned_count": s("path_module_assigned_count"),
        "semantic_module_assigned_rate": s("path_module_assigned_rate"),
        "semantic_confidence_counts": s("semantic_confidence_counts"),
        "semantic_unknown_samples": s("unknown_samples"),
    })
}

/// The readiness summary `build` prints (spec §8.1).
pub fn summary_text(artifact: &Value) -> String {
    let Some(r) = artifact.get("readiness_report") else {
        return String::new();
    };
    let s = &r["summary"];
    let tools = s["tool_count"].as_u64().unwrap_or(0);
    let operations = artifact
        .pointer("/source_snapshot_manifest/operation_count")
        .and_then(Value::as_u64)
        .unwrap_or(tools);
    let skipped = if operations > tools {
        format!(" ({} deprecated or duplicate skipped)", operations - tools)
    } else {
        String::new()
    };
    let mut out = format!(
        "readiness: {} (score {}), {} from {} in the specs{skipped}\n",
        s["status"].as_str().unwrap_or("?"),
        s["readiness_score"],
        crate::sanitize::count(tools, "tool"),
        crate::sanitize::count(operations, "operation"),
    );
    if let Some(issues) = r["issues"].as_array() {
        let mut counts: IndexMap<(String, String), usize> = Default::default();
        for i in issues {
            let k = (
                i["severity"].as_str().unwrap_or("").to_string(),
                i["code"].as_str().unwrap_or("").to_string(),
            );
            *counts.entry(k).or_default() += 1;
        }
        for ((sev, code), n) in counts {
            out.push_str(&format!("  {sev:8} {code} x{n}\n"));
        }
    }
    let gr = &r["graph_readiness"];
    let n = |k: &str| gr[k].as_u64().unwrap_or(0);
    out.push_str(&format!(
        "graph: {}, {}, {}\n",
        crate::sanitize::count(n("edge_count"), "edge"),
        crate::sanitize::count(n("producer_edge_count"), "producer edge"),
        crate::sanitize::count(n("orphan_tool_count"), "orphan tool"),
    ));
    out
}
