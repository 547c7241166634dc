//! Copy (`y`): OSC 52 is the only clipboard that reaches the operator's own machine over
//! SSH, but no terminal confirms it, so a copy also goes where it can be checked. Inside
//! tmux the sequence is sent twice — plain (tmux takes it with `set-clipboard on`) and
//! wrapped in tmux's DCS passthrough (`allow-passthrough on`) — and the text is loaded into
//! tmux's paste buffer (`tmux load-buffer -w -`, which also hands it to the outer terminal
//! when `set-clipboard` allows). Every copy is saved to a file as well (never overwriting),
//! and the message says what was confirmed and what was only sent.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use base64::Engine as _;

/// A copy the runtime delivers: the text, what it is (for the message) and a file stem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopyJob {
    pub payload: String,
    pub what: String,
    pub stem: String,
}

/// What tmux did with a copy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TmuxCopy {
    /// Not inside tmux (or not asked).
    Absent,
    /// In tmux's paste buffer; tmux's `set-clipboard` value.
    Loaded {
        set_clipboard: String,
    },
    Failed(String),
}

/// Loads `payload` into tmux's paste buffer and reads `set-clipboard` (each call bounded to
/// two seconds, so a stuck tmux server cannot hang the explorer).
pub fn tmux_load(payload: &str) -> TmuxCopy {
    use std::process::{Command, Stdio};
    let run = |args: &[&str], input: Option<&str>| -> Result<String, String> {
        let mut child = Command::new("tmux")
            .args(args)
            .stdin(if input.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("tmux: {e}"))?;
        if let (Some(text), Some(mut stdin)) = (input, child.stdin.take()) {
            stdin
                .write_all(text.as_bytes())
                .map_err(|e| format!("tmux: {e}"))?;
        }
        let start = Instant::now();
        loop {
            match child.try_wait() {
                Ok(Some(st)) if st.success() => break,
                Ok(Some(st)) => return Err(format!("tmux {} exited with {st}", args[0])),
                Ok(None) if start.elapsed() > Duration::from_secs(2) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(format!("tmux {} did not answer in 2 s", args[0]));
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(e) => return Err(format!("tmux: {e}")),
            }
        }
        let mut out = String::new();
        if let Some(mut o) = child.stdout.take() {
            use std::io::Read as _;
            let _ = o.read_to_string(&mut out);
        }
        Ok(out.trim().to_string())
    };
    match run(&["load-buffer", "-w", "-"], Some(payload)) {
        Ok(_) => TmuxCopy::Loaded {
            set_clipboard: run(&["show-options", "-gv", "set-clipboard"], None)
                .unwrap_or_else(|_| "unknown".into()),
        },
        Err(e) => TmuxCopy::Failed(e),
    }
}

/// Saves a copy as `copy-NNN-STEM.json` in `dir` (the next free number; never overwrites).
pub fn save_copy(dir: &Path, stem: &str, payload: &str) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let stem: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(60)
        .collect();
    for n in 1..10_000u32 {
        let p = dir.join(format!("copy-{n:03}-{stem}.json"));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&p)
        {
            Ok(mut f) => {
                f.write_all(payload.as_bytes())?;
                return Ok(p);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("10,000 copies already saved there"))
}

/// The message after a copy: what is confirmed (tmux buffer, file) and what was only sent
/// (OSC 52 never answers). `ok` is false when nothing could be confirmed. The second text
/// is the short form a narrow message line shows: where the copy went, the file by name.
pub fn message(
    job: &CopyJob,
    tmux: &TmuxCopy,
    file: Option<&Result<PathBuf, String>>,
) -> (bool, String, String) {
    let mut parts: Vec<String> = Vec::new();
    let mut short: Vec<String> = Vec::new();
    let mut confirmed = false;
    match tmux {
        TmuxCopy::Loaded { set_clipboard } => {
            confirmed = true;
            short.push(match set_clipboard.as_str() {
                "on" | "external" => "tmux buffer (prefix ])".to_string(),
                _ => "tmux buffer only".to_string(),
            });
            parts.push(match set_clipboard.as_str() {
                "on" | "external" => format!(
                    "in the tmux buffer (prefix ]), passed on to your terminal (set-clipboard {set_clipboard})"
                ),
                other => format!(
                    "in the tmux buffer (prefix ]); tmux set-clipboard is {other}, so not on your system clipboard"
                ),
            });
        }
        TmuxCopy::Failed(e) => {
            short.push("not in the tmux buffer".to_string());
            parts.push(format!("not in the tmux buffer ({e})"))
        }
        TmuxCopy::Absent => {
            short.push("sent via OSC 52 (unconfirmed)".to_string());
            parts.push("sent via OSC 52, unconfirmed: your terminal must allow OSC 52".to_string())
        }
    }
    match file {
        Some(Ok(p)) => {
            confirmed = true;
            let name = p.file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            short.push(format!("saved {}", crate::sanitize::line(&name)));
            parts.push(format!(
                "saved to {}",
                crate::sanitize::line(&p.display().to_string())
            ));
        }
        Some(Err(_)) => short.push("not saved".to_string()),
        None => {}
    }
    if let Some(Err(e)) = file {
        parts.push(format!("not saved: {e}"));
    }
    // the saved file's name holds the tool's; without one, the tool is named
    let verb = match (confirmed, matches!(file, Some(Ok(_)))) {
        (_, true) => "copied".to_string(),
        (true, false) => format!("copied {}", crate::sanitize::line(&job.stem)),
        (false, false) => format!("copy of {}", crate::sanitize::line(&job.stem)),
    };
    (
        confirmed,
        format!(
            "{} ({} bytes): {}",
            job.what,
            job.payload.len(),
            parts.join("; ")
        ),
        format!("{verb}: {}", short.join(", ")),
    )
}

/// The escape sequence that puts `payload` on the clipboard.
pub fn osc52(payload: &str, tmux_passthrough: bool) -> String {
    let b64 = base64::engine::general_purpose::STANDARD.encode(payload.as_bytes());
    let seq = format!("\u{1b}]52;c;{b64}\u{7}");
    if tmux_passthrough {
        format!(
            "{seq}\u{1b}Ptmux;{}\u{1b}\\",
            seq.replace('\u{1b}', "\u{1b}\u{1b}")
        )
    } else {
        seq
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_say_what_is_confirmed() {
        let job = CopyJob {
            payload: "{}".into(),
            what: "evidence JSON of x".into(),
            stem: "x".into(),
        };
        let (ok, m, short) = message(&job, &TmuxCopy::Absent, None);
        assert!(!ok && m.contains("unconfirmed"), "{m}");
        assert_eq!(short, "copy of x: sent via OSC 52 (unconfirmed)");
        let loaded = TmuxCopy::Loaded {
            set_clipboard: "off".into(),
        };
        let (ok, m, short) = message(
            &job,
            &loaded,
            Some(&Ok(PathBuf::from("/d/copy-001-x.json"))),
        );
        // the short form names where it went and the file, not the folder
        assert_eq!(short, "copied: tmux buffer only, saved copy-001-x.json");
        assert!(
            ok && m.contains("tmux buffer") && m.contains("set-clipboard is off"),
            "{m}"
        );
        assert!(m.contains("saved to /d/copy-001-x.json"), "{m}");
    }

    #[test]
    fn plain_and_tmux() {
        assert_eq!(osc52("hi", false), "\u{1b}]52;c;aGk=\u{7}");
        assert_eq!(
            osc52("hi", true),
            "\u{1b}]52;c;aGk=\u{7}\u{1b}Ptmux;\u{1b}\u{1b}]52;c;aGk=\u{7}\u{1b}\\"
        );
    }
}
