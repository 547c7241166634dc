//! Loading graph-tool-call saved graphs and collection artifacts (spec §1.3, §1.4).
//!
//! The file is read once, decompressed when it is gzip, validated as UTF-8 and parsed into
//! typed rows. Tool `metadata` stays as a range of the loaded text (emitted verbatim) and a
//! small typed view of the keys the engine reads is parsed from it.
//!
//! Two ways to the same rows, in separate files: [`fast`] (a structural scan splits the
//! tool rows off and a checked walk reads them, on worker threads for large files) and
//! [`serde_rows`] (the row types and the plain serde parse of the whole text, which every
//! unusual file and every error goes through). [`tool_row`] turns a row into a [`Tool`].
//! Imports run one way: this module → `fast` → `tool_row` → `serde_rows`.

mod fast;
mod guess;
mod serde_rows;
mod tool_row;

use serde::de::IgnoredAny;
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

use super::graph::{EdgeAttrs, Graph, GraphInfo};
use super::text::SourceText;
use super::tool::Tool;
use crate::error::InputError;
use fast::{fast_load, parse_tool_row};
use serde_rows::{FileTop, GraphSec, ToolRowTexts, ToolRows, line_col};
pub use serde_rows::{json_error, not_json, parse_with_pointer, path_to_pointer, pointer_escape};
use tool_row::lets_pages_go;
pub use tool_row::parse_facts;

/// Reads a file fully, transparently decompressing gzip, within the input limits
/// ([`crate::limits`]: special files refused, bytes and gzip expansion bounded).
pub fn read_input(path: &Path) -> Result<Vec<u8>, InputError> {
    crate::limits::read_file(path)
}

/// Decompresses gzip within the limits; other bytes are returned as they are.
pub fn maybe_gunzip(name: &str, bytes: Vec<u8>) -> Result<Vec<u8>, InputError> {
    crate::limits::gunzip(name, bytes)
}

/// Validates UTF-8 and reports the first bad byte as line:column.
pub fn into_text(name: &str, bytes: Vec<u8>) -> Result<String, InputError> {
    match String::from_utf8(bytes) {
        Ok(s) => Ok(s),
        Err(e) => {
            let bytes = e.as_bytes();
            let at = e.utf8_error().valid_up_to();
            let (line, col) = line_col(&bytes[..at]);
            Err(InputError::new(
                name,
                &format!("{line}:{col}"),
                "invalid UTF-8 byte sequence".into(),
            ))
        }
    }
}

/// Loads a graph file (JSON or gzip-compressed JSON).
pub fn load_graph_file(path: &Path) -> Result<Graph, InputError> {
    let name = path.display().to_string();
    let t = std::time::Instant::now();
    if let Some((g, warnings)) = load_graph_mapped_quiet(path)? {
        for w in warnings {
            crate::sanitize::eprint_line(&w);
        }
        return Ok(g);
    }
    let bytes = read_input(path)?;
    tt("read", t);
    load_graph_bytes(&name, bytes)
}

/// [`load_graph_file`] that also runs `beside` on the loaded tools, on a thread of its own
/// while the nodes, edges and adjacency are added (the engine builds its index there: the
/// two take about as long on a large graph, and neither needs the other). With
/// `fingerprint`, the fingerprint of a plain (not gzip) file ([`Graph::fingerprint`]: the
/// sha256 of its bytes) is hashed from the file on a thread of its own from the start (for
/// a caller that needs it at once: hashing a large file takes half as long as loading it).
pub fn load_graph_file_with<T: Send>(
    path: &Path,
    fingerprint: bool,
    beside: impl FnOnce(&[Arc<Tool>]) -> T + Send,
) -> Result<(Graph, T), InputError> {
    let name = path.display().to_string();
    let t = std::time::Instant::now();
    let (g, warnings, out) = std::thread::scope(|sc| {
        let hash = fingerprint.then(|| sc.spawn(|| file_sha256(path)));
        match map_large_plain_file(&name, path)? {
            Some(text) => {
                tt("map and UTF-8 check", t);
                let loaded = load_graph_text_with(&name, Arc::new(text), beside)?;
                // the mapped text is the file's bytes: their hash is the fingerprint
                if let Some(fp) = hash.and_then(|h| h.join().expect("fingerprint thread")) {
                    loaded.0.set_fingerprint(fp);
                }
                Ok(loaded)
            }
            None => {
                let bytes = maybe_gunzip(&name, read_input(path)?)?;
                tt("read", t);
                let text = Arc::new(SourceText::owned(into_text(&name, bytes)?));
                load_graph_text_with(&name, text, beside)
            }
        }
    })?;
    for w in warnings {
        crate::sanitize::eprint_line(&w);
    }
    Ok((g, out))
}

/// sha256 (hex) of the file at `path`, read in 1 MiB pieces (no page of it is mapped, so
/// hashing beside the load adds nothing to the peak); `None` when it cannot be read.
fn file_sha256(path: &Path) -> Option<String> {
    use sha2::Digest;
    use std::io::Read;
    let mut f = std::fs::File::open(path).ok()?;
    let mut h = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        match f.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => h.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    Some(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// [`load_graph_mapped_quiet`] with `beside` run on the tools as [`load_graph_file_with`]
/// runs it.
pub fn load_graph_mapped_quiet_with<T: Send>(
    path: &Path,
    beside: impl FnOnce(&[Arc<Tool>]) -> T + Send,
) -> Result<Option<(Graph, Vec<String>, T)>, InputError> {
    let name = path.display().to_string();
    let t = std::time::Instant::now();
    let Some(text) = map_large_plain_file(&name, path)? else {
        return Ok(None);
    };
    tt("map and UTF-8 check", t);
    load_graph_text_with(&name, Arc::new(text), beside).map(Some)
}

/// Loads a plain (not gzip) artifact of at least [`MAP_FROM_BYTES`] through a read-only
/// memory map, returning its warnings; `Ok(None)` when the file should be read instead
/// (small, gzip, not mappable).
pub fn load_graph_mapped_quiet(path: &Path) -> Result<Option<(Graph, Vec<String>)>, InputError> {
    let name = path.display().to_string();
    let t = std::time::Instant::now();
    let Some(text) = map_large_plain_file(&name, path)? else {
        return Ok(None);
    };
    tt("map and UTF-8 check", t);
    load_graph_text(&name, Arc::new(text)).map(Some)
}

/// Files from this size on are memory-mapped instead of read into a buffer (mapping wins
/// from a few pages on: a 40 KB MCP graph loads 10% faster, a 160 KB one 24%).
pub const MAP_FROM_BYTES: u64 = 16 << 10;

/// An uncompressed file of at least [`MAP_FROM_BYTES`] mapped read-only (its pages come
/// straight from the page cache: no copy, no fresh allocation; a large one's pages are let
/// go once parsed, see [`lets_pages_go`]). `None` for small or gzip files, or where mapping is
/// not possible, which are read instead. The map assumes the file is not truncated while
/// toolscope runs, as any reader of a mapped file does.
fn map_large_plain_file(name: &str, path: &Path) -> Result<Option<SourceText>, InputError> {
    let (file, len) = crate::limits::open_regular(path)?;
    if len < MAP_FROM_BYTES {
        return Ok(None);
    }
    // SAFETY: read-only private map of a regular file; the text is validated as UTF-8 below
    // and never written through.
    let Ok(map) = (unsafe { memmap2::MmapOptions::new().map(&file) }) else {
        return Ok(None);
    };
    if map.starts_with(&[0x1f, 0x8b]) {
        return Ok(None);
    }
    match SourceText::mapped(map, file) {
        Ok(text) => Ok(Some(text)),
        Err((map, valid)) => {
            let (line, col) = line_col(&map[..valid]);
            Err(InputError::new(
                name,
                &format!("{line}:{col}"),
                "invalid UTF-8 byte sequence".into(),
            ))
        }
    }
}

pub fn load_graph_bytes(name: &str, bytes: Vec<u8>) -> Result<Graph, InputError> {
    let (g, warnings) = load_graph_bytes_quiet(name, bytes)?;
    for w in warnings {
        crate::sanitize::eprint_line(&w);
    }
    Ok(g)
}

/// [`load_graph_bytes`] that returns its warnings instead of printing them (for the TUI,
/// where stderr is the screen).
pub fn load_graph_bytes_quiet(
    name: &str,
    bytes: Vec<u8>,
) -> Result<(Graph, Vec<String>), InputError> {
    let bytes = maybe_gunzip(name, bytes)?;
    let t = std::time::Instant::now();
    let text = Arc::new(SourceText::owned(into_text(name, bytes)?));
    tt("UTF-8 check", t);
    load_graph_text(name, text)
}

/// Loads a graph from its (decompressed, UTF-8) text.
fn load_graph_text(name: &str, text: Arc<SourceText>) -> Result<(Graph, Vec<String>), InputError> {
    load_graph_text_with(name, text, |_| ()).map(|(g, w, ())| (g, w))
}

/// Graphs from this many tools on run [`load_graph_text_with`]'s `beside` on a thread of
/// its own (for fewer, starting a thread costs more than it saves).
const BESIDE_FROM_TOOLS: usize = 1024;

/// [`load_graph_text`] that runs `beside` on the tools once they are in, beside the nodes,
/// edges and adjacency (on this thread after them for a small graph).
fn load_graph_text_with<T: Send>(
    name: &str,
    text: Arc<SourceText>,
    beside: impl FnOnce(&[Arc<Tool>]) -> T + Send,
) -> Result<(Graph, Vec<String>, T), InputError> {
    check_start(name, &text)?;
    let t_split = std::time::Instant::now();
    let parts = parse_parts(name, &text)?;
    tt("tool rows and the rest parsed", t_split);
    let (graph_sec, info) = graph_info(name, parts.top, text.len())?;
    let mut g = Graph::new(info);
    add_tools(name, &text, &mut g, &parts.rows, parts.built, parts.fast)?;
    tt("+ tools added", t_split);
    let nodes_and_edges = |g: &mut Graph| {
        let warnings = add_nodes_and_edges(name, g, graph_sec)?;
        tt("+ nodes and edges", t_split);
        g.finish();
        tt("+ adjacency", t_split);
        Ok::<_, InputError>(warnings)
    };
    let (warnings, out) = if g.tools.len() >= BESIDE_FROM_TOOLS {
        let tools = g.tools.clone();
        crate::par::join(|| nodes_and_edges(&mut g), move || beside(&tools))
    } else {
        let warnings = nodes_and_edges(&mut g)?;
        let out = beside(&g.tools);
        (Ok(warnings), out)
    };
    let warnings = warnings?;
    // what the engine needs is parsed; the text is read again only for emitted tools
    if lets_pages_go(&text) {
        text.release(0, text.len());
    }
    g.set_source_text(text.clone());
    Ok((g, warnings, out))
}

/// Refuses a text that cannot be an artifact before anything parses it: a byte-order mark,
/// only whitespace, or a first value that is not an object.
fn check_start(name: &str, text: &SourceText) -> Result<(), InputError> {
    if text.as_str().starts_with('\u{feff}') {
        return Err(InputError::new(
            name,
            "1:1",
            "the file starts with a UTF-8 byte-order mark, which a JSON artifact may not have \
             (graph-tool-call does not read it either); save it without one"
                .into(),
        ));
    }
    if text.bytes().all(|b| b.is_ascii_whitespace()) {
        return Err(InputError::new(
            name,
            "",
            crate::limits::blank_input(text.as_str()),
        ));
    }
    if !text.trim_start().starts_with('{') {
        let first = text.trim_start().chars().next().unwrap_or(' ');
        let what = if matches!(first, '[' | '"' | '-' | '0'..='9' | 't' | 'f' | 'n') {
            "expected a JSON object (a graph-tool-call tool graph or collection artifact)"
        } else {
            "not JSON: expected a graph-tool-call tool graph or collection artifact"
        };
        let skipped = &text[..text.len() - text.trim_start().len()];
        let (line, col) = line_col(skipped.as_bytes());
        return Err(InputError::new(name, &format!("{line}:{col}"), what.into()));
    }
    Ok(())
}

/// The top-level keys, the tool rows' texts and each row parsed, by either path.
struct Parts<'t> {
    top: FileTop<IgnoredAny>,
    rows: ToolRowTexts<'t>,
    built: Vec<Result<Tool, InputError>>,
    /// read by the fast path: an error found later is re-reported as serde reports it
    fast: bool,
}

/// Fast path: a structural scan splits the tool rows (the bulk of an artifact) off the
/// rest, which serde parses alone; rows are parsed, and validated, on worker threads while
/// the scan goes on. Anything unusual, and every error, goes through the plain serde parse
/// of the whole text, so messages and pointers are the same on both paths.
fn parse_parts<'t>(name: &str, text: &'t Arc<SourceText>) -> Result<Parts<'t>, InputError> {
    if let Some(f) = fast_load(name, text) {
        return Ok(Parts {
            top: f.top,
            rows: f.rows,
            built: f.built,
            fast: true,
        });
    }
    let mut top: FileTop<ToolRows<'_>> = parse_with_pointer(name, text)?;
    let rows: ToolRowTexts<'_> = top
        .tools
        .take()
        .map(|t| t.0.into_iter().map(|(k, r)| (k, r.get())).collect())
        .unwrap_or_default();
    let built = rows
        .iter()
        .map(|(key, raw)| parse_tool_row(name, text, key, raw))
        .collect();
    Ok(Parts {
        top: top.without_tools(),
        rows,
        built,
        fast: false,
    })
}

/// The graph section and what the graph records of its file; an error for a file that is
/// not a graph (no `graph`, a spec) or has an unsupported format version.
fn graph_info(
    name: &str,
    top: FileTop<IgnoredAny>,
    size: usize,
) -> Result<(GraphSec, GraphInfo), InputError> {
    let format_version = match (&top.format_version, &top.version) {
        (Some(v), _) | (None, Some(v)) => match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        },
        (None, None) => "0".into(),
    };
    let Some(graph_sec) = top.graph else {
        let what = if top.openapi.is_some() || top.swagger.is_some() {
            "this is an OpenAPI/Swagger spec, not a tool graph; build a collection artifact first"
        } else {
            "not a graph-tool-call tool graph: the top-level object has no \"graph\""
        };
        return Err(InputError::new(name, "/graph", what.into()));
    };
    if !matches!(format_version.as_str(), "0" | "0.1.0" | "1") {
        let place = if top.format_version.is_some() {
            "/format_version"
        } else {
            "/version"
        };
        return Err(InputError::new(
            name,
            place,
            format!(
                "unsupported format version {}",
                crate::sanitize::quoted(&format_version)
            ),
        ));
    }
    let is_collection = top.collection_graph_version.is_some() || top.readiness_report.is_some();
    let build = crate::model::graph::BuildFacts {
        readiness_summary: top
            .readiness_report
            .as_ref()
            .and_then(|r| r.get("summary"))
            .cloned(),
        graph_tool_call_version: top.graph_tool_call_version,
        collection_graph_version: top.collection_graph_version,
        enrichment_status: top.enrichment_status,
        semantic_summary: top.semantic_summary,
    };
    let info = GraphInfo {
        source: name.to_string(),
        format_version,
        library_version: top
            .library_version
            .as_ref()
            .and_then(|v| v.as_str().map(String::from)),
        is_collection,
        bytes: size,
        fingerprint: String::new(),
        build,
    };
    Ok((graph_sec, info))
}

/// Adds the parsed tools in file order: the first row that failed, or a duplicate name, is
/// the error (from the fast path, re-reported as the whole-text serde parse reports it).
fn add_tools(
    name: &str,
    text: &SourceText,
    g: &mut Graph,
    rows: &ToolRowTexts<'_>,
    built: Vec<Result<Tool, InputError>>,
    fast: bool,
) -> Result<(), InputError> {
    if rows.len() as u64 > crate::limits::TOOLS.get() {
        return Err(crate::limits::TOOLS.exceeded(name, "/tools"));
    }
    g.reserve_tools(rows.len());
    for ((key, _), tool) in rows.iter().zip(built) {
        let tool = match tool {
            Ok(t) => t,
            Err(e) => {
                // a row that is not valid JSON is reported as the whole-text parse does
                if fast {
                    parse_with_pointer::<FileTop<ToolRows<'_>>>(name, text)?;
                }
                return Err(e);
            }
        };
        let key = key.clone();
        if !g.add_tool(key.clone(), tool) {
            // the one-thread walk leaves duplicate names to here: serde names them
            if fast {
                parse_with_pointer::<FileTop<ToolRows<'_>>>(name, text)?;
            }
            return Err(InputError::new(
                name,
                &format!("/tools/{}", pointer_escape(&key)),
                format!("duplicate tool name {}", crate::sanitize::quoted(&key)),
            ));
        }
    }
    Ok(())
}

/// Adds the declared nodes, then the edges (an endpoint no node declares becomes an
/// attribute-less node); returns the warnings about those endpoints.
fn add_nodes_and_edges(
    name: &str,
    g: &mut Graph,
    graph_sec: GraphSec,
) -> Result<Vec<String>, InputError> {
    let nodes = graph_sec.nodes.unwrap_or_default();
    for node in nodes {
        g.upsert_node(
            &node.id,
            node.node_type,
            node.community.filter(|v| !v.is_null()),
            node.description,
        );
    }
    let edges = graph_sec.edges.unwrap_or_default();
    if edges.len() as u64 > crate::limits::EDGES.get() {
        return Err(crate::limits::EDGES.exceeded(name, "/graph/edges"));
    }
    let mut implicit = Vec::new();
    for (i, e) in edges.into_iter().enumerate() {
        let (s, s_new) = g.node_or_implicit(&e.source);
        let (t, t_new) = g.node_or_implicit(&e.target);
        if s_new {
            implicit.push((i, e.source.clone()));
        }
        if t_new {
            implicit.push((i, e.target.clone()));
        }
        let attrs = EdgeAttrs {
            relation: e.relation,
            confidence: e.confidence,
            conf_score: e.conf_score,
            evidence: e.evidence,
            layer: e.layer,
            kind: e.kind,
            evidence_sources: e.evidence_sources,
        };
        g.set_edge(s, t, attrs);
    }
    let mut warnings = Vec::new();
    for (i, node) in implicit.iter().take(3) {
        warnings.push(format!(
            "warning: {name}:/graph/edges/{i}: edge endpoint {} is not a declared node; kept as an attribute-less node (not traversed), as graph-tool-call does",
            crate::sanitize::quoted(node)
        ));
    }
    if implicit.len() > 3 {
        warnings.push(format!(
            "warning: {name}: {} more edges name undeclared nodes",
            implicit.len() - 3
        ));
    }
    Ok(warnings)
}

/// With `TOOLSCOPE_TIMING` set, prints how long a load phase took (since `t`) to stderr.
fn tt(what: &str, t: std::time::Instant) {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *ON.get_or_init(|| std::env::var_os("TOOLSCOPE_TIMING").is_some()) {
        // resident and peak resident memory so far (Linux), for finding where memory goes
        let rss = std::fs::read_to_string("/proc/self/status")
            .ok()
            .map(|s| {
                let kb = |k: &str| {
                    s.lines()
                        .find_map(|l| l.strip_prefix(k))
                        .and_then(|v| v.trim().trim_end_matches(" kB").parse::<u64>().ok())
                        .unwrap_or(0)
                };
                format!(
                    " (rss {} MiB, peak {} MiB)",
                    kb("VmRSS:") >> 10,
                    kb("VmHWM:") >> 10
                )
            })
            .unwrap_or_default();
        eprintln!(
            "load: {what}: {:.3} ms{rss}",
            t.elapsed().as_secs_f64() * 1e3
        );
    }
}
