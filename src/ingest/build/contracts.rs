//! Contract promotion (spec §2.5) and the edge normalisation and merge rules (§2.3) every
//! edge-adding stage shares; the contract data-flow edges (§2.4.7) are in [`super::flow`].

use crate::ingest::row::{Field, Row};
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::{Map, Value, json};
use std::sync::Arc;

use crate::ingest::schema::ToolSchema;

const AUTH: &[&str] = &[
    "authorization",
    "accessToken",
    "access_token",
    "apiKey",
    "api_key",
    "token",
    "cookie",
    "jwt",
];
const PAGING: &[&str] = &[
    "page",
    "pageNo",
    "page_no",
    "pageNumber",
    "page_number",
    "pageSize",
    "page_size",
    "size",
    "limit",
    "offset",
    "sort",
    "orderBy",
    "order_by",
];
const SEARCH: &[&str] = &[
    "q",
    "query",
    "keyword",
    "keywords",
    "search",
    "searchText",
    "search_text",
    "filter",
    "filters",
];
const GENERIC_PRODUCES: &[&str] = &[
    "body", "content", "count", "data", "error", "errors", "items", "list", "message", "msg", "ok",
    "page", "result", "results", "row", "rows", "size", "status", "success", "total", "type",
    "value", "values",
];

/// The ASCII letters and digits of `s`, lower-cased (every other character is dropped, so
/// this works on bytes).
pub fn loose(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    out.extend(loose_bytes(s).map(char::from));
    out
}

fn loose_bytes(s: &str) -> impl Iterator<Item = u8> + '_ {
    s.bytes()
        .filter(u8::is_ascii_alphanumeric)
        .map(|b| b.to_ascii_lowercase())
}

fn in_list(name: &str, list: &[&str]) -> bool {
    list.iter()
        .any(|x| *x == name || loose_bytes(x).eq(loose_bytes(name)))
}

/// camel / acronym / `_` split words, lower-cased.
fn words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if c.is_uppercase() && !cur.is_empty() {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_lower) {
                out.push(std::mem::take(&mut cur));
            }
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    for w in out.iter_mut() {
        if w.is_ascii() {
            w.make_ascii_lowercase();
        } else {
            *w = w.to_lowercase();
        }
    }
    out
}

pub fn identifier_like(name: &str) -> bool {
    // the last word is the end of the name: an ASCII name that ends in none of the
    // identifier words needs no splitting
    const ENDINGS: &[&str] = &[
        "id", "ids", "no", "nos", "num", "number", "code", "key", "seq", "uuid",
    ];
    if name.is_ascii() {
        let trimmed = name.trim_end_matches(|c: char| !c.is_ascii_alphanumeric());
        let b = trimmed.as_bytes();
        let ends = |e: &str| {
            b.len() >= e.len() && b[b.len() - e.len()..].eq_ignore_ascii_case(e.as_bytes())
        };
        if !ENDINGS.iter().any(|e| ends(e)) {
            return false;
        }
    }
    let w = words(name);
    let Some(last) = w.last() else { return false };
    if !matches!(
        last.as_str(),
        "id" | "ids" | "no" | "nos" | "num" | "number" | "code" | "key" | "seq" | "uuid"
    ) {
        return false;
    }
    !(w.len() == 1 && matches!(last.as_str(), "id" | "no" | "key" | "code" | "seq"))
}

pub fn snake(name: &str) -> String {
    words(name).join("_")
}

const CONTRACT_HINT_KEYS: &[&str] = &[
    "format",
    "default",
    "example",
    "nullable",
    "pattern",
    "minimum",
    "maximum",
    "exclusive_minimum",
    "exclusive_maximum",
    "min_length",
    "max_length",
    "min_items",
    "max_items",
    "min_properties",
    "max_properties",
    "multiple_of",
    "const",
    "read_only",
    "write_only",
    "deprecated",
    "schema_ref",
    "schema_combinator",
    "schema_branch",
    "schema_branch_count",
    "schema_branches",
    "required_in_branch",
    "content_type",
    "content_types",
    "content_schema_type",
    "content_fields",
    "content_top_level_fields",
    "discriminator_property",
    "discriminator_value",
    "discriminator_values",
    "additional_properties",
    "map_value",
    "map_key_placeholder",
    "request_body_root",
    "response_body_root",
    "value_type",
    "value_format",
    "header",
    "status",
    "security_required",
    "security_scheme",
    "security_schemes",
    "auth_type",
    "credential_name",
    "requirement_indices",
    "scopes",
    "scheme",
    "bearer_format",
    "open_id_connect_url",
    "parameter_required",
    "response_envelope_path",
    "response_collection_path",
    "response_item_path",
    "value_path_aliases",
    "schema_inferred_from",
    "example_source",
    "example_name",
    "example_content_type",
    "example_status",
];

/// The reference's `_copy_contract_field`: name, type, then identity keys, hints, enum.
fn copy_contract_field(r: &Row) -> Row {
    let mut out = Row::with_capacity(16);
    out.push_new("field_name".into(), json!(crate::pytext::strip(name_of(r))));
    let ft = r.get("field_type").and_then(Value::as_str).unwrap_or("");
    out.push_new(
        "field_type".into(),
        json!(if ft.is_empty() { "string" } else { ft }),
    );
    for k in [
        "json_path",
        "required",
        "location",
        "kind",
        "semantic_tag",
        "description",
    ] {
        if let Some(v) = r.get(k).filter(|v| !empty(v)) {
            out.push_new(k.into(), v.clone());
        }
    }
    for (k, v) in contract_hints(r) {
        out.push_new(k.into(), v.clone());
    }
    if let Some(e @ Value::Array(_)) = r.get("enum") {
        out.push_new("enum".into(), e.clone());
    }
    out
}

/// `None`, `""`: what [`copy_contract_field`] does not copy.
fn empty(v: &Value) -> bool {
    matches!(v, Value::Null) || v.as_str() == Some("")
}

/// The contract hints [`copy_contract_field`] copies from a row, in its order.
fn contract_hints(r: &Row) -> impl Iterator<Item = (&'static str, &Value)> {
    CONTRACT_HINT_KEYS.iter().filter_map(move |k| {
        r.get(k)
            .filter(|v| !empty(v) && !v.as_array().is_some_and(|a| a.is_empty()))
            .map(|v| (*k, v))
    })
}

/// A tool's `api_contract` rows of one kind (`produces`, `consumes`) from its metadata.
fn rows(t: &ToolSchema, which: &str) -> Vec<Row> {
    crate::ingest::row::rows_of(t.metadata.get("api_contract").and_then(|c| c.get(which)))
}

fn name_of(r: &impl Field) -> &str {
    r.field("field_name").and_then(Value::as_str).unwrap_or("")
}

fn truthy(r: &impl Field, k: &str) -> bool {
    r.field(k).and_then(Value::as_bool).unwrap_or(false)
}

/// A consume row that passed the filter, before its promoted copy is made.
struct ConsRow<'a> {
    score: i64,
    name: &'a str,
    row: &'a Row,
    loc: String,
    required: bool,
    kind: String,
    semantic: bool,
}

/// What contract promotion needs of a tool, taken from its `api_contract` rows in the thread
/// that built them (so the rows can be frozen there): the promoted consume rows (they depend
/// on the tool alone), the produce candidates (their rank also needs how many tools produce
/// the field), the tool's distinct produced keys for that count, and the skip counts.
#[derive(Clone, Debug, Default)]
pub struct Prepared {
    /// the promoted consume rows, frozen (compact text: no later phase reads them as trees
    /// unless workflows are applied, see [`thaw_rows`]); the data-flow edges' view of them
    consumes: Value,
    consumes_added: usize,
    consume_views: Vec<super::flow::ConsumeView>,
    /// shared by the tools that share their responses (see [`ProduceSide`])
    produces: Arc<[ProdCandidate]>,
    produced_keys: Arc<[String]>,
    produces_skipped: usize,
    consumes_skipped: usize,
    /// the semantics' view of the rows (`semantics::contract_facts`)
    pub resource: String,
    pub list_like: bool,
}

/// A produce row that passed the filter, with its promoted copy (`signal_score` is set once
/// the rarity of its loose key is known).
#[derive(Clone, Debug)]
struct ProdCandidate {
    /// 5·semantic + 4·identifier + 1·enum (2·rare is added at promotion)
    score: i64,
    depth: usize,
    name: String,
    json_path: String,
    loose: String,
    /// the promoted copy as compact text (a sixth of the tree's memory), its
    /// `signal_score` written as `0` at `score_at`: the 32 a tool keeps are frozen from it
    /// with their score in its place
    row: Box<str>,
    score_at: usize,
    /// the `$ref`s in the promoted copy (see [`crate::ingest::frozen::written`])
    refs: Vec<String>,
    /// the data-flow edges' view of the promoted copy (its score set at promotion)
    view: super::flow::ProduceView,
}

/// What the later phases need of a tool's `api_contract` rows, taken before the rows are
/// frozen: promotion's view ([`Prepared`]) and the readiness counts and keys. The produce
/// rows' part is made apart ([`ProduceSide`]): tools that share their responses share it.
pub fn set_contract_view(t: &mut ToolSchema, produces: &ProduceSide, consumes: &[Row]) {
    use crate::ingest::readiness::{ContractCounts, ContractKeys};
    t.promotion = Some(Box::new(prepare_rows(produces, consumes)));
    t.readiness.contract = produces.counts.plus(ContractCounts::of_rows(&[], consumes));
    t.readiness.contract_keys = ContractKeys {
        produces: produces.keys.clone(),
        ..ContractKeys::of_rows(&[], consumes)
    };
}

/// [`set_contract_view`] for a tool whose rows are in its metadata (one not built from an
/// OpenAPI operation), then the rows frozen: no later phase reads them (links keep theirs).
fn view_and_freeze_metadata_rows(t: &mut ToolSchema) {
    let (produces, consumes) = (rows(t, "produces"), rows(t, "consumes"));
    set_contract_view(t, &ProduceSide::of(&produces), &consumes);
    if let Some(Value::Object(c)) = t.metadata.get_mut("api_contract") {
        for k in ["produces", "consumes"] {
            crate::ingest::frozen::freeze_member(c, k);
        }
    }
}

/// What a tool's `api_contract` produce rows give promotion, the semantics and the
/// readiness report, before the consume rows are looked at.
pub struct ProduceSide {
    candidates: Arc<[ProdCandidate]>,
    skipped: usize,
    /// loose keys in row order, each once
    produced_keys: Arc<[String]>,
    list_like: bool,
    /// the resource a produce row names (else the consume rows are asked)
    resource: Option<String>,
    /// the readiness counts of the produce rows, and their loose keys sorted
    counts: crate::ingest::readiness::ContractCounts,
    keys: Vec<String>,
}

impl ProduceSide {
    pub fn of(produce_rows: &[Row]) -> ProduceSide {
        let mut produced_keys: Vec<String> = Vec::new();
        let mut seen: FxHashSet<String> = FxHashSet::default();
        for r in produce_rows {
            let k = loose(name_of(r));
            if !k.is_empty() && seen.insert(k.clone()) {
                produced_keys.push(k);
            }
        }
        let (candidates, skipped) = produce_candidates(produce_rows);
        use crate::ingest::readiness::{ContractCounts, ContractKeys};
        ProduceSide {
            candidates: candidates.into(),
            skipped,
            produced_keys: produced_keys.into(),
            list_like: super::semantics::produces_list_like(produce_rows),
            resource: super::semantics::resource_in(produce_rows),
            counts: ContractCounts::of_rows(produce_rows, &[]),
            keys: ContractKeys::of_rows(produce_rows, &[]).produces,
        }
    }
}

/// [`Prepared`] from a tool's `api_contract` produce side and consume rows.
fn prepare_rows(produces: &ProduceSide, consume_rows: &[Row]) -> Prepared {
    let (consumes, consumes_skipped) = promoted_consumes(consume_rows);
    let consume_views = consumes.iter().map(super::flow::ConsumeView::of).collect();
    let consumes_added = consumes.len();
    let consumes = crate::ingest::row::freeze_rows(&consumes);
    let resource = super::semantics::resource_or(produces.resource.clone(), consume_rows);
    Prepared {
        resource,
        list_like: produces.list_like,
        consumes,
        consumes_added,
        consume_views,
        produces: produces.candidates.clone(),
        produced_keys: produces.produced_keys.clone(),
        produces_skipped: produces.skipped,
        consumes_skipped,
    }
}

/// The promoted consume rows (at most 32, one per location and semantic tag) and how many
/// consume rows were skipped.
fn promoted_consumes(consume_rows: &[Row]) -> (Vec<Row>, usize) {
    let mut c_skip = 0;
    let mut cons: Vec<ConsRow> = Vec::new();
    for r in consume_rows {
        let name = name_of(r);
        if name.is_empty() || truthy(r, "read_only") {
            c_skip += 1;
            continue;
        }
        let loc_s = crate::pytext::lower(crate::pytext::strip(
            r.get("location")
                .and_then(Value::as_str)
                .filter(|x| !x.is_empty())
                .or_else(|| r.get("in").and_then(Value::as_str))
                .unwrap_or(""),
        ));
        let loc = loc_s.as_str();
        let mut kind = r
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or("data")
            .to_string();
        if matches!(loc, "header" | "cookie") || in_list(name, AUTH) {
            kind = "auth".into();
        } else if in_list(name, PAGING) {
            kind = "context".into();
        }
        let mut required = truthy(r, "required") || loc == "path";
        if kind != "data" {
            required = false;
        }
        let has_enum = r
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty());
        let ident = identifier_like(name);
        let search = in_list(name, SEARCH);
        if !(required || has_enum || ident || search || kind != "data") {
            c_skip += 1;
            continue;
        }
        let semantic = r.get("semantic_tag").is_some();
        let score = 5 * semantic as i64
            + 4 * required as i64
            + 3 * (loc == "path") as i64
            + 2 * has_enum as i64
            + 2 * ident as i64
            + (kind != "data") as i64;
        cons.push(ConsRow {
            score,
            name,
            row: r,
            loc: loc_s.clone(),
            required,
            kind,
            semantic,
        });
    }
    // one row per location and semantic tag: the best ranked (sort_by is stable, as the
    // reference's sort) takes the contract hints it lacks, or holds a falsy value for,
    // from the rows it stands for; 32 rows at most, and only those are copied
    cons.sort_by(|a, b| b.score.cmp(&a.score).then_with(|| a.name.cmp(b.name)));
    let mut kept: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut slot: FxHashMap<(&str, String), usize> = FxHashMap::default();
    for (i, c) in cons.iter().enumerate() {
        let tag = c
            .row
            .get("semantic_tag")
            .and_then(Value::as_str)
            .map_or_else(|| snake(c.name), String::from);
        match slot.entry((c.loc.as_str(), tag)) {
            std::collections::hash_map::Entry::Occupied(e) => kept[*e.get()].1.push(i),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(kept.len());
                kept.push((i, Vec::new()));
            }
        }
    }
    kept.truncate(32);
    let promoted_row = |c: &ConsRow| {
        let mut m = copy_contract_field(c.row);
        m.insert("location".into(), json!(c.loc));
        m.insert("required".into(), json!(c.required));
        m.insert("kind".into(), json!(c.kind));
        m.insert("contract_source".into(), json!("api_contract"));
        m.insert("search_signal".into(), json!(false));
        m.insert("signal_score".into(), json!(c.score));
        if c.kind == "data" && !c.semantic {
            m.insert("semantic_tag".into(), json!(snake(c.name)));
            m.insert("semantic_inferred_from".into(), json!("field_name"));
        }
        m
    };
    let cons: Vec<Row> = kept
        .iter()
        .map(|(i, dups)| {
            let mut m = promoted_row(&cons[*i]);
            for &d in dups {
                // what the duplicate's promoted copy holds of these: the enum first, then
                // the hints in their order
                let dup = cons[d].row;
                if let Some(e @ Value::Array(_)) = dup.get("enum")
                    && crate::pytext::truthy(e)
                    && !m.get("enum").is_some_and(crate::pytext::truthy)
                {
                    m.insert("enum".into(), e.clone());
                }
                for (k, v) in contract_hints(dup) {
                    if !m.get(k).is_some_and(crate::pytext::truthy) {
                        m.insert(k.into(), v.clone());
                    }
                }
            }
            m
        })
        .collect();
    (cons, c_skip)
}

/// The produce rows that may be promoted, with their promoted copies, and how many produce
/// rows were skipped.
fn produce_candidates(produce_rows: &[Row]) -> (Vec<ProdCandidate>, usize) {
    let mut p_skip = 0;
    let mut produces: Vec<ProdCandidate> = Vec::new();
    for r in produce_rows {
        let name = name_of(r);
        let l = loose(name);
        if name.is_empty() || truthy(r, "write_only") || GENERIC_PRODUCES.contains(&l.as_str()) {
            p_skip += 1;
            continue;
        }
        let semantic = r.get("semantic_tag").is_some();
        let ident = identifier_like(name);
        if !(semantic || ident) {
            p_skip += 1;
            continue;
        }
        let has_enum = r
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty());
        let jp = r
            .get("json_path")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let depth = jp.matches('.').count() + jp.matches("[*]").count();
        let mut m = copy_contract_field(r);
        m.push_new("contract_source".into(), json!("api_contract"));
        m.push_new("search_signal".into(), json!(false));
        m.push_new("signal_score".into(), json!(0));
        if !semantic {
            m.push_new("semantic_tag".into(), json!(snake(name)));
            m.push_new("semantic_inferred_from".into(), json!("field_name"));
        }
        let (mut text, mut refs) = (String::new(), Vec::new());
        let score_at = m
            .write_compact_refs_at(&mut text, &mut refs, Some("signal_score"))
            .expect("the row has its signal_score");
        produces.push(ProdCandidate {
            score: 5 * semantic as i64 + 4 * ident as i64 + has_enum as i64,
            depth,
            name: name.to_string(),
            json_path: jp,
            loose: l,
            view: super::flow::ProduceView::of(&m),
            row: text.into_boxed_str(),
            score_at,
            refs,
        });
    }
    (produces, p_skip)
}

/// The kept produce rows, frozen, each with its score: what freezing their trees gives.
fn frozen_produces(prods: &[(i64, &ProdCandidate)]) -> Value {
    crate::ingest::frozen::written(|body, refs| {
        let mut score = itoa::Buffer::new();
        body.push('[');
        for (i, (s, p)) in prods.iter().enumerate() {
            if i > 0 {
                body.push(',');
            }
            // the text holds `0` where the score goes
            body.push_str(&p.row[..p.score_at]);
            body.push_str(score.format(*s));
            body.push_str(&p.row[p.score_at + 1..]);
            refs.extend(p.refs.iter().cloned());
        }
        body.push(']');
    })
}

/// Promotes filtered `api_contract` rows into `metadata.consumes` / `.produces`.
pub fn promote(tools: &mut [ToolSchema]) -> Value {
    let n = tools.len();
    // max(2, int(max(1, n) * 0.12))
    let max_freq = 2usize.max(((n.max(1) as f64) * 0.12).floor() as usize);
    // tools prepared while they were built; the others now
    crate::par::for_each_mut(tools, |t| {
        if t.promotion.is_none() {
            view_and_freeze_metadata_rows(t);
        }
    });
    // field frequency among producers (loose key, once per tool)
    let mut freq: FxHashMap<String, usize> = FxHashMap::default();
    for p in tools.iter_mut().filter_map(|t| t.promotion.as_mut()) {
        for k in std::mem::take(&mut p.produced_keys).iter() {
            match freq.get_mut(k.as_str()) {
                Some(n) => *n += 1,
                None => {
                    freq.insert(k.clone(), 1);
                }
            }
        }
    }
    // the same for every tool; no later step reads it: compact text until written
    let policy = crate::ingest::frozen::freeze(json!({
        "source": "api_contract",
        "max_produces_per_tool": 32,
        "max_consumes_per_tool": 32,
        "max_consumer_aligned_paths_per_field": 1,
        "max_field_frequency_ratio": 0.12,
        "max_field_frequency": max_freq,
        "infer_semantic_tags": true,
        "promote_rare_produces": false,
        "promote_consumer_aligned_produces": false,
        "consumer_aligned_output_policy_revision": "required-consumer-aligned-output-v1",
        "index_promoted_contract_fields": false,
    }));
    // per tool: [promoted, produces added, consumes added, produces skipped, consumes skipped]
    let counts = crate::par::map_mut(tools, |t| {
        let prep = t.promotion.take().map(|p| *p).unwrap_or_default();
        // (score with the rarity bonus, candidate): the candidates are shared
        let mut prods: Vec<(i64, &ProdCandidate)> = prep
            .produces
            .iter()
            .map(|p| {
                let rare = freq.get(&p.loose).copied().unwrap_or(0) <= max_freq;
                (p.score + 2 * rare as i64, p)
            })
            .collect();
        prods.sort_by(|(sa, a), (sb, b)| {
            sb.cmp(sa)
                .then(a.depth.cmp(&b.depth))
                .then_with(|| a.name.cmp(&b.name))
                .then_with(|| a.json_path.cmp(&b.json_path))
        });
        prods.truncate(32);
        let (c_added, p_added) = (prep.consumes_added, prods.len());
        let promoted = usize::from(c_added > 0 || p_added > 0);
        if promoted > 0 {
            // promoted produces come first when there are any; the rows are compact text
            // from here on (the data-flow edges read their views)
            if !prods.is_empty() {
                t.metadata
                    .insert("produces".into(), frozen_produces(&prods));
            }
            if c_added > 0 {
                t.metadata.insert("consumes".into(), prep.consumes);
            }
            t.metadata
                .insert("contract_signal_policy".into(), policy.clone());
        }
        t.metadata.entry("produces").or_insert_with(|| json!([]));
        t.flow = Some(Box::new(super::flow::FlowRows {
            produces: prods
                .iter()
                .map(|(score, p)| p.view.clone().with_score(*score))
                .collect(),
            consumes: prep.consume_views,
        }));
        [
            promoted,
            p_added,
            c_added,
            prep.produces_skipped,
            prep.consumes_skipped,
        ]
    });
    let [promoted, p_added, c_added, p_skip, c_skip] =
        counts.iter().fold([0usize; 5], |mut acc, c| {
            for (a, x) in acc.iter_mut().zip(c) {
                *a += x;
            }
            acc
        });
    json!({
        "tools_promoted": promoted,
        "produces_added": p_added,
        "produces_consumer_aligned": 0,
        "consumes_added": c_added,
        "produces_skipped": p_skip,
        "produces_skipped_path_cap": 0,
        "consumes_skipped": c_skip,
        "required_consumer_demand_keys": 0,
    })
}

/// The tree a frozen subtree holds (`None` for a value that is not frozen).
pub fn thawed(v: &Value) -> Option<Value> {
    let Value::String(s) = v else { return None };
    let (_, body) = crate::ingest::frozen::thaw(s)?;
    // the compact text parses back to the same tree (`float_roundtrip`)
    Some(serde_json::from_str(body).expect("a frozen subtree's own compact JSON"))
}

/// Makes `m[key]` a tree again when it is frozen.
pub fn thaw_member(m: &mut Map<String, Value>, key: &str) {
    if let Some(v) = m.get_mut(key)
        && let Some(tree) = thawed(v)
    {
        *v = tree;
    }
}

/// Makes the promoted `produces` and `consumes` rows trees again (for the stages that
/// read or extend them as trees: workflow application).
pub fn thaw_rows(tools: &mut [ToolSchema]) {
    crate::par::for_each_mut(tools, |t| {
        for k in ["produces", "consumes"] {
            thaw_member(&mut t.metadata, k);
        }
    });
}

fn conf_rank(c: Option<&str>) -> i32 {
    match c {
        Some("EXTRACTED") => 3,
        Some("INFERRED") => 2,
        Some("AMBIGUOUS") => 1,
        _ => 0,
    }
}

/// `normalize_graph_edge` (spec §2.3), without source/target.
pub fn normalize_edge(e: &Map<String, Value>, default_source: &str) -> Map<String, Value> {
    let rel = e
        .get("relation")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_lowercase();
    let kind = if matches!(rel.as_str(), "requires" | "precedes" | "produces_for") {
        "data"
    } else {
        "semantic"
    };
    if let Some(Value::Array(a)) = e.get("evidence_sources")
        && !a.is_empty()
    {
        let mut m = e.clone();
        m.insert("relation".into(), json!(rel));
        if m.get("confidence")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            m.insert("confidence".into(), json!("EXTRACTED"));
        }
        m.entry("kind").or_insert(json!(kind));
        m.entry("data_flow").or_insert(Value::Null);
        m.entry("is_manual").or_insert(json!(false));
        m.entry("deleted_by_user").or_insert(json!(false));
        return m;
    }
    let mut m = Map::new();
    m.insert("relation".into(), json!(rel));
    m.insert(
        "weight".into(),
        e.get("weight").cloned().unwrap_or(json!(1.0)),
    );
    let conf = e
        .get("confidence")
        .and_then(Value::as_str)
        .filter(|c| !c.is_empty())
        .unwrap_or("EXTRACTED");
    m.insert("confidence".into(), json!(conf));
    m.insert(
        "conf_score".into(),
        e.get("conf_score").cloned().unwrap_or(json!(0.0)),
    );
    m.insert(
        "evidence".into(),
        e.get("evidence").cloned().unwrap_or(json!("")),
    );
    m.insert("layer".into(), e.get("layer").cloned().unwrap_or(json!(1)));
    m.insert("kind".into(), e.get("kind").cloned().unwrap_or(json!(kind)));
    let layer2 = e.get("layer").and_then(Value::as_i64) == Some(2);
    m.insert(
        "evidence_sources".into(),
        json!([if layer2 { "name_based" } else { default_source }]),
    );
    m.insert(
        "data_flow".into(),
        e.get("data_flow").cloned().unwrap_or(Value::Null),
    );
    m.insert(
        "is_manual".into(),
        e.get("is_manual").cloned().unwrap_or(json!(false)),
    );
    m.insert(
        "deleted_by_user".into(),
        e.get("deleted_by_user").cloned().unwrap_or(json!(false)),
    );
    m
}

/// What an empty incoming data-flow value (null, `""`, `[]`) does to a key the existing
/// data flow lacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmptyValues {
    /// It is added (link and contract merges).
    AddMissing,
    /// It is skipped (Arazzo workflow merges into an existing data flow).
    Skip,
}

/// `merge_graph_edges(existing, incoming)` (spec §2.3); `force_requires` sets the relation.
pub fn merge_edges(
    old: &Map<String, Value>,
    new: &Map<String, Value>,
    force_requires: bool,
) -> Map<String, Value> {
    merge_edges_with(old, new, force_requires, EmptyValues::AddMissing)
}

/// [`merge_edges`] with a rule for empty incoming values (an existing data flow of
/// `null` always takes the incoming one whole).
pub fn merge_edges_with(
    old: &Map<String, Value>,
    new: &Map<String, Value>,
    force_requires: bool,
    empties: EmptyValues,
) -> Map<String, Value> {
    let a = normalize_edge(old, "structural");
    let b = normalize_edge(new, "structural");
    let mut out = a.clone();
    let mut sources: Vec<Value> = a["evidence_sources"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for s in b["evidence_sources"].as_array().into_iter().flatten() {
        if !sources.contains(s) {
            sources.push(s.clone());
        }
    }
    let ca = a["conf_score"].as_f64().unwrap_or(0.0);
    let cb = b["conf_score"].as_f64().unwrap_or(0.0);
    let mut conf = ca.max(cb);
    if sources.len() > 1 {
        conf = (conf + 0.05 * (sources.len() as f64 - 1.0)).min(1.0);
    }
    out.insert("conf_score".into(), json!(conf));
    let (la, lb) = (a["confidence"].as_str(), b["confidence"].as_str());
    out.insert(
        "confidence".into(),
        json!(if conf_rank(lb) > conf_rank(la) {
            lb
        } else {
            la
        }),
    );
    // the incoming evidence is appended unless it equals the whole existing text (so a
    // third merge of an already listed note lists it again, as the reference does)
    let (ea, eb) = (
        a["evidence"].as_str().unwrap_or(""),
        b["evidence"].as_str().unwrap_or(""),
    );
    let evidence = if eb.is_empty() || ea == eb {
        ea.to_string()
    } else if ea.is_empty() {
        eb.to_string()
    } else {
        format!("{ea} | {eb}")
    };
    out.insert("evidence".into(), json!(evidence));
    // data_flow: incoming values overwrite unless empty
    let mut df = a["data_flow"].as_object().cloned().unwrap_or_default();
    let add_empty = empties == EmptyValues::AddMissing || a["data_flow"].is_null();
    // a link's own source path (when it has one) survives a merge with a link-less data flow
    let keep_link_source = df.get("link_name").is_some_and(|v| !v.is_null())
        && b["data_flow"].get("link_name").is_none_or(|v| v.is_null());
    if let Some(inc) = b["data_flow"].as_object() {
        for (k, v) in inc {
            if keep_link_source
                && (k == "from_path" || k == "from_field")
                && df.get(k).is_some_and(crate::pytext::truthy)
            {
                continue;
            }
            let empty =
                v.is_null() || v.as_str() == Some("") || v.as_array().is_some_and(Vec::is_empty);
            // parameter lists are unioned (existing ones first)
            if k == "parameters"
                && let (Some(Value::Array(old)), Value::Array(new)) = (df.get_mut(k), v)
            {
                for p in new {
                    if !old.contains(p) {
                        old.push(p.clone());
                    }
                }
                continue;
            }
            // an empty value never overwrites; a missing key gets it only when `add_empty`
            if !(empty && (df.contains_key(k) || !add_empty)) {
                df.insert(k.clone(), v.clone());
            }
        }
    }
    out.insert(
        "data_flow".into(),
        if df.is_empty() && a["data_flow"].is_null() && b["data_flow"].is_null() {
            Value::Null
        } else {
            Value::Object(df)
        },
    );
    if a["kind"] == "data" || b["kind"] == "data" {
        out.insert("kind".into(), json!("data"));
    }
    out.insert("evidence_sources".into(), Value::Array(sources));
    if force_requires {
        out.insert("relation".into(), json!("requires"));
    }
    for k in ["is_manual", "deleted_by_user"] {
        let v = a[k].as_bool().unwrap_or(false) || b[k].as_bool().unwrap_or(false);
        out.insert(k.into(), json!(v));
    }
    // keep the existing edge's other keys
    for (k, v) in old {
        if !out.contains_key(k) {
            out.insert(k.clone(), v.clone());
        }
    }
    out
}
