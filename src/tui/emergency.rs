//! Restoring the terminal when the process dies without unwinding: an abort (an
//! allocation failure ends in one), a bus error (a mapped artifact truncated by another
//! process) or a segmentation fault. Nothing here allocates or takes a lock: the terminal
//! modes saved at start ([`arm`]) are put back with `tcsetattr` and the escape sequences
//! that undo the explorer's screen modes are written with one `write(2)`, both
//! async-signal-safe. [`restore_now`] is also what the allocator calls when an allocation
//! fails, so the "memory allocation failed" message lands on the user's normal screen.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// Leaves mouse reporting, bracketed paste and synchronized output, clears and leaves the
/// alternate screen, resets attributes and shows the cursor.
pub const RESET_SEQUENCE: &[u8] = b"\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1015l\
\x1b[?2004l\x1b[?2026l\x1b[0m\x1b[2J\x1b[?1049l\x1b[?25h";

static ACTIVE: AtomicBool = AtomicBool::new(false);
#[cfg(unix)]
static SAVED: OnceLock<libc::termios> = OnceLock::new();
#[cfg(unix)]
static OLD_ACTIONS: OnceLock<[(libc::c_int, libc::sigaction); 3]> = OnceLock::new();
#[cfg(not(unix))]
static SAVED: OnceLock<()> = OnceLock::new();

/// Saves the terminal's modes (before raw mode is entered) and installs the handlers for
/// fatal signals. Idempotent.
pub fn arm() {
    #[cfg(unix)]
    {
        if SAVED.get().is_none() {
            // SAFETY: tcgetattr fills a zeroed termios for fd 0; on failure nothing is saved.
            let mut t: libc::termios = unsafe { std::mem::zeroed() };
            if unsafe { libc::tcgetattr(0, &mut t) } == 0 {
                let _ = SAVED.set(t);
            }
        }
        install_handlers();
    }
    ACTIVE.store(true, Ordering::SeqCst);
}

/// The explorer has put the terminal back itself: nothing left to restore.
pub fn disarm() {
    ACTIVE.store(false, Ordering::SeqCst);
}

/// Whether the explorer currently owns the terminal.
pub fn armed() -> bool {
    ACTIVE.load(Ordering::SeqCst)
}

/// Puts the terminal back now, once: safe in a signal handler and inside the allocator.
pub fn restore_now() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    #[cfg(unix)]
    {
        // SAFETY: write(2) of a static buffer to fd 1 and tcsetattr(2) with the termios
        // saved by `arm`; both are async-signal-safe and allocate nothing.
        unsafe {
            let _ = libc::write(1, RESET_SEQUENCE.as_ptr().cast(), RESET_SEQUENCE.len());
            if let Some(t) = SAVED.get() {
                let _ = libc::tcsetattr(0, libc::TCSANOW, t);
            }
        }
    }
}

#[cfg(unix)]
const FATAL: [libc::c_int; 3] = [libc::SIGABRT, libc::SIGBUS, libc::SIGSEGV];

#[cfg(unix)]
extern "C" fn on_fatal(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    restore_now();
    // hand the signal on to whatever handled it before (Rust's stack-overflow reporter
    // for SIGSEGV/SIGBUS), else to the default action
    let old = OLD_ACTIONS
        .get()
        .and_then(|a| a.iter().find(|(s, _)| *s == sig).map(|(_, a)| *a));
    // SAFETY: calling the previously installed handler with the arguments the kernel gave
    // us, or restoring the default disposition; all async-signal-safe.
    unsafe {
        match old {
            Some(a) if a.sa_sigaction != libc::SIG_DFL && a.sa_sigaction != libc::SIG_IGN => {
                if a.sa_flags & libc::SA_SIGINFO != 0 {
                    let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                        std::mem::transmute(a.sa_sigaction);
                    f(sig, info, ctx);
                } else {
                    let f: extern "C" fn(libc::c_int) = std::mem::transmute(a.sa_sigaction);
                    f(sig);
                }
            }
            _ => {
                libc::signal(sig, libc::SIG_DFL);
            }
        }
        // a signal that was sent (abort(), raise, kill) is not re-triggered by returning, as
        // a fault is: send it again under the disposition chosen above
        if !info.is_null() && (*info).si_code <= 0 {
            libc::raise(sig);
        }
    }
    // returning re-runs the faulting instruction (SIGSEGV/SIGBUS), now under the handler
    // chosen above
}

#[cfg(unix)]
fn install_handlers() {
    if OLD_ACTIONS.get().is_some() {
        return;
    }
    // SAFETY: sigaction with a zeroed struct naming our handler; the previous actions are
    // read into zeroed structs and kept for `on_fatal` to chain to.
    unsafe {
        let mut old: [(libc::c_int, libc::sigaction); 3] = std::mem::zeroed();
        for (i, sig) in FATAL.iter().enumerate() {
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = on_fatal as *const () as usize;
            act.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_NODEFER;
            libc::sigemptyset(&mut act.sa_mask);
            old[i].0 = *sig;
            libc::sigaction(*sig, std::ptr::null(), &mut old[i].1);
            if OLD_ACTIONS.get().is_none() {
                libc::sigaction(*sig, &act, std::ptr::null_mut());
            }
        }
        let _ = OLD_ACTIONS.set(old);
    }
}

#[cfg(not(unix))]
fn install_handlers() {}
