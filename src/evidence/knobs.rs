//! The authorised knobs of a run: the engine's [`crate::engine::knobs`], re-exported for the
//! evidence layer (the knob-application code lives in the engine so that triage's probes and
//! the counterfactual runner share it).

pub use crate::engine::knobs::*;
