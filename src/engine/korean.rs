//! The Korean business-phrase multiplier of the BM25 scorer (spec §3.5.1).

use regex::Regex;
use std::sync::LazyLock;

use super::lexicon::{KO_ACTION_WORDS, KO_BRIDGE_WORDS};
use crate::pytext;

static QA_WORD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"qa(\b|[^a-z])").expect("static pattern"));

/// Query-side part of the multiplier, computed once per query.
#[derive(Debug, Clone, Default)]
pub struct KoreanQuery {
    words: Vec<String>,
    query_norm: String,
    phrases: Vec<String>,
    core: Vec<String>,
    has_bridge: bool,
    inquiry_rule: bool,
    settlement_rule: bool,
    permission_rule: bool,
}

impl KoreanQuery {
    pub fn new(query: &str) -> KoreanQuery {
        let mut words: Vec<String> = Vec::new();
        let mut cur = String::new();
        for c in query.chars().chain(std::iter::once(' ')) {
            if pytext::is_hangul_syllable(c) {
                cur.push(c);
            } else {
                if cur.chars().count() >= 2 {
                    words.push(cur.clone());
                }
                cur.clear();
            }
        }
        let is_b = |w: &str| KO_BRIDGE_WORDS.contains(&w);
        let is_a = |w: &str| KO_ACTION_WORDS.contains(&w);
        let has = |w: &str| words.iter().any(|x| x == w);
        let mut phrases: Vec<String> = Vec::new();
        let push_unique = |v: &mut Vec<String>, p: String| {
            if !v.contains(&p) {
                v.push(p);
            }
        };
        for i in 0..words.len() {
            if is_b(&words[i]) {
                continue;
            }
            for j in (i + 1)..(i + 4).min(words.len()) {
                if !is_b(&words[j]) {
                    push_unique(&mut phrases, format!("{}{}", words[i], words[j]));
                }
            }
        }
        let mut core: Vec<String> = Vec::new();
        for k in 0..words.len() {
            if !is_a(&words[k]) {
                continue;
            }
            for w in &words[..k] {
                if !is_a(w) && !is_b(w) {
                    let p = format!("{}{}", w, words[k]);
                    push_unique(&mut core, p.clone());
                    push_unique(&mut phrases, p);
                }
            }
        }
        if has("정산") && has("비교") {
            push_unique(&mut phrases, "정산대사".into());
        }
        let query_norm = words.concat();
        KoreanQuery {
            has_bridge: words.iter().any(|w| is_b(w)),
            inquiry_rule: has("문의") && !has("현황"),
            settlement_rule: has("정산") && has("비교"),
            permission_rule: has("권한") && has("버튼"),
            words,
            query_norm,
            phrases,
            core,
        }
    }

    pub fn active(&self) -> bool {
        !self.words.is_empty()
    }

    /// The multiplier for one tool (1.0 … 2.0).
    pub fn multiplier(&self, name: &str, description: &str) -> f64 {
        if self.words.is_empty() {
            return 1.0;
        }
        let tool_text = pytext::lower(&format!("{name} {description}"));
        let tool_norm: String = tool_text
            .chars()
            .filter(|&c| {
                c.is_ascii_lowercase() || c.is_ascii_digit() || pytext::is_hangul_syllable(c)
            })
            .collect();
        let mut matches = 0usize;
        let mut longest = 0usize;
        for p in &self.phrases {
            let len = p.chars().count();
            if len >= 4 && tool_norm.contains(p.as_str()) {
                matches += 1;
                longest = longest.max(len);
            }
        }
        let mut m = 1.0_f64;
        if self.query_norm.chars().count() >= 4 && tool_norm.contains(&self.query_norm) {
            m *= 1.35;
        }
        if matches > 0 {
            m *= f64::min(
                1.6,
                1.0 + 0.18 * matches as f64 + f64::min(0.12, longest as f64 / 100.0),
            );
        }
        if self.has_bridge {
            let c = self
                .core
                .iter()
                .filter(|p| tool_text.contains(p.as_str()))
                .count();
            if c > 0 {
                m *= f64::min(1.45, 1.15 + 0.15 * c as f64);
            }
        }
        if self.inquiry_rule && QA_WORD.is_match(&tool_text) {
            m *= 1.35;
        }
        if self.settlement_rule && tool_norm.contains("정산대사") {
            m *= 1.35;
        }
        if self.permission_rule {
            if tool_norm.contains("권한") && tool_norm.contains("버튼") {
                m *= 1.08;
            }
            if tool_norm.contains("button") {
                if tool_norm.contains("pagerole") {
                    m *= 1.35;
                } else if tool_norm.contains("role") {
                    m *= 1.12;
                }
            }
        }
        m.min(2.0)
    }
}
