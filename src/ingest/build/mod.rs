//! The graphify build (spec §2.4–§2.6): semantic metadata, contract promotion, dependency
//! detection, contract data-flow edges, and the collection artifact around them.

pub mod collection;
pub mod contracts;
pub mod detect;
pub mod flow;
pub mod links;
pub mod semantics;

/// How many members the build's phases may add to a tool's metadata after its reader made
/// it: `ai_metadata` (semantics), `produces`, `consumes` and `contract_signal_policy`
/// (promotion), `request_body_refs` (`$ref` preservation). The OpenAPI reader makes the map
/// with room for them: a map grown by inserts holds up to twice the room it uses for the
/// rest of the build, and refitting every tool's map cost a rehash of all its members.
pub const METADATA_ADDED: usize = 5;
