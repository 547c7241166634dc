//! The info line (messages, demo notes), the status bar (graph, intent, seeds, visited,
//! budget, parameters) and the footer hints read from the command registry.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::super::app::{App, FlashLevel, PaneId};
use super::super::commands;
use super::super::screens::Screen;
use super::super::text;
use super::super::theme::Role;
use super::{clean, glyphs, put_line, st};

/// The message line in `width` cells: the message whole when it fits, else its short
/// form (when it has one), else cut; cut or short, it ends with the key that shows it in
/// full (`I: all`).
fn flash_line(app: &App, width: usize) -> Option<Line<'static>> {
    let f = app.flash.as_ref()?;
    let role = match f.level {
        FlashLevel::Info => Role::Good,
        FlashLevel::Warn => Role::Warn,
        FlashLevel::Error => Role::Bad,
    };
    let line = |t: &str| Line::from(vec![Span::styled(format!(" {}", clean(t)), st(app, role))]);
    let full = line(&f.text);
    Some(match &f.short {
        Some(short) if text::line_width(&full) > width => {
            fit_message(app, line(short), width, true)
        }
        _ => fit_message(app, full, width, false),
    })
}

pub fn draw_flash(app: &App, r: Rect, buf: &mut Buffer) {
    if let Some(l) = flash_line(app, r.width as usize) {
        put_line(buf, r, &l);
    }
}

/// A message in `width` cells: whole when it fits, else cut with the key that shows it in
/// full at the end (`I: all`, from the registry). `more`: there is more than `l` says,
/// so the key goes at the end whenever it fits.
fn fit_message(app: &App, l: Line<'static>, width: usize, more: bool) -> Line<'static> {
    let g = glyphs(app);
    let key = commands::keys_in(
        &app.keys,
        commands::get(commands::CmdId::Messages),
        commands::NORMAL,
        g,
    )
    .into_iter()
    .next();
    match key {
        Some(k) => {
            let tail = format!(" {k}: all");
            let lw = text::line_width(&l);
            if lw > width {
                let mut l = text::truncate_line(l, width.saturating_sub(tail.len()), g.ellipsis);
                l.spans.push(Span::styled(tail, st(app, Role::Key)));
                l
            } else if more && lw + tail.len() <= width {
                let mut l = l;
                l.spans.push(Span::styled(tail, st(app, Role::Key)));
                l
            } else {
                l
            }
        }
        _ => text::truncate_line(l, width, g.ellipsis),
    }
}

/// Row under the query: a message, the demo step's presenter note, or a tip.
/// `found`: the find's matches as counted by this frame (else the last frame's).
pub fn draw_info(app: &App, r: Rect, buf: &mut Buffer, found: Option<usize>) {
    let g = glyphs(app);
    if let Some(l) = flash_line(app, r.width as usize) {
        put_line(buf, r, &l);
        return;
    }
    let line = if app.screen != Screen::Explore {
        Line::styled(screen_tip(app).to_string(), st(app, Role::Muted))
    } else if let Some(f) = app
        .find
        .as_ref()
        .filter(|f| f.pane == app.drill && app.screen == Screen::Explore)
    {
        let matches = found.unwrap_or(f.matches);
        let count = if f.input.is_empty() {
            String::new()
        } else if matches == 0 {
            "  no match".into()
        } else {
            format!("  {}/{}", f.current.min(matches - 1) + 1, matches)
        };
        let keys = if f.typing {
            "  Enter: keep  Down/Up: next/prev  Esc: close"
        } else {
            "  n/N: next/prev  Ctrl-F: edit"
        };
        Line::from(vec![
            Span::styled(" find: ", st(app, Role::Prompt)),
            Span::styled(clean(&f.input.text), st(app, Role::FuzzyMatch)),
            Span::styled(if f.typing { "_" } else { "" }, st(app, Role::Prompt)),
            Span::styled(count, st(app, Role::Key)),
            Span::styled(keys, st(app, Role::Muted)),
        ])
    } else if let Some((step, fresh)) = app.demo_on_screen() {
        let mut spans = vec![Span::styled(
            format!(" {} ", clean(&step.section)),
            st(app, Role::Note),
        )];
        if !fresh {
            spans.push(Span::styled(
                format!(
                    "{} parameters changed: the narration no longer describes the screen (n: next step)",
                    g.sep.trim()
                ),
                st(app, Role::Warn),
            ));
        } else if !step.note.is_empty() {
            spans.push(Span::styled(
                format!("{} {}", g.sep.trim(), clean(&step.note)),
                st(app, Role::Muted),
            ));
        }
        Line::from(spans)
    } else if app.input_active {
        Line::styled(
            " Enter: done  End: keep the query (typing replaces it)  Ctrl-U: delete to start",
            st(app, Role::Muted),
        )
    } else if app.rows_len() > 0 && app.focus == PaneId::Candidates {
        Line::styled(
            " Enter: evidence  Tab: panes  l: LLM target  h: history  +/-: top_k  ?: all keys",
            st(app, Role::Muted),
        )
    } else if app.rows_len() > 0 {
        Line::styled(
            format!(
                " {}: j/k scroll  Tab: next pane  Esc: back to candidates  ?: all keys",
                app.focus.title()
            ),
            st(app, Role::Muted),
        )
    } else {
        Line::default()
    };
    let width = r.width as usize;
    let line_w: usize = line.spans.iter().map(|s| text::width(&s.content)).sum();
    let line = if line_w > width && app.screen == Screen::Explore && app.demo_on_screen().is_some()
    {
        // a cut narration says where the rest is
        let more = " i: full";
        let mut l = text::truncate_line(line, width.saturating_sub(more.len()), g.ellipsis);
        l.spans.push(Span::styled(more, st(app, Role::Key)));
        l
    } else {
        text::truncate_line(line, width, g.ellipsis)
    };
    put_line(buf, r, &line);
}

/// `0.667` as "0.67", `1.0` as "1": the short status form.
fn short_num(v: f64) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.is_empty() {
        "0".into()
    } else {
        s.to_string()
    }
}

fn screen_tip(app: &App) -> &'static str {
    match app.screen {
        Screen::Evidence => {
            " Tab: focus  Enter: open  [ ]: record  2-5: row/selector/record/why-not  o: JSON  ?: keys"
        }
        Screen::Diff if app.gd_load.is_some() => super::gdiff::LOADING_TIP,
        Screen::Diff if app.gdiff.is_some() => super::gdiff::TIP,
        Screen::Diff => " Tab or Enter: cases/detail  c: changed only  j/k: case  ?: keys",
        Screen::Lab => {
            " Enter: open the case in Explore (Esc comes back)  o: sort  Tab: detail  ?: keys"
        }
        Screen::Follow => {
            " space: pause  c/t/r/d: class/tool/code/drift  /: text  x: clear  Enter: open  ?: keys"
        }
        Screen::Explore => "",
    }
}

/// One status-bar segment: its words, its compact form (`None`: it has only one; an empty
/// form drops it) and its place on the shrink ladder (lower shrinks first).
struct Seg {
    long: Vec<Span<'static>>,
    short: Option<Vec<Span<'static>>>,
    shrink: u8,
}

impl Seg {
    fn fixed(spans: Vec<Span<'static>>) -> Seg {
        Seg {
            long: spans,
            short: None,
            shrink: u8::MAX,
        }
    }

    fn two(long: Vec<Span<'static>>, short: Vec<Span<'static>>, shrink: u8) -> Seg {
        Seg {
            long,
            short: Some(short),
            shrink,
        }
    }
}

/// The Explore status bar, in priority order. Every segment reads in words when there is
/// room (`intent delete: read 0 write 0 delete 1`, `tokens 1568/2000`, `visited 72
/// nodes/67 edges`); the ladder shrinks first what needs no explaining (the graph's size,
/// `k10 d2`, the timing), then the intent shares, the visited counts and the token budget.
fn explore_segments(app: &App) -> Vec<Seg> {
    let mut segs: Vec<Seg> = Vec::new();
    let Some(engine) = &app.engine else {
        return segs;
    };
    let graph = &engine.graph;
    let name = Span::styled(
        format!(" {}", clean(&app.source_label)),
        st(app, Role::Title),
    );
    segs.push(Seg::two(
        vec![
            name.clone(),
            Span::raw(format!(
                " {} tools {} edges",
                graph.tool_count(),
                graph.edge_count()
            )),
        ],
        vec![name],
        0,
    ));
    let p = &app.params;
    let mut long = vec![Span::raw(format!("top_k {} depth {}", p.top_k, p.depth))];
    let mut short = vec![Span::raw(format!("k{} d{}", p.top_k, p.depth))];
    if !p.history.is_empty() {
        let n = p.history.len();
        long.push(Span::styled(format!(" history {n}"), st(app, Role::Warn)));
        short.push(Span::styled(format!(" hist {n}"), st(app, Role::Warn)));
    }
    if app.learning_count > 0 {
        let on = if p.learning_enabled { "on" } else { "off" };
        long.push(Span::raw(format!(" learning {on}")));
        short.push(Span::raw(format!(" learn {on}")));
    }
    let Some(ret) = app.retrieval() else {
        let b = p.token_budget;
        long.push(Span::raw(format!(" token budget {b}")));
        short.push(Span::raw(format!(" b{b}")));
        segs.push(Seg::two(long, short, 1));
        push_running(app, &mut segs);
        return segs;
    };
    let i = &ret.intent;
    let label = Span::styled(ret.intent_label.as_str().to_string(), st(app, Role::Key));
    let (r, w, d) = (short_num(i.read), short_num(i.write), short_num(i.delete));
    segs.push(Seg::two(
        vec![
            Span::raw("intent "),
            label.clone(),
            Span::raw(format!(": read {r} write {w} delete {d}")),
        ],
        vec![label, Span::raw(format!(" r{r} w{w} d{d}"))],
        5,
    ));
    let seeds = ret.stats.seeds.len();
    let (sub_long, sub_short) = if ret.used_fallback {
        (" (substring)", "~")
    } else {
        ("", "")
    };
    segs.push(Seg::two(
        vec![Span::raw(format!("seeds {seeds}{sub_long}"))],
        vec![Span::raw(format!("seeds {seeds}{sub_short}"))],
        4,
    ));
    segs.push(Seg::two(long, short, 1));
    let (used, limit) = (ret.stats.token_budget_used, ret.params.token_budget);
    segs.push(Seg::two(
        vec![Span::raw(format!("tokens {used}/{limit}"))],
        vec![Span::raw(format!("tok {used}/{limit}"))],
        7,
    ));
    let (n, e) = (ret.stats.visited_nodes, ret.stats.visited_edges);
    segs.push(Seg::two(
        vec![Span::raw(format!("visited {n} nodes/{e} edges"))],
        vec![Span::raw(format!("vis {n}n/{e}e"))],
        6,
    ));
    if ret.stats.learning_applied {
        segs.push(Seg::two(
            vec![Span::styled("learning applied", st(app, Role::ChipLearn))],
            vec![Span::styled("learned", st(app, Role::ChipLearn))],
            3,
        ));
    }
    push_running(app, &mut segs);
    segs
}

/// The running mark, or the last query's time (shrunk away before the words go).
fn push_running(app: &App, segs: &mut Vec<Seg>) {
    if app.running() {
        segs.push(Seg::fixed(vec![Span::styled(
            "running",
            st(app, Role::Warn),
        )]));
    } else if app.show_timing
        && let Some(res) = &app.result
    {
        segs.push(Seg::two(
            vec![Span::styled(
                format!("{:.1} ms", res.micros as f64 / 1000.0),
                st(app, Role::Muted),
            )],
            Vec::new(),
            2,
        ));
    }
}

/// Status segments of the other screens, in priority order, in their long or short form.
fn screen_segments(app: &App, short: bool) -> Vec<Vec<Span<'static>>> {
    match app.screen {
        Screen::Evidence => super::evidence::status(app, short),
        Screen::Diff if app.gdiff.is_some() || app.gd_load.is_some() => {
            super::gdiff::status(app, short)
        }
        Screen::Diff => super::diff::status(app, short),
        Screen::Lab => super::lab::status(app, short),
        Screen::Follow => super::follow::status(app, short),
        Screen::Explore => Vec::new(),
    }
}

fn seg_w(s: &[Span<'static>]) -> usize {
    s.iter().map(|x| text::width(&x.content)).sum()
}

/// The width of the segments drawn with separators (empty ones are not drawn).
fn total_w(segs: &[Vec<Span<'static>>], sep_w: usize) -> usize {
    let shown = segs.iter().filter(|s| !s.is_empty());
    let n = shown.clone().count();
    shown.map(|s| seg_w(s)).sum::<usize>() + sep_w * n.saturating_sub(1)
}

/// The segments to draw at `width`: Explore's words, shrunk one ladder step at a time
/// until they fit; another screen's long forms, else its short forms.
fn fitted_segments(app: &App, width: usize, sep_w: usize) -> Vec<Vec<Span<'static>>> {
    if app.screen != Screen::Explore {
        let segs = screen_segments(app, false);
        return if total_w(&segs, sep_w) > width {
            screen_segments(app, true)
        } else {
            segs
        };
    }
    let segs = explore_segments(app);
    let mut steps: Vec<u8> = segs
        .iter()
        .filter(|s| s.short.is_some())
        .map(|s| s.shrink)
        .collect();
    steps.sort_unstable();
    steps.dedup();
    let at = |level: Option<u8>| -> Vec<Vec<Span<'static>>> {
        segs.iter()
            .map(|s| match (&s.short, level) {
                (Some(short), Some(l)) if s.shrink <= l => short.clone(),
                _ => s.long.clone(),
            })
            .collect()
    };
    let mut out = at(None);
    for l in steps {
        if total_w(&out, sep_w) <= width {
            break;
        }
        out = at(Some(l));
    }
    out
}

/// The status bar: every segment in words when everything fits, else shrunk step by step
/// (see [`explore_segments`]), then segments are dropped from the lowest priority up.
pub fn draw_status(app: &App, r: Rect, buf: &mut Buffer) {
    let g = glyphs(app);
    let width = r.width as usize;
    let sep_w = text::width(g.sep);
    let segs = fitted_segments(app, width, sep_w);
    let mut chosen: Vec<usize> = Vec::new();
    let mut used = 0usize;
    for (i, s) in segs.iter().enumerate() {
        if s.is_empty() {
            continue;
        }
        let w = seg_w(s);
        let add = if chosen.is_empty() { w } else { w + sep_w };
        if used + add <= width {
            used += add;
            chosen.push(i);
        }
    }
    let mut spans: Vec<Span<'static>> = Vec::new();
    for (k, i) in chosen.iter().enumerate() {
        if k > 0 {
            spans.push(Span::styled(g.sep.to_string(), st(app, Role::Border)));
        }
        spans.extend(segs[*i].iter().cloned());
    }
    put_line(
        buf,
        r,
        &text::truncate_line(Line::from(spans), width, g.ellipsis),
    );
}

/// Footer hints as (key, label) pairs.
type Pairs = Vec<(&'static str, &'static str)>;
/// The same with keys read from a key table (their labels depend on the glyphs).
type OwnedPairs = Vec<(String, &'static str)>;

/// An overlay's own footer hints (it takes the keys), most useful first, and the ones
/// pinned at the right (help or the way out of help, and quitting: `q` would be typed);
/// `None` when no overlay takes the keys.
fn overlay_hints(app: &App) -> Option<(Pairs, Pairs)> {
    use crate::tui::app::Overlay;
    let quit = ("Ctrl-C", "quit");
    match &app.overlay {
        Overlay::Palette(_) => Some((
            vec![
                ("Enter", "run"),
                ("Tab", "complete"),
                ("Up/Down", "pick"),
                ("Esc", "close"),
            ],
            vec![("F1", "help"), quit],
        )),
        Overlay::Help(h) => Some(match &h.find {
            Some(f) if f.typing => (
                vec![("Enter", "keep"), ("Down/Up", "next/prev")],
                vec![("Esc", "close find"), quit],
            ),
            Some(_) => (
                vec![
                    ("n/N", "next/prev"),
                    ("Ctrl-F", "edit find"),
                    ("PgUp/PgDn", "scroll"),
                ],
                vec![("Esc", "close find"), quit],
            ),
            None => (
                vec![
                    ("type", "to filter"),
                    ("Ctrl-F", "find"),
                    ("PgUp/PgDn", "scroll"),
                    ("Ctrl-U", "clear"),
                ],
                vec![("Esc", "close"), quit],
            ),
        }),
        Overlay::Note => Some((vec![("Esc/Enter/i/q", "close")], vec![("F1", "help"), quit])),
        Overlay::Messages => Some((vec![("Esc/Enter/I/q", "close")], vec![("F1", "help"), quit])),
        Overlay::None => None,
    }
}

/// While a pane's find line is typed (it takes every key but F1 and Ctrl-C): the find's
/// keys from [`commands::edit::FIND_KEYS`], and the registry's pinned hints that work
/// while typing (help, quit) at the right.
fn find_hints(app: &App) -> Option<(OwnedPairs, OwnedPairs)> {
    if app.overlay != crate::tui::app::Overlay::None || !app.find.as_ref().is_some_and(|f| f.typing)
    {
        return None;
    }
    let g = glyphs(app);
    let mut right: Vec<_> = commands::hints(app, commands::INPUT, g)
        .into_iter()
        .filter(|h| commands::pinned(h.id))
        .collect();
    right.sort_by_key(|h| h.id != commands::CmdId::Help);
    Some((
        commands::edit::find_hints(g),
        right.into_iter().map(|h| (h.keys, h.label)).collect(),
    ))
}

/// A footer of (key, label) pairs: `keys` from the left as many as fit, `right` pinned.
fn draw_pairs(
    app: &App,
    r: Rect,
    buf: &mut Buffer,
    keys: &[(String, &str)],
    right: &[(String, &str)],
) {
    let width = r.width as usize;
    let pair_w = |(k, l): &(String, &str)| text::width(k) + 1 + text::width(l) + 2;
    let right_w: usize = right.iter().map(pair_w).sum();
    let mut spans: Vec<Span<'static>> = vec![Span::raw(" ")];
    let mut used = 1usize;
    let push = |spans: &mut Vec<Span<'static>>, (k, l): &(String, &str)| {
        spans.push(Span::styled(k.clone(), st(app, Role::Key)));
        spans.push(Span::styled(format!(" {l}  "), st(app, Role::Muted)));
    };
    // the hints that fit beside the pinned ones, in their order (the rest drop)
    for p in keys {
        if used + pair_w(p) + right_w > width {
            break;
        }
        used += pair_w(p);
        push(&mut spans, p);
    }
    if used + right_w <= width {
        spans.push(Span::raw(" ".repeat(width - used - right_w)));
    }
    for p in right {
        push(&mut spans, p);
    }
    put_line(
        buf,
        r,
        &text::truncate_line(Line::from(spans), width, glyphs(app).ellipsis),
    );
}

/// The footer: the focused pane's and mode's hints from the left, as many as fit, and
/// `? help  q quit` always at the right (other hints are dropped first).
pub fn draw_footer(app: &App, r: Rect, buf: &mut Buffer) {
    let g = glyphs(app);
    // an overlay takes the keys: its own hints, and Ctrl-C (q would type a q)
    if let Some((keys, right)) = overlay_hints(app) {
        let owned =
            |v: Pairs| -> OwnedPairs { v.into_iter().map(|(k, l)| (k.to_string(), l)).collect() };
        draw_pairs(app, r, buf, &owned(keys), &owned(right));
        return;
    }
    if let Some((keys, right)) = find_hints(app) {
        draw_pairs(app, r, buf, &keys, &right);
        return;
    }
    let (mut pinned, rest): (Vec<_>, Vec<_>) = commands::hints(app, app.ctx(), g)
        .into_iter()
        .partition(|h| commands::pinned(h.id));
    pinned.sort_by_key(|h| h.id != commands::CmdId::Help);
    let hint_w = |h: &commands::Hint| text::width(&h.keys) + 1 + text::width(h.label) + 2;
    let width = r.width as usize;
    let right_w: usize = pinned.iter().map(hint_w).sum();
    let mut spans: Vec<Span<'static>> = vec![Span::raw(" ")];
    let mut used = 1usize;
    let push = |spans: &mut Vec<Span<'static>>, h: &commands::Hint| {
        spans.push(Span::styled(h.keys.clone(), st(app, Role::Key)));
        spans.push(Span::styled(
            format!(" {}  ", h.label),
            st(app, Role::Muted),
        ));
    };
    for h in &rest {
        let w = hint_w(h);
        if used + w + right_w > width {
            break;
        }
        used += w;
        push(&mut spans, h);
    }
    if used + right_w <= width {
        spans.push(Span::raw(" ".repeat(width - used - right_w)));
    }
    for h in &pinned {
        push(&mut spans, h);
    }
    let line = text::truncate_line(Line::from(spans), width, g.ellipsis);
    put_line(buf, r, &line);
}
