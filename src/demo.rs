//! The embedded demo: a commerce back-office API built into a collection artifact by
//! graph-tool-call 0.47.0 (see `scripts/build-demo-artifact.sh`), and its walkthrough queries.

use crate::error::InputError;
use crate::model::Graph;
use crate::model::load::load_graph_bytes;

/// gzip-compressed collection artifact.
pub const DEMO_GRAPH_GZ: &[u8] =
    include_bytes!("../assets/demo/commerce-backoffice.collection.json.gz");

/// The presenter's walkthrough, one query per line (`#` lines are comments).
pub const DEMO_QUERIES: &str = include_str!("../assets/demo/queries.txt");

/// The name under which the demo graph is reported.
pub const DEMO_NAME: &str = "demo";

pub fn load_demo() -> Result<Graph, InputError> {
    load_graph_bytes(DEMO_NAME, DEMO_GRAPH_GZ.to_vec())
}

/// The walkthrough queries without comments and blank lines.
pub fn demo_queries() -> Vec<&'static str> {
    DEMO_QUERIES
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}
