//! The reference's nullable normalisation (`_normalize_nullable_markers`) of the spec's
//! `paths` and schema components before any `$ref` is resolved.

use serde_json::{Map, Value, json};

use crate::pytext::truthy;

fn is_null_schema(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str) == Some("null")
}

/// The reference's `_normalize_nullable_markers`, in place: `x-nullable`, `type: [X,
/// "null"]` and null branches of `anyOf`/`oneOf` become `nullable: true`; `nullable: false`
/// is dropped. A map without such a member keeps its members where they are (only their
/// values are normalised); one with such a member is rebuilt from its own members, in the
/// order the reference gives.
pub fn normalize_in_place(v: &mut Value) {
    if let Value::Object(m) = v {
        if m.iter().any(|(k, x)| rewritten(k, x)) {
            *m = rebuilt(std::mem::take(m));
        } else {
            values_normalized(m).for_each(normalize_member);
        }
    }
}

/// The values of a map's members that are normalised where they are: all but a list of
/// types, kept as written whatever its items.
fn values_normalized(m: &mut Map<String, Value>) -> impl Iterator<Item = &mut Value> {
    m.iter_mut()
        .filter(|(k, x)| !(*k == "type" && x.is_array()))
        .map(|(_, x)| x)
}

/// A member's value normalised: a map as a schema, an array's maps each (the reference
/// reads an array's items as schemas, not an array inside them).
fn normalize_member(x: &mut Value) {
    match x {
        Value::Array(a) => a.iter_mut().for_each(normalize_in_place),
        _ => normalize_in_place(x),
    }
}

/// Whether the member `k: x` changes its map's members (not only its own value): a null
/// branch of `anyOf`/`oneOf`, a `"null"` type, `x-nullable`, or `nullable` other than
/// `true` (which stays where it is).
fn rewritten(k: &str, x: &Value) -> bool {
    match (k, x) {
        ("anyOf" | "oneOf", Value::Array(a)) => a.iter().any(is_null_schema),
        ("type", Value::Array(a)) => a.iter().any(|t| t.as_str() == Some("null")),
        ("x-nullable", _) => true,
        ("nullable", x) => *x != Value::Bool(true),
        _ => false,
    }
}

/// A map with a [`rewritten`] member, normalised from its own members.
fn rebuilt(m: Map<String, Value>) -> Map<String, Value> {
    let normalized = |mut x: Value| {
        normalize_member(&mut x);
        x
    };
    let mut out = Map::with_capacity(m.len());
    for (k, value) in m {
        match (k.as_str(), value) {
            ("anyOf" | "oneOf", Value::Array(a)) => {
                let all = a.len();
                let mut non_null: Vec<Value> =
                    a.into_iter().filter(|x| !is_null_schema(x)).collect();
                let has_null = non_null.len() < all;
                if has_null && non_null.len() == 1 {
                    if let Some(Value::Object(merged)) = non_null.pop().map(normalized) {
                        for (mk, mv) in merged {
                            out.insert(mk, mv);
                        }
                    }
                    out.insert("nullable".into(), Value::Bool(true));
                    continue;
                }
                non_null.iter_mut().for_each(normalize_in_place);
                out.insert(k, Value::Array(non_null));
                if has_null {
                    out.insert("nullable".into(), Value::Bool(true));
                }
            }
            ("type", Value::Array(a)) => {
                let all = a.len();
                let mut types: Vec<Value> = a
                    .into_iter()
                    .filter(|x| x.as_str() != Some("null"))
                    .collect();
                if types.len() < all {
                    out.insert("nullable".into(), Value::Bool(true));
                    let t = match types.len() {
                        0 => json!("string"),
                        1 => types.pop().unwrap_or_default(),
                        _ => Value::Array(types),
                    };
                    out.insert(k, t);
                } else {
                    out.insert(k, Value::Array(types));
                }
            }
            ("x-nullable", value) => {
                if truthy(&value) {
                    out.insert("nullable".into(), Value::Bool(true));
                }
            }
            ("nullable", value) => {
                if truthy(&value) || out.get("nullable").is_some_and(truthy) {
                    out.insert("nullable".into(), Value::Bool(true));
                }
            }
            (_, value) => {
                out.insert(k, normalized(value));
            }
        }
    }
    out
}

/// The reference's `_normalize_nullable_markers` on a copy (the test oracle of
/// [`normalize_in_place`]): `x-nullable`, `type: [X, "null"]` and
/// null branches of `anyOf`/`oneOf` become `nullable: true`; `nullable: false` is dropped.
#[cfg(test)]
fn normalize_nullable(v: &Value) -> Value {
    let Value::Object(m) = v else {
        return v.clone();
    };
    let mut out = Map::with_capacity(m.len());
    for (k, value) in m {
        match (k.as_str(), value) {
            ("anyOf" | "oneOf", Value::Array(a)) => {
                let non_null: Vec<&Value> = a.iter().filter(|x| !is_null_schema(x)).collect();
                let has_null = non_null.len() < a.len();
                if has_null && non_null.len() == 1 {
                    if let Value::Object(merged) = normalize_nullable(non_null[0]) {
                        for (mk, mv) in merged {
                            out.insert(mk, mv);
                        }
                    }
                    out.insert("nullable".into(), Value::Bool(true));
                    continue;
                }
                out.insert(
                    k.clone(),
                    Value::Array(non_null.into_iter().map(normalize_nullable).collect()),
                );
                if has_null {
                    out.insert("nullable".into(), Value::Bool(true));
                }
            }
            ("type", Value::Array(a)) => {
                let types: Vec<&Value> = a.iter().filter(|x| x.as_str() != Some("null")).collect();
                if types.len() < a.len() {
                    out.insert("nullable".into(), Value::Bool(true));
                    let t = match types.len() {
                        0 => json!("string"),
                        1 => types[0].clone(),
                        _ => Value::Array(types.into_iter().cloned().collect()),
                    };
                    out.insert(k.clone(), t);
                } else {
                    out.insert(k.clone(), value.clone());
                }
            }
            ("x-nullable", _) => {
                if truthy(value) {
                    out.insert("nullable".into(), Value::Bool(true));
                }
            }
            ("nullable", _) => {
                if truthy(value) || out.get("nullable").is_some_and(truthy) {
                    out.insert("nullable".into(), Value::Bool(true));
                }
            }
            (_, Value::Object(_)) => {
                out.insert(k.clone(), normalize_nullable(value));
            }
            (_, Value::Array(a)) => {
                out.insert(
                    k.clone(),
                    Value::Array(a.iter().map(normalize_nullable).collect()),
                );
            }
            _ => {
                out.insert(k.clone(), value.clone());
            }
        }
    }
    Value::Object(out)
}

/// [`normalize_in_place`] of a large map (the paths, the schema components), its members
/// normalised in parallel when none of them changes the map itself.
fn normalize_members(v: &mut Value) {
    match v {
        Value::Object(m)
            if m.len() >= crate::par::MIN_PARALLEL && !m.iter().any(|(k, x)| rewritten(k, x)) =>
        {
            let mut members: Vec<&mut Value> = values_normalized(m).collect();
            crate::par::for_each_mut(&mut members, |x| normalize_member(x));
        }
        _ => normalize_in_place(v),
    }
}

/// Normalises the spec's `paths` and schema components in place (the reference resolves
/// against that); every other member stays as it is.
pub(super) fn normalize_spec(spec: &mut Value, swagger: bool) {
    let Value::Object(m) = spec else {
        return;
    };
    for (k, v) in m.iter_mut() {
        match k.as_str() {
            "paths" => normalize_members(v),
            "definitions" if swagger => normalize_members(v),
            "components" if !swagger => {
                if let Some(schemas) = v.as_object_mut().and_then(|c| c.get_mut("schemas")) {
                    normalize_members(schemas);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Schemas whose keys are often the ones the normalisation rewrites, with null branches,
    /// null types and every kind of `nullable` value, nested.
    fn arb_schema() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (0i64..3).prop_map(|i| json!(i)),
            prop_oneof![Just("null"), Just("string"), Just("integer"), Just("")]
                .prop_map(|s| json!(s)),
            Just(json!({"type": "null"})),
            Just(json!(["string", "null"])),
        ];
        let key = prop_oneof![
            Just("anyOf"),
            Just("oneOf"),
            Just("type"),
            Just("nullable"),
            Just("x-nullable"),
            Just("description"),
            Just("properties"),
            Just("items"),
            Just("a"),
        ];
        leaf.prop_recursive(4, 64, 5, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                proptest::collection::vec((key.clone(), inner), 0..6).prop_map(|m| Value::Object(
                    m.into_iter().map(|(k, v)| (k.into(), v)).collect()
                )),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(10_000))]
        /// In place gives the copy's text, member order included (a map compares equal
        /// whatever its order).
        #[test]
        fn in_place_is_the_copy_member_for_member(v in arb_schema()) {
            let want = serde_json::to_string(&normalize_nullable(&v)).unwrap();
            let mut got = v.clone();
            normalize_in_place(&mut got);
            prop_assert_eq!(serde_json::to_string(&got).unwrap(), want);
        }
    }

    /// The spec's paths and schemas, big (normalised in parallel) and small, are normalised
    /// as the copy would be; other members are left alone.
    #[test]
    fn spec_normalised_in_place_as_the_copy_would_be() {
        let member = |i: usize| {
            json!({"get": {"responses": {"200": {"content": {"application/json": {"schema":
                {"anyOf": [{"$ref": format!("#/components/schemas/S{i}")}, {"type": "null"}],
                 "description": "d", "nullable": false}}}}}},
                "x": {"type": ["integer", "null"], "x-nullable": i.is_multiple_of(2)}})
        };
        for n in [3, 64, 200] {
            let mut paths: Map<String, Value> =
                (0..n).map(|i| (format!("/p{i}"), member(i))).collect();
            // a list of types is kept as written, even among a big map's members
            paths.insert(
                "type".into(),
                json!([{"nullable": null, "x-nullable": true}]),
            );
            let schemas: Map<String, Value> =
                (0..n).map(|i| (format!("S{i}"), member(i))).collect();
            for swagger in [false, true] {
                let spec = json!({
                    "paths": paths, "components": {"schemas": schemas, "other": member(0)},
                    "definitions": schemas, "x-extra": member(1),
                });
                let mut want = spec.clone();
                let m = want.as_object_mut().unwrap();
                m["paths"] = normalize_nullable(&m["paths"]);
                if swagger {
                    m["definitions"] = normalize_nullable(&m["definitions"]);
                } else {
                    m["components"]["schemas"] = normalize_nullable(&m["components"]["schemas"]);
                }
                let mut got = spec.clone();
                normalize_spec(&mut got, swagger);
                assert_eq!(
                    serde_json::to_string(&got).unwrap(),
                    serde_json::to_string(&want).unwrap(),
                    "{n} members, swagger {swagger}"
                );
            }
        }
    }
}
