//! The Why-not pane's state and commands: the expected tool (set with `w` on a row or in
//! the Graph pane, or `:whynot NAME`), its triage computed on the evidence worker by
//! [`crate::engine::triage::triage`] with the explorer's current parameters (class,
//! deficit, path, findings and probes — the same value `toolscope triage` prints), and
//! Enter on a knob probe, which opens that one change in the Counterfactual pane, and `S`
//! on a probe, which replays it over the lab's suite and counts the cases it changes.
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
use crate::lab::suite::Suite;
use crate::lab::triage::{SideEffects, side_effects};
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

/// What a probe's side effects answer: the triage they belong to, the probe (its label),
/// and the lab suite they were replayed over.
#[derive(Clone, Debug, PartialEq)]
pub struct FxKey {
    pub triage: WnKey,
    pub probe: String,
    pub suite: u64,
}

#[derive(Clone, Debug)]
pub struct FxOut {
    pub key: FxKey,
    pub effects: SideEffects,
}

#[derive(Clone, Debug, Default)]
pub struct WhyNotState {
    /// The expected tools (one from `w` or `:whynot`; a lab case may name several).
    pub expected: Vec<String>,
    pub wanted: Option<WnKey>,
    pub out: Option<WnOut>,
    /// The side effects of one probe over the lab's suite (`S` on a probe).
    pub fx_wanted: Option<FxKey>,
    pub fx: Option<FxOut>,
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

    /// The side effects of probe `label`, when they were replayed for the current triage.
    pub fn effects_of(&self, label: &str) -> Option<&SideEffects> {
        let fx = self.fx.as_ref()?;
        let t = self.out.as_ref()?;
        (fx.key.probe == label && fx.key.triage == t.key).then_some(&fx.effects)
    }

    /// Whether `name` is one of the expected tools.
    pub fn is_expected(&self, name: &str) -> bool {
        self.expected.iter().any(|e| e == name)
    }
}

/// Replays one probe over every labelled case of a suite (on the worker).
pub fn run_effects(
    engine: &Engine,
    key: &FxKey,
    suite: &Suite,
    base: &Knobs,
    change: &ProbeChange,
    expected: &str,
) -> Option<FxOut> {
    let tool = engine.graph.tool_id(expected)?;
    Some(FxOut {
        key: key.clone(),
        effects: side_effects(engine, suite, base, change, tool),
    })
}

/// A probe's change as the pane lists it: `depth=0`, `relation_weight=requires:2.0`,
/// `document +"ord"`.
pub fn probe_label(c: &ProbeChange) -> String {
    match c {
        ProbeChange::Knob { knob, value, .. } => {
            format!("{knob}={}", super::drill::show_value(value))
        }
        ProbeChange::Document { term, .. } => format!("document +\"{term}\""),
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
        if self.focus == PaneId::WhyNot {
            // in the pane itself, w unsets what it shows
            return self.whynot_clear();
        }
        let name = if self.focus == PaneId::Graph {
            let Some(engine) = &self.engine else {
                return Vec::new();
            };
            match super::derive::cursor_target(self) {
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
        // the engine's own check and wording (the closest names), as the CLI and MCP say it
        if let Err(e) = crate::engine::triage::expected_tool(engine, &name) {
            return self.warn(line(&e.to_string()));
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
    /// The probe under the Why-not pane's cursor, or why there is none.
    fn probe_under_cursor(&self) -> Result<ProbeChange, String> {
        let c = self.panes[PaneId::WhyNot.index()].cursor;
        let Some((items, probes)) = super::derive::whynot_items(self) else {
            return Err("no triage yet".into());
        };
        let first = items - probes;
        match (c.checked_sub(first), self.whynot.triage()) {
            (Some(i), Some(t)) => t
                .probes_by_effect()
                .0
                .get(i)
                .map(|p| p.change.clone())
                .ok_or_else(|| "no probe under the cursor".into()),
            _ => Err("j/k move to a probe first (the probes are the last items)".into()),
        }
    }

    /// `S` on a probe: replays it over every labelled case of the lab's suite and counts
    /// the cases whose top-1 or hit@k it changes (on the worker; the pane shows the count
    /// under the probe).
    pub fn whynot_effects(&mut self) -> Vec<Effect> {
        let change = match self.probe_under_cursor() {
            Ok(c) => c,
            Err(e) => return self.warn(e),
        };
        let Some(lab) = self.lab.as_ref() else {
            return self.warn(
                "side effects are counted over a suite: load one first (:lab SUITE, or --cases)"
                    .into(),
            );
        };
        let (Some(out), Some(t), Some(base)) = (
            self.whynot.out.as_ref(),
            self.whynot.triage(),
            base_knobs(self),
        ) else {
            return self.warn("no triage yet".into());
        };
        let key = FxKey {
            triage: out.key.clone(),
            probe: change.label(),
            suite: lab.generation,
        };
        let shown = probe_label(&change);
        if self.whynot.fx_wanted.as_ref() == Some(&key) {
            return Vec::new();
        }
        let job = EvJob::WhyNotEffects {
            key: key.clone(),
            suite: lab.suite.clone(),
            base: Box::new(base),
            change: Box::new(change),
            expected: t.expected.clone(),
        };
        let label = lab.label.clone();
        self.whynot.fx_wanted = Some(key);
        self.set_flash(
            FlashLevel::Info,
            format!(
                "replaying {} over {} (each labelled case with its own parameters)…",
                line(&shown),
                line(&label)
            ),
        );
        vec![Effect::Evidence(Box::new(job))]
    }

    /// A worker answer for `S`: kept when it answers what was asked for last.
    pub fn on_whynot_effects(&mut self, o: Option<FxOut>) {
        let Some(o) = o else {
            return;
        };
        if self.whynot.fx_wanted.as_ref() != Some(&o.key) {
            return;
        }
        let e = o.effects;
        self.set_flash(
            FlashLevel::Info,
            format!(
                "probe side effects over {} case(s): top-1 changes in {}, hit@k gained in {}, lost in {}",
                e.cases,
                e.top1_changed,
                e.hit_gained,
                e.hit_lost
            ),
        );
        self.whynot.fx = Some(o);
    }

    pub fn whynot_apply(&mut self) -> Vec<Effect> {
        let change = match self.probe_under_cursor() {
            Ok(c) => c,
            Err(e) => return self.warn(format!("Enter opens a probe: {e}")),
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
                "not a knob: the Counterfactual pane cannot add \"{}\" to the tool's text (S replays it over a suite)",
                line(&term)
            )),
        }
    }
}
