//! The registry's "when enabled" checks: each says why a command cannot run now (the
//! reason the footer, help and a refused key show), or nothing when it can.

use super::*;

pub(super) fn always(_: &App) -> Option<&'static str> {
    None
}

pub(super) fn need_engine(a: &App) -> Option<&'static str> {
    if a.engine.is_some() {
        None
    } else if a.load.is_some() {
        Some("the graph is still loading")
    } else {
        Some("no graph: this screen shows evidence read without one")
    }
}

pub(super) fn need_rows(a: &App) -> Option<&'static str> {
    need_engine(a).or_else(|| {
        if a.rows_len() == 0 {
            Some("no candidate to act on (type a query with /)")
        } else {
            None
        }
    })
}

pub(super) fn need_history(a: &App) -> Option<&'static str> {
    if a.params.history.is_empty() {
        Some("the history is empty")
    } else {
        None
    }
}

pub(super) fn need_learning(a: &App) -> Option<&'static str> {
    if a.learning_count == 0 {
        Some("no learning suggestions: start with --learning FILE")
    } else {
        None
    }
}

pub(super) fn need_llm(a: &App) -> Option<&'static str> {
    if a.select.llm_target.is_none() {
        Some("no LLM target is set")
    } else {
        None
    }
}

pub(super) fn need_demo(a: &App) -> Option<&'static str> {
    need_engine(a).or(if a.demo.steps.is_empty() {
        Some("the walkthrough belongs to the embedded demo graph (run toolscope without FILE)")
    } else {
        None
    })
}

pub(super) fn need_find(a: &App) -> Option<&'static str> {
    match &a.find {
        Some(f) if f.pane == a.focus && !f.input.is_empty() => None,
        _ => Some("no find in this pane (Ctrl-F starts one)"),
    }
}

pub(super) fn need_demo_step(a: &App) -> Option<&'static str> {
    need_demo(a).or(if a.demo.pos.is_none() {
        Some("no walkthrough step on screen (n goes to the next)")
    } else {
        None
    })
}

pub(super) fn need_crumbs(a: &App) -> Option<&'static str> {
    if a.graph_stack.len() > 1 {
        None
    } else {
        Some("already at the first tool of the breadcrumbs")
    }
}

pub(super) fn need_neighbour(a: &App) -> Option<&'static str> {
    need_engine(a).or_else(|| {
        if crate::tui::derive::cursor_target(a).is_none() {
            Some("no neighbour under the cursor")
        } else {
            None
        }
    })
}

pub(super) fn need_topk_up(a: &App) -> Option<&'static str> {
    need_engine(a).or(if a.params.top_k >= crate::tui::app::MAX_TOP_K {
        Some("top_k is at its maximum")
    } else {
        None
    })
}

pub(super) fn need_topk_down(a: &App) -> Option<&'static str> {
    need_engine(a).or(if a.params.top_k <= 1 {
        Some("top_k is at its minimum (1)")
    } else {
        None
    })
}

pub(super) fn need_depth_up(a: &App) -> Option<&'static str> {
    need_engine(a).or(if a.params.depth >= crate::tui::app::MAX_DEPTH {
        Some("depth is at its maximum")
    } else {
        None
    })
}

pub(super) fn need_depth_down(a: &App) -> Option<&'static str> {
    need_engine(a).or(if a.params.depth == 0 {
        Some("depth is 0: graph expansion is already off")
    } else {
        None
    })
}

pub(super) fn need_tree(a: &App) -> Option<&'static str> {
    need_rows(a).or_else(|| {
        if a.explain.chips {
            Some("the chip view has no folds (v: back to the tree)")
        } else if crate::tui::derive::visible(a).is_empty() {
            Some("no explanation yet")
        } else {
            None
        }
    })
}

pub(super) fn need_trace(a: &App) -> Option<&'static str> {
    need_rows(a).or(match (&a.trace.out, a.trace.wanted) {
        (Some(_), _) => None,
        // recorded on demand: only once the Trace pane has been opened
        (None, None) => Some("no trace yet (opening the Trace pane, :trace, records one)"),
        (None, Some(_)) => Some("the trace is still being recorded"),
    })
}

pub(super) fn need_path_next(a: &App) -> Option<&'static str> {
    need_rows(a).or(if a.focus == PaneId::Counterfactual {
        Some("the counterfactual is the last step of the path")
    } else {
        None
    })
}

pub(super) fn need_path_back(a: &App) -> Option<&'static str> {
    if a.drill_path.len() > 1 {
        None
    } else {
        Some("at the first step of the drill-down path")
    }
}

pub(super) fn need_row_to_ask(a: &App) -> Option<&'static str> {
    if a.screen == crate::tui::screens::Screen::Evidence {
        need_copy(a)
    } else {
        need_rows(a)
    }
}

pub(super) fn need_expected(a: &App) -> Option<&'static str> {
    if a.whynot.expected.is_empty() {
        Some("no expected tool is set (w on a row, or :whynot NAME)")
    } else {
        None
    }
}

pub(super) fn need_probe(a: &App) -> Option<&'static str> {
    need_expected(a).or_else(|| match a.whynot.triage() {
        None => Some("the triage is still being computed"),
        Some(t) if t.outcome.selected => Some("the expected tool is selected: nothing to probe"),
        Some(t) if t.probes_by_effect().0.is_empty() => {
            Some("no probe changes its outcome or rank")
        }
        Some(_) => None,
    })
}

pub(super) fn need_probe_suite(a: &App) -> Option<&'static str> {
    need_probe(a).or(if a.lab.is_none() {
        Some("no suite to replay it over (:lab SUITE, or start with --cases)")
    } else {
        None
    })
}

pub(super) fn need_evidence(a: &App) -> Option<&'static str> {
    if a.evidence.is_some() {
        None
    } else {
        Some("no evidence is open (:evidence FILE)")
    }
}

pub(super) fn need_records(a: &App) -> Option<&'static str> {
    need_evidence(a).or_else(|| {
        if a.evidence.as_ref().is_some_and(|e| e.set.records.len() > 1) {
            None
        } else {
            Some("the file holds one record")
        }
    })
}

/// The query line: a graph to rank on, or the Diff screen of two graphs (its query box
/// is blamed there, with or without a graph loaded for the other screens).
pub(super) fn need_query(a: &App) -> Option<&'static str> {
    if a.gd_owns_query(None) {
        None
    } else {
        need_engine(a)
    }
}

pub(super) fn need_gdiff(a: &App) -> Option<&'static str> {
    if a.gd_loading_here() {
        Some("the two graphs are still loading")
    } else if a.gdiff.is_some() {
        None
    } else {
        Some("no two graphs are compared (toolscope OLD NEW)")
    }
}

pub(super) fn need_diff(a: &App) -> Option<&'static str> {
    if a.gd_loading_here() {
        Some("the two graphs are still loading")
    } else if a.diffv.is_some() || a.gdiff.is_some() {
        None
    } else {
        Some("no diff is open (:diff A B)")
    }
}

pub(super) fn need_follow(a: &App) -> Option<&'static str> {
    if a.follow.is_some() {
        None
    } else {
        Some("nothing is followed (:follow FILE)")
    }
}

/// `c` / `:class`: the Follow screen's stream when it is on screen, else the lab's suite.
pub(super) fn need_lab_or_follow(a: &App) -> Option<&'static str> {
    if a.screen == crate::tui::screens::Screen::Follow && a.follow.is_some() {
        None
    } else {
        need_lab(a)
    }
}

pub(super) fn need_lab(a: &App) -> Option<&'static str> {
    if a.lab.is_some() {
        None
    } else {
        Some("no suite is evaluated (:lab SUITE)")
    }
}

pub(super) fn need_enter(a: &App) -> Option<&'static str> {
    use crate::tui::screens::Screen;
    match a.screen {
        Screen::Evidence => need_evidence(a),
        Screen::Diff => need_diff(a),
        Screen::Lab => need_lab(a).or_else(|| {
            if a.lab.as_ref().is_some_and(|l| l.results.is_empty()) {
                Some("no case evaluated yet")
            } else {
                None
            }
        }),
        Screen::Follow => need_follow(a).or_else(|| {
            if a.follow.as_ref().is_some_and(|f| f.stream.ring.is_empty()) {
                Some("no record yet")
            } else {
                None
            }
        }),
        Screen::Explore => Some("nothing to open here"),
    }
}

pub(super) fn need_copy(a: &App) -> Option<&'static str> {
    if a.screen == crate::tui::screens::Screen::Evidence {
        if a.evidence
            .as_ref()
            .is_some_and(|e| e.current_row().is_some())
        {
            None
        } else {
            Some("no row to copy")
        }
    } else {
        need_rows(a)
    }
}

pub(super) fn need_explore(a: &App) -> Option<&'static str> {
    if a.engine.is_some() {
        None
    } else {
        Some("no graph: evidence and diffs are shown without one")
    }
}
