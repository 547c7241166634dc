//! The explorer's state and its update function: events in, state (and effects) out.
//! Nothing here touches the terminal; the runtime (`mod.rs`) performs the [`Effect`]s and
//! the views render a `&App`.

use std::path::PathBuf;
use std::sync::Arc;

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;
use ratatui::crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::layout::Rect;

use super::caps::Caps;
use super::clipboard;
use super::commands::{self, Arg, CmdId, Ctx, Key};
use super::demo::DemoStep;
use super::drill::{CfState, EvJob, EvOut, ExplainState, TraceState};
use super::screens::{DiffView, EvTab, EvidenceView, LabJob, LabMsg, LabView, Opened, Screen};
use super::theme::{Theme, ThemeKind};
use crate::engine::{Engine, Params, Retrieval, SelectParams, Selection};
use crate::model::{NodeId, ToolId};

pub const MAX_TOP_K: usize = 200;
pub const MAX_DEPTH: usize = 8;
pub const BUDGETS: [usize; 9] = [100, 250, 500, 1000, 2000, 4000, 8000, 16000, 32000];
pub const POLICIES: [&str; 3] = ["strong_evidence", "risk_limited", "manual_review"];

/// The panes. The candidates table is always on screen; the others share the drill-down
/// area. A new drill-down pane is a new variant here, a view module and a registry entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PaneId {
    Candidates,
    Detail,
    Selector,
    Graph,
    Subgraph,
    Explain,
    Trace,
    Counterfactual,
}

impl PaneId {
    pub const ALL: [PaneId; 8] = [
        PaneId::Candidates,
        PaneId::Detail,
        PaneId::Selector,
        PaneId::Graph,
        PaneId::Subgraph,
        PaneId::Explain,
        PaneId::Trace,
        PaneId::Counterfactual,
    ];
    pub const DRILL: [PaneId; 7] = [
        PaneId::Detail,
        PaneId::Selector,
        PaneId::Graph,
        PaneId::Subgraph,
        PaneId::Explain,
        PaneId::Trace,
        PaneId::Counterfactual,
    ];
    /// The evidence drill-down path, in order: explain → trace → counterfactual.
    pub const PATH: [PaneId; 3] = [PaneId::Explain, PaneId::Trace, PaneId::Counterfactual];
    pub const COUNT: usize = 8;

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn title(self) -> &'static str {
        match self {
            PaneId::Candidates => "Candidates",
            PaneId::Detail => "Detail",
            PaneId::Selector => "Selector",
            PaneId::Graph => "Graph",
            PaneId::Subgraph => "Subgraph",
            PaneId::Explain => "Explain",
            PaneId::Trace => "Trace",
            PaneId::Counterfactual => "Counterfactual",
        }
    }

    /// A short title for narrow tab bars.
    pub fn short(self) -> &'static str {
        match self {
            PaneId::Candidates => "Cand",
            PaneId::Detail => "Det",
            PaneId::Selector => "Sel",
            PaneId::Graph => "Graph",
            PaneId::Subgraph => "Sub",
            PaneId::Explain => "Expl",
            PaneId::Trace => "Trace",
            PaneId::Counterfactual => "CF",
        }
    }

    pub fn is_drill(self) -> bool {
        self != PaneId::Candidates
    }
}

/// Scroll position and item cursor of a pane.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PaneState {
    /// First visible row (after wrapping).
    pub scroll: usize,
    /// Index of the selected item, for panes with items (graph neighbours, selector rows).
    pub cursor: usize,
    /// The cursor as of the last render (a moved cursor scrolls its whole item into view).
    pub seen_cursor: usize,
}

/// A single-line text input with a cursor (in characters).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineInput {
    pub text: String,
    pub cursor: usize,
}

impl LineInput {
    pub fn set(&mut self, s: &str) {
        self.text = s.to_string();
        self.cursor = self.text.chars().count();
    }

    fn byte_at(&self, ci: usize) -> usize {
        self.text
            .char_indices()
            .nth(ci)
            .map(|(b, _)| b)
            .unwrap_or(self.text.len())
    }

    pub fn insert(&mut self, c: char) {
        let at = self.byte_at(self.cursor);
        self.text.insert(at, c);
        self.cursor += 1;
    }

    pub fn insert_str(&mut self, s: &str) {
        for c in s.chars() {
            self.insert(c);
        }
    }

    pub fn backspace(&mut self) -> bool {
        if self.cursor == 0 {
            return false;
        }
        let at = self.byte_at(self.cursor - 1);
        self.text.remove(at);
        self.cursor -= 1;
        true
    }

    pub fn delete(&mut self) -> bool {
        if self.cursor >= self.text.chars().count() {
            return false;
        }
        let at = self.byte_at(self.cursor);
        self.text.remove(at);
        true
    }

    pub fn kill_to_start(&mut self) -> bool {
        if self.cursor == 0 {
            return false;
        }
        let at = self.byte_at(self.cursor);
        self.text.replace_range(..at, "");
        self.cursor = 0;
        true
    }

    pub fn delete_word(&mut self) -> bool {
        let chars: Vec<char> = self.text.chars().collect();
        let mut i = self.cursor.min(chars.len());
        let end = i;
        while i > 0 && chars[i - 1] == ' ' {
            i -= 1;
        }
        while i > 0 && chars[i - 1] != ' ' {
            i -= 1;
        }
        if i == end {
            return false;
        }
        let (a, b) = (self.byte_at(i), self.byte_at(end));
        self.text.replace_range(a..b, "");
        self.cursor = i;
        true
    }

    pub fn len(&self) -> usize {
        self.text.chars().count()
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }
}

/// One query job for the worker.
#[derive(Clone, Debug)]
pub struct QueryJob {
    pub generation: u64,
    pub query: String,
    pub params: Params,
    pub select: SelectParams,
    /// The current retrieval, reused when only the selector inputs changed.
    pub reuse: Option<Arc<Retrieval>>,
}

/// A finished job.
#[derive(Clone, Debug)]
pub struct QueryOutput {
    pub generation: u64,
    pub retrieval: Arc<Retrieval>,
    pub selection: Arc<Selection>,
    pub micros: u64,
}

/// Runs a job: the engine's retrieval (unless reusable) and its target selection.
pub fn run_job(engine: &Engine, job: &QueryJob) -> QueryOutput {
    let t = std::time::Instant::now();
    let retrieval = match &job.reuse {
        Some(r) if r.query == job.query && r.params == job.params => r.clone(),
        _ => Arc::new(engine.retrieve(&job.query, &job.params)),
    };
    let selection = Arc::new(engine.select(&retrieval, &job.select));
    QueryOutput {
        generation: job.generation,
        retrieval,
        selection,
        micros: t.elapsed().as_micros() as u64,
    }
}

/// Loading progress of the graph.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadProgress {
    pub phase: String,
    /// Overall fraction in [0, 1].
    pub fraction: f64,
    pub detail: String,
}

/// Something the runtime must do.
pub enum Effect {
    Query(Box<QueryJob>),
    /// An explain, trace or counterfactual job for the evidence worker.
    Evidence(Box<EvJob>),
    /// A suite evaluation for its own thread.
    Lab(Box<LabJob>),
    /// Bytes written to the terminal as they are (OSC 52).
    Emit(String),
    SaveScreen,
    EngineReady(Arc<Engine>),
    Quit,
}

/// What arrives on the loop's one channel.
pub enum AppEvent {
    Input(Event),
    Query(QueryOutput),
    QueryFailed {
        generation: u64,
        message: String,
    },
    Progress(LoadProgress),
    Loaded(Result<Loaded, String>),
    /// Evidence or a diff read by the loader (no graph).
    Opened(Result<Opened, String>),
    /// An answer of the evidence worker.
    Evidence(Box<EvOut>),
    EvidenceFailed(String),
    Lab(LabMsg),
    /// A termination signal (SIGTERM, SIGHUP, SIGQUIT).
    Signal(i32),
}

/// A loaded graph and the warnings its loading produced.
pub struct Loaded {
    pub engine: Arc<Engine>,
    pub warnings: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlashLevel {
    Info,
    Warn,
    Error,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flash {
    pub text: String,
    pub level: FlashLevel,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HelpState {
    pub filter: String,
    pub scroll: usize,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PaletteState {
    pub input: LineInput,
    pub selected: usize,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Overlay {
    #[default]
    None,
    Help(HelpState),
    Palette(PaletteState),
}

#[derive(Clone, Debug, Default)]
pub struct DemoState {
    pub steps: Vec<DemoStep>,
    /// The step on screen (if the query is still the step's query).
    pub pos: Option<usize>,
}

/// What the last render measured; fed back so scrolling and mouse clicks know the layout.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LayoutInfo {
    pub size: (u16, u16),
    /// Candidate rows area (without the header) and the first row drawn.
    pub table_rows: Option<Rect>,
    pub table_offset: usize,
    /// Drill pane content area, the scroll offset used and the total content rows.
    pub drill_area: Option<Rect>,
    pub drill_scroll: usize,
    pub drill_rows: usize,
    pub help_rows: usize,
    pub help_height: usize,
}

/// A palette entry: a command, or a value for a command's argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PaletteItem {
    Command(CmdId),
    Value { cmd: CmdId, value: String },
}

pub struct App {
    pub caps: Caps,
    pub theme: Theme,
    pub source_label: String,
    pub engine: Option<Arc<Engine>>,
    pub load: Option<LoadProgress>,
    /// Why loading failed (the runtime prints it after restoring the terminal).
    pub load_error: Option<String>,
    pub query: LineInput,
    pub input_active: bool,
    pub overlay: Overlay,
    pub focus: PaneId,
    /// The drill-down pane shown below the table.
    pub drill: PaneId,
    pub zoom: bool,
    pub params: Params,
    pub select: SelectParams,
    pub learning_count: usize,
    pub result: Option<QueryOutput>,
    /// The generation of the newest job sent; older results are dropped.
    pub generation: u64,
    /// Name of the row to keep selected when the next result arrives.
    keep_name: Option<String>,
    pub row: usize,
    pub panes: [PaneState; PaneId::COUNT],
    pub json_open: bool,
    pub json_lines: Option<(ToolId, Arc<Vec<String>>)>,
    /// Graph pane breadcrumbs; empty = the selected candidate.
    pub graph_stack: Vec<NodeId>,
    pub demo: DemoState,
    pub flash: Option<Flash>,
    pub quit: bool,
    /// The signal that ended the session, if one did.
    pub exit_signal: Option<i32>,
    pub layout: LayoutInfo,
    pub dump_dir: PathBuf,
    /// Whether the status bar shows the last query time (off in snapshots).
    pub show_timing: bool,
    pub screen: Screen,
    pub explain: ExplainState,
    pub trace: TraceState,
    pub cf: CfState,
    /// The evidence drill-down path (explain → trace → counterfactual) taken so far.
    pub drill_path: Vec<PaneId>,
    pub evidence: Option<EvidenceView>,
    pub diffv: Option<DiffView>,
    pub lab: Option<LabView>,
    pub lab_generation: u64,
    /// A suite to evaluate once the graph is loaded (`--cases`).
    pub pending_lab: Option<(crate::lab::suite::Suite, String)>,
    /// Where Esc on the candidates goes back to (a lab case opened in Explore).
    pub return_to: Option<Screen>,
    pub lab_case: Option<String>,
}

impl App {
    pub fn new(caps: Caps, source_label: &str) -> App {
        let theme = Theme::new(caps.theme, caps.color);
        App {
            caps,
            theme,
            source_label: source_label.to_string(),
            engine: None,
            load: Some(LoadProgress {
                phase: "starting".into(),
                fraction: 0.0,
                detail: String::new(),
            }),
            load_error: None,
            query: LineInput::default(),
            input_active: false,
            overlay: Overlay::None,
            focus: PaneId::Candidates,
            drill: PaneId::Detail,
            zoom: false,
            params: Params::default(),
            select: SelectParams::default(),
            learning_count: 0,
            result: None,
            generation: 0,
            keep_name: None,
            row: 0,
            panes: [PaneState::default(); PaneId::COUNT],
            json_open: false,
            json_lines: None,
            graph_stack: Vec::new(),
            demo: DemoState::default(),
            flash: None,
            quit: false,
            exit_signal: None,
            layout: LayoutInfo::default(),
            dump_dir: PathBuf::from("."),
            show_timing: true,
            screen: Screen::Explore,
            explain: ExplainState::default(),
            trace: TraceState::default(),
            cf: CfState::default(),
            drill_path: Vec::new(),
            evidence: None,
            diffv: None,
            lab: None,
            lab_generation: 0,
            pending_lab: None,
            return_to: None,
            lab_case: None,
        }
    }

    /// Sets the learning suggestions given with `--learning`.
    pub fn set_learning(&mut self, suggestions: Vec<serde_json::Value>) {
        self.learning_count = suggestions.len();
        self.params.learning_suggestions = suggestions;
        self.params.learning_enabled = true;
    }

    // ----- derived accessors -------------------------------------------------------

    pub fn retrieval(&self) -> Option<&Retrieval> {
        self.result.as_ref().map(|r| r.retrieval.as_ref())
    }

    pub fn selection(&self) -> Option<&Selection> {
        self.result.as_ref().map(|r| r.selection.as_ref())
    }

    pub fn rows_len(&self) -> usize {
        self.retrieval().map(|r| r.rows.len()).unwrap_or(0)
    }

    pub fn selected_row(&self) -> Option<&crate::engine::Row> {
        self.retrieval().and_then(|r| r.rows.get(self.row))
    }

    /// Whether results for the current inputs are still being computed.
    pub fn running(&self) -> bool {
        self.engine.is_some() && self.result.as_ref().map(|r| r.generation) != Some(self.generation)
    }

    /// The graph node the graph pane shows.
    pub fn graph_focus(&self) -> Option<NodeId> {
        if let Some(&n) = self.graph_stack.last() {
            return Some(n);
        }
        let e = self.engine.as_ref()?;
        let row = self.selected_row()?;
        e.graph.node_of_tool(row.tool)
    }

    pub fn ctx(&self) -> Ctx {
        if self.input_active {
            return commands::INPUT;
        }
        match self.screen {
            Screen::Explore => commands::pane_ctx(self.focus),
            Screen::Evidence => commands::EVIDENCE,
            Screen::Diff => commands::DIFF,
            Screen::Lab => commands::LAB,
        }
    }

    pub fn pane(&self, p: PaneId) -> &PaneState {
        &self.panes[p.index()]
    }

    fn pane_mut(&mut self, p: PaneId) -> &mut PaneState {
        &mut self.panes[p.index()]
    }

    pub fn set_flash(&mut self, level: FlashLevel, text: impl Into<String>) {
        self.flash = Some(Flash {
            text: text.into(),
            level,
        });
    }

    pub fn set_theme(&mut self, kind: ThemeKind) {
        self.caps.theme = kind;
        self.theme = Theme::new(kind, self.caps.color);
    }

    // ----- events --------------------------------------------------------------------

    pub fn on_event(&mut self, ev: AppEvent) -> Vec<Effect> {
        let mut fx = self.on_event_inner(ev);
        if !self.quit {
            fx.extend(self.sync_drill());
            if let Some(e) = self.evidence.as_mut() {
                e.sync_json();
            }
        }
        fx
    }

    fn on_event_inner(&mut self, ev: AppEvent) -> Vec<Effect> {
        match ev {
            AppEvent::Input(Event::Key(k)) => self.on_key(k),
            AppEvent::Input(Event::Mouse(m)) => self.on_mouse(m),
            AppEvent::Input(Event::Paste(s)) => self.on_paste(&s),
            AppEvent::Input(_) => Vec::new(),
            AppEvent::Query(out) => {
                self.on_query_done(out);
                Vec::new()
            }
            AppEvent::QueryFailed {
                generation,
                message,
            } => {
                if generation == self.generation {
                    self.set_flash(FlashLevel::Error, format!("query failed: {message}"));
                }
                Vec::new()
            }
            AppEvent::Progress(p) => {
                if self.engine.is_none() {
                    self.load = Some(p);
                }
                Vec::new()
            }
            AppEvent::Loaded(Ok(l)) => {
                let fx = self.on_loaded(l.engine);
                if let Some(w) = l.warnings.first() {
                    let more = l.warnings.len() - 1;
                    self.set_flash(
                        FlashLevel::Warn,
                        if more > 0 {
                            format!("{w} (+{more} more)")
                        } else {
                            w.clone()
                        },
                    );
                }
                fx
            }
            AppEvent::Signal(sig) => {
                self.exit_signal = Some(sig);
                self.quit = true;
                vec![Effect::Quit]
            }
            AppEvent::Opened(Ok(o)) => {
                self.on_opened(o);
                Vec::new()
            }
            AppEvent::Evidence(out) => {
                self.on_evidence(*out);
                Vec::new()
            }
            AppEvent::EvidenceFailed(message) => {
                self.set_flash(FlashLevel::Error, format!("evidence failed: {message}"));
                Vec::new()
            }
            AppEvent::Lab(m) => {
                self.on_lab(m);
                Vec::new()
            }
            AppEvent::Opened(Err(message)) | AppEvent::Loaded(Err(message)) => {
                self.load_error = Some(message.clone());
                self.set_flash(FlashLevel::Error, message);
                self.quit = true;
                vec![Effect::Quit]
            }
        }
    }

    /// The graph is ready: remember it and run the first query.
    pub fn on_loaded(&mut self, engine: Arc<Engine>) -> Vec<Effect> {
        self.load = None;
        self.engine = Some(engine.clone());
        let mut fx = vec![Effect::EngineReady(engine)];
        if self.query.is_empty() && !self.demo.steps.is_empty() {
            fx.extend(self.demo_goto(0));
        } else {
            fx.push(self.requery(false));
        }
        if let Some((suite, label)) = self.pending_lab.take() {
            fx.extend(self.start_lab(suite, &label));
        }
        fx
    }

    /// A worker result: kept only if it answers the newest job.
    pub fn on_query_done(&mut self, out: QueryOutput) {
        if out.generation != self.generation {
            return;
        }
        let keep = self.keep_name.take();
        let idx = keep
            .as_deref()
            .and_then(|n| out.retrieval.rows.iter().position(|r| r.name == n));
        let old_name = self.selected_row().map(|r| r.name.clone());
        self.result = Some(out);
        self.row = idx.unwrap_or(0);
        let new_name = self.selected_row().map(|r| r.name.clone());
        if old_name != new_name {
            self.on_row_changed();
        }
        let n = self
            .selection()
            .map(|s| s.rows.len())
            .unwrap_or(0)
            .saturating_sub(1);
        let sel = self.pane_mut(PaneId::Selector);
        sel.cursor = sel.cursor.min(n);
        self.sync_json();
    }

    /// Selects candidate row `i` (as moving the cursor there would).
    pub fn select_row(&mut self, i: usize) {
        if i != self.row && i < self.rows_len() {
            self.row = i;
            self.on_row_changed();
        }
    }

    fn on_row_changed(&mut self) {
        self.graph_stack.clear();
        *self.pane_mut(PaneId::Graph) = PaneState::default();
        *self.pane_mut(PaneId::Detail) = PaneState::default();
        *self.pane_mut(PaneId::Trace) = PaneState::default();
        self.sync_json();
    }

    /// Keeps the pretty-printed JSON of the selected tool when it is unfolded.
    fn sync_json(&mut self) {
        if !self.json_open {
            return;
        }
        let Some(engine) = self.engine.clone() else {
            return;
        };
        let Some(tool) = self.selected_row().map(|r| r.tool) else {
            self.json_lines = None;
            return;
        };
        if self.json_lines.as_ref().map(|(t, _)| *t) == Some(tool) {
            return;
        }
        let compact = engine.graph.tool(tool).compact_json();
        let pretty = serde_json::from_str::<serde_json::Value>(compact)
            .ok()
            .and_then(|v| serde_json::to_string_pretty(&v).ok())
            .unwrap_or_else(|| compact.to_string());
        let lines: Vec<String> = pretty.lines().map(crate::sanitize::line).collect();
        self.json_lines = Some((tool, Arc::new(lines)));
    }

    /// Issues a new job for the current inputs. `keep` keeps the selected row by name.
    pub fn requery(&mut self, keep: bool) -> Effect {
        self.generation += 1;
        self.keep_name = if keep {
            self.selected_row().map(|r| r.name.clone())
        } else {
            None
        };
        let reuse = self.result.as_ref().map(|r| r.retrieval.clone());
        Effect::Query(Box::new(QueryJob {
            generation: self.generation,
            query: self.query.text.clone(),
            params: self.params.clone(),
            select: self.select.clone(),
            reuse,
        }))
    }

    fn query_changed(&mut self) -> Effect {
        if let Some(p) = self.demo.pos
            && self.demo.steps.get(p).map(|s| s.query.as_str()) != Some(self.query.text.as_str())
        {
            self.demo.pos = None;
        }
        self.row = 0;
        self.on_row_changed();
        self.requery(false)
    }

    pub fn on_paste(&mut self, s: &str) -> Vec<Effect> {
        let clean = crate::sanitize::line(s);
        match &mut self.overlay {
            Overlay::Palette(p) => {
                p.input.insert_str(&clean);
                p.selected = 0;
                Vec::new()
            }
            Overlay::Help(h) => {
                h.filter.push_str(&clean);
                h.scroll = 0;
                Vec::new()
            }
            Overlay::None => {
                if self.engine.is_none() || self.screen != Screen::Explore {
                    return Vec::new();
                }
                if let Err(m) = crate::limits::check_query_len(self.query.text.len() + clean.len())
                {
                    self.set_flash(FlashLevel::Error, format!("paste refused: {m}"));
                    return Vec::new();
                }
                self.input_active = true;
                self.query.insert_str(&clean);
                vec![self.query_changed()]
            }
        }
    }

    pub fn on_key(&mut self, k: KeyEvent) -> Vec<Effect> {
        if k.kind == KeyEventKind::Release {
            return Vec::new();
        }
        let key = Key::from_event(&k);
        if key.code == KeyCode::Char('c') && key.mods.contains(KeyModifiers::CONTROL) {
            self.quit = true;
            return vec![Effect::Quit];
        }
        self.flash = None;
        match &self.overlay {
            Overlay::Help(_) => return self.help_key(key),
            Overlay::Palette(_) => return self.palette_key(key),
            Overlay::None => {}
        }
        if self.load.is_some() {
            // while loading: help, quit and nothing else
            return match key.code {
                KeyCode::Char('q') | KeyCode::Esc => {
                    self.quit = true;
                    vec![Effect::Quit]
                }
                KeyCode::Char('?') | KeyCode::F(1) => self.run(CmdId::Help, None),
                _ => {
                    self.set_flash(FlashLevel::Info, "still loading the graph (q quits)");
                    Vec::new()
                }
            };
        }
        if self.input_active
            && let Some(fx) = self.edit_key(key)
        {
            return fx;
        }
        let ctx = self.ctx();
        match commands::lookup(self, key, ctx) {
            Some(c) => match (c.enabled)(self) {
                None => self.run(c.id, None),
                Some(why) => {
                    self.set_flash(FlashLevel::Warn, format!("{}: {why}", c.label));
                    Vec::new()
                }
            },
            None => Vec::new(),
        }
    }

    /// Editing keys of the query line; `None` when the key is a command.
    fn edit_key(&mut self, key: Key) -> Option<Vec<Effect>> {
        let ctrl = key.mods.contains(KeyModifiers::CONTROL);
        let alt = key.mods.contains(KeyModifiers::ALT);
        let changed = match key.code {
            KeyCode::Char(c) if !ctrl && !alt => {
                if c.is_control() {
                    return Some(Vec::new());
                }
                self.query.insert(c);
                true
            }
            KeyCode::Char('u') if ctrl => self.query.kill_to_start(),
            KeyCode::Char('w') if ctrl => self.query.delete_word(),
            KeyCode::Char('a') if ctrl => {
                self.query.cursor = 0;
                false
            }
            KeyCode::Char('e') if ctrl => {
                self.query.cursor = self.query.len();
                false
            }
            KeyCode::Backspace => self.query.backspace(),
            KeyCode::Delete => self.query.delete(),
            KeyCode::Left => {
                self.query.cursor = self.query.cursor.saturating_sub(1);
                false
            }
            KeyCode::Right => {
                self.query.cursor = (self.query.cursor + 1).min(self.query.len());
                false
            }
            KeyCode::Home => {
                self.query.cursor = 0;
                false
            }
            KeyCode::End => {
                self.query.cursor = self.query.len();
                false
            }
            _ => return None,
        };
        Some(if changed {
            vec![self.query_changed()]
        } else {
            Vec::new()
        })
    }

    fn on_mouse(&mut self, m: MouseEvent) -> Vec<Effect> {
        if !self.caps.mouse
            || self.overlay != Overlay::None
            || self.engine.is_none()
            || self.screen != Screen::Explore
        {
            return Vec::new();
        }
        let inside = |r: Option<Rect>| {
            r.is_some_and(|r| {
                m.column >= r.x
                    && m.column < r.x.saturating_add(r.width)
                    && m.row >= r.y
                    && m.row < r.y.saturating_add(r.height)
            })
        };
        let in_table = inside(self.layout.table_rows);
        let in_drill = inside(self.layout.drill_area);
        match m.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                if in_table {
                    self.focus = PaneId::Candidates;
                } else if in_drill {
                    self.focus = self.drill;
                }
                self.input_active = false;
                let id = if m.kind == MouseEventKind::ScrollDown {
                    CmdId::Down
                } else {
                    CmdId::Up
                };
                self.run(id, None)
            }
            MouseEventKind::Down(MouseButton::Left) => {
                self.input_active = false;
                if let Some(r) = self.layout.table_rows.filter(|_| in_table) {
                    self.focus = PaneId::Candidates;
                    let idx = self.layout.table_offset + (m.row - r.y) as usize;
                    if idx < self.rows_len() && idx != self.row {
                        self.row = idx;
                        self.on_row_changed();
                    }
                } else if in_drill {
                    self.focus = self.drill;
                }
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    /// Stores what the last render measured (scroll offsets are clamped there).
    pub fn note_layout(&mut self, info: LayoutInfo) {
        let p = match self.screen {
            Screen::Explore => {
                let d = self.drill;
                Some(self.pane_mut(d))
            }
            Screen::Evidence => self.evidence.as_mut().map(|e| &mut e.pane),
            Screen::Diff => self.diffv.as_mut().map(|d| &mut d.pane),
            Screen::Lab => self.lab.as_mut().map(|l| &mut l.pane),
        };
        if let Some(p) = p {
            p.scroll = info.drill_scroll;
            p.seen_cursor = p.cursor;
        }
        if let Overlay::Help(h) = &mut self.overlay {
            h.scroll = h
                .scroll
                .min(info.help_rows.saturating_sub(info.help_height));
        }
        self.layout = info;
    }

    // ----- commands --------------------------------------------------------------------

    pub fn run(&mut self, id: CmdId, arg: Option<&str>) -> Vec<Effect> {
        let arg = arg.map(str::trim).filter(|s| !s.is_empty());
        match id {
            CmdId::ForceQuit | CmdId::Quit => {
                self.quit = true;
                vec![Effect::Quit]
            }
            CmdId::Help => {
                self.overlay = Overlay::Help(HelpState::default());
                Vec::new()
            }
            CmdId::Palette => {
                self.overlay = Overlay::Palette(PaletteState::default());
                Vec::new()
            }
            CmdId::FocusQuery if self.screen != Screen::Explore => {
                if self.engine.is_none() {
                    return self.warn("no graph: this screen shows evidence without one".into());
                }
                self.screen = Screen::Explore;
                self.run(CmdId::FocusQuery, arg)
            }
            CmdId::Down
            | CmdId::Up
            | CmdId::PageDown
            | CmdId::PageUp
            | CmdId::Top
            | CmdId::Bottom
                if self.screen != Screen::Explore && !self.input_active =>
            {
                let d: isize = match id {
                    CmdId::Down => 1,
                    CmdId::Up => -1,
                    CmdId::PageDown => self.page() as isize,
                    CmdId::PageUp => -(self.page() as isize),
                    CmdId::Top => isize::MIN / 2,
                    _ => isize::MAX / 2,
                };
                self.screen_move(d)
            }
            CmdId::NextPane | CmdId::PrevPane if self.screen != Screen::Explore => {
                self.input_active = false;
                self.screen_cycle(id == CmdId::NextPane)
            }
            CmdId::Back if self.screen != Screen::Explore => self.screen_back(),
            CmdId::Copy if self.screen == Screen::Evidence => self.copy_evidence_row(),
            CmdId::PaneExplain => self.focus_fx(PaneId::Explain),
            CmdId::PaneTrace => self.focus_fx(PaneId::Trace),
            CmdId::PaneCounterfactual => self.focus_fx(PaneId::Counterfactual),
            CmdId::ExplainToggle => self.explain_toggle(),
            CmdId::ExplainOpen => self.explain_open(),
            CmdId::ExplainClose => self.explain_close(),
            CmdId::ExplainAll => self.explain_all(),
            CmdId::ExplainSelector => self.explain_selector_row(),
            CmdId::ExplainMetric => self.explain_metric(arg),
            CmdId::ExplainView => self.explain_view(),
            CmdId::TraceScope => self.trace_scope(),
            CmdId::TraceStage => self.trace_stage(arg),
            CmdId::CfKnob => self.cf_knob(1, arg),
            CmdId::CfKnobPrev => self.cf_knob(-1, None),
            CmdId::CfUp => self.cf_step(1),
            CmdId::CfDown => self.cf_step(-1),
            CmdId::CfType => self.cf_type(arg),
            CmdId::PathNext => self.path_next(),
            CmdId::PathBack => self.path_back(),
            CmdId::ScreenEnter => self.screen_enter(),
            CmdId::EvTable => self.ev_table(),
            CmdId::EvTabRow => self.ev_tab(EvTab::Row),
            CmdId::EvTabSelector => self.ev_tab(EvTab::Selector),
            CmdId::EvTabRecord => self.ev_tab(EvTab::Record),
            CmdId::EvJson => self.ev_toggle_json(),
            CmdId::RecordNext => self.record_step(1),
            CmdId::RecordPrev => self.record_step(-1),
            CmdId::ChangedOnly => self.diff_changed_only(),
            CmdId::LabSort => self.lab_sort(arg),
            CmdId::ScreenExplore => self.screen_explore(),
            CmdId::ScreenLab => self.screen_lab(arg),
            CmdId::ScreenEvidence => self.screen_evidence(arg),
            CmdId::ScreenDiff => self.screen_diff(arg),
            CmdId::FocusQuery => match arg {
                Some(text) => {
                    self.query.set(&crate::sanitize::line(text));
                    vec![self.query_changed()]
                }
                None => {
                    self.input_active = true;
                    self.query.cursor = self.query.len();
                    Vec::new()
                }
            },
            CmdId::InputLeave => {
                self.input_active = false;
                self.focus = PaneId::Candidates;
                Vec::new()
            }
            CmdId::Down => self.move_by(1),
            CmdId::Up => self.move_by(-1),
            CmdId::PageDown => {
                let p = self.page() as isize;
                self.move_by(p)
            }
            CmdId::PageUp => {
                let p = self.page() as isize;
                self.move_by(-p)
            }
            CmdId::Top => self.move_by(isize::MIN / 2),
            CmdId::Bottom => self.move_by(isize::MAX / 2),
            CmdId::NextPane => {
                self.input_active = false;
                let i = PaneId::ALL
                    .iter()
                    .position(|p| *p == self.focus)
                    .unwrap_or(0);
                self.focus_pane(PaneId::ALL[(i + 1) % PaneId::COUNT]);
                Vec::new()
            }
            CmdId::PrevPane => {
                self.input_active = false;
                let i = PaneId::ALL
                    .iter()
                    .position(|p| *p == self.focus)
                    .unwrap_or(0);
                self.focus_pane(PaneId::ALL[(i + PaneId::COUNT - 1) % PaneId::COUNT]);
                Vec::new()
            }
            CmdId::PaneCandidates => self.focus_fx(PaneId::Candidates),
            CmdId::PaneDetail => self.focus_fx(PaneId::Detail),
            CmdId::PaneSelector => self.focus_fx(PaneId::Selector),
            CmdId::PaneGraph => self.focus_fx(PaneId::Graph),
            CmdId::PaneSubgraph => self.focus_fx(PaneId::Subgraph),
            CmdId::OpenDetail => self.focus_fx(PaneId::Detail),
            CmdId::ToggleJson => {
                self.json_open = !self.json_open;
                if self.json_open {
                    self.sync_json();
                }
                Vec::new()
            }
            CmdId::GraphJump => {
                let Some(target) = super::views::graph::cursor_target(self) else {
                    return Vec::new();
                };
                if self.graph_stack.is_empty()
                    && let Some(root) = self.graph_focus()
                {
                    self.graph_stack.push(root);
                }
                self.graph_stack.push(target);
                *self.pane_mut(PaneId::Graph) = PaneState::default();
                Vec::new()
            }
            CmdId::GraphBack => {
                let from = self.graph_stack.pop();
                if self.graph_stack.len() == 1 {
                    // back at the candidate: follow the table again
                    self.graph_stack.clear();
                }
                // put the cursor on the node we came back from
                let pos = from.and_then(|f| {
                    super::views::graph::neighbours(self)
                        .iter()
                        .position(|n| n.node == f)
                });
                *self.pane_mut(PaneId::Graph) = PaneState {
                    scroll: 0,
                    cursor: pos.unwrap_or(0),
                    seen_cursor: usize::MAX,
                };
                Vec::new()
            }
            CmdId::Back => {
                if self.zoom {
                    self.zoom = false;
                } else if self.focus != PaneId::Candidates {
                    self.focus = PaneId::Candidates;
                } else if let Some(s) = self.return_to.take() {
                    // a lab case: back to the lab
                    self.screen = s;
                    self.lab_case = None;
                }
                Vec::new()
            }
            CmdId::Zoom => {
                self.zoom = !self.zoom;
                Vec::new()
            }
            CmdId::LlmPick => {
                let name = if self.focus == PaneId::Selector {
                    let c = self.pane(PaneId::Selector).cursor;
                    self.selection()
                        .and_then(|s| s.rows.get(c))
                        .map(|r| r.name.clone())
                } else {
                    self.selected_row().map(|r| r.name.clone())
                };
                let Some(name) = name else {
                    return Vec::new();
                };
                if self.select.llm_target.as_deref() == Some(name.as_str()) {
                    self.select.llm_target = None;
                    self.set_flash(
                        FlashLevel::Info,
                        format!("LLM target {} unset", clean(&name)),
                    );
                } else {
                    self.set_flash(FlashLevel::Info, format!("LLM target: {}", clean(&name)));
                    self.select.llm_target = Some(name);
                }
                vec![self.requery(true)]
            }
            CmdId::LlmType => match arg {
                Some(name) => {
                    self.select.llm_target = Some(name.to_string());
                    self.set_flash(FlashLevel::Info, format!("LLM target: {}", clean(name)));
                    vec![self.requery(true)]
                }
                None => {
                    let mut p = PaletteState::default();
                    p.input.set("llm ");
                    self.overlay = Overlay::Palette(p);
                    Vec::new()
                }
            },
            CmdId::LlmClear => {
                self.select.llm_target = None;
                vec![self.requery(true)]
            }
            CmdId::PolicyCycle => {
                let next = match arg {
                    Some(a) => match POLICIES.iter().find(|p| **p == a) {
                        Some(p) => p.to_string(),
                        None => {
                            self.set_flash(
                                FlashLevel::Warn,
                                format!("unknown policy {:?}: {}", clean(a), POLICIES.join(", ")),
                            );
                            return Vec::new();
                        }
                    },
                    None => {
                        let i = POLICIES
                            .iter()
                            .position(|p| *p == self.select.policy)
                            .map(|i| (i + 1) % POLICIES.len())
                            .unwrap_or(0);
                        POLICIES[i].to_string()
                    }
                };
                self.set_flash(FlashLevel::Info, format!("policy: {next}"));
                self.select.policy = next;
                vec![self.requery(true)]
            }
            CmdId::TopKUp | CmdId::TopKDown => {
                let v = match (arg, id) {
                    (Some(a), _) => match parse_num(a, 1, MAX_TOP_K) {
                        Ok(v) => v,
                        Err(e) => return self.warn(e),
                    },
                    (None, CmdId::TopKUp) => (self.params.top_k + 1).min(MAX_TOP_K),
                    _ => self.params.top_k.saturating_sub(1).max(1),
                };
                self.params.top_k = v;
                vec![self.requery(true)]
            }
            CmdId::DepthUp | CmdId::DepthDown => {
                let v = match (arg, id) {
                    (Some(a), _) => match parse_num(a, 0, MAX_DEPTH) {
                        Ok(v) => v,
                        Err(e) => return self.warn(e),
                    },
                    (None, CmdId::DepthUp) => (self.params.depth + 1).min(MAX_DEPTH),
                    _ => self.params.depth.saturating_sub(1),
                };
                self.params.depth = v;
                vec![self.requery(true)]
            }
            CmdId::BudgetUp | CmdId::BudgetDown => {
                let cur = self.params.token_budget;
                let v = match (arg, id) {
                    (Some(a), _) => match parse_num(a, 1, 10_000_000) {
                        Ok(v) => v,
                        Err(e) => return self.warn(e),
                    },
                    (None, CmdId::BudgetUp) => {
                        BUDGETS.iter().copied().find(|b| *b > cur).unwrap_or(cur)
                    }
                    _ => BUDGETS
                        .iter()
                        .rev()
                        .copied()
                        .find(|b| *b < cur)
                        .unwrap_or(cur),
                };
                self.params.token_budget = v;
                vec![self.requery(true)]
            }
            CmdId::HistoryAdd => {
                let name = match arg {
                    Some(a) => a.to_string(),
                    None => match self.selected_row() {
                        Some(r) => r.name.clone(),
                        None => return Vec::new(),
                    },
                };
                self.set_flash(
                    FlashLevel::Info,
                    format!("history + {} (each entry demotes it x0.6)", clean(&name)),
                );
                self.params.history.push(name);
                vec![self.requery(true)]
            }
            CmdId::HistoryClear => {
                self.params.history.clear();
                vec![self.requery(true)]
            }
            CmdId::LearningToggle => {
                self.params.learning_enabled = !self.params.learning_enabled;
                self.set_flash(
                    FlashLevel::Info,
                    format!(
                        "learning suggestions {}",
                        if self.params.learning_enabled {
                            "on"
                        } else {
                            "off"
                        }
                    ),
                );
                vec![self.requery(true)]
            }
            CmdId::ResetParams => {
                let sugg = std::mem::take(&mut self.params.learning_suggestions);
                self.params = Params {
                    learning_suggestions: sugg,
                    ..Params::default()
                };
                self.select = SelectParams::default();
                self.set_flash(FlashLevel::Info, "parameters reset");
                vec![self.requery(true)]
            }
            CmdId::DemoNext | CmdId::DemoPrev => {
                let n = self.demo.steps.len();
                if n == 0 {
                    return Vec::new();
                }
                let target = match (arg, id) {
                    (Some(a), _) => match parse_num(a, 1, n) {
                        Ok(v) => v - 1,
                        Err(e) => return self.warn(e),
                    },
                    (None, CmdId::DemoNext) => self.demo.pos.map(|p| (p + 1) % n).unwrap_or(0),
                    _ => self.demo.pos.map(|p| (p + n - 1) % n).unwrap_or(n - 1),
                };
                self.demo_goto(target)
            }
            CmdId::Copy => self.copy(),
            CmdId::Save => vec![Effect::SaveScreen],
            CmdId::ThemeCycle => {
                let next = match arg {
                    Some(a) => match ThemeKind::parse(a) {
                        Some(t) => t,
                        None => return self.warn("themes: dark, light, high-contrast".into()),
                    },
                    None => self.caps.theme.next(),
                };
                self.set_theme(next);
                self.set_flash(FlashLevel::Info, format!("theme: {}", next.as_str()));
                Vec::new()
            }
        }
    }

    fn warn(&mut self, msg: String) -> Vec<Effect> {
        self.set_flash(FlashLevel::Warn, msg);
        Vec::new()
    }

    fn focus_fx(&mut self, p: PaneId) -> Vec<Effect> {
        self.focus_pane(p);
        Vec::new()
    }

    pub fn focus_pane(&mut self, p: PaneId) {
        self.focus = p;
        if p.is_drill() {
            self.drill = p;
        }
        self.path_focus(p);
    }

    fn page(&self) -> usize {
        let list_focused = match self.screen {
            Screen::Explore => self.focus == PaneId::Candidates,
            Screen::Evidence => self
                .evidence
                .as_ref()
                .is_some_and(|e| e.focus != super::screens::EvFocus::Pane),
            Screen::Diff => self
                .diffv
                .as_ref()
                .is_some_and(|d| d.focus == super::screens::DiffFocus::Cases),
            Screen::Lab => self
                .lab
                .as_ref()
                .is_some_and(|l| l.focus == super::screens::LabFocus::Cases),
        };
        let h = if list_focused {
            self.layout.table_rows.map(|r| r.height as usize)
        } else {
            self.layout.drill_area.map(|r| r.height as usize)
        };
        h.unwrap_or(10).saturating_sub(1).max(1)
    }

    /// Moves the cursor of the focused pane (or scrolls it when it has no items).
    fn move_by(&mut self, delta: isize) -> Vec<Effect> {
        let target = if self.input_active {
            PaneId::Candidates
        } else {
            self.focus
        };
        match target {
            PaneId::Candidates => {
                let n = self.rows_len();
                if n == 0 {
                    return Vec::new();
                }
                let new = clamp_add(self.row, delta, n - 1);
                if new != self.row {
                    self.row = new;
                    self.on_row_changed();
                }
            }
            p => {
                let items = super::views::item_count(self, p);
                if items > 0 {
                    let st = self.pane_mut(p);
                    st.cursor = clamp_add(st.cursor, delta, items - 1);
                } else {
                    let max = if p == self.drill {
                        let h = self
                            .layout
                            .drill_area
                            .map(|r| r.height as usize)
                            .unwrap_or(0);
                        self.layout.drill_rows.saturating_sub(h)
                    } else {
                        usize::MAX / 4
                    };
                    let st = self.pane_mut(p);
                    st.scroll = clamp_add(st.scroll, delta, max);
                }
            }
        }
        Vec::new()
    }

    /// Loads walkthrough step `i`: its query, and the LLM target and history its scene needs.
    pub fn demo_goto(&mut self, i: usize) -> Vec<Effect> {
        let Some(step) = self.demo.steps.get(i).cloned() else {
            return Vec::new();
        };
        self.demo.pos = Some(i);
        self.query.set(&step.query);
        self.input_active = false;
        self.params.history = step.history.clone();
        self.select.llm_target = step.llm_target.clone();
        self.select.policy = POLICIES[0].to_string();
        self.row = 0;
        self.on_row_changed();
        vec![self.requery(false)]
    }

    fn copy(&mut self) -> Vec<Effect> {
        let (Some(engine), Some(row)) = (self.engine.clone(), self.selected_row().cloned()) else {
            return Vec::new();
        };
        let mut w = crate::jsonout::JsonWriter::with_capacity(4096);
        crate::output::json::write_row(&engine, &row, &mut w);
        let json = w.finish();
        let what = format!(
            "evidence JSON of {} (row {})",
            clean(&row.name),
            self.row + 1
        );
        self.emit_copy(&json, &what)
    }

    fn copy_evidence_row(&mut self) -> Vec<Effect> {
        let Some(e) = self.evidence.as_ref() else {
            return Vec::new();
        };
        let Some(row) = e.current_row() else {
            return Vec::new();
        };
        let json = serde_json::to_string(&row.value).unwrap_or_default();
        let what = format!("row JSON of {} (row {})", clean(&row.name), e.row + 1);
        self.emit_copy(&json, &what)
    }

    fn emit_copy(&mut self, json: &str, what: &str) -> Vec<Effect> {
        let seq = clipboard::osc52(json, self.caps.clipboard.tmux_passthrough);
        let route = match (
            self.caps.clipboard.tmux_passthrough,
            self.caps.clipboard.over_ssh,
        ) {
            (true, _) => "OSC 52 to tmux and its passthrough",
            (false, true) => "OSC 52 over SSH",
            _ => "OSC 52",
        };
        self.set_flash(
            FlashLevel::Info,
            format!("copied {} bytes: {what} via {route}", json.len()),
        );
        vec![Effect::Emit(seq)]
    }

    // ----- overlays --------------------------------------------------------------------

    fn help_key(&mut self, key: Key) -> Vec<Effect> {
        let Overlay::Help(h) = &mut self.overlay else {
            return Vec::new();
        };
        let page = self.layout.help_height.max(2) - 1;
        match key.code {
            KeyCode::Esc if !h.filter.is_empty() => {
                h.filter.clear();
                h.scroll = 0;
            }
            KeyCode::Esc | KeyCode::F(1) | KeyCode::Enter => self.overlay = Overlay::None,
            KeyCode::Char('?') if h.filter.is_empty() => self.overlay = Overlay::None,
            KeyCode::Backspace => {
                h.filter.pop();
                h.scroll = 0;
            }
            KeyCode::Down => h.scroll = h.scroll.saturating_add(1),
            KeyCode::Up => h.scroll = h.scroll.saturating_sub(1),
            KeyCode::PageDown => h.scroll = h.scroll.saturating_add(page),
            KeyCode::PageUp => h.scroll = h.scroll.saturating_sub(page),
            KeyCode::Home => h.scroll = 0,
            KeyCode::Char(c) if !key.mods.contains(KeyModifiers::CONTROL) && !c.is_control() => {
                h.filter.push(c);
                h.scroll = 0;
            }
            _ => {}
        }
        Vec::new()
    }

    fn palette_key(&mut self, key: Key) -> Vec<Effect> {
        let items = self.palette_items();
        let Overlay::Palette(p) = &mut self.overlay else {
            return Vec::new();
        };
        let ctrl = key.mods.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => self.overlay = Overlay::None,
            KeyCode::Down => p.selected = (p.selected + 1).min(items.len().saturating_sub(1)),
            KeyCode::Up => p.selected = p.selected.saturating_sub(1),
            KeyCode::Tab => {
                // complete the highlighted entry into the input
                if let Some(it) = items.get(p.selected) {
                    match it {
                        PaletteItem::Command(id) => {
                            let c = commands::get(*id);
                            p.input.set(&format!(
                                "{}{}",
                                c.name,
                                if c.arg == Arg::None { "" } else { " " }
                            ));
                        }
                        PaletteItem::Value { cmd, value } => {
                            p.input
                                .set(&format!("{} {}", commands::get(*cmd).name, value));
                        }
                    }
                    p.selected = 0;
                }
            }
            KeyCode::Backspace => {
                p.input.backspace();
                p.selected = 0;
            }
            KeyCode::Left => p.input.cursor = p.input.cursor.saturating_sub(1),
            KeyCode::Right => p.input.cursor = (p.input.cursor + 1).min(p.input.len()),
            KeyCode::Char('u') if ctrl => {
                p.input.kill_to_start();
                p.selected = 0;
            }
            KeyCode::Char('w') if ctrl => {
                p.input.delete_word();
                p.selected = 0;
            }
            KeyCode::Char(c) if !ctrl && !c.is_control() => {
                p.input.insert(c);
                p.selected = 0;
            }
            KeyCode::Enter => {
                let text = p.input.text.clone();
                let chosen = items.get(p.selected).cloned();
                return self.palette_accept(&text, chosen);
            }
            _ => {}
        }
        Vec::new()
    }

    fn palette_accept(&mut self, text: &str, chosen: Option<PaletteItem>) -> Vec<Effect> {
        let text = text.trim();
        let (word, rest) = match text.split_once(' ') {
            Some((w, r)) => (w, Some(r.trim())),
            None => (text, None),
        };
        // an exact command name runs with its argument
        if let Some(c) = commands::by_name(word) {
            let arg_given = rest.filter(|r| !r.is_empty());
            if let (Some(a), Some(PaletteItem::Value { cmd, value })) = (arg_given, &chosen)
                && *cmd == c.id
                && value.to_lowercase().contains(&a.to_lowercase())
            {
                return self.palette_run(c.id, Some(value.clone()));
            }
            return self.palette_run(c.id, arg_given.map(String::from));
        }
        match chosen {
            Some(PaletteItem::Command(id)) => self.palette_run(id, None),
            Some(PaletteItem::Value { cmd, value }) => self.palette_run(cmd, Some(value)),
            None => {
                self.overlay = Overlay::None;
                self.warn(format!("no command matches {:?}", clean(text)))
            }
        }
    }

    fn palette_run(&mut self, id: CmdId, arg: Option<String>) -> Vec<Effect> {
        self.overlay = Overlay::None;
        let c = commands::get(id);
        if arg.is_some() && c.arg == Arg::None {
            return self.warn(format!(":{} takes no argument", c.name));
        }
        let explicit = arg.is_some() && matches!(id, CmdId::TopKUp | CmdId::DepthUp);
        if let Some(why) = (c.enabled)(self)
            && !explicit
        {
            return self.warn(format!("{}: {why}", c.label));
        }
        if id == CmdId::LlmType && arg.is_none() {
            // `:llm` alone unsets the target
            self.select.llm_target = None;
            self.set_flash(FlashLevel::Info, "LLM target unset");
            return vec![self.requery(true)];
        }
        self.run(id, arg.as_deref())
    }

    /// The palette list for the current input: commands (fuzzy), or values of the
    /// command being given an argument (tool names, policies, themes).
    pub fn palette_items(&self) -> Vec<PaletteItem> {
        let Overlay::Palette(p) = &self.overlay else {
            return Vec::new();
        };
        palette_items_for(self, &p.input.text)
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

fn parse_num(s: &str, lo: usize, hi: usize) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(v) if v >= lo && v <= hi => Ok(v),
        _ => Err(format!(
            "expected a number from {lo} to {hi}, got {:?}",
            clean(s)
        )),
    }
}

fn clean(s: &str) -> String {
    crate::sanitize::line(s)
}

/// Maximum values listed for a command argument.
const MAX_VALUES: usize = 60;

pub fn palette_items_for(app: &App, text: &str) -> Vec<PaletteItem> {
    let matcher = SkimMatcherV2::default().ignore_case();
    if let Some((word, rest)) = text.split_once(' ')
        && let Some(c) = commands::by_name(word)
    {
        let values: Vec<String> = match c.id {
            CmdId::LlmType | CmdId::HistoryAdd => tool_values(app, rest.trim(), &matcher),
            CmdId::PolicyCycle => POLICIES.iter().map(|s| s.to_string()).collect(),
            CmdId::ThemeCycle => ThemeKind::ALL.iter().map(|t| t.as_str().into()).collect(),
            CmdId::DemoNext => app
                .demo
                .steps
                .iter()
                .enumerate()
                .map(|(i, s)| format!("{} {}", i + 1, s.query))
                .collect(),
            CmdId::ExplainMetric => super::drill::Metric::ALL
                .iter()
                .map(|m| m.id().to_string())
                .collect(),
            CmdId::TraceStage => std::iter::once("all".to_string())
                .chain(app.trace_stages())
                .collect(),
            CmdId::CfKnob => crate::evidence::knobs::KNOBS
                .iter()
                .map(|k| k.to_string())
                .collect(),
            CmdId::CfType => cf_values(app, rest.trim()),
            CmdId::LabSort => super::screens::LabSort::ALL
                .iter()
                .map(|s| s.name().to_string())
                .collect(),
            _ => Vec::new(),
        };
        let rest = rest.trim();
        let mut scored: Vec<(i64, usize, String)> = values
            .into_iter()
            .enumerate()
            .filter_map(|(i, v)| {
                if rest.is_empty() {
                    Some((0, i, v))
                } else {
                    matcher.fuzzy_match(&v, rest).map(|s| (s, i, v))
                }
            })
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        return scored
            .into_iter()
            .take(MAX_VALUES)
            .map(|(_, _, v)| {
                let value = if c.id == CmdId::DemoNext {
                    v.split(' ').next().unwrap_or("").to_string()
                } else {
                    v
                };
                PaletteItem::Value { cmd: c.id, value }
            })
            .collect();
    }
    let pat = text.trim();
    let mut scored: Vec<(i64, usize, CmdId)> = commands::REGISTRY
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            if pat.is_empty() {
                return Some((0, i, c.id));
            }
            let hay = format!("{} {}", c.name, c.label);
            matcher.fuzzy_match(&hay, pat).map(|s| {
                let bonus = if c.name.starts_with(pat) { 1000 } else { 0 };
                (s + bonus, i, c.id)
            })
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored
        .into_iter()
        .map(|(_, _, id)| PaletteItem::Command(id))
        .collect()
}

/// `knob=value` suggestions for `:cf`: the typed knob's values (the selected knob's when
/// none is typed yet).
fn cf_values(app: &App, typed: &str) -> Vec<String> {
    use crate::evidence::knobs::KNOBS;
    let Some(base) = super::drill::base_knobs(app) else {
        return Vec::new();
    };
    let knob = typed
        .split_once('=')
        .map(|(k, _)| k.trim())
        .and_then(|k| KNOBS.iter().find(|x| **x == k).copied())
        .unwrap_or(KNOBS[app.cf.knob]);
    let vals: Vec<serde_json::Value> = match knob {
        "top_k" => [1u64, 3, 5, 10, 20, 50]
            .map(serde_json::Value::from)
            .to_vec(),
        "depth" => (0u64..=4).map(serde_json::Value::from).collect(),
        "token_budget" => BUDGETS.iter().map(|b| (*b as u64).into()).collect(),
        _ => super::drill::knob_values(app, knob, &base),
    };
    vals.iter()
        .map(|v| {
            let text = match v {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Object(_) => super::drill::show_value(v),
                other => other.to_string(),
            };
            format!("{knob}={text}")
        })
        .collect()
}

/// Tool names for `:llm`/`:history`: the candidates first, then the graph's tools.
fn tool_values(app: &App, pat: &str, matcher: &SkimMatcherV2) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if let Some(r) = app.retrieval() {
        for row in &r.rows {
            out.push(row.name.clone());
        }
    }
    if let Some(e) = &app.engine {
        let mut extra: Vec<(i64, &str)> = Vec::new();
        for t in &e.graph.tools {
            if out.contains(&t.name) {
                continue;
            }
            if pat.is_empty() {
                extra.push((0, &t.name));
                if extra.len() >= MAX_VALUES {
                    break;
                }
            } else if let Some(s) = matcher.fuzzy_match(&t.name, pat) {
                extra.push((s, &t.name));
            }
        }
        extra.sort_by_key(|b| std::cmp::Reverse(b.0));
        out.extend(
            extra
                .into_iter()
                .take(MAX_VALUES)
                .map(|(_, n)| n.to_string()),
        );
    }
    out
}
