//! A metadata row under construction: an insertion-ordered list of `(key, value)` pairs.
//!
//! The build makes hundreds of thousands of small records (field rows, contract rows,
//! content-type and example rows) of 5 to 40 keys, nearly all with literal keys. As
//! `serde_json::Map`s each costs an allocation per key, a hash table and a SipHash per
//! insert and lookup; a `Row` costs one vector, finds keys by comparing them in order and
//! borrows its literal keys. It behaves like the `Map` it replaces (`preserve_order`):
//! `insert` keeps an existing key's place, `shift_remove` keeps the others' order, and it
//! serialises with the same key order, to a `Map` or straight to compact JSON.

use std::borrow::Cow;

use serde_json::{Map, Value};

/// A row key: borrowed for the literal keys, owned for keys copied from inputs.
pub type Key = Cow<'static, str>;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Row {
    entries: Vec<(Key, Value)>,
}

impl Row {
    pub fn new() -> Row {
        Row {
            entries: Vec::new(),
        }
    }

    pub fn with_capacity(n: usize) -> Row {
        Row {
            entries: Vec::with_capacity(n),
        }
    }

    fn position(&self, k: &str) -> Option<usize> {
        self.entries.iter().position(|(key, _)| key == k)
    }

    pub fn get(&self, k: &str) -> Option<&Value> {
        self.entries
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v)
    }

    pub fn get_mut(&mut self, k: &str) -> Option<&mut Value> {
        self.entries
            .iter_mut()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v)
    }

    pub fn contains_key(&self, k: &str) -> bool {
        self.position(k).is_some()
    }

    /// Sets `k` (in place when present, else appended); the old value if there was one.
    pub fn insert(&mut self, k: Key, v: Value) -> Option<Value> {
        match self.position(&k) {
            Some(i) => Some(std::mem::replace(&mut self.entries[i].1, v)),
            None => {
                self.entries.push((k, v));
                None
            }
        }
    }

    /// Appends `k`, which the row must not have (a row built from distinct keys).
    pub fn push_new(&mut self, k: Key, v: Value) {
        debug_assert!(!self.contains_key(&k), "duplicate row key {k}");
        self.entries.push((k, v));
    }

    pub fn reserve(&mut self, n: usize) {
        self.entries.reserve(n);
    }

    /// Removes `k`, keeping the order of the other keys.
    pub fn shift_remove(&mut self, k: &str) -> Option<Value> {
        let i = self.position(k)?;
        Some(self.entries.remove(i).1)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&str, &Value)> {
        self.entries.iter().map(|(k, v)| (k.as_ref(), v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(k, _)| k.as_ref())
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> {
        self.entries.iter().map(|(_, v)| v)
    }

    /// The row as a `serde_json::Map` (same keys, same order).
    pub fn into_map(self) -> Map<String, Value> {
        let mut m = Map::with_capacity(self.entries.len());
        for (k, v) in self.entries {
            m.insert(k.into_owned(), v);
        }
        m
    }

    /// A copy of a `serde_json::Map` as a row.
    pub fn from_map(m: &Map<String, Value>) -> Row {
        Row {
            entries: m
                .iter()
                .map(|(k, v)| (Cow::Owned(k.clone()), v.clone()))
                .collect(),
        }
    }

    /// A copy of an object value as a row (`None` for anything else).
    pub fn from_value(v: &Value) -> Option<Row> {
        v.as_object().map(Row::from_map)
    }

    /// Appends the row's compact JSON (what `write_compact` gives for its `Map`) and collects
    /// its `$ref` strings in the order `collect_refs` finds them in that `Map` (see
    /// [`super::frozen::write_compact_refs`]).
    pub fn write_compact_refs(&self, out: &mut String, refs: &mut Vec<String>) {
        self.write_compact_refs_at(out, refs, None);
    }

    /// [`Row::write_compact_refs`], giving where in `out` the value of the member `at`
    /// starts (when the row has that member).
    pub fn write_compact_refs_at(
        &self,
        out: &mut String,
        refs: &mut Vec<String>,
        at: Option<&str>,
    ) -> Option<usize> {
        refs.extend(super::frozen::own_ref(self.iter()));
        let mut found = None;
        out.push('{');
        for (i, (k, v)) in self.entries.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            crate::jsonout::write_escaped(out, k);
            out.push(':');
            if at == Some(k.as_ref()) {
                found = Some(out.len());
            }
            super::frozen::write_compact_refs(out, v, refs);
        }
        out.push('}');
        found
    }
}

/// Field lookup on a row, whether a [`Row`] or an object [`Value`] (anything else has no
/// fields).
pub trait Field {
    fn field(&self, k: &str) -> Option<&Value>;
}

impl Field for Row {
    fn field(&self, k: &str) -> Option<&Value> {
        self.get(k)
    }
}

impl Field for Value {
    fn field(&self, k: &str) -> Option<&Value> {
        self.get(k)
    }
}

impl From<Row> for Value {
    fn from(r: Row) -> Value {
        Value::Object(r.into_map())
    }
}

/// The rows of a metadata array (an entry that is not an object reads as an empty row,
/// which has no field a reader looks for).
pub fn rows_of(v: Option<&Value>) -> Vec<Row> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|x| Row::from_value(x).unwrap_or_default())
                .collect()
        })
        .unwrap_or_default()
}

/// Rows as a JSON array value (each row a `Map`).
pub fn rows_value(rows: Vec<Row>) -> Value {
    Value::Array(rows.into_iter().map(Value::from).collect())
}

/// The frozen form (see [`super::frozen`]) of a list of rows, written straight from the
/// rows: what freezing `rows_value(rows)` gives, without building the maps.
pub fn freeze_rows<'a>(rows: impl IntoIterator<Item = &'a Row>) -> Value {
    let rows: Vec<&Row> = rows.into_iter().collect();
    if rows.is_empty() {
        return Value::Array(Vec::new());
    }
    super::frozen::written(|body, refs| {
        body.push('[');
        for (i, r) in rows.iter().enumerate() {
            if i > 0 {
                body.push(',');
            }
            r.write_compact_refs(body, refs);
        }
        body.push(']');
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_row_orders_and_serialises_like_the_map_it_replaces() {
        let mut r = Row::new();
        r.insert("b".into(), json!(1));
        r.insert("a".into(), json!({"$ref": "#/x", "k": [{"$ref": "#/y"}]}));
        r.insert(String::from("c").into(), json!("t\"x"));
        assert_eq!(r.insert("b".into(), json!(2)), Some(json!(1)));
        let mut m = Map::new();
        m.insert("b".into(), json!(2));
        m.insert("a".into(), json!({"$ref": "#/x", "k": [{"$ref": "#/y"}]}));
        m.insert("c".into(), json!("t\"x"));
        assert_eq!(r.clone().into_map(), m);
        let mut text = String::new();
        let mut refs = Vec::new();
        r.write_compact_refs(&mut text, &mut refs);
        assert_eq!(refs, ["#/x", "#/y"]);
        let mut want = String::new();
        super::super::artifact::write_compact(&mut want, &Value::Object(m.clone()));
        assert_eq!(text, want);
        let frozen = freeze_rows(std::slice::from_ref(&r));
        let tree = super::super::frozen::freeze(json!([Value::Object(m)]));
        assert_eq!(frozen, tree);
        assert_eq!(r.shift_remove("b"), Some(json!(2)));
        assert_eq!(r.keys().collect::<Vec<_>>(), ["a", "c"]);
    }
}
