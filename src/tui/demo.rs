//! The presenter's walkthrough: `assets/demo/queries.txt` as steps, each with the comment
//! lines written above it as a presenter note, and — for the scenes the comments describe —
//! the LLM target or history that makes the point on screen.

use crate::demo::DEMO_QUERIES;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DemoStep {
    pub query: String,
    /// The `# ---` section the query belongs to.
    pub section: String,
    /// The comment lines directly above the query, joined.
    pub note: String,
    pub llm_target: Option<String>,
    pub history: Vec<String>,
}

/// Scenes the walkthrough comments describe: (query, LLM target, history).
const SCENES: &[(&str, Option<&str>, &[&str])] = &[
    ("get payment of an order", Some("getPayment"), &[]),
    ("exchange item for another size", Some("getReturn"), &[]),
    ("member detail", Some("getMemberDetail"), &[]),
    ("request return for an order", None, &["requestReturn"]),
    ("send notification", None, &["sendBulkNotification"]),
];

/// Parses a walkthrough file: `#` comments, `# ---` section titles, one query per line.
pub fn parse_steps(text: &str) -> Vec<DemoStep> {
    let mut steps = Vec::new();
    let mut section = String::new();
    let mut note: Vec<String> = Vec::new();
    for raw in text.lines() {
        let l = raw.trim();
        if l.is_empty() {
            note.clear();
            continue;
        }
        if let Some(c) = l.strip_prefix('#') {
            let c = c.trim();
            if let Some(t) = c.strip_prefix("---") {
                section = t.trim().to_string();
                note.clear();
            } else {
                note.push(c.to_string());
            }
            continue;
        }
        let scene = SCENES.iter().find(|s| s.0 == l);
        steps.push(DemoStep {
            query: l.to_string(),
            section: section.clone(),
            note: note.join(" "),
            llm_target: scene.and_then(|s| s.1.map(String::from)),
            history: scene
                .map(|s| s.2.iter().map(|h| h.to_string()).collect())
                .unwrap_or_default(),
        });
        note.clear();
    }
    steps
}

/// The embedded walkthrough.
pub fn demo_steps() -> Vec<DemoStep> {
    parse_steps(DEMO_QUERIES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_match_the_query_list_and_carry_notes() {
        let steps = demo_steps();
        let queries: Vec<&str> = crate::demo::demo_queries();
        assert_eq!(
            steps.iter().map(|s| s.query.as_str()).collect::<Vec<_>>(),
            queries
        );
        let first = &steps[0];
        assert!(first.section.starts_with("a seed that wins"), "{first:?}");
        assert!(first.note.contains("deleteExpiredCoupons"), "{first:?}");
        let pay = steps
            .iter()
            .find(|s| s.query == "get payment of an order")
            .unwrap();
        assert_eq!(pay.llm_target.as_deref(), Some("getPayment"));
        // every scene names a real query of the file
        for (q, _, _) in SCENES {
            assert!(queries.contains(q), "{q}");
        }
    }
}
