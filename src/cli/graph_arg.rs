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

/// A file that is not a tool graph (looked at by content, not name).
fn is_spec(arg: &str) -> bool {
    match std::fs::read(arg) {
        Ok(bytes) => !crate::ingest::is_graph_bytes(&bytes),
        Err(_) => false,
    }
}
