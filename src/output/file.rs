//! Writing an output file without destroying anything: an existing file is replaced only
//! with `--force`, never when it is one of the inputs (same device and inode, through
//! symlinks), a symlink at the output path is followed only with `--force`, and the new
//! content goes to a temporary file in the target's folder that is renamed into place
//! once complete (a failed or interrupted write leaves the old file as it was). On Linux
//! the temporary file has no name until it is complete, so a write cut off even by
//! SIGKILL leaves nothing behind. A file's
//! bytes are made on the caller's thread and written by another, directly to disk where the
//! file system allows (see [`Sink`]).
//! Outputs that are not regular files (`/dev/null`, a pipe from the shell) are written
//! directly.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::limits::io_message;
use crate::sanitize;

/// Where an output goes, decided before any work is done.
#[derive(Debug)]
pub enum Target {
    /// Standard output (`-`).
    Stdout,
    /// An existing special file (a character device such as `/dev/null`, a FIFO):
    /// opened and written in place.
    Special(PathBuf),
    /// A regular file, written through a temporary file renamed onto `path`; `replaces`
    /// when a file is there now.
    File { path: PathBuf, replaces: bool },
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    false
}

/// True when both paths exist and name the same file (through symlinks).
pub fn is_same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => same_file(&x, &y),
        _ => false,
    }
}

/// Decides where `output` goes, refusing to overwrite without `force` and refusing an
/// output that is one of `inputs` in any case. Errors are one line naming the file.
pub fn prepare(output: &str, inputs: &[String], force: bool) -> Result<Target, String> {
    if output == "-" {
        return Ok(Target::Stdout);
    }
    let shown = sanitize::line(output);
    let path = Path::new(output);
    let link = std::fs::symlink_metadata(path).ok();
    let is_link = link.as_ref().is_some_and(|m| m.file_type().is_symlink());
    let target = std::fs::metadata(path).ok(); // follows symlinks
    if let Some(t) = &target {
        for i in inputs {
            if let Ok(m) = std::fs::metadata(i)
                && same_file(&m, t)
            {
                return Err(format!(
                    "{shown}: is the input {} itself: refusing to write the output over an input \
                     (choose another output file)",
                    sanitize::line(i)
                ));
            }
        }
    }
    if is_link && !force {
        return Err(format!(
            "{shown}: is a symbolic link: refusing to write through it (use --force to write \
             to the file it points to)"
        ));
    }
    match target {
        Some(t) if t.is_dir() => Err(format!("{shown}: is a folder, not a file")),
        Some(t) if !t.is_file() => Ok(Target::Special(path.to_path_buf())),
        Some(_) if !force => Err(format!(
            "{shown}: already exists (use --force to overwrite it)"
        )),
        Some(_) => Ok(Target::File {
            path: resolved(path),
            replaces: true,
        }),
        None if is_link => Ok(Target::File {
            // --force on a dangling link: create the file it names
            path: resolved(path),
            replaces: false,
        }),
        None => match path.parent().filter(|d| !d.as_os_str().is_empty()) {
            Some(d) if !d.is_dir() => Err(format!(
                "{shown}: the folder {} does not exist (create it first)",
                sanitize::path(d)
            )),
            _ => Ok(Target::File {
                path: path.to_path_buf(),
                replaces: false,
            }),
        },
    }
}

/// The file a symlink finally points to (relative links resolved against their folder).
fn resolved(path: &Path) -> PathBuf {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::read_link(&p) {
            Ok(t) if t.is_absolute() => p = t,
            Ok(t) => p = p.parent().map_or(t.clone(), |d| d.join(&t)),
            Err(_) => break,
        }
    }
    p
}

/// Writes the output with `write`; for a file, through a temporary file in the same folder
/// renamed into place when `write` succeeded. A closed standard output is not an error.
pub fn write(
    target: &Target,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), String> {
    match target {
        Target::Stdout => {
            let mut out = std::io::stdout().lock();
            match write(&mut out).and_then(|()| out.flush()) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                Err(e) => Err(format!("-: {}", io_message(&e))),
            }
        }
        Target::Special(path) => {
            let shown = sanitize::path(path);
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| format!("{shown}: {}", io_message(&e)))?;
            let mut out = std::io::BufWriter::with_capacity(1 << 20, f);
            write(&mut out)
                .and_then(|()| out.flush())
                .map_err(|e| format!("{shown}: {}", io_message(&e)))
        }
        Target::File { path, replaces } => {
            let shown = sanitize::path(path);
            let dir = match path.parent() {
                Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
                _ => PathBuf::from("."),
            };
            let base = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "output".into());
            let (tmp, f) = temp_file(&dir, &base).map_err(|e| format!("{shown}: {e}"))?;
            let result = pipelined(Sink::new(f), write).and_then(|f| {
                if *replaces && let Ok(m) = std::fs::metadata(path) {
                    let _ = f.set_permissions(m.permissions());
                }
                f.sync_all()?;
                tmp.put_in_place(&f, &dir, &base, path)
            });
            if let Err(e) = result {
                if let Temp::Named(p) = &tmp {
                    let _ = std::fs::remove_file(p);
                }
                return Err(format!("{shown}: {}", io_message(&e)));
            }
            Ok(())
        }
    }
}

/// Bytes handed to the disk at a time: a multiple of [`ALIGN`].
const CHUNK: usize = 4 << 20;

/// The alignment direct I/O asks of buffers, lengths and offsets (a page covers every
/// logical block size in use).
const ALIGN: usize = 4096;

/// Chunks in flight: one being filled, one being written, one queued between them.
const CHUNKS: usize = 3;

/// A buffer of up to [`CHUNK`] bytes whose data starts at an address aligned for direct
/// I/O. Its memory is reserved, not touched: a small output costs only the pages it fills.
struct Chunk {
    buf: Vec<u8>,
    /// where the data starts in `buf` (the bytes before it are padding)
    start: usize,
}

impl Chunk {
    fn new() -> Chunk {
        let mut buf: Vec<u8> = Vec::with_capacity(CHUNK + ALIGN);
        // an address that cannot be aligned (never, in practice) leaves the data
        // unaligned: the direct write is then refused and the page cache takes it
        let start = Some(buf.as_ptr().align_offset(ALIGN)).filter(|&o| o < ALIGN);
        let start = start.unwrap_or(0);
        buf.resize(start, 0);
        Chunk { buf, start }
    }

    fn data(&self) -> &[u8] {
        &self.buf[self.start..]
    }

    fn len(&self) -> usize {
        self.buf.len() - self.start
    }

    fn clear(&mut self) {
        self.buf.truncate(self.start);
    }
}

/// Runs `write` on this thread while another thread hands what it made to `sink`, a chunk
/// at a time: making the output and writing it overlap, and the disk write of a direct
/// sink needs no page cache. Returns the sink's file, everything written.
fn pipelined(
    mut sink: Sink,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<std::fs::File> {
    use std::sync::mpsc::sync_channel;
    let (full_tx, full_rx) = sync_channel::<Chunk>(CHUNKS);
    let (empty_tx, empty_rx) = sync_channel::<Chunk>(CHUNKS);
    std::thread::scope(|s| {
        let disk = std::thread::Builder::new()
            .name("output".into())
            .spawn_scoped(s, move || -> std::io::Result<std::fs::File> {
                while let Ok(mut chunk) = full_rx.recv() {
                    sink.put(chunk.data())?;
                    chunk.clear();
                    let _ = empty_tx.send(chunk);
                }
                Ok(sink.file)
            })?;
        let mut out = Producer {
            chunk: Chunk::new(),
            made: 1,
            full: full_tx,
            empty: empty_rx,
        };
        let made = write(&mut out).and_then(|()| out.hand_over());
        drop(out); // the disk thread ends when its queue closes
        let file = disk
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("the writing thread failed")));
        // the disk's error first: a producer error may only say that the disk stopped
        let file = file?;
        made.map(|()| file)
    })
}

/// The making side of [`pipelined`]: fills a chunk, queues it when full.
struct Producer {
    chunk: Chunk,
    /// chunks made so far (at most [`CHUNKS`]; then emptied ones come back)
    made: usize,
    full: std::sync::mpsc::SyncSender<Chunk>,
    empty: std::sync::mpsc::Receiver<Chunk>,
}

impl Producer {
    /// Queues the chunk as filled so far and takes an empty one.
    fn hand_over(&mut self) -> std::io::Result<()> {
        if self.chunk.len() == 0 {
            return Ok(());
        }
        let stopped = || std::io::Error::other("the disk stopped taking the output");
        let next = if self.made < CHUNKS {
            self.made += 1;
            Chunk::new()
        } else {
            self.empty.recv().map_err(|_| stopped())?
        };
        let full = std::mem::replace(&mut self.chunk, next);
        self.full.send(full).map_err(|_| stopped())
    }
}

impl Write for Producer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.chunk.len() == CHUNK {
            self.hand_over()?;
        }
        let n = buf.len().min(CHUNK - self.chunk.len());
        self.chunk.buf.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The file being written: directly to disk where the file system allows it (an
/// artifact's gigabytes need not pass through the page cache on their way, and the
/// `sync_all` before the rename finds them there already), else through the page cache,
/// asking the kernel every [`WRITEBACK_EVERY`] bytes to start writing pages out so that
/// the final `sync_all` finds little left to do.
struct Sink {
    file: std::fs::File,
    direct: bool,
    /// Bytes written so far.
    written: u64,
    /// Bytes whose write-out has been started (buffered writing).
    started: u64,
}

/// Bytes written through the page cache between two requests to start write-out.
const WRITEBACK_EVERY: u64 = 8 << 20;

impl Sink {
    fn new(file: std::fs::File) -> Sink {
        let direct = set_direct(&file, true);
        Sink {
            file,
            direct,
            written: 0,
            started: 0,
        }
    }

    /// Writes all of `data`. Direct writing takes whole pages only: a shorter end goes
    /// through the page cache, and a file system that refuses a direct write gets the
    /// rest that way too.
    fn put(&mut self, mut data: &[u8]) -> std::io::Result<()> {
        if self.direct && !data.len().is_multiple_of(ALIGN) {
            let whole = data.len() - data.len() % ALIGN;
            self.put(&data[..whole])?;
            data = &data[whole..];
            self.direct = !set_direct(&self.file, false);
        }
        while !data.is_empty() {
            match self.file.write(data) {
                Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
                Ok(n) => {
                    data = &data[n..];
                    self.written += n as u64;
                    if !self.direct && self.written - self.started >= WRITEBACK_EVERY {
                        self.start_writeback();
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if self.direct && e.kind() == std::io::ErrorKind::InvalidInput => {
                    self.direct = !set_direct(&self.file, false);
                    if self.direct {
                        return Err(e);
                    }
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    #[cfg(target_os = "linux")]
    fn start_writeback(&mut self) {
        use std::os::fd::AsRawFd;
        let (from, len) = (self.started, self.written - self.started);
        // SAFETY: sync_file_range only reads its integer arguments; the descriptor is the
        // open file this struct owns. SYNC_FILE_RANGE_WRITE starts write-out of the range's
        // dirty pages without waiting for it. A failure (a file system without support) is
        // harmless: `sync_all` still flushes everything.
        unsafe {
            libc::sync_file_range(
                self.file.as_raw_fd(),
                from as libc::off64_t,
                len as libc::off64_t,
                libc::SYNC_FILE_RANGE_WRITE,
            );
        }
        self.started = self.written;
    }

    #[cfg(not(target_os = "linux"))]
    fn start_writeback(&mut self) {}
}

/// Turns direct I/O on or off for `file`; true when it is now as asked.
#[cfg(target_os = "linux")]
fn set_direct(file: &std::fs::File, on: bool) -> bool {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: fcntl with F_GETFL/F_SETFL only reads and sets the status flags of the open
    // descriptor this borrow keeps alive; no memory is passed.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 {
            return false;
        }
        let want = if on {
            flags | libc::O_DIRECT
        } else {
            flags & !libc::O_DIRECT
        };
        want == flags || libc::fcntl(fd, libc::F_SETFL, want) == 0
    }
}

#[cfg(not(target_os = "linux"))]
fn set_direct(_: &std::fs::File, on: bool) -> bool {
    !on
}

/// Where a file's new content is written before it takes the output's name.
enum Temp {
    /// A file without a name in the output's folder (Linux's `O_TMPFILE`): a write that is
    /// interrupted, even by SIGKILL, leaves nothing behind. It is given a temporary name
    /// only once complete, and renamed onto the output at once.
    Unnamed,
    /// A named file next to the output (`.NAME.tmp-PID-N`), created exclusively, removed if
    /// the write fails (a killed process leaves it).
    Named(PathBuf),
}

impl Temp {
    /// Gives the complete file `f` the output's name, replacing what is there atomically.
    fn put_in_place(
        &self,
        f: &std::fs::File,
        dir: &Path,
        base: &str,
        path: &Path,
    ) -> std::io::Result<()> {
        match self {
            Temp::Named(tmp) => std::fs::rename(tmp, path),
            Temp::Unnamed => {
                let named = fresh_names(dir, base, |p| link_unnamed(f, p))?;
                std::fs::rename(&named, path).inspect_err(|_| {
                    let _ = std::fs::remove_file(&named);
                })
            }
        }
    }
}

/// Calls `make` on `.NAME.tmp-PID-N` for N = 0, 1, … until it does not find the name
/// taken; the name it made.
fn fresh_names(
    dir: &Path,
    base: &str,
    mut make: impl FnMut(&Path) -> std::io::Result<()>,
) -> std::io::Result<PathBuf> {
    let mut last = None;
    for n in 0..100u32 {
        let p = dir.join(format!(".{base}.tmp-{}-{n}", std::process::id()));
        match make(&p) {
            Ok(()) => return Ok(p),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("cannot create a temporary file")))
}

/// Links the unnamed file `f` at `to` (through `/proc/self/fd`, which names its inode).
#[cfg(target_os = "linux")]
fn link_unnamed(f: &std::fs::File, to: &Path) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    let from = std::ffi::CString::new(format!("/proc/self/fd/{}", f.as_raw_fd()))?;
    let to = std::ffi::CString::new(to.as_os_str().as_bytes())?;
    // SAFETY: both pointers are NUL-terminated strings that live until the call returns;
    // linkat only reads them. AT_SYMLINK_FOLLOW makes it link the inode the descriptor's
    // /proc entry points to, which an O_TMPFILE file opened without O_EXCL allows.
    let rc = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn link_unnamed(_: &std::fs::File, _: &Path) -> std::io::Result<()> {
    Err(std::io::ErrorKind::Unsupported.into())
}

/// An unnamed file in `dir` where the file system makes one and `/proc/self/fd` can name
/// it later; `None` otherwise.
#[cfg(target_os = "linux")]
fn unnamed_file(dir: &Path) -> Option<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    if !Path::new("/proc/self/fd").is_dir() {
        return None;
    }
    std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_TMPFILE)
        .mode(0o666)
        .open(dir)
        .ok()
}

#[cfg(not(target_os = "linux"))]
fn unnamed_file(_: &Path) -> Option<std::fs::File> {
    None
}

/// A new temporary file for an output in `dir`: unnamed where the system allows, else
/// `.NAME.tmp-PID-N` created exclusively.
fn temp_file(dir: &Path, base: &str) -> Result<(Temp, std::fs::File), String> {
    if let Some(f) = unnamed_file(dir) {
        return Ok((Temp::Unnamed, f));
    }
    let mut made = None;
    let p = fresh_names(dir, base, |p| {
        made = Some(
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(p)?,
        );
        Ok(())
    })
    .map_err(|e| io_message(&e))?;
    let f = made.ok_or("cannot create a temporary file")?;
    Ok((Temp::Named(p), f))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        crate::testutil::scratch(&format!("out-{tag}"))
    }

    fn put(t: &Target, s: &str) -> Result<(), String> {
        write(t, |w| w.write_all(s.as_bytes()))
    }

    /// Bytes that differ from one position to the next, so a lost, doubled or misplaced
    /// piece shows.
    fn pattern(len: usize) -> Vec<u8> {
        (0..len)
            .map(|i| (i % 251) as u8 ^ (i / 251) as u8)
            .collect()
    }

    /// Writes `data` in pieces of uneven sizes, as a serialiser does.
    fn uneven(w: &mut dyn Write, data: &[u8]) -> std::io::Result<()> {
        let mut at = 0;
        for step in [1usize, 7, 4096, 3, 1 << 20, 65_537].iter().cycle() {
            if at == data.len() {
                return Ok(());
            }
            let n = (*step).min(data.len() - at);
            w.write_all(&data[at..at + n])?;
            at += n;
        }
        Ok(())
    }

    #[test]
    fn a_file_gets_every_byte_in_order_whatever_its_length() {
        let d = scratch("chunks");
        // empty, shorter than a page, whole pages, several chunks with a ragged end
        for len in [
            0,
            1,
            ALIGN - 1,
            ALIGN,
            2 * ALIGN,
            CHUNK,
            2 * CHUNK + 12_345,
            5 * CHUNK + 1,
        ] {
            let data = pattern(len);
            let out = d.join(format!("out-{len}.bin"));
            let t = prepare(out.to_str().unwrap(), &[], false).unwrap();
            write(&t, |w| uneven(w, &data)).unwrap();
            assert!(std::fs::read(&out).unwrap() == data, "{len} bytes");
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_sink_without_direct_writing_writes_the_same_bytes() {
        let d = scratch("buffered");
        let out = d.join("out.bin");
        let f = std::fs::File::create(&out).unwrap();
        assert!(set_direct(&f, false));
        let sink = Sink {
            file: f,
            direct: false,
            written: 0,
            started: 0,
        };
        let data = pattern(3 * CHUNK + 99);
        let f = pipelined(sink, |w| uneven(w, &data)).unwrap();
        drop(f);
        assert!(std::fs::read(&out).unwrap() == data);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_disk_that_fails_ends_the_write_with_its_error() {
        let d = scratch("diskfail");
        let out = d.join("ro.bin");
        std::fs::write(&out, b"").unwrap();
        // a descriptor open for reading only: every write fails, after the producer has
        // queued more than the chunks in flight (it must not wait forever)
        let f = std::fs::File::open(&out).unwrap();
        let sink = Sink {
            file: f,
            direct: false,
            written: 0,
            started: 0,
        };
        let data = pattern((CHUNKS + 3) * CHUNK);
        let e = pipelined(sink, |w| uneven(w, &data)).unwrap_err();
        assert!(
            !e.to_string().contains("stopped taking"),
            "the disk's own error is the one reported: {e}"
        );
        // and a failing producer leaves no file and no temporary file behind
        let t = prepare(d.join("never.bin").to_str().unwrap(), &[], false).unwrap();
        let e = write(&t, |w| {
            uneven(w, &data[..2 * CHUNK])?;
            Err(std::io::Error::other("boom"))
        })
        .unwrap_err();
        assert!(e.contains("boom"), "{e}");
        let names: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["ro.bin"]);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_file_being_written_has_no_name_in_its_folder() {
        let d = scratch("unnamed");
        if unnamed_file(&d).is_none() {
            eprintln!("skip: no unnamed temporary files in {}", d.display());
            return;
        }
        let listing = || -> Vec<String> {
            let mut v: Vec<_> = std::fs::read_dir(&d)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            v.sort();
            v
        };
        std::fs::write(d.join("old.json"), "old").unwrap();
        let out = d.join("old.json");
        let t = prepare(out.to_str().unwrap(), &[], true).unwrap();
        let mut seen = Vec::new();
        write(&t, |w| {
            uneven(w, &pattern(CHUNK + 5))?;
            seen = listing(); // what a kill at this moment would leave
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, ["old.json"]);
        assert_eq!(listing(), ["old.json"]);
        assert_eq!(std::fs::read(&out).unwrap(), pattern(CHUNK + 5));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_missing_folder_is_named_before_any_work() {
        let d = scratch("nofolder");
        let out = d.join("missing").join("x.json");
        let e = prepare(out.to_str().unwrap(), &[], false).err().unwrap();
        assert!(
            e.contains("the folder") && e.contains("missing") && e.contains("does not exist"),
            "{e}"
        );
        // a file in the current folder, or one whose folder exists, is fine
        assert!(prepare("toolscope-no-such-output.json", &[], false).is_ok());
        assert!(prepare(d.join("x.json").to_str().unwrap(), &[], false).is_ok());
    }

    #[test]
    fn never_destroys_an_input_or_an_existing_file() {
        let d = scratch("safe");
        let input = d.join("spec.json");
        std::fs::write(&input, "spec").unwrap();
        let inp = vec![input.display().to_string()];
        // the input itself, with or without --force
        for force in [false, true] {
            let e = prepare(&inp[0], &inp, force).unwrap_err();
            assert!(e.contains("is the input"), "{e}");
        }
        // through a symlink to the input
        #[cfg(unix)]
        {
            let link = d.join("link.json");
            std::os::unix::fs::symlink(&input, &link).unwrap();
            let e = prepare(link.to_str().unwrap(), &inp, true).unwrap_err();
            assert!(e.contains("is the input"), "{e}");
            // a symlink to another file: refused without --force, followed with it
            let victim = d.join("victim.txt");
            std::fs::write(&victim, "precious").unwrap();
            let l2 = d.join("l2.json");
            std::os::unix::fs::symlink(&victim, &l2).unwrap();
            let e = prepare(l2.to_str().unwrap(), &inp, false).unwrap_err();
            assert!(e.contains("symbolic link"), "{e}");
            let t = prepare(l2.to_str().unwrap(), &inp, true).unwrap();
            put(&t, "new").unwrap();
            assert_eq!(std::fs::read_to_string(&victim).unwrap(), "new");
            assert!(
                std::fs::symlink_metadata(&l2)
                    .unwrap()
                    .file_type()
                    .is_symlink()
            );
        }
        // an existing file: refused without --force, replaced atomically with it
        let out = d.join("out.json");
        std::fs::write(&out, "precious").unwrap();
        let e = prepare(out.to_str().unwrap(), &inp, false).unwrap_err();
        assert!(e.contains("already exists"), "{e}");
        let t = prepare(out.to_str().unwrap(), &inp, true).unwrap();
        assert!(put(&t, "x").is_ok());
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "x");
        // a failing write leaves the old file and no temporary file behind
        let t = prepare(out.to_str().unwrap(), &inp, true).unwrap();
        assert!(write(&t, |_| Err(std::io::Error::other("boom"))).is_err());
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "x");
        let left: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
            .collect();
        assert!(left.is_empty());
        // a new file and /dev/null
        let t = prepare(d.join("new.json").to_str().unwrap(), &inp, false).unwrap();
        put(&t, "n").unwrap();
        assert!(matches!(
            prepare("/dev/null", &inp, false),
            Ok(Target::Special(_))
        ));
        let _ = std::fs::remove_dir_all(&d);
    }
}
