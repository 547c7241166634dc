//! Serialisations of the engine's typed results: reference-compatible JSON and readable text.

pub mod batch;
pub mod file;
pub mod json;
pub mod row;
pub mod text;
pub mod triage;
