//! The built-in BM25 tokenizer (spec §3.2), used for documents and queries alike.

use crate::pytext;

/// Something that turns text into BM25 tokens. The built-in tokenizer is the default; the
/// reference lets callers plug in another one, which must serve both index and query.
pub trait Tokenizer: Send + Sync {
    fn tokenize_into(&self, text: &str, out: &mut Vec<String>);

    fn tokenize(&self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        self.tokenize_into(text, &mut out);
        out
    }
}

#[derive(Debug, Default, Clone, Copy)]
pub struct BuiltinTokenizer;

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
            | '\''
            | '"'
            | '`'
            | '['
            | ']'
            | '{'
            | '}'
    ) || pytext::is_space(c)
}

fn is_hangul_wide(c: char) -> bool {
    ('\u{AC00}'..='\u{D7AF}').contains(&c)
}

impl Tokenizer for BuiltinTokenizer {
    fn tokenize_into(&self, text: &str, out: &mut Vec<String>) {
        let mut spaced = String::new();
        for part in text.split(is_separator) {
            if part.is_empty() {
                continue;
            }
            camel_split(part, &mut spaced);
            for w in spaced.split(' ') {
                if w.is_empty() {
                    continue;
                }
                let w = pytext::lower(w);
                let s = stem(&w);
                if s.len() != w.len() {
                    out.push(s.to_string());
                }
                let had_hangul = w.chars().any(is_hangul_wide);
                out.push(w.clone());
                if had_hangul {
                    let hs: Vec<char> = w.chars().filter(|&c| is_hangul_wide(c)).collect();
                    if hs.len() >= 2 {
                        for pair in hs.windows(2) {
                            let mut b = String::with_capacity(6);
                            b.push(pair[0]);
                            b.push(pair[1]);
                            out.push(b);
                        }
                    }
                }
            }
        }
    }
}

/// Applies the two camel-case splitting rules: `aB` → `a B`, then `ABCd` → `AB Cd`.
fn camel_split(part: &str, out: &mut String) {
    out.clear();
    let chars: Vec<char> = part.chars().collect();
    // pass 1: lower followed by upper
    let mut pass1: Vec<char> = Vec::with_capacity(chars.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        pass1.push(c);
        if c.is_ascii_lowercase() && chars.get(i + 1).is_some_and(|n| n.is_ascii_uppercase()) {
            pass1.push(' ');
        }
    }
    // pass 2: ([A-Z]+)([A-Z][a-z]) with leftmost-first, non-overlapping matches
    let n = pass1.len();
    let mut i = 0;
    while i < n {
        let c = pass1[i];
        if c.is_ascii_uppercase() {
            let mut q = i;
            while q < n && pass1[q].is_ascii_uppercase() {
                q += 1;
            }
            if q - i >= 2 && q < n && pass1[q].is_ascii_lowercase() {
                out.extend(&pass1[i..q - 1]);
                out.push(' ');
                out.push(pass1[q - 1]);
                out.push(pass1[q]);
                i = q + 1;
            } else {
                out.extend(&pass1[i..q]);
                i = q;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
}

const STEM_RULES: &[(&str, usize)] = &[
    ("ies", 2),
    ("ied", 2),
    ("ing", 3),
    ("tion", 3),
    ("sion", 3),
    ("ment", 3),
    ("ness", 3),
    ("able", 3),
    ("ible", 3),
    ("ous", 3),
    ("ive", 3),
    ("ful", 3),
    ("es", 3),
    ("ed", 3),
    ("er", 3),
    ("ly", 3),
    ("s", 3),
];

/// The reference's light suffix stemmer.
pub fn stem(t: &str) -> &str {
    let len = pytext::char_len(t);
    if len <= 3 {
        return t;
    }
    for &(suffix, min) in STEM_RULES {
        if let Some(rest) = t.strip_suffix(suffix)
            && pytext::char_len(rest) >= min
        {
            return rest;
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<String> {
        BuiltinTokenizer.tokenize(s)
    }

    #[test]
    fn spec_examples() {
        assert_eq!(
            toks("findPetsByStatus"),
            ["find", "pet", "pets", "by", "statu", "status"]
        );
        assert_eq!(toks("HTTPServerError"), ["http", "serv", "server", "error"]);
        assert_eq!(toks("get2Users"), ["get2user", "get2users"]);
        assert_eq!(
            toks("/pet/{petId}/uploadImage"),
            ["pet", "pet", "id", "upload", "image"]
        );
        assert_eq!(toks("listing"), ["list", "listing"]);
        assert_eq!(
            toks("정기주문해지하기"),
            [
                "정기주문해지하기",
                "정기",
                "기주",
                "주문",
                "문해",
                "해지",
                "지하",
                "하기"
            ]
        );
        assert_eq!(
            toks("회원을 삭제해줘"),
            ["회원을", "회원", "원을", "삭제해줘", "삭제", "제해", "해줘"]
        );
    }

    #[test]
    fn path_context_examples() {
        assert_eq!(toks("cluster-wide"), ["clust", "cluster", "wide"]);
        assert_eq!(toks("namespaced"), ["namespac", "namespaced"]);
        assert_eq!(toks("exec of pods"), ["exec", "of", "pod", "pods"]);
    }

    #[test]
    fn camel_rules_match_regex_semantics() {
        let re1 = regex::Regex::new("([a-z])([A-Z])").unwrap();
        let re2 = regex::Regex::new("([A-Z]+)([A-Z][a-z])").unwrap();
        for s in [
            "ABCDefGHIjk",
            "HTTPServer",
            "aBcD",
            "XMLHttpRequestID",
            "AbCDEfgH",
            "ABaBCc",
            "IDs",
        ] {
            let want = re2
                .replace_all(&re1.replace_all(s, "$1 $2"), "$1 $2")
                .to_string();
            let mut got = String::new();
            camel_split(s, &mut got);
            assert_eq!(got, want, "{s}");
        }
    }
}
