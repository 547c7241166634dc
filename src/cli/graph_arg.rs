//! Resolving a GRAPH argument: the word `demo` or a path to an artifact.

use crate::demo;
use crate::engine::Engine;
use crate::error::InputError;
use crate::model::load::load_graph_file;
use std::path::Path;

pub fn load_engine(arg: &str) -> Result<Engine, InputError> {
    let graph = if arg == "demo" {
        demo::load_demo()?
    } else {
        load_graph_file(Path::new(arg))?
    };
    Ok(Engine::new(graph))
}
