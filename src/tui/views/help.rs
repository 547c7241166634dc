//! The `?`/F1 help overlay, generated from the command registry (grouped, with every
//! key, where it works and why a command is disabled), plus the legend of the table's
//! marks, chips and badges and the reason-code meanings. Typing filters immediately.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};

use super::super::app::{App, HelpState};
use super::super::caps::Glyphs;
use super::super::commands::edit::{self, KeyRow};
use super::super::commands::{self, Group, REGISTRY};
use super::super::text;
use super::super::theme::Role;
use super::{block, centered, glyphs, put_line, st};

const LEGEND: &[(&str, &str)] = &[
    ("*", "mark: the selector's selected target"),
    ("L", "mark: the LLM target (the model's pick)"),
    (
        "seed",
        "chip: normalised BM25 seed score (score_breakdown.seed)",
    ),
    (
        "graph",
        "chip: score from graph expansion (score_breakdown.graph)",
    ),
    (
        "learn",
        "chip: promoted learning boost (score_breakdown.learning)",
    ),
    (
        "ARMSC",
        "badge column: the letter of each match below, a dot where it does not match",
    ),
    (
        "A",
        "badge: action_match (the tool's canonical action fits the query)",
    ),
    (
        "R",
        "badge: resource_match (primary resource named in the query)",
    ),
    ("M", "badge: module_match (path module named in the query)"),
    ("S", "badge: shape_match (single/list/count/mutation fits)"),
    (
        "C",
        "badge: contract_match (contract fields named in the query)",
    ),
    (
        "matched",
        "query terms in action/resource/module/shape/contract",
    ),
    (
        "(a,b)",
        "matched: query terms found only in the tool's summary",
    ),
    ("seed #k", "why: k-th BM25 seed"),
    (
        "<- X rel [C]",
        "why: pulled in from X over a rel edge with confidence C",
    ),
    ("learning", "why: only a learning signal put it here"),
    (
        "ok X",
        "explain: the node's children combine to its value (residual check) / they do not",
    ),
    (
        "^n vn new gone",
        "counterfactual and diff: moved up / down n ranks, gained, lost",
    ),
    (
        "?key",
        "evidence: a key this reader does not know, shown as given (never dropped)",
    ),
    (
        "history: x0.6",
        "why: demoted by the history (x0.6 per entry naming the tool; ^n for n entries)",
    ),
    (
        "dot",
        "lab: a failed case (missed at hit@1 or a wrong pick)",
    ),
    ("r w d", "status bar: intent shares read / write / delete"),
    ("k d", "status bar: top_k and expansion depth (k10 d2)"),
    (
        "seeds ~",
        "status bar: BM25 seeds; ~: substring fallback ran",
    ),
    ("tok", "status bar: tokens used / token budget"),
    ("vis", "status bar: nodes / edges the expansion visited"),
    ("hist", "status bar: history entries (x0.6 demotion each)"),
    (
        "in words",
        "status bar: every segment in words when it fits",
    ),
];

const CODES: &[&str] = &[
    "no_candidates",
    "llm_target_overridden",
    "ambiguous_target",
    "insufficient_contrastive_evidence",
    "llm_target_preserved",
    "llm_target_not_in_candidates",
    "selected_by_strong_evidence",
    "selected_by_rank",
    "action_incompatible_override_blocked",
    "candidate_tie_override_blocked",
    "insufficient_pairwise_margin",
    "weak_winner_evidence",
    "non_discriminative_override_blocked",
    "negative_only_override_blocked",
    "contradictory_evidence_override_blocked",
    "lower_rank_surface_override_blocked",
];

/// What a drawn overlay measured: its content rows, the rows shown, the scroll offset
/// used (moved to the find's current match when it asked) and the find's matches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Drawn {
    pub rows: usize,
    pub height: usize,
    pub scroll: usize,
    pub matches: usize,
}

/// Draws the overlay.
pub fn draw(app: &App, h: &HelpState, area: Rect, buf: &mut Buffer) -> Drawn {
    let g = glyphs(app);
    let r = centered(
        area,
        area.width.saturating_sub(4).min(110),
        area.height.saturating_sub(2),
    );
    Clear.render(r, buf);
    let b = block(app, true, false).title(Line::styled(
        " Help: type to filter, Ctrl-F finds, Esc backs out, PgUp/PgDn scroll ",
        st(app, Role::Title),
    ));
    let inner = b.inner(r);
    b.render(r, buf);
    if inner.height == 0 || inner.width == 0 {
        return Drawn::default();
    }
    let w = inner.width as usize;
    let f = super::clean(&h.filter.text);
    let pass = |hay: &str| filter_matches(&f, hay);
    let kw = 16usize.min(w / 3);
    let mut rows = command_rows(app, &pass, kw);
    // the keys of text inputs and overlays, from their tables
    let tables: [(&str, Vec<(String, &str)>); 3] = [
        (
            "Line editing (query line, palette, help filter)",
            rows_of(edit::EDIT_KEYS, g),
        ),
        ("Palette (:)", rows_of(edit::PALETTE_KEYS, g)),
        ("Help overlay (?)", rows_of(edit::HELP_KEYS, g)),
    ];
    let note = ("Narration overlay (i)", rows_of(edit::NOTE_KEYS, g));
    let log = ("Messages overlay (I)", rows_of(edit::MESSAGES_KEYS, g));
    let find = (
        "Find line (Ctrl-F in a drill-down pane or in this help)",
        rows_of(edit::FIND_KEYS, g),
    );
    for (title, entries) in tables.into_iter().chain([find, note, log]) {
        let lines: Vec<Line<'static>> = entries
            .into_iter()
            .filter(|(k, l)| pass(&format!("{k} {l} {title}")))
            .map(|(k, l)| {
                Line::from(vec![
                    Span::styled(
                        format!("  {}", text::fit(&k, kw, g.ellipsis)),
                        st(app, Role::Key),
                    ),
                    Span::raw(format!(" {l}")),
                ])
            })
            .collect();
        if !lines.is_empty() {
            rows.push(Line::styled(title.to_string(), st(app, Role::Section)));
            rows.extend(lines);
        }
    }
    let legend = legend_rows(app, &pass, kw);
    if !legend.is_empty() {
        rows.push(Line::styled("Legend", st(app, Role::Section)));
        rows.extend(legend);
    }
    let codes: Vec<Line<'static>> = CODES
        .iter()
        .filter_map(|c| {
            let m = super::super::reasons::meaning(c)?;
            pass(&format!("{c} {m} reason code")).then(|| {
                Line::from(vec![
                    Span::styled(format!("  {c}"), st(app, Role::Key)),
                    Span::styled(format!("  {m}"), st(app, Role::Muted)),
                ])
            })
        })
        .collect();
    if !codes.is_empty() {
        rows.push(Line::styled("Reason codes", st(app, Role::Section)));
        rows.extend(codes);
    }
    if rows.is_empty() {
        rows.push(Line::styled(
            format!(
                "nothing matches {}",
                crate::sanitize::quoted(&h.filter.text)
            ),
            st(app, Role::Muted),
        ));
    }
    // an entry longer than the overlay wraps under its label, never cut: what a key does
    // and where it works are the point of the help
    let rows: Vec<Line<'static>> = rows
        .into_iter()
        .flat_map(|l| {
            let mut wrapped = text::wrap_line(&l, w, 3 + kw);
            // a continuation starts at the label column, not a space after it
            for c in wrapped.iter_mut().skip(1) {
                if let Some(s) = c.spans.get_mut(1) {
                    s.content = s.content.trim_start().to_string().into();
                }
            }
            wrapped
        })
        .collect();
    let height = inner.height.saturating_sub(1) as usize;
    let total = rows.len();
    let max_scroll = total.saturating_sub(height);
    let mut rows = rows;
    let (matches, current_row) = find_rows(app, h, &mut rows);
    let scroll = match (&h.find, current_row) {
        // the current match a third of the way down, as in the panes
        (Some(fd), Some(r)) if fd.jump => r.saturating_sub(height / 3).min(max_scroll),
        _ => h.scroll.min(max_scroll),
    };
    // the filter line, with the find beside it once there is one
    put_line(
        buf,
        Rect::new(inner.x, inner.y, inner.width, 1),
        &text::truncate_line(top_line(app, h, &f, matches), w, g.ellipsis),
    );
    for (i, l) in rows.iter().skip(scroll).take(height).enumerate() {
        put_line(
            buf,
            Rect::new(inner.x, inner.y + 1 + i as u16, inner.width, 1),
            l,
        );
    }
    // the position sits in the frame's bottom line, one border cell before the corner,
    // never over the filter or the content
    if total > height && r.width > 16 && r.height > 2 {
        let pos = format!(" {}/{} ", (scroll + height).min(total), total);
        let pw = text::width(&pos) as u16;
        buf.set_string(
            r.x + r.width - 1 - pw - 1,
            r.y + r.height - 1,
            pos,
            st(app, Role::Muted),
        );
    }
    Drawn {
        rows: total,
        height,
        scroll,
        matches,
    }
}

/// Highlights the find's matches in the rows as drawn; returns the matches and the row
/// of the current one.
fn find_rows(app: &App, h: &HelpState, rows: &mut [Line<'static>]) -> (usize, Option<usize>) {
    let Some(fd) = h.find.as_ref().filter(|fd| !fd.input.is_empty()) else {
        return (0, None);
    };
    let pattern: Vec<char> = fd.input.text.to_lowercase().chars().collect();
    let mut matches = 0usize;
    let mut current_row = None;
    for (ri, line) in rows.iter_mut().enumerate() {
        let (l, n) = super::doc::highlight(line, &pattern, matches, fd.current, &app.theme);
        if n > 0 {
            if (matches..matches + n).contains(&fd.current) {
                current_row = Some(ri);
            }
            *line = l;
            matches += n;
        }
    }
    (matches, current_row)
}

/// The overlay's first line: `filter: TEXT_`, and with a find `find: PATTERN  2/5  keys`
/// (the cursor `_` where the typing goes).
fn top_line(app: &App, h: &HelpState, filter: &str, matches: usize) -> Line<'static> {
    let typing_find = h.find.as_ref().is_some_and(|fd| fd.typing);
    let mut spans = vec![
        Span::styled("filter: ", st(app, Role::Muted)),
        Span::styled(filter.to_string(), st(app, Role::FuzzyMatch)),
        Span::styled(if typing_find { "" } else { "_" }, st(app, Role::Prompt)),
    ];
    if let Some(fd) = &h.find {
        let count = if fd.input.is_empty() {
            String::new()
        } else if matches == 0 {
            "  no match".into()
        } else {
            format!("  {}/{}", fd.current.min(matches - 1) + 1, matches)
        };
        let keys = if fd.typing {
            "  Enter: keep  Down/Up: next/prev  Esc: close"
        } else {
            "  n/N: next/prev  Ctrl-F: edit  Esc: close"
        };
        spans.extend([
            Span::styled("   find: ", st(app, Role::Prompt)),
            Span::styled(super::clean(&fd.input.text), st(app, Role::FuzzyMatch)),
            Span::styled(if fd.typing { "_" } else { "" }, st(app, Role::Prompt)),
            Span::styled(count, st(app, Role::Key)),
            Span::styled(keys, st(app, Role::Muted)),
        ]);
    }
    Line::from(spans)
}

/// The legend's rows that pass the filter (glyphs as this terminal draws them).
fn legend_rows(app: &App, pass: &dyn Fn(&str) -> bool, kw: usize) -> Vec<Line<'static>> {
    let g = glyphs(app);
    LEGEND
        .iter()
        .filter(|(k, m)| pass(&format!("{k} {m} legend")))
        .map(|(k, m)| {
            let k = if *k == "dot" {
                g.dot.to_string()
            } else if app.caps.ascii {
                k.to_string()
            } else {
                match *k {
                    "ok X" => format!("{} {}", g.check, g.cross),
                    "^n vn new gone" => format!("{}n {}n new gone", g.rise, g.fall),
                    k => k.replacen("<-", g.arrow_in, 1),
                }
            };
            Line::from(vec![
                Span::styled(
                    format!("  {}", text::fit(&k, kw, g.ellipsis)),
                    st(app, Role::Key),
                ),
                Span::raw(format!(" {m}")),
            ])
        })
        .collect()
}

/// The registry's commands by group, as help rows that pass the filter: a command whose
/// keys work in different places has one row per place ([`commands::key_groups`]).
fn command_rows(app: &App, pass: &dyn Fn(&str) -> bool, kw: usize) -> Vec<Line<'static>> {
    let g = glyphs(app);
    let ctx = app.ctx();
    let mut rows: Vec<Line<'static>> = Vec::new();
    for grp in Group::ORDER {
        let mut group_rows: Vec<Line<'static>> = Vec::new();
        for c in REGISTRY.iter().filter(|c| c.group == grp) {
            let disabled = (c.enabled)(app);
            let active_here = app.keys.bindings(c).iter().any(|bd| bd.when & ctx != 0);
            let kst = if disabled.is_some() {
                st(app, Role::Disabled)
            } else {
                st(app, Role::Key)
            };
            for (keys, wh) in commands::key_groups(&app.keys, c, g) {
                let hay = format!("{keys} {} :{} {} {wh}", c.label, c.name, grp.title());
                if !pass(&hay) {
                    continue;
                }
                let lst = if disabled.is_some() {
                    st(app, Role::Disabled)
                } else {
                    Style::default()
                };
                // after the label: the `:name`, where the keys work, and why not here
                let mut tail = vec![Span::styled(format!("  :{}", c.name), st(app, Role::Muted))];
                if !wh.is_empty() {
                    tail.push(Span::styled(format!("  [{wh}]"), st(app, Role::Muted)));
                }
                if let Some(why) = disabled {
                    tail.push(Span::styled(
                        format!("  (disabled: {why})"),
                        st(app, Role::Warn),
                    ));
                } else if !active_here && !app.keys.bindings(c).is_empty() {
                    tail.push(Span::styled("  (not in this pane)", st(app, Role::Muted)));
                }
                let mut sp = vec![Span::styled(
                    format!("  {}", text::fit(&keys, kw, g.ellipsis)),
                    kst,
                )];
                // the whole label and tail: the overlay wraps a long entry
                sp.push(Span::styled(format!(" {}", c.label), lst));
                sp.extend(tail);
                group_rows.push(Line::from(sp));
            }
        }
        if !group_rows.is_empty() {
            rows.push(Line::styled(
                grp.title().to_string(),
                st(app, Role::Section),
            ));
            rows.extend(group_rows);
        }
    }
    rows
}

/// The help filter: every word of it starts a word of the entry (case-insensitive); a
/// filter word with punctuation in it (`ctrl-u`, `?`) matches as a substring.
pub fn filter_matches(filter: &str, hay: &str) -> bool {
    let hay = hay.to_lowercase();
    let words: Vec<&str> = hay
        .split(|c: char| !c.is_alphanumeric() && c != '!')
        .filter(|w| !w.is_empty())
        .collect();
    filter.to_lowercase().split_whitespace().all(|fw| {
        if fw.chars().all(char::is_alphanumeric) {
            words.iter().any(|w| w.starts_with(fw))
        } else {
            hay.contains(fw)
        }
    })
}

/// (keys, label) of a key table, for the overlay.
fn rows_of<A>(table: &[KeyRow<A>], g: &Glyphs) -> Vec<(String, &'static str)> {
    table
        .iter()
        .map(|r| {
            let keys: Vec<String> = r.keys.iter().map(|k| k.label(g)).collect();
            (keys.join(" "), r.label)
        })
        .collect()
}
