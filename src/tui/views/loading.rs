//! The loading screen: a progress bar for large artifacts while the UI stays responsive
//! (its box is also the Diff screen's while `:diff` loads two graphs).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};

use super::super::app::{App, LoadProgress};
use super::super::text;
use super::super::theme::Role;
use super::{block, centered, clean, glyphs, put_line, st};

pub fn draw(app: &App, area: Rect, buf: &mut Buffer) {
    let p = app.load.clone().unwrap_or(LoadProgress {
        phase: String::new(),
        fraction: 0.0,
        detail: String::new(),
    });
    gauge_box(
        app,
        centered(area, 64, 7),
        buf,
        &format!("loading {}", clean(&app.source_label)),
        &p,
        &loading_keys(app),
    );
}

/// A box titled `title` with the load's phase, a gauge, its detail and a line of keys
/// (the loading screen's, and the Diff screen's while `:diff` loads its graphs).
pub fn gauge_box(app: &App, r: Rect, buf: &mut Buffer, title: &str, p: &LoadProgress, keys: &str) {
    let g = glyphs(app);
    Clear.render(r, buf);
    let room = (r.width as usize).saturating_sub(4);
    let b = block(app, true, false).title(Line::styled(
        format!(" {} ", text::truncate(title, room, g.ellipsis)),
        st(app, Role::Title),
    ));
    let inner = b.inner(r);
    b.render(r, buf);
    if inner.height == 0 || inner.width < 4 {
        return;
    }
    let w = inner.width as usize;
    let pct = format!(" {:>3.0}%", (p.fraction.clamp(0.0, 1.0) * 100.0).floor());
    let bar_w = w.saturating_sub(text::width(&pct) + 1);
    let filled = ((p.fraction.clamp(0.0, 1.0)) * bar_w as f64).round() as usize;
    let bar = Line::from(vec![
        Span::styled(g.gauge_full.repeat(filled), st(app, Role::Title)),
        Span::styled(
            g.gauge_empty.repeat(bar_w.saturating_sub(filled)),
            st(app, Role::Muted),
        ),
        Span::raw(pct),
    ]);
    let rows = [
        Line::raw(text::truncate(&clean(&p.phase), w, g.ellipsis)),
        bar,
        Line::styled(
            text::truncate(&clean(&p.detail), w, g.ellipsis),
            st(app, Role::Muted),
        ),
        Line::styled(text::truncate(keys, w, g.ellipsis), st(app, Role::Muted)),
    ];
    for (i, l) in rows.iter().enumerate() {
        if i as u16 >= inner.height {
            break;
        }
        put_line(
            buf,
            Rect::new(inner.x, inner.y + i as u16, inner.width, 1),
            l,
        );
    }
}

/// "q quits   ? help" from the keymap (the configuration file can rebind both).
fn loading_keys(app: &App) -> String {
    use super::super::commands::{self, CmdId, LOADING};
    let g = glyphs(app);
    let first = |id| {
        commands::keys_in(&app.keys, commands::get(id), LOADING, g)
            .into_iter()
            .next()
    };
    let quit = first(CmdId::Quit).unwrap_or_else(|| "Ctrl-C".to_string());
    match first(CmdId::Help) {
        Some(h) => format!("{quit} quits   {h} help"),
        None => format!("{quit} quits"),
    }
}
