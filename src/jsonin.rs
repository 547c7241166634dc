//! Reading untrusted JSON text into a `serde_json::Value` as Python's `json` reads it: every
//! object key is a key.
//!
//! serde_json's own `Value` has one exception: with its `raw_value` feature on (the artifact
//! loader needs `RawValue`), an object whose first key is serde_json's private token
//! `$serde_json::private::RawValue` is replaced by the JSON parsed from the string under it.
//! A spec, a tool list, a captured record or a suite could use that to forge a value (a
//! parameter's type, a recorded query, a suite's label) or to have a valid file refused.
//! Every reader of such input parses through [`from_str`] / [`from_slice`] ([`Plain`] for a
//! value inside a stream); the values are otherwise exactly serde_json's (numbers, strings,
//! a repeated key keeping its first place and its last value, the nesting limit).

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// The JSON text `s` as a `Value` (the whole text: trailing characters are an error).
pub fn from_str(s: &str) -> serde_json::Result<Value> {
    let mut de = serde_json::Deserializer::from_str(s);
    let v = Plain.deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

/// [`from_str`] on bytes (UTF-8 checked as serde_json checks it).
pub fn from_slice(b: &[u8]) -> serde_json::Result<Value> {
    let mut de = serde_json::Deserializer::from_slice(b);
    let v = Plain.deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

/// A `Value` read with every object key kept as a key (a seed for any deserializer).
#[derive(Clone, Copy, Debug, Default)]
pub struct Plain;

/// `#[serde(deserialize_with = "crate::jsonin::value")]` for a `Value` field of an input type.
pub fn value<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
    Plain.deserialize(d)
}

impl<'de> DeserializeSeed<'de> for Plain {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Plain {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_i128<E: serde::de::Error>(self, v: i128) -> Result<Value, E> {
        serde::Deserialize::deserialize(serde::de::value::I128Deserializer::<E>::new(v))
            .map(Value::Number)
    }

    fn visit_u128<E: serde::de::Error>(self, v: u128) -> Result<Value, E> {
        serde::Deserialize::deserialize(serde::de::value::U128Deserializer::<E>::new(v))
            .map(Value::Number)
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Plain.deserialize(d)
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(x) = seq.next_element_seed(Plain)? {
            out.push(x);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            let v = map.next_value_seed(Plain)?;
            out.insert(k, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    const TOKEN: &str = "$serde_json::private::RawValue";

    #[test]
    fn the_raw_value_token_is_an_ordinary_key() {
        for (text, want) in [
            (format!(r#"{{"{TOKEN}":"[1]"}}"#), json!({TOKEN: "[1]"})),
            (
                format!(r#"{{"a":{{"{TOKEN}":"{{\"evil\":","b":2}}}}"#),
                json!({"a": {TOKEN: "{\"evil\":", "b": 2}}),
            ),
            // spelled with an escape
            (
                r#"{"\u0024serde_json::private::RawValue":"\"q\""}"#.to_string(),
                json!({TOKEN: "\"q\""}),
            ),
        ] {
            assert_eq!(super::from_str(&text).unwrap(), want, "{text}");
            assert_eq!(super::from_slice(text.as_bytes()).unwrap(), want, "{text}");
            // what serde_json's own Value does with it
            assert_ne!(
                serde_json::from_str::<serde_json::Value>(&text).ok(),
                Some(want)
            );
        }
    }

    #[test]
    fn everything_else_reads_as_serde_json_reads_it() {
        let texts = [
            r#"{"a":1,"b":[1.5,-2,18446744073709551615,-9223372036854775808,1e300],"a":{"x":null}}"#,
            r#"[true,false,null,"\u00e9\ud83d\ude00","",{},[],0.1,-0.0,1E-7]"#,
            r#"  "x"  "#,
            "12345678901234567890123",
        ];
        for t in texts {
            let want = serde_json::from_str::<serde_json::Value>(t).unwrap();
            let got = super::from_str(t).unwrap();
            assert_eq!(got, want, "{t}");
            assert_eq!(
                serde_json::to_string(&got).unwrap(),
                serde_json::to_string(&want).unwrap()
            );
        }
        let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        for bad in [
            "",
            "[1,]",
            "{\"a\":1} x",
            "\"\\ud800\"",
            "1e400",
            deep.as_str(),
        ] {
            assert_eq!(
                super::from_str(bad).map_err(|e| e.to_string()),
                serde_json::from_str::<serde_json::Value>(bad).map_err(|e| e.to_string()),
                "{bad}"
            );
        }
    }
}
