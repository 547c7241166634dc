//! The graphify build (spec §2.4–§2.6): semantic metadata, contract promotion, dependency
//! detection, contract data-flow edges, and the collection artifact around them.

pub mod collection;
pub mod contracts;
pub mod detect;
pub mod flow;
pub mod links;
pub mod semantics;
