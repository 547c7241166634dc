//! Query intent (spec §3.7): read / write / delete shares and the relation-weight table.

use super::lexicon::{
    INTENT_DELETE, INTENT_POSTPOSITIONS, INTENT_READ, INTENT_VERB_ENDINGS, INTENT_WRITE,
};
use crate::pytext;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntentLabel {
    Neutral,
    Read,
    Write,
    Delete,
}

impl IntentLabel {
    pub fn as_str(self) -> &'static str {
        match self {
            IntentLabel::Neutral => "neutral",
            IntentLabel::Read => "read",
            IntentLabel::Write => "write",
            IntentLabel::Delete => "delete",
        }
    }

    pub fn parse(s: &str) -> Option<IntentLabel> {
        Some(match s {
            "neutral" => IntentLabel::Neutral,
            "read" => IntentLabel::Read,
            "write" => IntentLabel::Write,
            "delete" => IntentLabel::Delete,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Intent {
    pub read: f64,
    pub write: f64,
    pub delete: f64,
    /// The keywords that counted, per dimension (for evidence and traces).
    pub read_terms: Vec<String>,
    pub write_terms: Vec<String>,
    pub delete_terms: Vec<String>,
}

impl Intent {
    pub fn neutral() -> Intent {
        Intent {
            read: 0.0,
            write: 0.0,
            delete: 0.0,
            read_terms: Vec::new(),
            write_terms: Vec::new(),
            delete_terms: Vec::new(),
        }
    }

    pub fn is_zero(&self) -> bool {
        self.read == 0.0 && self.write == 0.0 && self.delete == 0.0
    }

    /// The retrieval label: dominant dimension (ties read, write, delete), neutral below 0.5.
    pub fn dominant(&self) -> IntentLabel {
        if self.is_zero() {
            return IntentLabel::Neutral;
        }
        let (mut label, mut best) = (IntentLabel::Read, self.read);
        if self.write > best {
            label = IntentLabel::Write;
            best = self.write;
        }
        if self.delete > best {
            label = IntentLabel::Delete;
            best = self.delete;
        }
        if best < 0.5 {
            IntentLabel::Neutral
        } else {
            label
        }
    }
}

fn strip_longest<'a>(tok: &'a str, endings: &[&str]) -> &'a str {
    let mut best: Option<&str> = None;
    for e in endings {
        if tok.ends_with(e) && best.is_none_or(|b| e.len() > b.len()) {
            best = Some(e);
        }
    }
    match best {
        Some(e) => &tok[..tok.len() - e.len()],
        None => tok,
    }
}

/// Whitespace tokens with one Korean verb ending and one postposition removed.
fn normalize_korean(query: &str) -> Vec<String> {
    let mut out = Vec::new();
    for tok in pytext::split_ws(query) {
        let t = strip_longest(tok, INTENT_VERB_ENDINGS);
        let t = strip_longest(t, INTENT_POSTPOSITIONS);
        if !t.is_empty() {
            out.push(t.to_string());
        }
    }
    out
}

pub fn classify(query: &str) -> Intent {
    let normalized = normalize_korean(query).join(" ");
    let mut tokens: Vec<String> = Vec::new();
    for t in
        pytext::split_ws(&pytext::lower(&normalized)).chain(pytext::split_ws(&pytext::lower(query)))
    {
        if !tokens.iter().any(|x| x == t) {
            tokens.push(t.to_string());
        }
    }
    let pick = |set: &[&str]| -> Vec<String> {
        tokens
            .iter()
            .filter(|t| set.contains(&t.as_str()))
            .cloned()
            .collect()
    };
    let read_terms = pick(INTENT_READ);
    let write_terms = pick(INTENT_WRITE);
    let delete_terms = pick(INTENT_DELETE);
    let (r, w, d) = (read_terms.len(), write_terms.len(), delete_terms.len());
    let total = r + w + d;
    if total == 0 {
        return Intent::neutral();
    }
    let t = total as f64;
    Intent {
        read: r as f64 / t,
        write: w as f64 / t,
        delete: d as f64 / t,
        read_terms,
        write_terms,
        delete_terms,
    }
}

/// Relation weight under an intent table (spec §2.2).
/// Relation weight rows (neutral, read, write, delete), spec §2.2; the last row is every
/// other or missing relation.
pub const RELATION_ROWS: [[f64; 4]; 7] = [
    [0.8, 1.0, 0.5, 0.4],
    [1.0, 0.8, 1.0, 0.9],
    [0.7, 0.4, 0.95, 0.3],
    [0.2, 0.2, 0.3, 0.5],
    [0.5, 0.6, 0.5, 0.5],
    [0.9, 0.5, 0.7, 0.8],
    [0.3, 0.3, 0.3, 0.3],
];

/// The row of [`RELATION_ROWS`] for a stored relation (the graph's relation vocabulary,
/// [`crate::model::graph::relation_kind`]).
pub fn relation_index(relation: Option<&str>) -> u8 {
    crate::model::graph::relation_kind(relation)
}

impl IntentLabel {
    pub fn column(self) -> usize {
        match self {
            IntentLabel::Neutral => 0,
            IntentLabel::Read => 1,
            IntentLabel::Write => 2,
            IntentLabel::Delete => 3,
        }
    }
}

/// Relation weight under an intent table (spec §2.2).
pub fn relation_weight(label: IntentLabel, relation: Option<&str>) -> f64 {
    RELATION_ROWS[relation_index(relation) as usize][label.column()]
}

pub const KNOWN_RELATIONS: &[&str] = &[
    "similar_to",
    "requires",
    "complementary",
    "conflicts_with",
    "belongs_to",
    "precedes",
];

/// Retrieval factor per confidence kind ([`crate::model::graph::confidence_kind`]):
/// EXTRACTED 1.0, INFERRED 0.7, AMBIGUOUS 0.4, any other 0.5.
pub const CONFIDENCE_FACTORS: [f64; 4] = [1.0, 0.7, 0.4, 0.5];

/// Confidence label → retrieval factor.
pub fn confidence_factor(label: Option<&str>) -> f64 {
    CONFIDENCE_FACTORS[crate::model::graph::confidence_kind(label) as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intents() {
        assert_eq!(classify("cancel my order").dominant(), IntentLabel::Delete);
        assert_eq!(classify("send notification").dominant(), IntentLabel::Write);
        assert_eq!(classify("고객 정보 조회해줘").dominant(), IntentLabel::Read);
        assert_eq!(classify("주문 환불").dominant(), IntentLabel::Neutral);
        let i = classify("inspect publish purge order");
        assert_eq!(i.dominant(), IntentLabel::Neutral);
        assert_eq!(
            classify("inspect publish order").dominant(),
            IntentLabel::Read
        );
    }
}
