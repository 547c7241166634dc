//! The process's memory allocator, chosen once, before the first allocation.
//!
//! `toolscope build` makes and frees millions of small rows and strings on every core;
//! mimalloc builds GitHub's REST API in about two thirds of the time glibc's allocator
//! takes. A ranking blame (`toolscope diff … --cases` or `--query`) assembles thousands
//! of hybrid graphs on every core, which glibc serialises: mimalloc blames in about
//! 60% of the time; so does the explorer's Diff screen on two graphs. Following or
//! replaying captured evidence (`--follow FILE`, in the explorer or in `bench`, and `lab
//! replay`) parses and drops a JSON tree per record: mimalloc reads and classifies about
//! 40% more records per second. Everything else (the explorer on one graph, `query`,
//! `mcp`) keeps the system allocator: its smaller footprint is what the engine's memory
//! targets are measured with.
//!
//! The choice is made on the first allocation, while the main thread is the only thread,
//! from the command line as the kernel holds it (`/proc/self/cmdline`, read without
//! allocating): mimalloc when the first argument is `build`, `diff` with `--cases`,
//! `--query` or `--explore` among the rest, `lab` followed by `replay`, when the first two
//! arguments both name graphs (`toolscope OLD.json NEW.json`), or when any argument is
//! `--follow` (a command line over 512 bytes is judged on its first 512).
//! `TOOLSCOPE_ALLOCATOR=system` or `=mimalloc` overrides it. The mode never changes
//! afterwards, so every block is freed
//! by the allocator that made it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU8, Ordering};

pub struct Allocator;

const UNDECIDED: u8 = 0;
const SYSTEM: u8 = 1;
#[cfg(target_os = "linux")]
const MIMALLOC: u8 = 2;

static MODE: AtomicU8 = AtomicU8::new(UNDECIDED);

#[inline(always)]
fn mode() -> u8 {
    match MODE.load(Ordering::Relaxed) {
        UNDECIDED => first_mode(),
        m => m,
    }
}

#[cold]
#[inline(never)]
fn first_mode() -> u8 {
    let m = decide();
    #[cfg(target_os = "linux")]
    if m == MIMALLOC {
        tune_mimalloc();
    }
    MODE.store(m, Ordering::Relaxed);
    m
}

/// `mi_option_purge_delay` and `mi_option_allow_thp` in mimalloc.h's `mi_option_t`
/// (libmimalloc-sys names the options around them, not these two; a test reads the names
/// the linked library gives these numbers).
#[cfg(target_os = "linux")]
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;
#[cfg(target_os = "linux")]
const MI_OPTION_ALLOW_THP: std::ffi::c_int = 37;

/// Two mimalloc defaults that cost a build its time, each still decided by its own
/// `MIMALLOC_…` variable when that is set.
///
/// - **Purge delay.** mimalloc gives freed memory back to the kernel 10 ms after it is
///   freed. A build frees and reallocates gigabytes of rows between its stages, so each
///   page came back and was faulted in (zeroed) again: half a million page faults and a
///   third of the CPU time in the kernel for the 50k-tool spec. Waiting 100 ms keeps the
///   pages a stage frees for the next one: 10k spec 123,088 -> 17,820 faults, system time
///   3.30 -> 1.67 s, peak RSS +1.6% (GitHub +6%; waiting 1 s cost +24% there).
/// - **Transparent huge pages.** mimalloc asks for 2 MiB pages on its segments. Faulting in
///   a huge page zeroes 2 MiB at once, and on a virtual machine whose host has taken back
///   the guest's idle memory (cloud VMs and CI runners) that is the slowest way to get
///   memory: touching 2.6 GB cost 5.2–5.8 s in huge pages against 1.1–1.3 s in 4 KiB pages
///   on the 2-core VM the benchmarks run on (0.23 s when the host still backs it). The
///   50k-tool build, on that VM, with huge pages 14.2–16.6 s wall and 7–8 s in the kernel;
///   without 12.8–13.2 s and 2.5–2.8 s, peak RSS 2,606–2,631 MB against 2,629–2,644 MB.
#[cfg(target_os = "linux")]
fn tune_mimalloc() {
    unsafe extern "C" {
        fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    }
    // SAFETY: getenv with NUL-terminated names, before any other thread exists;
    // mi_option_set stores one option value (libmimalloc-sys links the library; the
    // signature is mimalloc.h's) and allocates nothing.
    unsafe {
        if libc::getenv(c"MIMALLOC_PURGE_DELAY".as_ptr()).is_null() {
            mi_option_set(MI_OPTION_PURGE_DELAY, 100);
        }
        if libc::getenv(c"MIMALLOC_ALLOW_THP".as_ptr()).is_null() {
            mi_option_set(MI_OPTION_ALLOW_THP, 0);
        }
    }
}

#[cfg(target_os = "linux")]
fn decide() -> u8 {
    // SAFETY: getenv with a NUL-terminated name; the result is read before any other
    // thread exists (no concurrent setenv).
    let chosen = unsafe { libc::getenv(c"TOOLSCOPE_ALLOCATOR".as_ptr()) };
    if !chosen.is_null() {
        // SAFETY: getenv returned a NUL-terminated string.
        match unsafe { std::ffi::CStr::from_ptr(chosen) }.to_bytes() {
            b"system" => return SYSTEM,
            b"mimalloc" => return MIMALLOC,
            _ => {}
        }
    }
    let mut buf = [0u8; 512];
    let n = read_cmdline(&mut buf);
    let mut args = buf[..n].split(|&b| b == 0);
    args.next(); // the program
    let first = args.next();
    let mut rest = args.clone();
    match first {
        Some(b"build") => MIMALLOC,
        Some(b"diff")
            if args.any(|a| {
                a.starts_with(b"--cases") || a.starts_with(b"--query") || a == b"--explore"
            }) =>
        {
            MIMALLOC
        }
        Some(b"lab") if rest.clone().next() == Some(b"replay") => MIMALLOC,
        // the explorer on two graphs (its Diff screen blames on hybrids)
        Some(a) if graph_like(a) && args.next().is_some_and(graph_like) => MIMALLOC,
        _ if first == Some(b"--follow") || rest.any(|a| a.starts_with(b"--follow")) => MIMALLOC,
        _ => SYSTEM,
    }
}

/// An argument that names a graph or a spec: `demo`, or a file name ending in `.json`,
/// `.json.gz`, `.yaml` or `.yml` (a subcommand never does).
#[cfg(target_os = "linux")]
fn graph_like(a: &[u8]) -> bool {
    a == b"demo"
        || [&b".json"[..], b".json.gz", b".yaml", b".yml"]
            .iter()
            .any(|s| a.ends_with(s))
}

#[cfg(not(target_os = "linux"))]
fn decide() -> u8 {
    SYSTEM
}

/// The start of `/proc/self/cmdline` (NUL-separated arguments) in `buf`; 0 bytes when it
/// cannot be read.
#[cfg(target_os = "linux")]
fn read_cmdline(buf: &mut [u8]) -> usize {
    // SAFETY: plain open/read/close on a stack buffer of the given length.
    unsafe {
        let fd = libc::open(
            c"/proc/self/cmdline".as_ptr(),
            libc::O_RDONLY | libc::O_CLOEXEC,
        );
        if fd < 0 {
            return 0;
        }
        let mut len = 0;
        while len < buf.len() {
            let got = libc::read(fd, buf[len..].as_mut_ptr().cast(), buf.len() - len);
            if got <= 0 {
                break;
            }
            len += got as usize;
        }
        libc::close(fd);
        len
    }
}

#[cfg(target_os = "linux")]
static MI: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// An allocation failed: the process is about to print "memory allocation of N bytes
/// failed" and abort. If the explorer holds the terminal, give it back first (without
/// allocating), so the message lands on the user's screen and the shell works afterwards.
#[cold]
#[inline(never)]
fn failed(p: *mut u8) -> *mut u8 {
    toolscope::tui::emergency::restore_now();
    p
}

#[inline(always)]
fn checked(p: *mut u8) -> *mut u8 {
    if p.is_null() { failed(p) } else { p }
}

// SAFETY: every call is forwarded to one allocator, the same for the life of the process
// (the mode is fixed before the first allocation and never changes).
unsafe impl GlobalAlloc for Allocator {
    #[inline(always)]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        checked(match mode() {
            #[cfg(target_os = "linux")]
            MIMALLOC => unsafe { MI.alloc(layout) },
            _ => unsafe { System.alloc(layout) },
        })
    }

    #[inline(always)]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        checked(match mode() {
            #[cfg(target_os = "linux")]
            MIMALLOC => unsafe { MI.alloc_zeroed(layout) },
            _ => unsafe { System.alloc_zeroed(layout) },
        })
    }

    #[inline(always)]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        match mode() {
            #[cfg(target_os = "linux")]
            MIMALLOC => unsafe { MI.dealloc(ptr, layout) },
            _ => unsafe { System.dealloc(ptr, layout) },
        }
    }

    #[inline(always)]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        checked(match mode() {
            #[cfg(target_os = "linux")]
            MIMALLOC => unsafe { MI.realloc(ptr, layout, new_size) },
            _ => unsafe { System.realloc(ptr, layout, new_size) },
        })
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// The option numbers set in [`super::tune_mimalloc`] are the ones the linked mimalloc
    /// calls `purge_delay` and `allow_thp`: with `MIMALLOC_VERBOSE=1` it prints every
    /// option, by number, when the process loads (this test binary links it too).
    #[test]
    fn mimalloc_option_numbers_name_the_options_tuned() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--list", "--exact", "no such test"])
            .env("MIMALLOC_VERBOSE", "1")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stderr).into_owned()
            + &String::from_utf8_lossy(&out.stdout);
        let names: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("mimalloc: option '"))
            .filter_map(|l| l.split('\'').next())
            .collect();
        assert!(
            names.len() > 37,
            "mimalloc printed {} options:\n{text}",
            names.len()
        );
        assert_eq!(names[super::MI_OPTION_PURGE_DELAY as usize], "purge_delay");
        assert_eq!(names[super::MI_OPTION_ALLOW_THP as usize], "allow_thp");
    }

    #[test]
    fn graph_like_names_graphs_and_specs_never_a_subcommand() {
        for a in ["demo", "old.json", "a/new.json.gz", "spec.yaml", "spec.yml"] {
            assert!(super::graph_like(a.as_bytes()), "{a}");
        }
        for a in [
            "diff",
            "query",
            "build",
            "records.jsonl",
            "runs/",
            "--cases",
        ] {
            assert!(!super::graph_like(a.as_bytes()), "{a}");
        }
    }
}
