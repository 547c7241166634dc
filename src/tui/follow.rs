//! The Follow screen's state and commands: a growing JSON Lines file of production
//! evidence (`toolscope [GRAPH] FILE --follow`, `:follow FILE`) tailed on its own thread
//! (`event::spawn_follow`: `lab::tail` + `lab::follow`), each record classified and, with
//! a graph, replayed; the list moves with new records unless paused (`space`: the counters
//! go on), filters by class (`c`), tool (`t`), reason code (`r`), drift (`d`) and text
//! (`:grep TEXT`), and Enter opens a record in Explore with its query, its parameters and
//! the Why-not pane on the tool its class is about (Esc comes back to the stream where it
//! was). A record the ring no longer keeps is read again from the file by its byte offset
//! (`o`, `:offset BYTE`) and opened the same way. The view is `views/follow.rs`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::app::{App, Effect, FlashLevel, MAX_DEPTH, MAX_TOP_K, PaneId, PaneState};
use super::screens::Screen;
use crate::lab::follow::{Entry, Filter, Stream, classes, classes_seen};
pub use crate::lab::follow::{FollowJob, FollowMsg, FollowReader};
use crate::lab::tail::TailEvent;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FollowFocus {
    List,
    Detail,
}

#[derive(Debug)]
pub struct FollowView {
    pub label: String,
    pub path: PathBuf,
    pub stream: Stream,
    pub filter: Filter,
    /// The record under the cursor (by sequence number); `None`: the newest one, and the
    /// list moves with the stream.
    pub cursor: Option<u64>,
    /// While paused, the last record the list shows.
    pub paused: Option<u64>,
    /// A record read again by its offset (`:offset`): shown and opened instead of the one
    /// under the cursor until the cursor moves.
    pub pinned: Option<Entry>,
    pub focus: FollowFocus,
    pub pane: PaneState,
    pub now_ms: u64,
    pub missing: Option<String>,
    pub rotations: u32,
    pub truncations: u32,
    /// Rotations that cut a last line short.
    pub torn: u32,
    pub behind: u64,
    /// Whether records are replayed (a graph was loaded when following started).
    pub replaying: bool,
    pub generation: u64,
    pub stop: Arc<AtomicBool>,
}

impl Drop for FollowView {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl FollowView {
    /// Positions in the ring of the records the list shows, oldest first.
    pub fn visible(&self) -> Vec<usize> {
        self.stream
            .ring
            .iter()
            .enumerate()
            .filter(|(_, e)| self.paused.is_none_or(|p| e.seq <= p))
            .filter(|(_, e)| self.filter.matches(e))
            .map(|(i, _)| i)
            .collect()
    }

    /// The cursor's place in `vis`.
    pub fn cursor_pos(&self, vis: &[usize]) -> Option<usize> {
        if vis.is_empty() {
            return None;
        }
        match self.cursor {
            None => Some(vis.len() - 1),
            Some(seq) => Some(
                vis.iter()
                    .position(|&i| self.stream.ring[i].seq >= seq)
                    .unwrap_or(vis.len() - 1),
            ),
        }
    }

    pub fn current(&self) -> Option<&Entry> {
        if let Some(e) = &self.pinned {
            return Some(e);
        }
        let vis = self.visible();
        let p = self.cursor_pos(&vis)?;
        self.stream.ring.get(vis[p])
    }

    /// Records that arrived after the pause.
    pub fn unseen(&self) -> u64 {
        match (self.paused, self.stream.ring.back()) {
            (Some(p), Some(last)) => last.seq.saturating_sub(p),
            _ => 0,
        }
    }
}

impl App {
    /// `:follow FILE` and `--follow`: starts tailing `path` (replacing a follow under way).
    pub fn start_follow(&mut self, path: &Path) -> Vec<Effect> {
        self.follow_generation += 1;
        let stop = Arc::new(AtomicBool::new(false));
        let label = path
            .file_name()
            .map(|f| crate::sanitize::line(&f.to_string_lossy()))
            .unwrap_or_else(|| crate::sanitize::line(&path.display().to_string()));
        self.follow = Some(FollowView {
            label,
            path: path.to_path_buf(),
            stream: Stream::new(),
            filter: Filter::default(),
            cursor: None,
            paused: None,
            pinned: None,
            focus: FollowFocus::List,
            pane: PaneState::default(),
            now_ms: 0,
            missing: None,
            rotations: 0,
            truncations: 0,
            torn: 0,
            behind: 0,
            replaying: self.engine.is_some(),
            generation: self.follow_generation,
            stop: stop.clone(),
        });
        self.screen = Screen::Follow;
        self.input_active = false;
        self.return_to = None;
        vec![Effect::Follow(Box::new(FollowJob {
            generation: self.follow_generation,
            path: path.to_path_buf(),
            stop,
        }))]
    }

    pub fn on_follow(&mut self, m: FollowMsg) {
        let Some(f) = self.follow.as_mut() else {
            return;
        };
        if m.generation != f.generation {
            return;
        }
        f.now_ms = m.now_ms;
        f.behind = m.behind;
        for n in m.notes {
            match n {
                TailEvent::Missing(why) => f.missing = Some(why),
                TailEvent::Appeared => f.missing = None,
                TailEvent::Rotated { torn } => {
                    f.rotations += 1;
                    f.torn += u32::from(torn);
                }
                TailEvent::Truncated => f.truncations += 1,
                TailEvent::Line { .. } | TailEvent::Overlong { .. } => {}
            }
        }
        for e in m.entries {
            f.stream.push(e);
        }
    }

    fn follow_view(&mut self) -> Option<&mut FollowView> {
        self.follow.as_mut()
    }

    /// `:follow FILE` follows a file; `:follow` alone shows the stream followed last.
    pub fn screen_follow(&mut self, arg: Option<&str>) -> Vec<Effect> {
        match arg {
            Some(p) => {
                let path = PathBuf::from(p);
                if path.is_dir() {
                    return self.warn(format!(
                        "{}: a folder; follow a JSON Lines file",
                        crate::sanitize::line(p)
                    ));
                }
                self.start_follow(&path)
            }
            None if self.follow.is_some() => {
                self.screen = Screen::Follow;
                self.input_active = false;
                Vec::new()
            }
            None => self.warn("nothing followed yet: :follow FILE tails a JSON Lines file".into()),
        }
    }

    /// `space`: pause the list (the counters go on) or go on.
    pub fn follow_pause(&mut self) -> Vec<Effect> {
        let Some(f) = self.follow_view() else {
            return Vec::new();
        };
        let msg = match f.paused.take() {
            Some(_) => {
                f.cursor = None;
                "following again: the list moves with new records".to_string()
            }
            None => {
                let last = f.stream.ring.back().map(|e| e.seq).unwrap_or(0);
                f.paused = Some(last);
                if f.cursor.is_none() {
                    f.cursor = Some(last);
                }
                "paused: the list holds still, the counters go on (space: go on)".to_string()
            }
        };
        self.set_flash(FlashLevel::Info, msg);
        Vec::new()
    }

    /// Moves the cursor by `delta` records; past the newest, the list follows again.
    pub fn follow_move(&mut self, delta: isize) {
        let Some(f) = self.follow.as_mut() else {
            return;
        };
        if f.focus == FollowFocus::Detail {
            let max = self.layout.drill_rows.saturating_sub(
                self.layout
                    .drill_area
                    .map(|r| r.height as usize)
                    .unwrap_or(0),
            );
            let p = &mut f.pane;
            p.scroll = if delta < 0 {
                p.scroll.saturating_sub(delta.unsigned_abs())
            } else {
                p.scroll.saturating_add(delta as usize).min(max)
            };
            return;
        }
        f.pinned = None;
        let vis = f.visible();
        let Some(pos) = f.cursor_pos(&vis) else {
            return;
        };
        let n = vis.len() as isize;
        let to = (pos as isize).saturating_add(delta).clamp(0, n - 1) as usize;
        f.cursor = if to + 1 == vis.len() && f.paused.is_none() && delta > 0 {
            None
        } else {
            Some(f.stream.ring[vis[to]].seq)
        };
        f.pane = PaneState::default();
    }

    /// `c` / `:class NAME`: one class at a time (the next class with records), `all` clears.
    pub fn follow_class(&mut self, arg: Option<&str>) -> Vec<Effect> {
        let Some(f) = self.follow.as_mut() else {
            return Vec::new();
        };
        let with: Vec<&'static str> = classes_seen(&f.stream.total)
            .into_iter()
            .map(|(_, c)| c)
            .collect();
        let next = match arg {
            Some("all") => None,
            Some(a) => match classes().find(|c| *c == a) {
                Some(c) => Some(c),
                None => {
                    let names: Vec<&str> = classes().collect();
                    return self.warn(format!(
                        "no class {}: {} or all",
                        crate::sanitize::line(a),
                        names.join(", ")
                    ));
                }
            },
            None => {
                let i = f
                    .filter
                    .class
                    .and_then(|c| with.iter().position(|x| *x == c));
                match i {
                    None => with.first().copied(),
                    Some(i) => with.get(i + 1).copied(),
                }
            }
        };
        f.filter.class = next;
        self.follow_filtered()
    }

    /// `t` / `:tool NAME`: only the records that name the tool under the cursor (again:
    /// every tool).
    pub fn follow_tool(&mut self, arg: Option<&str>) -> Vec<Effect> {
        let Some(f) = self.follow.as_mut() else {
            return Vec::new();
        };
        f.filter.tool = match arg {
            Some("all") => None,
            Some(a) => Some(a.to_string()),
            None if f.filter.tool.is_some() => None,
            None => match f
                .current()
                .and_then(|e| e.about.clone().or(e.target.clone()))
            {
                Some(t) => Some(t),
                None => return self.warn("the record under the cursor names no tool".into()),
            },
        };
        self.follow_filtered()
    }

    /// `r` / `:code CODE`: only the records with a reason code (the next code seen;
    /// `all` clears).
    pub fn follow_code(&mut self, arg: Option<&str>) -> Vec<Effect> {
        let Some(f) = self.follow.as_mut() else {
            return Vec::new();
        };
        let codes: Vec<String> = f
            .stream
            .total
            .codes
            .iter()
            .filter(|(c, _)| c != "(other)")
            .map(|(c, _)| c.clone())
            .collect();
        f.filter.code = match arg {
            Some("all") => None,
            Some(a) => Some(a.to_string()),
            None => {
                let i = f
                    .filter
                    .code
                    .as_ref()
                    .and_then(|c| codes.iter().position(|x| x == c));
                match i {
                    None => codes.first().cloned(),
                    Some(i) => codes.get(i + 1).cloned(),
                }
            }
        };
        self.follow_filtered()
    }

    /// `d`: only drifted records (with a graph), or all.
    pub fn follow_drifted(&mut self) -> Vec<Effect> {
        let Some(f) = self.follow.as_mut() else {
            return Vec::new();
        };
        if !f.replaying {
            return self.warn(
                "no graph: records are not replayed (toolscope GRAPH FILE --follow replays them)"
                    .into(),
            );
        }
        f.filter.drifted = !f.filter.drifted;
        self.follow_filtered()
    }

    /// `:grep TEXT`: only records whose query, id or tools contain TEXT (`:grep` alone
    /// clears it).
    pub fn follow_text(&mut self, arg: Option<&str>) -> Vec<Effect> {
        let Some(f) = self.follow.as_mut() else {
            return Vec::new();
        };
        f.filter.text = arg.map(str::to_string);
        self.follow_filtered()
    }

    /// `x`: every record again.
    pub fn follow_unfilter(&mut self) -> Vec<Effect> {
        let Some(f) = self.follow.as_mut() else {
            return Vec::new();
        };
        if f.filter.is_empty() {
            return self.warn("no filter to clear".into());
        }
        f.filter = Filter::default();
        self.follow_filtered()
    }

    fn follow_filtered(&mut self) -> Vec<Effect> {
        let Some(f) = self.follow.as_mut() else {
            return Vec::new();
        };
        let keep = f.cursor;
        f.pinned = None;
        let vis = f.visible();
        // the cursor stays on its record when it is still shown
        f.cursor = keep.filter(|s| vis.iter().any(|&i| f.stream.ring[i].seq == *s));
        f.pane = PaneState::default();
        let what = f.filter.describe();
        let msg = if what.is_empty() {
            format!("every record ({} kept)", vis.len())
        } else {
            format!(
                "{} of {}: {what}",
                vis.len(),
                crate::output::text::count(f.stream.ring.len() as u64, "kept record")
            )
        };
        self.set_flash(FlashLevel::Info, msg);
        Vec::new()
    }

    /// `:offset BYTE` (`o`): reads the record at that byte of the followed file again (one
    /// the ring no longer keeps, or any other), classifies it (and replays it with a
    /// graph) as it did when it arrived, shows it in the Record pane and, with a graph,
    /// opens it in Explore as Enter does.
    pub fn follow_offset(&mut self, arg: &str) -> Vec<Effect> {
        let Some(f) = self.follow.as_ref() else {
            return Vec::new();
        };
        let Ok(offset) = arg.trim().replace(['_', ','], "").parse::<u64>() else {
            return self.warn(format!(
                "offset {}: give a byte offset, as a record's \"at byte\" says",
                crate::sanitize::line(arg)
            ));
        };
        let got = match crate::lab::tail::read_line_at(&f.path, offset) {
            Ok(l) => l,
            Err(e) => return self.warn(crate::sanitize::line(&e)),
        };
        let at = crate::lab::follow::At {
            seq: 0,
            file_gen: f.rotations + 1,
            line: got.line,
            offset,
            at_ms: f.now_ms,
        };
        let e = crate::lab::follow::classify_line(self.engine.as_deref(), &got.text, got.utf8, at);
        let what = format!("line {} at byte {offset}, read again", got.line);
        if let Some(f) = self.follow.as_mut() {
            f.pinned = Some(e);
            f.pane = PaneState::default();
        }
        if self.engine.is_some() {
            return self.follow_open();
        }
        self.set_flash(
            FlashLevel::Info,
            format!("{what}: in the Record pane (opening it in Explore needs a graph)"),
        );
        Vec::new()
    }

    /// Enter: the record under the cursor in Explore, with its query and parameters and
    /// the Why-not pane on the tool its class is about; Esc comes back.
    pub fn follow_open(&mut self) -> Vec<Effect> {
        let Some(f) = self.follow.as_ref() else {
            return Vec::new();
        };
        let Some(e) = f.current().cloned() else {
            return self.warn("no record yet".into());
        };
        if self.engine.is_none() {
            // said at the first Enter (the Record pane below shows the record already)
            return self.warn(
                "no graph: opening a record in Explore needs one (toolscope GRAPH FILE --follow); \
                 Tab moves to the Record pane"
                    .into(),
            );
        }
        let Some(query) = e.query.clone().filter(|q| !q.contains("[REDACTED")) else {
            return self.warn(format!(
                "{}: no query text recorded (scrubbed or absent): nothing to run",
                crate::sanitize::line(&e.id)
            ));
        };
        let kept = self.take_recorded_knobs(&e);
        self.screen = Screen::Explore;
        self.return_to = Some(Screen::Follow);
        self.lab_case = Some(format!("line {}", e.line));
        self.focus = PaneId::Candidates;
        self.zoom = false;
        self.demo.pos = None;
        self.query.set(&crate::sanitize::line(&query));
        self.input_active = false;
        self.row = 0;
        let about = e.about.clone().or(e.target.clone());
        self.set_expected(about.iter().cloned().collect());
        if about.is_some() {
            self.drill = PaneId::WhyNot;
        }
        self.set_flash(
            FlashLevel::Info,
            format!(
                "{} (line {}): {}{}{kept}; Esc goes back to the stream",
                crate::sanitize::line(&e.id),
                e.line,
                e.class,
                about
                    .map(|a| format!(" for {} ({})", crate::sanitize::line(&a), e.basis.name()))
                    .unwrap_or_default()
            ),
        );
        vec![self.requery(false)]
    }

    /// Takes the record's parameters into the explorer's, except those recorded without
    /// a usable value (redacted): the explorer keeps its own for them, and the returned
    /// note (empty when none) says which.
    fn take_recorded_knobs(&mut self, e: &Entry) -> String {
        let Some(k) = &e.knobs else {
            return String::new();
        };
        let unknown = |n: &str| e.unknown_params.iter().any(|(x, _)| x == n);
        let (mut p, mut s) = (k.params.clone(), k.select.clone());
        let (mine, my_sel) = (&self.params, &self.select);
        if unknown("top_k") {
            p.top_k = mine.top_k;
        }
        if unknown("depth") {
            p.depth = mine.depth;
        }
        if unknown("token_budget") {
            p.token_budget = mine.token_budget;
        }
        if unknown("history") {
            p.history = mine.history.clone();
        }
        if unknown("learning_suggestions") {
            p.learning_suggestions = mine.learning_suggestions.clone();
        }
        if unknown("llm_target") {
            s.llm_target = my_sel.llm_target.clone();
        }
        if unknown("policy") {
            s.policy = my_sel.policy.clone();
        }
        p.top_k = p.top_k.clamp(1, MAX_TOP_K);
        p.depth = p.depth.min(MAX_DEPTH);
        self.params = p;
        self.select = s;
        if e.unknown_params.is_empty() {
            return String::new();
        }
        let names: Vec<&str> = e.unknown_params.iter().map(|(n, _)| n.as_str()).collect();
        format!(
            "; {} not recorded, the explorer's own kept",
            names.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::follow::{At, classify_line};

    const SEL: &str = r#"{"id":"r1","query":"get user","results":[{"name":"getUser","score":1.0}],"target_selector":{"selected_target":"getUser","llm_target":null,"overrode_llm":false,"ambiguous":false,"reason_codes":["x"]}}"#;

    fn app_following() -> App {
        let mut app = App::new(
            crate::tui::caps::Caps::detect(
                &crate::tui::caps::EnvProbe::default(),
                &Default::default(),
            ),
            "t",
        );
        let fx = app.start_follow(Path::new("/nonexistent/log.jsonl"));
        assert!(matches!(fx.as_slice(), [Effect::Follow(_)]));
        app
    }

    fn msg(app: &App, lines: &[&str], from: u64) -> FollowMsg {
        FollowMsg {
            generation: app.follow_generation,
            entries: lines
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    let seq = from + i as u64;
                    classify_line(
                        None,
                        l,
                        true,
                        At {
                            seq,
                            file_gen: 1,
                            line: seq,
                            offset: 0,
                            at_ms: 0,
                        },
                    )
                })
                .collect(),
            notes: Vec::new(),
            now_ms: 500,
            behind: 0,
        }
    }

    #[test]
    fn pause_holds_the_list_while_counting_and_filters_keep_the_cursor() {
        let mut app = app_following();
        let m = msg(&app, &[SEL, SEL, "junk"], 1);
        app.on_follow(m);
        let f = app.follow.as_ref().unwrap();
        assert_eq!(f.current().unwrap().seq, 3, "the newest record");
        app.follow_pause();
        let m = msg(&app, &[SEL, SEL], 4);
        app.on_follow(m);
        let f = app.follow.as_ref().unwrap();
        assert_eq!(f.visible().len(), 3, "paused: the list holds still");
        assert_eq!(f.stream.total.records, 5, "…and the counters go on");
        assert_eq!(f.unseen(), 2);
        app.follow_pause();
        assert_eq!(app.follow.as_ref().unwrap().visible().len(), 5);
        app.follow_class(Some("unreadable"));
        let f = app.follow.as_ref().unwrap();
        assert_eq!(f.visible().len(), 1);
        assert_eq!(f.current().unwrap().class, "unreadable");
        app.follow_class(Some("nonsense"));
        assert!(
            app.flash
                .as_ref()
                .unwrap()
                .text
                .starts_with("no class nonsense")
        );
        app.follow_unfilter();
        app.follow_move(-2);
        assert_eq!(app.follow.as_ref().unwrap().current().unwrap().seq, 3);
        app.follow_move(10);
        assert_eq!(app.follow.as_ref().unwrap().cursor, None, "following again");
        // a stale generation is dropped
        let mut old = msg(&app, &[SEL], 6);
        old.generation = 0;
        app.on_follow(old);
        assert_eq!(app.follow.as_ref().unwrap().stream.total.records, 5);
        // without a graph the first Enter says that opening a record needs one
        app.follow_open();
        assert!(app.flash.as_ref().unwrap().text.starts_with("no graph"));
        assert_eq!(app.follow.as_ref().unwrap().focus, FollowFocus::List);
    }
}
