//! Memory a build is about to use, faulted in ahead of time on a core that would otherwise
//! wait. The library does not know the process's allocator (the binary chooses it, in
//! `src/allocator.rs`): the binary registers how to fault memory in, and `toolscope build`
//! says how much once it knows the size of its inputs. Without a registration (tests, other
//! embedders, the system allocator) [`ahead`] does nothing.

use std::sync::OnceLock;

static HOOK: OnceLock<fn(usize)> = OnceLock::new();

/// How many bytes of memory a build uses per byte of specification it reads, at least:
/// peak RSS against input size was 34x for GitHub's REST API (13 MB), 42x for the
/// synthetic 10k-operation spec and 31x for the 50k one. Faulting in more than the build
/// will touch would raise its peak, so this stays below all three.
pub const BYTES_PER_INPUT_BYTE: usize = 25;

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

/// [`ahead`] for a build reading these inputs (local files; standard input and URLs count
/// nothing).
pub fn ahead_of_build(inputs: &[String]) {
    let read: u64 = inputs
        .iter()
        .filter(|i| *i != "-" && !i.contains("://"))
        .filter_map(|i| std::fs::metadata(i).ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum();
    ahead(
        usize::try_from(read)
            .unwrap_or(usize::MAX)
            .saturating_mul(BYTES_PER_INPUT_BYTE),
    );
}
