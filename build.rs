//! Link-time code layout for the release binary: the functions a load, a ranking, a
//! selection and the JSON output run (recorded by `scripts/make-symbol-order.sh` into
//! `link/symbol-order.txt`) are placed next to each other, so a query touches a few
//! hundred KiB of code pages instead of pulling in pages from all over the binary. This
//! only changes where functions sit: a missing or stale name is skipped by the linker.
//!
//! The option is LLD's. It is passed only where the toolchain links with its bundled LLD
//! by default (x86_64 Linux GNU, Rust 1.90 and later) and no other linker is configured;
//! `TOOLSCOPE_NO_SYMBOL_ORDER=1` turns it off.
//!
//! The names carry hashes that change with the toolchain and the dependency versions. The
//! list's first line says what it was recorded with (rustc release, a hash of Cargo.lock);
//! when either differs from this build's, the build prints a warning that the list is stale
//! (`scripts/make-symbol-order.sh` renews it). A stale list still links and runs: it only
//! loses the layout.
//!
//! It also says, as a build warning, when the shared corpus the parity tests read is not
//! there (`../shared/corpus`, or under `$TOOLSCOPE_SHARED_DIR`): `cargo test` then skips
//! golden parity, and a fresh clone should hear that before the tests run, not only
//! with `--nocapture` (the tests say SKIP on the terminal as well).

use std::path::Path;
use std::process::Command;

// the tests' own rule for where the corpus is (the tests use the rest of it)
#[allow(dead_code)]
#[path = "tests/common/shared_corpus.rs"]
mod shared_corpus;

fn main() {
    println!("cargo:rerun-if-changed=link/symbol-order.txt");
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!("cargo:rerun-if-env-changed=TOOLSCOPE_NO_SYMBOL_ORDER");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    corpus_note(root);
    let order = root.join("link/symbol-order.txt");
    if let Some(release) = order.is_file().then(bundled_lld_release).flatten() {
        println!(
            "cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={}",
            order.display()
        );
        println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
        let head = std::fs::read_to_string(&order)
            .ok()
            .and_then(|t| t.lines().next().map(String::from))
            .unwrap_or_default();
        let lock = std::fs::read(root.join("Cargo.lock")).unwrap_or_default();
        let want = format!(
            "# recorded with rustc {release}, Cargo.lock fnv1a64 {:016x}",
            fnv1a64(&lock)
        );
        if head != want {
            println!(
                "cargo:warning=link/symbol-order.txt may be stale (its first line: {head:?}; \
                 this build: {want:?}): the binary links and runs, but functions whose names \
                 changed lose the layout that keeps a query's code together (peak RSS); \
                 renew the list with scripts/make-symbol-order.sh"
            );
        }
    }
}

/// A warning when `../shared/corpus` is absent (what `cargo test` will skip, and how to
/// point at it elsewhere). The variable is not read here: a build script that reads one
/// rebuilds the whole crate each time it changes; the tests read it, and say SKIP.
/// Cargo repeats the warning on every build until the script runs again (it does when
/// the corpus it found goes away).
fn corpus_note(root: &Path) {
    match shared_corpus::corpus_at(root, None) {
        Some(c) => println!("cargo:rerun-if-changed={}", c.join("golden").display()),
        None => println!("cargo:warning={}", shared_corpus::build_note(root)),
    }
}

fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x100000001b3)
    })
}

/// The rustc release (`1.95.0`) when the binary links with the toolchain's bundled LLD.
fn bundled_lld_release() -> Option<String> {
    let env = |k: &str| std::env::var(k).unwrap_or_default();
    if !env("TOOLSCOPE_NO_SYMBOL_ORDER").is_empty()
        || env("PROFILE") != "release"
        || env("TARGET") != "x86_64-unknown-linux-gnu"
        || std::env::var_os("RUSTC_LINKER").is_some()
    {
        return None;
    }
    // a flag that picks the linker or its features could leave LLD out
    let flags = env("CARGO_ENCODED_RUSTFLAGS");
    if flags.contains("linker")
        || flags.contains("link-self-contained")
        || flags.contains("fuse-ld")
    {
        return None;
    }
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(rustc).arg("-vV").output().ok()?;
    let version = String::from_utf8_lossy(&out.stdout);
    let release = version.lines().find_map(|l| l.strip_prefix("release: "))?;
    let minor = release
        .strip_prefix("1.")
        .and_then(|r| r.split('.').next()?.parse::<u32>().ok())?;
    (minor >= 90).then(|| release.to_string())
}
