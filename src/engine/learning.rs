//! Trace-learning signals (spec §6.1, §6.4): query families, fingerprints and the
//! promoted-learning boost map.

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::pytext;

/// The normalised query family (spec §6.1), with Python's `\w`/`\d` semantics.
pub fn family(query: &str) -> String {
    let q = pytext::lower(pytext::strip(query));
    let chars: Vec<char> = q.chars().collect();
    // 1. e-mail-like runs `[\w.+-]+@[\w.-]+` → " "
    let in_a = |c: char| pytext::is_word(c) || matches!(c, '.' | '+' | '-');
    let in_b = |c: char| pytext::is_word(c) || matches!(c, '.' | '-');
    let mut s1: Vec<char> = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        if in_a(chars[i]) {
            let mut j = i;
            while j < chars.len() && in_a(chars[j]) {
                j += 1;
            }
            if j < chars.len() && chars[j] == '@' && j + 1 < chars.len() && in_b(chars[j + 1]) {
                let mut k = j + 1;
                while k < chars.len() && in_b(chars[k]) {
                    k += 1;
                }
                s1.push(' ');
                i = k;
                continue;
            }
            s1.extend(&chars[i..j]);
            i = j;
            continue;
        }
        s1.push(chars[i]);
        i += 1;
    }
    // 2. whole numbers of two or more digits `\b\d{2,}\b` → " <num> "
    let mut s2: Vec<char> = Vec::with_capacity(s1.len() + 8);
    let mut i = 0;
    while i < s1.len() {
        let c = s1[i];
        if pytext::is_decimal(c) {
            let mut j = i;
            while j < s1.len() && pytext::is_decimal(s1[j]) {
                j += 1;
            }
            let before_ok = i == 0 || !pytext::is_word(s1[i - 1]);
            let after_ok = j == s1.len() || !pytext::is_word(s1[j]);
            if j - i >= 2 && before_ok && after_ok {
                s2.extend(" <num> ".chars());
            } else {
                s2.extend(&s1[i..j]);
            }
            i = j;
            continue;
        }
        s2.push(c);
        i += 1;
    }
    // 3. runs of non-word characters or "_" → " ", then collapse whitespace
    let mut out = String::with_capacity(s2.len());
    let mut in_sep = false;
    for c in s2 {
        if c == '_' || !pytext::is_word(c) {
            in_sep = true;
        } else {
            if in_sep && !out.is_empty() {
                out.push(' ');
            }
            in_sep = false;
            out.push(c);
        }
    }
    out
}

/// First 16 hex characters of the SHA-256 of a string.
pub fn stable_hash(s: &str) -> String {
    let d = Sha256::digest(s.as_bytes());
    d.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

pub fn fingerprint(query: &str) -> String {
    stable_hash(&family(query))
}

/// One promoted-learning boost for a target (spec §6.4).
#[derive(Debug, Clone, PartialEq)]
pub struct LearningSignal {
    pub target: String,
    pub suggestion_id: Value,
    pub suggestion_type: Value,
    pub status: Value,
    pub observations: i64,
    /// Already rounded to 6 decimals.
    pub score: f64,
}

pub const MAX_BOOST: f64 = 0.06;

fn observations(v: Option<&Value>) -> i64 {
    let n = match v {
        Some(Value::Number(n)) => n
            .as_i64()
            .unwrap_or_else(|| n.as_f64().unwrap_or(0.0) as i64),
        Some(Value::Bool(b)) => *b as i64,
        _ => 0,
    };
    if n == 0 { 1.max(n) } else { n.max(1) }
}

/// `learning_signal_map(query, suggestions, mode="promoted")`: per target the first
/// suggestion with the highest score, in first-seen target order.
pub fn signal_map(query: &str, suggestions: &[Value]) -> Vec<LearningSignal> {
    if suggestions.is_empty() {
        return Vec::new();
    }
    let fp = fingerprint(query);
    let mut out: Vec<LearningSignal> = Vec::new();
    for s in suggestions {
        let Some(o) = s.as_object() else { continue };
        if o.get("status").and_then(Value::as_str) != Some("promoted") {
            continue;
        }
        if o.get("query_fingerprint").and_then(Value::as_str) != Some(fp.as_str()) {
            continue;
        }
        let target = match o.get("target") {
            Some(Value::String(t)) if !t.is_empty() => t.clone(),
            _ => continue,
        };
        let obs = observations(o.get("observations"));
        let score = pytext::round(
            f64::min(MAX_BOOST, 0.025 + 0.01 * (obs - 1).min(3) as f64),
            6,
        );
        let sig = LearningSignal {
            target: target.clone(),
            suggestion_id: o.get("id").cloned().unwrap_or(Value::Null),
            suggestion_type: o.get("type").cloned().unwrap_or(Value::Null),
            status: o.get("status").cloned().unwrap_or(Value::Null),
            observations: obs,
            score,
        };
        match out.iter_mut().find(|x| x.target == target) {
            Some(existing) => {
                if sig.score > existing.score {
                    *existing = sig;
                }
            }
            None => out.push(sig),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_and_fingerprints() {
        assert_eq!(family("Get pet 42?"), "get pet num");
        assert_eq!(fingerprint("Get pet 42?"), "4664d984d82781ef");
        assert_eq!(family("셔츠 상세 조회"), "셔츠 상세 조회");
        assert_eq!(fingerprint("셔츠 상세 조회"), "c51d2ec2fee93398");
        assert_eq!(fingerprint("list orders"), "ec04328a401ae757");
        assert_eq!(family("mail a.b+c@x.io now_please"), "mail now please");
    }
}
