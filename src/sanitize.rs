//! Untrusted text from inputs made safe for a terminal: escape sequences (CSI, OSC, DCS,
//! …), C0/C1 control characters and bidirectional overrides never reach the screen.

/// Returns `s` with escape sequences removed and control characters shown as `\xNN`/`\u{..}`.
/// Newlines and tabs become spaces when `single_line` is set, and are kept otherwise.
pub fn sanitize(s: &str, single_line: bool) -> String {
    if s.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => skip_escape(&mut chars),
            '\u{9b}' => skip_csi(&mut chars),
            '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            '\n' | '\r' | '\t' if single_line => out.push(' '),
            '\n' | '\t' => out.push(c),
            '\r' => {}
            c if is_bidi_control(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c if (c as u32) < 0x20 || c as u32 == 0x7f || (0x80..0xa0).contains(&(c as u32)) => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out
}

/// Single-line form for table cells and status lines.
pub fn line(s: &str) -> String {
    sanitize(s, true)
}

fn is_bidi_control(c: char) -> bool {
    matches!(c as u32, 0x202a..=0x202e | 0x2066..=0x2069 | 0x200e | 0x200f | 0x061c)
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
    fn strips_sequences() {
        assert_eq!(line("a\u{1b}[31mred\u{1b}[0m b"), "ared b");
        assert_eq!(line("x\u{1b}]52;c;AAAA\u{7}y"), "xy");
        assert_eq!(line("x\u{1b}]0;title\u{1b}\\y"), "xy");
        assert_eq!(line("tab\there\nnl"), "tab here nl");
        assert_eq!(line("bidi\u{202e}evil"), "bidi\\u{202e}evil");
        assert_eq!(line("bell\u{7}"), "bell\\x07");
        assert_eq!(line("주문 조회"), "주문 조회");
    }
}
