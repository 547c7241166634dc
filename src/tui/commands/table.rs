//! The registry's table: every command of the explorer with its keys, contexts, hints
//! and the "when enabled" check that says why it is not (one table, so the key-conflict
//! test in [`super`] sees every binding at once).

use super::*;

fn always(_: &App) -> Option<&'static str> {
    None
}

fn need_engine(a: &App) -> Option<&'static str> {
    if a.engine.is_some() {
        None
    } else if a.load.is_some() {
        Some("the graph is still loading")
    } else {
        Some("no graph: this screen shows evidence read without one")
    }
}

fn need_rows(a: &App) -> Option<&'static str> {
    need_engine(a).or_else(|| {
        if a.rows_len() == 0 {
            Some("no candidate to act on (type a query with /)")
        } else {
            None
        }
    })
}

fn need_history(a: &App) -> Option<&'static str> {
    if a.params.history.is_empty() {
        Some("the history is empty")
    } else {
        None
    }
}

fn need_learning(a: &App) -> Option<&'static str> {
    if a.learning_count == 0 {
        Some("no learning suggestions: start with --learning FILE")
    } else {
        None
    }
}

fn need_llm(a: &App) -> Option<&'static str> {
    if a.select.llm_target.is_none() {
        Some("no LLM target is set")
    } else {
        None
    }
}

fn need_demo(a: &App) -> Option<&'static str> {
    need_engine(a).or(if a.demo.steps.is_empty() {
        Some("the walkthrough belongs to the embedded demo graph (run toolscope without FILE)")
    } else {
        None
    })
}

fn need_find(a: &App) -> Option<&'static str> {
    match &a.find {
        Some(f) if f.pane == a.focus && !f.input.is_empty() => None,
        _ => Some("no find in this pane (Ctrl-F starts one)"),
    }
}

fn need_demo_step(a: &App) -> Option<&'static str> {
    need_demo(a).or(if a.demo.pos.is_none() {
        Some("no walkthrough step on screen (n goes to the next)")
    } else {
        None
    })
}

fn need_crumbs(a: &App) -> Option<&'static str> {
    if a.graph_stack.len() > 1 {
        None
    } else {
        Some("already at the first tool of the breadcrumbs")
    }
}

fn need_neighbour(a: &App) -> Option<&'static str> {
    need_engine(a).or_else(|| {
        if crate::tui::views::graph::cursor_target(a).is_none() {
            Some("no neighbour under the cursor")
        } else {
            None
        }
    })
}

fn need_topk_up(a: &App) -> Option<&'static str> {
    need_engine(a).or(if a.params.top_k >= crate::tui::app::MAX_TOP_K {
        Some("top_k is at its maximum")
    } else {
        None
    })
}

fn need_topk_down(a: &App) -> Option<&'static str> {
    need_engine(a).or(if a.params.top_k <= 1 {
        Some("top_k is at its minimum (1)")
    } else {
        None
    })
}

fn need_depth_up(a: &App) -> Option<&'static str> {
    need_engine(a).or(if a.params.depth >= crate::tui::app::MAX_DEPTH {
        Some("depth is at its maximum")
    } else {
        None
    })
}

fn need_depth_down(a: &App) -> Option<&'static str> {
    need_engine(a).or(if a.params.depth == 0 {
        Some("depth is 0: graph expansion is already off")
    } else {
        None
    })
}

fn need_tree(a: &App) -> Option<&'static str> {
    need_rows(a).or_else(|| {
        if a.explain.chips {
            Some("the chip view has no folds (v: back to the tree)")
        } else if crate::tui::views::explain::visible(a).is_empty() {
            Some("no explanation yet")
        } else {
            None
        }
    })
}

fn need_trace(a: &App) -> Option<&'static str> {
    need_rows(a).or(if a.trace.out.is_none() {
        Some("the trace is still being recorded")
    } else {
        None
    })
}

fn need_path_next(a: &App) -> Option<&'static str> {
    need_rows(a).or(if a.focus == PaneId::Counterfactual {
        Some("the counterfactual is the last step of the path")
    } else {
        None
    })
}

fn need_path_back(a: &App) -> Option<&'static str> {
    if a.drill_path.len() > 1 {
        None
    } else {
        Some("at the first step of the drill-down path")
    }
}

fn need_row_to_ask(a: &App) -> Option<&'static str> {
    if a.screen == crate::tui::screens::Screen::Evidence {
        need_copy(a)
    } else {
        need_rows(a)
    }
}

fn need_expected(a: &App) -> Option<&'static str> {
    if a.whynot.expected.is_empty() {
        Some("no expected tool is set (w on a row, or :whynot NAME)")
    } else {
        None
    }
}

fn need_probe(a: &App) -> Option<&'static str> {
    need_expected(a).or_else(|| match a.whynot.triage() {
        None => Some("the triage is still being computed"),
        Some(t) if t.outcome.selected => Some("the expected tool is selected: nothing to probe"),
        Some(t) if t.probes_by_effect().0.is_empty() => {
            Some("no probe changes its outcome or rank")
        }
        Some(_) => None,
    })
}

fn need_probe_suite(a: &App) -> Option<&'static str> {
    need_probe(a).or(if a.lab.is_none() {
        Some("no suite to replay it over (:lab SUITE, or start with --cases)")
    } else {
        None
    })
}

fn need_evidence(a: &App) -> Option<&'static str> {
    if a.evidence.is_some() {
        None
    } else {
        Some("no evidence is open (:evidence FILE)")
    }
}

fn need_records(a: &App) -> Option<&'static str> {
    need_evidence(a).or_else(|| {
        if a.evidence.as_ref().is_some_and(|e| e.set.records.len() > 1) {
            None
        } else {
            Some("the file holds one record")
        }
    })
}

fn need_diff(a: &App) -> Option<&'static str> {
    if a.diffv.is_some() {
        None
    } else {
        Some("no diff is open (:diff A B)")
    }
}

fn need_lab(a: &App) -> Option<&'static str> {
    if a.lab.is_some() {
        None
    } else {
        Some("no suite is evaluated (:lab SUITE)")
    }
}

fn need_enter(a: &App) -> Option<&'static str> {
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
        Screen::Explore => Some("nothing to open here"),
    }
}

fn need_copy(a: &App) -> Option<&'static str> {
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

fn need_explore(a: &App) -> Option<&'static str> {
    if a.engine.is_some() {
        None
    } else {
        Some("no graph: evidence and diffs are shown without one")
    }
}

pub static REGISTRY: &[Command] = &[
    Command {
        id: CmdId::ForceQuit,
        name: "quit!",
        label: "Quit now (always works: while typing, loading or in an overlay)",
        group: Group::General,
        hint: None,
        hint_keys: None,
        bindings: &[b(ctrl('c'), ANY)],
        arg: Arg::None,
        enabled: always,
    },
    Command {
        id: CmdId::FocusQuery,
        name: "query",
        label: "Type the query (search as you type); :query TEXT sets it",
        group: Group::General,
        hint: Some("query"),
        hint_keys: None,
        bindings: &[b(ch('/'), PANES)],
        arg: Arg::Optional("TEXT"),
        enabled: need_engine,
    },
    Command {
        id: CmdId::InputLeave,
        name: "done",
        label: "Leave the query line (results stay)",
        group: Group::General,
        hint: Some("done"),
        hint_keys: Some("Enter/Esc"),
        bindings: &[b(code(KeyCode::Enter), INPUT), b(code(KeyCode::Esc), INPUT)],
        arg: Arg::None,
        enabled: always,
    },
    Command {
        id: CmdId::Down,
        name: "down",
        label: "Next row / scroll down",
        group: Group::Navigate,
        hint: Some("move"),
        hint_keys: Some("j/k"),
        bindings: &[b(ch('j'), NORMAL), b(code(KeyCode::Down), ANY)],
        arg: Arg::None,
        enabled: always,
    },
    Command {
        id: CmdId::Up,
        name: "up",
        label: "Previous row / scroll up",
        group: Group::Navigate,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('k'), NORMAL), b(code(KeyCode::Up), ANY)],
        arg: Arg::None,
        enabled: always,
    },
    Command {
        id: CmdId::PageDown,
        name: "page-down",
        label: "Page down",
        group: Group::Navigate,
        hint: None,
        hint_keys: None,
        bindings: &[b(code(KeyCode::PageDown), ANY), b(ctrl('d'), NORMAL)],
        arg: Arg::None,
        enabled: always,
    },
    Command {
        id: CmdId::PageUp,
        name: "page-up",
        label: "Page up",
        group: Group::Navigate,
        hint: None,
        hint_keys: None,
        bindings: &[b(code(KeyCode::PageUp), ANY), b(ctrl('u'), NORMAL)],
        arg: Arg::None,
        enabled: always,
    },
    Command {
        id: CmdId::Top,
        name: "top",
        label: "First row / top",
        group: Group::Navigate,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('g'), NORMAL), b(code(KeyCode::Home), NORMAL)],
        arg: Arg::None,
        enabled: always,
    },
    Command {
        id: CmdId::Bottom,
        name: "bottom",
        label: "Last row / bottom",
        group: Group::Navigate,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('G'), NORMAL), b(code(KeyCode::End), NORMAL)],
        arg: Arg::None,
        enabled: always,
    },
    Command {
        id: CmdId::OpenDetail,
        name: "open",
        label: "Open the selected candidate's evidence (Detail pane)",
        group: Group::Navigate,
        hint: Some("evidence"),
        hint_keys: None,
        bindings: &[b(code(KeyCode::Enter), CANDIDATES)],
        arg: Arg::None,
        enabled: need_rows,
    },
    Command {
        id: CmdId::ToggleJson,
        name: "json",
        label: "Fold or unfold the full tool JSON",
        group: Group::Panes,
        hint: Some("tool JSON"),
        hint_keys: None,
        bindings: &[b(code(KeyCode::Enter), DETAIL), b(ch('o'), DETAIL)],
        arg: Arg::None,
        enabled: need_rows,
    },
    Command {
        id: CmdId::GraphJump,
        name: "jump",
        label: "Jump to the neighbour under the cursor",
        group: Group::Graph,
        hint: Some("jump"),
        hint_keys: None,
        bindings: &[b(code(KeyCode::Enter), GRAPH)],
        arg: Arg::None,
        enabled: need_neighbour,
    },
    Command {
        id: CmdId::GraphBack,
        name: "jump-back",
        label: "Go back along the breadcrumbs",
        group: Group::Graph,
        hint: Some("back"),
        hint_keys: None,
        bindings: &[
            b(code(KeyCode::Esc), GRAPH),
            b(code(KeyCode::Backspace), GRAPH),
        ],
        arg: Arg::None,
        enabled: need_crumbs,
    },
    Command {
        id: CmdId::PathNext,
        name: "drill-next",
        label: "Next step of the drill-down path: explain -> trace -> counterfactual",
        group: Group::Drill,
        hint: Some("next step"),
        hint_keys: None,
        bindings: &[b(ch(']'), EXPLAIN | TRACE)],
        arg: Arg::None,
        enabled: need_path_next,
    },
    Command {
        id: CmdId::PathBack,
        name: "drill-back",
        label: "Previous step of the drill-down path (the breadcrumbs)",
        group: Group::Drill,
        hint: Some("back"),
        hint_keys: None,
        bindings: &[
            b(code(KeyCode::Esc), TRACE | CFACT),
            b(ch('['), TRACE | CFACT),
        ],
        arg: Arg::None,
        enabled: need_path_back,
    },
    Command {
        id: CmdId::ExplainToggle,
        name: "fold",
        label: "Fold or unfold the tree node under the cursor",
        group: Group::Drill,
        hint: Some("fold"),
        hint_keys: Some("Enter"),
        bindings: &[b(code(KeyCode::Enter), EXPLAIN), b(ch(' '), EXPLAIN)],
        arg: Arg::None,
        enabled: need_tree,
    },
    Command {
        id: CmdId::ExplainOpen,
        name: "unfold",
        label: "Unfold the node (again: to its first child)",
        group: Group::Drill,
        hint: None,
        hint_keys: None,
        bindings: &[b(code(KeyCode::Right), EXPLAIN)],
        arg: Arg::None,
        enabled: need_tree,
    },
    Command {
        id: CmdId::ExplainClose,
        name: "fold-up",
        label: "Fold the node (again: to its parent)",
        group: Group::Drill,
        hint: None,
        hint_keys: None,
        bindings: &[b(code(KeyCode::Left), EXPLAIN)],
        arg: Arg::None,
        enabled: need_tree,
    },
    Command {
        id: CmdId::ExplainAll,
        name: "unfold-all",
        label: "Unfold every node (again: back to the default folds)",
        group: Group::Drill,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('e'), EXPLAIN)],
        arg: Arg::None,
        enabled: need_tree,
    },
    Command {
        id: CmdId::ExplainMetric,
        name: "metric",
        label: "Next metric to explain: retrieval score/seed/graph, selector score/confidence/margin (:metric NAME)",
        group: Group::Drill,
        hint: Some("metric"),
        hint_keys: None,
        bindings: &[b(ch('m'), EXPLAIN)],
        arg: Arg::Optional("NAME"),
        enabled: need_rows,
    },
    Command {
        id: CmdId::ExplainView,
        name: "chips",
        label: "Tree view or flat chip view (the leaves as chips)",
        group: Group::Drill,
        hint: Some("chips"),
        hint_keys: None,
        bindings: &[b(ch('v'), EXPLAIN)],
        arg: Arg::None,
        enabled: need_rows,
    },
    Command {
        id: CmdId::ExplainSelector,
        name: "explain-selector",
        label: "Explain the selector score of the candidate under the cursor (Explain pane)",
        group: Group::Drill,
        hint: Some("explain"),
        hint_keys: None,
        bindings: &[b(ch('e'), SELECTOR)],
        arg: Arg::None,
        enabled: need_rows,
    },
    Command {
        id: CmdId::TraceScope,
        name: "trace-all",
        label: "Trace: the selected tool's events or all events",
        group: Group::Drill,
        hint: Some("all/tool"),
        hint_keys: None,
        bindings: &[b(ch('a'), TRACE)],
        arg: Arg::None,
        enabled: need_trace,
    },
    Command {
        id: CmdId::TraceStage,
        name: "stage",
        label: "Trace: next stage filter (all, query, seeds, intent, expansion, ...; :stage NAME)",
        group: Group::Drill,
        hint: Some("stage"),
        hint_keys: None,
        bindings: &[b(ch('f'), TRACE)],
        arg: Arg::Optional("NAME"),
        enabled: need_trace,
    },
    Command {
        id: CmdId::CfKnob,
        name: "knob",
        label: "Counterfactual: next knob (top_k, depth, token_budget, history, ...; :knob NAME)",
        group: Group::Drill,
        hint: Some("knob"),
        hint_keys: None,
        bindings: &[b(ch('m'), CFACT)],
        arg: Arg::Optional("NAME"),
        enabled: need_rows,
    },
    Command {
        id: CmdId::CfKnobPrev,
        name: "knob-prev",
        label: "Counterfactual: previous knob",
        group: Group::Drill,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('M'), CFACT)],
        arg: Arg::None,
        enabled: need_rows,
    },
    Command {
        id: CmdId::CfUp,
        name: "value-next",
        label: "Counterfactual: the knob's next value",
        group: Group::Drill,
        hint: Some("value"),
        hint_keys: Some("Left/Right"),
        bindings: &[b(code(KeyCode::Right), CFACT), b(ch('.'), CFACT)],
        arg: Arg::None,
        enabled: need_rows,
    },
    Command {
        id: CmdId::CfDown,
        name: "value-prev",
        label: "Counterfactual: the knob's previous value",
        group: Group::Drill,
        hint: None,
        hint_keys: None,
        bindings: &[b(code(KeyCode::Left), CFACT), b(ch(','), CFACT)],
        arg: Arg::None,
        enabled: need_rows,
    },
    Command {
        id: CmdId::CfType,
        name: "cf",
        label: "Counterfactual: type the variant's value (:cf KNOB=VALUE, e.g. :cf depth=0)",
        group: Group::Drill,
        hint: Some("type"),
        hint_keys: None,
        bindings: &[b(code(KeyCode::Enter), CFACT)],
        arg: Arg::Optional("KNOB=VALUE"),
        enabled: need_rows,
    },
    Command {
        id: CmdId::LlmPick,
        name: "llm-pick",
        label: "Make the selected row the LLM target (again: unset)",
        group: Group::Selector,
        hint: Some("LLM target"),
        hint_keys: None,
        bindings: &[
            b(ch('l'), CANDIDATES | SELECTOR),
            b(code(KeyCode::Enter), SELECTOR),
        ],
        arg: Arg::None,
        enabled: need_rows,
    },
    Command {
        id: CmdId::LlmType,
        name: "llm",
        label: "Type the LLM target's name (:llm NAME; :llm alone unsets)",
        group: Group::Selector,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('t'), PANES)],
        arg: Arg::Optional("NAME"),
        enabled: need_engine,
    },
    Command {
        id: CmdId::LlmClear,
        name: "llm-clear",
        label: "Unset the LLM target",
        group: Group::Selector,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('x'), PANES)],
        arg: Arg::None,
        enabled: need_llm,
    },
    Command {
        id: CmdId::PolicyCycle,
        name: "policy",
        label: "Next selector policy (strong_evidence, risk_limited, manual_review)",
        group: Group::Selector,
        hint: Some("policy"),
        hint_keys: None,
        bindings: &[b(ch('p'), PANES)],
        arg: Arg::Optional("NAME"),
        enabled: need_engine,
    },
    Command {
        id: CmdId::Back,
        name: "back",
        label: "Back out: to the candidates, out of zoom, clear the message",
        group: Group::Navigate,
        hint: None,
        hint_keys: None,
        bindings: &[b(code(KeyCode::Esc), NORMAL)],
        arg: Arg::None,
        enabled: always,
    },
    Command {
        id: CmdId::NextPane,
        name: "next-pane",
        label: "Next pane (all eight, in order: Candidates, Detail, Selector, Graph, Subgraph, Explain, Trace, Counterfactual)",
        group: Group::Panes,
        hint: Some("panes"),
        hint_keys: None,
        bindings: &[b(code(KeyCode::Tab), ANY)],
        arg: Arg::None,
        enabled: always,
    },
    Command {
        id: CmdId::PrevPane,
        name: "prev-pane",
        label: "Previous pane",
        group: Group::Panes,
        hint: None,
        hint_keys: None,
        bindings: &[b(code(KeyCode::BackTab), ANY)],
        arg: Arg::None,
        enabled: always,
    },
    Command {
        id: CmdId::PaneCandidates,
        name: "candidates",
        label: "Candidates table",
        group: Group::Panes,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('1'), PANES)],
        arg: Arg::None,
        enabled: always,
    },
    Command {
        id: CmdId::PaneDetail,
        name: "detail",
        label: "Detail pane: method, path, description, evidence, tool JSON",
        group: Group::Panes,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('2'), PANES)],
        arg: Arg::None,
        enabled: always,
    },
    Command {
        id: CmdId::PaneSelector,
        name: "selector",
        label: "Selector pane: decision, reason codes, rank signals, override assessment",
        group: Group::Panes,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('3'), PANES)],
        arg: Arg::None,
        enabled: always,
    },
    Command {
        id: CmdId::PaneGraph,
        name: "graph",
        label: "Graph pane: neighbours by relation; Enter jumps, Esc comes back",
        group: Group::Panes,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('4'), PANES)],
        arg: Arg::None,
        enabled: always,
    },
    Command {
        id: CmdId::PaneSubgraph,
        name: "subgraph",
        label: "Subgraph pane: the subgraph_text given to the model",
        group: Group::Panes,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('5'), PANES)],
        arg: Arg::None,
        enabled: always,
    },
    Command {
        id: CmdId::PaneExplain,
        name: "explain",
        label: "Explain pane: the selected row's score as a checked decomposition tree",
        group: Group::Panes,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('6'), PANES)],
        arg: Arg::None,
        enabled: always,
    },
    Command {
        id: CmdId::PaneTrace,
        name: "trace",
        label: "Trace pane: the query's event timeline (the selected tool's, or all)",
        group: Group::Panes,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('7'), PANES)],
        arg: Arg::None,
        enabled: always,
    },
    Command {
        id: CmdId::PaneCounterfactual,
        name: "counterfactual",
        label: "Counterfactual pane: change one knob, both rankings side by side",
        group: Group::Panes,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('8'), PANES)],
        arg: Arg::None,
        enabled: always,
    },
    Command {
        id: CmdId::PaneWhyNot,
        name: "why-not",
        label: "Why-not pane: which stage failed for the expected tool, and why it lost",
        group: Group::Panes,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('9'), PANES)],
        arg: Arg::None,
        enabled: always,
    },
    Command {
        id: CmdId::WhyNotPick,
        name: "whynot-pick",
        label: "Why not this one? The row under the cursor becomes the expected tool (again, or in the pane: unset)",
        group: Group::Drill,
        hint: None,
        hint_keys: None,
        bindings: &[b(
            ch('w'),
            CANDIDATES | SELECTOR | GRAPH | WHYNOT | EVIDENCE,
        )],
        arg: Arg::None,
        enabled: need_row_to_ask,
    },
    Command {
        id: CmdId::WhyNotType,
        name: "whynot",
        label: "Name the expected tool (:whynot NAME, any tool of the graph; :whynot alone unsets)",
        group: Group::Drill,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('W'), PANES)],
        arg: Arg::Optional("NAME"),
        enabled: need_engine,
    },
    Command {
        id: CmdId::WhyNotClear,
        name: "whynot-clear",
        label: "Unset the expected tool",
        group: Group::Drill,
        hint: None,
        hint_keys: None,
        bindings: &[],
        arg: Arg::None,
        enabled: need_expected,
    },
    Command {
        id: CmdId::WhyNotEffects,
        name: "probe-side-effects",
        label: "Replay the probe under the cursor over the lab's suite: cases whose top-1 or hit@k it changes",
        group: Group::Drill,
        hint: Some("side effects"),
        hint_keys: None,
        bindings: &[b(ch('S'), WHYNOT)],
        arg: Arg::None,
        enabled: need_probe_suite,
    },
    Command {
        id: CmdId::WhyNotApply,
        name: "probe-open",
        label: "Open the knob probe under the cursor in the Counterfactual pane",
        group: Group::Drill,
        hint: Some("open probe"),
        hint_keys: None,
        bindings: &[b(code(KeyCode::Enter), WHYNOT)],
        arg: Arg::None,
        enabled: need_probe,
    },
    Command {
        id: CmdId::Zoom,
        name: "zoom",
        label: "Zoom the focused pane (again: unzoom)",
        group: Group::Panes,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('z'), PANES)],
        arg: Arg::None,
        enabled: always,
    },
    Command {
        id: CmdId::TopKUp,
        name: "topk",
        label: "More results: top_k + 1 (:topk N)",
        group: Group::Params,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('+'), PANES), b(ch('='), PANES)],
        arg: Arg::Optional("N"),
        enabled: need_topk_up,
    },
    Command {
        id: CmdId::TopKDown,
        name: "topk-down",
        label: "Fewer results: top_k - 1",
        group: Group::Params,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('-'), PANES)],
        arg: Arg::None,
        enabled: need_topk_down,
    },
    Command {
        id: CmdId::DepthUp,
        name: "depth",
        label: "Deeper graph expansion: depth + 1 (:depth N)",
        group: Group::Params,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('>'), PANES)],
        arg: Arg::Optional("N"),
        enabled: need_depth_up,
    },
    Command {
        id: CmdId::DepthDown,
        name: "depth-down",
        label: "Shallower graph expansion: depth - 1 (0 turns it off)",
        group: Group::Params,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('<'), PANES)],
        arg: Arg::None,
        enabled: need_depth_down,
    },
    Command {
        id: CmdId::BudgetUp,
        name: "budget",
        label: "Larger token budget for subgraph_text (:budget N)",
        group: Group::Params,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('b'), PANES)],
        arg: Arg::Optional("N"),
        enabled: need_engine,
    },
    Command {
        id: CmdId::BudgetDown,
        name: "budget-down",
        label: "Smaller token budget",
        group: Group::Params,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('B'), PANES)],
        arg: Arg::None,
        enabled: need_engine,
    },
    Command {
        id: CmdId::HistoryAdd,
        name: "history",
        label: "Add the selected tool to the history: demotes it x0.6 (:history NAME)",
        group: Group::Params,
        hint: Some("history"),
        hint_keys: None,
        bindings: &[b(ch('h'), CANDIDATES | DETAIL | SELECTOR)],
        arg: Arg::Optional("NAME"),
        enabled: need_rows,
    },
    Command {
        id: CmdId::HistoryClear,
        name: "history-clear",
        label: "Clear the history",
        group: Group::Params,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('H'), PANES)],
        arg: Arg::None,
        enabled: need_history,
    },
    Command {
        id: CmdId::LearningToggle,
        name: "learning",
        label: "Learning suggestions on/off (from --learning FILE)",
        group: Group::Params,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('L'), PANES)],
        arg: Arg::None,
        enabled: need_learning,
    },
    Command {
        id: CmdId::ResetParams,
        name: "reset",
        label: "Reset top_k, depth, budget, history, LLM target and policy",
        group: Group::Params,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('r'), PANES)],
        arg: Arg::None,
        enabled: need_engine,
    },
    Command {
        id: CmdId::Find,
        name: "find",
        label: "Find text in the drill-down pane (Enter keeps it, n/N step, Esc closes)",
        group: Group::Drill,
        hint: Some("find"),
        hint_keys: None,
        bindings: &[b(ctrl('f'), DRILL)],
        arg: Arg::Optional("TEXT"),
        enabled: always,
    },
    Command {
        id: CmdId::FindNext,
        name: "find-next",
        label: "Next match of the find",
        group: Group::Drill,
        hint: Some("next match"),
        hint_keys: Some("n/N"),
        bindings: &[b(ch('n'), DRILL)],
        arg: Arg::None,
        enabled: need_find,
    },
    Command {
        id: CmdId::FindPrev,
        name: "find-prev",
        label: "Previous match of the find",
        group: Group::Drill,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('N'), DRILL)],
        arg: Arg::None,
        enabled: need_find,
    },
    Command {
        id: CmdId::DemoNext,
        name: "demo",
        label: "Next demo query of the walkthrough (:demo N jumps to step N)",
        group: Group::Demo,
        hint: Some("demo"),
        hint_keys: None,
        bindings: &[b(ch('n'), PANES)],
        arg: Arg::Optional("N"),
        enabled: need_demo,
    },
    Command {
        id: CmdId::DemoPrev,
        name: "demo-prev",
        label: "Previous demo query",
        group: Group::Demo,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('N'), PANES)],
        arg: Arg::None,
        enabled: need_demo,
    },
    Command {
        id: CmdId::DemoNote,
        name: "narration",
        label: "The walkthrough step's narration in full, with what it says is on screen",
        group: Group::Demo,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('i'), PANES)],
        arg: Arg::None,
        enabled: need_demo_step,
    },
    Command {
        id: CmdId::ScreenEnter,
        name: "enter",
        label: "Open: a record's rows, a row's detail, a diff case, a lab case in Explore",
        group: Group::Screens,
        hint: Some("open"),
        hint_keys: None,
        bindings: &[b(code(KeyCode::Enter), SCREENS)],
        arg: Arg::None,
        enabled: need_enter,
    },
    Command {
        id: CmdId::EvTable,
        name: "ev-rows",
        label: "Evidence: the candidate rows",
        group: Group::Screens,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('1'), EVIDENCE)],
        arg: Arg::None,
        enabled: need_evidence,
    },
    Command {
        id: CmdId::EvTabRow,
        name: "ev-row",
        label: "Evidence: the row's detail (breakdown, semantic and edge evidence, unknown keys)",
        group: Group::Screens,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('2'), EVIDENCE)],
        arg: Arg::None,
        enabled: need_evidence,
    },
    Command {
        id: CmdId::EvTabSelector,
        name: "ev-selector",
        label: "Evidence: the target selector block",
        group: Group::Screens,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('3'), EVIDENCE)],
        arg: Arg::None,
        enabled: need_evidence,
    },
    Command {
        id: CmdId::EvTabRecord,
        name: "ev-record",
        label: "Evidence: the record (id, query, provenance, unknown keys, full JSON)",
        group: Group::Screens,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('4'), EVIDENCE)],
        arg: Arg::None,
        enabled: need_evidence,
    },
    Command {
        id: CmdId::EvTabWhyNot,
        name: "ev-whynot",
        label: "Evidence: the Why-not tab (the captured record's triage for its expected tool, or the one w set)",
        group: Group::Screens,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('5'), EVIDENCE)],
        arg: Arg::None,
        enabled: need_evidence,
    },
    Command {
        id: CmdId::EvJson,
        name: "ev-json",
        label: "Evidence: fold or unfold the row's or the record's JSON",
        group: Group::Screens,
        hint: Some("JSON"),
        hint_keys: None,
        bindings: &[b(ch('o'), EVIDENCE)],
        arg: Arg::None,
        enabled: need_evidence,
    },
    Command {
        id: CmdId::RecordNext,
        name: "record-next",
        label: "Evidence: next record of the stream",
        group: Group::Screens,
        hint: Some("record"),
        hint_keys: Some("[/]"),
        bindings: &[b(ch(']'), EVIDENCE)],
        arg: Arg::None,
        enabled: need_records,
    },
    Command {
        id: CmdId::RecordPrev,
        name: "record-prev",
        label: "Evidence: previous record of the stream",
        group: Group::Screens,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('['), EVIDENCE)],
        arg: Arg::None,
        enabled: need_records,
    },
    Command {
        id: CmdId::ChangedOnly,
        name: "changed",
        label: "Diff: only the changed cases, or every case",
        group: Group::Screens,
        hint: Some("changed only"),
        hint_keys: None,
        bindings: &[b(ch('c'), DIFF)],
        arg: Arg::None,
        enabled: need_diff,
    },
    Command {
        id: CmdId::LabSort,
        name: "sort",
        label: "Lab: sort by triage class, failure (worst first), rank or id (:sort NAME)",
        group: Group::Screens,
        hint: Some("sort"),
        hint_keys: None,
        bindings: &[b(ch('o'), LAB)],
        arg: Arg::Optional("NAME"),
        enabled: need_lab,
    },
    Command {
        id: CmdId::LabClass,
        name: "class",
        label: "Lab: only the cases of one triage class (next class; :class NAME, :class all)",
        group: Group::Screens,
        hint: Some("class"),
        hint_keys: None,
        bindings: &[b(ch('c'), LAB)],
        arg: Arg::Optional("NAME"),
        enabled: need_lab,
    },
    Command {
        id: CmdId::ScreenExplore,
        name: "explore",
        label: "Explore screen (the live ranking)",
        group: Group::Screens,
        hint: None,
        hint_keys: None,
        bindings: &[],
        arg: Arg::None,
        enabled: need_explore,
    },
    Command {
        id: CmdId::ScreenLab,
        name: "lab",
        label: "Lab screen: evaluate a suite with the current parameters (:lab SUITE)",
        group: Group::Screens,
        hint: None,
        hint_keys: None,
        bindings: &[],
        arg: Arg::Optional("SUITE"),
        enabled: need_explore,
    },
    Command {
        id: CmdId::ScreenEvidence,
        name: "evidence",
        label: "Evidence screen: a captured response, selector block, fixture or JSON Lines (:evidence FILE)",
        group: Group::Screens,
        hint: None,
        hint_keys: None,
        bindings: &[],
        arg: Arg::Optional("FILE"),
        enabled: always,
    },
    Command {
        id: CmdId::ScreenDiff,
        name: "diff",
        label: "Diff screen: two runs side by side (:diff A B, files or fixture folders)",
        group: Group::Screens,
        hint: None,
        hint_keys: None,
        bindings: &[],
        arg: Arg::Optional("A B"),
        enabled: always,
    },
    Command {
        id: CmdId::Copy,
        name: "copy",
        label: "Copy the selected row's evidence JSON (OSC 52, works over SSH and tmux)",
        group: Group::Export,
        hint: Some("copy"),
        hint_keys: None,
        bindings: &[b(ch('y'), PANES | EVIDENCE)],
        arg: Arg::None,
        enabled: need_copy,
    },
    Command {
        id: CmdId::Save,
        name: "save",
        label: "Save the screen as text, SVG and HTML (for slides)",
        group: Group::Export,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('s'), NORMAL)],
        arg: Arg::None,
        enabled: always,
    },
    Command {
        id: CmdId::ThemeCycle,
        name: "theme",
        label: "Next theme: dark, light, high-contrast, then the config file's [themes.NAME] (:theme NAME)",
        group: Group::General,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch('T'), NORMAL)],
        arg: Arg::Optional("NAME"),
        enabled: always,
    },
    Command {
        id: CmdId::Help,
        name: "help",
        label: "Keys and commands (type to filter)",
        group: Group::General,
        hint: Some("help"),
        hint_keys: None,
        bindings: &[b(ch('?'), NORMAL), b(code(KeyCode::F(1)), ANY)],
        arg: Arg::None,
        enabled: always,
    },
    Command {
        id: CmdId::Palette,
        name: "palette",
        label: "Command palette (fuzzy; commands take arguments: :llm NAME)",
        group: Group::General,
        hint: None,
        hint_keys: None,
        bindings: &[b(ch(':'), NORMAL)],
        arg: Arg::None,
        enabled: always,
    },
    Command {
        id: CmdId::Quit,
        name: "quit",
        label: "Quit",
        group: Group::General,
        hint: Some("quit"),
        hint_keys: None,
        bindings: &[b(ch('q'), NORMAL)],
        arg: Arg::None,
        enabled: always,
    },
];
