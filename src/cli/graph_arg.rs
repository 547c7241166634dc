//! Resolving a GRAPH argument: the word `demo`, a path to an artifact, or a spec / tool list
//! (OpenAPI, Swagger, MCP tools/list, function list) that is built on load.

use crate::demo;
use crate::engine::Engine;
use crate::engine::index::Index;
use crate::engine::tokenize::BuiltinTokenizer;
use crate::error::InputError;
use crate::model::load::load_graph_file_with;
use std::path::Path;

pub fn load_engine(arg: &str) -> Result<Engine, InputError> {
    load_engine_as(arg, false)
}

/// [`load_engine`] with the graph's fingerprint computed beside the load (for `mcp`, whose
/// every answer names it).
pub fn load_engine_fingerprinted(arg: &str) -> Result<Engine, InputError> {
    load_engine_as(arg, true)
}

fn load_engine_as(arg: &str, fingerprint: bool) -> Result<Engine, InputError> {
    let graph = if arg == "demo" {
        demo::load_demo()?
    } else if is_spec(arg) {
        crate::ingest::build_and_load(&[arg.to_string()], &Default::default())?
    } else {
        // the index is built beside the graph's nodes and edges
        let (graph, index) = load_graph_file_with(Path::new(arg), fingerprint, |tools| {
            Index::build_for_tools(tools, &BuiltinTokenizer)
        })?;
        return Ok(Engine::with_index(graph, index));
    };
    Ok(Engine::new(graph))
}

/// A spec or tool list rather than a tool graph, recognised from a bounded head of the
/// content by the one sniffer ([`crate::sniff`]). Anything else goes to the graph loader,
/// whose errors name the file and place. (An Arazzo description goes to the builder too,
/// which says it needs a graph to apply to.)
pub fn is_spec(arg: &str) -> bool {
    use crate::sniff::Kind;
    matches!(
        crate::sniff::sniff_path(Path::new(arg)),
        Ok(Kind::Spec | Kind::ToolList | Kind::Yaml | Kind::Arazzo)
    )
}
