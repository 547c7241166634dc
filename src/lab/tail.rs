//! Tailing a growing JSON Lines file like `tail -F`: each [`Tail::poll`] hands over the
//! complete lines written since the last one (a partial last line waits for its newline),
//! follows the path across rotation (a new file under the name: the old one is read to
//! its end first) and truncation (reading starts again at byte 0), and reports a file that
//! disappears (removed, or renamed away: rotated) or comes back. A rewrite in place that
//! leaves the file as long as before or longer (`cat other > log`) is a truncation too:
//! the first [`HEAD`] bytes read are kept and compared with the file's on every poll.
//! Nothing is ever written; memory is bounded by [`Tail::new`]'s read budget per poll,
//! [`MAX_LINE`] for a line still being written and [`HEAD`]. [`Tail::poll_into`] hands the
//! lines over in one [`LineBlock`] the caller keeps from poll to poll (the Follow reader:
//! no allocation per line, the UTF-8 check left to the threads that read the lines);
//! [`Tail::poll`] as one event each.

use std::borrow::Cow;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;
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

/// The complete lines of one [`Tail::poll_into`]: their bytes one after the other in one
/// buffer, which the caller keeps from poll to poll (it is cleared, not freed).
#[derive(Debug, Default)]
pub struct LineBlock {
    pub bytes: Vec<u8>,
    /// The lines in file order.
    pub lines: Vec<BlockLine>,
}

/// One line of a [`LineBlock`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockLine {
    /// Its byte offset in the file and its 1-based line number.
    pub offset: u64,
    pub line: u64,
    /// Its bytes in [`LineBlock::bytes`] (without the newline and a `\r` before it), not
    /// checked as UTF-8; `None` for a line over [`MAX_LINE`], skipped.
    pub range: Option<Range<usize>>,
}

impl LineBlock {
    /// The text of a line of this block (invalid UTF-8 replaced) and whether it was
    /// UTF-8; `None` for an overlong line.
    pub fn text(&self, l: &BlockLine) -> Option<(Cow<'_, str>, bool)> {
        let bytes = &self.bytes[l.range.clone()?];
        Some(match std::str::from_utf8(bytes) {
            Ok(s) => (Cow::Borrowed(s), true),
            Err(_) => (String::from_utf8_lossy(bytes), false),
        })
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.lines.clear();
    }
}

/// Where a poll puts what it finds: lines in the block, other events beside them with
/// the number of lines before each.
struct Sink<'b> {
    block: &'b mut LineBlock,
    notes: Vec<(usize, TailEvent)>,
}

impl Sink<'_> {
    fn push(&mut self, ev: TailEvent) {
        self.notes.push((self.block.lines.len(), ev));
    }
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

    fn open(&mut self, out: &mut Sink<'_>) -> bool {
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

    fn set_missing(&mut self, why: String, out: &mut Sink<'_>) -> bool {
        if self.missing.as_deref() != Some(why.as_str()) {
            out.push(TailEvent::Missing(why.clone()));
            self.missing = Some(why);
        }
        false
    }

    /// Reads what was written since the last poll, one event each.
    pub fn poll(&mut self) -> Vec<TailEvent> {
        let mut block = LineBlock::default();
        let mut notes = self.poll_into(&mut block).into_iter().peekable();
        let mut out = Vec::with_capacity(block.lines.len() + notes.len());
        for (k, l) in block.lines.iter().enumerate() {
            while let Some((_, ev)) = notes.next_if(|(before, _)| *before <= k) {
                out.push(ev);
            }
            out.push(match block.text(l) {
                Some((text, utf8)) => TailEvent::Line {
                    offset: l.offset,
                    line: l.line,
                    text: text.into_owned(),
                    utf8,
                },
                None => TailEvent::Overlong {
                    offset: l.offset,
                    line: l.line,
                },
            });
        }
        out.extend(notes.map(|(_, ev)| ev));
        out
    }

    /// Reads what was written since the last poll: the lines (and overlong ones) into
    /// `block`, cleared first; the other events are returned, each with the number of
    /// the block's lines before it.
    pub fn poll_into(&mut self, block: &mut LineBlock) -> Vec<(usize, TailEvent)> {
        block.clear();
        let mut out = Sink {
            block,
            notes: Vec::new(),
        };
        self.poll_to(&mut out);
        out.notes
    }

    fn poll_to(&mut self, out: &mut Sink<'_>) {
        if self.file.is_none() && !self.open(out) {
            return;
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
        left = self.read_lines(left, out);
        if !same && left > 0 {
            // the old file is read to its end; then the new one from its start
            let torn = !self.pending.is_empty() || self.skipping;
            self.file = None;
            if now.is_some() && self.open(out) {
                out.push(TailEvent::Rotated { torn });
                self.read_lines(left, out);
            } else if now.is_none() {
                self.set_missing("no such file".into(), out);
            }
        } else if now.is_none() && self.missing.is_none() {
            // gone without a successor yet: removed, or renamed away (the open file still
            // has a name: rotation); say which, keep the open file
            let why = if self.still_linked() {
                ROTATED_AWAY
            } else {
                REMOVED
            };
            self.set_missing(why.into(), out);
        }
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
    fn read_lines(&mut self, mut left: usize, out: &mut Sink<'_>) -> usize {
        let LineBlock { bytes, lines } = &mut *out.block;
        // the line still being written is read on in the block, where it now starts; room
        // for all that may be read is made once (the block keeps it from poll to poll:
        // at most a line and the budget), with some to spare for `read_to_end`'s probe
        let mut start = bytes.len();
        bytes.reserve_exact(self.pending.len() + left + 64);
        bytes.extend_from_slice(&self.pending);
        self.pending.clear();
        while left > 0 {
            let Some((f, _)) = self.file.as_mut() else {
                break;
            };
            // read straight into the block (no copy per line); what a failing read
            // got before it failed is kept, as the file's position moved past it
            let old = bytes.len();
            let failed = f.take(left.min(1 << 20) as u64).read_to_end(bytes).is_err();
            let n = bytes.len() - old;
            if n == 0 {
                break;
            }
            left -= n;
            // the file offset of the block's byte `x` (from `old` on)
            let chunk_offset = self.offset;
            let at = |x: usize| chunk_offset + (x - old) as u64;
            if self.head.len() < HEAD && self.head.len() as u64 == self.offset {
                let keep = n.min(HEAD - self.head.len());
                self.head.extend_from_slice(&bytes[old..old + keep]);
            }
            self.offset += n as u64;
            for nl in memchr::memchr_iter(b'\n', &bytes[old..]).map(|i| old + i) {
                self.line += 1;
                let range = if self.skipping || nl - start > MAX_LINE {
                    None
                } else if nl > start && bytes[nl - 1] == b'\r' {
                    Some(start..nl - 1)
                } else {
                    Some(start..nl)
                };
                lines.push(BlockLine {
                    offset: self.pending_offset,
                    line: self.line,
                    range,
                });
                self.skipping = false;
                self.pending_offset = at(nl + 1);
                start = nl + 1;
            }
            // a line longer than the limit is skipped to its newline, not kept
            if self.skipping || bytes.len() - start > MAX_LINE {
                self.skipping = true;
                bytes.truncate(start);
            }
            if failed {
                break;
            }
        }
        // the line still being written waits for the next poll
        self.pending.extend_from_slice(&bytes[start..]);
        bytes.truncate(start);
        left
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
        let dir = crate::testutil::scratch("tail");
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
        let dir = crate::testutil::scratch("tail-rw");
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
    fn a_block_holds_the_lines_and_the_events_say_where_they_fall() {
        let dir = crate::testutil::scratch("tail-block");
        let p = dir.join("log.jsonl");
        append(&p, "one\r\n\ntwo\nthr");
        // the line still being written waits for its newline, then is read whole
        let mut t = Tail::new(&p, 1 << 12);
        let mut block = LineBlock::default();
        let notes = t.poll_into(&mut block);
        assert!(notes.is_empty(), "{notes:?}");
        let text = |b: &LineBlock| -> Vec<(u64, u64, String)> {
            b.lines
                .iter()
                .map(|l| (l.offset, l.line, b.text(l).unwrap().0.into_owned()))
                .collect()
        };
        assert_eq!(
            text(&block),
            [
                (0, 1, "one".into()),
                (5, 2, String::new()),
                (6, 3, "two".into())
            ]
        );
        append(&p, "ee\nfour\n");
        t.poll_into(&mut block);
        assert_eq!(
            text(&block),
            [(10, 4, "three".into()), (16, 5, "four".into())]
        );
        // a truncation comes before the lines read after it
        std::fs::write(&p, "new\n").unwrap();
        let notes = t.poll_into(&mut block);
        assert_eq!(notes, [(0, TailEvent::Truncated)]);
        assert_eq!(text(&block), [(0, 1, "new".into())]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_line_is_read_again_by_its_offset() {
        let dir = crate::testutil::scratch("tail-at");
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
        let dir = crate::testutil::scratch("tail-long");
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
