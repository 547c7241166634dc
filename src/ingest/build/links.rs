//! OpenAPI response links (spec §2.4.6): output promotion onto the link owner and
//! consumer → producer edges.

use rustc_hash::FxHashMap;
use serde_json::{Map, Value, json};

use super::contracts::merge_edges;
use crate::ingest::schema::{OutGraph, ToolSchema};

fn links(t: &ToolSchema) -> &[Value] {
    t.metadata
        .get("api_contract")
        .and_then(|c| c.get("links"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

fn response_params(l: &Value) -> Vec<&Value> {
    l.get("parameters")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter(|p| {
                    matches!(
                        p.get("source").and_then(Value::as_str),
                        Some("response_body") | Some("response_header")
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Adds produce rows for link outputs; returns the `openapi_link_signals` counters.
pub fn promote_outputs(tools: &mut [ToolSchema]) -> Value {
    // each tool on its own (on every core), then the counts summed
    let counts = crate::par::map_mut(tools, promote_tool_outputs);
    let (seen, added, skipped) = counts
        .iter()
        .fold((0, 0, 0), |(s, a, k), c| (s + c.0, a + c.1, k + c.2));
    json!({"links_seen": seen, "produces_added": added, "skipped_no_response_source": skipped})
}

/// [`promote_outputs`] for one tool: how many links it has, how many rows they added and
/// how many links were skipped for want of a response source.
fn promote_tool_outputs(t: &mut ToolSchema) -> (usize, usize, usize) {
    let (mut seen, mut added, mut skipped) = (0, 0, 0);
    let ls: Vec<Value> = links(t).to_vec();
    for l in &ls {
        seen += 1;
        if l.get("success").and_then(Value::as_bool) == Some(false) {
            continue;
        }
        let rp = response_params(l);
        if rp.is_empty() {
            skipped += 1;
            continue;
        }
        for p in rp {
            let Some(field) = p.get("field_name").and_then(Value::as_str) else {
                continue;
            };
            let jp = match p.get("json_path").and_then(Value::as_str) {
                Some(j) => j.to_string(),
                None => match p.get("header").and_then(Value::as_str) {
                    Some(h) if !h.is_empty() => format!("$.headers.{h}"),
                    _ => continue,
                },
            };
            // the promoted rows are compact text: a tree again to be extended
            super::contracts::thaw_member(&mut t.metadata, "produces");
            let produces = t.metadata.entry("produces").or_insert_with(|| json!([]));
            let Some(rows) = produces.as_array_mut() else {
                continue;
            };
            let exists = rows.iter().any(|r| {
                r.get("field_name").and_then(Value::as_str) == Some(field)
                    && r.get("json_path").and_then(Value::as_str) == Some(jp.as_str())
            });
            if exists {
                continue;
            }
            let mut row = Map::new();
            row.insert("field_name".into(), json!(field));
            row.insert("json_path".into(), json!(jp));
            row.insert("field_type".into(), json!("string"));
            row.insert("required".into(), json!(false));
            row.insert("kind".into(), json!("data"));
            row.insert("search_signal".into(), json!(false));
            row.insert("contract_source".into(), json!("openapi_link"));
            row.insert("openapi_link_name".into(), l["name"].clone());
            row.insert(
                "openapi_link_target_operation_id".into(),
                l.get("operation_id").cloned().unwrap_or(Value::Null),
            );
            row.insert(
                "openapi_link_target_operation_ref".into(),
                l.get("operation_ref").cloned().unwrap_or(Value::Null),
            );
            row.insert(
                "openapi_link_source".into(),
                p.get("source").cloned().unwrap_or(Value::Null),
            );
            row.insert("source_field_name".into(), json!(source_field(p, &jp)));
            // the body root itself has no alias
            if p.get("source").and_then(Value::as_str) == Some("response_body") && jp != "$" {
                row.insert(
                    "value_path_aliases".into(),
                    json!([format!("$.body{}", &jp[1..])]),
                );
            }
            rows.push(Value::Object(row));
            added += 1;
        }
    }
    if added > 0 {
        // the data-flow edges read the rows afresh
        t.flow = None;
    }
    (seen, added, skipped)
}

/// The field a link parameter's value is read from: the header's name, or the last step of
/// its JSON path (`$.data.id` -> `id`).
fn source_field(p: &Value, json_path: &str) -> String {
    if p.get("json_path").is_none()
        && let Some(h) = p.get("header").and_then(Value::as_str)
    {
        return h.to_string();
    }
    // the root (`$`) names no field
    let rest = json_path.strip_prefix('$').unwrap_or(json_path);
    let last = rest.rsplit('.').next().unwrap_or("");
    last.split('[').next().unwrap_or("").to_string()
}

fn unescape_ptr(s: &str) -> String {
    s.replace("~1", "/").replace("~0", "~")
}

/// Where a link can point: the tools by operation id (several when ids repeat), by method
/// and path (for an `operation_ref`) and by name.
struct Targets<'a> {
    by_id: FxHashMap<&'a str, Vec<usize>>,
    by_op: FxHashMap<(String, String), usize>,
    names: FxHashMap<&'a str, usize>,
}

impl<'a> Targets<'a> {
    /// The three indexes over `tools`.
    fn new(tools: &'a [ToolSchema]) -> Targets<'a> {
        let mut by_id: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
        let mut by_op: FxHashMap<(String, String), usize> = FxHashMap::default();
        for (i, t) in tools.iter().enumerate() {
            if let Some(id) = t
                .metadata
                .get("openapi")
                .and_then(|o| o.get("operation_id"))
                .and_then(Value::as_str)
            {
                by_id.entry(id).or_default().push(i);
            }
            if let (Some(m), Some(p)) = (t.meta_str("method"), t.meta_str("path")) {
                by_op.insert((m.to_string(), p.to_string()), i);
            }
        }
        let names: FxHashMap<&str, usize> = tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.as_str(), i))
            .collect();
        Targets {
            by_id,
            by_op,
            names,
        }
    }

    /// A link's target (the consumer): the one tool with its `operation_id` (a tool of that
    /// name when no tool has it, none when several do), else the tool at its
    /// `operation_ref`'s path and method.
    fn resolve(&self, l: &Value) -> Option<usize> {
        l.get("operation_id")
            .and_then(Value::as_str)
            .and_then(|id| match self.by_id.get(id) {
                Some(v) if v.len() == 1 => Some(v[0]),
                Some(_) => None,
                None => self.names.get(id).copied(),
            })
            .or_else(|| {
                let r = l.get("operation_ref").and_then(Value::as_str)?;
                let frag = r.split_once('#').map_or(r, |x| x.1);
                let rest = frag.strip_prefix("/paths/")?;
                let (p, m) = rest.rsplit_once('/')?;
                self.by_op.get(&(m.to_string(), unescape_ptr(p))).copied()
            })
    }
}

/// Link edges: link target (consumer) → link owner (producer).
pub fn link_edges(tools: &[ToolSchema], graph: &mut OutGraph) -> Value {
    // the targets are indexed when the first link is met (most specs have none)
    let mut targets: Option<Targets> = None;
    let (mut added, mut merged, mut unresolved, mut selfs) = (0, 0, 0, 0);
    let mut by_rel: Map<String, Value> = Map::new();
    // the tools with links, found on every core
    let with_links: Vec<usize> = crate::par::map(tools, |t| !links(t).is_empty())
        .into_iter()
        .enumerate()
        .filter_map(|(i, has)| has.then_some(i))
        .collect();
    for pi in with_links {
        let prod = &tools[pi];
        for l in links(prod) {
            let targets = targets.get_or_insert_with(|| Targets::new(tools));
            let Some(ci) = targets.resolve(l) else {
                unresolved += 1;
                continue;
            };
            if ci == pi {
                selfs += 1;
                continue;
            }
            let cons = &tools[ci];
            let rp = response_params(l);
            let relation = if rp.is_empty() {
                "precedes"
            } else {
                "requires"
            };
            let name = l.get("name").and_then(Value::as_str).unwrap_or("");
            let params: Vec<&Value> = l
                .get("parameters")
                .and_then(Value::as_array)
                .map(|a| a.iter().collect())
                .unwrap_or_default();
            let ev = link_evidence(name, prod, cons, &params);
            // the first response parameter, else the first parameter, names the flow
            let first = rp.first().or(params.first()).copied();
            let df = data_flow(l, name, prod, cons, first, &params);
            let a = link_attrs(relation, ev, df);
            match graph
                .edge(&cons.name, &prod.name)
                .map(std::borrow::Cow::into_owned)
            {
                Some(old) => {
                    let m = merge_edges(&old, &a, relation == "requires");
                    graph.replace_edge(&cons.name, &prod.name, m);
                    merged += 1;
                    // a merged link's relation is counted too (with nothing added)
                    by_rel.entry(relation).or_insert(json!(0));
                }
                None => {
                    graph.add_edge(&cons.name, &prod.name, a);
                    added += 1;
                    let c = by_rel.get(relation).and_then(Value::as_u64).unwrap_or(0);
                    by_rel.insert(relation.into(), json!(c + 1));
                }
            }
        }
    }
    json!({"added": added, "merged": merged, "skipped_unresolved": unresolved, "skipped_self": selfs, "by_relation": by_rel})
}

/// A link edge's evidence: `openapi link NAME: PRODUCER -> CONSUMER`, then each parameter
/// as `parameter=expression` (or its value).
fn link_evidence(name: &str, prod: &ToolSchema, cons: &ToolSchema, params: &[&Value]) -> String {
    let mut ev = format!("openapi link {name}: {} -> {}", prod.name, cons.name);
    if !params.is_empty() {
        let parts: Vec<String> = params
            .iter()
            .map(|p| {
                let f = p.get("parameter").and_then(Value::as_str).unwrap_or("");
                let e = match p.get("expression") {
                    Some(Value::String(e)) => e.clone(),
                    _ => p
                        .get("value")
                        .map(crate::pytext::py_str)
                        .unwrap_or_default(),
                };
                format!("{f}={e}")
            })
            .collect();
        ev.push_str(": ");
        ev.push_str(&parts.join(", "));
    }
    ev
}

/// A link edge's `data_flow`: the operations, the link and its status, where the value
/// comes from and goes to (by `first`, the parameter that names the flow; empty without
/// one) and every parameter.
fn data_flow(
    l: &Value,
    name: &str,
    prod: &ToolSchema,
    cons: &ToolSchema,
    first: Option<&Value>,
    params: &[&Value],
) -> Value {
    let mut df = Map::new();
    df.insert("from_operation".into(), json!(prod.name));
    df.insert("to_operation".into(), json!(cons.name));
    df.insert("link_name".into(), json!(name));
    df.insert(
        "source_status".into(),
        l.get("status").cloned().unwrap_or(Value::Null),
    );
    if let Some(p) = first {
        let jp = p
            .get("json_path")
            .cloned()
            .or_else(|| {
                p.get("header")
                    .and_then(Value::as_str)
                    .filter(|h| !h.is_empty())
                    .map(|h| json!(format!("$.headers.{h}")))
            })
            .unwrap_or_else(|| json!(""));
        let field = source_field(p, jp.as_str().unwrap_or(""));
        df.insert("from_path".into(), jp);
        df.insert("from_field".into(), json!(field));
        df.insert("to_field".into(), p["parameter"].clone());
    } else {
        for k in ["from_path", "from_field", "to_field"] {
            df.insert(k.into(), json!(""));
        }
    }
    df.insert(
        "parameters".into(),
        Value::Array(params.iter().map(|p| (*p).clone()).collect()),
    );
    Value::Object(df)
}

/// A link edge's attributes: `requires` (data, 0.95) when the link reads the response,
/// else `precedes` (semantic, 0.9), extracted from `openapi_link`.
fn link_attrs(relation: &str, ev: String, df: Value) -> Map<String, Value> {
    let mut a = Map::new();
    a.insert("relation".into(), json!(relation));
    a.insert("confidence".into(), json!("EXTRACTED"));
    a.insert(
        "conf_score".into(),
        json!(if relation == "requires" { 0.95 } else { 0.9 }),
    );
    a.insert("layer".into(), json!(1));
    a.insert("evidence".into(), json!(ev));
    a.insert(
        "kind".into(),
        json!(if relation == "requires" {
            "data"
        } else {
            "semantic"
        }),
    );
    a.insert("evidence_sources".into(), json!(["openapi_link"]));
    a.insert("data_flow".into(), df);
    a.insert("is_manual".into(), json!(false));
    a.insert("deleted_by_user".into(), json!(false));
    a
}
