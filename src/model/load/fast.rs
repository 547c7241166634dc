//! The fast path: a structural scan ([`crate::model::scan`]) splits the tool rows (the bulk
//! of an artifact) off the rest and a checked walk reads each part, the members the engine
//! reads parsed with serde one by one, every other value only checked. Rows are parsed on
//! worker threads for large texts, batch by batch as the scan finds them. Every walk gives
//! exactly what serde gives ([`super::serde_rows`]) or `None`, and the caller then takes the
//! serde path; the tests below hold the two to that.

use serde::de::IgnoredAny;
use serde_json::Value;
use std::sync::Arc;

use super::guess;
use super::serde_rows::{
    self, AiView, AnnotationRow, ContractView, EdgeRow, FileTop, GraphSec, Lenient, LenientList,
    MetaView, NodeRow, OaView, ParamRow, ToolRow, ToolRowTexts, py_string_or_none,
};
use super::tool_row::{build_tool, lets_pages_go};
use crate::error::InputError;
use crate::model::scan::Scan;
use crate::model::text::SourceText;
use crate::model::tool::Tool;

/// What the fast path read: the top-level keys, the tool rows and each row parsed.
pub(super) struct FastLoad<'t> {
    pub(super) top: FileTop<IgnoredAny>,
    pub(super) rows: ToolRowTexts<'t>,
    pub(super) built: Vec<Result<Tool, InputError>>,
}

/// Below this size the fast path runs on one thread: its single checked pass beats the
/// split-then-parse pipeline (a structural pass more, thread start-up) on files of a few MB.
const PARALLEL_FROM_BYTES: usize = 8 << 20;

/// The one-thread path lets the pages of a mapped text it may let go ([`lets_pages_go`])
/// go in steps of this many bytes.
const RELEASE_STEP: usize = 1 << 20;

/// Reads the tool rows and the rest: in one checked walk on this thread for a small text;
/// for a large one, on worker threads, by chunks of rows cut at guessed places
/// ([`chunked_load`]) or, when the text is not shaped for that, split off by a structural
/// scan ([`parallel_load`]). `None` when the fast path does not apply or the rest does not
/// parse.
pub(super) fn fast_load<'t>(name: &str, text: &'t Arc<SourceText>) -> Option<FastLoad<'t>> {
    let s: &'t str = text.as_str();
    let threads = if s.len() < PARALLEL_FROM_BYTES {
        1
    } else {
        crate::par::threads()
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
    chunked_load(name, text, threads).or_else(|| parallel_load(name, text, threads))
}

/// Chunks of rows per worker thread in [`chunked_load`] (rows cost unevenly: the threads
/// take chunks from a shared queue).
const CHUNKS_PER_THREAD: usize = 8;

/// The parallel load of a pretty-printed artifact: the tools object cut into chunks of rows
/// at guessed row starts ([`guess::row_chunks`]), each chunk read row after row by the
/// checked walk on a worker ([`walk_chunk`], as [`quick_load_serial`] reads the whole
/// object: each byte is read once more only by the worker, while it is in the cache), while
/// the rest is read by the checked top-level walk on a thread of its own. The guesses are
/// checked: the top-level walk must meet the tools object where it was guessed to open, and
/// each chunk's rows must end exactly where the next chunk was guessed to start. `None`
/// otherwise, or when the text is not shaped for it (compact) or the rest does not parse.
fn chunked_load<'t>(name: &str, text: &'t Arc<SourceText>, threads: usize) -> Option<FastLoad<'t>> {
    let s: &'t str = text.as_str();
    let (open, starts) = guess::row_chunks(s, threads * CHUNKS_PER_THREAD)?;
    let chunks: Vec<(usize, Option<usize>)> = (0..starts.len())
        .map(|k| (starts[k], starts.get(k + 1).copied()))
        .collect();
    std::thread::scope(|sc| {
        let (span_tx, top_walk) = spawn_top_walk(sc, text);
        let parts = crate::par::map_heavy(&chunks, |&(start, next)| {
            walk_chunk(name, text, start, next)
        });
        let mut rows = Vec::new();
        let mut built = Vec::new();
        let mut end = None;
        for part in parts {
            let (r, b, e) = part?; // a wrong guess: the top-level walk ends with the scope
            rows.extend(r);
            built.extend(b);
            end = Some(e);
        }
        let _ = span_tx.send((open, end?));
        drop(span_tx);
        let top = top_walk.join().expect("top-level walk thread")?;
        if lets_pages_go(text) {
            text.release(end?, s.len());
        }
        Some(FastLoad { top, rows, built })
    })
}

/// The top-level walk ([`quick_top`]) on a thread of its own: the rest of the file (its
/// graph section is a tenth of a large artifact) is read while the rows are parsed. At the
/// tools object the walk waits for the object's span (sent on the returned channel), lets
/// the pages it read go, and goes on after the object; a dropped channel ends it (`None`).
#[allow(clippy::type_complexity)]
fn spawn_top_walk<'scope, 't: 'scope>(
    sc: &'scope std::thread::Scope<'scope, '_>,
    text: &'t Arc<SourceText>,
) -> (
    std::sync::mpsc::SyncSender<(usize, usize)>,
    std::thread::ScopedJoinHandle<'scope, Option<FileTop<IgnoredAny>>>,
) {
    let (span_tx, span_rx) = std::sync::mpsc::sync_channel::<(usize, usize)>(1);
    let walk = sc.spawn(move || {
        quick_top(text.as_str(), |_, at| {
            if lets_pages_go(text) {
                text.release(0, at); // what the walk read so far (the graph section)
            }
            let (start, end) = span_rx.recv().ok()?;
            (at == start).then_some(end)
        })
    });
    (span_tx, walk)
}

/// The rows of one chunk, from the key at `start`, read row after row by the checked walk:
/// their texts, each row parsed, and the index after the chunk (after the separator before
/// `next`, or after the tools object's `}` for the last chunk). `None` when the rows do not
/// end exactly at `next` (a wrong guess) or anything is unusual.
#[allow(clippy::type_complexity)]
fn walk_chunk<'t>(
    name: &str,
    text: &'t Arc<SourceText>,
    start: usize,
    next: Option<usize>,
) -> Option<(ToolRowTexts<'t>, Vec<Result<Tool, InputError>>, usize)> {
    let s: &'t str = text.as_str();
    let sc = Scan::new(s);
    let b = s.as_bytes();
    let (release, mut released) = (lets_pages_go(text), start);
    let mut rows: ToolRowTexts<'t> = Vec::new();
    let mut built = Vec::new();
    let mut i = start;
    loop {
        // a member of the tools object, checked as `Scan::each_member_checked` checks it
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let k_end = sc.valid_str(i)?;
        let raw_key = &s[i + 1..k_end - 1];
        let key = if raw_key.contains('\\') {
            serde_json::from_str::<String>(&s[i..k_end]).ok()?
        } else {
            raw_key.to_string()
        };
        i = sc.skip_ws(k_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = sc.skip_ws(i + 1);
        if i >= b.len() {
            return None;
        }
        let (tool, end) = tool_row_at(name, text, &sc, &key, i)?;
        rows.push((key, &s[i..end]));
        built.push(tool);
        if release && end - released >= RELEASE_STEP {
            text.release(released, end);
            released = end;
        }
        i = sc.skip_ws(end);
        match (b.get(i), next) {
            (Some(b','), _) => {
                i = sc.skip_ws(i + 1);
                match next {
                    Some(n) if i == n => return Some((rows, built, n)),
                    Some(n) if i > n => return None, // the guess was inside a row
                    _ => {}
                }
            }
            (Some(b'}'), None) => return Some((rows, built, i + 1)),
            _ => return None,
        }
    }
}

/// The row at `at` (its key `key`), read by the checked walk ([`quick_tool_row`]), or, when
/// the walk steps aside, found by the structural scan and parsed by serde
/// ([`parse_tool_row`]); with the index after it. `None` when not even the scan finds its
/// end.
fn tool_row_at(
    name: &str,
    text: &Arc<SourceText>,
    sc: &Scan<'_>,
    key: &str,
    at: usize,
) -> Option<(Result<Tool, InputError>, usize)> {
    let s = sc.text();
    Some(match quick_tool_row(sc, at) {
        Some((row, metadata, end)) => (
            build_tool(name, text, key, &s[at..end], Some(metadata), row),
            end,
        ),
        None => {
            let end = sc.skip_value(at)?;
            (parse_tool_row(name, text, key, &s[at..end]), end)
        }
    })
}

/// The parallel load of any other large text: rows split off by [`split_tool_rows`] and
/// parsed on `threads` workers, batch by batch, while the rest is read by the checked
/// top-level walk (or, when that steps aside, by serde). `None` when the text is not shaped
/// as expected or the rest does not parse.
fn parallel_load<'t>(
    name: &str,
    text: &'t Arc<SourceText>,
    threads: usize,
) -> Option<FastLoad<'t>> {
    let s: &'t str = text.as_str();
    type Batch<'t> = (usize, ToolRowTexts<'t>);
    type Parsed<'t> = (usize, ToolRowTexts<'t>, Vec<Result<Tool, InputError>>);
    // bounded: the scan stays a few batches ahead of the parsers, so only that window of a
    // mapped file is resident
    let (tx, rx) = std::sync::mpsc::sync_channel::<Batch<'t>>(2 * threads);
    let rx = std::sync::Mutex::new(rx);
    std::thread::scope(|sc| {
        let (span_tx, top_walk) = spawn_top_walk(sc, text);
        // the pool's workers parse batches while this thread scans for them and then
        // takes the rest from the top-level walk
        let (parts, top) = crate::par::workers(
            || {
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
            },
            move || {
                let mut n = 0;
                let tools = split_tool_rows(s, |batch| {
                    let _ = tx.send((n, batch));
                    n += 1;
                });
                drop(tx);
                if let Some(span) = tools {
                    let _ = span_tx.send(span);
                }
                drop(span_tx);
                let walked = top_walk.join().expect("top-level walk thread");
                let top = tools.and_then(|(start, end)| {
                    walked.or_else(|| {
                        serde_json::from_str::<FileTop<IgnoredAny>>(&without(s, (start, end))).ok()
                    })
                });
                // the rest is parsed: its pages are let go while the last rows are parsed
                if let (Some(_), Some((start, end))) = (&top, tools)
                    && lets_pages_go(text)
                {
                    text.release(0, start);
                    text.release(end, s.len());
                }
                top
            },
        );
        let mut parts: Vec<Parsed<'t>> = parts.into_iter().flatten().collect();
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
pub(super) fn without(text: &str, (start, end): (usize, usize)) -> String {
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
            let (tool, end) = tool_row_at(name, text, sc, &key, at)?;
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
        "graph_tool_call_version" => Some(512),
        "enrichment_status" => Some(1024),
        "semantic_summary" => Some(2048),
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
        if bit >= 128 {
            // `Option<Value>`: the value, `None` for null
            let end = sc.valid_value(at)?;
            let v: Option<Value> = serde_json::from_str(&text[at..end]).ok()?;
            match bit {
                128 => top.collection_graph_version = v,
                256 => top.readiness_report = v,
                512 => top.graph_tool_call_version = v,
                1024 => top.enrichment_status = v,
                _ => top.semantic_summary = v,
            }
            return Some(end);
        }
        if bit >= 32 {
            // `Option<IgnoredAny>`: present unless null
            let end = sc.valid_value(at)?;
            let present = (&text[at..end] != "null").then_some(IgnoredAny);
            match bit {
                32 => top.openapi = present,
                _ => top.swagger = present,
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

/// Parses one tool row (a slice of `text`): by the checked walk ([`quick_tool_row`]), else
/// by serde ([`serde_rows::parse_row`], which names any error).
pub(super) fn parse_tool_row(
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
    let row = serde_rows::parse_row(file, text, key, row_text)?;
    build_tool(file, text, key, row_text, None, row)
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

    /// The chunked load gives what the structural split gives, or steps aside (`None`, and
    /// the structural load runs).
    #[test]
    fn chunked_load_is_the_structural_one_or_none() {
        let row = |n: &str| {
            serde_json::json!({"name": n, "description": "d },\n    \"x\"", "tags": ["t"],
                "metadata": {"method": "GET", "produces": [{"field_name": "x"}],
                    "openapi": {"summary": "s", "x": {"y": [1, {}], "z": []}}}})
        };
        let mut tools = serde_json::Map::new();
        for i in 0..30 {
            tools.insert(format!("t{i}"), row(&format!("t{i}")));
        }
        tools.insert("c".into(), serde_json::json!({}));
        tools.insert(
            "d\u{e9}\"".into(),
            serde_json::json!({"name": "d", "tags": []}),
        );
        let v = serde_json::json!({"format_version": "1", "metadata": {"k": {}},
            "graph": {"nodes": [{"id": "t0"}, {"id": "t1"}],
                "edges": [{"source": "t0", "target": "t1", "relation": "requires"}]},
            "tools": tools, "readiness_report": {"summary": {"k": [1]}}});
        let pretty = serde_json::to_string_pretty(&v).unwrap();
        let compact = serde_json::to_string(&v).unwrap();
        // a nested object closing at its row's indentation (a guessed start inside a row)
        let trap = "{\n  \"graph\": {\"nodes\": [], \"edges\": []},\n  \"tools\": {\n    \"a\": {\n      \"name\": \"a\",\n      \"metadata\": {\n    },\n      \"x\": 1\n    },\n    \"b\": {\"name\": \"b\"},\n    \"c\": {\n      \"name\": \"c\"\n    },\n    \"d\": {}\n  }\n}";
        // rows and their separators on lines of their own
        let odd = "{\n  \"graph\": {},\n  \"tools\": {\n    \"a\": {\n      \"name\": \"a\"\n    }\n    ,\n    \"b\": {\n      \"name\": \"b\"\n    },\n\n    \"c\": {\n      \"name\": \"c\"\n    }\n  }\n}";
        let shown = |f: &FastLoad<'_>| format!("{:?} {:?} {:?}", f.top, f.rows, f.built);
        for (text, taken, n) in [
            (pretty.as_str(), true, 32),
            (compact.as_str(), false, 32),
            (trap, false, 4),
            (odd, true, 3),
        ] {
            let t = Arc::new(SourceText::owned(text.to_string()));
            let structural = parallel_load("t", &t, 2).expect("structural load");
            assert_eq!(structural.rows.len(), n);
            match chunked_load("t", &t, 2) {
                Some(c) => assert_eq!(shown(&c), shown(&structural), "{text}"),
                None => assert!(!taken, "the chunked load stepped aside: {text}"),
            }
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
