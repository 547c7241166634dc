//! `toolscope doctor`: the terminal capabilities the explorer decides at start, and the
//! configuration file in force (its path, whether it was read, its warnings).

use clap::Args;

use super::EXIT_OK;
use super::tui::UiArgs;
use crate::tui::caps::{Caps, EnvProbe};
use crate::tui::config::Loaded;

#[derive(Args, Debug)]
pub struct DoctorArgs {
    /// The explorer's flags: doctor prints what they decide
    #[command(flatten)]
    pub ui: UiArgs,
}

/// `top` holds the explorer flags given before the subcommand (`toolscope --color 16
/// doctor`); a flag given after it wins; flags win over the configuration file.
pub fn run(args: &DoctorArgs, top: &UiArgs) -> u8 {
    let (own, top) = (args.ui.flags(), top.flags());
    let mut flags = own.clone();
    flags.color = own.color.or(top.color);
    flags.theme = own.theme.or(top.theme);
    flags.ascii = own.ascii || top.ascii;
    flags.mouse = own.mouse || top.mouse;
    let env = EnvProbe::from_process();
    let loaded = Loaded::from_process();
    let (opts, startup) = loaded.resolve(&flags);
    for w in &startup.warnings {
        crate::sanitize::eprint_line(format!("toolscope: {w}"));
    }
    let mut caps = Caps::detect(&env, &opts);
    if let Some(r) = &startup.color_reason {
        caps.color_reason = r.clone();
    }
    let mut report = caps.report(&env, crate::tui::terminal_size());
    report.push('\n');
    report.push_str(&loaded.report(&startup));
    super::query::write_text(&report);
    EXIT_OK
}
