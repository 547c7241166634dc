//! The Why-not pane's state and commands: the expected tool (set with `w` on a row or in
//! the Graph pane, or `:whynot NAME`), its triage computed on the evidence worker by
//! [`crate::engine::triage::triage`] with the explorer's current parameters (class,
//! deficit, path, findings and probes — the same value `toolscope triage` prints), and
//! Enter on a knob probe, which opens that one change in the Counterfactual pane.
//!
//! A probe is counterfactual evidence shown to the operator ("with depth=3, X would rank
//! 4"), never advice; nothing here changes the explorer's own parameters.

use std::sync::Arc;

use super::app::{App, Effect, FlashLevel, Overlay, PaletteState, PaneId};
use super::drill::{EvJob, base_knobs};
use super::screens::Screen;
use crate::engine::Engine;
use crate::engine::knobs::Knobs;
use crate::engine::triage::{ProbeChange, Triage, TriageOptions, triage};
use crate::evidence::knobs::KNOBS;
use crate::sanitize::line;

/// What a triage answers: a query result and the expected tools.
#[derive(Clone, Debug, PartialEq)]
pub struct WnKey {
    pub generation: u64,
    pub expected: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct WnOut {
    pub key: WnKey,
    /// The triage, or why there is none (an expected name that is not a tool).
    pub result: Result<Arc<Triage>, String>,
}

#[derive(Clone, Debug, Default)]
pub struct WhyNotState {
    /// The expected tools (one from `w` or `:whynot`; a lab case may name several).
    pub expected: Vec<String>,
    pub wanted: Option<WnKey>,
    pub out: Option<WnOut>,
}

impl WhyNotState {
    /// The triage of the current expected tools, when it has arrived (it may belong to
    /// the previous result while a new one is computed: see [`WhyNotState::pending`]).
    pub fn triage(&self) -> Option<&Triage> {
        match &self.out {
            Some(WnOut { key, result: Ok(t) }) if key.expected == self.expected => Some(t),
            _ => None,
        }
    }

    /// A newer triage has been asked for and has not arrived.
    pub fn pending(&self) -> bool {
        self.wanted.is_some() && self.wanted.as_ref() != self.out.as_ref().map(|o| &o.key)
    }

    /// Whether `name` is one of the expected tools.
    pub fn is_expected(&self, name: &str) -> bool {
        self.expected.iter().any(|e| e == name)
    }
}

/// Runs one triage (on the worker, or inline in tests): probes included, as the CLI does.
pub fn run(engine: &Engine, key: &WnKey, query: &str, knobs: &Knobs) -> WnOut {
    let result = triage(
        engine,
        query,
        &key.expected,
        knobs,
        &TriageOptions::default(),
    )
    .map(Arc::new)
    .map_err(|e| e.to_string());
    WnOut {
        key: key.clone(),
        result,
    }
}

impl App {
    /// Asks the evidence worker for the triage of the expected tools, when one is set and
    /// the current result has none yet.
    pub fn sync_whynot(&mut self) -> Vec<Effect> {
        if self.whynot.expected.is_empty() || self.screen != Screen::Explore {
            return Vec::new();
        }
        let (Some(res), Some(knobs)) = (self.result.as_ref(), base_knobs(self)) else {
            return Vec::new();
        };
        let key = WnKey {
            generation: res.generation,
            expected: self.whynot.expected.clone(),
        };
        if self.whynot.wanted.as_ref() == Some(&key)
            || self.whynot.out.as_ref().map(|o| &o.key) == Some(&key)
        {
            return Vec::new();
        }
        self.whynot.wanted = Some(key.clone());
        vec![Effect::Evidence(Box::new(EvJob::WhyNot {
            key,
            query: res.retrieval.query.clone(),
            knobs: Box::new(knobs),
        }))]
    }

    /// A worker answer: kept when it answers what was asked for last.
    pub fn on_whynot(&mut self, o: WnOut) {
        if self.whynot.wanted.as_ref() != Some(&o.key) {
            return;
        }
        let same = self
            .whynot
            .out
            .as_ref()
            .is_some_and(|p| p.key.expected == o.key.expected);
        if !same {
            self.panes[PaneId::WhyNot.index()] = Default::default();
        }
        self.whynot.out = Some(o);
    }

    /// Sets the expected tools and opens the Why-not pane (an empty list unsets).
    pub fn set_expected(&mut self, expected: Vec<String>) {
        if self.whynot.expected != expected {
            self.whynot.expected = expected;
            self.whynot.wanted = None;
            self.panes[PaneId::WhyNot.index()] = Default::default();
        }
    }

    /// `w`: the row under the cursor (the neighbour under the cursor in the Graph pane)
    /// becomes the expected tool; `w` on the expected tool unsets it.
    pub fn whynot_pick(&mut self) -> Vec<Effect> {
        if self.screen == Screen::Evidence {
            return self.ev_whynot_pick();
        }
        let name = if self.focus == PaneId::Graph {
            let Some(engine) = &self.engine else {
                return Vec::new();
            };
            match super::views::graph::cursor_target(self) {
                Some(node) => engine.graph.node_name(node).to_string(),
                None => return self.warn("no neighbour under the cursor".into()),
            }
        } else if self.focus == PaneId::Selector {
            let c = self.panes[PaneId::Selector.index()].cursor;
            match self.selection().and_then(|s| s.rows.get(c)) {
                Some(r) => r.name.clone(),
                None => return self.warn("no selector row under the cursor".into()),
            }
        } else {
            match self.selected_row() {
                Some(r) => r.name.clone(),
                None => return self.warn("no candidate to ask about (type a query with /)".into()),
            }
        };
        if self.whynot.expected == [name.clone()] {
            self.set_expected(Vec::new());
            self.set_flash(
                FlashLevel::Info,
                format!("expected tool {} unset", line(&name)),
            );
            return Vec::new();
        }
        self.whynot_open(name)
    }

    fn whynot_open(&mut self, name: String) -> Vec<Effect> {
        let Some(engine) = &self.engine else {
            return Vec::new();
        };
        if engine.graph.tool_by_name(&name).is_none() {
            let closest = crate::engine::triage::closest_names(engine, &name, 3);
            return self.warn(format!(
                "{} is not a tool of this graph; closest: {}",
                line(&name),
                closest
                    .iter()
                    .map(|c| line(c))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        self.set_flash(
            FlashLevel::Info,
            format!(
                "why not {}: triaged with the current query and parameters (w on it again unsets)",
                line(&name)
            ),
        );
        self.set_expected(vec![name]);
        self.focus_pane(PaneId::WhyNot);
        Vec::new()
    }

    /// `:whynot NAME` sets the expected tool (any tool of the graph, retrieved or not);
    /// `:whynot` alone opens the palette on it.
    pub fn whynot_type(&mut self, arg: Option<&str>) -> Vec<Effect> {
        let Some(name) = arg else {
            let mut p = PaletteState::default();
            p.input.set("whynot ");
            self.overlay = Overlay::Palette(p);
            return Vec::new();
        };
        self.whynot_open(name.to_string())
    }

    /// `:whynot-clear`: no expected tool.
    pub fn whynot_clear(&mut self) -> Vec<Effect> {
        if self.whynot.expected.is_empty() {
            return self.warn("no expected tool to unset".into());
        }
        let names = self.whynot.expected.join(", ");
        self.set_expected(Vec::new());
        self.set_flash(
            FlashLevel::Info,
            format!("expected tool {} unset", line(&names)),
        );
        Vec::new()
    }

    /// Enter on a probe: a knob probe opens in the Counterfactual pane (the base is the
    /// explorer's current run, the variant that one change); a document probe changes the
    /// artifact's text, which no knob can, so it is only described.
    pub fn whynot_apply(&mut self) -> Vec<Effect> {
        let c = self.panes[PaneId::WhyNot.index()].cursor;
        let Some((items, probes)) = super::views::whynot::items(self) else {
            return self.warn("no triage yet".into());
        };
        let first = items - probes;
        let change = match (c.checked_sub(first), self.whynot.triage()) {
            (Some(i), Some(t)) => match t.probes_by_effect().0.get(i) {
                Some(p) => p.change.clone(),
                None => return self.warn("no probe under the cursor".into()),
            },
            _ => {
                return self.warn(
                    "Enter opens a probe: j/k move to one (the probes are the last items)".into(),
                );
            }
        };
        match change {
            ProbeChange::Knob { knob, value, .. } => {
                let Some(i) = KNOBS.iter().position(|k| *k == knob) else {
                    return self.warn(format!("{knob} is not a counterfactual knob"));
                };
                self.cf.knob = i;
                let shown = super::drill::show_value(&value);
                self.cf.value = Some(value);
                self.focus_pane(PaneId::Counterfactual);
                // Esc (or `[`) in the Counterfactual pane comes back here
                self.drill_path = vec![PaneId::WhyNot, PaneId::Counterfactual];
                self.set_flash(
                    FlashLevel::Info,
                    format!(
                        "counterfactual: {knob}={} against the current run (Esc: back to Why-not)",
                        line(&shown)
                    ),
                );
                Vec::new()
            }
            ProbeChange::Document { term, .. } => self.warn(format!(
                "a document probe adds \"{}\" to the tool's indexed text: no knob does that, so the Counterfactual pane cannot show it (toolscope triage --side-effects replays it over a suite)",
                line(&term)
            )),
        }
    }
}
