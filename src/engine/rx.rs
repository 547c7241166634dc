//! Static patterns written in Python syntax, compiled on first need.
//!
//! Most query-side rules only fire on a few queries. Each pattern knows the literals every
//! match starts with (extracted from its syntax tree); a text containing none of them cannot
//! match, so the regex is neither compiled nor run for it. The answer is the regex's own.

use regex::Regex;
use regex_syntax::hir::literal::{ExtractKind, Extractor};
use std::sync::OnceLock;

/// Python's `\s` also matches U+001C..U+001F.
fn python_syntax(p: &str) -> String {
    p.replace(r"\s", r"[\s\x1c-\x1f]")
}

pub struct LazyRegex {
    pattern: &'static str,
    /// `None`: no usable literal set (the regex runs on every text)
    needles: OnceLock<Option<Vec<Vec<u8>>>>,
    regex: OnceLock<Regex>,
}

impl LazyRegex {
    pub const fn new(pattern: &'static str) -> Self {
        LazyRegex {
            pattern,
            needles: OnceLock::new(),
            regex: OnceLock::new(),
        }
    }

    pub fn is_match(&self, text: &str) -> bool {
        let needles = self
            .needles
            .get_or_init(|| required_prefixes(&python_syntax(self.pattern)));
        if let Some(n) = needles
            && !n
                .iter()
                .any(|l| memchr::memmem::find(text.as_bytes(), l).is_some())
        {
            return false;
        }
        self.regex().is_match(text)
    }

    pub fn regex(&self) -> &Regex {
        self.regex
            .get_or_init(|| Regex::new(&python_syntax(self.pattern)).expect("static pattern"))
    }
}

/// The literals one of which starts every match of `pattern`, when that set is finite and
/// none of them is empty.
fn required_prefixes(pattern: &str) -> Option<Vec<Vec<u8>>> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .ok()?;
    let seq = Extractor::new().kind(ExtractKind::Prefix).extract(&hir);
    let lits = seq.literals()?;
    if lits.is_empty() || lits.iter().any(|l| l.as_bytes().is_empty()) {
        return None;
    }
    Some(lits.iter().map(|l| l.as_bytes().to_vec()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guard_never_changes_the_answer() {
        let pats = [
            r"\bhypotenuse\b",
            r"\bgeo(?:graphic|graphical)?\s+distance\b",
            r"\bhow\s+(much|many)\b.*\b(be|in|get|for)\b",
            r"^v?\d+(\.\d+)*$",
            r"(?i)\bstatus\b",
            r"[(（]\s*대\s*[)）]",
            r"\b(dollars?|euros?|yen|usd)\b",
            r".*",
        ];
        let texts = [
            "what is the hypotenuse",
            "geographical   distance",
            "geo\u{1c}distance",
            "how much would that be",
            "v1.2.3",
            "STATUS of pods",
            "상품 (대) 목록",
            "5 dollars",
            "",
            "nothing here",
        ];
        for p in pats {
            let lazy = LazyRegex::new(p);
            let full = Regex::new(&python_syntax(p)).unwrap();
            for t in texts {
                assert_eq!(lazy.is_match(t), full.is_match(t), "{p} on {t:?}");
            }
        }
        assert!(required_prefixes(r"\bhypotenuse\b").is_some());
        assert!(required_prefixes(r".*").is_none());
    }
}
