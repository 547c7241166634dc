//! The configuration file, as users of k9s, gitui and lazygit expect one:
//! `$XDG_CONFIG_HOME/toolscope/config.toml`, else `~/.config/toolscope/config.toml`, or the
//! file `TOOLSCOPE_CONFIG` names. It sets the explorer's defaults: `theme`, `color`,
//! `ascii`, `mouse`, the starting `[params]`, `[keys]` overrides for any registry command
//! (by its palette name) and custom `[themes.NAME]` over the semantic roles of
//! [`super::theme::Role`]. Command-line flags win over the file, the file over the
//! built-in defaults.
//!
//! Nothing here stops the explorer: an invalid file (bad TOML, an unknown key, a wrong
//! type, a bad key name, an unknown command or role) is ONE warning naming the file and
//! line, and everything starts with the built-in defaults; a key override that collides
//! with another command is a warning naming its line and only that key is ignored.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;
use toml::Spanned;

use super::app::{MAX_DEPTH, MAX_TOP_K, POLICIES, Policy};
use super::caps::{ColorChoice, ColorLevel, UiOptions};
use super::commands::keymap::{KeyRequest, Keymap, parse_key};
use super::commands::{self, CmdId};
use super::theme::{Role, Theme, ThemeKind};
use crate::engine::{Params, SelectParams};

/// Where the file was looked for, and why there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    pub path: PathBuf,
    /// What chose the path: `TOOLSCOPE_CONFIG`, `$XDG_CONFIG_HOME` or `$HOME`.
    pub origin: &'static str,
}

/// The path in force, from the environment (`get` reads one variable).
pub fn locate(get: impl Fn(&str) -> Option<OsString>) -> Option<Located> {
    let set = |k: &str| get(k).filter(|v| !v.is_empty());
    if let Some(p) = set("TOOLSCOPE_CONFIG") {
        return Some(Located {
            path: PathBuf::from(p),
            origin: "TOOLSCOPE_CONFIG",
        });
    }
    if let Some(d) = set("XDG_CONFIG_HOME") {
        return Some(Located {
            path: Path::new(&d).join("toolscope").join("config.toml"),
            origin: "$XDG_CONFIG_HOME",
        });
    }
    set("HOME").map(|h| Located {
        path: Path::new(&h).join(".config/toolscope/config.toml"),
        origin: "$HOME",
    })
}

/// What became of the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// No path (no HOME) or no file there: the built-in defaults.
    Missing,
    Read,
    /// The one-line error (`PATH:LINE: message`); the built-in defaults are used.
    Invalid(String),
}

/// A colour of a custom theme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThemeColor {
    /// One of the 16 ANSI colours (valid at every colour level).
    Named(Color),
    /// A 256-colour palette index.
    Index(u8),
    Rgb(u8, u8, u8),
}

/// A `[themes.NAME]` table: a built-in theme with some roles recoloured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CustomTheme {
    pub name: String,
    pub base: ThemeKind,
    pub roles: Vec<(Role, ThemeColor)>,
}

impl CustomTheme {
    /// The resolved styles at a colour level: the base theme, each listed role's colour
    /// brought down to what the terminal shows (16 colours get the nearest ANSI colour);
    /// under NO_COLOR the base theme's modifiers only. The colour is the role's
    /// foreground, and the background for `selection`.
    pub fn build(&self, level: ColorLevel) -> Theme {
        let mut t = Theme::new(self.base, level);
        if level == ColorLevel::Mono {
            return t;
        }
        for (role, c) in &self.roles {
            let color = downgrade(*c, level);
            let st = t.get(*role);
            let st = if *role == Role::Selection {
                Style {
                    bg: Some(color),
                    ..st
                }
                .remove_modifier(Modifier::REVERSED)
            } else {
                st.fg(color)
            };
            t.set(*role, st);
        }
        t
    }
}

/// The file's `[params]`: the explorer's starting parameters (and what `:reset` restores).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParamDefaults {
    pub top_k: Option<usize>,
    pub depth: Option<usize>,
    pub token_budget: Option<usize>,
    pub policy: Option<Policy>,
}

impl ParamDefaults {
    pub fn resolve(&self) -> (Params, SelectParams) {
        let d = Params::default();
        let p = Params {
            top_k: self.top_k.unwrap_or(d.top_k),
            depth: self.depth.unwrap_or(d.depth),
            token_budget: self.token_budget.unwrap_or(d.token_budget),
            ..d
        };
        let s = SelectParams {
            policy: self.policy.clone().unwrap_or_default(),
            ..SelectParams::default()
        };
        (p, s)
    }
}

/// The file's `theme`: a built-in one or a custom table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ThemeChoice {
    Builtin(ThemeKind),
    Custom(CustomTheme),
}

/// A valid file's contents.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    pub theme: Option<ThemeChoice>,
    /// Every `[themes.NAME]` table, in the file's (sorted) order: `T` and `:theme NAME`
    /// reach them after the built-in themes.
    pub themes: Vec<CustomTheme>,
    pub color: Option<ColorChoice>,
    pub ascii: Option<bool>,
    pub mouse: Option<bool>,
    pub params: ParamDefaults,
    pub keys: Vec<KeyRequest>,
}

/// The explorer's flags as given (None: not given).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UiFlags {
    pub color: Option<ColorChoice>,
    pub theme: Option<ThemeKind>,
    pub ascii: bool,
    pub mouse: bool,
}

/// What the explorer starts with besides the [`UiOptions`].
#[derive(Clone, Debug, Default)]
pub struct Startup {
    pub keys: Keymap,
    pub params: (Params, SelectParams),
    pub custom_theme: Option<CustomTheme>,
    /// Every custom theme of the file (for `T` and `:theme NAME`).
    pub themes: Vec<CustomTheme>,
    /// Why the colour level is what it is, when the file chose it (for `doctor`).
    pub color_reason: Option<String>,
    /// One line each: the invalid file's error, or key overrides that were ignored.
    pub warnings: Vec<String>,
    /// The file as the warnings name it, and as the explorer's message names it: the whole
    /// path, with the home folder written `~` (`~/.config/toolscope/config.toml`).
    pub shown: String,
    pub name: String,
}

impl Startup {
    /// The warning the explorer shows at start: the first, naming the file by its whole
    /// path as `doctor` does (the home folder as `~`), and how many more there are.
    pub fn flash(&self) -> Option<String> {
        let w = self.warnings.first()?;
        let w = match w.strip_prefix(self.shown.as_str()) {
            Some(rest) if !self.shown.is_empty() => format!("{}{rest}", self.name),
            _ => w.clone(),
        };
        Some(match self.warnings.len() - 1 {
            0 => w,
            more => format!("{w} (+{more} more: toolscope doctor lists them)"),
        })
    }
}

/// `path` with the home folder (`$HOME`) written `~`, else whole.
fn home_relative(path: &Path) -> String {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .and_then(|h| path.strip_prefix(h).ok())
        .filter(|rest| !rest.as_os_str().is_empty())
        .map(|rest| format!("~/{}", rest.display()))
        .unwrap_or_else(|| path.display().to_string())
}

/// The file looked for, what became of it and its contents (the defaults unless read).
#[derive(Clone, Debug)]
pub struct Loaded {
    pub located: Option<Located>,
    pub status: Status,
    pub config: Config,
}

impl Loaded {
    /// Looks for the file where the process environment says and reads it.
    pub fn from_process() -> Loaded {
        Loaded::read(locate(|k| std::env::var_os(k)))
    }

    pub fn read(located: Option<Located>) -> Loaded {
        let Some(loc) = located else {
            return Loaded {
                located: None,
                status: Status::Missing,
                config: Config::default(),
            };
        };
        let shown = crate::sanitize::line(&loc.path.display().to_string());
        let (status, config) = match std::fs::metadata(&loc.path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                (Status::Missing, Config::default())
            }
            _ => match read_text(&loc.path) {
                Err(e) => (Status::Invalid(e), Config::default()),
                Ok(src) => match parse(&src, &shown) {
                    Ok(c) => (Status::Read, c),
                    Err(e) => (Status::Invalid(e), Config::default()),
                },
            },
        };
        Loaded {
            located: Some(loc),
            status,
            config,
        }
    }

    /// The file name messages use.
    pub fn shown(&self) -> String {
        self.located
            .as_ref()
            .map(|l| crate::sanitize::line(&l.path.display().to_string()))
            .unwrap_or_else(|| "config.toml".into())
    }

    /// Flags over the file over the defaults.
    pub fn resolve(&self, flags: &UiFlags) -> (UiOptions, Startup) {
        let c = &self.config;
        let file_kind = match &c.theme {
            Some(ThemeChoice::Builtin(k)) => Some(*k),
            Some(ThemeChoice::Custom(t)) => Some(t.base),
            None => None,
        };
        let opts = UiOptions {
            color: flags.color.or(c.color).unwrap_or_default(),
            ascii: flags.ascii || c.ascii.unwrap_or(false),
            mouse: flags.mouse || c.mouse.unwrap_or(false),
            theme: flags.theme.or(file_kind).unwrap_or_default(),
        };
        let custom_theme = match (&c.theme, flags.theme) {
            (Some(ThemeChoice::Custom(t)), None) => Some(t.clone()),
            _ => None,
        };
        let color_reason = match (flags.color, c.color) {
            (None, Some(ch)) if ch != ColorChoice::Auto => Some(format!(
                "color = \"{}\" in {}",
                color_name(ch),
                self.shown()
            )),
            _ => None,
        };
        let mut warnings = Vec::new();
        if let Status::Invalid(e) = &self.status {
            warnings.push(format!("{e} (starting with the built-in defaults)"));
        }
        let (keys, kw) = Keymap::build(&c.keys, &self.shown());
        warnings.extend(kw);
        (
            opts,
            Startup {
                keys,
                params: c.params.resolve(),
                custom_theme,
                themes: c.themes.clone(),
                color_reason,
                warnings,
                shown: self.shown(),
                name: self
                    .located
                    .as_ref()
                    .map(|l| crate::sanitize::line(&home_relative(&l.path)))
                    .unwrap_or_else(|| "config.toml".into()),
            },
        )
    }

    /// The lines `doctor` prints about the file.
    pub fn report(&self, startup: &Startup) -> String {
        use std::fmt::Write;
        let mut o = String::new();
        let _ = writeln!(o, "configuration");
        match &self.located {
            None => {
                let _ = writeln!(
                    o,
                    "  file          (none: HOME, XDG_CONFIG_HOME and TOOLSCOPE_CONFIG are unset)"
                );
            }
            Some(l) => {
                let state = match &self.status {
                    Status::Missing => "not found: built-in defaults",
                    Status::Read => "read",
                    Status::Invalid(_) => "invalid: built-in defaults",
                };
                let _ = writeln!(
                    o,
                    "  file          {} ({state}; chosen by {})",
                    self.shown(),
                    l.origin
                );
            }
        }
        for w in &startup.warnings {
            let _ = writeln!(o, "  warning       {}", crate::sanitize::line(w));
        }
        if let Some(t) = &startup.custom_theme {
            let _ = writeln!(
                o,
                "  theme         {} (custom, {} roles over {})",
                crate::sanitize::line(&t.name),
                t.roles.len(),
                t.base.as_str()
            );
        }
        let g = &super::caps::UNICODE;
        for (c, bs) in startup.keys.overrides() {
            let keys: Vec<String> = bs.iter().map(|b| b.key.label(g)).collect();
            let keys = if keys.is_empty() {
                "(unbound)".to_string()
            } else {
                keys.join(" ")
            };
            let _ = writeln!(o, "  key           {keys} runs :{}", c.name);
        }
        o
    }
}

/// The file's text: a regular file within the input limit, in UTF-8.
fn read_text(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let (mut f, _) = crate::limits::open_regular(path).map_err(|e| e.to_string())?;
    let mut s = String::new();
    f.read_to_string(&mut s).map_err(|e| {
        format!(
            "{}: cannot read: {e}",
            crate::sanitize::line(&path.display().to_string())
        )
    })?;
    Ok(s)
}

fn color_name(c: ColorChoice) -> &'static str {
    match c {
        ColorChoice::Auto => "auto",
        ColorChoice::Never => "never",
        ColorChoice::Ansi16 => "16",
        ColorChoice::Ansi256 => "256",
        ColorChoice::TrueColor => "truecolor",
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    theme: Option<Spanned<String>>,
    color: Option<Spanned<toml::Value>>,
    ascii: Option<bool>,
    mouse: Option<bool>,
    params: Option<RawParams>,
    keys: Option<BTreeMap<Spanned<String>, Spanned<toml::Value>>>,
    themes: Option<BTreeMap<Spanned<String>, RawTheme>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawParams {
    top_k: Option<Spanned<i64>>,
    depth: Option<Spanned<i64>>,
    token_budget: Option<Spanned<i64>>,
    policy: Option<Spanned<String>>,
}

type RawTheme = BTreeMap<Spanned<String>, Spanned<toml::Value>>;

/// Parses and checks a file's text; the error is one line, `FILE:LINE: message`.
pub fn parse(src: &str, file: &str) -> Result<Config, String> {
    let at = |span: std::ops::Range<usize>, msg: String| {
        format!("{file}:{}: {msg}", line_of(src, span.start))
    };
    let raw: RawConfig = toml::from_str(src).map_err(|e| {
        let msg = toml_message(e.message());
        match e.span() {
            Some(s) => at(s, msg),
            None => format!("{file}: {msg}"),
        }
    })?;
    let color = color_choice(raw.color, &at)?;
    let mut customs: Vec<CustomTheme> = Vec::new();
    for (name, table) in raw.themes.into_iter().flatten() {
        customs.push(custom_theme(&name, table, &at)?);
    }
    let theme = theme_choice(raw.theme, &customs, &at)?;
    let params = param_defaults(raw.params, &at)?;
    let keys = key_requests(raw.keys, src, &at)?;
    Ok(Config {
        theme,
        themes: customs,
        color,
        ascii: raw.ascii,
        mouse: raw.mouse,
        params,
        keys,
    })
}

/// The file's `color`: `auto`, `never`, `16`, `256` or `truecolor` (a string, or the
/// numbers as integers).
fn color_choice(
    color: Option<Spanned<toml::Value>>,
    at: &impl Fn(std::ops::Range<usize>, String) -> String,
) -> Result<Option<ColorChoice>, String> {
    let Some(v) = color else {
        return Ok(None);
    };
    let text = match v.get_ref() {
        toml::Value::String(s) => s.clone(),
        toml::Value::Integer(i) => i.to_string(),
        other => format!("a {}", other.type_str()),
    };
    let c = match text.as_str() {
        "auto" => ColorChoice::Auto,
        "never" => ColorChoice::Never,
        "16" => ColorChoice::Ansi16,
        "256" => ColorChoice::Ansi256,
        "truecolor" => ColorChoice::TrueColor,
        _ => {
            return Err(at(
                v.span(),
                format!("color {text:?}: expected one of auto, never, 16, 256, truecolor"),
            ));
        }
    };
    Ok(Some(c))
}

/// The file's `theme`: one of its own `[themes.NAME]` tables (they come first) or a
/// built-in theme.
fn theme_choice(
    theme: Option<Spanned<String>>,
    customs: &[CustomTheme],
    at: &impl Fn(std::ops::Range<usize>, String) -> String,
) -> Result<Option<ThemeChoice>, String> {
    let Some(t) = theme else {
        return Ok(None);
    };
    if let Some(c) = customs.iter().find(|c| c.name == *t.get_ref()) {
        Ok(Some(ThemeChoice::Custom(c.clone())))
    } else if let Some(k) = ThemeKind::parse(t.get_ref()) {
        Ok(Some(ThemeChoice::Builtin(k)))
    } else {
        let mut names: Vec<String> = ThemeKind::ALL
            .iter()
            .map(|k| k.as_str().to_string())
            .collect();
        names.extend(customs.iter().map(|c| c.name.clone()));
        Err(at(
            t.span(),
            format!(
                "unknown theme {:?}: expected one of {} (or a [themes.NAME] table)",
                t.get_ref(),
                names.join(", ")
            ),
        ))
    }
}

/// The file's `[params]`, each within the explorer's bounds.
fn param_defaults(
    raw: Option<RawParams>,
    at: &impl Fn(std::ops::Range<usize>, String) -> String,
) -> Result<ParamDefaults, String> {
    let mut params = ParamDefaults::default();
    let Some(p) = raw else {
        return Ok(params);
    };
    let num = |v: Spanned<i64>, name: &str, lo: usize, hi: usize| {
        let n = *v.get_ref();
        if n < lo as i64 || n > hi as i64 {
            Err(at(
                v.span(),
                crate::engine::knobs::expected_int(name, lo as u64, hi as u64, &n.to_string()),
            ))
        } else {
            Ok(n as usize)
        }
    };
    params.top_k = p.top_k.map(|v| num(v, "top_k", 1, MAX_TOP_K)).transpose()?;
    params.depth = p.depth.map(|v| num(v, "depth", 0, MAX_DEPTH)).transpose()?;
    params.token_budget = p
        .token_budget
        .map(|v| num(v, "token_budget", 1, 10_000_000))
        .transpose()?;
    if let Some(pol) = p.policy {
        if !POLICIES.contains(&pol.get_ref().as_str()) {
            return Err(at(
                pol.span(),
                format!(
                    "policy {:?}: expected one of {}",
                    pol.get_ref(),
                    POLICIES.join(", ")
                ),
            ));
        }
        params.policy = Some(pol.into_inner().into());
    }
    Ok(params)
}

/// The file's `[keys]`: per command, the keys it is bound to, in file order.
fn key_requests(
    keys: Option<BTreeMap<Spanned<String>, Spanned<toml::Value>>>,
    src: &str,
    at: &impl Fn(std::ops::Range<usize>, String) -> String,
) -> Result<Vec<KeyRequest>, String> {
    let mut out = Vec::new();
    for (name, value) in keys.into_iter().flatten() {
        let Some(c) = commands::by_name(name.get_ref()) else {
            let near = commands::closest(name.get_ref());
            let hint = if near.is_empty() {
                String::new()
            } else {
                format!("; closest: {}", near.join(", "))
            };
            return Err(at(
                name.span(),
                format!("unknown command {:?} in [keys]{hint}", name.get_ref()),
            ));
        };
        if c.id == CmdId::ForceQuit {
            return Err(at(
                name.span(),
                "quit! cannot be rebound: Ctrl-C always quits".into(),
            ));
        }
        let mut parsed = Vec::new();
        for t in key_texts(&value, c.name, at)? {
            let k = parse_key(t.get_ref())
                .map_err(|e| at(t.span(), format!("keys for {}: {e}", c.name)))?;
            parsed.push((k, t.into_inner()));
        }
        out.push((
            name.span().start,
            KeyRequest {
                id: c.id,
                keys: parsed,
                line: line_of(src, name.span().start),
            },
        ));
    }
    // file order (the map is sorted by name)
    out.sort_by_key(|(start, _)| *start);
    Ok(out.into_iter().map(|(_, r)| r).collect())
}

/// One `[keys]` value's key names: a string or a list of strings, each with the value's
/// place.
fn key_texts(
    value: &Spanned<toml::Value>,
    command: &str,
    at: &impl Fn(std::ops::Range<usize>, String) -> String,
) -> Result<Vec<Spanned<String>>, String> {
    match value.get_ref() {
        toml::Value::String(s) => Ok(vec![Spanned::new(value.span(), s.clone())]),
        toml::Value::Array(a) => {
            let mut out = Vec::new();
            for v in a {
                match v {
                    toml::Value::String(s) => out.push(Spanned::new(value.span(), s.clone())),
                    _ => {
                        return Err(at(
                            value.span(),
                            format!("keys for {command}: expected key names (strings)"),
                        ));
                    }
                }
            }
            Ok(out)
        }
        _ => Err(at(
            value.span(),
            format!(
                "keys for {command}: expected a key name or a list of them, as \"Q\" or [\"z\", \"ctrl-z\"]"
            ),
        )),
    }
}

fn custom_theme(
    name: &Spanned<String>,
    table: RawTheme,
    at: &impl Fn(std::ops::Range<usize>, String) -> String,
) -> Result<CustomTheme, String> {
    let n = name.get_ref();
    if ThemeKind::parse(n).is_some() {
        return Err(at(
            name.span(),
            format!("[themes.{n}]: a built-in theme's name; choose another"),
        ));
    }
    let mut base = ThemeKind::Dark;
    let mut roles: Vec<(usize, Role, ThemeColor)> = Vec::new();
    for (key, value) in table {
        if key.get_ref() == "base" {
            base = match value.get_ref() {
                toml::Value::String(s) => ThemeKind::parse(s),
                _ => None,
            }
            .ok_or_else(|| {
                at(
                    value.span(),
                    "base: expected one of dark, light, high-contrast".into(),
                )
            })?;
            continue;
        }
        let Some(role) = role_by_name(key.get_ref()) else {
            return Err(at(
                key.span(),
                format!(
                    "unknown role {:?} in [themes.{n}] (roles: {})",
                    key.get_ref(),
                    ROLE_NAMES
                        .iter()
                        .map(|(n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        };
        let c = parse_color(value.get_ref())
            .map_err(|e| at(value.span(), format!("{}: {e}", key.get_ref())))?;
        roles.push((key.span().start, role, c));
    }
    roles.sort_by_key(|(at, ..)| *at);
    Ok(CustomTheme {
        name: n.clone(),
        base,
        roles: roles.into_iter().map(|(_, r, c)| (r, c)).collect(),
    })
}

/// The roles by their names in the file (kebab-case; `_` works too).
pub const ROLE_NAMES: [(&str, Role); Role::COUNT] = [
    ("text", Role::Text),
    ("muted", Role::Muted),
    ("title", Role::Title),
    ("border", Role::Border),
    ("border-focus", Role::BorderFocus),
    ("tab-active", Role::TabActive),
    ("selection", Role::Selection),
    ("prompt", Role::Prompt),
    ("placeholder", Role::Placeholder),
    ("header", Role::Header),
    ("score", Role::Score),
    ("chip-seed", Role::ChipSeed),
    ("chip-graph", Role::ChipGraph),
    ("chip-learn", Role::ChipLearn),
    ("badge-action", Role::BadgeAction),
    ("badge-resource", Role::BadgeResource),
    ("badge-module", Role::BadgeModule),
    ("badge-shape", Role::BadgeShape),
    ("badge-contract", Role::BadgeContract),
    ("badge-off", Role::BadgeOff),
    ("why-seed", Role::WhySeed),
    ("why-graph", Role::WhyGraph),
    ("why-learning", Role::WhyLearning),
    ("matched", Role::Matched),
    ("mark-target", Role::MarkTarget),
    ("mark-llm", Role::MarkLlm),
    ("good", Role::Good),
    ("warn", Role::Warn),
    ("bad", Role::Bad),
    ("key", Role::Key),
    ("disabled", Role::Disabled),
    ("note", Role::Note),
    ("section", Role::Section),
    ("json-key", Role::JsonKey),
    ("fuzzy-match", Role::FuzzyMatch),
    ("cursor-row", Role::CursorRow),
];

fn role_by_name(s: &str) -> Option<Role> {
    let k = s.to_ascii_lowercase().replace('_', "-");
    ROLE_NAMES.iter().find(|(n, _)| *n == k).map(|(_, r)| *r)
}

/// The 16 ANSI colours by name, with the xterm RGB values used to match others to them.
const NAMED: [(&str, Color, (u8, u8, u8)); 16] = [
    ("black", Color::Black, (0, 0, 0)),
    ("red", Color::Red, (205, 0, 0)),
    ("green", Color::Green, (0, 205, 0)),
    ("yellow", Color::Yellow, (205, 205, 0)),
    ("blue", Color::Blue, (0, 0, 238)),
    ("magenta", Color::Magenta, (205, 0, 205)),
    ("cyan", Color::Cyan, (0, 205, 205)),
    ("gray", Color::Gray, (229, 229, 229)),
    ("dark-gray", Color::DarkGray, (127, 127, 127)),
    ("light-red", Color::LightRed, (255, 0, 0)),
    ("light-green", Color::LightGreen, (0, 255, 0)),
    ("light-yellow", Color::LightYellow, (255, 255, 0)),
    ("light-blue", Color::LightBlue, (92, 92, 255)),
    ("light-magenta", Color::LightMagenta, (255, 0, 255)),
    ("light-cyan", Color::LightCyan, (0, 255, 255)),
    ("white", Color::White, (255, 255, 255)),
];

/// A colour: an ANSI name (`red`, `light-blue`, `bright-blue`, `dark-gray`), `#rrggbb`, or
/// a palette index 0–255.
pub fn parse_color(v: &toml::Value) -> Result<ThemeColor, String> {
    let expected = "expected an ANSI colour name (red, light-blue, dark-gray, …), \
                    \"#rrggbb\" or a number from 0 to 255";
    match v {
        toml::Value::Integer(i) => u8::try_from(*i)
            .map(ThemeColor::Index)
            .map_err(|_| format!("{i}: {expected}")),
        toml::Value::String(s) => {
            if let Some(hex) = s.strip_prefix('#') {
                let ok = hex.len() == 6 && hex.chars().all(|c| c.is_ascii_hexdigit());
                if !ok {
                    return Err(format!("{s:?}: {expected}"));
                }
                let b = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).unwrap_or(0);
                return Ok(ThemeColor::Rgb(b(0), b(2), b(4)));
            }
            let k = s
                .trim()
                .to_ascii_lowercase()
                .replace(['_', ' '], "-")
                .replace("bright-", "light-")
                .replace("grey", "gray");
            NAMED
                .iter()
                .find(|(n, ..)| *n == k)
                .map(|(_, c, _)| ThemeColor::Named(*c))
                .ok_or_else(|| format!("{s:?}: {expected}"))
        }
        other => Err(format!("a {}: {expected}", other.type_str())),
    }
}

/// The RGB value of a 256-colour palette index (xterm's).
fn index_rgb(i: u8) -> (u8, u8, u8) {
    match i {
        0..=15 => NAMED[i as usize].2,
        16..=231 => {
            let i = i - 16;
            let lvl = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
            (lvl(i / 36), lvl((i / 6) % 6), lvl(i % 6))
        }
        _ => {
            let g = 8 + 10 * (i - 232);
            (g, g, g)
        }
    }
}

fn dist(a: (u8, u8, u8), b: (u8, u8, u8)) -> u32 {
    let d = |x: u8, y: u8| (i32::from(x) - i32::from(y)).unsigned_abs();
    d(a.0, b.0).pow(2) + d(a.1, b.1).pow(2) + d(a.2, b.2).pow(2)
}

fn nearest_named(rgb: (u8, u8, u8)) -> Color {
    NAMED
        .iter()
        .min_by_key(|(_, _, v)| dist(rgb, *v))
        .map(|(_, c, _)| *c)
        .unwrap_or(Color::White)
}

fn nearest_index(rgb: (u8, u8, u8)) -> u8 {
    (16..=255u8)
        .min_by_key(|i| dist(rgb, index_rgb(*i)))
        .unwrap_or(231)
}

/// A custom colour as the terminal's colour level can show it.
fn downgrade(c: ThemeColor, level: ColorLevel) -> Color {
    match (c, level) {
        (ThemeColor::Named(n), _) => n,
        (ThemeColor::Index(i), ColorLevel::Ansi16 | ColorLevel::Mono) => {
            if i < 16 {
                NAMED[i as usize].1
            } else {
                nearest_named(index_rgb(i))
            }
        }
        (ThemeColor::Index(i), _) => Color::Indexed(i),
        (ThemeColor::Rgb(r, g, b), ColorLevel::TrueColor) => Color::Rgb(r, g, b),
        (ThemeColor::Rgb(r, g, b), ColorLevel::Ansi256) => Color::Indexed(nearest_index((r, g, b))),
        (ThemeColor::Rgb(r, g, b), _) => nearest_named((r, g, b)),
    }
}

/// The 1-based line of a byte offset.
fn line_of(src: &str, at: usize) -> usize {
    let at = at.min(src.len());
    src.as_bytes()[..at].iter().filter(|b| **b == b'\n').count() + 1
}

/// toml's message on one line, in the file's words (`unknown key "colr"`).
fn toml_message(m: &str) -> String {
    let flat = m
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace("expected i64", "expected an integer");
    if let Some(rest) = flat.strip_prefix("unknown field `")
        && let Some((name, tail)) = rest.split_once('`')
    {
        return format!("unknown key \"{name}\"{}", tail.replace('`', ""));
    }
    flat
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::commands::by_name;
    use crate::tui::commands::keymap::parse_key;

    fn k(s: &str) -> crate::tui::commands::Key {
        parse_key(s).unwrap()
    }

    const FILE: &str = "/x/config.toml";

    fn err(src: &str) -> String {
        parse(src, FILE).expect_err("an invalid file")
    }

    #[test]
    fn a_valid_file_gives_its_values() {
        let c = parse(
            "# comment\ntheme = \"light\"\ncolor = \"16\"\nascii = true\nmouse = true\n\n\
             [params]\ntop_k = 5\ndepth = 0\ntoken_budget = 500\npolicy = \"manual_review\"\n\n\
             [keys]\nquit = \"Q\"\nzoom = [\"z\", \"ctrl-z\"]\n",
            FILE,
        )
        .expect("valid");
        assert_eq!(c.theme, Some(ThemeChoice::Builtin(ThemeKind::Light)));
        assert_eq!(c.color, Some(ColorChoice::Ansi16));
        assert_eq!((c.ascii, c.mouse), (Some(true), Some(true)));
        assert_eq!(
            c.params,
            ParamDefaults {
                top_k: Some(5),
                depth: Some(0),
                token_budget: Some(500),
                policy: Some("manual_review".into()),
            }
        );
        let (p, s) = c.params.resolve();
        assert_eq!((p.top_k, p.depth, p.token_budget), (5, 0, 500));
        assert_eq!(s.policy, "manual_review");
        assert_eq!(c.keys.len(), 2);
        assert_eq!(c.keys[0].id, CmdId::Quit);
        assert_eq!(c.keys[0].line, 14);
        assert_eq!(c.keys[0].keys[0].0, k("Q"));
        assert_eq!(c.keys[1].id, CmdId::Zoom);
        assert_eq!(
            c.keys[1].keys.iter().map(|k| k.0).collect::<Vec<_>>(),
            vec![k("z"), k("ctrl-z")]
        );
        // an integer colour level works too
        assert_eq!(
            parse("color = 256", FILE).unwrap().color,
            Some(ColorChoice::Ansi256)
        );
        assert_eq!(parse("", FILE).unwrap(), Config::default());
    }

    #[test]
    fn each_error_names_file_and_line() {
        let cases: [(&str, &str); 12] = [
            (
                "theme = \"dark\"\n\ncolr = 1\n",
                "/x/config.toml:3: unknown key \"colr\"",
            ),
            ("ascii = true\nascii = [\n", "/x/config.toml:2: "),
            (
                "mouse = \"yes\"\n",
                "/x/config.toml:1: invalid type: string \"yes\", expected a boolean",
            ),
            (
                "\n[params]\ntop_k = 0\n",
                "/x/config.toml:3: top_k: expected an integer from 1 to 200, got 0",
            ),
            (
                "[params]\ndepth = \"2\"\n",
                "/x/config.toml:2: invalid type: string \"2\", expected an integer",
            ),
            (
                "[params]\npolicy = \"yolo\"\n",
                "/x/config.toml:2: policy \"yolo\": expected one of",
            ),
            (
                "[params]\ntopk = 3\n",
                "/x/config.toml:2: unknown key \"topk\"",
            ),
            (
                "theme = \"neon\"\n",
                "/x/config.toml:1: unknown theme \"neon\"",
            ),
            (
                "color = \"millions\"\n",
                "/x/config.toml:1: color \"millions\": expected one of",
            ),
            (
                "[keys]\n\nzom = \"x\"\n",
                "/x/config.toml:3: unknown command \"zom\" in [keys]; closest: zoom",
            ),
            (
                "[keys]\nzoom = \"hyper-z\"\n",
                "/x/config.toml:2: keys for zoom: bad key name \"hyper-z\"",
            ),
            (
                "[keys]\nzoom = 3\n",
                "/x/config.toml:2: keys for zoom: expected a key name",
            ),
        ];
        for (src, want) in cases {
            let e = err(src);
            assert!(e.starts_with(want), "{src:?}: {e}");
            assert!(!e.contains('\n'), "one line: {e}");
        }
    }

    #[test]
    fn custom_themes_recolour_roles_at_every_level() {
        let src = "theme = \"solar\"\n[themes.solar]\nbase = \"light\"\ntitle = \"#268bd2\"\n\
                   key = \"bright-magenta\"\nselection = 236\n";
        let c = parse(src, FILE).unwrap();
        let Some(ThemeChoice::Custom(t)) = c.theme else {
            panic!("a custom theme")
        };
        assert_eq!(t.base, ThemeKind::Light);
        let tc = t.build(ColorLevel::TrueColor);
        assert_eq!(tc.get(Role::Title).fg, Some(Color::Rgb(0x26, 0x8b, 0xd2)));
        assert_eq!(tc.get(Role::Key).fg, Some(Color::LightMagenta));
        assert_eq!(tc.get(Role::Selection).bg, Some(Color::Indexed(236)));
        // roles not listed keep the base theme
        let light = Theme::new(ThemeKind::Light, ColorLevel::TrueColor);
        assert_eq!(tc.get(Role::Bad), light.get(Role::Bad));
        // 256 colours: the nearest palette entry; 16: the nearest ANSI colour only
        let t256 = t.build(ColorLevel::Ansi256);
        assert!(matches!(t256.get(Role::Title).fg, Some(Color::Indexed(i)) if i >= 16));
        let t16 = t.build(ColorLevel::Ansi16);
        for (_, r) in ROLE_NAMES {
            let s = t16.get(r);
            for c in [s.fg, s.bg].into_iter().flatten() {
                assert!(
                    !matches!(c, Color::Rgb(..) | Color::Indexed(_)),
                    "{r:?}: {c:?}"
                );
            }
        }
        // NO_COLOR: no colour at all
        let mono = t.build(ColorLevel::Mono);
        assert_eq!(mono.get(Role::Title).fg, None);
        // an unknown role and a bad colour name their line
        let e = err("[themes.m]\nbase = \"dark\"\ntitl = \"red\"\n");
        assert!(
            e.starts_with("/x/config.toml:3: unknown role \"titl\""),
            "{e}"
        );
        let e = err("[themes.m]\n\ntitle = \"#12345\"\n");
        assert!(e.starts_with("/x/config.toml:3: title: \"#12345\""), "{e}");
        let e = err("[themes.m]\ntitle = 256\n");
        assert!(e.starts_with("/x/config.toml:2: title: 256"), "{e}");
        let e = err("[themes.dark]\ntitle = \"red\"\n");
        assert!(e.contains("built-in theme's name"), "{e}");
    }

    #[test]
    fn role_names_cover_every_role_once() {
        for (i, (_, r)) in ROLE_NAMES.iter().enumerate() {
            assert_eq!(*r as usize, i);
        }
        assert_eq!(role_by_name("border_focus"), Some(Role::BorderFocus));
    }

    #[test]
    fn flags_win_over_the_file_over_the_defaults() {
        let loaded = Loaded {
            located: Some(Located {
                path: FILE.into(),
                origin: "TOOLSCOPE_CONFIG",
            }),
            status: Status::Read,
            config: parse(
                "theme = \"light\"\ncolor = \"never\"\nascii = true\n[params]\ntop_k = 7\n",
                FILE,
            )
            .unwrap(),
        };
        let (o, st) = loaded.resolve(&UiFlags::default());
        assert_eq!(o.theme, ThemeKind::Light);
        assert_eq!(o.color, ColorChoice::Never);
        assert!(o.ascii && !o.mouse);
        assert_eq!(st.params.0.top_k, 7);
        assert_eq!(
            st.color_reason.as_deref(),
            Some("color = \"never\" in /x/config.toml")
        );
        let flags = UiFlags {
            color: Some(ColorChoice::Ansi256),
            theme: Some(ThemeKind::HighContrast),
            ascii: false,
            mouse: true,
        };
        let (o, st) = loaded.resolve(&flags);
        assert_eq!(o.theme, ThemeKind::HighContrast);
        assert_eq!(o.color, ColorChoice::Ansi256);
        assert!(o.mouse && o.ascii, "a bool flag adds to the file");
        assert_eq!(st.color_reason, None);
        // no file: the built-in defaults
        let none = Loaded::read(None);
        let (o, st) = none.resolve(&UiFlags::default());
        assert_eq!(o, UiOptions::default());
        assert_eq!(st.params, (Params::default(), SelectParams::default()));
        assert!(st.warnings.is_empty());
    }

    #[test]
    fn the_path_follows_the_environment() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| OsString::from(v))
            }
        };
        let l = locate(env(&[("HOME", "/h")])).unwrap();
        assert_eq!(l.path, Path::new("/h/.config/toolscope/config.toml"));
        let l = locate(env(&[("HOME", "/h"), ("XDG_CONFIG_HOME", "/x")])).unwrap();
        assert_eq!(l.path, Path::new("/x/toolscope/config.toml"));
        let l = locate(env(&[
            ("XDG_CONFIG_HOME", "/x"),
            ("TOOLSCOPE_CONFIG", "/t.toml"),
        ]))
        .unwrap();
        assert_eq!(
            (l.path.as_path(), l.origin),
            (Path::new("/t.toml"), "TOOLSCOPE_CONFIG")
        );
        assert_eq!(locate(env(&[("XDG_CONFIG_HOME", "")])), None);
    }

    #[test]
    fn an_invalid_file_is_one_warning_and_the_defaults() {
        let dir = crate::testutil::scratch("cfg");
        let p = dir.join("config.toml");
        std::fs::write(&p, "theme = \"light\"\n[keys]\nquit = \"ctrl-\"\n").unwrap();
        let l = Loaded::read(Some(Located {
            path: p.clone(),
            origin: "TOOLSCOPE_CONFIG",
        }));
        assert!(matches!(l.status, Status::Invalid(_)));
        assert_eq!(l.config, Config::default());
        let (o, st) = l.resolve(&UiFlags::default());
        assert_eq!(o.theme, ThemeKind::Dark);
        assert_eq!(st.warnings.len(), 1);
        assert!(
            st.warnings[0].starts_with(&format!("{}:3: keys for quit", p.display())),
            "{:?}",
            st.warnings
        );
        // a missing file is no warning
        let l = Loaded::read(Some(Located {
            path: dir.join("absent.toml"),
            origin: "$HOME",
        }));
        assert_eq!(l.status, Status::Missing);
        let _ = std::fs::remove_dir_all(&dir);
        // a key conflict keeps the rest of the file
        let l = Loaded {
            located: None,
            status: Status::Read,
            config: parse(
                "theme = \"light\"\n[keys]\nzoom = \"Z\"\nquit = \"j\"\n",
                FILE,
            )
            .unwrap(),
        };
        let (o, st) = l.resolve(&UiFlags::default());
        assert_eq!(o.theme, ThemeKind::Light);
        assert_eq!(st.warnings.len(), 1, "{:?}", st.warnings);
        assert!(
            st.warnings[0].starts_with("config.toml:4: key j for quit is already bound to :down")
        );
        let zoom = by_name("zoom").unwrap();
        assert_eq!(st.keys.bindings(zoom)[0].key, k("Z"));
    }
}
