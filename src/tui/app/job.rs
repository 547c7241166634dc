//! The query job the worker runs for the explorer: the engine's retrieval (reused when only
//! the selector inputs changed) and its target selection.

use std::sync::Arc;

use crate::engine::{Engine, Params, Retrieval, SelectParams, Selection};

/// One query job for the worker.
#[derive(Clone, Debug)]
pub struct QueryJob {
    pub generation: u64,
    pub query: String,
    pub params: Params,
    pub select: SelectParams,
    /// The current retrieval, reused when only the selector inputs changed.
    pub reuse: Option<Arc<Retrieval>>,
}

/// A finished job.
#[derive(Clone, Debug)]
pub struct QueryOutput {
    pub generation: u64,
    pub retrieval: Arc<Retrieval>,
    pub selection: Arc<Selection>,
    pub micros: u64,
}

/// Runs a job: the engine's retrieval (unless reusable) and its target selection.
pub fn run_job(engine: &Engine, job: &QueryJob) -> QueryOutput {
    let t = std::time::Instant::now();
    let retrieval = match &job.reuse {
        Some(r) if r.query == job.query && r.params == job.params => r.clone(),
        _ => Arc::new(engine.retrieve(&job.query, &job.params)),
    };
    let selection = Arc::new(engine.select(&retrieval, &job.select));
    QueryOutput {
        generation: job.generation,
        retrieval,
        selection,
        micros: t.elapsed().as_micros() as u64,
    }
}
