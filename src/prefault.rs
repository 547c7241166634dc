//! Memory a build is about to use, faulted in ahead of time on a core that would otherwise
//! wait. The library does not know the process's allocator (the binary chooses it, in
//! `src/allocator.rs`): the binary registers how to fault memory in, and `toolscope build`
//! says how much once it knows the size of its inputs. Without a registration (tests, other
//! embedders, the system allocator) [`ahead`] does nothing.

use std::sync::OnceLock;

static HOOK: OnceLock<fn(usize)> = OnceLock::new();

/// Below this much memory to fault in, a thread is not worth starting.
const AT_LEAST: usize = 64 << 20;

/// Sets how memory is faulted in ahead (the first registration wins).
pub fn register(hook: fn(usize)) {
    let _ = HOOK.set(hook);
}

/// Faults in about `bytes` of the memory the process is about to allocate, in the
/// background, if the binary registered a way to (see the module's doc).
pub fn ahead(bytes: usize) {
    if bytes >= AT_LEAST
        && let Some(hook) = HOOK.get()
    {
        hook(bytes);
    }
}
