//! The keys of text inputs and overlays, as tables like [`super::REGISTRY`]: line editing
//! (the query line, the palette input and the help filter share it), the palette's list
//! keys and the help overlay's keys. The key handlers look keys up here and the help
//! overlay lists these tables, so a key the explorer reacts to is always in help.

use ratatui::crossterm::event::{KeyCode, KeyModifiers};

use super::{Key, ch, code, ctrl};
use crate::tui::caps::Glyphs;

/// A line-editing action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edit {
    Left,
    Right,
    Home,
    End,
    Backspace,
    Delete,
    KillToStart,
    KillToEnd,
    DeleteWord,
}

/// One row of a key table: the keys, what they do, and the help text.
pub struct KeyRow<A: 'static> {
    pub keys: &'static [Key],
    pub action: A,
    pub label: &'static str,
}

/// Line editing, in every text input (typing inserts; a selected text is replaced).
pub const EDIT_KEYS: &[KeyRow<Edit>] = &[
    KeyRow {
        keys: &[code(KeyCode::Left)],
        action: Edit::Left,
        label: "Cursor left",
    },
    KeyRow {
        keys: &[code(KeyCode::Right)],
        action: Edit::Right,
        label: "Cursor right",
    },
    KeyRow {
        keys: &[code(KeyCode::Home), ctrl('a')],
        action: Edit::Home,
        label: "Cursor to the start",
    },
    KeyRow {
        keys: &[code(KeyCode::End), ctrl('e')],
        action: Edit::End,
        label: "Cursor to the end (keeps a fresh query's text to go on editing)",
    },
    KeyRow {
        keys: &[code(KeyCode::Backspace)],
        action: Edit::Backspace,
        label: "Delete the character before the cursor",
    },
    KeyRow {
        keys: &[code(KeyCode::Delete)],
        action: Edit::Delete,
        label: "Delete the character under the cursor",
    },
    KeyRow {
        keys: &[ctrl('u')],
        action: Edit::KillToStart,
        label: "Delete from the cursor to the start of the line (all of it from the end or on a fresh query; outside typing Ctrl-U pages up)",
    },
    KeyRow {
        keys: &[ctrl('k')],
        action: Edit::KillToEnd,
        label: "Delete to the end of the line",
    },
    KeyRow {
        keys: &[ctrl('w')],
        action: Edit::DeleteWord,
        label: "Delete the word before the cursor",
    },
];

/// Keys of the `:` palette besides line editing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaletteKey {
    Down,
    Up,
    Complete,
    Accept,
    Close,
}

pub const PALETTE_KEYS: &[KeyRow<PaletteKey>] = &[
    KeyRow {
        keys: &[code(KeyCode::Down)],
        action: PaletteKey::Down,
        label: "Highlight the next entry (nothing is highlighted until you move)",
    },
    KeyRow {
        keys: &[code(KeyCode::Up)],
        action: PaletteKey::Up,
        label: "Highlight the previous entry (above the first: none)",
    },
    KeyRow {
        keys: &[code(KeyCode::Tab)],
        action: PaletteKey::Complete,
        label: "Complete the highlighted (or first) entry into the input",
    },
    KeyRow {
        keys: &[code(KeyCode::Enter)],
        action: PaletteKey::Accept,
        label: "Run the highlighted entry, else the typed command (exact name or unique prefix); empty closes",
    },
    KeyRow {
        keys: &[code(KeyCode::Esc)],
        action: PaletteKey::Close,
        label: "Close without running anything",
    },
];

/// Keys of the `?` help overlay besides editing its filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HelpKey {
    Down,
    Up,
    PageDown,
    PageUp,
    Top,
    /// Esc: closes a kept find, else clears the filter, or closes when it is empty.
    ClearOrClose,
    Close,
    /// Ctrl-F: find text in the overlay (again: edit the pattern).
    Find,
    /// n / N: the next or previous match of a kept find (otherwise typed into the filter).
    FindNext,
    FindPrev,
}

pub const HELP_KEYS: &[KeyRow<HelpKey>] = &[
    KeyRow {
        keys: &[code(KeyCode::Down)],
        action: HelpKey::Down,
        label: "Scroll down",
    },
    KeyRow {
        keys: &[code(KeyCode::Up)],
        action: HelpKey::Up,
        label: "Scroll up",
    },
    KeyRow {
        keys: &[code(KeyCode::PageDown)],
        action: HelpKey::PageDown,
        label: "Scroll a page down",
    },
    KeyRow {
        keys: &[code(KeyCode::PageUp)],
        action: HelpKey::PageUp,
        label: "Scroll a page up",
    },
    KeyRow {
        keys: &[ctrl('g')],
        action: HelpKey::Top,
        label: "Back to the top",
    },
    KeyRow {
        keys: &[ctrl('f')],
        action: HelpKey::Find,
        label: "Find text in the help (Enter keeps it, n/N step, Esc closes the find)",
    },
    KeyRow {
        keys: &[ch('n')],
        action: HelpKey::FindNext,
        label: "Next match of a kept find (without a find, n is typed into the filter)",
    },
    KeyRow {
        keys: &[ch('N')],
        action: HelpKey::FindPrev,
        label: "Previous match of a kept find (without a find, N is typed)",
    },
    KeyRow {
        keys: &[code(KeyCode::Esc)],
        action: HelpKey::ClearOrClose,
        label: "Close the find; else clear the filter; with neither, close",
    },
    KeyRow {
        keys: &[code(KeyCode::F(1)), code(KeyCode::Enter), ch('?')],
        action: HelpKey::Close,
        label: "Close (? only while the filter is empty: otherwise it is typed)",
    },
];

/// Keys of the find line (`Ctrl-F`) besides line editing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FindKey {
    /// Enter: keep the pattern and go back to the pane (n/N step).
    Done,
    /// Esc: close the find.
    Close,
    Next,
    Prev,
}

pub const FIND_KEYS: &[KeyRow<FindKey>] = &[
    KeyRow {
        keys: &[code(KeyCode::Enter)],
        action: FindKey::Done,
        label: "Keep the pattern and return to the pane (n/N step through matches)",
    },
    KeyRow {
        keys: &[code(KeyCode::Esc)],
        action: FindKey::Close,
        label: "Close the find (highlights go)",
    },
    KeyRow {
        keys: &[code(KeyCode::Down), ctrl('n')],
        action: FindKey::Next,
        label: "Next match while typing",
    },
    KeyRow {
        keys: &[code(KeyCode::Up), ctrl('p')],
        action: FindKey::Prev,
        label: "Previous match while typing",
    },
];

impl FindKey {
    /// The footer's word for the action; `Prev` shares `Next`'s hint (`↓/↑ next/prev`).
    fn hint(self) -> Option<&'static str> {
        match self {
            FindKey::Done => Some("keep"),
            FindKey::Next => Some("next/prev"),
            FindKey::Prev => None,
            FindKey::Close => Some("close"),
        }
    }
}

/// The footer hints while a find line is typed, read from [`FIND_KEYS`] (each row's first
/// key; next and previous as one pair), in the order Enter, next/prev, Esc.
pub fn find_hints(g: &Glyphs) -> Vec<(String, &'static str)> {
    let first = |a: FindKey| {
        FIND_KEYS
            .iter()
            .find(|r| r.action == a)
            .and_then(|r| r.keys.first())
            .map(|k| k.label(g))
    };
    let mut out = Vec::new();
    for a in [FindKey::Done, FindKey::Next, FindKey::Close] {
        let (Some(keys), Some(hint)) = (first(a), a.hint()) else {
            continue;
        };
        let keys = match (a, first(FindKey::Prev)) {
            (FindKey::Next, Some(p)) => format!("{keys}/{p}"),
            _ => keys,
        };
        out.push((keys, hint));
    }
    out
}

/// Keys of the narration overlay (`i`): it only closes.
pub const NOTE_KEYS: &[KeyRow<()>] = &[KeyRow {
    keys: &[code(KeyCode::Esc), code(KeyCode::Enter), ch('i'), ch('q')],
    action: (),
    label: "Close the narration",
}];

/// The message log overlay (`I`): it takes every key but F1 and Ctrl-C.
pub const MESSAGES_KEYS: &[KeyRow<()>] = &[KeyRow {
    keys: &[code(KeyCode::Esc), code(KeyCode::Enter), ch('I'), ch('q')],
    action: (),
    label: "Close the messages",
}];

/// The action of `key` in a table.
pub fn lookup<A: Copy>(table: &[KeyRow<A>], key: Key) -> Option<A> {
    table
        .iter()
        .find(|r| r.keys.contains(&key))
        .map(|r| r.action)
}

/// The key labels of `action` in a table, in the table's order.
pub fn keys_of<A: Copy + PartialEq>(table: &[KeyRow<A>], action: A, g: &Glyphs) -> Vec<String> {
    table
        .iter()
        .filter(|r| r.action == action)
        .flat_map(|r| r.keys.iter().map(|k| k.label(g)))
        .collect()
}

/// A character that a text input inserts (no Ctrl/Alt, not a control character).
pub fn typed_char(key: Key) -> Option<char> {
    match key.code {
        KeyCode::Char(c)
            if !key
                .mods
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
                && !c.is_control() =>
        {
            Some(c)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys<A>(t: &[KeyRow<A>]) -> Vec<Key> {
        t.iter().flat_map(|r| r.keys.iter().copied()).collect()
    }

    fn no_repeats(ks: &[Key]) {
        for (i, a) in ks.iter().enumerate() {
            assert!(!ks[i + 1..].contains(a), "{a:?} bound twice");
        }
    }

    /// Line editing and an overlay's own keys never share a key (help's `?` closes only
    /// while the filter is empty, and typed characters are not editing keys).
    #[test]
    fn input_keys_do_not_conflict() {
        let edit = keys(EDIT_KEYS);
        let mut pal = edit.clone();
        pal.extend(keys(PALETTE_KEYS));
        no_repeats(&pal);
        let mut find = edit.clone();
        find.extend(keys(FIND_KEYS));
        no_repeats(&find);
        let mut help = edit;
        help.extend(
            keys(HELP_KEYS)
                .into_iter()
                .filter(|k| typed_char(*k).is_none()),
        );
        no_repeats(&help);
        for k in keys(EDIT_KEYS) {
            assert!(typed_char(k).is_none(), "{k:?} would also type");
        }
    }
}
