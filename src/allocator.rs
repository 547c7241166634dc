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
    let (m, building) = decide();
    #[cfg(target_os = "linux")]
    if m == MIMALLOC {
        tune_mimalloc();
        if building {
            reserve_arena();
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = building;
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

/// Virtual address space reserved for a build's memory at its first allocation (mimalloc
/// would reserve 1 GiB arenas as it grows; one big one lets [`prefault`] know where the
/// build's memory will be). Only address space: pages are backed when touched.
#[cfg(target_os = "linux")]
const ARENA_BYTES: usize = 8 << 30;
/// How much [`prefault`] faults in per call into the kernel.
#[cfg(target_os = "linux")]
const PREFAULT_STEP: usize = 16 << 20;
/// The most [`prefault`] faults in, whatever the input's size: a big file that turns out not
/// to be a spec fails its parse before the build would use this much, and its process then
/// gives back what was faulted in (the 50k-operation spec takes 1.6 GiB).
#[cfg(target_os = "linux")]
const PREFAULT_MAX: usize = 4 << 30;

/// The build's arena: where it starts and how many bytes it has (0 when not reserved).
#[cfg(target_os = "linux")]
static ARENA: [std::sync::atomic::AtomicUsize; 2] = [
    std::sync::atomic::AtomicUsize::new(0),
    std::sync::atomic::AtomicUsize::new(0),
];

/// Reserves [`ARENA_BYTES`] as the arena mimalloc allocates from first (committed: readable
/// and writable, with no page behind it until touched). On a system that refuses the
/// reservation (strict overcommit accounting) mimalloc reserves its own arenas as usual and
/// [`prefault`] does nothing.
#[cfg(target_os = "linux")]
fn reserve_arena() {
    unsafe extern "C" {
        fn mi_reserve_os_memory_ex(
            size: usize,
            commit: bool,
            allow_large: bool,
            exclusive: bool,
            arena_id: *mut std::ffi::c_int,
        ) -> std::ffi::c_int;
        fn mi_arena_area(arena_id: std::ffi::c_int, size: *mut usize) -> *mut std::ffi::c_void;
    }
    let mut id: std::ffi::c_int = 0;
    let mut size = 0usize;
    // SAFETY: mimalloc.h's signatures; called once, on the only thread, before mimalloc
    // has allocated anything; both write only to the locals passed.
    let start = unsafe {
        if mi_reserve_os_memory_ex(ARENA_BYTES, true, false, false, &mut id) != 0 {
            return;
        }
        mi_arena_area(id, &mut size)
    };
    if !start.is_null() {
        ARENA[0].store(start as usize, Ordering::Relaxed);
        ARENA[1].store(size, Ordering::Relaxed);
    }
}

/// Faults in the build's arena from its start on a thread of its own: `now` bytes at once,
/// while the build reads and parses its input on one core (the other would wait), and what
/// [`toolscope::prefault::after_read`] says once the input has parsed (a truncated spec
/// then costs no more than its parse, a spec of few operations no more than they use).
/// The pages the build is about to fill are then there when it touches them. A build
/// spends about a tenth of its CPU time in page faults otherwise, two thirds of them while
/// mimalloc threads a fresh page's free list. `MADV_POPULATE_WRITE` backs a range as
/// writing to it would, without writing (a page already there is left as it is), at a
/// fraction of a fault's cost per page; the contents mimalloc sees are the zeroes a first
/// touch would give. Never more than [`PREFAULT_MAX`] or half the memory the system (or
/// the process's memory cgroup) says is available.
#[cfg(target_os = "linux")]
fn prefault(now: usize) {
    let (start, size) = (
        ARENA[0].load(Ordering::Relaxed),
        ARENA[1].load(Ordering::Relaxed),
    );
    let cap = size.min(PREFAULT_MAX).min(available_bytes() / 2);
    let steps = move |b: usize| b.min(cap) / PREFAULT_STEP * PREFAULT_STEP;
    let first = steps(now);
    if start == 0 || first == 0 {
        return;
    }
    let timing = std::env::var_os("TOOLSCOPE_TIMING").is_some();
    if timing {
        // said before the thread starts: a small build can end before it does
        eprintln!("timing: faulting in {} MiB ahead of the parse", first >> 20);
    }
    let job = move || {
        let t = std::time::Instant::now();
        let populate = |from: usize, to: usize| {
            let mut done = from;
            while done < to {
                // SAFETY: the range lies inside the arena mimalloc reserved for this
                // process (mapped readable and writable for its whole life); populating
                // changes no byte a program can see, only which pages are backed.
                let r = unsafe {
                    libc::madvise(
                        (start + done) as *mut libc::c_void,
                        PREFAULT_STEP,
                        libc::MADV_POPULATE_WRITE,
                    )
                };
                if r != 0 {
                    return None; // a kernel before 5.14, or memory refused
                }
                done += PREFAULT_STEP;
            }
            Some(done)
        };
        let Some(done) = populate(0, first) else {
            return;
        };
        let more = loop {
            match toolscope::prefault::after_read() {
                Some(more) => break more,
                None => std::thread::sleep(std::time::Duration::from_millis(2)),
            }
        };
        let end = populate(done, steps(first.saturating_add(more)).max(first));
        if timing {
            eprintln!(
                "timing: {} MiB faulted in ahead in {:.3} s",
                end.unwrap_or(done) >> 20,
                t.elapsed().as_secs_f64()
            );
        }
    };
    let _ = std::thread::Builder::new()
        .name("prefault".into())
        .spawn(job);
}

/// The memory available to this process, in bytes: `MemAvailable` from `/proc/meminfo`,
/// or less when the process's memory cgroup (v2 or v1) has less room under its limit
/// (0 when none of it can be read).
#[cfg(target_os = "linux")]
fn available_bytes() -> usize {
    let read = |p: &str| std::fs::read_to_string(p).ok();
    let system = read("/proc/meminfo")
        .and_then(|m| {
            let line = m.lines().find(|l| l.starts_with("MemAvailable:"))?;
            let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib.saturating_mul(1024))
        })
        .unwrap_or(0);
    let number = |p: String| read(&p).and_then(|t| t.trim().parse::<usize>().ok());
    let cgroup = read("/proc/self/cgroup").and_then(|c| {
        c.lines().find_map(|l| {
            let (v1, path) = if let Some(p) = l.strip_prefix("0::") {
                (false, p)
            } else {
                let mut f = l.splitn(3, ':');
                let (_, controllers, path) = (f.next()?, f.next()?, f.next()?);
                if !controllers.split(',').any(|c| c == "memory") {
                    return None;
                }
                (true, path)
            };
            let path = path.trim_end_matches('/');
            let (limit, used) = if v1 {
                let d = format!("/sys/fs/cgroup/memory{path}");
                (
                    number(format!("{d}/memory.limit_in_bytes"))?,
                    number(format!("{d}/memory.usage_in_bytes"))?,
                )
            } else {
                let d = format!("/sys/fs/cgroup{path}");
                (
                    number(format!("{d}/memory.max"))?,
                    number(format!("{d}/memory.current"))?,
                )
            };
            Some(limit.saturating_sub(used))
        })
    });
    cgroup.map_or(system, |room| room.min(system))
}

/// Registers [`prefault`] with the library, which calls it once a build knows the size of
/// its inputs (see [`toolscope::prefault`]).
pub fn register_prefault() {
    #[cfg(target_os = "linux")]
    toolscope::prefault::register(prefault);
}

/// The allocator for this command line, and whether it is `toolscope build`.
#[cfg(target_os = "linux")]
fn decide() -> (u8, bool) {
    let mut buf = [0u8; 512];
    let n = read_cmdline(&mut buf);
    let mut args = buf[..n].split(|&b| b == 0);
    args.next(); // the program
    let first = args.next();
    let building = first == Some(b"build");
    // SAFETY: getenv with a NUL-terminated name; the result is read before any other
    // thread exists (no concurrent setenv).
    let chosen = unsafe { libc::getenv(c"TOOLSCOPE_ALLOCATOR".as_ptr()) };
    if !chosen.is_null() {
        // SAFETY: getenv returned a NUL-terminated string.
        match unsafe { std::ffi::CStr::from_ptr(chosen) }.to_bytes() {
            b"system" => return (SYSTEM, false),
            b"mimalloc" => return (MIMALLOC, building),
            _ => {}
        }
    }
    let mut rest = args.clone();
    let mode = match first {
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
    };
    (mode, building && mode == MIMALLOC)
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
fn decide() -> (u8, bool) {
    (SYSTEM, false)
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
