//! Reading an input document: bytes → UTF-8 → JSON or YAML → `serde_json::Value`, and
//! recognising what the document is from its content (never from the file name).
//!
//! JSON goes through `serde_json` (nesting limited to 128 levels, a clean error beyond).
//! YAML is read with `saphyr-parser`'s event stream into values without recursion; scalars
//! are resolved the way PyYAML's `safe_load` (YAML 1.1) resolves them, since that is what
//! the reference uses: `yes`/`no`/`on`/`off` are booleans, `0x1f`/`0o17`/`017` integers,
//! `~`/`null`/empty are null. Nesting is limited to [`MAX_DEPTH`] levels.

use serde_json::{Map, Number, Value};

use crate::error::InputError;
use crate::model::load::{into_text, json_error, maybe_gunzip};

/// Deepest nesting accepted in YAML input (JSON: serde_json's 128).
pub const MAX_DEPTH: usize = crate::limits::DEPTH;

/// What a document is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// OpenAPI 3.x (`openapi: 3…`).
    OpenApi3,
    /// Swagger 2.0 (`swagger: "2…"`).
    Swagger2,
    /// MCP `tools/list` result: bare list of `{name, inputSchema}`, `{tools: […]}` or a
    /// JSON-RPC response `{result: {tools: […]}}`.
    Mcp,
    /// OpenAI / Anthropic function list.
    Functions,
    /// A graph-tool-call tool graph or collection artifact.
    Graph,
    /// A GraphQL introspection result (`{"data": {"__schema": …}}` or `{"__schema": …}`).
    GraphQl,
    /// An Arazzo 1.0.x workflow description (`arazzo: 1.0.x`): applied to the graph built
    /// from (or loaded with) the other inputs.
    Arazzo,
}

impl InputKind {
    pub fn label(self) -> &'static str {
        match self {
            InputKind::OpenApi3 => "OpenAPI 3",
            InputKind::Swagger2 => "Swagger 2.0",
            InputKind::Mcp => "MCP tools/list",
            InputKind::Functions => "function list",
            InputKind::Graph => "tool graph",
            InputKind::GraphQl => "GraphQL introspection",
            InputKind::Arazzo => "Arazzo workflow description",
        }
    }

    pub fn is_openapi(self) -> bool {
        matches!(self, InputKind::OpenApi3 | InputKind::Swagger2)
    }
}

/// A parsed input document.
#[derive(Debug)]
pub struct Document {
    /// The name the user gave (path as written), used in messages and as `source_url`.
    pub name: String,
    pub value: Value,
    pub kind: InputKind,
    pub yaml: bool,
}

/// Reads and parses a file; gzip is decompressed transparently.
pub fn read_document(path: &str) -> Result<Document, InputError> {
    let bytes = crate::model::load::read_input(std::path::Path::new(path))?;
    parse_document(path, bytes)
}

pub fn parse_document(name: &str, bytes: Vec<u8>) -> Result<Document, InputError> {
    let bytes = maybe_gunzip(name, bytes)?;
    let text = into_text(name, bytes)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if text.trim().is_empty() {
        return Err(InputError::new(name, "", crate::limits::blank_input(text)));
    }
    let first = text.trim_start().chars().next().unwrap_or(' ');
    let (value, yaml) = if first == '{' || first == '[' {
        (parse_json(name, text)?, false)
    } else {
        (parse_yaml(name, text)?, true)
    };
    let kind = classify(name, &value)?;
    Ok(Document {
        name: name.to_string(),
        value,
        kind,
        yaml,
    })
}

pub fn parse_json(name: &str, text: &str) -> Result<Value, InputError> {
    crate::jsonin::from_str(text).map_err(|e| {
        let mut err = json_error(name, &e, "");
        if e.to_string().contains("recursion limit") {
            err.message = "nesting deeper than 128 levels".into();
        }
        err
    })
}

/// What `build` and a spec GRAPH argument accept, for the errors that refuse a document.
const EXPECTED_INPUT: &str = "expected an OpenAPI 3.x / Swagger 2.0 spec (JSON or YAML), \
     an MCP tools/list result, a function list, a GraphQL introspection result, an Arazzo \
     workflow description or a tool graph";

/// Recognises the document type from its content.
pub fn classify(name: &str, v: &Value) -> Result<InputKind, InputError> {
    match v {
        Value::Object(m) => {
            if let Some(s) = m.get("swagger") {
                let s = scalar_text(s);
                if s.starts_with('2') {
                    return Ok(InputKind::Swagger2);
                }
                return Err(InputError::new(
                    name,
                    "/swagger",
                    format!(
                        "unsupported Swagger version {} (2.0 expected)",
                        crate::sanitize::quoted(&s)
                    ),
                ));
            }
            if let Some(s) = m.get("openapi") {
                let s = scalar_text(s);
                if s.starts_with('3') {
                    return Ok(InputKind::OpenApi3);
                }
                return Err(InputError::new(
                    name,
                    "/openapi",
                    format!(
                        "unsupported OpenAPI version {} (3.x expected)",
                        crate::sanitize::quoted(&s)
                    ),
                ));
            }
            if let Some(v) = m.get("arazzo") {
                if super::arazzo::supported_version(v) {
                    return Ok(InputKind::Arazzo);
                }
                return Err(InputError::new(
                    name,
                    "/arazzo",
                    format!(
                        "unsupported Arazzo version {} (1.0.x expected)",
                        crate::sanitize::quoted(&scalar_text(v))
                    ),
                ));
            }
            if m.contains_key("graph") {
                return Ok(InputKind::Graph);
            }
            if super::graphql::looks_like_graphql(v) {
                return match super::graphql::schema_of(v) {
                    Ok(_) => Ok(InputKind::GraphQl),
                    Err(place) => Err(super::graphql::invalid_document_error(name, v, place)),
                };
            }
            if let Some(list) = tool_list_of(v) {
                return classify_list(name, list);
            }
            if m.contains_key("paths") {
                return Err(InputError::new(
                    name,
                    "",
                    "has \"paths\" but neither \"openapi\" nor \"swagger\": not a recognised OpenAPI document".into(),
                ));
            }
            if m.contains_key("name")
                && (m.contains_key("inputSchema")
                    || m.contains_key("input_schema")
                    || m.contains_key("parameters")
                    || m.contains_key("function"))
            {
                return classify_list(name, std::slice::from_ref(v));
            }
            Err(InputError::new(
                name,
                "",
                format!("not a recognised input: {EXPECTED_INPUT}"),
            ))
        }
        Value::Array(items) => classify_list(name, items),
        // a plain-text file reads as one YAML string
        Value::String(_) => Err(InputError::new(
            name,
            "",
            format!("plain text, not a recognised input: {EXPECTED_INPUT}"),
        )),
        other => Err(InputError::new(
            name,
            "",
            format!(
                "a single {} value, not a recognised input: {EXPECTED_INPUT}",
                match other {
                    Value::Null => "null",
                    Value::Bool(_) => "boolean",
                    _ => "number",
                }
            ),
        )),
    }
}

fn classify_list(name: &str, items: &[Value]) -> Result<InputKind, InputError> {
    if items.is_empty() {
        return Err(InputError::new(name, "", "empty tool list".into()));
    }
    let mut mcp = 0;
    for (i, it) in items.iter().enumerate() {
        let Some(o) = it.as_object() else {
            return Err(InputError::new(
                name,
                &format!("/{i}"),
                "tool list item is not an object".into(),
            ));
        };
        if o.contains_key("inputSchema") {
            mcp += 1;
        }
    }
    Ok(if mcp > 0 {
        InputKind::Mcp
    } else {
        InputKind::Functions
    })
}

/// The tool list inside `{tools: […]}` or `{result: {tools: […]}}`.
pub fn tool_list_of(v: &Value) -> Option<&[Value]> {
    let m = v.as_object()?;
    if let Some(Value::Array(t)) = m.get("tools") {
        return Some(t);
    }
    if let Some(Value::Object(r)) = m.get("result")
        && let Some(Value::Array(t)) = r.get("tools")
    {
        return Some(t);
    }
    None
}

fn scalar_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

// ------------------------------------------------------------------------------- YAML

use saphyr_parser::{Event, Parser, ScalarStyle, Span};

/// An open collection: its items so far, its anchor id, and the nodes inside it.
enum Frame {
    Seq(Vec<Value>, usize, u64),
    Map(Map<String, Value>, Option<String>, usize, u64),
}

/// Parses YAML (first document) into a JSON value, PyYAML `safe_load` style.
pub fn parse_yaml(name: &str, text: &str) -> Result<Value, InputError> {
    let mut parser = Parser::new_from_str(text);
    let mut stack: Vec<Frame> = Vec::new();
    // each anchored value with the number of nodes it holds: an alias copies them, so
    // aliases and the nodes they copy are bounded ("billion laughs")
    let mut anchors: rustc_hash::FxHashMap<usize, (Value, u64)> = Default::default();
    let (max_aliases, max_alias_nodes) = (
        crate::limits::YAML_ALIASES.get(),
        crate::limits::YAML_ALIAS_NODES.get(),
    );
    let (mut aliases, mut alias_nodes) = (0u64, 0u64);
    let mut root: Option<Value> = None;
    let place = |sp: &Span| format!("{}:{}", sp.start.line(), sp.start.col() + 1);
    while let Some(ev) = parser.next_event() {
        let (ev, span) = ev.map_err(|e| {
            InputError::new(
                name,
                &format!("{}:{}", e.marker().line(), e.marker().col() + 1),
                format!("invalid YAML: {}", e.info()),
            )
        })?;
        let (value, anchor, nodes) = match ev {
            Event::StreamStart | Event::DocumentStart(_) | Event::Nothing => continue,
            Event::DocumentEnd | Event::StreamEnd => {
                if root.is_some() || matches!(ev, Event::StreamEnd) {
                    break;
                }
                continue;
            }
            Event::SequenceStart(anchor, _) => {
                if stack.len() >= MAX_DEPTH {
                    return Err(InputError::new(
                        name,
                        &place(&span),
                        format!("nesting deeper than {MAX_DEPTH} levels"),
                    ));
                }
                stack.push(Frame::Seq(Vec::new(), anchor, 1));
                continue;
            }
            Event::MappingStart(anchor, _) => {
                if stack.len() >= MAX_DEPTH {
                    return Err(InputError::new(
                        name,
                        &place(&span),
                        format!("nesting deeper than {MAX_DEPTH} levels"),
                    ));
                }
                stack.push(Frame::Map(Map::new(), None, anchor, 1));
                continue;
            }
            Event::SequenceEnd => match stack.pop() {
                Some(Frame::Seq(items, anchor, n)) => (Value::Array(items), anchor, n),
                _ => return Err(InputError::new(name, &place(&span), "invalid YAML".into())),
            },
            Event::MappingEnd => match stack.pop() {
                Some(Frame::Map(m, _, anchor, n)) => (Value::Object(m), anchor, n),
                _ => return Err(InputError::new(name, &place(&span), "invalid YAML".into())),
            },
            Event::Alias(id) => match anchors.get(&id) {
                Some((v, n)) => {
                    aliases += 1;
                    alias_nodes = alias_nodes.saturating_add(*n);
                    if aliases > max_aliases {
                        return Err(crate::limits::YAML_ALIASES.exceeded(name, &place(&span)));
                    }
                    if alias_nodes > max_alias_nodes {
                        return Err(crate::limits::YAML_ALIAS_NODES.exceeded(name, &place(&span)));
                    }
                    (v.clone(), 0, *n)
                }
                None => {
                    return Err(InputError::new(
                        name,
                        &place(&span),
                        "invalid YAML: unknown alias".into(),
                    ));
                }
            },
            Event::Scalar(s, style, anchor, tag) => {
                let tagged = tag.as_ref().map(|t| t.suffix.clone());
                (resolve_scalar(&s, style, tagged.as_deref()), anchor, 1)
            }
        };
        if anchor > 0 {
            anchors.insert(anchor, (value.clone(), nodes));
        }
        match stack.last_mut() {
            None => {
                root = Some(value);
            }
            Some(Frame::Seq(items, _, n)) => {
                *n = n.saturating_add(nodes);
                items.push(value)
            }
            Some(Frame::Map(m, key, _, n)) => match key.take() {
                None => {
                    if matches!(value, Value::Object(_) | Value::Array(_)) {
                        return Err(InputError::new(
                            name,
                            &place(&span),
                            "invalid YAML: a mapping key must be a scalar".into(),
                        ));
                    }
                    *key = Some(key_text(&value));
                }
                Some(k) => {
                    *n = n.saturating_add(nodes);
                    if k == "<<" {
                        // merge key: copy missing entries
                        merge_into(m, value);
                    } else {
                        m.insert(k, value);
                    }
                }
            },
        }
    }
    Ok(root.unwrap_or(Value::Null))
}

fn merge_into(m: &mut Map<String, Value>, v: Value) {
    match v {
        Value::Object(src) => {
            for (k, x) in src {
                m.entry(k).or_insert(x);
            }
        }
        Value::Array(items) => {
            for it in items {
                merge_into(m, it);
            }
        }
        _ => {}
    }
}

/// Keys: `json.dumps` writes non-string keys as `str`-like text (`true`, `200`, `null`).
fn key_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "null".into(),
        Value::Bool(b) => if *b { "true" } else { "false" }.into(),
        Value::Number(n) => match n.as_f64() {
            Some(f) if !n.is_i64() && !n.is_u64() => crate::pytext::float_repr(f),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}

fn resolve_scalar(s: &str, style: ScalarStyle, tag: Option<&str>) -> Value {
    if let Some(t) = tag {
        return match t {
            "str" => Value::String(s.into()),
            "int" => parse_int(s)
                .map(Value::from)
                .unwrap_or(Value::String(s.into())),
            "float" => parse_float(s).map(num).unwrap_or(Value::String(s.into())),
            "bool" => parse_bool(s)
                .map(Value::Bool)
                .unwrap_or(Value::String(s.into())),
            "null" => Value::Null,
            _ => Value::String(s.into()),
        };
    }
    if style != ScalarStyle::Plain {
        return Value::String(s.into());
    }
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        _ => {}
    }
    if let Some(b) = parse_bool(s) {
        return Value::Bool(b);
    }
    if let Some(i) = parse_int(s) {
        return Value::from(i);
    }
    if let Some(f) = parse_float(s) {
        return num(f);
    }
    Value::String(s.into())
}

fn num(f: f64) -> Value {
    Number::from_f64(f)
        .map(Value::Number)
        .unwrap_or(Value::String(crate::pytext::float_repr(f)))
}

fn parse_bool(s: &str) -> Option<bool> {
    match s {
        "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" | "y" | "Y" => {
            if s == "y" || s == "Y" {
                None
            } else {
                Some(true)
            }
        }
        "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => Some(false),
        _ => None,
    }
}

/// YAML 1.1 integers as PyYAML resolves them.
fn parse_int(s: &str) -> Option<i64> {
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    if body.is_empty() {
        return None;
    }
    let clean: String = body.chars().filter(|&c| c != '_').collect();
    if clean.is_empty() {
        return None;
    }
    let v = if let Some(b) = clean.strip_prefix("0b") {
        if !body.starts_with("0b") || b.is_empty() || !b.chars().all(|c| c == '0' || c == '1') {
            return None;
        }
        i64::from_str_radix(b, 2).ok()?
    } else if let Some(h) = clean.strip_prefix("0x") {
        if h.is_empty() || !h.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        i64::from_str_radix(h, 16).ok()?
    } else if clean.len() > 1 && clean.starts_with('0') {
        if !body.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            return None;
        }
        if !clean.chars().all(|c| ('0'..='7').contains(&c)) {
            return None;
        }
        i64::from_str_radix(&clean[1..], 8).ok()?
    } else {
        if !body.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            return None;
        }
        if body.contains(':') {
            // sexagesimal 1:30 → 90
            let mut acc: i64 = 0;
            for part in clean.split(':') {
                if part.is_empty() || !part.chars().all(|c| c.is_ascii_digit()) {
                    return None;
                }
                acc = acc.checked_mul(60)?.checked_add(part.parse().ok()?)?;
            }
            acc
        } else {
            if !clean.chars().all(|c| c.is_ascii_digit()) {
                return None;
            }
            clean.parse().ok()?
        }
    };
    Some(if neg { -v } else { v })
}

fn parse_float(s: &str) -> Option<f64> {
    match s {
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => return Some(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => return Some(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Some(f64::NAN),
        _ => {}
    }
    // PyYAML: [-+]?([0-9][0-9_]*)?\.[0-9.]*([eE][-+][0-9]+)? (a dot is required)
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    if !body.contains('.') {
        return None;
    }
    let (mant, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let dot = mant.find('.')?;
    let (ip, fp) = (&mant[..dot], &mant[dot + 1..]);
    let ip_ok = ip.is_empty()
        || (ip.starts_with(|c: char| c.is_ascii_digit())
            && ip.chars().all(|c| c.is_ascii_digit() || c == '_'));
    if !ip_ok {
        return None;
    }
    if !fp.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    if ip.is_empty() && fp.is_empty() {
        return None;
    }
    if let Some(e) = exp {
        let eb = e.strip_prefix(['-', '+'])?;
        if eb.is_empty() || !eb.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
    }
    let clean: String = s.chars().filter(|&c| c != '_').collect();
    clean.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_scalars_resolve_like_pyyaml() {
        let v = parse_yaml(
            "t",
            "a: yes\nb: 0x1F\nc: 017\nd: 1.5\ne: ~\nf: '1'\ng: 1e3\nh: 200\n",
        )
        .unwrap();
        assert_eq!(v["a"], Value::Bool(true));
        assert_eq!(v["b"], Value::from(31));
        assert_eq!(v["c"], Value::from(15));
        assert_eq!(v["d"], num(1.5));
        assert_eq!(v["e"], Value::Null);
        assert_eq!(v["f"], Value::String("1".into()));
        assert_eq!(v["g"], Value::String("1e3".into()));
        assert_eq!(v["h"], Value::from(200));
    }

    #[test]
    fn yaml_anchors_and_merge() {
        let v = parse_yaml("t", "x: &a {k: 1}\ny: *a\nz:\n  <<: *a\n  j: 2\n").unwrap();
        assert_eq!(v["y"]["k"], Value::from(1));
        assert_eq!(v["z"]["k"], Value::from(1));
    }

    #[test]
    fn deep_yaml_is_an_error() {
        let text = "[".repeat(10_000) + &"]".repeat(10_000);
        let e = parse_yaml("deep.yaml", &format!("a: {text}")).unwrap_err();
        assert!(
            e.message.contains("nesting") || e.message.contains("recursion limit"),
            "{e}"
        );
    }
}
