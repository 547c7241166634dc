//! A Model Context Protocol server over stdio (newline-delimited JSON-RPC 2.0) exposing the
//! read-only evidence tools to model-facing clients.
//!
//! Lifecycle `initialize` (negotiating 2025-11-25; 2025-06-18 and 2025-03-26 accepted),
//! `notifications/initialized`, `ping`, `tools/list`, `tools/call`. Protocol errors are
//! JSON-RPC errors; execution errors are `isError` results; a malformed line gets an error
//! and the server keeps running.

use serde_json::{Value, json};
use std::io::{BufRead, Write};

#[cfg(test)]
use super::tools::Audience;
use super::tools::{Session, ToolError, input_schema, output_schema};

pub const PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];
pub const META_PREFIX: &str = "dev.toolscope";

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn result(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// The `tools/list` entries.
pub fn tool_list(session: &Session) -> Value {
    let tools: Vec<Value> = session
        .tools()
        .map(|c| {
            let description = format!(
                "{} Read-only evidence tool: returns facts with provenance and a mechanism_status, never an action recommendation (returns_action_recommendations: false). Visibility: {}. Limitations: {}.",
                c.purpose,
                c.visibility_scope,
                c.limitations.join("; ")
            );
            json!({
                "name": c.name,
                "title": c.title,
                "description": description,
                "inputSchema": input_schema(c),
                "outputSchema": output_schema(c),
                "annotations": {
                    "title": c.title,
                    "readOnlyHint": true,
                    "destructiveHint": false,
                    "idempotentHint": true,
                    "openWorldHint": false
                },
                "_meta": {
                    format!("{META_PREFIX}/read_only"): true,
                    format!("{META_PREFIX}/returns_action_recommendations"): false,
                    format!("{META_PREFIX}/visibility_scope"): c.visibility_scope,
                    format!("{META_PREFIX}/limitations"): c.limitations,
                }
            })
        })
        .collect();
    json!({ "tools": tools })
}

pub struct Server<'a> {
    pub session: Session<'a>,
    initialized: bool,
}

impl<'a> Server<'a> {
    pub fn new(session: Session<'a>) -> Self {
        Server {
            session,
            initialized: false,
        }
    }

    /// Handles one line; returns the response line, if any.
    pub fn handle_line(&mut self, line: &str) -> Option<Value> {
        let msg: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                return Some(error(
                    Value::Null,
                    PARSE_ERROR,
                    &format!("parse error: {e}"),
                ));
            }
        };
        if let Value::Array(batch) = &msg {
            // JSON-RPC batches were removed from MCP in 2025-06-18; answer each for older clients
            let out: Vec<Value> = batch.iter().filter_map(|m| self.handle(m)).collect();
            return (!out.is_empty()).then_some(Value::Array(out));
        }
        self.handle(&msg)
    }

    fn handle(&mut self, msg: &Value) -> Option<Value> {
        let Some(obj) = msg.as_object() else {
            return Some(error(
                Value::Null,
                INVALID_REQUEST,
                "invalid request: expected a JSON-RPC object",
            ));
        };
        let id = obj.get("id").cloned();
        let method = match obj.get("method").and_then(Value::as_str) {
            Some(m) => m,
            None => {
                // a response from the client (we send no requests) or garbage
                return id.map(|id| error(id, INVALID_REQUEST, "invalid request: missing method"));
            }
        };
        let params = obj.get("params").cloned().unwrap_or(Value::Null);
        let Some(id) = id else {
            // notifications: nothing to answer
            if method == "notifications/initialized" {
                self.initialized = true;
            }
            return None;
        };
        Some(match method {
            "initialize" => {
                let asked = params
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let version = if PROTOCOL_VERSIONS.contains(&asked) {
                    asked
                } else {
                    PROTOCOL_VERSIONS[0]
                };
                result(
                    id,
                    json!({
                        "protocolVersion": version,
                        "capabilities": {"tools": {"listChanged": false}},
                        "serverInfo": {"name": "toolscope", "title": "toolscope evidence tools", "version": env!("CARGO_PKG_VERSION")},
                        "instructions": "Read-only evidence about how a tool-retrieval engine (graphify-0.47) ranked tools for a query: explain_metric decomposes a score, trace_event/trace_entity show how it came about, compare_bounded_counterfactual changes exactly one knob. Results are facts with provenance and mechanism_status; none is a recommendation."
                    }),
                )
            }
            "ping" => result(id, json!({})),
            "tools/list" => result(id, tool_list(&self.session)),
            "tools/call" => self.call(id, &params),
            "resources/list" => result(id, json!({"resources": []})),
            "prompts/list" => result(id, json!({"prompts": []})),
            _ => error(id, METHOD_NOT_FOUND, &format!("method not found: {method}")),
        })
    }

    fn call(&mut self, id: Value, params: &Value) -> Value {
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return error(id, INVALID_PARAMS, "tools/call needs params.name");
        };
        let args = params.get("arguments").cloned().unwrap_or(Value::Null);
        match self.session.call(name, &args) {
            Ok(structured) => {
                let text = crate::jsonout::to_compact_safe(&structured);
                result(
                    id,
                    json!({"content": [{"type": "text", "text": text}], "structuredContent": structured, "isError": false}),
                )
            }
            Err(ToolError::UnknownTool(t)) => {
                error(id, INVALID_PARAMS, &format!("unknown tool: {t}"))
            }
            Err(ToolError::InvalidArguments(m)) => error(
                id,
                INVALID_PARAMS,
                &format!("invalid arguments for {name}: {m}"),
            ),
            Err(ToolError::Execution(m)) => result(
                id,
                json!({"content": [{"type": "text", "text": m}], "isError": true}),
            ),
        }
    }

    /// Serves until end of input. Output is flushed after every message.
    pub fn serve(&mut self, input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
        for line in input.lines() {
            let line = line?;
            if line.trim().is_empty() {
                continue;
            }
            if let Some(resp) = self.handle_line(&line) {
                let s = crate::jsonout::to_compact_safe(&resp);
                output.write_all(s.as_bytes())?;
                output.write_all(b"\n")?;
                output.flush()?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Engine;

    fn server_run(engine: &Engine, lines: &[&str]) -> Vec<Value> {
        let mut s = Server::new(Session::new(engine, Audience::Model));
        lines.iter().filter_map(|l| s.handle_line(l)).collect()
    }

    #[test]
    fn lifecycle_and_errors() {
        let engine = Engine::new(crate::demo::load_demo().unwrap());
        let out = server_run(
            &engine,
            &[
                r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
                r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"lookup_recorded_run","arguments":{"query":"refund approval"}}}"#,
                "{not json",
                r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope","arguments":{}}}"#,
                r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"describe_metric","arguments":{"metric_id":"nope"}}}"#,
                r#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#,
                r#"{"jsonrpc":"2.0","id":7,"method":"no/such"}"#,
            ],
        );
        assert_eq!(out[0]["result"]["protocolVersion"], "2025-06-18");
        let tools = out[1]["result"]["tools"].as_array().unwrap();
        assert_eq!(tools.len(), 8);
        assert_eq!(tools[0]["annotations"]["readOnlyHint"], true);
        assert_eq!(tools[0]["annotations"]["openWorldHint"], false);
        assert_eq!(
            tools[0]["_meta"]["dev.toolscope/returns_action_recommendations"],
            false
        );
        assert_eq!(out[2]["result"]["isError"], false);
        assert_eq!(out[2]["result"]["structuredContent"]["read_only"], true);
        assert_eq!(out[3]["error"]["code"], PARSE_ERROR);
        assert_eq!(out[4]["error"]["code"], INVALID_PARAMS);
        assert_eq!(out[5]["result"]["isError"], true);
        assert_eq!(out[6]["result"], json!({}));
        assert_eq!(out[7]["error"]["code"], METHOD_NOT_FOUND);
    }
}
