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

fn flash_line(app: &App) -> Option<Line<'static>> {
    let f = app.flash.as_ref()?;
    let role = match f.level {
        FlashLevel::Info => Role::Good,
        FlashLevel::Warn => Role::Warn,
        FlashLevel::Error => Role::Bad,
    };
    Some(Line::from(vec![Span::styled(
        format!(" {}", clean(&f.text)),
        st(app, role),
    )]))
}

pub fn draw_flash(app: &App, r: Rect, buf: &mut Buffer) {
    if let Some(l) = flash_line(app) {
        let l = text::truncate_line(l, r.width as usize, glyphs(app).ellipsis);
        put_line(buf, r, &l);
    }
}

/// Row under the query: a message, the demo step's presenter note, or a tip.
/// `found`: the find's matches as counted by this frame (else the last frame's).
pub fn draw_info(app: &App, r: Rect, buf: &mut Buffer, found: Option<usize>) {
    let g = glyphs(app);
    let line = if let Some(l) = flash_line(app) {
        l
    } else if app.screen != Screen::Explore {
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
            " typing replaces a selected query; End or Ctrl-E keeps it; Ctrl-U clears; Enter: done",
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
    let line = if line_w > width
        && app.flash.is_none()
        && app.screen == Screen::Explore
        && app.demo_on_screen().is_some()
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

/// Status segments in priority order, in their long or short form.
fn status_segments(app: &App, short: bool) -> Vec<Vec<Span<'static>>> {
    match app.screen {
        Screen::Explore => {}
        Screen::Evidence => return super::evidence::status(app, short),
        Screen::Diff => return super::diff::status(app, short),
        Screen::Lab => return super::lab::status(app, short),
        Screen::Follow => return super::follow::status(app, short),
    }
    let mut segs: Vec<Vec<Span<'static>>> = Vec::new();
    let Some(engine) = &app.engine else {
        return segs;
    };
    let graph = &engine.graph;
    let mut head = vec![Span::styled(
        format!(" {}", clean(&app.source_label)),
        st(app, Role::Title),
    )];
    if !short {
        head.push(Span::raw(format!(
            " {} tools {} edges",
            graph.tool_count(),
            graph.edge_count()
        )));
    }
    segs.push(head);
    let p = &app.params;
    let mut params = vec![Span::raw(format!("k{} d{}", p.top_k, p.depth))];
    if !p.history.is_empty() {
        params.push(Span::styled(
            format!(" hist {}", p.history.len()),
            st(app, Role::Warn),
        ));
    }
    if app.learning_count > 0 {
        params.push(Span::raw(format!(
            " learn {}",
            if p.learning_enabled { "on" } else { "off" }
        )));
    }
    if let Some(ret) = app.retrieval() {
        let i = &ret.intent;
        let shares = if short {
            format!(
                " r{} w{} d{}",
                short_num(i.read),
                short_num(i.write),
                short_num(i.delete)
            )
        } else {
            format!(" r{:.2} w{:.2} d{:.2}", i.read, i.write, i.delete)
        };
        segs.push(vec![
            Span::raw(if short { "" } else { "intent " }),
            Span::styled(ret.intent_label.as_str().to_string(), st(app, Role::Key)),
            Span::raw(shares),
        ]);
        segs.push(vec![Span::raw(format!(
            "seeds {}{}",
            ret.stats.seeds.len(),
            match (ret.used_fallback, short) {
                (true, false) => " (substring)",
                (true, true) => "~",
                _ => "",
            }
        ))]);
        segs.push(params);
        segs.push(vec![Span::raw(format!(
            "{} {}/{}",
            if short { "tok" } else { "budget" },
            ret.stats.token_budget_used,
            ret.params.token_budget
        ))]);
        segs.push(vec![Span::raw(format!(
            "{} {}n/{}e",
            if short { "vis" } else { "visited" },
            ret.stats.visited_nodes,
            ret.stats.visited_edges
        ))]);
        if ret.stats.learning_applied {
            segs.push(vec![Span::styled(
                if short { "learned" } else { "learning applied" },
                st(app, Role::ChipLearn),
            )]);
        }
    } else {
        params.push(Span::raw(format!(" b{}", p.token_budget)));
        segs.push(params);
    }
    if app.running() {
        segs.push(vec![Span::styled("running", st(app, Role::Warn))]);
    } else if app.show_timing
        && let Some(res) = &app.result
    {
        segs.push(vec![Span::styled(
            format!("{:.1} ms", res.micros as f64 / 1000.0),
            st(app, Role::Muted),
        )]);
    }
    segs
}

/// The status bar: long forms when everything fits, else short forms, then segments are
/// dropped from the lowest priority up.
pub fn draw_status(app: &App, r: Rect, buf: &mut Buffer) {
    let g = glyphs(app);
    let width = r.width as usize;
    let sep_w = text::width(g.sep);
    let seg_w =
        |s: &Vec<Span<'static>>| -> usize { s.iter().map(|x| text::width(&x.content)).sum() };
    let total = |segs: &Vec<Vec<Span<'static>>>| -> usize {
        segs.iter().map(seg_w).sum::<usize>() + sep_w * segs.len().saturating_sub(1)
    };
    let mut segs = status_segments(app, false);
    if total(&segs) > width {
        segs = status_segments(app, true);
    }
    let mut chosen: Vec<usize> = Vec::new();
    let mut used = 0usize;
    for (i, s) in segs.iter().enumerate() {
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

/// The footer: the focused pane's and mode's hints from the left, as many as fit, and
/// `? help  q quit` always at the right (other hints are dropped first).
pub fn draw_footer(app: &App, r: Rect, buf: &mut Buffer) {
    let g = glyphs(app);
    // an overlay takes the keys: its own hints, and Ctrl-C (q would type a q)
    let overlay: Option<&[(&str, &str)]> = match &app.overlay {
        crate::tui::app::Overlay::Palette(_) => Some(&[
            ("Enter", "run"),
            ("Tab", "complete"),
            ("Up/Down", "pick"),
            ("Esc", "close"),
        ]),
        crate::tui::app::Overlay::Help(_) => Some(&[
            ("type", "to filter"),
            ("PgUp/PgDn", "scroll"),
            ("Ctrl-U", "clear"),
            ("Esc", "close"),
        ]),
        _ => None,
    };
    if let Some(keys) = overlay {
        let mut spans: Vec<Span<'static>> = vec![Span::raw(" ")];
        for (k, l) in keys {
            spans.push(Span::styled(k.to_string(), st(app, Role::Key)));
            spans.push(Span::styled(format!(" {l}  "), st(app, Role::Muted)));
        }
        let right = "Ctrl-C quit ";
        let used: usize = spans.iter().map(|s| text::width(&s.content)).sum();
        let width = r.width as usize;
        if used + text::width(right) <= width {
            spans.push(Span::raw(" ".repeat(width - used - text::width(right))));
            spans.push(Span::styled("Ctrl-C".to_string(), st(app, Role::Key)));
            spans.push(Span::styled(" quit ".to_string(), st(app, Role::Muted)));
        }
        put_line(
            buf,
            r,
            &text::truncate_line(Line::from(spans), width, g.ellipsis),
        );
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
