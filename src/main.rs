use clap::Parser;
use std::process::ExitCode;

mod allocator;

/// mimalloc for `toolscope build`, the system allocator otherwise (see `allocator.rs`).
#[global_allocator]
static ALLOCATOR: allocator::Allocator = allocator::Allocator;

fn main() -> ExitCode {
    toolscope::cli::run(toolscope::cli::Cli::parse())
}
