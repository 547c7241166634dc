//! A bounded memo of what an operation builder made from part of an operation (its
//! responses, its request body), by the text of that part as written: the operations of one
//! resource often repeat the same parts, and come together in the spec. One builder's (not
//! shared by threads); when it holds too many parts, or parts too big, it starts again empty.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rustc_hash::FxHashMap;

/// What a memo holds: a side made from part of an operation.
pub(super) trait Side {
    /// its size (what the memo bounds besides the count)
    fn weight(&self) -> usize;
    /// the `$ref` nodes resolving its part produced (a reused side weighs on the budget as
    /// its resolution did)
    fn nodes(&self) -> u64;
}

/// How much one kind of memo keeps, and the parts its memos made and reused in this process
/// (`TOOLSCOPE_TIMING` says them).
pub(super) struct Bounds {
    keys: usize,
    weight: usize,
    made: AtomicU64,
    reused: AtomicU64,
}

impl Bounds {
    /// At most `keys` parts, of at most `weight` in all.
    pub(super) const fn new(keys: usize, weight: usize) -> Bounds {
        Bounds {
            keys,
            weight,
            made: AtomicU64::new(0),
            reused: AtomicU64::new(0),
        }
    }

    /// The parts made and reused so far.
    pub(super) fn counts(&self) -> (u64, u64) {
        (self.made.load(Relaxed), self.reused.load(Relaxed))
    }
}

pub(super) struct Memo<T> {
    parts: RefCell<FxHashMap<String, Rc<T>>>,
    /// the weight the memo holds
    weight: Cell<usize>,
    bounds: &'static Bounds,
}

impl<T: Side> Memo<T> {
    pub(super) fn new(bounds: &'static Bounds) -> Memo<T> {
        Memo {
            parts: RefCell::default(),
            weight: Cell::new(0),
            bounds,
        }
    }

    /// The part made for `key` before, if the memo still holds it.
    pub(super) fn get(&self, key: &str) -> Option<Rc<T>> {
        let part = self.parts.borrow().get(key).cloned();
        if part.is_some() {
            self.bounds.reused.fetch_add(1, Relaxed);
        }
        part
    }

    /// Keeps a part just made (and counts it made).
    pub(super) fn put(&self, key: String, part: Rc<T>) {
        self.bounds.made.fetch_add(1, Relaxed);
        let mut parts = self.parts.borrow_mut();
        let weight = self.weight.get() + part.weight();
        if parts.len() >= self.bounds.keys || weight > self.bounds.weight {
            parts.clear();
            self.weight.set(0);
        }
        self.weight.set(self.weight.get() + part.weight());
        parts.insert(key, part);
    }

    /// Counts a part made without a key (not kept).
    pub(super) fn made(&self) {
        self.bounds.made.fetch_add(1, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct W(usize);
    impl Side for W {
        fn weight(&self) -> usize {
            self.0
        }
        fn nodes(&self) -> u64 {
            0
        }
    }

    static SMALL: Bounds = Bounds::new(2, 10);

    #[test]
    fn a_full_memo_starts_again_and_counts_what_it_made_and_reused() {
        let m: Memo<W> = Memo::new(&SMALL);
        let (made, reused) = SMALL.counts();
        m.put("a".into(), Rc::new(W(4)));
        m.put("b".into(), Rc::new(W(4)));
        assert_eq!(m.get("a").map(|w| w.0), Some(4));
        // a third key: the memo held two, it starts again with the third
        m.put("c".into(), Rc::new(W(1)));
        assert!(m.get("a").is_none() && m.get("b").is_none());
        assert_eq!(m.get("c").map(|w| w.0), Some(1));
        // too heavy for what it holds: starts again
        m.put("d".into(), Rc::new(W(10)));
        assert!(m.get("c").is_none());
        assert_eq!(m.get("d").map(|w| w.0), Some(10));
        m.made();
        assert_eq!(SMALL.counts(), (made + 5, reused + 3));
    }
}
