//! A small streaming JSON writer that prints numbers the way Python's `json.dumps` does.
//!
//! Output is compact (`,` and `:` without spaces) and keeps non-ASCII text as UTF-8
//! (`ensure_ascii=False`). Floats use Python's `repr` (`1.0`, `1e-05`), integers have no
//! decimal point, so a reader that compares by type sees what the reference wrote.

use crate::pytext::float_repr;

#[derive(Default)]
pub struct JsonWriter {
    out: String,
    /// One entry per open container: whether something was already written in it.
    stack: Vec<bool>,
    after_key: bool,
}

impl JsonWriter {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_capacity(n: usize) -> Self {
        JsonWriter {
            out: String::with_capacity(n),
            ..Self::default()
        }
    }

    pub fn finish(self) -> String {
        self.out
    }

    fn before_value(&mut self) {
        if self.after_key {
            self.after_key = false;
            return;
        }
        if let Some(started) = self.stack.last_mut() {
            if *started {
                self.out.push(',');
            }
            *started = true;
        }
    }

    pub fn begin_obj(&mut self) -> &mut Self {
        self.before_value();
        self.out.push('{');
        self.stack.push(false);
        self
    }

    pub fn end_obj(&mut self) -> &mut Self {
        self.stack.pop();
        self.out.push('}');
        self
    }

    pub fn begin_arr(&mut self) -> &mut Self {
        self.before_value();
        self.out.push('[');
        self.stack.push(false);
        self
    }

    pub fn end_arr(&mut self) -> &mut Self {
        self.stack.pop();
        self.out.push(']');
        self
    }

    pub fn key(&mut self, k: &str) -> &mut Self {
        if let Some(started) = self.stack.last_mut() {
            if *started {
                self.out.push(',');
            }
            *started = true;
        }
        write_escaped(&mut self.out, k);
        self.out.push(':');
        self.after_key = true;
        self
    }

    pub fn str(&mut self, s: &str) -> &mut Self {
        self.before_value();
        write_escaped(&mut self.out, s);
        self
    }

    pub fn opt_str(&mut self, s: Option<&str>) -> &mut Self {
        match s {
            Some(s) => self.str(s),
            None => self.null(),
        }
    }

    pub fn f64(&mut self, x: f64) -> &mut Self {
        self.before_value();
        crate::pytext::push_float_repr(&mut self.out, x);
        self
    }

    pub fn opt_f64(&mut self, x: Option<f64>) -> &mut Self {
        match x {
            Some(x) => self.f64(x),
            None => self.null(),
        }
    }

    pub fn int(&mut self, i: i64) -> &mut Self {
        self.before_value();
        self.out.push_str(&i.to_string());
        self
    }

    pub fn bool(&mut self, b: bool) -> &mut Self {
        self.before_value();
        self.out.push_str(if b { "true" } else { "false" });
        self
    }

    pub fn null(&mut self) -> &mut Self {
        self.before_value();
        self.out.push_str("null");
        self
    }

    /// Writes already-valid JSON text, dropping insignificant whitespace.
    pub fn raw(&mut self, json: &str) -> &mut Self {
        self.before_value();
        minify_into(&mut self.out, json);
        self
    }

    /// Writes JSON text that is already compact.
    pub fn raw_compact(&mut self, json: &str) -> &mut Self {
        self.before_value();
        self.out.push_str(json);
        self
    }

    /// Writes a parsed JSON value with Python's number forms.
    pub fn value(&mut self, v: &serde_json::Value) -> &mut Self {
        use serde_json::Value;
        match v {
            Value::Null => self.null(),
            Value::Bool(b) => self.bool(*b),
            Value::Number(n) => {
                self.before_value();
                if n.is_f64() {
                    self.out.push_str(&float_repr(n.as_f64().unwrap_or(0.0)));
                } else {
                    self.out.push_str(&n.to_string());
                }
                self
            }
            Value::String(s) => self.str(s),
            Value::Array(items) => {
                self.begin_arr();
                for it in items {
                    self.value(it);
                }
                self.end_arr()
            }
            Value::Object(map) => {
                self.begin_obj();
                for (k, v) in map {
                    self.key(k);
                    self.value(v);
                }
                self.end_obj()
            }
        }
    }

    pub fn str_list<S: AsRef<str>>(&mut self, items: &[S]) -> &mut Self {
        self.begin_arr();
        for s in items {
            self.str(s.as_ref());
        }
        self.end_arr()
    }
}

/// Writes `s` as a JSON string: `"`, `\\` and C0 controls escaped as JSON requires, and DEL,
/// C1 controls, bidi, zero-width and other invisible characters
/// ([`crate::sanitize::json_escapes`]) as `\uXXXX`, so the text stays exact but inert on a
/// terminal.
pub fn write_escaped(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    // the common case: nothing to escape. A first pass finds plain ASCII text (no
    // control, quote, backslash, DEL or byte above it) eight bytes at a time; text above
    // ASCII is then checked for the UTF-8 lead bytes hazards start with (C1: C2; U+034F:
    // CD; U+061C: D8; U+115F-U+180F: E1; U+2xxx: E2; U+3164: E3; U+FExx/FFxx: EF;
    // U+1BCA0/U+1D173: F0; tags: F3)
    if plain_ascii(bytes)
        || !bytes.iter().fold(false, |hit, &b| {
            hit | (b < 0x20)
                | (b == b'"')
                | (b == b'\\')
                | (b == 0x7f)
                | matches!(
                    b,
                    0xc2 | 0xcd | 0xd8 | 0xe1 | 0xe2 | 0xe3 | 0xef | 0xf0 | 0xf3
                )
        })
    {
        out.push_str(s);
        out.push('"');
        return;
    }
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let esc: Option<&str> = match c {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '\n' => Some("\\n"),
            '\r' => Some("\\r"),
            '\t' => Some("\\t"),
            '\u{8}' => Some("\\b"),
            '\u{c}' => Some("\\f"),
            c if (c as u32) < 0x20 || crate::sanitize::json_escapes(c) => None,
            _ => continue,
        };
        out.push_str(&s[start..i]);
        match esc {
            Some(e) => out.push_str(e),
            None => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{:04x}", u));
                }
            }
        }
        start = i + c.len_utf8();
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// Whether every byte is printable ASCII other than `"` and `\\` (0x20 to 0x7e), read
/// eight bytes at a time as one word: for each test, a byte that fails it sets its high
/// bit in the word the test computes (bits of later bytes may be set wrongly by a borrow,
/// never when no byte fails), so "any byte fails" is exact.
fn plain_ascii(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let plain = |x: u64| {
        // below 0x20
        let control = x.wrapping_sub(0x20 * ONES) & !x & HIGH;
        // 0x7f (seven low bits set) or 0x80 and above (the high bit)
        let high = (x | ((x & !HIGH) + ONES)) & HIGH;
        let quote = zero_byte(x ^ (u64::from(b'"') * ONES));
        let backslash = zero_byte(x ^ (u64::from(b'\\') * ONES));
        control | high | quote | backslash == 0
    };
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let mut word = [0u8; 8];
        word.copy_from_slice(w);
        if !plain(u64::from_le_bytes(word)) {
            return false;
        }
    }
    // the last bytes, padded with a plain one
    let rest = words.remainder();
    let mut word = [b'a'; 8];
    word[..rest.len()].copy_from_slice(rest);
    plain(u64::from_le_bytes(word))
}

/// `v` as pretty JSON (serde's layout) with DEL, C1, bidi and invisible characters
/// escaped as `\uXXXX` ([`crate::sanitize::json_escapes`]): the same value, inert on a
/// terminal. For outputs that are not reference-parity JSON.
pub fn to_pretty_safe(v: &serde_json::Value) -> String {
    escape_hazards(serde_json::to_string_pretty(v).unwrap_or_default())
}

/// [`to_pretty_safe`] in serde's compact layout.
pub fn to_compact_safe(v: &serde_json::Value) -> String {
    escape_hazards(serde_json::to_string(v).unwrap_or_default())
}

/// Escapes hazardous characters in JSON text written by serde (which escapes only `"`,
/// `\\` and C0 controls). In valid JSON such characters can only be inside strings, so the
/// text stays valid and means the same.
pub fn escape_hazards(text: String) -> String {
    if text.is_ascii() && !text.contains('\u{7f}') {
        return text;
    }
    if !text
        .chars()
        .any(|c| c as u32 >= 0x7f && crate::sanitize::json_escapes(c))
    {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if c as u32 >= 0x7f && crate::sanitize::json_escapes(c) {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{:04x}", u));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Copies valid JSON text without whitespace outside strings; inside strings, raw DEL, C1,
/// bidi and invisible characters ([`crate::sanitize::json_escapes`]) are written as `\uXXXX`
/// (the same string, inert on a terminal).
pub fn minify_into(out: &mut String, json: &str) {
    let bytes = json.as_bytes();
    let mut i = 0;
    let mut run_start = 0;
    while i < bytes.len() {
        match bytes[i] {
            b' ' | b'\n' | b'\r' | b'\t' => {
                out.push_str(&json[run_start..i]);
                i += 1;
                run_start = i;
            }
            b'"' => {
                i += 1;
                while i < bytes.len() {
                    match bytes[i] {
                        b'\\' => i += 2,
                        b'"' => {
                            i += 1;
                            break;
                        }
                        b if b >= 0x7f => {
                            let Some(c) = json.get(i..).and_then(|t| t.chars().next()) else {
                                i += 1;
                                continue;
                            };
                            let n = c.len_utf8();
                            if crate::sanitize::json_escapes(c) {
                                out.push_str(&json[run_start..i]);
                                let mut units = [0u16; 2];
                                for u in c.encode_utf16(&mut units) {
                                    out.push_str(&format!("\\u{:04x}", u));
                                }
                                run_start = i + n;
                            }
                            i += n;
                        }
                        _ => i += 1,
                    }
                }
            }
            _ => i += 1,
        }
    }
    out.push_str(&json[run_start..bytes.len().min(json.len())]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_compact_python_numbers() {
        let mut w = JsonWriter::new();
        w.begin_obj().key("a").f64(1.0).key("b").int(2).key("c");
        w.begin_arr().str("x\"y").null().bool(true).end_arr();
        w.key("d").raw("{ \"k\" : [1, 2.50, \"a b\" ] }").end_obj();
        assert_eq!(
            w.finish(),
            r#"{"a":1.0,"b":2,"c":["x\"y",null,true],"d":{"k":[1,2.50,"a b"]}}"#
        );
    }

    #[test]
    fn escapes_control_characters() {
        let mut s = String::new();
        write_escaped(&mut s, "a\u{1b}[31m\n");
        assert_eq!(s, r#""a\u001b[31m\n""#);
        let mut s = String::new();
        write_escaped(&mut s, "\u{9b}x\u{7f}\u{202e}\u{200d}\u{e0041}주문 “q”");
        assert_eq!(s, r#""\u009bx\u007f\u202e\u200d\udb40\udc41주문 “q”""#);
        let back: String = serde_json::from_str(&s).unwrap();
        assert_eq!(back, "\u{9b}x\u{7f}\u{202e}\u{200d}\u{e0041}주문 “q”");
    }

    /// The character-by-character rule the fast paths must agree with.
    fn escaped_slowly(s: &str) -> String {
        let mut out = String::from('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                c if (c as u32) < 0x20 || crate::sanitize::json_escapes(c) => {
                    let mut units = [0u16; 2];
                    for u in c.encode_utf16(&mut units) {
                        out.push_str(&format!("\\u{:04x}", u));
                    }
                }
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    #[test]
    fn the_word_test_is_the_byte_test_for_every_byte_at_every_place() {
        let plain = |b: u8| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\';
        for len in 1..=17 {
            for at in 0..len {
                for b in 0..=255u8 {
                    for fill in [b'a', b' ', b'~', b'!'] {
                        let mut s = vec![fill; len];
                        s[at] = b;
                        assert_eq!(plain_ascii(&s), plain(b), "{s:?}");
                    }
                }
            }
        }
        assert!(plain_ascii(b""));
    }

    use proptest::strategy::Strategy;

    proptest::proptest! {
        #[test]
        fn the_fast_paths_escape_as_the_character_rule(
            // long runs of plain text around the characters each path decides on
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    "[a-zA-Z0-9 _./-]{0,40}",
                    proptest::sample::select(vec![
                        "\"", "\\", "\n", "\u{1b}", "\u{7f}", "\u{9b}", "\u{a0}", "é",
                        "주문", "\u{202e}", "\u{200d}", "\u{feff}", "“q”", "\u{e0041}",
                        "\u{1d173}", "\u{3164}", "\u{61c}", "\u{34f}",
                        // each side of every bound the first pass tests
                        "\u{0}", "\u{1f}", " ", "!", "#", "[", "]", "~", "\u{80}",
                    ]).prop_map(String::from),
                ],
                0..12,
            )
        ) {
            let s: String = parts.concat();
            let mut got = String::new();
            write_escaped(&mut got, &s);
            proptest::prop_assert_eq!(got, escaped_slowly(&s));
        }
    }
}
