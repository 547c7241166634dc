//! The one sanitiser for untrusted text on its way to a terminal: tool names, descriptions,
//! file names and paths, queries, error and warning messages.
//!
//! Nothing is dropped silently: C0 and C1 control characters and DEL are shown as `\xNN`,
//! so an escape sequence in a tool's name or description reads `\x1b[2J` and an operator
//! sees the text was hostile (the rest of the sequence is printable and harmless once its
//! ESC is made visible); characters that are invisible or
//! that change how many cells a terminal draws (bidirectional controls, zero-width
//! characters and joiners, soft hyphen, BOM, line and paragraph separators, tag
//! characters, variation selectors, Hangul fillers and every other default-ignorable code
//! point, and every other format character) are shown as `\u{XXXX}`. What comes out is
//! printable text whose cell count the frame computes correctly. [`json_escapes`] is the
//! rule for the JSON writer, which escapes C1, DEL and the invisible characters as
//! `\uXXXX` so `--json` stays exact.

/// True for characters that must never reach a terminal raw: C0/C1 controls, DEL, the
/// invisible or width-changing characters of [`is_invisible`], and every other format
/// character, line or paragraph separator (Unicode categories Cf, Zl, Zp).
pub fn is_hazard(c: char) -> bool {
    let u = c as u32;
    if u < 0x20 || (0x7f..0xa0).contains(&u) || is_invisible(c) {
        return true;
    }
    u >= 0x600 && {
        use unicode_general_category::{GeneralCategory as G, get_general_category};
        matches!(
            get_general_category(c),
            G::Format | G::LineSeparator | G::ParagraphSeparator | G::Control
        )
    }
}

/// What the JSON writer escapes as `\uXXXX` beyond what JSON requires: DEL, C1 controls and
/// the invisible characters of [`is_invisible`] (bidi, zero-width, separators, tags, …).
pub fn json_escapes(c: char) -> bool {
    let u = c as u32;
    (0x7f..0xa0).contains(&u) || is_invisible(c)
}

/// Invisible, format and width-changing characters (Unicode's Default_Ignorable_Code_Point
/// set, the bidi marks, and the line and paragraph separators).
pub fn is_invisible(c: char) -> bool {
    matches!(c as u32,
        0x00ad                 // soft hyphen
        | 0x034f               // combining grapheme joiner
        | 0x061c               // Arabic letter mark
        | 0x115f..=0x1160      // Hangul choseong/jungseong fillers
        | 0x17b4..=0x17b5      // Khmer inherent vowels
        | 0x180b..=0x180f      // Mongolian variation selectors and vowel separator
        | 0x200b..=0x200f      // zero width space/non-joiner/joiner, LRM, RLM
        | 0x2028..=0x202e      // line/paragraph separators, bidi embeddings and overrides
        | 0x2060..=0x206f      // word joiner, invisible operators, bidi isolates
        | 0x3164               // Hangul filler
        | 0xfe00..=0xfe0f      // variation selectors
        | 0xfeff               // BOM / zero width no-break space
        | 0xffa0               // halfwidth Hangul filler
        | 0xfff0..=0xfffb      // interlinear annotation and unassigned specials
        | 0x1bca0..=0x1bca3    // shorthand format controls
        | 0x1d173..=0x1d17a    // musical symbol format controls
        | 0xe0000..=0xe0fff    // tag characters and variation selectors supplement
    )
}

/// Returns `s` with hazardous characters made visible: control characters as `\xNN`
/// (an escape sequence's ESC as `\x1b`, its printable rest as it is), invisible and format
/// characters as `\u{XXXX}`. Newlines and tabs become spaces when `single_line` is set,
/// and are kept otherwise; a carriage return is a space on one line and dropped otherwise.
pub fn sanitize(s: &str, single_line: bool) -> String {
    if s.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' | '\r' | '\t' if single_line => out.push(' '),
            '\n' | '\t' => out.push(c),
            '\r' => {}
            c => push_shown(&mut out, c),
        }
    }
    out
}

/// Appends `c` as the terminal may show it: a control character as `\xNN`, an invisible
/// or format character as `\u{XXXX}`, any other as it is.
fn push_shown(out: &mut String, c: char) {
    use std::fmt::Write;
    let _ = match c {
        c if (c as u32) < 0x20 || (0x7f..0xa0).contains(&(c as u32)) => {
            write!(out, "\\x{:02x}", c as u32)
        }
        c if is_hazard(c) => write!(out, "\\u{{{:x}}}", c as u32),
        c => {
            out.push(c);
            Ok(())
        }
    };
}

/// Text the operator pastes into a line being edited (the query, the palette, a filter):
/// the escape sequences a paste from a coloured terminal carries are dropped whole (they
/// are the operator's own terminal's colours, not data), then the rest is made safe as
/// [`line`] does. Untrusted text on its way to the screen goes through [`line`] or
/// [`sanitize`], which drop nothing.
pub fn pasted(s: &str) -> String {
    let mut plain = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => skip_escape(&mut chars),
            '\u{9b}' => skip_csi(&mut chars),
            '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            c => plain.push(c),
        }
    }
    line(&plain)
}

/// Single-line form for table cells, status lines, file names and messages.
pub fn line(s: &str) -> String {
    sanitize(s, true)
}

/// Untrusted text quoted in a message: in double quotes, `"` and `\` escaped with a
/// backslash, newline, tab and carriage return as `\n`, `\t`, `\r`, and every other
/// hazard as [`sanitize`] shows it (`\x1b`, `\u{200b}`): one style for a name whether
/// it is quoted or not (Rust's `{:?}` would show an escape as `\u{1b}`).
pub fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c => push_shown(&mut out, c),
        }
    }
    out.push('"');
    out
}

/// A path as shown on a terminal (single line, sanitised).
pub fn path(p: &std::path::Path) -> String {
    line(&p.display().to_string())
}

/// `n` and the noun for it, plural unless `n` is 1 (`1 tool`, `0 tools`, `2 edges`): the
/// counts in messages.
pub fn count(n: u64, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// Prints one message to stderr as one sanitised line (the sink for every error and
/// warning a command prints: file names and values inside cannot reach the terminal raw).
pub fn eprint_line(msg: impl AsRef<str>) {
    use std::io::Write;
    let mut e = std::io::stderr().lock();
    let _ = writeln!(e, "{}", line(msg.as_ref()));
}

/// Prints several lines of text to stderr, each sanitised.
pub fn eprint_text(text: &str) {
    use std::io::Write;
    let mut e = std::io::stderr().lock();
    for l in text.lines() {
        let _ = writeln!(e, "{}", line(l));
    }
}

fn skip_escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    match chars.peek().copied() {
        Some('[') => {
            chars.next();
            skip_csi(chars);
        }
        Some(']') | Some('P') | Some('X') | Some('^') | Some('_') => {
            chars.next();
            skip_string(chars);
        }
        Some(c) if ('\u{20}'..='\u{2f}').contains(&c) => {
            // nF sequences: intermediates then one final byte
            while let Some(&c) = chars.peek() {
                chars.next();
                if !('\u{20}'..='\u{2f}').contains(&c) {
                    break;
                }
            }
        }
        Some(_) => {
            chars.next();
        }
        None => {}
    }
}

fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    for c in chars.by_ref() {
        if ('\u{40}'..='\u{7e}').contains(&c) {
            break;
        }
    }
}

/// OSC/DCS/SOS/PM/APC: until BEL or ST (ESC \\ or U+009C).
fn skip_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(c) = chars.next() {
        match c {
            '\u{7}' | '\u{9c}' => break,
            '\u{1b}' => {
                if chars.peek() == Some(&'\\') {
                    chars.next();
                }
                break;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_is_singular_for_one_only() {
        assert_eq!(count(1, "tool"), "1 tool");
        assert_eq!(count(0, "orphan tool"), "0 orphan tools");
        assert_eq!(count(264_646, "edge"), "264646 edges");
    }

    #[test]
    fn quoted_text_escapes_as_the_sanitiser_shows_text() {
        assert_eq!(quoted("getOrder"), "\"getOrder\"");
        // what `{:?}` gives for plain names and quotes
        for s in [
            "a b",
            "say \"hi\"",
            "back\\slash",
            "line\nbreak\ttab",
            "café",
        ] {
            assert_eq!(quoted(s), format!("{s:?}"), "{s}");
        }
        // escapes and invisible characters as the sanitiser shows them, quoted or not
        assert_eq!(quoted("x\u{1b}[2Jy\u{200b}"), "\"x\\x1b[2Jy\\u{200b}\"");
        assert_eq!(
            &quoted("\u{1b}\u{9b}")[1..],
            &format!("{}\"", line("\u{1b}\u{9b}"))
        );
    }

    #[test]
    fn control_characters_are_shown_never_dropped() {
        assert_eq!(line("a\u{1b}[31mred\u{1b}[0m b"), "a\\x1b[31mred\\x1b[0m b");
        assert_eq!(line("x\u{1b}]52;c;AAAA\u{7}y"), "x\\x1b]52;c;AAAA\\x07y");
        assert_eq!(line("x\u{1b}]0;title\u{1b}\\y"), "x\\x1b]0;title\\x1b\\y");
        assert_eq!(line("csi\u{9b}2J"), "csi\\x9b2J");
        assert_eq!(line("tab\there\nnl\r"), "tab here nl ");
        assert_eq!(sanitize("a\r\nb\tc", false), "a\nb\tc");
        assert_eq!(line("bidi\u{202e}evil"), "bidi\\u{202e}evil");
        assert_eq!(line("bell\u{7}"), "bell\\x07");
        assert_eq!(line("del\u{7f}c1\u{85}"), "del\\x7fc1\\x85");
        assert_eq!(line("주문 조회"), "주문 조회");
        // what comes out never holds a control character, and says where each one was
        for evil in [
            "\u{1b}[2J\u{1b}[H",
            "\u{1b}P1$r\u{1b}\\",
            "a\u{8}\u{8}b",
            "\u{9d}0;t\u{9c}",
        ] {
            let s = line(evil);
            assert!(!s.chars().any(|c| c.is_control()), "{s:?}");
            assert!(s.contains("\\x"), "{s:?}");
        }
    }

    #[test]
    fn a_paste_loses_its_colours_and_nothing_else() {
        assert_eq!(
            pasted("approve\u{1b}[31m refund\u{1b}[0m\n"),
            "approve refund "
        );
        assert_eq!(pasted("x\u{1b}]52;c;AAAA\u{7}y"), "xy");
        assert_eq!(pasted("bell\u{7} \u{202e}"), "bell\\x07 \\u{202e}");
    }

    #[test]
    fn invisible_characters_become_visible() {
        for c in [
            '\u{200b}',
            '\u{200c}',
            '\u{200d}',
            '\u{2060}',
            '\u{feff}',
            '\u{ad}',
            '\u{34f}',
            '\u{180e}',
            '\u{2028}',
            '\u{2029}',
            '\u{e0041}',
            '\u{fff9}',
            '\u{3164}',
            '\u{fe0f}',
        ] {
            let s = line(&format!("a{c}b"));
            assert_eq!(s, format!("a\\u{{{:x}}}b", c as u32));
            assert!(s.is_ascii(), "{s}");
        }
    }
}
