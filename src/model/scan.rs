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
        self.valid::<false>(i, MAX_VALID_DEPTH)
    }

    /// [`Scan::valid_value`] as strictly as serde_json checks a value it parses into a
    /// `serde_json::Value` (which refuses more than it refuses to skip), with at most
    /// `max_depth` (capped at [`MAX_VALID_DEPTH`]; an empty innermost one aside) containers
    /// open: also `None` for an
    /// unpaired surrogate escape (`"\ud800"`), a number that might be out of `f64`'s
    /// range (`1e400`; any with more than 308 digits before its exponent added to it),
    /// and an object whose first key is serde_json's raw-value marker or has an escape (a
    /// `Value` reads the marker's string as JSON). A `Some` means a `Value` parse accepts
    /// the same bytes; a `None` leaves the text to it.
    pub fn valid_value_parsed(&self, i: usize, max_depth: usize) -> Option<usize> {
        self.valid::<true>(i, max_depth.min(MAX_VALID_DEPTH))
    }

    fn valid<const PARSED: bool>(&self, i: usize, max_depth: usize) -> Option<usize> {
        let b = self.b;
        // a scalar needs no stack
        match *b.get(i)? {
            b'"' => return self.valid_string::<PARSED>(i),
            b'-' | b'0'..=b'9' if PARSED => return number_in_range(b, i),
            b'-' | b'0'..=b'9' => return valid_number(b, i),
            b't' => return literal(b, i, b"true"),
            b'f' => return literal(b, i, b"false"),
            b'n' => return literal(b, i, b"null"),
            b'{' | b'[' => {}
            _ => return None,
        }
        // open containers, innermost last: true for an object
        let mut stack: [bool; MAX_VALID_DEPTH] = [false; MAX_VALID_DEPTH];
        let mut depth = 0usize;
        let mut i = i;
        'value: loop {
            match *b.get(i)? {
                b'"' => i = self.valid_string::<PARSED>(i)?,
                b'{' => {
                    i = self.skip_ws(i + 1);
                    match *b.get(i)? {
                        b'}' => i += 1,
                        b'"' => {
                            if depth == max_depth {
                                return None;
                            }
                            stack[depth] = true;
                            depth += 1;
                            if PARSED && !plain_first_key(b, i) {
                                return None;
                            }
                            i = self.valid_key_colon::<PARSED>(i)?;
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
                        if depth == max_depth {
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
                b'-' | b'0'..=b'9' => {
                    i = if PARSED {
                        number_in_range(b, i)?
                    } else {
                        valid_number(b, i)?
                    }
                }
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
                            i = self.valid_key_colon::<PARSED>(i)?;
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
    #[inline(always)]
    fn valid_key_colon<const PARSED: bool>(&self, i: usize) -> Option<usize> {
        let i = self.skip_ws(self.valid_string::<PARSED>(i)?);
        if self.b.get(i) != Some(&b':') {
            return None;
        }
        Some(self.skip_ws(i + 1))
    }

    /// End of the string opening at `b[i] == '"'` (after its closing quote), checked: no
    /// control character, only JSON escapes. `None` otherwise or when it is not closed.
    pub fn valid_str(&self, i: usize) -> Option<usize> {
        self.valid_string::<false>(i)
    }

    /// [`Scan::valid_str`]; with `PARSED`, also `None` for an unpaired surrogate escape
    /// (serde_json refuses one in a string it parses, not in one it skips).
    #[inline(always)]
    fn valid_string<const PARSED: bool>(&self, i: usize) -> Option<usize> {
        let b = self.b;
        let mut i = i + 1;
        loop {
            let at = find_quote_backslash_or_control(b, i);
            match *b.get(at)? {
                b'"' => return Some(at + 1),
                b'\\' => match *b.get(at + 1)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i = at + 2,
                    b'u' => {
                        let n = hex4(b.get(at + 2..at + 6)?)?;
                        i = at + 6;
                        if PARSED && (0xD800..0xE000).contains(&n) {
                            // a high surrogate, then its low one
                            let low = match b.get(at + 6..at + 8) {
                                Some(b"\\u") => hex4(b.get(at + 8..at + 12)?)?,
                                _ => return None,
                            };
                            if n >= 0xDC00 || !(0xDC00..0xE000).contains(&low) {
                                return None;
                            }
                            i = at + 12;
                        }
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

/// The value of four hex digits.
fn hex4(h: &[u8]) -> Option<u32> {
    h.iter().try_fold(0u32, |n, &c| {
        let d = (c as char).to_digit(16)?;
        Some(n << 4 | d)
    })
}

/// serde_json's raw-value marker: a `Value` whose first key is this reads the string
/// under it as JSON.
pub const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// Whether the key opening at `b[i] == '"'` (an object's first) is neither the raw-value
/// marker nor written with an escape (which might spell the marker).
fn plain_first_key(b: &[u8], i: usize) -> bool {
    let Some(rest) = b.get(i + 1..) else {
        return false;
    };
    let end = memchr::memchr2(b'"', b'\\', rest);
    match end {
        Some(n) => rest[n] == b'"' && &rest[..n] != RAW_VALUE_TOKEN.as_bytes(),
        None => false,
    }
}

/// End of the number at `i` when a `Value` parse takes it: in JSON's grammar, and surely
/// within `f64`'s range (serde_json refuses an infinite one): at most 308 digits before
/// the decimal point, plus the exponent when it is positive (below 10^308).
#[inline(always)]
fn number_in_range(b: &[u8], i: usize) -> Option<usize> {
    let (end, exponent) = number(b, i)?;
    if !exponent && end - i <= 308 {
        return Some(end);
    }
    let t = &b[i..end];
    let t = t.strip_prefix(b"-").unwrap_or(t);
    let int = t.iter().take_while(|c| c.is_ascii_digit()).count() as i64;
    let exp = match t.iter().position(|&c| c == b'e' || c == b'E') {
        None => 0,
        Some(e) => {
            let digits = t[e + 1..].strip_prefix(b"+").unwrap_or(&t[e + 1..]);
            if digits.first() == Some(&b'-') {
                0
            } else if digits.len() > 4 {
                return None;
            } else {
                digits
                    .iter()
                    .fold(0i64, |n, &c| n * 10 + i64::from(c - b'0'))
            }
        }
    };
    (int + exp <= 308).then_some(end)
}

/// End of the literal `word` at `i`.
fn literal(b: &[u8], i: usize, word: &[u8]) -> Option<usize> {
    (b.get(i..i + word.len())? == word).then_some(i + word.len())
}

/// End of the number at `i` in JSON's grammar (`-`, then `0` or a digit run without a
/// leading zero, an optional fraction, an optional exponent).
fn valid_number(b: &[u8], i: usize) -> Option<usize> {
    number(b, i).map(|(end, _)| end)
}

/// [`valid_number`], and whether the number has an exponent.
#[inline(always)]
fn number(b: &[u8], mut i: usize) -> Option<(usize, bool)> {
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
        return Some((digits(i)?, true));
    }
    Some((i, false))
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
        let v: serde_json::Value = serde_json::from_str(base).unwrap();
        let pretty =
            serde_json::to_string_pretty(&serde_json::json!([v, [v, {"x": [v]}]])).unwrap();
        mutations(
            &[base, &pretty],
            alphabet,
            0x2545f4914f6cdd1d,
            agrees_with_serde,
        );
    }

    /// 40,000 texts made from `bases` (taken in turn) by one to three random byte changes
    /// (replace, insert or remove a byte of `alphabet`; a fixed `seed`), each valid UTF-8
    /// one given to `check`.
    fn mutations(bases: &[&str], alphabet: &[u8], seed: u64, check: impl Fn(&str)) {
        let mut rng = crate::testutil::XorShift(seed);
        let mut rnd = || rng.next();
        for n in 0..40000 {
            let mut t = bases[n % bases.len()].as_bytes().to_vec();
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
                check(&t);
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
        // `valid_value_parsed` with its own limit (an empty innermost list is not counted)
        assert_eq!(Scan::new(&ok).valid_value_parsed(0, 49), Some(100));
        assert_eq!(Scan::new(&ok).valid_value_parsed(0, 48), None);
    }

    /// `valid_value_parsed` accepts a text only when a `serde_json::Value` parse does.
    fn agrees_with_a_value_parse(t: &str) {
        let sc = Scan::new(t);
        let ours = sc
            .valid_value_parsed(0, MAX_VALID_DEPTH)
            .is_some_and(|e| sc.skip_ws(e) == t.len());
        if ours {
            assert!(
                serde_json::from_str::<serde_json::Value>(t).is_ok(),
                "accepted what a value parse refuses: {t:?}"
            );
        }
    }

    #[test]
    fn the_parsed_check_refuses_what_a_value_parse_refuses() {
        // what skipping takes and a value parse does not
        let refused = [
            "1e400",
            "-1e400",
            "1e309",
            "2e308",
            "\"\\ud800\"",
            "\"\\udc00\"",
            "\"\\ud800\\u0041\"",
            "\"\\ud800x\"",
            "{\"$serde_json::private::RawValue\":\"[\"}",
            "{\"\\u0024serde_json::private::RawValue\":1}",
        ];
        for t in refused {
            agrees_with_a_value_parse(t);
            assert_eq!(Scan::new(t).valid_value_parsed(0, 100), None, "{t}");
            agrees_with_serde(t);
        }
        // what both take
        for t in [
            "1e307",
            "1e-400",
            "-0",
            "0.5e-3",
            "\"\\ud83d\\ude00\"",
            "\"\\u00e9\"",
            "{\"a\":{\"$serde_json::private::RawValue\":1}}",
        ] {
            let sc = Scan::new(t);
            let first_key_marker = t.starts_with("{\"a\"");
            assert_eq!(
                sc.valid_value_parsed(0, 100).is_some(),
                !first_key_marker,
                "{t}"
            );
            agrees_with_a_value_parse(t);
        }
        let long = format!("1{}", "0".repeat(400));
        agrees_with_a_value_parse(&long);
        assert_eq!(Scan::new(&long).valid_value_parsed(0, 100), None);
        // every single-byte change of a sample
        let base = r#"{"a": [1, -2.5e3, {"b": "x\"y\\z\u00e9\ud83d\ude00", "c": null}], "d": true, "e": 1e300}"#;
        let alphabet = b"{}[]\",:\\ 0123456789-+.eEtrufalsnudD\x01\nab$";
        mutations(
            &[base],
            alphabet,
            0x9e3779b97f4a7c15,
            agrees_with_a_value_parse,
        );
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
