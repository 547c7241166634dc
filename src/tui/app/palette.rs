//! The command palette: its keys, what Enter runs, and the list it shows (commands by fuzzy
//! match, or the values of the command being given an argument: tool names, policies,
//! themes, knobs, metrics, trace stages, walkthrough steps).

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;
use ratatui::crossterm::event::{KeyCode, KeyModifiers};

use crate::tui::commands::{self, Arg, CmdId, Key};
use crate::tui::theme::ThemeKind;

use super::{App, BUDGETS, Effect, FlashLevel, Overlay, POLICIES, PaletteItem, clean};

impl App {
    pub(super) fn palette_key(&mut self, key: Key) -> Vec<Effect> {
        let items = self.palette_items();
        let Overlay::Palette(p) = &mut self.overlay else {
            return Vec::new();
        };
        let ctrl = key.mods.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => self.overlay = Overlay::None,
            KeyCode::Down => p.selected = (p.selected + 1).min(items.len().saturating_sub(1)),
            KeyCode::Up => p.selected = p.selected.saturating_sub(1),
            KeyCode::Tab => {
                // complete the highlighted entry into the input
                if let Some(it) = items.get(p.selected) {
                    match it {
                        PaletteItem::Command(id) => {
                            let c = commands::get(*id);
                            p.input.set(&format!(
                                "{}{}",
                                c.name,
                                if c.arg == Arg::None { "" } else { " " }
                            ));
                        }
                        PaletteItem::Value { cmd, value } => {
                            p.input
                                .set(&format!("{} {}", commands::get(*cmd).name, value));
                        }
                    }
                    p.selected = 0;
                }
            }
            KeyCode::Backspace => {
                p.input.backspace();
                p.selected = 0;
            }
            KeyCode::Left => p.input.cursor = p.input.cursor.saturating_sub(1),
            KeyCode::Right => p.input.cursor = (p.input.cursor + 1).min(p.input.len()),
            KeyCode::Char('u') if ctrl => {
                p.input.kill_to_start();
                p.selected = 0;
            }
            KeyCode::Char('w') if ctrl => {
                p.input.delete_word();
                p.selected = 0;
            }
            KeyCode::Char(c) if !ctrl && !c.is_control() => {
                p.input.insert(c);
                p.selected = 0;
            }
            KeyCode::Enter => {
                let text = p.input.text.clone();
                let chosen = items.get(p.selected).cloned();
                return self.palette_accept(&text, chosen);
            }
            _ => {}
        }
        Vec::new()
    }

    fn palette_accept(&mut self, text: &str, chosen: Option<PaletteItem>) -> Vec<Effect> {
        let text = text.trim();
        let (word, rest) = match text.split_once(' ') {
            Some((w, r)) => (w, Some(r.trim())),
            None => (text, None),
        };
        // an exact command name runs with its argument
        if let Some(c) = commands::by_name(word) {
            let arg_given = rest.filter(|r| !r.is_empty());
            if let (Some(a), Some(PaletteItem::Value { cmd, value })) = (arg_given, &chosen)
                && *cmd == c.id
                && value.to_lowercase().contains(&a.to_lowercase())
            {
                return self.palette_run(c.id, Some(value.clone()));
            }
            return self.palette_run(c.id, arg_given.map(String::from));
        }
        match chosen {
            Some(PaletteItem::Command(id)) => self.palette_run(id, None),
            Some(PaletteItem::Value { cmd, value }) => self.palette_run(cmd, Some(value)),
            None => {
                self.overlay = Overlay::None;
                self.warn(format!("no command matches {:?}", clean(text)))
            }
        }
    }

    fn palette_run(&mut self, id: CmdId, arg: Option<String>) -> Vec<Effect> {
        self.overlay = Overlay::None;
        let c = commands::get(id);
        if arg.is_some() && c.arg == Arg::None {
            return self.warn(format!(":{} takes no argument", c.name));
        }
        let explicit = arg.is_some() && matches!(id, CmdId::TopKUp | CmdId::DepthUp);
        if let Some(why) = (c.enabled)(self)
            && !explicit
        {
            return self.warn(format!("{}: {why}", c.label));
        }
        if id == CmdId::LlmType && arg.is_none() {
            // `:llm` alone unsets the target
            self.select.llm_target = None;
            self.set_flash(FlashLevel::Info, "LLM target unset");
            return vec![self.requery(true)];
        }
        self.run(id, arg.as_deref())
    }

    /// The palette list for the current input: commands (fuzzy), or values of the
    /// command being given an argument (tool names, policies, themes).
    pub fn palette_items(&self) -> Vec<PaletteItem> {
        let Overlay::Palette(p) = &self.overlay else {
            return Vec::new();
        };
        palette_items_for(self, &p.input.text)
    }
}

/// Maximum values listed for a command argument.
const MAX_VALUES: usize = 60;

pub fn palette_items_for(app: &App, text: &str) -> Vec<PaletteItem> {
    let matcher = SkimMatcherV2::default().ignore_case();
    if let Some((word, rest)) = text.split_once(' ')
        && let Some(c) = commands::by_name(word)
    {
        let values: Vec<String> = match c.id {
            CmdId::LlmType | CmdId::HistoryAdd => tool_values(app, rest.trim(), &matcher),
            CmdId::PolicyCycle => POLICIES.iter().map(|s| s.to_string()).collect(),
            CmdId::ThemeCycle => ThemeKind::ALL.iter().map(|t| t.as_str().into()).collect(),
            CmdId::DemoNext => app
                .demo
                .steps
                .iter()
                .enumerate()
                .map(|(i, s)| format!("{} {}", i + 1, s.query))
                .collect(),
            CmdId::ExplainMetric => crate::tui::drill::Metric::ALL
                .iter()
                .map(|m| m.id().to_string())
                .collect(),
            CmdId::TraceStage => std::iter::once("all".to_string())
                .chain(app.trace_stages())
                .collect(),
            CmdId::CfKnob => crate::evidence::knobs::KNOBS
                .iter()
                .map(|k| k.to_string())
                .collect(),
            CmdId::CfType => cf_values(app, rest.trim()),
            CmdId::LabSort => crate::tui::screens::LabSort::ALL
                .iter()
                .map(|s| s.name().to_string())
                .collect(),
            _ => Vec::new(),
        };
        let rest = rest.trim();
        let mut scored: Vec<(i64, usize, String)> = values
            .into_iter()
            .enumerate()
            .filter_map(|(i, v)| {
                if rest.is_empty() {
                    Some((0, i, v))
                } else {
                    matcher.fuzzy_match(&v, rest).map(|s| (s, i, v))
                }
            })
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        return scored
            .into_iter()
            .take(MAX_VALUES)
            .map(|(_, _, v)| {
                let value = if c.id == CmdId::DemoNext {
                    v.split(' ').next().unwrap_or("").to_string()
                } else {
                    v
                };
                PaletteItem::Value { cmd: c.id, value }
            })
            .collect();
    }
    let pat = text.trim();
    let mut scored: Vec<(i64, usize, CmdId)> = commands::REGISTRY
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            if pat.is_empty() {
                return Some((0, i, c.id));
            }
            let hay = format!("{} {}", c.name, c.label);
            matcher.fuzzy_match(&hay, pat).map(|s| {
                let bonus = if c.name.starts_with(pat) { 1000 } else { 0 };
                (s + bonus, i, c.id)
            })
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored
        .into_iter()
        .map(|(_, _, id)| PaletteItem::Command(id))
        .collect()
}

/// `knob=value` suggestions for `:cf`: the typed knob's values (the selected knob's when
/// none is typed yet).
fn cf_values(app: &App, typed: &str) -> Vec<String> {
    use crate::evidence::knobs::KNOBS;
    let Some(base) = crate::tui::drill::base_knobs(app) else {
        return Vec::new();
    };
    let knob = typed
        .split_once('=')
        .map(|(k, _)| k.trim())
        .and_then(|k| KNOBS.iter().find(|x| **x == k).copied())
        .unwrap_or(KNOBS[app.cf.knob]);
    let vals: Vec<serde_json::Value> = match knob {
        "top_k" => [1u64, 3, 5, 10, 20, 50]
            .map(serde_json::Value::from)
            .to_vec(),
        "depth" => (0u64..=4).map(serde_json::Value::from).collect(),
        "token_budget" => BUDGETS.iter().map(|b| (*b as u64).into()).collect(),
        _ => crate::tui::drill::knob_values(app, knob, &base),
    };
    vals.iter()
        .map(|v| {
            let text = match v {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Object(_) => crate::tui::drill::show_value(v),
                other => other.to_string(),
            };
            format!("{knob}={text}")
        })
        .collect()
}

/// Tool names for `:llm`/`:history`: the candidates first, then the graph's tools.
fn tool_values(app: &App, pat: &str, matcher: &SkimMatcherV2) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if let Some(r) = app.retrieval() {
        for row in &r.rows {
            out.push(row.name.clone());
        }
    }
    if let Some(e) = &app.engine {
        let mut extra: Vec<(i64, &str)> = Vec::new();
        for t in &e.graph.tools {
            if out.contains(&t.name) {
                continue;
            }
            if pat.is_empty() {
                extra.push((0, &t.name));
                if extra.len() >= MAX_VALUES {
                    break;
                }
            } else if let Some(s) = matcher.fuzzy_match(&t.name, pat) {
                extra.push((s, &t.name));
            }
        }
        extra.sort_by_key(|b| std::cmp::Reverse(b.0));
        out.extend(
            extra
                .into_iter()
                .take(MAX_VALUES)
                .map(|(_, n)| n.to_string()),
        );
    }
    out
}
