//! GraphQL type references → JSON schemas, and the selection set of a root field, as
//! graph-tool-call 0.47.0's introspection ingest writes them (learned by running it):
//!
//! * input types (arguments, input object fields): scalars map to JSON types
//!   (`Int` integer, `Float` number, `Boolean` boolean, everything else string) with
//!   `x-graphql-scalar`; enums list their non-deprecated values; input objects expand
//!   their fields that are not deprecated (a type already on the path is `x-graphql-recursive`); a nullable type
//!   gets `nullable: true`.
//! * output types: objects and interfaces select `__typename` and up to 24 fields that are
//!   not deprecated and need no argument without a default; unions select `__typename`
//!   and one inline fragment per possible type (`oneOf` in the schema; a branch is
//!   expanded in the document even when its type is on the path). Two levels of
//!   nested objects are expanded; below that, and for a type already on the path, an
//!   object is a stub with only `__typename` (in the schema; in the document a stub
//!   below the depth limit is left out).

use serde_json::{Map, Value, json};

/// Object levels expanded below the root field's type.
pub const MAX_SELECTION_DEPTH: usize = 2;
/// Fields selected per object (besides `__typename`).
pub const MAX_SELECTION_FIELDS: usize = 24;

/// The introspection's named types.
pub struct Types<'a> {
    pub by_name: rustc_hash::FxHashMap<&'a str, &'a Map<String, Value>>,
}

impl<'a> Types<'a> {
    pub fn new(schema: &'a Map<String, Value>) -> Self {
        let mut by_name = rustc_hash::FxHashMap::default();
        if let Some(list) = schema.get("types").and_then(Value::as_array) {
            for t in list {
                if let Some(o) = t.as_object()
                    && let Some(n) = o.get("name").and_then(Value::as_str)
                {
                    by_name.entry(n).or_insert(o);
                }
            }
        }
        Types { by_name }
    }

    pub fn get(&self, name: &str) -> Option<&'a Map<String, Value>> {
        self.by_name.get(name).copied()
    }

    fn list(&self, name: &str, key: &str) -> &'a [Value] {
        self.get(name)
            .and_then(|t| t.get(key))
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }

    /// The non-deprecated values of an enum type.
    pub fn enum_values(&self, name: &str) -> Vec<Value> {
        self.list(name, "enumValues")
            .iter()
            .filter(|v| !is_deprecated(v))
            .filter_map(|v| v.get("name").and_then(Value::as_str))
            .map(|s| Value::String(s.into()))
            .collect()
    }
}

pub fn is_deprecated(v: &Value) -> bool {
    v.get("isDeprecated").and_then(Value::as_bool) == Some(true)
}

fn str_of<'v>(v: &'v Value, k: &str) -> Option<&'v str> {
    v.get(k).and_then(Value::as_str)
}

/// A GraphQL name (`[_A-Za-z][_0-9A-Za-z]*`).
pub fn is_name(s: &str) -> bool {
    let mut cs = s.chars();
    cs.next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && cs.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// A type reference: `NON_NULL`/`LIST` wrappers around a named type.
pub fn valid_ref(t: &Value, depth: usize) -> bool {
    if depth > 32 {
        return false;
    }
    match str_of(t, "kind") {
        Some("NON_NULL") | Some("LIST") => t.get("ofType").is_some_and(|o| valid_ref(o, depth + 1)),
        Some(_) => str_of(t, "name").is_some_and(is_name),
        None => false,
    }
}

/// `Int!`, `[ID!]`, … (the reference's `return_type` and variable types).
pub fn signature(t: &Value) -> String {
    match str_of(t, "kind") {
        Some("NON_NULL") => format!("{}!", signature(&t["ofType"])),
        Some("LIST") => format!("[{}]", signature(&t["ofType"])),
        _ => str_of(t, "name").unwrap_or("").to_string(),
    }
}

pub fn is_non_null(t: &Value) -> bool {
    str_of(t, "kind") == Some("NON_NULL")
}

/// The innermost named type: `(kind, name)`.
pub fn named(t: &Value) -> (&str, &str) {
    let mut t = t;
    for _ in 0..64 {
        match str_of(t, "kind") {
            Some("NON_NULL") | Some("LIST") => t = &t["ofType"],
            k => return (k.unwrap_or(""), str_of(t, "name").unwrap_or("")),
        }
    }
    ("", "")
}

fn scalar_type(name: &str) -> &'static str {
    match name {
        "Int" => "integer",
        "Float" => "number",
        "Boolean" => "boolean",
        _ => "string",
    }
}

fn with_nullable(mut s: Map<String, Value>, nullable: bool) -> Value {
    if nullable {
        s.insert("nullable".into(), json!(true));
    }
    Value::Object(s)
}

/// An argument's or input field's schema: its type, then description and default.
pub fn input_value_schema(types: &Types, v: &Value, path: &mut Vec<String>) -> Value {
    let mut s = input_schema(types, &v["type"], path);
    if let Some(m) = s.as_object_mut() {
        if let Some(d) = str_of(v, "description").filter(|d| !crate::pytext::strip(d).is_empty()) {
            m.insert("description".into(), json!(crate::pytext::strip(d)));
        }
        if let Some(d) = str_of(v, "defaultValue") {
            m.insert("x-graphql-default-literal".into(), json!(d));
        }
    }
    s
}

/// An input type's schema (`path`: the input objects being expanded).
pub fn input_schema(types: &Types, t: &Value, path: &mut Vec<String>) -> Value {
    if is_non_null(t) {
        let inner = input_schema_inner(types, &t["ofType"], path);
        return Value::Object(inner);
    }
    let inner = input_schema_inner(types, t, path);
    with_nullable(inner, true)
}

fn input_schema_inner(types: &Types, t: &Value, path: &mut Vec<String>) -> Map<String, Value> {
    let mut m = Map::new();
    let kind = str_of(t, "kind").unwrap_or("");
    let name = str_of(t, "name").unwrap_or("");
    match kind {
        "LIST" => {
            m.insert("type".into(), json!("array"));
            m.insert("items".into(), input_schema(types, &t["ofType"], path));
        }
        "NON_NULL" => return input_schema_inner(types, &t["ofType"], path),
        "ENUM" => {
            m.insert("type".into(), json!("string"));
            m.insert("enum".into(), Value::Array(types.enum_values(name)));
            m.insert("x-graphql-type".into(), json!(name));
        }
        "INPUT_OBJECT" => {
            m.insert("type".into(), json!("object"));
            if path.iter().any(|p| p == name) || path.len() > 32 {
                m.insert("x-graphql-type".into(), json!(name));
                m.insert("x-graphql-recursive".into(), json!(true));
                return m;
            }
            path.push(name.to_string());
            let mut props = Map::new();
            let mut required = Vec::new();
            for f in types.list(name, "inputFields") {
                if is_deprecated(f) {
                    continue;
                }
                let Some(fname) = str_of(f, "name") else {
                    continue;
                };
                props.insert(fname.into(), input_value_schema(types, f, path));
                if is_non_null(&f["type"]) && f.get("defaultValue").is_none_or(Value::is_null) {
                    required.push(json!(fname));
                }
            }
            path.pop();
            m.insert("properties".into(), Value::Object(props));
            m.insert("additionalProperties".into(), json!(false));
            m.insert("x-graphql-type".into(), json!(name));
            if !required.is_empty() {
                m.insert("required".into(), Value::Array(required));
            }
        }
        _ => {
            m.insert("type".into(), json!(scalar_type(name)));
            m.insert("x-graphql-scalar".into(), json!(name));
        }
    }
    m
}

/// Whether a field can be selected: not deprecated, no required argument without a default.
fn selectable(f: &Value) -> bool {
    if is_deprecated(f) {
        return false;
    }
    let args = f
        .get("args")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    !args
        .iter()
        .any(|a| is_non_null(&a["type"]) && a.get("defaultValue").is_none_or(Value::is_null))
}

/// A selection: the output schema of a type and the lines of its selection set.
pub struct Selection {
    pub schema: Value,
    /// `None`: a leaf (no braces); `Some(lines)`: the lines inside the braces.
    pub lines: Option<Vec<String>>,
}

/// The output schema and selection of a field of type `t` at `depth` (the root field's
/// type is at depth 0); `path` holds the composite types being expanded. The reference
/// walks twice: for the schema (`doc` false; its `lines` are not used) and for the
/// document (`doc` true; its `schema` is not used), which differ in union branches.
pub fn output(
    types: &Types,
    t: &Value,
    depth: usize,
    path: &mut Vec<String>,
    doc: bool,
) -> Selection {
    if is_non_null(t) {
        let s = output_inner(types, &t["ofType"], depth, path, doc);
        return Selection {
            schema: Value::Object(s.0),
            lines: s.1,
        };
    }
    let (m, lines) = output_inner(types, t, depth, path, doc);
    Selection {
        schema: with_nullable(m, true),
        lines,
    }
}

type Inner = (Map<String, Value>, Option<Vec<String>>);

fn typename_schema() -> Value {
    json!({"type": "string"})
}

fn stub(name: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("type".into(), json!("object"));
    let mut props = Map::new();
    props.insert("__typename".into(), typename_schema());
    m.insert("properties".into(), Value::Object(props));
    m.insert("x-graphql-type".into(), json!(name));
    m
}

fn output_inner(
    types: &Types,
    t: &Value,
    depth: usize,
    path: &mut Vec<String>,
    doc: bool,
) -> Inner {
    let kind = str_of(t, "kind").unwrap_or("");
    let name = str_of(t, "name").unwrap_or("");
    let mut m = Map::new();
    match kind {
        "NON_NULL" => output_inner(types, &t["ofType"], depth, path, doc),
        "LIST" => {
            let s = output(types, &t["ofType"], depth, path, doc);
            m.insert("type".into(), json!("array"));
            m.insert("items".into(), s.schema);
            (m, s.lines)
        }
        "SCALAR" => {
            m.insert("type".into(), json!(scalar_type(name)));
            m.insert("x-graphql-scalar".into(), json!(name));
            (m, None)
        }
        "ENUM" => {
            m.insert("type".into(), json!("string"));
            m.insert("enum".into(), Value::Array(types.enum_values(name)));
            m.insert("x-graphql-type".into(), json!(name));
            (m, None)
        }
        "OBJECT" | "INTERFACE" => object(types, name, depth, path, doc),
        "UNION" => {
            // the document stops at a union on the path; the schema always lists the
            // branches (each an object, stubbed by depth or cycle)
            if doc && (depth > MAX_SELECTION_DEPTH || path.iter().any(|p| p == name)) {
                return (stub(name), stub_lines());
            }
            path.push(name.to_string());
            let mut branches = Vec::new();
            let mut lines = vec!["__typename".to_string()];
            for p in types.list(name, "possibleTypes") {
                let Some(pn) = str_of(p, "name") else {
                    continue;
                };
                // the document expands a branch even when its type is on the path, and
                // does not put it there; the schema treats it as any object
                let (s, l) = if doc {
                    expand(types, pn, depth, path, doc)
                } else {
                    object(types, pn, depth, path, doc)
                };
                branches.push(Value::Object(s));
                lines.push(format!("... on {pn} {{"));
                for x in l.unwrap_or_default() {
                    lines.push(format!("  {x}"));
                }
                lines.push("}".into());
            }
            path.pop();
            m.insert("oneOf".into(), Value::Array(branches));
            m.insert("x-graphql-type".into(), json!(name));
            (m, Some(lines))
        }
        _ => {
            m.insert("type".into(), json!("string"));
            m.insert("x-graphql-type".into(), json!(name));
            (m, Some(vec!["__typename".into()]))
        }
    }
}

/// A stub's selection, `{ __typename }` (the enclosing object leaves it out below the
/// depth limit).
fn stub_lines() -> Option<Vec<String>> {
    Some(vec!["__typename".to_string()])
}

fn object(types: &Types, name: &str, depth: usize, path: &mut Vec<String>, doc: bool) -> Inner {
    if depth > MAX_SELECTION_DEPTH || path.iter().any(|p| p == name) {
        return (stub(name), stub_lines());
    }
    path.push(name.to_string());
    let out = expand(types, name, depth, path, doc);
    path.pop();
    out
}

/// An object's or interface's fields (the caller keeps `path`).
fn expand(types: &Types, name: &str, depth: usize, path: &mut Vec<String>, doc: bool) -> Inner {
    let mut props = Map::new();
    props.insert("__typename".into(), typename_schema());
    let mut lines = vec!["__typename".to_string()];
    let fields = types.list(name, "fields");
    for f in fields
        .iter()
        .filter(|f| selectable(f))
        .take(MAX_SELECTION_FIELDS)
    {
        let Some(fname) = str_of(f, "name") else {
            continue;
        };
        let s = output(types, &f["type"], depth + 1, path, doc);
        props.insert(fname.into(), s.schema);
        match s.lines {
            None => lines.push(fname.to_string()),
            Some(inner) if depth < MAX_SELECTION_DEPTH => {
                lines.push(format!("{fname} {{"));
                lines.extend(inner.into_iter().map(|l| format!("  {l}")));
                lines.push("}".into());
            }
            Some(_) => {}
        }
    }
    let mut m = Map::new();
    m.insert("type".into(), json!("object"));
    m.insert("properties".into(), Value::Object(props));
    m.insert("additionalProperties".into(), json!(false));
    m.insert("x-graphql-type".into(), json!(name));
    (m, Some(lines))
}
