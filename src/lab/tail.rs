//! Tailing a growing JSON Lines file like `tail -F`: each [`Tail::poll`] hands over the
//! complete lines written since the last one (a partial last line waits for its newline),
//! follows the path across rotation (a new file under the name: the old one is read to
//! its end first) and truncation (reading starts again at byte 0), and reports a file that
//! disappears (removed, or renamed away: rotated) or comes back. A rewrite in place that
//! leaves the file as long as before or longer (`cat other > log`) is a truncation too:
//! the first [`HEAD`] bytes read are kept and compared with the file's on every poll.
//! Nothing is ever written; memory is bounded by [`Tail::new`]'s read budget per poll,
//! [`MAX_LINE`] for a line still being written and [`HEAD`].

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// A line longer than this is dropped (reported as [`TailEvent::Overlong`]) instead of
/// being kept in memory while it grows.
pub const MAX_LINE: usize = 16 << 20;

/// The first bytes of the file kept to notice a rewrite in place (compared on each poll).
pub const HEAD: usize = 4096;

/// Why the path names no file now, as [`TailEvent::Missing`] says it (the screen adds
/// that it waits for it): the open file was removed, or renamed away (rotated).
pub const REMOVED: &str = "removed";
pub const ROTATED_AWAY: &str = "rotated (renamed away)";

/// What a poll found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TailEvent {
    /// A complete line: its byte offset in the file, its 1-based line number, its text
    /// (without the newline; invalid UTF-8 replaced, see `utf8`).
    Line {
        offset: u64,
        line: u64,
        text: String,
        utf8: bool,
    },
    /// A line over [`MAX_LINE`] bytes, skipped.
    Overlong { offset: u64, line: u64 },
    /// The path now names a new file (rotation); reading starts at its beginning. `torn`:
    /// the old file ended in a line without its newline (dropped).
    Rotated { torn: bool },
    /// The file got shorter than what was read, or its first bytes changed (rewritten in
    /// place): truncation; reading starts at byte 0.
    Truncated,
    /// The path does not exist (or cannot be opened) now; the reason.
    Missing(String),
    /// The path exists again after [`TailEvent::Missing`].
    Appeared,
}

/// Identity of an open file, to tell a rotation from growth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileId {
    dev: u64,
    ino: u64,
}

#[cfg(unix)]
fn file_id(m: &std::fs::Metadata) -> FileId {
    use std::os::unix::fs::MetadataExt;
    FileId {
        dev: m.dev(),
        ino: m.ino(),
    }
}

#[cfg(not(unix))]
fn file_id(_m: &std::fs::Metadata) -> FileId {
    FileId { dev: 0, ino: 0 }
}

pub struct Tail {
    path: PathBuf,
    file: Option<(File, FileId)>,
    /// Bytes read from the current file.
    offset: u64,
    /// Complete lines handed over from the current file.
    line: u64,
    /// The start of a line still being written, and its offset.
    pending: Vec<u8>,
    pending_offset: u64,
    /// The pending line passed [`MAX_LINE`]: skip to its newline.
    skipping: bool,
    /// The first bytes read from the current file (at most [`HEAD`]).
    head: Vec<u8>,
    missing: Option<String>,
    /// At most this many bytes are read per poll.
    budget: usize,
    /// Files seen (1 for the first, +1 per rotation).
    pub generation: u32,
}

impl Tail {
    /// A tail of `path` from its beginning, reading at most `budget` bytes per poll.
    pub fn new(path: &Path, budget: usize) -> Tail {
        Tail {
            path: path.to_path_buf(),
            file: None,
            offset: 0,
            line: 0,
            pending: Vec::new(),
            pending_offset: 0,
            skipping: false,
            head: Vec::new(),
            missing: None,
            budget: budget.max(1 << 12),
            generation: 0,
        }
    }

    /// Bytes read from the current file so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Whether the path was missing at the last poll (and why).
    pub fn missing(&self) -> Option<&str> {
        self.missing.as_deref()
    }

    /// Whether the last poll stopped at its read budget with more to read.
    pub fn behind(&self) -> Option<u64> {
        let (f, _) = self.file.as_ref()?;
        let len = f.metadata().ok()?.len();
        (len > self.offset).then(|| len - self.offset)
    }

    fn open(&mut self, out: &mut Vec<TailEvent>) -> bool {
        match crate::limits::open_regular(&self.path) {
            Ok((f, _)) => match f.metadata() {
                Ok(m) => {
                    self.file = Some((f, file_id(&m)));
                    self.restart();
                    self.generation += 1;
                    if self.missing.take().is_some() {
                        out.push(TailEvent::Appeared);
                    }
                    true
                }
                Err(e) => self.set_missing(crate::limits::io_message(&e), out),
            },
            Err(e) => self.set_missing(e.message.clone(), out),
        }
    }

    /// Reading starts again at the beginning of the current file.
    fn restart(&mut self) {
        self.offset = 0;
        self.line = 0;
        self.pending.clear();
        self.pending_offset = 0;
        self.skipping = false;
        self.head.clear();
    }

    /// Whether the current file's first bytes still are the ones read (a rewrite in place
    /// changes them, whatever the new length). The read position is kept.
    fn head_unchanged(&mut self) -> bool {
        let n = self.head.len();
        let Some((f, _)) = self.file.as_mut() else {
            return true;
        };
        if n == 0 {
            return true;
        }
        let mut now = vec![0u8; n];
        let same = f
            .seek(SeekFrom::Start(0))
            .and_then(|_| f.read_exact(&mut now))
            .map(|_| now == self.head)
            .unwrap_or(false);
        // back to where reading goes on (a failed read counts as a change)
        same && f.seek(SeekFrom::Start(self.offset)).is_ok()
    }

    fn set_missing(&mut self, why: String, out: &mut Vec<TailEvent>) -> bool {
        if self.missing.as_deref() != Some(why.as_str()) {
            out.push(TailEvent::Missing(why.clone()));
            self.missing = Some(why);
        }
        false
    }

    /// Reads what was written since the last poll.
    pub fn poll(&mut self) -> Vec<TailEvent> {
        let mut out = Vec::new();
        if self.file.is_none() && !self.open(&mut out) {
            return out;
        }
        // the name's current file: the same one (growth or truncation), another (rotation),
        // or none (removed: keep reading the open file, it may still grow)
        let now = std::fs::metadata(&self.path).ok();
        let (same, cur_len) = {
            let (f, id) = self.file.as_ref().expect("opened above");
            let len = f.metadata().map(|m| m.len()).unwrap_or(0);
            (now.as_ref().is_none_or(|m| file_id(m) == *id), len)
        };
        if same && (cur_len < self.offset || !self.head_unchanged()) {
            out.push(TailEvent::Truncated);
            if let Some((f, _)) = self.file.as_mut() {
                let _ = f.seek(SeekFrom::Start(0));
            }
            self.restart();
        }
        let mut left = self.budget;
        left = self.read_lines(left, &mut out);
        if !same && left > 0 {
            // the old file is read to its end; then the new one from its start
            let torn = !self.pending.is_empty() || self.skipping;
            self.file = None;
            if now.is_some() && self.open(&mut out) {
                out.push(TailEvent::Rotated { torn });
                self.read_lines(left, &mut out);
            } else if now.is_none() {
                self.set_missing("no such file".into(), &mut out);
            }
        } else if now.is_none() && self.missing.is_none() {
            // gone without a successor yet: removed, or renamed away (the open file still
            // has a name: rotation); say which, keep the open file
            let why = if self.still_linked() {
                ROTATED_AWAY
            } else {
                REMOVED
            };
            self.set_missing(why.into(), &mut out);
        }
        out
    }

    /// Whether the open file still has a name somewhere (renamed, not removed).
    #[cfg(unix)]
    fn still_linked(&self) -> bool {
        use std::os::unix::fs::MetadataExt;
        self.file
            .as_ref()
            .and_then(|(f, _)| f.metadata().ok())
            .is_some_and(|m| m.nlink() > 0)
    }

    #[cfg(not(unix))]
    fn still_linked(&self) -> bool {
        false
    }

    /// Reads up to `left` bytes of the current file into lines; returns the budget left
    /// (0 when it ran out).
    fn read_lines(&mut self, mut left: usize, out: &mut Vec<TailEvent>) -> usize {
        let mut buf = vec![0u8; left.min(1 << 20)];
        while left > 0 {
            let Some((f, _)) = self.file.as_mut() else {
                return left;
            };
            let want = left.min(buf.len());
            let n = match f.read(&mut buf[..want]) {
                Ok(0) | Err(_) => return left,
                Ok(n) => n,
            };
            left -= n;
            if self.head.len() < HEAD && self.head.len() as u64 == self.offset {
                let keep = n.min(HEAD - self.head.len());
                self.head.extend_from_slice(&buf[..keep]);
            }
            self.take(&buf[..n], out);
        }
        0
    }

    fn take(&mut self, mut chunk: &[u8], out: &mut Vec<TailEvent>) {
        while !chunk.is_empty() {
            match memchr::memchr(b'\n', chunk) {
                Some(i) => {
                    let part = &chunk[..i];
                    self.line += 1;
                    let offset = self.pending_offset;
                    if self.skipping || self.pending.len() + part.len() > MAX_LINE {
                        out.push(TailEvent::Overlong {
                            offset,
                            line: self.line,
                        });
                    } else {
                        let bytes: &[u8] = if self.pending.is_empty() {
                            part
                        } else {
                            self.pending.extend_from_slice(part);
                            &self.pending
                        };
                        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
                        let (text, utf8) = match std::str::from_utf8(bytes) {
                            Ok(s) => (s.to_string(), true),
                            Err(_) => (String::from_utf8_lossy(bytes).into_owned(), false),
                        };
                        out.push(TailEvent::Line {
                            offset,
                            line: self.line,
                            text,
                            utf8,
                        });
                    }
                    self.pending.clear();
                    self.skipping = false;
                    self.offset += i as u64 + 1;
                    self.pending_offset = self.offset;
                    chunk = &chunk[i + 1..];
                }
                None => {
                    if self.skipping || self.pending.len() + chunk.len() > MAX_LINE {
                        self.skipping = true;
                        self.pending.clear();
                    } else {
                        self.pending.extend_from_slice(chunk);
                    }
                    self.offset += chunk.len() as u64;
                    chunk = &[];
                }
            }
        }
    }
}

/// A line read again by its byte offset ([`read_line_at`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineAt {
    /// Its 1-based line number (the lines before it are counted).
    pub line: u64,
    pub text: String,
    pub utf8: bool,
}

/// Reads the line that starts at byte `offset` of the file at `path` again (a record the
/// follow ring no longer keeps: each record names its byte offset). The lines before it
/// are counted for its number (the file is read up to there, a MiB at a time); the line
/// itself must be complete and at most [`MAX_LINE`] bytes. An offset inside a line names
/// where that line starts. The error is one line naming the file.
pub fn read_line_at(path: &Path, offset: u64) -> Result<LineAt, String> {
    let name = crate::limits::shown(path);
    let (mut f, len) = crate::limits::open_regular(path).map_err(|e| e.to_string())?;
    if offset >= len {
        return Err(format!(
            "{name}: byte {offset} is past the end of the file ({len} bytes)"
        ));
    }
    let io = |e: std::io::Error| crate::limits::io_error(&name, &e).to_string();
    // the lines before it, and where the last of them ends
    let (mut lines, mut start, mut at) = (0u64, 0u64, 0u64);
    let mut buf = vec![0u8; 1 << 20];
    while at < offset {
        let want = buf.len().min((offset - at) as usize);
        let n = f.read(&mut buf[..want]).map_err(io)?;
        if n == 0 {
            return Err(format!("{name}: the file got shorter while it was read"));
        }
        for i in memchr::memchr_iter(b'\n', &buf[..n]) {
            lines += 1;
            start = at + i as u64 + 1;
        }
        at += n as u64;
    }
    if start != offset {
        return Err(format!(
            "{name}: byte {offset} is inside line {} (it starts at byte {start}); give the \
             byte a line starts at",
            lines + 1
        ));
    }
    let mut bytes = Vec::new();
    loop {
        let n = f.read(&mut buf).map_err(io)?;
        if n == 0 {
            return Err(format!(
                "{name}: line {} at byte {offset} has no newline yet (still being written)",
                lines + 1
            ));
        }
        let end = memchr::memchr(b'\n', &buf[..n]);
        let part = &buf[..end.unwrap_or(n)];
        if bytes.len() + part.len() > MAX_LINE {
            return Err(format!(
                "{name}: line {} at byte {offset} is over {} MiB",
                lines + 1,
                MAX_LINE >> 20
            ));
        }
        bytes.extend_from_slice(part);
        if end.is_some() {
            break;
        }
    }
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(&bytes);
    let (text, utf8) = match std::str::from_utf8(bytes) {
        Ok(s) => (s.to_string(), true),
        Err(_) => (String::from_utf8_lossy(bytes).into_owned(), false),
    };
    Ok(LineAt {
        line: lines + 1,
        text,
        utf8,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn lines(ev: &[TailEvent]) -> Vec<String> {
        ev.iter()
            .filter_map(|e| match e {
                TailEvent::Line { text, .. } => Some(text.clone()),
                _ => None,
            })
            .collect()
    }

    fn append(p: &Path, s: &str) {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .unwrap();
        f.write_all(s.as_bytes()).unwrap();
    }

    #[test]
    fn lines_partial_lines_truncation_rotation_and_removal() {
        let dir = std::env::temp_dir().join(format!("toolscope-tail-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("log.jsonl");
        let mut t = Tail::new(&p, 1 << 16);
        assert!(matches!(t.poll().as_slice(), [TailEvent::Missing(_)]));
        assert!(t.poll().is_empty(), "missing is said once");
        append(&p, "{\"a\":1}\n{\"b\":");
        let ev = t.poll();
        assert_eq!(ev[0], TailEvent::Appeared);
        assert_eq!(lines(&ev), ["{\"a\":1}"]);
        // the partial line waits for its newline, then keeps its offset and number
        append(&p, "2}\r\n");
        let ev = t.poll();
        assert_eq!(
            ev,
            [TailEvent::Line {
                offset: 8,
                line: 2,
                text: "{\"b\":2}".into(),
                utf8: true
            }]
        );
        // truncation: read again from byte 0
        std::fs::write(&p, "x\n").unwrap();
        let ev = t.poll();
        assert_eq!(ev[0], TailEvent::Truncated);
        assert_eq!(lines(&ev), ["x"]);
        // rotation: the old file's last lines first, then the new file from its start
        append(&p, "old tail\n");
        std::fs::rename(&p, dir.join("log.jsonl.1")).unwrap();
        append(&dir.join("log.jsonl.1"), "late\n");
        append(&p, "new\n");
        let ev = t.poll();
        assert_eq!(lines(&ev), ["old tail", "late", "new"]);
        assert!(ev.contains(&TailEvent::Rotated { torn: false }), "{ev:?}");
        assert_eq!(t.generation, 2);
        // removed: said once, and the tail waits
        std::fs::remove_file(&p).unwrap();
        let ev = t.poll();
        assert_eq!(ev, [TailEvent::Missing(REMOVED.into())]);
        append(&p, "back\n");
        let ev = t.poll();
        assert!(ev.contains(&TailEvent::Appeared), "{ev:?}");
        assert_eq!(lines(&ev), ["back"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Trial 2026-12-05 items 7 and 16: `cat six-records > log` (same inode, now longer)
    /// starts again from the top as a truncation, with the new file's line numbers; a
    /// file renamed away is said to be rotated, not removed.
    #[test]
    fn a_rewrite_in_place_that_grows_is_a_truncation_and_a_rename_is_a_rotation() {
        let dir = std::env::temp_dir().join(format!("toolscope-tail-rw-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("live.jsonl");
        append(&p, "{\"id\":\"old-1\"}\n{\"id\":\"old-2\"}\n");
        let mut t = Tail::new(&p, 1 << 16);
        assert_eq!(lines(&t.poll()).len(), 2);
        let ino = std::fs::metadata(&p).map(|m| file_id(&m)).unwrap();
        // rewritten in place through the same inode, longer than what was read
        let new: Vec<String> = (1..=6)
            .map(|i| format!("{{\"id\":\"new-{i}\",\"pad\":\"{}\"}}", "x".repeat(40)))
            .collect();
        std::fs::write(&p, format!("{}\n", new.join("\n"))).unwrap();
        assert_eq!(std::fs::metadata(&p).map(|m| file_id(&m)).unwrap(), ino);
        let ev = t.poll();
        assert_eq!(ev[0], TailEvent::Truncated, "{ev:?}");
        assert_eq!(lines(&ev), new);
        assert!(
            matches!(ev.last(), Some(TailEvent::Line { line: 6, offset, .. }) if *offset > 0),
            "the new file's own line numbers: {ev:?}"
        );
        // growth alone is no truncation (the head is the same)
        append(&p, "{\"id\":\"new-7\"}\n");
        assert_eq!(lines(&t.poll()), ["{\"id\":\"new-7\"}"]);
        assert!(t.poll().is_empty());
        // renamed away with no successor yet: rotated, not removed
        std::fs::rename(&p, dir.join("live.jsonl.1")).unwrap();
        assert_eq!(t.poll(), [TailEvent::Missing(ROTATED_AWAY.into())]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_line_is_read_again_by_its_offset() {
        let dir = std::env::temp_dir().join(format!("toolscope-tail-at-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("log.jsonl");
        std::fs::write(&p, "first\r\nsecond\n\nfourth\npartial").unwrap();
        let at = |o| read_line_at(&p, o);
        assert_eq!(
            at(0),
            Ok(LineAt {
                line: 1,
                text: "first".into(),
                utf8: true
            })
        );
        assert_eq!(at(7).map(|l| (l.line, l.text)), Ok((2, "second".into())));
        assert_eq!(at(15).map(|l| (l.line, l.text)), Ok((4, "fourth".into())));
        let inside = at(9).unwrap_err();
        assert!(
            inside.ends_with("log.jsonl: byte 9 is inside line 2 (it starts at byte 7); give the byte a line starts at"),
            "{inside}"
        );
        assert!(at(22).unwrap_err().contains("has no newline yet"));
        assert!(
            at(999)
                .unwrap_err()
                .contains("past the end of the file (29 bytes)")
        );
        assert!(
            read_line_at(&dir.join("nope"), 0)
                .unwrap_err()
                .contains("no such file")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn overlong_lines_and_bad_utf8_are_reported_not_kept() {
        let dir = std::env::temp_dir().join(format!("toolscope-tail-long-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("log.jsonl");
        let mut t = Tail::new(&p, 1 << 20);
        let big = "x".repeat(MAX_LINE + 10);
        std::fs::write(&p, format!("{big}\nok\n")).unwrap();
        let mut ev = Vec::new();
        for _ in 0..40 {
            ev.extend(t.poll());
        }
        assert!(
            ev.contains(&TailEvent::Overlong { offset: 0, line: 1 }),
            "{:?}",
            ev.len()
        );
        assert_eq!(lines(&ev), ["ok"]);
        assert!(t.pending.capacity() <= MAX_LINE + (1 << 20));
        std::fs::write(dir.join("b.jsonl"), b"\xff\xfe\n").unwrap();
        let mut t = Tail::new(&dir.join("b.jsonl"), 1 << 16);
        let ev = t.poll();
        assert!(
            matches!(&ev[0], TailEvent::Line { utf8: false, .. }),
            "{ev:?}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
