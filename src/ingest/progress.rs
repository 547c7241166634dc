//! Progress of a build, for a caller that shows it (the explorer's loading screen).
//!
//! A build reports each phase as it starts, with how far the whole build has come (0 to 1).
//! The operations phase, which takes most of an OpenAPI build, also reports every
//! hundredth operation it finishes, from whichever thread finished it. Without a sink
//! every call returns at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

type Sink = Arc<dyn Fn(&str, f64, &str) + Send + Sync>;

/// Where a build reports its progress: `(phase, fraction of the whole build, detail)`.
#[derive(Clone, Default)]
pub struct Progress(Option<Sink>);

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Progress(on)"
        } else {
            "Progress(off)"
        })
    }
}

/// The share of an OpenAPI build each phase ends at, measured on GitHub's REST API and
/// the synthetic 10k-operation spec (the operations dominate both).
pub mod at {
    /// reading and parsing the inputs
    pub const READ: f64 = 0.05;
    /// normalising, resolving and building one tool per operation, over all specs
    pub const OPERATIONS: f64 = 0.65;
    pub const SEMANTICS: f64 = 0.70;
    pub const PROMOTION: f64 = 0.80;
    pub const DETECTORS: f64 = 0.88;
    pub const CONTRACT_EDGES: f64 = 0.92;
    pub const SUMMARIES: f64 = 0.97;
}

impl Progress {
    pub fn new(f: impl Fn(&str, f64, &str) + Send + Sync + 'static) -> Progress {
        Progress(Some(Arc::new(f)))
    }

    pub fn is_on(&self) -> bool {
        self.0.is_some()
    }

    pub fn report(&self, phase: &str, fraction: f64, detail: &str) {
        if let Some(f) = &self.0 {
            f(phase, fraction.clamp(0.0, 1.0), detail);
        }
    }

    /// A counter over `total` units of one phase that spans `lo..hi` of the build.
    pub fn counter<'a>(
        &'a self,
        phase: &'a str,
        span: (f64, f64),
        total: usize,
        unit: &'a str,
    ) -> Counter<'a> {
        Counter {
            progress: self,
            phase,
            span,
            total,
            unit,
            done: AtomicUsize::new(0),
        }
    }
}

/// Counts finished units (from any thread) and reports every hundredth.
pub struct Counter<'a> {
    progress: &'a Progress,
    phase: &'a str,
    span: (f64, f64),
    total: usize,
    unit: &'a str,
    done: AtomicUsize,
}

impl Counter<'_> {
    pub fn tick(&self) {
        if !self.progress.is_on() || self.total == 0 {
            return;
        }
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        let every = (self.total / 100).max(1);
        if done.is_multiple_of(every) || done == self.total {
            let (lo, hi) = self.span;
            self.progress.report(
                self.phase,
                lo + (hi - lo) * done as f64 / self.total as f64,
                &format!("{done} of {} {}", self.total, self.unit),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn a_counter_reports_every_hundredth_unit_from_many_threads_and_ends_at_its_span() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        let p = Progress::new(move |phase, f, detail| {
            s.lock()
                .unwrap()
                .push((phase.to_string(), f, detail.to_string()))
        });
        let c = p.counter("operations", (0.1, 0.6), 1000, "operations");
        std::thread::scope(|sc| {
            for _ in 0..4 {
                sc.spawn(|| (0..250).for_each(|_| c.tick()));
            }
        });
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 100);
        let last = seen.iter().map(|x| x.1).fold(0.0, f64::max);
        assert!((last - 0.6).abs() < 1e-12, "{last}");
        assert!(
            seen.iter()
                .all(|x| x.1 > 0.1 && x.1 <= 0.6 && x.0 == "operations")
        );
        assert!(seen.iter().any(|x| x.2 == "1000 of 1000 operations"));
    }

    #[test]
    fn without_a_sink_nothing_is_counted() {
        let p = Progress::default();
        let c = p.counter("x", (0.0, 1.0), 10, "units");
        c.tick();
        assert_eq!(c.done.load(Ordering::Relaxed), 0);
        assert!(!p.is_on());
    }
}
