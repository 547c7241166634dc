//! A structural JSON scanner: finds member boundaries without building values.
//!
//! It does not validate: callers use it only to locate slices that serde then parses (and
//! validates) in full, and fall back to a plain serde parse when the structure looks unusual.

/// Byte positions over one JSON text.
pub struct Scan<'t> {
    text: &'t str,
    b: &'t [u8],
}

/// One member of an object: its raw key (between the quotes, escapes not decoded) and the
/// value's slice (no surrounding whitespace).
pub struct Member<'t> {
    pub raw_key: &'t str,
    pub value: &'t str,
    /// byte offsets of `value` within the scanned text
    pub start: usize,
    pub end: usize,
}

impl<'t> Scan<'t> {
    pub fn new(text: &'t str) -> Self {
        Scan {
            text,
            b: text.as_bytes(),
        }
    }

    /// The scanned text.
    pub fn text(&self) -> &'t str {
        self.text
    }

    #[inline]
    pub fn skip_ws(&self, i: usize) -> usize {
        let b = self.b;
        match b.get(i) {
            Some(b' ' | b'\n' | b'\r' | b'\t') => {}
            _ => return i,
        }
        match b.get(i + 1) {
            Some(b' ' | b'\n' | b'\r' | b'\t') => skip_ws_run(b, i + 2),
            _ => i + 1,
        }
    }

    /// End of the string opening at `b[i] == '"'` (the index after its closing quote), or
    /// `None` when it is not closed.
    pub fn skip_str(&self, mut i: usize) -> Option<usize> {
        let b = self.b;
        i += 1;
        loop {
            let at = find_quote_or_backslash(b, i);
            match b.get(at)? {
                b'\\' => i = at + 2,
                _ => return Some(at + 1),
            }
        }
    }

    /// End of the value starting at `i`, or `None` when it runs past the text.
    pub fn skip_value(&self, i: usize) -> Option<usize> {
        self.skip_value_capped(i, usize::MAX)
    }

    /// [`Scan::skip_value`], `None` also when containers nest deeper than
    /// [`MAX_VALID_DEPTH`] (for slices serde then parses alone: serde's own depth limit
    /// counts from the slice, so deep nesting is left to a parse of the whole).
    pub fn skip_value_shallow(&self, i: usize) -> Option<usize> {
        self.skip_value_capped(i, MAX_VALID_DEPTH)
    }

    fn skip_value_capped(&self, i: usize, cap: usize) -> Option<usize> {
        let b = self.b;
        match b.get(i)? {
            b'"' => self.skip_str(i),
            b'{' | b'[' => {
                let mut depth = 0usize;
                let mut j = i;
                loop {
                    j = find_structural(b, j);
                    match b.get(j)? {
                        b'"' => {
                            j = self.skip_str(j)?;
                            continue;
                        }
                        b'{' | b'[' => {
                            depth += 1;
                            if depth > cap {
                                return None;
                            }
                        }
                        _ => {
                            depth -= 1;
                            if depth == 0 {
                                return Some(j + 1);
                            }
                        }
                    }
                    j += 1;
                }
            }
            _ => {
                let mut j = i;
                while j < b.len()
                    && !matches!(b[j], b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t')
                {
                    j += 1;
                }
                (j > i).then_some(j)
            }
        }
    }

    /// The members of the object starting at `i` (after leading whitespace), in order, and
    /// the index after its closing brace. `None` when it is not a well-delimited object.
    pub fn members(&self, i: usize) -> Option<(Vec<Member<'t>>, usize)> {
        let mut out = Vec::new();
        let end = self.each_member(i, |m| {
            out.push(m);
            true
        })?;
        Some((out, end))
    }

    /// Calls `f` with each member of the object starting at `i` (after leading whitespace),
    /// in order, and returns the index after its closing brace. `None` when it is not a
    /// well-delimited object or when `f` returns `false`.
    pub fn each_member(&self, i: usize, mut f: impl FnMut(Member<'t>) -> bool) -> Option<usize> {
        let b = self.b;
        let text = self.text;
        let mut i = self.skip_ws(i);
        if b.get(i) != Some(&b'{') {
            return None;
        }
        i = self.skip_ws(i + 1);
        if b.get(i) == Some(&b'}') {
            return Some(i + 1);
        }
        loop {
            if b.get(i) != Some(&b'"') {
                return None;
            }
            let k_end = self.skip_str(i)?;
            let raw_key = &text[i + 1..k_end - 1];
            i = self.skip_ws(k_end);
            if b.get(i) != Some(&b':') {
                return None;
            }
            i = self.skip_ws(i + 1);
            let v_end = self.skip_value(i)?;
            let go_on = f(Member {
                raw_key,
                value: &text[i..v_end],
                start: i,
                end: v_end,
            });
            if !go_on {
                return None;
            }
            i = self.skip_ws(v_end);
            match b.get(i) {
                Some(b',') => i = self.skip_ws(i + 1),
                Some(b'}') => return Some(i + 1),
                _ => return None,
            }
        }
    }
}

/// Nesting depth past which [`Scan::valid_value`] gives up (the caller then lets serde
/// parse, which applies its own limits).
const MAX_VALID_DEPTH: usize = 100;

impl<'t> Scan<'t> {
    /// End of the JSON value starting at `i`, checked as strictly as serde_json checks a
    /// value it skips or parses: literals, the number grammar, string escapes (`\u` with
    /// four hex digits), no control characters in strings, no trailing commas. `None` when
    /// the value is not valid JSON or nests deeper than [`MAX_VALID_DEPTH`]; so a `Some`
    /// means serde accepts the same bytes (never the other way round: callers fall back to
    /// serde on `None`).
    pub fn valid_value(&self, i: usize) -> Option<usize> {
        let b = self.b;
        // open containers, innermost last: true for an object
        let mut stack: [bool; MAX_VALID_DEPTH] = [false; MAX_VALID_DEPTH];
        let mut depth = 0usize;
        let mut i = i;
        'value: loop {
            match *b.get(i)? {
                b'"' => i = self.valid_str(i)?,
                b'{' => {
                    i = self.skip_ws(i + 1);
                    match *b.get(i)? {
                        b'}' => i += 1,
                        b'"' => {
                            if depth == MAX_VALID_DEPTH {
                                return None;
                            }
                            stack[depth] = true;
                            depth += 1;
                            i = self.valid_key_colon(i)?;
                            continue 'value;
                        }
                        _ => return None,
                    }
                }
                b'[' => {
                    i = self.skip_ws(i + 1);
                    if *b.get(i)? == b']' {
                        i += 1;
                    } else {
                        if depth == MAX_VALID_DEPTH {
                            return None;
                        }
                        stack[depth] = false;
                        depth += 1;
                        continue 'value;
                    }
                }
                b't' => i = literal(b, i, b"true")?,
                b'f' => i = literal(b, i, b"false")?,
                b'n' => i = literal(b, i, b"null")?,
                b'-' | b'0'..=b'9' => i = valid_number(b, i)?,
                _ => return None,
            }
            // after a value: a comma goes on to the next one, a bracket closes its container
            loop {
                if depth == 0 {
                    return Some(i);
                }
                let obj = stack[depth - 1];
                i = self.skip_ws(i);
                match *b.get(i)? {
                    b',' => {
                        i = self.skip_ws(i + 1);
                        if obj {
                            if b.get(i) != Some(&b'"') {
                                return None;
                            }
                            i = self.valid_key_colon(i)?;
                        }
                        continue 'value;
                    }
                    b'}' if obj => {
                        depth -= 1;
                        i += 1;
                    }
                    b']' if !obj => {
                        depth -= 1;
                        i += 1;
                    }
                    _ => return None,
                }
            }
        }
    }

    /// A checked key at `b[i] == '"'`, its colon and the whitespace after it: the index of
    /// the member's value.
    fn valid_key_colon(&self, i: usize) -> Option<usize> {
        let i = self.skip_ws(self.valid_str(i)?);
        if self.b.get(i) != Some(&b':') {
            return None;
        }
        Some(self.skip_ws(i + 1))
    }

    /// End of the string opening at `b[i] == '"'` (after its closing quote), checked: no
    /// control character, only JSON escapes. `None` otherwise or when it is not closed.
    pub fn valid_str(&self, i: usize) -> Option<usize> {
        let b = self.b;
        let mut i = i + 1;
        loop {
            let at = find_quote_backslash_or_control(b, i);
            match *b.get(at)? {
                b'"' => return Some(at + 1),
                b'\\' => match *b.get(at + 1)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i = at + 2,
                    b'u' => {
                        let hex = b.get(at + 2..at + 6)?;
                        if !hex.iter().all(u8::is_ascii_hexdigit) {
                            return None;
                        }
                        i = at + 6;
                    }
                    _ => return None,
                },
                _ => return None, // a control character
            }
        }
    }

    /// Walks a struct-like object as serde's derived visitor reads it: `field_of(key)` gives
    /// the bit of a member the caller reads (aliases share one), `f(bit, value_start)` reads
    /// it and returns the end of its value; any other member is checked and skipped. A key
    /// with an escape (it might decode to a field name) or a field seen twice (serde:
    /// duplicate field) returns `None`, so the caller falls back to serde.
    pub fn each_field_checked(
        &self,
        i: usize,
        field_of: impl Fn(&str) -> Option<u32>,
        mut f: impl FnMut(u32, usize) -> Option<usize>,
    ) -> Option<usize> {
        let mut seen = 0u32;
        self.each_member_checked(i, |key, at| {
            let Some(bit) = field_of(key) else {
                return if key.contains('\\') {
                    None
                } else {
                    self.valid_value(at)
                };
            };
            if seen & bit != 0 {
                return None;
            }
            seen |= bit;
            f(bit, at)
        })
    }

    /// Walks the members of the object at `i` (after leading whitespace) with checks:
    /// `f(raw_key, value_start)` (`value_start` is within the text) returns the end of the member's value (found however the
    /// caller likes, e.g. [`Scan::valid_value`]) or `None` to stop. Returns the index after
    /// the closing brace; `None` when the object is malformed or `f` stopped.
    pub fn each_member_checked(
        &self,
        i: usize,
        mut f: impl FnMut(&'t str, usize) -> Option<usize>,
    ) -> Option<usize> {
        let b = self.b;
        let mut i = self.skip_ws(i);
        if b.get(i) != Some(&b'{') {
            return None;
        }
        i = self.skip_ws(i + 1);
        if b.get(i) == Some(&b'}') {
            return Some(i + 1);
        }
        loop {
            if b.get(i) != Some(&b'"') {
                return None;
            }
            let k_end = self.valid_str(i)?;
            let raw_key = &self.text[i + 1..k_end - 1];
            i = self.skip_ws(k_end);
            if b.get(i) != Some(&b':') {
                return None;
            }
            i = self.skip_ws(i + 1);
            if i >= b.len() {
                return None;
            }
            i = self.skip_ws(f(raw_key, i)?);
            match b.get(i) {
                Some(b',') => i = self.skip_ws(i + 1),
                Some(b'}') => return Some(i + 1),
                _ => return None,
            }
        }
    }
}

/// The first index at or after `i` that is not JSON whitespace (`b.len()` when none): the
/// indentation runs of pretty-printed JSON, 16 bytes at a time.
fn skip_ws_run(b: &[u8], i: usize) -> usize {
    let ws = |c: u8| matches!(c, b' ' | b'\n' | b'\r' | b'\t');
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        let mut j = i;
        // SAFETY: SSE2 is part of the x86_64 baseline; loads stay within `b`.
        unsafe {
            let sp = _mm_set1_epi8(b' ' as i8);
            let nl = _mm_set1_epi8(b'\n' as i8);
            let cr = _mm_set1_epi8(b'\r' as i8);
            let tab = _mm_set1_epi8(b'\t' as i8);
            while j + 16 <= b.len() {
                let v = _mm_loadu_si128(b.as_ptr().add(j) as *const __m128i);
                let hit = _mm_or_si128(
                    _mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, nl)),
                    _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, tab)),
                );
                let m = !_mm_movemask_epi8(hit) & 0xffff;
                if m != 0 {
                    return j + m.trailing_zeros() as usize;
                }
                j += 16;
            }
        }
        let j = j.min(b.len());
        j + b[j..].iter().position(|&c| !ws(c)).unwrap_or(b.len() - j)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let j = i.min(b.len());
        j + b[j..].iter().position(|&c| !ws(c)).unwrap_or(b.len() - j)
    }
}

impl<'t> Scan<'t> {
    /// Walks the elements of the array at `i` (after leading whitespace) with checks:
    /// `f(element_start)` returns the end of the element or `None` to stop. Returns the
    /// index after the closing bracket; `None` when the array is malformed or `f` stopped.
    pub fn each_element_checked(
        &self,
        i: usize,
        mut f: impl FnMut(usize) -> Option<usize>,
    ) -> Option<usize> {
        let b = self.b;
        let mut i = self.skip_ws(i);
        if b.get(i) != Some(&b'[') {
            return None;
        }
        i = self.skip_ws(i + 1);
        if b.get(i) == Some(&b']') {
            return Some(i + 1);
        }
        loop {
            if matches!(b.get(i), None | Some(b']')) {
                return None;
            }
            i = self.skip_ws(f(i)?);
            match b.get(i) {
                Some(b',') => i = self.skip_ws(i + 1),
                Some(b']') => return Some(i + 1),
                _ => return None,
            }
        }
    }
}

/// End of the literal `word` at `i`.
fn literal(b: &[u8], i: usize, word: &[u8]) -> Option<usize> {
    (b.get(i..i + word.len())? == word).then_some(i + word.len())
}

/// End of the number at `i` in JSON's grammar (`-`, then `0` or a digit run without a
/// leading zero, an optional fraction, an optional exponent).
fn valid_number(b: &[u8], mut i: usize) -> Option<usize> {
    let digits = |mut j: usize| {
        let s = j;
        while b.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        (j > s).then_some(j)
    };
    if b[i] == b'-' {
        i += 1;
    }
    match *b.get(i)? {
        b'0' => {
            i += 1;
            if b.get(i).is_some_and(u8::is_ascii_digit) {
                return None;
            }
        }
        b'1'..=b'9' => i = digits(i)?,
        _ => return None,
    }
    if b.get(i) == Some(&b'.') {
        i = digits(i + 1)?;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        i = digits(i)?;
    }
    Some(i)
}

/// The first index at or after `i` holding `"`, `\\` or a byte below 0x20 (`b.len()`
/// when none).
#[inline]
fn find_quote_backslash_or_control(b: &[u8], i: usize) -> usize {
    let is = |c: u8| c == b'"' || c == b'\\' || c < 0x20;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        let mut j = i;
        // SAFETY: SSE2 is part of the x86_64 baseline; loads stay within `b`.
        unsafe {
            let q = _mm_set1_epi8(b'"' as i8);
            let bs = _mm_set1_epi8(b'\\' as i8);
            let c1f = _mm_set1_epi8(0x1f);
            while j + 16 <= b.len() {
                let v = _mm_loadu_si128(b.as_ptr().add(j) as *const __m128i);
                // v <= 0x1f (unsigned) exactly when max(v, 0x1f) == 0x1f
                let ctrl = _mm_cmpeq_epi8(_mm_max_epu8(v, c1f), c1f);
                let hit = _mm_or_si128(
                    _mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)),
                    ctrl,
                );
                let m = _mm_movemask_epi8(hit);
                if m != 0 {
                    return j + m.trailing_zeros() as usize;
                }
                j += 16;
            }
        }
        let j = j.min(b.len());
        j + b[j..].iter().position(|&c| is(c)).unwrap_or(b.len() - j)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let j = i.min(b.len());
        j + b[j..].iter().position(|&c| is(c)).unwrap_or(b.len() - j)
    }
}

/// The first index at or after `i` holding `"` or `\\` (`b.len()` when none).
#[inline]
fn find_quote_or_backslash(b: &[u8], i: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        let mut j = i;
        // SAFETY: SSE2 is part of the x86_64 baseline; loads stay within `b`.
        unsafe {
            let q = _mm_set1_epi8(b'"' as i8);
            let bs = _mm_set1_epi8(b'\\' as i8);
            while j + 16 <= b.len() {
                let v = _mm_loadu_si128(b.as_ptr().add(j) as *const __m128i);
                let m =
                    _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)));
                if m != 0 {
                    return j + m.trailing_zeros() as usize;
                }
                j += 16;
            }
        }
        j + b[j.min(b.len())..]
            .iter()
            .position(|&c| c == b'"' || c == b'\\')
            .unwrap_or(b.len() - j.min(b.len()))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        memchr::memchr2(b'"', b'\\', &b[i.min(b.len())..]).map_or(b.len(), |o| i + o)
    }
}

/// The first index at or after `i` holding one of `"{}[]` (`b.len()` when none).
#[inline]
fn find_structural(b: &[u8], i: usize) -> usize {
    let is = |c: u8| matches!(c, b'"' | b'{' | b'}' | b'[' | b']');
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        let mut j = i;
        // SAFETY: SSE2 is part of the x86_64 baseline; loads stay within `b`.
        unsafe {
            let q = _mm_set1_epi8(b'"' as i8);
            let lower = _mm_set1_epi8(0x20);
            let open = _mm_set1_epi8(b'{' as i8);
            let close = _mm_set1_epi8(b'}' as i8);
            while j + 16 <= b.len() {
                let v = _mm_loadu_si128(b.as_ptr().add(j) as *const __m128i);
                // '[' | 0x20 == '{' and ']' | 0x20 == '}'
                let f = _mm_or_si128(v, lower);
                let hit = _mm_or_si128(
                    _mm_cmpeq_epi8(v, q),
                    _mm_or_si128(_mm_cmpeq_epi8(f, open), _mm_cmpeq_epi8(f, close)),
                );
                let m = _mm_movemask_epi8(hit);
                if m != 0 {
                    return j + m.trailing_zeros() as usize;
                }
                j += 16;
            }
        }
        let j = j.min(b.len());
        j + b[j..].iter().position(|&c| is(c)).unwrap_or(b.len() - j)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let j = i.min(b.len());
        j + b[j..].iter().position(|&c| is(c)).unwrap_or(b.len() - j)
    }
}

/// The value of member `key` of the JSON object `obj` (a slice of already-validated JSON),
/// found by a structural scan; `None` when absent or when the key is written with escapes.
pub fn object_member<'t>(obj: &'t str, key: &str) -> Option<&'t str> {
    let mut found = None;
    Scan::new(obj).each_member(0, |m| {
        if m.raw_key == key {
            found = Some(m.value);
            false // stop here
        } else {
            true
        }
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_members_structurally() {
        let o = r#" { "a" : "x\"}{", "metadata" : {"k": [1, {"m": "}"}], "s": "\\"} , "b": null, "n": -1.5e3 }"#;
        assert_eq!(object_member(o, "a"), Some(r#""x\"}{""#));
        assert_eq!(
            object_member(o, "metadata"),
            Some(r#"{"k": [1, {"m": "}"}], "s": "\\"}"#)
        );
        assert_eq!(object_member(o, "b"), Some("null"));
        assert_eq!(object_member(o, "n"), Some("-1.5e3"));
        assert_eq!(object_member(o, "zz"), None);
        assert_eq!(object_member("[1]", "a"), None);
    }

    #[test]
    fn lists_members_with_offsets() {
        let o = r#"{"x": {"y": "}"}, "t\"k": [1,2] ,"z":3}  "#;
        let (m, end) = Scan::new(o).members(0).expect("object");
        let keys: Vec<_> = m.iter().map(|m| m.raw_key).collect();
        assert_eq!(keys, ["x", r#"t\"k"#, "z"]);
        assert_eq!(m[0].value, r#"{"y": "}"}"#);
        assert_eq!(&o[m[1].start..m[1].end], "[1,2]");
        assert_eq!(m[2].value, "3");
        assert_eq!(&o[end..], "  ");
        assert!(Scan::new("{}").members(0).unwrap().0.is_empty());
    }

    /// `valid_value` accepts a text only when serde_json does.
    fn agrees_with_serde(t: &str) {
        let sc = Scan::new(t);
        let ours = sc.valid_value(0).map(|e| sc.skip_ws(e) == t.len());
        let ws_end = t.len() - t.trim_start_matches([' ', '\n', '\r', '\t']).len();
        assert_eq!(sc.skip_ws(0), ws_end, "{t:?}");
        let serde = serde_json::from_str::<serde::de::IgnoredAny>(t).is_ok();
        if ours == Some(true) {
            assert!(serde, "accepted what serde rejects: {t:?}");
        }
        if serde && !t.starts_with(char::is_whitespace) {
            assert_eq!(ours, Some(true), "rejected what serde accepts: {t:?}");
        }
    }

    #[test]
    fn checks_values_as_serde_does() {
        for t in [
            "0",
            "-0",
            "1",
            "-12.5e+3",
            "1E9",
            "0.0",
            "01",
            "-",
            "1.",
            "1e",
            "1.e3",
            ".5",
            "+1",
            "--1",
            "0x1",
            "true",
            "tru",
            "truex",
            "null",
            "nul",
            "false",
            "\"\"",
            "\"a\\\"b\"",
            "\"\\u00e9\"",
            "\"\\u00g9\"",
            "\"\\x\"",
            "\"a\nb\"",
            "\"a\tb\"",
            "\"\\/\"",
            "\"abc",
            "[]",
            "[ ]",
            "[1,]",
            "[,1]",
            "[1 2]",
            "[1,[2,[3]]]",
            "{}",
            "{ }",
            "{\"a\":1}",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "{a:1}",
            "{\"a\":}",
            "{\"a\":1 \"b\":2}",
            "{\"a\":[}]}",
            "[{\"a\":{\"b\":[null,true,false,\"x\\\\\"]}}]",
            "[1]]",
            "{\"a\":1}}",
            "[\"\u{1}\"]",
            "{\"k\u{1f}\":1}",
            "[1e-7, -0.5E+10, 123456789012345678901234567890]",
        ] {
            agrees_with_serde(t);
        }
    }

    #[test]
    fn never_accepts_what_serde_rejects() {
        let base = r#"{"a": [1, -2.5e3, {"b": "x\"y\\z\u00e9", "c": null}], "d": true, "e": false, "f": {}, "g": [], "h": "\t"}"#;
        let alphabet = b"{}[]\",:\\ 0123456789-+.eEtrufalsn\x01\nab";
        let mut seed = 0x2545f4914f6cdd1du64;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let v: serde_json::Value = serde_json::from_str(base).unwrap();
        let pretty =
            serde_json::to_string_pretty(&serde_json::json!([v, [v, {"x": [v]}]])).unwrap();
        for n in 0..40000 {
            let mut t = if n % 2 == 0 { base } else { &pretty }.as_bytes().to_vec();
            for _ in 0..1 + rnd() % 3 {
                let at = (rnd() as usize) % t.len();
                let c = alphabet[(rnd() as usize) % alphabet.len()];
                match rnd() % 3 {
                    0 => t[at] = c,
                    1 => t.insert(at, c),
                    _ => {
                        t.remove(at);
                    }
                }
            }
            if let Ok(t) = String::from_utf8(t) {
                agrees_with_serde(&t);
            }
        }
    }

    #[test]
    fn skips_whitespace_runs() {
        for n in 0..40 {
            let t: String = (0..n)
                .map(|k| [' ', '\n', '\t', '\r'][k % 4])
                .collect::<String>()
                + "x";
            for from in 0..=n {
                assert_eq!(Scan::new(&t).skip_ws(from), n, "{t:?} from {from}");
            }
            assert_eq!(Scan::new(&t[..n]).skip_ws(0), n);
        }
    }

    #[test]
    fn gives_up_on_deep_nesting() {
        let deep = format!("{}{}", "[".repeat(150), "]".repeat(150));
        assert_eq!(Scan::new(&deep).valid_value(0), None);
        let ok = format!("{}{}", "[".repeat(50), "]".repeat(50));
        assert_eq!(Scan::new(&ok).valid_value(0), Some(100));
    }

    #[test]
    fn refuses_what_is_not_a_delimited_object() {
        for bad in [
            r#"{"a": 1"#,
            r#"{"a" 1}"#,
            r#"{"a": "x}"#,
            r#"{"a": {"b": 1}"#,
            r#"{"a": 1,}"#,
            r#"{a: 1}"#,
            r#"{"a": }"#,
            "[]",
            "",
        ] {
            assert!(Scan::new(bad).members(0).is_none(), "{bad}");
        }
    }
}
