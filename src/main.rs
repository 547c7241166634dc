//! The `toolscope` binary: parses the command line and runs it ([`toolscope::cli`]).

use clap::Parser;
use std::process::ExitCode;

mod allocator;

/// mimalloc for `toolscope build`, the system allocator otherwise (see `allocator.rs`).
#[global_allocator]
static ALLOCATOR: allocator::Allocator = allocator::Allocator;

fn main() -> ExitCode {
    allocator::register_prefault();
    match toolscope::cli::Cli::try_parse() {
        Ok(cli) => toolscope::cli::run(cli),
        Err(e) => toolscope::cli::usage_error(e),
    }
}
