//! Quality lab: suites of labelled queries and the metrics computed over them.

pub mod metrics;
pub mod suite;
