//! Helpers for the crate's unit tests (the integration tests have `tests/common`).

use std::path::PathBuf;

/// An empty folder of this test process's own, under the system's temporary folder:
/// `toolscope-TAG-PID`, emptied if a crashed earlier run left it.
pub fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("toolscope-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
