//! The loading screen: a progress bar for large artifacts while the UI stays responsive,
//! in a box sized to its text (a long note wraps, never cut) with the keys at the bottom
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
    let title = format!("loading {}", clean(&app.source_label));
    gauge_box(app, area, buf, &title, &p, &loading_keys(app));
}

/// A box titled `title` with the load's phase, a gauge, its detail and a line of keys
/// (the loading screen's, and the Diff screen's while `:diff` loads its graphs), centred
/// in `area`: as wide as its longest line needs (at least 64 cells, at most 100 or the
/// screen), as tall as the wrapped text; the keys line is never cut.
pub fn gauge_box(
    app: &App,
    area: Rect,
    buf: &mut Buffer,
    title: &str,
    p: &LoadProgress,
    keys: &str,
) {
    let g = glyphs(app);
    let title = format!(" {title} ");
    let (phase, detail, keys) = (clean(&p.phase), clean(&p.detail), keys.to_string());
    let need = [&title, &phase, &detail, &keys]
        .iter()
        .map(|t| text::width(t))
        .max()
        .unwrap_or(0)
        + 2;
    let w = (need.clamp(64, 100) as u16).min(area.width);
    let iw = w.saturating_sub(2) as usize;
    let wrap = |t: &str, role: Option<Role>| -> Vec<Line<'static>> {
        let l = match role {
            Some(r) => Line::styled(t.to_string(), st(app, r)),
            None => Line::raw(t.to_string()),
        };
        if t.is_empty() {
            Vec::new()
        } else {
            text::wrap_line(&l, iw.max(1), 2)
        }
    };
    let pct = format!(" {:>3.0}%", (p.fraction.clamp(0.0, 1.0) * 100.0).floor());
    let bar_w = iw.saturating_sub(text::width(&pct) + 1);
    let filled = ((p.fraction.clamp(0.0, 1.0)) * bar_w as f64).round() as usize;
    let bar = Line::from(vec![
        Span::styled(g.gauge_full.repeat(filled), st(app, Role::Title)),
        Span::styled(
            g.gauge_empty.repeat(bar_w.saturating_sub(filled)),
            st(app, Role::Muted),
        ),
        Span::raw(pct),
    ]);
    let mut rows = wrap(&phase, None);
    rows.push(bar);
    rows.extend(wrap(&detail, Some(Role::Muted)));
    let keys = wrap(&keys, Some(Role::Muted));
    let h = (rows.len() + keys.len() + 2) as u16;
    let r = centered(area, w, h);
    Clear.render(r, buf);
    let b = block(app, true, false).title(Line::styled(
        text::truncate(&title, iw, g.ellipsis),
        st(app, Role::Title),
    ));
    let inner = b.inner(r);
    b.render(r, buf);
    if inner.height == 0 || inner.width < 4 {
        return;
    }
    // the keys keep the bottom rows; the text above gives way on a short screen
    let room = (inner.height as usize).saturating_sub(keys.len());
    rows.truncate(room);
    let key_top = inner.height as usize - keys.len().min(inner.height as usize);
    let placed = rows
        .iter()
        .enumerate()
        .chain(keys.iter().enumerate().map(|(i, l)| (key_top + i, l)));
    for (i, l) in placed {
        if i as u16 >= inner.height {
            continue;
        }
        put_line(
            buf,
            Rect::new(inner.x, inner.y + i as u16, inner.width, 1),
            &text::truncate_line(l.clone(), iw, g.ellipsis),
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
