//! The help overlay's keys ([`edit::HELP_KEYS`]): scrolling, the filter (typing edits it
//! at once) and a find in the overlay's text, as in the drill-down panes: Ctrl-F opens the
//! find line ([`edit::FIND_KEYS`] while typing it), Enter keeps it, n/N step through the
//! matches, Esc closes the find before it clears the filter or closes the overlay.

use crate::tui::commands::Key;
use crate::tui::commands::edit::{self, FindKey, HelpKey};

use super::{App, Effect, FlashLevel, HelpFind, HelpState, Overlay};

impl App {
    pub(super) fn help_key(&mut self, key: Key) -> Vec<Effect> {
        let page = self.layout.help_height.max(2) - 1;
        let Overlay::Help(h) = &mut self.overlay else {
            return Vec::new();
        };
        if h.find.as_ref().is_some_and(|f| f.typing) {
            help_find_typing(h, key);
            return Vec::new();
        }
        let typed = edit::typed_char(key);
        let finding = h.find.is_some();
        // `?` closes only while there is no filter and n/N step only a kept find:
        // otherwise they are typed into the filter
        let act = edit::lookup(edit::HELP_KEYS, key).filter(|a| match a {
            HelpKey::FindNext | HelpKey::FindPrev => finding,
            _ => typed.is_none() || h.filter.is_empty(),
        });
        let Some(a) = act else {
            let changed = match (typed, edit::lookup(edit::EDIT_KEYS, key)) {
                (Some(c), _) => h.filter.type_char(c),
                (None, Some(e)) => h.filter.apply(e),
                (None, None) => false,
            };
            if changed {
                h.scroll = 0;
                if let Some(f) = h.find.as_mut() {
                    // other rows, other matches: start again at the first
                    f.current = 0;
                    f.jump = true;
                }
            }
            return Vec::new();
        };
        match a {
            HelpKey::ClearOrClose if h.find.is_some() => h.find = None,
            HelpKey::ClearOrClose if !h.filter.is_empty() => {
                h.filter.set("");
                h.scroll = 0;
            }
            HelpKey::ClearOrClose | HelpKey::Close => self.overlay = Overlay::None,
            HelpKey::Down => h.scroll = h.scroll.saturating_add(1),
            HelpKey::Up => h.scroll = h.scroll.saturating_sub(1),
            HelpKey::PageDown => h.scroll = h.scroll.saturating_add(page),
            HelpKey::PageUp => h.scroll = h.scroll.saturating_sub(page),
            HelpKey::Top => h.scroll = 0,
            HelpKey::Find => {
                let f = h.find.get_or_insert_with(HelpFind::default);
                f.typing = true;
                f.input.select_all();
                f.jump = true;
            }
            HelpKey::FindNext | HelpKey::FindPrev => {
                let d = if a == HelpKey::FindNext { 1 } else { -1 };
                if let Some(msg) = help_find_step(h, d) {
                    self.set_flash(FlashLevel::Warn, msg);
                }
            }
        }
        Vec::new()
    }
}

/// A key while the help's find line is typed: [`edit::FIND_KEYS`], line editing, text.
fn help_find_typing(h: &mut HelpState, key: Key) {
    match edit::lookup(edit::FIND_KEYS, key) {
        Some(FindKey::Close) => h.find = None,
        Some(FindKey::Done) => {
            if let Some(f) = h.find.as_mut() {
                f.typing = false;
                if f.input.is_empty() {
                    h.find = None;
                }
            }
        }
        Some(FindKey::Next) => {
            help_find_step(h, 1);
        }
        Some(FindKey::Prev) => {
            help_find_step(h, -1);
        }
        None => {
            let Some(f) = h.find.as_mut() else { return };
            let changed = match (edit::typed_char(key), edit::lookup(edit::EDIT_KEYS, key)) {
                (Some(c), _) => f.input.type_char(c),
                (None, Some(e)) => f.input.apply(e),
                (None, None) => false,
            };
            if changed {
                // a new pattern starts at its first match
                f.current = 0;
                f.jump = true;
            }
        }
    }
}

/// Steps the help's find to the next (`+1`) or previous match, wrapping around; the
/// message to show when there is nothing to step to.
fn help_find_step(h: &mut HelpState, d: isize) -> Option<String> {
    let f = h.find.as_mut()?;
    if f.matches == 0 {
        return Some(format!(
            "no match for {} in the help",
            crate::sanitize::quoted(&f.input.text)
        ));
    }
    let n = f.matches as isize;
    f.current = (f.current as isize + d).rem_euclid(n) as usize;
    f.jump = true;
    None
}
