//! Loading graph-tool-call saved graphs and collection artifacts (spec §1.3, §1.4).
//!
//! The file is read once, decompressed when it is gzip, validated as UTF-8 and parsed into
//! typed rows. Tool `metadata` stays as a range of the loaded text (emitted verbatim) and a
//! small typed view of the keys the engine reads is parsed from it.

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;
use std::fmt;
use std::marker::PhantomData;
use std::path::Path;
use std::sync::Arc;

use super::graph::{EdgeAttrs, Graph, GraphInfo};
use super::scan::{Scan, object_member};
use super::text::SourceText;
use super::tool::{AiFacts, Annotations, LazyRows, OpenApiFacts, Param, RawJson, Tool, ToolFacts};
use crate::error::InputError;

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

fn line_col(prefix: &[u8]) -> (usize, usize) {
    let line = prefix.iter().filter(|&&b| b == b'\n').count() + 1;
    let last = prefix
        .iter()
        .rposition(|&b| b == b'\n')
        .map(|p| p + 1)
        .unwrap_or(0);
    let col = String::from_utf8_lossy(&prefix[last..]).chars().count() + 1;
    (line, col)
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
    let size = text.len();
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
        return Err(InputError::new(name, "", "empty file".into()));
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
    // Fast path: a structural scan splits the tool rows (the bulk of an artifact) off the
    // rest, which serde parses alone; rows are parsed, and validated, on worker threads while
    // the scan goes on. Anything unusual, and every error, goes through the plain serde parse
    // of the whole text, so messages and pointers are the same on both paths.
    let t_split = std::time::Instant::now();
    let (top, rows, built, fast) = match fast_load(name, &text) {
        Some(f) => (f.top, f.rows, f.built, true),
        None => {
            let mut top: FileTop<ToolRows<'_>> = parse_with_pointer(name, &text)?;
            let rows: ToolRowTexts<'_> = top
                .tools
                .take()
                .map(|t| t.0.into_iter().map(|(k, r)| (k, r.get())).collect())
                .unwrap_or_default();
            let built = rows
                .iter()
                .map(|(key, raw)| parse_tool_row(name, &text, key, raw))
                .collect();
            (top.without_tools(), rows, built, false)
        }
    };
    tt("tool rows and the rest parsed", t_split);
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
            format!("unsupported format version {format_version:?}"),
        ));
    }
    let is_collection = top.collection_graph_version.is_some() || top.readiness_report.is_some();
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
    };
    let mut g = Graph::new(info);

    if rows.len() as u64 > crate::limits::TOOLS.get() {
        return Err(crate::limits::TOOLS.exceeded(name, "/tools"));
    }
    // tools
    {
        g.reserve_tools(rows.len());
        for ((key, _), tool) in rows.iter().zip(built) {
            let tool = match tool {
                Ok(t) => t,
                Err(e) => {
                    // a row that is not valid JSON is reported as the whole-text parse does
                    if fast {
                        parse_with_pointer::<FileTop<ToolRows<'_>>>(name, &text)?;
                    }
                    return Err(e);
                }
            };
            let key = key.clone();
            if !g.add_tool(key.clone(), tool) {
                // the one-thread walk leaves duplicate names to here: serde names them
                if fast {
                    parse_with_pointer::<FileTop<ToolRows<'_>>>(name, &text)?;
                }
                return Err(InputError::new(
                    name,
                    &format!("/tools/{}", pointer_escape(&key)),
                    format!("duplicate tool name {key:?}"),
                ));
            }
        }
    }

    tt("+ tools added", t_split);
    // nodes
    let nodes = graph_sec.nodes.unwrap_or_default();
    for node in nodes {
        g.upsert_node(
            &node.id,
            node.node_type,
            node.community.filter(|v| !v.is_null()),
            node.description,
        );
    }
    // edges
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
            "warning: {name}:/graph/edges/{i}: edge endpoint {node:?} is not a declared node; kept as an attribute-less node (not traversed), as graph-tool-call does"
        ));
    }
    if implicit.len() > 3 {
        warnings.push(format!(
            "warning: {name}: {} more edges name undeclared nodes",
            implicit.len() - 3
        ));
    }
    tt("+ nodes and edges", t_split);
    g.finish();
    tt("+ adjacency", t_split);
    // what the engine needs is parsed; the text is read again only for emitted tools
    if lets_pages_go(&text) {
        text.release(0, text.len());
    }
    g.set_source_text(text.clone());
    Ok((g, warnings))
}

/// `Option<GraphSec>` of the value at `at` and the index after it, read by a checked walk
/// (see [`quick_top`]); `None` when anything is unusual.
fn quick_graph(sc: &Scan<'_>, at: usize) -> Option<(Option<GraphSec>, usize)> {
    let text = sc.text();
    if text.as_bytes()[at] == b'n' {
        return Some((None, literal_end(text, at, "null")?));
    }
    let mut g = GraphSec {
        nodes: None,
        edges: None,
    };
    let field_of = |key: &str| match key {
        "nodes" => Some(1),
        "edges" => Some(2),
        _ => None,
    };
    let end = sc.each_field_checked(at, field_of, |bit, at| {
        if text.as_bytes()[at] == b'n' {
            return literal_end(text, at, "null");
        }
        if bit == 1 {
            let mut nodes = Vec::new();
            let end = sc.each_element_checked(at, |at| {
                let (node, end) = quick_node(sc, at)?;
                nodes.push(node);
                Some(end)
            })?;
            g.nodes = Some(nodes);
            Some(end)
        } else {
            let mut edges = Vec::new();
            let end = sc.each_element_checked(at, |at| {
                let (edge, end) = quick_edge(sc, at)?;
                edges.push(edge);
                Some(end)
            })?;
            g.edges = Some(edges);
            Some(end)
        }
    })?;
    Some((Some(g), end))
}

/// A [`NodeRow`] object at `at` and the index after it.
fn quick_node(sc: &Scan<'_>, at: usize) -> Option<(NodeRow, usize)> {
    let mut id = None;
    let mut node = NodeRow {
        id: String::new(),
        node_type: None,
        community: None,
        description: None,
    };
    let field_of = |key: &str| match key {
        "id" => Some(1),
        "node_type" => Some(2),
        "community" => Some(4),
        "description" => Some(8),
        _ => None,
    };
    let end = sc.each_field_checked(at, field_of, |bit, at| {
        if bit == 1 {
            let (s, end) = quick_string(sc, at)?;
            id = Some(s);
            return Some(end);
        }
        let (v, end) = quick_value(sc, at)?;
        match bit {
            2 => node.node_type = py_string_or_none(v),
            4 => node.community = (!v.is_null()).then_some(v),
            _ => node.description = py_string_or_none(v),
        }
        Some(end)
    })?;
    node.id = id?; // serde: missing field
    Some((node, end))
}

/// An [`EdgeRow`] object at `at` and the index after it.
fn quick_edge(sc: &Scan<'_>, at: usize) -> Option<(EdgeRow, usize)> {
    let mut source = None;
    let mut target = None;
    let mut row = EdgeRow::default();
    let end = sc.each_member_checked(at, |key, at| {
        // later keys win, as in `EdgeRow`'s visitor
        let slot = match key {
            "source" | "target" => {
                let (s, end) = quick_string(sc, at)?;
                if key == "source" {
                    source = Some(s);
                } else {
                    target = Some(s);
                }
                return Some(end);
            }
            "relation" => &mut row.relation,
            "confidence" => &mut row.confidence,
            "conf_score" => &mut row.conf_score,
            "evidence" => &mut row.evidence,
            "layer" => &mut row.layer,
            "kind" => &mut row.kind,
            "evidence_sources" => &mut row.evidence_sources,
            k if k.contains('\\') => return None,
            _ => return sc.valid_value(at),
        };
        let (v, end) = quick_value(sc, at)?;
        *slot = Some(v);
        Some(end)
    })?;
    row.source = source?; // missing field
    row.target = target?;
    Some((row, end))
}

/// The JSON string at `at` (a plain one copied as is, one with escapes decoded by serde) and
/// the index after it.
fn quick_string(sc: &Scan<'_>, at: usize) -> Option<(String, usize)> {
    let text = sc.text();
    if text.as_bytes()[at] != b'"' {
        return None;
    }
    let end = sc.valid_str(at)?;
    let inner = &text[at + 1..end - 1];
    let s = if inner.contains('\\') {
        serde_json::from_str(&text[at..end]).ok()?
    } else {
        inner.to_string()
    };
    Some((s, end))
}

/// The JSON value at `at` and the index after it (a plain string without serde).
fn quick_value(sc: &Scan<'_>, at: usize) -> Option<(Value, usize)> {
    if sc.text().as_bytes()[at] == b'"' {
        let (s, end) = quick_string(sc, at)?;
        return Some((Value::String(s), end));
    }
    let end = sc.skip_value_shallow(at)?;
    Some((serde_json::from_str(&sc.text()[at..end]).ok()?, end))
}

/// `string_or_none` of a value already parsed.
fn py_string_or_none(v: Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s),
        Value::Null => None,
        other => Some(crate::pytext::py_str(&other)),
    }
}

/// `(tool name, row text)` pairs in file order.
type ToolRowTexts<'t> = Vec<(String, &'t str)>;

/// What the fast path read: the top-level keys, the tool rows and each row parsed.
struct FastLoad<'t> {
    top: FileTop<IgnoredAny>,
    rows: ToolRowTexts<'t>,
    built: Vec<Result<Tool, InputError>>,
}

/// Below this size the fast path runs on one thread: its single checked pass beats the
/// split-then-parse pipeline (a structural pass more, thread start-up) on files of a few MB.
const PARALLEL_FROM_BYTES: usize = 8 << 20;

/// The one-thread path lets the pages of a mapped text it may let go ([`lets_pages_go`])
/// go in steps of this many bytes.
const RELEASE_STEP: usize = 1 << 20;
/// Mapped texts from this size on let their parsed pages go (the 4.5 MB demo graph: peak
/// RSS 14 MiB when kept, 10 MiB when let go).
const RELEASE_FROM_BYTES: usize = 1 << 20;

/// Whether the load lets the pages of `text` go once parsed: a mapped text of at least
/// [`RELEASE_FROM_BYTES`]. A smaller one keeps them; dropping them and faulting them back
/// costs more time than the few hundred KiB are worth.
fn lets_pages_go(text: &SourceText) -> bool {
    text.is_mapped() && text.len() >= RELEASE_FROM_BYTES
}

/// Splits the tool rows off with [`split_tool_rows`] and parses them (on worker threads for
/// large texts, batch by batch as the scan finds them) while the rest is parsed with serde.
/// `None` when the fast path does not apply or the rest does not parse.
fn fast_load<'t>(name: &str, text: &'t Arc<SourceText>) -> Option<FastLoad<'t>> {
    let s: &'t str = text.as_str();
    let threads = if s.len() < PARALLEL_FROM_BYTES {
        1
    } else {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .min(8)
    };
    if threads <= 1 {
        if let Some(f) = quick_load_serial(name, text) {
            return Some(f);
        }
        let mut rows = Vec::new();
        let tools = split_tool_rows(s, |batch| rows.extend(batch))?;
        let top = serde_json::from_str::<FileTop<IgnoredAny>>(&without(s, tools)).ok()?;
        let built = rows
            .iter()
            .map(|(key, raw)| parse_tool_row(name, text, key, raw))
            .collect();
        return Some(FastLoad { top, rows, built });
    }
    type Batch<'t> = (usize, ToolRowTexts<'t>);
    type Parsed<'t> = (usize, ToolRowTexts<'t>, Vec<Result<Tool, InputError>>);
    // bounded: the scan stays a few batches ahead of the parsers, so only that window of a
    // mapped file is resident
    let (tx, rx) = std::sync::mpsc::sync_channel::<Batch<'t>>(2 * threads);
    let rx = std::sync::Mutex::new(rx);
    std::thread::scope(|sc| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let rx = &rx;
                sc.spawn(move || {
                    let mut done: Vec<Parsed<'t>> = Vec::new();
                    loop {
                        let next = match rx.lock() {
                            Ok(r) => r.recv(),
                            Err(_) => break,
                        };
                        let Ok((i, batch)) = next else { break };
                        let built = batch
                            .iter()
                            .map(|(key, raw)| parse_tool_row(name, text, key, raw))
                            .collect();
                        if let (Some(first), Some(last)) = (batch.first(), batch.last()) {
                            let end = text.offset_of(last.1) + last.1.len();
                            text.release(text.offset_of(first.1), end);
                        }
                        done.push((i, batch, built));
                    }
                    done
                })
            })
            .collect();
        let mut n = 0;
        let tools = split_tool_rows(s, |batch| {
            let _ = tx.send((n, batch));
            n += 1;
        });
        drop(tx);
        let top = tools.and_then(|(start, end)| {
            quick_top(s, |_, at| (at == start).then_some(end)).or_else(|| {
                serde_json::from_str::<FileTop<IgnoredAny>>(&without(s, (start, end))).ok()
            })
        });
        let mut parts: Vec<Parsed<'t>> = workers
            .into_iter()
            .flat_map(|h| h.join().expect("tool parser thread"))
            .collect();
        let top = top?;
        parts.sort_unstable_by_key(|p| p.0);
        let total = parts.iter().map(|p| p.1.len()).sum();
        let mut rows = Vec::with_capacity(total);
        let mut built = Vec::with_capacity(total);
        for (_, r, b) in parts {
            rows.extend(r);
            built.extend(b);
        }
        Some(FastLoad { top, rows, built })
    })
}

/// A batch of rows is handed on once it holds this many bytes of row text…
const BATCH_BYTES: usize = 256 << 10;
/// …or this many rows.
const BATCH_ROWS: usize = 128;

/// Splits the top-level `"tools"` object of `text` into `(name, row text)` pairs with a
/// structural scan, handing them to `emit` in batches in file order, and returns the byte
/// range of that object. `None` when the file is not shaped as expected (no `tools` object,
/// escaped or duplicate keys, broken structure): the caller then parses the whole text with
/// serde.
fn split_tool_rows<'t>(
    text: &'t str,
    mut emit: impl FnMut(ToolRowTexts<'t>),
) -> Option<(usize, usize)> {
    let sc = Scan::new(text);
    let b = text.as_bytes();
    let mut i = sc.skip_ws(0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = sc.skip_ws(i + 1);
    let mut found: Option<(usize, usize)> = None;
    while b.get(i) == Some(&b'"') {
        let k_end = sc.skip_str(i)?;
        let key = &text[i + 1..k_end - 1];
        if key.bytes().any(|c| c == b'\\' || c < 0x20) {
            return None;
        }
        i = sc.skip_ws(k_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = sc.skip_ws(i + 1);
        let v_end = if key == "tools" {
            if found.is_some() || b.get(i) != Some(&b'{') {
                return None;
            }
            let mut seen = rustc_hash::FxHashSet::default();
            let mut batch: ToolRowTexts<'t> = Vec::new();
            let mut batch_bytes = 0;
            let end = sc.each_member(i, |m| {
                let name = if m.raw_key.bytes().any(|c| c == b'\\' || c < 0x20) {
                    match serde_json::from_str::<String>(&format!("\"{}\"", m.raw_key)) {
                        Ok(n) => n,
                        Err(_) => return false,
                    }
                } else {
                    m.raw_key.to_string()
                };
                if !seen.insert(name.clone()) {
                    return false;
                }
                batch_bytes += m.value.len();
                batch.push((name, m.value));
                if batch_bytes >= BATCH_BYTES || batch.len() >= BATCH_ROWS {
                    emit(std::mem::take(&mut batch));
                    batch_bytes = 0;
                }
                true
            })?;
            if !batch.is_empty() {
                emit(batch);
            }
            found = Some((i, end));
            end
        } else {
            sc.skip_value(i)?
        };
        i = sc.skip_ws(v_end);
        match b.get(i) {
            Some(b',') => i = sc.skip_ws(i + 1),
            _ => break,
        }
    }
    found
}

/// A copy of `text` in which the byte range `tools` (the tools object) is `{}`.
fn without(text: &str, (start, end): (usize, usize)) -> String {
    let mut rest = String::with_capacity(text.len() - (end - start) + 2);
    rest.push_str(&text[..start]);
    rest.push_str("{}");
    rest.push_str(&text[end..]);
    rest
}

/// The whole load in one checked walk, on this thread: the top-level keys by [`quick_top`],
/// each tool row by [`quick_tool_row`] (a row it steps aside from goes through
/// [`parse_tool_row`]). `None` when the file is not shaped as expected; the caller then
/// takes the serde paths.
fn quick_load_serial<'t>(name: &str, text: &'t Arc<SourceText>) -> Option<FastLoad<'t>> {
    let s: &'t str = text.as_str();
    let mut rows: ToolRowTexts<'t> = Vec::new();
    let mut built = Vec::new();
    let (release, mut released) = (lets_pages_go(text), 0);
    let top = quick_top(s, |sc, at| {
        // a duplicate name is found when the tools are added (`load_graph_text`)
        sc.each_member_checked(at, |raw_key, at| {
            let key = if raw_key.contains('\\') {
                serde_json::from_str::<String>(&format!("\"{raw_key}\"")).ok()?
            } else {
                raw_key.to_string()
            };
            let (tool, end) = match quick_tool_row(sc, at) {
                Some((row, metadata, end)) => {
                    let row_text = &s[at..end];
                    (
                        build_tool(name, text, &key, row_text, Some(metadata), row),
                        end,
                    )
                }
                None => {
                    let end = sc.skip_value(at)?;
                    (parse_tool_row(name, text, &key, &s[at..end]), end)
                }
            };
            rows.push((key, &s[at..end]));
            built.push(tool);
            if release && end - released >= RELEASE_STEP {
                text.release(released, end);
                released = end;
            }
            Some(end)
        })
    })?;
    Some(FastLoad { top, rows, built })
}

/// The top-level object of `text` read by a checked walk: the keys [`FileTop`] reads are
/// parsed with serde, each alone, other values only checked; `tools(scan, at)` reads the
/// tools object at `at` and returns the index after it. Gives exactly what serde gives for
/// the file without its tools, or `None` when anything is unusual (escaped or duplicate
/// keys, no tools object, invalid JSON, deep nesting).
fn quick_top<'t>(
    text: &'t str,
    mut tools: impl FnMut(&Scan<'t>, usize) -> Option<usize>,
) -> Option<FileTop<IgnoredAny>> {
    let sc = Scan::new(text);
    let mut top = FileTop::<IgnoredAny>::default();
    let field_of = |key: &str| match key {
        "format_version" => Some(1),
        "version" => Some(2),
        "library_version" => Some(4),
        "graph" => Some(8),
        "tools" => Some(16),
        "openapi" => Some(32),
        "swagger" => Some(64),
        "collection_graph_version" => Some(128),
        "readiness_report" => Some(256),
        _ => None,
    };
    let end = sc.each_field_checked(0, field_of, |bit, at| {
        if bit == 16 {
            if text.as_bytes()[at] != b'{' {
                return None;
            }
            top.tools = Some(IgnoredAny);
            return tools(&sc, at);
        }
        if bit >= 32 {
            // `Option<IgnoredAny>`: present unless null
            let end = sc.valid_value(at)?;
            let present = (&text[at..end] != "null").then_some(IgnoredAny);
            match bit {
                32 => top.openapi = present,
                64 => top.swagger = present,
                128 => top.collection_graph_version = present,
                _ => top.readiness_report = present,
            }
            return Some(end);
        }
        if bit == 8 {
            let (graph, end) = quick_graph(&sc, at)?;
            top.graph = graph;
            return Some(end);
        }
        // serde checks these values in full; the scan only finds where they end
        let end = sc.skip_value_shallow(at)?;
        let v = &text[at..end];
        match bit {
            1 => top.format_version = serde_json::from_str(v).ok()?,
            2 => top.version = serde_json::from_str(v).ok()?,
            _ => top.library_version = serde_json::from_str(v).ok()?,
        }
        Some(end)
    })?;
    (top.tools.is_some() && sc.skip_ws(end) == text.len()).then_some(top)
}

pub fn pointer_escape(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// Parses `text` as `T`; on failure re-parses with path tracking to name the JSON pointer.
pub fn parse_with_pointer<'a, T: Deserialize<'a>>(
    name: &str,
    text: &'a str,
) -> Result<T, InputError> {
    match serde_json::from_str::<T>(text) {
        Ok(v) => Ok(v),
        Err(first) => {
            let mut de = serde_json::Deserializer::from_str(text);
            let pointer = match serde_path_to_error::deserialize::<_, T>(&mut de) {
                Err(e) => path_to_pointer(e.path()),
                Ok(_) => String::new(),
            };
            Err(json_error(name, &first, &pointer))
        }
    }
}

pub fn json_error(name: &str, e: &serde_json::Error, pointer: &str) -> InputError {
    let msg = e.to_string();
    let msg = match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg,
    };
    let msg = match e.classify() {
        serde_json::error::Category::Eof => format!("truncated JSON: {msg}"),
        serde_json::error::Category::Syntax => format!("invalid JSON: {msg}"),
        _ => msg,
    };
    // serde_json counts a position at a line's start as column 0; columns are 1-based here
    let (line, col) = (e.line().max(1), e.column().max(1));
    let place = if pointer.is_empty() || pointer == "/" || pointer == "/." {
        format!("{line}:{col}")
    } else {
        format!("{line}:{col} {pointer}")
    };
    InputError::new(name, &place, msg)
}

fn path_to_pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for seg in path.iter() {
        match seg {
            Segment::Seq { index } => out.push_str(&format!("/{index}")),
            Segment::Map { key } => {
                out.push('/');
                out.push_str(&pointer_escape(key));
            }
            Segment::Enum { variant } => {
                out.push('/');
                out.push_str(variant);
            }
            Segment::Unknown => {}
        }
    }
    out
}

/// Parses one tool row (a slice of `text`), naming `/tools/<key>/...` and the absolute
/// line:column on error.
fn parse_tool_row(
    file: &str,
    text: &Arc<SourceText>,
    key: &str,
    row_text: &str,
) -> Result<Tool, InputError> {
    let sc = Scan::new(row_text);
    if let Some((row, metadata, end)) = quick_tool_row(&sc, 0)
        && end == row_text.len()
    {
        return build_tool(file, text, key, row_text, Some(metadata), row);
    }
    match serde_json::from_str::<ToolRow<'_>>(row_text) {
        Ok(row) => build_tool(file, text, key, row_text, None, row),
        Err(e) => {
            let mut de = serde_json::Deserializer::from_str(row_text);
            let inner = match serde_path_to_error::deserialize::<_, ToolRow<'_>>(&mut de) {
                Err(pe) => path_to_pointer(pe.path()),
                Ok(_) => String::new(),
            };
            let offset = row_text.as_ptr() as usize - text.as_ptr() as usize;
            let (line0, col0) = line_col(&text.as_bytes()[..offset]);
            let (line, col) = if e.line() <= 1 {
                (line0, col0 + e.column().saturating_sub(1))
            } else {
                (line0 + e.line() - 1, e.column())
            };
            let msg = e.to_string();
            let msg = msg
                .rfind(" at line ")
                .map(|i| msg[..i].to_string())
                .unwrap_or(msg);
            Err(InputError::new(
                file,
                &format!("{line}:{col} /tools/{}{inner}", pointer_escape(key)),
                msg,
            ))
        }
    }
}

/// The row at `at` of `sc`'s text, its `metadata` text (`None` when absent or null) and the
/// index after the row, read by a checked walk: the members the engine reads are parsed
/// with serde, each alone; every other value (most of a row: OpenAPI operations, schemas,
/// contracts) is only checked ([`Scan::valid_value`]), or kept as text. Gives exactly what
/// serde gives for the whole row, or `None` when anything is unusual (escaped or duplicate
/// keys, a value of an unexpected type, invalid JSON, deep nesting): the caller then parses
/// the row with serde, which also names any error.
fn quick_tool_row<'t>(sc: &Scan<'t>, at: usize) -> Option<(ToolRow<'t>, Option<&'t str>, usize)> {
    let text = sc.text();
    let mut row = ToolRow::default();
    let mut metadata = None;
    let field_of = |key: &str| match key {
        "name" => Some(1),
        "description" => Some(2),
        "parameters" => Some(4),
        "tags" => Some(8),
        "domain" => Some(16),
        "metadata" => Some(32),
        "annotations" => Some(64),
        _ => None,
    };
    let end = sc.each_field_checked(at, field_of, |bit, at| {
        if bit == 32 {
            if text.as_bytes()[at] == b'n' {
                return literal_end(text, at, "null");
            }
            let (view, end) = quick_meta(sc, at)?;
            row.metadata = Some(view);
            metadata = Some(&text[at..end]);
            return Some(end);
        }
        if text.as_bytes()[at] == b'n' {
            return literal_end(text, at, "null"); // every field is an `Option`
        }
        let end;
        match bit {
            1 | 2 | 16 => {
                let (s, e) = quick_string(sc, at)?;
                *match bit {
                    1 => &mut row.name,
                    2 => &mut row.description,
                    _ => &mut row.domain,
                } = Some(s);
                end = e;
            }
            4 => {
                let mut params = Vec::new();
                end = sc.each_element_checked(at, |at| {
                    let (p, end) = quick_param(sc, at)?;
                    params.push(p);
                    Some(end)
                })?;
                row.parameters = Some(params);
            }
            8 => {
                let mut tags = Vec::new();
                end = sc.each_element_checked(at, |at| {
                    let (t, end) = quick_string(sc, at)?;
                    tags.push(t);
                    Some(end)
                })?;
                row.tags = Some(tags);
            }
            _ => {
                let (a, e) = quick_annotations(sc, at)?;
                row.annotations = Some(a);
                end = e;
            }
        }
        Some(end)
    })?;
    Some((row, metadata, end))
}

/// A [`ParamRow`] object at `at` and the index after it.
fn quick_param<'t>(sc: &Scan<'t>, at: usize) -> Option<(ParamRow<'t>, usize)> {
    let text = sc.text();
    let mut name = None;
    let mut p = ParamRow {
        name: String::new(),
        ty: None,
        description: None,
        required: None,
        enum_values: None,
    };
    let field_of = |key: &str| match key {
        "name" => Some(1),
        "type" => Some(2),
        "description" => Some(4),
        "required" => Some(8),
        "enum" => Some(16),
        _ => None,
    };
    let end = sc.each_field_checked(at, field_of, |bit, at| {
        if bit != 1 && text.as_bytes()[at] == b'n' {
            return literal_end(text, at, "null"); // an `Option` field
        }
        match bit {
            1 | 2 | 4 => {
                let (s, end) = quick_string(sc, at)?;
                *match bit {
                    1 => &mut name,
                    2 => &mut p.ty,
                    _ => &mut p.description,
                } = Some(s);
                Some(end)
            }
            8 => {
                let (b, end) = quick_bool(text, at)?;
                p.required = Some(b);
                Some(end)
            }
            _ => {
                let end = sc.valid_value(at)?;
                p.enum_values = Some(&text[at..end]);
                Some(end)
            }
        }
    })?;
    p.name = name?; // serde: missing field
    Some((p, end))
}

/// An [`AnnotationRow`] object at `at` and the index after it (both spellings of a key name
/// one field: serde rejects a second).
fn quick_annotations(sc: &Scan<'_>, at: usize) -> Option<(AnnotationRow, usize)> {
    let text = sc.text();
    let mut hints = [None; 4];
    // an alias and its field name are one field (both present: a duplicate)
    let field_of = |key: &str| match key {
        "read_only_hint" | "readOnlyHint" => Some(1),
        "destructive_hint" | "destructiveHint" => Some(2),
        "idempotent_hint" | "idempotentHint" => Some(4),
        "open_world_hint" | "openWorldHint" => Some(8),
        _ => None,
    };
    let end = sc.each_field_checked(at, field_of, |bit, at| {
        let field = bit.trailing_zeros() as usize;
        if text.as_bytes()[at] == b'n' {
            return literal_end(text, at, "null");
        }
        let (b, end) = quick_bool(text, at)?;
        hints[field] = Some(b);
        Some(end)
    })?;
    let [
        read_only_hint,
        destructive_hint,
        idempotent_hint,
        open_world_hint,
    ] = hints;
    let a = AnnotationRow {
        read_only_hint,
        destructive_hint,
        idempotent_hint,
        open_world_hint,
    };
    Some((a, end))
}

/// The JSON boolean at `at` and the index after it.
fn quick_bool(text: &str, at: usize) -> Option<(bool, usize)> {
    match text.as_bytes()[at] {
        b't' => Some((true, literal_end(text, at, "true")?)),
        b'f' => Some((false, literal_end(text, at, "false")?)),
        _ => None,
    }
}

/// End of the literal `word` at `at`, when it is there and the value ends with it.
fn literal_end(t: &str, at: usize, word: &str) -> Option<usize> {
    let end = at + word.len();
    let next = t.as_bytes().get(end).copied().unwrap_or(b' ');
    (t[at..].starts_with(word) && matches!(next, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t'))
        .then_some(end)
}

/// [`MetaView`] of the metadata object at `at` and the index after it (see
/// [`quick_tool_row`]).
fn quick_meta<'t>(sc: &Scan<'t>, at: usize) -> Option<(MetaView<'t>, usize)> {
    let m = sc.text();
    let mut v = MetaView::default();
    let end = sc.each_member_checked(at, |key, at| {
        v.nonempty = true;
        let end = match key {
            "openapi" => {
                let (o, end) = quick_openapi(sc, at)?;
                v.openapi = o;
                return Some(end);
            }
            "api_contract" => {
                let (c, end) = quick_contract(sc, at)?;
                v.api_contract = c;
                return Some(end);
            }
            "produces" | "consumes" => sc.valid_value(at)?, // kept as text: checked here
            k if k.contains('\\') => return None,           // might decode to one of the keys read
            "method" | "path" | "source_label" | "ai_metadata" | "example_queries" => {
                sc.skip_value_shallow(at)? // serde checks these in full
            }
            _ => return sc.valid_value(at),
        };
        let t = &m[at..end];
        match key {
            "method" => v.method = Some(serde_json::from_str(t).ok()?),
            "path" => v.path = Some(serde_json::from_str(t).ok()?),
            "source_label" => v.source_label = Some(serde_json::from_str(t).ok()?),
            "ai_metadata" => v.ai_metadata = serde_json::from_str::<Lenient<AiView>>(t).ok()?.0,
            "produces" => v.produces = Some(t),
            "consumes" => v.consumes = Some(t),
            _ => v.example_queries = serde_json::from_str::<LenientList>(t).ok()?.0,
        }
        Some(end)
    })?;
    Some((v, end))
}

/// `Lenient<OaView>` of the value at `at` (the five keys parsed, the rest checked) and the
/// index after it.
fn quick_openapi(sc: &Scan<'_>, at: usize) -> Option<(Option<OaView>, usize)> {
    if sc.text().as_bytes()[at] != b'{' {
        return Some((None, sc.valid_value(at)?)); // any other value reads as absent
    }
    let t = sc.text();
    let mut o = OaView::default();
    let field_of = |key: &str| match key {
        "operation_id" => Some(1),
        "summary" => Some(2),
        "description" => Some(4),
        "path" => Some(8),
        "path_module" => Some(16),
        _ => None,
    };
    let end = sc.each_field_checked(at, field_of, |bit, at| {
        let end = sc.skip_value_shallow(at)?;
        let v: Option<Value> = serde_json::from_str(&t[at..end]).ok()?;
        match bit {
            1 => o.operation_id = v,
            2 => o.summary = v,
            4 => o.description = v,
            8 => o.path = v,
            _ => o.path_module = v,
        }
        Some(end)
    })?;
    Some((Some(o), end))
}

/// `Lenient<ContractView>` of the value at `at` (the row lists kept as text) and the index
/// after it.
fn quick_contract<'t>(sc: &Scan<'t>, at: usize) -> Option<(Option<ContractView<'t>>, usize)> {
    if sc.text().as_bytes()[at] != b'{' {
        return Some((None, sc.valid_value(at)?));
    }
    let t = sc.text();
    let mut c = ContractView::default();
    let field_of = |key: &str| match key {
        "produces" => Some(1),
        "consumes" => Some(2),
        _ => None,
    };
    let end = sc.each_field_checked(at, field_of, |bit, at| {
        let slot = if bit == 1 {
            &mut c.produces
        } else {
            &mut c.consumes
        };
        let end = sc.valid_value(at)?;
        let v = &t[at..end];
        // `Option<&RawValue>`: null reads as absent
        *slot = (v != "null").then_some(v);
        Some(end)
    })?;
    Some((Some(c), end))
}

fn build_tool(
    file: &str,
    text: &Arc<SourceText>,
    key: &str,
    row_text: &str,
    metadata: Option<Option<&str>>,
    row: ToolRow<'_>,
) -> Result<Tool, InputError> {
    // the metadata's text: known from the quick walk, else found by a structural scan of the
    // already-validated row
    let metadata = match metadata.unwrap_or_else(|| object_member(row_text, "metadata")) {
        Some(m) if !m.starts_with('n') => RawJson::within(text, m),
        Some(_) => RawJson::owned("{}".into()),
        None => {
            // a key written with escapes: let serde find it
            #[derive(Deserialize)]
            struct OnlyMeta<'a> {
                #[serde(default, borrow)]
                metadata: Option<&'a RawValue>,
            }
            match serde_json::from_str::<OnlyMeta<'_>>(row_text)
                .ok()
                .and_then(|m| m.metadata)
            {
                Some(m) => RawJson::within(text, m.get()),
                None => RawJson::owned("{}".into()),
            }
        }
    };
    let facts = match row.metadata {
        Some(view) => facts_from_view(text, view),
        None => ToolFacts::default(),
    };
    let parameters = row
        .parameters
        .unwrap_or_default()
        .into_iter()
        .map(|p| Param {
            name: p.name,
            ty: p.ty.unwrap_or_else(|| "string".into()),
            description: p.description.unwrap_or_default(),
            required: p.required.unwrap_or(false),
            enum_values: p.enum_values.map(|r| RawJson::within(text, r)),
        })
        .collect();
    let name = match row.name {
        Some(n) => n,
        None => {
            return Err(InputError::new(
                file,
                &format!("/tools/{}", pointer_escape(key)),
                "tool row has no \"name\"".into(),
            ));
        }
    };
    Ok(Tool {
        name,
        description: row.description.unwrap_or_default(),
        parameters,
        tags: row.tags.unwrap_or_default(),
        domain: row.domain,
        metadata,
        annotations: row.annotations.map(|a| Annotations {
            read_only: a.read_only_hint,
            destructive: a.destructive_hint,
            idempotent: a.idempotent_hint,
            open_world: a.open_world_hint,
        }),
        facts: Box::new(facts),
        compact: Default::default(),
    })
}

/// Parses the engine's view of a tool's `metadata` text. Never fails: values of an
/// unexpected type are treated as absent, as the reference's `isinstance` checks do.
pub fn parse_facts(text: &Arc<SourceText>, metadata: &str) -> ToolFacts {
    match serde_json::from_str::<Option<MetaView<'_>>>(metadata) {
        Ok(Some(v)) => facts_from_view(text, v),
        _ => ToolFacts::default(),
    }
}

fn facts_from_view(text: &Arc<SourceText>, view: MetaView<'_>) -> ToolFacts {
    let has_metadata = view.nonempty;
    let raw = |r: Option<&str>| LazyRows::from_raw(r.map(|r| RawJson::within(text, r)));
    let owned_if_mapped = |r: Option<&str>| match r {
        Some(r) if lets_pages_go(text) => LazyRows::from_raw(Some(RawJson::owned(r.to_string()))),
        _ => raw(r),
    };
    let (api_produces, api_consumes) = match view.api_contract {
        Some(c) => (raw(c.produces), raw(c.consumes)),
        None => (LazyRows::default(), LazyRows::default()),
    };
    ToolFacts {
        has_metadata,
        method: view.method,
        path: view.path,
        source_label: view.source_label,
        ai: view.ai_metadata.map(|a| AiFacts {
            canonical_action: a.canonical_action,
            primary_resource: a.primary_resource,
            result_shape: a.result_shape,
            one_line_summary: a.one_line_summary,
            when_to_use: a.when_to_use,
            when_not_to_use: a.when_not_to_use,
            produces_semantics: a.produces_semantics,
            consumes_semantics: a.consumes_semantics,
            pairs_well_with: a.pairs_well_with,
        }),
        openapi: view.openapi.map(|o| OpenApiFacts {
            operation_id: o.operation_id,
            summary: o.summary,
            description: o.description,
            path: o.path,
            path_module: o.path_module,
        }),
        // the index reads these for every tool: a copy (a few KB a tool) keeps it from
        // paging a large mapped text back in after the load let it go
        produces: owned_if_mapped(view.produces),
        consumes: owned_if_mapped(view.consumes),
        api_produces,
        api_consumes,
        example_queries: view.example_queries,
    }
}

// ---------------------------------------------------------------- serde rows

/// The top-level keys of an artifact; `T` reads the tool rows (or skips them).
#[derive(Deserialize, Default, Debug)]
#[serde(bound = "T: Deserialize<'de>")]
struct FileTop<T> {
    #[serde(default)]
    format_version: Option<Value>,
    #[serde(default)]
    version: Option<Value>,
    #[serde(default)]
    library_version: Option<Value>,
    #[serde(default)]
    graph: Option<GraphSec>,
    #[serde(default)]
    tools: Option<T>,
    #[serde(default)]
    openapi: Option<IgnoredAny>,
    #[serde(default)]
    swagger: Option<IgnoredAny>,
    #[serde(default)]
    collection_graph_version: Option<IgnoredAny>,
    #[serde(default)]
    readiness_report: Option<IgnoredAny>,
}

impl<T> FileTop<T> {
    fn without_tools(self) -> FileTop<IgnoredAny> {
        FileTop {
            format_version: self.format_version,
            version: self.version,
            library_version: self.library_version,
            graph: self.graph,
            tools: None,
            openapi: self.openapi,
            swagger: self.swagger,
            collection_graph_version: self.collection_graph_version,
            readiness_report: self.readiness_report,
        }
    }
}

#[derive(Deserialize, Debug)]
struct GraphSec {
    #[serde(default)]
    nodes: Option<Vec<NodeRow>>,
    #[serde(default)]
    edges: Option<Vec<EdgeRow>>,
}

#[derive(Deserialize, Debug)]
struct NodeRow {
    id: String,
    #[serde(default, deserialize_with = "string_or_none")]
    node_type: Option<String>,
    #[serde(default)]
    community: Option<Value>,
    #[serde(default, deserialize_with = "string_or_none")]
    description: Option<String>,
}

#[derive(Debug, Default)]
struct EdgeRow {
    source: String,
    target: String,
    relation: Option<Value>,
    confidence: Option<Value>,
    conf_score: Option<Value>,
    evidence: Option<Value>,
    layer: Option<Value>,
    kind: Option<Value>,
    evidence_sources: Option<Value>,
}

impl<'de> Deserialize<'de> for EdgeRow {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = EdgeRow;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an edge object with \"source\" and \"target\"")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut source = None;
                let mut target = None;
                let mut row = EdgeRow::default();
                while let Some(k) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    match k.as_ref() {
                        "source" => source = Some(map.next_value::<String>()?),
                        "target" => target = Some(map.next_value::<String>()?),
                        "relation" => row.relation = Some(map.next_value()?),
                        "confidence" => row.confidence = Some(map.next_value()?),
                        "conf_score" => row.conf_score = Some(map.next_value()?),
                        "evidence" => row.evidence = Some(map.next_value()?),
                        "layer" => row.layer = Some(map.next_value()?),
                        "kind" => row.kind = Some(map.next_value()?),
                        "evidence_sources" => row.evidence_sources = Some(map.next_value()?),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                row.source = source.ok_or_else(|| de::Error::missing_field("source"))?;
                row.target = target.ok_or_else(|| de::Error::missing_field("target"))?;
                Ok(row)
            }
        }
        d.deserialize_map(V)
    }
}

struct ToolRows<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for ToolRows<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = ToolRows<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object mapping tool names to tool rows")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut rows = Vec::with_capacity(map.size_hint().unwrap_or(0));
                let mut seen = rustc_hash::FxHashSet::default();
                while let Some(k) = map.next_key::<String>()? {
                    if !seen.insert(k.clone()) {
                        return Err(de::Error::custom(format!("duplicate tool name {k:?}")));
                    }
                    let row: &'a RawValue = map.next_value()?;
                    rows.push((k, row));
                }
                Ok(ToolRows(rows))
            }
        }
        d.deserialize_map(V(PhantomData))
    }
}

#[derive(Deserialize, Default)]
struct ToolRow<'a> {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default, borrow)]
    parameters: Option<Vec<ParamRow<'a>>>,
    #[serde(default)]
    tags: Option<Vec<String>>,
    #[serde(default)]
    domain: Option<String>,
    #[serde(default, borrow)]
    metadata: Option<MetaView<'a>>,
    #[serde(default)]
    annotations: Option<AnnotationRow>,
}

#[derive(Deserialize)]
struct ParamRow<'a> {
    name: String,
    #[serde(default, rename = "type")]
    ty: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    required: Option<bool>,
    #[serde(default, rename = "enum", borrow, deserialize_with = "raw_opt")]
    enum_values: Option<&'a str>,
}

/// `Option<&RawValue>` as text.
fn raw_opt<'de: 'a, 'a, D: Deserializer<'de>>(d: D) -> Result<Option<&'a str>, D::Error> {
    Option::<&'de RawValue>::deserialize(d).map(|r| r.map(RawValue::get))
}

#[derive(Deserialize)]
struct AnnotationRow {
    #[serde(default, alias = "readOnlyHint")]
    read_only_hint: Option<bool>,
    #[serde(default, alias = "destructiveHint")]
    destructive_hint: Option<bool>,
    #[serde(default, alias = "idempotentHint")]
    idempotent_hint: Option<bool>,
    #[serde(default, alias = "openWorldHint")]
    open_world_hint: Option<bool>,
}

#[derive(Default)]
struct MetaView<'a> {
    nonempty: bool,
    method: Option<Value>,
    path: Option<Value>,
    source_label: Option<Value>,
    ai_metadata: Option<AiView>,
    openapi: Option<OaView>,
    produces: Option<&'a str>,
    consumes: Option<&'a str>,
    api_contract: Option<ContractView<'a>>,
    example_queries: Vec<Value>,
}

impl<'de: 'a, 'a> Deserialize<'de> for MetaView<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = MetaView<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a metadata object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MetaView<'a>, A::Error> {
                let mut m = MetaView::default();
                while let Some(k) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    m.nonempty = true;
                    match k.as_ref() {
                        "method" => m.method = Some(map.next_value()?),
                        "path" => m.path = Some(map.next_value()?),
                        "source_label" => m.source_label = Some(map.next_value()?),
                        "ai_metadata" => m.ai_metadata = map.next_value::<Lenient<AiView>>()?.0,
                        "openapi" => m.openapi = map.next_value::<Lenient<OaView>>()?.0,
                        "produces" => m.produces = Some(map.next_value::<&'de RawValue>()?.get()),
                        "consumes" => m.consumes = Some(map.next_value::<&'de RawValue>()?.get()),
                        "api_contract" => {
                            m.api_contract = map.next_value::<Lenient<ContractView>>()?.0
                        }
                        "example_queries" => m.example_queries = map.next_value::<LenientList>()?.0,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(m)
            }
            fn visit_unit<E>(self) -> Result<MetaView<'a>, E> {
                Ok(MetaView::default())
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

#[derive(Deserialize, Default)]
struct AiView {
    #[serde(default)]
    canonical_action: Option<Value>,
    #[serde(default)]
    primary_resource: Option<Value>,
    #[serde(default)]
    result_shape: Option<Value>,
    #[serde(default)]
    one_line_summary: Option<Value>,
    #[serde(default)]
    when_to_use: Option<Value>,
    #[serde(default)]
    when_not_to_use: Option<Value>,
    #[serde(default, deserialize_with = "lenient_list")]
    produces_semantics: Vec<Value>,
    #[serde(default, deserialize_with = "lenient_list")]
    consumes_semantics: Vec<Value>,
    #[serde(default, deserialize_with = "lenient_list")]
    pairs_well_with: Vec<Value>,
}

#[derive(Deserialize, Default)]
struct OaView {
    #[serde(default)]
    operation_id: Option<Value>,
    #[serde(default)]
    summary: Option<Value>,
    #[serde(default)]
    description: Option<Value>,
    #[serde(default)]
    path: Option<Value>,
    #[serde(default)]
    path_module: Option<Value>,
}

#[derive(Default)]
struct ContractView<'a> {
    produces: Option<&'a str>,
    consumes: Option<&'a str>,
}

impl<'de: 'a, 'a> Deserialize<'de> for ContractView<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Rows<'a> {
            #[serde(default, borrow)]
            produces: Option<&'a RawValue>,
            #[serde(default, borrow)]
            consumes: Option<&'a RawValue>,
        }
        let r = Rows::deserialize(d)?;
        Ok(ContractView {
            produces: r.produces.map(RawValue::get),
            consumes: r.consumes.map(RawValue::get),
        })
    }
}

/// An object deserialised as `T`, anything else as `None`.
struct Lenient<T>(Option<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Lenient<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(|v| Lenient(Some(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Lenient(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Lenient(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Lenient(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Lenient(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Lenient(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Lenient(None))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Lenient(None))
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(Lenient(None))
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// A list of values; anything else reads as an empty list.
struct LenientList(Vec<Value>);

impl<'de> Deserialize<'de> for LenientList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::Array(items) => Ok(LenientList(items)),
            _ => Ok(LenientList(Vec::new())),
        }
    }
}

fn lenient_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Value>, D::Error> {
    LenientList::deserialize(d).map(|l| l.0)
}

fn string_or_none<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Value::deserialize(d).map(py_string_or_none)
}

/// With `TOOLSCOPE_TIMING` set, prints how long a load phase took (since `t`) to stderr.
fn tt(what: &str, t: std::time::Instant) {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *ON.get_or_init(|| std::env::var_os("TOOLSCOPE_TIMING").is_some()) {
        eprintln!("load: {what}: {:.3} ms", t.elapsed().as_secs_f64() * 1e3);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The checked walk gives what serde gives for the whole row, or nothing.
    fn same_as_serde(row: &str) -> bool {
        let text = Arc::new(SourceText::owned(row.to_string()));
        let slow = serde_json::from_str::<ToolRow<'_>>(&text)
            .ok()
            .map(|r| build_tool("f", &text, "k", &text, None, r));
        let sc = Scan::new(&text);
        let quick = quick_tool_row(&sc, 0)
            .filter(|q| q.2 == text.len())
            .map(|(r, m, _)| build_tool("f", &text, "k", &text, Some(m), r));
        match (quick, slow) {
            (None, _) => false,
            (Some(q), Some(s)) => {
                assert_eq!(format!("{q:?}"), format!("{s:?}"), "{row}");
                true
            }
            (Some(_), None) => panic!("quick accepted what serde rejects: {row}"),
        }
    }

    /// The checked top-level walk gives what serde gives for the file without its tools,
    /// or nothing.
    fn top_same_as_serde(file: &str) -> bool {
        let slow = split_tool_rows(file, |_| {}).and_then(|span| {
            serde_json::from_str::<FileTop<IgnoredAny>>(&without(file, span)).ok()
        });
        let quick = quick_top(file, |sc, at| sc.valid_value(at));
        match (quick, slow) {
            (None, _) => false,
            (Some(q), Some(s)) => {
                assert_eq!(format!("{q:?}"), format!("{s:?}"), "{file}");
                true
            }
            (Some(_), None) => panic!("quick accepted what serde rejects: {file}"),
        }
    }

    #[test]
    fn quick_top_reads_as_serde_reads_it() {
        for file in [
            r#"{"format_version": "1", "library_version": "0.47.0", "metadata": {"a": [1, {"b": null}]}, "graph": {"nodes": [{"id": "t", "node_type": "tool", "community": 3, "description": 5}, {"id": "u", "node_type": null}], "edges": [{"source": "t", "target": "u", "relation": "requires", "confidence": "INFERRED", "conf_score": 0.7, "evidence": "e", "layer": 1, "kind": null, "evidence_sources": ["x"], "data_flow": {"a": 1}}]}, "tools": {}, "readiness_report": {"x": 1}, "collection_graph_version": null}"#,
            r#"{"version": 1, "graph": {}, "tools": {"a": {}}, "openapi": "3.0", "swagger": null}"#,
            " \n{ \"graph\" : null , \"tools\" : { } }\n ",
            r#"{"graph": {"nodes": null, "edges": []}, "tools": {}}"#,
            r#"{"graph": {"nodes": [{"id": "a\"b\u00e9", "description": {"k": [1.5e3, true]}, "community": null, "x": {"y": 1}}, {"id": "c", "node_type": 7, "community": [1, "z"], "description": null}], "edges": null}, "tools": {}}"#,
            r#"{"graph": {"nodes": [], "edges": [{"source": "a", "target": "b", "relation": "x", "relation": "y", "source": "c\n", "evidence": "e\u0301", "conf_score": -0.25, "layer": 2, "data_flow": [{"f": "g"}]}, {"target": "t", "source": "s", "kind": null, "evidence_sources": [], "confidence": 1}]}, "tools": {}}"#,
        ] {
            assert!(top_same_as_serde(file), "{file}");
        }
        for file in [
            r#"{"graph": {}, "graph": {}, "tools": {}}"#,
            r#"{"gr\u0061ph": {}, "tools": {}}"#,
            r#"{"graph": {}}"#,
            r#"{"graph": {}, "tools": {}} x"#,
            r#"{"graph": {"nodes": [1]}, "tools": {}}"#,
            r#"{"graph": {}, "tools": {}, "readiness_report": [1,]}"#,
            r#"{"graph": {}, "tools": {},}"#,
            r#"{"graph": {}, "tools": null}"#,
            r#"{"graph": {"nodes": [{"node_type": "tool"}]}, "tools": {}}"#,
            r#"{"graph": {"nodes": [{"id": 1}]}, "tools": {}}"#,
            r#"{"graph": {"nodes": [{"id": "a", "id": "b"}]}, "tools": {}}"#,
            r#"{"graph": {"nodes": [{"id": "a"},]}, "tools": {}}"#,
            r#"{"graph": {"edges": [{"source": "a"}]}, "tools": {}}"#,
            r#"{"graph": {"edges": [{"source": "a", "target": "b", "evid\u0065nce": "e"}]}, "tools": {}}"#,
            r#"{"graph": {"edges": [["a", "b"]]}, "tools": {}}"#,
            r#"{"graph": {"nodes": [], "nodes": []}, "tools": {}}"#,
            r#"{"graph": [], "tools": {}}"#,
            r#"{"graph": {"edges": [{"source": "a", "target": "b", "layer": 01}]}, "tools": {}}"#,
        ] {
            assert!(!top_same_as_serde(file), "{file}");
        }
    }

    #[test]
    fn quick_rows_read_as_serde_reads_them() {
        let full = r##"{"name": "t", "description": "d\u00e9", "parameters": [{"name": "p", "type": "integer", "required": true, "enum": [1, 2]}, {"name": "q"}], "tags": ["a"], "domain": null, "extra": {"x": [1, {"y": null}]}, "metadata": {"method": "GET", "path": "/p/{id}", "source_label": 3, "ai_metadata": {"canonical_action": "read", "produces_semantics": ["a"], "pairs_well_with": 5}, "openapi": {"operation_id": "op", "summary": null, "requestBody": {"content": {"a/b": {"schema": {"type": "object"}}}}, "path_module": "p"}, "produces": [{"a": 1}], "consumes": null, "api_contract": {"produces": [], "consumes": null, "other": 1}, "example_queries": "not a list", "response_schema": {"type": "array", "items": {"$ref": "#/x"}}}, "annotations": {"readOnlyHint": true, "destructive_hint": false}}"##;
        assert!(same_as_serde(full));
        for row in [
            r#"{}"#,
            r#"{"name": "t"}"#,
            r#"{"name": "t", "metadata": null}"#,
            r#"{"name": "t", "metadata": {}}"#,
            r#"{"name": "t", "metadata": {"openapi": [1, 2], "api_contract": "x", "ai_metadata": 7}}"#,
            r#"{"name": "t", "metadata": {"method": "GET", "method": "POST", "produces": 1, "produces": [2]}}"#,
            r#"{"name": "t", "metadata": {"openapi": {"summary": "s", "other": {"summary": 1}}}}"#,
            r#"{"description": "no name"}"#,
            r#"{"name": null, "description": null, "parameters": null, "tags": null, "domain": null, "annotations": null}"#,
            r#"{"name": "t\u00e9\n", "parameters": [], "tags": [], "annotations": {}}"#,
            r#"{"name": "t", "parameters": [{"name": "a", "type": null, "description": "d\"", "required": false, "enum": null, "schema": {"x": 1}}, {"required": null, "name": "b", "enum": ["x", {"y": [1]}]}], "tags": ["a\tb", "c"], "annotations": {"readOnlyHint": null, "destructive_hint": true, "openWorldHint": false, "other": 1}}"#,
            "{\n  \"name\" : \"t\" ,\n  \"tags\" : [ ]\n }",
        ] {
            assert!(same_as_serde(row), "{row}");
        }
        // unusual or invalid: the quick walk steps aside (serde reads or rejects these)
        for row in [
            r#"{"name": "t", "name": "u"}"#,
            r#"{"na\u006de": "t"}"#,
            r#"{"name": "t", "metadata": {"meth\u006fd": "GET"}}"#,
            r#"{"name": "t", "metadata": {"openapi": {"summary": 1, "summary": 2}}}"#,
            r#"{"name": "t", "metadata": {"api_contract": {"produces": null, "produces": []}}}"#,
            r#"{"name": "t", "metadata": "text"}"#,
            r#"{"name": 5}"#,
            r#"{"name": "t", "parameters": [{"type": "string"}]}"#,
            r#"{"name": "t", "parameters": [{"name": null}]}"#,
            r#"{"name": "t", "parameters": [{"name": "a", "required": 1}]}"#,
            r#"{"name": "t", "parameters": [{"name": "a", "name": "b"}]}"#,
            r#"{"name": "t", "parameters": [["a"]]}"#,
            r#"{"name": "t", "parameters": {"name": "a"}}"#,
            r#"{"name": "t", "tags": ["a", null]}"#,
            r#"{"name": "t", "tags": "a"}"#,
            r#"{"name": "t", "annotations": {"readOnlyHint": true, "read_only_hint": true}}"#,
            r#"{"name": "t", "annotations": {"readOnlyHint": 1}}"#,
            r#"{"name": "t", "annotations": [true]}"#,
            r#"{"name": "t", "parameters": [{"name": "a", "enum": [1,]}]}"#,
            r#"{"name": "t", "x": [1,]}"#,
            r#"{"name": "t", "x": "a\u12"}"#,
            "{\"name\": \"t\", \"x\": \"a\tb\"}",
            r#"{"name": "t", "x": 01}"#,
            r#"{"name": "t", "metadata": {"produces": [1 2]}}"#,
            r#"{"name": "t", "metadata": {"openapi": {"x": tru}}}"#,
            r#"{"name": "t",}"#,
            r#"{"name": "t" "tags": []}"#,
            r#"["t"]"#,
        ] {
            assert!(!same_as_serde(row), "{row}");
        }
        let deep = format!(
            r#"{{"name": "t", "metadata": {{"method": {}1{}}}}}"#,
            "[".repeat(120),
            "]".repeat(120)
        );
        assert!(!same_as_serde(&deep));
    }
}
