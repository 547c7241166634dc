//! Input errors: one line naming the file and the place (JSON pointer or line:column).

/// What is wrong with an input, where: `FILE:PLACE: MESSAGE` (or `FILE: MESSAGE` when the
/// whole document is at fault).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}: {message}", place_suffix(place))]
pub struct InputError {
    pub file: String,
    pub place: String,
    pub message: String,
}

impl InputError {
    pub fn new(file: &str, place: &str, message: String) -> Self {
        InputError {
            file: file.to_string(),
            place: place.to_string(),
            message,
        }
    }
}

impl InputError {
    /// For errors inside one line of a JSON Lines file: puts the file's line number first.
    pub fn with_line(mut self, line: usize) -> Self {
        let rest = match self.place.split_once(':') {
            Some((l, rest)) if l.chars().all(|c| c.is_ascii_digit()) => rest.to_string(),
            _ => String::new(),
        };
        self.place = if rest.is_empty() {
            line.to_string()
        } else {
            format!("{line}:{rest}")
        };
        self
    }
}

fn place_suffix(place: &str) -> String {
    if place.is_empty() {
        String::new()
    } else {
        format!(":{place}")
    }
}
