//! `toolscope build SPEC… -o collection.json`: build the graph graph-tool-call builds from
//! OpenAPI / Swagger specs (JSON or YAML), MCP tools/list results, function lists or GraphQL
//! introspection results (`--endpoint` is the reference's `endpoint_url`), with any Arazzo
//! workflow descriptions among the inputs applied to it; or apply Arazzo workflows to a
//! saved graph (`build graph.json workflows.arazzo.yaml -o out.json`).

use clap::Args;

use crate::ingest::{self, BuildOptions, artifact};

#[derive(Args, Debug)]
pub struct BuildArgs {
    /// Inputs: OpenAPI 3.x / Swagger 2.0 specs (JSON/YAML), MCP tools/list results,
    /// function lists or GraphQL introspection results (recognised from content); Arazzo
    /// 1.0 workflow descriptions among them are applied to the graph built from the others,
    /// or to one saved graph given instead of specs
    #[arg(required = true)]
    pub inputs: Vec<String>,
    /// Output file (`-` for stdout). An existing file is replaced only with --force, and
    /// never when it is one of the inputs
    #[arg(short, long)]
    pub output: String,
    /// Replace an existing output file (or write through a symbolic link at the output path)
    #[arg(long)]
    pub force: bool,
    /// MCP server name for each MCP input, in order (default: from the document)
    #[arg(long = "server")]
    pub servers: Vec<String>,
    /// GraphQL endpoint for introspection inputs (the reference's `endpoint_url`; without
    /// it the tools are built but not executable, and the summary says so)
    #[arg(long, value_name = "URL")]
    pub endpoint: Option<String>,
    /// Do not print the readiness summary
    #[arg(long)]
    pub quiet: bool,
}

pub fn run(args: BuildArgs) -> u8 {
    use std::io::IsTerminal;
    // a missing input is said first, as every command says it (the output's folder after;
    // a URL is left to the builder, which says it is not fetched)
    let local = |i: &&String| *i != "-" && !i.contains("://");
    if let Some((i, e)) = args.inputs.iter().filter(local).find_map(|i| {
        std::fs::metadata(i)
            .err()
            .filter(|e| e.kind() == std::io::ErrorKind::NotFound)
            .map(|e| (i, e))
    }) {
        return super::fail(crate::limits::io_error(i, &e));
    }
    // where the output goes is decided before the build: nothing is overwritten without
    // --force, and an input is never overwritten
    let target = match crate::output::file::prepare(&args.output, &args.inputs, args.force) {
        Ok(t) => t,
        Err(e) => return super::fail(e),
    };
    // on a terminal, a progress line (a 50k-operation build takes half a minute); the
    // build's warnings are then held back and printed once the line is cleared
    let live = !args.quiet && std::io::stderr().is_terminal();
    let opts = BuildOptions {
        server_names: args.servers.clone(),
        endpoint: args.endpoint.clone(),
        progress: if live {
            ingest::progress::Progress::new(progress_line)
        } else {
            Default::default()
        },
        built_at: None,
        tools_kept: true,
    };
    // this process builds one artifact, writes it and exits: repeated frozen text (the
    // same schemas and rows in many tools) is kept once
    ingest::frozen::share();
    // the input is read and parsed on one core: the other faults in the memory the build
    // is about to fill
    let spec = spec_bytes(args.inputs.iter().filter(local));
    crate::prefault::ahead(spec.saturating_mul(BYTES_WHILE_PARSING));
    let t0 = std::time::Instant::now();
    // warnings are held until the build ends: after a progress line is cleared, or, when
    // the build fails, folded into its one error line
    let (built, warnings) = ingest::capture_warnings(|| ingest::build_paths(&args.inputs, &opts));
    if live {
        eprint!("\r\x1b[2K");
    }
    let built = match built {
        Ok(b) => {
            for w in &warnings {
                crate::sanitize::eprint_line(format!("warning: {w}"));
            }
            b
        }
        Err(e) => {
            return super::fail(match warnings.first() {
                None => e.to_string(),
                Some(w) => format!(
                    "{e} (after {} warning{}; the first: {w})",
                    warnings.len(),
                    if warnings.len() == 1 { "" } else { "s" }
                ),
            });
        }
    };
    let t_build = t0.elapsed().as_secs_f64();
    if live && args.output != "-" {
        progress_line("writing", 1.0, &args.output);
    }
    let write = crate::output::file::write(&target, |mut out| {
        artifact::write_python_pretty_with_tools(&mut out, &built.value, &built.tools)
    });
    if live && args.output != "-" {
        eprint!("\r\x1b[2K");
    }
    if let Err(e) = write {
        return super::fail(e);
    }
    if !args.quiet {
        crate::sanitize::eprint_line(format!(
            "built {}, {} in {:.2} s ({:.2} s with writing) -> {}",
            crate::sanitize::count(built.tool_count as u64, "tool"),
            crate::sanitize::count(built.edge_count as u64, "edge"),
            t_build,
            t0.elapsed().as_secs_f64(),
            crate::sanitize::line(&args.output)
        ));
        if built.collection {
            crate::sanitize::eprint_text(&ingest::readiness::summary_text(&built.value));
        }
        if let Some((issues, fields)) = &built.graphql {
            crate::sanitize::eprint_text(&graphql_summary(issues, *fields, &built));
        }
        if let Some(w) = &built.workflows {
            crate::sanitize::eprint_text(&ingest::arazzo::summary_text(w));
        }
    }
    // the process ends here: freeing millions of JSON nodes one by one would only cost time
    std::mem::forget(built);
    super::EXIT_OK
}

/// What reading and parsing a spec fills per byte of it, at least (a JSON spec's tree
/// takes about 8 bytes per byte; a spec that is mostly one long text, about 1, but its
/// tools then copy that text many times): faulted in while it parses. What the later
/// stages fill is faulted in once the spec has parsed (`ingest` says how much).
const BYTES_WHILE_PARSING: usize = 10;

/// The bytes of the local inputs that are regular files whose head reads as a spec (anything
/// else counts nothing: a file that is not a spec is refused before the
/// build would use memory for it).
fn spec_bytes<'a>(local: impl Iterator<Item = &'a String>) -> usize {
    let read: u64 = local
        .map(std::path::Path::new)
        .filter_map(|p| Some((p, std::fs::metadata(p).ok().filter(|m| m.is_file())?.len())))
        .filter(|(p, _)| crate::sniff::sniff_path(p).is_ok_and(|k| k == crate::sniff::Kind::Spec))
        .map(|(_, len)| len)
        .sum();
    usize::try_from(read).unwrap_or(usize::MAX)
}

/// The readiness summary of a GraphQL build: the ingest result's readiness, its issues
/// by severity and code, and the graph's edge count.
fn graphql_summary(
    issues: &[ingest::graphql::Issue],
    fields: usize,
    built: &ingest::Built,
) -> String {
    let ready = !issues.iter().any(|i| i.severity == "blocker");
    let mut out = format!(
        "readiness: {} (GraphQL ingest), {} from {} in the schema\n",
        if ready { "ready" } else { "not ready" },
        crate::sanitize::count(built.tool_count as u64, "tool"),
        crate::sanitize::count(fields as u64, "root field"),
    );
    for l in ingest::graphql::issue_lines(issues) {
        out.push_str(&l);
        out.push('\n');
    }
    if !ready && issues.iter().any(|i| i.code == "graphql_endpoint_required") {
        out.push_str("  (pass --endpoint URL to make the tools executable)\n");
    }
    out.push_str(&format!(
        "graph: {}\n",
        crate::sanitize::count(built.edge_count as u64, "edge")
    ));
    out
}

/// Redraws the one-line build progress on stderr (a terminal).
fn progress_line(phase: &str, fraction: f64, detail: &str) {
    let detail = crate::sanitize::line(detail);
    let sep = if detail.is_empty() { "" } else { ": " };
    let mut line = format!("{:>3.0}% {phase}{sep}{detail}", (fraction * 100.0).floor());
    // one terminal row at most: a wrapped line could not be redrawn in place
    let cols = ratatui::crossterm::terminal::size().map_or(80, |(c, _)| c as usize);
    if let Some((i, _)) = line.char_indices().nth(cols.saturating_sub(1)) {
        line.truncate(i);
    }
    eprint!("\r\x1b[2K{line}");
}
