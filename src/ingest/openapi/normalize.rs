//! The reference's nullable normalisation (`_normalize_nullable_markers`) of the spec's
//! `paths` and schema components before any `$ref` is resolved.

use serde_json::{Map, Value, json};

use crate::pytext::truthy;

fn is_null_schema(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str) == Some("null")
}

/// The reference's `_normalize_nullable_markers`: `x-nullable`, `type: [X, "null"]` and
/// null branches of `anyOf`/`oneOf` become `nullable: true`; `nullable: false` is dropped.
pub fn normalize_nullable(v: &Value) -> Value {
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

/// [`normalize_nullable`] of a large map (the paths, the schema components), its members
/// normalised in parallel when none of its own keys is one the normalisation rewrites.
fn normalize_members(v: &Value) -> Value {
    const REWRITTEN: &[&str] = &["anyOf", "oneOf", "type", "x-nullable", "nullable"];
    let Value::Object(m) = v else {
        return normalize_nullable(v);
    };
    if m.len() < 64 || m.keys().any(|k| REWRITTEN.contains(&k.as_str())) {
        return normalize_nullable(v);
    }
    let members: Vec<(&String, &Value)> = m.iter().collect();
    let values = crate::par::map(&members, |&(_, x)| match x {
        Value::Object(_) => normalize_nullable(x),
        Value::Array(a) => Value::Array(a.iter().map(normalize_nullable).collect()),
        other => other.clone(),
    });
    Value::Object(
        members
            .iter()
            .zip(values)
            .map(|((k, _), x)| ((*k).clone(), x))
            .collect(),
    )
}

/// A copy of the spec with `paths` and the schema components normalised.
pub(super) fn normalize_spec(spec: &Value, swagger: bool) -> Value {
    let Value::Object(m) = spec else {
        return spec.clone();
    };
    let mut out = Map::with_capacity(m.len());
    for (k, v) in m {
        let nv = match k.as_str() {
            "paths" => normalize_members(v),
            "definitions" if swagger => normalize_members(v),
            "components" if !swagger => match v {
                Value::Object(c) => {
                    let mut cm = Map::with_capacity(c.len());
                    for (ck, cv) in c {
                        cm.insert(
                            ck.clone(),
                            if ck == "schemas" {
                                normalize_members(cv)
                            } else {
                                cv.clone()
                            },
                        );
                    }
                    Value::Object(cm)
                }
                o => o.clone(),
            },
            _ => v.clone(),
        };
        out.insert(k.clone(), nv);
    }
    Value::Object(out)
}
