//! `toolscope [FILE]`: the interactive explorer's flags and start-up.

use clap::{Args, ValueEnum};
use std::path::PathBuf;

use super::fail;
use crate::tui::caps::{ColorChoice, UiOptions};
use crate::tui::config::{Loaded, Startup, UiFlags};
use crate::tui::event::Source;
use crate::tui::theme::ThemeKind;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    Auto,
    Never,
    #[value(name = "16")]
    C16,
    #[value(name = "256")]
    C256,
    Truecolor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ThemeArg {
    Dark,
    Light,
    HighContrast,
}

/// Terminal UI flags (also read by `doctor`).
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Explorer")]
pub struct UiArgs {
    /// ASCII borders and bars (for fragile fonts and screen readers)
    #[arg(long)]
    pub ascii: bool,
    /// Capture the mouse: wheel scrolls, click selects (off by default)
    #[arg(long)]
    pub mouse: bool,
    /// Colour: auto follows NO_COLOR, COLORTERM, TERM and tmux [default: auto, or the
    /// configuration file's `color`]
    #[arg(long, value_enum)]
    pub color: Option<ColorArg>,
    /// Theme [default: dark, or the configuration file's `theme`]
    #[arg(long, value_enum)]
    pub theme: Option<ThemeArg>,
}

impl UiArgs {
    /// The flags as given (an absent `--color` or `--theme` leaves the choice to the
    /// configuration file).
    pub fn flags(&self) -> UiFlags {
        UiFlags {
            color: self.color.map(|c| match c {
                ColorArg::Auto => ColorChoice::Auto,
                ColorArg::Never => ColorChoice::Never,
                ColorArg::C16 => ColorChoice::Ansi16,
                ColorArg::C256 => ColorChoice::Ansi256,
                ColorArg::Truecolor => ColorChoice::TrueColor,
            }),
            ascii: self.ascii,
            mouse: self.mouse,
            theme: self.theme.map(|t| match t {
                ThemeArg::Dark => ThemeKind::Dark,
                ThemeArg::Light => ThemeKind::Light,
                ThemeArg::HighContrast => ThemeKind::HighContrast,
            }),
        }
    }

    /// The flags over the configuration file over the defaults.
    pub fn resolve(&self) -> (UiOptions, Startup) {
        Loaded::from_process().resolve(&self.flags())
    }
}

/// Flags that only make sense for the explorer.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Explorer")]
pub struct ExploreArgs {
    /// Learning suggestions to apply (L toggles them)
    #[arg(long, value_name = "FILE")]
    pub learning: Option<String>,
    /// Start with this query
    #[arg(value_parser = super::query_arg, long, value_name = "TEXT")]
    pub query: Option<String>,
    /// Where `s` saves screens (default: $XDG_STATE_HOME/toolscope/screens)
    #[arg(long, value_name = "DIR")]
    pub dump_dir: Option<PathBuf>,
    /// Evaluate this suite on the graph and open the Lab screen
    #[arg(long, value_name = "SUITE")]
    pub cases: Option<String>,
    /// Follow the evidence file as it grows (JSON Lines, like tail -F): each record
    /// classified and, with a graph (toolscope GRAPH FILE --follow), replayed
    #[arg(long)]
    pub follow: bool,
}

/// Fails before taking over the terminal when a path cannot be opened at all (a FIFO,
/// socket or device is refused here, before anything blocks on it), or is a folder with
/// no evidence file to read (as `lab replay` refuses it).
fn check_path(f: &str) -> Result<PathBuf, u8> {
    let p = PathBuf::from(f);
    if p.is_dir() {
        return match crate::lab::record::folder_files(&p, &["json", "jsonl"]) {
            Ok(files) if files.is_empty() => Err(fail(crate::error::InputError::new(
                &crate::limits::shown(&p),
                "",
                "no .json or .jsonl file in the folder".into(),
            ))),
            Ok(_) => Ok(p),
            Err(e) => Err(fail(e)),
        };
    }
    match crate::limits::open_regular(&p) {
        Ok(_) => Ok(p),
        Err(e) => Err(fail(e)),
    }
}

/// The Diff screen on two runs (evidence files or fixture folders).
pub fn run_diff(a: &str, b: &str, ui: &UiArgs) -> u8 {
    // one error line: the first file that cannot be opened
    let (a, b) = match check_path(a).and_then(|a| Ok((a, check_path(b)?))) {
        Ok(ab) => ab,
        Err(c) => return c,
    };
    let (ui, startup) = ui.resolve();
    crate::tui::run(crate::tui::Options {
        source: Source::Diff(a, b),
        ui,
        learning: Vec::new(),
        query: None,
        expected: Vec::new(),
        dump_dir: None,
        cases: None,
        follow: None,
        startup,
    })
}

/// The Diff screen on two graphs (`diff OLD NEW --explore`): the artifact diff, and the
/// suite's cases (or the query) blamed on the changes.
pub fn run_graphs(
    a: &str,
    b: &str,
    ui: &UiArgs,
    cases: Option<(crate::lab::suite::Suite, String)>,
    query: Option<String>,
    expected: Vec<String>,
) -> u8 {
    let path = |f: &str| -> Result<PathBuf, u8> {
        if f == "demo" {
            Ok(PathBuf::from("demo"))
        } else {
            check_path(f)
        }
    };
    let (a, b) = match path(a).and_then(|a| Ok((a, path(b)?))) {
        Ok(ab) => ab,
        Err(c) => return c,
    };
    let (ui, startup) = ui.resolve();
    crate::tui::run(crate::tui::Options {
        source: Source::Graphs(a, b),
        ui,
        learning: Vec::new(),
        query,
        expected,
        dump_dir: None,
        cases,
        follow: None,
        startup,
    })
}

/// What `--follow` opens: the file to follow, and the graph (if one is given). The file
/// to follow may be empty, missing or begin with garbage (`:follow FILE` accepts the same):
/// it is the argument that is not recognisably a graph — only a file whose content sniffs
/// as a graph artifact or a spec counts as one (an empty, missing, unreadable or
/// unrecognised file does not) — and, when neither of two is recognisably a graph, the
/// last one (the first is then loaded as the graph, and its loader says what is wrong).
fn follow_source(files: &[String], args: &ExploreArgs) -> Result<(Source, PathBuf), u8> {
    use crate::sniff::Kind;
    if args.cases.is_some() {
        return Err(fail(
            "--follow and --cases: give one (the Follow screen replays records, the Lab evaluates a suite)",
        ));
    }
    // a followed file may not exist yet: the screen says so and waits for it
    let followed = |f: &str| -> Result<PathBuf, u8> {
        let p = PathBuf::from(f);
        if p.is_dir() {
            return Err(fail(format!(
                "{}: a folder; --follow tails one JSON Lines file",
                crate::sanitize::line(f)
            )));
        }
        if p.exists() {
            check_path(f)?;
        }
        Ok(p)
    };
    // what an argument is, from its content (None: missing, empty or unreadable)
    let sniffed = |f: &str| -> Result<Option<Kind>, u8> {
        if f == "demo" {
            return Ok(Some(Kind::Graph));
        }
        let p = PathBuf::from(f);
        if !p.is_file() {
            return Ok(None);
        }
        check_path(f)?;
        Ok(crate::sniff::sniff_path(&p).ok())
    };
    let is_graph = |k: Option<Kind>| matches!(k, Some(Kind::Graph | Kind::Spec | Kind::ToolList));
    let graph = |f: &str, k: Option<Kind>| match k {
        _ if f == "demo" => Source::Demo,
        Some(Kind::Spec | Kind::ToolList | Kind::Yaml) => Source::Spec(PathBuf::from(f)),
        _ => Source::File(PathBuf::from(f)),
    };
    match files {
        [] => Err(fail(
            "--follow needs the file to follow: toolscope [GRAPH] FILE --follow",
        )),
        [f] => {
            if is_graph(sniffed(f)?) {
                return Err(fail(format!(
                    "{}: a graph; give the evidence file to follow too: toolscope GRAPH FILE --follow",
                    crate::sanitize::line(f)
                )));
            }
            Ok((Source::Follow(followed(f)?), PathBuf::new()))
        }
        [a, b] => {
            let (ka, kb) = (sniffed(a)?, sniffed(b)?);
            match (is_graph(ka), is_graph(kb)) {
                (true, true) => Err(fail(
                    "--follow: two graphs; give one graph and the evidence file to follow",
                )),
                (true, false) => Ok((graph(a, ka), followed(b)?)),
                (false, true) => Ok((graph(b, kb), followed(a)?)),
                (false, false)
                    if matches!(ka, Some(Kind::Evidence | Kind::Suite | Kind::Learning)) =>
                {
                    Err(fail(
                        "--follow with two files: one graph (or demo) and the file to follow",
                    ))
                }
                (false, false) => Ok((graph(a, ka), followed(b)?)),
            }
        }
        _ => Err(fail("--follow takes one file, or a graph and one file")),
    }
}

/// Without a terminal the explorer cannot start; before saying so, a file whose content
/// is not recognisably anything is read by the graph loader the explorer would give it,
/// so a bad file is named with its place (as on a terminal), not hidden behind "needs a
/// terminal".
fn check_before_terminal(source: &Source) -> Result<(), u8> {
    if crate::tui::has_terminal() {
        return Ok(());
    }
    if let Source::File(p) = source
        && matches!(
            crate::sniff::sniff_path(p),
            Ok(crate::sniff::Kind::Unknown) | Err(_)
        )
        && let Err(e) = crate::model::load::load_graph_file(p)
    {
        return Err(fail(e));
    }
    Ok(())
}

/// Opens the explorer on FILES: a followed file with `--follow`; otherwise the source
/// the files make, with its case list and learning suggestions, once a terminal is sure.
pub fn run(files: &[String], ui: &UiArgs, args: &ExploreArgs) -> u8 {
    if args.follow {
        return run_follow(files, ui, args);
    }
    let (source, graph_and_records) = match explore_source(files) {
        Ok(x) => x,
        Err(c) => return c,
    };
    if graph_and_records.is_some() && args.cases.is_some() {
        return fail("give either a records file or --cases with the graph, not both");
    }
    let cases = match load_cases(args, graph_and_records.as_ref(), &source) {
        Ok(c) => c,
        Err(c) => return c,
    };
    let learning = match &args.learning {
        Some(p) => match super::query::load_learning(p) {
            Ok(s) => s,
            Err(e) => return fail(e),
        },
        None => Vec::new(),
    };
    if let Err(c) = check_before_terminal(&source) {
        return c;
    }
    let (ui, startup) = ui.resolve();
    crate::tui::run(crate::tui::Options {
        source,
        ui,
        learning,
        query: args.query.clone(),
        expected: Vec::new(),
        dump_dir: args.dump_dir.clone(),
        cases,
        follow: None,
        startup,
    })
}

/// `--follow`: the explorer on a followed file (with a graph, or the demo).
fn run_follow(files: &[String], ui: &UiArgs, args: &ExploreArgs) -> u8 {
    let (source, path) = match follow_source(files, args) {
        Ok(x) => x,
        Err(c) => return c,
    };
    let follow = (!matches!(source, Source::Follow(_))).then_some(path);
    let (ui, startup) = ui.resolve();
    crate::tui::run(crate::tui::Options {
        source,
        ui,
        learning: Vec::new(),
        query: None,
        expected: Vec::new(),
        dump_dir: args.dump_dir.clone(),
        cases: None,
        follow,
        startup,
    })
}

/// What the explorer opens for FILES (without `--follow`): the source, and the captured
/// records file whose queries become the case list when one is given with a graph.
fn explore_source(files: &[String]) -> Result<(Source, Option<String>), u8> {
    match files {
        [] => Ok((Source::Demo, None)),
        [f] if f == "demo" => Ok((Source::Demo, None)),
        [f] => one_file_source(f).map(|s| (s, None)),
        [d, f] | [f, d] if d == "demo" => demo_and_file_source(files, f),
        [a, b] => two_files_source(a, b),
        _ => Err(fail(
            "at most two files: one opens it, two are compared (Diff screen)",
        )),
    }
}

/// One file: the screen is chosen from its content (a suite or learning suggestions
/// alone are refused with the command that uses them).
fn one_file_source(f: &str) -> Result<Source, u8> {
    use crate::tui::records::{FileKind, detect};
    let p = check_path(f)?;
    // the screen is chosen from the content
    match detect(&p) {
        FileKind::Graph => Ok(Source::File(p)),
        FileKind::Evidence => Ok(Source::Evidence(p)),
        FileKind::Spec => Ok(Source::Spec(p)),
        FileKind::Suite => Err(fail(format!(
            "{}: a suite of labelled queries; evaluate it on a graph: \
             toolscope GRAPH --cases FILE",
            crate::sanitize::line(f)
        ))),
        FileKind::Learning => Err(fail(format!(
            "{}: learning suggestions; apply them to a graph: \
             toolscope GRAPH --learning FILE",
            crate::sanitize::line(f)
        ))),
    }
}

/// The demo graph and a file `f`: captured records (their queries as a case list), or
/// another graph to compare with, in the order given.
fn demo_and_file_source(files: &[String], f: &str) -> Result<(Source, Option<String>), u8> {
    use crate::tui::records::{FileKind, detect};
    let p = check_path(f)?;
    if detect(&p) == FileKind::Evidence {
        return Ok((Source::Demo, Some(f.to_string())));
    }
    // the demo graph and another graph: compared, in the order given
    if matches!(detect(&p), FileKind::Graph | FileKind::Spec) {
        return Ok(if files[0] == "demo" {
            (Source::Graphs("demo".into(), p), None)
        } else {
            (Source::Graphs(p, "demo".into()), None)
        });
    }
    Err(fail(format!(
        "{}: with the demo graph, give captured records (their queries become a \
         case list) or use --cases SUITE",
        crate::sanitize::line(f)
    )))
}

/// Two files: a graph and captured records (the records' queries as a case list), two
/// graphs (the artifact diff and the ranking blame, OLD first), or two records (Diff).
fn two_files_source(a: &str, b: &str) -> Result<(Source, Option<String>), u8> {
    use crate::tui::records::{FileKind, detect};
    let graph_source = |p: std::path::PathBuf, k: FileKind| match k {
        FileKind::Spec => Source::Spec(p),
        _ => Source::File(p),
    };
    // one error line when both are missing: the first is checked first
    let (pa, pb) = check_path(a).and_then(|pa| Ok((pa, check_path(b)?)))?;
    Ok(match (detect(&pa), detect(&pb)) {
        // a graph and captured records: the records' queries as a case list
        (k @ (FileKind::Graph | FileKind::Spec), FileKind::Evidence) => {
            (graph_source(pa, k), Some(b.to_string()))
        }
        (FileKind::Evidence, k @ (FileKind::Graph | FileKind::Spec)) => {
            (graph_source(pb, k), Some(a.to_string()))
        }
        // two graphs: the artifact diff and the ranking blame (OLD first)
        (FileKind::Graph | FileKind::Spec, FileKind::Graph | FileKind::Spec) => {
            (Source::Graphs(pa, pb), None)
        }
        _ => (Source::Diff(pa, pb), None),
    })
}

/// The case list: `--cases SUITE`, or the queries of the records given with a graph
/// (labelled with the file's name); refused for screens without a graph.
fn load_cases(
    args: &ExploreArgs,
    graph_and_records: Option<&String>,
    source: &Source,
) -> Result<Option<(crate::lab::suite::Suite, String)>, u8> {
    let Some(c) = args.cases.as_ref().or(graph_and_records) else {
        return Ok(None);
    };
    if matches!(source, Source::Evidence(_) | Source::Diff(..)) {
        return Err(fail(
            "--cases needs a graph (toolscope GRAPH --cases SUITE)",
        ));
    }
    match crate::lab::suite::load_suite(std::path::Path::new(c)) {
        Ok(s) => {
            let label = std::path::Path::new(c)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| c.clone());
            Ok(Some((s, label)))
        }
        Err(e) if graph_and_records.is_some() => Err(fail(format!(
            "{e} (a graph and a records file open the records' queries as a case \
             list; to read records without queries open the file alone, or check \
             them with `toolscope lab replay GRAPH FILE`)"
        ))),
        Err(e) => Err(fail(e)),
    }
}
