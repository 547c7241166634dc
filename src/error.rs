//! Input errors: one line naming the file and the place (JSON pointer or line:column).

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
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

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.place.is_empty() {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}:{}: {}", self.file, self.place, self.message)
        }
    }
}

impl std::error::Error for InputError {}
