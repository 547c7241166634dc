//! `s`: the current screen as plain text, SVG and HTML (for slides and bug reports).
//! The exports are rendered from the same pure view function as the terminal frame.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

use super::app::App;
use super::text;
use super::theme::ThemeKind;

/// One cell: its symbol and how many cells it covers.
fn cells(buf: &Buffer, y: u16) -> Vec<(u16, String, Color, Color, Modifier)> {
    let a = buf.area;
    let mut out = Vec::new();
    let mut x = a.x;
    while x < a.x + a.width {
        let c = &buf[(x, y)];
        let sym = c.symbol().to_string();
        let w = text::width(&sym).max(1) as u16;
        out.push((x, sym, c.fg, c.bg, c.modifier));
        x = x.saturating_add(w);
    }
    out
}

/// The screen as text: one line per row, trailing spaces removed.
pub fn to_text(buf: &Buffer) -> String {
    let a = buf.area;
    let mut s = String::new();
    for y in a.y..a.y + a.height {
        let line: String = cells(buf, y).into_iter().map(|c| c.1).collect();
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s
}

fn defaults(kind: ThemeKind) -> ((u8, u8, u8), (u8, u8, u8)) {
    match kind {
        ThemeKind::Light => ((0x20, 0x20, 0x28), (0xfa, 0xfa, 0xf7)),
        _ => ((0xd8, 0xda, 0xe0), (0x1b, 0x1d, 0x26)),
    }
}

const ANSI: [(u8, u8, u8); 16] = [
    (0x1b, 0x1d, 0x26),
    (0xcd, 0x31, 0x31),
    (0x0d, 0xbc, 0x79),
    (0xe5, 0xe5, 0x10),
    (0x24, 0x72, 0xc8),
    (0xbc, 0x3f, 0xbc),
    (0x11, 0xa8, 0xcd),
    (0xe5, 0xe5, 0xe5),
    (0x76, 0x76, 0x76),
    (0xf1, 0x4c, 0x4c),
    (0x23, 0xd1, 0x8b),
    (0xf5, 0xf5, 0x43),
    (0x3b, 0x8e, 0xea),
    (0xd6, 0x70, 0xd6),
    (0x29, 0xb8, 0xdb),
    (0xff, 0xff, 0xff),
];

fn rgb(c: Color, default: (u8, u8, u8)) -> (u8, u8, u8) {
    match c {
        Color::Reset => default,
        Color::Black => ANSI[0],
        Color::Red => ANSI[1],
        Color::Green => ANSI[2],
        Color::Yellow => ANSI[3],
        Color::Blue => ANSI[4],
        Color::Magenta => ANSI[5],
        Color::Cyan => ANSI[6],
        Color::Gray => ANSI[7],
        Color::DarkGray => ANSI[8],
        Color::LightRed => ANSI[9],
        Color::LightGreen => ANSI[10],
        Color::LightYellow => ANSI[11],
        Color::LightBlue => ANSI[12],
        Color::LightMagenta => ANSI[13],
        Color::LightCyan => ANSI[14],
        Color::White => ANSI[15],
        Color::Rgb(r, g, b) => (r, g, b),
        Color::Indexed(i) => indexed(i),
    }
}

fn indexed(i: u8) -> (u8, u8, u8) {
    match i {
        0..=15 => ANSI[i as usize],
        16..=231 => {
            let v = i - 16;
            let f = |x: u8| if x == 0 { 0 } else { 55 + 40 * x };
            (f(v / 36), f((v / 6) % 6), f(v % 6))
        }
        _ => {
            let g = 8 + 10 * (i - 232);
            (g, g, g)
        }
    }
}

fn hex(c: (u8, u8, u8)) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Resolved colours of a cell (reverse applied).
fn colours(fg: Color, bg: Color, m: Modifier, kind: ThemeKind) -> (String, String) {
    let (dfg, dbg) = defaults(kind);
    let (mut f, mut b) = (rgb(fg, dfg), rgb(bg, dbg));
    if m.contains(Modifier::REVERSED) {
        std::mem::swap(&mut f, &mut b);
    }
    (hex(f), hex(b))
}

/// Runs of cells with the same style on a row: (x, cells, text, fg, bg, modifier).
fn runs(buf: &Buffer, y: u16) -> Vec<(u16, u16, String, Color, Color, Modifier)> {
    let mut out: Vec<(u16, u16, String, Color, Color, Modifier)> = Vec::new();
    for (x, sym, fg, bg, m) in cells(buf, y) {
        let w = text::width(&sym).max(1) as u16;
        if let Some(last) = out.last_mut()
            && last.3 == fg
            && last.4 == bg
            && last.5 == m
            && last.0 + last.1 == x
        {
            last.1 += w;
            last.2.push_str(&sym);
            continue;
        }
        out.push((x, w, sym, fg, bg, m));
    }
    out
}

/// The fonts an export asks for, in order: Latin monospace fonts, then fonts with Hangul,
/// Kana and Han (a Korean or Japanese summary in a graph is drawn in the first of these
/// the viewer has, not as boxes), then the generic families. Each name is quoted, so the
/// list serves both CSS (HTML) and the SVG `font-family` attribute.
pub const FONT_FAMILY: &str = "'DejaVu Sans Mono', Menlo, Consolas, \
'D2Coding', 'Noto Sans Mono CJK KR', 'Noto Sans Mono CJK JP', 'Noto Sans Mono CJK SC', \
'Source Han Mono', 'Sarasa Mono K', 'NanumGothicCoding', 'Noto Sans CJK KR', \
'Source Han Sans K', 'Apple SD Gothic Neo', 'Malgun Gothic', 'MS Gothic', monospace";

pub fn to_html(buf: &Buffer, kind: ThemeKind) -> String {
    let (dfg, dbg) = defaults(kind);
    let mut s = String::new();
    let _ = write!(
        s,
        "<!doctype html>\n<meta charset=\"utf-8\">\n<title>toolscope</title>\n<pre style=\"font-family: {FONT_FAMILY}; font-size: 14px; line-height: 1.2; background: {}; color: {}; padding: 12px; display: inline-block\">",
        hex(dbg),
        hex(dfg)
    );
    for y in buf.area.y..buf.area.y + buf.area.height {
        for (_, _, t, fg, bg, m) in runs(buf, y) {
            let plain = fg == Color::Reset && bg == Color::Reset && m.is_empty();
            if plain {
                s.push_str(&esc(&t));
                continue;
            }
            let (f, b) = colours(fg, bg, m, kind);
            let mut css = format!("color:{f};");
            if bg != Color::Reset || m.contains(Modifier::REVERSED) {
                let _ = write!(css, "background:{b};");
            }
            if m.contains(Modifier::BOLD) {
                css.push_str("font-weight:bold;");
            }
            if m.contains(Modifier::UNDERLINED) {
                css.push_str("text-decoration:underline;");
            }
            if m.contains(Modifier::DIM) {
                css.push_str("opacity:.6;");
            }
            let _ = write!(s, "<span style=\"{css}\">{}</span>", esc(&t));
        }
        s.push('\n');
    }
    s.push_str("</pre>\n");
    s
}

pub fn to_svg(buf: &Buffer, kind: ThemeKind) -> String {
    let (cw, ch) = (8.4f64, 17.0f64);
    let (dfg, dbg) = defaults(kind);
    let a = buf.area;
    let (w, h) = (a.width as f64 * cw + 16.0, a.height as f64 * ch + 16.0);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\">"
    );
    let _ = writeln!(
        s,
        "<rect width=\"100%\" height=\"100%\" fill=\"{}\"/>\n<g font-family=\"{FONT_FAMILY}\" font-size=\"14\" fill=\"{}\" xml:space=\"preserve\">",
        hex(dbg),
        hex(dfg)
    );
    for y in a.y..a.y + a.height {
        let top = 8.0 + (y - a.y) as f64 * ch;
        for (x, cells, t, fg, bg, m) in runs(buf, y) {
            let (f, b) = colours(fg, bg, m, kind);
            let left = 8.0 + (x - a.x) as f64 * cw;
            if bg != Color::Reset || m.contains(Modifier::REVERSED) {
                let _ = writeln!(
                    s,
                    "<rect x=\"{left:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{ch:.1}\" fill=\"{b}\"/>",
                    cells as f64 * cw
                );
            }
            if t.trim().is_empty() {
                continue;
            }
            let mut attrs = String::new();
            if fg != Color::Reset || m.contains(Modifier::REVERSED) {
                let _ = write!(attrs, " fill=\"{f}\"");
            }
            if m.contains(Modifier::BOLD) {
                attrs.push_str(" font-weight=\"bold\"");
            }
            if m.contains(Modifier::UNDERLINED) {
                attrs.push_str(" text-decoration=\"underline\"");
            }
            let _ = writeln!(
                s,
                "<text x=\"{left:.1}\" y=\"{:.1}\" textLength=\"{:.1}\" lengthAdjust=\"spacingAndGlyphs\"{attrs}>{}</text>",
                top + ch * 0.78,
                cells as f64 * cw,
                esc(&t)
            );
        }
    }
    s.push_str("</g>\n</svg>\n");
    s
}

/// The directory screens are saved in: `$XDG_STATE_HOME/toolscope/screens`, else
/// `~/.local/state/toolscope/screens`, else the current directory.
pub fn default_dump_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("XDG_STATE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(d).join("toolscope").join("screens");
    }
    if let Some(h) = std::env::var_os("HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(h)
            .join(".local")
            .join("state")
            .join("toolscope")
            .join("screens");
    }
    PathBuf::from(".")
}

/// Writes `screen-NNN.{txt,svg,html}` (the next free number) and returns the paths.
pub fn save(app: &App, width: u16, height: u16, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let (buf, _) = super::views::render_buffer(app, width, height);
    let mut n = 1u32;
    let stem = loop {
        let stem = format!("screen-{n:03}");
        if !dir.join(format!("{stem}.txt")).exists() {
            break stem;
        }
        n += 1;
    };
    let kind = app.caps.theme;
    let files = [
        (format!("{stem}.txt"), to_text(&buf)),
        (format!("{stem}.svg"), to_svg(&buf, kind)),
        (format!("{stem}.html"), to_html(&buf, kind)),
    ];
    let mut out = Vec::new();
    for (name, content) in files {
        let p = dir.join(name);
        std::fs::write(&p, content)?;
        out.push(p);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::style::Style;

    #[test]
    fn text_svg_html_of_a_small_buffer() {
        let mut b = Buffer::empty(Rect::new(0, 0, 6, 2));
        b.set_string(0, 0, "a<b", Style::default().fg(Color::Red));
        b.set_string(0, 1, "주x", Style::default());
        assert_eq!(to_text(&b), "a<b\n주x\n");
        let h = to_html(&b, ThemeKind::Dark);
        assert!(h.contains("a&lt;b") && h.contains("#cd3131"), "{h}");
        let s = to_svg(&b, ThemeKind::Light);
        assert!(s.contains("a&lt;b") && s.starts_with("<svg"), "{s}");
        assert_eq!(indexed(196), (255, 0, 0));
        assert_eq!(indexed(232), (8, 8, 8));
    }

    /// Korean text in an export names fonts that have Hangul (not only DejaVu Sans Mono,
    /// whose missing glyphs draw as boxes), in HTML and SVG alike, before the generic one.
    #[test]
    fn exports_name_cjk_fonts() {
        let mut b = Buffer::empty(Rect::new(0, 0, 8, 1));
        b.set_string(0, 0, "주문조회", Style::default());
        for out in [to_html(&b, ThemeKind::Dark), to_svg(&b, ThemeKind::Dark)] {
            let fams = out
                .split("font-family")
                .nth(1)
                .expect("a font-family")
                .split(['"', ';'])
                .find(|s| s.contains("monospace"))
                .expect("the list")
                .to_string();
            for f in [
                "'DejaVu Sans Mono'",
                "'Noto Sans Mono CJK KR'",
                "'Noto Sans CJK KR'",
                "'D2Coding'",
                "'Malgun Gothic'",
                "'Apple SD Gothic Neo'",
                "'Source Han Mono'",
            ] {
                assert!(fams.contains(f), "{f} missing from {fams}");
            }
            assert!(fams.trim_end().ends_with("monospace"), "{fams}");
            assert!(out.contains("주문조회"), "{out}");
        }
    }
}
