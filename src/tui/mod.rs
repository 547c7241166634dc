//! The interactive explorer (ratatui). All terminal code of toolscope lives under this
//! module; the engine stays terminal-free and the explorer only reads its `Retrieval` and
//! `Selection` values.
//!
//! Shape: a synchronous loop over ONE channel fed by an input thread, the query worker and
//! the loader ([`event`]). Each wake-up drains every pending event into [`app::App`]
//! (keys in, state and [`app::Effect`]s out), performs the effects and renders once
//! ([`views::render`], a pure function of the state) inside a synchronized update. There
//! is no tick: nothing is drawn while nothing happens. Queries carry a generation number;
//! the worker skips superseded jobs and the app drops stale results, so typing never waits.

pub mod app;
pub mod caps;
pub mod clipboard;
pub mod commands;
pub mod config;
pub mod demo;
pub mod derive;
pub mod drill;
pub mod emergency;
pub mod event;
pub mod export;
pub mod follow;
pub mod gdiff;
pub mod harness;
pub mod labclass;
pub mod reasons;
pub mod records;
pub mod screens;
pub mod sgr;
pub mod text;
pub mod theme;
pub mod views;
pub mod whynot;

use std::io::{self, BufWriter, IsTerminal, Stdout, Write};
use std::path::PathBuf;
use std::sync::mpsc::channel;

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use ratatui::crossterm::terminal::{
    BeginSynchronizedUpdate, EndSynchronizedUpdate, EnterAlternateScreen, LeaveAlternateScreen,
    disable_raw_mode, enable_raw_mode,
};
use ratatui::crossterm::{cursor, execute, queue};
use serde_json::Value;

use app::{App, Effect, FlashLevel};
use caps::{Caps, EnvProbe, UiOptions};
use event::Source;

/// Everything the explorer is started with.
#[derive(Clone, Debug)]
pub struct Options {
    pub source: Source,
    pub ui: UiOptions,
    /// Learning suggestions from `--learning FILE`.
    pub learning: Vec<Value>,
    /// Initial query (`--query`).
    pub query: Option<String>,
    /// The expected tools of that query when two graphs are compared (`--expected`).
    pub expected: Vec<String>,
    /// Where `s` writes screens (default: the state directory).
    pub dump_dir: Option<PathBuf>,
    /// A suite to evaluate on the Lab screen once the graph is loaded (`--cases`), and
    /// its label.
    pub cases: Option<(crate::lab::suite::Suite, String)>,
    /// A file to follow once the graph is loaded (`GRAPH FILE --follow`).
    pub follow: Option<PathBuf>,
    /// What the configuration file adds: key overrides, starting parameters, a custom
    /// theme, and its warnings (shown at start).
    pub startup: config::Startup,
}

/// Builds the initial state for a source (shared by the runtime and the harness).
pub fn initial_app(caps: Caps, opts: &Options) -> App {
    let name = |p: &std::path::Path| {
        p.file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| p.display().to_string())
    };
    let label = match &opts.source {
        Source::Demo => crate::demo::DEMO_NAME.to_string(),
        Source::File(p) | Source::Spec(p) | Source::Evidence(p) => name(p),
        Source::Diff(a, b) | Source::Graphs(a, b) => format!("{} vs {}", name(a), name(b)),
        Source::Follow(p) => name(p),
    };
    let mut app = App::new(caps, &label);
    let st = &opts.startup;
    app.custom_themes = st.themes.clone();
    if let Some(t) = &st.custom_theme {
        match app.custom_themes.iter().position(|c| c.name == t.name) {
            Some(i) => app.set_custom_theme(i),
            None => app.theme = t.build(app.caps.color),
        }
    }
    app.keys = st.keys.clone();
    app.start_params = st.params.clone();
    app.params = st.params.0.clone();
    app.select = st.params.1.clone();
    if let Some(w) = st.flash() {
        app.set_flash(FlashLevel::Warn, w);
    }
    match &opts.source {
        Source::Demo => app.demo.steps = demo::demo_steps(),
        Source::Evidence(_) => app.screen = screens::Screen::Evidence,
        Source::Diff(..) | Source::Graphs(..) => app.screen = screens::Screen::Diff,
        Source::Follow(_) => app.screen = screens::Screen::Follow,
        Source::File(_) | Source::Spec(_) => {}
    }
    if let Some(p) = &opts.follow {
        app.pending_follow = Some(p.clone());
        app.screen = screens::Screen::Follow;
    }
    if let Some(c) = &opts.cases {
        if matches!(opts.source, Source::Graphs(..)) {
            // two graphs: the suite is blamed on the Diff screen
            app.gd_suite = Some(c.clone());
        } else {
            app.pending_lab = Some(c.clone());
            app.screen = screens::Screen::Lab;
        }
    }
    app.gd_expected = opts.expected.clone();
    if !opts.learning.is_empty() {
        app.set_learning(opts.learning.clone());
    }
    if let Some(q) = &opts.query {
        app.query.set(&crate::sanitize::line(q));
    }
    app.dump_dir = opts
        .dump_dir
        .clone()
        .unwrap_or_else(export::default_dump_dir);
    app
}

/// Runs the explorer until the user quits. Returns the process exit code.
/// Whether the explorer can run here: standard input and output are a terminal.
pub fn has_terminal() -> bool {
    io::stdout().is_terminal() && io::stdin().is_terminal()
}

pub fn run(opts: Options) -> u8 {
    if !has_terminal() {
        eprintln!(
            "toolscope: the explorer needs a terminal (stdin and stdout must be a TTY); \
             use `toolscope query GRAPH QUERY` for text or --json"
        );
        return 2;
    }
    let env = EnvProbe::from_process();
    let mut caps = Caps::detect(&env, &opts.ui);
    if let Some(r) = &opts.startup.color_reason {
        caps.color_reason = r.clone();
    }
    // the configuration file's warnings stay on the shell's screen, above the explorer's
    for w in &opts.startup.warnings {
        crate::sanitize::eprint_line(format!("toolscope: {w}"));
    }
    let mut app = initial_app(caps, &opts);

    let (tx, rx) = channel();
    event::spawn_loader(opts.source.clone(), tx.clone());
    install_panic_hook();
    let guard = match TerminalGuard::enter(app.caps.mouse) {
        Ok(g) => g,
        Err(e) => {
            restore_terminal();
            crate::sanitize::eprint_line(format!("toolscope: cannot set up the terminal: {e}"));
            return 2;
        }
    };
    event::spawn_input(tx.clone());
    event::spawn_signals(tx.clone());
    // in 16-colour mode the filter turns crossterm's `38;5;N` into the classic SGR codes
    let backend = sgr::backend(
        BufWriter::with_capacity(1 << 16, io::stdout()),
        app.caps.color,
    );
    let mut terminal = match Terminal::new(backend) {
        Ok(t) => t,
        Err(e) => {
            drop(guard);
            crate::sanitize::eprint_line(format!("toolscope: cannot use the terminal: {e}"));
            return 2;
        }
    };
    let mut worker: Option<event::Worker> = None;
    let mut ev_worker: Option<event::EvidenceWorker> = None;
    let mut gd_worker: Option<gdiff::work::GdWorker> = None;
    let mut failed: Option<String> = None;
    if let Err(e) = draw(&mut terminal, &mut app) {
        failed = Some(e.to_string());
    }
    if std::env::var_os("TOOLSCOPE_TEST_PANIC").is_some() {
        // test hook: proves the panic hook restores the terminal (tests/tui_pty.rs)
        panic!("TOOLSCOPE_TEST_PANIC is set: panicking after the first frame");
    }
    if let Some(how) = std::env::var_os("TOOLSCOPE_TEST_CRASH") {
        // test hook: proves the terminal is restored when the process dies without
        // unwinding (tests/tui_pty.rs)
        crash_for_test(&how.to_string_lossy());
    }
    while failed.is_none() {
        let Ok(first) = rx.recv() else { break };
        let mut fx = app.on_event(first);
        while let Ok(ev) = rx.try_recv() {
            fx.extend(app.on_event(ev));
        }
        for e in fx {
            match e {
                Effect::EngineReady(engine) => {
                    worker = Some(event::Worker::spawn(engine.clone(), tx.clone()));
                    ev_worker = Some(event::EvidenceWorker::spawn(engine, tx.clone()));
                }
                Effect::GdStart(old, new, labels, epoch) => {
                    // the worker it replaces ends once its channel is dropped
                    let gtx = tx.clone();
                    gd_worker = Some(gdiff::work::GdWorker::spawn(
                        old,
                        new,
                        labels,
                        epoch,
                        move |m| gtx.send(app::AppEvent::Gd(m)).is_ok(),
                    ));
                }
                Effect::GdLoad(job) => event::spawn_pair_loader(*job, tx.clone()),
                Effect::Gd(job) => {
                    if let Some(w) = &gd_worker {
                        w.submit(*job);
                    }
                }
                Effect::Query(job) => {
                    if let Some(w) = &worker {
                        w.submit(*job);
                    }
                }
                Effect::Evidence(job) => {
                    if let Some(w) = &ev_worker {
                        w.submit(*job);
                    }
                }
                Effect::Lab(job) => {
                    if let Some(e) = &app.engine {
                        event::spawn_lab(e.clone(), *job, tx.clone());
                    }
                }
                Effect::Follow(job) => event::spawn_follow(app.engine.clone(), *job, tx.clone()),
                Effect::Emit(seq) => {
                    let b = terminal.backend_mut();
                    let _ = b.write_all(seq.as_bytes()).and_then(|_| b.flush());
                }
                Effect::Copy(job) => {
                    let in_tmux = app.caps.clipboard.tmux_passthrough;
                    let dir = app.dump_dir.clone();
                    let seq = app.deliver_copy(&job, in_tmux, Some(&dir));
                    let b = terminal.backend_mut();
                    let _ = b.write_all(seq.as_bytes()).and_then(|_| b.flush());
                }
                Effect::SaveScreen => save_screen(&mut app),
                Effect::Quit => {}
            }
        }
        if app.quit {
            break;
        }
        if let Err(e) = draw(&mut terminal, &mut app) {
            failed = Some(e.to_string());
        }
    }
    drop(terminal);
    drop(guard);
    if let Some(e) = app.load_error.take() {
        crate::sanitize::eprint_line(format!("toolscope: {}", crate::sanitize::line(&e)));
        return 2;
    }
    if let Some(e) = failed {
        crate::sanitize::eprint_line(format!("toolscope: terminal error: {e}"));
        return 2;
    }
    match app.exit_signal {
        // the shell convention for "ended by signal N"
        Some(sig) => (128 + sig).clamp(0, 255) as u8,
        None => 0,
    }
}

/// Dies the way `how` names: `alloc` (an allocation that fails, then the standard
/// allocation-failure abort), `abort`, `segv` or `bus` (the signal raised).
fn crash_for_test(how: &str) {
    match how {
        "alloc" => {
            let layout = std::alloc::Layout::from_size_align(1 << 62, 8).expect("layout");
            // (black_box: an optimiser may otherwise drop an allocation whose pointer is unused)
            // SAFETY: a plain allocation request; a null result is handled below.
            let p = std::hint::black_box(unsafe { std::alloc::alloc(layout) });
            if p.is_null() {
                std::alloc::handle_alloc_error(layout);
            }
        }
        "abort" => std::process::abort(),
        #[cfg(unix)]
        "segv" | "bus" => {
            let sig = if how == "segv" {
                libc::SIGSEGV
            } else {
                libc::SIGBUS
            };
            // SAFETY: raising a signal at ourselves.
            unsafe {
                libc::raise(sig);
            }
        }
        _ => {}
    }
}

type Term = Terminal<CrosstermBackend<sgr::Sgr16<BufWriter<Stdout>>>>;

/// One frame inside a synchronized update; feeds the measured layout back to the state.
fn draw(terminal: &mut Term, app: &mut App) -> io::Result<()> {
    queue!(terminal.backend_mut(), BeginSynchronizedUpdate)?;
    let mut info = None;
    terminal.draw(|f| info = Some(views::render(app, f)))?;
    execute!(terminal.backend_mut(), EndSynchronizedUpdate)?;
    if let Some(i) = info {
        app.note_layout(i);
    }
    Ok(())
}

fn save_screen(app: &mut App) {
    let (w, h) = app.layout.size;
    let dir = app.dump_dir.clone();
    match export::save(app, w.max(1), h.max(1), &dir) {
        Ok(paths) => {
            let first = paths.first().cloned().unwrap_or_default();
            let stem = first
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            app.set_flash(
                FlashLevel::Info,
                format!(
                    "saved {stem}.txt, .svg and .html in {}",
                    crate::sanitize::line(&dir.display().to_string())
                ),
            );
        }
        Err(e) => app.set_flash(
            FlashLevel::Error,
            format!(
                "could not save the screen in {}: {e}",
                crate::sanitize::line(&dir.display().to_string())
            ),
        ),
    }
}

/// Raw mode, alternate screen, bracketed paste, hidden cursor (and mouse when asked);
/// undone on drop, on every exit path.
struct TerminalGuard;

impl TerminalGuard {
    fn enter(mouse: bool) -> io::Result<TerminalGuard> {
        // saves the modes and arms the restore for aborts and fatal signals first
        emergency::arm();
        enable_raw_mode()?;
        let g = TerminalGuard;
        let mut out = io::stdout();
        execute!(
            out,
            EnterAlternateScreen,
            EnableBracketedPaste,
            cursor::Hide
        )?;
        if mouse {
            execute!(out, EnableMouseCapture)?;
        }
        Ok(g)
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// Puts the terminal back: idempotent, safe to call from the panic hook. The alternate
/// screen is cleared before it is left, so nothing of the last frame shows on the shell's
/// screen after a resize.
pub fn restore_terminal() {
    let entered = emergency::armed();
    emergency::disarm();
    let _ = disable_raw_mode();
    let mut out = io::stdout();
    let _ = execute!(
        out,
        DisableMouseCapture,
        DisableBracketedPaste,
        EndSynchronizedUpdate
    );
    if entered {
        let _ = execute!(
            out,
            ratatui::crossterm::style::ResetColor,
            ratatui::crossterm::terminal::Clear(ratatui::crossterm::terminal::ClearType::All)
        );
    }
    let _ = execute!(out, LeaveAlternateScreen, cursor::Show);
}

/// A panic on the main thread restores the terminal first, then reports. Panics on the
/// worker or loader threads are caught there and shown in the UI, so they stay quiet.
fn install_panic_hook() {
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().name() == Some("main") {
            restore_terminal();
            prev(info);
        }
    }));
}

/// The terminal size, when stdout is a terminal (for `doctor`).
pub fn terminal_size() -> Option<(u16, u16)> {
    if !io::stdout().is_terminal() {
        return None;
    }
    ratatui::crossterm::terminal::size().ok()
}
