//! Memory a build is about to use, faulted in ahead of time on a core that would otherwise
//! wait. The library does not know the process's allocator (the binary chooses it, in
//! `src/allocator.rs`): the binary registers how to fault memory in, and `toolscope build`
//! says how much: for the parse once it knows the size of its inputs, for the stages after it
//! once it knows how many operations the spec has. Without a registration (tests, other
//! embedders, the system allocator) [`ahead`] does nothing.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

static HOOK: OnceLock<fn(usize)> = OnceLock::new();
/// Bytes more to fault in once the input is parsed ([`NOT_YET`] until then).
static AFTER_READ: AtomicUsize = AtomicUsize::new(NOT_YET);
const NOT_YET: usize = usize::MAX;

/// Below this much memory to fault in, a thread is not worth starting.
const AT_LEAST: usize = 64 << 20;

/// Sets how memory is faulted in ahead (the first registration wins): the hook gets the
/// bytes to fault in at once; [`after_read`] says how many more, once it knows.
pub fn register(hook: fn(usize)) {
    let _ = HOOK.set(hook);
}

/// Faults in about `now` bytes of the memory the process is about to allocate, in the
/// background, if the binary registered a way to (see the module's doc).
pub fn ahead(now: usize) {
    if now >= AT_LEAST
        && let Some(hook) = HOOK.get()
    {
        hook(now);
    }
}

/// Says the build's input is read and parsed and how many bytes more its next stages are
/// about to fill (a spec that fails its parse never says it).
pub fn input_read(more: usize) {
    AFTER_READ.store(more.min(NOT_YET - 1), Ordering::Release);
}

/// The bytes [`input_read`] gave, once it was called.
pub fn after_read() -> Option<usize> {
    Some(AFTER_READ.load(Ordering::Acquire)).filter(|&n| n != NOT_YET)
}
