use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    toolscope::cli::run(toolscope::cli::Cli::parse())
}
