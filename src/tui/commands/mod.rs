//! The one command registry. Each command has an id, a palette name, a label, a group,
//! an optional footer hint, key bindings (each valid in some contexts) and a "when enabled"
//! check that gives the reason when it is not. The keymap, the `?`/F1 help overlay, the `:`
//! palette and the footer hints are all read from [`REGISTRY`]; nothing else binds keys.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::app::{App, PaneId};
use super::caps::Glyphs;
use keymap::Keymap;

/// Contexts a key binding is valid in (a bit set).
pub type Ctx = u16;
pub const INPUT: Ctx = 1;
pub const CANDIDATES: Ctx = 2;
pub const DETAIL: Ctx = 4;
pub const SELECTOR: Ctx = 8;
pub const GRAPH: Ctx = 16;
pub const SUBGRAPH: Ctx = 32;
pub const EXPLAIN: Ctx = 64;
pub const TRACE: Ctx = 128;
pub const CFACT: Ctx = 256;
/// The screens besides Explore (each one context).
pub const EVIDENCE: Ctx = 512;
pub const DIFF: Ctx = 1024;
pub const LAB: Ctx = 2048;
pub const WHYNOT: Ctx = 4096;
pub const FOLLOW: Ctx = 8192;
/// While a graph is loading (before any screen is ready): only quitting and help.
pub const LOADING: Ctx = 16384;
/// While an overlay (help, palette, narration) has the keys: only quitting (Ctrl-C).
pub const OVERLAY: Ctx = 32768;
/// Every pane of the Explore screen in normal mode (not while typing the query).
pub const PANES: Ctx =
    CANDIDATES | DETAIL | SELECTOR | GRAPH | SUBGRAPH | EXPLAIN | TRACE | CFACT | WHYNOT;
pub const DRILL: Ctx = DETAIL | SELECTOR | GRAPH | SUBGRAPH | EXPLAIN | TRACE | CFACT | WHYNOT;
pub const SCREENS: Ctx = EVIDENCE | DIFF | LAB | FOLLOW;
/// Every context in normal mode, on every screen.
pub const NORMAL: Ctx = PANES | SCREENS;
pub const ANY: Ctx = NORMAL | INPUT;
/// Truly everywhere: every context, loading and overlays too (Ctrl-C only).
pub const ALWAYS: Ctx = ANY | LOADING | OVERLAY;

pub fn pane_ctx(p: PaneId) -> Ctx {
    match p {
        PaneId::Candidates => CANDIDATES,
        PaneId::Detail => DETAIL,
        PaneId::Selector => SELECTOR,
        PaneId::Graph => GRAPH,
        PaneId::Subgraph => SUBGRAPH,
        PaneId::Explain => EXPLAIN,
        PaneId::Trace => TRACE,
        PaneId::Counterfactual => CFACT,
        PaneId::WhyNot => WHYNOT,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmdId {
    ForceQuit,
    Quit,
    Help,
    Palette,
    FocusQuery,
    InputLeave,
    Down,
    Up,
    PageDown,
    PageUp,
    Top,
    Bottom,
    NextPane,
    PrevPane,
    PaneCandidates,
    PaneDetail,
    PaneSelector,
    PaneGraph,
    PaneSubgraph,
    PaneExplain,
    PaneTrace,
    PaneCounterfactual,
    PaneWhyNot,
    WhyNotPick,
    WhyNotType,
    WhyNotClear,
    WhyNotApply,
    WhyNotEffects,
    ExplainToggle,
    ExplainOpen,
    ExplainClose,
    ExplainMetric,
    ExplainView,
    ExplainAll,
    ExplainSelector,
    TraceScope,
    TraceStage,
    CfKnob,
    CfKnobPrev,
    CfUp,
    CfDown,
    CfType,
    PathNext,
    PathBack,
    ScreenEnter,
    EvTable,
    EvTabRow,
    EvTabSelector,
    EvTabRecord,
    EvTabWhyNot,
    EvJson,
    RecordNext,
    RecordPrev,
    ChangedOnly,
    GdChanges,
    GdBlame,
    GdChange,
    GdToggle,
    LabSort,
    LabClass,
    FollowPause,
    FollowTool,
    FollowCode,
    FollowDrifted,
    FollowText,
    FollowUnfilter,
    FollowOffset,
    ScreenFollow,
    ScreenExplore,
    ScreenLab,
    ScreenEvidence,
    ScreenDiff,
    OpenDetail,
    ToggleJson,
    GraphJump,
    GraphBack,
    Back,
    Zoom,
    LlmPick,
    LlmType,
    LlmClear,
    PolicyCycle,
    TopKUp,
    TopKDown,
    DepthUp,
    DepthDown,
    BudgetUp,
    BudgetDown,
    HistoryAdd,
    HistoryClear,
    LearningToggle,
    ResetParams,
    DemoNext,
    DemoPrev,
    DemoNote,
    Messages,
    Find,
    FindNext,
    FindPrev,
    Copy,
    Save,
    ThemeCycle,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    General,
    Navigate,
    Panes,
    Selector,
    Graph,
    Drill,
    Params,
    Demo,
    Screens,
    Export,
}

impl Group {
    pub const ORDER: [Group; 10] = [
        Group::General,
        Group::Navigate,
        Group::Panes,
        Group::Selector,
        Group::Graph,
        Group::Drill,
        Group::Params,
        Group::Demo,
        Group::Screens,
        Group::Export,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Group::General => "General",
            Group::Navigate => "Navigate",
            Group::Panes => "Panes",
            Group::Selector => "Target selector",
            Group::Graph => "Graph",
            Group::Drill => "Explain, trace, counterfactual (evidence drill-down)",
            Group::Params => "Parameters (re-run live)",
            Group::Demo => "Demo walkthrough",
            Group::Screens => "Screens: Evidence, Diff, Lab, Follow",
            Group::Export => "Copy and export",
        }
    }
}

/// A key with modifiers (SHIFT is ignored for characters: `G` is `G`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    pub code: KeyCode,
    pub mods: KeyModifiers,
}

impl Key {
    pub fn from_event(e: &KeyEvent) -> Key {
        let mut mods = e.modifiers;
        if matches!(e.code, KeyCode::Char(_) | KeyCode::BackTab) {
            mods.remove(KeyModifiers::SHIFT);
        }
        Key { code: e.code, mods }
    }

    pub fn label(&self, g: &Glyphs) -> String {
        let base = match self.code {
            KeyCode::Char(' ') => "Space".to_string(),
            KeyCode::Char(c) => c.to_string(),
            KeyCode::Up => g.up.to_string(),
            KeyCode::Down => g.down.to_string(),
            KeyCode::Left => "Left".into(),
            KeyCode::Right => "Right".into(),
            KeyCode::Enter => "Enter".into(),
            KeyCode::Esc => "Esc".into(),
            KeyCode::Tab => "Tab".into(),
            KeyCode::BackTab => "S-Tab".into(),
            KeyCode::Backspace => "Bksp".into(),
            KeyCode::PageUp => "PgUp".into(),
            KeyCode::PageDown => "PgDn".into(),
            KeyCode::Home => "Home".into(),
            KeyCode::End => "End".into(),
            KeyCode::F(n) => format!("F{n}"),
            other => format!("{other:?}"),
        };
        if self.mods.contains(KeyModifiers::CONTROL) {
            format!("Ctrl-{}", base.to_uppercase())
        } else {
            base
        }
    }
}

const fn ch(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        mods: KeyModifiers::NONE,
    }
}

const fn ctrl(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        mods: KeyModifiers::CONTROL,
    }
}

const fn code(c: KeyCode) -> Key {
    Key {
        code: c,
        mods: KeyModifiers::NONE,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Binding {
    pub key: Key,
    pub when: Ctx,
}

const fn b(key: Key, when: Ctx) -> Binding {
    Binding { key, when }
}

/// What a palette command accepts after its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    None,
    /// Optional argument (shown as `[X]`).
    Optional(&'static str),
}

pub type Enabled = fn(&App) -> Option<&'static str>;

pub struct Command {
    pub id: CmdId,
    /// Palette name (`:name`).
    pub name: &'static str,
    pub label: &'static str,
    pub group: Group,
    /// Short footer label, when the command earns a footer slot.
    pub hint: Option<&'static str>,
    /// Key text for the footer when it differs from the first binding (e.g. "j/k").
    pub hint_keys: Option<&'static str>,
    pub bindings: &'static [Binding],
    pub arg: Arg,
    /// `None` when enabled, else why not.
    pub enabled: Enabled,
}

pub mod edit;
mod enabled;
pub mod keymap;
mod table;
pub use table::REGISTRY;

pub fn get(id: CmdId) -> &'static Command {
    REGISTRY
        .iter()
        .find(|c| c.id == id)
        .expect("every command id is registered")
}

pub fn by_name(name: &str) -> Option<&'static Command> {
    REGISTRY.iter().find(|c| c.name == name)
}

/// Commands that exit or discard state run from the palette only by their exact name.
pub fn exact_only(id: CmdId) -> bool {
    matches!(
        id,
        CmdId::ForceQuit | CmdId::Quit | CmdId::ResetParams | CmdId::HistoryClear
    )
}

/// The command a palette word names: its exact name, or the one name it is a prefix of.
/// Otherwise the answer says why nothing runs (unknown, with the closest names;
/// ambiguous, with the candidates; an exiting command given by a prefix).
pub fn resolve(word: &str) -> Result<&'static Command, String> {
    if let Some(c) = by_name(word) {
        return Ok(c);
    }
    let shown = crate::sanitize::line(word);
    let pre: Vec<&'static Command> = REGISTRY
        .iter()
        .filter(|c| !word.is_empty() && c.name.starts_with(word))
        .collect();
    match pre.as_slice() {
        [c] if exact_only(c.id) => Err(format!(
            "type the whole name to run :{} (nothing was run)",
            c.name
        )),
        [c] => Ok(c),
        [] => {
            let near = closest(word);
            Err(if near.is_empty() {
                format!("unknown command: {shown} (nothing was run; Tab completes, F1 lists keys)")
            } else {
                format!(
                    "unknown command: {shown} (nothing was run); closest: {}",
                    near.iter()
                        .map(|n| format!(":{n}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
        }
        many => Err(format!(
            "ambiguous: {shown} could be {} (nothing was run)",
            many.iter()
                .take(6)
                .map(|c| format!(":{}", c.name))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Up to three command names near `word`: within two edits (a swap of neighbours is one),
/// or containing it.
pub fn closest(word: &str) -> Vec<&'static str> {
    let w: Vec<char> = word.to_lowercase().chars().collect();
    let mut scored: Vec<(usize, &'static str)> = REGISTRY
        .iter()
        .filter_map(|c| {
            let n: Vec<char> = c.name.chars().collect();
            let d = edit_distance(&w, &n);
            let contains = w.len() >= 3 && c.name.contains(word);
            (d <= 2 || contains).then_some((if contains { d.min(2) } else { d }, c.name))
        })
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, n)| n).collect()
}

/// Optimal string alignment distance (insert, delete, substitute, swap neighbours).
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let (n, m) = (a.len(), b.len());
    let mut d = vec![vec![0usize; m + 1]; n + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, v) in d[0].iter_mut().enumerate() {
        *v = j;
    }
    for i in 1..=n {
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[n][m]
}

/// The command a key runs in a context: the first enabled match in registry order, or the
/// first match (disabled) so the caller can say why it did nothing. Bindings come from the
/// app's [`keymap::Keymap`] (the configuration file's overrides over the registry).
pub fn lookup(app: &App, key: Key, ctx: Ctx) -> Option<&'static Command> {
    let mut first: Option<&'static Command> = None;
    for c in REGISTRY {
        if app
            .keys
            .bindings(c)
            .iter()
            .any(|bd| bd.key == key && bd.when & ctx != 0)
        {
            if (c.enabled)(app).is_none() {
                return Some(c);
            }
            first.get_or_insert(c);
        }
    }
    first
}

/// Keys of a command in a context under a keymap, as labels.
pub fn keys_in(km: &Keymap, c: &'static Command, ctx: Ctx, g: &Glyphs) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for bd in km.bindings(c) {
        if bd.when & ctx != 0 {
            let l = bd.key.label(g);
            if !out.contains(&l) {
                out.push(l);
            }
        }
    }
    out
}

/// A command's keys under a keymap grouped by where they work, for the help overlay and the
/// palette: one group when every key works in the same panes, else one per place (`l` in
/// candidates and selector, `Enter` in the selector only), so no key reads as working where
/// it does not. Each group: its key labels joined by spaces, and the place in words.
pub fn key_groups(km: &Keymap, c: &'static Command, g: &Glyphs) -> Vec<(String, String)> {
    let mut seen: Vec<String> = Vec::new();
    let mut out: Vec<(String, String)> = Vec::new();
    for bd in km.bindings(c) {
        let l = bd.key.label(g);
        if seen.contains(&l) {
            continue;
        }
        seen.push(l.clone());
        let w = where_ctx(bd.when);
        match out.iter_mut().find(|(_, ow)| *ow == w) {
            Some((keys, _)) => {
                keys.push(' ');
                keys.push_str(&l);
            }
            None => out.push((l, w)),
        }
    }
    if out.is_empty() {
        out.push((String::new(), String::new()));
    }
    out
}

/// A set of contexts in words: "" when it covers every Explore pane (the common case),
/// else the places by name in pane order ("drill-down panes" for all eight of them).
fn where_ctx(all: Ctx) -> String {
    if all & PANES == PANES {
        return String::new();
    }
    let mut parts: Vec<&'static str> = Vec::new();
    let mut rest = all;
    if rest & DRILL == DRILL {
        parts.push("drill-down panes");
        rest &= !DRILL;
    }
    const NAMES: [(Ctx, &str); 16] = [
        (INPUT, "query line"),
        (CANDIDATES, "candidates"),
        (DETAIL, "detail"),
        (SELECTOR, "selector"),
        (GRAPH, "graph"),
        (SUBGRAPH, "subgraph"),
        (EXPLAIN, "explain"),
        (TRACE, "trace"),
        (CFACT, "counterfactual"),
        (WHYNOT, "why-not"),
        (EVIDENCE, "evidence"),
        (DIFF, "diff"),
        (LAB, "lab"),
        (FOLLOW, "follow"),
        (LOADING, "while loading"),
        (OVERLAY, "in overlays"),
    ];
    parts.extend(NAMES.iter().filter(|(c, _)| rest & c != 0).map(|(_, n)| *n));
    parts.join(", ")
}

/// A footer hint: the command, its key text and its label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hint {
    pub id: CmdId,
    pub keys: String,
    pub label: &'static str,
}

/// Footer hints for a context, in registry order: enabled commands with a key there (a
/// disabled one is explained in help, not advertised). While typing, the keys shown are
/// the ones that work while typing (`Down`, not `j/k`), and quitting is Ctrl-C.
pub fn hints(app: &App, ctx: Ctx, g: &Glyphs) -> Vec<Hint> {
    let mut out = Vec::new();
    for c in REGISTRY {
        let hint = match (c.id, c.hint) {
            (CmdId::ForceQuit, _) if ctx == INPUT => "quit",
            (CmdId::ExplainView, Some(_)) if app.explain.chips => "tree",
            (_, Some(h)) => h,
            (_, None) => continue,
        };
        let keys = keys_in(&app.keys, c, ctx, g);
        if keys.is_empty() || (c.enabled)(app).is_some() {
            continue;
        }
        if app.gd_loading_here() && !crate::tui::gdiff::open::works_while_loading(c.id) {
            continue;
        }
        let keys = match (c.hint_keys, hint_pair(c.id)) {
            _ if ctx == INPUT => keys.join("/"),
            // rebound keys: the footer shows them, not the built-in key text
            (Some(_), Some((other, self_first)))
                if app.keys.is_overridden(c.id) || app.keys.is_overridden(other) =>
            {
                let o = keys_in(&app.keys, get(other), ctx, g);
                match (o.first(), self_first) {
                    (Some(o), true) => format!("{}/{o}", keys[0]),
                    (Some(o), false) => format!("{o}/{}", keys[0]),
                    (None, _) => keys[0].clone(),
                }
            }
            (Some(_), None) if app.keys.is_overridden(c.id) => keys.join("/"),
            (Some(k), _) => k.to_string(),
            (None, _) => keys[0].clone(),
        };
        out.push(Hint {
            id: c.id,
            keys,
            label: hint,
        });
    }
    out
}

/// Footer hints whose key text names a pair of commands (`j/k` for down and up): the
/// other command, and whether this one's key comes first.
fn hint_pair(id: CmdId) -> Option<(CmdId, bool)> {
    match id {
        CmdId::Down => Some((CmdId::Up, true)),
        CmdId::CfUp => Some((CmdId::CfDown, false)),
        CmdId::RecordNext => Some((CmdId::RecordPrev, false)),
        _ => None,
    }
}

/// The hints a footer always keeps, at its right end: help and quit.
pub fn pinned(id: CmdId) -> bool {
    matches!(id, CmdId::Help | CmdId::Quit | CmdId::ForceQuit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn palette_words_resolve_exactly_or_by_unique_prefix() {
        assert_eq!(resolve("depth").unwrap().id, CmdId::DepthUp);
        assert_eq!(resolve("subg").unwrap().id, CmdId::PaneSubgraph);
        let e = resolve("depht").err().unwrap();
        assert!(e.starts_with("unknown command: depht"), "{e}");
        assert!(e.contains(":depth"), "{e}");
        let e = resolve("zzz").err().unwrap();
        assert!(e.starts_with("unknown command: zzz"), "{e}");
        assert!(resolve("dep").err().unwrap().starts_with("ambiguous"));
        assert!(resolve("q").err().unwrap().starts_with("ambiguous"));
        // exiting and discarding commands need their whole name
        assert!(resolve("quit!").is_ok() && resolve("quit").is_ok());
        assert!(resolve("rese").err().unwrap().contains("whole name"));
        assert!(resolve("").is_err());
        assert_eq!(edit_distance(&['a', 'b'], &['b', 'a']), 1);
    }

    /// The Tab line counts the panes right and names the first and the last one with
    /// their number keys.
    #[test]
    fn next_pane_names_every_pane_in_order() {
        let all = PaneId::ALL;
        let label = get(CmdId::NextPane).label;
        assert_eq!(all.len(), 9);
        assert!(label.contains("all nine"), "{label}");
        let first = format!("1 {}", all[0].title());
        let last = format!("9 {}", all[8].title());
        assert!(label.contains(&first) && label.contains(&last), "{label}");
        for (i, p) in all.iter().enumerate() {
            let pane = get(match p {
                PaneId::Candidates => CmdId::PaneCandidates,
                PaneId::Detail => CmdId::PaneDetail,
                PaneId::Selector => CmdId::PaneSelector,
                PaneId::Graph => CmdId::PaneGraph,
                PaneId::Subgraph => CmdId::PaneSubgraph,
                PaneId::Explain => CmdId::PaneExplain,
                PaneId::Trace => CmdId::PaneTrace,
                PaneId::Counterfactual => CmdId::PaneCounterfactual,
                PaneId::WhyNot => CmdId::PaneWhyNot,
            });
            let key = char::from(b'1' + i as u8);
            assert_eq!(pane.bindings[0].key, ch(key), "{}", p.title());
        }
    }

    /// Help says where each key works: per key when they differ, every place by name.
    #[test]
    fn key_groups_say_where_each_key_works() {
        let km = Keymap::default();
        let g = &crate::tui::caps::ASCII;
        let groups = |id| key_groups(&km, get(id), g);
        assert_eq!(
            groups(CmdId::LlmPick),
            vec![
                ("l".to_string(), "candidates, selector".to_string()),
                ("Enter".to_string(), "selector".to_string())
            ]
        );
        assert_eq!(
            groups(CmdId::WhyNotPick)[0].1,
            "candidates, selector, graph, why-not, evidence"
        );
        assert_eq!(groups(CmdId::Find)[0].1, "drill-down panes");
        assert_eq!(
            groups(CmdId::Quit),
            vec![
                ("q".into(), String::new()),
                ("Esc".into(), "while loading".into())
            ]
        );
        assert_eq!(
            groups(CmdId::ForceQuit),
            vec![("Ctrl-C".into(), String::new())]
        );
        assert_eq!(groups(CmdId::Down), vec![("j Down".into(), String::new())]);
    }

    #[test]
    fn names_and_ids_are_unique() {
        for (i, a) in REGISTRY.iter().enumerate() {
            for bb in &REGISTRY[i + 1..] {
                assert_ne!(a.name, bb.name);
                assert_ne!(a.id, bb.id);
            }
        }
    }

    /// Within one context a key runs at most one command unless the earlier one can be
    /// disabled (then the later one is its fallback, like Esc in the graph pane).
    #[test]
    fn no_silent_key_conflicts() {
        let fallbacks = [
            (CmdId::GraphBack, CmdId::Back),
            (CmdId::PathBack, CmdId::Back),
            (CmdId::GraphJump, CmdId::LlmPick),
            (CmdId::FindNext, CmdId::DemoNext),
            (CmdId::FindPrev, CmdId::DemoPrev),
        ];
        for (i, a) in REGISTRY.iter().enumerate() {
            for bb in &REGISTRY[i + 1..] {
                for x in a.bindings {
                    for y in bb.bindings {
                        if x.key == y.key && x.when & y.when != 0 {
                            assert!(
                                fallbacks.contains(&(a.id, bb.id)),
                                "{:?} and {:?} share {:?}",
                                a.id,
                                bb.id,
                                x.key
                            );
                        }
                    }
                }
            }
        }
    }
}
