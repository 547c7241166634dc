//! `toolscope doctor`: the terminal capabilities the explorer decides at start.

use clap::Args;

use super::EXIT_OK;
use super::tui::UiArgs;
use crate::tui::caps::{Caps, EnvProbe, UiOptions};

#[derive(Args, Debug)]
pub struct DoctorArgs {
    /// The explorer's flags: doctor prints what they decide
    #[command(flatten)]
    pub ui: UiArgs,
}

/// `top` holds the explorer flags given before the subcommand (`toolscope --color 16
/// doctor`); a flag given after it wins.
pub fn run(args: &DoctorArgs, top: &UiArgs) -> u8 {
    let (own, top) = (args.ui.options(), top.options());
    // the clap defaults are `UiOptions::default()` (auto colour, dark theme)
    let default = UiOptions::default();
    let ui = UiOptions {
        color: if own.color != default.color {
            own.color
        } else {
            top.color
        },
        ascii: own.ascii || top.ascii,
        mouse: own.mouse || top.mouse,
        theme: if own.theme != default.theme {
            own.theme
        } else {
            top.theme
        },
    };
    let env = EnvProbe::from_process();
    let caps = Caps::detect(&env, &ui);
    let report = caps.report(&env, crate::tui::terminal_size());
    super::query::write_text(&report);
    EXIT_OK
}
