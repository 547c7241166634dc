//! The reference's `ToolSchema` as built at ingest time, tool registration normalisation
//! (spec §1.2) and the in-memory tool graph the builders fill (a networkx-like directed
//! graph: insertion-ordered nodes, per-node insertion-ordered successors, one edge per
//! ordered pair).

use std::borrow::Cow;

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::build::detect::name_tokens;

#[derive(Clone, Debug, PartialEq)]
pub struct ParamSchema {
    pub name: String,
    pub ty: String,
    pub description: String,
    pub required: bool,
    pub enum_values: Option<Value>,
}

impl ParamSchema {
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), Value::String(self.name.clone()));
        m.insert("type".into(), Value::String(self.ty.clone()));
        m.insert(
            "description".into(),
            Value::String(self.description.clone()),
        );
        m.insert("required".into(), Value::Bool(self.required));
        m.insert(
            "enum".into(),
            self.enum_values.clone().unwrap_or(Value::Null),
        );
        Value::Object(m)
    }
}

/// `[read_only, destructive, idempotent, open_world]`.
pub type Hints = [Option<bool>; 4];

/// The annotation members [`Hints`] are written as, in order.
const HINT_KEYS: [&str; 4] = [
    "read_only_hint",
    "destructive_hint",
    "idempotent_hint",
    "open_world_hint",
];

/// A JSON object from owned members, in order (`json!` would deep-copy its operands).
pub fn object<const N: usize>(members: [(&str, Value); N]) -> Value {
    let mut m = Map::with_capacity(N);
    for (k, v) in members {
        m.insert(k.into(), v);
    }
    Value::Object(m)
}

#[derive(Clone, Debug, Default)]
pub struct ToolSchema {
    pub name: String,
    pub description: String,
    pub parameters: Vec<ParamSchema>,
    pub tags: Vec<String>,
    pub domain: Option<String>,
    pub metadata: Map<String, Value>,
    pub annotations: Option<Hints>,
    /// what the readiness report needs of the metadata that is frozen early
    pub readiness: crate::ingest::readiness::OperationFacts,
    /// contract promotion's view of the `api_contract` rows, taken before they are frozen
    pub promotion: Option<Box<crate::ingest::build::contracts::Prepared>>,
    /// the data-flow edges' view of the promoted rows, taken when they were promoted
    pub flow: Option<Box<crate::ingest::build::flow::FlowRows>>,
}

/// A member of a row: its key and value.
pub(crate) type Member = (&'static str, Value);

impl ToolSchema {
    /// The row written under `tools`, consuming the tool (no copy of its metadata); the
    /// parameter, tag and annotation rows are kept as compact text
    /// ([`crate::ingest::frozen`]) until written, as the big metadata subtrees are.
    pub fn into_json(mut self) -> Value {
        let (head, tail) = self.row_parts();
        let mut m = Map::with_capacity(head.len() + 1 + tail.len());
        m.extend(head.map(|(k, v)| (k.to_string(), v)));
        m.insert(
            "metadata".into(),
            Value::Object(std::mem::take(&mut self.metadata)),
        );
        m.extend(tail.map(|(k, v)| (k.to_string(), v)));
        Value::Object(m)
    }

    /// The row's members before `metadata` and after it, in order: what [`Self::into_json`]
    /// and [`crate::ingest::artifact::write_tool_pretty`] both write.
    pub(crate) fn row_parts(&self) -> ([Member; 5], [Member; 1]) {
        (
            [
                ("name", Value::String(self.name.clone())),
                ("description", Value::String(self.description.clone())),
                ("parameters", self.parameters_json()),
                ("tags", self.tags_json()),
                (
                    "domain",
                    self.domain.clone().map_or(Value::Null, Value::String),
                ),
            ],
            [("annotations", self.annotations_json())],
        )
    }

    /// The row's `parameters`, as compact text ([`crate::ingest::frozen`]).
    pub(crate) fn parameters_json(&self) -> Value {
        use crate::ingest::frozen;
        use crate::jsonout::write_escaped;
        if self.parameters.is_empty() {
            return Value::Array(Vec::new());
        }
        frozen::written(|out, refs| {
            out.push('[');
            for (i, p) in self.parameters.iter().enumerate() {
                out.push_str(if i == 0 { "{\"name\":" } else { ",{\"name\":" });
                write_escaped(out, &p.name);
                out.push_str(",\"type\":");
                write_escaped(out, &p.ty);
                out.push_str(",\"description\":");
                write_escaped(out, &p.description);
                out.push_str(if p.required {
                    ",\"required\":true,\"enum\":"
                } else {
                    ",\"required\":false,\"enum\":"
                });
                match &p.enum_values {
                    Some(v) => frozen::write_compact_refs(out, v, refs),
                    None => out.push_str("null"),
                }
                out.push('}');
            }
            out.push(']');
        })
    }

    /// The row's `tags`, as compact text.
    pub(crate) fn tags_json(&self) -> Value {
        if self.tags.is_empty() {
            return Value::Array(Vec::new());
        }
        crate::ingest::frozen::written(|out, _| {
            out.push('[');
            for (i, t) in self.tags.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                crate::jsonout::write_escaped(out, t);
            }
            out.push(']');
        })
    }

    /// The row's `annotations`, as compact text (null when there are none).
    pub(crate) fn annotations_json(&self) -> Value {
        let Some(a) = &self.annotations else {
            return Value::Null;
        };
        crate::ingest::frozen::written(|out, _| {
            for (i, (k, v)) in HINT_KEYS.iter().zip(a).enumerate() {
                out.push_str(if i == 0 { "{\"" } else { ",\"" });
                out.push_str(k);
                out.push_str(match v {
                    None => "\":null",
                    Some(true) => "\":true",
                    Some(false) => "\":false",
                });
            }
            out.push('}');
        })
    }

    /// The row written under `tools` (spec §1.1).
    pub fn to_json(&self) -> Value {
        self.to_json_with(self.metadata.clone())
    }

    fn to_json_with(&self, metadata: Map<String, Value>) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), Value::String(self.name.clone()));
        m.insert(
            "description".into(),
            Value::String(self.description.clone()),
        );
        m.insert(
            "parameters".into(),
            Value::Array(self.parameters.iter().map(ParamSchema::to_json).collect()),
        );
        m.insert("tags".into(), json!(self.tags));
        m.insert(
            "domain".into(),
            self.domain
                .clone()
                .map(Value::String)
                .unwrap_or(Value::Null),
        );
        m.insert("metadata".into(), Value::Object(metadata));
        m.insert(
            "annotations".into(),
            match &self.annotations {
                None => Value::Null,
                Some(a) => {
                    let mut o = Map::new();
                    for (k, v) in HINT_KEYS.iter().zip(a) {
                        o.insert((*k).into(), v.map(Value::Bool).unwrap_or(Value::Null));
                    }
                    Value::Object(o)
                }
            },
        );
        Value::Object(m)
    }

    /// Node attributes of a tool node (spec §1.3).
    pub fn node_attrs(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("node_type".into(), json!("tool"));
        m.insert("description".into(), json!(self.description));
        m.insert("tags".into(), json!(self.tags));
        m.insert(
            "domain".into(),
            self.domain
                .clone()
                .map(Value::String)
                .unwrap_or(Value::Null),
        );
        if let Some(a) = &self.annotations {
            let mut o = Map::new();
            for (k, v) in [
                "readOnlyHint",
                "destructiveHint",
                "idempotentHint",
                "openWorldHint",
            ]
            .iter()
            .zip(a)
            {
                if let Some(b) = v {
                    o.insert((*k).into(), Value::Bool(*b));
                }
            }
            m.insert("annotations".into(), Value::Object(o));
        }
        m
    }

    pub fn meta_str(&self, key: &str) -> Option<&str> {
        self.metadata.get(key).and_then(Value::as_str)
    }
}

const TAG_VERBS: &[&str] = &[
    "get", "set", "create", "update", "delete", "remove", "list", "fetch", "find", "search", "add",
    "put", "patch", "post", "read", "write", "show", "check", "verify", "validate", "process",
    "handle", "run", "execute", "send", "save", "load", "export", "import", "init", "start",
    "stop", "cancel", "close", "open", "enable", "disable",
];

pub fn singularize(w: &str) -> String {
    let n = w.chars().count();
    if n <= 3 {
        return w.to_string();
    }
    if w.ends_with("ies") && n > 4 {
        return format!("{}y", &w[..w.len() - 3]);
    }
    if w.ends_with("ses") || w.ends_with("xes") || w.ends_with("zes") {
        return w[..w.len() - 2].to_string();
    }
    if w.ends_with('s') && !w.ends_with("ss") {
        return w[..w.len() - 1].to_string();
    }
    w.to_string()
}

/// Annotation hints inferred from the first name token (spec §1.2).
pub fn infer_hints(name: &str) -> Option<Hints> {
    let toks = name_tokens(name);
    let first = toks.first()?;
    let (r, d, i) = match first.as_str() {
        "get" | "list" | "fetch" | "read" | "search" | "find" | "show" | "check" | "verify"
        | "validate" => (true, false, true),
        "create" | "add" | "post" | "send" | "insert" | "register" | "regist" | "reg" => {
            (false, false, false)
        }
        "update" | "set" | "put" | "save" => (false, false, true),
        "patch" => (false, false, false),
        "delete" | "remove" | "cancel" | "destroy" => (false, true, true),
        _ => return None,
    };
    Some([Some(r), Some(d), Some(i), None])
}

/// Registration normalisation: fills empty tags, a missing domain and missing annotations.
pub fn normalize(t: &mut ToolSchema) {
    if t.tags.is_empty() {
        let toks = name_tokens(&t.name);
        let mut tags: Vec<String> = Vec::new();
        for tok in &toks {
            if TAG_VERBS.contains(&tok.as_str()) {
                continue;
            }
            // repeated resource words stay repeated, as the reference infers them
            tags.push(singularize(tok));
        }
        if tags.is_empty()
            && let Some(f) = toks.first()
        {
            tags.push(singularize(f));
        }
        t.tags = tags;
    }
    if t.domain.is_none() {
        t.domain = Some(t.tags.first().cloned().unwrap_or_else(|| "general".into()));
    }
    if t.annotations.is_none() {
        t.annotations = infer_hints(&t.name);
    }
}

/// An edge's attribute dict as the graph keeps it: its compact text (a frozen object, see
/// [`crate::ingest::frozen`]: a fifth of the map's memory), or the map itself while a stage
/// edits it in place ([`OutGraph::edge_mut`]), when it is empty or when it has a `source`
/// or `target` key of its own (written over the edge's ends, see [`OutGraph::into_json`]).
#[derive(Clone, Debug)]
pub enum EdgeAttrs {
    Frozen(String),
    Open(Map<String, Value>),
}

impl EdgeAttrs {
    /// An edge's attributes as the graph keeps them (compact text, unless empty or naming
    /// an endpoint).
    pub fn new(attrs: Map<String, Value>) -> EdgeAttrs {
        if attrs.is_empty() || attrs.contains_key("source") || attrs.contains_key("target") {
            return EdgeAttrs::Open(attrs);
        }
        EdgeAttrs::frozen(crate::ingest::frozen::freeze(Value::Object(attrs)))
    }

    /// Attributes whose compact text `write` appends (a non-empty object without `source`
    /// or `target` keys, with no `$ref`s): what [`EdgeAttrs::new`] makes of their map.
    pub fn written(write: impl FnOnce(&mut String)) -> EdgeAttrs {
        EdgeAttrs::frozen(crate::ingest::frozen::written(|out, _| write(out)))
    }

    /// Attributes already frozen (a frozen map: what [`EdgeAttrs::new`] makes of one).
    pub fn frozen(v: Value) -> EdgeAttrs {
        match v {
            Value::String(s) => EdgeAttrs::Frozen(s),
            Value::Object(m) => EdgeAttrs::Open(m),
            _ => EdgeAttrs::Open(Map::new()),
        }
    }

    /// The attribute map (parsed back from its text when frozen).
    pub fn map(&self) -> Cow<'_, Map<String, Value>> {
        match self {
            EdgeAttrs::Open(m) => Cow::Borrowed(m),
            EdgeAttrs::Frozen(s) => Cow::Owned(thaw_map(s)),
        }
    }

    pub fn into_map(self) -> Map<String, Value> {
        match self {
            EdgeAttrs::Open(m) => m,
            EdgeAttrs::Frozen(s) => thaw_map(&s),
        }
    }

    /// What `keys` hold among the attributes, as [`Scalar`]s (read from the text when
    /// frozen, without building the map or copying a string that needs no unescaping).
    pub fn pick<const N: usize>(&self, keys: [&str; N]) -> [Option<Scalar<'_>>; N] {
        match self {
            EdgeAttrs::Open(m) => keys.map(|k| m.get(k).map(Scalar::of)),
            EdgeAttrs::Frozen(s) => {
                let (_, body) = crate::ingest::frozen::thaw(s).expect("a frozen edge");
                if let Some(picked) = pick::scan(body, &keys) {
                    return picked;
                }
                let mut de = serde_json::Deserializer::from_str(body);
                serde::de::DeserializeSeed::deserialize(pick::Picked(keys), &mut de)
                    .expect("a frozen edge's own compact JSON")
            }
        }
    }

    /// The map, to edit in place: the edge stays a map until it is replaced.
    fn open(&mut self) -> &mut Map<String, Value> {
        if let EdgeAttrs::Frozen(s) = self {
            *self = EdgeAttrs::Open(thaw_map(s));
        }
        match self {
            EdgeAttrs::Open(m) => m,
            EdgeAttrs::Frozen(_) => unreachable!("opened above"),
        }
    }
}

/// The map a frozen edge holds: its compact text parses back to the same tree
/// (`float_roundtrip`; the graph's own text, no deeper than the inputs it came from).
fn thaw_map(s: &str) -> Map<String, Value> {
    let (_, body) = crate::ingest::frozen::thaw(s).expect("a frozen edge");
    serde_json::from_str(body).expect("a frozen edge's own compact JSON")
}

/// The saved edge row `{"source": s, "target": t, **attrs}` of a frozen edge, frozen: the
/// attributes' text spliced after the ends (what freezing the row's map gives).
fn frozen_edge_row(s: &str, t: &str, frozen: &str) -> Value {
    use crate::ingest::frozen;
    let Some((refs, body)) = frozen::thaw(frozen).filter(|_| {
        // an end that reads as frozen text itself is written as the map would write it
        !s.starts_with(frozen::mark()) && !t.starts_with(frozen::mark())
    }) else {
        let mut m = Map::new();
        m.insert("source".into(), Value::String(s.into()));
        m.insert("target".into(), Value::String(t.into()));
        m.extend(thaw_map(frozen));
        return frozen::freeze(Value::Object(m));
    };
    let mut row = String::with_capacity(body.len() + s.len() + t.len() + 24);
    row.push_str("{\"source\":");
    crate::jsonout::write_escaped(&mut row, s);
    row.push_str(",\"target\":");
    crate::jsonout::write_escaped(&mut row, t);
    match body.strip_prefix('{') {
        Some(rest) if rest != "}" => {
            row.push(',');
            row.push_str(rest);
        }
        _ => row.push('}'),
    }
    let refs: Vec<String> = if refs.is_empty() {
        Vec::new()
    } else {
        serde_json::from_str(refs).expect("a frozen edge's $ref list")
    };
    frozen::from_parts(&refs, &row)
}

/// Reading chosen members of an object's JSON text without building its map.
/// What an attribute holds, as far as the graph's tallies read it: a scalar, the strings
/// of an array (its other items left out), or something else (an object).
#[derive(Clone, Debug, PartialEq)]
pub enum Scalar<'a> {
    Null,
    Bool(bool),
    Number(f64),
    Str(Cow<'a, str>),
    Strs(Vec<Cow<'a, str>>),
    Other,
}

impl<'a> Scalar<'a> {
    pub fn of(v: &'a Value) -> Scalar<'a> {
        match v {
            Value::Null => Scalar::Null,
            Value::Bool(b) => Scalar::Bool(*b),
            Value::Number(n) => n.as_f64().map_or(Scalar::Other, Scalar::Number),
            Value::String(s) => Scalar::Str(Cow::Borrowed(s)),
            Value::Array(a) => Scalar::Strs(
                a.iter()
                    .filter_map(Value::as_str)
                    .map(Cow::Borrowed)
                    .collect(),
            ),
            Value::Object(_) => Scalar::Other,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Scalar::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Scalar::Number(x) => Some(*x),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Scalar::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Scalar::Null)
    }

    /// The strings of an array (none for anything else).
    pub fn strs(&self) -> &[Cow<'a, str>] {
        match self {
            Scalar::Strs(a) => a,
            _ => &[],
        }
    }
}

mod pick {
    use std::borrow::Cow;

    use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

    use super::Scalar;

    /// What the given keys hold in an object (the last of a repeated key).
    pub struct Picked<'k, const N: usize>(pub [&'k str; N]);

    /// [`Picked`] read from the compact JSON text this process writes, without a
    /// deserializer (values not picked are stepped over, not checked): `None` for an
    /// object with whitespace or an escaped key, or for text it cannot read (the caller then
    /// reads it with serde, which says what is wrong).
    pub fn scan<'s, const N: usize>(
        text: &'s str,
        keys: &[&str; N],
    ) -> Option<[Option<Scalar<'s>>; N]> {
        let mut out: [Option<Scalar<'s>>; N] = std::array::from_fn(|_| None);
        let mut r = Reader { text, at: 0 };
        r.eat(b'{')?;
        if r.peek()? == b'}' {
            r.at += 1;
            return r.at_end().then_some(out);
        }
        loop {
            let (key, escaped) = r.string()?;
            if escaped {
                return None;
            }
            r.eat(b':')?;
            match keys.iter().position(|k| *k == key) {
                Some(i) => out[i] = Some(r.scalar()?),
                None => r.skip()?,
            }
            match r.next()? {
                b',' => {}
                b'}' => return r.at_end().then_some(out),
                _ => return None,
            }
        }
    }

    /// A place in compact JSON text.
    struct Reader<'s> {
        text: &'s str,
        at: usize,
    }

    impl<'s> Reader<'s> {
        fn peek(&self) -> Option<u8> {
            self.text.as_bytes().get(self.at).copied()
        }

        fn next(&mut self) -> Option<u8> {
            let b = self.peek()?;
            self.at += 1;
            Some(b)
        }

        fn eat(&mut self, want: u8) -> Option<()> {
            (self.next()? == want).then_some(())
        }

        fn at_end(&self) -> bool {
            self.at == self.text.len()
        }

        /// A string's text between its quotes (escapes left as written), and whether it
        /// has any; the reader then stands after the closing quote.
        fn string(&mut self) -> Option<(&'s str, bool)> {
            self.eat(b'"')?;
            let start = self.at;
            let bytes = self.text.as_bytes();
            let mut escaped = false;
            loop {
                let i = self.at + memchr::memchr2(b'"', b'\\', &bytes[self.at..])?;
                if bytes[i] == b'"' {
                    self.at = i + 1;
                    // (quotes and backslashes are ASCII: both ends are char boundaries)
                    return Some((&self.text[start..i], escaped));
                }
                escaped = true;
                self.at = i + 2;
                if self.at > bytes.len() {
                    return None;
                }
            }
        }

        /// A value as serde's [`ScalarSeed`] reads it.
        fn scalar(&mut self) -> Option<Scalar<'s>> {
            match self.peek()? {
                b'"' => {
                    let from = self.at;
                    let (s, escaped) = self.string()?;
                    Some(Scalar::Str(if escaped {
                        Cow::Owned(serde_json::from_str(&self.text[from..self.at]).ok()?)
                    } else {
                        Cow::Borrowed(s)
                    }))
                }
                b'[' => {
                    self.at += 1;
                    let mut strs = Vec::new();
                    if self.peek()? == b']' {
                        self.at += 1;
                        return Some(Scalar::Strs(strs));
                    }
                    loop {
                        if let Scalar::Str(s) = self.scalar()? {
                            strs.push(s);
                        }
                        match self.next()? {
                            b',' => {}
                            b']' => return Some(Scalar::Strs(strs)),
                            _ => return None,
                        }
                    }
                }
                b'{' => {
                    self.skip()?;
                    Some(Scalar::Other)
                }
                b't' => self.literal("true", Scalar::Bool(true)),
                b'f' => self.literal("false", Scalar::Bool(false)),
                b'n' => self.literal("null", Scalar::Null),
                _ => {
                    let bytes = self.text.as_bytes();
                    let start = self.at;
                    while self.at < bytes.len()
                        && matches!(
                            bytes[self.at],
                            b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'
                        )
                    {
                        self.at += 1;
                    }
                    // (serde_json's `float_roundtrip` parse is the correctly rounded one;
                    // an integer it reads as u64 or i64 converts to the same f64)
                    let n = &self.text[start..self.at];
                    (!n.is_empty() && n.as_bytes().last()?.is_ascii_digit())
                        .then(|| n.parse::<f64>().ok())
                        .flatten()
                        .filter(|x| x.is_finite())
                        .map(Scalar::Number)
                }
            }
        }

        fn literal(&mut self, word: &str, v: Scalar<'s>) -> Option<Scalar<'s>> {
            self.text[self.at..].starts_with(word).then(|| {
                self.at += word.len();
                v
            })
        }

        /// Steps over one value (strings read for their quotes, containers to their end).
        fn skip(&mut self) -> Option<()> {
            match self.peek()? {
                b'{' | b'[' => {
                    let mut depth = 0usize;
                    loop {
                        match self.peek()? {
                            b'"' => {
                                self.string()?;
                            }
                            b'{' | b'[' => {
                                depth += 1;
                                self.at += 1;
                            }
                            b'}' | b']' => {
                                depth -= 1;
                                self.at += 1;
                                if depth == 0 {
                                    return Some(());
                                }
                            }
                            _ => self.at += 1,
                        }
                    }
                }
                _ => self.scalar().map(|_| ()),
            }
        }
    }

    impl<'de, const N: usize> DeserializeSeed<'de> for Picked<'_, N> {
        type Value = [Option<Scalar<'de>>; N];
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_map(self)
        }
    }

    impl<'de, const N: usize> Visitor<'de> for Picked<'_, N> {
        type Value = [Option<Scalar<'de>>; N];
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
            let mut out: [Option<Scalar<'de>>; N] = std::array::from_fn(|_| None);
            while let Some(i) = m.next_key_seed(KeyIndex(&self.0))? {
                match i {
                    Some(i) => out[i] = Some(m.next_value_seed(ScalarSeed)?),
                    None => {
                        m.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(out)
        }
    }

    /// A key, as its index among the wanted keys (borrowed or unescaped: never copied).
    struct KeyIndex<'a, 'k>(&'a [&'k str]);

    impl<'de> DeserializeSeed<'de> for KeyIndex<'_, '_> {
        type Value = Option<usize>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_str(self)
        }
    }

    impl<'de> Visitor<'de> for KeyIndex<'_, '_> {
        type Value = Option<usize>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a key")
        }
        fn visit_str<E: serde::de::Error>(self, k: &str) -> Result<Self::Value, E> {
            Ok(self.0.iter().position(|x| *x == k))
        }
    }

    /// A value as a [`Scalar`]: strings borrowed from the text when they need no
    /// unescaping, an object skipped.
    struct ScalarSeed;

    impl<'de> DeserializeSeed<'de> for ScalarSeed {
        type Value = Scalar<'de>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_any(self)
        }
    }

    impl<'de> Visitor<'de> for ScalarSeed {
        type Value = Scalar<'de>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON value")
        }
        fn visit_unit<E>(self) -> Result<Scalar<'de>, E> {
            Ok(Scalar::Null)
        }
        fn visit_none<E>(self) -> Result<Scalar<'de>, E> {
            Ok(Scalar::Null)
        }
        fn visit_bool<E>(self, b: bool) -> Result<Scalar<'de>, E> {
            Ok(Scalar::Bool(b))
        }
        fn visit_i64<E>(self, x: i64) -> Result<Scalar<'de>, E> {
            Ok(Scalar::Number(x as f64))
        }
        fn visit_u64<E>(self, x: u64) -> Result<Scalar<'de>, E> {
            Ok(Scalar::Number(x as f64))
        }
        fn visit_f64<E>(self, x: f64) -> Result<Scalar<'de>, E> {
            Ok(Scalar::Number(x))
        }
        fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Scalar<'de>, E> {
            Ok(Scalar::Str(Cow::Borrowed(s)))
        }
        fn visit_str<E>(self, s: &str) -> Result<Scalar<'de>, E> {
            Ok(Scalar::Str(Cow::Owned(s.to_string())))
        }
        fn visit_string<E>(self, s: String) -> Result<Scalar<'de>, E> {
            Ok(Scalar::Str(Cow::Owned(s)))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Scalar<'de>, A::Error> {
            let mut strs = Vec::new();
            while let Some(x) = a.next_element_seed(ScalarSeed)? {
                if let Scalar::Str(s) = x {
                    strs.push(s);
                }
            }
            Ok(Scalar::Strs(strs))
        }
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Scalar<'de>, A::Error> {
            while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(Scalar::Other)
        }
    }
}

/// A directed graph with networkx `DiGraph` ordering semantics.
#[derive(Debug, Default)]
pub struct OutGraph {
    pub nodes: IndexMap<String, Map<String, Value>>,
    /// per node index: successor node index → edge attributes (insertion order)
    pub succ: Vec<IndexMap<usize, EdgeAttrs>>,
}

impl OutGraph {
    pub fn node_index(&mut self, id: &str) -> usize {
        if let Some(i) = self.nodes.get_index_of(id) {
            return i;
        }
        self.nodes.insert(id.to_string(), Map::new());
        self.succ.push(IndexMap::new());
        self.nodes.len() - 1
    }

    /// `add_node(id, **attrs)`: creates or updates attributes.
    pub fn add_node(&mut self, id: &str, attrs: Map<String, Value>) -> usize {
        let i = self.node_index(id);
        let m = &mut self.nodes[i];
        if m.is_empty() {
            // a new node: the attributes as given, in their order
            *m = attrs;
        } else {
            for (k, v) in attrs {
                m.insert(k, v);
            }
        }
        i
    }

    /// Each tool's node index, looked up (or made) once: for stages that add many edges
    /// between tools.
    pub fn tool_nodes(&mut self, tools: &[ToolSchema]) -> Vec<usize> {
        tools.iter().map(|t| self.node_index(&t.name)).collect()
    }

    pub fn has_node(&self, id: &str) -> bool {
        self.nodes.contains_key(id)
    }

    /// `add_edge(s, t, **attrs)`: creates the edge or updates its attribute dict.
    pub fn add_edge(&mut self, s: &str, t: &str, attrs: Map<String, Value>) {
        let si = self.node_index(s);
        let ti = self.node_index(t);
        self.add_edge_at(si, ti, attrs);
    }

    /// [`OutGraph::add_edge`] between nodes given by index ([`OutGraph::node_index`]).
    pub fn add_edge_at(&mut self, si: usize, ti: usize, attrs: Map<String, Value>) {
        match self.succ[si].entry(ti) {
            indexmap::map::Entry::Vacant(e) => {
                e.insert(EdgeAttrs::new(attrs));
            }
            indexmap::map::Entry::Occupied(mut e) => {
                let e = e.get_mut();
                let mut m = std::mem::replace(e, EdgeAttrs::Open(Map::new())).into_map();
                for (k, v) in attrs {
                    m.insert(k, v);
                }
                *e = EdgeAttrs::new(m);
            }
        }
    }

    /// Adds the edge `s → t` with attributes made beforehand ([`EdgeAttrs::new`]); an edge
    /// already there gets the new attributes over its own, as [`OutGraph::add_edge`].
    pub fn add_edge_attrs(&mut self, s: &str, t: &str, attrs: EdgeAttrs) {
        let si = self.node_index(s);
        let ti = self.node_index(t);
        self.add_edge_attrs_at(si, ti, attrs);
    }

    /// [`OutGraph::add_edge_attrs`] between nodes given by index.
    pub fn add_edge_attrs_at(&mut self, si: usize, ti: usize, attrs: EdgeAttrs) {
        match self.succ[si].entry(ti) {
            indexmap::map::Entry::Vacant(e) => {
                e.insert(attrs);
            }
            indexmap::map::Entry::Occupied(_) => self.add_edge_at(si, ti, attrs.into_map()),
        }
    }

    /// Replaces an edge's attribute dict (keeps the edge's position).
    pub fn replace_edge(&mut self, s: &str, t: &str, attrs: Map<String, Value>) {
        let si = self.node_index(s);
        let ti = self.node_index(t);
        self.replace_edge_at(si, ti, attrs);
    }

    /// [`OutGraph::replace_edge`] between nodes given by index.
    pub fn replace_edge_at(&mut self, si: usize, ti: usize, attrs: Map<String, Value>) {
        self.succ[si].insert(ti, EdgeAttrs::new(attrs));
    }

    /// The attributes of the edge `s → t`, if there is one.
    pub fn edge(&self, s: &str, t: &str) -> Option<Cow<'_, Map<String, Value>>> {
        let si = self.nodes.get_index_of(s)?;
        let ti = self.nodes.get_index_of(t)?;
        self.edge_at(si, ti)
    }

    /// [`OutGraph::edge`] between nodes given by index.
    pub fn edge_at(&self, si: usize, ti: usize) -> Option<Cow<'_, Map<String, Value>>> {
        self.succ[si].get(&ti).map(EdgeAttrs::map)
    }

    pub fn has_edge(&self, s: &str, t: &str) -> bool {
        let (Some(si), Some(ti)) = (self.nodes.get_index_of(s), self.nodes.get_index_of(t)) else {
            return false;
        };
        self.succ[si].contains_key(&ti)
    }

    pub fn edge_mut(&mut self, s: &str, t: &str) -> Option<&mut Map<String, Value>> {
        let si = self.nodes.get_index_of(s)?;
        let ti = self.nodes.get_index_of(t)?;
        self.succ[si].get_mut(&ti).map(EdgeAttrs::open)
    }

    pub fn edge_count(&self) -> usize {
        self.succ.iter().map(IndexMap::len).sum()
    }

    /// Edges in save order: grouped by source in node order, targets in insertion order.
    pub fn edges(&self) -> impl Iterator<Item = (&str, &str, Cow<'_, Map<String, Value>>)> {
        self.succ.iter().enumerate().flat_map(move |(si, m)| {
            m.iter().map(move |(&ti, a)| {
                (
                    self.nodes.get_index(si).unwrap().0.as_str(),
                    self.nodes.get_index(ti).unwrap().0.as_str(),
                    a.map(),
                )
            })
        })
    }

    /// `{"nodes": [...], "edges": [...]}` as `ToolGraph.save` writes it, consuming the
    /// graph (attribute maps are moved, not copied; each edge row is frozen).
    pub fn into_json(self) -> Value {
        let OutGraph { nodes, succ } = self;
        let ids: Vec<String> = nodes.keys().cloned().collect();
        // each node's row on every core
        let mut nodes: Vec<(String, Map<String, Value>)> = nodes.into_iter().collect();
        let nodes: Vec<Value> = crate::par::map_mut(&mut nodes, |(id, a)| {
            let a = std::mem::take(a);
            let mut m = Map::with_capacity(a.len() + 1);
            m.insert("id".into(), Value::String(std::mem::take(id)));
            m.extend(a);
            Value::Object(m)
        });
        // each node's edge rows on every core, then in node order
        let mut by_source: Vec<_> = succ.into_iter().enumerate().collect();
        let rows = crate::par::map_mut(&mut by_source, |(si, targets)| {
            let (si, ids) = (*si, &ids);
            std::mem::take(targets)
                .into_iter()
                .map(|(ti, a)| {
                    let a = match a {
                        EdgeAttrs::Frozen(text) => {
                            return frozen_edge_row(&ids[si], &ids[ti], &text);
                        }
                        EdgeAttrs::Open(a) => a,
                    };
                    let mut m = Map::with_capacity(a.len() + 2);
                    m.insert("source".into(), Value::String(ids[si].clone()));
                    m.insert("target".into(), Value::String(ids[ti].clone()));
                    m.extend(a);
                    // as compact text until written: a fifth of an attribute map's memory
                    crate::ingest::frozen::freeze(Value::Object(m))
                })
                .collect::<Vec<Value>>()
        });
        let edges: Vec<Value> = rows.into_iter().flatten().collect();
        crate::ingest::schema::object([
            ("nodes", Value::Array(nodes)),
            ("edges", Value::Array(edges)),
        ])
    }

    /// `{"nodes": [...], "edges": [...]}` as `ToolGraph.save` writes it.
    pub fn to_json(&self) -> Value {
        let nodes: Vec<Value> = self
            .nodes
            .iter()
            .map(|(id, a)| {
                let mut m = Map::new();
                m.insert("id".into(), Value::String(id.clone()));
                for (k, v) in a {
                    m.insert(k.clone(), v.clone());
                }
                Value::Object(m)
            })
            .collect();
        let edges: Vec<Value> = self
            .edges()
            .map(|(s, t, a)| {
                let mut m = Map::new();
                m.insert("source".into(), Value::String(s.into()));
                m.insert("target".into(), Value::String(t.into()));
                for (k, v) in a.iter() {
                    m.insert(k.clone(), v.clone());
                }
                Value::Object(m)
            })
            .collect();
        json!({"nodes": nodes, "edges": edges})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A tool's row written as text is the row built as a tree and frozen member by member
    /// (the form it replaced), for empty and full parameter, tag and annotation rows.
    #[test]
    fn a_tool_row_is_its_tree_frozen() {
        let param = |name: &str, required, enum_values| ParamSchema {
            name: name.into(),
            ty: "string".into(),
            description: "a \"quoted\" \\ é \u{202e}\n".into(),
            required,
            enum_values,
        };
        let full = ToolSchema {
            name: "get\u{1b}Pet".into(),
            description: "Gets a pet".into(),
            parameters: vec![
                param("id", true, None),
                param(
                    "kind",
                    false,
                    Some(json!(["a", 1.5, null, {"$ref": "#/x"}, [true]])),
                ),
            ],
            tags: vec!["pets".into(), "\"odd\"".into()],
            domain: Some("store".into()),
            metadata: json!({"method": "get"}).as_object().cloned().unwrap(),
            annotations: Some([Some(true), None, Some(false), None]),
            ..Default::default()
        };
        let empty = ToolSchema {
            name: "ping".into(),
            ..Default::default()
        };
        for t in [full, empty] {
            let mut old = t.to_json();
            if let Value::Object(m) = &mut old {
                for k in ["parameters", "tags", "annotations"] {
                    crate::ingest::frozen::freeze_member(m, k);
                }
            }
            let mut direct = String::new();
            crate::ingest::artifact::write_tool_pretty(&mut direct, &t, 2);
            let new = t.into_json();
            assert_eq!(new, old);
            let mut via_tree = String::new();
            crate::ingest::artifact::write_pretty(&mut via_tree, &new, 2);
            assert_eq!(direct, via_tree);
            let (mut a, mut b) = (String::new(), String::new());
            crate::ingest::artifact::write_pretty(&mut a, &new, 2);
            crate::ingest::artifact::write_pretty(&mut b, &old, 2);
            assert_eq!(a, b);
        }
    }

    /// An edge's attributes read the same through `pick` frozen or as a map: scalars,
    /// escaped strings, an array's strings, an object as `Other`, a missing key as `None`.
    #[test]
    fn pick_reads_frozen_and_open_attributes_alike() {
        let m = json!({
            "relation": "requires",
            "evidence": "a \"quoted\" \\ é \u{202e}",
            "conf_score": 0.82,
            "layer": 2,
            "big": 18446744073709551615u64,
            "neg": -3,
            "is_manual": false,
            "evidence_sources": ["api_contract", 1, {"x": 2}, ["nested"], "run"],
            "data_flow": {"from_path": "$.id", "semantic_tag": null},
            "kind": null,
        });
        let Value::Object(m) = m else { unreachable!() };
        let keys = [
            "relation",
            "evidence",
            "conf_score",
            "layer",
            "big",
            "neg",
            "is_manual",
            "evidence_sources",
            "data_flow",
            "kind",
            "absent",
        ];
        let open = EdgeAttrs::Open(m.clone());
        let frozen = EdgeAttrs::new(m);
        assert!(matches!(frozen, EdgeAttrs::Frozen(_)));
        let (a, b) = (open.pick(keys), frozen.pick(keys));
        assert_eq!(a, b);
        assert_eq!(
            b[1].as_ref().and_then(Scalar::as_str),
            Some("a \"quoted\" \\ é \u{202e}")
        );
        assert_eq!(b[2].as_ref().and_then(Scalar::as_f64), Some(0.82));
        assert_eq!(b[6].as_ref().and_then(Scalar::as_bool), Some(false));
        assert_eq!(
            b[7].as_ref().map(Scalar::strs).unwrap(),
            ["api_contract", "run"]
        );
        assert_eq!(b[8], Some(Scalar::Other));
        assert!(b[9].as_ref().is_some_and(Scalar::is_null) && b[10].is_none());
    }

    /// Any JSON value an edge's attributes can hold: escapes, non-ASCII, nested containers,
    /// numbers of every form the writer gives.
    fn arb_attr() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|i| json!(i)),
            any::<u64>().prop_map(|i| json!(i)),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(|f| json!(f)),
            Just(json!(-0.0)),
            "[a-z\\\"é\u{202e}\u{1b}\n{}\\[\\],:]{0,12}".prop_map(Value::String),
        ];
        crate::testutil::arb_json(leaf, "[a-z\"]{0,4}", (3, 32, 5))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// The byte scan picks what serde picks from the same frozen text, for any
        /// attributes, wanted or not, repeated or not.
        #[test]
        fn scanned_picks_are_serde_picks(
            members in proptest::collection::vec(
                (proptest::sample::select(vec!["relation", "evidence", "kind", "x", "a\"b", "é"]),
                 arb_attr()),
                0..8,
            ),
        ) {
            let m: Map<String, Value> =
                members.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
            let text = serde_json::to_string(&Value::Object(m)).unwrap();
            let keys = ["relation", "evidence", "kind", "x", "missing"];
            let mut de = serde_json::Deserializer::from_str(&text);
            let want = serde::de::DeserializeSeed::deserialize(pick::Picked(keys), &mut de).unwrap();
            match pick::scan(&text, &keys) {
                Some(got) => proptest::prop_assert_eq!(got, want),
                // only an escaped key is left to serde
                None => proptest::prop_assert!(text.contains("a\\\"b"), "{}", text),
            }
        }
    }

    /// Text the scan cannot read is left to serde: whitespace, truncation, a bad literal.
    #[test]
    fn scan_leaves_other_text_to_serde() {
        for t in [
            "{ \"relation\":1}",
            "{\"relation\":1",
            "{\"relation\":tru}",
            "{\"relation\":\"a}",
            "{\"relation\":1e999}",
            "[1]",
            "{\"relation\":1}x",
        ] {
            assert!(pick::scan(t, &["relation"]).is_none(), "{t}");
        }
        let got = pick::scan("{}", &["relation"]).unwrap();
        assert!(got[0].is_none());
    }
}
