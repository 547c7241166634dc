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

    pub fn skip_ws(&self, mut i: usize) -> usize {
        while i < self.b.len() && matches!(self.b[i], b' ' | b'\n' | b'\r' | b'\t') {
            i += 1;
        }
        i
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
                        b'{' | b'[' => depth += 1,
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
