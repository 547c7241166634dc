//! GraphQL introspection results (`{"data": {"__schema": …}}` or a bare `{"__schema": …}`)
//! → one tool per root field, as graph-tool-call 0.47.0 builds them with
//! `ToolGraph().add_tools(ingest_graphql_introspection(doc, endpoint_url=URL).tools)`
//! (behaviour learned by running the reference on generated schemas, see
//! `scripts/fuzz_graphql.py`).
//!
//! A tool is `<operation>_<field>` with the field's arguments as parameters, a
//! request/variables schema, a response schema wrapped in `data`, the GraphQL document
//! (`query GtcQueryUser($id: ID!) { user(id: $id) { … } }`), the HTTP execution binding and
//! `api_contract` rows. Deprecated root fields are skipped (a warning), fields with an
//! invalid name or type reference too (a blocker); without a valid endpoint the result
//! carries the blocker `graphql_endpoint_required` (or `graphql_endpoint_invalid`): those
//! are the ingest result's `issues`, reported by `build` and not written to the graph.

pub mod endpoint;
pub mod types;

use serde_json::{Map, Value, json};

use super::leaves::{Leaf, extract_leaves};
use super::row::Row;
use super::schema::{ParamSchema, ToolSchema};
use crate::error::InputError;
use types::Types;

/// One entry of the ingest result's `issues`.
#[derive(Clone, Debug, PartialEq)]
pub struct Issue {
    pub severity: &'static str,
    pub code: &'static str,
    pub message: &'static str,
    pub tool: Option<String>,
    pub evidence: Value,
}

/// What one introspection document gave.
#[derive(Debug, Default)]
pub struct Ingested {
    pub tools: Vec<ToolSchema>,
    pub issues: Vec<Issue>,
    /// root fields seen (deprecated and invalid ones included)
    pub root_fields: usize,
}

impl Ingested {
    /// No blocker (the reference's `ready`).
    pub fn ready(&self) -> bool {
        !self.issues.iter().any(|i| i.severity == "blocker")
    }
}

pub const INVALID_DOCUMENT: &str = "Source does not contain a standard GraphQL __schema payload.";

/// The `__schema` object of a document, or the JSON pointer where it should be.
pub fn schema_of(doc: &Value) -> Result<&Map<String, Value>, &'static str> {
    let Some(top) = doc.as_object() else {
        return Err("");
    };
    if let Some(s) = top.get("__schema") {
        return s.as_object().ok_or("/__schema");
    }
    match top.get("data") {
        Some(Value::Object(d)) => d
            .get("__schema")
            .and_then(Value::as_object)
            .ok_or("/data/__schema"),
        _ => Err("/data"),
    }
}

/// Whether a document is a GraphQL response or introspection (`__schema`, or only `data`,
/// `errors` and `extensions` at the top).
pub fn looks_like_graphql(doc: &Value) -> bool {
    let Some(m) = doc.as_object() else {
        return false;
    };
    m.contains_key("__schema")
        || (m.contains_key("data") || m.contains_key("errors"))
            && m.keys()
                .all(|k| matches!(k.as_str(), "data" | "errors" | "extensions"))
}

/// A document without `__schema`: the reference's blocker, with the response's first
/// error message when it has one.
pub fn invalid_document_error(file: &str, doc: &Value, place: &str) -> InputError {
    let first_error = doc
        .pointer("/errors/0/message")
        .and_then(Value::as_str)
        .map(|m| format!(" (the response's first error: {})", first_chars(m, 200)))
        .unwrap_or_default();
    let place = if doc.get("errors").is_some() && doc.pointer("/data/__schema").is_none() {
        if first_error.is_empty() {
            place
        } else {
            "/errors/0/message"
        }
    } else {
        place
    };
    InputError::new(
        file,
        place,
        format!("invalid_graphql_introspection: {INVALID_DOCUMENT}{first_error}"),
    )
}

fn first_chars(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

const OPERATIONS: [(&str, &str); 3] = [
    ("query", "queryType"),
    ("mutation", "mutationType"),
    ("subscription", "subscriptionType"),
];

/// Builds the tools of one introspection document.
pub fn ingest(file: &str, doc: &Value, endpoint_url: Option<&str>) -> Result<Ingested, InputError> {
    let schema = schema_of(doc).map_err(|place| invalid_document_error(file, doc, place))?;
    let types = Types::new(schema);
    let mut out = Ingested::default();
    let ep = endpoint::check(endpoint_url);
    if let Some(issue) = ep.issue.clone() {
        out.issues.push(issue);
    }
    let mut deprecated = 0usize;
    for (op, key) in OPERATIONS {
        let Some(root) = schema
            .get(key)
            .and_then(|r| r.get("name"))
            .and_then(Value::as_str)
        else {
            continue;
        };
        let Some(fields) = types
            .get(root)
            .and_then(|t| t.get("fields"))
            .and_then(Value::as_array)
        else {
            continue;
        };
        let mut invalid = false;
        for f in fields {
            out.root_fields += 1;
            if types::is_deprecated(f) {
                deprecated += 1;
                continue;
            }
            if !valid_field(f) {
                invalid = true;
                continue;
            }
            let tool = root_field_tool(&types, op, root, f, &ep);
            if op == "subscription" {
                out.issues.push(Issue {
                    severity: "warning",
                    code: "graphql_subscription_transport_required",
                    message: "Subscription fields require an application-provided GraphQL \
                              subscription transport.",
                    tool: Some(tool.name.clone()),
                    evidence: json!({"transport": "graphql-subscription"}),
                });
            }
            out.tools.push(tool);
        }
        if invalid {
            out.issues.push(Issue {
                severity: "blocker",
                code: "invalid_graphql_operation",
                message: "A GraphQL root field contains an invalid name or incomplete \
                          argument type reference.",
                tool: None,
                evidence: json!({"operation_type": op}),
            });
        }
    }
    if deprecated > 0 {
        out.issues.push(Issue {
            severity: "warning",
            code: "graphql_deprecated_fields_skipped",
            message: "Deprecated GraphQL root fields were excluded from the tool catalog.",
            tool: None,
            evidence: json!({"count": deprecated}),
        });
    }
    Ok(out)
}

fn valid_field(f: &Value) -> bool {
    let Some(o) = f.as_object() else {
        return false;
    };
    if !o
        .get("name")
        .and_then(Value::as_str)
        .is_some_and(types::is_name)
    {
        return false;
    }
    if !o.get("type").is_some_and(|t| types::valid_ref(t, 0)) {
        return false;
    }
    match o.get("args") {
        None | Some(Value::Null) => true,
        Some(Value::Array(args)) => args.iter().all(|a| {
            a.get("name")
                .and_then(Value::as_str)
                .is_some_and(types::is_name)
                && a.get("type").is_some_and(|t| types::valid_ref(t, 0))
        }),
        Some(_) => false,
    }
}

/// `GtcQueryUserById` from `query` and `user_by_id`.
fn pascal(s: &str) -> String {
    let mut out = String::new();
    for part in s.split(|c: char| !c.is_ascii_alphanumeric()) {
        let mut cs = part.chars();
        if let Some(c) = cs.next() {
            out.push(c.to_ascii_uppercase());
            out.extend(cs);
        }
    }
    out
}

fn args_of(f: &Value) -> &[Value] {
    f.get("args")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn root_field_tool(
    types: &Types,
    op: &str,
    root: &str,
    f: &Value,
    ep: &endpoint::Endpoint,
) -> ToolSchema {
    let field = f["name"].as_str().unwrap_or("");
    let name = format!("{op}_{field}");
    let description = match f.get("description").and_then(Value::as_str) {
        Some(d) if !crate::pytext::strip(d).is_empty() => crate::pytext::strip(d).to_string(),
        _ => format!("GraphQL {op} field {field}."),
    };
    // variables
    let mut props = Map::new();
    let mut required = Vec::new();
    let mut parameters = Vec::new();
    for a in args_of(f) {
        let an = a["name"].as_str().unwrap_or("");
        let s = types::input_value_schema(types, a, &mut Vec::new());
        let req =
            types::is_non_null(&a["type"]) && a.get("defaultValue").is_none_or(Value::is_null);
        if req {
            required.push(json!(an));
        }
        let enum_values = s.get("enum").filter(|e| e.is_array());
        parameters.push(ParamSchema {
            name: an.to_string(),
            ty: s
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("string")
                .to_string(),
            description: a
                .get("description")
                .and_then(Value::as_str)
                .map(String::from)
                .unwrap_or_default(),
            required: req,
            enum_values: enum_values.cloned(),
        });
        props.insert(an.to_string(), s);
    }
    let has_args = !props.is_empty();
    let mut vars = Map::new();
    vars.insert("type".into(), json!("object"));
    vars.insert("properties".into(), Value::Object(props));
    vars.insert("additionalProperties".into(), json!(false));
    if !required.is_empty() {
        vars.insert("required".into(), Value::Array(required));
    }
    let vars = Value::Object(vars);
    // the selection and the response
    let sel = types::output(types, &f["type"], 0, &mut Vec::new(), false);
    let lines = types::output(types, &f["type"], 0, &mut Vec::new(), true).lines;
    let response = json!({
        "type": "object",
        "properties": {"data": {
            "type": "object",
            "properties": {field: sel.schema},
            "required": [field],
            "additionalProperties": false,
        }},
        "required": ["data"],
        "additionalProperties": false,
    });
    let op_name = format!("Gtc{}{}", pascal(op), pascal(field));
    let document = document(op, &op_name, field, args_of(f), lines);
    let mut md = Map::new();
    md.insert("source".into(), json!("graphql-introspection"));
    md.insert("method".into(), json!("POST"));
    md.insert("path".into(), json!(ep.path));
    md.insert("base_url".into(), json!(ep.base_url));
    md.insert("request_body_schema".into(), vars.clone());
    md.insert("request_content_type".into(), json!("application/json"));
    md.insert("response_schema".into(), response.clone());
    md.insert("response_content_type".into(), json!("application/json"));
    md.insert(
        "input_locations".into(),
        if has_args {
            json!(["graphql_variable"])
        } else {
            json!([])
        },
    );
    md.insert(
        "api_contract".into(),
        json!({
            "produces": rows_value(produces(&response)),
            "consumes": rows_value(consumes(&vars)),
            "links": [],
        }),
    );
    md.insert(
        "graphql".into(),
        json!({
            "operation_type": op,
            "root_type": root,
            "root_field": field,
            "operation_name": op_name,
            "document": document,
            "variables_schema": vars,
            "return_type": types::signature(&f["type"]),
            "deprecated": types::is_deprecated(f),
            "deprecation_reason": f.get("deprecationReason").cloned().unwrap_or(Value::Null),
        }),
    );
    let mut exec = Map::new();
    let subscription = op == "subscription";
    exec.insert(
        "transport".into(),
        json!(if subscription {
            "graphql-subscription"
        } else {
            "graphql-http"
        }),
    );
    exec.insert("method".into(), json!("POST"));
    exec.insert("endpoint".into(), json!(ep.endpoint));
    exec.insert("content_type".into(), json!("application/json"));
    exec.insert(
        "body_template".into(),
        json!({"query": document, "operationName": op_name}),
    );
    exec.insert("variable_binding".into(), json!("arguments_to_variables"));
    exec.insert("result_path".into(), json!(["data", field]));
    exec.insert("read_only".into(), json!(op == "query"));
    if subscription {
        exec.insert("executable".into(), json!(false));
    }
    md.insert("execution".into(), Value::Object(exec));
    let annotations = match op {
        "query" => [Some(true), Some(false), Some(true), Some(true)],
        "mutation" => [Some(false), Some(true), None, Some(true)],
        _ => [Some(true), Some(false), None, Some(true)],
    };
    ToolSchema {
        name,
        description,
        parameters,
        tags: vec![op.to_string(), root.to_string()],
        domain: Some(root.to_string()),
        metadata: md,
        annotations: Some(annotations),
        ..Default::default()
    }
}

/// The operation document: variables, the root field with its arguments, the selection.
fn document(
    op: &str,
    op_name: &str,
    field: &str,
    args: &[Value],
    lines: Option<Vec<String>>,
) -> String {
    let mut out = format!("{op} {op_name}");
    if !args.is_empty() {
        let vars: Vec<String> = args
            .iter()
            .map(|a| {
                format!(
                    "${}: {}",
                    a["name"].as_str().unwrap_or(""),
                    types::signature(&a["type"])
                )
            })
            .collect();
        out.push_str(&format!("({})", vars.join(", ")));
    }
    out.push_str(" {\n  ");
    out.push_str(field);
    if !args.is_empty() {
        let call: Vec<String> = args
            .iter()
            .map(|a| {
                let n = a["name"].as_str().unwrap_or("");
                format!("{n}: ${n}")
            })
            .collect();
        out.push_str(&format!("({})", call.join(", ")));
    }
    if let Some(lines) = lines {
        out.push_str(" {\n");
        for l in lines {
            out.push_str("    ");
            out.push_str(&l);
            out.push('\n');
        }
        out.push_str("  }");
    }
    out.push_str("\n}");
    out
}

fn rows_value(rows: Vec<Row>) -> Value {
    super::row::rows_value(rows)
}

/// The leaf row's keys from `nullable` on (hints, combinator and branch markers), in order.
fn hints_of(l: &Leaf, r: &mut Row) {
    let full = super::leaves::leaf_row(l, "body");
    let mut on = false;
    for (k, v) in full.iter() {
        on |= k == "nullable";
        if on {
            r.insert(k.to_string().into(), v.clone());
        }
    }
}

/// Response rows: one per distinct leaf path, then the envelope annotations.
fn produces(response: &Value) -> Vec<Row> {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut rows = Vec::new();
    for l in extract_leaves(response) {
        if !seen.insert(l.json_path.clone()) {
            continue;
        }
        let mut r = Row::new();
        r.insert("json_path".into(), json!(l.json_path));
        r.insert("field_name".into(), json!(l.field_name));
        r.insert("field_type".into(), json!(l.field_type));
        if !l.enum_values.is_empty() {
            r.insert("enum".into(), Value::Array(l.enum_values.clone()));
        }
        hints_of(&l, &mut r);
        rows.push(r);
    }
    super::shape::annotate(Some(response), &mut rows);
    rows
}

/// Variable rows: one per field name among the leaves of the variables schema (an input
/// object without fields, or a recursive one, gives none, nor does a list of them).
fn consumes(vars: &Value) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut seen = rustc_hash::FxHashSet::default();
    for l in extract_leaves(vars) {
        if l.field_type == "object" || l.field_type == "array" || !seen.insert(l.field_name.clone())
        {
            continue;
        }
        let mut r = Row::new();
        r.insert("field_name".into(), json!(l.field_name));
        r.insert("field_type".into(), json!(l.field_type));
        r.insert("required".into(), json!(l.required));
        r.insert("enum".into(), Value::Array(l.enum_values.clone()));
        r.insert("location".into(), json!("body"));
        hints_of(&l, &mut r);
        r.insert("kind".into(), json!("data"));
        rows.push(r);
    }
    rows
}

/// The build summary lines of the ingest result's issues (`severity code xN: message`).
pub fn issue_lines(issues: &[Issue]) -> Vec<String> {
    let mut counts: indexmap::IndexMap<(&str, &str, &str), usize> = Default::default();
    for i in issues {
        *counts.entry((i.severity, i.code, i.message)).or_default() += 1;
    }
    counts
        .into_iter()
        .map(|((sev, code, msg), n)| format!("  {sev:8} {code} x{n}: {msg}"))
        .collect()
}
