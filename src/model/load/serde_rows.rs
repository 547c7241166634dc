//! The serde path: the rows an artifact is read into (top-level keys, graph nodes and
//! edges, tool rows and the engine's view of their metadata), their `Deserialize` impls,
//! the plain serde parse of a whole text, and errors named with a JSON pointer and the
//! absolute line:column. The fast path ([`super::fast`]) fills these same rows and must
//! give exactly what serde gives; it steps aside to this path for anything unusual.

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use crate::error::InputError;
use crate::model::text::SourceText;

/// `(tool name, row text)` pairs in file order.
pub(super) type ToolRowTexts<'t> = Vec<(String, &'t str)>;

pub(super) fn line_col(prefix: &[u8]) -> (usize, usize) {
    let line = prefix.iter().filter(|&&b| b == b'\n').count() + 1;
    let last = prefix
        .iter()
        .rposition(|&b| b == b'\n')
        .map(|p| p + 1)
        .unwrap_or(0);
    let col = String::from_utf8_lossy(&prefix[last..]).chars().count() + 1;
    (line, col)
}

pub fn pointer_escape(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// Parses `text` as `T`; on failure re-parses with path tracking to name the JSON pointer.
pub fn parse_with_pointer<'a, T: Deserialize<'a>>(
    name: &str,
    text: &'a str,
) -> Result<T, InputError> {
    match serde_json::from_str::<T>(text) {
        Ok(v) => Ok(v),
        Err(first) => {
            let mut de = serde_json::Deserializer::from_str(text);
            let pointer = match serde_path_to_error::deserialize::<_, T>(&mut de) {
                Err(e) => path_to_pointer(e.path()),
                Ok(_) => String::new(),
            };
            Err(json_error(name, &first, &pointer))
        }
    }
}

/// A text that does not start like JSON at all (plain text, a log, YAML): `not JSON:
/// expected WHAT` at the first non-blank character, instead of the parser's `expected value`.
/// `None` when the text starts like a JSON value.
pub fn not_json(name: &str, text: &str, what: &str) -> Option<InputError> {
    let body = text.trim_start_matches('\u{feff}').trim_start();
    let first = body.chars().next()?;
    if matches!(first, '{' | '[' | '"' | '-' | '0'..='9' | 't' | 'f' | 'n') {
        return None;
    }
    let skipped = &text[..text.len() - body.len()];
    let line = skipped.matches('\n').count() + 1;
    let col = skipped.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    Some(InputError::new(
        name,
        &format!("{line}:{col}"),
        format!("not JSON: expected {what}"),
    ))
}

pub fn json_error(name: &str, e: &serde_json::Error, pointer: &str) -> InputError {
    let msg = e.to_string();
    let msg = match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg,
    };
    let msg = match e.classify() {
        serde_json::error::Category::Eof => format!("truncated JSON: {msg}"),
        serde_json::error::Category::Syntax => format!("invalid JSON: {msg}"),
        _ => msg,
    };
    // serde_json counts a position at a line's start as column 0; columns are 1-based here
    let (line, col) = (e.line().max(1), e.column().max(1));
    let place = if pointer.is_empty() || pointer == "/" || pointer == "/." {
        format!("{line}:{col}")
    } else {
        format!("{line}:{col} {pointer}")
    };
    InputError::new(name, &place, msg)
}

/// A serde path as a JSON pointer (`/params/top_k`).
pub fn path_to_pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for seg in path.iter() {
        match seg {
            Segment::Seq { index } => out.push_str(&format!("/{index}")),
            Segment::Map { key } => {
                out.push('/');
                out.push_str(&pointer_escape(key));
            }
            Segment::Enum { variant } => {
                out.push('/');
                out.push_str(variant);
            }
            Segment::Unknown => {}
        }
    }
    out
}

/// Parses one tool row (a slice of `text`) with serde, naming `/tools/<key>/...` and the
/// absolute line:column on error.
pub(super) fn parse_row<'t>(
    file: &str,
    text: &Arc<SourceText>,
    key: &str,
    row_text: &'t str,
) -> Result<ToolRow<'t>, InputError> {
    match serde_json::from_str::<ToolRow<'_>>(row_text) {
        Ok(row) => Ok(row),
        Err(e) => {
            let mut de = serde_json::Deserializer::from_str(row_text);
            let inner = match serde_path_to_error::deserialize::<_, ToolRow<'_>>(&mut de) {
                Err(pe) => path_to_pointer(pe.path()),
                Ok(_) => String::new(),
            };
            let offset = row_text.as_ptr() as usize - text.as_ptr() as usize;
            let (line0, col0) = line_col(&text.as_bytes()[..offset]);
            let (line, col) = if e.line() <= 1 {
                (line0, col0 + e.column().saturating_sub(1))
            } else {
                (line0 + e.line() - 1, e.column())
            };
            let msg = e.to_string();
            let msg = msg
                .rfind(" at line ")
                .map(|i| msg[..i].to_string())
                .unwrap_or(msg);
            Err(InputError::new(
                file,
                &format!("{line}:{col} /tools/{}{inner}", pointer_escape(key)),
                msg,
            ))
        }
    }
}

/// `string_or_none` of a value already parsed.
pub(super) fn py_string_or_none(v: Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s),
        Value::Null => None,
        other => Some(crate::pytext::py_str(&other)),
    }
}

/// The top-level keys of an artifact; `T` reads the tool rows (or skips them).
#[derive(Deserialize, Default, Debug)]
#[serde(bound = "T: Deserialize<'de>")]
pub(super) struct FileTop<T> {
    #[serde(default)]
    pub(super) format_version: Option<Value>,
    #[serde(default)]
    pub(super) version: Option<Value>,
    #[serde(default)]
    pub(super) library_version: Option<Value>,
    #[serde(default)]
    pub(super) graph: Option<GraphSec>,
    #[serde(default)]
    pub(super) tools: Option<T>,
    #[serde(default)]
    pub(super) openapi: Option<IgnoredAny>,
    #[serde(default)]
    pub(super) swagger: Option<IgnoredAny>,
    #[serde(default)]
    pub(super) collection_graph_version: Option<Value>,
    #[serde(default)]
    pub(super) readiness_report: Option<Value>,
    #[serde(default)]
    pub(super) graph_tool_call_version: Option<Value>,
    #[serde(default)]
    pub(super) enrichment_status: Option<Value>,
    #[serde(default)]
    pub(super) semantic_summary: Option<Value>,
}

impl<T> FileTop<T> {
    pub(super) fn without_tools(self) -> FileTop<IgnoredAny> {
        FileTop {
            format_version: self.format_version,
            version: self.version,
            library_version: self.library_version,
            graph: self.graph,
            tools: None,
            openapi: self.openapi,
            swagger: self.swagger,
            collection_graph_version: self.collection_graph_version,
            readiness_report: self.readiness_report,
            graph_tool_call_version: self.graph_tool_call_version,
            enrichment_status: self.enrichment_status,
            semantic_summary: self.semantic_summary,
        }
    }
}

#[derive(Deserialize, Debug)]
pub(super) struct GraphSec {
    #[serde(default)]
    pub(super) nodes: Option<Vec<NodeRow>>,
    #[serde(default)]
    pub(super) edges: Option<Vec<EdgeRow>>,
}

#[derive(Deserialize, Debug)]
pub(super) struct NodeRow {
    pub(super) id: String,
    #[serde(default, deserialize_with = "string_or_none")]
    pub(super) node_type: Option<String>,
    #[serde(default)]
    pub(super) community: Option<Value>,
    #[serde(default, deserialize_with = "string_or_none")]
    pub(super) description: Option<String>,
}

#[derive(Debug, Default)]
pub(super) struct EdgeRow {
    pub(super) source: String,
    pub(super) target: String,
    pub(super) relation: Option<Value>,
    pub(super) confidence: Option<Value>,
    pub(super) conf_score: Option<Value>,
    pub(super) evidence: Option<Value>,
    pub(super) layer: Option<Value>,
    pub(super) kind: Option<Value>,
    pub(super) evidence_sources: Option<Value>,
}

impl<'de> Deserialize<'de> for EdgeRow {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = EdgeRow;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an edge object with \"source\" and \"target\"")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut source = None;
                let mut target = None;
                let mut row = EdgeRow::default();
                while let Some(k) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    match k.as_ref() {
                        "source" => source = Some(map.next_value::<String>()?),
                        "target" => target = Some(map.next_value::<String>()?),
                        "relation" => row.relation = Some(map.next_value()?),
                        "confidence" => row.confidence = Some(map.next_value()?),
                        "conf_score" => row.conf_score = Some(map.next_value()?),
                        "evidence" => row.evidence = Some(map.next_value()?),
                        "layer" => row.layer = Some(map.next_value()?),
                        "kind" => row.kind = Some(map.next_value()?),
                        "evidence_sources" => row.evidence_sources = Some(map.next_value()?),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                row.source = source.ok_or_else(|| de::Error::missing_field("source"))?;
                row.target = target.ok_or_else(|| de::Error::missing_field("target"))?;
                Ok(row)
            }
        }
        d.deserialize_map(V)
    }
}

pub(super) struct ToolRows<'a>(pub(super) Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for ToolRows<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = ToolRows<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object mapping tool names to tool rows")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut rows = Vec::with_capacity(map.size_hint().unwrap_or(0));
                let mut seen = rustc_hash::FxHashSet::default();
                while let Some(k) = map.next_key::<String>()? {
                    if !seen.insert(k.clone()) {
                        return Err(de::Error::custom(format!(
                            "duplicate tool name {}",
                            crate::sanitize::quoted(&k)
                        )));
                    }
                    let row: &'a RawValue = map.next_value()?;
                    rows.push((k, row));
                }
                Ok(ToolRows(rows))
            }
        }
        d.deserialize_map(V(PhantomData))
    }
}

#[derive(Deserialize, Default)]
pub(super) struct ToolRow<'a> {
    #[serde(default)]
    pub(super) name: Option<String>,
    #[serde(default)]
    pub(super) description: Option<String>,
    #[serde(default, borrow)]
    pub(super) parameters: Option<Vec<ParamRow<'a>>>,
    #[serde(default)]
    pub(super) tags: Option<Vec<String>>,
    #[serde(default)]
    pub(super) domain: Option<String>,
    #[serde(default, borrow)]
    pub(super) metadata: Option<MetaView<'a>>,
    #[serde(default)]
    pub(super) annotations: Option<AnnotationRow>,
}

#[derive(Deserialize)]
pub(super) struct ParamRow<'a> {
    pub(super) name: String,
    #[serde(default, rename = "type")]
    pub(super) ty: Option<String>,
    #[serde(default)]
    pub(super) description: Option<String>,
    #[serde(default)]
    pub(super) required: Option<bool>,
    #[serde(default, rename = "enum", borrow, deserialize_with = "raw_opt")]
    pub(super) enum_values: Option<&'a str>,
}

/// `Option<&RawValue>` as text.
fn raw_opt<'de: 'a, 'a, D: Deserializer<'de>>(d: D) -> Result<Option<&'a str>, D::Error> {
    Option::<&'de RawValue>::deserialize(d).map(|r| r.map(RawValue::get))
}

#[derive(Deserialize)]
pub(super) struct AnnotationRow {
    #[serde(default, alias = "readOnlyHint")]
    pub(super) read_only_hint: Option<bool>,
    #[serde(default, alias = "destructiveHint")]
    pub(super) destructive_hint: Option<bool>,
    #[serde(default, alias = "idempotentHint")]
    pub(super) idempotent_hint: Option<bool>,
    #[serde(default, alias = "openWorldHint")]
    pub(super) open_world_hint: Option<bool>,
}

#[derive(Default)]
pub(super) struct MetaView<'a> {
    pub(super) nonempty: bool,
    pub(super) method: Option<Value>,
    pub(super) path: Option<Value>,
    pub(super) source_label: Option<Value>,
    pub(super) ai_metadata: Option<AiView>,
    pub(super) openapi: Option<OaView>,
    pub(super) produces: Option<&'a str>,
    pub(super) consumes: Option<&'a str>,
    pub(super) api_contract: Option<ContractView<'a>>,
    pub(super) example_queries: Vec<Value>,
}

impl<'de: 'a, 'a> Deserialize<'de> for MetaView<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = MetaView<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a metadata object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MetaView<'a>, A::Error> {
                let mut m = MetaView::default();
                while let Some(k) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    m.nonempty = true;
                    match k.as_ref() {
                        "method" => m.method = Some(map.next_value()?),
                        "path" => m.path = Some(map.next_value()?),
                        "source_label" => m.source_label = Some(map.next_value()?),
                        "ai_metadata" => m.ai_metadata = map.next_value::<Lenient<AiView>>()?.0,
                        "openapi" => m.openapi = map.next_value::<Lenient<OaView>>()?.0,
                        "produces" => m.produces = Some(map.next_value::<&'de RawValue>()?.get()),
                        "consumes" => m.consumes = Some(map.next_value::<&'de RawValue>()?.get()),
                        "api_contract" => {
                            m.api_contract = map.next_value::<Lenient<ContractView>>()?.0
                        }
                        "example_queries" => m.example_queries = map.next_value::<LenientList>()?.0,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(m)
            }
            fn visit_unit<E>(self) -> Result<MetaView<'a>, E> {
                Ok(MetaView::default())
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

#[derive(Deserialize, Default)]
pub(super) struct AiView {
    #[serde(default)]
    pub(super) canonical_action: Option<Value>,
    #[serde(default)]
    pub(super) primary_resource: Option<Value>,
    #[serde(default)]
    pub(super) result_shape: Option<Value>,
    #[serde(default)]
    pub(super) one_line_summary: Option<Value>,
    #[serde(default)]
    pub(super) when_to_use: Option<Value>,
    #[serde(default)]
    pub(super) when_not_to_use: Option<Value>,
    #[serde(default, deserialize_with = "lenient_list")]
    pub(super) produces_semantics: Vec<Value>,
    #[serde(default, deserialize_with = "lenient_list")]
    pub(super) consumes_semantics: Vec<Value>,
    #[serde(default, deserialize_with = "lenient_list")]
    pub(super) pairs_well_with: Vec<Value>,
}

#[derive(Deserialize, Default)]
pub(super) struct OaView {
    #[serde(default)]
    pub(super) operation_id: Option<Value>,
    #[serde(default)]
    pub(super) summary: Option<Value>,
    #[serde(default)]
    pub(super) description: Option<Value>,
    #[serde(default)]
    pub(super) path: Option<Value>,
    #[serde(default)]
    pub(super) path_module: Option<Value>,
}

#[derive(Default)]
pub(super) struct ContractView<'a> {
    pub(super) produces: Option<&'a str>,
    pub(super) consumes: Option<&'a str>,
}

impl<'de: 'a, 'a> Deserialize<'de> for ContractView<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Rows<'a> {
            #[serde(default, borrow)]
            produces: Option<&'a RawValue>,
            #[serde(default, borrow)]
            consumes: Option<&'a RawValue>,
        }
        let r = Rows::deserialize(d)?;
        Ok(ContractView {
            produces: r.produces.map(RawValue::get),
            consumes: r.consumes.map(RawValue::get),
        })
    }
}

/// An object deserialised as `T`, anything else as `None`.
pub(super) struct Lenient<T>(pub(super) Option<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Lenient<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(|v| Lenient(Some(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Lenient(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Lenient(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Lenient(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Lenient(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Lenient(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Lenient(None))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Lenient(None))
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(Lenient(None))
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// A list of values; anything else reads as an empty list.
pub(super) struct LenientList(pub(super) Vec<Value>);

impl<'de> Deserialize<'de> for LenientList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::Array(items) => Ok(LenientList(items)),
            _ => Ok(LenientList(Vec::new())),
        }
    }
}

fn lenient_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Value>, D::Error> {
    LenientList::deserialize(d).map(|l| l.0)
}

fn string_or_none<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Value::deserialize(d).map(py_string_or_none)
}
