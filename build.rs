//! Link-time code layout for the release binary: the functions a load, a ranking, a
//! selection and the JSON output run (recorded by `scripts/make-symbol-order.sh` into
//! `link/symbol-order.txt`) are placed next to each other, so a query touches a few
//! hundred KiB of code pages instead of pulling in pages from all over the binary. This
//! only changes where functions sit: a missing or stale name is skipped by the linker.
//!
//! The option is LLD's. It is passed only where the toolchain links with its bundled LLD
//! by default (x86_64 Linux GNU, Rust 1.90 and later) and no other linker is configured;
//! `TOOLSCOPE_NO_SYMBOL_ORDER=1` turns it off.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=link/symbol-order.txt");
    println!("cargo:rerun-if-env-changed=TOOLSCOPE_NO_SYMBOL_ORDER");
    let order = Path::new(env!("CARGO_MANIFEST_DIR")).join("link/symbol-order.txt");
    if order.is_file() && links_with_bundled_lld() {
        println!(
            "cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={}",
            order.display()
        );
        println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
    }
}

fn links_with_bundled_lld() -> bool {
    let env = |k: &str| std::env::var(k).unwrap_or_default();
    if !env("TOOLSCOPE_NO_SYMBOL_ORDER").is_empty()
        || env("PROFILE") != "release"
        || env("TARGET") != "x86_64-unknown-linux-gnu"
        || std::env::var_os("RUSTC_LINKER").is_some()
    {
        return false;
    }
    // a flag that picks the linker or its features could leave LLD out
    let flags = env("CARGO_ENCODED_RUSTFLAGS");
    if flags.contains("linker")
        || flags.contains("link-self-contained")
        || flags.contains("fuse-ld")
    {
        return false;
    }
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let Ok(out) = Command::new(rustc).arg("-vV").output() else {
        return false;
    };
    let version = String::from_utf8_lossy(&out.stdout);
    let minor = version
        .lines()
        .find_map(|l| l.strip_prefix("release: 1."))
        .and_then(|r| r.split('.').next()?.parse::<u32>().ok());
    minor.is_some_and(|m| m >= 90)
}
