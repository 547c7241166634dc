//! Evidence files for the Evidence and Diff screens, read with no graph by the one record
//! reader ([`crate::lab::record`]): each record is the typed [`RunRecord`] every other
//! consumer reads (Diff, Lab, `lab check/diff`, replay), wrapped with what only the screens
//! need — where it came from and the JSON as given, to unfold. Nothing is re-read here:
//! the rows, the selector block and the unknown keys are the reader's. And [`detect`]:
//! which screen a file belongs to, from its content.

use std::path::Path;

use serde_json::Value;

use crate::lab::record::{RowRecord, RunRecord};

pub use crate::lab::record::Why;

/// A set of records read from one file or folder.
#[derive(Clone, Debug, Default)]
pub struct EvSet {
    /// The file or folder name, for titles.
    pub label: String,
    pub records: Vec<EvRecord>,
    /// Parts that could not be read (the rest was).
    pub errors: Vec<String>,
}

/// A record as the Evidence screen shows it: the typed record (`Deref`) and its JSON.
#[derive(Clone, Debug)]
pub struct EvRecord {
    pub rec: RunRecord,
    /// Where it came from: `file`, `file:LINE` or `file#INDEX`.
    pub origin: String,
    /// The record as given.
    pub value: Value,
    /// Its size as compact JSON.
    pub bytes: usize,
    /// Each row's size as compact JSON.
    pub row_bytes: Vec<usize>,
}

impl std::ops::Deref for EvRecord {
    type Target = RunRecord;
    fn deref(&self) -> &RunRecord {
        &self.rec
    }
}

fn json_len(v: &Value) -> usize {
    serde_json::to_string(v).map(|s| s.len()).unwrap_or(0)
}

/// A value as short display text (strings without quotes).
pub fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "null".into(),
        other => other.to_string(),
    }
}

impl EvRecord {
    /// Wraps a record read from `value` (found at `origin`).
    pub fn new(rec: RunRecord, value: Value, origin: &str) -> EvRecord {
        let row_bytes = rec
            .rows
            .iter()
            .map(|r| value.pointer(&r.at).map_or(0, json_len))
            .collect();
        EvRecord {
            origin: origin.to_string(),
            bytes: json_len(&value),
            row_bytes,
            value,
            rec,
        }
    }

    /// A row as recorded (a result row, a trace decision or a selector candidate).
    pub fn row_value(&self, row: &RowRecord) -> Option<&Value> {
        self.value.pointer(&row.at)
    }

    /// A row's evidence as recorded: the row itself, or a trace decision's `evidence`.
    pub fn row_evidence(&self, row: &RowRecord) -> Option<&Value> {
        self.value.pointer(&row.evidence_pointer())
    }

    /// The selector block as recorded, with a trace envelope's selected reason codes.
    pub fn selector(&self) -> Option<&serde_json::Map<String, Value>> {
        self.rec.selector_block(&self.value)
    }
}

/// Reads every record of a file (one JSON value, a list, or JSON Lines) or of a fixture
/// folder (`*.json` and `*.jsonl`, `manifest.json` aside) with the one evidence walk
/// ([`crate::lab::record::walk`]) and record reader. Unreadable parts and malformed
/// records are reported in `errors`; the rest is read. Fails only when the path cannot be
/// read at all.
pub fn read_set(path: &Path) -> Result<EvSet, String> {
    let label = path
        .file_name()
        .map(|f| crate::sanitize::line(&f.to_string_lossy()))
        .unwrap_or_else(|| crate::sanitize::path(path));
    let mut set = EvSet {
        label,
        ..EvSet::default()
    };
    let mut records = Vec::new();
    let errors = crate::lab::record::walk(path, &mut |v, o| match RunRecord::parse(
        v,
        &o.fallback_id,
    ) {
        Ok(Some(r)) => {
            records.push(EvRecord::new(r, v.clone(), &o.label));
            Ok(())
        }
        Ok(None) => Err(o.error("", crate::lab::record::NOT_A_RECORD.into())),
        Err(m) => Err(o.error(&m.pointer, m.message)),
    })
    .map_err(|e| e.to_string())?;
    set.records = records;
    set.errors = errors.iter().map(|e| e.to_string()).collect();
    Ok(set)
}

/// Which screen a file belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A tool graph or collection artifact (or anything else: the loader says what is wrong).
    Graph,
    /// An OpenAPI/Swagger spec or an MCP/function tool list: built into a graph on load.
    Spec,
    /// A response, selector block, fixture, batch output, golden cases, or a fixture folder.
    Evidence,
    /// A suite of labelled queries without results (it needs a graph: `--cases`).
    Suite,
    /// Learning suggestions (they apply to a graph: `--learning`).
    Learning,
}

/// Classifies a path with the one sniffer ([`crate::sniff`]); unreadable paths are left to
/// the graph loader, whose error names the file.
pub fn detect(path: &Path) -> FileKind {
    crate::sniff::sniff_path(path).map_or(FileKind::Graph, of_kind)
}

/// The screen for a sniffed kind.
pub fn of_kind(k: crate::sniff::Kind) -> FileKind {
    use crate::sniff::Kind;
    match k {
        Kind::Evidence => FileKind::Evidence,
        Kind::Spec | Kind::ToolList | Kind::Yaml | Kind::Arazzo => FileKind::Spec,
        Kind::Suite => FileKind::Suite,
        Kind::Learning => FileKind::Learning,
        Kind::Graph | Kind::Unknown => FileKind::Graph,
    }
}

/// The screen for a document's text.
pub fn classify(text: &str) -> FileKind {
    of_kind(crate::sniff::sniff(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_by_content() {
        assert_eq!(
            classify(r#"{"format_version": "1", "graph": {}, "tools": {}}"#),
            FileKind::Graph
        );
        assert_eq!(
            classify(r#"{"results": [], "stats": {}}"#),
            FileKind::Evidence
        );
        assert_eq!(
            classify(r#"{"id": "1", "retrieval": {}, "selection": null}"#),
            FileKind::Evidence
        );
        assert_eq!(
            classify(r#"{"case_id": "c", "query": "q", "actual_top_3": []}"#),
            FileKind::Evidence
        );
        assert_eq!(
            classify(r#"{"selected_target": "x", "reason_codes": []}"#),
            FileKind::Evidence
        );
        assert_eq!(
            classify(r#"{"id": "g", "graph": "demo", "query": "q", "expected": {}}"#),
            FileKind::Evidence
        );
        assert_eq!(
            classify(r#"{"openapi": "3.0.0", "paths": {}}"#),
            FileKind::Spec
        );
        assert_eq!(classify("openapi: 3.0.0\ninfo:\n"), FileKind::Spec);
        assert_eq!(
            classify(r#"{"queries": [{"query": "q", "expected_tools": []}]}"#),
            FileKind::Suite
        );
        assert_eq!(classify("garbage"), FileKind::Graph);
    }
}
