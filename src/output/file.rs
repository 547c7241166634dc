//! Writing an output file without destroying anything: an existing file is replaced only
//! with `--force`, never when it is one of the inputs (same device and inode, through
//! symlinks), a symlink at the output path is followed only with `--force`, and the new
//! content goes to a temporary file in the target's folder that is renamed into place
//! once complete (a failed or interrupted write leaves the old file as it was).
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
            let result = (|| {
                let mut out = std::io::BufWriter::with_capacity(1 << 20, Writeback::new(f));
                write(&mut out)?;
                let f = out.into_inner().map_err(|e| e.into_error())?.file;
                if *replaces && let Ok(m) = std::fs::metadata(path) {
                    let _ = f.set_permissions(m.permissions());
                }
                f.sync_all()?;
                std::fs::rename(&tmp, path)
            })();
            if let Err(e) = result {
                let _ = std::fs::remove_file(&tmp);
                return Err(format!("{shown}: {}", io_message(&e)));
            }
            Ok(())
        }
    }
}

/// A file being written that asks the kernel to start writing its pages to disk every
/// [`WRITEBACK_EVERY`] bytes, so the `sync_all` before the rename finds little left to do:
/// the disk works while the rest of the output is made instead of after it (a 2 GB
/// artifact otherwise waits seconds for its flush).
struct Writeback {
    file: std::fs::File,
    /// Bytes written so far.
    written: u64,
    /// Bytes whose write-out has been started.
    started: u64,
}

/// Bytes written between two requests to start write-out.
const WRITEBACK_EVERY: u64 = 8 << 20;

impl Writeback {
    fn new(file: std::fs::File) -> Self {
        Writeback {
            file,
            written: 0,
            started: 0,
        }
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

impl Write for Writeback {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        self.written += n as u64;
        if self.written - self.started >= WRITEBACK_EVERY {
            self.start_writeback();
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// A new temporary file next to the output (`.NAME.tmp-PID-N`), created exclusively.
fn temp_file(dir: &Path, base: &str) -> Result<(PathBuf, std::fs::File), String> {
    let mut last = None;
    for n in 0..100u32 {
        let p = dir.join(format!(".{base}.tmp-{}-{n}", std::process::id()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&p)
        {
            Ok(f) => return Ok((p, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(io_message(&e)),
        }
    }
    Err(last.map_or_else(
        || "cannot create a temporary file".into(),
        |e| io_message(&e),
    ))
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
