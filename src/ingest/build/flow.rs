//! Contract data-flow edges (spec §2.4.7): consumer → producer `requires` edges from the
//! promoted contract rows, with an inverted producer index so matching stays linear in the
//! number of rows. The edges read the rows through [`FlowRows`], taken when the rows were
//! promoted (the rows themselves are then kept as compact text until written).

use indexmap::IndexMap;
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::{Value, json};

use super::contracts::{identifier_like, loose, merge_edges};
use crate::ingest::row::Field;
use crate::ingest::schema::{EdgeAttrs, OutGraph, ToolSchema};

/// The keys a producer row is found by (spec 2.4.7): semantic tag, field name, loose key and
/// description alias key.
const KEY_KINDS: usize = 4;
type Keys = [Option<String>; KEY_KINDS];

/// What the data-flow edges read of a tool's promoted `produces` and `consumes` rows.
#[derive(Clone, Debug, Default)]
pub struct FlowRows {
    pub produces: Vec<ProduceView>,
    pub consumes: Vec<ConsumeView>,
}

/// A promoted produce row as the data-flow edges read it.
#[derive(Clone, Debug)]
pub struct ProduceView {
    keys: Keys,
    /// `json_path` (when it is a string)
    json_path: Option<String>,
    /// `signal_score` (0 unless an integer)
    score: i64,
    /// the semantic tag was not inferred from the field name
    inferred: bool,
}

/// A promoted consume row as the data-flow edges read it.
#[derive(Clone, Debug)]
pub struct ConsumeView {
    keys: Keys,
    /// required, and of kind `data`: a row that asks for a producer
    wanted: bool,
}

impl ProduceView {
    pub fn of(r: &impl Field) -> ProduceView {
        ProduceView {
            keys: keys_of(r),
            json_path: r
                .field("json_path")
                .and_then(Value::as_str)
                .map(String::from),
            score: r.field("signal_score").and_then(Value::as_i64).unwrap_or(0),
            inferred: r.field("semantic_inferred_from").and_then(Value::as_str)
                != Some("field_name"),
        }
    }

    /// The view with `signal_score` set to `score` (what [`ProduceView::of`] reads of the
    /// row once its score is set).
    pub fn with_score(mut self, score: i64) -> ProduceView {
        self.score = score;
        self
    }
}

impl ConsumeView {
    pub fn of(r: &impl Field) -> ConsumeView {
        let required = r
            .field("required")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let kind = r.field("kind").and_then(Value::as_str).unwrap_or("data");
        ConsumeView {
            keys: keys_of(r),
            wanted: required && kind == "data",
        }
    }
}

/// The row's field name (`""` when it has none).
fn field(keys: &Keys) -> &str {
    keys[1].as_deref().unwrap_or("")
}

impl FlowRows {
    /// The views of a tool's rows as its metadata holds them (trees or frozen text).
    pub fn of_metadata(t: &ToolSchema) -> FlowRows {
        let rows = |k: &str| -> Vec<Value> {
            match t.metadata.get(k) {
                Some(Value::Array(a)) => a.clone(),
                Some(v) => match super::contracts::thawed(v) {
                    Some(Value::Array(a)) => a,
                    _ => Vec::new(),
                },
                None => Vec::new(),
            }
        };
        FlowRows {
            produces: rows("produces").iter().map(ProduceView::of).collect(),
            consumes: rows("consumes").iter().map(ConsumeView::of).collect(),
        }
    }
}

fn action_bonus(t: &ToolSchema) -> i64 {
    match t
        .metadata
        .get("ai_metadata")
        .and_then(|a| a.get("canonical_action"))
        .and_then(Value::as_str)
    {
        Some("search") => 4,
        Some("read") => 3,
        Some("list") | Some("lookup") => 2,
        _ => 0,
    }
}

fn keys_of(r: &impl Field) -> Keys {
    let sem = r
        .field("semantic_tag")
        .and_then(Value::as_str)
        .map(String::from);
    let f = Some(name_of(r).to_string()).filter(|x| !x.is_empty());
    let l = f.as_deref().map(loose).filter(|x| !x.is_empty());
    let d = description_key(r);
    [sem, f, l, d]
}

fn name_of(r: &impl Field) -> &str {
    r.field("field_name").and_then(Value::as_str).unwrap_or("")
}

/// Descriptions that name no particular field (after [`description_key`] folding).
const GENERIC_DESCRIPTIONS: &[&str] = &[
    "id",
    "identifier",
    "no",
    "number",
    "code",
    "key",
    "seq",
    "sequence",
    "uuid",
    "name",
    "title",
    "status",
    "state",
    "type",
    "value",
    "flag",
    "description",
    "content",
    "아이디",
    "식별자",
    "번호",
    "코드",
    "키",
    "순번",
    "일련번호",
    "명",
    "이름",
    "제목",
    "상태",
    "유형",
    "타입",
    "값",
    "여부",
    "구분",
    "내용",
    "설명",
    "목록",
    "리스트",
    "일자",
    "날짜",
];

/// The description alias key of an identifier-like field: its description lower-cased with
/// everything but `[a-z0-9가-힣]` removed (two fields described alike carry the same value);
/// none when that is shorter than three characters or generic.
fn description_key(r: &impl Field) -> Option<String> {
    // the description first: most rows have none, and the name check splits words
    let d = r
        .field("description")
        .and_then(Value::as_str)
        .filter(|d| !d.is_empty())?;
    if !identifier_like(name_of(r)) {
        return None;
    }
    let key: String = d
        .chars()
        .flat_map(char::to_lowercase)
        .filter(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || ('가'..='힣').contains(c))
        .collect();
    (key.chars().count() >= 3 && !GENERIC_DESCRIPTIONS.contains(&key.as_str())).then_some(key)
}

/// The producers of one consumer's keys, best first (score descending, then tool name),
/// with the candidate tools that were skipped as echoes.
struct Ranked {
    /// (producer tool, index of its matching produce row)
    producers: Vec<(usize, usize)>,
    /// every candidate tool, sorted (a consumer among them skips itself)
    candidates: Vec<usize>,
    /// candidates skipped because they consume the key themselves, sorted
    echo_of: Vec<usize>,
}

/// The producer index: key kind and value → the tools with a produce row of that key (in
/// order, once each); the strings are the views'.
type Index<'f> = FxHashMap<(u8, &'f str), Vec<usize>>;

/// Each tool's consumed keys by kind (the echo check).
type Consumed<'f> = Vec<[FxHashSet<&'f str>; KEY_KINDS]>;

fn rank_producers(
    tools: &[ToolSchema],
    flows: &[FlowRows],
    index: &Index,
    cons_keys: &Consumed,
    keys: &Keys,
) -> Ranked {
    let mut cands: IndexMap<usize, ()> = IndexMap::new();
    for (k, v) in keys.iter().enumerate() {
        if let Some(v) = v
            && let Some(list) = index.get(&(k as u8, v.as_str()))
        {
            for &p in list {
                cands.insert(p, ());
            }
        }
    }
    let mut scored: Vec<(i64, &str, usize, usize)> = Vec::new();
    let mut echo_of = Vec::new();
    for (&p, _) in &cands {
        let Some(ri) = flows[p]
            .produces
            .iter()
            .position(|pv| (0..KEY_KINDS).any(|k| pv.keys[k].is_some() && pv.keys[k] == keys[k]))
        else {
            continue;
        };
        let prow = &flows[p].produces[ri];
        // echo: the producer itself consumes the same key
        let pk = &prow.keys;
        if (0..KEY_KINDS).any(|k| {
            pk[k]
                .as_deref()
                .is_some_and(|v| cons_keys[p][k].contains(v))
        }) {
            echo_of.push(p);
            continue;
        }
        let score = prow.score + action_bonus(&tools[p]) + 2 * prow.inferred as i64;
        scored.push((score, tools[p].name.as_str(), p, ri));
    }
    scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    let mut candidates: Vec<usize> = cands.into_keys().collect();
    candidates.sort_unstable();
    echo_of.sort_unstable();
    Ranked {
        producers: scored.into_iter().map(|x| (x.2, x.3)).collect(),
        candidates,
        echo_of,
    }
}

/// The producer index (key kind + value → the tools with a produce row of that key, in
/// order, once each) and each tool's consumed keys by kind (the echo check).
fn indexes(flows: &[FlowRows]) -> (Index<'_>, Consumed<'_>) {
    // the producer index on this thread, the consumers' key sets beside it
    crate::par::join(|| producer_index(flows), || consumed(flows))
}

fn producer_index(flows: &[FlowRows]) -> Index<'_> {
    let mut index: Index = FxHashMap::default();
    for (i, f) in flows.iter().enumerate() {
        for row in &f.produces {
            for (k, v) in row.keys.iter().enumerate() {
                if let Some(v) = v {
                    // rows of one tool are contiguous: checking the last entry dedupes
                    let e = index.entry((k as u8, v.as_str())).or_default();
                    if e.last() != Some(&i) {
                        e.push(i);
                    }
                }
            }
        }
    }
    index
}

fn consumed(flows: &[FlowRows]) -> Consumed<'_> {
    flows
        .iter()
        .map(|f| {
            let mut sets: [FxHashSet<&str>; KEY_KINDS] = Default::default();
            for row in &f.consumes {
                for (k, v) in row.keys.iter().enumerate() {
                    if let Some(v) = v {
                        sets[k].insert(v.as_str());
                    }
                }
            }
            sets
        })
        .collect()
}

/// §2.4.7: consumer → producer `requires` edges from promoted contracts. Each tool's
/// [`FlowRows`] are taken (made from its metadata when promotion left none).
pub fn data_flow_edges(tools: &mut [ToolSchema], graph: &mut OutGraph) -> Value {
    let flows: Vec<FlowRows> = crate::par::map_mut(tools, |t| match t.flow.take() {
        Some(f) => *f,
        None => FlowRows::of_metadata(t),
    });
    let tools = &*tools;
    let (index, cons_keys) = indexes(&flows);
    // the edges each consumer asks for, ranked and written (as compact text) on every core;
    // then added to the graph in consumer order on this thread
    let planned = crate::par::map_chunks(tools, |chunk, first| {
        plan_edges(
            tools,
            &flows,
            &index,
            &cons_keys,
            first..first + chunk.len(),
        )
    });
    let (mut added, mut merged) = (0, 0);
    let mut counts = Skips::default();
    let node = graph.tool_nodes(tools);
    for plan in planned {
        counts.add(&plan.skips);
        for (ci, p, a) in plan.edges {
            let (c, p) = (node[ci], node[p]);
            match graph.edge_at(c, p).map(std::borrow::Cow::into_owned) {
                Some(old) => {
                    let m = merge_edges(&old, &a.into_map(), true);
                    graph.replace_edge_at(c, p, m);
                    merged += 1;
                }
                None => {
                    graph.add_edge_attrs_at(c, p, a);
                    added += 1;
                }
            }
        }
    }
    json!({
        "added": added,
        "merged": merged,
        "skipped_self": counts.self_skips,
        "skipped_no_producer": counts.no_prod,
        "skipped_echo": counts.echo,
        "skipped_consumer_scope": 0,
    })
}

/// What ranking the producers skipped, counted per consumer row.
#[derive(Default)]
struct Skips {
    self_skips: usize,
    no_prod: usize,
    echo: usize,
}

impl Skips {
    fn add(&mut self, o: &Skips) {
        self.self_skips += o.self_skips;
        self.no_prod += o.no_prod;
        self.echo += o.echo;
    }
}

/// The `requires` edges a run of consumers asks for, in order: (consumer, producer, the
/// edge's attributes), with what was skipped.
struct Plan {
    edges: Vec<(usize, usize, EdgeAttrs)>,
    skips: Skips,
}

fn plan_edges(
    tools: &[ToolSchema],
    flows: &[FlowRows],
    index: &Index,
    cons_keys: &Consumed,
    consumers: std::ops::Range<usize>,
) -> Plan {
    let mut plan = Plan {
        edges: Vec::new(),
        skips: Skips::default(),
    };
    let mut ranking_cache: FxHashMap<&Keys, Ranked> = FxHashMap::default();
    for ci in consumers {
        let c = &tools[ci];
        for keys in flows[ci]
            .consumes
            .iter()
            .filter(|r| r.wanted)
            .map(|r| &r.keys)
        {
            // the ranked producers depend only on the four keys (the consumer itself is
            // skipped below), so equal keys share one ranking
            let ranked = ranking_cache
                .entry(keys)
                .or_insert_with(|| rank_producers(tools, flows, index, cons_keys, keys));
            let mut top: Vec<(usize, usize)> = Vec::with_capacity(3);
            let mut candidates = false;
            for &(p, ri) in &ranked.producers {
                if p == ci {
                    continue;
                }
                candidates = true;
                if top.len() < 3 {
                    top.push((p, ri));
                }
            }
            if ranked.candidates.binary_search(&ci).is_ok() {
                plan.skips.self_skips += 1;
            }
            plan.skips.echo +=
                ranked.echo_of.len() - usize::from(ranked.echo_of.binary_search(&ci).is_ok());
            if !candidates {
                plan.skips.no_prod += 1;
                continue;
            }
            for (p, ri) in top {
                let prow = &flows[p].produces[ri];
                let a = requires_edge(&tools[p].name, prow, &c.name, keys);
                plan.edges.push((ci, p, a));
            }
        }
    }
    plan
}

/// The attributes of the `requires` edge from a consumer row (its keys) to a producer's
/// row, frozen: their compact text written straight (what `EdgeAttrs::new` makes of
/// [`requires_edge_map`]'s map, without the map: 208,034 of the 50k spec's edges).
fn requires_edge(producer: &str, prow: &ProduceView, consumer: &str, keys: &Keys) -> EdgeAttrs {
    use crate::jsonout::write_escaped;
    let e = RequiresEdge::of(producer, prow, consumer, keys);
    EdgeAttrs::written(|out| {
        out.push_str(concat!(
            r#"{"relation":"requires","confidence":"INFERRED","conf_score":0.82,"#,
            r#""layer":2,"evidence":"#
        ));
        write_escaped(out, &e.evidence);
        out.push_str(concat!(
            r#","kind":"data","evidence_sources":["api_contract"],"#,
            r#""data_flow":{"from_path":"#
        ));
        write_escaped(out, e.from_path);
        out.push_str(r#","from_field":"#);
        write_escaped(out, e.from_field);
        out.push_str(r#","to_field":"#);
        write_escaped(out, e.to_field);
        out.push_str(r#","semantic_tag":"#);
        match e.semantic_tag {
            Some(t) => write_escaped(out, t),
            None => out.push_str("null"),
        }
        out.push_str(r#"},"is_manual":false,"deleted_by_user":false}"#);
    })
}

/// What a `requires` edge's attributes say beyond their constants.
struct RequiresEdge<'a> {
    evidence: String,
    from_path: &'a str,
    from_field: &'a str,
    to_field: &'a str,
    semantic_tag: Option<&'a str>,
}

impl<'a> RequiresEdge<'a> {
    fn of(
        producer: &str,
        prow: &'a ProduceView,
        consumer: &str,
        keys: &'a Keys,
    ) -> RequiresEdge<'a> {
        let from_field = field(&prow.keys);
        let from_path = prow.json_path.as_deref().unwrap_or(from_field);
        let to_field = field(keys);
        RequiresEdge {
            evidence: format!(
                "api contract data flow: {producer}.{from_path} -> {consumer}.{to_field}"
            ),
            from_path,
            from_field,
            to_field,
            semantic_tag: keys[0].as_deref().or(prow.keys[0].as_deref()),
        }
    }
}

/// [`requires_edge`]'s attributes as a map (what its text must parse to).
#[cfg(test)]
fn requires_edge_map(
    producer: &str,
    prow: &ProduceView,
    consumer: &str,
    keys: &Keys,
) -> serde_json::Map<String, Value> {
    let e = RequiresEdge::of(producer, prow, consumer, keys);
    let mut a = serde_json::Map::new();
    a.insert("relation".into(), json!("requires"));
    a.insert("confidence".into(), json!("INFERRED"));
    a.insert("conf_score".into(), json!(0.82));
    a.insert("layer".into(), json!(2));
    a.insert("evidence".into(), json!(e.evidence));
    a.insert("kind".into(), json!("data"));
    a.insert("evidence_sources".into(), json!(["api_contract"]));
    a.insert(
        "data_flow".into(),
        json!({"from_path": e.from_path, "from_field": e.from_field, "to_field": e.to_field, "semantic_tag": e.semantic_tag}),
    );
    a.insert("is_manual".into(), json!(false));
    a.insert("deleted_by_user".into(), json!(false));
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `requires` edge's text, written straight, is what freezing its map gives: the
    /// same bytes, for names and fields that need escaping and for a missing tag.
    #[test]
    fn requires_edge_text_is_its_map_frozen() {
        let key = |s: &str| (!s.is_empty()).then(|| s.to_string());
        let keys_of = |a: &str, b: &str| -> Keys {
            std::array::from_fn(|i| key([a, b][..].get(i).copied().unwrap_or("")))
        };
        let cases = [
            (
                "listPets",
                "$.data[*].id",
                "pet_id",
                "id",
                "getPet",
                "pet_id",
                "petId",
            ),
            ("a\"b\\c", "", "", "x\u{202e}y", "c\u{7}d", "", "t\u{0}u"),
            ("p", "$.é", "tag", "f", "c", "", "g"),
        ];
        for (producer, path, ptag, pfield, consumer, ctag, cfield) in cases {
            let prow = ProduceView {
                keys: keys_of(ptag, pfield),
                json_path: key(path),
                score: 0,
                inferred: false,
            };
            let keys = keys_of(ctag, cfield);
            let fast = requires_edge(producer, &prow, consumer, &keys);
            let slow = EdgeAttrs::new(requires_edge_map(producer, &prow, consumer, &keys));
            match (&fast, &slow) {
                (EdgeAttrs::Frozen(a), EdgeAttrs::Frozen(b)) => assert_eq!(a, b),
                other => panic!("not both frozen: {other:?}"),
            }
            assert_eq!(fast.map(), slow.map());
        }
    }
}
