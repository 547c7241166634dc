//! Tools as loaded from an artifact: the fields the engine reads, plus the raw JSON text of
//! everything else so the `tool` object can be emitted exactly as stored.

use serde_json::Value;
use std::sync::Arc;

use super::text::SourceText;

use crate::jsonout::JsonWriter;
use crate::pytext;

/// A slice of JSON text kept verbatim (usually a range of the loaded file).
#[derive(Clone, Debug)]
pub struct RawJson {
    buf: Arc<SourceText>,
    start: usize,
    end: usize,
}

impl RawJson {
    pub fn new(buf: Arc<SourceText>, start: usize, end: usize) -> Self {
        RawJson { buf, start, end }
    }

    pub fn owned(text: String) -> Self {
        let end = text.len();
        RawJson {
            buf: Arc::new(SourceText::owned(text)),
            start: 0,
            end,
        }
    }

    /// Locates `part` (a sub-slice of `buf`) inside `buf`.
    pub fn within(buf: &Arc<SourceText>, part: &str) -> Self {
        let base = buf.as_ptr() as usize;
        let start = part.as_ptr() as usize - base;
        RawJson {
            buf: buf.clone(),
            start,
            end: start + part.len(),
        }
    }

    pub fn get(&self) -> &str {
        &self.buf[self.start..self.end]
    }

    /// Calls `f` with the text; a slice of a mapped file is read with a positioned read
    /// rather than through the map (see [`SourceText::read_range`]: even a small slice
    /// touched through the map brings back 64 KiB around it).
    pub fn with_str<R>(&self, f: impl FnOnce(&str) -> R) -> R {
        match self.buf.read_range(self.start, self.end) {
            Some(s) => f(&s),
            None => f(self.get()),
        }
    }

    pub fn parse(&self) -> Value {
        self.with_str(|s| serde_json::from_str(s).unwrap_or(Value::Null))
    }
}

/// Equal when the texts are equal or, written differently (indented, compact), when they
/// parse to the same value.
impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.with_str(|a| other.with_str(|b| a == b)) || self.parse() == other.parse()
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub ty: String,
    pub description: String,
    pub required: bool,
    pub enum_values: Option<RawJson>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Annotations {
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
}

/// Values read from `metadata.ai_metadata` (spec §1.5). Kept as JSON values because the
/// reference applies Python's `str()`/truthiness to whatever is stored.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AiFacts {
    pub canonical_action: Option<Value>,
    pub primary_resource: Option<Value>,
    pub result_shape: Option<Value>,
    pub one_line_summary: Option<Value>,
    pub when_to_use: Option<Value>,
    pub when_not_to_use: Option<Value>,
    pub produces_semantics: Vec<Value>,
    pub consumes_semantics: Vec<Value>,
    pub pairs_well_with: Vec<Value>,
}

/// Values read from `metadata.openapi`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpenApiFacts {
    pub operation_id: Option<Value>,
    pub summary: Option<Value>,
    pub description: Option<Value>,
    pub path: Option<Value>,
    pub path_module: Option<Value>,
}

/// A list of contract rows kept as raw JSON and parsed when asked (these lists are most of
/// an artifact's metadata; each engine stage that needs them caches what it derives).
#[derive(Clone, Debug, Default)]
pub struct LazyRows {
    raw: Option<RawJson>,
    nonempty: bool,
}

impl LazyRows {
    pub fn from_raw(raw: Option<RawJson>) -> Self {
        let nonempty = raw.as_ref().is_some_and(|r| {
            let t = r.get().trim_start();
            t.starts_with('[') && !t[1..].trim_start().starts_with(']')
        });
        LazyRows { raw, nonempty }
    }

    pub fn from_values(v: Vec<Value>) -> Self {
        let text = serde_json::to_string(&v).unwrap_or_else(|_| "[]".into());
        LazyRows::from_raw(Some(RawJson::owned(text)))
    }

    pub fn is_empty(&self) -> bool {
        !self.nonempty
    }

    /// The rows (an empty list when the value is not a list).
    pub fn rows(&self) -> Vec<Value> {
        if !self.nonempty {
            return Vec::new();
        }
        match self.raw.as_ref().map(RawJson::parse) {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        }
    }

    pub fn raw(&self) -> Option<&RawJson> {
        self.raw.as_ref()
    }
}

/// Equal when they hold the same rows (two empty lists are equal however they are written).
impl PartialEq for LazyRows {
    fn eq(&self, other: &Self) -> bool {
        match (self.nonempty, other.nonempty) {
            (false, false) => true,
            (true, true) => self.raw == other.raw,
            _ => false,
        }
    }
}

/// Everything the engine reads from a tool's `metadata`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolFacts {
    /// `metadata` is a non-empty object.
    pub has_metadata: bool,
    pub method: Option<Value>,
    pub path: Option<Value>,
    pub source_label: Option<Value>,
    pub ai: Option<AiFacts>,
    pub openapi: Option<OpenApiFacts>,
    /// `metadata.produces` / `.consumes` (promoted contract rows).
    pub produces: LazyRows,
    pub consumes: LazyRows,
    /// `metadata.api_contract.produces` / `.consumes`.
    pub api_produces: LazyRows,
    pub api_consumes: LazyRows,
    pub example_queries: Vec<Value>,
}

impl ToolFacts {
    /// `metadata.method` if it is a string.
    pub fn method_str(&self) -> Option<&str> {
        self.method.as_ref().and_then(Value::as_str)
    }

    /// `metadata.path` if it is a string.
    pub fn path_str(&self) -> Option<&str> {
        self.path.as_ref().and_then(Value::as_str)
    }

    /// Contract rows as the evidence scorers read them: promoted rows when any exist,
    /// otherwise the raw `api_contract` rows.
    pub fn contract_rows(&self) -> Vec<Value> {
        let promoted = !self.produces.is_empty() || !self.consumes.is_empty();
        let (p, c) = if promoted {
            (&self.produces, &self.consumes)
        } else {
            (&self.api_produces, &self.api_consumes)
        };
        let mut rows = p.rows();
        rows.extend(c.rows());
        rows
    }

    /// Produces rows, per direction: promoted rows, else the `api_contract` ones.
    pub fn produces_or_api(&self) -> Vec<Value> {
        if self.produces.is_empty() {
            self.api_produces.rows()
        } else {
            self.produces.rows()
        }
    }

    /// Consumes rows, per direction: promoted rows, else the `api_contract` ones.
    pub fn consumes_or_api(&self) -> Vec<Value> {
        if self.consumes.is_empty() {
            self.api_consumes.rows()
        } else {
            self.consumes.rows()
        }
    }
}

#[derive(Clone, Debug)]
pub struct Tool {
    pub name: String,
    pub description: String,
    pub parameters: Vec<Param>,
    pub tags: Vec<String>,
    pub domain: Option<String>,
    pub metadata: RawJson,
    pub annotations: Option<Annotations>,
    /// Boxed: the facts are most of a tool's size (1.2 KB of 1.4), and a load moves every
    /// tool from its parser's list into the graph's.
    pub facts: Box<ToolFacts>,
    /// The compact `ToolSchema` JSON, built on first use (emission is then a copy).
    pub compact: std::sync::OnceLock<Box<str>>,
}

impl Tool {
    /// Whether the engine sees the two tools alike: every field it reads is equal (the
    /// `metadata` keys it does not read, such as `source_url`, may differ). Ranking and
    /// selection cannot tell two such tools apart.
    pub fn same_engine_view(&self, other: &Tool) -> bool {
        self.engine_differences(other).is_empty()
    }

    /// The parts the engine reads that differ between two tools, named as in the
    /// artifact: `name`, `description`, `parameters`, `tags`, `domain`, `annotations`,
    /// `metadata.method`, `metadata.path`, `metadata.source_label`, `metadata.ai_metadata`,
    /// `metadata.openapi`, `metadata.produces`, `metadata.consumes`,
    /// `metadata.api_contract` (read only for a direction without promoted rows),
    /// `metadata.example_queries`, and `metadata` itself (present or empty).
    pub fn engine_differences(&self, other: &Tool) -> Vec<&'static str> {
        let (a, b) = (&self.facts, &other.facts);
        // api_contract rows are read for a direction only when it has no promoted rows
        fn api_read(f: &ToolFacts) -> (Option<&LazyRows>, Option<&LazyRows>) {
            (
                f.produces.is_empty().then_some(&f.api_produces),
                f.consumes.is_empty().then_some(&f.api_consumes),
            )
        }
        [
            ("name", self.name != other.name),
            ("description", self.description != other.description),
            ("parameters", self.parameters != other.parameters),
            ("tags", self.tags != other.tags),
            ("domain", self.domain != other.domain),
            ("annotations", self.annotations != other.annotations),
            ("metadata", a.has_metadata != b.has_metadata),
            ("metadata.method", a.method != b.method),
            ("metadata.path", a.path != b.path),
            ("metadata.source_label", a.source_label != b.source_label),
            ("metadata.ai_metadata", a.ai != b.ai),
            ("metadata.openapi", a.openapi != b.openapi),
            ("metadata.produces", a.produces != b.produces),
            ("metadata.consumes", a.consumes != b.consumes),
            ("metadata.api_contract", api_read(a) != api_read(b)),
            (
                "metadata.example_queries",
                a.example_queries != b.example_queries,
            ),
        ]
        .into_iter()
        .filter(|(_, d)| *d)
        .map(|(k, _)| k)
        .collect()
    }

    /// The tool as compact JSON, cached after the first call.
    pub fn compact_json(&self) -> &str {
        self.compact.get_or_init(|| self.to_json().into_boxed_str())
    }

    /// Writes the tool the way the reference serialises a `ToolSchema`.
    pub fn write_json(&self, w: &mut JsonWriter) {
        w.begin_obj();
        w.key("name").str(&self.name);
        w.key("description").str(&self.description);
        w.key("parameters").begin_arr();
        for p in &self.parameters {
            w.begin_obj();
            w.key("name").str(&p.name);
            w.key("type").str(&p.ty);
            w.key("description").str(&p.description);
            w.key("required").bool(p.required);
            w.key("enum");
            match &p.enum_values {
                Some(raw) => raw.with_str(|t| w.raw(t)),
                None => w.null(),
            };
            w.end_obj();
        }
        w.end_arr();
        w.key("tags").str_list(&self.tags);
        w.key("domain").opt_str(self.domain.as_deref());
        w.key("metadata");
        self.metadata.with_str(|m| w.raw(m));
        w.key("annotations");
        match &self.annotations {
            None => {
                w.null();
            }
            Some(a) => {
                w.begin_obj();
                for (k, v) in [
                    ("read_only_hint", a.read_only),
                    ("destructive_hint", a.destructive),
                    ("idempotent_hint", a.idempotent),
                    ("open_world_hint", a.open_world),
                ] {
                    w.key(k);
                    match v {
                        Some(b) => w.bool(b),
                        None => w.null(),
                    };
                }
                w.end_obj();
            }
        }
        w.end_obj();
    }

    pub fn to_json(&self) -> String {
        let mut w = JsonWriter::new();
        self.write_json(&mut w);
        w.finish()
    }
}

/// `str(v)` of an optional value, `""` when missing or null.
pub fn opt_str(v: &Option<Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(v) => pytext::py_str(v),
    }
}

/// Truthiness of an optional value.
pub fn opt_truthy(v: &Option<Value>) -> bool {
    v.as_ref().is_some_and(pytext::truthy)
}
