//! Cell-width aware text helpers: truncation with an ellipsis, padding and styled word
//! wrapping. Every function is total: any width (0 included) gives a result, never a panic.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;
use unicode_width::UnicodeWidthStr;

/// Display width in terminal cells.
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

fn char_width(c: char) -> usize {
    UnicodeWidthChar::width(c).unwrap_or(0)
}

/// `s` cut to at most `max` cells; a cut string ends with `ellipsis` (when it fits).
pub fn truncate(s: &str, max: usize, ellipsis: &str) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    let ew = width(ellipsis);
    if max <= ew {
        return take_width(s, max);
    }
    let mut out = take_width(s, max - ew);
    out.push_str(ellipsis);
    out
}

/// `s` cut in the middle to at most `max` cells, keeping its start and its end (a file
/// name's extension and version stay readable): `github-2…graph.json`.
pub fn truncate_middle(s: &str, max: usize, ellipsis: &str) -> String {
    match middle_parts(s, max, ellipsis) {
        Some((head, tail)) => format!("{head}{ellipsis}{tail}"),
        None => truncate(s, max, ellipsis),
    }
}

/// The start and the end [`truncate_middle`] keeps of `s` (None: `s` fits whole, or
/// `max` is too small to keep both ends).
fn middle_parts(s: &str, max: usize, ellipsis: &str) -> Option<(String, String)> {
    let ew = width(ellipsis);
    if width(s) <= max || max <= ew + 1 {
        return None;
    }
    let keep = max - ew;
    let head = take_width(s, keep.div_ceil(2));
    let mut tail: Vec<char> = Vec::new();
    let mut used = 0usize;
    for c in s.chars().rev() {
        let w = char_width(c);
        if used + w > keep - width(&head) {
            break;
        }
        used += w;
        tail.push(c);
    }
    Some((head, tail.into_iter().rev().collect()))
}

/// Two names cut to `max.0` and `max.1` cells so that they still differ. A name that
/// fits is whole; one whose middle cut ([`truncate_middle`]) still shows part of where
/// the two differ is cut in the middle; one whose middle cut would keep only what both
/// share (two versions of a file: a long common start and end) is shown from just before
/// where they differ: `…22.0.0-coll…`.
pub fn distinct_pair(a: &str, b: &str, max: (usize, usize), ellipsis: &str) -> (String, String) {
    let (ca, cb): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let common = ca.iter().zip(&cb).take_while(|(x, y)| x == y).count();
    let shorter = ca.len().min(cb.len());
    let suffix = ca
        .iter()
        .rev()
        .zip(cb.iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
        .min(shorter - common);
    // from after the last separator of the common start when it is near, else from two
    // characters before the difference
    let start = ca[..common]
        .iter()
        .rposition(|c| matches!(c, '-' | '_' | '.' | '/' | ' '))
        .map(|i| i + 1)
        .filter(|&i| common - i <= 8)
        .unwrap_or(common.saturating_sub(2));
    let one = |s: &str, chars: &[char], max: usize| -> String {
        let Some((head, tail)) = middle_parts(s, max, ellipsis) else {
            return truncate(s, max, ellipsis);
        };
        let middle = format!("{head}{ellipsis}{tail}");
        let hides = head.chars().count() <= common && tail.chars().count() <= suffix;
        let lead = if start > 0 { ellipsis } else { "" };
        if a == b || !hides || max < width(lead) + width(ellipsis) + 1 {
            return middle;
        }
        let from = start.min(chars.len());
        let body: String = chars[from..].iter().collect();
        let room = max - width(lead);
        if width(&body) <= room {
            return format!("{lead}{body}");
        }
        // what differs, then as much of the shared end as fits up to a separator
        let end = chars.len() - suffix.min(chars.len() - from);
        let core: String = chars[from..end].iter().collect();
        let room = room - width(ellipsis);
        let mut shown = take_width(&core, room);
        if shown.chars().count() == core.chars().count() {
            let mut more = String::new();
            for &c in &chars[end..] {
                if matches!(c, '-' | '_' | '.' | '/' | ' ') && width(&more) > 0 {
                    if width(&shown) + width(&more) > room {
                        break;
                    }
                    shown.push_str(&std::mem::take(&mut more));
                }
                more.push(c);
            }
        }
        format!("{lead}{shown}{ellipsis}")
    };
    (one(a, &ca, max.0), one(b, &cb, max.1))
}

/// Two names side by side in `max.0` and `max.1` cells, cut so that a reader can tell
/// them apart (a Lab row's selected and expected tool, a Diff row's top-1 of A and B):
/// cut at the end when that keeps them apart (`cancelP…`, `cancelO…`), else by
/// [`distinct_pair`] (`findP…yTags`, `findP…tatus`, not `findPetsBy…` twice). Equal names
/// are cut alike, at the end.
pub fn apart(a: &str, b: &str, max: (usize, usize), ellipsis: &str) -> (String, String) {
    let plain = (truncate(a, max.0, ellipsis), truncate(b, max.1, ellipsis));
    if a == b || plain.0 != plain.1 {
        return plain;
    }
    distinct_pair(a, b, max, ellipsis)
}

/// A one-line input in `avail` cells with its cursor in view (`before` and `after` are
/// the sanitised text on either side of the cursor): the visible part, scrolled so the
/// cursor stays inside, and the cursor's cell offset within it.
pub fn input_view(before: &str, after: &str, avail: usize) -> (String, usize) {
    let chars: Vec<char> = before.chars().chain(after.chars()).collect();
    let cur = before.chars().count();
    let bw = width(before);
    let skip_w = bw.saturating_sub(avail.saturating_sub(1));
    let (mut skipped, mut start) = (0usize, 0usize);
    while start < chars.len() && skipped < skip_w {
        skipped += width(&chars[start].to_string());
        start += 1;
    }
    let visible: String = chars[start..].iter().collect();
    let shown = take_width(&visible, avail);
    let vis_before: String = chars[start..cur.max(start)].iter().collect();
    (shown, width(&vis_before))
}

/// The longest prefix of `s` that fits in `max` cells.
pub fn take_width(s: &str, max: usize) -> String {
    let mut used = 0usize;
    let mut out = String::new();
    for c in s.chars() {
        let w = char_width(c);
        if used + w > max {
            break;
        }
        used += w;
        out.push(c);
    }
    out
}

/// `s` truncated to `w` cells and padded with spaces to exactly `w` cells.
pub fn fit(s: &str, w: usize, ellipsis: &str) -> String {
    let mut t = truncate(s, w, ellipsis);
    let tw = width(&t);
    for _ in tw..w {
        t.push(' ');
    }
    t
}

/// `s` right-aligned in `w` cells (truncated when longer).
pub fn fit_right(s: &str, w: usize) -> String {
    let t = take_width(s, w);
    let pad = w.saturating_sub(width(&t));
    format!("{}{}", " ".repeat(pad), t)
}

/// A line's width in cells.
pub fn line_width(line: &Line<'_>) -> usize {
    line.spans.iter().map(|s| width(&s.content)).sum()
}

/// Truncates a styled line to `max` cells (the last visible cell becomes `ellipsis`).
pub fn truncate_line(line: Line<'static>, max: usize, ellipsis: &str) -> Line<'static> {
    if line_width(&line) <= max {
        return line;
    }
    let ew = width(ellipsis);
    let budget = max.saturating_sub(ew);
    let mut used = 0usize;
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut last_style = line.style;
    for span in line.spans {
        if used >= budget {
            break;
        }
        let room = budget - used;
        let w = width(&span.content);
        last_style = span.style;
        if w <= room {
            used += w;
            spans.push(span);
        } else {
            let t = take_width(&span.content, room);
            spans.push(Span::styled(t, span.style));
            break;
        }
    }
    if max > ew {
        spans.push(Span::styled(ellipsis.to_string(), last_style));
    }
    Line::from(spans).style(line.style)
}

/// Word-wraps a styled line into lines of at most `max` cells. Breaks at spaces when it
/// can, inside words when a word is longer than a line. `indent` cells of spaces start
/// every continuation line.
pub fn wrap_line(line: &Line<'_>, max: usize, indent: usize) -> Vec<Line<'static>> {
    let max = max.max(1);
    let indent = if indent >= max { 0 } else { indent };
    // flatten into (char, style)
    let mut cells: Vec<(char, Style)> = Vec::new();
    for span in &line.spans {
        let st = line.style.patch(span.style);
        for c in span.content.chars() {
            cells.push((c, st));
        }
    }
    let mut out: Vec<Line<'static>> = Vec::new();
    let mut start = 0usize;
    let mut first = true;
    while start < cells.len() {
        let avail = if first { max } else { max - indent };
        // find the furthest end that fits
        let mut used = 0usize;
        let mut end = start;
        let mut last_space: Option<usize> = None;
        while end < cells.len() {
            let w = char_width(cells[end].0);
            if used + w > avail {
                break;
            }
            if cells[end].0 == ' ' {
                last_space = Some(end);
            }
            used += w;
            end += 1;
        }
        let (cut, next) = if end >= cells.len() {
            (end, end)
        } else if let Some(sp) = last_space.filter(|&sp| sp > start) {
            (sp, sp + 1)
        } else if end == start {
            // a single character wider than the line: emit it alone
            (start + 1, start + 1)
        } else {
            (end, end)
        };
        let mut spans: Vec<Span<'static>> = Vec::new();
        if !first && indent > 0 {
            spans.push(Span::raw(" ".repeat(indent)));
        }
        let mut buf = String::new();
        let mut cur: Option<Style> = None;
        for &(c, st) in &cells[start..cut] {
            if cur != Some(st) {
                if let Some(s) = cur
                    && !buf.is_empty()
                {
                    spans.push(Span::styled(std::mem::take(&mut buf), s));
                }
                cur = Some(st);
            }
            buf.push(c);
        }
        if let Some(s) = cur
            && !buf.is_empty()
        {
            spans.push(Span::styled(buf, s));
        }
        out.push(Line::from(spans));
        start = next;
        first = false;
    }
    if out.is_empty() {
        out.push(Line::default());
    }
    out
}

/// A bar of `cells` cells for a value in [0, 1], from `partials` (the last one is full).
pub fn bar(value: f64, cells: usize, partials: &[&str], empty: &str) -> String {
    let v = if value.is_finite() {
        value.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let steps = partials.len().max(1);
    let total = (v * (cells * steps) as f64).round() as usize;
    let mut out = String::new();
    for i in 0..cells {
        let filled = total.saturating_sub(i * steps).min(steps);
        if filled == 0 {
            out.push_str(empty);
        } else {
            out.push_str(partials.get(filled - 1).copied().unwrap_or("#"));
        }
    }
    out
}

/// A value in a compact form: its shortest form when that is short (`1`, `0.6667`,
/// `-0.2`), else six decimals (or an exponent for very large or small values).
pub fn num(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    let s = format!("{v}");
    if s.len() <= 9 {
        s
    } else if v.abs() >= 1e6 || (v != 0.0 && v.abs() < 1e-4) {
        format!("{v:.3e}")
    } else {
        format!("{v:.6}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_and_padding() {
        assert_eq!(truncate("abcdef", 4, "~"), "abc~");
        assert_eq!(truncate("abc", 4, "~"), "abc");
        assert_eq!(truncate("abc", 0, "~"), "");
        assert_eq!(fit("주문조회", 5, "~"), "주문~");
        assert_eq!(fit("주문조회", 6, "~"), "주문~ ");
        assert_eq!(fit_right("1.5", 5), "  1.5");
        assert_eq!(fit_right("123456", 3), "123");
    }

    #[test]
    fn two_names_cut_so_that_they_still_differ() {
        let a = "github-rest-api-22.0.0-collection-artifact.graph.json";
        let b = "github-rest-api-23.0.2-collection-artifact-rebuilt.graph.json";
        let (x, y) = distinct_pair(a, b, (13, 13), "…");
        assert_eq!((x.as_str(), y.as_str()), ("…22.0.0-coll…", "…23.0.2-coll…"));
        // names whose middle cut shows where they differ are cut in the middle; one that
        // fits is whole
        let (x, y) = distinct_pair("old-graph.json", "new-graph.json", (9, 9), "~");
        assert_eq!((x.as_str(), y.as_str()), ("old-~json", "new-~json"));
        let (x, y) = distinct_pair(
            "github-22.0.0.graph.json",
            "github-full.graph.json",
            (15, 22),
            "…",
        );
        assert_eq!(
            (x.as_str(), y.as_str()),
            ("…22.0.0.graph…", "github-full.graph.json")
        );
        // narrower: what differs, without a stump of the shared end
        let (x, y) = distinct_pair(
            "github-22.0.0.graph.json",
            "github-full.graph.json",
            (9, 9),
            "…",
        );
        assert_eq!((x.as_str(), y.as_str()), ("…22.0.0…", "…full…"));
        // short enough: as they are
        let (x, y) = distinct_pair("old.json", "new.json", (20, 20), "~");
        assert_eq!((x.as_str(), y.as_str()), ("old.json", "new.json"));
        for m in 0..20 {
            let (x, y) = distinct_pair(a, b, (m, m + 1), "…");
            assert!(width(&x) <= m && width(&y) <= m + 1, "{m}: {x} {y}");
        }
    }

    /// Issue 17 acceptance: a Lab row's selected findPetsByTags and expected
    /// findPetsByStatus were both `findPetsBy…`, a miss that looked like a hit.
    #[test]
    fn two_tool_names_cut_apart() {
        let (x, y) = apart("findPetsByTags", "findPetsByStatus", (11, 11), "…");
        assert_ne!(x, y);
        assert_eq!((x.as_str(), y.as_str()), ("findP…yTags", "findP…tatus"));
        // an end cut that already differs is kept (the name's start reads best)
        let (x, y) = apart("cancelPayment", "cancelOrder", (8, 8), "…");
        assert_eq!((x.as_str(), y.as_str()), ("cancelP…", "cancelO…"));
        // equal names alike; short ones whole
        assert_eq!(
            apart("getInventory", "getInventory", (8, 8), "…"),
            ("getInve…".to_string(), "getInve…".to_string())
        );
        assert_eq!(
            apart("addPet", "getPetById", (11, 11), "…"),
            ("addPet".to_string(), "getPetById".to_string())
        );
        for m in 0..16 {
            let (x, y) = apart("findPetsByTags", "findPetsByStatus", (m, m), "…");
            assert!(width(&x) <= m && width(&y) <= m, "{m}: {x} {y}");
            if m >= 5 {
                assert_ne!(x, y, "{m}");
            }
        }
    }

    #[test]
    fn middle_truncation_keeps_both_ends() {
        assert_eq!(truncate_middle("abcdefghij", 7, "~"), "abc~hij");
        assert_eq!(truncate_middle("abcdefghij", 6, "~"), "abc~ij");
        assert_eq!(truncate_middle("abc", 7, "~"), "abc");
        assert_eq!(truncate_middle("abcdef", 2, "~"), "a~");
        assert_eq!(truncate_middle("abcdef", 0, "~"), "");
        // wide characters are never split and the result never overflows
        let t = truncate_middle("주문조회주문조회", 7, "~");
        assert!(width(&t) <= 7, "{t}");
        assert!(t.contains('~'));
        for max in 0..12 {
            assert!(width(&truncate_middle("github-22.0.0.graph.json", max, "…")) <= max);
        }
    }

    #[test]
    fn wrapping_breaks_at_spaces_and_inside_long_words() {
        let l = Line::from("alpha beta gamma");
        let w: Vec<String> = wrap_line(&l, 10, 0).iter().map(|l| l.to_string()).collect();
        assert_eq!(w, vec!["alpha", "beta gamma"]);
        let w: Vec<String> = wrap_line(&Line::from("abcdefghij"), 4, 0)
            .iter()
            .map(|l| l.to_string())
            .collect();
        assert_eq!(w, vec!["abcd", "efgh", "ij"]);
        assert_eq!(wrap_line(&Line::from("주"), 1, 0).len(), 1);
        assert_eq!(wrap_line(&Line::from(""), 0, 3).len(), 1);
    }

    #[test]
    fn bars() {
        let p = ["#"];
        assert_eq!(bar(1.0, 3, &p, " "), "###");
        assert_eq!(bar(0.0, 3, &p, " "), "   ");
        assert_eq!(bar(0.5, 4, &p, "."), "##..");
        assert_eq!(bar(f64::NAN, 2, &p, "."), "..");
    }
}
