//! The members of a tool's contract rows (`metadata.produces` / `.consumes`) that its BM25
//! document reads, parsed from the rows' text without building the rest of each row.
//!
//! [`LazyRows::rows`] parses every row into a [`Value`] (a map per row, a string per key
//! and value); the index reads eleven of those keys. [`for_each_contract_row`] gives the
//! same rows with only those keys' values ([`Field`]: strings borrowed from the text where
//! they have no escapes): every other value is checked exactly as a `Value` parse checks it
//! (numbers in range, strings, nesting) but not kept. The rows are
//! the same ones the `Value` parse gives: a list that does not parse gives none, an item
//! that is not an object is skipped, and a key written twice keeps its last value. One
//! case reads differently: serde_json's `Value` treats an object whose first key is its
//! private raw-value token specially, so any such key sends the list through the `Value`
//! parse instead.

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::borrow::Cow;

use crate::model::tool::LazyRows;

/// The scalar visits of a visitor that accepts every scalar as `$v`.
macro_rules! scalars {
    ($v:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($v)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($v)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($v)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($v)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($v)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($v)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($v)
        }
    };
}

/// The keys of a contract row the BM25 document reads (indexes into [`RowView`]).
pub const CONTRACT_SOURCE: usize = 0;
pub const SEARCH_SIGNAL: usize = 1;
pub const FIELD_NAME: usize = 2;
pub const SEMANTIC_TAG: usize = 3;
pub const JSON_PATH: usize = 4;
pub const FIELD_TYPE: usize = 5;
pub const KIND: usize = 6;
pub const DESCRIPTION: usize = 7;
pub const EXAMPLE_NAME: usize = 8;
pub const VALUE_PATH_ALIASES: usize = 9;
pub const ENUM: usize = 10;

const KEYS: [&str; 11] = [
    "contract_source",
    "search_signal",
    "field_name",
    "semantic_tag",
    "json_path",
    "field_type",
    "kind",
    "description",
    "example_name",
    "value_path_aliases",
    "enum",
];

/// serde_json's private key for raw values (see the module comment).
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// The value of a key the document reads, as a `Value` parse would give it: a string
/// (borrowed from the text when it has no escapes), a list item by item, or any other value.
#[derive(Debug, Clone, PartialEq)]
pub enum Field<'a> {
    Str(Cow<'a, str>),
    List(Vec<Field<'a>>),
    Other(Value),
}

impl Field<'_> {
    fn from_value(v: Value) -> Field<'static> {
        match v {
            Value::String(s) => Field::Str(Cow::Owned(s)),
            Value::Array(items) => Field::List(items.into_iter().map(Field::from_value).collect()),
            other => Field::Other(other),
        }
    }

    /// The `Value` a parse gives.
    pub fn to_value(&self) -> Value {
        match self {
            Field::Str(s) => Value::String(s.to_string()),
            Field::List(items) => Value::Array(items.iter().map(Field::to_value).collect()),
            Field::Other(v) => v.clone(),
        }
    }

    /// `Value::as_str`.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Field::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Python truthiness ([`crate::pytext::truthy`]).
    pub fn truthy(&self) -> bool {
        match self {
            Field::Str(s) => !s.is_empty(),
            Field::List(items) => !items.is_empty(),
            Field::Other(v) => crate::pytext::truthy(v),
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Field::Other(Value::Null))
    }
}

/// One contract row (an object), with the values of the keys the document reads.
#[derive(Debug, Default, PartialEq)]
pub struct RowView<'a> {
    values: [Option<Field<'a>>; 11],
}

impl<'a> RowView<'a> {
    /// The value of key `k` (one of the constants above), as `row.get(key)` gives it.
    pub fn get(&self, k: usize) -> Option<&Field<'a>> {
        self.values[k].as_ref()
    }
}

/// Calls `f` with each object row of `rows`, in order: the rows `rows.rows()` holds that
/// are objects, seen through [`RowView`].
pub fn for_each_contract_row(rows: &LazyRows, f: &mut dyn FnMut(&RowView<'_>)) {
    if rows.is_empty() {
        return;
    }
    let Some(raw) = rows.raw() else { return };
    let viewed = raw.with_str(|s| match serde_json::from_str::<ViewList<'_>>(s) {
        Ok(ViewList(list)) => {
            for r in &list {
                f(r);
            }
            true
        }
        Err(_) => false,
    });
    if !viewed {
        // a list that does not parse, or one serde_json reads specially: as `Value`
        for row in rows.rows() {
            if let Value::Object(mut o) = row {
                let mut view = RowView::default();
                for (k, key) in KEYS.iter().enumerate() {
                    view.values[k] = o.remove(*key).map(Field::from_value);
                }
                f(&view);
            }
        }
    }
}

/// The object rows of a list (anything else gives none, as `rows()` does).
struct ViewList<'a>(Vec<RowView<'a>>);

impl<'de> de::Deserialize<'de> for ViewList<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ViewList<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ViewList<'de>, A::Error> {
                let mut out = Vec::new();
                while let Some(item) = seq.next_element::<Item>()? {
                    if let Item(Some(row)) = item {
                        out.push(row);
                    }
                }
                Ok(ViewList(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ViewList<'de>, A::Error> {
                Checked.visit_map(map)?;
                Ok(ViewList(Vec::new()))
            }
            scalars!(ViewList(Vec::new()));
        }
        d.deserialize_any(V)
    }
}

/// A list item: a row when it is an object.
struct Item<'a>(Option<RowView<'a>>);

impl<'de> de::Deserialize<'de> for Item<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Item<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Item<'de>, A::Error> {
                let mut row = RowView::default();
                while let Some(key) = map.next_key::<Key>()? {
                    match key.0 {
                        Some(k) => row.values[k] = Some(map.next_value::<Field<'de>>()?),
                        None => map.next_value::<Checked>().map(|_| ())?,
                    }
                }
                Ok(Item(Some(row)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Item<'de>, A::Error> {
                Checked.visit_seq(seq)?;
                Ok(Item(None))
            }
            scalars!(Item(None));
        }
        d.deserialize_any(V)
    }
}

impl<'de> de::Deserialize<'de> for Field<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Field<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Field<'de>, E> {
                Ok(Field::Str(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Field<'de>, E> {
                Ok(Field::Str(Cow::Owned(s.to_string())))
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<Field<'de>, E> {
                Ok(Field::Str(Cow::Owned(s)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Field<'de>, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<Field<'de>>()? {
                    items.push(item);
                }
                Ok(Field::List(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Field<'de>, A::Error> {
                // an object as `Value` reads it (its raw-value token included)
                let v = de::Deserialize::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(Field::Other(v))
            }
            // the numbers, booleans and null of `Value`'s own visitor
            fn visit_bool<E: de::Error>(self, b: bool) -> Result<Field<'de>, E> {
                Ok(Field::Other(Value::Bool(b)))
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Field<'de>, E> {
                Ok(Field::Other(Value::Number(n.into())))
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Field<'de>, E> {
                Ok(Field::Other(Value::Number(n.into())))
            }
            fn visit_f64<E: de::Error>(self, n: f64) -> Result<Field<'de>, E> {
                Ok(Field::Other(
                    serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number),
                ))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Field<'de>, E> {
                Ok(Field::Other(Value::Null))
            }
            fn visit_none<E: de::Error>(self) -> Result<Field<'de>, E> {
                Ok(Field::Other(Value::Null))
            }
        }
        d.deserialize_any(V)
    }
}

/// An object key: which of [`KEYS`] it is, if any; the raw-value token is an error.
struct Key(Option<usize>);

impl<'de> de::Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(KeyVisitor).map(Key)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Option<usize>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Option<usize>, E> {
        if s == RAW_VALUE_TOKEN {
            return Err(E::custom("raw value token"));
        }
        Ok(KEYS.iter().position(|k| *k == s))
    }
}

/// Any JSON value, checked as a `Value` parse checks it, kept nowhere.
struct Checked;

impl<'de> de::Deserialize<'de> for Checked {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Checked)
    }
}

impl<'de> Visitor<'de> for Checked {
    type Value = Checked;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Checked, A::Error> {
        while seq.next_element::<Checked>()?.is_some() {}
        Ok(Checked)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Checked, A::Error> {
        while map.next_key_seed(CheckedKey)?.is_some() {
            map.next_value::<Checked>()?;
        }
        Ok(Checked)
    }
    scalars!(Checked);
}

/// A key of a value kept nowhere: only the raw-value token matters.
struct CheckedKey;

impl<'de> DeserializeSeed<'de> for CheckedKey {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(KeyVisitor).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tool::RawJson;

    /// Each row's values as `Value`s.
    fn viewed(text: &str) -> Vec<Vec<Option<Value>>> {
        let rows = LazyRows::from_raw(Some(RawJson::owned(text.to_string())));
        let mut out = Vec::new();
        for_each_contract_row(&rows, &mut |r| {
            out.push(
                r.values
                    .iter()
                    .map(|v| v.as_ref().map(Field::to_value))
                    .collect(),
            )
        });
        out
    }

    fn by_value(text: &str) -> Vec<Vec<Option<Value>>> {
        let rows = LazyRows::from_raw(Some(RawJson::owned(text.to_string())));
        rows.rows()
            .into_iter()
            .filter_map(|row| match row {
                Value::Object(o) => Some(KEYS.iter().map(|k| o.get(*k).cloned()).collect()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn rows_read_as_the_value_parse_reads_them() {
        for text in [
            r#"[{"field_name": "id", "x": {"y": [1, 2.5, -3e2, null, true]}, "enum": ["A", 1]}]"#,
            r#"[{"kind": "a", "kind": "b"}, 3, "s", [1], null, {"description": "d"}]"#,
            r#"[{"field_name": "a\"b\u00e9", "value_path_aliases": [["x"], {"k": 1}, 2.5, null, "\u0041"], "enum": [true, -1, 18446744073709551615, {"a": []}, "e\n"]}]"#,
            r#"[{"semantic_tag": {}, "json_path": [], "example_name": 0.0, "search_signal": "", "contract_source": ["api_contract"]}]"#,
            r#"[{"field\u005fname": "escaped key", "value_path_aliases": ["$.a", 2]}]"#,
            r#"[{"ok": 1, "big": 1e400}]"#,
            r#"[{"ok": 1, "big": 123456789012345678901234567890}]"#,
            r#"[{"nested": {"$serde_json::private::RawValue": "{\"field_name\": 1}"}}]"#,
            r#"[{"$serde_json::private::RawValue": "{\"field_name\": \"x\"}"}]"#,
            r#"[{"$serde_json::private::RawValue": "not json"}]"#,
            r#"{"field_name": "a map, not a list"}"#,
            r#"[{"contract_source": "api_contract", "search_signal": 0}] trailing"#,
            "[]",
            "null",
            "[{}]",
        ] {
            assert_eq!(viewed(text), by_value(text), "{text}");
        }
    }
}
