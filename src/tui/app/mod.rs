//! The explorer's state: events in, state (and effects) out. Nothing here touches the
//! terminal; the runtime (`tui/mod.rs`) performs the [`Effect`]s and the views render a
//! `&App`.
//!
//! One file per part: this one holds the state ([`App`], its panes and overlays, the
//! events in and effects out), [`update`] what an event does to it (keys, mouse, paste,
//! results, the help overlay), [`dispatch`] what each command does ([`App::run`]),
//! [`palette`] the command palette and its value completion, and [`job`] the query job the
//! worker runs. The children add `impl App` blocks; none imports another's private items.

mod dispatch;
mod help;
mod job;
mod palette;
mod update;

use std::path::PathBuf;
use std::sync::Arc;

use ratatui::crossterm::event::Event;
use ratatui::layout::Rect;

use super::caps::Caps;
use super::commands::{self, CmdId, Ctx};
use super::demo::DemoStep;
use super::drill::{CfState, EvJob, EvOut, ExplainState, TraceState};
use super::screens::{DiffView, EvidenceView, LabJob, LabMsg, LabView, Opened, Screen};
use super::theme::{Theme, ThemeKind};
use crate::engine::{Engine, Params, Retrieval, SelectParams, Selection};
use crate::model::{NodeId, ToolId};

pub use job::{QueryJob, QueryOutput, run_job};
pub use palette::{enter_preview, palette_items_for};

pub const MAX_TOP_K: usize = 200;
pub const MAX_DEPTH: usize = 8;
pub const BUDGETS: [usize; 9] = [100, 250, 500, 1000, 2000, 4000, 8000, 16000, 32000];
pub use crate::engine::params::{POLICIES, Policy};

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
    WhyNot,
}

impl PaneId {
    pub const ALL: [PaneId; 9] = [
        PaneId::Candidates,
        PaneId::Detail,
        PaneId::Selector,
        PaneId::Graph,
        PaneId::Subgraph,
        PaneId::Explain,
        PaneId::Trace,
        PaneId::Counterfactual,
        PaneId::WhyNot,
    ];
    pub const DRILL: [PaneId; 8] = [
        PaneId::Detail,
        PaneId::Selector,
        PaneId::Graph,
        PaneId::Subgraph,
        PaneId::Explain,
        PaneId::Trace,
        PaneId::Counterfactual,
        PaneId::WhyNot,
    ];
    /// The evidence drill-down path, in order: explain → trace → counterfactual.
    pub const PATH: [PaneId; 3] = [PaneId::Explain, PaneId::Trace, PaneId::Counterfactual];
    pub const COUNT: usize = 9;

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
            PaneId::WhyNot => "Why-not",
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
            PaneId::WhyNot => "Why",
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
    /// The view was scrolled above the first item (`k`, `g` or PgUp there): the text
    /// before the items shows, the cursor stays off screen until it moves.
    pub above: bool,
}

impl PaneState {
    /// Moves the cursor by `delta` over `items` items. Moving up from the first item
    /// scrolls the text above it into view ([`PaneState::above`]) instead, and going to
    /// the top (`g`) shows the pane's first line with the cursor on the first item; any
    /// other move brings the cursor back into view.
    pub fn move_cursor(&mut self, delta: isize, items: usize) {
        if items == 0 {
            return;
        }
        if delta <= isize::MIN / 4 {
            self.cursor = 0;
            // as if already seen there: the view is not pulled down to the cursor
            self.seen_cursor = 0;
            self.scroll = 0;
            self.above = true;
            return;
        }
        if delta < 0 && self.cursor == 0 {
            self.above = true;
            self.scroll = self.scroll.saturating_sub(delta.unsigned_abs());
            return;
        }
        self.above = false;
        let n = if delta < 0 {
            self.cursor.saturating_sub(delta.unsigned_abs())
        } else {
            self.cursor.saturating_add(delta as usize)
        };
        self.cursor = n.min(items - 1);
    }
}

/// A single-line text input with a cursor (in characters). `selected` marks the whole text
/// as selected (a fresh `/`): typing or deleting replaces it, moving the cursor keeps it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineInput {
    pub text: String,
    pub cursor: usize,
    pub selected: bool,
}

impl LineInput {
    pub fn set(&mut self, s: &str) {
        self.text = s.to_string();
        self.cursor = self.text.chars().count();
        self.selected = false;
    }

    /// Selects the whole text (so the next typed character replaces it).
    pub fn select_all(&mut self) {
        self.cursor = self.len();
        self.selected = !self.text.is_empty();
    }

    /// Types `c` (replacing a selected text); true when the text changed.
    pub fn type_char(&mut self, c: char) -> bool {
        if std::mem::take(&mut self.selected) {
            self.text.clear();
            self.cursor = 0;
        }
        self.insert(c);
        true
    }

    /// Applies a line-editing action; true when the text changed.
    pub fn apply(&mut self, e: crate::tui::commands::edit::Edit) -> bool {
        use crate::tui::commands::edit::Edit;
        if std::mem::take(&mut self.selected) {
            match e {
                Edit::Backspace
                | Edit::Delete
                | Edit::KillToStart
                | Edit::KillToEnd
                | Edit::DeleteWord => {
                    let changed = !self.text.is_empty();
                    self.set("");
                    return changed;
                }
                _ => {}
            }
        }
        match e {
            Edit::Left => {
                self.cursor = self.cursor.saturating_sub(1);
                false
            }
            Edit::Right => {
                self.cursor = (self.cursor + 1).min(self.len());
                false
            }
            Edit::Home => {
                self.cursor = 0;
                false
            }
            Edit::End => {
                self.cursor = self.len();
                false
            }
            Edit::Backspace => self.backspace(),
            Edit::Delete => self.delete(),
            Edit::KillToStart => self.kill_to_start(),
            Edit::KillToEnd => self.kill_to_end(),
            Edit::DeleteWord => self.delete_word(),
        }
    }

    pub fn kill_to_end(&mut self) -> bool {
        let at = self.byte_at(self.cursor);
        if at >= self.text.len() {
            return false;
        }
        self.text.truncate(at);
        true
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
        if std::mem::take(&mut self.selected) {
            self.text.clear();
            self.cursor = 0;
        }
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

/// Find inside the drill-down pane (`Ctrl-F`): the pattern, whether it is being typed, the
/// match that is current, and whether the next render should scroll to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Find {
    pub pane: PaneId,
    pub input: LineInput,
    pub typing: bool,
    pub current: usize,
    /// Matches counted by the last render.
    pub matches: usize,
    pub jump: bool,
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
    /// A file to follow on its own thread.
    Follow(Box<crate::tui::follow::FollowJob>),
    /// Bytes written to the terminal as they are.
    Emit(String),
    /// A copy (`y`): OSC 52, the tmux buffer inside tmux, and a file.
    Copy(Box<crate::tui::clipboard::CopyJob>),
    SaveScreen,
    EngineReady(Arc<Engine>),
    /// Two graphs to compare: start the Diff screen's worker (OLD, NEW, their labels, the
    /// view's epoch), replacing the one before.
    GdStart(Arc<Engine>, Arc<Engine>, (String, String), u64),
    /// Two graphs to load for the Diff screen (`:diff`), off the UI thread.
    GdLoad(Box<crate::tui::gdiff::open::PairJob>),
    /// A blame or re-rank job for that worker.
    Gd(Box<crate::tui::gdiff::work::GdJob>),
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
    /// New records (and what the tail saw) from the follow thread.
    Follow(crate::tui::follow::FollowMsg),
    /// A termination signal (SIGTERM, SIGHUP, SIGQUIT).
    Signal(i32),
    /// The Diff screen's worker for two graphs.
    Gd(crate::tui::gdiff::work::GdMsg),
    /// The loader of a `:diff` pair: its progress, then the graphs (or the error).
    GdLoadProgress(u64, LoadProgress),
    GdLoaded(u64, crate::tui::gdiff::open::PairLoaded),
}

/// A loaded graph and the warnings its loading produced.
pub struct Loaded {
    pub engine: Arc<Engine>,
    pub warnings: Vec<String>,
    /// Two graphs were given: the OLD one (`engine` is the NEW one).
    pub old: Option<Arc<Engine>>,
}

/// How many recent messages the message log keeps.
pub const MESSAGE_LOG: usize = 50;

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
    /// What the message line shows when `text` does not fit: the essential part, whole
    /// (the messages overlay keeps `text` in full).
    pub short: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HelpState {
    pub filter: LineInput,
    pub scroll: usize,
    /// A find in the overlay's text (Ctrl-F), as in the drill-down panes.
    pub find: Option<HelpFind>,
}

/// The help overlay's find: the pattern, whether it is being typed, the current match,
/// the matches the last render counted, and whether the next render scrolls to the
/// current one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HelpFind {
    pub input: LineInput,
    pub typing: bool,
    pub current: usize,
    pub matches: usize,
    pub jump: bool,
}

/// The `:` palette: its input, the highlighted entry (none until an arrow key moves) and
/// the answer to the last Enter that ran nothing (an unknown or ambiguous command, a bad
/// argument), shown in the palette until the input changes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PaletteState {
    pub input: LineInput,
    pub selected: Option<usize>,
    pub error: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Overlay {
    #[default]
    None,
    Help(HelpState),
    Palette(PaletteState),
    /// The walkthrough step's narration in full, with what it claims is on screen.
    Note,
    /// The recent messages in full ([`App::messages`]), newest first.
    Messages,
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
    /// The help overlay's scroll offset as drawn and its find's matches.
    pub help_scroll: usize,
    pub help_matches: usize,
    /// Where the drill-down pane's tab labels are (a click on one switches to it).
    pub tabs: Vec<crate::tui::derive::TabHit>,
    /// Matches of the find pattern in the drill-down pane.
    pub find_matches: usize,
}

/// A palette entry: a command, or a value for a command's argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PaletteItem {
    Command(CmdId),
    Value { cmd: CmdId, value: String },
}

pub struct App {
    pub caps: Caps,
    /// Find inside the drill-down pane, while one is open.
    pub find: Option<Find>,
    pub theme: Theme,
    /// The configuration file's key overrides over the registry.
    pub keys: commands::keymap::Keymap,
    /// The configuration file's `[themes.NAME]` tables, and which one is on (if any).
    pub custom_themes: Vec<crate::tui::config::CustomTheme>,
    pub custom_theme: Option<usize>,
    /// The parameters a start and `:reset` use (the configuration file's `[params]` over
    /// the built-in defaults).
    pub start_params: (Params, SelectParams),
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
    /// The recent messages, oldest first (at most [`MESSAGE_LOG`]): the info line shows
    /// only the last one, cut to its width; the `messages` overlay shows them in full.
    pub messages: Vec<Flash>,
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
    /// The Why-not pane: the expected tool and its triage.
    pub whynot: crate::tui::whynot::WhyNotState,
    /// The evidence drill-down path (explain → trace → counterfactual) taken so far.
    pub drill_path: Vec<PaneId>,
    pub evidence: Option<EvidenceView>,
    pub diffv: Option<DiffView>,
    /// The Diff screen on two graphs (artifact diff and ranking blame).
    pub gdiff: Option<Box<crate::tui::gdiff::GraphDiffView>>,
    /// Its query box case's expected tools, and a suite to blame once both are loaded.
    pub gd_expected: Vec<String>,
    pub gd_suite: Option<(crate::lab::suite::Suite, String)>,
    /// Two graphs loading for the Diff screen (`:diff`), and the loads asked for so far.
    pub gd_load: Option<crate::tui::gdiff::open::GdLoad>,
    pub gd_loads: u64,
    pub lab: Option<LabView>,
    pub lab_generation: u64,
    /// A suite to evaluate once the graph is loaded (`--cases`).
    pub pending_lab: Option<(crate::lab::suite::Suite, String)>,
    /// Where Esc on the candidates goes back to (a lab case opened in Explore).
    pub return_to: Option<Screen>,
    pub lab_case: Option<String>,
    /// The followed stream (Follow screen), its generation, and a file to follow once the
    /// graph is loaded (`GRAPH FILE --follow`).
    pub follow: Option<crate::tui::follow::FollowView>,
    pub follow_generation: u64,
    pub pending_follow: Option<PathBuf>,
}

impl App {
    pub fn new(caps: Caps, source_label: &str) -> App {
        let theme = Theme::new(caps.theme, caps.color);
        App {
            caps,
            theme,
            keys: commands::keymap::Keymap::default(),
            custom_themes: Vec::new(),
            custom_theme: None,
            start_params: (Params::default(), SelectParams::default()),
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
            find: None,
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
            messages: Vec::new(),
            quit: false,
            exit_signal: None,
            layout: LayoutInfo::default(),
            dump_dir: PathBuf::from("."),
            show_timing: true,
            screen: Screen::Explore,
            explain: ExplainState::default(),
            trace: TraceState::default(),
            cf: CfState::default(),
            whynot: Default::default(),
            drill_path: Vec::new(),
            evidence: None,
            diffv: None,
            gdiff: None,
            gd_expected: Vec::new(),
            gd_suite: None,
            gd_load: None,
            gd_loads: 0,
            lab: None,
            lab_generation: 0,
            pending_lab: None,
            return_to: None,
            lab_case: None,
            follow: None,
            follow_generation: 0,
            pending_follow: None,
        }
    }

    /// Sets the learning suggestions given with `--learning`.
    pub fn set_learning(&mut self, suggestions: Vec<serde_json::Value>) {
        self.learning_count = suggestions.len();
        self.params.learning_suggestions = suggestions;
        self.params.learning_enabled = true;
    }

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

    /// The walkthrough step on screen, and whether the screen still shows it as narrated
    /// (false once a parameter, the LLM target or the policy was changed).
    pub fn demo_on_screen(&self) -> Option<(&DemoStep, bool)> {
        let step = self.demo.steps.get(self.demo.pos?)?;
        let (p, s) = crate::tui::demo::step_params(step);
        let fresh = self.params.top_k == p.top_k
            && self.params.depth == p.depth
            && self.params.token_budget == p.token_budget
            && self.params.history == p.history
            && self.select == s;
        Some((step, fresh))
    }

    pub fn ctx(&self) -> Ctx {
        if self.load.is_some() {
            return commands::LOADING;
        }
        if self.input_active || self.find.as_ref().is_some_and(|f| f.typing) {
            return commands::INPUT;
        }
        match self.screen {
            Screen::Explore => commands::pane_ctx(self.focus),
            Screen::Evidence => commands::EVIDENCE,
            Screen::Diff => commands::DIFF,
            Screen::Lab => commands::LAB,
            Screen::Follow => commands::FOLLOW,
        }
    }

    pub fn pane(&self, p: PaneId) -> &PaneState {
        &self.panes[p.index()]
    }

    fn pane_mut(&mut self, p: PaneId) -> &mut PaneState {
        &mut self.panes[p.index()]
    }

    /// Shows a message on the info line and keeps it in the message log (a message
    /// repeated right away is kept once).
    pub fn set_flash(&mut self, level: FlashLevel, text: impl Into<String>) {
        self.post_flash(Flash {
            text: text.into(),
            level,
            short: None,
        });
    }

    /// [`Self::set_flash`] with the short form a narrow message line shows instead.
    pub fn set_flash_short(
        &mut self,
        level: FlashLevel,
        text: impl Into<String>,
        short: impl Into<String>,
    ) {
        self.post_flash(Flash {
            text: text.into(),
            level,
            short: Some(short.into()),
        });
    }

    fn post_flash(&mut self, f: Flash) {
        if self.messages.last() != Some(&f) {
            if self.messages.len() == MESSAGE_LOG {
                self.messages.remove(0);
            }
            self.messages.push(f.clone());
        }
        self.flash = Some(f);
    }

    pub fn set_theme(&mut self, kind: ThemeKind) {
        self.caps.theme = kind;
        self.theme = Theme::new(kind, self.caps.color);
        self.custom_theme = None;
    }

    /// Applies custom theme `i` of the configuration file.
    pub fn set_custom_theme(&mut self, i: usize) {
        if let Some(t) = self.custom_themes.get(i) {
            self.caps.theme = t.base;
            self.theme = t.build(self.caps.color);
            self.custom_theme = Some(i);
        }
    }

    /// The current theme's name (a custom one's, or the built-in's).
    pub fn theme_name(&self) -> String {
        match self.custom_theme.and_then(|i| self.custom_themes.get(i)) {
            Some(t) => t.name.clone(),
            None => self.caps.theme.as_str().to_string(),
        }
    }
}

fn clean(s: &str) -> String {
    crate::sanitize::line(s)
}
