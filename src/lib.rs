//! toolscope: a terminal explorer for tool-retrieval evidence.
//!
//! The library reproduces graph-tool-call 0.47.0's `retrieve_graphify` and
//! `select_target_candidate` exactly ([`engine`]), loads its artifacts ([`model`]) and
//! serialises results with the reference's keys and number forms ([`output`]).

pub mod cli;
pub mod demo;
pub mod engine;
pub mod error;
pub mod evidence;
pub mod ingest;
pub mod jsonin;
pub mod jsonout;
pub mod lab;
pub mod limits;
pub mod model;
pub mod output;
pub mod par;
pub mod prefault;
pub mod pytext;
pub mod sanitize;
pub mod sniff;
#[cfg(test)]
mod testutil;
pub mod tui;
