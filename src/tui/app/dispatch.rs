//! What each command does: [`App::run`] routes a [`CmdId`] (from a key, the palette or the
//! mouse) to its handler, and the handlers change the state and return effects.

use crate::engine::Params;
use crate::tui::clipboard;
use crate::tui::commands::CmdId;
use crate::tui::screens::{EvTab, Screen};
use crate::tui::theme::ThemeKind;

use super::{
    App, BUDGETS, Effect, Find, FlashLevel, HelpState, LineInput, MAX_DEPTH, MAX_TOP_K, Overlay,
    POLICIES, PaletteState, PaneId, PaneState, Policy, clean,
};

impl App {
    /// Runs command `id` (with its argument, when typed in the palette). The guarded arms
    /// first: a command that means something else off the Explore screen; then one arm per
    /// command, each a call to its handler.
    pub fn run(&mut self, id: CmdId, arg: Option<&str>) -> Vec<Effect> {
        let arg = arg.map(str::trim).filter(|s| !s.is_empty());
        match id {
            CmdId::ForceQuit | CmdId::Quit => self.quit(),
            CmdId::Help => self.open_overlay(Overlay::Help(HelpState::default())),
            CmdId::Palette => self.open_overlay(Overlay::Palette(PaletteState::default())),
            CmdId::FocusQuery if self.gd_owns_query(arg) => self.gd_focus_query(),
            CmdId::FocusQuery if self.screen != Screen::Explore => self.focus_query_elsewhere(arg),
            CmdId::Down
            | CmdId::Up
            | CmdId::PageDown
            | CmdId::PageUp
            | CmdId::Top
            | CmdId::Bottom
                if self.screen != Screen::Explore && !self.input_active =>
            {
                let d = self.move_delta(id);
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
            CmdId::PaneWhyNot => self.focus_fx(PaneId::WhyNot),
            CmdId::WhyNotPick => self.whynot_pick(),
            CmdId::WhyNotType => self.whynot_type(arg),
            CmdId::WhyNotClear => self.whynot_clear(),
            CmdId::WhyNotApply => self.whynot_apply(),
            CmdId::WhyNotEffects => self.whynot_effects(),
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
            CmdId::EvTabWhyNot => self.ev_tab(EvTab::WhyNot),
            CmdId::EvJson => self.ev_toggle_json(),
            CmdId::RecordNext => self.record_step(1),
            CmdId::RecordPrev => self.record_step(-1),
            CmdId::ChangedOnly if self.gdiff.is_some() => self.gd_changed_only(),
            CmdId::ChangedOnly => self.diff_changed_only(),
            CmdId::GdChanges | CmdId::GdBlame | CmdId::GdChange | CmdId::GdToggle => {
                self.gd_run(id)
            }
            CmdId::LabSort => self.lab_sort(arg),
            CmdId::LabClass if self.screen == Screen::Follow => self.follow_class(arg),
            CmdId::LabClass => self.lab_class(arg),
            CmdId::FollowPause => self.follow_pause(),
            CmdId::FollowTool => self.follow_tool(arg),
            CmdId::FollowCode => self.follow_code(arg),
            CmdId::FollowDrifted => self.follow_drifted(),
            CmdId::FollowText => match arg {
                Some(t) => self.follow_text(Some(t)),
                None => self.follow_text_palette(),
            },
            CmdId::FollowUnfilter => self.follow_unfilter(),
            CmdId::FollowOffset => match arg {
                Some(n) => self.follow_offset(n),
                None => self.follow_offset_palette(),
            },
            CmdId::ScreenFollow => self.screen_follow(arg),
            CmdId::ScreenExplore => self.screen_explore(),
            CmdId::ScreenLab => self.screen_lab(arg),
            CmdId::ScreenEvidence => self.screen_evidence(arg),
            CmdId::ScreenDiff => self.screen_diff(arg),
            CmdId::FocusQuery => self.focus_query(arg),
            CmdId::InputLeave => self.input_leave(),
            CmdId::Down
            | CmdId::Up
            | CmdId::PageDown
            | CmdId::PageUp
            | CmdId::Top
            | CmdId::Bottom => {
                let d = self.move_delta(id);
                self.move_by(d)
            }
            CmdId::NextPane => self.cycle_pane(1),
            CmdId::PrevPane => self.cycle_pane(PaneId::COUNT - 1),
            CmdId::PaneCandidates => self.focus_fx(PaneId::Candidates),
            CmdId::PaneDetail => self.focus_fx(PaneId::Detail),
            CmdId::PaneSelector => self.focus_fx(PaneId::Selector),
            CmdId::PaneGraph => self.focus_fx(PaneId::Graph),
            CmdId::PaneSubgraph => self.focus_fx(PaneId::Subgraph),
            CmdId::OpenDetail => self.focus_fx(PaneId::Detail),
            CmdId::ToggleJson => self.toggle_json(),
            CmdId::GraphJump => self.graph_jump(),
            CmdId::GraphBack => self.graph_back(),
            CmdId::Back => self.back(),
            CmdId::Zoom => self.zoom_toggle(),
            CmdId::LlmPick => self.llm_pick(),
            CmdId::LlmType => self.llm_type(arg),
            CmdId::LlmClear => self.llm_clear(),
            CmdId::PolicyCycle => self.policy_cycle(arg),
            CmdId::TopKUp | CmdId::TopKDown => self.set_top_k(id, arg),
            CmdId::DepthUp | CmdId::DepthDown => self.set_depth(id, arg),
            CmdId::BudgetUp | CmdId::BudgetDown => self.set_budget(id, arg),
            CmdId::HistoryAdd => self.history_add(arg),
            CmdId::HistoryClear => self.history_clear(),
            CmdId::LearningToggle => self.learning_toggle(),
            CmdId::ResetParams => self.reset_params(),
            CmdId::DemoNext | CmdId::DemoPrev => self.demo_step(id, arg),
            CmdId::Find => self.find_open(arg),
            CmdId::FindNext => self.find_step(1),
            CmdId::FindPrev => self.find_step(-1),
            CmdId::DemoNote => self.open_overlay(Overlay::Note),
            CmdId::Messages => self.open_overlay(Overlay::Messages),
            CmdId::Copy => self.copy(),
            CmdId::Save => vec![Effect::SaveScreen],
            CmdId::ThemeCycle => self.theme_cycle(arg),
        }
    }

    /// Quits.
    fn quit(&mut self) -> Vec<Effect> {
        self.quit = true;
        vec![Effect::Quit]
    }

    /// The query command off the Explore screen: back to Explore and run it there (a
    /// warning without a graph).
    fn focus_query_elsewhere(&mut self, arg: Option<&str>) -> Vec<Effect> {
        if self.engine.is_none() {
            return self.warn("no graph: this screen shows evidence without one".into());
        }
        self.screen = Screen::Explore;
        self.run(CmdId::FocusQuery, arg)
    }

    /// `/` on Follow: the palette, with the current text to edit.
    fn follow_text_palette(&mut self) -> Vec<Effect> {
        let mut p = PaletteState::default();
        let cur = self
            .follow
            .as_ref()
            .and_then(|f| f.filter.text.clone())
            .unwrap_or_default();
        p.input.set(&format!("grep {cur}"));
        self.open_overlay(Overlay::Palette(p))
    }

    /// `o` on Follow: the palette, ready for the byte offset.
    fn follow_offset_palette(&mut self) -> Vec<Effect> {
        let mut p = PaletteState::default();
        p.input.set("offset ");
        self.open_overlay(Overlay::Palette(p))
    }

    /// Leaves the query line for the Candidates pane.
    fn input_leave(&mut self) -> Vec<Effect> {
        self.input_active = false;
        self.focus = PaneId::Candidates;
        Vec::new()
    }

    /// Zooms the focused pane to the whole main area, or back.
    fn zoom_toggle(&mut self) -> Vec<Effect> {
        self.zoom = !self.zoom;
        Vec::new()
    }

    /// Unsets the LLM target and re-runs the query (a warning when there is none).
    fn llm_clear(&mut self) -> Vec<Effect> {
        match self.select.llm_target.take() {
            Some(old) => {
                self.set_flash(
                    FlashLevel::Info,
                    format!("LLM target {} unset", clean(&old)),
                );
                vec![self.requery(true)]
            }
            None => self.warn("no LLM target to unset".into()),
        }
    }

    /// Clears the history and re-runs the query.
    fn history_clear(&mut self) -> Vec<Effect> {
        let n = std::mem::take(&mut self.params.history).len();
        self.set_flash(
            FlashLevel::Info,
            format!(
                "history cleared ({n} entr{})",
                if n == 1 { "y" } else { "ies" }
            ),
        );
        vec![self.requery(true)]
    }

    /// Sets the query to `arg`, or puts the cursor in the query line.
    fn focus_query(&mut self, arg: Option<&str>) -> Vec<Effect> {
        match arg {
            Some(text) => {
                self.query.set(&crate::sanitize::line(text));
                vec![self.query_changed()]
            }
            None => {
                // a fresh query: the old text is selected, typing replaces it
                self.input_active = true;
                self.query.select_all();
                Vec::new()
            }
        }
    }

    /// Folds or unfolds the selected tool's JSON.
    fn toggle_json(&mut self) -> Vec<Effect> {
        self.json_open = !self.json_open;
        if self.json_open {
            self.sync_json();
        }
        Vec::new()
    }

    /// Follows the graph pane to the node under its cursor.
    fn graph_jump(&mut self) -> Vec<Effect> {
        let Some(target) = crate::tui::derive::cursor_target(self) else {
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

    /// Goes back one node in the graph pane.
    fn graph_back(&mut self) -> Vec<Effect> {
        let from = self.graph_stack.pop();
        if self.graph_stack.len() == 1 {
            // back at the candidate: follow the table again
            self.graph_stack.clear();
        }
        // put the cursor on the node we came back from
        let pos = from.and_then(|f| {
            crate::tui::derive::neighbours(self)
                .iter()
                .position(|n| n.node == f)
        });
        *self.pane_mut(PaneId::Graph) = PaneState {
            scroll: 0,
            cursor: pos.unwrap_or(0),
            seen_cursor: usize::MAX,
            above: false,
        };
        Vec::new()
    }

    /// Esc on Explore: unzoom, else back to the candidates, else back to the lab.
    fn back(&mut self) -> Vec<Effect> {
        if self.find.as_ref().is_some_and(|f| f.pane == self.focus) {
            // a find's highlights go first
            self.find = None;
        } else if self.zoom {
            self.zoom = false;
        } else if self.focus != PaneId::Candidates {
            self.focus = PaneId::Candidates;
        } else if let Some(s) = self.return_to.take() {
            // a lab case or a followed record: back to where it was opened
            self.screen = s;
            self.lab_case = None;
        }
        Vec::new()
    }

    /// Makes the focused row the LLM target (or unsets it when it is).
    fn llm_pick(&mut self) -> Vec<Effect> {
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

    /// Sets the LLM target to `arg`, or opens the palette to type one.
    fn llm_type(&mut self, arg: Option<&str>) -> Vec<Effect> {
        match arg {
            Some(name) => {
                self.select.llm_target = Some(name.to_string());
                if self.tool_known(name) {
                    self.set_flash(FlashLevel::Info, format!("LLM target: {}", clean(name)));
                } else {
                    self.set_flash(
                        FlashLevel::Warn,
                        format!(
                            "LLM target: {} is not a tool in this graph (set anyway, as a model may name one)",
                            clean(name)
                        ),
                    );
                }
                vec![self.requery(true)]
            }
            None => {
                let mut p = PaletteState::default();
                p.input.set("llm ");
                self.overlay = Overlay::Palette(p);
                Vec::new()
            }
        }
    }

    /// Sets the selector policy to `arg`, or to the next one.
    fn policy_cycle(&mut self, arg: Option<&str>) -> Vec<Effect> {
        let next = match arg {
            Some(a) => match Policy::known(a) {
                Some(p) => p,
                None => {
                    self.set_flash(
                        FlashLevel::Warn,
                        format!(
                            "unknown policy {}: {}",
                            crate::sanitize::quoted(a),
                            POLICIES.join(", ")
                        ),
                    );
                    return Vec::new();
                }
            },
            None => {
                let i = Policy::KNOWN
                    .iter()
                    .position(|p| *p == self.select.policy)
                    .map(|i| (i + 1) % Policy::KNOWN.len())
                    .unwrap_or(0);
                Policy::KNOWN[i].clone()
            }
        };
        self.set_flash(FlashLevel::Info, format!("policy: {next}"));
        self.select.policy = next;
        vec![self.requery(true)]
    }

    /// Opens an overlay that shows text (the narration, the message log).
    fn open_overlay(&mut self, o: Overlay) -> Vec<Effect> {
        self.overlay = o;
        Vec::new()
    }

    /// Sets top-k to `arg`, or one up or down.
    fn set_top_k(&mut self, id: CmdId, arg: Option<&str>) -> Vec<Effect> {
        let v = match (arg, id) {
            (Some(a), _) => match parse_num("top_k", a, 1, MAX_TOP_K) {
                Ok(v) => v,
                Err(e) => return self.warn(e),
            },
            (None, CmdId::TopKUp) => (self.params.top_k + 1).min(MAX_TOP_K),
            _ => self.params.top_k.saturating_sub(1).max(1),
        };
        let old = std::mem::replace(&mut self.params.top_k, v);
        self.param_changed("top_k", old, v, 1, MAX_TOP_K)
    }

    /// Sets the expansion depth to `arg`, or one up or down.
    fn set_depth(&mut self, id: CmdId, arg: Option<&str>) -> Vec<Effect> {
        let v = match (arg, id) {
            (Some(a), _) => match parse_num("depth", a, 0, MAX_DEPTH) {
                Ok(v) => v,
                Err(e) => return self.warn(e),
            },
            (None, CmdId::DepthUp) => (self.params.depth + 1).min(MAX_DEPTH),
            _ => self.params.depth.saturating_sub(1),
        };
        let old = std::mem::replace(&mut self.params.depth, v);
        self.param_changed("depth", old, v, 0, MAX_DEPTH)
    }

    /// Sets the token budget to `arg`, or to the next or previous of [`BUDGETS`].
    fn set_budget(&mut self, id: CmdId, arg: Option<&str>) -> Vec<Effect> {
        let cur = self.params.token_budget;
        let v = match (arg, id) {
            (Some(a), _) => match parse_num("token_budget", a, 1, 10_000_000) {
                Ok(v) => v,
                Err(e) => return self.warn(e),
            },
            (None, CmdId::BudgetUp) => BUDGETS.iter().copied().find(|b| *b > cur).unwrap_or(cur),
            _ => BUDGETS
                .iter()
                .rev()
                .copied()
                .find(|b| *b < cur)
                .unwrap_or(cur),
        };
        self.params.token_budget = v;
        let (lo, hi) = (BUDGETS[0], BUDGETS[BUDGETS.len() - 1]);
        self.param_changed("token_budget", cur, v, lo.min(cur), hi.max(cur))
    }

    /// Adds `arg` (else the selected row) to the history.
    fn history_add(&mut self, arg: Option<&str>) -> Vec<Effect> {
        let name = match arg {
            Some(a) => a.to_string(),
            None => match self.selected_row() {
                Some(r) => r.name.clone(),
                None => return Vec::new(),
            },
        };
        if self.tool_known(&name) {
            self.set_flash(
                FlashLevel::Info,
                format!("history + {} (each entry demotes it x0.6)", clean(&name)),
            );
        } else {
            self.set_flash(
                FlashLevel::Warn,
                format!(
                    "history + {}: not a tool in this graph, so it demotes nothing",
                    clean(&name)
                ),
            );
        }
        self.params.history.push(name);
        vec![self.requery(true)]
    }

    /// Turns the learning suggestions on or off.
    fn learning_toggle(&mut self) -> Vec<Effect> {
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

    /// Resets the retrieval and selector parameters (the learning suggestions stay) and
    /// posts what changed, as the other parameter keys do: `reset: top_k 12 → 10, depth
    /// 1 → 2` (or that nothing did, and nothing re-runs).
    fn reset_params(&mut self) -> Vec<Effect> {
        let sugg = std::mem::take(&mut self.params.learning_suggestions);
        let new = Params {
            learning_suggestions: sugg,
            ..self.start_params.0.clone()
        };
        let (old, old_sel) = (
            std::mem::replace(&mut self.params, new),
            std::mem::replace(&mut self.select, self.start_params.1.clone()),
        );
        let changes = param_changes(
            (&old, &old_sel),
            (&self.params, &self.select),
            self.caps.glyphs().arrow_out,
        );
        if changes.is_empty() {
            self.set_flash(
                FlashLevel::Info,
                "reset: the parameters are already at their start values (nothing changed)",
            );
            return Vec::new();
        }
        self.set_flash(FlashLevel::Info, format!("reset: {}", changes.join(", ")));
        vec![self.requery(true)]
    }

    /// Goes to walkthrough step `arg` (1-based), or the next or previous one.
    fn demo_step(&mut self, id: CmdId, arg: Option<&str>) -> Vec<Effect> {
        let n = self.demo.steps.len();
        if n == 0 {
            return Vec::new();
        }
        let target = match (arg, id) {
            (Some(a), _) => match parse_num("step", a, 1, n) {
                Ok(v) => v - 1,
                Err(e) => return self.warn(e),
            },
            (None, CmdId::DemoNext) => self.demo.pos.map(|p| (p + 1) % n).unwrap_or(0),
            _ => self.demo.pos.map(|p| (p + n - 1) % n).unwrap_or(n - 1),
        };
        self.demo_goto(target)
    }

    /// Sets the theme to `arg`, or to the next one.
    /// `T`: the next theme — the built-in ones, then the configuration file's
    /// `[themes.NAME]` tables; `:theme NAME` picks one of either by name.
    fn theme_cycle(&mut self, arg: Option<&str>) -> Vec<Effect> {
        // every theme in cycling order: None = a built-in kind, Some(i) = custom theme i
        let all: Vec<(ThemeKind, Option<usize>)> = ThemeKind::ALL
            .iter()
            .map(|k| (*k, None))
            .chain(
                self.custom_themes
                    .iter()
                    .enumerate()
                    .map(|(i, t)| (t.base, Some(i))),
            )
            .collect();
        let next = match arg {
            Some(a) => {
                let by_custom = self.custom_themes.iter().position(|t| t.name == a);
                match (by_custom, ThemeKind::parse(a)) {
                    (Some(i), _) => (self.custom_themes[i].base, Some(i)),
                    (None, Some(k)) => (k, None),
                    (None, None) => {
                        let names: Vec<String> = all
                            .iter()
                            .map(|(k, c)| match c {
                                Some(i) => self.custom_themes[*i].name.clone(),
                                None => k.as_str().to_string(),
                            })
                            .collect();
                        return self.warn(format!(
                            "unknown theme: {} (nothing changed); themes: {}",
                            crate::sanitize::line(a),
                            names.join(", ")
                        ));
                    }
                }
            }
            None => {
                let cur = (self.caps.theme, self.custom_theme);
                let i = all.iter().position(|t| *t == cur).unwrap_or(0);
                all[(i + 1) % all.len()]
            }
        };
        match next {
            (_, Some(i)) => self.set_custom_theme(i),
            (k, None) => self.set_theme(k),
        }
        let name = crate::sanitize::line(&self.theme_name());
        self.set_flash(FlashLevel::Info, format!("theme: {name}"));
        Vec::new()
    }

    /// How far a movement command moves the cursor (Top and Bottom: as far as it goes).
    fn move_delta(&self, id: CmdId) -> isize {
        match id {
            CmdId::Down => 1,
            CmdId::Up => -1,
            CmdId::PageDown => self.page() as isize,
            CmdId::PageUp => -(self.page() as isize),
            CmdId::Top => isize::MIN / 2,
            _ => isize::MAX / 2,
        }
    }

    /// Focuses the pane `step` places on in [`PaneId::ALL`] (wrapping), leaving the query line.
    fn cycle_pane(&mut self, step: usize) -> Vec<Effect> {
        self.input_active = false;
        let i = PaneId::ALL
            .iter()
            .position(|p| *p == self.focus)
            .unwrap_or(0);
        self.focus_pane(PaneId::ALL[(i + step) % PaneId::COUNT]);
        Vec::new()
    }

    /// Posts what a parameter change did (`top_k 10 → 11`, or why it stayed) and re-runs
    /// the query when it changed.
    fn param_changed(
        &mut self,
        name: &str,
        old: usize,
        new: usize,
        min: usize,
        max: usize,
    ) -> Vec<Effect> {
        if old == new {
            let why = if new <= min {
                " (the minimum)"
            } else if new >= max {
                " (the maximum)"
            } else {
                ""
            };
            self.set_flash(FlashLevel::Info, format!("{name} stays {new}{why}"));
            return Vec::new();
        }
        let arrow = self.caps.glyphs().arrow_out;
        self.set_flash(FlashLevel::Info, format!("{name} {old} {arrow} {new}"));
        vec![self.requery(true)]
    }

    /// Opens the find line on the focused drill-down pane (`:find TEXT` sets the pattern).
    fn find_open(&mut self, arg: Option<&str>) -> Vec<Effect> {
        let pane = if self.focus.is_drill() {
            self.focus
        } else {
            self.drill
        };
        self.focus_pane(pane);
        let mut input = LineInput::default();
        if let Some(f) = self.find.as_ref().filter(|f| f.pane == pane) {
            input = f.input.clone();
            input.select_all();
        }
        if let Some(a) = arg {
            input.set(&crate::sanitize::line(a));
        }
        self.find = Some(Find {
            pane,
            input,
            typing: true,
            current: 0,
            matches: 0,
            jump: true,
        });
        if arg.is_some() {
            // a pattern given whole is kept at once, as Enter keeps a typed one
            self.explain_keep_unfolds();
            if let Some(f) = self.find.as_mut() {
                f.typing = false;
            }
        }
        Vec::new()
    }

    /// Steps to the next (`+1`) or previous match, wrapping around.
    pub(super) fn find_step(&mut self, d: isize) -> Vec<Effect> {
        let Some(f) = self.find.as_mut() else {
            return Vec::new();
        };
        if f.matches == 0 {
            let p = crate::sanitize::quoted(&f.input.text);
            return self.warn(format!("no match for {p} in this pane"));
        }
        let n = f.matches as isize;
        f.current = ((f.current as isize + d).rem_euclid(n)) as usize;
        f.jump = true;
        Vec::new()
    }

    /// True when the graph has a tool of this name (or no graph is loaded yet).
    pub(crate) fn tool_known(&self, name: &str) -> bool {
        self.engine
            .as_ref()
            .is_none_or(|e| e.graph.tool_by_name(name).is_some())
    }

    pub(crate) fn warn(&mut self, msg: String) -> Vec<Effect> {
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
                .is_some_and(|e| e.focus != crate::tui::screens::EvFocus::Pane),
            Screen::Diff if self.gdiff.is_some() => self
                .gdiff
                .as_ref()
                .is_some_and(|d| d.focus == crate::tui::gdiff::GdFocus::Cases),
            Screen::Diff => self
                .diffv
                .as_ref()
                .is_some_and(|d| d.focus == crate::tui::screens::DiffFocus::Cases),
            Screen::Lab => self
                .lab
                .as_ref()
                .is_some_and(|l| l.focus == crate::tui::screens::LabFocus::Cases),
            Screen::Follow => self
                .follow
                .as_ref()
                .is_some_and(|f| f.focus == crate::tui::follow::FollowFocus::List),
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
                let items = crate::tui::derive::item_count(self, p);
                if items > 0 {
                    self.pane_mut(p).move_cursor(delta, items);
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
        // the walkthrough runs at the parameters its narration was checked at
        let (params, select) = crate::tui::demo::step_params(&step);
        let learning = std::mem::take(&mut self.params.learning_suggestions);
        self.params = Params {
            learning_suggestions: learning,
            learning_enabled: self.params.learning_enabled,
            ..params
        };
        self.select = select;
        self.row = 0;
        self.on_row_changed();
        vec![self.requery(false)]
    }

    fn copy(&mut self) -> Vec<Effect> {
        let (Some(engine), Some(row)) = (self.engine.clone(), self.selected_row().cloned()) else {
            return Vec::new();
        };
        let mut w = crate::jsonout::JsonWriter::with_capacity(4096);
        let view = crate::output::row::RowView::new(&engine, &row, self.row + 1);
        crate::output::json::write_row(&view, &mut w);
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
        let (Some(rec), Some(row)) = (e.current(), e.current_row()) else {
            return Vec::new();
        };
        let json = rec
            .row_value(row)
            .and_then(|v| serde_json::to_string(v).ok())
            .unwrap_or_default();
        let what = format!("row JSON of {} (row {})", clean(&row.name), e.row + 1);
        self.emit_copy(&json, &what)
    }

    fn emit_copy(&mut self, json: &str, what: &str) -> Vec<Effect> {
        let stem = self
            .selected_row()
            .map(|r| r.name.clone())
            .unwrap_or_else(|| "evidence".into());
        vec![Effect::Copy(Box::new(clipboard::CopyJob {
            payload: json.to_string(),
            what: what.to_string(),
            stem,
        }))]
    }

    /// Delivers a copy (the runtime's half of `y`): OSC 52 out, the tmux buffer when
    /// `in_tmux`, the file in `dir` when given; posts what was confirmed. Returns the
    /// sequence to write to the terminal.
    pub fn deliver_copy(
        &mut self,
        job: &clipboard::CopyJob,
        in_tmux: bool,
        dir: Option<&std::path::Path>,
    ) -> String {
        let seq = clipboard::osc52(&job.payload, self.caps.clipboard.tmux_passthrough);
        let tmux = if in_tmux {
            clipboard::tmux_load(&job.payload)
        } else {
            clipboard::TmuxCopy::Absent
        };
        let file = dir
            .map(|d| clipboard::save_copy(d, &job.stem, &job.payload).map_err(|e| e.to_string()));
        let (ok, text, short) = clipboard::message(job, &tmux, file.as_ref());
        self.set_flash_short(
            if ok {
                FlashLevel::Info
            } else {
                FlashLevel::Warn
            },
            text,
            short,
        );
        seq
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

/// A command's integer argument `s` for `name`, from `lo` to `hi`; else the one wording of
/// a bad integer ([`crate::engine::knobs::expected_int`]), as `:cf` and the config say it.
fn parse_num(name: &str, s: &str, lo: usize, hi: usize) -> Result<usize, String> {
    let t = s.trim();
    match t.parse::<usize>() {
        Ok(v) if v >= lo && v <= hi => Ok(v),
        _ => {
            // a number out of range reads as the number, anything else quoted
            let got = match t.parse::<i64>() {
                Ok(n) => n.to_string(),
                Err(_) => crate::sanitize::quoted(s),
            };
            Err(crate::engine::knobs::expected_int(
                name, lo as u64, hi as u64, &got,
            ))
        }
    }
}

/// What differs between two sets of parameters, one `name old → new` each, in the status
/// bar's order (top_k, depth, token_budget, history, learning, overrides, LLM target,
/// policy); names and values pass `crate::sanitize`.
fn param_changes(
    old: (&Params, &crate::engine::params::SelectParams),
    new: (&Params, &crate::engine::params::SelectParams),
    arrow: &str,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut one = |name: &str, a: String, b: String| {
        if a != b {
            out.push(format!(
                "{name} {} {arrow} {}",
                crate::sanitize::line(&a),
                crate::sanitize::line(&b)
            ));
        }
    };
    let ((p, s), (q, t)) = (old, new);
    one("top_k", p.top_k.to_string(), q.top_k.to_string());
    one("depth", p.depth.to_string(), q.depth.to_string());
    one(
        "token_budget",
        p.token_budget.to_string(),
        q.token_budget.to_string(),
    );
    let hist = |h: &[String]| format!("[{}]", h.join(", "));
    one("history", hist(&p.history), hist(&q.history));
    let on = |b: bool| if b { "on" } else { "off" }.to_string();
    one("learning", on(p.learning_enabled), on(q.learning_enabled));
    let pair = |x: &Option<(String, f64)>| match x {
        Some((k, v)) => format!("{k}={v}"),
        None => "none".into(),
    };
    one(
        "relation weight",
        pair(&p.relation_weight),
        pair(&q.relation_weight),
    );
    one(
        "confidence factor",
        pair(&p.confidence_factor),
        pair(&q.confidence_factor),
    );
    let intent = |x: Option<crate::engine::intent::IntentLabel>| {
        x.map(|i| i.as_str().to_string())
            .unwrap_or_else(|| "auto".into())
    };
    one(
        "intent",
        intent(p.intent_override),
        intent(q.intent_override),
    );
    let llm = |x: &Option<String>| x.clone().unwrap_or_else(|| "none".into());
    one("LLM target", llm(&s.llm_target), llm(&t.llm_target));
    one(
        "policy",
        s.policy.as_str().to_string(),
        t.policy.as_str().to_string(),
    );
    out
}
