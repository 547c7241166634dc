//! The graphify build (spec §2.4–§2.6): semantic metadata, contract promotion, OpenAPI-link
//! outputs, dependency detection, pair hints, link and contract data-flow edges, and the
//! collection artifact around them.

pub mod collection;
pub mod detect;
