//! The info line (messages, demo notes), the status bar (graph, intent, seeds, visited,
//! budget, parameters) and the footer hints read from the command registry.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::super::app::{App, FlashLevel};
use super::super::commands;
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
pub fn draw_info(app: &App, r: Rect, buf: &mut Buffer) {
    let g = glyphs(app);
    let line = if let Some(l) = flash_line(app) {
        l
    } else if let Some(step) = app.demo.pos.and_then(|p| app.demo.steps.get(p)) {
        let mut spans = vec![Span::styled(
            format!(" {} ", clean(&step.section)),
            st(app, Role::Note),
        )];
        if !step.note.is_empty() {
            spans.push(Span::styled(
                format!("{} {}", g.sep.trim(), clean(&step.note)),
                st(app, Role::Muted),
            ));
        }
        Line::from(spans)
    } else if app.rows_len() > 0 {
        Line::styled(
            " Enter: evidence  Tab: panes  l: LLM target  h: history  +/-: top_k  ?: all keys",
            st(app, Role::Muted),
        )
    } else {
        Line::default()
    };
    put_line(
        buf,
        r,
        &text::truncate_line(line, r.width as usize, g.ellipsis),
    );
}

pub fn draw_status(app: &App, r: Rect, buf: &mut Buffer) {
    let g = glyphs(app);
    let Some(engine) = &app.engine else {
        return;
    };
    let sep = || Span::styled(g.sep.to_string(), st(app, Role::Border));
    let graph = &engine.graph;
    // segments in priority order; lower ones are dropped first when space is short
    let mut segs: Vec<Vec<Span<'static>>> = Vec::new();
    segs.push(vec![
        Span::styled(
            format!(" {}", clean(&app.source_label)),
            st(app, Role::Title),
        ),
        Span::raw(format!(
            " {} tools {} edges",
            graph.tool_count(),
            graph.edge_count()
        )),
    ]);
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
        segs.push(vec![
            Span::raw("intent "),
            Span::styled(ret.intent_label.as_str().to_string(), st(app, Role::Key)),
            Span::raw(format!(" r{:.2} w{:.2} d{:.2}", i.read, i.write, i.delete)),
        ]);
        segs.push(vec![Span::raw(format!(
            "seeds {}{}",
            ret.stats.seeds.len(),
            if ret.used_fallback {
                " (substring)"
            } else {
                ""
            }
        ))]);
        segs.push(params);
        segs.push(vec![Span::raw(format!(
            "budget {}/{}",
            ret.stats.token_budget_used, ret.params.token_budget
        ))]);
        segs.push(vec![Span::raw(format!(
            "visited {}n/{}e",
            ret.stats.visited_nodes, ret.stats.visited_edges
        ))]);
        if ret.stats.learning_applied {
            segs.push(vec![Span::styled(
                "learning applied",
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
    let width = r.width as usize;
    let sep_w = text::width(g.sep);
    let mut chosen: Vec<usize> = Vec::new();
    let mut used = 0usize;
    for (i, s) in segs.iter().enumerate() {
        let w: usize = s.iter().map(|x| text::width(&x.content)).sum();
        let add = if chosen.is_empty() { w } else { w + sep_w };
        if used + add <= width {
            used += add;
            chosen.push(i);
        }
    }
    let mut spans: Vec<Span<'static>> = Vec::new();
    for (k, i) in chosen.iter().enumerate() {
        if k > 0 {
            spans.push(sep());
        }
        spans.extend(segs[*i].iter().cloned());
    }
    put_line(
        buf,
        r,
        &text::truncate_line(Line::from(spans), width, g.ellipsis),
    );
}

pub fn draw_footer(app: &App, r: Rect, buf: &mut Buffer) {
    let g = glyphs(app);
    let hints = commands::hints(app, app.ctx(), g);
    let mut spans: Vec<Span<'static>> = vec![Span::raw(" ")];
    let mut used = 1usize;
    let width = r.width as usize;
    for (keys, label, enabled) in hints {
        let w = text::width(&keys) + 1 + text::width(label) + 2;
        if used + w > width {
            break;
        }
        used += w;
        let (ks, ls) = if enabled {
            (st(app, Role::Key), st(app, Role::Muted))
        } else {
            (st(app, Role::Disabled), st(app, Role::Disabled))
        };
        spans.push(Span::styled(keys, ks));
        spans.push(Span::styled(format!(" {label}  "), ls));
    }
    put_line(buf, r, &Line::from(spans));
}
