//! Quality lab: suites of labelled queries and the metrics computed over them.

pub mod blame;
pub mod captured;
pub mod ci;
pub mod diff;
pub mod eval;
pub mod fixture;
pub mod fixture_check;
pub mod follow;
pub mod graphdiff;
pub mod metrics;
pub mod record;
pub mod replay;
pub mod scrub;
pub mod suite;
pub mod tail;
pub mod triage;
