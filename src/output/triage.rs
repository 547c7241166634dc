//! Readable text of a triage ("why not X"): the class and the stage that failed, the tools
//! above the expected one channel by channel, the deficit against the winner and the
//! cutoff term by term, the expansion path, the findings and the probes — as evidence, in
//! the conditional ("with depth=3, X would rank 4"), never as advice. Every untrusted text
//! goes through [`crate::sanitize::line`].

use std::fmt::Write;

use crate::engine::triage::deficit::{Deficit, PathEvidence, PathReason, TermHit};
use crate::engine::triage::{
    AboveDiff, FailureClass, Probe, ProbeChange, RankSignals, SubCause, Triage,
};
use crate::sanitize::line;

/// Probes listed at most (the others are counted).
pub const PROBES_SHOWN: usize = 12;
/// Tools above X listed at most.
pub const ABOVE_SHOWN: usize = 10;

fn f4(x: f64) -> String {
    format!("{x:.4}")
}

/// A 1-based rank, or "-".
pub fn opt_rank(r: Option<usize>) -> String {
    r.map(|r| r.to_string()).unwrap_or_else(|| "-".into())
}

fn signed(x: f64) -> String {
    format!("{x:+.4}")
}

/// The stage that failed, in one or two sentences.
pub fn stage_line(t: &Triage) -> String {
    let x = line(&t.expected);
    let k = t.knobs.params.top_k;
    match &t.class {
        FailureClass::Selected => format!("the selector selected {x} (rank {})", opt_rank(t.rank)),
        FailureClass::NotRetrieved {
            sub_cause,
            full_rank,
            bm25_rank,
            bm25_candidates,
            hops,
        } => {
            let why = match sub_cause {
                SubCause::NoTermOverlap => "no query token or expansion occurs in its indexed text, and no expansion path brought it in".to_string(),
                SubCause::BelowCutoff => format!(
                    "it was scored and ranks {} of {} in the full ranking, past top_k {k}",
                    opt_rank(*full_rank),
                    t.scored
                ),
                SubCause::NotReachable => format!(
                    "it has term overlap (BM25 rank {} of {bm25_candidates}; the best 5 become seeds) but is not a seed, and no expansion path reaches it within depth {}{}",
                    opt_rank(*bm25_rank),
                    t.knobs.params.depth,
                    hops.map(|h| format!(" (its nearest seed is {h} hops away)"))
                        .unwrap_or_else(|| " (no seed reaches it at any depth)".into())
                ),
                SubCause::BudgetCut => "it was dropped by the token budget".to_string(),
            };
            format!("retrieval: {x} is not in the results: {why}")
        }
        FailureClass::SelectorAmbiguous {
            selected,
            ambiguity_set,
            margin,
            ..
        } => format!(
            "selector: {x} ranks {}; the selector marked the decision ambiguous (ambiguity set [{}], margin {}) and selected {}",
            opt_rank(t.rank),
            ambiguity_set
                .iter()
                .map(|s| line(s))
                .collect::<Vec<_>>()
                .join(", "),
            f4(*margin),
            line(selected)
        ),
        FailureClass::SelectorOverrodeLlm {
            selected,
            llm_margin,
            supporting_sources,
        } => format!(
            "selector: the LLM named {x}; the selector overrode it and selected {} (llm margin {}; supporting evidence: {})",
            line(selected),
            llm_margin.map(f4).unwrap_or_else(|| "-".into()),
            if supporting_sources.is_empty() {
                "-".into()
            } else {
                supporting_sources.join(", ")
            }
        ),
        FailureClass::SelectorKeptLlmTarget {
            llm_target,
            margin,
            llm_margin,
            override_margin,
            blocked_by,
            ..
        } => format!(
            "selector: the LLM named {}; the selector kept it (margin {}, llm margin {}, override margin {}; override blocked by: {})",
            line(llm_target),
            f4(*margin),
            llm_margin.map(f4).unwrap_or_else(|| "-".into()),
            override_margin,
            if blocked_by.is_empty() {
                "-".into()
            } else {
                blocked_by.join(", ")
            }
        ),
        FailureClass::SelectorChoseOther {
            selected, margin, ..
        } => format!(
            "selector: {x} is first by rank, yet the selector selected {} (margin {})",
            line(selected),
            f4(*margin)
        ),
        FailureClass::Outranked { rank } => format!(
            "ranking: {x} ranks {rank} of {}; {} tool(s) rank above it and the selector did not pick it",
            result_rows(t),
            rank - 1
        ),
    }
}

/// The number of result rows (X's rank is within them when retrieved).
fn result_rows(t: &Triage) -> usize {
    t.knobs.params.top_k.min(t.scored)
}

fn signals_line(out: &mut String, label: &str, s: &Option<RankSignals>) {
    let Some(s) = s else { return };
    let ev: Vec<String> = s
        .evidence
        .iter()
        .map(|(src, v)| format!("{src} {}", f4(*v)))
        .collect();
    let _ = writeln!(
        out,
        "  {label:<9} {}: selector score {} (base {}, contrastive {}), original rank {}, retrieval score {}, strong evidence {}; evidence: {}",
        line(&s.name),
        f4(s.selector_score),
        f4(s.base_selector_score),
        f4(s.contrastive_score),
        opt_rank(s.original_rank),
        f4(s.retrieval_score),
        s.strong_evidence,
        if ev.is_empty() {
            "-".into()
        } else {
            ev.join(", ")
        }
    );
}

pub fn class_signals(out: &mut String, c: &FailureClass) {
    match c {
        FailureClass::SelectorAmbiguous { x, .. } => signals_line(out, "expected", x),
        FailureClass::SelectorKeptLlmTarget { x, kept, .. } => {
            signals_line(out, "expected", x);
            signals_line(out, "kept", kept);
        }
        FailureClass::SelectorChoseOther { x, chosen, .. } => {
            signals_line(out, "expected", x);
            signals_line(out, "selected", chosen);
        }
        _ => {}
    }
}

fn above_table(out: &mut String, above: &[AboveDiff]) {
    if above.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\ntools above it (other minus expected; history = demotions other/expected)"
    );
    let _ = writeln!(
        out,
        "  {:>4}  {:<32} {:>8} {:>8} {:>8} {:>8} {:>8} {:>5}  flags that differ",
        "rank", "tool", "score", "Δscore", "Δseed", "Δgraph", "Δlearn", "hist"
    );
    for a in above.iter().take(ABOVE_SHOWN) {
        let flags: Vec<String> = a
            .flags
            .iter()
            .map(|f| format!("{} {}/{}", f.flag, u8::from(f.other), u8::from(f.x)))
            .collect();
        let _ = writeln!(
            out,
            "  {:>4}  {:<32} {:>8} {:>8} {:>8} {:>8} {:>8} {:>5}  {}",
            a.rank,
            line(&a.name),
            f4(a.score.other),
            signed(a.score.diff()),
            signed(a.seed.diff()),
            signed(a.graph.diff()),
            signed(a.learning.diff()),
            format!("{}/{}", a.history_hits.0, a.history_hits.1),
            if flags.is_empty() {
                "-".into()
            } else {
                flags.join(", ")
            }
        );
    }
    if above.len() > ABOVE_SHOWN {
        let _ = writeln!(out, "  … {} more", above.len() - ABOVE_SHOWN);
    }
}

fn part(h: &Option<TermHit>) -> String {
    match h {
        Some(h) => format!("{} (tf {})", f4(h.part), h.tf),
        None => "-".into(),
    }
}

/// The query terms X lacks, each with its idf: `refund (idf 2.8054)` (sanitised).
pub fn missing_terms(d: &Deficit) -> Vec<String> {
    d.x_missing_terms
        .iter()
        .map(|(t, idf)| {
            format!(
                "{} (idf {})",
                line(t),
                idf.map(f4).unwrap_or_else(|| "-".into())
            )
        })
        .collect()
}

fn deficit_block(out: &mut String, d: &Deficit) {
    let who = match d.against {
        crate::engine::triage::deficit::Against::Winner => "the winner",
        crate::engine::triage::deficit::Against::Cutoff => "the last row inside top_k",
    };
    let _ = writeln!(
        out,
        "\ndeficit against {who}, {} (rank {})",
        line(&d.other.name),
        opt_rank(d.other.rank)
    );
    for s in [&d.x, &d.other] {
        let _ = writeln!(
            out,
            "  {:<32} score {:>8}  {:<13} bm25 {:>8}  seed-normalised {:>8}  history {}  learning {}",
            line(&s.name),
            s.score.map(f4).unwrap_or_else(|| "-".into()),
            s.origin,
            s.bm25.map(f4).unwrap_or_else(|| "-".into()),
            s.seed_normalized.map(f4).unwrap_or_else(|| "-".into()),
            s.history_hits,
            f4(s.learning)
        );
    }
    if let Some(g) = d.score_gap {
        let _ = writeln!(out, "  score gap {}", f4(g));
    }
    if !d.terms.is_empty() {
        let _ = writeln!(
            out,
            "  {:<20} {:<16} {:>7} {:>16} {:>16}",
            "query term", "source", "idf", "expected part", "other part"
        );
        for r in &d.terms {
            let _ = writeln!(
                out,
                "  {:<20} {:<16} {:>7} {:>16} {:>16}",
                line(&r.text),
                line(&r.source),
                r.idf.map(f4).unwrap_or_else(|| "-".into()),
                part(&r.x),
                part(&r.other)
            );
        }
    }
    if !d.other_only_terms.is_empty() {
        let t: Vec<String> = d.other_only_terms.iter().map(|s| line(s)).collect();
        let _ = writeln!(
            out,
            "  terms {} matched and the expected tool did not: {}",
            line(&d.other.name),
            t.join(", ")
        );
    }
    if !d.x_missing_terms.is_empty() {
        let t = missing_terms(d);
        let _ = writeln!(
            out,
            "  query terms the expected tool lacks: {}",
            t.join(", ")
        );
    }
    for (label, a, b) in &d.multipliers {
        let _ = writeln!(out, "  {label}: expected {} vs other {}", f4(*a), f4(*b));
    }
}

pub fn reason_text(r: &PathReason) -> String {
    match r {
        PathReason::Depth { needed, limit } => {
            format!("depth: it needs {needed} hops, the expansion stops at {limit}")
        }
        PathReason::Unreachable => "unreachable: no seed reaches it at any depth".into(),
        PathReason::PassThrough { node } => format!(
            "pass-through: the path runs through {} (its neighbours get a parent score of 0)",
            line(node)
        ),
        PathReason::FirstVisit { via, score, actual } => format!(
            "first visit wins: via {} it would score {}, it scored {}",
            line(via),
            f4(*score),
            f4(*actual)
        ),
        PathReason::Decay { product } => format!("depth decay along the path: ×{}", f4(*product)),
        PathReason::Budget { cut } => format!(
            "token budget: bounds subgraph_text only, not the expansion{}",
            if *cut {
                "; its NODE line was cut from subgraph_text"
            } else {
                ""
            }
        ),
    }
}

/// One hop of an expansion path: `→ X at depth 1 over requires [EXTRACTED]: parent ×
/// weight × confidence × decay = score` (sanitised; `arrow` from the caller's glyphs).
pub fn hop_text(h: &crate::engine::triage::deficit::Hop, arrow: &str) -> String {
    format!(
        "{arrow} {} at depth {} over {} [{}]: {} × weight {} × confidence {} × decay {} = {}",
        line(&h.to),
        h.depth,
        line(&h.relation),
        line(&h.confidence),
        f4(h.parent),
        short(h.weight),
        short(h.conf),
        short(h.decay),
        f4(h.score)
    )
}

fn path_block(out: &mut String, p: &PathEvidence) {
    let _ = writeln!(
        out,
        "\nexpansion path (depth limit {}; entered the expansion: {})",
        p.depth_limit,
        if p.entered { "yes" } else { "no" }
    );
    match &p.seed {
        Some(seed) => {
            let _ = writeln!(out, "  seed {}", line(seed));
            for h in &p.hops {
                let _ = writeln!(out, "  {}", hop_text(h, "→"));
            }
        }
        None => {
            let _ = writeln!(out, "  no seed reaches it over the graph's edges");
        }
    }
    for r in &p.reasons {
        let _ = writeln!(out, "  {}", reason_text(r));
    }
}

/// "with depth=3, X would rank 4 (first, selected)" and what it turns on or off.
pub fn probe_text(p: &Probe, t: &Triage) -> String {
    let x = line(&t.expected);
    let change = match &p.change {
        ProbeChange::Knob { set, .. } => line(set),
        ProbeChange::Document {
            term, idf_after, ..
        } => format!(
            "\"{}\" added once to {x}'s indexed text (idf then {})",
            line(term),
            f4(*idf_after)
        ),
    };
    let place = match (p.rank, p.full_rank) {
        (Some(r), _) => format!("would rank {r}"),
        (None, Some(f)) => format!("would not be retrieved (full rank {f})"),
        (None, None) => "would not be scored".into(),
    };
    let mut s = format!("with {change}, {x} {place}");
    let on = p.flips(&t.outcome);
    let off = p.losses(&t.outcome);
    if !on.is_empty() {
        let _ = write!(s, "; turns on: {}", on.join(", "));
    }
    if !off.is_empty() {
        let _ = write!(s, "; turns off: {}", off.join(", "));
    }
    if p.selected_target != t.selection.selected_target {
        let _ = write!(
            s,
            "; the selector would select {}",
            line(&p.selected_target)
        );
    }
    let others = p.moved.iter().filter(|m| m.tool != t.expected).count();
    let _ = write!(
        s,
        "; {others} other tool(s) move [{}]",
        p.mechanism_status.as_str()
    );
    s
}

/// Probes that change X's outcome first, then those that change its rank, each group by
/// the place X reaches; the rest are counted.
fn probes_block(out: &mut String, t: &Triage) {
    if t.probes.is_empty() {
        return;
    }
    let (shown, unchanged) = t.probes_by_effect();
    let _ = writeln!(
        out,
        "\nprobes (counterfactual evidence: each re-run changes exactly one thing; {} run)",
        t.probes.len()
    );
    for p in shown.iter().take(PROBES_SHOWN) {
        let _ = writeln!(out, "  {}", probe_text(p, t));
    }
    if shown.len() > PROBES_SHOWN {
        let _ = writeln!(
            out,
            "  {} more probe(s) change its rank or outcome (see --json)",
            shown.len() - PROBES_SHOWN
        );
    }
    if unchanged > 0 {
        let _ = writeln!(
            out,
            "  {unchanged} other probe(s) leave its rank and outcome unchanged"
        );
    }
}

/// A factor as written when short (`1`, `0.7`), else to four decimals.
pub fn short(x: f64) -> String {
    let r = crate::pytext::float_repr(x);
    if r.len() <= 6 { r } else { f4(x) }
}

/// The full human diagnosis of one case.
pub fn triage_text(t: &Triage) -> String {
    let mut out = String::new();
    let class = match t.class.sub_cause() {
        Some(s) => format!("{} ({})", t.class.as_str(), s.as_str()),
        None => t.class.as_str().to_string(),
    };
    let _ = writeln!(
        out,
        "triage {} — expected {}",
        crate::sanitize::quoted(&t.query),
        line(&t.expected)
    );
    let _ = writeln!(
        out,
        "class: {class} | rank {} | full rank {} of {} scored | top_k {} | mechanism_status: {}",
        opt_rank(t.rank),
        opt_rank(t.full_rank),
        t.scored,
        t.knobs.params.top_k,
        t.mechanism_status.as_str()
    );
    let _ = writeln!(out, "\n{}", stage_line(t));
    class_signals(&mut out, &t.class);
    let s = &t.selection;
    let _ = writeln!(
        out,
        "selector verdict: selected {} | llm target {} | policy {} | overrode {} | ambiguous {} | confidence {} | reasons: {}",
        line(&s.selected_target),
        s.llm_target
            .as_deref()
            .map(line)
            .unwrap_or_else(|| "-".into()),
        line(s.policy.as_str()),
        s.overrode_llm,
        s.ambiguous,
        f4(s.confidence),
        s.reason_codes.join(", ")
    );
    if let Some(r) = &t.row {
        let _ = writeln!(
            out,
            "its row: score {} (seed {}, graph {}, learning {}, history demoted {})",
            r.rounded_score(),
            f4(r.breakdown.seed),
            f4(r.breakdown.graph),
            f4(r.breakdown.learning),
            r.breakdown.history_demoted
        );
    }
    above_table(&mut out, &t.above);
    for d in &t.deficit {
        deficit_block(&mut out, d);
    }
    if let Some(p) = &t.path {
        path_block(&mut out, p);
    }
    if !t.findings.is_empty() {
        let _ = writeln!(out, "\nfindings");
        for f in &t.findings {
            let _ = writeln!(
                out,
                "  {} [{}]: {}",
                f.kind(),
                f.status().as_str(),
                line(&f.summary())
            );
        }
    }
    probes_block(&mut out, t);
    for c in &t.check_failures {
        let _ = writeln!(out, "check failure: {}", line(c));
    }
    out
}
