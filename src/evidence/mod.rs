//! The evidence layer: a versioned metric registry and read-only evidence tools
//! (explain, trace, bounded counterfactual, rank gap, recorded-run lookup, artifact
//! comparison) served to the
//! TUI, the command line and MCP from one implementation. Tools return facts with
//! provenance and a `mechanism_status`; they never recommend an action.

pub mod compare;
pub mod contracts;
pub mod counterfactual;
pub mod foreign;
pub mod knobs;
pub mod mcp;
pub mod rank_gap;
pub mod registry;
pub mod tools;
