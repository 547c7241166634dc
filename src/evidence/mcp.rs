//! A Model Context Protocol server over stdio (newline-delimited JSON-RPC 2.0) exposing the
//! read-only evidence tools to model-facing clients.
//!
//! Lifecycle `initialize` (negotiating 2025-11-25; 2025-06-18 and 2025-03-26 accepted; the
//! version is kept for the session), `notifications/initialized`, `ping`, `tools/list`,
//! `tools/call`. Until `initialize` only `ping` is served. Protocol errors are JSON-RPC
//! errors; execution errors are `isError` results, and so are invalid tool arguments under
//! 2025-11-25 (SEP-1303; older versions get -32602). Every line is bounded
//! ([`limits::RECORD_BYTES`], [`limits::MESSAGE_NODES`]); a line that is too long, not
//! UTF-8, not JSON or not a valid request gets one error and the server keeps running.

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value, json};
use std::io::{BufRead, Write};

use super::knobs::clip;
use super::tools::{Session, ToolError, input_schema, kind, output_schema};
use crate::limits::{self, Line, Lines};

pub const PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];
pub const META_PREFIX: &str = "dev.toolscope";

/// The versions that answer invalid tool arguments as a tool execution error (an `isError`
/// result the model sees), per SEP-1303; the older ones answer -32602.
const VALIDATION_AS_TOOL_ERROR: &[&str] = &["2025-11-25"];

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

fn tool_error(id: Value, message: &str) -> Value {
    result(
        id,
        json!({"content": [{"type": "text", "text": message}], "isError": true}),
    )
}

/// A JSON value parsed with a count of its values (keys included) against a limit and
/// refusing a repeated object key, which `serde_json::Value` would resolve silently to the
/// last value.
struct Strict<'c> {
    nodes: &'c mut u64,
    max: u64,
}

impl Strict<'_> {
    fn bump<E: de::Error>(&mut self) -> Result<(), E> {
        *self.nodes += 1;
        if *self.nodes > self.max {
            return Err(E::custom(format!(
                "the message has more than {} JSON values: exceeds the {} limit on {} ({} raises it)",
                self.max,
                self.max,
                limits::MESSAGE_NODES.what,
                limits::MESSAGE_NODES.env
            )));
        }
        Ok(())
    }

    fn child(&mut self) -> Strict<'_> {
        Strict {
            nodes: &mut *self.nodes,
            max: self.max,
        }
    }
}

impl<'de> DeserializeSeed<'de> for Strict<'_> {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E: de::Error>(mut self, v: bool) -> Result<Value, E> {
        self.bump()?;
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(mut self, v: i64) -> Result<Value, E> {
        self.bump()?;
        Ok(Value::from(v))
    }
    fn visit_u64<E: de::Error>(mut self, v: u64) -> Result<Value, E> {
        self.bump()?;
        Ok(Value::from(v))
    }
    fn visit_f64<E: de::Error>(mut self, v: f64) -> Result<Value, E> {
        self.bump()?;
        serde_json::Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("a number that is not finite"))
    }
    fn visit_str<E: de::Error>(mut self, v: &str) -> Result<Value, E> {
        self.bump()?;
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E: de::Error>(mut self, v: String) -> Result<Value, E> {
        self.bump()?;
        Ok(Value::String(v))
    }
    fn visit_unit<E: de::Error>(mut self) -> Result<Value, E> {
        self.bump()?;
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<Value, A::Error> {
        self.bump()?;
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(self.child())? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Value, A::Error> {
        self.bump()?;
        let mut out = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            self.bump()?;
            if out.contains_key(&k) {
                return Err(de::Error::custom(format!(
                    "duplicate key {:?} (a key may appear once per object)",
                    clip(&k)
                )));
            }
            let v = map.next_value_seed(self.child())?;
            out.insert(k, v);
        }
        Ok(Value::Object(out))
    }
}

/// Parses one message: `Err((code, message))` is a parse error (-32700) for text that is
/// not JSON, an invalid request (-32600) for a repeated key or too many values.
fn parse_message(text: &str, max_nodes: u64) -> Result<Value, (i64, String)> {
    let mut nodes = 0;
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = Strict {
        nodes: &mut nodes,
        max: max_nodes,
    }
    .deserialize(&mut de)
    .and_then(|v| de.end().map(|()| v));
    parsed.map_err(|e| match e.classify() {
        serde_json::error::Category::Data => (INVALID_REQUEST, format!("invalid request: {e}")),
        _ => (PARSE_ERROR, format!("parse error: {e}")),
    })
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
    /// The protocol version `initialize` negotiated; `None` before it.
    protocol: Option<&'static str>,
    /// Bytes per line ([`limits::RECORD_BYTES`] unless a test passes its own).
    max_line: u64,
    /// JSON values per message ([`limits::MESSAGE_NODES`] unless a test passes its own).
    max_nodes: u64,
}

impl<'a> Server<'a> {
    pub fn new(session: Session<'a>) -> Self {
        Self::with_limits(
            session,
            limits::RECORD_BYTES.get(),
            limits::MESSAGE_NODES.get(),
        )
    }

    /// A server with explicit line and value limits (tests; the environment overrides are
    /// process-wide).
    pub fn with_limits(session: Session<'a>, max_line: u64, max_nodes: u64) -> Self {
        Server {
            session,
            protocol: None,
            max_line,
            max_nodes,
        }
    }

    /// The negotiated protocol version, once `initialize` was answered.
    pub fn protocol(&self) -> Option<&'static str> {
        self.protocol
    }

    /// Handles one line of text; returns the response, if any.
    pub fn handle_line(&mut self, line: &str) -> Option<Value> {
        match parse_message(line, self.max_nodes) {
            Ok(msg) => self.handle_message(&msg),
            Err((code, m)) => Some(error(Value::Null, code, &m)),
        }
    }

    /// Handles one line as read (bytes without the newline); returns the response, if any.
    pub fn handle_bytes(&mut self, line: Vec<u8>) -> Option<Value> {
        let text = match String::from_utf8(line) {
            Ok(t) => t,
            Err(e) => {
                return Some(error(
                    Value::Null,
                    PARSE_ERROR,
                    &format!(
                        "parse error: the message is not valid UTF-8 (at byte {})",
                        e.utf8_error().valid_up_to()
                    ),
                ));
            }
        };
        let parsed = parse_message(&text, self.max_nodes);
        drop(text);
        match parsed {
            Ok(msg) => self.handle_message(&msg),
            Err((code, m)) => Some(error(Value::Null, code, &m)),
        }
    }

    /// The answer to a line longer than the limit (its bytes were skipped, not kept).
    fn too_long(&self, bytes: u64) -> Value {
        error(
            Value::Null,
            INVALID_REQUEST,
            &format!(
                "invalid request: the message is {} long: exceeds the {} limit on {} ({} raises it)",
                limits::human_bytes(bytes),
                limits::human_bytes(self.max_line),
                limits::RECORD_BYTES.what,
                limits::RECORD_BYTES.env
            ),
        )
    }

    fn handle_message(&mut self, msg: &Value) -> Option<Value> {
        match msg {
            // JSON-RPC batches were removed from MCP in 2025-06-18; answer each for older clients
            Value::Array(batch) if batch.is_empty() => Some(error(
                Value::Null,
                INVALID_REQUEST,
                "invalid request: an empty batch",
            )),
            Value::Array(batch) => {
                let out: Vec<Value> = batch.iter().filter_map(|m| self.handle(m, true)).collect();
                (!out.is_empty()).then_some(Value::Array(out))
            }
            _ => self.handle(msg, false),
        }
    }

    fn handle(&mut self, msg: &Value, in_batch: bool) -> Option<Value> {
        let Some(obj) = msg.as_object() else {
            return Some(error(
                Value::Null,
                INVALID_REQUEST,
                "invalid request: expected a JSON-RPC object",
            ));
        };
        let id = match obj.get("id") {
            None => None,
            Some(v @ Value::String(s)) => {
                if let Err(e) = limits::check_arg("id", s) {
                    return Some(error(
                        Value::Null,
                        INVALID_REQUEST,
                        &format!("invalid request: {e}"),
                    ));
                }
                Some(v.clone())
            }
            Some(v @ Value::Number(n)) if !n.is_f64() => Some(v.clone()),
            Some(v) => {
                return Some(error(
                    Value::Null,
                    INVALID_REQUEST,
                    &format!(
                        "invalid request: id must be a string or an integer, not {}",
                        kind(v)
                    ),
                ));
            }
        };
        let reply_id = || id.clone().unwrap_or(Value::Null);
        if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Some(error(
                reply_id(),
                INVALID_REQUEST,
                &format!(
                    "invalid request: \"jsonrpc\" must be the string \"2.0\", not {}",
                    obj.get("jsonrpc")
                        .map(|v| clip(&v.to_string()))
                        .unwrap_or_else(|| "missing".into())
                ),
            ));
        }
        let method = match obj.get("method") {
            Some(Value::String(m)) => m.as_str(),
            Some(v) => {
                return Some(error(
                    reply_id(),
                    INVALID_REQUEST,
                    &format!("invalid request: method must be a string, not {}", kind(v)),
                ));
            }
            None if obj.contains_key("result") || obj.contains_key("error") => {
                // a response: this server sends no requests
                return id.map(|id| {
                    error(
                        id,
                        INVALID_REQUEST,
                        "invalid request: a response, but this server sends no requests",
                    )
                });
            }
            None => {
                return Some(error(
                    reply_id(),
                    INVALID_REQUEST,
                    "invalid request: missing method",
                ));
            }
        };
        let params = obj.get("params");
        let Some(id) = id else {
            // notifications are never answered
            return None;
        };
        match method {
            "initialize" => return Some(self.initialize(id, params, in_batch)),
            "ping" => return Some(result(id, json!({}))),
            _ => {}
        }
        if self.protocol.is_none() {
            return Some(error(
                id,
                INVALID_REQUEST,
                &format!(
                    "invalid request: {:?} before initialize: the MCP lifecycle allows only ping until initialize",
                    clip(method)
                ),
            ));
        }
        Some(match method {
            "tools/list" => result(id, tool_list(&self.session)),
            "tools/call" => self.call(id, params),
            _ => error(
                id,
                METHOD_NOT_FOUND,
                &format!(
                    "method not found: {:?} (served: initialize, ping, tools/list, tools/call)",
                    clip(method)
                ),
            ),
        })
    }

    fn initialize(&mut self, id: Value, params: Option<&Value>, in_batch: bool) -> Value {
        if in_batch {
            return error(
                id,
                INVALID_REQUEST,
                "invalid request: initialize must not be part of a batch",
            );
        }
        if let Some(v) = self.protocol {
            return error(
                id,
                INVALID_REQUEST,
                &format!(
                    "invalid request: already initialized (protocol {v}); initialize is sent once per session"
                ),
            );
        }
        let Some(asked) = params
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str)
        else {
            return error(
                id,
                INVALID_PARAMS,
                &format!(
                    "initialize needs params.protocolVersion, a string (supported: {})",
                    PROTOCOL_VERSIONS.join(", ")
                ),
            );
        };
        // an unsupported version is answered with the latest one (the client may disconnect)
        let version = PROTOCOL_VERSIONS
            .iter()
            .copied()
            .find(|v| *v == asked)
            .unwrap_or(PROTOCOL_VERSIONS[0]);
        self.protocol = Some(version);
        result(
            id,
            json!({
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": false}},
                "serverInfo": {"name": "toolscope", "title": "toolscope evidence tools", "version": env!("CARGO_PKG_VERSION")},
                "instructions": "Read-only evidence about how a tool-retrieval engine (graphify-0.47) ranked tools for a query: explain_metric decomposes a score, trace_event/trace_entity show how it came about, compare_bounded_counterfactual changes exactly one knob, explain_rank_gap accounts for where a named tool stands in one run. Results are facts with provenance and mechanism_status; none is a recommendation."
            }),
        )
    }

    fn call(&mut self, id: Value, params: Option<&Value>) -> Value {
        let Some(p) = params.and_then(Value::as_object) else {
            return error(
                id,
                INVALID_PARAMS,
                "tools/call needs params, an object with name and arguments",
            );
        };
        let Some(name) = p.get("name").and_then(Value::as_str) else {
            return error(
                id,
                INVALID_PARAMS,
                "tools/call needs params.name, a tool name from tools/list",
            );
        };
        let args = match p.get("arguments") {
            None => &Value::Null,
            Some(v @ (Value::Null | Value::Object(_))) => v,
            Some(v) => {
                return error(
                    id,
                    INVALID_PARAMS,
                    &format!(
                        "tools/call params.arguments must be an object, not {}",
                        kind(v)
                    ),
                );
            }
        };
        match self.session.call(name, args) {
            Ok(structured) => {
                let text = crate::jsonout::to_compact_safe(&structured);
                result(
                    id,
                    json!({"content": [{"type": "text", "text": text}], "structuredContent": structured, "isError": false}),
                )
            }
            Err(ToolError::UnknownTool(t)) => {
                let tools: Vec<&str> = self.session.tools().map(|c| c.name).collect();
                error(
                    id,
                    INVALID_PARAMS,
                    &format!("unknown tool: {t:?} (tools: {})", tools.join(", ")),
                )
            }
            Err(ToolError::InvalidArguments(m)) => {
                let m = format!("invalid arguments for {name}: {m}");
                if self
                    .protocol
                    .is_some_and(|v| VALIDATION_AS_TOOL_ERROR.contains(&v))
                {
                    tool_error(id, &m)
                } else {
                    error(id, INVALID_PARAMS, &m)
                }
            }
            Err(ToolError::Execution(m)) => tool_error(id, &m),
        }
    }

    /// Serves until end of input. Output is flushed after every message. Lines are read
    /// with [`Lines`]: one over the limit is skipped (never held whole) and answered with an
    /// error; so are lines that are not UTF-8 or not JSON.
    pub fn serve(&mut self, input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
        let mut lines = Lines::with_max(input, self.max_line);
        while let Some(line) = lines.next_line()? {
            let resp = match line {
                Line::TooLong { bytes } => Some(self.too_long(bytes)),
                Line::Text(b) if b.iter().all(u8::is_ascii_whitespace) => continue,
                Line::Text(b) => self.handle_bytes(b),
            };
            if let Some(resp) = resp {
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
    use crate::evidence::tools::{Audience, LAB_MIN_CASES, LAB_SWEEP_BUDGET};
    use crate::lab::suite::{Case, Suite};

    fn init(version: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"t","version":"0"}}}}}}"#
        )
    }

    fn call(id: i64, tool: &str, args: Value) -> String {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": args}}).to_string()
    }

    /// Runs `input` through `serve`; returns the response lines.
    fn serve_bytes(server: &mut Server, input: &[u8]) -> Vec<Value> {
        let mut out = Vec::new();
        server
            .serve(std::io::BufReader::with_capacity(16, input), &mut out)
            .unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn suite(queries: &[&str]) -> Suite {
        Suite {
            name: "t".into(),
            cases: queries
                .iter()
                .enumerate()
                .map(|(i, q)| Case {
                    id: format!("c{i}"),
                    query: q.to_string(),
                    expected: vec!["approveRefund".into()],
                    top_k: None,
                    knobs: Default::default(),
                    learning_suggestions: None,
                    extra: Value::Null,
                })
                .collect(),
        }
    }

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
        assert_eq!(tools.len(), 9);
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
        // an unknown metric is an invalid argument: -32602 under 2025-06-18
        assert_eq!(out[5]["error"]["code"], INVALID_PARAMS, "{}", out[5]);
        assert_eq!(out[6]["result"], json!({}));
        assert_eq!(out[7]["error"]["code"], METHOD_NOT_FOUND);
    }

    #[test]
    fn a_line_that_is_not_utf8_is_a_parse_error_and_the_session_continues() {
        let engine = Engine::new(crate::demo::load_demo().unwrap());
        let mut s = Server::new(Session::new(&engine, Audience::Model));
        let input = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\xff\xfe\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{\"x\":\"caf\xe9\"}}\n{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n";
        let out = serve_bytes(&mut s, input);
        assert_eq!(out.len(), 4, "{out:?}");
        assert_eq!(out[0]["id"], 1);
        assert_eq!(out[0]["result"], json!({}));
        for bad in &out[1..3] {
            assert_eq!(bad["error"]["code"], PARSE_ERROR);
            assert_eq!(bad["id"], Value::Null);
            assert!(
                bad["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("not valid UTF-8")
            );
        }
        assert_eq!(out[3]["id"], 3);
        assert_eq!(out[3]["result"], json!({}));
    }

    #[test]
    fn a_line_over_the_limit_is_skipped_and_answered() {
        let engine = Engine::new(crate::demo::load_demo().unwrap());
        let mut s = Server::with_limits(Session::new(&engine, Audience::Model), 100, 1000);
        let long = format!(
            r#"{{"jsonrpc":"2.0","id":9,"method":"ping","params":{{"pad":"{}"}}}}"#,
            "x".repeat(5000)
        );
        let input = format!(
            "{long}\n{}\n{}",
            r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
            "y".repeat(300)
        );
        let out = serve_bytes(&mut s, input.as_bytes());
        assert_eq!(out.len(), 3, "{out:?}");
        assert_eq!(out[0]["error"]["code"], INVALID_REQUEST);
        assert_eq!(out[0]["id"], Value::Null);
        let m = out[0]["error"]["message"].as_str().unwrap();
        assert!(
            m.contains("exceeds the 100 bytes limit on bytes per record")
                && m.contains("TOOLSCOPE_MAX_RECORD_BYTES"),
            "{m}"
        );
        assert_eq!(out[1]["id"], 2);
        assert_eq!(out[1]["result"], json!({}));
        // an unterminated long line at the end of input: one error, then the end
        assert_eq!(out[2]["error"]["code"], INVALID_REQUEST);
        // too many JSON values in one message
        let many = format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"ping","params":{{"a":[{}]}}}}"#,
            vec!["[]"; 2000].join(",")
        );
        let out = s.handle_line(&many).unwrap();
        assert_eq!(out["error"]["code"], INVALID_REQUEST);
        assert!(
            out["error"]["message"]
                .as_str()
                .unwrap()
                .contains("JSON values per MCP message"),
            "{out}"
        );
    }

    #[test]
    fn a_50_mb_query_is_refused_before_any_work() {
        let engine = Engine::new(crate::demo::load_demo().unwrap());
        let mut session = Session::new(&engine, Audience::Model);
        session.budget = Some(5);
        let mut s = Server::new(session);
        s.handle_line(&init("2025-11-25")).unwrap();
        let mut line = String::with_capacity(50 << 20 | 200);
        line.push_str(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup_recorded_run","arguments":{"query":""#);
        for _ in 0..(50 << 20) / 16 {
            line.push_str("refund approval ");
        }
        line.push_str(r#""}}}"#);
        let t = std::time::Instant::now();
        let out = s.handle_bytes(line.into_bytes()).unwrap();
        let took = t.elapsed();
        assert_eq!(out["result"]["isError"], true, "{out}");
        let m = out["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            m.contains("query: the query is 50 MiB long")
                && m.contains("limit on query bytes (TOOLSCOPE_MAX_QUERY_BYTES raises it)"),
            "{m}"
        );
        // no retrieval ran: the refusal is a size check (the unbounded run took 19 s)
        assert!(took.as_secs() < 10, "{took:?}");
        assert!(!out.to_string().contains("rows"));
        assert_eq!(s.session.calls, 1, "a refused call still counts");
    }

    #[test]
    fn strict_json_rpc() {
        let engine = Engine::new(crate::demo::load_demo().unwrap());
        let mut s = Server::new(Session::new(&engine, Audience::Model));
        s.handle_line(&init("2025-11-25")).unwrap();
        let invalid = |s: &mut Server, line: &str, id: Value| {
            let out = s
                .handle_line(line)
                .unwrap_or_else(|| panic!("no reply to {line}"));
            assert_eq!(out["error"]["code"], INVALID_REQUEST, "{line}: {out}");
            assert_eq!(out["id"], id, "{line}: {out}");
            out["error"]["message"].as_str().unwrap().to_string()
        };
        let m = invalid(
            &mut s,
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
            json!(1),
        );
        assert!(m.contains(r#""jsonrpc" must be the string "2.0""#), "{m}");
        invalid(&mut s, r#"{"id":2,"method":"ping"}"#, json!(2));
        invalid(
            &mut s,
            r#"{"jsonrpc":2.0,"id":3,"method":"ping"}"#,
            json!(3),
        );
        invalid(&mut s, r#"{"jsonrpc":"1.0","method":"ping"}"#, Value::Null);
        for id in [r#"{"a":1}"#, "[1]", "1.5", "null", "true"] {
            let m = invalid(
                &mut s,
                &format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#),
                Value::Null,
            );
            assert!(m.contains("id must be a string or an integer"), "{m}");
        }
        let m = invalid(
            &mut s,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/list","method":"ping"}"#,
            Value::Null,
        );
        assert!(m.contains(r#"duplicate key "method""#), "{m}");
        let m = invalid(
            &mut s,
            &call(5, "lookup_recorded_run", json!({})).replace(
                r#""arguments":{}"#,
                r#""arguments":{"query":"a","query":"b"}"#,
            ),
            Value::Null,
        );
        assert!(m.contains(r#"duplicate key "query""#), "{m}");
        invalid(&mut s, r#"{"jsonrpc":"2.0","id":6,"method":42}"#, json!(6));
        invalid(&mut s, r#"{"jsonrpc":"2.0","id":7}"#, json!(7));
        invalid(&mut s, "5", Value::Null);
        // string and integer ids are echoed
        let out = s
            .handle_line(r#"{"jsonrpc":"2.0","id":"a-1","method":"ping"}"#)
            .unwrap();
        assert_eq!(out["id"], "a-1");
        let out = s
            .handle_line(r#"{"jsonrpc":"2.0","id":-7,"method":"ping"}"#)
            .unwrap();
        assert_eq!(out["id"], -7);
        // batches: an empty one is one error; notifications in a batch get nothing
        let out = s.handle_line("[]").unwrap();
        assert_eq!(out["error"]["code"], INVALID_REQUEST);
        assert_eq!(out["id"], Value::Null);
        assert_eq!(
            s.handle_line(r#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#),
            None
        );
        let out = s
            .handle_line(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"1.0","id":2,"method":"ping"},3]"#)
            .unwrap();
        let out = out.as_array().unwrap();
        assert_eq!(out.len(), 3);
        assert_eq!(out[0]["result"], json!({}));
        assert_eq!(out[1]["error"]["code"], INVALID_REQUEST);
        assert_eq!(out[2]["error"]["code"], INVALID_REQUEST);
        // a parse error is still -32700
        assert_eq!(
            s.handle_line(r#"{"jsonrpc":"2.0","id":1,"#).unwrap()["error"]["code"],
            PARSE_ERROR
        );
    }

    #[test]
    fn lifecycle_and_unadvertised_methods() {
        let engine = Engine::new(crate::demo::load_demo().unwrap());
        let mut session = Session::new(&engine, Audience::Model);
        session.budget = Some(3);
        let mut s = Server::new(session);
        // before initialize: only ping
        assert_eq!(
            s.handle_line(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
                .unwrap()["result"],
            json!({})
        );
        for line in [
            call(2, "list_available_tools", json!({})),
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#.into(),
        ] {
            let out = s.handle_line(&line).unwrap();
            assert_eq!(out["error"]["code"], INVALID_REQUEST, "{out}");
            assert!(
                out["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("before initialize"),
                "{out}"
            );
        }
        assert_eq!(s.session.calls, 0);
        assert_eq!(s.protocol(), None);
        // initialize: not in a batch, needs a version, once
        let out = s.handle_line(&format!("[{}]", init("2025-11-25"))).unwrap();
        assert_eq!(out[0]["error"]["code"], INVALID_REQUEST);
        let out = s
            .handle_line(r#"{"jsonrpc":"2.0","id":4,"method":"initialize","params":{}}"#)
            .unwrap();
        assert_eq!(out["error"]["code"], INVALID_PARAMS);
        let out = s.handle_line(&init("1999-01-01")).unwrap();
        assert_eq!(out["result"]["protocolVersion"], "2025-11-25");
        assert_eq!(
            out["result"]["capabilities"],
            json!({"tools": {"listChanged": false}})
        );
        assert_eq!(s.protocol(), Some("2025-11-25"));
        let out = s.handle_line(&init("2025-06-18")).unwrap();
        assert_eq!(out["error"]["code"], INVALID_REQUEST);
        assert_eq!(s.protocol(), Some("2025-11-25"));
        // notifications are never answered, and a tools/call notification does not run
        for n in [
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#
                .into(),
            r#"{"jsonrpc":"2.0","method":"no/such"}"#.into(),
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"list_available_tools"}}"#
                .into(),
        ] {
            assert_eq!(s.handle_line(&n), None, "{n}");
        }
        assert_eq!(s.session.calls, 0);
        // resources and prompts are not capabilities
        for m in ["resources/list", "prompts/list", "resources/read"] {
            let out = s
                .handle_line(&format!(r#"{{"jsonrpc":"2.0","id":5,"method":"{m}"}}"#))
                .unwrap();
            assert_eq!(out["error"]["code"], METHOD_NOT_FOUND, "{m}");
        }
        assert_eq!(
            s.handle_line(&call(6, "list_available_tools", json!({})))
                .unwrap()["result"]["isError"],
            false
        );
    }

    #[test]
    fn invalid_arguments_are_tool_errors_under_2025_11_25_and_protocol_errors_before() {
        let engine = Engine::new(crate::demo::load_demo().unwrap());
        let bad_calls = [
            (
                "lookup_recorded_run",
                json!({"query": "refund", "params": {"top_k": -5}}),
                "params: knob top_k: expected an integer from 1 to 10000, got -5",
            ),
            (
                "lookup_recorded_run",
                json!({"query": 5}),
                "query: expected a string",
            ),
            (
                "explain_metric",
                json!({"query": "x"}),
                r#"missing required argument "metric_id""#,
            ),
            (
                "trace_event",
                json!({"query": "x", "stage": "nope"}),
                "stage: unknown stage \"nope\"; allowed: query, bm25",
            ),
            (
                "trace_event",
                json!({"query": "x", "limit": 1_000_000}),
                "limit: expected an integer from 0 to 10000",
            ),
            (
                "compare_bounded_counterfactual",
                json!({"query": "x", "change": {"relation_weight": {"relation": "requires", "weight": 1e308}}}),
                "change: knob relation_weight: weight must be a number from 0 to 10",
            ),
            (
                "compare_bounded_counterfactual",
                json!({"query": "x", "change": {"history": vec!["a"; 5000]}}),
                "knob history has 5000 items: exceeds the 1000 limit on items per list argument",
            ),
            (
                "trace_entity",
                json!({"query": "x", "tool": "t".repeat(10_000)}),
                "tool is 9.8 KiB long: exceeds the 4 KiB limit on bytes per string argument",
            ),
            (
                "describe_metric",
                json!({"metric_id": "nope"}),
                r#"metric_id: unknown metric "nope"; allowed: retrieval.score, retrieval.seed, retrieval.graph"#,
            ),
            (
                "explain_metric",
                json!({"metric_id": "selector.confidence", "query": "x"}),
                "metric_id: metric selector.confidence is post_decision and not visible to model-facing callers; allowed: retrieval.score, retrieval.seed, retrieval.graph",
            ),
            (
                "compare_bounded_counterfactual",
                json!({"query": "x", "change": {"graph": "g"}}),
                r#"change: "graph" is not an authorised knob (authorised: top_k, depth"#,
            ),
            (
                "lookup_recorded_run",
                json!({"query": "x", "params": {"policy": "manual_review"}}),
                "params: llm_target and policy are post-decision knobs and are not available to model-facing callers (authorised for models: top_k, depth,",
            ),
            (
                "trace_entity",
                json!({"query": "x", "tool": "approveRefnd"}),
                r#"tool: no tool named "approveRefnd" in the graph; allowed: a tool or node name of the graph; closest names: approveRefund"#,
            ),
            (
                "explain_metric",
                json!({"metric_id": "retrieval.score", "query": "refund approval", "scope_id": "approveRefnd"}),
                r#"scope_id: no tool named "approveRefnd" in the graph; allowed: a tool of the results (getRefund, completeRefund, getPendingRefundSummary, approveRefund,"#,
            ),
            (
                "explain_rank_gap",
                json!({"query": "refund approval", "expected": "approveRefnd"}),
                "closest names: approveRefund",
            ),
            (
                "lookup_recorded_run",
                json!({"case_id": "c9"}),
                "case_id: a case id was given but no suite is loaded (--cases); give query (a string) instead",
            ),
            (
                "lookup_recorded_run",
                json!({"query": "x", "extra": 1}),
                "unexpected argument \"extra\" for lookup_recorded_run (arguments: query, case_id, params)",
            ),
        ];
        for version in ["2025-11-25", "2025-06-18", "2025-03-26"] {
            let mut s = Server::new(Session::new(&engine, Audience::Model));
            s.handle_line(&init(version)).unwrap();
            for (i, (tool, args, want)) in bad_calls.iter().enumerate() {
                let out = s.handle_line(&call(i as i64, tool, args.clone())).unwrap();
                assert_eq!(out["id"], i as i64);
                let text = if version == "2025-11-25" {
                    assert_eq!(out["result"]["isError"], true, "{version} {tool}: {out}");
                    assert!(out.get("error").is_none());
                    out["result"]["content"][0]["text"]
                        .as_str()
                        .unwrap()
                        .to_string()
                } else {
                    assert_eq!(
                        out["error"]["code"], INVALID_PARAMS,
                        "{version} {tool}: {out}"
                    );
                    out["error"]["message"].as_str().unwrap().to_string()
                };
                assert!(
                    text.starts_with(&format!("invalid arguments for {tool}: ")),
                    "{text}"
                );
                assert!(text.contains(want), "{version}: {text}\nwant: {want}");
            }
            // counted as before: value checks yes, key-shape checks (extra, missing) no
            assert_eq!(s.session.calls, bad_calls.len() - 2, "{version}");
            // in every version: unknown tools and malformed requests are JSON-RPC errors,
            // execution errors are isError results
            let out = s.handle_line(&call(20, "no_such_tool", json!({}))).unwrap();
            assert_eq!(out["error"]["code"], INVALID_PARAMS);
            assert!(
                out["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("(tools: list_available_tools,")
            );
            for params in [
                r#""params":5"#,
                r#""params":{}"#,
                r#""params":{"name":"list_available_tools","arguments":"x"}"#,
            ] {
                let out = s
                    .handle_line(&format!(
                        r#"{{"jsonrpc":"2.0","id":21,"method":"tools/call",{params}}}"#
                    ))
                    .unwrap();
                assert_eq!(out["error"]["code"], INVALID_PARAMS, "{params}");
            }
            // a tool that runs but cannot answer (here: a lab metric with no suite loaded)
            // is an execution error under every version
            let out = s
                .handle_line(&call(22, "explain_metric", json!({"metric_id": "lab.mrr"})))
                .unwrap();
            assert_eq!(out["result"]["isError"], true, "{version}: {out}");
            let text = out["result"]["content"][0]["text"].as_str().unwrap();
            assert_eq!(text, "lab.mrr needs a suite (--cases)");
        }
    }

    #[test]
    fn a_top_k_sweep_on_a_one_case_suite_reveals_nothing() {
        let engine = Engine::new(crate::demo::load_demo().unwrap());
        let one = suite(&["refund approval"]);
        let r = engine.retrieve("refund approval", &Default::default());
        let rank = r
            .rows
            .iter()
            .position(|x| x.name == "approveRefund")
            .unwrap()
            + 1;
        // an operator sees the values the sweep would reveal
        let mut op = Session::new(&engine, Audience::Operator);
        op.suite = Some(&one);
        let hit = |s: &mut Session, k: usize| {
            s.call(
                "explain_metric",
                &json!({"metric_id": "lab.hit_at_k", "params": {"top_k": k}}),
            )
            .unwrap()["value"]
                .clone()
        };
        assert_eq!(hit(&mut op, rank), json!(1.0));
        assert_eq!(hit(&mut op, rank - 1), json!(0.0));
        // the trial's attack over MCP: every value is withheld
        let mut session = Session::new(&engine, Audience::Model);
        session.suite = Some(&one);
        let mut s = Server::new(session);
        s.handle_line(&init("2025-11-25")).unwrap();
        for k in 1..=7 {
            let out = s
                .handle_line(&call(
                    k,
                    "explain_metric",
                    json!({"metric_id": "lab.hit_at_k", "params": {"top_k": k}}),
                ))
                .unwrap();
            let r = &out["result"]["structuredContent"];
            assert_eq!(out["result"]["isError"], false, "{out}");
            assert_eq!(r["value"], Value::Null, "{r}");
            assert_eq!(r["mechanism_status"], "unresolved");
            assert!(r.get("tree").is_none());
            let why = r["limitations"][0].as_str().unwrap();
            assert!(
                why.contains("1 distinct case queries") && why.contains("at least 20"),
                "{why}"
            );
        }
        for m in ["lab.mrr", "lab.selector_accuracy"] {
            let out = s
                .handle_line(&call(8, "explain_metric", json!({"metric_id": m})))
                .unwrap();
            assert_eq!(
                out["result"]["structuredContent"]["value"],
                Value::Null,
                "{m}"
            );
        }
        let out = s
            .handle_line(&call(
                9,
                "compare_bounded_counterfactual",
                json!({"suite": true, "base": {"top_k": rank - 1}, "change": {"top_k": rank}}),
            ))
            .unwrap();
        let r = &out["result"]["structuredContent"];
        assert_eq!(r["hit_at_k"], Value::Null, "{r}");
        assert_eq!(r["MRR"], Value::Null, "{r}");
        assert!(r["per_case"][0]["jaccard"].is_number());
        assert!(!out.to_string().contains("approveRefund"));
        // never for one case or a subset
        for args in [
            json!({"metric_id": "lab.hit_at_k", "case_id": "c0"}),
            json!({"metric_id": "lab.mrr", "query": "refund approval"}),
        ] {
            let out = s.handle_line(&call(10, "explain_metric", args)).unwrap();
            assert_eq!(out["result"]["isError"], true, "{out}");
        }
        let out = s
            .handle_line(&call(
                11,
                "compare_bounded_counterfactual",
                json!({"suite": true, "case_id": "c0", "change": {"depth": 1}}),
            ))
            .unwrap();
        assert_eq!(out["result"]["isError"], true, "{out}");
        // a suite repeating one query does not reach the threshold
        let padded = suite(&vec!["refund approval"; LAB_MIN_CASES]);
        let mut m = Session::new(&engine, Audience::Model);
        m.suite = Some(&padded);
        let out = m
            .call("explain_metric", &json!({"metric_id": "lab.hit_at_k"}))
            .unwrap();
        assert_eq!(out["value"], Value::Null);
    }

    #[test]
    fn label_dependent_parameter_sets_use_a_small_sweep_budget() {
        let engine = Engine::new(crate::demo::load_demo().unwrap());
        let queries: Vec<String> = (0..LAB_MIN_CASES)
            .map(|i| format!("refund approval {i}"))
            .collect();
        let big = suite(&queries.iter().map(String::as_str).collect::<Vec<_>>());
        let mut s = Session::new(&engine, Audience::Model);
        s.suite = Some(&big);
        let ask = |s: &mut Session, k: usize| {
            s.call(
                "explain_metric",
                &json!({"metric_id": "lab.hit_at_k", "params": {"top_k": k}}),
            )
        };
        for k in 1..=LAB_SWEEP_BUDGET {
            let out = ask(&mut s, k).unwrap();
            assert!(out["value"].is_number(), "{out}");
            assert_eq!(out["mechanism_status"], "resolved");
        }
        let e = ask(&mut s, LAB_SWEEP_BUDGET + 1).unwrap_err();
        assert!(
            matches!(&e, ToolError::Execution(m) if m.contains("label sweep budget exhausted: 4/4")),
            "{e}"
        );
        // a parameter set already evaluated is answered again, for any lab metric
        assert!(ask(&mut s, 1).unwrap()["value"].is_number());
        let out = s
            .call(
                "explain_metric",
                &json!({"metric_id": "lab.mrr", "params": {"top_k": 2}}),
            )
            .unwrap();
        assert!(out["value"].is_number());
        // a suite counterfactual uses one unit per new side
        let e = s
            .call(
                "compare_bounded_counterfactual",
                &json!({"suite": true, "base": {"top_k": 1}, "change": {"depth": 1}}),
            )
            .unwrap_err();
        assert!(e.to_string().contains("needs 1 more"), "{e}");
        // both sides are scored at the base's k: top_k 2 scored at hit@1 is a new set
        let e = s
            .call(
                "compare_bounded_counterfactual",
                &json!({"suite": true, "base": {"top_k": 1}, "change": {"top_k": 2}}),
            )
            .unwrap_err();
        assert!(e.to_string().contains("needs 1 more"), "{e}");
        let out = s
            .call(
                "compare_bounded_counterfactual",
                &json!({"suite": true, "base": {"top_k": 2}, "change": {"top_k": 2}}),
            )
            .unwrap();
        assert!(out["hit_at_k"]["delta"].is_number(), "{out}");
        let tools = s.call("list_available_tools", &json!({})).unwrap();
        assert_eq!(
            tools["label_sweep_budget"],
            json!({"used": 4, "limit": 4, "min_cases": 20})
        );
        // operators have no sweep budget
        let mut op = Session::new(&engine, Audience::Operator);
        op.suite = Some(&big);
        for k in 1..=LAB_SWEEP_BUDGET + 3 {
            assert!(ask(&mut op, k).unwrap()["value"].is_number());
        }
    }
}
