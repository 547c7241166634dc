//! The one input sniffer: what a file is, decided from a bounded head of its content (the
//! decompressed head for gzip), never from its name and never by reading it whole.
//!
//! Every command and the explorer route a path through [`sniff_path`]; the loader for the
//! kind found then reads the file itself (an artifact through the mapped loader, a spec
//! through the builder), and its errors name the file and the place. The rules look at
//! the top-level keys of the first JSON object (of the document, of a top-level list's
//! first item, or of a JSON Lines file's first line) and at the first character of each
//! key's value, which is enough to tell a graph's `"tools": {…}` from an MCP list's
//! `"tools": […]`.

use std::io::Read;
use std::path::Path;

use crate::error::InputError;

/// How much of a file the sniffer reads (after decompression).
pub const HEAD_BYTES: u64 = 1 << 20;

/// What a file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A graph-tool-call saved tool graph or collection artifact.
    Graph,
    /// An Arazzo workflow description (top-level `arazzo`): it applies to a graph, so the
    /// builder takes it with a spec or a saved graph and explains when it is alone.
    Arazzo,
    /// An OpenAPI 3.x or Swagger 2.0 document (JSON or YAML), or a GraphQL introspection
    /// result (or a GraphQL response without one: the builder names what is missing).
    Spec,
    /// An MCP `tools/list` result or an OpenAI/Anthropic function list.
    ToolList,
    /// Captured evidence: a retrieval response, selector block, fixture, batch output or
    /// golden cases (single JSON, a list, or JSON Lines).
    Evidence,
    /// A suite of labelled queries without results.
    Suite,
    /// Learning suggestions (spec §6).
    Learning,
    /// YAML that is not recognisably a spec (the builder's YAML reader says what it is).
    Yaml,
    /// Nothing recognisable (the caller's loader reports what is wrong with it).
    Unknown,
}

/// Keys that mark captured evidence.
pub const EVIDENCE_KEYS: &[&str] = &[
    "results",
    "target_selector",
    "selected_target",
    "actual_top_3",
    "ranking",
    "retrieval",
    "selection",
    "rank_signals",
    "expected",
];

/// Keys that mark a suite of labelled queries.
pub const SUITE_KEYS: &[&str] = &["queries", "expected_tools", "labels", "expected_target"];

/// The bounded head of a file.
#[derive(Debug, Clone)]
pub struct Head {
    /// Up to [`HEAD_BYTES`] of the (decompressed) content, lossily decoded.
    pub text: String,
    /// The file is gzip-compressed.
    pub gzip: bool,
}

/// Reads the head of a regular file (special files are refused, see [`crate::limits`]).
pub fn read_head(path: &Path, max: u64) -> Result<Head, InputError> {
    let name = crate::sanitize::path(path);
    let (file, _) = crate::limits::open_regular(path)?;
    let mut raw = Vec::new();
    file.take(max)
        .read_to_end(&mut raw)
        .map_err(|e| crate::limits::io_error(&name, &e))?;
    let gzip = crate::limits::is_gzip(&raw);
    if gzip {
        let (file, _) = crate::limits::open_regular(path)?;
        let mut out = Vec::new();
        // a head of the stream: a truncated or corrupt tail is the loader's business
        let _ = flate2::read::MultiGzDecoder::new(std::io::BufReader::new(file))
            .take(max)
            .read_to_end(&mut out);
        raw = out;
    }
    Ok(Head {
        text: String::from_utf8_lossy(&raw).into_owned(),
        gzip,
    })
}

/// The kind of the file at `path` (folders are fixture folders: [`Kind::Evidence`]).
pub fn sniff_path(path: &Path) -> Result<Kind, InputError> {
    if path.is_dir() {
        return Ok(Kind::Evidence);
    }
    Ok(sniff(&read_head(path, HEAD_BYTES)?.text))
}

/// What one argument of a command that takes two graphs or two runs (`diff A B`, `:diff`)
/// is, from its content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// `demo`, a graph artifact, a spec or a tool list.
    Graph,
    /// Captured evidence, a fixture folder, a suite or learning suggestions.
    Run,
    /// Nothing recognisable, or not readable (missing, empty, truncated before its first
    /// key): the loader that reads it says what is wrong, naming the file and the place.
    Undecided,
}

/// What `arg` is ([`Side`]); `demo` is the embedded demo graph.
pub fn side_of(arg: &str) -> Side {
    if arg == "demo" {
        return Side::Graph;
    }
    match sniff_path(Path::new(arg)) {
        Ok(Kind::Graph | Kind::Spec | Kind::ToolList | Kind::Yaml) => Side::Graph,
        Ok(Kind::Evidence | Kind::Suite | Kind::Learning | Kind::Arazzo) => Side::Run,
        Ok(Kind::Unknown) | Err(_) => Side::Undecided,
    }
}

/// Two arguments together: two graphs, two runs, or one of each (an error to report).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pair {
    Graphs,
    Runs,
    /// One is a graph (`graph`: its position, 0 or 1) and the other a run.
    Mixed {
        graph: usize,
    },
}

/// Decides what two arguments are compared as. An undecided side goes with the other
/// (and two undecided ones are read as graphs, as the explorer does), so a truncated or
/// missing file is reported by the loader of what it was given with, with its place.
pub fn pair(a: &str, b: &str) -> Pair {
    match (side_of(a), side_of(b)) {
        (Side::Graph, Side::Run) => Pair::Mixed { graph: 0 },
        (Side::Run, Side::Graph) => Pair::Mixed { graph: 1 },
        (Side::Run, _) | (_, Side::Run) => Pair::Runs,
        _ => Pair::Graphs,
    }
}

/// The kind of a document from its (possibly truncated) text.
pub fn sniff(text: &str) -> Kind {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    let kind = match t.as_bytes().first() {
        None => Kind::Unknown,
        Some(b'{') | Some(b'[') => sniff_json(t),
        Some(_) => sniff_yaml(t),
    };
    match kind {
        Kind::Unknown | Kind::Yaml => later_record(t).unwrap_or(kind),
        k => k,
    }
}

/// Captured evidence in JSON Lines whose first line is not a record (garbage, or a record
/// torn mid-line): a later line of the head that is a JSON object on its own and sniffs as
/// evidence.
fn later_record(t: &str) -> Option<Kind> {
    let mut lines = t.lines().filter(|l| !l.trim().is_empty());
    let first = lines.next()?;
    if serde_json::from_str::<serde::de::IgnoredAny>(first).is_ok() {
        return None;
    }
    lines
        .take(64)
        .map(str::trim)
        .filter(|l| l.starts_with('{'))
        .find(|l| serde_json::from_str::<serde::de::IgnoredAny>(l).is_ok())
        .map(sniff_json)
        .filter(|k| *k == Kind::Evidence)
}

fn sniff_json(t: &str) -> Kind {
    let list = t.starts_with('[');
    let members = first_members(t);
    let has = |k: &str| members.iter().any(|(x, _)| x == k);
    let value_of = |k: &str| members.iter().find(|(x, _)| x == k).map(|(_, v)| *v);
    if !list && (has("openapi") || has("swagger")) {
        return Kind::Spec;
    }
    if !list && has("arazzo") {
        return Kind::Arazzo;
    }
    if !list && (value_of("graph") == Some(b'{') || has("format_version") || has("library_version"))
    {
        return Kind::Graph;
    }
    if !list
        && (has("__schema")
            || (has("data") || has("errors"))
                && members
                    .iter()
                    .all(|(k, _)| matches!(k.as_str(), "data" | "errors" | "extensions")))
    {
        // a GraphQL introspection result, or a GraphQL response the builder refuses
        return Kind::Spec;
    }
    if EVIDENCE_KEYS.iter().any(|k| has(k))
        || has("schema_version") && (has("spans") || has("trace_id"))
    {
        // (a trace envelope: schema_version, trace_id, …, spans)
        return Kind::Evidence;
    }
    if has("name")
        && (has("inputSchema") || has("input_schema") || has("parameters") || has("function"))
        || has("type") && has("function")
    {
        return Kind::ToolList;
    }
    if !list && (value_of("tools") == Some(b'[') || has("result")) {
        return Kind::ToolList;
    }
    if !list && has("paths") {
        return Kind::Spec;
    }
    if SUITE_KEYS.iter().any(|k| has(k)) {
        return Kind::Suite;
    }
    if has("suggestions") || has("suggestion_id") {
        return Kind::Learning;
    }
    if !list && value_of("tools") == Some(b'{') {
        return Kind::Graph;
    }
    if has("query") && (has("id") || has("case_id")) {
        return Kind::Suite;
    }
    Kind::Unknown
}

fn sniff_yaml(t: &str) -> Kind {
    let mut mapping = false;
    for l in t.lines().take(200) {
        if l.starts_with("openapi:") || l.starts_with("swagger:") {
            return Kind::Spec;
        }
        if l.starts_with("arazzo:") {
            return Kind::Arazzo;
        }
        let l = l.trim_end();
        if l.is_empty() || l.starts_with('#') || l.starts_with("---") {
            continue;
        }
        if l.starts_with("- ") || l.starts_with(' ') {
            mapping = true;
            continue;
        }
        match l.split_once(':') {
            Some((k, _)) if !k.is_empty() && !k.contains(' ') || k.starts_with('"') => {
                mapping = true
            }
            _ => return if mapping { Kind::Yaml } else { Kind::Unknown },
        }
    }
    if mapping { Kind::Yaml } else { Kind::Unknown }
}

/// The top-level members of the first JSON object in `s` (the document, a top-level
/// list's first item, or the first line of JSON Lines) as `(key, first byte of value)`.
/// Works on a truncated prefix.
pub fn first_members(s: &str) -> Vec<(String, u8)> {
    let b = s.trim_start_matches('\u{feff}').as_bytes();
    let mut i = 0usize;
    let skip_ws = |i: &mut usize| {
        while *i < b.len() && b[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    skip_ws(&mut i);
    if i < b.len() && b[i] == b'[' {
        i += 1;
        skip_ws(&mut i);
    }
    if i >= b.len() || b[i] != b'{' {
        return Vec::new();
    }
    i += 1;
    let mut out = Vec::new();
    let mut depth = 1usize;
    let mut expect_key = true;
    let mut want_value = false;
    while i < b.len() && depth > 0 {
        let c = b[i];
        if want_value && !c.is_ascii_whitespace() && c != b':' {
            if let Some(last) = out.last_mut() {
                let (_, v): &mut (String, u8) = last;
                *v = c;
            }
            want_value = false;
        }
        match c {
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                if depth == 1 && expect_key {
                    let end = i.min(b.len());
                    out.push((String::from_utf8_lossy(&b[start..end]).into_owned(), 0));
                    expect_key = false;
                    want_value = true;
                }
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth -= 1,
            b',' if depth == 1 => expect_key = true,
            _ => {}
        }
        i += 1;
    }
    out
}

/// The keys of [`first_members`].
pub fn first_keys(s: &str) -> Vec<String> {
    first_members(s).into_iter().map(|(k, _)| k).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_undecided_side_goes_with_the_other() {
        let d = crate::testutil::scratch("sniff-pair");
        let file = |name: &str, text: &str| {
            let p = d.join(name);
            std::fs::write(&p, text).unwrap();
            p.to_string_lossy().into_owned()
        };
        let graph = file(
            "g.json",
            r#"{"format_version": "1", "graph": {}, "tools": {}}"#,
        );
        let run = file("r.json", r#"{"results": [], "stats": {}}"#);
        let torn = file("t.json", r#"{"format_v"#);
        let missing = d.join("missing.json").to_string_lossy().into_owned();
        assert_eq!(side_of(&torn), Side::Undecided);
        assert_eq!(pair(&graph, &torn), Pair::Graphs);
        assert_eq!(pair(&torn, "demo"), Pair::Graphs);
        assert_eq!(pair(&run, &missing), Pair::Runs);
        assert_eq!(pair(&torn, &missing), Pair::Graphs);
        assert_eq!(pair(&graph, &run), Pair::Mixed { graph: 0 });
        assert_eq!(pair(&run, "demo"), Pair::Mixed { graph: 1 });
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn members_of_the_first_object() {
        assert_eq!(
            first_keys(r#"{"a": {"x": 1}, "b": [1, {"y": 2}], "c": "d,\"e"}"#),
            ["a", "b", "c"]
        );
        assert_eq!(
            first_members(r#"{"a" : {"x": 1}, "b":[1], "c": "d"}"#),
            [("a".into(), b'{'), ("b".into(), b'['), ("c".into(), b'"')]
        );
        assert_eq!(
            first_keys(r#"[{"case_id": "x", "q": 1}, {"z": 1}]"#),
            ["case_id", "q"]
        );
        assert_eq!(first_keys("{\"id\": 1}\n{\"other\": 2}"), ["id"]);
        assert_eq!(first_keys(r#"{"graph": {"nodes": [{"id": "a"#), ["graph"]);
        assert!(first_keys("openapi: 3.0.0").is_empty());
    }

    #[test]
    fn kinds() {
        let k = |s: &str| sniff(s);
        assert_eq!(k(r#"{"format_version": "1", "graph": {}}"#), Kind::Graph);
        assert_eq!(k(r#"{"tools": {"a": {}}, "x": 1}"#), Kind::Graph);
        assert_eq!(k(r#"{"openapi": "3.0.0", "paths": {}}"#), Kind::Spec);
        assert_eq!(k("\u{feff}{\"swagger\": \"2.0\"}"), Kind::Spec);
        assert_eq!(k("openapi: 3.0.0\ninfo:\n"), Kind::Spec);
        assert_eq!(k("# c\nswagger: '2.0'\n"), Kind::Spec);
        assert_eq!(k("arazzo: 1.0.1\ninfo:\n  title: t\n"), Kind::Arazzo);
        assert_eq!(k(r#"{"arazzo": "1.0.0", "workflows": []}"#), Kind::Arazzo);
        assert_eq!(k(r#"[{"arazzo": "1.0.0"}]"#), Kind::Unknown);
        assert_eq!(k("- name: a\n  inputSchema: {}\n"), Kind::Yaml);
        assert_eq!(k("hello world\n"), Kind::Unknown);
        // JSON Lines evidence whose first line is garbage, or torn mid-record
        assert_eq!(
            k("garbage first line\n{\"results\": [{\"name\": \"a\"}]}\n"),
            Kind::Evidence
        );
        assert_eq!(
            k(
                "{\"schema_version\": \"1.0\", \"trace\n{\"schema_version\": \"1.0\", \"trace_id\": \"t\", \"spans\": []}\n"
            ),
            Kind::Evidence
        );
        assert_eq!(k("error: reset\n{\"a\": 1}\n"), Kind::Yaml);
        assert_eq!(k(r#"{"tools": [{"name": "a"}]}"#), Kind::ToolList);
        assert_eq!(
            k(r#"{"jsonrpc": "2.0", "result": {"tools": []}}"#),
            Kind::ToolList
        );
        assert_eq!(k(r#"[{"name": "a", "inputSchema": {}}]"#), Kind::ToolList);
        assert_eq!(
            k(r#"[{"type": "function", "function": {}}]"#),
            Kind::ToolList
        );
        assert_eq!(k(r#"{"results": [], "stats": {}}"#), Kind::Evidence);
        assert_eq!(
            k(r#"{"schema_version": "1.0", "trace_id": "t", "operation": "x", "spans": []}"#),
            Kind::Evidence
        );
        assert_eq!(
            k(r#"{"id": "1", "retrieval": {}, "selection": null}"#),
            Kind::Evidence
        );
        assert_eq!(k(r#"{"queries": [{"query": "q"}]}"#), Kind::Suite);
        assert_eq!(k(r#"[{"query": "q", "expected_tools": []}]"#), Kind::Suite);
        assert_eq!(k(r#"{"suggestions": []}"#), Kind::Learning);
        assert_eq!(
            k(r#"{"id": "g", "graph": "demo", "query": "q", "expected": {}}"#),
            Kind::Evidence
        );
        assert_eq!(k(r#"{"data": {"__schema": {"types": []}}}"#), Kind::Spec);
        assert_eq!(k(r#"{"__schema": {"queryType": null}}"#), Kind::Spec);
        assert_eq!(
            k(r#"{"errors": [{"message": "no"}], "data": null}"#),
            Kind::Spec
        );
        assert_eq!(k(r#"{"data": {}, "results": []}"#), Kind::Evidence);
        assert_eq!(k(r#"[{"data": {}}]"#), Kind::Unknown);
        assert_eq!(k(""), Kind::Unknown);
        assert_eq!(k("42"), Kind::Unknown);
    }
}
