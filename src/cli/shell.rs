//! Shell integration: `toolscope completions SHELL` prints a completion script and
//! `toolscope man` a roff man page, both generated from the clap definitions
//! ([`super::Cli`]) by clap_complete and clap_mangen, so they never drift from `--help`.
//!
//! The man page is one page, `toolscope(1)`: the top-level synopsis, description and
//! options, then a COMMANDS section with every visible subcommand (nested ones such as
//! `lab eval` included), each with its synopsis and options.

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::EXIT_OK;
use super::query::write_stdout;

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to write the script for
    #[arg(value_enum)]
    pub shell: Shell,
}

/// The completion script for `a.shell` on stdout.
pub fn completions(a: &CompletionsArgs) -> u8 {
    let mut cmd = super::Cli::command();
    let mut buf = Vec::with_capacity(64 * 1024);
    clap_complete::generate(a.shell, &mut cmd, "toolscope", &mut buf);
    write_stdout(&buf);
    EXIT_OK
}

/// The man page on stdout.
pub fn man() -> u8 {
    match man_page() {
        Ok(page) => {
            write_stdout(&page);
            EXIT_OK
        }
        Err(e) => super::fail(format!("man page: {e}")),
    }
}

/// Renders `toolscope(1)`.
pub fn man_page() -> std::io::Result<Vec<u8>> {
    let mut cmd = super::Cli::command();
    // bin names ("toolscope lab eval") for the subcommands' synopses
    cmd.build();
    let top = clap_mangen::Man::new(cmd.clone());
    let mut out = Vec::with_capacity(64 * 1024);
    top.render_title(&mut out)?;
    top.render_name_section(&mut out)?;
    top.render_synopsis_section(&mut out)?;
    top.render_description_section(&mut out)?;
    top.render_options_section(&mut out)?;
    out.extend_from_slice(b".SH COMMANDS\n");
    for sub in visible_subcommands(&cmd) {
        write_command(&mut out, sub)?;
    }
    out.extend_from_slice(
        b".SH \"SEE ALSO\"\n\\fBtoolscope COMMAND \\-\\-help\\fR prints the same text for one command; \
          \\fBtoolscope completions\\fR writes shell completions.\n",
    );
    top.render_version_section(&mut out)?;
    Ok(one_preamble(&out))
}

/// Every render call starts with the same two-line `Aq` string definition; the page
/// keeps the first.
fn one_preamble(page: &[u8]) -> Vec<u8> {
    const PREAMBLE: [&str; 2] = [".ie \\n(.g .ds Aq \\(aq", ".el .ds Aq '"];
    let text = String::from_utf8_lossy(page);
    let mut out = String::with_capacity(text.len());
    let mut seen = false;
    let mut lines = text.lines().peekable();
    while let Some(l) = lines.next() {
        if l == PREAMBLE[0] && lines.peek() == Some(&PREAMBLE[1]) {
            lines.next();
            if seen {
                continue;
            }
            seen = true;
            out.push_str(PREAMBLE[0]);
            out.push('\n');
            out.push_str(PREAMBLE[1]);
            out.push('\n');
            continue;
        }
        out.push_str(l);
        out.push('\n');
    }
    out.into_bytes()
}

/// The subcommands `--help` lists, without `help` itself.
fn visible_subcommands(cmd: &clap::Command) -> impl Iterator<Item = &clap::Command> {
    cmd.get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
}

/// One subcommand as a `.SS` subsection (its name, about, synopsis and options), then
/// its own subcommands.
fn write_command(out: &mut Vec<u8>, sub: &clap::Command) -> std::io::Result<()> {
    let name = sub.get_bin_name().unwrap_or_else(|| sub.get_name());
    out.extend_from_slice(format!(".SS \"{}\"\n", roff_text(name)).as_bytes());
    if let Some(about) = sub.get_long_about().or_else(|| sub.get_about()) {
        for l in about.to_string().lines().filter(|l| !l.trim().is_empty()) {
            out.extend_from_slice(roff_text(l).as_bytes());
            out.push(b'\n');
        }
    }
    let page = clap_mangen::Man::new(sub.clone());
    let mut sections = Vec::new();
    page.render_synopsis_section(&mut sections)?;
    if sub.get_arguments().any(|a| !a.is_hide_set()) {
        page.render_options_section(&mut sections)?;
    }
    // inside a subsection, the renderer's section headings become bold paragraph labels
    for l in String::from_utf8_lossy(&sections).lines() {
        match l.strip_prefix(".SH ") {
            Some(h) => {
                let h = h.trim_matches('"');
                let label = format!("{}{}", &h[..1], h[1..].to_lowercase());
                out.extend_from_slice(format!(".PP\n\\fB{}:\\fR\n", roff_text(&label)).as_bytes());
            }
            None => {
                out.extend_from_slice(l.as_bytes());
                out.push(b'\n');
            }
        }
    }
    for s in visible_subcommands(sub) {
        write_command(out, s)?;
    }
    Ok(())
}

/// Text for a roff line: backslashes and hyphens escaped, a leading `.` or `'` guarded.
fn roff_text(s: &str) -> String {
    let e = s.replace('\\', "\\\\").replace('-', "\\-");
    if e.starts_with('.') || e.starts_with('\'') {
        format!("\\&{e}")
    } else {
        e
    }
}
