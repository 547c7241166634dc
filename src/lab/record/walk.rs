//! Walking captured evidence: the values of a file (one JSON document, a list, or JSON
//! Lines; gzip or not), of standard input, or of a folder of them, read as a stream —
//! a JSON Lines file is never held whole, and each line is handed on as soon as it is
//! read, so a pipe that stalls does not hold back what came before.
//!
//! **JSON Lines or one document**, decided from the content, robustly: a first line that
//! is a JSON value on its own starts JSON Lines (a file that is that one line is one
//! document, and a list on it is a list of records); a first line that is not (a pretty document's `{`, a garbage or torn line)
//! is held with the lines after it until either a later line is a record on its own
//! (a non-empty object or list) and what is held cannot begin a JSON document — then it
//! is JSON Lines and every held line that does not parse is an error at its line number —
//! or the input ends: then it is one document, else JSON Lines when any line parses on its
//! own, else one error where the document breaks. A bad line is counted and listed
//! wherever it is; only input where nothing is readable is an error as a whole.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::RunRecord;
use crate::error::InputError;
use crate::limits::{INPUT_BYTES, Line, Lines, RECORD_BYTES};

/// The message for a value that is none of the kinds a record can be.
pub const NOT_A_RECORD: &str = "not a retrieval response, selector block or fixture";

/// What a document that is not JSON at all was expected to be (for its error).
const EXPECTED: &str =
    "evidence (a retrieval response, fixture, selector block or JSON Lines of them)";

/// Where a value of an evidence file sits.
#[derive(Debug, Clone)]
pub struct Origin {
    /// The file, as shown in messages (sanitised).
    pub file: String,
    /// The file's name with the item (`f.json`, `f.json#2`, `f.jsonl:3`), for display.
    pub label: String,
    /// The id a record without one takes (`f`, `f#2`, `f:3`).
    pub fallback_id: String,
    /// The place inside the file: empty, a JSON pointer (`/1`) or a line number.
    pub place: String,
}

impl Origin {
    /// An error about this value, at `pointer` inside it.
    pub fn error(&self, pointer: &str, message: String) -> InputError {
        let place = match (self.place.as_str(), pointer) {
            (p, "") => p.to_string(),
            (p, ptr) if p.starts_with('/') || p.is_empty() => format!("{p}{ptr}"),
            (line, ptr) => format!("{line} {ptr}"),
        };
        InputError::new(&self.file, &place, message)
    }
}

/// One part of an evidence stream.
#[derive(Debug)]
pub enum Item {
    /// A line of a JSON Lines stream, not parsed yet ([`Item::into_value`] parses it, so a
    /// consumer may do that on another core).
    Line(Vec<u8>, Origin),
    /// A value of a document (or a line parsed while deciding what the input is).
    Value(Value, Origin),
    /// A part that cannot be read, with its place.
    Error(InputError),
}

impl Item {
    /// The value and where it sits; a line that is not JSON is an error at its line.
    pub fn into_value(self) -> Result<(Value, Origin), InputError> {
        match self {
            Item::Value(v, o) => Ok((v, o)),
            Item::Line(bytes, o) => match crate::jsonin::from_slice(&bytes) {
                Ok(v) => Ok((v, o)),
                Err(e) => Err(line_error(&o.file, &e, o.place.parse().unwrap_or(0))),
            },
            Item::Error(e) => Err(e),
        }
    }
}

fn line_error(file: &str, e: &serde_json::Error, line: usize) -> InputError {
    crate::model::load::json_error(file, e, "").with_line(line)
}

/// A line that is a record on its own: a non-empty object or list (what a pretty
/// document's lines never are).
fn record_line(bytes: &[u8]) -> Option<Value> {
    match crate::jsonin::from_slice(bytes) {
        Ok(v @ Value::Object(_)) if v.as_object().is_some_and(|o| !o.is_empty()) => Some(v),
        Ok(v @ Value::Array(_)) if v.as_array().is_some_and(|a| !a.is_empty()) => Some(v),
        _ => None,
    }
}

/// Whether `text` may be the beginning of a JSON document (it is one, or it ends early).
fn json_prefix(text: &[u8]) -> bool {
    match serde_json::from_slice::<serde::de::IgnoredAny>(text) {
        Ok(_) => true,
        Err(e) => e.is_eof(),
    }
}

enum State {
    /// Nothing but blank lines read yet.
    Start,
    /// JSON Lines: every line is handed on as read.
    Lines,
    /// The first line is not JSON on its own: the lines held (number, start in `text`).
    Held {
        text: Vec<u8>,
        lines: Vec<(usize, usize)>,
    },
    Done,
}

/// The values of one evidence input, in order (an iterator of [`Item`]).
pub struct Items {
    lines: Lines<Box<dyn BufRead + Send>>,
    shown: String,
    label: String,
    stem: String,
    /// Reading ahead cannot stall (a file, not a pipe).
    peekable: bool,
    state: State,
    pending: VecDeque<Item>,
}

impl Items {
    /// Reads `src` (gzip-compressed or not). `shown` names it in messages; `label` and
    /// `stem` make the values' labels and fallback ids; `peekable`: reading ahead cannot
    /// stall (a regular file).
    pub fn new(
        src: Box<dyn BufRead + Send>,
        shown: &str,
        label: &str,
        stem: &str,
        peekable: bool,
    ) -> Result<Items, InputError> {
        let mut src = src;
        let gzip = crate::limits::is_gzip(
            src.fill_buf()
                .map_err(|e| crate::limits::io_error(shown, &e))?,
        );
        if gzip {
            src = Box::new(BufReader::with_capacity(
                1 << 16,
                crate::limits::GzipReader::new(src),
            ));
        }
        Ok(Items {
            lines: Lines::with_max(src, INPUT_BYTES.get()),
            shown: shown.to_string(),
            label: label.to_string(),
            stem: stem.to_string(),
            peekable,
            state: State::Start,
            pending: VecDeque::new(),
        })
    }

    /// Opens a file, or standard input for `-` (a FIFO, socket or device path is refused
    /// by type, never waited on). Its items are labelled with the file's name.
    pub fn open(path: &str) -> Result<Items, InputError> {
        Items::open_labelled(path, false)
    }

    /// [`Items::open`] with the items labelled by the path as given (`logs/a/x.jsonl:3`),
    /// as `lab replay` names every record, readable or not: two files of one name in two
    /// folders stay apart in its output.
    pub fn open_as_given(path: &str) -> Result<Items, InputError> {
        Items::open_labelled(path, true)
    }

    fn open_labelled(path: &str, as_given: bool) -> Result<Items, InputError> {
        if path == "-" {
            let regular = std::fs::metadata("/dev/stdin").is_ok_and(|m| m.is_file());
            let src = BufReader::with_capacity(1 << 16, std::io::stdin());
            return Items::new(Box::new(src), "-", "-", "stdin", regular);
        }
        let p = Path::new(path);
        let shown = crate::limits::shown(p);
        let (file, _) = crate::limits::open_regular(p)?;
        let label = p
            .file_name()
            .filter(|_| !as_given)
            .map(|f| crate::sanitize::line(&f.to_string_lossy()))
            .unwrap_or_else(|| shown.clone());
        let stem = p
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        let src = BufReader::with_capacity(1 << 16, file);
        Items::new(Box::new(src), &shown, &label, &stem, true)
    }

    fn line_origin(&self, n: usize) -> Origin {
        Origin {
            file: self.shown.clone(),
            label: format!("{}:{n}", self.label),
            fallback_id: format!("{}:{n}", self.stem),
            place: n.to_string(),
        }
    }

    /// The items of one whole document: a list's items, or the value.
    fn document(&mut self, v: Value) {
        match v {
            Value::Array(items) => {
                for (i, v) in items.into_iter().enumerate() {
                    let o = Origin {
                        file: self.shown.clone(),
                        label: format!("{}#{}", self.label, i + 1),
                        fallback_id: format!("{}#{}", self.stem, i + 1),
                        place: format!("/{i}"),
                    };
                    self.pending.push_back(Item::Value(v, o));
                }
            }
            v => {
                let o = Origin {
                    file: self.shown.clone(),
                    label: self.label.clone(),
                    fallback_id: self.stem.clone(),
                    place: String::new(),
                };
                self.pending.push_back(Item::Value(v, o));
            }
        }
    }

    /// Held lines handed on one by one, as JSON Lines.
    fn release(&mut self, text: &[u8], lines: &[(usize, usize)]) {
        for (k, &(n, start)) in lines.iter().enumerate() {
            let end = lines.get(k + 1).map_or(text.len(), |x| x.1);
            let line = trim_line(&text[start..end]);
            if line.is_empty() {
                continue;
            }
            let item = match crate::jsonin::from_slice(line) {
                Ok(v) => Item::Value(v, self.line_origin(n)),
                Err(e) => Item::Error(line_error(&self.shown, &e, n)),
            };
            self.pending.push_back(item);
        }
    }

    /// The input ended while lines were held: one document, JSON Lines, or one error.
    fn end_held(&mut self, text: Vec<u8>, lines: Vec<(usize, usize)>) {
        // (without the newline held after the last line: a torn last line ends there)
        let body = text.strip_suffix(b"\n").unwrap_or(&text);
        match crate::jsonin::from_slice(body) {
            Ok(v) => self.document(v),
            Err(whole) => {
                let any = lines.iter().enumerate().any(|(k, &(_, start))| {
                    let end = lines.get(k + 1).map_or(text.len(), |x| x.1);
                    record_line(trim_line(&text[start..end])).is_some()
                });
                if any {
                    self.release(&text, &lines);
                } else {
                    let shown = String::from_utf8_lossy(body);
                    let e = crate::model::load::not_json(&self.shown, &shown, EXPECTED)
                        .unwrap_or_else(|| crate::model::load::json_error(&self.shown, &whole, ""));
                    self.pending.push_back(Item::Error(e));
                }
            }
        }
    }

    /// Reads on until there is an item to hand on (or the input ends).
    fn step(&mut self) {
        let line = match self.lines.next_line() {
            Ok(l) => l,
            Err(e) => {
                let place = (self.lines.line + 1).to_string();
                let msg = crate::limits::io_message(&e);
                self.pending
                    .push_back(Item::Error(InputError::new(&self.shown, &place, msg)));
                self.state = State::Done;
                return;
            }
        };
        let n = self.lines.line;
        let state = std::mem::replace(&mut self.state, State::Done);
        self.state = match (state, line) {
            (State::Held { text, lines }, None) => {
                self.end_held(text, lines);
                State::Done
            }
            (State::Start, None) => {
                let e = InputError::new(&self.shown, "", format!("empty: expected {EXPECTED}"));
                self.pending.push_back(Item::Error(e));
                State::Done
            }
            (_, None) => State::Done,
            (State::Done, _) => State::Done,
            (state, Some(Line::TooLong { .. })) => {
                if let State::Held { text, lines } = state {
                    self.release(&text, &lines);
                }
                let e = RECORD_BYTES.exceeded(&self.shown, &n.to_string());
                self.pending.push_back(Item::Error(e));
                self.lines.set_max(RECORD_BYTES.get());
                State::Lines
            }
            (State::Lines, Some(Line::Text(b))) => {
                if !trim_line(&b).is_empty() {
                    self.pending.push_back(Item::Line(b, self.line_origin(n)));
                }
                State::Lines
            }
            (State::Start, Some(Line::Text(b))) => self.first(b, n),
            (
                State::Held {
                    mut text,
                    mut lines,
                },
                Some(Line::Text(b)),
            ) => {
                let before = text.len();
                if let Some(v) = record_line(trim_line(&b))
                    && !json_prefix(&text)
                {
                    self.release(&text, &lines);
                    self.pending.push_back(Item::Value(v, self.line_origin(n)));
                    self.lines.set_max(RECORD_BYTES.get());
                    State::Lines
                } else if before as u64 + b.len() as u64 > INPUT_BYTES.get() {
                    let e = INPUT_BYTES.exceeded(&self.shown, "");
                    self.pending.push_back(Item::Error(e));
                    State::Done
                } else {
                    lines.push((n, before));
                    text.extend_from_slice(&b);
                    text.push(b'\n');
                    State::Held { text, lines }
                }
            }
        };
    }

    /// The first line that is not blank.
    fn first(&mut self, b: Vec<u8>, n: usize) -> State {
        let b = match b.strip_prefix("\u{feff}".as_bytes()) {
            Some(rest) => rest.to_vec(),
            None => b,
        };
        if trim_line(&b).is_empty() {
            return State::Start;
        }
        match crate::jsonin::from_slice(&b) {
            Ok(v) => {
                let alone = self.peekable && matches!(self.lines.skip_blank(), Ok(true));
                if alone || v.is_array() {
                    // the whole input is this one line (or a list on it): one document
                    self.document(v);
                } else {
                    self.pending.push_back(Item::Value(v, self.line_origin(n)));
                }
                self.lines.set_max(RECORD_BYTES.get());
                if alone { State::Done } else { State::Lines }
            }
            Err(_) => {
                let mut text = b;
                text.push(b'\n');
                State::Held {
                    text,
                    lines: vec![(n, 0)],
                }
            }
        }
    }
}

fn trim_line(b: &[u8]) -> &[u8] {
    let start = b
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(b.len());
    let end = b
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    &b[start..end.max(start)]
}

impl Iterator for Items {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        loop {
            if let Some(it) = self.pending.pop_front() {
                return Some(it);
            }
            if matches!(self.state, State::Done) {
                return None;
            }
            self.step();
        }
    }
}

/// Reads every JSON value of an evidence file (one value, a list, or JSON Lines) or of a
/// folder of them (`*.json` and `*.jsonl`, sorted, `manifest.json` aside) and hands each
/// to `visit`. Returns the errors of the parts that could not be read or that `visit`
/// refused, in file order; `Err` only when `path` itself cannot be read. The one walk over
/// captured evidence: `lab diff`, `lab check` and the Evidence and Diff screens use it
/// (`lab replay` reads the same [`Items`] as a stream).
pub fn walk(
    path: &Path,
    visit: &mut dyn FnMut(&Value, &Origin) -> Result<(), InputError>,
) -> Result<Vec<InputError>, InputError> {
    let mut errors = Vec::new();
    let shown = crate::limits::shown(path);
    let meta = std::fs::metadata(path).map_err(|e| crate::limits::io_error(&shown, &e))?;
    if meta.is_dir() {
        let files = folder_files(path, &["json", "jsonl"])?;
        if files.is_empty() {
            errors.push(InputError::new(
                &shown,
                "",
                "no .json or .jsonl file in the folder".into(),
            ));
        }
        for f in files {
            match walk(&f, visit) {
                Ok(e) => errors.extend(e),
                Err(e) => errors.push(e),
            }
        }
        return Ok(errors);
    }
    for item in Items::open(&path.to_string_lossy())? {
        if let Err(e) = item.into_value().and_then(|(v, o)| visit(&v, &o)) {
            errors.push(e);
        }
    }
    Ok(errors)
}

/// The files of a folder with one of `extensions`, sorted, `manifest.json` aside.
pub fn folder_files(dir: &Path, extensions: &[&str]) -> Result<Vec<PathBuf>, InputError> {
    let shown = crate::limits::shown(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| crate::limits::io_error(&shown, &e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension()
                .is_some_and(|x| extensions.iter().any(|e| x == *e))
                && p.file_name().is_some_and(|n| n != "manifest.json")
        })
        .collect();
    files.sort();
    Ok(files)
}

/// Reads every record of an evidence file or folder with [`walk`] and [`RunRecord::parse`]:
/// values that are no record and records with a malformed field are errors.
pub fn read_records(path: &Path) -> Result<(Vec<RunRecord>, Vec<InputError>), InputError> {
    let mut recs = Vec::new();
    let errors = walk(
        path,
        &mut |v, o| match RunRecord::parse(v, &o.fallback_id) {
            Ok(Some(r)) => {
                recs.push(r);
                Ok(())
            }
            Ok(None) => Err(o.error("", NOT_A_RECORD.into())),
            Err(m) => Err(o.error(&m.pointer, m.message)),
        },
    )?;
    Ok((recs, errors))
}

/// Reads a stream to its end as [`Items`] (for tests and small inputs).
pub fn items_of(r: impl Read + Send + 'static, name: &str) -> Result<Items, InputError> {
    Items::new(
        Box::new(BufReader::new(r)),
        name,
        name,
        name.trim_end_matches(".jsonl").trim_end_matches(".json"),
        false,
    )
}
