//! The loaded text of an artifact: an owned string, or a read-only memory map of a large
//! plain file (no copy, no page-by-page allocation).

use std::ops::Deref;

/// UTF-8 text that tools keep slices of (`RawJson`) and the fingerprint hashes.
pub struct SourceText {
    inner: Inner,
}

enum Inner {
    Owned(String),
    /// Checked to be UTF-8 when created; never written. The file is kept for positioned
    /// reads ([`SourceText::read_range`]).
    Mapped(memmap2::Mmap, std::fs::File),
}

impl SourceText {
    pub fn owned(text: String) -> Self {
        SourceText {
            inner: Inner::Owned(text),
        }
    }

    /// Wraps a read-only map once its bytes are known to be UTF-8; gives the map back with
    /// the length of its valid prefix otherwise. The check runs on every core, chunk by
    /// chunk, and, for a text of more than one chunk, lets the pages of each checked chunk
    /// go, so the whole file is never resident at once.
    ///
    /// Chunks start at character boundaries (a chunk start is moved past at most three
    /// continuation bytes), so the text is valid exactly when every chunk is, and the first
    /// invalid byte is the first failing chunk's start plus its valid prefix.
    pub fn mapped(map: memmap2::Mmap, file: std::fs::File) -> Result<Self, (memmap2::Mmap, usize)> {
        const CHUNK: usize = 16 << 20;
        let big = map.len() > CHUNK;
        let first_bad = first_invalid(&map, CHUNK, |a, b| {
            if big {
                // a smaller text is walked in full right after: its pages stay for that
                release_pages(&map, a, b);
            }
        });
        match first_bad {
            Some(at) => Err((map, at)),
            None => Ok(SourceText {
                inner: Inner::Mapped(map, file),
            }),
        }
    }

    /// Lets the resident pages of bytes `start..end` of a mapped text go (only whole pages
    /// inside the range); touching them again reads them back from the page cache. A no-op
    /// for owned text. Keeps a large artifact's RSS near the part being worked on.
    pub fn release(&self, start: usize, end: usize) {
        if let Inner::Mapped(m, _) = &self.inner {
            release_pages(m, start, end);
        }
    }

    /// The text is a memory map (its pages may have been let go).
    pub fn is_mapped(&self) -> bool {
        matches!(self.inner, Inner::Mapped(..))
    }

    /// Bytes `start..end` (a slice of this text) of a mapped text, read from its file with a
    /// positioned read instead of through the map; `None` for owned text or when the read
    /// fails. Touching a map whose pages were let go brings back 64 KiB around each access
    /// (the kernel's fault-around): reading a tool's metadata this way keeps the process from
    /// holding most of an artifact again once its tools are emitted.
    pub fn read_range(&self, start: usize, end: usize) -> Option<String> {
        #[cfg(unix)]
        if let Inner::Mapped(_, file) = &self.inner {
            use std::os::unix::fs::FileExt;
            let mut buf = vec![0u8; end.checked_sub(start)?];
            file.read_exact_at(&mut buf, start as u64).ok()?;
            return String::from_utf8(buf).ok();
        }
        let _ = (start, end);
        None
    }

    /// sha256 (hex) of the text's bytes: a graph's fingerprint. The pages of a mapped text
    /// are let go after each chunk (a small chunk keeps the hashed file from adding to the
    /// peak: two files at once in an artifact diff).
    pub fn sha256_hex(&self) -> String {
        use sha2::Digest;
        const CHUNK: usize = 2 << 20;
        let mut h = sha2::Sha256::new();
        for (i, part) in self.as_bytes().chunks(CHUNK).enumerate() {
            h.update(part);
            self.release(i * CHUNK, i * CHUNK + part.len());
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Byte offset of `part`, a slice of this text.
    pub fn offset_of(&self, part: &str) -> usize {
        part.as_ptr() as usize - self.as_str().as_ptr() as usize
    }

    pub fn as_str(&self) -> &str {
        match &self.inner {
            Inner::Owned(s) => s,
            // SAFETY: checked with `from_utf8` in `mapped`; the map is read-only
            Inner::Mapped(m, _) => unsafe { std::str::from_utf8_unchecked(m) },
        }
    }
}

/// The length of the valid UTF-8 prefix of `bytes` when it is not all valid, checked in
/// chunks of about `chunk` bytes on every core; `checked(start, end)` runs after each.
fn first_invalid(
    bytes: &[u8],
    chunk: usize,
    checked: impl Fn(usize, usize) + Sync,
) -> Option<usize> {
    let ranges = chunk_ranges(bytes, chunk);
    crate::par::map_heavy(&ranges, |&(a, b)| {
        let bad = std::str::from_utf8(&bytes[a..b])
            .err()
            .map(|e| a + e.valid_up_to());
        checked(a, b);
        bad
    })
    .into_iter()
    .flatten()
    .next()
}

/// `bytes` cut into ranges of about `chunk` bytes, each starting at a character boundary
/// of valid UTF-8 (not on a continuation byte, unless more than three follow each other,
/// which no valid text has).
fn chunk_ranges(bytes: &[u8], chunk: usize) -> Vec<(usize, usize)> {
    let mut starts = vec![0usize];
    let mut s = chunk;
    while s < bytes.len() {
        let mut b = s;
        while b < bytes.len() && b < s + 3 && (bytes[b] & 0xC0) == 0x80 {
            b += 1;
        }
        if b < bytes.len() && b > *starts.last().unwrap_or(&0) {
            starts.push(b);
        }
        s += chunk;
    }
    let mut out: Vec<(usize, usize)> = starts.windows(2).map(|w| (w[0], w[1])).collect();
    out.push((*starts.last().unwrap_or(&0), bytes.len()));
    out
}

fn release_pages(map: &memmap2::Mmap, start: usize, end: usize) {
    #[cfg(unix)]
    {
        const PAGE: usize = 4096;
        let base = map.as_ptr() as usize; // page-aligned
        debug_assert_eq!(base % PAGE, 0);
        let s = start.div_ceil(PAGE) * PAGE;
        let e = (end.min(map.len()) / PAGE) * PAGE;
        if e > s {
            // SAFETY: a private, read-only map of a file nobody writes through: dropping its
            // pages never changes the bytes seen later (they are read back from the file).
            let _ =
                unsafe { map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, s, e - s) };
        }
    }
    #[cfg(not(unix))]
    let _ = (map, start, end);
}

impl Deref for SourceText {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl std::fmt::Debug for SourceText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SourceText({} bytes)", self.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positioned_reads_give_the_mapped_bytes() {
        let path = std::env::temp_dir().join(format!("toolscope-text-{}.json", std::process::id()));
        let body = "{\"k\": \"héllo wörld\", \"n\": [1, 2, 3]}\n".repeat(2000);
        std::fs::write(&path, &body).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        // SAFETY: a private test file nobody writes while it is mapped
        let map = unsafe { memmap2::MmapOptions::new().map(&file) }.unwrap();
        let text = SourceText::mapped(map, file).map_err(|_| ()).unwrap();
        assert!(text.is_mapped());
        text.release(0, text.len());
        for (s, e) in [(0, 10), (7, 20), (1000, 9000), (0, body.len())] {
            let (s, e) = (text.ceil(s), text.ceil(e));
            assert_eq!(text.read_range(s, e).as_deref(), Some(&body[s..e]));
        }
        assert!(SourceText::owned(body.clone()).read_range(0, 4).is_none());
        std::fs::remove_file(&path).unwrap();
    }

    /// The chunked, parallel check agrees with one `from_utf8` over the whole text, for
    /// every chunk size and every place of an invalid byte (cut characters included).
    #[test]
    fn chunked_check_equals_the_whole_check() {
        let text = "aé€𐍈b".repeat(40);
        let good = text.as_bytes().to_vec();
        let whole = |b: &[u8]| std::str::from_utf8(b).err().map(|e| e.valid_up_to());
        for chunk in 1..12 {
            assert_eq!(
                first_invalid(&good, chunk, |_, _| {}),
                None,
                "chunk {chunk}"
            );
            for at in (0..good.len()).step_by(7) {
                for bad in [0xFFu8, 0x80, 0xC3, 0xE2, 0xF0] {
                    let mut b = good.clone();
                    b[at] = bad;
                    assert_eq!(
                        first_invalid(&b, chunk, |_, _| {}),
                        whole(&b),
                        "chunk {chunk}, byte {bad:#x} at {at}"
                    );
                }
                // cut short: an incomplete last character
                let cut = &good[..at];
                assert_eq!(first_invalid(cut, chunk, |_, _| {}), whole(cut));
            }
        }
        // runs of continuation bytes longer than a character
        let b = [b'a', 0x80, 0x80, 0x80, 0x80, 0x80, b'b'];
        for chunk in 1..8 {
            assert_eq!(first_invalid(&b, chunk, |_, _| {}), whole(&b));
        }
    }

    impl SourceText {
        /// The first char boundary at or after `i`.
        fn ceil(&self, mut i: usize) -> usize {
            while !self.is_char_boundary(i) {
                i += 1;
            }
            i
        }
    }
}
