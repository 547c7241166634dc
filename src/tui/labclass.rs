//! The Lab's triage classes: each case's class (`engine::triage` without probes, across
//! cores, as the suite is evaluated), the order the class sort uses (failure classes first,
//! `selected`, then errors and unlabelled cases), and `c` / `:class NAME`, which shows one
//! class at a time.

use super::app::{App, Effect, FlashLevel, PaneState};
use crate::engine::Engine;
use crate::engine::knobs::Knobs;
use crate::engine::triage::{CLASSES, TriageOptions};
use crate::lab::suite::Case;
use crate::lab::triage::triage_case;

/// A lab case's triage class (`engine::triage`, probes left for the Why-not pane).
#[derive(Clone, Debug, PartialEq)]
pub enum CaseClass {
    /// No expected tool: nothing to classify.
    Unlabelled,
    Class {
        class: &'static str,
        sub: Option<&'static str>,
    },
    /// The case could not be triaged (an expected name not in the graph, bad parameters).
    Error(String),
}

impl CaseClass {
    /// Where the class sorts: the failure classes in [`CLASSES`] order, then `selected`,
    /// then errors and unlabelled cases.
    pub fn order(&self) -> usize {
        match self {
            CaseClass::Class {
                class: "selected", ..
            } => CLASSES.len(),
            CaseClass::Class { class, .. } => CLASSES
                .iter()
                .position(|c| c == class)
                .unwrap_or(CLASSES.len()),
            CaseClass::Error(_) => CLASSES.len() + 1,
            CaseClass::Unlabelled => CLASSES.len() + 2,
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            CaseClass::Class { class, .. } => class,
            CaseClass::Error(_) => "error",
            CaseClass::Unlabelled => "unlabelled",
        }
    }
}

/// The class of every case of a part of a suite (parallel across cores).
pub fn classify_cases(engine: &Engine, cases: &[Case], base: &Knobs) -> Vec<CaseClass> {
    let opts = TriageOptions {
        probes: false,
        document_probes: false,
        ..TriageOptions::default()
    };
    crate::par::map_heavy(cases, |c| {
        if c.expected.is_empty() {
            return CaseClass::Unlabelled;
        }
        match triage_case(engine, c, base, &opts).outcome {
            Ok(t) => CaseClass::Class {
                class: t.class.as_str(),
                sub: t.class.sub_cause().map(|s| s.as_str()),
            },
            Err(e) => CaseClass::Error(e.to_string()),
        }
    })
}

impl App {
    /// `c` / `:class NAME`: only the cases of one class (the next class present, in the
    /// classes' order; after the last, all of them again); `:class all` shows every case.
    pub fn lab_class(&mut self, arg: Option<&str>) -> Vec<Effect> {
        let Some(l) = self.lab.as_mut() else {
            return Vec::new();
        };
        let present: Vec<&'static str> = l.class_counts().into_iter().map(|(c, _)| c).collect();
        let next = match arg {
            Some("all") => None,
            // the list's narrow names (`ambiguous`) name their classes too
            Some(a) => match present
                .iter()
                .find(|c| **c == a || c.strip_prefix("selector_") == Some(a))
            {
                Some(c) => Some(*c),
                None => {
                    let known = CLASSES.contains(&a)
                        || CLASSES
                            .iter()
                            .any(|c| c.strip_prefix("selector_") == Some(a))
                        || a == "error"
                        || a == "unlabelled";
                    let msg = if known {
                        format!("no case is {a} (classes here: {})", present.join(", "))
                    } else {
                        format!(
                            "unknown class {}: {}, error, unlabelled, all",
                            crate::sanitize::quoted(a),
                            CLASSES.join(", ")
                        )
                    };
                    self.set_flash(FlashLevel::Warn, msg);
                    return Vec::new();
                }
            },
            None => match l.filter {
                None => present.first().copied(),
                Some(f) => present
                    .iter()
                    .position(|c| *c == f)
                    .and_then(|i| present.get(i + 1))
                    .copied(),
            },
        };
        let keep = l.current().map(|c| c.id.clone());
        l.filter = next;
        let order = l.order();
        l.cursor = keep
            .and_then(|id| order.iter().position(|&i| l.results[i].id == id))
            .unwrap_or(0);
        l.pane = PaneState::default();
        let msg = match next {
            Some(c) => format!("{} {c} case(s) (c: next class)", order.len()),
            None => format!("all {} cases", l.results.len()),
        };
        self.set_flash(FlashLevel::Info, msg);
        Vec::new()
    }
}
