//! The `:` command palette: the input, a line saying what Enter will run (or why the last
//! Enter ran nothing), and suggestions — fuzzy over the registry's commands, or after a
//! command name and a space that command's values (tool names for `:llm`/`:history`,
//! policies, themes, demo steps). Nothing is highlighted until an arrow key moves; Enter
//! runs only an exact name or unique prefix, Tab completes, Esc closes.

use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};

use super::super::app::{App, PaletteItem, PaletteState, enter_preview, palette_items_for};
use super::super::commands::{self, Arg};
use super::super::text;
use super::super::theme::Role;
use super::{block, clean, glyphs, label_and_tail, put_line, st};

pub fn draw(app: &App, p: &PaletteState, area: Rect, buf: &mut Buffer) -> Option<Position> {
    let g = glyphs(app);
    let w = area.width.saturating_sub(4).min(90);
    let h = area.height.saturating_sub(2).min(16);
    let r = Rect::new(area.x + (area.width - w) / 2, area.y + 1, w, h);
    Clear.render(r, buf);
    let b = block(app, true, false).title(Line::styled(
        " : command (Enter runs, Tab completes, Esc closes) ",
        st(app, Role::Title),
    ));
    let inner = b.inner(r);
    b.render(r, buf);
    if inner.height == 0 || inner.width < 4 {
        return None;
    }
    let iw = inner.width as usize;
    // long input scrolls so the cursor stays in view, as the query line does
    let before: String = p.input.text.chars().take(p.input.cursor).collect();
    let after: String = p.input.text.chars().skip(p.input.cursor).collect();
    let (shown, at) = text::input_view(&clean(&before), &clean(&after), iw.saturating_sub(3));
    put_line(
        buf,
        Rect::new(inner.x, inner.y, inner.width, 1),
        &Line::from(vec![
            Span::styled(": ", st(app, Role::Prompt)),
            Span::raw(shown),
        ]),
    );
    let cx = inner.x + 2 + at.min(iw.saturating_sub(3)) as u16;
    let items = palette_items_for(app, &p.input.text);
    // the answer to the last Enter, else what Enter would do now
    let (note, role) = match &p.error {
        Some(e) => (e.clone(), Role::Warn),
        None => (enter_preview(app, p, &items), Role::Muted),
    };
    if inner.height > 1 {
        put_line(
            buf,
            Rect::new(inner.x, inner.y + 1, inner.width, 1),
            &text::truncate_line(Line::styled(note, st(app, role)), iw, g.ellipsis),
        );
    }
    let top = inner.y + 2;
    let list_h = inner.height.saturating_sub(2) as usize;
    let sel = p.selected.map(|s| s.min(items.len().saturating_sub(1)));
    let offset = match sel {
        Some(s) if s >= list_h => s + 1 - list_h,
        _ => 0,
    };
    for (i, it) in items.iter().enumerate().skip(offset).take(list_h) {
        let y = top + (i - offset) as u16;
        let line = match it {
            PaletteItem::Command(id) => {
                let c = commands::get(*id);
                // each key with where it works (`q  Esc [while loading]`), as the help
                // says it, so no key reads as doing something it does not do here
                let keys = commands::key_groups(&app.keys, c, g)
                    .into_iter()
                    .map(|(k, wh)| {
                        if wh.is_empty() {
                            k
                        } else {
                            format!("{k} [{wh}]")
                        }
                    })
                    .collect::<Vec<_>>()
                    .join("  ");
                let name = match c.arg {
                    Arg::None => c.name.to_string(),
                    Arg::Optional(a) => format!("{} [{a}]", c.name),
                };
                let disabled = (c.enabled)(app);
                let lst = if disabled.is_some() {
                    st(app, Role::Disabled)
                } else {
                    Style::default()
                };
                // the keys stay when the label is cut, then why it is disabled
                let keys = if keys.is_empty() {
                    keys
                } else {
                    format!("  {keys}")
                };
                let mut tail = vec![Span::styled(keys, st(app, Role::Muted))];
                if let Some(why) = disabled {
                    tail.push(Span::styled(format!("  ({why})"), st(app, Role::Warn)));
                }
                let mut sp = vec![Span::styled(
                    text::fit(&name, 18, g.ellipsis),
                    st(app, Role::Key),
                )];
                sp.extend(label_and_tail(
                    c.label,
                    lst,
                    tail,
                    iw.saturating_sub(18),
                    g.ellipsis,
                ));
                Line::from(sp)
            }
            PaletteItem::Value { cmd, value } => {
                let c = commands::get(*cmd);
                let mut sp = vec![
                    Span::styled(format!("{} ", c.name), st(app, Role::Muted)),
                    Span::raw(clean(value)),
                ];
                if *cmd == commands::CmdId::DemoNext
                    && let Some(step) = value
                        .parse::<usize>()
                        .ok()
                        .and_then(|n| app.demo.steps.get(n.wrapping_sub(1)))
                {
                    sp.push(Span::styled(
                        format!("  {}", clean(&step.query)),
                        st(app, Role::Muted),
                    ));
                }
                Line::from(sp)
            }
        };
        let mut line = text::truncate_line(line, iw, g.ellipsis);
        let rr = Rect::new(inner.x, y, inner.width, 1);
        if Some(i) == sel {
            let s = st(app, Role::Selection);
            buf.set_style(rr, s);
            for sp in line.spans.iter_mut() {
                sp.style = sp.style.patch(s);
            }
        }
        put_line(buf, rr, &line);
    }
    if items.is_empty() && list_h > 0 && p.input.text.split_once(' ').is_none() {
        put_line(
            buf,
            Rect::new(inner.x, top, inner.width, 1),
            &Line::styled("no match", st(app, Role::Muted)),
        );
    }
    (cx < inner.x + inner.width).then(|| Position::new(cx, inner.y))
}
