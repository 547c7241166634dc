//! End to end: the real binary in a pseudo-terminal (portable-pty + vt100). Types a demo
//! query, reads the top candidate and its badges off the screen, opens help, quits and
//! checks that the terminal was restored (alternate screen left, cursor shown); reads the
//! raw bytes for the 16-colour SGR codes; grows the window and checks the shell's screen
//! after quitting (in the pseudo-terminal, and under tmux where it is installed).

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

struct Pty {
    parser: Arc<Mutex<vt100::Parser>>,
    /// Every byte the child wrote, as written.
    raw: Arc<Mutex<Vec<u8>>>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
    /// Kept for resizing; never dropped (it must outlive the child).
    master: Option<Box<dyn portable_pty::MasterPty + Send>>,
}

impl Drop for Pty {
    fn drop(&mut self) {
        // keep the master alive for the child's lifetime, as before
        std::mem::forget(self.master.take());
    }
}

impl Pty {
    fn spawn(args: &[&str], cols: u16, rows: u16) -> Pty {
        Pty::spawn_env(args, &[], cols, rows)
    }

    fn spawn_env(args: &[&str], envs: &[(&str, &str)], cols: u16, rows: u16) -> Pty {
        Pty::spawn_cmd(
            CommandBuilder::new(env!("CARGO_BIN_EXE_toolscope")),
            args,
            envs,
            cols,
            rows,
        )
    }

    /// toolscope under `sh`, which prints its exit status after it ends.
    fn spawn_then_exit(args: &[&str], cols: u16, rows: u16) -> Pty {
        let mut cmd = CommandBuilder::new("/bin/sh");
        cmd.args([
            "-c",
            "\"$0\" \"$@\"; echo \"EXIT=$?\"",
            env!("CARGO_BIN_EXE_toolscope"),
        ]);
        Pty::spawn_cmd(cmd, args, &[], cols, rows)
    }

    /// toolscope under `sh`, which prints its exit status and `stty -a` after it ends (the
    /// terminal modes toolscope left behind).
    fn spawn_then_stty(envs: &[(&str, &str)], cols: u16, rows: u16) -> Pty {
        let mut cmd = CommandBuilder::new("/bin/sh");
        cmd.args([
            "-c",
            "\"$0\"; echo \"EXIT=$?\"; stty -a; echo STTY-DONE",
            env!("CARGO_BIN_EXE_toolscope"),
        ]);
        Pty::spawn_cmd(cmd, &[], envs, cols, rows)
    }

    fn spawn_cmd(
        mut cmd: CommandBuilder,
        args: &[&str],
        envs: &[(&str, &str)],
        cols: u16,
        rows: u16,
    ) -> Pty {
        let pty = native_pty_system();
        let pair = pty
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("openpty");
        cmd.args(args);
        cmd.env("TERM", "xterm-256color");
        cmd.env_remove("NO_COLOR");
        cmd.env_remove("TMUX");
        cmd.env("XDG_STATE_HOME", std::env::temp_dir());
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let child = pair.slave.spawn_command(cmd).expect("spawn toolscope");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().unwrap();
        let writer = pair.master.take_writer().unwrap();
        let parser = Arc::new(Mutex::new(vt100::Parser::new(rows, cols, 0)));
        let raw = Arc::new(Mutex::new(Vec::new()));
        let (p, r) = (parser.clone(), raw.clone());
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                p.lock().unwrap().process(&buf[..n]);
                r.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Pty {
            parser,
            raw,
            writer,
            child,
            master: Some(pair.master),
        }
    }

    /// Resizes the terminal (the child gets SIGWINCH) and the emulator with it.
    fn resize(&self, cols: u16, rows: u16) {
        self.parser
            .lock()
            .unwrap()
            .screen_mut()
            .set_size(rows, cols);
        self.master
            .as_ref()
            .unwrap()
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("resize");
    }

    fn raw(&self) -> Vec<u8> {
        self.raw.lock().unwrap().clone()
    }

    fn screen(&self) -> String {
        self.parser.lock().unwrap().screen().contents()
    }

    fn send(&mut self, s: &str) {
        self.writer.write_all(s.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    /// Waits until `pred` holds for the screen text.
    fn wait_for(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let t = Instant::now();
        loop {
            let s = self.screen();
            if pred(&s) {
                return s;
            }
            if t.elapsed() > Duration::from_secs(20) {
                panic!("timed out waiting for {what}; screen:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

#[test]
fn type_a_query_read_the_screen_open_help_and_quit() {
    let mut p = Pty::spawn(&[], 120, 40);
    p.wait_for("the first demo step", |s| {
        s.contains("Candidates (10)") && s.contains("deleteExpiredCoupons")
    });
    {
        let parser = p.parser.lock().unwrap();
        let scr = parser.screen();
        assert!(scr.alternate_screen(), "runs on the alternate screen");
    }
    // type a demo query: `/`, clear the line, the text
    p.send("/");
    p.send("\u{15}"); // Ctrl-U
    p.send("approve refund");
    let s = p.wait_for("the approve refund results", |s| {
        s.lines()
            .next()
            .is_some_and(|l| l.contains("approve refund"))
            && s.lines().any(|l| l.contains("   1 approveRefund"))
    });
    let row = s
        .lines()
        .find(|l| l.contains("   1 approveRefund"))
        .unwrap()
        .to_string();
    // the selected target mark, the score and the badges A...C (action and contract)
    assert!(row.contains("*   1 approveRefund"), "{row}");
    assert!(row.contains("1.0000"), "{row}");
    assert!(row.contains("A···C"), "{row}");
    assert!(row.contains("seed #1"), "{row}");
    let second = s
        .lines()
        .find(|l| l.contains("   2 requestRefund"))
        .unwrap();
    assert!(second.contains("← approveRefund requires [EX"), "{second}");
    // leave the query line, open help, close it
    p.send("\u{1b}");
    std::thread::sleep(Duration::from_millis(150));
    p.send("?");
    p.wait_for("the help overlay", |s| s.contains("Help: type to filter"));
    p.send("\u{1b}");
    p.wait_for("help to close", |s| !s.contains("Help: type to filter"));
    std::thread::sleep(Duration::from_millis(100));
    p.send("q");
    let t = Instant::now();
    let status = loop {
        if let Some(st) = p.child.try_wait().unwrap() {
            break st;
        }
        if t.elapsed() > Duration::from_secs(10) {
            let _ = p.child.kill();
            panic!("toolscope did not exit on q; screen:\n{}", p.screen());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "exit status {status:?}");
    // give the reader a moment to process the last bytes
    std::thread::sleep(Duration::from_millis(200));
    let parser = p.parser.lock().unwrap();
    let scr = parser.screen();
    assert!(!scr.alternate_screen(), "alternate screen left");
    assert!(!scr.hide_cursor(), "cursor shown again");
}

#[test]
fn ctrl_c_quits_while_typing_and_restores() {
    let mut p = Pty::spawn(&["--ascii"], 80, 24);
    // the narration names the tool before the results arrive: wait for the
    // ranked table itself, not a tool name
    let s = p.wait_for("the first demo step's results", |s| {
        s.contains(" 1 Candidates (10)")
    });
    let title = s
        .lines()
        .find(|l| l.contains(" 1 Candidates (10)"))
        .unwrap_or("");
    assert!(
        title.contains("-----"),
        "ASCII rule in the title line:\n{s}"
    );
    assert!(
        !s.contains('│') && !s.contains('╭'),
        "--ascii draws ASCII borders:\n{s}"
    );
    p.send("/");
    p.send("abc");
    p.send("\u{3}"); // Ctrl-C
    let t = Instant::now();
    while p.child.try_wait().unwrap().is_none() {
        assert!(t.elapsed() < Duration::from_secs(10), "no exit on Ctrl-C");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    let parser = p.parser.lock().unwrap();
    assert!(!parser.screen().alternate_screen());
    assert!(!parser.screen().hide_cursor());
}

fn wait_exit(p: &mut Pty) -> portable_pty::ExitStatus {
    let t = Instant::now();
    loop {
        if let Some(st) = p.child.try_wait().unwrap() {
            std::thread::sleep(Duration::from_millis(200));
            return st;
        }
        if t.elapsed() > Duration::from_secs(20) {
            let _ = p.child.kill();
            panic!("toolscope did not exit; screen:\n{}", p.screen());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_panic_restores_the_terminal_first() {
    let mut p = Pty::spawn_env(&[], &[("TOOLSCOPE_TEST_PANIC", "1")], 80, 24);
    let status = wait_exit(&mut p);
    assert!(!status.success(), "a panic is a failure exit");
    let parser = p.parser.lock().unwrap();
    let scr = parser.screen();
    assert!(
        !scr.alternate_screen(),
        "alternate screen left before the report"
    );
    assert!(!scr.hide_cursor(), "cursor shown");
    let text = scr.contents();
    assert!(
        text.contains("TOOLSCOPE_TEST_PANIC"),
        "the panic is reported on the normal screen:\n{text}"
    );
}

/// Every way the process can die without unwinding (an allocation failure, an abort, a
/// bus error or segmentation fault) leaves the terminal as it found it: the alternate
/// screen left, the cursor shown, and cooked mode with echo and signals back (read off
/// `stty -a` run in the same terminal right after).
#[cfg(unix)]
#[test]
fn a_crash_without_unwinding_restores_the_terminal() {
    for how in ["alloc", "abort", "segv", "bus", "panic"] {
        let envs: &[(&str, &str)] = if how == "panic" {
            &[("TOOLSCOPE_TEST_PANIC", "1")]
        } else {
            &[("TOOLSCOPE_TEST_CRASH", how)]
        };
        let p = Pty::spawn_then_stty(envs, 120, 40);
        let text = p.wait_for("stty after the crash", |s| s.contains("STTY-DONE"));
        let parser = p.parser.lock().unwrap();
        let scr = parser.screen();
        assert!(
            !scr.alternate_screen(),
            "{how}: alternate screen left:\n{text}"
        );
        assert!(!scr.hide_cursor(), "{how}: cursor shown");
        let exit = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("EXIT="))
            .unwrap_or("?")
            .to_string();
        assert_ne!(exit, "0", "{how}: a crash is a failure exit:\n{text}");
        let flat = text.split_whitespace().collect::<Vec<_>>();
        for mode in ["icanon", "echo", "isig", "icrnl", "opost"] {
            assert!(
                flat.contains(&mode),
                "{how}: terminal mode {mode} restored:\n{text}"
            );
        }
        if how == "alloc" {
            assert!(
                text.contains("memory allocation of"),
                "{how}: the allocation failure is reported on the normal screen:\n{text}"
            );
        }
    }
}

#[test]
fn a_file_that_fails_to_load_exits_2_with_the_message() {
    let dir = std::env::temp_dir().join(format!("toolscope-pty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\"graph\": {\"nodes\": [}").unwrap();
    let mut p = Pty::spawn(&[bad.to_str().unwrap()], 80, 24);
    let status = wait_exit(&mut p);
    assert_eq!(status.exit_code(), 2);
    let parser = p.parser.lock().unwrap();
    let scr = parser.screen();
    assert!(!scr.alternate_screen() && !scr.hide_cursor());
    assert!(scr.contents().contains("bad.json"), "{}", scr.contents());
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn sigterm_restores_the_terminal() {
    let mut p = Pty::spawn(&[], 80, 24);
    p.wait_for("the first demo step's results", |s| {
        s.contains("Candidates (10)")
    });
    let pid = p.child.process_id().expect("a pid");
    let ok = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
    let status = wait_exit(&mut p);
    assert_eq!(status.exit_code(), 128 + 15);
    let parser = p.parser.lock().unwrap();
    assert!(!parser.screen().alternate_screen());
    assert!(!parser.screen().hide_cursor());
}

/// `toolscope A B` opens the Diff screen, `toolscope FILE` on evidence the Evidence screen
/// and `toolscope GRAPH --cases SUITE` the Lab screen, each chosen from the content.
#[test]
fn files_open_their_screens_and_quit_cleanly() {
    let dir = std::env::temp_dir().join(format!("toolscope-pty-ev-{}", std::process::id()));
    toolscope::tui::harness::write_demo_evidence(&dir).unwrap();
    let suite = dir.join("suite.json");
    std::fs::write(&suite, toolscope::tui::harness::DEMO_SUITE).unwrap();
    let (bad, good, newer) = (dir.join("bad"), dir.join("good"), dir.join("newer.json"));
    let runs: [(Vec<&str>, &str, &str); 4] = [
        (
            vec![bad.to_str().unwrap(), good.to_str().unwrap()],
            "the Diff screen",
            "6 of 6 cases changed",
        ),
        (
            vec![
                "diff",
                bad.to_str().unwrap(),
                good.to_str().unwrap(),
                "--ascii",
            ],
            "the Diff screen (subcommand)",
            "A bad  vs  B good",
        ),
        (
            vec![newer.to_str().unwrap()],
            "the Evidence screen",
            "3 unknown keys",
        ),
        (
            vec!["--cases", suite.to_str().unwrap()],
            "the Lab screen",
            "MRR 0.917",
        ),
    ];
    for (args, what, want) in runs {
        let mut p = Pty::spawn(&args, 120, 40);
        p.wait_for(what, |s| s.contains(want));
        p.send("q");
        let status = wait_exit(&mut p);
        assert!(status.success(), "{what}: exit {status:?}");
        let parser = p.parser.lock().unwrap();
        assert!(!parser.screen().alternate_screen(), "{what}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn build_on_a_terminal_shows_progress_then_clears_it_before_warnings_and_the_summary() {
    let dir = std::env::temp_dir().join(format!("toolscope-pty-build-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join("dup.json");
    std::fs::write(
        &spec,
        r#"{"openapi": "3.0.0", "info": {"title": "Dup", "version": "1"}, "paths": {"/a": {"get": {"operationId": "getThing", "responses": {"200": {"description": "ok"}}}}, "/c": {"get": {"operationId": "getThing", "responses": {"200": {"description": "ok"}}}}}}"#,
    )
    .unwrap();
    let out = dir.join("out.json");
    let mut p = Pty::spawn(
        &[
            "build",
            spec.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--force",
        ],
        100,
        30,
    );
    let status = wait_exit(&mut p);
    assert!(status.success());
    let text = p.screen();
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    // the progress line was drawn and cleared: the warning and the summary start their rows
    assert!(
        lines.iter().any(|l| l.starts_with("warning: ")
            && l.contains("duplicate operationId \"getThing\"")),
        "{text}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("built 2 tools")),
        "{text}"
    );
    assert!(!text.contains("building tools from operations"), "{text}");
    assert!(!text.contains('%'), "no progress left on screen:\n{text}");
    assert!(out.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The SGR sequences' parameters in a byte stream.
fn sgr_params(bytes: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == 0x1b && bytes[i + 1] == b'[' {
            let start = i + 2;
            let mut j = start;
            while j < bytes.len() && (0x20..=0x3f).contains(&bytes[j]) {
                j += 1;
            }
            if j < bytes.len() && bytes[j] == b'm' {
                out.push(String::from_utf8_lossy(&bytes[start..j]).into_owned());
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// `--color 16`, and a terminal that says it has 16 colours (TERM=xterm), get the classic
/// codes only: 30–37/90–97 and 40–47/100–107, never `38;5;N` or `38;2;R;G;B`.
#[test]
fn sixteen_colours_write_only_the_classic_sgr_codes() {
    type Run<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str);
    let runs: [Run; 3] = [
        (&["--color", "16"], &[("COLORTERM", "")], "--color 16"),
        (&[], &[("TERM", "xterm"), ("COLORTERM", "")], "TERM=xterm"),
        (
            &["--color", "16", "--theme", "high-contrast"],
            &[("COLORTERM", "truecolor")],
            "--color 16 over COLORTERM=truecolor",
        ),
    ];
    for (args, envs, what) in runs {
        let mut p = Pty::spawn_env(args, envs, 120, 40);
        p.wait_for("the first demo step", |s| {
            s.contains("Candidates (10)") && s.contains("deleteExpiredCoupons")
        });
        // move, open a pane and the help overlay: more styles on screen
        p.send("j");
        p.send("6");
        p.send("?");
        p.wait_for("help", |s| s.contains("Quit now"));
        p.send("?");
        p.wait_for("help closed", |s| !s.contains("Quit now"));
        p.send("q");
        let status = wait_exit(&mut p);
        assert!(status.success(), "{what}: exit {status:?}");
        let params = sgr_params(&p.raw());
        let mut classic = 0;
        for sgr in &params {
            let v: Vec<u16> = sgr.split(';').filter_map(|x| x.parse().ok()).collect();
            assert!(
                !v.iter().any(|n| matches!(n, 38 | 48 | 58)),
                "{what}: extended colour in SGR {sgr:?}"
            );
            classic += v
                .iter()
                .filter(|n| matches!(n, 30..=37 | 90..=97 | 40..=47 | 100..=107))
                .count();
        }
        eprintln!(
            "{what}: {} SGR sequences, {classic} classic colour codes, 0 extended",
            params.len()
        );
        assert!(classic > 20, "{what}: colours are drawn ({classic})");
    }
}

/// Growing the window and quitting leaves nothing of the explorer on the shell's screen:
/// the last frame (drawn at the new size) is cleared before the alternate screen is left.
#[test]
fn growing_the_window_then_quitting_leaves_the_shell_screen_clean() {
    let mut p = Pty::spawn_then_exit(&[], 120, 40);
    p.wait_for("the first demo step", |s| {
        s.contains("Candidates (10)") && s.contains("why it is in the top-K")
    });
    p.resize(130, 45);
    // the explorer redraws for the new size: its frames reach the 130th column
    p.wait_for("a frame at 130x45", |s| {
        s.lines()
            .any(|l| l.chars().count() == 130 && l.ends_with('╮'))
    });
    let before_quit = p.raw().len();
    p.send("q");
    let s = p.wait_for("the shell after toolscope", |s| s.contains("EXIT="));
    let raw = p.raw();
    {
        let parser = p.parser.lock().unwrap();
        assert!(!parser.screen().alternate_screen(), "alternate screen left");
    }
    assert!(s.contains("EXIT=0"), "{s}");
    for frame_text in [
        "why it is in the top-K",
        "Candidates",
        "seed #1",
        "│",
        "╭",
        "─",
    ] {
        assert!(
            !s.contains(frame_text),
            "{frame_text:?} is left on the shell screen:\n{s}"
        );
    }
    // the bytes of the exit: the alternate screen is cleared (ED 2) before it is left, and
    // nothing is drawn in between
    let tail = &raw[before_quit..];
    let find = |pat: &[u8]| tail.windows(pat.len()).rposition(|w| w == pat);
    let leave = find(b"\x1b[?1049l").expect("the alternate screen is left");
    let clear = tail[..leave]
        .windows(4)
        .rposition(|w| w == b"\x1b[2J")
        .expect("the alternate screen is cleared before it is left");
    let between = String::from_utf8_lossy(&tail[clear + 4..leave]).into_owned();
    let printable: String = strip_escapes(&between);
    assert!(printable.is_empty(), "drawn after the clear: {printable:?}");
}

/// The text of `s` without its CSI sequences.
fn strip_escapes(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\u{1b}' {
            if it.peek() == Some(&'[') {
                it.next();
                for d in it.by_ref() {
                    if ('\u{40}'..='\u{7e}').contains(&d) {
                        break;
                    }
                }
            } else {
                it.next();
            }
        } else if !c.is_control() {
            out.push(c);
        }
    }
    out
}

/// The trial's steps under tmux, where growing the window while the alternate screen is
/// on pulls the alternate screen's rows onto the shell's screen unless they were cleared:
/// a shell, toolscope at 120x40, `resize-window` to 130x45, `q`. Skipped without tmux.
#[test]
fn under_tmux_growing_then_quitting_leaves_no_frame_lines() {
    use std::process::Command;
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("tmux is not installed: skipped");
        return;
    }
    // a private server on a socket under target/ (removed at the end)
    let sock = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("tmux-{}", std::process::id()));
    let sock = sock.to_str().unwrap();
    let tmux = |args: &[&str]| {
        Command::new("tmux")
            .args(["-S", sock, "-f", "/dev/null"])
            .args(args)
            .output()
            .expect("tmux")
    };
    let capture =
        || String::from_utf8_lossy(&tmux(&["capture-pane", "-p", "-t", "t"]).stdout).into_owned();
    let wait = |what: &str, pred: &dyn Fn(&str) -> bool| {
        let t = Instant::now();
        loop {
            let s = capture();
            if pred(&s) {
                return s;
            }
            if t.elapsed() > Duration::from_secs(20) {
                let _ = tmux(&["kill-server"]);
                let _ = std::fs::remove_file(sock);
                panic!("timed out waiting for {what}:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    let out = tmux(&[
        "new-session",
        "-d",
        "-s",
        "t",
        "-x",
        "120",
        "-y",
        "40",
        "env -u NO_COLOR -u COLORTERM TERM=xterm-256color sh",
    ]);
    assert!(out.status.success(), "{out:?}");
    wait("the shell", &|s| !s.trim().is_empty());
    let cmd = format!("\"{}\"; echo EXIT=$?", env!("CARGO_BIN_EXE_toolscope"));
    tmux(&["send-keys", "-t", "t", &cmd, "Enter"]);
    wait("the first demo step", &|s| {
        s.contains("Candidates (10)") && s.contains("why it is in the top-K")
    });
    tmux(&["resize-window", "-t", "t", "-x", "130", "-y", "45"]);
    wait("a frame at 130x45", &|s| {
        s.lines()
            .any(|l| l.chars().count() == 130 && l.ends_with('╮'))
    });
    tmux(&["send-keys", "-t", "t", "q"]);
    // (the command line itself says `echo EXIT=$?`: wait for the line the shell prints)
    let s = wait("the shell after toolscope", &|s| {
        s.lines().any(|l| l.starts_with("EXIT="))
    });
    let _ = tmux(&["kill-server"]);
    let _ = std::fs::remove_file(sock);
    assert!(s.contains("EXIT=0"), "{s}");
    for frame_text in ["why it is in the top-K", "seed #1", "│", "╮", "─"] {
        assert!(
            !s.contains(frame_text),
            "{frame_text:?} is left on the shell screen:\n{s}"
        );
    }
}

/// Issue 17 item 6: find inside a pane. Ctrl-F in the Detail pane's tool JSON, type, Enter
/// keeps it; n/N step through the matches, which are highlighted; Esc clears the find.
/// Then the same in the help overlay (the audit's item 3).
#[test]
fn find_in_a_pane_highlights_and_steps_through_matches() {
    let mut p = Pty::spawn_env(&[], &[("NO_COLOR", "1")], 80, 24);
    p.wait_for("the first demo step's results", |s| {
        s.contains("Candidates (10)")
    });
    p.send("2");
    p.send("o");
    // the tool JSON unfolds below the fold: the pane's row count grows past 100
    p.wait_for("the tool JSON", |s| {
        s.lines()
            .find(|l| l.contains("2 Detail"))
            .and_then(|l| l.rsplit('/').next())
            .and_then(|t| {
                t.trim_matches(|c: char| !c.is_ascii_digit())
                    .parse::<usize>()
                    .ok()
            })
            .is_some_and(|n| n > 100)
    });
    p.send("\u{6}"); // Ctrl-F
    p.send("coupon");
    let s = p.wait_for("the find line", |s| {
        s.contains("find: coupon_") && s.contains("1/")
    });
    let total: usize = s
        .lines()
        .find(|l| l.contains("find: coupon_"))
        .and_then(|l| l.split("1/").nth(1))
        .and_then(|t| t.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no match count: {s}"));
    assert!(total > 2, "{s}");
    p.send("\r");
    p.wait_for("the find kept", |s| {
        s.contains("find: coupon ") && s.contains("n/N")
    });
    p.send("n");
    p.wait_for("the second match", |s| s.contains(&format!("2/{total}")));
    p.send("N");
    p.send("N");
    p.wait_for("wrapping back to the last", |s| {
        s.contains(&format!("{total}/{total}"))
    });
    {
        // the matches are drawn differently from the text around them (bold/underline or
        // reverse in NO_COLOR)
        let parser = p.parser.lock().unwrap();
        let scr = parser.screen();
        let (rows, cols) = scr.size();
        let mut marked = 0;
        for r in 3..rows.saturating_sub(3) {
            for c in 0..cols {
                if let Some(cell) = scr.cell(r, c)
                    && cell.contents().eq_ignore_ascii_case("c")
                    && (cell.underline() || cell.inverse())
                {
                    marked += 1;
                }
            }
        }
        assert!(
            marked >= 1,
            "no highlighted match on screen:\n{}",
            scr.contents()
        );
    }
    p.send("\u{1b}");
    p.wait_for("the find closed", |s| !s.contains("find: coupon"));
    // the same in the help overlay: Ctrl-F, type, Enter keeps, n steps, Esc backs out
    p.send("?");
    p.wait_for("the help overlay", |s| s.contains("filter: _"));
    p.send("\u{6}"); // Ctrl-F
    p.send("pane");
    let s = p.wait_for("the help's find line", |s| {
        s.contains("find: pane_") && s.contains("1/")
    });
    assert!(
        s.contains("Ctrl-C quit"),
        "quitting stays in the footer: {s}"
    );
    p.send("\r");
    p.wait_for("the help's find kept", |s| {
        s.contains("find: pane ") && s.contains("n/N")
    });
    p.send("n");
    p.wait_for("the help's second match", |s| s.contains("find: pane  2/"));
    assert!(
        marked_cells(&p, 'p') >= 1,
        "no highlighted match in the help:\n{}",
        p.screen()
    );
    p.send("\u{1b}");
    p.wait_for("the help's find closed", |s| {
        !s.contains("find: pane") && s.contains("filter: _")
    });
    p.send("\u{1b}");
    p.wait_for("the help closed", |s| !s.contains("filter:"));
    p.send("q");
    let status = wait_exit(&mut p);
    assert!(status.success(), "exit status {status:?}");
}

/// Cells of `letter` (either case) drawn underlined or in reverse video, away from the
/// first three and last three rows: the find's highlighted matches.
fn marked_cells(p: &Pty, letter: char) -> usize {
    let parser = p.parser.lock().unwrap();
    let scr = parser.screen();
    let (rows, cols) = scr.size();
    let mut marked = 0;
    for r in 3..rows.saturating_sub(3) {
        for c in 0..cols {
            if let Some(cell) = scr.cell(r, c)
                && cell.contents().eq_ignore_ascii_case(&letter.to_string())
                && (cell.underline() || cell.inverse())
            {
                marked += 1;
            }
        }
    }
    marked
}

/// Issue 21: the Why-not pane on a real terminal at 80x24: `w` on a row triages it, the
/// pane shows the class, j/k step to the probes, Enter opens one in the Counterfactual
/// pane, Esc comes back, and quitting leaves the terminal clean.
#[test]
fn why_not_pane_triages_a_row_and_opens_a_probe() {
    let mut p = Pty::spawn_env(&[], &[("NO_COLOR", "1")], 80, 24);
    p.wait_for("the first demo step's results", |s| {
        s.contains(" 1 Candidates (10)")
    });
    p.send(":query refund an order\r");
    p.wait_for("the new query's results", |s| {
        s.contains("refund an order") && s.contains("requestRefund")
    });
    p.send("jj");
    p.send("w");
    let s = p.wait_for("the triage", |s| {
        s.contains("expected approveRefund") && s.contains("SELECTOR_AMBIGUOUS")
    });
    assert!(s.contains("? #3 approveRefund"), "{s}");
    p.send("G");
    p.wait_for("the last probe", |s| s.contains("depth=0: not scored"));
    p.send("\r");
    p.wait_for("the Counterfactual pane", |s| {
        s.contains("knob 2/") && s.contains("variant 0")
    });
    p.send("\u{1b}");
    p.wait_for("back in the Why-not pane", |s| {
        s.contains("9 Why-not") && s.contains("depth=0: not scored")
    });
    p.send("q");
    let status = wait_exit(&mut p);
    assert!(status.success(), "exit status {status:?}");
}

#[test]
fn follow_reads_appended_records_and_flags_a_drift() {
    let dir = std::env::temp_dir().join(format!("toolscope-pty-follow-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("prod.jsonl");
    let traces = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/traces");
    let gz = std::fs::read(traces.join("demo.jsonl.gz")).unwrap();
    let text = String::from_utf8(toolscope::limits::gunzip("demo", gz).unwrap()).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    std::fs::write(&log, format!("{}\n", lines[..5].join("\n"))).unwrap();
    let mut p = Pty::spawn_env(
        &["demo", log.to_str().unwrap(), "--follow"],
        &[("NO_COLOR", "1")],
        100,
        30,
    );
    p.wait_for("the first records", |s| {
        s.contains("5 records") && s.contains("5 reproduced")
    });
    // records written while the explorer follows the file appear on the screen
    let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    f.write_all(format!("{}\n", lines[5..12].join("\n")).as_bytes())
        .unwrap();
    f.flush().unwrap();
    p.wait_for("the appended records", |s| {
        s.contains("12 records") && s.contains("12 reproduced")
    });
    // a planted drift (the stale-artifact line of the drift fixture)
    let drifts = std::fs::read_to_string(traces.join("drifts.jsonl")).unwrap();
    let stale = drifts.lines().nth(1).unwrap();
    f.write_all(format!("{stale}\n").as_bytes()).unwrap();
    f.flush().unwrap();
    let s = p.wait_for("the drift", |s| {
        s.contains("13 records") && s.contains("1 drifted") && s.contains("stale_artifact 1")
    });
    assert!(s.contains("drifted: stale_artifact"), "{s}");
    p.send("q");
    let status = wait_exit(&mut p);
    assert!(status.success(), "exit status {status:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Audit bug 3: with `--follow`, the file to follow may be empty or begin with a line that
/// is not a record — alone, after the graph or before it — and the explorer follows it
/// (it used to refuse: "--follow: two graphs…", "a graph").
#[test]
fn follow_starts_on_an_empty_file_or_one_that_begins_with_garbage() {
    let dir =
        std::env::temp_dir().join(format!("toolscope-pty-follow-empty-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let traces = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/traces");
    let gz = std::fs::read(traces.join("demo.jsonl.gz")).unwrap();
    let text = String::from_utf8(toolscope::limits::gunzip("demo", gz).unwrap()).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    for (i, (first, graph_first, graph_last)) in [
        ("", true, false),
        ("", false, false),
        ("garbage first line\n", false, true),
    ]
    .into_iter()
    .enumerate()
    {
        let log = dir.join(format!("live{i}.jsonl"));
        std::fs::write(&log, first).unwrap();
        let l = log.to_str().unwrap();
        let args: Vec<&str> = match (graph_first, graph_last) {
            (true, _) => vec!["demo", l, "--follow"],
            (_, true) => vec![l, "demo", "--follow"],
            _ => vec![l, "--follow"],
        };
        let graph = graph_first || graph_last;
        let mut p = Pty::spawn_env(&args, &[("NO_COLOR", "1")], 100, 30);
        let bad = usize::from(!first.is_empty());
        let counted = if bad == 1 { "1 record " } else { "0 records" };
        p.wait_for("the Follow screen", |s| {
            s.contains(counted) && !s.contains("toolscope:")
        });
        let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
        f.write_all(format!("{}\n", lines[..3].join("\n")).as_bytes())
            .unwrap();
        f.flush().unwrap();
        let n = 3 + bad;
        p.wait_for("the appended records", |s| {
            s.contains(&format!("{n} records")) && (!graph || s.contains("3 reproduced"))
        });
        p.send("q");
        let status = wait_exit(&mut p);
        assert!(status.success(), "{args:?}: exit status {status:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Two graphs (the demo graph and a rebuild of it) with a suite open the Diff screen: the
/// artifact diff in the header, the cases blamed, the blame column naming a moved tool's
/// cause; `x` re-ranks the case on OLD with that cause alone.
#[test]
fn two_graphs_open_the_diff_screen_with_the_blame_column() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pty-graphs");
    let (old, new) = toolscope::tui::harness::write_demo_pair(&dir).unwrap();
    let suite = dir.join("suite.json");
    std::fs::write(&suite, toolscope::tui::harness::DEMO_SUITE).unwrap();
    let mut p = Pty::spawn(
        &[
            old.to_str().unwrap(),
            new.to_str().unwrap(),
            "--cases",
            suite.to_str().unwrap(),
        ],
        120,
        40,
    );
    p.wait_for("the blamed suite", |s| {
        s.contains("OLD old.json  vs  NEW new.json") && s.contains("6 cases")
    });
    // the orders case: its rankings side by side with the blame column
    p.send("jjj");
    let s = p.wait_for("the blame column", |s| {
        s.contains("blame") && s.lines().any(|l| l.contains("[1] new tool listOrdersV2"))
    });
    assert!(s.contains("listOrders fell 2 -> 3"), "{s}");
    p.send("\t");
    p.send("x");
    p.wait_for("the case re-ranked on OLD + [1]", |s| {
        s.contains("# OLD + [1]") && s.contains("in NEW")
    });
    p.send("q");
    let status = wait_exit(&mut p);
    assert!(status.success(), "exit {status:?}");
}

/// `toolscope OLD NEW` with NEW truncated before its first key: the explorer exits 2 with
/// the loader's one line naming the file and where its JSON ends, the terminal restored.
#[test]
fn two_graphs_with_a_truncated_new_exit_2_naming_where_the_json_ends() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pty-torn");
    let (old, new) = toolscope::tui::harness::write_demo_pair(&dir).unwrap();
    let torn = dir.join("torn.json");
    let text = std::fs::read_to_string(&new).unwrap();
    std::fs::write(&torn, &text[..text.find('"').unwrap() + 6]).unwrap();
    let mut p = Pty::spawn(&[old.to_str().unwrap(), torn.to_str().unwrap()], 120, 40);
    let status = wait_exit(&mut p);
    assert_eq!(status.exit_code(), 2);
    let parser = p.parser.lock().unwrap();
    let scr = parser.screen();
    assert!(!scr.alternate_screen() && !scr.hide_cursor());
    let out = scr.contents();
    let line = out
        .lines()
        .find(|l| l.contains("torn.json"))
        .unwrap_or_else(|| panic!("no line names the file:\n{out}"));
    assert!(line.starts_with("toolscope: "), "{line}");
    assert!(line.contains("torn.json:2:"), "{line}");
    assert!(line.contains("truncated JSON"), "{line}");
}
