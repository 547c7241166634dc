//! `toolscope query`: one query as a table or JSON, or a batch of golden-format cases.

use clap::Args;
use serde_json::Value;
use std::io::{BufRead, BufWriter, Write};

use super::graph_arg::load_engine;
use super::{EXIT_EMPTY, EXIT_OK, fail};
use crate::engine::params::Policy;
use crate::engine::{Engine, Params, SelectParams};
use crate::error::InputError;
use crate::jsonout::JsonWriter;
use crate::model::load::{json_error, read_input};
use crate::output::{json, text};

#[derive(Args, Debug)]
pub struct QueryArgs {
    /// Graph artifact (saved tool graph or collection.json, optionally gzip), a spec or
    /// tool list (OpenAPI, Swagger, MCP tools/list, function list; built on load), or `demo`
    pub graph: String,
    /// The query text (omit with --batch)
    #[arg(value_parser = super::query_arg, required_unless_present = "batch", conflicts_with = "batch")]
    pub query: Option<String>,
    /// Number of results (1 or more)
    #[arg(long, default_value_t = 10, value_parser = super::top_k_arg, conflicts_with = "batch")]
    pub top_k: usize,
    /// BFS depth of the graph expansion
    #[arg(long, default_value_t = 2, conflicts_with = "batch")]
    pub depth: usize,
    /// Token budget of subgraph_text
    #[arg(long, default_value_t = 2000, conflicts_with = "batch")]
    pub token_budget: usize,
    /// A tool already used in this session (repeatable; each occurrence demotes once)
    #[arg(long = "history", value_name = "NAME", conflicts_with = "batch")]
    pub history: Vec<String>,
    /// Learning suggestions (JSON list, {"suggestions": [...]}, or JSON Lines)
    #[arg(long, value_name = "FILE", conflicts_with = "batch")]
    pub learning: Option<String>,
    /// The tool the model picked; implies --select
    #[arg(long, value_name = "NAME", conflicts_with = "batch")]
    pub llm_target: Option<String>,
    /// Selector policy: strong_evidence or risk_limited (strong evidence overrides the
    /// model's pick), manual_review (never overrides)
    #[arg(long, default_value = "strong_evidence", value_parser = super::policy_arg(), conflicts_with = "batch")]
    pub policy: Policy,
    /// Run the target selector over the results
    #[arg(long, conflicts_with = "batch")]
    pub select: bool,
    /// Print the full response as JSON (with a target_selector block when selecting)
    #[arg(long)]
    pub json: bool,
    /// Read cases (golden format, JSON Lines) and write one result line per case; each
    /// case carries its own `params` and `selector`, so the parameter flags are refused
    #[arg(long, value_name = "CASES.jsonl")]
    pub batch: Option<String>,
}

/// Writes to stdout; a closed pipe is not an error. For JSON (already escaped by
/// [`crate::jsonout`]); human text goes through [`write_text`].
pub fn write_stdout(bytes: &[u8]) {
    let mut so = std::io::stdout().lock();
    let _ = so.write_all(bytes).and_then(|_| so.flush());
}

/// Writes human-readable text to stdout through the one sanitiser (newlines and tabs
/// kept); a closed pipe is not an error.
pub fn write_text(text: &str) {
    write_stdout(crate::sanitize::sanitize(text, false).as_bytes());
}

pub fn load_learning(path: &str) -> Result<Vec<Value>, InputError> {
    let bytes = read_input(std::path::Path::new(path))?;
    let text = crate::model::load::into_text(path, bytes)?;
    match crate::jsonin::from_str(&text) {
        Ok(Value::Array(items)) => Ok(items),
        Ok(Value::Object(mut o)) => match o.remove("suggestions") {
            Some(Value::Array(items)) => Ok(items),
            _ => Err(InputError::new(
                path,
                "/suggestions",
                "expected a list of learning suggestions".into(),
            )),
        },
        Ok(_) => Err(InputError::new(
            path,
            "",
            "expected a JSON list of learning suggestions".into(),
        )),
        Err(_) => {
            if let Some(e) = crate::model::load::not_json(
                path,
                &text,
                "learning suggestions (a JSON list, {\"suggestions\": [...]} or JSON Lines)",
            ) {
                return Err(e);
            }
            let mut items = Vec::new();
            for (i, l) in text.lines().enumerate() {
                if l.trim().is_empty() {
                    continue;
                }
                let v: Value = crate::jsonin::from_str(l)
                    .map_err(|e| json_error(path, &e, "").with_line(i + 1))?;
                items.push(v);
            }
            Ok(items)
        }
    }
}

pub fn run(args: QueryArgs) -> u8 {
    let engine = match load_engine(&args.graph) {
        // the process ends with this command: freeing every tool and posting one by one
        // would only cost time (half a second on a 50k-tool graph)
        Ok(e) => std::mem::ManuallyDrop::new(e),
        Err(e) => return fail(e),
    };
    if let Some(batch) = &args.batch {
        return run_batch(&engine, batch);
    }
    let query = args.query.clone().unwrap_or_default();
    let suggestions = match &args.learning {
        Some(p) => match load_learning(p) {
            Ok(s) => s,
            Err(e) => return fail(e),
        },
        None => Vec::new(),
    };
    let params = Params {
        top_k: args.top_k,
        depth: args.depth,
        token_budget: args.token_budget,
        history: args.history.clone(),
        learning_suggestions: suggestions,
        ..Params::default()
    };
    let r = engine.retrieve(&query, &params);
    let select = args.select || args.llm_target.is_some();
    let selection = select.then(|| {
        engine.select(
            &r,
            &SelectParams {
                llm_target: args.llm_target.clone(),
                policy: args.policy.clone(),
            },
        )
    });
    if args.json {
        let mut w = JsonWriter::with_capacity(8192);
        json::write_retrieval(&engine, &r, &mut w);
        let mut s = w.finish();
        if let Some(sel) = &selection {
            // the response object with a `target_selector` block, as product adapters attach it
            s.pop();
            s.push_str(",\"target_selector\":");
            s.push_str(&json::selection_json(sel));
            s.push('}');
        }
        s.push('\n');
        write_stdout(s.as_bytes());
    } else {
        let mut s = text::retrieval_table(&engine, &r);
        if let Some(sel) = &selection {
            s.push('\n');
            s.push_str(&text::selection_summary(sel));
        }
        write_text(&s);
    }
    if r.rows.is_empty() {
        EXIT_EMPTY
    } else {
        EXIT_OK
    }
}

fn run_batch(engine: &Engine, path: &str) -> u8 {
    use crate::limits::{Line, Lines, RECORD_BYTES};
    let name = crate::sanitize::line(path);
    let reader: Box<dyn BufRead> = if path == "-" {
        Box::new(std::io::BufReader::new(std::io::stdin()))
    } else {
        match crate::limits::open_regular(std::path::Path::new(path)) {
            Ok((f, _)) => Box::new(std::io::BufReader::with_capacity(1 << 20, f)),
            Err(e) => return fail(e),
        }
    };
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 20, stdout.lock());
    let mut lines = Lines::new(reader);
    loop {
        let line = match lines.next_line() {
            Ok(Some(Line::Text(l))) => l,
            Ok(Some(Line::TooLong { .. })) => {
                let _ = out.flush();
                return fail(RECORD_BYTES.exceeded(&name, &lines.line.to_string()));
            }
            Ok(None) => break,
            Err(e) => {
                let _ = out.flush();
                return fail(InputError::new(
                    &name,
                    &lines.line.to_string(),
                    format!("unreadable: {}", crate::limits::io_message(&e)),
                ));
            }
        };
        let at = lines.line;
        let line = match String::from_utf8(line) {
            Ok(l) => l,
            Err(e) => {
                let _ = out.flush();
                return fail(InputError::new(
                    &name,
                    &format!("{at}:{}", e.utf8_error().valid_up_to() + 1),
                    "invalid UTF-8 byte sequence".into(),
                ));
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        match crate::output::batch::batch_line(engine, &line) {
            Ok(s) => {
                if out
                    .write_all(s.as_bytes())
                    .and_then(|_| out.write_all(b"\n"))
                    .is_err()
                {
                    return EXIT_OK; // closed pipe
                }
            }
            Err(crate::output::batch::BatchError::Json(e, pointer)) => {
                let _ = out.flush();
                let err = crate::model::load::not_json(&name, &line, "a case object per line")
                    .unwrap_or_else(|| json_error(&name, &e, &pointer));
                return fail(err.with_line(at));
            }
            Err(crate::output::batch::BatchError::Query(m)) => {
                let _ = out.flush();
                return fail(InputError::new(&name, &format!("{at}"), m));
            }
        }
    }
    if out.flush().is_err() {
        return EXIT_OK; // closed pipe
    }
    EXIT_OK
}
