//! Deterministic semantic metadata (spec §2.6): `ai_metadata` (canonical action, primary
//! resource, summary, when-to-use, result shape, confidence, evidence) and
//! `openapi.path_module` / `operation_group` / `semantic_sources`, plus the semantic summary.

use crate::ingest::row::Row;
use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use crate::ingest::schema::ToolSchema;

const SEARCH: &[&str] = &[
    "list",
    "lists",
    "search",
    "find",
    "query",
    "queries",
    "lookup",
    "filter",
    "browse",
    "count",
    "목록",
    "리스트",
    "검색",
    "조회목록",
    "조건조회",
];
const READ: &[&str] = &[
    "get", "read", "fetch", "detail", "details", "info", "view", "show", "조회", "상세", "정보",
    "확인", "보기",
];
const CREATE: &[&str] = &[
    "create",
    "add",
    "insert",
    "register",
    "new",
    "upload",
    "import",
    "등록",
    "생성",
    "추가",
    "업로드",
    "신규",
];
const UPDATE: &[&str] = &[
    "update", "modify", "edit", "save", "patch", "set", "change", "merge", "수정", "변경", "저장",
    "갱신", "설정", "반영",
];
const DELETE: &[&str] = &["delete", "remove", "drop", "erase", "삭제", "제거"];
const ACTION: &[&str] = &[
    "cancel",
    "approve",
    "reject",
    "accept",
    "withdraw",
    "withdrawal",
    "refund",
    "return",
    "exchange",
    "issue",
    "process",
    "execute",
    "run",
    "apply",
    "confirm",
    "complete",
    "send",
    "취소",
    "승인",
    "반려",
    "거절",
    "철회",
    "환불",
    "교환",
    "반품",
    "처리",
    "발행",
    "확정",
    "완료",
    "전송",
    "적용",
];
const GENERIC_PATH: &[&str] = &[
    "api",
    "apis",
    "bo",
    "fo",
    "admin",
    "internal",
    "external",
    "public",
    "private",
    "service",
    "services",
    "controller",
    "controllers",
    "endpoint",
    "operation",
    "tool",
];
const OP_SUFFIX: &[&str] = &[
    "api",
    "apis",
    "proc",
    "process",
    "mgmt",
    "management",
    "common",
    "commonapi",
    "controller",
    "service",
];
const JOINERS: &[&str] = &["by", "with", "for", "from", "to", "and", "or", "of"];

fn action_of(word: &str) -> Option<&'static str> {
    for (list, a) in [
        (SEARCH, "search"),
        (READ, "read"),
        (CREATE, "create"),
        (UPDATE, "update"),
        (DELETE, "delete"),
        (ACTION, "action"),
    ] {
        if list.contains(&word) {
            return Some(a);
        }
    }
    None
}

/// Words of an identifier: camel boundaries, `_`/`-`, `[A-Za-z0-9가-힣]+` runs, lower-cased.
pub fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let ok = c.is_ascii_alphanumeric() || ('가'..='힣').contains(&c);
        if !ok {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if c.is_ascii_uppercase() && !cur.is_empty() {
            let p = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if p.is_ascii_lowercase()
                || p.is_ascii_digit()
                || (p.is_ascii_uppercase() && next_lower)
            {
                out.push(std::mem::take(&mut cur));
            }
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out.into_iter().map(|w| w.to_lowercase()).collect()
}

pub fn annotate(tools: &mut [ToolSchema]) -> Value {
    crate::par::for_each_mut(tools, derive);
    summary(tools)
}

// ---- the reference's lexical helpers (semantics.py) ----

fn is_tok_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || ('가'..='힣').contains(&c)
}

/// `(?<=[a-z0-9])(?=[A-Z])` replaced by `sep`.
fn camel_sub(s: &str, sep: char) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    let mut prev: Option<char> = None;
    for c in s.chars() {
        if let Some(p) = prev
            && (p.is_ascii_lowercase() || p.is_ascii_digit())
            && c.is_ascii_uppercase()
        {
            out.push(sep);
        }
        out.push(c);
        prev = Some(c);
    }
    out
}

/// `_canonical_label`: camel boundaries and non-`[0-9A-Za-z가-힣]` runs → `_`, trimmed,
/// lower-cased.
fn py_label(value: &str) -> String {
    let text = crate::pytext::strip(value);
    if text.is_empty() {
        return String::new();
    }
    // the common case, a word already lower-case ASCII letters and digits: no boundary,
    // separator or case to change
    if text
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    {
        return text.to_string();
    }
    let text = camel_sub(text, '_');
    let mut out = String::with_capacity(text.len());
    let mut last_us = false;
    for c in text.chars() {
        if is_tok_char(c) {
            out.push(c);
            last_us = false;
        } else if !last_us {
            out.push('_');
            last_us = true;
        }
    }
    // collapse `_` runs produced by literal underscores too
    let mut collapsed = String::with_capacity(out.len());
    let mut prev_us = false;
    for c in out.chars() {
        if c == '_' {
            if !prev_us {
                collapsed.push(c);
            }
            prev_us = true;
        } else {
            collapsed.push(c);
            prev_us = false;
        }
    }
    crate::pytext::lower(collapsed.trim_matches('_'))
}

/// `_split_words`.
fn py_words(value: &str) -> Vec<String> {
    let expanded = camel_sub(value, ' ').replace(['_', '-'], " ");
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in expanded.chars() {
        if is_tok_char(c) {
            cur.push(c);
        } else if !cur.is_empty() {
            let l = py_label(&cur);
            if !l.is_empty() {
                out.push(l);
            }
            cur.clear();
        }
    }
    if !cur.is_empty() {
        let l = py_label(&cur);
        if !l.is_empty() {
            out.push(l);
        }
    }
    out
}

/// `^v\d+(?:[._-]?\d+)?$` (case-insensitive).
fn py_is_version(w: &str) -> bool {
    let b = w.as_bytes();
    if b.len() < 2 || !(b[0] == b'v' || b[0] == b'V') {
        return false;
    }
    let mut i = 1;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i == 1 {
        return false;
    }
    if i == b.len() {
        return true;
    }
    let mut j = i;
    if matches!(b[j], b'.' | b'_' | b'-') {
        j += 1;
    }
    let start = j;
    while j < b.len() && b[j].is_ascii_digit() {
        j += 1;
    }
    j == b.len() && j > start
}

fn action_from_word(word: &str) -> Option<&'static str> {
    let c = py_label(word);
    if c.is_empty() {
        return None;
    }
    action_of(&c)
}

fn has_search_signal(words: &[String], text: &str) -> bool {
    if words.iter().any(|w| SEARCH.contains(&w.as_str())) {
        return true;
    }
    let low = crate::pytext::lower(text);
    ["목록", "리스트", "검색", "list", "query"]
        .iter()
        .any(|k| low.contains(k))
}

fn action_from_text(text: &str) -> Option<&'static str> {
    let ws = py_words(text);
    // each word's action, read once for the questions below
    let actions: Vec<Option<&str>> = ws.iter().map(|w| action_from_word(w)).collect();
    for preferred in ["create", "update", "delete", "action"] {
        if actions.contains(&Some(preferred)) {
            return Some(preferred);
        }
    }
    if has_search_signal(&ws, text) {
        return Some("search");
    }
    if let Some(a) = actions.iter().find_map(|a| *a) {
        return Some(a);
    }
    let low = crate::pytext::lower(text);
    for (list, a) in [
        (SEARCH, "search"),
        (READ, "read"),
        (CREATE, "create"),
        (UPDATE, "update"),
        (DELETE, "delete"),
        (ACTION, "action"),
    ] {
        if list
            .iter()
            .any(|k| k.chars().count() > 1 && low.contains(k))
        {
            return Some(a);
        }
    }
    None
}

fn looks_like_operation_segment(value: &str) -> bool {
    let ws = py_words(value);
    let Some(first) = ws.first() else {
        return false;
    };
    if action_from_word(first).is_some() {
        return true;
    }
    OP_SUFFIX.contains(&py_label(value).as_str())
}

fn resource_candidate(value: &str) -> String {
    let sel: Vec<String> = py_words(value)
        .into_iter()
        .filter(|w| {
            !w.is_empty()
                && !GENERIC_PATH.contains(&w.as_str())
                && !OP_SUFFIX.contains(&w.as_str())
                && !JOINERS.contains(&w.as_str())
                && !py_is_version(w)
                && action_from_word(w).is_none()
        })
        .collect();
    sel.into_iter().take(3).collect::<Vec<_>>().join("_")
}

fn module_candidate(value: &str) -> String {
    let sel: Vec<String> = py_words(value)
        .into_iter()
        .filter(|w| {
            !w.is_empty()
                && !GENERIC_PATH.contains(&w.as_str())
                && !["api", "apis", "proc", "process", "controller", "service"]
                    .contains(&w.as_str())
                && !py_is_version(w)
        })
        .collect();
    sel.into_iter().take(4).collect::<Vec<_>>().join("_")
}

fn semantic_path_segments(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    for raw in path.split('/') {
        let seg = crate::pytext::strip(raw);
        if seg.is_empty() || seg.starts_with('{') || seg.ends_with('}') {
            continue;
        }
        let c = py_label(seg);
        if c.is_empty()
            || GENERIC_PATH.contains(&c.as_str())
            || py_is_version(&c)
            || looks_like_operation_segment(&c)
        {
            continue;
        }
        out.push(seg.to_string());
    }
    out
}

fn operation_resource_noun(words: &[String]) -> String {
    let mut sel: Vec<&str> = Vec::new();
    for w in words {
        let generic = GENERIC_PATH.contains(&w.as_str()) || {
            // ^(tool|operation|endpoint)\d*$
            ["tool", "operation", "endpoint"].iter().any(|p| {
                w.strip_prefix(p)
                    .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_digit()))
            })
        };
        if w.is_empty() || action_from_word(w).is_some() || JOINERS.contains(&w.as_str()) || generic
        {
            continue;
        }
        if ["list", "info", "detail", "details", "query", "search"].contains(&w.as_str()) {
            continue;
        }
        sel.push(w);
        if sel.len() >= 3 {
            break;
        }
    }
    sel.join("_")
}

/// What the semantics read of a tool's contract rows: the resource a `*_id` / `*_no` field
/// names, and whether a produced row is a list.
pub(crate) fn contract_facts(contract: Option<&Value>) -> (String, bool) {
    let rows = |k: &str| crate::ingest::row::rows_of(contract.and_then(|c| c.get(k)));
    contract_row_facts(&rows("produces"), &rows("consumes"))
}

/// [`contract_facts`] from a tool's produce and consume rows.
pub(crate) fn contract_row_facts(produces: &[Row], consumes: &[Row]) -> (String, bool) {
    (
        resource_or(resource_in(produces), consumes),
        produces_list_like(produces),
    )
}

pub(crate) fn produces_list_like(produces: &[Row]) -> bool {
    produces.iter().any(|r| {
        let p = {
            let x = text_of(r.get("json_path"));
            if x.is_empty() {
                text_of(r.get("response_collection_path"))
            } else {
                x
            }
        };
        let ft = crate::pytext::lower(&text_of(r.get("field_type")));
        p.contains("[*]") || ft == "array"
    })
}

/// The resource the first row with a `*_id` semantic tag, or a `*_id` / `*_no` field name,
/// names (see [`resource_or`] for the order of a tool's rows).
pub(crate) fn resource_in(rows: &[Row]) -> Option<String> {
    for r in rows {
        let sem = py_label(&text_of(r.get("semantic_tag")));
        if !sem.is_empty()
            && let Some(x) = sem.strip_suffix("_id")
        {
            return Some(x.to_string());
        }
        let field = py_label(&text_of(r.get("field_name")));
        if field.ends_with("_no") || field.ends_with("_id") {
            return Some(
                field
                    .rsplit_once('_')
                    .map(|(a, _)| a.to_string())
                    .unwrap_or_default(),
            );
        }
    }
    None
}

/// A tool's resource: the one its produce rows name (`produced`, from [`resource_in`]),
/// else the one its consume rows name, else none.
pub(crate) fn resource_or(produced: Option<String>, consumes: &[Row]) -> String {
    produced
        .or_else(|| resource_in(consumes))
        .unwrap_or_default()
}

fn text_of(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(o) if crate::pytext::truthy(o) => crate::pytext::py_str(o),
        _ => String::new(),
    }
}

/// One derived fact's evidence (`semantic_evidence` item): the field read, its text, the
/// rule that used it and the confidence (rounded to 4 places).
struct Evidence {
    field: &'static str,
    value: String,
    source: &'static str,
    confidence: f64,
}

fn evidence(
    field: &'static str,
    value: impl Into<String>,
    source: &'static str,
    conf: f64,
) -> Evidence {
    Evidence {
        field,
        value: value.into(),
        source,
        confidence: crate::pytext::round(conf, 4),
    }
}

impl Evidence {
    /// Appends `{"field": …, "value": …, "source": …, "confidence": …}` as compact JSON.
    fn write_compact(&self, out: &mut String) {
        use crate::jsonout::write_escaped;
        out.push_str(r#"{"field":"#);
        write_escaped(out, self.field);
        out.push_str(r#","value":"#);
        write_escaped(out, &self.value);
        out.push_str(r#","source":"#);
        write_escaped(out, self.source);
        out.push_str(r#","confidence":"#);
        crate::pytext::push_float_repr(out, self.confidence);
        out.push('}');
    }

    /// The evidence items, frozen (nothing reads them back): what freezing their JSON
    /// array gives.
    fn frozen(items: &[&Evidence]) -> Value {
        crate::ingest::frozen::written(|out, _| {
            out.push('[');
            for (i, e) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                e.write_compact(out);
            }
            out.push(']');
        })
    }
}

fn first_chars(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

fn missing_semantic(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => {
            let t = crate::pytext::strip(s);
            t.is_empty() || {
                let l = crate::pytext::lower(t);
                l == "unknown" || l == "unassigned"
            }
        }
        Some(Value::Array(a)) => a.is_empty(),
        Some(Value::Object(m)) => m.is_empty(),
        _ => false,
    }
}

/// The texts of one operation that every derived fact reads.
struct OpText {
    method: String,
    path: String,
    op_id: String,
    summary: String,
    path_segments: Vec<String>,
    /// The operation id's words.
    ow: Vec<String>,
    /// Operation id, summary, description and path in one string.
    text_blob: String,
}

impl OpText {
    fn of(t: &ToolSchema, openapi: &Value) -> OpText {
        let md = &t.metadata;
        let pick = |a: Option<&Value>, b: Option<&Value>| {
            let x = text_of(a);
            if x.is_empty() { text_of(b) } else { x }
        };
        let method = crate::pytext::lower(crate::pytext::strip(&pick(
            md.get("method"),
            openapi.get("method"),
        )));
        let path = crate::pytext::strip(&pick(md.get("path"), openapi.get("path"))).to_string();
        let op_id = {
            let x = text_of(openapi.get("operation_id"));
            crate::pytext::strip(if x.is_empty() { &t.name } else { &x }).to_string()
        };
        let summary = {
            let x = text_of(openapi.get("summary"));
            crate::pytext::strip(if x.is_empty() { &t.description } else { &x }).to_string()
        };
        let description = crate::pytext::strip(&text_of(openapi.get("description"))).to_string();
        let text_blob =
            crate::pytext::strip(&format!("{op_id} {summary} {description} {path}")).to_string();
        OpText {
            path_segments: semantic_path_segments(&path),
            ow: py_words(&op_id),
            method,
            path,
            op_id,
            summary,
            text_blob,
        }
    }
}

/// The canonical action and its evidence: an existing label, the operation id's verb,
/// a verb in the texts, else the HTTP method.
fn derive_action(ai: &Value, x: &OpText) -> (String, Evidence) {
    let existing = {
        let key = py_label(&text_of(ai.get("canonical_action")));
        if key.is_empty() {
            String::new()
        } else if ["lookup", "list", "find", "query"].contains(&key.as_str()) {
            "search".into()
        } else if ["get", "fetch", "detail"].contains(&key.as_str()) {
            "read".into()
        } else if [
            "search", "read", "create", "update", "delete", "action", "unknown",
        ]
        .contains(&key.as_str())
        {
            key
        } else {
            action_of(&key).map(String::from).unwrap_or_default()
        }
    };
    if !existing.is_empty() && existing != "unknown" {
        let e = evidence(
            "ai_metadata.canonical_action",
            existing.as_str(),
            "existing",
            1.0,
        );
        (existing, e)
    } else if let Some((w, a)) =
        x.ow.iter()
            .find_map(|w| action_from_word(w).map(|a| (w, a)))
    {
        let a = if a == "read" && has_search_signal(&x.ow, &x.text_blob) {
            "search"
        } else {
            a
        };
        (
            a.to_string(),
            evidence("operation_id", w, "operation_id_verb", 0.9),
        )
    } else if let Some(a) = action_from_text(&x.text_blob) {
        (
            a.to_string(),
            evidence(
                "summary_description",
                first_chars(&x.text_blob, 160),
                "summary_verb",
                0.78,
            ),
        )
    } else {
        let f = match x.method.as_str() {
            "get" => "read",
            "post" => "action",
            "put" | "patch" => "update",
            "delete" => "delete",
            _ => "unknown",
        };
        let c = if f != "unknown" { 0.55 } else { 0.0 };
        (
            f.to_string(),
            evidence("method", x.method.as_str(), "http_method_fallback", c),
        )
    }
}

/// The primary resource and its evidence: an existing label, a tag, a stable path
/// segment, the operation id's noun, else the contract's resource.
fn derive_resource(
    ai: &Value,
    tag_resource: Option<(&String, String)>,
    x: &OpText,
    contract_resource: &str,
) -> (String, Evidence) {
    let existing = py_label(&text_of(ai.get("primary_resource")));
    if !existing.is_empty() && existing != "unassigned" {
        return (
            existing.clone(),
            evidence("ai_metadata.primary_resource", existing, "existing", 1.0),
        );
    }
    if let Some((tag, c)) = tag_resource {
        return (c, evidence("tag", tag, "tag", 0.9));
    }
    if let Some((seg, c)) = x.path_segments.iter().find_map(|seg| {
        let c = resource_candidate(seg);
        (!c.is_empty() && !looks_like_operation_segment(&c)).then_some((seg, c))
    }) {
        return (c, evidence("path", seg, "stable_path_segment", 0.84));
    }
    let noun = operation_resource_noun(&x.ow);
    if !noun.is_empty() {
        (
            noun.clone(),
            evidence("operation_id", noun, "operation_id_noun", 0.72),
        )
    } else if !contract_resource.is_empty() {
        (
            contract_resource.to_string(),
            evidence("api_contract", contract_resource, "schema_field", 0.62),
        )
    } else {
        (String::new(), evidence("resource", "", "unknown", 0.0))
    }
}

/// The path module (the first two usable path segments) and its evidence.
fn derive_module(x: &OpText) -> (String, Evidence) {
    let segments = &x.path_segments;
    if segments.is_empty() {
        return (String::new(), evidence("path_module", "", "unknown", 0.0));
    }
    let mut segs: Vec<String> = segments
        .iter()
        .take(2)
        .filter_map(|s| {
            let c = module_candidate(s);
            (!c.is_empty() && !looks_like_operation_segment(s)).then_some(c)
        })
        .collect();
    if segs.is_empty() {
        segs = vec![resource_candidate(&segments[0])];
    }
    let mut dedup: Vec<String> = Vec::new();
    for s in segs {
        if !s.is_empty() && !dedup.contains(&s) {
            dedup.push(s);
        }
    }
    let raw: Vec<&str> = segments.iter().take(2).map(String::as_str).collect();
    (
        dedup.join("/"),
        evidence("path", raw.join("/"), "path_module", 0.9),
    )
}

/// The result shape and its evidence, from the action, the method, the words of the
/// texts and whether the contract or the response envelope is a list.
fn derive_shape(
    openapi: &Value,
    x: &OpText,
    action: &str,
    contract_list_like: bool,
) -> (&'static str, Evidence) {
    let text = if x.ow.is_empty() {
        crate::pytext::lower(&x.text_blob)
    } else {
        crate::pytext::lower(&format!("{} {}", x.ow.join(" "), x.text_blob))
    };
    let has_any = |needles: &[&str]| needles.iter().any(|n| !n.is_empty() && text.contains(n));
    let list_like = contract_list_like || {
        let env = openapi
            .get("response")
            .filter(|v| v.is_object())
            .and_then(|r| r.get("envelope"))
            .filter(|v| v.is_object());
        let cp = {
            let p = text_of(env.and_then(|e| e.get("collection_path")));
            if p.is_empty() {
                text_of(env.and_then(|e| e.get("item_path")))
            } else {
                p
            }
        };
        cp.contains("[*]")
    };
    let text160 = first_chars(&text, 160);
    let method = x.method.as_str();
    if ["create", "update", "delete"].contains(&action) {
        (
            "mutation",
            evidence("action", action, "mutation_action", 0.86),
        )
    } else if action == "action" && !method.is_empty() && method != "get" {
        (
            "mutation",
            evidence("method", method, "non_get_action", 0.72),
        )
    } else if has_any(&["count", "total", "cnt", "건수", "개수", "카운트"]) {
        (
            "count",
            evidence("operation", text160, "count_signal", 0.88),
        )
    } else if list_like
        || has_any(&[
            "list",
            "lists",
            "search",
            "find",
            "query",
            "목록",
            "리스트",
            "검색",
        ])
    {
        ("list", evidence("operation", text160, "list_signal", 0.82))
    } else if action == "read"
        || has_any(&[
            "detail", "details", "info", "view", "single", "상세", "정보", "단건", "보기",
        ])
    {
        (
            "single",
            evidence("operation", text160, "single_signal", 0.78),
        )
    } else if action == "search" {
        ("list", evidence("action", action, "search_action", 0.7))
    } else {
        ("unknown", evidence("result_shape", "", "unknown", 0.0))
    }
}

/// The semantic confidence score and level from the three facts' evidence.
fn confidence(evs: [&Evidence; 3], known: usize) -> (f64, &'static str) {
    let conf = |e: &Evidence| e.confidence;
    let score = crate::pytext::round(
        ((conf(evs[0]) + conf(evs[1]) + conf(evs[2])) / 3.0) * (known as f64 / 3.0),
        4,
    );
    let level = if known == 3 && score >= 0.75 {
        "high"
    } else if known >= 2 && score >= 0.45 {
        "medium"
    } else {
        "low"
    };
    (score, level)
}

/// `one_line_summary`: the existing one, the summary, "action resource", else method and
/// path.
fn one_line_summary(ai: &Value, x: &OpText, action: &str, resource: &str) -> String {
    let cur = crate::pytext::strip(&text_of(ai.get("one_line_summary"))).to_string();
    if !cur.is_empty() {
        return cur;
    }
    if !x.summary.is_empty() {
        return first_chars(&x.summary, 240);
    }
    let mut parts: Vec<&str> = Vec::new();
    if !action.is_empty() && action != "unknown" {
        parts.push(action);
    }
    if !resource.is_empty() {
        parts.push(resource);
    }
    if !parts.is_empty() {
        parts.join(" ")
    } else {
        method_and(
            &x.method,
            if x.path.is_empty() { &x.op_id } else { &x.path },
        )
    }
}

/// `when_to_use`: the existing text, else a sentence from the action and resource.
fn when_to_use(ai: &Value, x: &OpText, action: &str, resource: &str) -> String {
    let cur = crate::pytext::strip(&text_of(ai.get("when_to_use"))).to_string();
    if !cur.is_empty() {
        return cur;
    }
    let target = if resource.is_empty() {
        "the API resource"
    } else {
        resource
    };
    match action {
        "search" => format!("Use when finding or listing {target} records."),
        "read" => format!("Use when reading one {target} record or detail view."),
        "create" => format!("Use when creating {target} records."),
        "update" => format!("Use when updating {target} records."),
        "delete" => format!("Use when deleting {target} records."),
        _ if !x.summary.is_empty() => format!("Use for: {}", first_chars(&x.summary, 180)),
        _ => method_and(&x.method, &x.path),
    }
}

/// `derive_openapi_tool_semantics` + `annotate_openapi_tool_semantics` for one tool.
fn derive(t: &mut ToolSchema) {
    let md = &t.metadata;
    let empty = Value::Object(Map::new());
    let openapi = md
        .get("openapi")
        .filter(|v| v.is_object())
        .unwrap_or(&empty);
    let ai = md
        .get("ai_metadata")
        .filter(|v| v.is_object())
        .unwrap_or(&empty);
    // the contract rows may be frozen already; their facts were taken first
    let (contract_resource, contract_list_like) = match &t.promotion {
        Some(p) => (p.resource.clone(), p.list_like),
        None => contract_facts(md.get("api_contract").filter(|v| v.is_object())),
    };
    let x = OpText::of(t, openapi);
    let (action, action_ev) = derive_action(ai, &x);
    // the first tag that names a resource, and that resource
    let tag_resource = t.tags.iter().find_map(|tag| {
        let c = resource_candidate(tag);
        (!c.is_empty()).then_some((tag, c))
    });
    let operation_group = tag_resource.as_ref().map(|(_, c)| c.clone());
    let (resource, resource_ev) = derive_resource(ai, tag_resource, &x, &contract_resource);
    let (path_module, module_ev) = derive_module(&x);
    let operation_group = operation_group.unwrap_or_else(|| {
        if !path_module.is_empty() {
            path_module.clone()
        } else {
            resource.clone()
        }
    });
    let (result_shape, shape_ev) = derive_shape(openapi, &x, &action, contract_list_like);
    let known = (action != "unknown") as usize
        + (!resource.is_empty()) as usize
        + (!path_module.is_empty()) as usize;
    let (score, level) = confidence([&action_ev, &resource_ev, &module_ev], known);
    let one_line = one_line_summary(ai, &x, &action, &resource);
    let when = when_to_use(ai, &x, &action, &resource);
    let mut sources: Vec<String> = [&action_ev, &resource_ev, &module_ev]
        .iter()
        .map(|e| e.source)
        .filter(|s| !s.is_empty() && *s != "unknown")
        .map(String::from)
        .collect();
    sources.sort();
    sources.dedup();
    let derived_ai = [
        ("canonical_action", json!(action)),
        ("primary_resource", json!(resource)),
        ("one_line_summary", json!(one_line)),
        ("when_to_use", json!(when)),
        ("result_shape", json!(result_shape)),
        ("semantic_confidence", json!(level)),
        ("semantic_confidence_score", json!(score)),
        (
            "semantic_evidence",
            Evidence::frozen(&[&action_ev, &resource_ev, &module_ev, &shape_ev]),
        ),
    ];
    let derived_oa: [(&str, Value); OPENAPI_DERIVED] = [
        ("path_module", json!(path_module)),
        ("operation_group", json!(operation_group)),
        ("semantic_sources", json!(sources)),
    ];
    fill_missing(&mut t.metadata, "ai_metadata", derived_ai);
    fill_missing(&mut t.metadata, "openapi", derived_oa);
}

/// How many members [`derive`] adds to a tool's `openapi` block (the OpenAPI reader makes
/// the block with room for them).
pub const OPENAPI_DERIVED: usize = 3;

/// Sets every derived key that is missing in the object `md[key]`, in place (a key whose
/// value is not an object becomes a fresh object at the same position; a missing key is
/// appended). A fresh object has room for them all.
fn fill_missing<const N: usize>(
    md: &mut Map<String, Value>,
    key: &str,
    derived: [(&str, Value); N],
) {
    let slot = md
        .entry(key)
        .or_insert_with(|| Value::Object(Map::with_capacity(N)));
    if !slot.is_object() {
        *slot = Value::Object(Map::with_capacity(N));
    }
    if let Value::Object(m) = slot {
        for (k, v) in derived {
            if missing_semantic(m.get(k)) {
                m.insert(k.into(), v);
            }
        }
    }
}

/// One `unknown_samples` row: a tool and the semantic fields it lacks.
pub fn unknown_sample(t: &ToolSchema, missing: &[&str]) -> Value {
    json!({
        "name": t.name,
        "missing": missing,
        "method": t.meta_str("method").map(str::to_uppercase),
        "path": t.meta_str("path"),
        "operation_id": t
            .metadata
            .get("openapi")
            .and_then(|o| o.get("operation_id"))
            .cloned()
            .unwrap_or(Value::Null),
    })
}

fn rate(n: usize, total: usize) -> f64 {
    if total == 0 {
        0.0
    } else {
        crate::pytext::round(n as f64 / total as f64, 6)
    }
}

fn counts_json(c: &IndexMap<String, usize>, sorted_by_key: bool, top: usize) -> Value {
    let mut v: Vec<(&String, &usize)> = c.iter().collect();
    if sorted_by_key {
        v.sort_by(|a, b| a.0.cmp(b.0));
    } else {
        v.sort_by(|a, b| b.1.cmp(a.1));
    }
    let mut m = Map::new();
    for (k, n) in v.into_iter().take(top) {
        m.insert(k.clone(), json!(n));
    }
    Value::Object(m)
}

pub fn summary(tools: &[ToolSchema]) -> Value {
    let n = tools.len();
    let mut actions = IndexMap::new();
    let mut resources = IndexMap::new();
    let mut modules = IndexMap::new();
    let mut shapes = IndexMap::new();
    let mut confs = IndexMap::new();
    let (mut ak, mut rk, mut mk) = (0, 0, 0);
    let mut unknown_samples: Vec<Value> = Vec::new();
    // what each tool says, read on every core; then counted in the tools' order
    let said = crate::par::map(tools, SemFacts::of);
    for (t, f) in tools.iter().zip(&said) {
        let (a, r) = (f.action, f.resource);
        if !a.is_empty() && a != "unknown" {
            ak += 1;
        }
        crate::ingest::bump(&mut actions, a);
        if !r.is_empty() && r != "unassigned" {
            rk += 1;
            crate::ingest::bump(&mut resources, r);
        } else {
            crate::ingest::bump(&mut resources, "unassigned");
        }
        let pm = f.module;
        match pm {
            Some(pm) if pm.contains('/') => {
                mk += 1;
                crate::ingest::bump(&mut modules, &pm.replace('/', "_"));
            }
            Some(pm) => {
                mk += 1;
                crate::ingest::bump(&mut modules, pm);
            }
            None => crate::ingest::bump(&mut modules, "unassigned"),
        }
        let mut missing = Vec::new();
        if a.is_empty() || a == "unknown" {
            missing.push("canonical_action");
        }
        if r.is_empty() || r == "unassigned" {
            missing.push("primary_resource");
        }
        if pm.is_none() {
            missing.push("path_module");
        }
        if !missing.is_empty() && unknown_samples.len() < 20 {
            unknown_samples.push(unknown_sample(t, &missing));
        }
        crate::ingest::bump(&mut shapes, f.shape);
        crate::ingest::bump(&mut confs, f.confidence);
    }
    let mut mods: Vec<(&String, &usize)> = modules.iter().collect();
    mods.sort_by(|a, b| b.1.cmp(a.1));
    let top: Vec<Value> = mods
        .iter()
        .take(20)
        .map(|(m, c)| json!({"module": m, "count": c, "rate": rate(**c, n)}))
        .collect();
    json!({
        "tool_count": n,
        "canonical_action_known_count": ak,
        "canonical_action_known_rate": rate(ak, n),
        "primary_resource_assigned_count": rk,
        "primary_resource_assigned_rate": rate(rk, n),
        "path_module_assigned_count": mk,
        "path_module_assigned_rate": rate(mk, n),
        "action_counts": counts_json(&actions, true, usize::MAX),
        "resource_counts": counts_json(&resources, false, 50),
        "module_counts": counts_json(&modules, false, 50),
        "result_shape_counts": counts_json(&shapes, true, usize::MAX),
        "top_modules": top,
        "semantic_confidence_counts": counts_json(&confs, true, usize::MAX),
        "unknown_samples": unknown_samples,
    })
}

/// What the semantic summary counts of one tool (`""` for a value it does not have).
struct SemFacts<'t> {
    action: &'t str,
    resource: &'t str,
    /// the path module, when there is one
    module: Option<&'t str>,
    shape: &'t str,
    confidence: &'t str,
}

impl<'t> SemFacts<'t> {
    fn of(t: &'t ToolSchema) -> SemFacts<'t> {
        let ai = t.metadata.get("ai_metadata");
        let g = |k: &str| {
            ai.and_then(|a| a.get(k))
                .and_then(Value::as_str)
                .unwrap_or("")
        };
        SemFacts {
            action: g("canonical_action"),
            resource: g("primary_resource"),
            module: t
                .metadata
                .get("openapi")
                .and_then(|o| o.get("path_module"))
                .and_then(Value::as_str)
                .filter(|pm| !pm.is_empty()),
            shape: g("result_shape"),
            confidence: g("semantic_confidence"),
        }
    }
}

/// `"<METHOD> <text>"` without empty parts, stripped (the reference's fallback phrases).
fn method_and(method: &str, text: &str) -> String {
    let up = crate::pytext::upper(method);
    let parts: Vec<&str> = [up.as_str(), text]
        .into_iter()
        .filter(|x| !x.is_empty())
        .collect();
    crate::pytext::strip(&parts.join(" ")).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Labels: camel boundaries and other characters become one `_`, trimmed, lower-cased;
    /// a word already in that form comes back as it is.
    #[test]
    fn py_label_examples() {
        for (given, want) in [
            ("pets", "pets"),
            (" v2 ", "v2"),
            ("listPets", "list_pets"),
            ("HTTPServer", "httpserver"),
            ("pet-store__items", "pet_store_items"),
            ("__x__", "x"),
            ("목록Items", "목록items"),
            ("a1B", "a1_b"),
            ("", ""),
        ] {
            assert_eq!(py_label(given), want, "{given:?}");
        }
    }

    /// The evidence items' text, written straight, is what freezing their JSON gives.
    #[test]
    fn evidence_text_is_its_json_frozen() {
        let items = [
            evidence("operation_id", "listPets", "operation_id_verb", 0.9),
            evidence(
                "operation",
                "a \"q\" \\ é \u{202e}\u{1} 목록",
                "list_signal",
                0.82,
            ),
            evidence("resource", "", "unknown", 0.0),
            evidence("ai_metadata.primary_resource", "pet", "existing", 1.0),
            evidence("method", "get", "http_method_fallback", 0.123456),
        ];
        let refs: Vec<&Evidence> = items.iter().collect();
        let tree = Value::Array(
            items
                .iter()
                .map(|e| {
                    json!({
                        "field": e.field,
                        "value": e.value,
                        "source": e.source,
                        "confidence": e.confidence,
                    })
                })
                .collect(),
        );
        assert_eq!(Evidence::frozen(&refs), crate::ingest::frozen::freeze(tree));
        assert_eq!(items[4].confidence, 0.1235);
    }
}
