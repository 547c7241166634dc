//! Artifact diff on the demo graph and edited copies of it; every count is checked against
//! an independent count made on the JSON values.
#![cfg(test)]

use super::*;
use crate::model::load::load_graph_bytes_quiet;
use serde_json::json;

pub(crate) fn demo_value() -> Value {
    let bytes = crate::limits::gunzip("demo", crate::demo::DEMO_GRAPH_GZ.to_vec()).unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

pub(crate) fn engine_of(v: &Value) -> Engine {
    let text = serde_json::to_string_pretty(v).unwrap();
    Engine::new(
        load_graph_bytes_quiet("t.json", text.into_bytes())
            .unwrap()
            .0,
    )
}

fn side<'e>(label: &str, e: &'e Engine) -> Side<'e> {
    Side {
        label: label.into(),
        engine: e,
    }
}

/// The demo with: one description rewritten, `source_url` changed on every tool (not read
/// by the engine), one tool removed, one added, one renamed (same method and path), one
/// edge removed, one added and one relabelled.
pub(crate) fn edited() -> Value {
    let mut v = demo_value();
    let tools = v["tools"].as_object_mut().unwrap();
    for t in tools.values_mut() {
        t["metadata"]["source_url"] = json!("v2/commerce.yaml");
    }
    tools["getOrder"]["description"] = json!("Returns one order with its refund state");
    tools.shift_remove("getDailySalesStats");
    let mut added = tools["listOrders"].clone();
    added["name"] = json!("listOrdersV2");
    added["description"] = json!("Lists orders with refund filters");
    added["metadata"]["path"] = json!("/v2/orders");
    tools.insert("listOrdersV2".into(), added);
    let mut renamed = tools.shift_remove("cancelOrder").unwrap();
    renamed["name"] = json!("cancelOrderById");
    tools.insert("cancelOrderById".into(), renamed);
    let graph = v["graph"].as_object_mut().unwrap();
    for n in graph["nodes"].as_array_mut().unwrap() {
        match n["id"].as_str() {
            Some("cancelOrder") => n["id"] = json!("cancelOrderById"),
            Some("getDailySalesStats") => n["id"] = json!("listOrdersV2"),
            _ => {}
        }
    }
    let edges = graph["edges"].as_array_mut().unwrap();
    for e in edges.iter_mut() {
        for end in ["source", "target"] {
            if e[end] == "cancelOrder" {
                e[end] = json!("cancelOrderById");
            }
        }
    }
    edges.retain(|e| e["source"] != "getDailySalesStats" && e["target"] != "getDailySalesStats");
    edges.remove(0);
    edges[1]["relation"] = json!("precedes");
    edges.push(
        json!({"source": "listOrdersV2", "target": "getOrder", "relation": "requires",
        "confidence": "INFERRED", "evidence": "test"}),
    );
    v
}

#[test]
fn a_graph_against_itself_has_no_difference() {
    let e = engine_of(&demo_value());
    let d = diff(&side("a", &e), &side("b", &e));
    assert!(d.engine_identical());
    assert_eq!(d.tools.changed.len(), 0);
    assert_eq!(d.tools.unchanged, e.graph.tool_count());
    assert_eq!(d.edges.unchanged, e.graph.edge_count());
    assert!(!d.corpus.shifted());
    assert!(d.partial.is_empty());
    let text = report::text(&d, 20);
    assert!(text.contains("nothing the engine reads changed"), "{text}");
}

#[test]
fn edits_are_named_and_counted_as_an_independent_count_says() {
    let (old_v, new_v) = (demo_value(), edited());
    let (a, b) = (engine_of(&old_v), engine_of(&new_v));
    let d = diff(&side("old", &a), &side("new", &b));
    assert_eq!(
        d.tools.renamed,
        vec![("cancelOrder".into(), "cancelOrderById".into())]
    );
    assert_eq!(
        d.tools
            .added
            .iter()
            .map(|r| r.name.as_str())
            .collect::<Vec<_>>(),
        ["listOrdersV2"]
    );
    assert_eq!(
        d.tools
            .removed
            .iter()
            .map(|r| r.name.as_str())
            .collect::<Vec<_>>(),
        ["getDailySalesStats"]
    );
    // every common tool changed its source_url; only getOrder and the renamed tool (its
    // name is in its document) are visible
    let visible: Vec<&str> = d
        .tools
        .changed
        .iter()
        .filter(|c| c.engine_visible)
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(visible, ["getOrder", "cancelOrderById"]);
    let get = d
        .tools
        .changed
        .iter()
        .find(|c| c.name == "getOrder")
        .unwrap();
    assert_eq!(get.fields, ["description", "metadata", "indexed_text"]);
    assert!(
        get.tokens.gained.iter().any(|(t, _)| t == "refund"),
        "{:?}",
        get.tokens
    );
    assert_eq!(get.metadata_keys, ["source_url"]);
    let renamed = d
        .tools
        .changed
        .iter()
        .find(|c| c.name == "cancelOrderById")
        .unwrap();
    assert_eq!(renamed.renamed_from.as_deref(), Some("cancelOrder"));
    assert!(renamed.fields.contains(&"name"));
    // tools: independent count on the JSON (renames matched by name after the rename)
    let old_t = old_v["tools"].as_object().unwrap();
    let new_t = new_v["tools"].as_object().unwrap();
    let common = old_t.keys().filter(|k| new_t.contains_key(*k)).count();
    assert_eq!(d.tools.changed.len() + d.tools.unchanged, common + 1);
    // edges: an independent count by endpoints, the rename applied to the old side
    let ends = |v: &Value, rename: bool| -> std::collections::BTreeSet<(String, String)> {
        v["graph"]["edges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let f = |s: &Value| {
                    let s = s.as_str().unwrap().to_string();
                    if rename && s == "cancelOrder" {
                        "cancelOrderById".into()
                    } else {
                        s
                    }
                };
                (f(&e["source"]), f(&e["target"]))
            })
            .collect()
    };
    let (eo, en) = (ends(&old_v, true), ends(&new_v, false));
    assert_eq!(d.edges.added.len(), en.difference(&eo).count());
    assert_eq!(d.edges.removed.len(), eo.difference(&en).count());
    assert_eq!(d.edges.changed.len(), 1);
    assert!(d.edges.changed[0].engine_visible);
    assert_eq!(d.edges.changed[0].fields[0].0, "relation");
    // corpus: one document fewer and one more
    assert_eq!(d.corpus.documents, (123, 123));
    assert!(d.corpus.shifted());
    assert!(d.corpus.idf_moves.iter().any(|m| m.term == "refund"));
    assert!(!d.engine_identical());
}

#[test]
fn json_follows_the_contract() {
    let (a, b) = (engine_of(&demo_value()), engine_of(&edited()));
    let d = diff(&side("old", &a), &side("new", &b));
    let v: Value = serde_json::from_str(&report::json(&d)).unwrap();
    assert_eq!(
        v["tools"]["renamed"],
        json!([["cancelOrder", "cancelOrderById"]])
    );
    assert_eq!(v["tools"]["added"], json!(["listOrdersV2"]));
    assert_eq!(v["tools"]["removed"], json!(["getDailySalesStats"]));
    let changed = v["tools"]["changed"].as_array().unwrap();
    let get = changed.iter().find(|c| c["name"] == "getOrder").unwrap();
    assert_eq!(
        get["fields"],
        json!(["description", "metadata", "indexed_text"])
    );
    assert_eq!(v["edges"]["counts"]["changed"], 1);
    assert_eq!(
        v["edges"]["counts"]["added"].as_u64().unwrap() as usize,
        v["edges"]["added"].as_array().unwrap().len()
    );
    assert_eq!(v["corpus"]["documents"], json!([123, 123]));
    assert_eq!(
        v["versions"]["engine_profile"],
        json!(["graphify-0.47", "graphify-0.47"])
    );
    assert_eq!(v["comparison"], "full");
    let text = report::text(&d, 5);
    for want in [
        "+1 added  -1 removed  1 renamed",
        "cancelOrder -> cancelOrderById",
        "getOrder  description, metadata, indexed_text",
        "Changed in metadata the engine does not read (",
        "source_url (",
    ] {
        assert!(text.contains(want), "{want:?} missing from\n{text}");
    }
}

#[test]
fn a_saved_graph_against_an_artifact_is_partial() {
    let full = demo_value();
    let mut bare = json!({"format_version": "1", "graph": full["graph"], "tools": full["tools"]});
    bare["graph"]["edges"] = json!([]);
    let (a, b) = (engine_of(&full), engine_of(&bare));
    let d = diff(&side("old", &a), &side("new", &b));
    assert!(!d.partial.is_empty());
    assert!(
        d.partial
            .iter()
            .any(|p| p.contains("semantic_summary only in OLD")),
        "{:?}",
        d.partial
    );
    assert_eq!(d.edges.removed.len(), a.graph.edge_count());
}

/// A contract row whose name stays but whose content changes is one changed row naming
/// the keys that differ, not a removal beside an addition; a new row is an addition.
#[test]
fn a_changed_contract_row_is_named_with_its_differing_keys() {
    let old_v = demo_value();
    let mut new_v = old_v.clone();
    let md = &mut new_v["tools"]["getOrder"]["metadata"];
    md["produces"][0]["json_path"] = json!("$.payment.paymentId");
    md["produces"][0]["signal_score"] = json!(7);
    let mut extra = md["produces"][0].clone();
    extra["field_name"] = json!("refundId");
    md["produces"].as_array_mut().unwrap().push(extra);
    let (old, new) = (engine_of(&old_v), engine_of(&new_v));
    let d = diff(&side("old", &old), &side("new", &new));
    let get = d
        .tools
        .changed
        .iter()
        .find(|c| c.name == "getOrder")
        .unwrap();
    assert!(get.fields.contains(&"contract"), "{:?}", get.fields);
    assert_eq!(
        get.contract.changed,
        ["produces paymentId (json_path, signal_score)"]
    );
    assert_eq!(get.contract.added, ["produces refundId"]);
    assert!(get.contract.removed.is_empty(), "{:?}", get.contract);
    let text = report::text(&d, 50);
    assert!(
        text.contains("~produces paymentId (json_path, signal_score)"),
        "{text}"
    );
}
