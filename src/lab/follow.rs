//! Following production evidence: each line of a growing JSON Lines file (read by
//! [`super::tail`]) becomes an [`Entry`] — the record read by the one record reader
//! ([`super::record::RunRecord::parse`], trace envelopes included), its triage class from
//! the captured fields ([`super::captured`]) and, with a graph, its replay
//! ([`super::replay`]: reproduced, or drifted with the first differing field) — and a
//! [`Stream`] keeps a bounded ring of recent entries plus counters: per class, per reason
//! code and per replay outcome, in total and in ten-second buckets over the last five
//! minutes (the sparklines). Older records are counted, not kept; each entry names its
//! line and byte offset, so the file itself finds it again. No terminal code here.
//!
//! The class is about one tool: the record's labelled expected tool when it has one, else
//! the LLM's pick (`llm_target`: did the selector keep or override what the model asked
//! for?), else the recorded target itself (then `selected`, or `selector_ambiguous`).

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use serde_json::Value;

use super::captured;
use super::record::{NOT_A_RECORD, RunRecord};
use super::replay::{self, DriftKind, Status};
use super::tail::{LineBlock, Tail, TailEvent};
use crate::engine::Engine;
use crate::engine::knobs::Knobs;
use crate::engine::triage::CLASSES;

/// Recent entries kept for the list (older ones are counted only).
pub const RING: usize = 5_000;
/// Seconds per sparkline bucket, and buckets kept (five minutes).
pub const BUCKET_SECS: u64 = 10;
pub const BUCKETS: usize = 30;
/// Distinct reason codes counted by name; the rest count as `(other)`.
pub const CODES_MAX: usize = 64;
/// Unreadable lines listed (the count goes on).
pub const ERRORS_KEPT: usize = 50;

/// The classes a followed record can have: the triage classes, then `unresolved` (the
/// capture lacks a field the class needs) and `unreadable` (not JSON, not a record).
pub fn classes() -> impl Iterator<Item = &'static str> {
    CLASSES.iter().copied().chain(["unresolved", "unreadable"])
}

pub const CLASS_COUNT: usize = CLASSES.len() + 2;

pub fn class_index(c: &str) -> usize {
    classes().position(|x| x == c).unwrap_or(CLASS_COUNT - 1)
}

/// The classes with records in `counts`, as `(index, name)`, in the order `c` steps
/// through them: failure classes first, then `selected` and `unresolved` (the Follow
/// screen's table lists them biggest first).
pub fn classes_seen(counts: &Counts) -> Vec<(usize, &'static str)> {
    let mut v: Vec<(usize, &'static str)> = classes()
        .enumerate()
        .filter(|(i, _)| counts.classes[*i] > 0)
        .collect();
    v.sort_by_key(|(i, c)| (*c == "selected", *c == "unresolved", *i));
    v
}

/// Which tool a record's class is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// The record's labelled expected tool.
    Label,
    /// The LLM's pick.
    Llm,
    /// The recorded target.
    Target,
    /// Nothing to classify against.
    None,
}

impl Basis {
    pub fn name(self) -> &'static str {
        match self {
            Basis::Label => "expected tool",
            Basis::Llm => "LLM's pick",
            Basis::Target => "recorded target",
            Basis::None => "no tool",
        }
    }
}

/// A replayed record's outcome, in short.
#[derive(Debug, Clone, PartialEq)]
pub struct Replayed {
    pub status: Status,
    pub drift: Option<DriftKind>,
    /// The first differing field (a JSON pointer) and both values, as compact JSON.
    pub difference: Option<(String, String, String)>,
    pub detail: Option<String>,
}

/// One followed line.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// 1-based record number in the stream (every line counts).
    pub seq: u64,
    /// Which file under the name (1, then +1 per rotation).
    pub file_gen: u32,
    pub line: u64,
    pub offset: u64,
    /// Milliseconds since following started, when it was read.
    pub at_ms: u64,
    pub id: String,
    pub kind: &'static str,
    pub query: Option<String>,
    /// The recorded parameters (what a replay and the explorer use).
    pub knobs: Option<Knobs>,
    /// Parameters recorded without a usable value (redacted, or of another type): their
    /// names and the values as recorded (sanitised); `knobs` holds defaults in their
    /// place, which are never shown or used as theirs.
    pub unknown_params: Vec<(String, String)>,
    pub target: Option<String>,
    pub llm: Option<String>,
    pub top: Option<String>,
    /// The tool the class is about, and why that one.
    pub about: Option<String>,
    pub basis: Basis,
    pub class: &'static str,
    /// Its rank in the captured rows.
    pub rank: Option<usize>,
    pub codes: Vec<String>,
    pub replay: Option<Replayed>,
    /// Why the line is unreadable.
    pub error: Option<String>,
}

/// Where a line sits.
#[derive(Debug, Clone, Copy)]
pub struct At {
    pub seq: u64,
    pub file_gen: u32,
    pub line: u64,
    pub offset: u64,
    pub at_ms: u64,
}

fn short(v: &Value) -> String {
    let s = crate::jsonout::to_compact_safe(v);
    if s.chars().count() <= 120 {
        s
    } else {
        format!("{}…", s.chars().take(119).collect::<String>())
    }
}

/// A line over [`super::tail::MAX_LINE`] bytes, skipped.
pub fn overlong(at: At) -> Entry {
    unreadable(
        at,
        format!("line over {} MiB: skipped", super::tail::MAX_LINE >> 20),
    )
}

/// An entry for a line that cannot be read, saying why.
pub fn unreadable(at: At, why: String) -> Entry {
    Entry {
        seq: at.seq,
        file_gen: at.file_gen,
        line: at.line,
        offset: at.offset,
        at_ms: at.at_ms,
        id: format!("line {}", at.line),
        kind: "record",
        query: None,
        knobs: None,
        unknown_params: Vec::new(),
        target: None,
        llm: None,
        top: None,
        about: None,
        basis: Basis::None,
        class: "unreadable",
        rank: None,
        codes: Vec::new(),
        replay: None,
        error: Some(crate::sanitize::line(&why)),
    }
}

/// Reads, classifies and (with `engine`) replays one line. Never fails: a line that is
/// not a record is an `unreadable` entry saying why. Without a replay the line is read by
/// the fast path ([`super::record::skim`]: only what the classification shows is built),
/// else, and whenever the fast path does not take the line, by [`classify_line_whole`];
/// the entries are the same (`tests/follow_skim.rs`).
pub fn classify_line(engine: Option<&Engine>, text: &str, utf8: bool, at: At) -> Entry {
    if utf8
        && engine.is_none()
        && let Some(v) = super::record::skim::value(text)
    {
        return classify_value(None, &v, at);
    }
    classify_line_whole(engine, text, utf8, at)
}

/// [`classify_line`] with the whole line parsed into a value (what a replay compares
/// with, and the path the fast one is tested against).
pub fn classify_line_whole(engine: Option<&Engine>, text: &str, utf8: bool, at: At) -> Entry {
    if !utf8 {
        return unreadable(at, "not UTF-8".into());
    }
    let v: Value = match crate::jsonin::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            let why = if e.is_eof() {
                format!("torn line: JSON ends early (column {})", e.column())
            } else {
                format!("not JSON: {e}")
            };
            return unreadable(at, why);
        }
    };
    classify_value(engine, &v, at)
}

/// [`classify_line`] for a value already parsed.
pub fn classify_value(engine: Option<&Engine>, v: &Value, at: At) -> Entry {
    let rec = match RunRecord::parse(v, &format!("line {}", at.line)) {
        Ok(Some(r)) => r,
        Ok(None) => return unreadable(at, NOT_A_RECORD.into()),
        Err(m) => {
            let place = if m.pointer.is_empty() {
                String::new()
            } else {
                format!("{}: ", m.pointer)
            };
            return unreadable(at, format!("{place}{}", m.message));
        }
    };
    let named = |x: &Option<String>| x.clone().filter(|s| !s.is_empty());
    let (about, basis) = if let Some(x) = rec.expected.iter().find(|x| !x.is_empty()) {
        (Some(x.clone()), Basis::Label)
    } else if let Some(l) = named(&rec.llm_target) {
        (Some(l), Basis::Llm)
    } else if let Some(t) = named(&rec.selected_target) {
        (Some(t), Basis::Target)
    } else {
        (None, Basis::None)
    };
    let (class, rank) = match &about {
        Some(x) => {
            let t = captured::from_record(&rec, x);
            (t.class.unwrap_or("unresolved"), t.rank)
        }
        None => ("unresolved", None),
    };
    // the parameters matter only to a record that can be run again
    let knobs = rec.query.as_ref().map(|_| rec.knobs.clone());
    let replay = engine.map(|e| {
        let o = replay::replay_record(e, &rec, v, &rec.id);
        Replayed {
            status: o.status,
            drift: o.drift_kind,
            difference: o
                .difference
                .map(|d| (d.pointer, short(&d.recorded), short(&d.recomputed))),
            detail: o.detail,
        }
    });
    let clean = |s: &String| crate::sanitize::line(s);
    Entry {
        seq: at.seq,
        file_gen: at.file_gen,
        line: at.line,
        offset: at.offset,
        at_ms: at.at_ms,
        id: clean(&rec.id),
        kind: rec.kind.name(),
        query: rec.query.clone(),
        knobs,
        unknown_params: rec
            .unknown_params
            .iter()
            .map(|(n, v)| {
                let shown = match v {
                    Value::String(s) => s.clone(),
                    v => crate::jsonout::to_compact_safe(v),
                };
                (clean(n), clean(&shown))
            })
            .collect(),
        target: named(&rec.selected_target).as_ref().map(clean),
        llm: named(&rec.llm_target).as_ref().map(clean),
        top: rec.rows.first().map(|r| clean(&r.name)),
        about,
        basis,
        class,
        rank,
        codes: rec.reason_codes.iter().map(clean).collect(),
        replay,
        error: None,
    }
}

/// Replay outcomes counted: reproduced, drifted, partial, unreadable.
pub const STATUSES: [Status; 4] = [
    Status::Reproduced,
    Status::Drifted,
    Status::Partial,
    Status::Unreadable,
];

#[derive(Debug, Clone, Default, PartialEq)]
struct Bucket {
    /// `at_ms / (BUCKET_SECS * 1000)`.
    index: u64,
    records: u32,
    classes: [u32; CLASS_COUNT],
    /// Per code index of [`Counts::codes`].
    codes: Vec<u32>,
    drifted: u32,
}

/// Counts of a window (all time, or the last minutes).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counts {
    pub records: u64,
    pub classes: [u64; CLASS_COUNT],
    /// `(code, count)`, in first-seen order; `(other)` last once the table is full.
    pub codes: Vec<(String, u64)>,
    pub statuses: [u64; 4],
    pub drifts: [u64; 4],
}

/// A bounded view of a stream: the last [`RING`] entries, counters, the last
/// [`ERRORS_KEPT`] unreadable lines, and what the tail said last.
#[derive(Debug, Clone, Default)]
pub struct Stream {
    pub ring: VecDeque<Entry>,
    pub total: Counts,
    buckets: VecDeque<Bucket>,
    /// The unreadable lines: (place, reason).
    pub errors: VecDeque<(String, String)>,
    /// Entries dropped from the ring.
    pub dropped: u64,
    pub ring_cap: usize,
}

impl Stream {
    pub fn new() -> Stream {
        Stream {
            ring_cap: RING,
            ..Default::default()
        }
    }

    /// The index of `code` in the code table, adding it while there is room.
    fn code_index(&mut self, code: &str) -> usize {
        if let Some(i) = self.total.codes.iter().position(|(c, _)| c == code) {
            return i;
        }
        let full = self.total.codes.len() >= CODES_MAX;
        if full {
            if let Some(i) = self.total.codes.iter().position(|(c, _)| c == "(other)") {
                return i;
            }
            self.total.codes.push(("(other)".into(), 0));
        } else {
            self.total.codes.push((code.to_string(), 0));
        }
        self.total.codes.len() - 1
    }

    pub fn push(&mut self, e: Entry) {
        let ci = class_index(e.class);
        let codes: Vec<usize> = e.codes.iter().map(|c| self.code_index(c)).collect();
        let t = &mut self.total;
        t.records += 1;
        t.classes[ci] += 1;
        for &i in &codes {
            t.codes[i].1 += 1;
        }
        let mut drifted = false;
        if let Some(r) = &e.replay {
            t.statuses[STATUSES.iter().position(|s| *s == r.status).unwrap_or(3)] += 1;
            if let Some(k) = r.drift {
                t.drifts[DriftKind::ALL.iter().position(|x| *x == k).unwrap_or(3)] += 1;
                drifted = true;
            }
        }
        let index = e.at_ms / (BUCKET_SECS * 1000);
        if self.buckets.back().is_none_or(|b| b.index < index) {
            self.buckets.push_back(Bucket {
                index,
                ..Default::default()
            });
            while self.buckets.len() > BUCKETS {
                self.buckets.pop_front();
            }
        }
        let b = self.buckets.back_mut().expect("pushed above");
        b.records += 1;
        b.classes[ci] += 1;
        for &i in &codes {
            if b.codes.len() <= i {
                b.codes.resize(i + 1, 0);
            }
            b.codes[i] += 1;
        }
        b.drifted += u32::from(drifted);
        if let Some(why) = &e.error {
            self.errors
                .push_back((format!("line {}", e.line), why.clone()));
            while self.errors.len() > ERRORS_KEPT {
                self.errors.pop_front();
            }
        }
        self.ring.push_back(e);
        while self.ring.len() > self.ring_cap.max(1) {
            self.ring.pop_front();
            self.dropped += 1;
        }
    }

    fn live(&self, now_ms: u64) -> impl Iterator<Item = &Bucket> {
        let now = now_ms / (BUCKET_SECS * 1000);
        self.buckets
            .iter()
            .filter(move |b| b.index + BUCKETS as u64 > now)
    }

    /// Counts over the last five minutes (the live buckets).
    pub fn recent(&self, now_ms: u64) -> Counts {
        let mut c = Counts {
            codes: self
                .total
                .codes
                .iter()
                .map(|(n, _)| (n.clone(), 0))
                .collect(),
            ..Default::default()
        };
        for b in self.live(now_ms) {
            c.records += u64::from(b.records);
            for (i, n) in b.classes.iter().enumerate() {
                c.classes[i] += u64::from(*n);
            }
            for (i, n) in b.codes.iter().enumerate() {
                c.codes[i].1 += u64::from(*n);
            }
            // drifted records (the kinds are counted in total only)
            c.statuses[1] += u64::from(b.drifted);
        }
        c
    }

    /// Records per second over the last ten seconds (or since the start, if sooner).
    pub fn rate(&self, now_ms: u64) -> f64 {
        let from = now_ms.saturating_sub(10_000);
        let n = self
            .ring
            .iter()
            .rev()
            .take_while(|e| e.at_ms >= from)
            .count();
        let span = now_ms.clamp(1_000, 10_000) as f64 / 1000.0;
        n as f64 / span
    }

    /// Class `ci`'s count per bucket over the last five minutes, oldest first (always
    /// [`BUCKETS`] values; empty buckets are 0).
    pub fn spark(&self, ci: usize, now_ms: u64) -> Vec<u32> {
        let now = now_ms / (BUCKET_SECS * 1000);
        let mut out = vec![0u32; BUCKETS];
        for b in self.live(now_ms).filter(|b| b.index <= now) {
            out[BUCKETS - 1 - (now - b.index) as usize] = b.classes[ci];
        }
        out
    }
}

/// What the follow list shows: every entry, or those of one class, tool, reason code or
/// text (all given parts must match).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    pub class: Option<&'static str>,
    pub tool: Option<String>,
    pub code: Option<String>,
    /// Case-insensitive, in the query, the id and the tool names.
    pub text: Option<String>,
    /// Only drifted records.
    pub drifted: bool,
}

impl Filter {
    pub fn is_empty(&self) -> bool {
        *self == Filter::default()
    }

    pub fn matches(&self, e: &Entry) -> bool {
        if self.class.is_some_and(|c| c != e.class) {
            return false;
        }
        if self.drifted && e.replay.as_ref().is_none_or(|r| r.drift.is_none()) {
            return false;
        }
        let tools = [&e.target, &e.llm, &e.top, &e.about];
        if let Some(t) = &self.tool
            && !tools.iter().any(|x| x.as_deref() == Some(t.as_str()))
        {
            return false;
        }
        if let Some(c) = &self.code
            && !e.codes.iter().any(|x| x == c)
        {
            return false;
        }
        if let Some(t) = &self.text {
            let t = t.to_lowercase();
            let hit = |s: Option<&str>| s.is_some_and(|s| s.to_lowercase().contains(&t));
            if !(hit(e.query.as_deref())
                || hit(Some(&e.id))
                || tools.iter().any(|x| hit(x.as_deref()))
                || hit(e.error.as_deref()))
            {
                return false;
            }
        }
        true
    }

    /// The filter in words (`class outranked, tool getUser`), empty when none.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(c) = self.class {
            parts.push(format!("class {c}"));
        }
        if self.drifted {
            parts.push("drifted".into());
        }
        if let Some(t) = &self.tool {
            parts.push(format!("tool {}", crate::sanitize::line(t)));
        }
        if let Some(c) = &self.code {
            parts.push(format!("code {}", crate::sanitize::line(c)));
        }
        if let Some(t) = &self.text {
            parts.push(format!("text \"{}\"", crate::sanitize::line(t)));
        }
        parts.join(", ")
    }
}

/// What the follow thread sends.
#[derive(Debug, Clone)]
pub struct FollowMsg {
    pub generation: u64,
    pub entries: Vec<Entry>,
    /// What the tail said besides lines (missing, rotated, truncated, back).
    pub notes: Vec<TailEvent>,
    pub now_ms: u64,
    /// Bytes still to read (catching up on a large file).
    pub behind: u64,
}

/// A follow to start on its thread.
#[derive(Debug, Clone)]
pub struct FollowJob {
    pub generation: u64,
    pub path: PathBuf,
    pub stop: Arc<AtomicBool>,
}

/// One file followed: its tail and the records numbered so far. [`FollowReader::step`]
/// is one poll (the explorer's follow thread calls it in a loop, `toolscope bench
/// --follow` times it, the headless harness calls it when a test says so, with its own
/// clock).
pub struct FollowReader {
    job: FollowJob,
    tail: Tail,
    seq: u64,
    /// The lines of the last poll (kept from step to step: at most the tail's read
    /// budget and one line).
    block: LineBlock,
    /// Catching up on more than one poll reads, a step reads the next lines while it
    /// classifies its own: those lines (the next step's), the other events read with
    /// them and the file they came from.
    ahead: Option<(Vec<(usize, TailEvent)>, u32)>,
    ahead_block: LineBlock,
}

/// Lines of a step below which nothing is read ahead (nor classified on other threads).
const BATCH: usize = 64;

/// A line of a step to classify (its index in the block), or an overlong one.
enum Work {
    Line(usize, At),
    Overlong(At),
}

impl FollowReader {
    pub fn new(job: FollowJob) -> FollowReader {
        let tail = Tail::new(&job.path, 8 << 20);
        FollowReader {
            job,
            tail,
            seq: 0,
            block: LineBlock::default(),
            ahead: None,
            ahead_block: LineBlock::default(),
        }
    }

    /// Reads what was written since the last step, classifies it (and replays it with
    /// `engine`) on every core, in order. When more was written than one poll reads, the
    /// next lines are read meanwhile, for the next step (which the caller then takes at
    /// once: `behind` counts them).
    pub fn step(&mut self, engine: Option<&Engine>, now_ms: u64) -> FollowMsg {
        let (notes, file_gen) = match self.ahead.take() {
            Some(read) => {
                std::mem::swap(&mut self.block, &mut self.ahead_block);
                read
            }
            None => (self.tail.poll_into(&mut self.block), self.tail.generation),
        };
        let mut work = Vec::with_capacity(self.block.lines.len());
        // the file each line came from: `file_gen` is the file open after the poll, and
        // lines read before a rotation in the same poll belong to the files before it
        let mut rotations_after = rotations_after_each_line(&notes);
        for (k, l) in self.block.lines.iter().enumerate() {
            let file_gen = file_gen.saturating_sub(rotations_after.next_for(k));
            let at = |seq: u64| At {
                seq,
                file_gen,
                line: l.line,
                offset: l.offset,
                at_ms: now_ms,
            };
            match &l.range {
                Some(r) if blank(&self.block.bytes[r.clone()]) => {}
                Some(_) => {
                    self.seq += 1;
                    work.push(Work::Line(k, at(self.seq)));
                }
                None => {
                    self.seq += 1;
                    work.push(Work::Overlong(at(self.seq)));
                }
            }
        }
        let entries = if work.len() >= BATCH && self.tail.behind().is_some_and(|n| n > 0) {
            let (block, tail, ahead) = (&self.block, &mut self.tail, &mut self.ahead_block);
            let (entries, read) = crate::par::join(
                || classify(engine, block, &work),
                || {
                    let notes = tail.poll_into(ahead);
                    (notes, tail.generation)
                },
            );
            if !(read.0.is_empty() && self.ahead_block.lines.is_empty()) {
                self.ahead = Some(read);
            }
            entries
        } else {
            classify(engine, &self.block, &work)
        };
        let ahead = match self.ahead {
            Some(_) => self.ahead_block.bytes.len().max(1) as u64,
            None => 0,
        };
        FollowMsg {
            generation: self.job.generation,
            entries,
            notes: notes.into_iter().map(|(_, ev)| ev).collect(),
            now_ms,
            behind: self.tail.behind().unwrap_or(0) + ahead,
        }
    }
}

/// For each line of a poll, how many rotations the same poll read after it.
struct RotationsAfter {
    /// the number of lines before each rotation, in order
    before: Vec<usize>,
    /// rotations already passed
    passed: usize,
}

impl RotationsAfter {
    /// The rotations after line `k` (lines asked in order).
    fn next_for(&mut self, k: usize) -> u32 {
        while self.before.get(self.passed).is_some_and(|&b| b <= k) {
            self.passed += 1;
        }
        (self.before.len() - self.passed) as u32
    }
}

fn rotations_after_each_line(notes: &[(usize, TailEvent)]) -> RotationsAfter {
    RotationsAfter {
        before: notes
            .iter()
            .filter(|(_, ev)| matches!(ev, TailEvent::Rotated { .. }))
            .map(|(b, _)| *b)
            .collect(),
        passed: 0,
    }
}

/// Whether a line is blank: nothing but whitespace once read as text (`str::trim`).
fn blank(bytes: &[u8]) -> bool {
    // ASCII whitespace as `char::is_whitespace` counts it: tab to carriage return, space
    match bytes.iter().find(|c| !matches!(c, b'\t'..=b'\r' | b' ')) {
        None => true,
        Some(c) if c.is_ascii() => false,
        Some(_) => String::from_utf8_lossy(bytes).trim().is_empty(),
    }
}

/// Classifies lines in order, on every core for a batch; a panic is an unreadable entry.
fn classify(engine: Option<&Engine>, block: &LineBlock, work: &[Work]) -> Vec<Entry> {
    let one = |w: &Work| {
        let (k, at) = match w {
            Work::Line(k, at) => (*k, *at),
            Work::Overlong(at) => return overlong(*at),
        };
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            match block.text(&block.lines[k]) {
                Some((text, utf8)) => classify_line(engine, &text, utf8, at),
                None => overlong(at),
            }
        }))
        .unwrap_or_else(|p| {
            unreadable(
                at,
                format!("internal error: {}", crate::par::panic_text(p.as_ref())),
            )
        })
    };
    if work.len() < BATCH {
        work.iter().map(one).collect()
    } else {
        crate::par::map_heavy(work, one)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seq: u64, at_ms: u64) -> At {
        At {
            seq,
            file_gen: 1,
            line: seq,
            offset: seq * 100,
            at_ms,
        }
    }

    const SEL: &str = r#"{"id":"r1","query":"get user","results":[{"name":"getUser","score":1.0},{"name":"listUsers","score":0.5}],"target_selector":{"selected_target":"getUser","llm_target":"listUsers","overrode_llm":true,"ambiguous":false,"reason_codes":["override_margin_met"]}}"#;

    #[test]
    fn lines_become_classified_entries_or_say_why_not() {
        let e = classify_line(None, SEL, true, at(1, 0));
        assert_eq!((e.class, e.basis), ("selector_overrode_llm", Basis::Llm));
        assert_eq!(e.about.as_deref(), Some("listUsers"));
        assert_eq!(e.rank, Some(2));
        assert_eq!(e.codes, ["override_margin_met"]);
        assert_eq!(e.kind, "response");
        let torn = classify_line(None, &SEL[..40], true, at(2, 0));
        assert_eq!(torn.class, "unreadable");
        assert!(
            torn.error.as_deref().unwrap().starts_with("torn line"),
            "{torn:?}"
        );
        let junk = classify_line(None, "hello", true, at(3, 0));
        assert!(junk.error.as_deref().unwrap().starts_with("not JSON"));
        let other = classify_line(None, r#"{"x":1}"#, true, at(4, 0));
        assert_eq!(other.error.as_deref(), Some(NOT_A_RECORD));
        let schema = classify_line(
            None,
            r#"{"schema_version":"9.9","spans":[]}"#,
            true,
            at(5, 0),
        );
        assert!(
            schema.error.as_deref().unwrap().contains("schema_version"),
            "{schema:?}"
        );
        let bytes = classify_line(None, "x", false, at(6, 0));
        assert_eq!(bytes.error.as_deref(), Some("not UTF-8"));
    }

    #[test]
    fn the_stream_is_bounded_and_counts_by_window() {
        let mut s = Stream::new();
        s.ring_cap = 3;
        for i in 0..5u64 {
            s.push(classify_line(None, SEL, true, at(i + 1, i * 1000)));
        }
        s.push(classify_line(None, "nope", true, at(6, 400_000)));
        assert_eq!(s.ring.len(), 3);
        assert_eq!(s.dropped, 3);
        assert_eq!(s.total.records, 6);
        let oi = class_index("selector_overrode_llm");
        assert_eq!(s.total.classes[oi], 5);
        assert_eq!(s.total.classes[class_index("unreadable")], 1);
        assert_eq!(s.total.codes, [("override_margin_met".to_string(), 5)]);
        // five minutes later only the unreadable line is recent
        let r = s.recent(400_000);
        assert_eq!((r.records, r.classes[oi]), (1, 0));
        assert_eq!(s.spark(oi, 4_000), {
            let mut v = vec![0; BUCKETS];
            v[BUCKETS - 1] = 5;
            v
        });
        assert_eq!(s.errors.len(), 1);
        let mut f = Filter {
            class: Some("selector_overrode_llm"),
            ..Default::default()
        };
        assert!(f.matches(&s.ring[0]) || s.ring[0].class == "unreadable");
        f.tool = Some("getUser".into());
        let e = classify_line(None, SEL, true, at(1, 0));
        assert!(f.matches(&e));
        f.code = Some("nope".into());
        assert!(!f.matches(&e));
        let t = Filter {
            text: Some("GET USER".into()),
            ..Default::default()
        };
        assert!(t.matches(&e));
    }

    #[test]
    fn a_file_larger_than_a_poll_is_read_ahead_and_every_line_comes_in_order() {
        let dir = crate::testutil::scratch("follow-ahead");
        let path = dir.join("big.jsonl");
        // over two polls' budget, a blank line and a bad one among them
        let n = 2 * (8 << 20) / SEL.len() + 100;
        let mut text = String::new();
        let torn = n / 2;
        for i in 0..n {
            match i {
                1000 => text.push_str("   "),
                _ if i == torn => text.push_str("{\"torn\":"),
                _ => text.push_str(&SEL.replace("\"r1\"", &format!("\"r{i}\""))),
            }
            text.push('\n');
        }
        std::fs::write(&path, &text).unwrap();
        let mut r = FollowReader::new(FollowJob {
            generation: 1,
            path: path.clone(),
            stop: Default::default(),
        });
        let mut got = Vec::new();
        let mut steps = 0;
        loop {
            let m = r.step(None, 0);
            steps += 1;
            if m.entries.is_empty() && m.behind == 0 {
                break;
            }
            assert!(
                m.behind > 0 || r.ahead.is_none(),
                "lines read ahead are counted as behind"
            );
            got.extend(m.entries);
        }
        assert!(steps >= 3, "{steps}");
        assert_eq!(got.len(), n - 1, "every line but the blank one");
        assert_eq!(got.iter().filter(|e| e.class == "unreadable").count(), 1);
        for (k, e) in got.iter().enumerate() {
            assert_eq!(e.seq, k as u64 + 1);
            let line = if k < 1000 { k + 1 } else { k + 2 };
            assert_eq!(e.line, line as u64);
            if line == torn + 1 {
                assert_eq!(e.class, "unreadable");
            } else {
                assert_eq!(e.id, format!("r{}", line - 1));
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn lines_read_before_a_rotation_in_the_same_step_keep_their_file() {
        let dir = crate::testutil::scratch("follow-rot");
        let path = dir.join("live.jsonl");
        let rec = |i: usize| format!("{}\n", SEL.replace("\"r1\"", &format!("\"r{i}\"")));
        std::fs::write(&path, rec(1)).unwrap();
        let mut r = FollowReader::new(FollowJob {
            generation: 1,
            path: path.clone(),
            stop: Default::default(),
        });
        let first = r.step(None, 0);
        assert_eq!(first.entries.len(), 1);
        assert_eq!(first.entries[0].file_gen, 1);
        // the file open so far gets `append`, is renamed to `to`, and a new file with
        // `new` takes the name
        let rotate = |append: &str, to: &str, new: String| {
            let mut old = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap();
            std::io::Write::write_all(&mut old, append.as_bytes()).unwrap();
            std::fs::rename(&path, dir.join(to)).unwrap();
            std::fs::write(&path, new).unwrap();
        };
        // a step reads the old file's last line, then the new file; the next step a
        // third file
        rotate(&rec(2), "live.jsonl.1", rec(3));
        let m = r.step(None, 0);
        rotate("", "live.jsonl.2", format!("{}{}", rec(4), rec(5)));
        let m2 = r.step(None, 0);
        let got: Vec<(String, u32, u64)> = m
            .entries
            .iter()
            .chain(&m2.entries)
            .map(|e| (e.id.clone(), e.file_gen, e.line))
            .collect();
        assert_eq!(
            got,
            [
                ("r2".to_string(), 1, 2),
                ("r3".to_string(), 2, 1),
                ("r4".to_string(), 3, 1),
                ("r5".to_string(), 3, 2)
            ]
        );
        // once more: the old file's line, then two of the new one
        rotate(&rec(6), "live.jsonl.3", format!("{}{}", rec(7), rec(8)));
        let m3 = r.step(None, 0);
        let got: Vec<(String, u32)> = m3
            .entries
            .iter()
            .map(|e| (e.id.clone(), e.file_gen))
            .collect();
        assert_eq!(
            got,
            [
                ("r6".to_string(), 3),
                ("r7".to_string(), 4),
                ("r8".to_string(), 4)
            ]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_blank_line_is_one_that_trims_to_nothing() {
        let trims = |b: &[u8]| String::from_utf8_lossy(b).trim().is_empty();
        let mut lines: Vec<Vec<u8>> = (0..=255u8).map(|c| vec![c]).collect();
        for extra in [
            &b" \t \x0b\x0c\r "[..],
            b"\xc2\xa0",
            b"\xe3\x80\x80",
            b" \xe3\x80\x80{",
            b"\xc2",
            b"\x1c\x1d",
            b"  x  ",
            b"",
        ] {
            lines.push(extra.to_vec());
        }
        for l in &lines {
            assert_eq!(blank(l), trims(l), "{l:?}");
        }
    }

    #[test]
    fn the_code_table_is_bounded() {
        let mut s = Stream::new();
        for i in 0..(CODES_MAX + 10) {
            let line = SEL.replace("override_margin_met", &format!("code{i}"));
            s.push(classify_line(None, &line, true, at(i as u64 + 1, 0)));
        }
        assert_eq!(s.total.codes.len(), CODES_MAX + 1);
        assert_eq!(s.total.codes.last().unwrap(), &("(other)".to_string(), 10));
    }
}
