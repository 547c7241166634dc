//! `:diff` on graphs, from the palette: `:diff OLD NEW`, or `:diff NEW` against the graph
//! the explorer has loaded. The arguments are checked at once (a missing or special file,
//! a run where a graph is needed: one line naming the file, nothing opened); the graphs
//! are then loaded off the UI thread by the loader of `toolscope OLD NEW`
//! ([`crate::tui::event::load_pair`]) while the Diff screen shows its progress. Esc goes
//! back to the screen `:diff` was typed on (a load still running is dropped); a file that
//! fails to load (truncated JSON, not a graph) is one line naming the file and the place,
//! and that screen comes back.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::GdStart;
use crate::engine::Engine;
use crate::tui::app::{App, Effect, FlashLevel, LoadProgress};
use crate::tui::commands::{self, CmdId, Key};
use crate::tui::screens::Screen;

/// One graph of a pair: a file (or `demo`) to load, or a graph loaded already.
#[derive(Clone)]
pub enum PairSide {
    Path(PathBuf),
    Loaded(Arc<Engine>),
}

/// Two graphs to load for the Diff screen; the answers carry the generation.
#[derive(Clone)]
pub struct PairJob {
    pub generation: u64,
    pub old: PairSide,
    pub new: PairSide,
}

/// What loading a pair gives: OLD, NEW and the loaders' warnings, or one line naming the
/// file that failed and where.
pub type PairLoaded = Result<(Arc<Engine>, Arc<Engine>, Vec<String>), String>;

/// Two graphs being loaded for the Diff screen.
#[derive(Clone, Debug)]
pub struct GdLoad {
    pub generation: u64,
    pub labels: (String, String),
    pub progress: LoadProgress,
    /// The screen `:diff` was typed on: a failed or cancelled load goes back to it.
    pub from: Screen,
    /// Where Esc on the Diff screen goes back to once it is open.
    pub back: Option<Screen>,
}

/// A file's name as the Diff screen labels it.
fn file_label(p: &Path) -> String {
    p.file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string())
}

/// A path argument of `:diff` as a side to load; a missing, special or folder path is
/// refused here, naming it.
fn path_side(arg: &str) -> Result<(PairSide, String), String> {
    let p = PathBuf::from(arg);
    if arg == "demo" {
        return Ok((PairSide::Path(p), crate::demo::DEMO_NAME.to_string()));
    }
    if p.is_dir() {
        return Err(format!(
            "{}: a folder, not a graph (two fixture folders: :diff A B)",
            crate::sanitize::path(&p)
        ));
    }
    crate::limits::open_regular(&p).map_err(|e| e.to_string())?;
    let label = file_label(&p);
    Ok((PairSide::Path(p), label))
}

/// The commands that work while the Diff screen loads its pair (the footer offers only
/// these): back, the palette, help, saving the screen, the theme and quitting.
pub fn works_while_loading(id: CmdId) -> bool {
    matches!(
        id,
        CmdId::Back
            | CmdId::Quit
            | CmdId::ForceQuit
            | CmdId::Help
            | CmdId::Palette
            | CmdId::Save
            | CmdId::ThemeCycle
    )
}

impl App {
    /// `:diff OLD NEW` on two graphs, or `:diff NEW` (`old` None) against the loaded
    /// graph: checks the arguments, opens the Diff screen on the load's progress and asks
    /// the runtime to load the pair.
    pub fn gd_open(&mut self, old: Option<&str>, new: &str) -> Vec<Effect> {
        let old = match old {
            Some(a) => path_side(a),
            None => match &self.engine {
                Some(e) => Ok((PairSide::Loaded(e.clone()), self.loaded_label(e))),
                None => Err(
                    ":diff NEW compares a graph with the loaded one, and no graph \
                             is loaded: :diff OLD NEW"
                        .to_string(),
                ),
            },
        };
        let (old, new) = match old.and_then(|o| Ok((o, path_side(new)?))) {
            Ok(x) => x,
            Err(e) => {
                self.set_flash(FlashLevel::Error, crate::sanitize::line(&e));
                return Vec::new();
            }
        };
        self.gd_loads += 1;
        let back = if self.screen == Screen::Diff {
            self.gdiff.as_ref().and_then(|v| v.back)
        } else {
            Some(self.screen)
        };
        let labels = (old.1, new.1);
        self.set_flash(
            FlashLevel::Info,
            format!(
                "loading {} and {} (Esc goes back)",
                crate::sanitize::line(&labels.0),
                crate::sanitize::line(&labels.1)
            ),
        );
        self.gd_load = Some(GdLoad {
            generation: self.gd_loads,
            labels,
            progress: LoadProgress {
                phase: "starting".into(),
                fraction: 0.0,
                detail: String::new(),
            },
            from: self.screen,
            back,
        });
        self.screen = Screen::Diff;
        self.input_active = false;
        vec![Effect::GdLoad(Box::new(PairJob {
            generation: self.gd_loads,
            old: old.0,
            new: new.0,
        }))]
    }

    /// The label of the loaded graph: its file's name.
    fn loaded_label(&self, e: &Engine) -> String {
        let src = &e.graph.info.source;
        if src.is_empty() {
            return self.source_label.clone();
        }
        file_label(Path::new(src))
    }

    /// The pair is being loaded: `p` is the loader's progress.
    pub fn on_gd_load_progress(&mut self, generation: u64, p: LoadProgress) {
        if let Some(l) = self.gd_load.as_mut().filter(|l| l.generation == generation) {
            l.progress = p;
        }
    }

    /// The pair loaded (or failed): the Diff screen starts on it, or the screen `:diff`
    /// was typed on comes back with the error. An answer to a load that was cancelled or
    /// replaced is dropped.
    pub fn on_gd_loaded(&mut self, generation: u64, res: PairLoaded) -> Vec<Effect> {
        if self.gd_load.as_ref().map(|l| l.generation) != Some(generation) {
            return Vec::new();
        }
        let Some(load) = self.gd_load.take() else {
            return Vec::new();
        };
        let here = self.screen;
        match res {
            Ok((old, new, warnings)) => {
                let fx = self.start_gdiff(GdStart {
                    old,
                    new,
                    suite: None,
                    labels: load.labels.clone(),
                });
                if let Some(v) = self.gdiff.as_mut() {
                    v.back = load.back;
                }
                // the load's own message is stale now
                self.flash = None;
                if here != Screen::Diff {
                    // the user went elsewhere meanwhile: the screen waits for them
                    self.screen = here;
                    self.set_flash(
                        FlashLevel::Info,
                        "the Diff screen of the two graphs is ready (:diff shows it)",
                    );
                } else if let Some(w) = warnings.first() {
                    let more = warnings.len() - 1;
                    let w = crate::sanitize::line(w);
                    self.set_flash(
                        FlashLevel::Warn,
                        if more > 0 {
                            format!("{w} (+{more} more)")
                        } else {
                            w
                        },
                    );
                }
                fx
            }
            Err(e) => {
                if here == Screen::Diff {
                    self.screen = load.from;
                }
                self.set_flash(FlashLevel::Error, crate::sanitize::line(&e));
                Vec::new()
            }
        }
    }

    /// The Diff screen shows a pair being loaded.
    pub fn gd_loading_here(&self) -> bool {
        self.screen == Screen::Diff && self.gd_load.is_some()
    }

    /// Esc while the pair loads: back to where `:diff` was typed; the load's answer will
    /// be dropped.
    pub fn gd_load_cancel(&mut self) -> Vec<Effect> {
        if let Some(l) = self.gd_load.take() {
            self.screen = l.from;
            self.set_flash(
                FlashLevel::Info,
                format!(
                    "stopped waiting for {} and {}",
                    crate::sanitize::line(&l.labels.0),
                    crate::sanitize::line(&l.labels.1)
                ),
            );
        }
        Vec::new()
    }

    /// A key while the Diff screen loads its pair: Esc goes back, the palette, help,
    /// saving the screen, the theme and quitting work; any other key says what is
    /// happening.
    pub fn gd_loading_key(&mut self, key: Key) -> Vec<Effect> {
        let ctx = self.ctx();
        match commands::lookup(self, key, ctx) {
            Some(c) if works_while_loading(c.id) => self.run(c.id, None),
            _ => {
                let back = commands::keys_in(
                    &self.keys,
                    commands::get(CmdId::Back),
                    commands::DIFF,
                    self.caps.glyphs(),
                );
                let hint = match back.first() {
                    Some(k) => format!("still loading the two graphs ({k} goes back)"),
                    None => "still loading the two graphs".to_string(),
                };
                self.set_flash(FlashLevel::Info, hint);
                Vec::new()
            }
        }
    }

    /// `:diff` with two arguments, or one: two graphs (or one against the loaded graph)
    /// load for the Diff screen; two runs open side by side.
    pub fn gd_diff_args(&mut self, parts: &[&str]) -> Vec<Effect> {
        use crate::sniff::{Pair, Side};
        match parts {
            [new] => match crate::sniff::side_of(new) {
                Side::Run => self.warn(format!(
                    "{}: captured runs, not a graph (:diff NEW compares a graph with the \
                     loaded one; two runs: :diff A B)",
                    crate::sanitize::line(new)
                )),
                _ => self.gd_open(None, new),
            },
            [a, b] => match crate::sniff::pair(a, b) {
                Pair::Graphs => self.gd_open(Some(a), b),
                Pair::Runs => {
                    self.runs_diff(a, b);
                    Vec::new()
                }
                Pair::Mixed { graph } => {
                    let (g, other) = if graph == 0 { (a, b) } else { (b, a) };
                    self.warn(format!(
                        "{} is a graph but {} is not: :diff compares two graphs, or two runs",
                        crate::sanitize::line(g),
                        crate::sanitize::line(other)
                    ))
                }
            },
            _ => self.warn(
                ":diff OLD NEW (two graphs), :diff NEW (a graph against the loaded one) or \
                 :diff A B (two runs)"
                    .into(),
            ),
        }
    }
}
