//! Memory a build is about to use, faulted in ahead of time on a core that would otherwise
//! wait. The library does not know the process's allocator (the binary chooses it, in
//! `src/allocator.rs`): the binary registers how to fault memory in, and `toolscope build`
//! says how much once it knows the size of its inputs. Without a registration (tests, other
//! embedders, the system allocator) [`ahead`] does nothing.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

static HOOK: OnceLock<fn(usize, usize)> = OnceLock::new();
static INPUT_READ: AtomicBool = AtomicBool::new(false);

/// Below this much memory to fault in, a thread is not worth starting.
const AT_LEAST: usize = 64 << 20;

/// Sets how memory is faulted in ahead (the first registration wins): the hook gets the
/// bytes to fault in at once and the bytes to fault in once [`input_read`] says so.
pub fn register(hook: fn(usize, usize)) {
    let _ = HOOK.set(hook);
}

/// Faults in about `now` bytes of the memory the process is about to allocate, in the
/// background, and `after_read` bytes more once the build has read and parsed its input,
/// if the binary registered a way to (see the module's doc).
pub fn ahead(now: usize, after_read: usize) {
    if now.saturating_add(after_read) >= AT_LEAST
        && let Some(hook) = HOOK.get()
    {
        hook(now, after_read);
    }
}

/// Says the build's input is read and parsed (a spec that fails its parse never says it).
pub fn set_input_read() {
    INPUT_READ.store(true, Ordering::Release);
}

/// Whether [`set_input_read`] was called.
pub fn input_read() -> bool {
    INPUT_READ.load(Ordering::Acquire)
}
