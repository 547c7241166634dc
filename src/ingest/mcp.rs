//! MCP `tools/list` results and OpenAI/Anthropic function lists → ToolSchema (spec §1.7,
//! §1.8), and the legacy `ToolGraph` path that ingests them (`ingest_mcp_tools`,
//! `add_tools`): category nodes per domain and unlabelled dependency edges (§2.8).

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::build::detect::{DetTool, detect};
use super::schema::{Hints, OutGraph, ParamSchema, ToolSchema, normalize};
use crate::error::InputError;

/// One MCP server's tools as read from a document.
pub struct McpServer<'a> {
    pub name: Option<String>,
    pub tools: &'a [Value],
}

/// The server name of an MCP document: `result.serverInfo.name`, else a top-level `name`
/// (the peer-bench tool-list files), else none.
pub fn server_name_of(doc: &Value) -> Option<String> {
    let m = doc.as_object()?;
    if let Some(n) = m
        .get("result")
        .and_then(|r| r.get("serverInfo"))
        .and_then(|s| s.get("name"))
        .and_then(Value::as_str)
    {
        return Some(n.to_string());
    }
    if let Some(n) = m
        .get("serverInfo")
        .and_then(|s| s.get("name"))
        .and_then(Value::as_str)
    {
        return Some(n.to_string());
    }
    m.get("name")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(String::from)
}

fn str_of(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str).map(String::from)
}

fn type_of(schema: &Value) -> String {
    match schema.get("type") {
        Some(Value::String(s)) => s.clone(),
        _ => "string".into(),
    }
}

/// Parameters from a JSON-schema `properties` object (MCP and function formats).
pub fn params_from_schema(schema: &Value) -> Vec<ParamSchema> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    props
        .iter()
        .map(|(name, p)| ParamSchema {
            name: name.clone(),
            ty: type_of(p),
            description: str_of(p.get("description")).unwrap_or_default(),
            required: required.contains(&name.as_str()),
            enum_values: p.get("enum").filter(|e| e.is_array()).cloned(),
        })
        .collect()
}

/// Contract rows of an MCP input or output schema (leaves of the object tree).
fn mcp_rows(schema: &Value, location: Option<&str>, out: &mut Vec<Value>) {
    fn walk(
        schema: &Value,
        required_parent: bool,
        location: Option<&str>,
        out: &mut Vec<Value>,
        depth: usize,
    ) {
        if depth > 32 {
            return;
        }
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let Some(props) = schema.get("properties").and_then(Value::as_object) else {
            return;
        };
        for (name, p) in props {
            let req = required_parent && required.contains(&name.as_str());
            let mut leaf = p;
            let mut ty = type_of(p);
            if ty == "array"
                && let Some(items) = p.get("items")
            {
                leaf = items;
                ty = type_of(items);
            }
            if ty == "object" {
                // objects contribute their leaves; an object without properties none
                walk(leaf, req, location, out, depth + 1);
                continue;
            }
            let mut row = Map::new();
            row.insert("field_name".into(), json!(name));
            row.insert("field_type".into(), json!(ty));
            row.insert("required".into(), json!(req));
            let en = leaf
                .get("enum")
                .or_else(|| p.get("enum"))
                .filter(|e| e.is_array())
                .cloned()
                .unwrap_or(json!([]));
            row.insert("enum".into(), en);
            if let Some(l) = location {
                row.insert("location".into(), json!(l));
            }
            if let Some(d) = p.get("default").filter(|d| !d.is_null()) {
                row.insert("default".into(), d.clone());
            }
            for k in [
                "nullable",
                "read_only",
                "write_only",
                "deprecated",
                "required_in_branch",
                "additional_properties",
                "map_value",
            ] {
                row.insert(k.into(), json!(false));
            }
            if location.is_some() {
                row.insert("kind".into(), json!("data"));
            }
            out.push(Value::Object(row));
        }
    }
    walk(schema, true, location, out, 0);
}

fn hints_from_mcp(a: &Value) -> Option<Hints> {
    let o = a.as_object()?;
    let get = |k: &str| o.get(k).and_then(Value::as_bool);
    Some([
        get("readOnlyHint"),
        get("destructiveHint"),
        get("idempotentHint"),
        get("openWorldHint"),
    ])
}

/// One MCP tool object → ToolSchema (before registration normalisation).
pub fn mcp_tool(
    file: &str,
    idx: usize,
    t: &Value,
    server: Option<&str>,
) -> Result<Option<ToolSchema>, InputError> {
    let Some(o) = t.as_object() else {
        return Err(InputError::new(
            file,
            &format!("/tools/{idx}"),
            "MCP tool is not an object".into(),
        ));
    };
    let Some(name) = o
        .get("name")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
    else {
        crate::ingest::warn(format!(
            "{file}:/tools/{idx}: MCP tool without a name skipped"
        ));
        return Ok(None);
    };
    let input = o
        .get("inputSchema")
        .filter(|v| v.is_object())
        .cloned()
        .unwrap_or_else(|| json!({"type": "object", "properties": {}}));
    let output = o.get("outputSchema").filter(|v| v.is_object()).cloned();
    let has_props = input
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty());
    let mut consumes = Vec::new();
    mcp_rows(&input, Some("body"), &mut consumes);
    let mut produces = Vec::new();
    if let Some(out) = &output {
        mcp_rows(out, None, &mut produces);
    }
    let mut md = Map::new();
    md.insert("source".into(), json!("mcp"));
    md.insert("request_body_schema".into(), input.clone());
    md.insert(
        "input_locations".into(),
        if has_props {
            json!(["mcp_argument"])
        } else {
            json!([])
        },
    );
    md.insert(
        "api_contract".into(),
        json!({"produces": produces, "consumes": consumes, "links": []}),
    );
    let mut mcp = Map::new();
    mcp.insert("input_schema".into(), input.clone());
    if let Some(out) = &output {
        mcp.insert("output_schema".into(), out.clone());
    }
    if let Some(s) = server {
        mcp.insert("server_name".into(), json!(s));
    }
    md.insert("mcp".into(), Value::Object(mcp));
    let mut exec = Map::new();
    exec.insert("transport".into(), json!("mcp"));
    exec.insert("method".into(), json!("tools/call"));
    exec.insert("tool_name".into(), json!(name));
    exec.insert("arguments_binding".into(), json!("parameters_to_arguments"));
    exec.insert("requires_client_binding".into(), json!(true));
    if let Some(s) = server {
        exec.insert("server_name".into(), json!(s));
    }
    md.insert("execution".into(), Value::Object(exec));
    if let Some(out) = &output {
        md.insert("response_schema".into(), out.clone());
    }
    if let Some(s) = server {
        md.insert("mcp_server".into(), json!(s));
    }
    let mut tags = Vec::new();
    if let Some(s) = server {
        tags.push(s.to_string());
    }
    Ok(Some(ToolSchema {
        name: name.to_string(),
        description: str_of(o.get("description")).unwrap_or_default(),
        parameters: params_from_schema(&input),
        tags,
        domain: None,
        metadata: md,
        annotations: o.get("annotations").and_then(hints_from_mcp),
        ..Default::default()
    }))
}

/// One OpenAI / Anthropic function object → ToolSchema.
pub fn function_tool(file: &str, idx: usize, t: &Value) -> Result<Option<ToolSchema>, InputError> {
    let Some(o) = t.as_object() else {
        return Err(InputError::new(
            file,
            &format!("/{idx}"),
            "function is not an object".into(),
        ));
    };
    let (inner, schema) = if let Some(f) = o.get("function").filter(|f| f.is_object()) {
        (f, f.get("parameters"))
    } else if o.contains_key("input_schema") {
        (t, o.get("input_schema"))
    } else {
        (t, o.get("parameters"))
    };
    let Some(name) = inner
        .get("name")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
    else {
        crate::ingest::warn(format!("{file}:/{idx}: function without a name skipped"));
        return Ok(None);
    };
    let empty = json!({});
    Ok(Some(ToolSchema {
        name: name.to_string(),
        description: str_of(inner.get("description")).unwrap_or_default(),
        parameters: params_from_schema(schema.unwrap_or(&empty)),
        tags: Vec::new(),
        domain: None,
        metadata: Map::new(),
        annotations: None,
        ..Default::default()
    }))
}

/// The legacy `ToolGraph`: tools, category nodes, unlabelled relations.
#[derive(Default)]
pub struct LegacyGraph {
    pub tools: IndexMap<String, ToolSchema>,
    pub graph: OutGraph,
}

impl LegacyGraph {
    /// Registers one tool and then its category (`ingest_mcp_tools`, tool by tool).
    pub fn add_tool(&mut self, mut t: ToolSchema) {
        normalize(&mut t);
        self.graph.add_node(&t.name, t.node_attrs());
        self.link_category(&t.name, t.domain.as_deref());
        self.tools.insert(t.name.clone(), t);
    }

    /// Registers every tool node first, then the categories (`add_tools` with a list: a
    /// domain named like a later tool links to that tool's node).
    pub fn add_tools(&mut self, tools: Vec<ToolSchema>) {
        let mut domains = Vec::with_capacity(tools.len());
        for mut t in tools {
            normalize(&mut t);
            self.graph.add_node(&t.name, t.node_attrs());
            domains.push((t.name.clone(), t.domain.clone()));
            self.tools.insert(t.name.clone(), t);
        }
        for (name, domain) in domains {
            self.link_category(&name, domain.as_deref());
        }
    }

    /// The category node `domain` (unless a node of that name exists) and the tool's
    /// `belongs_to` edge to it.
    fn link_category(&mut self, tool: &str, domain: Option<&str>) {
        let Some(d) = domain else {
            return;
        };
        if !self.graph.has_node(d) {
            let mut a = Map::new();
            a.insert("node_type".into(), json!("category"));
            a.insert("description".into(), json!(""));
            self.graph.add_node(d, a);
        }
        let mut a = Map::new();
        a.insert("relation".into(), json!("belongs_to"));
        self.graph.add_edge(tool, d, a);
    }

    /// Legacy dependency detection over all registered tools (min confidence 0.7).
    pub fn detect(&mut self) {
        let det: Vec<DetTool> = self.tools.values().map(det_tool).collect();
        let found = detect(&det, 0.7, 100_000);
        let names: Vec<String> = self.tools.keys().cloned().collect();
        for r in found.relations {
            let mut a = Map::new();
            a.insert("relation".into(), json!(r.relation));
            a.insert("weight".into(), json!(1.0));
            self.graph.add_edge(&names[r.source], &names[r.target], a);
        }
    }

    /// The saved-graph JSON (`ToolGraph.save`).
    pub fn to_json(&self, built_at: &str) -> Value {
        let mut top = Map::new();
        top.insert("format_version".into(), json!("1"));
        top.insert("library_version".into(), json!(super::REFERENCE_VERSION));
        top.insert(
            "metadata".into(),
            json!({"built_at": built_at, "tool_count": self.tools.len()}),
        );
        top.insert("graph".into(), self.graph.to_json());
        let mut tools = Map::new();
        for (k, t) in &self.tools {
            tools.insert(k.clone(), t.to_json());
        }
        top.insert("tools".into(), Value::Object(tools));
        Value::Object(top)
    }
}

/// The detector's view of a tool.
pub fn det_tool(t: &ToolSchema) -> DetTool {
    DetTool {
        name: t.name.clone(),
        method: t.meta_str("method").map(String::from),
        path: t.meta_str("path").map(String::from),
        params: t.parameters.iter().map(|p| p.name.clone()).collect(),
        all_refs: Vec::new(),
        response_refs: Vec::new(),
        request_refs: Vec::new(),
        controller: t.meta_str("controller").map(String::from),
        request_type: t.meta_str("request_type").map(String::from),
        response_type: t.meta_str("response_type").map(String::from),
    }
}

/// A second tool of the same name replaces the first (as graph-tool-call registers them):
/// said once per name, so a merged list does not lose a tool silently.
fn warn_duplicate(file: &str, place: &str, name: &str) {
    crate::ingest::warn(format!(
        "{file}:{place}: duplicate tool name {}: this definition replaces the earlier one",
        crate::sanitize::quoted(name)
    ));
}

pub fn ingest_mcp(
    g: &mut LegacyGraph,
    file: &str,
    server: &McpServer,
) -> Result<usize, InputError> {
    let mut n = 0;
    for (i, t) in server.tools.iter().enumerate() {
        if let Some(tool) = mcp_tool(file, i, t, server.name.as_deref())? {
            if g.tools.contains_key(&tool.name) {
                warn_duplicate(file, &format!("/tools/{i}"), &tool.name);
            }
            g.add_tool(tool);
            n += 1;
        }
    }
    g.detect();
    Ok(n)
}

pub fn ingest_functions(
    g: &mut LegacyGraph,
    file: &str,
    items: &[Value],
) -> Result<usize, InputError> {
    let mut tools: Vec<ToolSchema> = Vec::new();
    for (i, t) in items.iter().enumerate() {
        if let Some(tool) = function_tool(file, i, t)? {
            if g.tools.contains_key(&tool.name) || tools.iter().any(|x| x.name == tool.name) {
                warn_duplicate(file, &format!("/{i}"), &tool.name);
            }
            tools.push(tool);
        }
    }
    let n = tools.len();
    g.add_tools(tools);
    g.detect();
    Ok(n)
}
