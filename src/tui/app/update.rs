//! What an event does to the explorer's state: the event dispatch ([`App::on_event`]),
//! a loaded graph, query results, paste, keys (the query line's editing keys, then the
//! command registry), the mouse and the measured layout (the help overlay's keys are in
//! `help.rs`).

use std::sync::Arc;

use ratatui::crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::layout::Rect;

use crate::engine::Engine;
use crate::tui::commands::edit::{self, FindKey};
use crate::tui::commands::{self, CmdId, Key};
use crate::tui::screens::Screen;

use super::{
    App, AppEvent, Effect, FlashLevel, LayoutInfo, Overlay, PaneId, PaneState, QueryJob,
    QueryOutput,
};

impl App {
    pub fn on_event(&mut self, ev: AppEvent) -> Vec<Effect> {
        let mut fx = self.on_event_inner(ev);
        if !self.quit {
            fx.extend(self.sync_drill());
            let engine = self.engine.clone();
            if let Some(e) = self.evidence.as_mut() {
                e.sync_json();
                e.sync_whynot(engine.as_deref());
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
                let mut fx = self.on_loaded(l.engine.clone());
                if let Some(old) = l.old {
                    let suite = self.gd_suite.take();
                    let labels = self
                        .source_label
                        .split_once(" vs ")
                        .map(|(a, b)| (a.to_string(), b.to_string()))
                        .unwrap_or_else(|| ("OLD".into(), "NEW".into()));
                    fx.extend(self.start_gdiff(crate::tui::gdiff::GdStart {
                        old,
                        new: l.engine,
                        suite,
                        labels,
                    }));
                }
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
            AppEvent::Opened(Ok(crate::tui::screens::Opened::Follow(p))) => {
                self.load = None;
                self.start_follow(&p)
            }
            AppEvent::Opened(Ok(o)) => {
                self.on_opened(o);
                Vec::new()
            }
            AppEvent::Follow(m) => {
                self.on_follow(m);
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
            AppEvent::Gd(m) => {
                self.on_gd(m);
                Vec::new()
            }
            AppEvent::GdLoadProgress(generation, p) => {
                self.on_gd_load_progress(generation, p);
                Vec::new()
            }
            AppEvent::GdLoaded(generation, res) => self.on_gd_loaded(generation, res),
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
        if let Some(p) = self.pending_follow.take() {
            fx.extend(self.start_follow(&p));
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

    pub(super) fn on_row_changed(&mut self) {
        self.graph_stack.clear();
        *self.pane_mut(PaneId::Graph) = PaneState::default();
        *self.pane_mut(PaneId::Detail) = PaneState::default();
        *self.pane_mut(PaneId::Trace) = PaneState::default();
        self.sync_json();
    }

    /// Keeps the pretty-printed JSON of the selected tool when it is unfolded.
    pub(super) fn sync_json(&mut self) {
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

    pub(super) fn query_changed(&mut self) -> Effect {
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
        let clean = crate::sanitize::pasted(s);
        match &mut self.overlay {
            Overlay::Palette(p) => {
                p.input.insert_str(&clean);
                p.selected = None;
                p.error = None;
                Vec::new()
            }
            Overlay::Help(h) => {
                h.filter.insert_str(&clean);
                h.scroll = 0;
                Vec::new()
            }
            Overlay::Note | Overlay::Messages => Vec::new(),
            Overlay::None => {
                // the Diff screen of two graphs blames what is pasted, with or without a
                // graph loaded for the other screens
                let diff_query = self.screen == Screen::Diff && self.gd_owns_query(None);
                if !diff_query && (self.engine.is_none() || self.screen != Screen::Explore) {
                    return Vec::new();
                }
                if let Err(m) = crate::limits::check_query_len(self.query.text.len() + clean.len())
                {
                    self.set_flash(FlashLevel::Error, format!("paste refused: {m}"));
                    return Vec::new();
                }
                self.input_active = true;
                self.query.insert_str(&clean);
                let mut fx = vec![self.query_changed()];
                fx.extend(self.gd_query_changed());
                fx
            }
        }
    }

    pub fn on_key(&mut self, k: KeyEvent) -> Vec<Effect> {
        if k.kind == KeyEventKind::Release {
            return Vec::new();
        }
        let key = Key::from_event(&k);
        // quit! (Ctrl-C) works everywhere: in overlays, while loading, while typing; over
        // the palette and the narration the registry's OVERLAY keys (F1: help) work too
        // (the help overlay's own F1 closes it)
        let gate = if self.overlay == Overlay::None {
            self.ctx()
        } else {
            commands::OVERLAY
        };
        let in_help = matches!(self.overlay, Overlay::Help(_));
        if let Some(c) = commands::lookup(self, key, gate)
            .filter(|c| c.id == CmdId::ForceQuit || (gate == commands::OVERLAY && !in_help))
        {
            return self.run(c.id, None);
        }
        self.flash = None;
        match &self.overlay {
            Overlay::Help(_) => return self.help_key(key),
            Overlay::Palette(_) => return self.palette_key(key),
            Overlay::Note => {
                if edit::lookup(edit::NOTE_KEYS, key).is_some() {
                    self.overlay = Overlay::None;
                }
                return Vec::new();
            }
            Overlay::Messages => {
                if edit::lookup(edit::MESSAGES_KEYS, key).is_some() {
                    self.overlay = Overlay::None;
                }
                return Vec::new();
            }
            Overlay::None => {}
        }
        if self.load.is_some() {
            // while loading: the registry's LOADING keys (quit, help) and nothing else
            return match commands::lookup(self, key, commands::LOADING) {
                Some(c) => self.run(c.id, None),
                None => {
                    let quit = commands::keys_in(
                        &self.keys,
                        commands::get(CmdId::Quit),
                        commands::LOADING,
                        self.caps.glyphs(),
                    );
                    let hint = match quit.first() {
                        Some(q) => format!("still loading the graph ({q} quits)"),
                        None => "still loading the graph (Ctrl-C quits)".to_string(),
                    };
                    self.set_flash(FlashLevel::Info, hint);
                    Vec::new()
                }
            };
        }
        if self.gd_loading_here() {
            return self.gd_loading_key(key);
        }
        if self.input_active
            && let Some(fx) = self.edit_key(key)
        {
            return fx;
        }
        if self.find.as_ref().is_some_and(|f| f.typing) && key.code != KeyCode::F(1) {
            return self.find_key(key);
        }
        let ctx = self.ctx();
        match commands::lookup(self, key, ctx) {
            Some(c) => match (c.enabled)(self) {
                None => self.run(c.id, None),
                Some(why) => {
                    self.set_flash(FlashLevel::Warn, format!(":{}: {why}", c.name));
                    Vec::new()
                }
            },
            None => Vec::new(),
        }
    }

    /// Editing keys of the query line (typed characters and [`edit::EDIT_KEYS`]); `None`
    /// when the key is a command.
    fn edit_key(&mut self, key: Key) -> Option<Vec<Effect>> {
        let changed = match (edit::typed_char(key), edit::lookup(edit::EDIT_KEYS, key)) {
            (Some(c), _) => self.query.type_char(c),
            (None, Some(e)) => self.query.apply(e),
            (None, None) => return None,
        };
        Some(if changed {
            let mut fx = vec![self.query_changed()];
            fx.extend(self.gd_query_changed());
            fx
        } else {
            Vec::new()
        })
    }

    /// Keys while the find line is being typed: [`edit::FIND_KEYS`], line editing, text.
    fn find_key(&mut self, key: Key) -> Vec<Effect> {
        if let Some(a) = edit::lookup(edit::FIND_KEYS, key) {
            return match a {
                FindKey::Close => {
                    self.find = None;
                    Vec::new()
                }
                FindKey::Done => {
                    // the nodes the pattern unfolded in the Explain tree stay unfolded
                    self.explain_keep_unfolds();
                    if let Some(f) = self.find.as_mut() {
                        f.typing = false;
                        if f.input.is_empty() {
                            self.find = None;
                        }
                    }
                    Vec::new()
                }
                FindKey::Next => self.find_step(1),
                FindKey::Prev => self.find_step(-1),
            };
        }
        let Some(f) = self.find.as_mut() else {
            return Vec::new();
        };
        let changed = match (edit::typed_char(key), edit::lookup(edit::EDIT_KEYS, key)) {
            (Some(c), _) => f.input.type_char(c),
            (None, Some(e)) => f.input.apply(e),
            (None, None) => false,
        };
        if changed {
            // a new pattern starts at its first match
            f.current = 0;
            f.jump = true;
        }
        Vec::new()
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
                let tab = self
                    .layout
                    .tabs
                    .iter()
                    .find(|t| m.row == t.y && m.column >= t.x0 && m.column < t.x1)
                    .map(|t| t.pane);
                if let Some(p) = tab {
                    // a click on a pane tab's label: that pane, as its number key
                    self.focus_pane(p);
                } else if let Some(r) = self.layout.table_rows.filter(|_| in_table) {
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
            // the load's progress box scrolls nothing
            Screen::Diff if self.gd_load.is_some() => None,
            Screen::Diff if self.gdiff.is_some() => self.gd_pane_mut(),
            Screen::Diff => self.diffv.as_mut().map(|d| &mut d.pane),
            Screen::Lab => self.lab.as_mut().map(|l| &mut l.pane),
            Screen::Follow => self.follow.as_mut().map(|f| &mut f.pane),
        };
        if let Some(p) = p {
            if p.cursor != p.seen_cursor {
                // a cursor moved by anything but a move up holds the view again
                p.above = false;
            }
            p.scroll = info.drill_scroll;
            p.seen_cursor = p.cursor;
        }
        if let Some(f) = self.find.as_mut().filter(|f| f.pane == self.drill) {
            f.matches = info.find_matches;
            f.current = f.current.min(f.matches.saturating_sub(1));
            f.jump = false;
        }
        if let Overlay::Help(h) = &mut self.overlay {
            // as drawn: clamped, or moved to the find's current match
            h.scroll = info.help_scroll;
            if let Some(f) = h.find.as_mut() {
                f.matches = info.help_matches;
                f.current = f.current.min(f.matches.saturating_sub(1));
                f.jump = false;
            }
        }
        self.layout = info;
    }
}
