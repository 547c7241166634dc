//! The reference's `ToolSchema` as built at ingest time, tool registration normalisation
//! (spec §1.2) and the in-memory tool graph the builders fill (a networkx-like directed
//! graph: insertion-ordered nodes, per-node insertion-ordered successors, one edge per
//! ordered pair).

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

impl ToolSchema {
    /// The row written under `tools`, consuming the tool (no copy of its metadata); the
    /// parameter, tag and annotation rows are kept as compact text
    /// ([`crate::ingest::frozen`]) until written, as the big metadata subtrees are.
    pub fn into_json(mut self) -> Value {
        let md = std::mem::take(&mut self.metadata);
        let mut v = self.to_json_with(Map::new());
        if let Value::Object(m) = &mut v {
            for k in ["parameters", "tags", "annotations"] {
                crate::ingest::frozen::freeze_member(m, k);
            }
        }
        v["metadata"] = Value::Object(md);
        v
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
                    for (k, v) in [
                        "read_only_hint",
                        "destructive_hint",
                        "idempotent_hint",
                        "open_world_hint",
                    ]
                    .iter()
                    .zip(a)
                    {
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

/// A directed graph with networkx `DiGraph` ordering semantics.
#[derive(Debug, Default)]
pub struct OutGraph {
    pub nodes: IndexMap<String, Map<String, Value>>,
    /// per node index: successor node index → edge attributes (insertion order)
    pub succ: Vec<IndexMap<usize, Map<String, Value>>>,
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
        for (k, v) in attrs {
            m.insert(k, v);
        }
        i
    }

    pub fn has_node(&self, id: &str) -> bool {
        self.nodes.contains_key(id)
    }

    /// `add_edge(s, t, **attrs)`: creates the edge or updates its attribute dict.
    pub fn add_edge(&mut self, s: &str, t: &str, attrs: Map<String, Value>) {
        let si = self.node_index(s);
        let ti = self.node_index(t);
        match self.succ[si].entry(ti) {
            indexmap::map::Entry::Vacant(e) => {
                e.insert(attrs);
            }
            indexmap::map::Entry::Occupied(mut e) => {
                let e = e.get_mut();
                for (k, v) in attrs {
                    e.insert(k, v);
                }
            }
        }
    }

    /// Replaces an edge's attribute dict (keeps the edge's position).
    pub fn replace_edge(&mut self, s: &str, t: &str, attrs: Map<String, Value>) {
        let si = self.node_index(s);
        let ti = self.node_index(t);
        self.succ[si].insert(ti, attrs);
    }

    pub fn edge(&self, s: &str, t: &str) -> Option<&Map<String, Value>> {
        let si = self.nodes.get_index_of(s)?;
        let ti = self.nodes.get_index_of(t)?;
        self.succ[si].get(&ti)
    }

    pub fn edge_mut(&mut self, s: &str, t: &str) -> Option<&mut Map<String, Value>> {
        let si = self.nodes.get_index_of(s)?;
        let ti = self.nodes.get_index_of(t)?;
        self.succ[si].get_mut(&ti)
    }

    pub fn edge_count(&self) -> usize {
        self.succ.iter().map(IndexMap::len).sum()
    }

    /// Edges in save order: grouped by source in node order, targets in insertion order.
    pub fn edges(&self) -> impl Iterator<Item = (&str, &str, &Map<String, Value>)> {
        self.succ.iter().enumerate().flat_map(move |(si, m)| {
            m.iter().map(move |(&ti, a)| {
                (
                    self.nodes.get_index(si).unwrap().0.as_str(),
                    self.nodes.get_index(ti).unwrap().0.as_str(),
                    a,
                )
            })
        })
    }

    /// `{"nodes": [...], "edges": [...]}` as `ToolGraph.save` writes it, consuming the
    /// graph (attribute maps are moved, not copied; each edge row is frozen).
    pub fn into_json(self) -> Value {
        let OutGraph { nodes, succ } = self;
        let ids: Vec<String> = nodes.keys().cloned().collect();
        let nodes: Vec<Value> = nodes
            .into_iter()
            .map(|(id, a)| {
                let mut m = Map::with_capacity(a.len() + 1);
                m.insert("id".into(), Value::String(id));
                m.extend(a);
                Value::Object(m)
            })
            .collect();
        let mut edges = Vec::new();
        for (si, targets) in succ.into_iter().enumerate() {
            for (ti, a) in targets {
                let mut m = Map::with_capacity(a.len() + 2);
                m.insert("source".into(), Value::String(ids[si].clone()));
                m.insert("target".into(), Value::String(ids[ti].clone()));
                m.extend(a);
                // as compact text until written: a fifth of an attribute map's memory
                edges.push(crate::ingest::frozen::freeze(Value::Object(m)));
            }
        }
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
                for (k, v) in a {
                    m.insert(k.clone(), v.clone());
                }
                Value::Object(m)
            })
            .collect();
        json!({"nodes": nodes, "edges": edges})
    }
}
