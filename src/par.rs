//! The one way work runs on every core: scoped threads, one per core (at most 8), take
//! chunks of a slice from a shared queue and results keep their order. The build's
//! per-tool phases use [`map`] and [`map_mut`] (cheap items: small inputs stay on the
//! calling thread); suite evaluation, triage, replay and Follow's classification use
//! [`map_heavy`] (every item is a whole query or record); Follow reads the next lines
//! while the last ones are classified with [`join`]. A foundation module: it imports
//! nothing of the crate.

/// Threads to use: the machine's cores, at most 8.
pub fn threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 8)
}

/// Below this many items a phase runs on the calling thread (spawning costs more).
const MIN_PARALLEL: usize = 64;

/// Calls `f` on every item, in parallel over contiguous chunks.
pub fn for_each_mut<T: Send>(items: &mut [T], f: impl Fn(&mut T) + Sync) {
    map_mut(items, f);
}

/// `items.iter_mut().map(f).collect()`, in parallel, in order. Items cost very unevenly
/// (one operation's rows can be a hundred times another's), so the threads take small
/// chunks from a shared queue instead of one contiguous half each.
pub fn map_mut<T: Send, R: Send>(items: &mut [T], f: impl Fn(&mut T) -> R + Sync) -> Vec<R> {
    let n = threads();
    if n == 1 || items.len() < MIN_PARALLEL {
        return items.iter_mut().map(f).collect();
    }
    let chunk = items.len().div_ceil(n * CHUNKS_PER_THREAD);
    let queue = items.chunks_mut(chunk).enumerate();
    in_order(drain(n, queue, |(i, part)| {
        (i, part.iter_mut().map(&f).collect())
    }))
}

/// Chunks per thread in the shared queue of [`map_mut`] and [`map`].
const CHUNKS_PER_THREAD: usize = 16;

/// `items.iter().map(f).collect()`, in parallel, in order (chunks from a shared queue).
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    map_from(items, MIN_PARALLEL, f)
}

/// [`map`] for items that each cost a query or more (suite cases, triage, replayed
/// records): parallel from two items on.
pub fn map_heavy<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    map_from(items, 2, f)
}

fn map_from<T: Sync, R: Send>(items: &[T], min: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let n = threads();
    if n == 1 || items.len() < min {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(n * CHUNKS_PER_THREAD);
    let queue = items.chunks(chunk).enumerate();
    in_order(drain(n, queue, |(i, part)| {
        (i, part.iter().map(&f).collect())
    }))
}

/// `n` scoped threads take items from `queue` until it is empty; every result, in no order.
fn drain<I, R>(n: usize, queue: I, work: impl Fn(I::Item) -> R + Sync) -> Vec<R>
where
    I: Iterator + Send,
    R: Send,
{
    let queue = std::sync::Mutex::new(queue);
    let (queue, work) = (&queue, &work);
    std::thread::scope(|sc| {
        let handles: Vec<_> = (0..n)
            .map(|_| {
                sc.spawn(move || {
                    let mut done = Vec::new();
                    loop {
                        let next = queue.lock().unwrap_or_else(|e| e.into_inner()).next();
                        let Some(item) = next else { break };
                        done.push(work(item));
                    }
                    done
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// Numbered chunk results, flattened in chunk order (into one allocation).
fn in_order<R>(mut parts: Vec<(usize, Vec<R>)>) -> Vec<R> {
    parts.sort_unstable_by_key(|p| p.0);
    let mut out = Vec::with_capacity(parts.iter().map(|p| p.1.len()).sum());
    for (_, part) in parts {
        out.extend(part);
    }
    out
}

/// Runs `a` on this thread and `b` on a thread of its own at the same time, and returns
/// both results (with one core, one after the other); a panic in either is resumed here.
pub fn join<A, B: Send>(a: impl FnOnce() -> A, b: impl FnOnce() -> B + Send) -> (A, B) {
    if threads() == 1 {
        let ra = a();
        return (ra, b());
    }
    std::thread::scope(|sc| {
        let hb = sc.spawn(b);
        let ra = a();
        (
            ra,
            hb.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
        )
    })
}

/// Renders contiguous chunks of `items` in parallel: `f(chunk, index of its first item)`,
/// results in chunk order.
pub fn map_chunks<T: Sync, R: Send>(items: &[T], f: impl Fn(&[T], usize) -> R + Sync) -> Vec<R> {
    let n = threads();
    if n == 1 || items.len() < MIN_PARALLEL {
        return vec![f(items, 0)];
    }
    let chunk = items.len().div_ceil(n);
    let f = &f;
    std::thread::scope(|sc| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .enumerate()
            .map(|(i, part)| sc.spawn(move || f(part, i * chunk)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// Drops a large value (a parsed spec) on a thread of its own: freeing a tree of millions
/// of nodes takes tens of milliseconds the caller need not wait for.
pub fn drop_later<T: Send + 'static>(v: T) {
    if threads() == 1 {
        drop(v);
        return;
    }
    if let Err(e) = std::thread::Builder::new()
        .name("drop".into())
        .spawn(move || drop(v))
    {
        // no thread to be had: the value was moved into the failed spawn and is dropped
        // with it
        drop(e);
    }
}

/// A caught panic's message (`internal error` when it carries none).
pub fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "internal error".into()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn map_keeps_order_and_for_each_touches_every_item() {
        let v: Vec<usize> = (0..1000).collect();
        assert_eq!(
            super::map(&v, |x| x * 2),
            (0..1000).map(|x| x * 2).collect::<Vec<_>>()
        );
        assert_eq!(
            super::map_heavy(&v[..3], |x| x + 1),
            vec![1, 2, 3],
            "small inputs in order too"
        );
        let mut w = v.clone();
        super::for_each_mut(&mut w, |x| *x += 1);
        assert_eq!(w, (1..1001).collect::<Vec<_>>());
        let mut side = 0;
        let (a, ()) = super::join(|| v.len(), || side = 7);
        assert_eq!((a, side), (1000, 7));
    }
}
