//! Merging a workflow relation's edge into the edge already there, as the graph's edge merge
//! does it (`merge_edges_with(old, new, false, EmptyValues::Skip)`, then the execution
//! direction), but in place once the edge carries evidence sources: a description can merge
//! thousands of relations into one edge, and rebuilding the edge (its evidence text and
//! parameter list grow with every merge) each time would cost time quadratic in them. The
//! result is the same map, key order included; parameter lists are unioned through a set of
//! their compact JSON kept per edge for one application.

use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::{Map, Value, json};

use crate::ingest::build::contracts::{EmptyValues, merge_edges_with};
use crate::ingest::schema::OutGraph;

/// Per edge: the compact JSON of the parameters its data flow lists.
#[derive(Default)]
pub struct Seen(FxHashMap<(String, String), FxHashSet<String>>);

fn compact(v: &Value) -> String {
    crate::ingest::artifact::to_compact(v)
}

fn rank(c: Option<&str>) -> i32 {
    match c {
        Some("EXTRACTED") => 3,
        Some("INFERRED") => 2,
        Some("AMBIGUOUS") => 1,
        _ => 0,
    }
}

fn empty(v: &Value) -> bool {
    v.is_null() || v.as_str() == Some("") || v.as_array().is_some_and(Vec::is_empty)
}

/// Merges `new` (a complete workflow edge) into the edge `s → t` of `g`, which exists.
pub fn merge(g: &mut OutGraph, s: &str, t: &str, new: &Map<String, Value>, seen: &mut Seen) {
    let Some(old) = g.edge_mut(s, t) else {
        return;
    };
    let sourced = old
        .get("evidence_sources")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty());
    if !sourced {
        // the first merge rebuilds the edge in the normalised key order
        let mut m = merge_edges_with(old, new, false, EmptyValues::Skip);
        m.entry("execution_direction")
            .or_insert(json!("source_to_target"));
        *old = m;
        return;
    }
    normalize(old);
    // evidence sources, confidence
    let mut sources = old["evidence_sources"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for x in new["evidence_sources"].as_array().into_iter().flatten() {
        if !sources.contains(x) {
            sources.push(x.clone());
        }
    }
    let (ca, cb) = (
        old["conf_score"].as_f64().unwrap_or(0.0),
        new["conf_score"].as_f64().unwrap_or(0.0),
    );
    let mut conf = ca.max(cb);
    if sources.len() > 1 {
        conf = (conf + 0.05 * (sources.len() as f64 - 1.0)).min(1.0);
    }
    old.insert("conf_score".into(), json!(conf));
    if rank(new["confidence"].as_str()) > rank(old["confidence"].as_str()) {
        old.insert("confidence".into(), new["confidence"].clone());
    }
    // evidence: appended unless empty or equal to the whole existing text
    let eb = new["evidence"].as_str().unwrap_or("");
    match old.get_mut("evidence") {
        Some(Value::String(ea)) if !eb.is_empty() && ea != eb => {
            if !ea.is_empty() {
                ea.push_str(" | ");
            }
            ea.push_str(eb);
        }
        Some(Value::String(_)) => {}
        _ => {
            old.insert("evidence".into(), json!(eb));
        }
    }
    let df_null = old["data_flow"].is_null();
    let key = (s.to_string(), t.to_string());
    merge_data_flow(
        old,
        &new["data_flow"],
        df_null,
        seen.0.entry(key).or_default(),
    );
    if new["kind"] == "data" {
        old.insert("kind".into(), json!("data"));
    }
    old.insert("evidence_sources".into(), Value::Array(sources));
    for k in ["is_manual", "deleted_by_user"] {
        let v = old[k].as_bool().unwrap_or(false) || new[k].as_bool().unwrap_or(false);
        old.insert(k.into(), json!(v));
    }
    old.entry("execution_direction")
        .or_insert(json!("source_to_target"));
}

/// `normalize_edge` of an edge with evidence sources, in place.
fn normalize(m: &mut Map<String, Value>) {
    let rel = crate::pytext::lower(m.get("relation").and_then(Value::as_str).unwrap_or(""));
    let kind = if matches!(rel.as_str(), "requires" | "precedes" | "produces_for") {
        "data"
    } else {
        "semantic"
    };
    m.insert("relation".into(), json!(rel));
    if m.get("confidence")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
    {
        m.insert("confidence".into(), json!("EXTRACTED"));
    }
    m.entry("kind").or_insert(json!(kind));
    m.entry("data_flow").or_insert(Value::Null);
    m.entry("is_manual").or_insert(json!(false));
    m.entry("deleted_by_user").or_insert(json!(false));
}

/// The data-flow merge: incoming values overwrite unless empty (an empty value adds a
/// missing key only to a null data flow), parameter lists are unioned, a link's own source
/// path survives a link-less flow.
fn merge_data_flow(
    old: &mut Map<String, Value>,
    inc: &Value,
    df_null: bool,
    seen: &mut FxHashSet<String>,
) {
    let Some(inc) = inc.as_object() else {
        if df_null {
            old.insert("data_flow".into(), Value::Null);
        }
        return;
    };
    if !old["data_flow"].is_object() {
        old.insert("data_flow".into(), json!({}));
    }
    let Some(Value::Object(df)) = old.get_mut("data_flow") else {
        return;
    };
    let keep_link_source = df.get("link_name").is_some_and(|v| !v.is_null())
        && inc.get("link_name").is_none_or(Value::is_null);
    for (k, v) in inc {
        if keep_link_source
            && (k == "from_path" || k == "from_field")
            && df.get(k).is_some_and(crate::pytext::truthy)
        {
            continue;
        }
        if k == "parameters"
            && let (Some(Value::Array(list)), Value::Array(add)) = (df.get_mut(k), v)
        {
            if seen.is_empty() {
                seen.extend(list.iter().map(compact));
            }
            for p in add {
                if seen.insert(compact(p)) {
                    list.push(p.clone());
                }
            }
            continue;
        }
        if !(empty(v) && (df.contains_key(k) || !df_null)) {
            df.insert(k.clone(), v.clone());
        }
    }
    if df.is_empty() && df_null {
        old.insert("data_flow".into(), Value::Null);
    }
}
