//! The one way work runs on every core: one worker per core (at most 8), in a pool that
//! lives as long as the process, take chunks of a slice from a shared queue and results
//! keep their order. The build's per-tool phases use [`map`] and [`map_mut`] (cheap items:
//! small inputs stay on the calling thread); suite evaluation, triage, replay and Follow's
//! classification use [`map_heavy`] (every item is a whole query or record); Follow reads
//! the next lines while the last ones are classified with [`join`]; the build's artifact
//! writer renders in bounded chunks taken in order with [`stream`]; the build's operations
//! run on [`workers`], each with its own state. A foundation module: it imports nothing of
//! the crate.
//!
//! The workers are rayon-core's pool, started at the first parallel call and kept: a thread
//! that ends makes mimalloc collect its heap and hand its memory segments to the threads
//! after it, which walk the growing list of those segments again at every end. A build
//! that started and ended two threads per phase spent about 5% of its CPU time on that.

/// Threads to use: the machine's cores, at most 8 (asked once: the pool has this many
/// workers for the life of the process, and asking reads the cgroup's CPU quota).
pub fn threads() -> usize {
    static N: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *N.get_or_init(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .clamp(1, 8)
    })
}

/// Below this many items a phase runs on the calling thread (spawning costs more).
pub const MIN_PARALLEL: usize = 64;

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

/// `items.iter().map(f).collect()`, in parallel, in order (chunks from a shared queue). A
/// result may borrow from its item.
pub fn map<'a, T: Sync, R: Send>(items: &'a [T], f: impl Fn(&'a T) -> R + Sync) -> Vec<R> {
    map_from(items, MIN_PARALLEL, f)
}

/// [`map`] for items that each cost a query or more (suite cases, triage, replayed
/// records): parallel from two items on.
pub fn map_heavy<'a, T: Sync, R: Send>(items: &'a [T], f: impl Fn(&'a T) -> R + Sync) -> Vec<R> {
    map_from(items, 2, f)
}

fn map_from<'a, T: Sync, R: Send>(
    items: &'a [T],
    min: usize,
    f: impl Fn(&'a T) -> R + Sync,
) -> Vec<R> {
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

/// The pool's workers (built at the first call; `None` when no thread could be started:
/// the work then runs on the calling thread).
fn pool() -> Option<&'static rayon_core::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon_core::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon_core::ThreadPoolBuilder::new()
            .num_threads(threads())
            .thread_name(|i| format!("par-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// Runs `work` once on each of `n` workers and `beside` on the calling thread meanwhile;
/// the workers' results (in no order) and `beside`'s. A panic in any is resumed here once
/// all have ended.
fn on_workers<R: Send, B>(
    n: usize,
    work: impl Fn() -> R + Sync,
    beside: impl FnOnce() -> B,
) -> (Vec<R>, B) {
    let Some(pool) = pool() else {
        let done = (0..n).map(|_| work()).collect();
        return (done, beside());
    };
    let done = std::sync::Mutex::new(Vec::with_capacity(n));
    let (work, done_ref) = (&work, &done);
    let b = pool.in_place_scope(|sc| {
        for _ in 0..n {
            sc.spawn(move |_| {
                let r = work();
                done_ref.lock().unwrap_or_else(|e| e.into_inner()).push(r);
            });
        }
        beside()
    });
    (done.into_inner().unwrap_or_else(|e| e.into_inner()), b)
}

/// Runs `work` once on every worker ([`threads`] of them) and `beside` on the calling
/// thread meanwhile: each worker keeps its own state for the whole of its share (the
/// build's operations, each worker with its `$ref` resolver), taking work from what they
/// share. The workers' results in no order, and `beside`'s. The workers may wait on
/// `beside` (the artifact loader's scan feeds them through a bounded queue): it runs on the
/// calling thread, never queued behind them, so they always get what they wait for.
pub fn workers<R: Send, B>(work: impl Fn() -> R + Sync, beside: impl FnOnce() -> B) -> (Vec<R>, B) {
    on_workers(threads(), work, beside)
}

/// `n` workers take items from `queue` until it is empty; every result, in no order.
fn drain<I, R>(n: usize, queue: I, work: impl Fn(I::Item) -> R + Sync) -> Vec<R>
where
    I: Iterator + Send,
    R: Send,
{
    let queue = std::sync::Mutex::new(queue);
    let (queue, work) = (&queue, &work);
    let (parts, ()) = on_workers(
        n,
        || {
            let mut done = Vec::new();
            loop {
                let next = queue.lock().unwrap_or_else(|e| e.into_inner()).next();
                let Some(item) = next else { break };
                done.push(work(item));
            }
            done
        },
        || (),
    );
    parts.into_iter().flatten().collect()
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

/// Runs `a` on this thread and `b` on a worker at the same time, and returns both results
/// (with one core, one after the other); a panic in either is resumed here.
pub fn join<A, B: Send>(a: impl FnOnce() -> A, b: impl FnOnce() -> B + Send) -> (A, B) {
    if threads() == 1 {
        let ra = a();
        return (ra, b());
    }
    let Some(pool) = pool() else {
        let ra = a();
        return (ra, b());
    };
    let mut rb = None;
    let slot = &mut rb;
    let ra = pool.in_place_scope(|sc| {
        sc.spawn(move |_| *slot = Some(b()));
        a()
    });
    (ra, rb.expect("the scope ran b"))
}

/// Renders contiguous chunks of `items` in parallel: `f(chunk, index of its first item)`,
/// results in chunk order.
pub fn map_chunks<T: Sync, R: Send>(items: &[T], f: impl Fn(&[T], usize) -> R + Sync) -> Vec<R> {
    let n = threads();
    if n == 1 || items.len() < MIN_PARALLEL {
        return vec![f(items, 0)];
    }
    let chunk = items.len().div_ceil(n);
    let queue = items.chunks(chunk).enumerate();
    in_order(drain(n, queue, |(i, part)| (i, vec![f(part, i * chunk)])))
}

/// Renders `items` a chunk of `chunk` items at a time on every core and hands each chunk's
/// result to `consume` on the calling thread, in chunk order: `render(chunk, index of its
/// first item, buffer)` fills a buffer, `consume(buffer)` takes it (writes it out) and the
/// buffer then goes back to the threads to be reused. At most `ahead` chunks are rendered
/// and not yet consumed, so memory stays at about `ahead` chunks' worth however many items
/// there are. The first error of `consume` stops the work and is returned.
pub fn stream<T: Sync, B: Send + Default, E>(
    items: &[T],
    chunk: usize,
    ahead: usize,
    render: impl Fn(&[T], usize, &mut B) + Sync,
    mut consume: impl FnMut(&mut B) -> Result<(), E>,
) -> Result<(), E> {
    let chunk = chunk.max(1);
    let total = items.len().div_ceil(chunk);
    let n = threads();
    if n == 1 || total < 2 {
        let mut buf = B::default();
        for (i, part) in items.chunks(chunk).enumerate() {
            render(part, i * chunk, &mut buf);
            consume(&mut buf)?;
        }
        return Ok(());
    }
    let shared = Stream {
        state: std::sync::Mutex::new(StreamState {
            next: 0,
            consumed: 0,
            ready: std::collections::BTreeMap::new(),
            pool: Vec::new(),
            stop: false,
        }),
        changed: std::sync::Condvar::new(),
        ahead: ahead.max(1),
        total,
    };
    let (shared, render) = (&shared, &render);
    let part = move |i: usize| &items[i * chunk..((i + 1) * chunk).min(items.len())];
    // a worker that panics stops the stream (its guard); the panic is resumed here
    let consume_all = || {
        let result = (0..total).try_for_each(|i| {
            let Some(mut buf) = shared.take(i) else {
                return Ok(());
            };
            let r = consume(&mut buf);
            shared.give_back(buf, r.is_err());
            r
        });
        shared.stop();
        result
    };
    on_workers(
        n,
        || shared.work(|i, buf| render(part(i), i * chunk, buf)),
        consume_all,
    )
    .1
}

/// What the threads of [`stream`] share.
struct Stream<B> {
    state: std::sync::Mutex<StreamState<B>>,
    changed: std::sync::Condvar,
    ahead: usize,
    total: usize,
}

struct StreamState<B> {
    /// The next chunk to render.
    next: usize,
    /// Chunks consumed so far.
    consumed: usize,
    /// Rendered chunks not yet consumed, by index.
    ready: std::collections::BTreeMap<usize, B>,
    /// Consumed buffers, to be reused.
    pool: Vec<B>,
    /// Set on an error or a panic: no more work.
    stop: bool,
}

impl<B: Default> Stream<B> {
    fn lock(&self) -> std::sync::MutexGuard<'_, StreamState<B>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait<'a>(
        &self,
        g: std::sync::MutexGuard<'a, StreamState<B>>,
    ) -> std::sync::MutexGuard<'a, StreamState<B>> {
        self.changed.wait(g).unwrap_or_else(|e| e.into_inner())
    }

    /// A rendering thread: takes the next chunk while it is at most `ahead` past the
    /// consumer, renders it into a pooled buffer and leaves it in `ready`.
    fn work(&self, render: impl Fn(usize, &mut B)) {
        let guard = StopOnPanic(self);
        loop {
            let mut g = self.lock();
            while !g.stop && g.next < self.total && g.next >= g.consumed + self.ahead {
                g = self.wait(g);
            }
            if g.stop || g.next >= self.total {
                break;
            }
            let i = g.next;
            g.next += 1;
            let mut buf = g.pool.pop().unwrap_or_default();
            drop(g);
            render(i, &mut buf);
            self.lock().ready.insert(i, buf);
            self.changed.notify_all();
        }
        std::mem::forget(guard);
    }

    /// Chunk `i` once rendered (`None` when the stream stopped).
    fn take(&self, i: usize) -> Option<B> {
        let mut g = self.lock();
        loop {
            if let Some(b) = g.ready.remove(&i) {
                return Some(b);
            }
            if g.stop {
                return None;
            }
            g = self.wait(g);
        }
    }

    /// A consumed buffer back to the pool; one chunk more may be rendered.
    fn give_back(&self, buf: B, failed: bool) {
        let mut g = self.lock();
        g.pool.push(buf);
        g.consumed += 1;
        g.stop |= failed;
        drop(g);
        self.changed.notify_all();
    }

    fn stop(&self) {
        self.lock().stop = true;
        self.changed.notify_all();
    }
}

/// Stops a [`stream`] when a rendering thread unwinds (so the consumer does not wait for
/// a chunk that will never come); forgotten on a normal exit.
struct StopOnPanic<'a, B: Default>(&'a Stream<B>);

impl<B: Default> Drop for StopOnPanic<'_, B> {
    fn drop(&mut self) {
        self.0.stop();
    }
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

    /// `stream` with every chunk size and look-ahead hands over the same text in the same
    /// order as rendering the items one after the other.
    #[test]
    fn stream_consumes_every_chunk_in_order() {
        let v: Vec<usize> = (0..1000).collect();
        let want: String = v.iter().map(|x| format!("{x},")).collect();
        for (chunk, ahead) in [(1, 1), (7, 2), (64, 6), (999, 3), (1000, 1), (5000, 4)] {
            let mut got = String::new();
            let r: Result<(), ()> = super::stream(
                &v,
                chunk,
                ahead,
                |part, first, buf: &mut String| {
                    buf.clear();
                    assert_eq!(part[0], first);
                    for x in part {
                        buf.push_str(&format!("{x},"));
                    }
                },
                |buf| {
                    got.push_str(buf);
                    Ok(())
                },
            );
            assert_eq!(r, Ok(()));
            assert_eq!(got, want, "chunk {chunk}, ahead {ahead}");
        }
        let mut none = 0;
        let r: Result<(), ()> = super::stream(
            &v[..0],
            4,
            2,
            |_, _, _: &mut ()| {},
            |_| {
                none += 1;
                Ok(())
            },
        );
        assert_eq!((r, none), (Ok(()), 0));
    }

    #[test]
    fn stream_stops_at_the_first_error_and_resumes_a_panic() {
        let v: Vec<usize> = (0..1000).collect();
        let mut seen = 0;
        let r = super::stream(
            &v,
            10,
            4,
            |_, first, b: &mut usize| *b = first,
            |b| {
                seen += 1;
                if *b == 300 { Err(*b) } else { Ok(()) }
            },
        );
        assert_eq!((r, seen), (Err(300), 31));
        let caught = std::panic::catch_unwind(|| {
            let _ = super::stream(
                &v,
                10,
                4,
                |_, first, _: &mut ()| assert!(first != 500, "chunk 50"),
                |_| Ok::<_, ()>(()),
            );
        });
        let e = caught.expect_err("the panic comes through");
        assert!(super::panic_text(&*e).contains("chunk 50"));
    }
}
