//! Deterministic semantic metadata (spec §2.6): `ai_metadata` (canonical action, primary
//! resource, summary, when-to-use, result shape, confidence, evidence) and
//! `openapi.path_module` / `operation_group` / `semantic_sources`, plus the semantic summary.

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

fn is_version(w: &str) -> bool {
    let b = w.as_bytes();
    b.len() >= 2 && b[0] == b'v' && b[1].is_ascii_digit()
}

fn resource_words(ws: &[String]) -> Vec<String> {
    ws.iter()
        .filter(|w| {
            !GENERIC_PATH.contains(&w.as_str())
                && !OP_SUFFIX.contains(&w.as_str())
                && !JOINERS.contains(&w.as_str())
                && !is_version(w)
                && action_of(w).is_none()
        })
        .cloned()
        .collect()
}

fn label(ws: &[String]) -> Option<String> {
    let r = resource_words(ws);
    if r.is_empty() {
        None
    } else {
        Some(r.into_iter().take(3).collect::<Vec<_>>().join("_"))
    }
}

fn path_segments(path: &str) -> Vec<String> {
    path.split('/')
        .filter(|s| !s.is_empty() && !s.starts_with('{'))
        .map(String::from)
        .collect()
}

pub fn annotate(tools: &mut [ToolSchema]) -> Value {
    for t in tools.iter_mut() {
        derive(t);
    }
    summary(tools)
}

/// Canonical label of a path segment or tag: camel boundaries and non-alphanumerics → `_`.
fn canonical_label(s: &str) -> String {
    words(s).join("_")
}

fn any_sub(text: &str, list: &[&str]) -> bool {
    list.iter().any(|k| text.contains(k))
}

fn derive(t: &mut ToolSchema) {
    let method = t.meta_str("method").unwrap_or("").to_string();
    let path = t.meta_str("path").unwrap_or("").to_string();
    let oa = t.metadata.get("openapi");
    let oa_str = |k: &str| oa.and_then(|o| o.get(k)).and_then(Value::as_str);
    let op_id = oa_str("operation_id").unwrap_or(&t.name).to_string();
    let desc_s = oa_str("description").unwrap_or("").to_string();
    // an empty summary falls back to the description in the semantic texts
    let summary_s = match oa_str("summary").unwrap_or("") {
        "" => desc_s.clone(),
        x => x.to_string(),
    };
    let ow = words(&op_id);
    // the operation text the shape signals look at
    let text = format!(
        "{} {} {} {} {}",
        ow.join(" "),
        op_id.to_lowercase(),
        summary_s.to_lowercase(),
        desc_s.to_lowercase(),
        path.to_lowercase()
    );
    let mut evidence: Vec<Value> = Vec::new();
    // --- canonical action
    let mut action: Option<(&str, &str, f64)> = None;
    for w in &ow {
        if let Some(a) = action_of(w) {
            let mut a = a;
            if a == "read"
                && (ow.iter().any(|x| SEARCH.contains(&x.as_str()))
                    || any_sub(&text, &["목록", "리스트", "검색", "list", "query"]))
            {
                a = "search";
            }
            evidence.push(json!({"field": "operation_id", "value": w, "source": "operation_id_verb", "confidence": 0.9}));
            action = Some((a, "operation_id_verb", 0.9));
            break;
        }
    }
    if action.is_none() {
        let sd = format!("{op_id} {summary_s} {desc_s}");
        let low = sd.to_lowercase();
        let tw: Vec<String> = low
            .split(|c: char| !(c.is_alphanumeric() || ('가'..='힣').contains(&c)))
            .filter(|w| !w.is_empty())
            .map(String::from)
            .collect();
        let has_word = |list: &[&str]| tw.iter().any(|w| list.contains(&w.as_str()));
        // 1. whole words (create/update/delete/action first, then search, then read)
        // 2. a search keyword anywhere; 3. any keyword anywhere
        let order: [(&[&str], &str); 6] = [
            (CREATE, "create"),
            (UPDATE, "update"),
            (DELETE, "delete"),
            (ACTION, "action"),
            (SEARCH, "search"),
            (READ, "read"),
        ];
        let pick = order
            .iter()
            .find(|(list, _)| has_word(list))
            .map(|(_, a)| *a)
            .or_else(|| any_sub(&low, SEARCH).then_some("search"))
            .or_else(|| {
                order
                    .iter()
                    .filter(|(_, a)| *a != "search")
                    .find(|(list, _)| any_sub(&low, list))
                    .map(|(_, a)| *a)
            });
        if let Some(a) = pick {
            let full = format!("{op_id} {summary_s} {desc_s} {path}");
            let v: String = full.chars().take(160).collect();
            evidence.push(json!({"field": "summary_description", "value": v, "source": "summary_verb", "confidence": 0.78}));
            action = Some((a, "summary_verb", 0.78));
        }
    }
    let action = action.unwrap_or_else(|| {
        let a = match method.as_str() {
            "get" => "read",
            "post" => "action",
            "put" | "patch" => "update",
            "delete" => "delete",
            _ => "unknown",
        };
        if a != "unknown" {
            evidence.push(json!({"field": "method", "value": method, "source": "http_method_fallback", "confidence": 0.55}));
        }
        (a, "http_method_fallback", if a == "unknown" { 0.0 } else { 0.55 })
    });
    // --- resource and module
    let tags: Vec<String> = t.tags.clone();
    let mut resource: Option<(String, f64, &str)> = None;
    for tag in &tags {
        if let Some(r) = label(&words(tag)) {
            evidence
                .push(json!({"field": "tag", "value": tag, "source": "tag", "confidence": 0.9}));
            resource = Some((r, 0.9, "tag"));
            break;
        }
    }
    let segs = path_segments(&path);
    let module_segs: Vec<&String> = segs
        .iter()
        .filter(|s| {
            let ws = words(s);
            !ws.is_empty() && !resource_words(&ws).is_empty() && action_of(&ws[0]).is_none()
        })
        .take(2)
        .collect();
    let path_module = if module_segs.is_empty() {
        None
    } else {
        Some(
            module_segs
                .iter()
                .map(|s| canonical_label(s))
                .collect::<Vec<_>>()
                .join("/"),
        )
    };
    if resource.is_none()
        && let Some(first) = module_segs.first()
    {
        evidence.push(json!({"field": "path", "value": first, "source": "stable_path_segment", "confidence": 0.84}));
        resource = Some((canonical_label(first), 0.84, "stable_path_segment"));
    }
    if resource.is_none()
        && let Some(r) = label(&ow)
    {
        resource = Some((r, 0.7, "operation_id_noun"));
    }
    if let Some(_pm) = &path_module {
        let raw: Vec<&str> = module_segs.iter().map(|s| s.as_str()).collect();
        evidence.push(json!({"field": "path", "value": raw.join("/"), "source": "path_module", "confidence": 0.9}));
    }
    let operation_group = tags
        .iter()
        .find_map(|tag| label(&words(tag)))
        .or(path_module.clone())
        .or(resource.as_ref().map(|r| r.0.clone()));
    // --- result shape
    let list_like = t
        .metadata
        .get("api_contract")
        .and_then(|c| c.get("produces"))
        .and_then(Value::as_array)
        .is_some_and(|rows| {
            rows.iter().any(|r| {
                r.get("json_path")
                    .and_then(Value::as_str)
                    .is_some_and(|j| j.contains("[*]"))
            })
        });
    let op_text: String = text.trim().chars().take(160).collect();
    let (result_shape, shape_ev) = match action.0 {
        "create" | "update" | "delete" => (
            "mutation",
            Some(
                json!({"field": "action", "value": action.0, "source": "mutation_action", "confidence": 0.86}),
            ),
        ),
        "action" if method != "get" => (
            "mutation",
            Some(
                json!({"field": "method", "value": method, "source": "non_get_action", "confidence": 0.72}),
            ),
        ),
        _ if any_sub(&text, &["count", "total", "cnt", "건수", "개수", "카운트"]) => (
            "count",
            Some(
                json!({"field": "operation", "value": op_text, "source": "count_signal", "confidence": 0.88}),
            ),
        ),
        _ if list_like || any_sub(&text, SEARCH) => (
            "list",
            Some(
                json!({"field": "operation", "value": op_text, "source": "list_signal", "confidence": 0.82}),
            ),
        ),
        _ if action.0 == "read"
            || any_sub(
                &text,
                &[
                    "detail", "info", "view", "single", "상세", "정보", "단건", "보기",
                ],
            ) =>
        {
            (
                "single",
                Some(
                    json!({"field": "operation", "value": op_text, "source": "single_signal", "confidence": 0.78}),
                ),
            )
        }
        "search" => (
            "list",
            Some(
                json!({"field": "operation", "value": op_text, "source": "list_signal", "confidence": 0.82}),
            ),
        ),
        _ => ("unknown", None),
    };
    if let Some(e) = shape_ev {
        evidence.push(e);
    }
    let res_name = resource.as_ref().map(|r| r.0.clone());
    let known = [
        action.0 != "unknown",
        res_name.is_some(),
        path_module.is_some(),
    ];
    let nknown = known.iter().filter(|x| **x).count();
    let confs = [
        action.2,
        resource.as_ref().map_or(0.0, |r| r.1),
        if path_module.is_some() { 0.9 } else { 0.0 },
    ];
    let mean = confs.iter().sum::<f64>() / 3.0 * (nknown as f64 / 3.0);
    let score = crate::engine::pytext::round(mean, 4);
    let level = if nknown == 3 && score >= 0.75 {
        "high"
    } else if nknown >= 2 && score >= 0.45 {
        "medium"
    } else {
        "low"
    };
    let r = res_name.clone().unwrap_or_else(|| "resource".into());
    let one_line: String = if !summary_s.is_empty() {
        summary_s.chars().take(240).collect()
    } else if !t.description.is_empty() {
        t.description.chars().take(240).collect()
    } else {
        format!("{} {path}", method.to_uppercase())
    };
    let when = match action.0 {
        "search" => format!("Use when finding or listing {r} records."),
        "read" => format!("Use when reading one {r} record or detail view."),
        "create" => format!("Use when creating {r} records."),
        "update" => format!("Use when updating {r} records."),
        "delete" => format!("Use when deleting {r} records."),
        _ => format!("Use for: {one_line}"),
    };
    let mut ai = t
        .metadata
        .get("ai_metadata")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let set = |ai: &mut Map<String, Value>, k: &str, v: Value| {
        let missing = match ai.get(k) {
            None | Some(Value::Null) => true,
            Some(Value::String(s)) => s.is_empty() || s == "unknown" || s == "unassigned",
            _ => false,
        };
        if missing {
            ai.insert(k.into(), v);
        }
    };
    set(&mut ai, "canonical_action", json!(action.0));
    set(
        &mut ai,
        "primary_resource",
        res_name.map(Value::String).unwrap_or(json!("unassigned")),
    );
    set(&mut ai, "one_line_summary", json!(one_line));
    set(&mut ai, "when_to_use", json!(when));
    set(&mut ai, "result_shape", json!(result_shape));
    set(&mut ai, "semantic_confidence", json!(level));
    set(&mut ai, "semantic_confidence_score", json!(score));
    set(&mut ai, "semantic_evidence", Value::Array(evidence));
    t.metadata.insert("ai_metadata".into(), Value::Object(ai));
    if let Some(Value::Object(o)) = t.metadata.get_mut("openapi") {
        if let Some(pm) = &path_module {
            o.entry("path_module").or_insert(json!(pm));
        }
        if let Some(g) = &operation_group {
            o.entry("operation_group").or_insert(json!(g));
        }
        let mut src = vec![action.1.to_string()];
        if path_module.is_some() {
            src.push("path_module".into());
        }
        if let Some((_, _, rs)) = &resource {
            src.push((*rs).to_string());
        }
        src.sort();
        src.dedup();
        o.entry("semantic_sources").or_insert(json!(src));
    }
}

fn rate(n: usize, total: usize) -> f64 {
    if total == 0 {
        0.0
    } else {
        crate::engine::pytext::round(n as f64 / total as f64, 6)
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
    for t in tools {
        let ai = t.metadata.get("ai_metadata");
        let g = |k: &str| {
            ai.and_then(|a| a.get(k))
                .and_then(Value::as_str)
                .unwrap_or("")
        };
        let a = g("canonical_action");
        if !a.is_empty() && a != "unknown" {
            ak += 1;
        }
        *actions.entry(a.to_string()).or_insert(0usize) += 1;
        let r = g("primary_resource");
        if !r.is_empty() && r != "unassigned" {
            rk += 1;
            *resources.entry(r.to_string()).or_insert(0usize) += 1;
        }
        if let Some(pm) = t
            .metadata
            .get("openapi")
            .and_then(|o| o.get("path_module"))
            .and_then(Value::as_str)
        {
            mk += 1;
            *modules.entry(pm.replace('/', "_")).or_insert(0usize) += 1;
        }
        *shapes
            .entry(g("result_shape").to_string())
            .or_insert(0usize) += 1;
        *confs
            .entry(g("semantic_confidence").to_string())
            .or_insert(0usize) += 1;
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
        "unknown_samples": [],
    })
}
