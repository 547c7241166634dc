//! The runtime keymap layer over the static [`super::REGISTRY`]: the configuration file's
//! `[keys]` overrides, resolved once at start. An overridden command's keys replace its
//! built-in ones (in the contexts its built-in keys had); every other command keeps its
//! registry bindings. [`super::lookup`], the footer hints, the help overlay and the
//! palette all read bindings through [`Keymap::bindings`], so help shows the user's keys.
//!
//! A key that already runs another command in an overlapping context, a character where
//! only typing happens (the query line) or a line-editing key there is refused with a
//! warning naming the file and line; the command then keeps what it had.

use ratatui::crossterm::event::{KeyCode, KeyModifiers};

use super::{Binding, CmdId, Command, INPUT, Key, NORMAL, REGISTRY, edit, get};

/// Overridden bindings, by command (the rest come from the registry).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Keymap {
    over: Vec<(CmdId, Vec<Binding>)>,
}

/// One `[keys]` entry of the configuration file: a command, the keys asked for (with the
/// text the user wrote, for messages) and the line it is on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyRequest {
    pub id: CmdId,
    pub keys: Vec<(Key, String)>,
    pub line: usize,
}

impl Keymap {
    /// The bindings `c` has under this keymap.
    pub fn bindings<'a>(&'a self, c: &'static Command) -> &'a [Binding] {
        self.over
            .iter()
            .find(|(id, _)| *id == c.id)
            .map(|(_, b)| b.as_slice())
            .unwrap_or(c.bindings)
    }

    pub fn is_overridden(&self, id: CmdId) -> bool {
        self.over.iter().any(|(i, _)| *i == id)
    }

    pub fn is_empty(&self) -> bool {
        self.over.is_empty()
    }

    /// The overridden commands and their bindings, in file order (for `doctor`).
    pub fn overrides(&self) -> impl Iterator<Item = (&'static Command, &[Binding])> {
        self.over.iter().map(|(id, b)| (get(*id), b.as_slice()))
    }

    /// Resolves the requests: each accepted key is bound where the command's built-in keys
    /// were; each refused key is a warning `FILE:LINE: key K for NAME …; ignored`. Checks
    /// are order-independent: the keys overridden commands give up are free for others
    /// (so two commands can swap keys).
    pub fn build(requests: &[KeyRequest], file: &str) -> (Keymap, Vec<String>) {
        let mut warnings = Vec::new();
        let overridden = |id: CmdId| requests.iter().any(|r| r.id == id);
        let mut over: Vec<(CmdId, Vec<Binding>)> = Vec::new();
        for r in requests {
            let c = get(r.id);
            let home = c.bindings.iter().fold(0, |acc, bd| acc | bd.when);
            let home = if home == 0 { NORMAL } else { home };
            let mut accepted: Vec<Binding> = Vec::new();
            for (key, text) in &r.keys {
                let refuse = |why: String| {
                    format!(
                        "{file}:{}: key {text} for {} {why}; ignored",
                        r.line, c.name
                    )
                };
                let typed = edit::typed_char(*key).is_some();
                let when = if typed { home & !INPUT } else { home };
                if when == 0 {
                    warnings.push(refuse(
                        "is a character, and characters type into the query line".into(),
                    ));
                    continue;
                }
                if key.code == KeyCode::Char('c') && key.mods.contains(KeyModifiers::CONTROL) {
                    warnings.push(refuse("is reserved: Ctrl-C always quits".into()));
                    continue;
                }
                if when & INPUT != 0 && edit::lookup(edit::EDIT_KEYS, *key).is_some() {
                    warnings.push(refuse("is a line-editing key in the query line".into()));
                    continue;
                }
                let builtin = REGISTRY.iter().find(|o| {
                    o.id != c.id
                        && !overridden(o.id)
                        && o.bindings
                            .iter()
                            .any(|bd| bd.key == *key && bd.when & when != 0)
                });
                let earlier = over.iter().find(|(id, bs)| {
                    *id != c.id && bs.iter().any(|bd| bd.key == *key && bd.when & when != 0)
                });
                if let Some(o) = builtin.or(earlier.map(|(id, _)| get(*id))) {
                    warnings.push(refuse(format!(
                        "is already bound to :{} ({})",
                        o.name, o.label
                    )));
                    continue;
                }
                let bd = Binding { key: *key, when };
                if !accepted.contains(&bd) {
                    accepted.push(bd);
                }
            }
            // an override whose every key was refused leaves the command as it was (an
            // empty list on purpose unbinds it)
            if accepted.is_empty() && !r.keys.is_empty() {
                continue;
            }
            over.push((r.id, accepted));
        }
        // a command whose override was dropped keeps its built-in keys: an override that
        // took one of them is dropped too (until nothing collides)
        loop {
            let kept: Vec<&'static Command> = requests
                .iter()
                .map(|r| get(r.id))
                .filter(|c| !over.iter().any(|(i, _)| *i == c.id))
                .collect();
            let clash = kept.iter().find_map(|c| {
                let i = over.iter().position(|(_, bs)| {
                    bs.iter().any(|x| {
                        c.bindings
                            .iter()
                            .any(|bd| x.key == bd.key && x.when & bd.when != 0)
                    })
                })?;
                Some((*c, i))
            });
            let Some((c, i)) = clash else { break };
            let taker = get(over[i].0);
            let line = requests
                .iter()
                .find(|r| r.id == taker.id)
                .map(|r| r.line)
                .unwrap_or(0);
            warnings.push(format!(
                "{file}:{line}: keys for {} collide with the built-in keys :{} keeps; ignored",
                taker.name, c.name
            ));
            over.remove(i);
        }
        (Keymap { over }, warnings)
    }
}

/// Parses a key name: one character (`Q`, `?`), `ctrl-X`, or a named key (`enter`, `esc`,
/// `tab`, `shift-tab`, `space`, `backspace`, `delete`, `up`, `down`, `left`, `right`,
/// `pageup`, `pagedown`, `home`, `end`, `f1`…`f12`). Names are case-insensitive; a
/// single character is taken as written.
pub fn parse_key(s: &str) -> Result<Key, String> {
    let plain = |code| Key {
        code,
        mods: KeyModifiers::NONE,
    };
    let mut chars = s.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        if c.is_control() {
            return Err(format!("bad key name {s:?}"));
        }
        return Ok(plain(KeyCode::Char(c)));
    }
    let lower = s.trim().to_ascii_lowercase();
    for prefix in ["ctrl-", "ctrl+", "c-"] {
        if let Some(rest) = lower.strip_prefix(prefix) {
            let mut cs = rest.chars();
            return match (cs.next(), cs.next()) {
                (Some(c), None) if c.is_ascii_graphic() => Ok(Key {
                    code: KeyCode::Char(c),
                    mods: KeyModifiers::CONTROL,
                }),
                _ => Err(format!(
                    "bad key name {s:?} (ctrl- takes one character, as in \"ctrl-z\")"
                )),
            };
        }
    }
    let code = match lower.as_str() {
        "enter" | "return" => KeyCode::Enter,
        "esc" | "escape" => KeyCode::Esc,
        "tab" => KeyCode::Tab,
        "shift-tab" | "backtab" | "s-tab" => KeyCode::BackTab,
        "space" => KeyCode::Char(' '),
        "backspace" | "bksp" => KeyCode::Backspace,
        "delete" | "del" => KeyCode::Delete,
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        "pageup" | "pgup" => KeyCode::PageUp,
        "pagedown" | "pgdn" => KeyCode::PageDown,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        f if f.starts_with('f') && f.len() > 1 => match f[1..].parse::<u8>() {
            Ok(n @ 1..=12) => KeyCode::F(n),
            _ => return Err(format!("bad key name {s:?}")),
        },
        _ => {
            return Err(format!(
                "bad key name {s:?} (one character, ctrl-X, or enter, esc, tab, shift-tab, \
                 space, backspace, delete, up, down, left, right, pageup, pagedown, home, \
                 end, f1-f12)"
            ));
        }
    };
    Ok(plain(code))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::commands::{CANDIDATES, by_name, ch, code, ctrl};

    fn req(name: &str, keys: &[&str], line: usize) -> KeyRequest {
        KeyRequest {
            id: by_name(name).expect("a command").id,
            keys: keys
                .iter()
                .map(|k| (parse_key(k).expect("a key"), k.to_string()))
                .collect(),
            line,
        }
    }

    #[test]
    fn key_names_parse() {
        assert_eq!(parse_key("Q").unwrap(), ch('Q'));
        assert_eq!(parse_key("ctrl-z").unwrap(), ctrl('z'));
        assert_eq!(parse_key("Ctrl+Z").unwrap(), ctrl('z'));
        assert_eq!(parse_key("enter").unwrap(), code(KeyCode::Enter));
        assert_eq!(parse_key("F5").unwrap(), code(KeyCode::F(5)));
        assert_eq!(parse_key("shift-tab").unwrap(), code(KeyCode::BackTab));
        assert_eq!(parse_key("space").unwrap(), ch(' '));
        for bad in ["", "ctrl-", "ctrl-ab", "f13", "hyper-x", "\u{7}"] {
            assert!(parse_key(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn override_replaces_keys_where_they_were() {
        let (km, w) = Keymap::build(&[req("zoom", &["Z", "ctrl-z"], 3)], "c.toml");
        assert!(w.is_empty(), "{w:?}");
        let zoom = by_name("zoom").unwrap();
        let keys: Vec<Key> = km.bindings(zoom).iter().map(|b| b.key).collect();
        assert_eq!(keys, vec![ch('Z'), ctrl('z')]);
        assert!(
            km.bindings(zoom)
                .iter()
                .all(|b| b.when == zoom.bindings[0].when)
        );
        // others untouched
        let quit = by_name("quit").unwrap();
        assert_eq!(km.bindings(quit), quit.bindings);
    }

    #[test]
    fn conflicts_are_refused_with_file_and_line() {
        let (km, w) = Keymap::build(&[req("quit", &["j"], 7)], "/x/config.toml");
        assert_eq!(
            w,
            vec!["/x/config.toml:7: key j for quit is already bound to :down (Next row / scroll down); ignored"
                .to_string()]
        );
        assert!(km.is_empty(), "quit keeps q");
        // a typed character cannot be a key of a query-line-only command
        let (_, w) = Keymap::build(&[req("done", &["x"], 2)], "c");
        assert!(w[0].contains("type into the query line"), "{w:?}");
        let (_, w) = Keymap::build(&[req("next-pane", &["ctrl-a"], 2)], "c");
        assert!(w[0].contains("line-editing"), "{w:?}");
    }

    #[test]
    fn two_commands_can_swap_keys() {
        let (km, w) = Keymap::build(&[req("llm-clear", &["q"], 1), req("quit", &["Z"], 2)], "c");
        assert!(w.is_empty(), "{w:?}");
        let q = km
            .bindings(by_name("llm-clear").unwrap())
            .iter()
            .any(|b| b.key == ch('q') && b.when & CANDIDATES != 0);
        assert!(q);
    }
}
