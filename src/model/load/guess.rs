//! Guessed row boundaries for the parallel load. An artifact written pretty-printed (as
//! graph-tool-call and `toolscope build` write it) closes every container that opens on a
//! member's line with a bracket on a line of its own, indented as that member's key. Finding
//! that line with a substring search costs a fraction of the structural scan of the row
//! ([`crate::model::scan::Scan::skip_value`]), which otherwise reads every byte of the file
//! once more before the rows are parsed.
//!
//! A guess is only a guess: every row it gives is accepted only when the checked walk that
//! parses it ends exactly at the guessed end, or when the structural scan of the row does
//! ([`row_is_exact`]) — that is, only when it is the row the structural split gives. Any
//! other outcome makes the caller drop the guessed load and split structurally. The top-level
//! members before `tools` are guessed the same way and checked the same way: the checked walk
//! of the top level must reach the `tools` object exactly where the guess put it.

use super::serde_rows::ToolRowTexts;
use crate::model::scan::Scan;

/// Splits the top-level `"tools"` object of `text` into `(name, row text)` pairs as
/// `split_tool_rows` does, guessing where each row (and each top-level member before it)
/// ends; hands them to `emit` in batches and returns the byte range of the object, or
/// `None` when the text is not shaped as expected. `stop()` is polled between rows: a
/// parser found a wrong guess, so the rest need not be split.
pub(super) fn split_tool_rows_guessed<'t>(
    text: &'t str,
    batch: (usize, usize),
    stop: impl Fn() -> bool,
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
        let v_end = if key == "tools" {
            if found.is_some() || b.get(i) != Some(&b'{') {
                return None;
            }
            let end = split_rows(&sc, i, batch, &stop, &mut emit)?;
            found = Some((i, end));
            end
        } else {
            guess_end(&sc, k_start, i)?
        };
        i = sc.skip_ws(v_end);
        match b.get(i) {
            Some(b',') => i = sc.skip_ws(i + 1),
            _ => break,
        }
    }
    found
}

/// The rows of the tools object at `at` (`b[at] == '{'`), in batches of `batch` (bytes,
/// rows); the index after the object.
fn split_rows<'t>(
    sc: &Scan<'t>,
    at: usize,
    (batch_bytes_max, batch_rows_max): (usize, usize),
    stop: &impl Fn() -> bool,
    emit: &mut impl FnMut(ToolRowTexts<'t>),
) -> Option<usize> {
    let text = sc.text();
    let b = text.as_bytes();
    let mut seen = rustc_hash::FxHashSet::default();
    let mut batch: ToolRowTexts<'t> = Vec::new();
    let mut batch_bytes = 0;
    let mut i = sc.skip_ws(at + 1);
    if b.get(i) == Some(&b'}') {
        return Some(i + 1);
    }
    loop {
        if b.get(i) != Some(&b'"') || stop() {
            return None;
        }
        let k_start = i;
        let k_end = sc.skip_str(i)?;
        let raw_key = &text[i + 1..k_end - 1];
        let name = if raw_key.bytes().any(|c| c == b'\\' || c < 0x20) {
            serde_json::from_str::<String>(&text[i..k_end]).ok()?
        } else {
            raw_key.to_string()
        };
        i = sc.skip_ws(k_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = sc.skip_ws(i + 1);
        let v_end = guess_end(sc, k_start, i)?;
        if !seen.insert(name.clone()) {
            return None;
        }
        batch_bytes += v_end - i;
        batch.push((name, &text[i..v_end]));
        if batch_bytes >= batch_bytes_max || batch.len() >= batch_rows_max {
            emit(std::mem::take(&mut batch));
            batch_bytes = 0;
        }
        i = sc.skip_ws(v_end);
        match b.get(i) {
            Some(b',') => i = sc.skip_ws(i + 1),
            Some(b'}') => {
                if !batch.is_empty() {
                    emit(batch);
                }
                return Some(i + 1);
            }
            _ => return None,
        }
    }
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
    let line_start = b[..k_start]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |p| p + 1);
    let indent = &b[line_start..k_start];
    if line_start == 0 || indent.iter().any(|&c| c != b' ') {
        return sc.skip_value(v);
    }
    let first = sc.skip_ws(v + 1);
    if b.get(first) == Some(&close) {
        return Some(first + 1); // empty
    }
    // the closing bracket is the rarer byte: each one found is checked for the line and
    // indentation before it
    let width = indent.len();
    let mut from = v + 1;
    while let Some(p) = memchr::memchr(close, &b[from..]) {
        let at = from + p;
        if at > width && b[at - width - 1] == b'\n' && b[at - width..at].iter().all(|&c| c == b' ')
        {
            return Some(at + 1);
        }
        from = at + 1;
    }
    None
}

/// Whether the guessed row `row` is the row the structural split gives: its structural end
/// is its end. (A row the checked walk parsed to its very end needs no such check.)
pub(super) fn row_is_exact(row: &str) -> bool {
    Scan::new(row).skip_value(0) == Some(row.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact_rows(text: &str) -> Option<Vec<(String, String)>> {
        let sc = Scan::new(text);
        let mut out = None;
        sc.each_member(0, |m| {
            if m.raw_key == "tools" {
                let (rows, _) = Scan::new(text).members(m.start).expect("tools");
                out = Some(
                    rows.iter()
                        .map(|r| (r.raw_key.to_string(), r.value.to_string()))
                        .collect(),
                );
            }
            true
        });
        out
    }

    fn guessed_rows(text: &str) -> Option<Vec<(String, String)>> {
        let mut rows = Vec::new();
        split_tool_rows_guessed(
            text,
            (64, 2),
            || false,
            |batch| rows.extend(batch.into_iter().map(|(k, v)| (k, v.to_string()))),
        )?;
        Some(rows)
    }

    #[test]
    fn pretty_artifacts_split_as_the_structural_scan_splits_them() {
        let v = serde_json::json!({
            "format_version": "1",
            "graph": {"nodes": [{"id": "a"}], "edges": []},
            "tools": {
                "a": {"name": "a", "metadata": {"x": {"y": [1, {"z": "}\n  ]"}]}, "e": {}, "l": []}},
                "b": {},
                "c": {"name": "c", "tags": ["t"]},
            },
            "after": {"k": [1]},
        });
        // (Python's `json.dumps(indent=2)` lays containers out as serde_json's pretty printer)
        for text in [serde_json::to_string_pretty(&v).unwrap()] {
            let guessed = guessed_rows(&text).expect("guessed");
            assert_eq!(Some(guessed.clone()), exact_rows(&text), "{text}");
            assert!(guessed.iter().all(|(_, r)| row_is_exact(r)));
        }
        // compact text: every value's structural end (no line to go by)
        let compact = serde_json::to_string(&v).unwrap();
        assert_eq!(guessed_rows(&compact), exact_rows(&compact));
    }

    #[test]
    fn a_wrong_guess_is_caught_by_the_row_check() {
        // the row's own close is not on a line of its own: the guess runs to the next
        // row's close, which the structural check refuses
        let text = "{\n  \"tools\": {\n    \"a\": {\"x\": 1},\n    \"b\": {\n      \"y\": 2\n    }\n  }\n}";
        let rows = guessed_rows(text).unwrap_or_default();
        assert!(
            rows.is_empty() || rows.iter().any(|(_, r)| !row_is_exact(r)),
            "{rows:?}"
        );
        // a close at the row's indentation inside a nested value (a bracket of the other
        // kind there is no close of the row: that guess is right)
        let text = "{\n  \"tools\": {\n    \"a\": {\n      \"x\": {\n    },\n      \"y\": 1\n    }\n  }\n}";
        let rows = guessed_rows(text).unwrap_or_default();
        assert!(
            rows.is_empty() || rows.iter().any(|(_, r)| !row_is_exact(r)),
            "{rows:?}"
        );
    }
}
