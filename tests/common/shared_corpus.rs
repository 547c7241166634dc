//! Where the shared corpus (graph-tool-call 0.47.0's golden vectors and the peer-bench
//! inputs) is: `$TOOLSCOPE_SHARED_DIR` when set, else `../shared` next to the project (CI's
//! layout). The folder given may be the one holding `corpus/` or the corpus itself. Read
//! by the tests (through `tests/common`) and by `build.rs`, which warns when `../shared`
//! is absent (it does not read the variable: a build script that did would rebuild the
//! crate each time the variable changes).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The environment variable that points the tests at the shared folder.
pub const ENV: &str = "TOOLSCOPE_SHARED_DIR";

/// The corpus folder (the one holding `golden/`), when present: under `$ENV` (`env`) if it
/// is set and not empty, else under `manifest/../shared`.
pub fn corpus_at(manifest: &Path, env: Option<&OsStr>) -> Option<PathBuf> {
    let root = match env.filter(|v| !v.is_empty()) {
        Some(v) => PathBuf::from(v),
        None => manifest.join("../shared"),
    };
    [root.join("corpus"), root]
        .into_iter()
        .find(|c| c.join("golden").is_dir())
}

/// What `cargo test` skips without the corpus.
const SKIPPED: &str = "golden parity with graph-tool-call 0.47.0 (tests/golden_shared.rs) and \
                       the other shared-corpus checks";

/// The build's warning when `manifest/../shared` holds no corpus (one line).
pub fn build_note(manifest: &Path) -> String {
    format!(
        "{} is absent: unless {ENV}=DIR names the folder holding corpus/, cargo test \
         skips {SKIPPED} (each says SKIP)",
        manifest.join("../shared/corpus").display()
    )
}

/// What a test skips without the corpus, and how to point at it (one line).
pub fn absent_note(manifest: &Path, env: Option<&OsStr>) -> String {
    let looked = match env.filter(|v| !v.is_empty()) {
        Some(v) => format!("{ENV}={} holds no corpus/golden", Path::new(v).display()),
        None => format!("{} is absent", manifest.join("../shared/corpus").display()),
    };
    format!("{looked}: skipped; set {ENV}=DIR (the folder holding corpus/) to run it")
}
