//! Dependency detectors (spec §2.4.2–§2.4.4): structural (path hierarchy, CRUD, shared
//! schema refs), name-based, cross-resource and RPC patterns. The same detectors serve the
//! graphify build (labelled edges, `min_confidence` 0) and the legacy `ToolGraph` ingest
//! paths (`min_confidence` 0.7, unlabelled edges).

use indexmap::{IndexMap, IndexSet};
use rustc_hash::{FxHashMap, FxHashSet};

/// What the detectors read of a tool.
#[derive(Clone, Debug, Default)]
pub struct DetTool {
    pub name: String,
    pub method: Option<String>,
    pub path: Option<String>,
    pub params: Vec<String>,
    /// every `"$ref"` string anywhere in metadata (in walk order)
    pub all_refs: Vec<String>,
    /// `"$ref"` strings inside `metadata.response_schema`
    pub response_refs: Vec<String>,
    /// `"$ref"` strings in the rest of metadata
    pub request_refs: Vec<String>,
    pub controller: Option<String>,
    pub request_type: Option<String>,
    pub response_type: Option<String>,
}

#[derive(Clone, Debug)]
pub struct Relation {
    pub source: usize,
    pub target: usize,
    pub relation: &'static str,
    pub conf: f64,
    pub layer: u8,
    pub evidence: String,
}

pub struct Detected {
    pub relations: Vec<Relation>,
    pub budget_reached: bool,
}

const GENERIC_VERBS: &[&str] = &[
    "get", "set", "create", "update", "delete", "remove", "list", "fetch", "find", "search", "add",
    "put", "patch", "post", "read", "write",
];
const GENERIC_PARAMS: &[&str] = &[
    "id", "name", "type", "status", "page", "limit", "offset", "sort", "order", "filter", "q",
    "query", "format", "fields", "include", "exclude",
];

/// camelCase / `_` / `-` split, lower-cased (spec §1.2 "name tokens").
pub fn name_tokens(name: &str) -> Vec<String> {
    let mut spaced = String::with_capacity(name.len() + 8);
    let mut prev: Option<char> = None;
    for c in name.chars() {
        if let Some(p) = prev
            && (p.is_ascii_lowercase() || p.is_ascii_digit())
            && c.is_ascii_uppercase()
        {
            spaced.push(' ');
        }
        if c == '_' || c == '-' {
            spaced.push(' ');
        } else {
            spaced.push(c);
        }
        prev = Some(c);
    }
    crate::pytext::split_ws(&spaced)
        .map(crate::pytext::lower)
        .collect()
}

fn static_segments(path: &str) -> Vec<&str> {
    path.split('/')
        .filter(|s| !s.is_empty() && !s.starts_with('{'))
        .collect()
}

fn raw_segments(path: &str) -> Vec<&str> {
    path.split('/').filter(|s| !s.is_empty()).collect()
}

fn is_single(path: &str) -> bool {
    raw_segments(path)
        .last()
        .is_some_and(|s| s.starts_with('{'))
}

fn stripped(path: &str) -> String {
    let segs = static_segments(path);
    format!("/{}", segs.join("/"))
}

fn resource_of(path: &str) -> String {
    static_segments(path)
        .last()
        .copied()
        .unwrap_or("")
        .to_string()
}

struct Sink<'a> {
    out: Vec<Relation>,
    remaining: usize,
    tools: &'a [DetTool],
}

impl Sink<'_> {
    fn full(&self) -> bool {
        self.out.len() >= self.remaining
    }
    fn push(
        &mut self,
        s: usize,
        t: usize,
        relation: &'static str,
        conf: f64,
        layer: u8,
        ev: String,
    ) {
        if self.full() {
            return;
        }
        let _ = self.tools;
        self.out.push(Relation {
            source: s,
            target: t,
            relation,
            conf,
            layer,
            evidence: ev,
        });
    }
}

/// Runs all detectors. `budget` bounds the number of candidate relations.
pub fn detect(tools: &[DetTool], min_confidence: f64, budget: usize) -> Detected {
    let mut all: Vec<Relation> = Vec::new();
    let mut remaining = budget;
    for stage in 0..4 {
        if remaining == 0 {
            break;
        }
        let mut sink = Sink {
            out: Vec::new(),
            remaining,
            tools,
        };
        match stage {
            0 => structural(tools, &mut sink),
            1 => name_based(tools, &mut sink),
            2 => cross_resource(tools, &mut sink),
            _ => rpc(tools, &mut sink),
        }
        remaining = remaining.saturating_sub(sink.out.len());
        all.extend(sink.out);
    }
    // keep the highest-confidence relation per (source, target, relation)
    let mut best: IndexMap<(usize, usize, &'static str), Relation> = IndexMap::new();
    for r in all {
        let key = (r.source, r.target, r.relation);
        match best.get_mut(&key) {
            Some(old) => {
                if r.conf > old.conf {
                    *old = r;
                }
            }
            None => {
                best.insert(key, r);
            }
        }
    }
    let mut rels: Vec<Relation> = best
        .into_values()
        .filter(|r| r.conf >= min_confidence)
        .collect();
    rels.sort_by(|a, b| {
        b.conf
            .partial_cmp(&a.conf)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let budget_reached = rels.len() >= budget;
    Detected {
        relations: rels,
        budget_reached,
    }
}

// ------------------------------------------------------------------ layer 1: structural

fn structural(tools: &[DetTool], sink: &mut Sink) {
    let api: Vec<usize> = (0..tools.len())
        .filter(|&i| tools[i].method.is_some() && tools[i].path.is_some())
        .collect();
    if !api.is_empty() {
        path_hierarchy(tools, &api, sink);
        if sink.full() {
            return;
        }
        crud(tools, &api, sink);
        if sink.full() {
            return;
        }
    }
    shared_refs(tools, sink);
}

fn path_hierarchy(tools: &[DetTool], api: &[usize], sink: &mut Sink) {
    // index GET-single tools by stripped path
    let mut by_stripped: FxHashMap<String, Vec<usize>> = FxHashMap::default();
    for &i in api {
        let t = &tools[i];
        let (m, p) = (t.method.as_deref().unwrap(), t.path.as_deref().unwrap());
        if m.eq_ignore_ascii_case("get") && is_single(p) {
            by_stripped.entry(stripped(p)).or_default().push(i);
        }
    }
    for &i in api {
        if sink.full() {
            return;
        }
        let t = &tools[i];
        let p = t.path.as_deref().unwrap();
        let segs = raw_segments(p);
        if segs.len() < 2 {
            continue;
        }
        for depth in (1..segs.len()).rev() {
            let prefix = format!("/{}", segs[..depth].join("/"));
            let key = stripped(&prefix);
            let parents: Vec<usize> = by_stripped
                .get(&key)
                .map(|v| v.iter().copied().filter(|&j| j != i).collect())
                .unwrap_or_default();
            if parents.is_empty() {
                continue;
            }
            for j in parents {
                let ev = format!(
                    "{} ({}) requires data from {} ({})",
                    t.name,
                    p,
                    tools[j].name,
                    tools[j].path.as_deref().unwrap()
                );
                sink.push(i, j, "requires", 0.9, 1, ev);
            }
            break;
        }
    }
}

fn crud(tools: &[DetTool], api: &[usize], sink: &mut Sink) {
    let n = api.len();
    let segs: Vec<Vec<&str>> = api
        .iter()
        .map(|&i| static_segments(tools[i].path.as_deref().unwrap()))
        .collect();
    let max_depth = segs.iter().map(Vec::len).max().unwrap_or(0);
    let mut skip = 0;
    for depth in 0..max_depth.min(4) {
        let mut counts: IndexMap<&str, usize> = IndexMap::new();
        for s in &segs {
            if let Some(v) = s.get(depth) {
                *counts.entry(v).or_default() += 1;
            }
        }
        let top = counts.values().copied().max().unwrap_or(0);
        if (top as f64) > (n as f64) * 0.4 {
            skip = depth + 1;
        } else {
            break;
        }
    }
    let mut groups: IndexMap<&str, Vec<usize>> = IndexMap::new();
    for (k, s) in segs.iter().enumerate() {
        // a path without static segments ("/", "/{id}") falls in the group of the empty key
        let key = if s.len() > skip {
            s[skip]
        } else {
            s.last().copied().unwrap_or("")
        };
        groups.entry(key).or_default().push(k);
    }
    // each tool's role and resource, once (the pairs below compare them many times)
    let role: Vec<CrudRole> = api.iter().map(|&i| CrudRole::of(&tools[i])).collect();
    let res: Vec<&str> = segs
        .iter()
        .map(|s| s.last().copied().unwrap_or(""))
        .collect();
    for members in groups.values() {
        let with = |r: CrudRole| -> Vec<usize> {
            members.iter().copied().filter(|&k| role[k] == r).collect()
        };
        let posts = with(CrudRole::PostCollection);
        let get_single = with(CrudRole::GetSingle);
        let get_coll = with(CrudRole::GetCollection);
        let del_single = with(CrudRole::DeleteSingle);
        let name = |k: usize| tools[api[k]].name.as_str();
        for &p in &posts {
            for &g in &get_single {
                if sink.full() {
                    return;
                }
                if res[p] == res[g] {
                    let ev = format!(
                        "{} (GET single) requires {} (POST) — same resource '{}'",
                        name(g),
                        name(p),
                        res[p]
                    );
                    sink.push(api[g], api[p], "requires", 0.9, 1, ev);
                }
            }
        }
        for &c in &get_coll {
            for &g in &get_single {
                if sink.full() {
                    return;
                }
                if name(c) != name(g) {
                    let ev = format!(
                        "{} (GET list) and {} (GET single) are similar (same resource)",
                        name(c),
                        name(g)
                    );
                    sink.push(api[c], api[g], "similar_to", 0.85, 1, ev);
                }
            }
        }
        for &p in &posts {
            for &d in &del_single {
                if sink.full() {
                    return;
                }
                if res[p] == res[d] {
                    let ev = format!(
                        "{} (create) precedes {} (delete) — same resource '{}'",
                        name(p),
                        name(d),
                        res[p]
                    );
                    sink.push(api[p], api[d], "precedes", 0.85, 1, ev);
                }
            }
        }
    }
}

/// What a CRUD pair needs of an operation: its method among the four and whether its
/// path ends in a parameter (a single item), else `Other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CrudRole {
    PostCollection,
    GetSingle,
    GetCollection,
    DeleteSingle,
    Other,
}

impl CrudRole {
    fn of(t: &DetTool) -> CrudRole {
        let (m, p) = (t.method.as_deref().unwrap(), t.path.as_deref().unwrap());
        let single = is_single(p);
        let is = |name: &str| m.eq_ignore_ascii_case(name);
        match () {
            _ if is("post") && !single => CrudRole::PostCollection,
            _ if is("get") && single => CrudRole::GetSingle,
            _ if is("get") => CrudRole::GetCollection,
            _ if is("delete") && single => CrudRole::DeleteSingle,
            _ => CrudRole::Other,
        }
    }
}

fn shared_refs(tools: &[DetTool], sink: &mut Sink) {
    let n = tools.len();
    let cap = 25usize.min(8usize.max((n as f64 * 0.05).ceil() as usize));
    let mut usage: FxHashMap<&str, usize> = FxHashMap::default();
    let all: Vec<IndexSet<&str>> = tools
        .iter()
        .map(|t| t.all_refs.iter().map(String::as_str).collect())
        .collect();
    for set in &all {
        for r in set {
            *usage.entry(r).or_default() += 1;
        }
    }
    let keep = |r: &&str| usage.get(r).copied().unwrap_or(0) <= cap;
    let all: Vec<IndexSet<&str>> = all
        .into_iter()
        .map(|s| s.into_iter().filter(keep).collect())
        .collect();
    let resp: Vec<IndexSet<&str>> = tools
        .iter()
        .map(|t| {
            t.response_refs
                .iter()
                .map(String::as_str)
                .filter(keep)
                .collect()
        })
        .collect();
    let req: Vec<IndexSet<&str>> = tools
        .iter()
        .map(|t| {
            t.request_refs
                .iter()
                .map(String::as_str)
                .filter(keep)
                .collect()
        })
        .collect();
    // pairs sharing a ref: via an inverted index (same pairs as the all-pairs loop)
    let mut by_ref: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    for (i, s) in all.iter().enumerate() {
        for r in s {
            by_ref.entry(r).or_default().push(i);
        }
    }
    for i in 0..n {
        if all[i].is_empty() {
            continue;
        }
        let mut partners: Vec<usize> = Vec::new();
        let mut seen = FxHashSet::default();
        for r in &all[i] {
            for &j in &by_ref[r] {
                if j > i && seen.insert(j) {
                    partners.push(j);
                }
            }
        }
        partners.sort_unstable();
        for j in partners {
            let mut shared: Vec<&str> = all[i].intersection(&all[j]).copied().collect();
            shared.sort_unstable();
            let ev = format!(
                "{} and {} share schema refs: {}",
                tools[i].name,
                tools[j].name,
                shared.join(", ")
            );
            sink.push(i, j, "complementary", 0.85, 1, ev);
            if sink.full() {
                return;
            }
        }
    }
    let mut req_by_ref: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    for (i, s) in req.iter().enumerate() {
        for r in s {
            req_by_ref.entry(r).or_default().push(i);
        }
    }
    for p in 0..n {
        if resp[p].is_empty() {
            continue;
        }
        let mut consumers: Vec<usize> = Vec::new();
        let mut seen = FxHashSet::default();
        for r in &resp[p] {
            if let Some(v) = req_by_ref.get(r) {
                for &c in v {
                    if c != p && seen.insert(c) {
                        consumers.push(c);
                    }
                }
            }
        }
        consumers.sort_unstable();
        for c in consumers {
            let mut shared: Vec<&str> = resp[p].intersection(&req[c]).copied().collect();
            shared.sort_unstable();
            let ev = format!(
                "{}'s response feeds into {}'s request via shared schema: {}",
                tools[p].name,
                tools[c].name,
                shared.join(", ")
            );
            sink.push(p, c, "precedes", 0.9, 1, ev);
            if sink.full() {
                return;
            }
        }
    }
}

// ------------------------------------------------------------------ layer 2: name-based

fn name_based(tools: &[DetTool], sink: &mut Sink) {
    let res_tokens: Vec<Vec<String>> = tools
        .iter()
        .map(|t| {
            let mut v: Vec<String> = Vec::new();
            for tok in name_tokens(&t.name) {
                if !GENERIC_VERBS.contains(&tok.as_str()) && !v.contains(&tok) {
                    v.push(tok);
                }
            }
            v
        })
        .collect();
    let param_tokens: Vec<FxHashSet<String>> = tools
        .iter()
        .map(|t| {
            t.params
                .iter()
                .flat_map(|p| name_tokens(p))
                .filter(|tok| !GENERIC_PARAMS.contains(&tok.as_str()))
                .collect()
        })
        .collect();
    // inverted index: param token -> tools having it
    let mut by_tok: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    for (i, set) in param_tokens.iter().enumerate() {
        for tok in set {
            by_tok.entry(tok.as_str()).or_default().push(i);
        }
    }
    for (c, creator) in tools.iter().enumerate() {
        if !creator
            .method
            .as_deref()
            .is_some_and(|m| m.eq_ignore_ascii_case("post"))
        {
            continue;
        }
        if res_tokens[c].is_empty() {
            continue;
        }
        let mut cands: Vec<usize> = Vec::new();
        let mut seen = FxHashSet::default();
        for tok in &res_tokens[c] {
            if let Some(v) = by_tok.get(tok.as_str()) {
                for &b in v {
                    if b != c && seen.insert(b) {
                        cands.push(b);
                    }
                }
            }
        }
        cands.sort_unstable();
        for b in cands {
            let mut shared: Vec<&str> = res_tokens[c]
                .iter()
                .filter(|t| param_tokens[b].contains(*t))
                .map(String::as_str)
                .collect();
            shared.sort_unstable();
            let conf = if shared.len() >= 2 {
                0.85
            } else if tools[b].params.iter().any(|p| {
                let pl = crate::pytext::lower(p);
                pl.contains("id") && shared.iter().any(|s| pl.contains(s))
            }) {
                0.8
            } else {
                continue;
            };
            let ev = format!(
                "{} has params referencing {}'s resource: {}",
                tools[b].name,
                creator.name,
                shared.join(", ")
            );
            sink.push(b, c, "requires", conf, 2, ev);
            if sink.full() {
                return;
            }
        }
    }
}

// ------------------------------------------------------------ layer 3: cross-resource

fn cross_resource(tools: &[DetTool], sink: &mut Sink) {
    const SKIP: &[&str] = &["get", "list", "create", "add", "post", "read", "find"];
    let mut providers: FxHashMap<String, Vec<usize>> = FxHashMap::default();
    for (i, t) in tools.iter().enumerate() {
        let m = t.method.as_deref().map(str::to_ascii_lowercase);
        if !matches!(m.as_deref(), Some("get") | Some("post")) {
            continue;
        }
        let mut seen = FxHashSet::default();
        for tok in name_tokens(&t.name) {
            if SKIP.contains(&tok.as_str()) || !seen.insert(tok.clone()) {
                continue;
            }
            providers.entry(tok).or_default().push(i);
        }
    }
    for (i, t) in tools.iter().enumerate() {
        let my_res = t.path.as_deref().map(resource_of);
        for p in &t.params {
            let lower = crate::pytext::lower(p);
            let resource = if let Some(base) = lower.strip_suffix("id") {
                let base = base.strip_suffix('_').unwrap_or(base);
                if base.chars().count() >= 3 {
                    Some(base.to_string())
                } else {
                    None
                }
            } else {
                None
            };
            let resource = resource.or_else(|| {
                lower.find("_id").and_then(|k| {
                    let b = &lower[..k];
                    (b.chars().count() >= 3).then(|| b.to_string())
                })
            });
            let Some(resource) = resource else { continue };
            let Some(provs) = providers.get(&resource) else {
                continue;
            };
            for &j in provs {
                if j == i {
                    continue;
                }
                let pt = &tools[j];
                let pm = pt.method.as_deref().unwrap_or("");
                let Some(pp) = pt.path.as_deref() else {
                    continue;
                };
                if !pm.eq_ignore_ascii_case("get") || !is_single(pp) {
                    continue;
                }
                if my_res.as_deref() == Some(resource_of(pp).as_str()) {
                    continue;
                }
                let ev = format!(
                    "{} has param '{}' referencing {}'s resource '{}'",
                    t.name, p, pt.name, resource
                );
                sink.push(i, j, "requires", 0.85, 3, ev);
                if sink.full() {
                    return;
                }
            }
        }
    }
}

// ------------------------------------------------------------------- layer 4: RPC

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Intent {
    Read,
    Write,
    Update,
    Delete,
    Action,
}

impl Intent {
    fn label(self) -> &'static str {
        match self {
            Intent::Read => "read",
            Intent::Write => "write",
            Intent::Update => "update",
            Intent::Delete => "delete",
            Intent::Action => "action",
        }
    }
}

fn verb_intent(tok: &str) -> Option<Intent> {
    Some(match tok {
        "get" | "find" | "fetch" | "list" | "search" | "select" | "load" | "read" | "download" => {
            Intent::Read
        }
        "save" | "create" | "add" | "insert" | "register" | "regist" | "reg" => Intent::Write,
        "modify" | "update" | "edit" | "change" | "patch" => Intent::Update,
        "delete" | "remove" | "cancel" | "withdraw" => Intent::Delete,
        "process" | "execute" | "apply" | "approve" | "reject" | "confirm" | "accept" | "send"
        | "upload" | "export" => Intent::Action,
        _ => return None,
    })
}

const VIEW_SUFFIXES: &[&str] = &[
    "list", "detail", "details", "info", "count", "excel", "popup", "summary", "check", "data",
    "total", "all", "page", "download",
];

fn rpc(tools: &[DetTool], sink: &mut Sink) {
    let mut groups: IndexMap<String, Vec<(usize, Intent)>> = IndexMap::new();
    for (i, t) in tools.iter().enumerate() {
        let toks = name_tokens(&t.name);
        let Some(vi) = toks.iter().position(|x| verb_intent(x).is_some()) else {
            continue;
        };
        let intent = verb_intent(&toks[vi]).unwrap();
        let resource: String = toks[vi + 1..]
            .iter()
            .filter(|x| !VIEW_SUFFIXES.contains(&x.as_str()))
            .map(String::as_str)
            .collect();
        if resource.is_empty() {
            continue;
        }
        groups.entry(resource).or_default().push((i, intent));
    }
    for (resource, members) in &groups {
        if members.len() < 2 {
            continue;
        }
        let same_ctrl = |a: usize, b: usize| {
            let (x, y) = (&tools[a].controller, &tools[b].controller);
            matches!((x, y), (Some(x), Some(y)) if !x.is_empty() && x == y)
        };
        for &(a, ia) in members {
            for &(b, ib) in members {
                if a == b {
                    continue;
                }
                let sc = same_ctrl(a, b);
                let conf = match (ia, ib) {
                    (Intent::Read, Intent::Write) => Some(if sc { 0.9 } else { 0.8 }),
                    (Intent::Update, Intent::Read) => Some(if sc { 0.85 } else { 0.75 }),
                    (Intent::Delete, Intent::Read) => Some(if sc { 0.85 } else { 0.75 }),
                    (Intent::Action, Intent::Read) => {
                        if sc {
                            Some(0.75)
                        } else {
                            None
                        }
                    }
                    _ => None,
                };
                if let Some(conf) = conf {
                    let ev = format!(
                        "{} ({}) → {} ({}) — resource '{}'",
                        tools[a].name,
                        ia.label(),
                        tools[b].name,
                        ib.label(),
                        resource
                    );
                    sink.push(a, b, "requires", conf, 4, ev);
                    if sink.full() {
                        return;
                    }
                }
            }
        }
        // readers of one controller are similar
        let readers: Vec<usize> = members
            .iter()
            .filter(|(_, i)| *i == Intent::Read)
            .map(|(a, _)| *a)
            .collect();
        for x in 0..readers.len() {
            for y in x + 1..readers.len() {
                let (a, b) = (readers[x], readers[y]);
                if same_ctrl(a, b) {
                    let ev = format!(
                        "{} and {} both read '{}' in the same controller",
                        tools[a].name, tools[b].name, resource
                    );
                    sink.push(a, b, "similar_to", 0.8, 4, ev);
                }
            }
        }
    }
    // DTO links
    const DTO_STOP: &[&str] = &[
        "request", "response", "dto", "entity", "info", "base", "api", "vo", "model", "form",
        "param", "result", "ml",
    ];
    let dto_key = |s: &Option<String>| -> Option<String> {
        let s = s.as_deref()?;
        let k: String = name_tokens(s)
            .into_iter()
            .filter(|t| !DTO_STOP.contains(&t.as_str()))
            .collect();
        (k.chars().count() >= 4).then_some(k)
    };
    let mut dto: IndexMap<String, Vec<usize>> = IndexMap::new();
    for (i, t) in tools.iter().enumerate() {
        let mut keys: Vec<String> = Vec::new();
        for k in [dto_key(&t.request_type), dto_key(&t.response_type)]
            .into_iter()
            .flatten()
        {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        for k in keys {
            dto.entry(k).or_default().push(i);
        }
    }
    for (key, members) in &dto {
        if members.len() < 2 || members.len() > 20 {
            continue;
        }
        for x in 0..members.len() {
            for y in x + 1..members.len() {
                let (a, b) = (members[x], members[y]);
                let (ca, cb) = (&tools[a].controller, &tools[b].controller);
                if ca == cb {
                    continue;
                }
                let ev = format!(
                    "{} and {} share DTO '{}'",
                    tools[a].name, tools[b].name, key
                );
                sink.push(a, b, "complementary", 0.75, 4, ev);
            }
        }
    }
}
