//! The screens besides Explore: *Evidence* (captured evidence read with no graph),
//! *Diff* (two runs side by side, per case) and *Lab* (a suite's results, evaluated on a
//! worker thread with progress). Their state and their commands; the views live in
//! `views/{evidence,diff,lab}.rs`.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::app::{App, Effect, FlashLevel, PaneId, PaneState};
pub use super::labclass::{CaseClass, classify_cases};
use super::records::{EvRecord, EvSet, read_set};
use crate::engine::knobs::Knobs;
use crate::engine::triage::CLASSES;
use crate::engine::{Engine, Params, SelectParams};
use crate::lab::captured::CapturedTriage;
use crate::lab::diff::{CaseDiff, diff_sets, read_records};
use crate::lab::eval::{CaseResult, Summary, evaluate, summarize};
use crate::lab::record::RunRecord;
use crate::lab::suite::{Case, Suite, load_suite};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Screen {
    #[default]
    Explore,
    Evidence,
    Diff,
    Lab,
    Follow,
}

impl Screen {
    pub fn title(self) -> &'static str {
        match self {
            Screen::Explore => "Explore",
            Screen::Evidence => "Evidence",
            Screen::Diff => "Diff",
            Screen::Lab => "Lab",
            Screen::Follow => "Follow",
        }
    }
}

// ----- Evidence ------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvFocus {
    Records,
    Rows,
    Pane,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvTab {
    Row,
    Selector,
    Record,
    /// The captured record's triage for an expected tool (`lab::captured`).
    WhyNot,
}

impl EvTab {
    pub const ALL: [EvTab; 4] = [EvTab::Row, EvTab::Selector, EvTab::Record, EvTab::WhyNot];

    pub fn title(self) -> &'static str {
        match self {
            EvTab::Row => "Row",
            EvTab::Selector => "Selector",
            EvTab::Record => "Record",
            EvTab::WhyNot => "Why-not",
        }
    }
}

/// A captured record's triage: for (record, expected tool), whether it was replayed on
/// the graph, and the result.
pub type EvWhyNot = ((usize, String, bool), CapturedTriage);

/// What an unfolded JSON is of: (record, row) or (record, None) for the whole record.
pub type JsonKey = (usize, Option<usize>);

#[derive(Clone, Debug)]
pub struct EvidenceView {
    pub set: EvSet,
    pub record: usize,
    pub row: usize,
    pub focus: EvFocus,
    pub tab: EvTab,
    /// The row's (Row tab) or the record's (Record tab) full JSON unfolded.
    pub json_open: bool,
    /// The unfolded JSON as sanitised lines, for (record, row or None for the record).
    pub json: Option<(JsonKey, Arc<Vec<String>>)>,
    pub pane: PaneState,
    /// The expected tool set with `w` (else the record's own expected tool, if any).
    pub expected: Option<String>,
    /// The Why-not tab's triage, computed once per (record, expected tool).
    pub whynot: Option<EvWhyNot>,
}

impl EvidenceView {
    pub fn new(set: EvSet) -> EvidenceView {
        let focus = if set.records.len() > 1 {
            EvFocus::Records
        } else {
            EvFocus::Rows
        };
        let mut v = EvidenceView {
            set,
            record: 0,
            row: 0,
            focus,
            tab: EvTab::Row,
            json_open: false,
            json: None,
            pane: PaneState::default(),
            expected: None,
            whynot: None,
        };
        v.tab = v.default_tab();
        v
    }

    /// The selector tab for a record that is only a selector block, else the row tab.
    fn default_tab(&self) -> EvTab {
        match self.current() {
            Some(r) if r.kind == "selector block" => EvTab::Selector,
            _ => EvTab::Row,
        }
    }

    pub fn current(&self) -> Option<&EvRecord> {
        self.set.records.get(self.record)
    }

    pub fn current_row(&self) -> Option<&crate::lab::record::RowRecord> {
        self.current().and_then(|r| r.rows.get(self.row))
    }

    /// The expected tool of the Why-not tab: the one set with `w`, else the record's own.
    pub fn expected_tool(&self) -> Option<String> {
        self.expected
            .clone()
            .or_else(|| self.current()?.expected.first().cloned())
    }

    /// Computes the Why-not tab's triage when it is shown and not computed yet (with the
    /// graph, the record is replayed on it).
    pub fn sync_whynot(&mut self, engine: Option<&Engine>) {
        if self.tab != EvTab::WhyNot {
            return;
        }
        let (Some(rec), Some(x)) = (self.current(), self.expected_tool()) else {
            return;
        };
        let key = (self.record, x, engine.is_some());
        if self.whynot.as_ref().is_some_and(|(k, _)| *k == key) {
            return;
        }
        let t = match engine {
            Some(e) => crate::lab::captured::with_graph(e, &rec.value, &rec.rec, &key.1),
            None => crate::lab::captured::from_record(&rec.rec, &key.1),
        };
        self.whynot = Some((key, t));
    }

    /// What the unfolded JSON of the current tab is about.
    pub fn json_key(&self) -> Option<JsonKey> {
        match self.tab {
            EvTab::Row => self.current_row().map(|_| (self.record, Some(self.row))),
            EvTab::Record => self.current().map(|_| (self.record, None)),
            EvTab::Selector | EvTab::WhyNot => None,
        }
    }

    /// Pretty-prints the JSON the current tab unfolds, once (not on every frame).
    pub fn sync_json(&mut self) {
        if !self.json_open {
            return;
        }
        let Some(key) = self.json_key() else {
            return;
        };
        if self.json.as_ref().map(|(k, _)| *k) == Some(key) {
            return;
        }
        let v = match key.1 {
            Some(_) => self
                .current()
                .and_then(|r| r.row_value(self.current_row()?)),
            None => self.current().map(|r| &r.value),
        };
        let pretty = v
            .and_then(|v| serde_json::to_string_pretty(v).ok())
            .unwrap_or_default();
        let lines: Vec<String> = pretty.lines().map(crate::sanitize::line).collect();
        self.json = Some((key, Arc::new(lines)));
    }

    pub fn has_list(&self) -> bool {
        self.set.records.len() > 1
    }

    fn set_record(&mut self, i: usize) {
        if i != self.record {
            self.record = i;
            self.row = 0;
            self.pane = PaneState::default();
            if self.focus != EvFocus::Pane {
                self.tab = self.default_tab();
            }
        }
    }
}

// ----- Diff ----------------------------------------------------------------------------

#[derive(Clone, Debug)]
pub struct DiffCase {
    pub diff: CaseDiff,
    pub a: Option<usize>,
    pub b: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffFocus {
    Cases,
    Detail,
}

#[derive(Clone, Debug)]
pub struct DiffView {
    pub a_label: String,
    pub b_label: String,
    pub a: Vec<RunRecord>,
    pub b: Vec<RunRecord>,
    pub cases: Vec<DiffCase>,
    pub errors: Vec<String>,
    /// Index into [`DiffView::visible`].
    pub cursor: usize,
    pub changed_only: bool,
    pub focus: DiffFocus,
    pub pane: PaneState,
}

impl DiffView {
    /// Pairs the records as `diff_sets` does (by id, or by position when no id matches).
    pub fn new(a_label: &str, a: Vec<RunRecord>, b_label: &str, b: Vec<RunRecord>) -> DiffView {
        let diffs = diff_sets(&a, &b);
        let ids_match = a.iter().any(|x| b.iter().any(|y| y.id == x.id));
        let cases = diffs
            .into_iter()
            .enumerate()
            .map(|(i, d)| {
                let by_id = |v: &[RunRecord]| v.iter().position(|r| r.id == d.id);
                let (ia, ib) = match d.only_in {
                    Some('A') => (by_id(&a), None),
                    Some(_) => (None, by_id(&b)),
                    None if ids_match => (by_id(&a), by_id(&b)),
                    None => (Some(i), Some(i)),
                };
                DiffCase {
                    diff: d,
                    a: ia,
                    b: ib,
                }
            })
            .collect();
        DiffView {
            a_label: a_label.to_string(),
            b_label: b_label.to_string(),
            a,
            b,
            cases,
            errors: Vec::new(),
            cursor: 0,
            changed_only: false,
            focus: DiffFocus::Cases,
            pane: PaneState::default(),
        }
    }

    pub fn visible(&self) -> Vec<usize> {
        (0..self.cases.len())
            .filter(|&i| !self.changed_only || self.cases[i].diff.changed())
            .collect()
    }

    pub fn current(&self) -> Option<&DiffCase> {
        let v = self.visible();
        v.get(self.cursor).map(|&i| &self.cases[i])
    }

    pub fn changed(&self) -> usize {
        self.cases.iter().filter(|c| c.diff.changed()).count()
    }
}

/// Reads two evidence files or fixture folders into a diff.
pub fn load_diff(a: &Path, b: &Path) -> Result<DiffView, String> {
    let label = |p: &Path| {
        p.file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| p.display().to_string())
    };
    let strings =
        |e: Vec<crate::error::InputError>| e.iter().map(|e| e.to_string()).collect::<Vec<_>>();
    let (ra, ea) = read_records(a).map_err(|e| e.to_string())?;
    let (rb, eb) = read_records(b).map_err(|e| e.to_string())?;
    let (ea, eb) = (strings(ea), strings(eb));
    if ra.is_empty() && rb.is_empty() {
        let mut why = ea.clone();
        why.extend(eb.iter().cloned());
        return Err(format!(
            "no record in either run{}",
            why.first().map(|w| format!(": {w}")).unwrap_or_default()
        ));
    }
    let (mut la, mut lb) = (label(a), label(b));
    if la == lb {
        la = format!("A {la}");
        lb = format!("B {lb}");
    }
    let mut d = DiffView::new(&la, ra, &lb, rb);
    d.errors = ea;
    d.errors.extend(eb);
    Ok(d)
}

// ----- Lab -----------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LabSort {
    /// By triage class (the failure classes in their order, then `selected`), then by
    /// rank.
    #[default]
    Class,
    /// Worst first: missed cases, lower reciprocal rank, selector misses.
    Failure,
    /// By the rank of the first expected tool (misses last).
    Rank,
    Id,
}

impl LabSort {
    pub const ALL: [LabSort; 4] = [LabSort::Class, LabSort::Failure, LabSort::Rank, LabSort::Id];

    pub fn name(self) -> &'static str {
        match self {
            LabSort::Failure => "failure",
            LabSort::Class => "class",
            LabSort::Rank => "rank",
            LabSort::Id => "id",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabFocus {
    Cases,
    Detail,
}

#[derive(Clone, Debug)]
pub struct LabView {
    pub suite: Arc<Suite>,
    pub label: String,
    pub params: Params,
    pub select: SelectParams,
    pub k: usize,
    pub generation: u64,
    /// Results in suite order (as they arrive).
    pub results: Vec<CaseResult>,
    pub summary: Option<Summary>,
    pub done: usize,
    pub running: bool,
    /// Why the evaluation stopped (a case's parameters were refused): shown on the screen.
    pub error: Option<String>,
    pub sort: LabSort,
    /// The triage class of each result (same order as `results`).
    pub classes: Vec<CaseClass>,
    /// Only the cases of this class (a name of [`CLASSES`], or `error`).
    pub filter: Option<&'static str>,
    /// Index into [`LabView::order`].
    pub cursor: usize,
    pub focus: LabFocus,
    pub pane: PaneState,
    pub cancel: Arc<AtomicBool>,
}

impl LabView {
    /// Result indices in the chosen order.
    pub fn order(&self) -> Vec<usize> {
        let mut idx: Vec<usize> = (0..self.results.len()).collect();
        let r = &self.results;
        match self.sort {
            LabSort::Failure => idx.sort_by(|&a, &b| {
                let (x, y) = (&r[a], &r[b]);
                // an unlabelled case is no failure: after every labelled one
                x.expected
                    .is_empty()
                    .cmp(&y.expected.is_empty())
                    .then(x.rr.partial_cmp(&y.rr).unwrap_or(std::cmp::Ordering::Equal))
                    .then(
                        x.selector_correct
                            .partial_cmp(&y.selector_correct)
                            .unwrap_or(std::cmp::Ordering::Equal),
                    )
                    .then(x.id.cmp(&y.id))
            }),
            LabSort::Class => idx.sort_by(|&a, &b| {
                let key = |i: usize| {
                    (
                        self.class(i).map(CaseClass::order).unwrap_or(usize::MAX),
                        r[i].first_hit_rank.unwrap_or(usize::MAX),
                    )
                };
                key(a).cmp(&key(b)).then(r[a].id.cmp(&r[b].id))
            }),
            LabSort::Rank => idx.sort_by(|&a, &b| {
                let key = |c: &CaseResult| c.first_hit_rank.unwrap_or(usize::MAX);
                key(&r[a]).cmp(&key(&r[b])).then(r[a].id.cmp(&r[b].id))
            }),
            LabSort::Id => idx.sort_by(|&a, &b| r[a].id.cmp(&r[b].id)),
        }
        if let Some(f) = self.filter {
            idx.retain(|&i| self.class(i).is_some_and(|c| c.name() == f));
        }
        idx
    }

    pub fn current(&self) -> Option<&CaseResult> {
        self.order().get(self.cursor).map(|&i| &self.results[i])
    }

    /// The suite's case of result `i` (results arrive in suite order).
    pub fn case_of(&self, i: usize) -> Option<&Case> {
        let id = &self.results.get(i)?.id;
        let at = self.suite.cases.get(i).filter(|c| &c.id == id);
        at.or_else(|| self.suite.cases.iter().find(|c| &c.id == id))
    }

    /// The knobs a case runs with: the lab's parameters (`top_k` = k), then the case's own,
    /// as [`run_lab`] evaluates it.
    pub fn knobs_of(&self, case: &Case) -> Result<Knobs, String> {
        let mut base = Knobs {
            params: self.params.clone(),
            select: self.select.clone(),
        };
        base.params.top_k = self.k;
        case.knobs(&base, &[])
    }

    /// The class of result `i` (None until it is computed).
    pub fn class(&self, i: usize) -> Option<&CaseClass> {
        self.classes.get(i)
    }

    /// Cases per class in the class sort's order (the failure classes, then `selected`,
    /// then errors; classes with no case left out).
    pub fn class_counts(&self) -> Vec<(&'static str, usize)> {
        let mut out: Vec<(&'static str, usize)> = Vec::new();
        for name in CLASSES[1..]
            .iter()
            .copied()
            .chain(["selected", "error", "unlabelled"])
        {
            let n = self.classes.iter().filter(|c| c.name() == name).count();
            if n > 0 {
                out.push((name, n));
            }
        }
        out
    }
}

/// A suite evaluation for the lab thread.
#[derive(Clone, Debug)]
pub struct LabJob {
    pub generation: u64,
    pub suite: Arc<Suite>,
    pub params: Params,
    pub select: SelectParams,
    pub k: usize,
    pub cancel: Arc<AtomicBool>,
}

#[derive(Clone, Debug)]
pub enum LabMsg {
    Progress {
        generation: u64,
        total: usize,
        results: Vec<CaseResult>,
        classes: Vec<CaseClass>,
    },
    Done {
        generation: u64,
        summary: Summary,
    },
    /// The evaluation stopped: a case's parameters were refused (the cases before it stay).
    Failed {
        generation: u64,
        error: String,
    },
}

/// Evaluates the suite in parts (each part across the cores), reporting after each part;
/// stops early when cancelled (a newer evaluation replaced it).
pub fn run_lab(engine: &Engine, job: &LabJob, send: &mut dyn FnMut(LabMsg)) {
    let total = job.suite.cases.len();
    let part = (total / 20).clamp(8, 64);
    let mut all: Vec<CaseResult> = Vec::with_capacity(total);
    let mut base = Knobs {
        params: job.params.clone(),
        select: job.select.clone(),
    };
    base.params.top_k = job.k;
    let failed = |error: String| LabMsg::Failed {
        generation: job.generation,
        error: crate::sanitize::line(&error),
    };
    // a case whose parameters are refused (a depth past the knob's range) stops the
    // evaluation before any case runs: said on the screen, never an empty result
    if let Some(e) = job
        .suite
        .cases
        .iter()
        .find_map(|c| c.knobs(&base, &[]).err())
    {
        send(failed(e));
        return;
    }
    for cases in job.suite.cases.chunks(part) {
        if job.cancel.load(Ordering::Relaxed) {
            return;
        }
        let sub = Suite {
            name: job.suite.name.clone(),
            cases: cases.to_vec(),
        };
        let res = match evaluate(engine, &sub, &base, &[], job.k) {
            Ok((res, _)) => res,
            Err(e) => return send(failed(e)),
        };
        all.extend(res.iter().cloned());
        let classes = classify_cases(engine, cases, &base);
        send(LabMsg::Progress {
            generation: job.generation,
            total,
            results: res,
            classes,
        });
    }
    send(LabMsg::Done {
        generation: job.generation,
        summary: summarize(&all, job.k),
    });
}

/// What the loader opened besides a graph.
pub enum Opened {
    Evidence(EvSet),
    Diff(Box<DiffView>),
    /// A file to follow without a graph.
    Follow(std::path::PathBuf),
}

impl App {
    /// Evidence or a diff arrived from the loader.
    pub fn on_opened(&mut self, o: Opened) {
        self.load = None;
        match o {
            Opened::Evidence(set) => self.show_evidence(set),
            Opened::Diff(d) => self.show_diff(*d),
            // started by `on_event`, which returns the follow thread's effect
            Opened::Follow(_) => {}
        }
    }

    fn show_evidence(&mut self, set: EvSet) {
        let n = set.records.len();
        let msg = match (n, set.errors.first()) {
            (0, Some(e)) => Some((FlashLevel::Error, format!("no record read: {e}"))),
            (0, None) => Some((FlashLevel::Error, "no record in the file".to_string())),
            (_, Some(e)) => {
                let more = set.errors.len() - 1;
                Some((
                    FlashLevel::Warn,
                    if more > 0 {
                        format!("{e} (+{more} more; the rest was read)")
                    } else {
                        format!("{e} (the rest was read)")
                    },
                ))
            }
            _ => None,
        };
        self.source_label = set.label.clone();
        self.evidence = Some(EvidenceView::new(set));
        self.screen = Screen::Evidence;
        self.input_active = false;
        if let Some((l, m)) = msg {
            self.set_flash(l, m);
        }
    }

    fn show_diff(&mut self, d: DiffView) {
        // two runs replace two graphs on the Diff screen
        self.gdiff = None;
        let msg = d.errors.first().map(|e| {
            let more = d.errors.len() - 1;
            if more > 0 {
                format!("{e} (+{more} more; the rest was read)")
            } else {
                format!("{e} (the rest was read)")
            }
        });
        self.source_label = format!("{} vs {}", d.a_label, d.b_label);
        self.diffv = Some(d);
        self.screen = Screen::Diff;
        self.input_active = false;
        if let Some(m) = msg {
            self.set_flash(FlashLevel::Warn, m);
        }
    }

    /// Starts evaluating a suite with the explorer's parameters and shows the Lab screen.
    pub fn start_lab(&mut self, suite: Suite, label: &str) -> Vec<Effect> {
        if let Some(old) = &self.lab {
            old.cancel.store(true, Ordering::Relaxed);
        }
        self.lab_generation += 1;
        let suite = Arc::new(suite);
        let cancel = Arc::new(AtomicBool::new(false));
        let k = self.params.top_k;
        let view = LabView {
            suite: suite.clone(),
            label: label.to_string(),
            params: self.params.clone(),
            select: self.select.clone(),
            k,
            generation: self.lab_generation,
            results: Vec::new(),
            summary: None,
            done: 0,
            running: true,
            error: None,
            sort: self.lab.as_ref().map(|l| l.sort).unwrap_or_default(),
            classes: Vec::new(),
            filter: None,
            cursor: 0,
            focus: LabFocus::Cases,
            pane: PaneState::default(),
            cancel: cancel.clone(),
        };
        self.lab = Some(view);
        self.screen = Screen::Lab;
        self.input_active = false;
        self.return_to = None;
        if self.engine.is_none() {
            // evaluated once the graph is loaded
            return Vec::new();
        }
        vec![Effect::Lab(Box::new(LabJob {
            generation: self.lab_generation,
            suite,
            params: self.params.clone(),
            select: self.select.clone(),
            k,
            cancel,
        }))]
    }

    pub fn on_lab(&mut self, m: LabMsg) {
        let Some(l) = self.lab.as_mut() else {
            return;
        };
        match m {
            LabMsg::Progress {
                generation,
                total: _,
                results,
                classes,
            } if generation == l.generation => {
                l.done += results.len();
                l.results.extend(results);
                l.classes.extend(classes);
            }
            LabMsg::Done {
                generation,
                summary,
            } if generation == l.generation => {
                l.running = false;
                l.summary = Some(summary);
            }
            LabMsg::Failed { generation, error } if generation == l.generation => {
                l.running = false;
                l.error = Some(error.clone());
                self.set_flash(
                    FlashLevel::Error,
                    format!("the suite was not evaluated: {error}"),
                );
            }
            _ => {}
        }
    }

    /// Moves the cursor (or scrolls) in the focused part of a screen.
    pub fn screen_move(&mut self, delta: isize) -> Vec<Effect> {
        let drill_h = self
            .layout
            .drill_area
            .map(|r| r.height as usize)
            .unwrap_or(0);
        let max_scroll = self.layout.drill_rows.saturating_sub(drill_h);
        let scroll = |p: &mut PaneState| p.scroll = clamp_add(p.scroll, delta, max_scroll);
        match self.screen {
            Screen::Explore => {}
            Screen::Follow => self.follow_move(delta),
            Screen::Evidence => {
                let Some(e) = self.evidence.as_mut() else {
                    return Vec::new();
                };
                match e.focus {
                    EvFocus::Records => {
                        let n = e.set.records.len();
                        if n > 0 {
                            let i = clamp_add(e.record, delta, n - 1);
                            e.set_record(i);
                        }
                    }
                    EvFocus::Rows => {
                        let n = e.current().map(|r| r.rows.len()).unwrap_or(0);
                        if n > 0 {
                            let i = clamp_add(e.row, delta, n - 1);
                            if i != e.row {
                                e.row = i;
                                if e.tab == EvTab::Row {
                                    e.pane = PaneState::default();
                                }
                            }
                        }
                    }
                    EvFocus::Pane => scroll(&mut e.pane),
                }
            }
            Screen::Diff if self.gd_load.is_some() => {}
            Screen::Diff if self.gdiff.is_some() => return self.gd_move(delta),
            Screen::Diff => {
                let Some(d) = self.diffv.as_mut() else {
                    return Vec::new();
                };
                match d.focus {
                    DiffFocus::Cases => {
                        let n = d.visible().len();
                        if n > 0 {
                            let i = clamp_add(d.cursor, delta, n - 1);
                            if i != d.cursor {
                                d.cursor = i;
                                d.pane = PaneState::default();
                            }
                        }
                    }
                    DiffFocus::Detail => scroll(&mut d.pane),
                }
            }
            Screen::Lab => {
                let Some(l) = self.lab.as_mut() else {
                    return Vec::new();
                };
                match l.focus {
                    LabFocus::Cases => {
                        let n = l.results.len();
                        if n > 0 {
                            let i = clamp_add(l.cursor, delta, n - 1);
                            if i != l.cursor {
                                l.cursor = i;
                                l.pane = PaneState::default();
                            }
                        }
                    }
                    LabFocus::Detail => scroll(&mut l.pane),
                }
            }
        }
        Vec::new()
    }

    /// Tab and Shift-Tab on a screen.
    pub fn screen_cycle(&mut self, forward: bool) -> Vec<Effect> {
        match self.screen {
            Screen::Explore => {}
            Screen::Follow => {
                if let Some(f) = self.follow.as_mut() {
                    f.focus = match f.focus {
                        super::follow::FollowFocus::List => super::follow::FollowFocus::Detail,
                        super::follow::FollowFocus::Detail => super::follow::FollowFocus::List,
                    };
                }
            }
            Screen::Evidence => {
                if let Some(e) = self.evidence.as_mut() {
                    let order: Vec<EvFocus> = if e.has_list() {
                        vec![EvFocus::Records, EvFocus::Rows, EvFocus::Pane]
                    } else {
                        vec![EvFocus::Rows, EvFocus::Pane]
                    };
                    let i = order.iter().position(|f| *f == e.focus).unwrap_or(0);
                    let n = order.len();
                    e.focus = order[if forward {
                        (i + 1) % n
                    } else {
                        (i + n - 1) % n
                    }];
                }
            }
            Screen::Diff if self.gd_load.is_some() => {}
            Screen::Diff if self.gdiff.is_some() => return self.gd_cycle(),
            Screen::Diff => {
                if let Some(d) = self.diffv.as_mut() {
                    d.focus = match d.focus {
                        DiffFocus::Cases => DiffFocus::Detail,
                        DiffFocus::Detail => DiffFocus::Cases,
                    };
                }
            }
            Screen::Lab => {
                if let Some(l) = self.lab.as_mut() {
                    l.focus = match l.focus {
                        LabFocus::Cases => LabFocus::Detail,
                        LabFocus::Detail => LabFocus::Cases,
                    };
                }
            }
        }
        Vec::new()
    }

    /// Enter on a screen: one level in (a lab case opens in Explore).
    pub fn screen_enter(&mut self) -> Vec<Effect> {
        match self.screen {
            Screen::Explore => Vec::new(),
            Screen::Evidence => {
                if let Some(e) = self.evidence.as_mut() {
                    e.focus = match e.focus {
                        EvFocus::Records => EvFocus::Rows,
                        _ => {
                            e.tab = EvTab::Row;
                            EvFocus::Pane
                        }
                    };
                }
                Vec::new()
            }
            Screen::Diff if self.gd_load.is_some() => Vec::new(),
            Screen::Diff if self.gdiff.is_some() => self.gd_enter(),
            Screen::Diff => {
                if let Some(d) = self.diffv.as_mut() {
                    d.focus = DiffFocus::Detail;
                }
                Vec::new()
            }
            Screen::Lab => self.lab_open(),
            Screen::Follow => self.follow_open(),
        }
    }

    /// Esc on a screen: one level out.
    pub fn screen_back(&mut self) -> Vec<Effect> {
        match self.screen {
            Screen::Explore => {}
            Screen::Follow => {
                if let Some(f) = self.follow.as_mut() {
                    f.focus = super::follow::FollowFocus::List;
                }
            }
            Screen::Evidence => {
                if let Some(e) = self.evidence.as_mut() {
                    e.focus = match e.focus {
                        EvFocus::Pane => EvFocus::Rows,
                        _ if e.has_list() => EvFocus::Records,
                        f => f,
                    };
                }
            }
            Screen::Diff if self.gd_load.is_some() => return self.gd_load_cancel(),
            Screen::Diff if self.gdiff.is_some() => return self.gd_back(),
            Screen::Diff => {
                if let Some(d) = self.diffv.as_mut() {
                    d.focus = DiffFocus::Cases;
                }
            }
            Screen::Lab => {
                if let Some(l) = self.lab.as_mut() {
                    l.focus = LabFocus::Cases;
                }
            }
        }
        Vec::new()
    }

    pub fn ev_table(&mut self) -> Vec<Effect> {
        if let Some(e) = self.evidence.as_mut() {
            e.focus = EvFocus::Rows;
        }
        Vec::new()
    }

    pub fn ev_tab(&mut self, tab: EvTab) -> Vec<Effect> {
        if let Some(e) = self.evidence.as_mut() {
            if e.tab != tab {
                e.pane = PaneState::default();
            }
            e.tab = tab;
            e.focus = EvFocus::Pane;
        }
        Vec::new()
    }

    /// `w` on the Evidence screen: the row under the cursor becomes the expected tool of
    /// the Why-not tab (again: back to the record's own expected tool).
    pub fn ev_whynot_pick(&mut self) -> Vec<Effect> {
        let Some(e) = self.evidence.as_mut() else {
            return Vec::new();
        };
        let Some(name) = e.current_row().map(|r| r.name.clone()) else {
            return self.warn("no row to ask about".into());
        };
        let msg = if e.expected.as_deref() == Some(name.as_str()) {
            e.expected = None;
            match e.expected_tool() {
                Some(x) => format!(
                    "why not: back to the record's expected tool {}",
                    crate::sanitize::line(&x)
                ),
                None => "expected tool unset".to_string(),
            }
        } else {
            e.expected = Some(name.clone());
            format!(
                "why not {}: classified from the captured fields{}",
                crate::sanitize::line(&name),
                if self.engine.is_some() {
                    ", replayed on the graph"
                } else {
                    " (no graph: partial where it would be needed)"
                }
            )
        };
        let e = self.evidence.as_mut().expect("evidence");
        e.tab = EvTab::WhyNot;
        e.focus = EvFocus::Pane;
        e.pane = PaneState::default();
        self.set_flash(FlashLevel::Info, msg);
        Vec::new()
    }

    pub fn record_step(&mut self, d: isize) -> Vec<Effect> {
        if let Some(e) = self.evidence.as_mut() {
            let n = e.set.records.len();
            if n > 0 {
                let i = clamp_add(e.record, d, n - 1);
                e.set_record(i);
            }
        }
        Vec::new()
    }

    pub fn ev_toggle_json(&mut self) -> Vec<Effect> {
        if let Some(e) = self.evidence.as_mut() {
            e.json_open = !e.json_open;
            if e.tab == EvTab::Selector {
                e.tab = EvTab::Row;
            }
            e.focus = EvFocus::Pane;
        }
        Vec::new()
    }

    pub fn diff_changed_only(&mut self) -> Vec<Effect> {
        if let Some(d) = self.diffv.as_mut() {
            let keep = d.current().map(|c| c.diff.id.clone());
            d.changed_only = !d.changed_only;
            let vis = d.visible();
            d.cursor = keep
                .and_then(|id| vis.iter().position(|&i| d.cases[i].diff.id == id))
                .unwrap_or(0);
            d.pane = PaneState::default();
            let msg = if d.changed_only {
                format!("{} changed of {} cases", vis.len(), d.cases.len())
            } else {
                format!("all {} cases", d.cases.len())
            };
            self.set_flash(FlashLevel::Info, msg);
        }
        Vec::new()
    }

    pub fn lab_sort(&mut self, arg: Option<&str>) -> Vec<Effect> {
        let Some(l) = self.lab.as_mut() else {
            return Vec::new();
        };
        let keep = l.current().map(|c| c.id.clone());
        l.sort = match arg {
            Some(a) => match LabSort::ALL.iter().find(|s| s.name() == a) {
                Some(s) => *s,
                None => {
                    self.set_flash(FlashLevel::Warn, "sort by: class, failure, rank, id");
                    return Vec::new();
                }
            },
            None => {
                let i = LabSort::ALL.iter().position(|s| *s == l.sort).unwrap_or(0);
                LabSort::ALL[(i + 1) % LabSort::ALL.len()]
            }
        };
        let order = l.order();
        l.cursor = keep
            .and_then(|id| order.iter().position(|&i| l.results[i].id == id))
            .unwrap_or(0);
        let name = l.sort.name();
        self.set_flash(FlashLevel::Info, format!("sorted by {name}"));
        Vec::new()
    }

    /// Opens the lab case under the cursor in Explore, with its query and the lab's
    /// parameters; Esc on the candidates comes back.
    pub fn lab_open(&mut self) -> Vec<Effect> {
        let Some(l) = self.lab.as_ref() else {
            return Vec::new();
        };
        let Some(c) = l.current().cloned() else {
            return Vec::new();
        };
        // the case's own parameters (its top_k, depth, policy…) over the lab's, as it ran
        let own = l.order().get(l.cursor).and_then(|&i| l.case_of(i));
        let (knobs, own_k) = match own.map(|case| (l.knobs_of(case), case.knobs.get("top_k"))) {
            Some((Ok(k), own_k)) => (k, own_k.is_some()),
            _ => (
                Knobs {
                    params: Params {
                        top_k: l.k,
                        ..l.params.clone()
                    },
                    select: l.select.clone(),
                },
                false,
            ),
        };
        self.params = knobs.params;
        self.select = knobs.select;
        self.screen = Screen::Explore;
        self.return_to = Some(Screen::Lab);
        self.lab_case = Some(c.id.clone());
        self.focus = PaneId::Candidates;
        self.zoom = false;
        self.demo.pos = None;
        self.query.set(&crate::sanitize::line(&c.query));
        self.input_active = false;
        let expected = if c.expected.is_empty() {
            "no expected tool".to_string()
        } else {
            format!("expected {}", c.expected.join(", "))
        };
        let k = if own_k {
            format!("; its own top_k {}", self.params.top_k)
        } else {
            String::new()
        };
        self.set_flash(
            FlashLevel::Info,
            format!(
                "lab case {}: {expected}{k}; Esc goes back to the lab",
                crate::sanitize::line(&c.id)
            ),
        );
        self.row = 0;
        // the Why-not pane triages the case's expected tools (those in the graph)
        let present: Vec<String> = c
            .expected
            .iter()
            .filter(|e| !c.missing_from_graph.contains(e))
            .cloned()
            .collect();
        self.set_expected(if present.is_empty() {
            c.expected.clone()
        } else {
            present
        });
        if !c.expected.is_empty() {
            self.drill = PaneId::WhyNot;
        }
        vec![self.requery(false)]
    }

    /// `:lab SUITE` loads a suite and evaluates it; `:lab` alone shows the last one.
    pub fn screen_lab(&mut self, arg: Option<&str>) -> Vec<Effect> {
        match arg {
            Some(p) => match load_suite(Path::new(p)) {
                Ok(s) => {
                    let label = Path::new(p)
                        .file_name()
                        .map(|f| f.to_string_lossy().into_owned())
                        .unwrap_or_else(|| p.to_string());
                    self.start_lab(s, &label)
                }
                Err(e) => {
                    self.set_flash(FlashLevel::Error, crate::sanitize::line(&e.to_string()));
                    Vec::new()
                }
            },
            None => {
                if self.lab.is_some() {
                    self.screen = Screen::Lab;
                    self.input_active = false;
                } else {
                    self.set_flash(FlashLevel::Warn, "no suite yet: :lab SUITE evaluates one");
                }
                Vec::new()
            }
        }
    }

    pub fn screen_evidence(&mut self, arg: Option<&str>) -> Vec<Effect> {
        match arg {
            Some(p) => match read_set(Path::new(p)) {
                Ok(set) => self.show_evidence(set),
                Err(e) => self.set_flash(FlashLevel::Error, crate::sanitize::line(&e)),
            },
            None => {
                if self.evidence.is_some() {
                    self.screen = Screen::Evidence;
                    self.input_active = false;
                } else {
                    self.set_flash(
                        FlashLevel::Warn,
                        "no evidence yet: :evidence FILE opens one",
                    );
                }
            }
        }
        Vec::new()
    }

    /// `:diff OLD NEW` (two graphs), `:diff NEW` (against the loaded graph), `:diff A B`
    /// (two runs); `:diff` alone shows the Diff screen again.
    pub fn screen_diff(&mut self, arg: Option<&str>) -> Vec<Effect> {
        match arg {
            Some(a) => {
                let parts: Vec<&str> = a.split_whitespace().collect();
                return self.gd_diff_args(&parts);
            }
            None => {
                if self.diffv.is_some() || self.gdiff.is_some() || self.gd_load.is_some() {
                    let from = self.screen;
                    if from != Screen::Diff
                        && let Some(v) = self.gdiff.as_mut()
                    {
                        // Esc on its case list comes back here
                        v.back = Some(from);
                    }
                    self.screen = Screen::Diff;
                    self.input_active = false;
                } else {
                    self.set_flash(
                        FlashLevel::Warn,
                        "no diff yet: :diff OLD NEW (two graphs) or :diff A B (two runs)",
                    );
                }
            }
        }
        Vec::new()
    }

    /// Two runs (evidence files or fixture folders) side by side.
    pub fn runs_diff(&mut self, a: &str, b: &str) {
        match load_diff(Path::new(a), Path::new(b)) {
            Ok(d) => self.show_diff(d),
            Err(e) => self.set_flash(FlashLevel::Error, crate::sanitize::line(&e)),
        }
    }

    pub fn screen_explore(&mut self) -> Vec<Effect> {
        if self.engine.is_some() {
            self.screen = Screen::Explore;
        }
        Vec::new()
    }
}

fn clamp_add(v: usize, delta: isize, max: usize) -> usize {
    let n = if delta < 0 {
        v.saturating_sub(delta.unsigned_abs())
    } else {
        v.saturating_add(delta as usize)
    };
    n.min(max)
}
