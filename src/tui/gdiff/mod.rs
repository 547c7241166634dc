//! The Diff screen on two graphs: the state and what its keys do. The artifact diff is a
//! tree ([`tree`]); the case list holds a suite's cases (`--cases`) and the query box's
//! case (typed with `/`, blamed as it is typed); the pane below shows the selected case's
//! two rankings side by side with a blame column, its causes (Enter: the change's old and
//! new text; `x`: that cause alone applied to OLD, the case re-ranked live), or the tree.
//! Blame runs on the worker of [`work`]; every answer carries a generation and stale ones
//! are dropped, so keys never wait.

pub mod open;
pub mod tree;
pub mod work;

use std::collections::BTreeSet;
use std::sync::Arc;

use super::app::{App, Effect, FlashLevel, PaneState};
use super::screens::Screen;
use crate::engine::Engine;
use crate::engine::knobs::Knobs;
use crate::lab::blame::CaseSpec;
use crate::lab::graphdiff::ArtifactDiff;
use work::{BlamedCase, GdJob, GdMsg, Reranked};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GdFocus {
    Cases,
    Pane,
}

/// The pane's tabs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GdTab {
    /// The artifact diff tree.
    Changes,
    /// The case's rankings, blame column and causes.
    Blame,
    /// The change behind one cause.
    Change,
}

impl GdTab {
    pub const ALL: [GdTab; 3] = [GdTab::Changes, GdTab::Blame, GdTab::Change];

    pub fn title(self) -> &'static str {
        match self {
            GdTab::Changes => "Changes",
            GdTab::Blame => "Blame",
            GdTab::Change => "Change",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

/// A row of the case list: the query box's case or a suite case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaseRef {
    Live,
    Suite(usize),
}

/// The query box's case: what was typed, and its blame once it arrives.
#[derive(Clone, Debug)]
pub struct LiveCase {
    pub spec: CaseSpec,
    pub blamed: Option<BlamedCase>,
}

/// Starting the screen: the two engines, their labels, and a suite to blame.
pub struct GdStart {
    pub old: Arc<Engine>,
    pub new: Arc<Engine>,
    pub suite: Option<(crate::lab::suite::Suite, String)>,
    pub labels: (String, String),
}

pub struct GraphDiffView {
    pub old_label: String,
    pub new_label: String,
    /// The artifact diff, once the worker computed it, and its number of change groups.
    pub diff: Option<Arc<ArtifactDiff>>,
    pub groups: usize,
    pub failed: Option<String>,
    /// The parameters cases are ranked with (a suite case's own win).
    pub base: Knobs,
    pub suite_label: Option<String>,
    pub specs: Arc<Vec<CaseSpec>>,
    /// Blamed suite cases, in suite order (None: not yet).
    pub cases: Vec<Option<BlamedCase>>,
    pub blamed: usize,
    pub live: Option<LiveCase>,
    /// The expected tools of the query box's case (`--expected`).
    pub expected: Vec<String>,
    /// The newest job of each kind (answers to older ones are dropped). A view started
    /// after another counts on from it, so no answer of the other's worker matches.
    pub generation: u64,
    /// The generation this view started at: its worker's first answers carry it.
    pub epoch: u64,
    /// Where Esc on the case list goes back to (the screen `:diff` was typed on).
    pub back: Option<Screen>,
    pub suite_gen: u64,
    pub live_gen: u64,
    pub rerank_gen: u64,
    /// Index into [`GraphDiffView::visible`].
    pub cursor: usize,
    pub changed_only: bool,
    pub focus: GdFocus,
    pub tab: GdTab,
    pub panes: [PaneState; 3],
    pub open: BTreeSet<String>,
    /// Causes of the selected case applied to OLD (`x`), and the ranking they give.
    pub toggled: Vec<usize>,
    pub rerank: Option<(Vec<usize>, Reranked)>,
    /// The cause the Change tab shows.
    pub opened: Option<usize>,
}

impl GraphDiffView {
    pub fn new(old_label: &str, new_label: &str, base: Knobs) -> GraphDiffView {
        GraphDiffView {
            old_label: old_label.to_string(),
            new_label: new_label.to_string(),
            diff: None,
            groups: 0,
            failed: None,
            base,
            suite_label: None,
            specs: Arc::new(Vec::new()),
            cases: Vec::new(),
            blamed: 0,
            live: None,
            expected: Vec::new(),
            generation: 0,
            epoch: 0,
            back: None,
            suite_gen: 0,
            live_gen: 0,
            rerank_gen: 0,
            cursor: 0,
            changed_only: false,
            focus: GdFocus::Cases,
            tab: GdTab::Changes,
            panes: [PaneState::default(); 3],
            open: tree::default_open(),
            toggled: Vec::new(),
            rerank: None,
            opened: None,
        }
    }

    /// The case list's rows in order: the query box's case first.
    pub fn visible(&self) -> Vec<CaseRef> {
        let keep = |b: Option<&BlamedCase>| !self.changed_only || b.is_some_and(|b| b.changed);
        let mut out = Vec::new();
        if let Some(l) = &self.live
            && keep(l.blamed.as_ref())
        {
            out.push(CaseRef::Live);
        }
        for (i, c) in self.cases.iter().enumerate() {
            if keep(c.as_ref()) {
                out.push(CaseRef::Suite(i));
            }
        }
        out
    }

    pub fn spec(&self, r: CaseRef) -> Option<&CaseSpec> {
        match r {
            CaseRef::Live => self.live.as_ref().map(|l| &l.spec),
            CaseRef::Suite(i) => self.specs.get(i),
        }
    }

    pub fn blamed(&self, r: CaseRef) -> Option<&BlamedCase> {
        match r {
            CaseRef::Live => self.live.as_ref().and_then(|l| l.blamed.as_ref()),
            CaseRef::Suite(i) => self.cases.get(i).and_then(|c| c.as_ref()),
        }
    }

    pub fn current_ref(&self) -> Option<CaseRef> {
        self.visible().get(self.cursor).copied()
    }

    pub fn current(&self) -> Option<&BlamedCase> {
        self.current_ref().and_then(|r| self.blamed(r))
    }

    /// Changed cases among those blamed.
    pub fn changed(&self) -> usize {
        self.cases.iter().flatten().filter(|c| c.changed).count()
    }

    /// The suite is still being blamed.
    pub fn running(&self) -> bool {
        self.blamed < self.specs.len()
    }

    /// The query box's case is being blamed.
    pub fn live_pending(&self) -> bool {
        self.live.as_ref().is_some_and(|l| l.blamed.is_none())
    }

    /// The cause under the Blame tab's cursor.
    pub fn cause_cursor(&self) -> usize {
        self.panes[GdTab::Blame.index()].cursor
    }

    /// Rows of the artifact diff tree as they are open now.
    pub fn tree_items(&self) -> Vec<tree::TreeItem> {
        self.diff
            .as_ref()
            .map(|d| tree::items(d, &self.open))
            .unwrap_or_default()
    }

    fn next_gen(&mut self) -> u64 {
        self.generation += 1;
        self.generation
    }

    /// A new case under the cursor: no cause applied, the panes at their top.
    fn case_moved(&mut self) {
        self.toggled.clear();
        self.rerank = None;
        self.opened = None;
        self.panes[GdTab::Blame.index()] = PaneState::default();
        self.panes[GdTab::Change.index()] = PaneState::default();
    }
}

impl App {
    /// Opens the Diff screen on two graphs: the worker starts (the artifact diff, then the
    /// suite's blame); the query box's text, if any, becomes the first case.
    pub fn start_gdiff(&mut self, s: GdStart) -> Vec<Effect> {
        let base = Knobs {
            params: self.params.clone(),
            select: self.select.clone(),
        };
        let (a, b) = s.labels;
        let mut v = GraphDiffView::new(&a, &b, base);
        // count on from the view this one replaces: its worker's answers never match
        v.generation = self.gdiff.as_ref().map_or(0, |o| o.generation);
        v.epoch = v.next_gen();
        v.expected = self.gd_expected.clone();
        let mut fx = vec![Effect::GdStart(s.old, s.new, (a, b), v.epoch)];
        if let Some((suite, label)) = &s.suite {
            v.suite_label = Some(label.clone());
            v.specs = Arc::new(work::suite_specs(suite, &v.base));
            v.cases = vec![None; v.specs.len()];
            v.suite_gen = v.next_gen();
            v.tab = GdTab::Blame;
            fx.push(Effect::Gd(Box::new(GdJob::Suite {
                generation: v.suite_gen,
                cases: v.specs.clone(),
            })));
        }
        self.gdiff = Some(Box::new(v));
        self.screen = Screen::Diff;
        fx.extend(self.gd_query_changed());
        fx
    }

    /// The query box changed: on the Diff screen of two graphs, blame it (the newest text
    /// wins; an empty box removes the case).
    pub fn gd_query_changed(&mut self) -> Vec<Effect> {
        if self.screen != Screen::Diff {
            return Vec::new();
        }
        let text = self.query.text.clone();
        let Some(v) = self.gdiff.as_mut() else {
            return Vec::new();
        };
        if text.trim().is_empty() {
            if v.live.take().is_some() && v.current_ref().is_none() {
                v.cursor = 0;
            }
            return Vec::new();
        }
        let spec = CaseSpec {
            id: "query".into(),
            query: text,
            knobs: v.base.clone(),
            expected: v.expected.clone(),
        };
        let was_current = v.current_ref() == Some(CaseRef::Live) || v.live.is_none();
        let keep = v
            .live
            .as_ref()
            .and_then(|l| l.blamed.clone())
            .filter(|b| b.query == spec.query);
        v.live = Some(LiveCase {
            spec: spec.clone(),
            blamed: keep,
        });
        if was_current {
            v.cursor = 0;
            v.case_moved();
            if v.tab == GdTab::Changes && v.focus == GdFocus::Cases {
                v.tab = GdTab::Blame;
            }
        }
        v.live_gen = v.next_gen();
        vec![Effect::Gd(Box::new(GdJob::Query {
            generation: v.live_gen,
            case: spec,
        }))]
    }

    /// A message of the worker.
    pub fn on_gd(&mut self, m: GdMsg) {
        let Some(v) = self.gdiff.as_mut() else {
            return;
        };
        match m {
            GdMsg::Ready {
                epoch,
                diff,
                groups,
            } if epoch == v.epoch => {
                v.diff = Some(Arc::from(diff));
                v.groups = groups;
            }
            GdMsg::Failed { epoch, message: e } if epoch == v.epoch => {
                let msg = format!("comparing the graphs failed: {}", crate::sanitize::line(&e));
                v.failed = Some(msg.clone());
                self.set_flash(FlashLevel::Error, msg);
            }
            GdMsg::Cases {
                generation,
                start,
                cases,
            } if generation == v.suite_gen => {
                let keep = v.current_ref();
                for (i, c) in cases.into_iter().enumerate() {
                    if let Some(slot) = v.cases.get_mut(start + i) {
                        if slot.is_none() {
                            v.blamed += 1;
                        }
                        *slot = Some(c);
                    }
                }
                // a filtered list grows as cases arrive: the cursor stays on its case
                if let Some(k) = keep
                    && let Some(i) = v.visible().iter().position(|r| *r == k)
                {
                    v.cursor = i;
                }
            }
            GdMsg::Query { generation, case } if generation == v.live_gen => {
                if let Some(l) = v.live.as_mut() {
                    l.blamed = Some(*case);
                }
            }
            GdMsg::Rerank { generation, out } if generation == v.rerank_gen => {
                let note = v.current().map(|c| rerank_note(&v.toggled, c, &out));
                v.rerank = Some((v.toggled.clone(), out));
                if let Some(n) = note {
                    self.set_flash(FlashLevel::Info, n);
                }
            }
            _ => {}
        }
    }

    /// `j`/`k` and paging on the Diff screen of two graphs.
    pub fn gd_move(&mut self, delta: isize) -> Vec<Effect> {
        let drill_h = self
            .layout
            .drill_area
            .map(|r| r.height as usize)
            .unwrap_or(0);
        let max_scroll = self.layout.drill_rows.saturating_sub(drill_h);
        let Some(v) = self.gdiff.as_mut() else {
            return Vec::new();
        };
        let step = |at: usize, n: usize| {
            (at as isize + delta).clamp(0, n.saturating_sub(1) as isize) as usize
        };
        match v.focus {
            GdFocus::Cases => {
                let n = v.visible().len();
                if n > 0 {
                    let i = step(v.cursor, n);
                    if i != v.cursor {
                        v.cursor = i;
                        v.case_moved();
                    }
                }
            }
            GdFocus::Pane => {
                let items = match v.tab {
                    GdTab::Changes => v.tree_items().len(),
                    GdTab::Blame => v.current().map(|c| c.causes.len()).unwrap_or(0),
                    GdTab::Change => 0,
                };
                let p = &mut v.panes[v.tab.index()];
                if items > 0 {
                    p.move_cursor(delta, items);
                } else {
                    p.scroll = step(p.scroll, max_scroll + 1);
                }
            }
        }
        Vec::new()
    }

    /// Tab: the case list or the pane.
    pub fn gd_cycle(&mut self) -> Vec<Effect> {
        if let Some(v) = self.gdiff.as_mut() {
            v.focus = match v.focus {
                GdFocus::Cases => GdFocus::Pane,
                GdFocus::Pane => GdFocus::Cases,
            };
        }
        Vec::new()
    }

    /// `1` `2` `3`: a tab of the pane, focused.
    pub fn gd_tab(&mut self, tab: GdTab) -> Vec<Effect> {
        if let Some(v) = self.gdiff.as_mut() {
            if tab == GdTab::Change && v.opened.is_none() {
                v.opened = v
                    .current()
                    .filter(|c| !c.causes.is_empty())
                    .map(|c| v.panes[GdTab::Blame.index()].cursor.min(c.causes.len() - 1));
            }
            v.tab = tab;
            v.focus = GdFocus::Pane;
        }
        Vec::new()
    }

    /// Enter: from the list into the pane; on a tree branch, open or close it; on a
    /// cause, its change.
    pub fn gd_enter(&mut self) -> Vec<Effect> {
        let Some(v) = self.gdiff.as_mut() else {
            return Vec::new();
        };
        if v.focus == GdFocus::Cases {
            v.focus = GdFocus::Pane;
            if v.tab == GdTab::Changes && v.current_ref().is_some() {
                v.tab = GdTab::Blame;
            }
            return Vec::new();
        }
        match v.tab {
            GdTab::Changes => {
                let at = v.panes[GdTab::Changes.index()].cursor;
                if let Some(it) = v.tree_items().into_iter().nth(at)
                    && it.branch
                    && !v.open.remove(&it.key)
                {
                    v.open.insert(it.key);
                }
            }
            GdTab::Blame => {
                let n = v.current().map(|c| c.causes.len()).unwrap_or(0);
                if n == 0 {
                    self.set_flash(
                        FlashLevel::Info,
                        "no cause to open: this case did not change",
                    );
                    return Vec::new();
                }
                v.opened = Some(v.cause_cursor().min(n - 1));
                v.tab = GdTab::Change;
                v.panes[GdTab::Change.index()] = PaneState::default();
            }
            GdTab::Change => {}
        }
        Vec::new()
    }

    /// Esc: from a change back to the causes, from the pane back to the list, from the
    /// list back to the screen `:diff` was typed on.
    pub fn gd_back(&mut self) -> Vec<Effect> {
        if let Some(v) = self.gdiff.as_mut() {
            match (v.focus, v.tab, v.back) {
                (GdFocus::Pane, GdTab::Change, _) => v.tab = GdTab::Blame,
                (GdFocus::Pane, _, _) => v.focus = GdFocus::Cases,
                (GdFocus::Cases, _, Some(s)) => self.screen = s,
                (GdFocus::Cases, _, None) => {}
            }
        }
        Vec::new()
    }

    /// `c`: only the changed cases, or every case.
    pub fn gd_changed_only(&mut self) -> Vec<Effect> {
        let Some(v) = self.gdiff.as_mut() else {
            return Vec::new();
        };
        let keep = v.current_ref();
        v.changed_only = !v.changed_only;
        let vis = v.visible();
        match keep.and_then(|k| vis.iter().position(|r| *r == k)) {
            Some(i) => v.cursor = i,
            None => {
                v.cursor = 0;
                v.case_moved();
            }
        }
        let msg = if v.changed_only {
            format!("{} changed of {} cases", vis.len(), v.visible_all())
        } else {
            format!("all {} cases", vis.len())
        };
        self.set_flash(FlashLevel::Info, msg);
        Vec::new()
    }

    /// `x`: applies the cause under the cursor to OLD (or takes it back) and re-ranks the
    /// case on the worker.
    pub fn gd_toggle(&mut self) -> Vec<Effect> {
        let Some(v) = self.gdiff.as_mut() else {
            return Vec::new();
        };
        let at = match v.tab {
            GdTab::Change => v.opened,
            _ => Some(v.cause_cursor()),
        };
        let (Some(r), Some(at)) = (v.current_ref(), at) else {
            return Vec::new();
        };
        let Some(c) = v.blamed(r) else {
            return self.warn("this case is still being blamed".into());
        };
        if at >= c.causes.len() {
            return self.warn("no cause to apply: this case did not change".into());
        }
        let label = crate::sanitize::line(&c.causes[at].label);
        match v.toggled.iter().position(|&t| t == at) {
            Some(i) => {
                v.toggled.remove(i);
            }
            None => v.toggled.push(at),
        }
        v.toggled.sort_unstable();
        let Some(spec) = v.spec(r).cloned() else {
            return Vec::new();
        };
        let msg = if v.toggled.contains(&at) {
            format!("OLD + [{}] {label}: re-ranking", at + 1)
        } else {
            format!("[{}] taken back", at + 1)
        };
        if v.toggled.is_empty() {
            v.rerank = None;
            v.rerank_gen = v.next_gen();
            self.set_flash(FlashLevel::Info, format!("{msg}; OLD vs NEW again"));
            return Vec::new();
        }
        let mut groups: Vec<u32> = Vec::new();
        if let Some(c) = v.blamed(r) {
            for &t in &v.toggled {
                groups.extend(c.causes[t].groups.iter().copied());
            }
        }
        v.rerank_gen = v.next_gen();
        let job = GdJob::Rerank {
            generation: v.rerank_gen,
            case: spec,
            groups,
        };
        self.set_flash(FlashLevel::Info, msg);
        vec![Effect::Gd(Box::new(job))]
    }

    /// The Diff screen's commands of two graphs: `1` `2` `3` (tabs) and `x`.
    pub fn gd_run(&mut self, id: crate::tui::commands::CmdId) -> Vec<Effect> {
        use crate::tui::commands::CmdId;
        match id {
            CmdId::GdChanges => self.gd_tab(GdTab::Changes),
            CmdId::GdBlame => self.gd_tab(GdTab::Blame),
            CmdId::GdChange => self.gd_tab(GdTab::Change),
            CmdId::GdToggle => self.gd_toggle(),
            _ => Vec::new(),
        }
    }

    /// `/` without text on the Diff screen of two graphs types a query to blame there.
    pub fn gd_owns_query(&self, arg: Option<&str>) -> bool {
        self.screen == Screen::Diff
            && self.gdiff.is_some()
            && self.gd_load.is_none()
            && arg.is_none()
    }

    /// `/` on the Diff screen of two graphs: type a query to blame.
    pub fn gd_focus_query(&mut self) -> Vec<Effect> {
        self.input_active = true;
        self.query.select_all();
        if let Some(v) = self.gdiff.as_mut() {
            v.focus = GdFocus::Cases;
        }
        Vec::new()
    }

    /// The pane state the Diff screen of two graphs scrolls.
    pub fn gd_pane_mut(&mut self) -> Option<&mut PaneState> {
        let v = self.gdiff.as_mut()?;
        let t = v.tab.index();
        Some(&mut v.panes[t])
    }
}

/// The flash once a re-rank arrives: where the tracked tool stands on OLD with the causes
/// applied, between its OLD and NEW ranks, and what the selector picks there.
fn rerank_note(toggled: &[usize], c: &BlamedCase, out: &Reranked) -> String {
    let tags: String = toggled.iter().map(|i| format!("[{}]", i + 1)).collect();
    let rank = |rows: &[(String, f64)], t: &str| {
        rows.iter()
            .position(|r| r.0 == t)
            .map_or("-".to_string(), |i| (i + 1).to_string())
    };
    let place = match &c.tracked {
        Some(t) => format!(
            "{} at {} (OLD {}, NEW {}); ",
            t,
            rank(&out.rows, t),
            rank(&c.old_rows, t),
            rank(&c.new_rows, t)
        ),
        None => String::new(),
    };
    let sel = if out.selected.is_empty() {
        "nothing"
    } else {
        out.selected.as_str()
    };
    crate::sanitize::line(&format!("OLD + {tags}: {place}selects {sel}"))
}

impl GraphDiffView {
    /// Every case of the list, ignoring the filter.
    fn visible_all(&self) -> usize {
        self.cases.len() + usize::from(self.live.is_some())
    }
}
