//! Server URLs: the spec's (OpenAPI 3 `servers`, Swagger 2.0 `schemes`/`host`/`basePath`)
//! and an operation's or path item's own server rows.

use serde_json::{Map, Value, json};

use super::{Ctx, s};
use crate::ingest::schema_hints::first_n;

/// Scheme (the first listed, else https), host and base path of a Swagger 2.0 spec with a host.
fn swagger_server(spec: &Value) -> Option<(&str, &str, &str)> {
    let host = s(spec.get("host")).filter(|h| !h.is_empty())?;
    let scheme = spec
        .get("schemes")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .and_then(Value::as_str)
        .unwrap_or("https");
    Some((scheme, host, s(spec.get("basePath")).unwrap_or("")))
}

/// Server URLs (variables set to their defaults) and descriptions of a spec: OpenAPI 3
/// `servers[].url`, Swagger 2.0 `schemes`/`host`/`basePath`.
pub(super) fn servers_of(spec: &Value, swagger: bool) -> Vec<(String, Option<String>)> {
    if swagger {
        // a Swagger 2.0 server needs a host; the base path loses its trailing slash
        let Some((scheme, host, base)) = swagger_server(spec) else {
            return Vec::new();
        };
        return vec![(
            format!("{scheme}://{host}{}", base.trim_end_matches('/')),
            None,
        )];
    }
    spec.get("servers")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|sv| {
                    let url = s(sv.get("url"))?;
                    // substitute server variables with their defaults
                    let mut u = url.to_string();
                    if let Some(vars) = sv.get("variables").and_then(Value::as_object) {
                        for (k, v) in vars {
                            if let Some(d) = v.get("default") {
                                let d = match d {
                                    Value::String(x) => x.clone(),
                                    o => o.to_string(),
                                };
                                u = u.replace(&format!("{{{k}}}"), &d);
                            }
                        }
                    }
                    Some((u, s(sv.get("description")).map(String::from)))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Server rows of an operation or path item (`source`, trimmed `url`, `raw_url`,
/// `description`; variables expanded from their defaults).
fn local_server_rows(servers: Option<&Value>, source: &str) -> Vec<Map<String, Value>> {
    let Some(Value::Array(list)) = servers else {
        return Vec::new();
    };
    let mut rows = Vec::new();
    for sv in list.iter().filter_map(Value::as_object) {
        let raw =
            crate::pytext::strip(sv.get("url").and_then(Value::as_str).unwrap_or("")).to_string();
        if raw.is_empty() {
            continue;
        }
        let mut url = raw.clone();
        let mut vars: Vec<Value> = Vec::new();
        if let Some(Value::Object(vs)) = sv.get("variables") {
            for (name, v) in vs {
                let Some(v) = v.as_object() else { continue };
                let mut row = Map::new();
                row.insert("name".into(), json!(name));
                if let Some(d) = v.get("default") {
                    let d = match d {
                        Value::String(x) => x.clone(),
                        o => crate::pytext::py_str(o),
                    };
                    if !d.is_empty() {
                        url = url.replace(&format!("{{{name}}}"), &d);
                    }
                    row.insert("default".into(), json!(d));
                }
                vars.push(Value::Object(row));
            }
        }
        let url = url.trim();
        let url = if url.chars().count() > 1 {
            url.trim_end_matches('/')
        } else {
            url
        };
        let mut row = Map::new();
        row.insert("source".into(), json!(source));
        row.insert("url".into(), json!(url));
        row.insert("raw_url".into(), json!(raw));
        let d = crate::pytext::strip(sv.get("description").and_then(Value::as_str).unwrap_or(""));
        if !d.is_empty() {
            row.insert("description".into(), json!(first_n(d, 300)));
        }
        if !vars.is_empty() {
            row.insert("variables".into(), Value::Array(vars));
        }
        rows.push(row);
    }
    rows
}

/// `openapi.server` and `metadata.base_url` of one operation: its own or its path item's
/// servers win over the spec's.
pub(super) struct ServerBlock {
    pub(super) server: Option<Map<String, Value>>,
    /// the operation's or path item's first server URL (else the caller takes the spec's)
    pub(super) base_url: Option<Value>,
}

impl ServerBlock {
    pub(super) fn of(ctx: &Ctx, op: &Value, item: &Value) -> ServerBlock {
        let local: Vec<Map<String, Value>> = if ctx.swagger {
            Vec::new()
        } else {
            let r = local_server_rows(op.get("servers"), "operation");
            if r.is_empty() {
                local_server_rows(item.get("servers"), "path")
            } else {
                r
            }
        };
        if let Some(first) = local.first() {
            let mut sv = first.clone();
            let base_url = sv.get("url").cloned();
            sv.insert(
                "servers".into(),
                Value::Array(local.iter().cloned().map(Value::Object).collect()),
            );
            return ServerBlock {
                server: Some(sv),
                base_url,
            };
        }
        ServerBlock {
            server: spec_server(ctx),
            base_url: None,
        }
    }
}

/// The spec's first server with the list of all of them (none when the spec has none).
fn spec_server(ctx: &Ctx) -> Option<Map<String, Value>> {
    let (u, d) = ctx.servers.first()?;
    let source = if ctx.swagger { "swagger2" } else { "spec" };
    let mut sv = Map::new();
    sv.insert("source".into(), json!(source));
    sv.insert("url".into(), json!(u));
    sv.insert("raw_url".into(), json!(u));
    if let Some(d) = d {
        sv.insert("description".into(), json!(d));
    }
    if ctx.swagger
        && let Some((scheme, host, base)) = swagger_server(ctx.spec)
    {
        sv.insert("scheme".into(), json!(scheme));
        sv.insert("host".into(), json!(host));
        sv.insert("base_path".into(), json!(base));
    }
    let all: Vec<Value> = ctx
        .servers
        .iter()
        .map(|(u, d)| {
            let mut m = Map::new();
            m.insert("source".into(), json!(source));
            m.insert("url".into(), json!(u));
            m.insert("raw_url".into(), json!(u));
            if let Some(d) = d {
                m.insert("description".into(), json!(d));
            }
            Value::Object(m)
        })
        .collect();
    sv.insert("servers".into(), Value::Array(all));
    Some(sv)
}
