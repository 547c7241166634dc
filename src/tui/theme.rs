//! Themes as semantic roles. Views ask for a [`Role`], never for a colour. Each theme
//! defines every role for the 16 ANSI colours (the terminal palette decides: the default),
//! 256 colours and truecolor; under NO_COLOR only the modifiers remain, and nothing is
//! conveyed by colour alone (badges carry letters, marks carry characters).

use ratatui::style::{Color, Modifier, Style};

use super::caps::ColorLevel;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ThemeKind {
    #[default]
    Dark,
    Light,
    HighContrast,
}

impl ThemeKind {
    pub const ALL: [ThemeKind; 3] = [ThemeKind::Dark, ThemeKind::Light, ThemeKind::HighContrast];

    pub fn as_str(self) -> &'static str {
        match self {
            ThemeKind::Dark => "dark",
            ThemeKind::Light => "light",
            ThemeKind::HighContrast => "high-contrast",
        }
    }

    pub fn parse(s: &str) -> Option<ThemeKind> {
        match s.trim().to_ascii_lowercase().as_str() {
            "dark" => Some(ThemeKind::Dark),
            "light" => Some(ThemeKind::Light),
            "high-contrast" | "highcontrast" | "hc" | "contrast" => Some(ThemeKind::HighContrast),
            _ => None,
        }
    }

    pub fn next(self) -> ThemeKind {
        match self {
            ThemeKind::Dark => ThemeKind::Light,
            ThemeKind::Light => ThemeKind::HighContrast,
            ThemeKind::HighContrast => ThemeKind::Dark,
        }
    }
}

/// What a piece of text means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Text,
    Muted,
    Title,
    Border,
    BorderFocus,
    TabActive,
    Selection,
    Prompt,
    Placeholder,
    Header,
    Score,
    ChipSeed,
    ChipGraph,
    ChipLearn,
    BadgeAction,
    BadgeResource,
    BadgeModule,
    BadgeShape,
    BadgeContract,
    BadgeOff,
    WhySeed,
    WhyGraph,
    WhyLearning,
    Matched,
    MarkTarget,
    MarkLlm,
    Good,
    Warn,
    Bad,
    Key,
    Disabled,
    Note,
    Section,
    JsonKey,
    FuzzyMatch,
    /// The cursor row of a table or list: the selection's highlight where the theme has a
    /// background for it, else bold text next to a marker column (see
    /// [`Theme::marks_cursor`]), so reverse video never inverts block-glyph bars.
    CursorRow,
}

impl Role {
    pub const COUNT: usize = Role::CursorRow as usize + 1;
}

/// A colour in the three palettes.
#[derive(Clone, Copy)]
struct Tone(Color, u8, (u8, u8, u8));

struct Spec {
    fg: Option<Tone>,
    bg: Option<Tone>,
    mods: Modifier,
    /// Extra modifiers when there is no colour (so the meaning survives).
    mono: Modifier,
}

const fn spec(fg: Option<Tone>, mods: Modifier, mono: Modifier) -> Spec {
    Spec {
        fg,
        bg: None,
        mods,
        mono,
    }
}

const N: Modifier = Modifier::empty();
const B: Modifier = Modifier::BOLD;
const R: Modifier = Modifier::REVERSED;
const U: Modifier = Modifier::UNDERLINED;

// dark palette
const D_MUTED: Tone = Tone(Color::DarkGray, 244, (128, 132, 150));
const D_CYAN: Tone = Tone(Color::Cyan, 80, (110, 200, 220));
const D_BLUE: Tone = Tone(Color::Blue, 75, (120, 160, 250));
const D_GREEN: Tone = Tone(Color::Green, 114, (150, 210, 120));
const D_YELLOW: Tone = Tone(Color::Yellow, 221, (235, 200, 110));
const D_MAGENTA: Tone = Tone(Color::Magenta, 176, (200, 150, 230));
const D_RED: Tone = Tone(Color::Red, 203, (240, 120, 120));
const D_ORANGE: Tone = Tone(Color::LightRed, 209, (245, 160, 100));
const D_SEL: Tone = Tone(Color::DarkGray, 237, (52, 56, 72));

// light palette (no yellow or white text on a light background)
const L_MUTED: Tone = Tone(Color::DarkGray, 243, (110, 110, 120));
const L_BLUE: Tone = Tone(Color::Blue, 25, (30, 90, 180));
const L_CYAN: Tone = Tone(Color::Cyan, 30, (0, 120, 140));
const L_GREEN: Tone = Tone(Color::Green, 28, (30, 130, 40));
const L_MAGENTA: Tone = Tone(Color::Magenta, 127, (150, 40, 150));
const L_RED: Tone = Tone(Color::Red, 160, (190, 30, 30));
const L_BROWN: Tone = Tone(Color::Red, 130, (160, 90, 0));
const L_SEL: Tone = Tone(Color::Gray, 254, (225, 228, 236));

// high contrast: bright colours, bold everywhere it matters
const H_WHITE: Tone = Tone(Color::White, 231, (255, 255, 255));
const H_CYAN: Tone = Tone(Color::LightCyan, 51, (0, 255, 255));
const H_GREEN: Tone = Tone(Color::LightGreen, 46, (0, 255, 0));
const H_YELLOW: Tone = Tone(Color::LightYellow, 226, (255, 255, 0));
const H_MAGENTA: Tone = Tone(Color::LightMagenta, 201, (255, 0, 255));
const H_RED: Tone = Tone(Color::LightRed, 196, (255, 60, 60));
const H_BLUE: Tone = Tone(Color::LightBlue, 39, (80, 170, 255));

struct Palette {
    muted: Tone,
    accent: Tone,
    blue: Tone,
    green: Tone,
    warn: Tone,
    magenta: Tone,
    red: Tone,
    orange: Tone,
    sel: Option<Tone>,
    /// Modifier added to emphasised roles.
    strong: Modifier,
}

fn palette(kind: ThemeKind) -> Palette {
    match kind {
        ThemeKind::Dark => Palette {
            muted: D_MUTED,
            accent: D_CYAN,
            blue: D_BLUE,
            green: D_GREEN,
            warn: D_YELLOW,
            magenta: D_MAGENTA,
            red: D_RED,
            orange: D_ORANGE,
            sel: Some(D_SEL),
            strong: N,
        },
        ThemeKind::Light => Palette {
            muted: L_MUTED,
            accent: L_CYAN,
            blue: L_BLUE,
            green: L_GREEN,
            warn: L_BROWN,
            magenta: L_MAGENTA,
            red: L_RED,
            orange: L_BROWN,
            sel: Some(L_SEL),
            strong: N,
        },
        ThemeKind::HighContrast => Palette {
            muted: H_WHITE,
            accent: H_CYAN,
            blue: H_BLUE,
            green: H_GREEN,
            warn: H_YELLOW,
            magenta: H_MAGENTA,
            red: H_RED,
            orange: H_YELLOW,
            sel: None,
            strong: B,
        },
    }
}

fn role_spec(kind: ThemeKind, role: Role) -> Spec {
    let p = palette(kind);
    let s = p.strong;
    match role {
        Role::Text => spec(None, N, N),
        Role::Muted => spec(Some(p.muted), N, N),
        Role::Title => spec(Some(p.accent), B, B),
        Role::Border => spec(Some(p.muted), N, N),
        Role::BorderFocus => spec(Some(p.accent), B, B),
        Role::TabActive => spec(Some(p.accent), B | U, B | U),
        Role::Selection => Spec {
            fg: None,
            bg: p.sel,
            mods: if p.sel.is_none() { R | B } else { B },
            mono: R,
        },
        Role::Prompt => spec(Some(p.accent), B, B),
        Role::Placeholder => spec(Some(p.muted), N, N),
        Role::Header => spec(Some(p.muted), B | s, B),
        Role::Score => spec(None, B, B),
        Role::ChipSeed => spec(Some(p.blue), s, N),
        Role::ChipGraph => spec(Some(p.magenta), s, N),
        Role::ChipLearn => spec(Some(p.warn), s, N),
        Role::BadgeAction => spec(Some(p.green), B, B),
        Role::BadgeResource => spec(Some(p.accent), B, B),
        Role::BadgeModule => spec(Some(p.blue), B, B),
        Role::BadgeShape => spec(Some(p.magenta), B, B),
        Role::BadgeContract => spec(Some(p.warn), B, B),
        Role::BadgeOff => spec(Some(p.muted), N, N),
        Role::WhySeed => spec(Some(p.blue), s, N),
        Role::WhyGraph => spec(Some(p.magenta), s, N),
        Role::WhyLearning => spec(Some(p.warn), s, N),
        Role::Matched => spec(Some(p.green), s, N),
        Role::MarkTarget => spec(Some(p.green), B, B),
        Role::MarkLlm => spec(Some(p.orange), B, B),
        Role::Good => spec(Some(p.green), B, B),
        Role::Warn => spec(Some(p.warn), B, B),
        Role::Bad => spec(Some(p.red), B, B | U),
        Role::Key => spec(Some(p.accent), B, B),
        Role::Disabled => spec(Some(p.muted), N, Modifier::DIM),
        Role::Note => spec(Some(p.warn), s, N),
        Role::Section => spec(Some(p.accent), B, B | U),
        Role::JsonKey => spec(Some(p.blue), s, N),
        // without colour: underline only, unlike a section heading's bold underline (a
        // find's current match is reversed: Selection)
        Role::FuzzyMatch => spec(Some(p.warn), B | U, U),
        Role::CursorRow => Spec {
            fg: None,
            bg: p.sel,
            mods: B,
            mono: B,
        },
    }
}

fn resolve(t: Tone, level: ColorLevel) -> Option<Color> {
    match level {
        ColorLevel::Mono => None,
        ColorLevel::Ansi16 => Some(t.0),
        ColorLevel::Ansi256 => Some(Color::Indexed(t.1)),
        ColorLevel::TrueColor => Some(Color::Rgb(t.2.0, t.2.1, t.2.2)),
    }
}

const ROLES: [Role; Role::COUNT] = [
    Role::Text,
    Role::Muted,
    Role::Title,
    Role::Border,
    Role::BorderFocus,
    Role::TabActive,
    Role::Selection,
    Role::Prompt,
    Role::Placeholder,
    Role::Header,
    Role::Score,
    Role::ChipSeed,
    Role::ChipGraph,
    Role::ChipLearn,
    Role::BadgeAction,
    Role::BadgeResource,
    Role::BadgeModule,
    Role::BadgeShape,
    Role::BadgeContract,
    Role::BadgeOff,
    Role::WhySeed,
    Role::WhyGraph,
    Role::WhyLearning,
    Role::Matched,
    Role::MarkTarget,
    Role::MarkLlm,
    Role::Good,
    Role::Warn,
    Role::Bad,
    Role::Key,
    Role::Disabled,
    Role::Note,
    Role::Section,
    Role::JsonKey,
    Role::FuzzyMatch,
    Role::CursorRow,
];

/// Resolved styles for every role.
#[derive(Clone, Debug, PartialEq)]
pub struct Theme {
    pub kind: ThemeKind,
    pub level: ColorLevel,
    styles: [Style; Role::COUNT],
}

impl Theme {
    pub fn new(kind: ThemeKind, level: ColorLevel) -> Theme {
        let mut styles = [Style::default(); Role::COUNT];
        for role in ROLES {
            let sp = role_spec(kind, role);
            let mut st = Style::default();
            if level == ColorLevel::Mono {
                st = st.add_modifier(sp.mono);
            } else if role == Role::Selection && level == ColorLevel::Ansi16 {
                // a 16-colour background would collide with the palette's own greys
                st = st.add_modifier(R | B);
            } else if role == Role::CursorRow && marks_cursor(kind, level) {
                st = st.add_modifier(B);
            } else {
                if let Some(fg) = sp.fg.and_then(|t| resolve(t, level)) {
                    st = st.fg(fg);
                }
                if let Some(bg) = sp.bg.and_then(|t| resolve(t, level)) {
                    st = st.bg(bg);
                }
                st = st.add_modifier(sp.mods);
            }
            styles[role as usize] = st;
        }
        Theme {
            kind,
            level,
            styles,
        }
    }

    pub fn get(&self, role: Role) -> Style {
        self.styles[role as usize]
    }

    /// Replaces one role's style (a custom theme of the configuration file).
    pub fn set(&mut self, role: Role, style: Style) {
        self.styles[role as usize] = style;
    }
    /// Whether cursor rows are shown by a marker column and bold text rather than a
    /// background: NO_COLOR, 16 colours (no background that is not one of the palette's
    /// own greys) and high contrast (no selection background).
    pub fn marks_cursor(&self) -> bool {
        marks_cursor(self.kind, self.level)
    }
}

fn marks_cursor(kind: ThemeKind, level: ColorLevel) -> bool {
    matches!(level, ColorLevel::Mono | ColorLevel::Ansi16) || palette(kind).sel.is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_table_is_complete_and_ordered() {
        for (i, r) in ROLES.iter().enumerate() {
            assert_eq!(*r as usize, i);
        }
    }

    #[test]
    fn mono_has_no_colour_but_keeps_meaning() {
        for kind in ThemeKind::ALL {
            let t = Theme::new(kind, ColorLevel::Mono);
            for r in ROLES {
                let s = t.get(r);
                assert!(s.fg.is_none() && s.bg.is_none(), "{kind:?} {r:?}");
            }
            assert!(
                t.get(Role::Selection)
                    .add_modifier
                    .contains(Modifier::REVERSED)
            );
            assert!(
                t.get(Role::BadgeAction)
                    .add_modifier
                    .contains(Modifier::BOLD)
            );
        }
    }

    #[test]
    fn the_cursor_row_never_reverses() {
        for kind in ThemeKind::ALL {
            for level in [
                ColorLevel::Mono,
                ColorLevel::Ansi16,
                ColorLevel::Ansi256,
                ColorLevel::TrueColor,
            ] {
                let t = Theme::new(kind, level);
                let s = t.get(Role::CursorRow);
                assert!(
                    !s.add_modifier.contains(Modifier::REVERSED),
                    "{kind:?} {level:?}"
                );
                assert!(
                    s.add_modifier.contains(Modifier::BOLD),
                    "{kind:?} {level:?}"
                );
                // a marker where there is no background, a background where there is one
                assert_eq!(t.marks_cursor(), s.bg.is_none(), "{kind:?} {level:?}");
            }
        }
        assert!(!Theme::new(ThemeKind::Dark, ColorLevel::Ansi256).marks_cursor());
        assert!(Theme::new(ThemeKind::HighContrast, ColorLevel::TrueColor).marks_cursor());
        assert!(Theme::new(ThemeKind::Light, ColorLevel::Ansi16).marks_cursor());
    }

    #[test]
    fn levels_use_their_palette() {
        let t = Theme::new(ThemeKind::Dark, ColorLevel::Ansi256);
        assert!(matches!(t.get(Role::Title).fg, Some(Color::Indexed(_))));
        let t = Theme::new(ThemeKind::Light, ColorLevel::TrueColor);
        assert!(matches!(t.get(Role::Title).fg, Some(Color::Rgb(..))));
        let t = Theme::new(ThemeKind::HighContrast, ColorLevel::Ansi16);
        assert_eq!(t.get(Role::Title).fg, Some(Color::LightCyan));
    }
}
