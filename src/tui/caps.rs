//! Terminal capabilities, decided once at start from the environment and the flags, and
//! printed by `toolscope doctor`: the colour ladder (NO_COLOR → 16 → 256 → truecolor),
//! Unicode or ASCII glyphs, mouse capture (off unless `--mouse`) and the OSC 52 clipboard
//! route (tmux passthrough, SSH).

use std::fmt::Write;

use ratatui::symbols::border;

use super::theme::ThemeKind;

/// The `--color` flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ColorChoice {
    #[default]
    Auto,
    Never,
    Ansi16,
    Ansi256,
    TrueColor,
}

/// What the terminal is drawn with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorLevel {
    /// No colour at all (NO_COLOR, TERM=dumb, --color never): bold, reverse and underline only.
    Mono,
    Ansi16,
    Ansi256,
    TrueColor,
}

impl ColorLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            // why (NO_COLOR, TERM=dumb, --color never) is the reason printed beside it
            ColorLevel::Mono => "none (bold/reverse/underline only)",
            ColorLevel::Ansi16 => "16 colours (SGR 30-37/90-97 and 40-47/100-107 only)",
            ColorLevel::Ansi256 => "256 colours",
            ColorLevel::TrueColor => "truecolor (24-bit)",
        }
    }
}

/// The environment variables that decide capabilities (read once).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EnvProbe {
    pub no_color: Option<String>,
    pub colorterm: Option<String>,
    pub term: Option<String>,
    pub tmux: Option<String>,
    pub ssh_tty: Option<String>,
    pub ssh_connection: Option<String>,
    pub term_program: Option<String>,
}

impl EnvProbe {
    pub fn from_process() -> EnvProbe {
        let get = |k: &str| std::env::var(k).ok();
        EnvProbe {
            no_color: get("NO_COLOR"),
            colorterm: get("COLORTERM"),
            term: get("TERM"),
            tmux: get("TMUX"),
            ssh_tty: get("SSH_TTY"),
            ssh_connection: get("SSH_CONNECTION"),
            term_program: get("TERM_PROGRAM"),
        }
    }

    fn set(v: &Option<String>) -> bool {
        v.as_deref().is_some_and(|s| !s.is_empty())
    }
}

/// The UI flags shared by the explorer and `doctor`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UiOptions {
    pub color: ColorChoice,
    pub ascii: bool,
    pub mouse: bool,
    pub theme: ThemeKind,
}

/// How `y` reaches the operator's clipboard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clipboard {
    /// Wrap OSC 52 in tmux's DCS passthrough.
    pub tmux_passthrough: bool,
    /// The session is remote: OSC 52 is the only way to the local clipboard.
    pub over_ssh: bool,
}

/// Glyphs for one of the two glyph modes. Everything the app draws itself comes from here.
#[derive(Debug)]
pub struct Glyphs {
    pub border: border::Set<'static>,
    /// Bar cells from 1/8 to full.
    pub bar: &'static [&'static str],
    pub bar_empty: &'static str,
    pub ellipsis: &'static str,
    pub badge_off: &'static str,
    pub arrow_out: &'static str,
    pub arrow_in: &'static str,
    pub crumb_sep: &'static str,
    pub sep: &'static str,
    pub cursor: &'static str,
    pub fold_closed: &'static str,
    pub fold_open: &'static str,
    pub up: &'static str,
    pub down: &'static str,
    pub dot: &'static str,
    pub gauge_full: &'static str,
    pub gauge_empty: &'static str,
    /// Sparkline cells, lowest to highest (a zero is a space).
    pub spark: &'static [&'static str],
    pub times: &'static str,
    pub check: &'static str,
    pub cross: &'static str,
    pub delta: &'static str,
    pub tree_branch: &'static str,
    pub tree_last: &'static str,
    pub tree_pipe: &'static str,
    /// Rank moves: up and down.
    pub rise: &'static str,
    pub fall: &'static str,
}

pub const ASCII_BORDER: border::Set<'static> = border::Set {
    top_left: "+",
    top_right: "+",
    bottom_left: "+",
    bottom_right: "+",
    vertical_left: "|",
    vertical_right: "|",
    horizontal_top: "-",
    horizontal_bottom: "-",
};

pub static UNICODE: Glyphs = Glyphs {
    border: border::ROUNDED,
    bar: &["▏", "▎", "▍", "▌", "▋", "▊", "▉", "█"],
    bar_empty: " ",
    ellipsis: "…",
    badge_off: "·",
    arrow_out: "→",
    arrow_in: "←",
    crumb_sep: " › ",
    sep: " │ ",
    cursor: "▶",
    fold_closed: "▸",
    fold_open: "▾",
    up: "↑",
    down: "↓",
    dot: "•",
    gauge_full: "█",
    gauge_empty: "░",
    spark: &["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"],
    times: "×",
    check: "✓",
    cross: "✗",
    delta: "Δ",
    tree_branch: "├─ ",
    tree_last: "└─ ",
    tree_pipe: "│  ",
    rise: "↑",
    fall: "↓",
};

pub static ASCII: Glyphs = Glyphs {
    border: ASCII_BORDER,
    bar: &["#"],
    bar_empty: " ",
    ellipsis: "~",
    badge_off: ".",
    arrow_out: "->",
    arrow_in: "<-",
    crumb_sep: " > ",
    sep: " | ",
    cursor: ">",
    fold_closed: "+",
    fold_open: "-",
    up: "Up",
    down: "Down",
    dot: "*",
    gauge_full: "#",
    gauge_empty: ".",
    spark: &["_", ".", "-", "=", "#"],
    times: "x",
    check: "ok",
    cross: "X",
    delta: "d",
    tree_branch: "|- ",
    tree_last: "`- ",
    tree_pipe: "|  ",
    rise: "^",
    fall: "v",
};

/// The decisions, made once.
#[derive(Clone, Debug, PartialEq)]
pub struct Caps {
    pub color: ColorLevel,
    /// Why this colour level was chosen (for doctor).
    pub color_reason: String,
    pub ascii: bool,
    pub mouse: bool,
    pub clipboard: Clipboard,
    pub theme: ThemeKind,
}

impl Caps {
    pub fn detect(env: &EnvProbe, opts: &UiOptions) -> Caps {
        let (color, color_reason) = color_level(env, opts.color);
        Caps {
            color,
            color_reason,
            ascii: opts.ascii,
            mouse: opts.mouse,
            clipboard: Clipboard {
                tmux_passthrough: EnvProbe::set(&env.tmux),
                over_ssh: EnvProbe::set(&env.ssh_tty) || EnvProbe::set(&env.ssh_connection),
            },
            theme: opts.theme,
        }
    }

    /// Fixed capabilities for tests and snapshots.
    pub fn fixed(color: ColorLevel, ascii: bool) -> Caps {
        Caps {
            color,
            color_reason: "fixed".into(),
            ascii,
            mouse: false,
            clipboard: Clipboard {
                tmux_passthrough: false,
                over_ssh: false,
            },
            theme: ThemeKind::Dark,
        }
    }

    pub fn glyphs(&self) -> &'static Glyphs {
        if self.ascii { &ASCII } else { &UNICODE }
    }

    /// The `toolscope doctor` report.
    pub fn report(&self, env: &EnvProbe, size: Option<(u16, u16)>) -> String {
        let mut o = String::new();
        let show = |v: &Option<String>| match v {
            None => "(unset)".to_string(),
            Some(s) => crate::sanitize::quoted(s),
        };
        let _ = writeln!(
            o,
            "toolscope doctor: terminal capabilities, decided once at start"
        );
        let _ = writeln!(o);
        let _ = writeln!(o, "environment");
        let _ = writeln!(o, "  TERM          {}", show(&env.term));
        let _ = writeln!(o, "  COLORTERM     {}", show(&env.colorterm));
        let _ = writeln!(o, "  NO_COLOR      {}", show(&env.no_color));
        let _ = writeln!(o, "  TMUX          {}", show(&env.tmux));
        let _ = writeln!(o, "  SSH_TTY       {}", show(&env.ssh_tty));
        let _ = writeln!(o, "  SSH_CONNECTION {}", show(&env.ssh_connection));
        let _ = writeln!(o, "  TERM_PROGRAM  {}", show(&env.term_program));
        let _ = writeln!(o);
        let _ = writeln!(o, "decisions");
        let _ = writeln!(
            o,
            "  colour        {} ({})",
            self.color.as_str(),
            self.color_reason
        );
        let _ = writeln!(o, "  theme         {}", self.theme.as_str());
        let _ = writeln!(
            o,
            "  glyphs        {}",
            if self.ascii {
                "ASCII (--ascii): + - | borders, # bars"
            } else {
                "Unicode (box drawing, block bars); use --ascii over fragile fonts"
            }
        );
        let _ = writeln!(
            o,
            "  mouse         {}",
            if self.mouse {
                "on (--mouse): wheel scrolls, click selects; Shift-drag for native selection"
            } else {
                "off (pass --mouse to enable; native text selection keeps working)"
            }
        );
        let route = match (self.clipboard.tmux_passthrough, self.clipboard.over_ssh) {
            (true, true) => {
                "OSC 52 to tmux and through tmux passthrough, over SSH to your local terminal"
            }
            (true, false) => "OSC 52 to tmux and through tmux passthrough",
            (false, true) => "OSC 52 over SSH to your local terminal",
            (false, false) => "OSC 52 to this terminal",
        };
        let _ = writeln!(o, "  clipboard     {route}");
        if self.clipboard.tmux_passthrough {
            let _ = writeln!(
                o,
                "                (tmux: `set -g set-clipboard on` or, tmux >= 3.3, `set -g allow-passthrough on`)"
            );
        }
        let _ = writeln!(
            o,
            "  frames        synchronized updates (DEC 2026), cell diffs only, redraw on events (no tick)"
        );
        match size {
            Some((w, h)) => {
                let fits = if w >= super::derive::MIN_WIDTH && h >= super::derive::MIN_HEIGHT {
                    "ok"
                } else {
                    "too small"
                };
                let _ = writeln!(
                    o,
                    "  size          {w}x{h} ({fits}; minimum {}x{}, designed for 80x24 and up)",
                    super::derive::MIN_WIDTH,
                    super::derive::MIN_HEIGHT
                );
            }
            None => {
                let _ = writeln!(o, "  size          (stdout is not a terminal)");
            }
        }
        o
    }
}

/// The colour ladder: flag, NO_COLOR, COLORTERM, tmux, TERM.
fn color_level(env: &EnvProbe, choice: ColorChoice) -> (ColorLevel, String) {
    match choice {
        ColorChoice::Never => return (ColorLevel::Mono, "--color never".into()),
        ColorChoice::Ansi16 => return (ColorLevel::Ansi16, "--color 16".into()),
        ColorChoice::Ansi256 => return (ColorLevel::Ansi256, "--color 256".into()),
        ColorChoice::TrueColor => return (ColorLevel::TrueColor, "--color truecolor".into()),
        ColorChoice::Auto => {}
    }
    if EnvProbe::set(&env.no_color) {
        return (ColorLevel::Mono, "NO_COLOR is set".into());
    }
    let term = env.term.as_deref().unwrap_or("");
    if term == "dumb" {
        return (ColorLevel::Mono, "TERM=dumb".into());
    }
    let ct = env.colorterm.as_deref().unwrap_or("").to_ascii_lowercase();
    if ct == "truecolor" || ct == "24bit" {
        return (ColorLevel::TrueColor, format!("COLORTERM={ct}"));
    }
    if EnvProbe::set(&env.tmux) {
        return (
            ColorLevel::Ansi256,
            "inside tmux without COLORTERM=truecolor: assuming 256".into(),
        );
    }
    if term.contains("256color") {
        return (ColorLevel::Ansi256, format!("TERM={term}"));
    }
    if term.contains("direct") {
        return (ColorLevel::TrueColor, format!("TERM={term}"));
    }
    (
        ColorLevel::Ansi16,
        if term.is_empty() {
            "TERM unset: the 16 ANSI colours".into()
        } else {
            format!("TERM={term}: the 16 ANSI colours")
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> EnvProbe {
        let mut e = EnvProbe::default();
        for (k, v) in pairs {
            let v = Some(v.to_string());
            match *k {
                "NO_COLOR" => e.no_color = v,
                "COLORTERM" => e.colorterm = v,
                "TERM" => e.term = v,
                "TMUX" => e.tmux = v,
                "SSH_TTY" => e.ssh_tty = v,
                _ => unreachable!(),
            }
        }
        e
    }

    fn level(pairs: &[(&str, &str)]) -> ColorLevel {
        Caps::detect(&env(pairs), &UiOptions::default()).color
    }

    #[test]
    fn colour_ladder() {
        assert_eq!(level(&[("TERM", "xterm")]), ColorLevel::Ansi16);
        assert_eq!(level(&[("TERM", "xterm-256color")]), ColorLevel::Ansi256);
        assert_eq!(
            level(&[("TERM", "xterm-256color"), ("COLORTERM", "truecolor")]),
            ColorLevel::TrueColor
        );
        assert_eq!(
            level(&[("TERM", "screen"), ("TMUX", "/tmp/tmux-1/default,1,0")]),
            ColorLevel::Ansi256
        );
        assert_eq!(
            level(&[
                ("TERM", "xterm-256color"),
                ("COLORTERM", "truecolor"),
                ("NO_COLOR", "1")
            ]),
            ColorLevel::Mono
        );
        // an empty NO_COLOR does not count (no-color.org)
        assert_eq!(
            level(&[("TERM", "xterm"), ("NO_COLOR", "")]),
            ColorLevel::Ansi16
        );
        let forced = Caps::detect(
            &env(&[("NO_COLOR", "1")]),
            &UiOptions {
                color: ColorChoice::Ansi256,
                ..UiOptions::default()
            },
        );
        assert_eq!(forced.color, ColorLevel::Ansi256);
    }

    #[test]
    fn clipboard_route_and_report() {
        let c = Caps::detect(
            &env(&[("TMUX", "x"), ("SSH_TTY", "/dev/pts/1"), ("TERM", "screen")]),
            &UiOptions::default(),
        );
        assert!(c.clipboard.tmux_passthrough && c.clipboard.over_ssh);
        let r = c.report(&EnvProbe::default(), Some((80, 24)));
        assert!(r.contains("tmux passthrough"), "{r}");
        assert!(r.contains("80x24 (ok"), "{r}");
        let c16 = Caps::detect(
            &env(&[("TERM", "xterm-256color")]),
            &UiOptions {
                color: ColorChoice::Ansi16,
                ..UiOptions::default()
            },
        );
        let r = c16.report(&EnvProbe::default(), None);
        assert!(
            r.contains(
                "colour        16 colours (SGR 30-37/90-97 and 40-47/100-107 only) (--color 16)"
            ),
            "{r}"
        );
    }

    #[test]
    fn ascii_glyphs_are_ascii() {
        let g = &ASCII;
        let all = [
            g.border.top_left,
            g.border.horizontal_top,
            g.border.vertical_left,
            g.bar_empty,
            g.ellipsis,
            g.badge_off,
            g.arrow_out,
            g.arrow_in,
            g.crumb_sep,
            g.sep,
            g.cursor,
            g.fold_closed,
            g.fold_open,
            g.up,
            g.down,
            g.dot,
            g.gauge_full,
            g.gauge_empty,
            g.times,
        ];
        for s in all.iter().chain(g.bar.iter()) {
            assert!(s.is_ascii(), "{s:?}");
        }
    }
}
