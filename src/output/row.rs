//! The one projection of a ranked row: [`RowView`] is what `--json`, the text table,
//! fixtures (`lab::record::RunRecord::from_run`), the recorded-run lookup
//! (`lookup_recorded_run`) and the explorer's candidates table read from an
//! `engine::Row` — name, rank, scores, score chips, badges, matched terms, why it is in
//! the top-K and its history demotion — so no consumer rebuilds a row by hand.
//!
//! It also holds the one rendering of what every row display shares, live or recorded:
//! the "why in top-K" text ([`Why::text`], the source tool first so a narrow column keeps
//! it, plus [`history_note`]; the command line table keeps its older wording,
//! [`Why::table_text`], byte for byte), the badge letters ([`badge_cells`],
//! [`badge_text`]) and the matched-terms text ([`matched_text`]). Text is sanitised for a
//! terminal.

use serde_json::{Map, Value};

use crate::engine::{Engine, Row, RowOrigin};
use crate::sanitize::line;

/// The five semantic-match badges in display order: letter and name (`{name}_match`).
pub const BADGES: [(char, &str); 5] = [
    ('A', "action"),
    ('R', "resource"),
    ('M', "module"),
    ('S', "shape"),
    ('C', "contract"),
];

/// Action, resource, module, shape and contract matches; `None` where a record does not
/// say.
pub type Badges = [Option<bool>; 5];

/// Seed, graph and learning parts of a score; `None` where a record does not say.
pub type Chips = [Option<f64>; 3];

/// Each badge as its letter and whether it is on (an unknown badge is off): what the text
/// table and the explorer's cells draw.
pub fn badge_cells(badges: &Badges) -> [(char, bool); 5] {
    std::array::from_fn(|i| (BADGES[i].0, badges[i] == Some(true)))
}

/// The badges as letters, `off` for a badge that is off or unknown (`A.M..`).
pub fn badge_text(badges: &Badges, off: &str) -> String {
    let mut out = String::new();
    for (letter, on) in badge_cells(badges) {
        if on {
            out.push(letter);
        } else {
            out.push_str(off);
        }
    }
    out
}

/// The matched terms (`matched_terms`), or, when none matched the tool's action,
/// resource, module, shape or contract, the terms found in its summary
/// (`summary_matched_terms`) in parentheses, so the two never read alike. Sanitised.
pub fn matched_text(matched: &[String], summary: &[String]) -> String {
    if matched.is_empty() && !summary.is_empty() {
        format!("({})", line(&summary.join(",")))
    } else {
        line(&matched.join(","))
    }
}

/// Why a row is in the top-K: from a live run (`Seed`, `Expanded`, `Learning`) or as far
/// as a captured record says.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Why {
    /// A BM25 seed: its seed rank (a record's position in `stats.seeds`, when it has one).
    Seed(Option<usize>),
    /// Pulled in over an edge from `from` (`expanded_from` and `edge_evidence`).
    Expanded {
        from: String,
        relation: String,
        confidence: Option<String>,
    },
    /// Graph expansion without a recorded source (fixtures keep only the breakdown).
    Graph,
    Learning,
    /// Only the retrieval rank is known (a selector block's candidates).
    Rank(usize),
    #[default]
    Unknown,
}

impl Why {
    /// The "why in top-K" text: `seed #k`, `ARROW FROM relation [CONFIDENCE]` (the source
    /// first, so a narrow column keeps who pulled the row in), `ARROW graph expansion`,
    /// `learning`, `retrieval rank #k` or `-`. `arrow` is `←`, or `<-` in ASCII. Sanitised.
    pub fn text(&self, arrow: &str) -> String {
        match self {
            Why::Seed(Some(k)) => format!("seed #{k}"),
            Why::Seed(None) => "seed".into(),
            Why::Expanded {
                from,
                relation,
                confidence,
            } => format!(
                "{arrow} {} {}{}",
                line(from),
                line(relation),
                confidence
                    .as_deref()
                    .map(|c| format!(" [{}]", line(c)))
                    .unwrap_or_default()
            ),
            Why::Graph => format!("{arrow} graph expansion"),
            Why::Learning => "learning".into(),
            Why::Rank(k) => format!("retrieval rank #{k}"),
            Why::Unknown => "-".into(),
        }
    }

    /// The "why" text in ever shorter forms, most informative first, for a column that
    /// cuts by information value (`note`: what follows, e.g. [`history_note`]). A row
    /// pulled in over an edge keeps its source tool before everything else: the full
    /// `← FROM relation [CONFIDENCE]`, then the confidence abbreviated (`[EX]`), then the
    /// relation too (`← FROM req EX`), then without the confidence, then the source
    /// alone; the column takes the first form that fits and cuts the source's tail only
    /// when not even that does. Other answers have one form. Sanitised.
    pub fn forms(&self, arrow: &str, note: &str) -> Vec<String> {
        let Why::Expanded {
            from,
            relation,
            confidence,
        } = self
        else {
            return vec![format!("{}{note}", self.text(arrow))];
        };
        let (from, rel) = (line(from), line(relation));
        let short_note = note.replacen("history", "h", 1);
        let mut out = vec![format!("{}{note}", self.text(arrow))];
        let mut push = |s: String| {
            if !out.contains(&s) {
                out.push(s);
            }
        };
        if let Some(c) = confidence.as_deref().map(line) {
            let c = abbrev_confidence(&c);
            push(format!("{arrow} {from} {rel} [{c}]{note}"));
            push(format!(
                "{arrow} {from} {} {c}{note}",
                abbrev_relation(&rel)
            ));
            push(format!(
                "{arrow} {from} {} {c}{short_note}",
                abbrev_relation(&rel)
            ));
        }
        push(format!(
            "{arrow} {from} {}{short_note}",
            abbrev_relation(&rel)
        ));
        push(format!("{arrow} {from}{short_note}"));
        push(format!("{arrow} {from}"));
        out
    }

    /// The same answer in the command line table's older form, kept byte for byte:
    /// `seed #k`, `<- RELATION [CONFIDENCE] from FROM` or `learning` (a recorded row's
    /// other answers read as in [`Why::text`]). The source is sanitised here; relation
    /// and confidence by the table's sink (`cli::query::write_text`), as before.
    pub fn table_text(&self) -> String {
        match self {
            Why::Expanded {
                from,
                relation,
                confidence,
            } => format!(
                "<- {relation}{} from {}",
                confidence
                    .as_deref()
                    .map(|c| format!(" [{c}]"))
                    .unwrap_or_default(),
                line(from)
            ),
            other => other.text("<-"),
        }
    }
}

/// A confidence in two or three letters for a narrow column (`EXTRACTED` → `EX`,
/// `INFERRED` → `INF`, `AMBIGUOUS` → `AMB`); a number or another short word as it is.
fn abbrev_confidence(c: &str) -> String {
    match c {
        "EXTRACTED" => "EX".into(),
        "INFERRED" => "INF".into(),
        "AMBIGUOUS" => "AMB".into(),
        "MEDIUM" => "MED".into(),
        c if c.chars().count() <= 4 => c.to_string(),
        c => c.chars().take(3).collect(),
    }
}

/// A relation in a few letters for a narrow column (`requires` → `req`, `similar_to` →
/// `sim`, `complementary` → `comp`, `precedes` → `prec`, `conflicts_with` → `confl`);
/// another relation's first four characters.
fn abbrev_relation(r: &str) -> String {
    match r {
        "requires" => "req".into(),
        "similar_to" => "sim".into(),
        "complementary" => "comp".into(),
        "precedes" => "prec".into(),
        "conflicts_with" => "confl".into(),
        r => r.chars().take(4).collect(),
    }
}

/// What follows the why text of a history-demoted row: ` (history: x0.6)`, with `^n` when
/// it was demoted `n` > 1 times; ` (history)` when the count is unknown (a record).
pub fn history_note(hits: Option<usize>) -> String {
    match hits {
        None => " (history)".into(),
        Some(1) => " (history: x0.6)".into(),
        Some(n) => format!(" (history: x0.6^{n})"),
    }
}

/// A value of the score breakdown: a number, or a flag (`history_demoted`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Part {
    Num(f64),
    Flag(bool),
}

impl Part {
    pub fn to_value(self) -> Value {
        match self {
            Part::Num(x) => x.into(),
            Part::Flag(b) => b.into(),
        }
    }
}

/// One ranked row of a live retrieval, projected.
#[derive(Clone, Copy)]
pub struct RowView<'a> {
    pub engine: &'a Engine,
    pub row: &'a Row,
    /// 1-based.
    pub rank: usize,
    pub name: &'a str,
    /// The score before rounding.
    pub score: f64,
    /// The score as the reference reports it (4 decimals).
    pub rounded: f64,
    /// Seed, graph and learning parts.
    pub chips: [f64; 3],
    /// Action, resource, module, shape and contract matches.
    pub badges: [bool; 5],
    pub matched: &'a [String],
    /// Query terms found in the tool's summary.
    pub summary_matched: &'a [String],
    pub history_demoted: bool,
    /// How many history entries demoted it.
    pub history_hits: usize,
    pub graph_expansion: bool,
}

fn b01(b: bool) -> f64 {
    if b { 1.0 } else { 0.0 }
}

impl<'a> RowView<'a> {
    pub fn new(engine: &'a Engine, row: &'a Row, rank: usize) -> RowView<'a> {
        let b = &row.breakdown;
        let s = &row.semantic;
        RowView {
            engine,
            row,
            rank,
            name: &row.name,
            score: row.score,
            rounded: row.rounded_score(),
            chips: [b.seed, b.graph, b.learning],
            badges: [
                s.action_match,
                s.resource_match,
                s.module_match,
                s.shape_match,
                s.contract_match,
            ],
            matched: &s.matched_terms,
            summary_matched: &s.summary_matched_terms,
            history_demoted: b.history_demoted,
            history_hits: row.history_hits,
            graph_expansion: b.graph_expansion,
        }
    }

    /// Every row of a retrieval, ranked from 1.
    pub fn all(engine: &'a Engine, rows: &'a [Row]) -> impl Iterator<Item = RowView<'a>> {
        rows.iter()
            .enumerate()
            .map(move |(i, row)| RowView::new(engine, row, i + 1))
    }

    /// The score parts of `score_breakdown`: seed, graph, learning, history_demoted.
    pub fn score_parts(&self) -> [(&'static str, Part); 4] {
        let [seed, graph, learning] = self.chips;
        [
            ("seed", Part::Num(seed)),
            ("graph", Part::Num(graph)),
            ("learning", Part::Num(learning)),
            ("history_demoted", Part::Flag(self.history_demoted)),
        ]
    }

    /// The reference's `score_breakdown`, in its key order: the score parts, then each
    /// match as 1.0/0.0 and `graph_expansion`.
    pub fn breakdown(&self) -> [(&'static str, Part); 10] {
        let [p0, p1, p2, p3] = self.score_parts();
        let m = |i: usize| Part::Num(b01(self.badges[i]));
        [
            p0,
            p1,
            p2,
            p3,
            ("action_match", m(0)),
            ("resource_match", m(1)),
            ("module_match", m(2)),
            ("shape_match", m(3)),
            ("contract_match", m(4)),
            ("graph_expansion", Part::Num(b01(self.graph_expansion))),
        ]
    }

    /// [`RowView::breakdown`] as a JSON object.
    pub fn breakdown_map(&self) -> Map<String, Value> {
        self.breakdown()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_value()))
            .collect()
    }

    pub fn chips_known(&self) -> Chips {
        self.chips.map(Some)
    }

    pub fn badges_known(&self) -> Badges {
        self.badges.map(Some)
    }

    /// The tool that pulled the row in (`expanded_from`).
    pub fn expanded_from(&self) -> Option<&'a str> {
        self.row.expanded_from(self.engine)
    }

    /// Why the row is in the top-K.
    pub fn why(&self) -> Why {
        match &self.row.origin {
            RowOrigin::Seed { rank, .. } => Why::Seed(Some(*rank)),
            RowOrigin::Expanded { from, edge, .. } => {
                let g = &self.engine.graph;
                let a = &g.edge(*edge).attrs;
                Why::Expanded {
                    from: g.node_name(*from).to_string(),
                    relation: a.relation_str().unwrap_or("(none)").to_string(),
                    confidence: a.confidence_str().map(String::from),
                }
            }
            RowOrigin::LearningOnly => Why::Learning,
        }
    }

    /// The why text with the history note in its ever shorter forms, most informative
    /// first (`arrow`: see [`Why::text`]; the forms: [`Why::forms`]).
    pub fn why_forms(&self, arrow: &str) -> Vec<String> {
        let note = if self.history_demoted {
            history_note(Some(self.history_hits))
        } else {
            String::new()
        };
        self.why().forms(arrow, &note)
    }

    /// The matched column's text ([`matched_text`]).
    pub fn matched_text(&self) -> String {
        matched_text(self.matched, self.summary_matched)
    }

    /// The why text of the command line table ([`Why::table_text`], then
    /// ` (history-demoted)` for a history-demoted row).
    pub fn table_why(&self) -> String {
        let mut s = self.why().table_text();
        if self.history_demoted {
            s.push_str(" (history-demoted)");
        }
        s
    }

    /// The matched terms as the command line table lists them (`, `-separated, summary
    /// terms left out; empty when none matched). Sanitised.
    pub fn matched_list(&self) -> String {
        line(&self.matched.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_why_text_source_first() {
        let w = Why::Expanded {
            from: "get_note".into(),
            relation: "requires".into(),
            confidence: Some("INFERRED".into()),
        };
        assert_eq!(w.text("←"), "← get_note requires [INFERRED]");
        assert_eq!(w.text("<-"), "<- get_note requires [INFERRED]");
        assert_eq!(w.table_text(), "<- requires [INFERRED] from get_note");
        assert_eq!(Why::Seed(Some(2)).text("←"), "seed #2");
        assert_eq!(history_note(Some(1)), " (history: x0.6)");
        assert_eq!(history_note(Some(3)), " (history: x0.6^3)");
        assert_eq!(history_note(None), " (history)");
        let evil = Why::Expanded {
            from: "a\u{1b}[2Jb".into(),
            relation: "r\u{202e}".into(),
            confidence: None,
        };
        assert!(!evil.text("<-").contains('\u{1b}'));
        assert!(!evil.text("<-").contains('\u{202e}'));
    }

    /// Cut by information value: the source tool stays before the confidence, the
    /// relation and the history note, and is cut last.
    #[test]
    fn why_forms_keep_the_source_tool_first() {
        let w = Why::Expanded {
            from: "pulls/list-commits".into(),
            relation: "similar_to".into(),
            confidence: Some("EXTRACTED".into()),
        };
        assert_eq!(
            w.forms("←", ""),
            [
                "← pulls/list-commits similar_to [EXTRACTED]",
                "← pulls/list-commits similar_to [EX]",
                "← pulls/list-commits sim EX",
                "← pulls/list-commits sim",
                "← pulls/list-commits",
            ]
        );
        let noted = w.forms("<-", &history_note(Some(1)));
        assert_eq!(
            noted[0],
            "<- pulls/list-commits similar_to [EXTRACTED] (history: x0.6)"
        );
        assert!(noted.contains(&"<- pulls/list-commits sim EX (h: x0.6)".to_string()));
        assert_eq!(noted.last().unwrap(), "<- pulls/list-commits");
        // every form is shorter than the one before it, and starts with the source
        for f in [w.forms("←", ""), noted] {
            for pair in f.windows(2) {
                assert!(
                    pair[1].chars().count() < pair[0].chars().count(),
                    "{pair:?}"
                );
            }
            assert!(f.iter().all(|x| x.contains(" pulls/list-commits")));
        }
        let numeric = Why::Expanded {
            from: "a".into(),
            relation: "requires".into(),
            confidence: Some("0.80".into()),
        };
        assert_eq!(numeric.forms("←", "")[1], "← a req 0.80");
        assert_eq!(
            Why::Seed(Some(3)).forms("←", " (history)"),
            ["seed #3 (history)"]
        );
    }

    #[test]
    fn badges_and_matched_terms() {
        assert_eq!(
            badge_text(
                &[Some(true), None, Some(true), Some(false), Some(true)],
                "."
            ),
            "A.M.C"
        );
        let v = |x: &[&str]| x.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(matched_text(&v(&["read"]), &v(&["file", "read"])), "read");
        assert_eq!(matched_text(&[], &v(&["file", "read"])), "(file,read)");
        assert_eq!(matched_text(&[], &[]), "");
        assert!(!matched_text(&[], &v(&["a\u{1b}[2Jb"])).contains('\u{1b}'));
    }

    #[test]
    fn a_live_row_projects_as_the_json_and_the_table_read_it() {
        let engine = Engine::new(crate::demo::load_demo().unwrap());
        let r = engine.retrieve("refund approval", &Default::default());
        let views: Vec<RowView> = RowView::all(&engine, &r.rows).collect();
        assert_eq!(views.len(), r.rows.len());
        for (i, v) in views.iter().enumerate() {
            assert_eq!(v.rank, i + 1);
            assert_eq!(v.rounded, r.rows[i].rounded_score());
            let keys: Vec<&str> = v.breakdown().iter().map(|(k, _)| *k).collect();
            assert_eq!(keys.len(), 10);
            assert_eq!(&keys[..4], ["seed", "graph", "learning", "history_demoted"]);
            assert_eq!(v.breakdown_map().len(), 10);
        }
        assert!(views.iter().any(|v| matches!(v.why(), Why::Seed(Some(1)))));
    }
}
