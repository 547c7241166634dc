//! OSC 52 clipboard: the only clipboard that reaches the operator's own machine over SSH.
//! Inside tmux the sequence is sent twice: plain (tmux takes it with `set-clipboard on` and
//! forwards it) and wrapped in tmux's DCS passthrough (reaches the outer terminal with
//! `allow-passthrough on`); tmux's defaults accept neither, which `doctor` says.

use base64::Engine as _;

/// The escape sequence that puts `payload` on the clipboard.
pub fn osc52(payload: &str, tmux_passthrough: bool) -> String {
    let b64 = base64::engine::general_purpose::STANDARD.encode(payload.as_bytes());
    let seq = format!("\u{1b}]52;c;{b64}\u{7}");
    if tmux_passthrough {
        format!(
            "{seq}\u{1b}Ptmux;{}\u{1b}\\",
            seq.replace('\u{1b}', "\u{1b}\u{1b}")
        )
    } else {
        seq
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_and_tmux() {
        assert_eq!(osc52("hi", false), "\u{1b}]52;c;aGk=\u{7}");
        assert_eq!(
            osc52("hi", true),
            "\u{1b}]52;c;aGk=\u{7}\u{1b}Ptmux;\u{1b}\u{1b}]52;c;aGk=\u{7}\u{1b}\\"
        );
    }
}
