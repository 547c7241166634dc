//! Text semantics of CPython 3.11 that the reference engine relies on.
//!
//! Rust's standard library and `regex` crate disagree with Python in a few corners
//! (`str.split()` also splits on U+001C..U+001F, `\w` is "alphanumeric or underscore" in
//! Python's sense, `round()` rounds the exact binary value half-to-even). Everything that
//! must match the reference bit for bit goes through these helpers.

use unicode_general_category::{GeneralCategory, get_general_category};

/// Python `str.isspace()` for one character.
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python `str.split()` without arguments.
pub fn split_ws(s: &str) -> impl Iterator<Item = &str> {
    s.split(is_space).filter(|p| !p.is_empty())
}

/// Python `str.strip()` without arguments.
pub fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// Python `str.lower()`.
pub fn lower(s: &str) -> String {
    if s.is_ascii() {
        s.to_ascii_lowercase()
    } else {
        s.to_lowercase()
    }
}

/// Python `str.isalpha()` for one character (general category L*).
pub fn is_alpha(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    matches!(
        get_general_category(c),
        GeneralCategory::UppercaseLetter
            | GeneralCategory::LowercaseLetter
            | GeneralCategory::TitlecaseLetter
            | GeneralCategory::ModifierLetter
            | GeneralCategory::OtherLetter
    )
}

/// Python `\d` in a str pattern: Unicode decimal digit (Nd).
pub fn is_decimal(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    get_general_category(c) == GeneralCategory::DecimalNumber
}

/// Python `str.isdigit()` for one character (decimal digits plus Numeric_Type=Digit,
/// e.g. superscripts and circled digits).
pub fn is_digit(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    if is_decimal(c) {
        return true;
    }
    matches!(c as u32,
        0xB2..=0xB3 | 0xB9 | 0x1369..=0x1371 | 0x19DA | 0x2070 | 0x2074..=0x2079 | 0x2080..=0x2089
        | 0x2460..=0x2468 | 0x2474..=0x247C | 0x2488..=0x2490 | 0x24EA | 0x24F5..=0x24FD | 0x24FF
        | 0x2776..=0x277E | 0x2780..=0x2788 | 0x278A..=0x2792 | 0x10A40..=0x10A43 | 0x10E60..=0x10E68
        | 0x11052..=0x1105A | 0x1F100..=0x1F10A)
}

/// Python `str.isalnum()` for one character.
pub fn is_alnum(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    is_alpha(c) || c.is_numeric()
}

/// Python `\w` in a str pattern.
pub fn is_word(c: char) -> bool {
    c == '_' || is_alnum(c)
}

/// Python `round(x, n)` for a float: half-to-even on the exact binary value.
///
/// Most values are rounded with arithmetic: `y = x * 10^n` (exact to within half a unit in
/// its last place, 2^-13 below 2^40) names the integer nearest the exact product unless
/// its fraction is within 2^-12 of a half, and that integer divided by `10^n` (both exact)
/// is the correctly rounded decimal, as parsing it gives. Near a half, far out of range or
/// for many places, the decimal text is written and parsed ([`round_by_text`]).
pub fn round(x: f64, n: usize) -> f64 {
    const POW10: [f64; 16] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    if let Some(&p) = POW10.get(n) {
        let y = x * p;
        if y.abs() < (1u64 << 40) as f64 {
            let fraction = (y - y.trunc()).abs();
            if (fraction - 0.5).abs() > 1.0 / 4096.0 {
                // (the sign of zero is kept: round(-0.0001, 2) == -0.0)
                return y.round() / p;
            }
        }
    }
    round_by_text(x, n)
}

/// [`round`] by writing the decimal text rounded from the exact binary value and parsing it.
fn round_by_text(x: f64, n: usize) -> f64 {
    if !x.is_finite() {
        return x;
    }
    // formatted on the stack: this runs for every score of every candidate
    let mut buf = StackText::new();
    let v: f64 = if std::fmt::Write::write_fmt(&mut buf, format_args!("{x:.n$}")).is_ok() {
        buf.as_str().parse().unwrap_or(x)
    } else {
        format!("{x:.n$}").parse().unwrap_or(x)
    };
    // Python keeps the sign of zero: round(-0.0001, 2) == -0.0
    v
}

/// A small text buffer on the stack; writing past its capacity fails (callers fall back
/// to a heap string).
struct StackText {
    buf: [u8; 96],
    len: usize,
}

impl StackText {
    fn new() -> Self {
        StackText {
            buf: [0; 96],
            len: 0,
        }
    }

    fn as_str(&self) -> &str {
        // only whole `&str`s are ever copied in
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
    }
}

impl std::fmt::Write for StackText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        if end > self.buf.len() {
            return Err(std::fmt::Error);
        }
        self.buf[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Python `repr(float)`: shortest round-trip digits, scientific below 1e-4 and from 1e16.
pub fn float_repr(x: f64) -> String {
    let mut out = String::new();
    push_float_repr(&mut out, x);
    out
}

/// [`float_repr`] appended to `out`.
pub fn push_float_repr(out: &mut String, x: f64) {
    // Where both use plain decimal notation, ryu's shortest round-trip text is Python's repr
    // (same digits, "1.0" for integral values); elsewhere Python's layout is built below.
    if x.is_finite() && (1e-4..1e15).contains(&x.abs()) {
        let mut b = ryu::Buffer::new();
        let s = b.format_finite(x);
        if !s.contains('e') {
            out.push_str(s);
            return;
        }
    }
    out.push_str(&float_repr_slow(x));
}

/// The shortest digits that read back as `x` (ties to even, as Python's repr picks them),
/// without leading or trailing zeros, and the decimal exponent of the first one: 0.000123 ->
/// (false, "123", -4). From ryu, whose text is either plain ("0.000123", "123.45") or
/// scientific ("1.2345e-5", "1e16").
fn shortest_digits(x: f64) -> (bool, String, i32) {
    let mut b = ryu::Buffer::new();
    let s = b.format_finite(x);
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (mant, e10) = match s.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (s, 0),
    };
    let (int_part, frac) = mant.split_once('.').unwrap_or((mant, ""));
    let all = format!("{int_part}{frac}");
    let lead = all.bytes().take_while(|&c| c == b'0').count();
    let digits = all[lead..].trim_end_matches('0').to_string();
    let exp = int_part.len() as i32 - 1 - lead as i32 + e10;
    (neg, digits, exp)
}

fn float_repr_slow(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            "-0.0".into()
        } else {
            "0.0".into()
        };
    }
    let (neg, digits, exp) = shortest_digits(x);
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if (-4..16).contains(&exp) {
        if exp < 0 {
            out.push_str("0.");
            for _ in 0..(-exp - 1) {
                out.push('0');
            }
            out.push_str(&digits);
        } else {
            let int_len = exp as usize + 1;
            if digits.len() <= int_len {
                out.push_str(&digits);
                for _ in digits.len()..int_len {
                    out.push('0');
                }
                out.push_str(".0");
            } else {
                out.push_str(&digits[..int_len]);
                out.push('.');
                out.push_str(&digits[int_len..]);
            }
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exp.abs()));
    }
    out
}

/// Python `str.splitlines()[0]` (or "" for an empty string).
pub fn first_line(s: &str) -> &str {
    let end = s
        .char_indices()
        .find(|&(_, c)| {
            matches!(
                c,
                '\n' | '\r'
                    | '\u{0b}'
                    | '\u{0c}'
                    | '\u{1c}'
                    | '\u{1d}'
                    | '\u{1e}'
                    | '\u{85}'
                    | '\u{2028}'
                    | '\u{2029}'
            )
        })
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    &s[..end]
}

/// Python `str.upper()`.
pub fn upper(s: &str) -> String {
    s.to_uppercase()
}

/// Number of code points (Python `len(str)`).
pub fn char_len(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().count()
    }
}

/// Python `str(value)` for a JSON value as the reference would see it after `json.loads`.
pub fn py_str(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => py_repr(other),
    }
}

/// Python `repr(value)` for a JSON value (used for nested values inside `str()`).
pub fn py_repr(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.to_string()
            } else if let Some(u) = n.as_u64() {
                u.to_string()
            } else {
                float_repr(n.as_f64().unwrap_or(0.0))
            }
        }
        Value::String(s) => str_repr(s),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(py_repr).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Object(map) => {
            let parts: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", str_repr(k), py_repr(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
    }
}

fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python truthiness of a JSON value.
pub fn truthy(v: &serde_json::Value) -> bool {
    use serde_json::Value;
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().map(|f| f != 0.0).unwrap_or(true),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// Hangul syllable block used by most rules (`[가-힣]`).
pub fn is_hangul_syllable(c: char) -> bool {
    ('\u{AC00}'..='\u{D7A3}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_matches_python() {
        assert_eq!(round(0.125, 2), 0.12);
        assert_eq!(round(0.375, 2), 0.38);
        assert_eq!(round(2.675, 2), 2.67);
        assert_eq!(round(0.2666666666, 6), 0.266667);
    }

    #[test]
    fn float_repr_matches_python() {
        assert_eq!(float_repr(1.0), "1.0");
        assert_eq!(float_repr(0.1), "0.1");
        assert_eq!(float_repr(1e-5), "1e-05");
        assert_eq!(float_repr(0.0001), "0.0001");
        assert_eq!(float_repr(123456.5), "123456.5");
        assert_eq!(float_repr(1e16), "1e+16");
        assert_eq!(float_repr(1.5e16), "1.5e+16");
        assert_eq!(float_repr(-2.5e-7), "-2.5e-07");
        assert_eq!(float_repr(100.0), "100.0");
    }

    #[test]
    fn python_whitespace_and_words() {
        assert_eq!(split_ws("a\u{1c}b  c").collect::<Vec<_>>(), ["a", "b", "c"]);
        assert!(!is_word('\u{301}'));
        assert!(is_word('①'));
        assert!(is_word('_'));
        assert!(is_decimal('٣'));
        assert!(!is_decimal('①'));
    }

    #[test]
    fn first_line_like_splitlines() {
        assert_eq!(first_line("\nabc"), "");
        assert_eq!(first_line("ab\r\ncd"), "ab");
        assert_eq!(first_line(""), "");
        assert_eq!(first_line("x\u{2028}y"), "x");
    }
}

#[cfg(test)]
mod float_repr_tests {
    use super::*;

    #[test]
    fn fast_path_matches_the_python_layout_everywhere() {
        // a deterministic spread over magnitudes, plus rounded scores
        let mut rng = crate::testutil::XorShift(0x9e37_79b9_7f4a_7c15);
        let mut next = || rng.next();
        for _ in 0..200_000 {
            let bits = next();
            let x = f64::from_bits(bits);
            if x.is_finite() {
                assert_eq!(float_repr(x), float_repr_slow(x), "{bits:x}");
            }
            let mant = (next() % 10_000_000) as f64 / 1e6;
            let exp = (next() % 40) as i32 - 20;
            for y in [mant * 10f64.powi(exp), round(mant, 6), round(mant / 7.0, 4)] {
                assert_eq!(float_repr(y), float_repr_slow(y), "{y:e}");
                assert_eq!(float_repr(-y), float_repr_slow(-y), "{y:e}");
            }
        }
        for y in [
            1e-4,
            0.0001,
            1e15,
            999999999999999.9,
            1.0,
            0.1,
            0.5,
            2.0,
            123456.0,
        ] {
            assert_eq!(float_repr(y), float_repr_slow(y), "{y:e}");
        }
    }

    #[test]
    fn python_repr_vectors() {
        // repr() of each value, from CPython 3.12
        for (x, want) in [
            (f64::from_bits(0x42ea_8090_bb0f_6d84), "233115890514796.12"), // a tie: to even
            (1e-05, "1e-05"),
            (1e+16, "1e+16"),
            (1.5e-07, "1.5e-07"),
            (1.2345678901234568e+17, "1.2345678901234568e+17"),
            (0.1 + 0.2, "0.30000000000000004"),
            (5e-324, "5e-324"),
            (1.7976931348623157e+308, "1.7976931348623157e+308"),
            (0.00010000000000000002, "0.00010000000000000002"),
            (2.675, "2.675"),
        ] {
            assert_eq!(float_repr(x), want);
            assert_eq!(float_repr_slow(x), want);
        }
    }

    /// The arithmetic rounding gives the bits the decimal text gives, over magnitudes,
    /// places, exact halves (0.125, 2.5, ...), values a unit off a half, scores and zeros.
    #[test]
    fn round_by_arithmetic_is_round_by_text() {
        let mut rng = crate::testutil::XorShift(0x2545_f491_4f6c_dd1d);
        let mut next = || rng.next();
        let check = |x: f64, n: usize| {
            assert_eq!(
                round(x, n).to_bits(),
                round_by_text(x, n).to_bits(),
                "{x:e} {n}"
            );
        };
        for _ in 0..300_000 {
            let n = (next() % 17) as usize;
            let bits = next();
            check(f64::from_bits(bits), n);
            let mant = (next() % 100_000_000) as f64 / 1e7;
            let exp = (next() % 30) as i32 - 15;
            let x = mant * 10f64.powi(exp);
            check(x, n);
            check(-x, n);
            // halves at the place rounded to, and their neighbours
            let half = ((next() % 2_000_000) as f64 + 0.5) / 10f64.powi(n as i32);
            for h in [
                half,
                f64::from_bits(half.to_bits() + 1),
                f64::from_bits(half.to_bits() - 1),
            ] {
                check(h, n);
                check(-h, n);
            }
            check((next() % 1000) as f64 / 7.0, n);
        }
        for x in [
            0.0,
            -0.0,
            0.125,
            0.375,
            2.675,
            2.5,
            -2.5,
            1e-300,
            -1e-9,
            1099511627776.5,
        ] {
            for n in 0..17 {
                check(x, n);
            }
        }
        for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(round(x, 2).to_bits(), x.to_bits());
        }
    }

    #[test]
    fn round_matches_formatting_with_a_heap_string() {
        for x in [0.1234565, 2.5e-7, -0.00049, 1e300, 123456789.98765432, -0.0] {
            for n in [0, 2, 4, 6] {
                let want: f64 = format!("{x:.n$}").parse().unwrap();
                assert_eq!(round(x, n).to_bits(), want.to_bits(), "{x} {n}");
            }
        }
    }
}
