//! Command-line interface: argument definitions and dispatch. One file per subcommand.

pub mod bench;
pub mod build;
pub mod diff;
pub mod doctor;
pub mod evidence;
pub mod graph_arg;
pub mod lab;
pub mod query;
pub mod select;
pub mod shell;
pub mod triage;
pub mod tui;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "toolscope",
    version,
    about = "Explore tool-retrieval evidence: reproduce graph-tool-call's ranking and target selection and see why",
    long_about = None,
    after_help = "Exit codes: 0 ok; 1 ran but found nothing (no result, a regression, no case \
                  classified); 2 usage or input error (one line naming the file and the place)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// What to open, detected from its content: a graph artifact (Explore), a response,
    /// fixture, selector block, JSON Lines of them or a fixture folder (Evidence), or two of
    /// those (Diff). Default: the embedded demo graph
    #[arg(num_args = 0..=2, value_name = "FILE")]
    pub file: Vec<String>,
    #[command(flatten)]
    pub ui: tui::UiArgs,
    #[command(flatten)]
    pub explore: tui::ExploreArgs,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Build a tool graph from OpenAPI/Swagger specs, MCP tool lists or function lists
    Build(build::BuildArgs),
    /// Rank tools for a query (retrieve_graphify) and optionally run the target selector
    #[command(override_usage = "toolscope query [OPTIONS] <GRAPH> <QUERY>\n       \
                                toolscope query [OPTIONS] <GRAPH> --batch <CASES.jsonl>")]
    Query(query::QueryArgs),
    /// Run the target selector over named candidates or a captured response's rows
    Select(select::SelectArgs),
    /// Print the terminal capabilities the explorer decides (colour, glyphs, mouse, clipboard)
    Doctor(doctor::DoctorArgs),
    /// Explain a reported score as a checked decomposition tree
    Explain(evidence::ExplainArgs),
    /// The event trace of one query (optionally of one tool)
    Trace(evidence::TraceArgs),
    /// Change exactly one knob and see what moves (one query, or a suite with --cases)
    Counterfactual(evidence::CounterfactualArgs),
    /// Which stage failed for an expected tool and why it lost (one case, or a suite with --cases)
    #[command(
        override_usage = "toolscope triage [OPTIONS] <GRAPH> <QUERY> --expected <NAME>\n       \
                          toolscope triage [OPTIONS] <GRAPH> --cases <SUITE>"
    )]
    Triage(triage::TriageArgs),
    /// Run a read-only evidence tool (`toolscope evidence contracts` lists them)
    Evidence(evidence::EvidenceArgs),
    /// Regression fixtures, diffs and suite evaluation
    Lab(lab::LabArgs),
    /// Serve the evidence tools over MCP (stdio JSON-RPC)
    Mcp(evidence::McpArgs),
    /// What changed between two graphs (and, with --cases or --query, which change moved
    /// each ranking), or two runs side by side in the explorer's Diff screen
    #[command(
        override_usage = "toolscope diff [OPTIONS] <OLD> <NEW>   (two graphs, or two runs)",
        after_help = DIFF_EXAMPLES
    )]
    Diff(diff::DiffArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish) to stdout
    Completions(shell::CompletionsArgs),
    /// Print the man page (roff) to stdout: toolscope man > ~/.local/share/man/man1/toolscope.1
    Man,
    /// Time loading and querying a graph (used by scripts/bench-vs-reference.sh)
    #[command(hide = true)]
    Bench(bench::BenchArgs),
}

/// Exit codes: 0 ok, 1 ran but found nothing, 2 usage or input error.
/// `toolscope diff --help`'s closing lines: the two kinds of pair it takes, by example.
const DIFF_EXAMPLES: &str = "\
Two graphs (saved graphs, collection artifacts, or specs built on load):
  toolscope diff old.graph.json new.graph.json                    what changed
  toolscope diff old.graph.json new.graph.json --json             the same, one JSON object
  toolscope diff old.graph.json new.graph.json --cases suite.json which change moved each case
  toolscope diff old.graph.json new.graph.json --query \"merge a pull request\" --expected mergePullRequest
  toolscope diff old.graph.json new.graph.json --cases suite.json --explore   the Diff screen

Two runs (evidence files: --batch output, trace envelopes; or fixture folders):
  toolscope diff run-a.jsonl run-b.jsonl                          the Diff screen, case by case";

pub const EXIT_OK: u8 = 0;
pub const EXIT_EMPTY: u8 = 1;
pub const EXIT_INPUT: u8 = 2;

pub fn run(cli: Cli) -> ExitCode {
    if let Err(m) = crate::limits::check_overrides() {
        return ExitCode::from(fail(m));
    }
    let code = match cli.command {
        Some(Command::Query(args)) => query::run(args),
        Some(Command::Build(args)) => build::run(args),
        Some(Command::Bench(args)) => bench::run(args),
        Some(Command::Select(args)) => select::run(args),
        Some(Command::Explain(args)) => evidence::run_explain(args),
        Some(Command::Trace(args)) => evidence::run_trace(args),
        Some(Command::Counterfactual(args)) => evidence::run_counterfactual(args),
        Some(Command::Triage(args)) => triage::run(args),
        Some(Command::Evidence(args)) => evidence::run_evidence(args),
        Some(Command::Mcp(args)) => evidence::run_mcp(args),
        Some(Command::Lab(args)) => lab::run(args),
        Some(Command::Doctor(args)) => doctor::run(&args, &cli.ui),
        Some(Command::Diff(args)) => diff::run(&args),
        Some(Command::Completions(args)) => shell::completions(&args),
        Some(Command::Man) => shell::man(),
        None => tui::run(&cli.file, &cli.ui, &cli.explore),
    };
    ExitCode::from(code)
}

/// A command line clap rejected: help and version are printed as clap prints them; an
/// error is one line (clap's message and its tip, without the usage block), exit 2.
pub fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_INPUT } else { EXIT_OK });
        }
        _ => {}
    }
    let rendered = e.render().to_string();
    // a missing argument also shows the usage, exactly as --help writes it
    let usage = match e.kind() {
        ErrorKind::MissingRequiredArgument => {
            let args: Vec<String> = std::env::args().skip(1).collect();
            help_usage(&args)
                .map(|u| format!("; usage: {u}"))
                .unwrap_or_default()
        }
        _ => String::new(),
    };
    crate::sanitize::eprint_line(format!(
        "toolscope: {}{usage} (see --help)",
        one_line_usage(&rendered)
    ));
    ExitCode::from(EXIT_INPUT)
}

/// The usage line of the (sub)command `args` name, as its `--help` prints it, on one line
/// (alternative forms joined by ` | `).
pub fn help_usage(args: &[String]) -> Option<String> {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    cmd.build();
    let mut at = &mut cmd;
    for a in args.iter().filter(|a| !a.starts_with('-')) {
        if at.find_subcommand(a).is_none() {
            break;
        }
        at = at.find_subcommand_mut(a)?;
    }
    let rendered = at.render_usage().to_string();
    let forms: Vec<String> = rendered
        .trim_start()
        .trim_start_matches("Usage:")
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .collect();
    (!forms.is_empty()).then(|| forms.join(" | "))
}

/// clap's rendered error as one line: the first paragraph and any `tip:`, whitespace
/// folded, without the `error:` prefix and the usage block.
pub fn one_line_usage(rendered: &str) -> String {
    let mut parts = Vec::new();
    for (i, para) in rendered.split("\n\n").enumerate() {
        let flat = para.split_whitespace().collect::<Vec<_>>().join(" ");
        if flat.is_empty() || flat.starts_with("Usage:") || flat.starts_with("For more information")
        {
            continue;
        }
        if i == 0 || flat.starts_with("tip:") {
            parts.push(flat);
        }
    }
    let s = parts.join("; ");
    let s = s.strip_prefix("error: ").unwrap_or(&s);
    // clap quotes the rejected value whole: a long one is cut to its start
    let mut out = String::with_capacity(s.len().min(512));
    let mut rest = s;
    while let Some(i) = rest.find('\'') {
        out.push_str(&rest[..=i]);
        rest = &rest[i + 1..];
        let Some(j) = rest.find('\'') else { break };
        let quoted = &rest[..j];
        if quoted.chars().count() > 60 {
            out.extend(quoted.chars().take(40));
            out.push_str(&format!("… ({} characters)", quoted.chars().count()));
        } else {
            out.push_str(quoted);
        }
        out.push('\'');
        rest = &rest[j + 1..];
    }
    out.push_str(rest);
    out
}

/// clap's parser for a query argument: the text as given, within
/// [`crate::limits::QUERY_BYTES`].
pub fn query_arg(s: &str) -> Result<String, String> {
    crate::limits::check_query(s).map(|()| s.to_string())
}

/// clap's parser for `--top-k`: an integer from 1 to the knob limit
/// ([`crate::engine::knobs::TOP_K_MAX`]); 0 is refused, as the explorer refuses it, because
/// it returns nothing.
pub fn top_k_arg(s: &str) -> Result<usize, String> {
    let max = crate::engine::knobs::TOP_K_MAX;
    let bad = || format!("expected an integer from 1 to {max} (the number of results)");
    match s.trim().parse::<u64>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n as usize),
        Ok(0) => Err(format!("{}; 0 returns no result", bad())),
        _ => Err(bad()),
    }
}

/// The selector policies the engine knows ([`crate::engine::params::POLICIES`]):
/// `strong_evidence` and `risk_limited` let strong evidence override the model's pick,
/// `manual_review` never overrides. clap refuses any other name and lists these.
pub fn policy_arg() -> impl clap::builder::TypedValueParser<Value = crate::engine::params::Policy> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(crate::engine::params::POLICIES.iter().copied())
        .map(crate::engine::params::Policy::from)
}

/// Prints an input error as one line and returns the input-error exit code.
pub fn fail(e: impl std::fmt::Display) -> u8 {
    crate::sanitize::eprint_line(format!("toolscope: {e}"));
    EXIT_INPUT
}
