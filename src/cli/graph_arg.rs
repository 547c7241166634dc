//! Resolving a GRAPH argument: the word `demo`, a path to an artifact, or a spec / tool list
//! (OpenAPI, Swagger, MCP tools/list, function list) that is built on load.

use crate::demo;
use crate::engine::Engine;
use crate::error::InputError;
use crate::model::load::load_graph_file;
use std::path::Path;

pub fn load_engine(arg: &str) -> Result<Engine, InputError> {
    let graph = if arg == "demo" {
        demo::load_demo()?
    } else if is_spec(arg) {
        crate::ingest::build_and_load(&[arg.to_string()], &Default::default())?
    } else {
        load_graph_file(Path::new(arg))?
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
