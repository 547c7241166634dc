//! Selector term analysis (spec §5.2, §5.4): selector terms `ST`, Korean suffix
//! normalisation, the contrastive key `ck`, loose substring tests and the term sets.

use regex::Regex;
use std::collections::BTreeSet;
use std::sync::LazyLock;

use crate::engine::lexicon::*;
use crate::pytext;

pub type Terms = BTreeSet<String>;

static LARGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[(（][\s\x1c-\x1f]*대[\s\x1c-\x1f]*[)）]").expect("static pattern")
});
static SMALL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[(（][\s\x1c-\x1f]*소[\s\x1c-\x1f]*[)）]").expect("static pattern")
});
static VERSION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^v?\d+(\.\d+)*$").expect("static pattern"));

fn is_separator(c: char) -> bool {
    matches!(
        c,
        '_' | '-'
            | '/'
            | '.'
            | ','
            | ';'
            | ':'
            | '!'
            | '?'
            | '('
            | ')'
            | '['
            | ']'
            | '{'
            | '}'
            | '$'
            | '#'
    ) || pytext::is_space(c)
}

fn clen(s: &str) -> usize {
    pytext::char_len(s)
}

/// `norm(t)` of spec §5.2.
pub fn norm_into(t: &str, out: &mut Terms) {
    let mut vals: Vec<String> = vec![t.to_string()];
    for s in SELECTOR_KO_SUFFIXES {
        if let Some(rest) = t.strip_suffix(s) {
            if clen(t) > clen(s) + 1 {
                vals.push(rest.to_string());
            }
            break;
        }
    }
    for marker in ["번호", "아이디", "코드"] {
        if t.contains(marker) {
            vals.push(marker.to_string());
        }
    }
    if t.chars().any(pytext::is_decimal) {
        vals.push("__numeric__".into());
    }
    for v in vals {
        if clen(&v) > 1 {
            out.insert(v);
        }
    }
}

/// Selector terms `ST(text)`.
pub fn st(text: &str) -> Terms {
    let mut out = Terms::new();
    st_into(text, &mut out);
    out
}

pub fn st_into(text: &str, out: &mut Terms) {
    if text.is_empty() {
        return;
    }
    let t = LARGE.replace_all(text, " large ");
    let t = SMALL.replace_all(&t, " small ");
    let mut spaced = String::with_capacity(t.len() + 4);
    let mut prev: Option<char> = None;
    for c in t.chars() {
        if let Some(p) = prev
            && (p.is_ascii_lowercase() || p.is_ascii_digit())
            && c.is_ascii_uppercase()
        {
            spaced.push(' ');
        }
        spaced.push(c);
        prev = Some(c);
    }
    let lower = pytext::lower(&spaced);
    for piece in lower.split(is_separator) {
        if clen(piece) <= 1 {
            continue;
        }
        norm_into(piece, out);
        if matches!(piece, "대분류" | "상위분류" | "대유형") {
            out.insert("large".into());
        }
        if matches!(piece, "소분류" | "하위분류" | "소유형") {
            out.insert("small".into());
        }
    }
}

/// `has(T, S)`: some member of `S` is a substring of some member of `T`.
pub fn has(terms: &Terms, set: &[&str]) -> bool {
    terms.iter().any(|t| set.iter().any(|s| t.contains(s)))
}

/// Some member of `set` is a substring of `text`.
pub fn text_has(text: &str, set: &[&str]) -> bool {
    set.iter().any(|s| text.contains(s))
}

pub fn intersects(terms: &Terms, set: &[&str]) -> bool {
    set.iter().any(|s| terms.contains(*s))
}

/// identifier-present(T): an identifier term inside some term, or a term with a digit.
pub fn identifier_present(terms: &Terms) -> bool {
    has(terms, SEL_IDENTIFIER) || terms.iter().any(|t| t.chars().any(pytext::is_digit))
}

pub fn is_version_or_numeric(t: &str) -> bool {
    t == "__numeric__" || VERSION.is_match(t)
}

fn all_hangul(t: &str) -> bool {
    !t.is_empty() && t.chars().all(pytext::is_hangul_syllable)
}

/// The contrastive key `ck(term)`.
pub fn ck(term: &str) -> String {
    if all_hangul(term) {
        let mut t = term.to_string();
        loop {
            let mut changed = false;
            for s in SELECTOR_KO_SUFFIXES {
                if t.ends_with(s) && clen(&t) > clen(s) + 1 {
                    t.truncate(t.len() - s.len());
                    changed = true;
                    break;
                }
            }
            if !changed {
                break;
            }
        }
        return t;
    }
    if !term.is_ascii() || term.len() <= 3 {
        return term.to_string();
    }
    if term.len() > 4 && term.ends_with("ies") {
        return format!("{}y", &term[..term.len() - 3]);
    }
    if ["sses", "xes", "zes", "ches", "shes"]
        .iter()
        .any(|s| term.ends_with(s))
    {
        return term[..term.len() - 2].to_string();
    }
    if term.ends_with('s')
        && !term.ends_with("ss")
        && !term.ends_with("us")
        && !term.ends_with("is")
    {
        return term[..term.len() - 1].to_string();
    }
    term.to_string()
}

pub fn ck_set(terms: &Terms) -> Terms {
    terms.iter().map(|t| ck(t)).collect()
}

/// Korean-fuzzy overlap of §4.4 on selector term sets: a subset of `l`.
pub fn match_c(l: &Terms, r: &Terms) -> Terms {
    let r_h: Vec<&String> = r.iter().filter(|x| clen(x) >= 2 && all_hangul(x)).collect();
    l.iter()
        .filter(|x| {
            r.contains(*x)
                || (clen(x) >= 2
                    && all_hangul(x)
                    && r_h
                        .iter()
                        .any(|y| y.contains(x.as_str()) || x.contains(y.as_str())))
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selector_terms() {
        let t = st("getOrderDetail 상품번호로 v2 (대)분류");
        assert!(t.contains("get") && t.contains("order") && t.contains("detail"));
        assert!(t.contains("상품번호로") && t.contains("상품번호") && t.contains("번호"));
        assert!(t.contains("v2") && t.contains("__numeric__"));
        assert!(t.contains("large"));
    }

    #[test]
    fn contrastive_key() {
        assert_eq!(ck("classes"), "class");
        assert_eq!(ck("categories"), "category");
        assert_eq!(ck("orders"), "order");
        assert_eq!(ck("status"), "status");
        assert_eq!(ck("ids"), "ids");
    }
}
