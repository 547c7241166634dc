//! `toolscope [FILE]`: the interactive explorer's flags and start-up.

use clap::{Args, ValueEnum};
use std::path::PathBuf;

use super::fail;
use crate::tui::caps::{ColorChoice, UiOptions};
use crate::tui::event::Source;
use crate::tui::theme::ThemeKind;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    Auto,
    Never,
    #[value(name = "16")]
    C16,
    #[value(name = "256")]
    C256,
    Truecolor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ThemeArg {
    Dark,
    Light,
    HighContrast,
}

/// Terminal UI flags (also read by `doctor`).
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Explorer")]
pub struct UiArgs {
    /// ASCII borders and bars (for fragile fonts and screen readers)
    #[arg(long)]
    pub ascii: bool,
    /// Capture the mouse: wheel scrolls, click selects (off by default)
    #[arg(long)]
    pub mouse: bool,
    /// Colour: auto follows NO_COLOR, COLORTERM, TERM and tmux
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    pub color: ColorArg,
    /// Theme
    #[arg(long, value_enum, default_value_t = ThemeArg::Dark)]
    pub theme: ThemeArg,
}

impl UiArgs {
    pub fn options(&self) -> UiOptions {
        UiOptions {
            color: match self.color {
                ColorArg::Auto => ColorChoice::Auto,
                ColorArg::Never => ColorChoice::Never,
                ColorArg::C16 => ColorChoice::Ansi16,
                ColorArg::C256 => ColorChoice::Ansi256,
                ColorArg::Truecolor => ColorChoice::TrueColor,
            },
            ascii: self.ascii,
            mouse: self.mouse,
            theme: match self.theme {
                ThemeArg::Dark => ThemeKind::Dark,
                ThemeArg::Light => ThemeKind::Light,
                ThemeArg::HighContrast => ThemeKind::HighContrast,
            },
        }
    }
}

/// Flags that only make sense for the explorer.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Explorer")]
pub struct ExploreArgs {
    /// Learning suggestions to apply (L toggles them)
    #[arg(long, value_name = "FILE")]
    pub learning: Option<String>,
    /// Start with this query
    #[arg(long, value_name = "TEXT")]
    pub query: Option<String>,
    /// Where `s` saves screens (default: $XDG_STATE_HOME/toolscope/screens)
    #[arg(long, value_name = "DIR")]
    pub dump_dir: Option<PathBuf>,
}

pub fn run(file: Option<&str>, ui: &UiArgs, args: &ExploreArgs) -> u8 {
    let source = match file {
        None | Some("demo") => Source::Demo,
        Some(f) => {
            let p = PathBuf::from(f);
            // fail before taking over the terminal when the file cannot be opened at all
            if let Err(e) = std::fs::File::open(&p) {
                let why = match e.kind() {
                    std::io::ErrorKind::NotFound => "no such file".to_string(),
                    std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
                    _ => e.to_string(),
                };
                return fail(format!("{f}: {why}"));
            }
            Source::File(p)
        }
    };
    let learning = match &args.learning {
        Some(p) => match super::query::load_learning(p) {
            Ok(s) => s,
            Err(e) => return fail(e),
        },
        None => Vec::new(),
    };
    crate::tui::run(crate::tui::Options {
        source,
        ui: ui.options(),
        learning,
        query: args.query.clone(),
        dump_dir: args.dump_dir.clone(),
    })
}
