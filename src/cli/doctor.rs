//! `toolscope doctor`: the terminal capabilities the explorer decides at start.

use clap::Args;

use super::EXIT_OK;
use super::tui::UiArgs;
use crate::tui::caps::{Caps, EnvProbe};

#[derive(Args, Debug)]
pub struct DoctorArgs {
    /// The explorer's flags: doctor prints what they decide
    #[command(flatten)]
    pub ui: UiArgs,
}

pub fn run(args: &DoctorArgs) -> u8 {
    let ui = &args.ui;
    let env = EnvProbe::from_process();
    let caps = Caps::detect(&env, &ui.options());
    let report = caps.report(&env, crate::tui::terminal_size());
    super::query::write_text(&report);
    EXIT_OK
}
