//! The loaded text of an artifact: an owned string, or a read-only memory map of a large
//! plain file (no copy, no page-by-page allocation).

use std::ops::Deref;

/// UTF-8 text that tools keep slices of (`RawJson`) and the fingerprint hashes.
pub struct SourceText {
    inner: Inner,
}

enum Inner {
    Owned(String),
    /// Checked to be UTF-8 when created; never written.
    Mapped(memmap2::Mmap),
}

impl SourceText {
    pub fn owned(text: String) -> Self {
        SourceText {
            inner: Inner::Owned(text),
        }
    }

    /// Wraps a read-only map once its bytes are known to be UTF-8; gives the map back with
    /// the error otherwise.
    pub fn mapped(map: memmap2::Mmap) -> Result<Self, (memmap2::Mmap, std::str::Utf8Error)> {
        match std::str::from_utf8(&map) {
            Ok(_) => Ok(SourceText {
                inner: Inner::Mapped(map),
            }),
            Err(e) => Err((map, e)),
        }
    }

    pub fn as_str(&self) -> &str {
        match &self.inner {
            Inner::Owned(s) => s,
            // SAFETY: checked with `from_utf8` in `mapped`; the map is read-only
            Inner::Mapped(m) => unsafe { std::str::from_utf8_unchecked(m) },
        }
    }
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
