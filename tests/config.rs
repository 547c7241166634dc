//! The configuration file end to end: `toolscope doctor` with `TOOLSCOPE_CONFIG` and
//! `XDG_CONFIG_HOME` (path in force, read or not, one-line errors naming file and line,
//! flags over the file), and the explorer's state started from a file through the
//! harness (key overrides change what a key does and what help and the footer show, a
//! conflict is reported and ignored, `[params]` are the start and what `:reset` restores,
//! an invalid file starts with the defaults and says why).

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use ratatui::crossterm::event::KeyCode;
use toolscope::tui::app::{FlashLevel, Overlay};
use toolscope::tui::caps::{Caps, ColorLevel};
use toolscope::tui::config::{Loaded, Located, UiFlags};
use toolscope::tui::event::Source;
use toolscope::tui::harness::{Harness, demo_engine};

/// A fresh folder for this test's files (under the target directory, not shared /tmp).
fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("config-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(name: &str, text: &str) -> PathBuf {
    let p = dir(name).join("config.toml");
    std::fs::write(&p, text).unwrap();
    p
}

fn doctor(config: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("toolscope")
        .unwrap()
        .arg("doctor")
        .args(args)
        .env("TOOLSCOPE_CONFIG", config)
        .env("TERM", "xterm")
        .env_remove("NO_COLOR")
        .env_remove("COLORTERM")
        .env_remove("TMUX")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn line<'a>(out: &'a str, label: &str) -> &'a str {
    out.lines()
        .find(|l| l.trim_start().starts_with(label))
        .unwrap_or_else(|| panic!("no {label} line in:\n{out}"))
}

#[test]
fn doctor_prints_the_file_in_force_and_what_it_decided() {
    let p = write(
        "doctor-valid",
        "theme = \"light\"\ncolor = 256\nascii = true\n\n[keys]\nzoom = [\"Z\", \"ctrl-z\"]\n",
    );
    let (code, out, err) = doctor(&p, &[]);
    assert_eq!(code, 0);
    assert_eq!(err, "");
    let shown = p.display().to_string();
    assert_eq!(
        line(&out, "file").trim(),
        format!("file          {shown} (read; chosen by TOOLSCOPE_CONFIG)")
    );
    assert!(
        line(&out, "colour").contains(&format!("256 colours (color = \"256\" in {shown})")),
        "{out}"
    );
    assert!(line(&out, "theme").ends_with("light"), "{out}");
    assert!(line(&out, "glyphs").contains("ASCII"), "{out}");
    assert!(line(&out, "key ").contains("Z Ctrl-Z runs :zoom"), "{out}");
    // flags win over the file
    let (_, out, _) = doctor(&p, &["--color", "never", "--theme", "high-contrast"]);
    assert!(line(&out, "colour").contains("(--color never)"), "{out}");
    assert!(line(&out, "theme").ends_with("high-contrast"), "{out}");
}

#[test]
fn doctor_reports_a_missing_file_under_xdg_config_home() {
    let d = dir("doctor-xdg");
    let out = Command::cargo_bin("toolscope")
        .unwrap()
        .arg("doctor")
        .env_remove("TOOLSCOPE_CONFIG")
        .env("XDG_CONFIG_HOME", &d)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&out.stdout).into_owned();
    let want = d.join("toolscope").join("config.toml");
    assert!(
        line(&out, "file").contains(&format!(
            "{} (not found: built-in defaults; chosen by $XDG_CONFIG_HOME)",
            want.display()
        )),
        "{out}"
    );
    // and the file there is the one read
    std::fs::create_dir_all(want.parent().unwrap()).unwrap();
    std::fs::write(&want, "theme = \"light\"\n").unwrap();
    let out = Command::cargo_bin("toolscope")
        .unwrap()
        .arg("doctor")
        .env_remove("TOOLSCOPE_CONFIG")
        .env("XDG_CONFIG_HOME", &d)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(line(&out, "file").contains("(read;"), "{out}");
    assert!(line(&out, "theme").ends_with("light"), "{out}");
}

#[test]
fn an_invalid_file_is_one_line_naming_file_and_line() {
    let p = write("doctor-invalid", "theme = \"light\"\n\ncolr = 1\n");
    let (code, out, err) = doctor(&p, &[]);
    assert_eq!(code, 0, "doctor still reports");
    let want = format!("toolscope: {}:3: unknown key \"colr\"", p.display());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with(&want), "{err}");
    assert!(
        line(&out, "file").contains("(invalid: built-in defaults;"),
        "{out}"
    );
    // the defaults, not the file's valid first line
    assert!(line(&out, "theme").ends_with("dark"), "{out}");
}

fn startup(text: &str, name: &str) -> toolscope::tui::config::Startup {
    let p = write(name, text);
    let loaded = Loaded::read(Some(Located {
        path: p,
        origin: "TOOLSCOPE_CONFIG",
    }));
    loaded.resolve(&UiFlags::default()).1
}

fn explorer(text: &str, name: &str) -> Harness {
    Harness::configured(
        Caps::fixed(ColorLevel::Ansi16, false),
        Source::File("orders.json".into()),
        demo_engine(),
        Some("cancel my order"),
        startup(text, name),
    )
}

#[test]
fn a_key_override_changes_what_the_key_does_and_what_help_shows() {
    let mut h = explorer("[keys]\nzoom = \"Z\"\ndown = \"J\"\n", "state-keys");
    assert!(h.app.flash.is_none(), "{:?}", h.app.flash);
    h.keys("z");
    assert!(!h.app.zoom, "z is no longer zoom");
    h.keys("Z");
    assert!(h.app.zoom, "Z zooms");
    h.keys("Z");
    assert_eq!(h.app.row, 0);
    h.keys("J");
    assert_eq!(h.app.row, 1, "J moves down");
    h.keys("j");
    assert_eq!(h.app.row, 1, "j no longer does");
    // the footer names the user's keys
    let screen = h.screen(120, 40);
    let footer = screen.lines().last().unwrap();
    assert!(footer.contains("J/k move"), "{footer}");
    // and so does help
    h.keys("?");
    assert!(matches!(h.app.overlay, Overlay::Help(_)));
    h.keys("zoom");
    let screen = h.screen(120, 40);
    let row = screen
        .lines()
        .find(|l| l.contains("Zoom the focused pane"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(row.contains("  Z "), "{row}");
    assert!(!row.contains(" z "), "{row}");
}

#[test]
fn a_conflicting_key_is_reported_and_ignored() {
    let mut h = explorer(
        "# line 1\n[keys]\nzoom = \"Z\"\nquit = \"j\"\n",
        "state-conflict",
    );
    let f = h.app.flash.clone().expect("a warning at start");
    assert_eq!(f.level, FlashLevel::Warn);
    assert!(
        f.text.ends_with(
            "config.toml:4: key j for quit is already bound to :down (Next row / scroll down); ignored"
        ),
        "{}",
        f.text
    );
    // the rest of the file applies; j still moves and q still quits
    h.keys("Z");
    assert!(h.app.zoom);
    h.keys("j");
    assert_eq!(h.app.row, 1);
    assert!(!h.app.quit);
    h.keys("q");
    assert!(h.app.quit);
}

#[test]
fn params_from_the_file_start_the_explorer_and_reset_restores_them() {
    let mut h = explorer(
        "[params]\ntop_k = 3\ndepth = 1\npolicy = \"manual_review\"\n",
        "state-params",
    );
    assert_eq!(h.app.params.top_k, 3);
    assert_eq!(h.app.params.depth, 1);
    assert_eq!(h.app.select.policy, "manual_review");
    assert!(h.app.rows_len() <= 3, "{}", h.app.rows_len());
    h.keys("++");
    assert_eq!(h.app.params.top_k, 5);
    h.keys(":");
    h.keys("reset");
    h.key(KeyCode::Enter);
    assert_eq!(
        h.app.params.top_k, 3,
        "reset goes back to the file's values"
    );
    assert_eq!(h.app.select.policy, "manual_review");
}

#[test]
fn an_invalid_file_starts_with_the_defaults_and_says_why() {
    let mut h = explorer(
        "theme = \"light\"\n[params]\ntop_k = 3\n[keys]\nzoom = \"hyper-z\"\n",
        "state-invalid",
    );
    let f = h.app.flash.clone().expect("a warning at start");
    // the whole path, as doctor names it (issue 17 acceptance: the message named only
    // `config.toml`)
    let path = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("config-state-invalid")
        .join("config.toml")
        .display()
        .to_string();
    let path = match std::env::var("HOME") {
        Ok(home) if !home.is_empty() && path.starts_with(&format!("{home}/")) => {
            format!("~{}", &path[home.len()..])
        }
        _ => path,
    };
    assert!(
        f.text.starts_with(&format!(
            "{path}:5: keys for zoom: bad key name \"hyper-z\""
        )),
        "{}",
        f.text
    );
    assert_eq!(h.app.params.top_k, 10, "the built-in default");
    // it renders at 80x24 with the warning on screen (cut when the path is long), and
    // whole where there is room
    let screen = h.screen(80, 24);
    let start: String = path.chars().take(20).collect();
    assert!(screen.contains(&format!(" {start}")), "{screen}");
    let screen = h.screen(240, 24);
    assert!(
        screen.contains(&format!(" {path}:5: keys for zoom: bad key name")),
        "{screen}"
    );
    h.keys("z");
    assert!(h.app.zoom, "the built-in keys");
}

/// Issue 17: `T` cycles the built-in themes and then the file's `[themes.NAME]` tables,
/// and `:theme NAME` picks a custom one by name.
#[test]
fn t_and_theme_name_reach_the_files_custom_themes() {
    let mut h = explorer(
        "theme = \"solar\"\n[themes.solar]\nbase = \"light\"\ntitle = \"#268bd2\"\n\
         [themes.night]\nbase = \"dark\"\ntitle = \"red\"\n",
        "state-themes",
    );
    assert_eq!(h.app.theme_name(), "solar");
    let mut seen = vec![h.app.theme_name()];
    for _ in 0..5 {
        h.keys("T");
        seen.push(h.app.theme_name());
    }
    // the file's tables come after the built-ins (in the file's sorted order), then round
    assert_eq!(
        seen,
        ["solar", "dark", "light", "high-contrast", "night", "solar"]
    );
    h.keys(":theme night");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.theme_name(), "night");
    assert!(h.app.flash.as_ref().unwrap().text.contains("theme: night"));
    h.keys(":theme nope");
    h.key(KeyCode::Enter);
    let f = h.app.flash.clone().unwrap();
    assert_eq!(f.level, FlashLevel::Warn);
    assert!(
        f.text.contains("night") && f.text.contains("solar"),
        "{}",
        f.text
    );
    assert_eq!(h.app.theme_name(), "night");
}

/// Audit of issue 17: the keys that work while a graph loads come from the registry, so
/// the configuration file's overrides apply there too (they used to be hard-coded).
#[test]
fn key_overrides_apply_while_loading() {
    use ratatui::crossterm::event::KeyModifiers;
    let caps = Caps::fixed(ColorLevel::Ansi16, false);
    let s = startup("[keys]\nquit = \"Q\"\nhelp = \"F2\"\n", "state-loading");
    let mut h = Harness::loading_with(caps.clone(), s);
    assert!(h.app.load.is_some(), "still loading");
    let screen = h.screen(80, 24);
    assert!(screen.contains("Q quits   F2 help"), "{screen}");
    h.keys("q");
    assert!(!h.app.quit, "q is no longer quit");
    let f = h.app.flash.clone().expect("a hint");
    assert_eq!(f.text, "still loading the graph (Q quits)");
    h.keys("?");
    h.key(KeyCode::F(1));
    assert!(
        matches!(h.app.overlay, Overlay::None),
        "? and F1 are rebound"
    );
    h.key(KeyCode::F(2));
    assert!(matches!(h.app.overlay, Overlay::Help(_)), "F2 is help");
    // Ctrl-C (quit!, not rebindable) quits from the overlay, through the registry
    h.press(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert!(h.app.quit);
    let mut h = Harness::loading_with(
        caps.clone(),
        startup("[keys]\nquit = \"Q\"\n", "state-loading-q"),
    );
    h.keys("Q");
    assert!(h.app.quit, "Q quits while loading");
    // without a file: q, Esc, ? and F1 as before
    for (k, quits) in [
        (KeyCode::Char('q'), true),
        (KeyCode::Esc, true),
        (KeyCode::Char('?'), false),
        (KeyCode::F(1), false),
    ] {
        let mut h = Harness::loading(caps.clone());
        h.key(k);
        assert_eq!(h.app.quit, quits, "{k:?}");
        assert_eq!(matches!(h.app.overlay, Overlay::Help(_)), !quits, "{k:?}");
    }
}
