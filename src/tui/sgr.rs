//! The 16-colour output filter. crossterm writes every colour, the 16 named ones
//! included, in the extended syntax (`38;5;N`, `48;5;N`), which a genuine 16-colour
//! console may not understand. [`Sgr16`] sits between the backend and the terminal and,
//! in 16-colour mode, rewrites each SGR sequence to the classic codes: foreground 30–37 and
//! 90–97, background 40–47 and 100–107 (indexed and RGB colours map to the nearest of the
//! 16; underline colours, which have no 16-colour form, are dropped). Other bytes pass
//! through unchanged, and a sequence split across writes is reassembled first.

use std::io::{self, Write};

use ratatui::backend::CrosstermBackend;

use super::caps::ColorLevel;

/// The longest CSI sequence held back for rewriting; anything longer passes as it is.
const MAX_CSI: usize = 96;

/// A writer that rewrites extended-colour SGR to the 16 ANSI colours when `active`.
#[derive(Debug)]
pub struct Sgr16<W: Write> {
    inner: W,
    active: bool,
    state: State,
    /// The CSI parameter and intermediate bytes seen so far (after `ESC [`).
    csi: Vec<u8>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Text,
    Esc,
    Csi,
}

impl<W: Write> Sgr16<W> {
    /// A filter that rewrites when `level` is [`ColorLevel::Ansi16`] and passes through
    /// otherwise.
    pub fn new(inner: W, level: ColorLevel) -> Sgr16<W> {
        Sgr16 {
            inner,
            active: level == ColorLevel::Ansi16,
            state: State::Text,
            csi: Vec::new(),
        }
    }

    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    pub fn into_inner(self) -> W {
        self.inner
    }

    fn end_csi(&mut self, fin: u8) -> io::Result<()> {
        self.state = State::Text;
        let params = std::mem::take(&mut self.csi);
        if fin == b'm'
            && let Some(p) = rewrite_sgr(&params)
        {
            if p.is_empty() {
                // only an underline colour, dropped: `ESC [ m` would reset everything
                return Ok(());
            }
            return self.inner.write_all(format!("\x1b[{p}m").as_bytes());
        }
        self.inner.write_all(b"\x1b[")?;
        self.inner.write_all(&params)?;
        self.inner.write_all(&[fin])
    }

    /// Gives up on the held-back sequence: writes it as it came.
    fn spill(&mut self) -> io::Result<()> {
        self.state = State::Text;
        let held = std::mem::take(&mut self.csi);
        self.inner.write_all(b"\x1b[")?;
        self.inner.write_all(&held)
    }
}

impl<W: Write> Write for Sgr16<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !self.active {
            return self.inner.write(buf);
        }
        let mut i = 0;
        while i < buf.len() {
            match self.state {
                State::Text => {
                    let rest = &buf[i..];
                    let n = memchr::memchr(0x1b, rest).unwrap_or(rest.len());
                    self.inner.write_all(&rest[..n])?;
                    i += n;
                    if i < buf.len() {
                        self.state = State::Esc;
                        i += 1;
                    }
                }
                State::Esc => {
                    let b = buf[i];
                    i += 1;
                    if b == b'[' {
                        self.state = State::Csi;
                        self.csi.clear();
                    } else {
                        self.state = State::Text;
                        self.inner.write_all(&[0x1b, b])?;
                    }
                }
                State::Csi => {
                    let b = buf[i];
                    i += 1;
                    match b {
                        0x20..=0x3f if self.csi.len() < MAX_CSI => self.csi.push(b),
                        0x40..=0x7e => self.end_csi(b)?,
                        _ => {
                            self.spill()?;
                            self.inner.write_all(&[b])?;
                        }
                    }
                }
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        // a sequence cut by a flush is completed by the next write; crossterm always
        // writes whole commands, so this holds nothing back at the end of a frame
        self.inner.flush()
    }
}

/// The explorer's backend: crossterm over the 16-colour filter (active in 16-colour mode).
pub fn backend<W: Write>(w: W, level: ColorLevel) -> CrosstermBackend<Sgr16<W>> {
    CrosstermBackend::new(Sgr16::new(w, level))
}

/// The SGR parameters with every extended colour in its 16-colour form; `None` when the
/// sequence has none (it is written unchanged), empty when nothing is left of it.
fn rewrite_sgr(params: &[u8]) -> Option<String> {
    let s = std::str::from_utf8(params).ok()?;
    if !(s.contains("38;") || s.contains("48;") || s.contains("58;")) {
        return None;
    }
    if s.bytes().any(|b| !(b.is_ascii_digit() || b == b';')) {
        return None;
    }
    let p: Vec<&str> = s.split(';').collect();
    let num = |i: usize| p.get(i).and_then(|x| x.parse::<u16>().ok());
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < p.len() {
        let code = p[i];
        if matches!(code, "38" | "48" | "58") {
            let (n, used) = match num(i + 1) {
                Some(5) => (num(i + 2).map(|n| indexed16(clamp8(n))), 3),
                Some(2) => match (num(i + 2), num(i + 3), num(i + 4)) {
                    (Some(r), Some(g), Some(b)) => {
                        (Some(nearest16(clamp8(r), clamp8(g), clamp8(b))), 5)
                    }
                    _ => (None, 0),
                },
                _ => (None, 0),
            };
            // a malformed colour: the sequence is written as it came
            let n = n?;
            match code {
                "38" => out.push(classic(n, 30, 90)),
                "48" => out.push(classic(n, 40, 100)),
                // underline colour: no 16-colour form, the underline keeps the text colour
                _ => {}
            }
            i += used;
        } else {
            out.push(code.to_string());
            i += 1;
        }
    }
    Some(out.join(";"))
}

fn clamp8(v: u16) -> u8 {
    v.min(255) as u8
}

/// `base + n` for the 8 normal colours, `bright + n - 8` for the 8 bright ones.
fn classic(n: u8, base: u8, bright: u8) -> String {
    if n < 8 {
        (base + n).to_string()
    } else {
        (bright + n - 8).to_string()
    }
}

/// The xterm palette of the 16 ANSI colours (for mapping other colours to the nearest).
const ANSI16_RGB: [(u8, u8, u8); 16] = [
    (0, 0, 0),
    (205, 0, 0),
    (0, 205, 0),
    (205, 205, 0),
    (0, 0, 238),
    (205, 0, 205),
    (0, 205, 205),
    (229, 229, 229),
    (127, 127, 127),
    (255, 0, 0),
    (0, 255, 0),
    (255, 255, 0),
    (92, 92, 255),
    (255, 0, 255),
    (0, 255, 255),
    (255, 255, 255),
];

/// A 256-colour index as one of the 16 (indexes below 16 are themselves).
fn indexed16(n: u8) -> u8 {
    if n < 16 {
        return n;
    }
    let (r, g, b) = if n >= 232 {
        let v = 8 + (n - 232) * 10;
        (v, v, v)
    } else {
        let c = n - 16;
        let step = |x: u8| if x == 0 { 0 } else { 55 + x * 40 };
        (step(c / 36), step((c / 6) % 6), step(c % 6))
    };
    nearest16(r, g, b)
}

fn nearest16(r: u8, g: u8, b: u8) -> u8 {
    let d = |(x, y, z): (u8, u8, u8)| {
        let (dr, dg, db) = (
            i32::from(x) - i32::from(r),
            i32::from(y) - i32::from(g),
            i32::from(z) - i32::from(b),
        );
        dr * dr + dg * dg + db * db
    };
    (0..16u8)
        .min_by_key(|&i| d(ANSI16_RGB[i as usize]))
        .unwrap_or(7)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filtered(chunks: &[&[u8]], level: ColorLevel) -> String {
        let mut f = Sgr16::new(Vec::new(), level);
        for c in chunks {
            f.write_all(c).unwrap();
        }
        f.flush().unwrap();
        String::from_utf8(f.into_inner()).unwrap()
    }

    #[test]
    fn named_colours_become_classic_codes() {
        let one = |s: &str| filtered(&[s.as_bytes()], ColorLevel::Ansi16);
        assert_eq!(one("\x1b[38;5;2;49mok"), "\x1b[32;49mok");
        assert_eq!(one("\x1b[39;48;5;12m"), "\x1b[39;104m");
        assert_eq!(one("\x1b[38;5;9;48;5;0m"), "\x1b[91;40m");
        assert_eq!(one("\x1b[1;38;5;15m"), "\x1b[1;97m");
        // 256-colour and RGB values map to the nearest of the 16
        assert_eq!(one("\x1b[38;5;196m"), "\x1b[91m");
        assert_eq!(one("\x1b[38;5;232m"), "\x1b[30m");
        assert_eq!(one("\x1b[48;2;250;250;250m"), "\x1b[107m");
        // an underline colour alone is dropped, never turned into a reset
        assert_eq!(one("a\x1b[58;5;3mb"), "ab");
        assert_eq!(one("\x1b[4;58;5;3m"), "\x1b[4m");
    }

    #[test]
    fn everything_else_passes_through() {
        let one = |s: &str| filtered(&[s.as_bytes()], ColorLevel::Ansi16);
        for s in [
            "plain text │ ▶ █",
            "\x1b[0m\x1b[1m\x1b[7m\x1b[39;49m",
            "\x1b[12;40H\x1b[?2026h\x1b[?1049l\x1b[2J",
            "\x1b]52;c;aGVsbG8=\x07",
            "\x1bPtmux;\x1b\x1b]52;c;eA==\x07\x1b\\",
            "\x1b[38;5m",
        ] {
            assert_eq!(one(s), s);
        }
        // other modes are not touched at all
        let s = "\x1b[38;5;2m\x1b[48;2;1;2;3m";
        for level in [ColorLevel::Ansi256, ColorLevel::TrueColor, ColorLevel::Mono] {
            assert_eq!(filtered(&[s.as_bytes()], level), s);
        }
    }

    #[test]
    fn sequences_split_across_writes_are_reassembled() {
        let whole = "x\x1b[38;5;4;48;5;11my\x1b[0m";
        let b = whole.as_bytes();
        for cut in 0..=b.len() {
            let got = filtered(&[&b[..cut], &b[cut..]], ColorLevel::Ansi16);
            assert_eq!(got, "x\x1b[34;103my\x1b[0m", "cut at {cut}");
        }
    }

    #[test]
    fn the_palette_maps_onto_itself() {
        for n in 0..16u8 {
            let (r, g, b) = ANSI16_RGB[n as usize];
            assert_eq!(nearest16(r, g, b), n);
            assert_eq!(indexed16(n), n);
        }
    }
}
