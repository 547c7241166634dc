//! `toolscope diff A B`: two graphs (saved graphs, collection artifacts, specs built on
//! load, or `demo`) give the artifact diff ([`crate::lab::graphdiff`]) as a human summary or
//! `--json`; two runs (evidence files, fixture folders) open the explorer's Diff screen.
//! Exit codes: 0 compared, 2 bad input (one line naming the file and place).

use clap::Args;
use std::path::Path;

use super::graph_arg::load_engine;
use super::query::{write_stdout, write_text};
use super::tui::UiArgs;
use super::{EXIT_OK, fail};
use crate::engine::Engine;
use crate::lab::graphdiff::{self, Side, report};

#[derive(Args, Debug, Clone)]
pub struct DiffArgs {
    /// The old graph (artifact, spec or `demo`), or the first run (an evidence file or a
    /// fixture folder)
    pub a: String,
    /// The new graph, or the second run
    pub b: String,
    /// Two graphs: the diff as one JSON object
    #[arg(long)]
    pub json: bool,
    /// Two graphs: list at most this many items per section (0: all)
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub limit: usize,
    #[command(flatten)]
    pub ui: UiArgs,
}

/// `demo`, or a file the sniffer calls a graph, a spec or a tool list.
pub fn is_graph_arg(arg: &str) -> bool {
    use crate::sniff::Kind;
    arg == "demo"
        || matches!(
            crate::sniff::sniff_path(Path::new(arg)),
            Ok(Kind::Graph | Kind::Spec | Kind::ToolList | Kind::Yaml)
        )
}

pub fn run(a: &DiffArgs) -> u8 {
    let graphs = (is_graph_arg(&a.a), is_graph_arg(&a.b));
    match graphs {
        (true, true) => run_graphs(a),
        (false, false) => {
            if a.json {
                return fail(
                    "--json compares two graphs; two runs open the Diff screen (lab diff A B --json compares runs)",
                );
            }
            super::tui::run_diff(&a.a, &a.b, &a.ui)
        }
        (old, _) => {
            let (graph, other) = if old { (&a.a, &a.b) } else { (&a.b, &a.a) };
            fail(format!(
                "{} is a graph but {} is not: diff compares two graphs, or two runs",
                crate::sanitize::line(graph),
                crate::sanitize::line(other)
            ))
        }
    }
}

/// Loads both graphs on two threads (each load is mostly single-threaded I/O and parsing).
pub fn load_pair(a: &str, b: &str) -> Result<(Engine, Engine), u8> {
    let (ra, rb) = std::thread::scope(|s| {
        let h = s.spawn(|| load_engine(a));
        let rb = load_engine(b);
        (
            h.join().unwrap_or_else(|p| {
                Err(crate::error::InputError::new(
                    a,
                    "",
                    crate::par::panic_text(&*p),
                ))
            }),
            rb,
        )
    });
    Ok((ra.map_err(fail)?, rb.map_err(fail)?))
}

fn run_graphs(a: &DiffArgs) -> u8 {
    let t = std::time::Instant::now();
    let (old, new) = match load_pair(&a.a, &a.b) {
        Ok(p) => p,
        Err(c) => return c,
    };
    graphdiff::timing("both graphs loaded and indexed", t);
    let d = graphdiff::diff(
        &Side {
            label: a.a.clone(),
            engine: &old,
        },
        &Side {
            label: a.b.clone(),
            engine: &new,
        },
    );
    if a.json {
        let mut s = report::json(&d);
        s.push('\n');
        write_stdout(s.as_bytes());
    } else {
        write_text(&report::text(&d, a.limit));
    }
    EXIT_OK
}
