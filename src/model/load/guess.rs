//! Guessed places in a pretty-printed artifact, for the chunked parallel load. An artifact
//! written pretty-printed (as graph-tool-call and `toolscope build` write it) closes every
//! container that opens on a member's line with a bracket on a line of its own, indented as
//! that member's key. A substring search for that line finds where a top-level member ends
//! ([`tools_start`] skips the members before `tools` so) and where a tool row ends and the
//! next begins ([`row_chunks`]), at a fraction of the cost of a structural scan
//! ([`crate::model::scan::Scan::skip_value`]), which would read every byte of the file once
//! more before the rows are parsed.
//!
//! A guess is only a guess, and the load checks each one: the checked walk of the top level
//! must reach the `tools` object exactly where [`tools_start`] put it, and the rows of each
//! chunk, read one after the other by the checked walk, must end exactly where the next
//! chunk was guessed to begin. Any other outcome makes the caller drop the chunked load and
//! split the rows structurally.

use crate::model::scan::Scan;

/// The index of the `{` that opens the top-level `"tools"` object of `text`, the members
/// before it skipped by their guessed ends; `None` when the text is not shaped as expected.
pub(super) fn tools_start(text: &str) -> Option<usize> {
    let sc = Scan::new(text);
    let b = text.as_bytes();
    let mut i = sc.skip_ws(0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = sc.skip_ws(i + 1);
    while b.get(i) == Some(&b'"') {
        let k_start = i;
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
        if key == "tools" {
            return (b.get(i) == Some(&b'{')).then_some(i);
        }
        i = sc.skip_ws(guess_end(&sc, k_start, i)?);
        match b.get(i) {
            Some(b',') => i = sc.skip_ws(i + 1),
            _ => return None,
        }
    }
    None
}

/// The tools object of `text` cut into about `n` chunks of rows: the index of its `{` and
/// the index of the key that starts each chunk's first row, in order (the first is the
/// object's first key). A chunk after the first starts at the first row that follows a
/// line `},` indented as the first row's key, at or after an equal share of the rest of the
/// text. `None` when there is no such place (a compact or unusual text): the caller then
/// splits the rows structurally.
pub(super) fn row_chunks(text: &str, n: usize) -> Option<(usize, Vec<usize>)> {
    let open = tools_start(text)?;
    let sc = Scan::new(text);
    let b = text.as_bytes();
    let first = sc.skip_ws(open + 1);
    if b.get(first) != Some(&b'"') {
        return None;
    }
    let width = indentation(b, first)?;
    let mut needle = vec![b'\n'];
    needle.resize(width + 1, b' ');
    needle.extend_from_slice(b"},");
    let finder = memchr::memmem::Finder::new(&needle);
    let rest = text.len() - first;
    let mut starts = vec![first];
    for k in 1..n {
        let mut from = (first + rest / n * k).max(starts[starts.len() - 1] + 1);
        // the next row's key after a row that closes on a line of its own
        let next = loop {
            let Some(p) = finder.find(&b[from.min(b.len())..]) else {
                break None;
            };
            let after = sc.skip_ws(from + p + needle.len());
            if b.get(after) == Some(&b'"') {
                break Some(after);
            }
            from += p + 1;
        };
        match next {
            Some(at) => starts.push(at),
            None => break,
        }
    }
    (starts.len() >= 2).then_some((open, starts))
}

/// The indentation (spaces back to a line break) of the token at `at`, or `None` when
/// something else precedes it on its line (an O(indentation) look back).
fn indentation(b: &[u8], at: usize) -> Option<usize> {
    let mut line_start = at;
    while line_start > 0 && b[line_start - 1] == b' ' {
        line_start -= 1;
    }
    (line_start > 0 && b[line_start - 1] == b'\n').then_some(at - line_start)
}

/// The guessed end of the value at `v` of the member whose key starts at `k_start`: for an
/// object or array opening on the key's line, just after the first closing bracket at the
/// start of a line indented as the key; for anything else (or a key that does not start its
/// line), the structural end.
fn guess_end(sc: &Scan<'_>, k_start: usize, v: usize) -> Option<usize> {
    let b = sc.text().as_bytes();
    let close = match b.get(v)? {
        b'{' => b'}',
        b'[' => b']',
        _ => return sc.skip_value(v),
    };
    let Some(width) = indentation(b, k_start) else {
        return sc.skip_value(v);
    };
    let first = sc.skip_ws(v + 1);
    if b.get(first) == Some(&close) {
        return Some(first + 1); // empty
    }
    // the first closing bracket at the start of a line indented as the key: a line break,
    // the indentation and the bracket, found together (a bracket alone is far more common)
    let mut needle = Vec::with_capacity(width + 2);
    needle.push(b'\n');
    needle.resize(width + 1, b' ');
    needle.push(close);
    memchr::memmem::find(&b[v + 1..], &needle).map(|p| v + 1 + p + width + 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keys of the rows of the tools object, by the structural scan.
    fn row_keys(text: &str) -> Vec<usize> {
        let sc = Scan::new(text);
        let mut tools = None;
        sc.each_member(0, |m| {
            if m.raw_key == "tools" {
                tools = Some(m.start);
            }
            true
        });
        let mut keys = Vec::new();
        sc.each_member(tools.expect("tools"), |m| {
            // the key's opening quote: back from the value over `": `
            let colon = text[..m.start].rfind(':').expect("colon");
            keys.push(
                text[..colon]
                    .rfind(&format!("\"{}\"", m.raw_key))
                    .expect("key"),
            );
            true
        });
        keys
    }

    #[test]
    fn pretty_artifacts_are_cut_at_row_starts() {
        let row = |n: &str| serde_json::json!({"name": n, "metadata": {"x": {"y": [1, {"z": "},\n    \"q\""}]}, "e": {}, "l": []}, "tags": ["t"]});
        let mut tools = serde_json::Map::new();
        for i in 0..40 {
            tools.insert(format!("t{i}"), row(&format!("t{i}")));
        }
        tools.insert("empty".into(), serde_json::json!({}));
        let v = serde_json::json!({
            "format_version": "1",
            "graph": {"nodes": [{"id": "a"}], "edges": []},
            "tools": tools,
            "after": {"k": [1]},
        });
        // (Python's `json.dumps(indent=2)` lays containers out as serde_json's pretty printer)
        let text = serde_json::to_string_pretty(&v).unwrap();
        let (open, starts) = row_chunks(&text, 8).expect("chunks");
        assert_eq!(
            open,
            text.find("\"tools\": {").unwrap() + "\"tools\": ".len()
        );
        let keys = row_keys(&text);
        assert_eq!(starts[0], keys[0]);
        assert!(starts.len() >= 4, "{starts:?}");
        assert!(starts.windows(2).all(|w| w[0] < w[1]));
        assert!(
            starts.iter().all(|s| keys.contains(s)),
            "{starts:?} {keys:?}"
        );
        // compact text: nothing to go by
        assert_eq!(row_chunks(&serde_json::to_string(&v).unwrap(), 8), None);
    }

    #[test]
    fn a_close_at_row_indentation_inside_a_row_is_only_a_guess() {
        // the nested object closes at its row's indentation: the guessed start is inside
        // row "a" (the load's checked walk of the chunk before it then steps over it)
        let text = "{\n  \"tools\": {\n    \"a\": {\n      \"x\": {\n    },\n      \"y\": 1\n    },\n    \"b\": {\n      \"n\": 1\n    }\n  }\n}";
        let (_, starts) = row_chunks(text, 8).expect("a guess");
        let keys: Vec<&str> = starts.iter().map(|&s| &text[s..s + 3]).collect();
        assert_eq!(keys, ["\"a\"", "\"y\"", "\"b\""]);
        assert!(!row_keys(text).contains(&starts[1]));
    }

    #[test]
    fn top_level_members_are_skipped_by_their_guessed_ends() {
        let text = "{\n  \"graph\": {\n    \"nodes\": []\n  },\n  \"tools\": {}\n}";
        assert_eq!(tools_start(text), text.find("{}"));
        // a member closing on its key's line: the guess runs past it (to the end of tools)
        let text = "{\n  \"graph\": {\"nodes\": []},\n  \"tools\": {\n    \"a\": {}\n  }\n}";
        assert_eq!(tools_start(text), None);
        assert_eq!(tools_start("{\"tools\": {}}"), Some(10));
    }
}
