//! Field rows merged by (field_name, json_path): later rows add hints, enums and `required`.

use serde_json::{Value, json};

use super::{Row, text};

use crate::ingest::schema_hints::copy_row_hints;
use crate::pytext::truthy;

/// Rows merged by (field_name, json_path): later rows add hints, enums and `required`.
pub fn merge_field_rows(primary: Vec<Row>, inferred: &[Row]) -> Vec<Row> {
    use std::borrow::Cow;
    // `text()` without copying the common string case
    fn key_text(v: Option<&Value>) -> Cow<'_, str> {
        match v {
            Some(Value::String(s)) => Cow::Borrowed(s.as_str()),
            other => Cow::Owned(text(other)),
        }
    }
    let n_primary = primary.len();
    let row_at = |i: usize| -> &Row {
        if i < n_primary {
            &primary[i]
        } else {
            &inferred[i - n_primary]
        }
    };
    // where each row goes: dropped (no name), a new row, or merged into an earlier one
    let mut dest: Vec<Option<usize>> = Vec::with_capacity(n_primary + inferred.len());
    let mut new_rows = 0usize;
    {
        let mut by_key: rustc_hash::FxHashMap<(Cow<'_, str>, Cow<'_, str>), usize> =
            Default::default();
        for i in 0..n_primary + inferred.len() {
            let row = row_at(i);
            let name = key_text(row.get("field_name"));
            if name.is_empty() {
                dest.push(None);
                continue;
            }
            let key = (name, key_text(row.get("json_path")));
            let at = *by_key.entry(key).or_insert_with(|| {
                new_rows += 1;
                new_rows - 1
            });
            dest.push(Some(at));
        }
    }
    let mut merged: Vec<Row> = Vec::with_capacity(new_rows);
    let absorb = |row: Cow<'_, Row>, at: usize, merged: &mut Vec<Row>| {
        if at == merged.len() {
            merged.push(row.into_owned());
            return;
        }
        let e = &mut merged[at];
        copy_row_hints(&row, e);
        if let Some(en) = row.get("enum").filter(|v| truthy(v))
            && !e.get("enum").is_some_and(truthy)
        {
            e.insert("enum".into(), en.clone());
        }
        if row.get("required").is_some_and(truthy) {
            e.insert("required".into(), json!(true));
        }
    };
    let all = primary
        .into_iter()
        .map(Cow::Owned)
        .chain(inferred.iter().map(Cow::Borrowed));
    for (row, at) in all.zip(dest) {
        if let Some(at) = at {
            absorb(row, at, &mut merged);
        }
    }
    merged
}

pub(super) fn merge_body_field_rows(
    primary: Vec<Row>,
    content_rows: &[&Row],
    key: &str,
) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::new();
    for c in content_rows {
        if let Some(Value::Array(a)) = c.get(key) {
            rows.extend(a.iter().filter_map(Row::from_value));
        }
    }
    merge_field_rows(primary, &rows)
}
