//! Query action and shape priorities of the selector (spec §5.2).

use regex::Regex;
use std::sync::LazyLock;

use super::terms::{Terms, has, identifier_present, text_has};
use crate::engine::intent;
use crate::engine::lexicon::*;
use crate::pytext;

/// An ordered priority table such as `{search: 6, read: 4, action: 2}`.
pub type Priority = Vec<(&'static str, i64)>;

pub const SEARCH_P: &[(&str, i64)] = &[("search", 6), ("read", 4), ("action", 2)];
pub const READ_P: &[(&str, i64)] = &[("read", 6), ("search", 4), ("action", 2)];
pub const CREATE_P: &[(&str, i64)] = &[
    ("create", 6),
    ("action", 5),
    ("update", 3),
    ("read", 2),
    ("search", 1),
];
pub const UPDATE_P: &[(&str, i64)] = &[
    ("update", 6),
    ("action", 5),
    ("create", 3),
    ("read", 2),
    ("search", 1),
];
pub const ACTION_P: &[(&str, i64)] = &[
    ("action", 6),
    ("update", 4),
    ("create", 3),
    ("read", 2),
    ("search", 1),
];
pub const DELETE_P: &[(&str, i64)] = &[
    ("delete", 6),
    ("action", 5),
    ("update", 3),
    ("read", 1),
    ("search", 1),
];
pub const NOTIFY_P: &[(&str, i64)] = &[
    ("create", 7),
    ("action", 6),
    ("update", 3),
    ("read", 2),
    ("search", 1),
];

pub const COUNT_SP: &[(&str, i64)] = &[("count", 6), ("list", 3), ("single", 1)];
pub const SINGLE_SP: &[(&str, i64)] = &[("single", 6), ("list", 2), ("count", 1)];
pub const LIST_SP: &[(&str, i64)] = &[("list", 6), ("count", 3), ("single", 1)];
pub const AUDIT_SP: &[(&str, i64)] = &[("list", 6), ("single", 2), ("count", 1)];
pub const MUTATION_SP: &[(&str, i64)] = &[("mutation", 5), ("single", 1)];

static DIRECTIVE_START: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(show|get|read|list|search|find|create|add|update|edit|delete|remove|send|run)\b")
        .expect("static pattern")
});

fn rfind_chars(text: &str, term: &str) -> Option<usize> {
    text.rfind(term).map(|b| text[..b].chars().count())
}

/// The last explicit group in the text: max over (last index, term length, group name).
fn last_group(text: &str, groups: &[(&'static str, Vec<&'static str>)]) -> &'static str {
    let mut best: Option<(usize, usize, &'static str)> = None;
    for (g, set) in groups {
        for t in set {
            if let Some(i) = rfind_chars(text, t) {
                let cand = (i, pytext::char_len(t), *g);
                if best.is_none_or(|b| cand > b) {
                    best = Some(cand);
                }
            }
        }
    }
    best.map(|b| b.2).unwrap_or("")
}

fn norm_text(query: &str) -> String {
    pytext::lower(pytext::strip(query))
}

/// `LA(query)`: the last explicit action group.
pub fn last_action(query: &str) -> &'static str {
    let mut action: Vec<&'static str> = SEL_ACTION.to_vec();
    action.extend(SEL_NOTIFICATION_SEND.iter());
    let groups = vec![
        ("delete", SEL_DELETE.to_vec()),
        ("action", action),
        ("update", SEL_UPDATE.to_vec()),
        ("create", SEL_CREATE.to_vec()),
        ("search", SEL_SEARCH.to_vec()),
        ("read", SEL_READ.to_vec()),
    ];
    last_group(&norm_text(query), &groups)
}

/// `LS(query)`: the last explicit shape group.
pub fn last_shape(query: &str) -> &'static str {
    let groups = vec![
        ("count", SEL_COUNT.to_vec()),
        ("single", SEL_SINGLE.to_vec()),
        ("list", SEL_LIST.to_vec()),
    ];
    last_group(&norm_text(query), &groups)
}

pub fn directive_cue(query: &str) -> bool {
    let text = norm_text(query);
    [
        "해줘",
        "해주세요",
        "해 줘",
        "해 주",
        "줘",
        "주세요",
        "줄래",
        "please",
    ]
    .iter()
    .any(|s| text.contains(s))
        || DIRECTIVE_START.is_match(&text)
}

fn table(p: &[(&'static str, i64)]) -> Priority {
    p.to_vec()
}

/// `AP(query)`: the action priority table.
pub fn action_priority(query: &str, query_terms: &Terms) -> Priority {
    let text = norm_text(query);
    let h = |set: &[&str]| text_has(&text, set);
    let has_read = h(SEL_READ);
    let has_search = h(SEL_SEARCH);
    if has_read && h(SEL_AUDIT_READ) {
        return table(READ_P);
    }
    let cue = directive_cue(query);
    let la = last_action(query);
    let notify = h(SEL_NOTIFICATION) && h(SEL_NOTIFICATION_SEND);
    if cue && la == "action" && notify {
        return table(NOTIFY_P);
    }
    if cue {
        match la {
            "delete" => return table(DELETE_P),
            "action" => return table(ACTION_P),
            "update" => return table(UPDATE_P),
            "create" => return table(CREATE_P),
            "search" => return table(SEARCH_P),
            "read" => {
                return if has_search && !has(query_terms, SEL_DETAIL_READ) {
                    table(SEARCH_P)
                } else {
                    table(READ_P)
                };
            }
            _ => {}
        }
    }
    if notify {
        return table(NOTIFY_P);
    }
    if h(SEL_DELETE) {
        return table(DELETE_P);
    }
    if h(SEL_ACTION) {
        return table(ACTION_P);
    }
    if has_read && h(SEL_DETAIL_READ) {
        return table(READ_P);
    }
    if h(SEL_UPDATE) {
        return table(UPDATE_P);
    }
    if h(SEL_CREATE) {
        return table(CREATE_P);
    }
    if has_search {
        return table(SEARCH_P);
    }
    if has_read {
        return table(READ_P);
    }
    let i = intent::classify(query);
    if i.is_zero() {
        return Vec::new();
    }
    if i.delete >= i.read.max(i.write) {
        table(DELETE_P)
    } else if i.write >= i.read.max(i.delete) {
        table(ACTION_P)
    } else {
        table(READ_P)
    }
}

/// `SP(query)`: the result-shape priority table.
pub fn shape_priority(query: &str, t: &Terms) -> Priority {
    match last_shape(query) {
        "count" => return table(COUNT_SP),
        "single" => return table(SINGLE_SP),
        "list" => return table(LIST_SP),
        _ => {}
    }
    let audit = has(t, SEL_AUDIT_COLLECTION);
    if audit && identifier_present(t) {
        return table(SINGLE_SP);
    }
    if audit {
        return table(AUDIT_SP);
    }
    let la = last_action(query);
    if la == "read" && identifier_present(t) {
        return table(SINGLE_SP);
    }
    if matches!(la, "create" | "update" | "delete" | "action") {
        return table(MUTATION_SP);
    }
    Vec::new()
}

/// `norm_priority(P, key)`.
pub fn norm_priority(p: &Priority, key: &str) -> f64 {
    if p.is_empty() || key.is_empty() {
        return 0.0;
    }
    let Some(&(_, v)) = p.iter().find(|(k, _)| *k == key) else {
        return 0.0;
    };
    let max = p.iter().map(|x| x.1).max().unwrap_or(1);
    v as f64 / max as f64
}

/// `preferred(P)`: the unique key with the maximal value, else "".
pub fn preferred(p: &Priority) -> &'static str {
    let Some(max) = p.iter().map(|x| x.1).max() else {
        return "";
    };
    let top: Vec<&'static str> = p.iter().filter(|x| x.1 == max).map(|x| x.0).collect();
    if top.len() == 1 { top[0] } else { "" }
}

#[cfg(test)]
mod tests {
    use super::super::terms::st;
    use super::*;

    fn ap(q: &str) -> Priority {
        action_priority(q, &st(q))
    }

    #[test]
    fn spec_t20_vectors() {
        assert_eq!(ap("상품 검색"), table(SEARCH_P));
        assert_eq!(ap("상품 상세 확인"), table(READ_P));
        assert_eq!(ap("리뷰 작성"), table(CREATE_P));
        assert_eq!(ap("권한 수정"), table(UPDATE_P));
        assert_eq!(ap("세션 revoke"), table(DELETE_P));
        assert_eq!(ap("send notification"), table(NOTIFY_P));
        assert_eq!(ap("상품명으로 검색해서 상품 상세를 보여줘"), table(READ_P));
        assert_eq!(ap("사용자 계정 변경 감사 로그 조회"), table(READ_P));
        assert_eq!(ap("워크플로우 담당자에게 알림 보내줘"), table(NOTIFY_P));
        assert_eq!(ap("nonsense"), Vec::new());
        assert_eq!(ap("이미지 생성 작업의 현재 상태를 확인해줘"), table(READ_P));
        assert_eq!(
            ap("현재 목록을 조회한 후 선택한 항목을 수정해줘"),
            table(UPDATE_P)
        );
        assert_eq!(
            ap("발송된 메시지 정보를 목록으로 조회해줘"),
            table(SEARCH_P)
        );
        assert_eq!(ap("Delete pet number 7"), table(DELETE_P));
        assert_eq!(ap("show invoice detail for invoice id 42"), table(READ_P));
    }
}
