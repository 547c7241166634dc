//! The command palette: its keys, what Enter runs, and the list it shows (commands by fuzzy
//! match, or the values of the command being given an argument: tool names, policies,
//! themes, knobs, metrics, trace stages, walkthrough steps).

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use crate::tui::commands::edit::{self, PaletteKey};
use crate::tui::commands::{self, Arg, CmdId, Key};
use crate::tui::theme::ThemeKind;

use super::{App, BUDGETS, Effect, Overlay, POLICIES, PaletteItem, PaletteState, clean};

impl App {
    pub(super) fn palette_key(&mut self, key: Key) -> Vec<Effect> {
        let items = self.palette_items();
        let Overlay::Palette(p) = &mut self.overlay else {
            return Vec::new();
        };
        if let Some(a) = edit::lookup(edit::PALETTE_KEYS, key) {
            match a {
                PaletteKey::Close => self.overlay = Overlay::None,
                PaletteKey::Down if !items.is_empty() => {
                    p.selected = Some(p.selected.map_or(0, |i| (i + 1).min(items.len() - 1)));
                }
                PaletteKey::Down => {}
                PaletteKey::Up => p.selected = p.selected.and_then(|i| i.checked_sub(1)),
                PaletteKey::Complete => {
                    // nothing highlighted: complete what was typed by name, keeping its
                    // argument (never a loosely matching command)
                    if p.selected.is_none()
                        && let Some(done) = complete_typed(&p.input.text)
                    {
                        match done {
                            Ok(text) => p.input.set(&text),
                            Err(why) => p.error = Some(why),
                        }
                        return Vec::new();
                    }
                    // complete the highlighted (or first) entry into the input
                    if let Some(it) = items.get(p.selected.unwrap_or(0)) {
                        match it {
                            PaletteItem::Command(id) => {
                                let c = commands::get(*id);
                                let rest = typed_rest(&p.input.text);
                                p.input.set(&format!(
                                    "{}{}",
                                    c.name,
                                    match (c.arg, rest) {
                                        (Arg::None, _) => String::new(),
                                        (_, Some(r)) => format!(" {r}"),
                                        (_, None) => " ".into(),
                                    }
                                ));
                            }
                            PaletteItem::Value { cmd, value } => {
                                p.input
                                    .set(&format!("{} {}", commands::get(*cmd).name, value));
                            }
                        }
                        p.selected = None;
                        p.error = None;
                    }
                }
                PaletteKey::Accept => {
                    let text = p.input.text.clone();
                    let chosen = p.selected.and_then(|i| items.get(i).cloned());
                    return self.palette_accept(&text, chosen);
                }
            }
            return Vec::new();
        }
        let changed = match edit::lookup(edit::EDIT_KEYS, key) {
            Some(e) => p.input.apply(e),
            None => edit::typed_char(key).is_some_and(|c| p.input.type_char(c)),
        };
        if changed {
            p.selected = None;
            p.error = None;
        }
        Vec::new()
    }

    /// Enter in the palette: the highlighted entry, else the typed command (its exact
    /// name or a unique prefix) with its argument. Text that names no command runs
    /// nothing and is answered in the palette.
    fn palette_accept(&mut self, text: &str, chosen: Option<PaletteItem>) -> Vec<Effect> {
        let text = text.trim();
        let (word, rest) = match text.split_once(' ') {
            Some((w, r)) => (w, Some(r.trim()).filter(|r| !r.is_empty())),
            None => (text, None),
        };
        match chosen {
            Some(PaletteItem::Command(id))
                if commands::exact_only(id) && word != commands::get(id).name =>
            {
                let name = commands::get(id).name;
                if let Overlay::Palette(p) = &mut self.overlay {
                    p.error = Some(format!("type :{name} to run it (nothing was run)"));
                }
                return Vec::new();
            }
            Some(PaletteItem::Command(id)) => {
                // a highlighted command keeps what was typed after the first word
                let arg = rest.filter(|_| commands::get(id).arg != Arg::None);
                return self.palette_run(id, arg.map(String::from));
            }
            Some(PaletteItem::Value { cmd, value }) => return self.palette_run(cmd, Some(value)),
            None => {}
        }
        if text.is_empty() {
            self.overlay = Overlay::None;
            return Vec::new();
        }
        let answer = match commands::resolve(word) {
            Ok(c) if rest.is_some() && c.arg == Arg::None => {
                format!(":{} takes no argument (nothing was run)", c.name)
            }
            Ok(c) => {
                let arg = rest.map(|a| complete_value(self, c.id, a));
                return self.palette_run(c.id, arg);
            }
            Err(e) => e,
        };
        if let Overlay::Palette(p) = &mut self.overlay {
            p.error = Some(answer);
            p.selected = None;
        }
        Vec::new()
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
            return self.warn(format!(":{}: {why}", c.name));
        }
        if id == CmdId::LlmType && arg.is_none() {
            // `:llm` alone unsets the target
            return self.run(CmdId::LlmClear, None);
        }
        if id == CmdId::WhyNotType && arg.is_none() {
            // `:whynot` alone unsets the expected tool, as `:llm` does the LLM target
            return self.run(CmdId::WhyNotClear, None);
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
            CmdId::LlmType | CmdId::HistoryAdd | CmdId::WhyNotType => {
                tool_values(app, rest.trim(), &matcher)
            }
            CmdId::PolicyCycle => POLICIES.iter().map(|s| s.to_string()).collect(),
            CmdId::ThemeCycle => ThemeKind::ALL
                .iter()
                .map(|t| t.as_str().to_string())
                .chain(app.custom_themes.iter().map(|t| t.name.clone()))
                .collect(),
            CmdId::DemoNext => app
                .demo
                .steps
                .iter()
                .enumerate()
                .map(|(i, s)| format!("{} {}", i + 1, s.query))
                .collect(),
            CmdId::ExplainMetric => crate::tui::drill::Metric::LIVE
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
            CmdId::LabClass => lab_class_values(app),
            _ => Vec::new(),
        };
        let rest = rest.trim();
        // the value typed exactly, then the values it begins, then the loose matches
        let mut scored: Vec<(NameMatch, i64, usize, String)> = values
            .into_iter()
            .enumerate()
            .filter_map(|(i, v)| {
                if rest.is_empty() {
                    return Some((NameMatch::Other, 0, i, v));
                }
                let low = v.to_lowercase();
                let how = match name_match(&low, rest) {
                    NameMatch::PartPrefix => NameMatch::Other,
                    how => how,
                };
                // a value the word begins is also a fuzzy match
                matcher.fuzzy_match(&v, rest).map(|s| (how, -s, i, v))
            })
            .collect();
        scored.sort();
        return scored
            .into_iter()
            .take(MAX_VALUES)
            .map(|(.., v)| {
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
    // a word no command name (or part of one) begins: the names Enter's answer offers as `closest` come
    // first, in its order, so the list and the message agree
    let word = pat.split_whitespace().next().unwrap_or("");
    let near = if commands::REGISTRY
        .iter()
        .any(|c| name_match(c.name, word) != NameMatch::Other)
    {
        Vec::new()
    } else {
        commands::closest(word)
    };
    let mut scored: Vec<(usize, NameMatch, bool, i64, usize, CmdId)> = commands::REGISTRY
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            let exits = commands::exact_only(c.id);
            if pat.is_empty() {
                return Some((0, NameMatch::Other, exits, 0, i, c.id));
            }
            let close = near.iter().position(|n| *n == c.name);
            let how = name_match(c.name, pat);
            let hay = format!("{} {}", c.name, c.label);
            let fuzzy = matcher.fuzzy_match(&hay, pat);
            (close.is_some() || how != NameMatch::Other || fuzzy.is_some()).then(|| {
                (
                    close.unwrap_or(near.len()),
                    how,
                    exits,
                    -fuzzy.unwrap_or(0),
                    i,
                    c.id,
                )
            })
        })
        .collect();
    // the closest names of a mistyped word, then the exact name, then names it begins,
    // then names with a part it begins, then the loose matches of names and descriptions;
    // within each, commands that exit or discard state after the rest, then the better
    // fuzzy score, then registry order
    scored.sort_by_key(|&(close, how, exits, score, i, _)| (close, how, exits, score, i));
    scored
        .into_iter()
        .map(|(.., id)| PaletteItem::Command(id))
        .collect()
}

/// How a command's name matches the typed word, best first (the palette's order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum NameMatch {
    Exact,
    Prefix,
    /// A part of a dashed name begins with the word (`clear` for `history-clear`).
    PartPrefix,
    Other,
}

fn name_match(name: &str, pat: &str) -> NameMatch {
    let pat = pat.to_lowercase();
    if name == pat {
        NameMatch::Exact
    } else if name.starts_with(&pat) {
        NameMatch::Prefix
    } else if name.split('-').skip(1).any(|part| part.starts_with(&pat)) {
        NameMatch::PartPrefix
    } else {
        NameMatch::Other
    }
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

/// `all` and the classes the lab's cases have.
fn lab_class_values(app: &App) -> Vec<String> {
    std::iter::once("all".to_string())
        .chain(
            app.lab
                .iter()
                .flat_map(|l| l.class_counts())
                .map(|(c, _)| c.to_string()),
        )
        .collect()
}

/// A typed argument completed against the command's known values: itself when it is one,
/// else the one value it is a case-insensitive prefix of, else as typed (the command
/// then validates it and says why not).
fn complete_value(app: &App, id: CmdId, arg: &str) -> String {
    let values: Vec<String> = match id {
        CmdId::LlmType | CmdId::HistoryAdd | CmdId::WhyNotType => match &app.engine {
            Some(e) => e.graph.tools.iter().map(|t| t.name.clone()).collect(),
            None => Vec::new(),
        },
        CmdId::PolicyCycle => POLICIES.iter().map(|s| s.to_string()).collect(),
        CmdId::ThemeCycle => ThemeKind::ALL
            .iter()
            .map(|t| t.as_str().to_string())
            .chain(app.custom_themes.iter().map(|t| t.name.clone()))
            .collect(),
        CmdId::ExplainMetric => crate::tui::drill::Metric::LIVE
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
        CmdId::LabSort => crate::tui::screens::LabSort::ALL
            .iter()
            .map(|s| s.name().to_string())
            .collect(),
        CmdId::LabClass => lab_class_values(app),
        _ => return arg.to_string(),
    };
    if values.iter().any(|v| v == arg) {
        return arg.to_string();
    }
    let low = arg.to_lowercase();
    let mut hits = values.iter().filter(|v| v.to_lowercase().starts_with(&low));
    match (hits.next(), hits.next()) {
        (Some(one), None) => one.clone(),
        _ => arg.to_string(),
    }
}

/// What Enter runs for the palette as it stands (nothing is run on a guess), for the line
/// under its input.
pub fn enter_preview(app: &App, p: &PaletteState, items: &[PaletteItem]) -> String {
    let text = p.input.text.trim();
    if let Some(it) = p.selected.and_then(|i| items.get(i)) {
        return match it {
            PaletteItem::Command(id) => format!("Enter runs :{}", commands::get(*id).name),
            PaletteItem::Value { cmd, value } => {
                format!("Enter runs :{} {}", commands::get(*cmd).name, clean(value))
            }
        };
    }
    if text.is_empty() {
        return "Enter closes; type a command name, or Down to pick from the list".into();
    }
    let (word, rest) = match text.split_once(' ') {
        Some((w, r)) => (w, r.trim()),
        None => (text, ""),
    };
    match commands::resolve(word) {
        Ok(c) if rest.is_empty() => format!("Enter runs :{}", c.name),
        Ok(c) if c.arg == Arg::None => format!(":{} takes no argument", c.name),
        Ok(c) => {
            let v = complete_value(app, c.id, rest);
            let unknown = matches!(c.id, CmdId::LlmType | CmdId::HistoryAdd | CmdId::WhyNotType)
                && app
                    .engine
                    .as_ref()
                    .is_some_and(|e| e.graph.tool_by_name(&v).is_none());
            format!(
                "Enter runs :{} {}{}",
                c.name,
                clean(&v),
                if unknown {
                    " (not a tool in this graph; Down picks one)"
                } else {
                    ""
                }
            )
        }
        Err(e) => e
            .replace(" (nothing was run)", "")
            .replace("; Tab completes, F1 lists keys", ""),
    }
}

/// What was typed after the command word, if anything.
fn typed_rest(text: &str) -> Option<&str> {
    text.trim_start()
        .split_once(' ')
        .map(|(_, r)| r.trim())
        .filter(|r| !r.is_empty())
}

/// Tab on a typed command word with nothing highlighted, as a shell completes: the
/// command names it begins complete to their longest common prefix (a whole name gets
/// its argument back); a word no name begins with completes to its one closest name
/// (keeping the argument) or says why not. `None`: nothing typed, or a command already
/// complete with its argument being typed (the list then offers values).
fn complete_typed(text: &str) -> Option<Result<String, String>> {
    let t = text.trim_start();
    let (word, rest) = match t.split_once(' ') {
        Some((w, r)) => (w, Some(r.trim()).filter(|r| !r.is_empty())),
        None => (t, None),
    };
    if word.is_empty() || (t.contains(' ') && commands::by_name(word).is_some()) {
        return None;
    }
    let with = |name: &str| {
        let takes = commands::by_name(name).is_some_and(|c| c.arg != Arg::None);
        match rest {
            Some(r) if takes => format!("{name} {r}"),
            _ if takes => format!("{name} "),
            _ => name.to_string(),
        }
    };
    let names: Vec<&str> = commands::REGISTRY
        .iter()
        .map(|c| c.name)
        .filter(|n| n.starts_with(word))
        .collect();
    if let Some(first) = names.first() {
        let mut lcp = first.len();
        for n in &names[1..] {
            lcp = lcp.min(
                first
                    .bytes()
                    .zip(n.bytes())
                    .take_while(|(a, b)| a == b)
                    .count(),
            );
        }
        let common = &first[..lcp];
        let whole = names.len() == 1 || (rest.is_some() && names.contains(&common));
        return Some(Ok(match rest {
            _ if whole => with(common),
            Some(r) => format!("{common} {r}"),
            None => common.to_string(),
        }));
    }
    match commands::closest(word).as_slice() {
        [one] => Some(Ok(with(one))),
        _ => Some(Err(commands::resolve(word).err().unwrap_or_default())),
    }
}
