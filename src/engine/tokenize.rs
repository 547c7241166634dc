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

    /// Calls `f` with each token of `text`, in order: the tokens `tokenize_into` pushes.
    /// The index builds its documents through this (the built-in tokenizer allocates
    /// nothing per token here).
    fn each_token(&self, text: &str, f: &mut dyn FnMut(&str)) {
        for t in self.tokenize(text) {
            f(&t);
        }
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
        self.each_token(text, &mut |t| out.push(t.to_string()));
    }

    fn each_token(&self, text: &str, f: &mut dyn FnMut(&str)) {
        // scratch buffers of the ASCII path, kept per thread (taken out while in use)
        thread_local! {
            static SCRATCH: std::cell::Cell<(Vec<u8>, Vec<u8>)> = Default::default();
        }
        let (mut pass1, mut spaced) = SCRATCH.take();
        if text.is_ascii() {
            // the separators of an ASCII text are ASCII: split its bytes
            for part in text.as_bytes().split(|&b| is_separator(b as char)) {
                if !part.is_empty() {
                    ascii_part(part, &mut pass1, &mut spaced, f);
                }
            }
        } else {
            for part in text.split(is_separator) {
                if part.is_empty() {
                    continue;
                }
                if part.is_ascii() {
                    ascii_part(part.as_bytes(), &mut pass1, &mut spaced, f);
                } else {
                    unicode_part(part, f);
                }
            }
        }
        SCRATCH.set((pass1, spaced));
    }
}

/// The tokens of one ASCII part (between separators): camel-case split, each word
/// lower-cased, its stem first when the stemmer shortens it. What [`unicode_part`] gives
/// for the same part, without a `char` vector or a string per word.
fn ascii_part(part: &[u8], pass1: &mut Vec<u8>, spaced: &mut Vec<u8>, f: &mut dyn FnMut(&str)) {
    camel_split_ascii(part, pass1, spaced);
    spaced.make_ascii_lowercase();
    for w in spaced.split(|&b| b == b' ') {
        if w.is_empty() {
            continue;
        }
        // ASCII bytes: always UTF-8
        let Ok(w) = std::str::from_utf8(w) else {
            continue;
        };
        let s = stem(w);
        if s.len() != w.len() {
            f(s);
        }
        f(w);
    }
}

/// The tokens of one part with non-ASCII characters (Hangul pairs included).
fn unicode_part(part: &str, f: &mut dyn FnMut(&str)) {
    let mut spaced = String::new();
    camel_split(part, &mut spaced);
    for w in spaced.split(' ') {
        if w.is_empty() {
            continue;
        }
        let w = pytext::lower(w);
        let s = stem(&w);
        if s.len() != w.len() {
            f(s);
        }
        f(&w);
        if w.chars().any(is_hangul_wide) {
            let hs: Vec<char> = w.chars().filter(|&c| is_hangul_wide(c)).collect();
            let mut b = String::with_capacity(6);
            for pair in hs.windows(2) {
                b.clear();
                b.push(pair[0]);
                b.push(pair[1]);
                f(&b);
            }
        }
    }
}

/// A character the camel-case rules read: a byte of ASCII text or a `char`.
trait CamelChar: Copy {
    const SPACE: Self;
    fn upper(self) -> bool;
    fn lower(self) -> bool;
}

impl CamelChar for u8 {
    const SPACE: u8 = b' ';
    fn upper(self) -> bool {
        self.is_ascii_uppercase()
    }
    fn lower(self) -> bool {
        self.is_ascii_lowercase()
    }
}

impl CamelChar for char {
    const SPACE: char = ' ';
    fn upper(self) -> bool {
        self.is_ascii_uppercase()
    }
    fn lower(self) -> bool {
        self.is_ascii_lowercase()
    }
}

/// Applies the two camel-case splitting rules to `chars` into `out` (`pass1` is scratch):
/// `aB` → `a B`, then `ABCd` → `AB Cd`. One body for ASCII bytes (the index's fast path)
/// and for `char`s.
fn camel_split_in<T: CamelChar>(chars: &[T], pass1: &mut Vec<T>, out: &mut Vec<T>) {
    out.clear();
    pass1.clear();
    // pass 1: lower followed by upper
    for (i, &c) in chars.iter().enumerate() {
        pass1.push(c);
        if c.lower() && chars.get(i + 1).is_some_and(|n| n.upper()) {
            pass1.push(T::SPACE);
        }
    }
    // pass 2: ([A-Z]+)([A-Z][a-z]) with leftmost-first, non-overlapping matches
    let n = pass1.len();
    let mut i = 0;
    while i < n {
        let c = pass1[i];
        if c.upper() {
            let mut q = i;
            while q < n && pass1[q].upper() {
                q += 1;
            }
            if q - i >= 2 && q < n && pass1[q].lower() {
                out.extend_from_slice(&pass1[i..q - 1]);
                out.push(T::SPACE);
                out.push(pass1[q - 1]);
                out.push(pass1[q]);
                i = q + 1;
            } else {
                out.extend_from_slice(&pass1[i..q]);
                i = q;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
}

/// [`camel_split_in`] on ASCII bytes.
fn camel_split_ascii(chars: &[u8], pass1: &mut Vec<u8>, out: &mut Vec<u8>) {
    camel_split_in(chars, pass1, out);
}

/// Applies the two camel-case splitting rules: `aB` → `a B`, then `ABCd` → `AB Cd`.
fn camel_split(part: &str, out: &mut String) {
    let chars: Vec<char> = part.chars().collect();
    let mut pass1: Vec<char> = Vec::with_capacity(chars.len() + 4);
    let mut done: Vec<char> = Vec::with_capacity(chars.len() + 4);
    camel_split_in(&chars, &mut pass1, &mut done);
    out.clear();
    out.extend(done);
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

    /// The tokenizer as first written (a `char` vector and a string per word), which the
    /// allocation-free path must match token for token.
    fn tokens_as_first_written(text: &str) -> Vec<String> {
        let mut out = Vec::new();
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
        out
    }

    proptest::proptest! {
        #[test]
        fn each_token_gives_the_first_tokens(
            text in "[aAbBzZ09 _./:{}\\-\t\n\u{1c}\u{85}\u{a0}éÉİß회원삭제ǅ]{0,40}"
        ) {
            let mut got = Vec::new();
            BuiltinTokenizer.each_token(&text, &mut |t| got.push(t.to_string()));
            proptest::prop_assert_eq!(&got, &tokens_as_first_written(&text));
            proptest::prop_assert_eq!(toks(&text), got);
        }
    }

    #[test]
    fn each_token_on_words_of_every_kind() {
        for s in [
            "getUserByID",
            "HTTPServerError",
            "listing statuses",
            "정기주문해지하기",
            "회원을 삭제해줘",
            "ÉCOLE école",
            "İstanbul",
            "mixedİCase",
            "a\u{85}b\u{a0}c",
            "x\u{1c}y",
            "",
            "___",
            "IDs",
            "XMLHttpRequestID",
        ] {
            let mut got = Vec::new();
            BuiltinTokenizer.each_token(s, &mut |t| got.push(t.to_string()));
            assert_eq!(got, tokens_as_first_written(s), "{s}");
        }
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
