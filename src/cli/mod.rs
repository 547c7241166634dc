//! Command-line interface: argument definitions and dispatch. One file per subcommand.

pub mod bench;
pub mod doctor;
pub mod graph_arg;
pub mod query;
pub mod tui;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "toolscope",
    version,
    about = "Explore tool-retrieval evidence: reproduce graph-tool-call's ranking and target selection and see why",
    long_about = None
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Artifact to open in the explorer (default: the embedded demo graph)
    pub file: Option<String>,
    #[command(flatten)]
    pub ui: tui::UiArgs,
    #[command(flatten)]
    pub explore: tui::ExploreArgs,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Rank tools for a query (retrieve_graphify) and optionally run the target selector
    Query(query::QueryArgs),
    /// Print the terminal capabilities the explorer decides (colour, glyphs, mouse, clipboard)
    Doctor(doctor::DoctorArgs),
    /// Time loading and querying a graph (used by scripts/bench-vs-reference.sh)
    #[command(hide = true)]
    Bench(bench::BenchArgs),
}

/// Exit codes: 0 ok, 1 ran but found nothing, 2 usage or input error.
pub const EXIT_OK: u8 = 0;
pub const EXIT_EMPTY: u8 = 1;
pub const EXIT_INPUT: u8 = 2;

pub fn run(cli: Cli) -> ExitCode {
    let code = match cli.command {
        Some(Command::Query(args)) => query::run(args),
        Some(Command::Bench(args)) => bench::run(args),
        Some(Command::Doctor(_)) => doctor::run(&cli.ui),
        None => tui::run(cli.file.as_deref(), &cli.ui, &cli.explore),
    };
    ExitCode::from(code)
}

/// Prints an input error as one line and returns the input-error exit code.
pub fn fail(e: impl std::fmt::Display) -> u8 {
    eprintln!("toolscope: {e}");
    EXIT_INPUT
}
