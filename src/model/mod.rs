//! Input model: tools, the tool graph and artifact loading.

pub mod graph;
pub mod load;
pub mod scan;
pub mod text;
pub mod tool;

pub use graph::{Edge, EdgeAttrs, EdgeId, Graph, GraphInfo, Node, NodeId, ToolId};
pub use tool::{RawJson, Tool, ToolFacts};
