//! Triage on the embedded demo graph: every class is assigned by its definition and in the
//! issue's order, every reported tree checks, deficits are the engine's numbers, probes are
//! single-knob re-runs, and document probes equal a full index rebuild. On the golden graphs
//! every class (and sub-cause) is exercised by a real case with its key evidence values.
#![cfg(test)]

use super::*;
use crate::engine::Engine;
use crate::engine::index::Index;
use crate::engine::retrieve::seed_stages;

fn demo() -> Engine {
    Engine::new(crate::demo::load_demo().unwrap())
}

fn quiet() -> TriageOptions {
    TriageOptions {
        probes: false,
        document_probes: false,
        flood_threshold: 3,
    }
}

/// The definitions of the classes, written independently of `classify`.
fn holds(class: &str, t: &Triage, sel: &Selection, rows: &[String]) -> bool {
    let x = t.expected.as_str();
    let rank = rows.iter().position(|r| r == x);
    match class {
        "selected" => sel.selected_target == x,
        "not_retrieved" => rank.is_none(),
        "selector_ambiguous" => sel.ambiguous && sel.selected_target != x,
        "selector_overrode_llm" => sel.llm_target.as_deref() == Some(x) && sel.overrode_llm,
        "selector_kept_llm_target" => sel
            .llm_target
            .as_deref()
            .is_some_and(|l| l != x && sel.selected_target == l && !sel.overrode_llm),
        "selector_chose_other" => rank == Some(0) && sel.selected_target != x,
        "outranked" => rank.is_some_and(|r| r > 0) && sel.selected_target != x,
        _ => false,
    }
}

/// Triage of every (query, candidate, LLM target) combination of the demo queries: the
/// assigned class is the first whose definition holds.
#[test]
fn each_case_gets_the_first_class_that_applies_and_every_class_occurs() {
    let e = demo();
    let mut seen: Vec<&str> = Vec::new();
    let mut n = 0;
    for q in crate::demo::demo_queries() {
        let base = Knobs::default();
        let r = e.retrieve(q, &base.params);
        let rows: Vec<String> = r.rows.iter().map(|r| r.name.clone()).collect();
        let mut llms: Vec<Option<String>> = vec![None];
        llms.extend(rows.iter().take(4).cloned().map(Some));
        for llm in llms {
            let mut knobs = base.clone();
            knobs.select.llm_target = llm;
            let sel = e.select(&r, &knobs.select);
            let mut expected: Vec<String> = rows.iter().take(5).cloned().collect();
            expected.push(e.graph.tool_key(0).to_string());
            for x in expected {
                let t = triage(&e, q, std::slice::from_ref(&x), &knobs, &quiet()).unwrap();
                let first = CLASSES
                    .iter()
                    .find(|c| holds(c, &t, &sel, &rows))
                    .copied()
                    .unwrap();
                assert_eq!(t.class.as_str(), first, "{q:?} expected {x}");
                assert_eq!(
                    t.mechanism_status,
                    Status::Resolved,
                    "{:?}",
                    t.check_failures
                );
                if !seen.contains(&first) {
                    seen.push(first);
                }
                n += 1;
            }
        }
    }
    for c in CLASSES {
        assert!(seen.contains(c), "no demo case of class {c} among {n}");
    }
}

#[test]
fn not_retrieved_sub_causes() {
    let e = demo();
    let k = Knobs::default();
    let t = triage(
        &e,
        "approve refund",
        &["getOperatorPermissions".into()],
        &k,
        &quiet(),
    )
    .unwrap();
    assert_eq!(t.class.sub_cause(), Some(SubCause::NoTermOverlap));
    assert_eq!(t.full_rank, None);
    let t = triage(&e, "approve refund", &["listOrders".into()], &k, &quiet()).unwrap();
    assert_eq!(t.class.sub_cause(), Some(SubCause::BelowCutoff));
    assert!(t.full_rank.unwrap() > 10);
    // a full ranking position past the cut agrees with a retrieval at a larger top_k
    let mut wide = k.params.clone();
    wide.top_k = 200;
    let r = e.retrieve("approve refund", &wide);
    let pos = r.rows.iter().position(|r| r.name == "listOrders").unwrap() + 1;
    assert_eq!(t.full_rank, Some(pos));
    let t = triage(
        &e,
        "get payment of an order",
        &["getOperatorPermissions".into()],
        &k,
        &quiet(),
    )
    .unwrap();
    assert_eq!(t.class.sub_cause(), Some(SubCause::NotReachable));
    let FailureClass::NotRetrieved {
        bm25_rank, hops, ..
    } = &t.class
    else {
        unreachable!()
    };
    assert!(bm25_rank.unwrap() > 5, "not among the five seeds");
    let p = t.path.as_ref().unwrap();
    assert!(!p.entered);
    assert_eq!(*hops, p.hops_needed());
    if let Some(h) = hops {
        assert!(*h > k.params.depth);
        assert!(p.reasons.contains(&deficit::PathReason::Depth {
            needed: *h,
            limit: k.params.depth
        }));
    }
}

#[test]
fn deficits_are_the_engines_numbers() {
    let e = demo();
    let k = Knobs::default();
    for (q, x) in [
        ("approve refund", "listOrders"),
        ("count orders by status", "listOrders"),
        ("get payment of an order", "getOperatorPermissions"),
        ("list orders", "countOrders"),
    ] {
        let t = triage(&e, q, &[x.into()], &k, &quiet()).unwrap();
        assert!(!t.deficit.is_empty(), "{q}");
        let st = seed_stages(&e, q, &k.params).unwrap();
        for d in &t.deficit {
            for side in [&d.x, &d.other] {
                for tree in side.bm25_tree.iter().chain(side.score_tree.iter()) {
                    assert_eq!(tree.check().0, Status::Resolved, "{q} {}", side.name);
                }
                if let (Some(b), Some(tree)) = (side.bm25, &side.bm25_tree) {
                    assert_eq!(b, tree.value);
                }
                let parts: f64 = d
                    .terms
                    .iter()
                    .filter_map(|r| {
                        if std::ptr::eq(side, &d.x) {
                            r.x
                        } else {
                            r.other
                        }
                    })
                    .map(|h| h.part)
                    .fold(0.0, |a, b| a + b);
                match side.parts {
                    Some(p) => assert_eq!(p.sum, parts, "{q} {}", side.name),
                    None => assert_eq!(parts, 0.0),
                }
                if let Some((_, raw)) = st.seeds.iter().find(|s| s.0 == side.tool) {
                    assert_eq!(side.bm25, Some(*raw), "a seed's BM25 is its raw seed score");
                }
            }
            for (term, idf) in &d.x_missing_terms {
                let tok = st.plan.tokens.iter().find(|t| t.text == *term).unwrap();
                assert_eq!(*idf, tok.term.map(|t| e.index.idf(t)));
                assert!(tok.term.is_none_or(|t| e.index.tf(t, d.x.tool) == 0));
            }
        }
    }
}

#[test]
fn outranked_lists_every_tool_above_with_channel_differences() {
    let e = demo();
    let k = Knobs::default();
    let t = triage(
        &e,
        "count orders by status",
        &["listOrders".into()],
        &k,
        &quiet(),
    )
    .unwrap();
    let FailureClass::Outranked { rank } = t.class else {
        panic!("{:?}", t.class)
    };
    assert_eq!(t.above.len(), rank - 1);
    let r = e.retrieve("count orders by status", &k.params);
    for (i, a) in t.above.iter().enumerate() {
        assert_eq!(a.name, r.rows[i].name);
        assert_eq!(a.seed.other, r.rows[i].breakdown.seed);
        assert_eq!(a.seed.x, r.rows[rank - 1].breakdown.seed);
        assert!(a.score.diff() >= 0.0);
    }
}

#[test]
fn unknown_expected_names_the_closest_tools() {
    let e = demo();
    let err = triage(
        &e,
        "approve refund",
        &["listOrder".into()],
        &Knobs::default(),
        &quiet(),
    )
    .unwrap_err();
    let TriageError::UnknownTool { closest, .. } = &err else {
        panic!()
    };
    assert!(closest.contains(&"listOrders".to_string()), "{err}");
    assert!(err.to_string().contains("closest names: "), "{err}");
    assert_eq!(
        triage(&e, "x", &[], &Knobs::default(), &quiet()).unwrap_err(),
        TriageError::NoExpected
    );
    // odd inputs do not panic
    for q in ["", " ", "🙂", &"z".repeat(5000)] {
        let t = triage(&e, q, &["listOrders".into()], &Knobs::default(), &quiet()).unwrap();
        assert_eq!(t.class.as_str(), "not_retrieved");
    }
}

/// The patched view gives the BM25 candidates of a full rebuild, bit for bit, and the same
/// ranking.
#[test]
fn document_probes_equal_a_full_rebuild() {
    let e = demo();
    let k = Knobs::default();
    let mut checked = 0;
    for (q, x) in [
        ("approve refund", "listOrders"),
        ("get payment of an order", "getOperatorPermissions"),
        ("member detail", "countOrders"),
        ("환불 목록 조회", "listOrders"),
    ] {
        let tool = e.graph.tool_id(x).unwrap();
        let st = seed_stages(&e, q, &k.params).unwrap();
        for (term, _) in deficit::missing_terms(&e, &st, tool) {
            let patch = crate::engine::docpatch::DocPatch::new(&e.index, tool, &term);
            let mut rebuilt = Engine::new(crate::demo::load_demo().unwrap());
            rebuilt.index =
                Index::build_with_extra_token(&e.graph, e.tokenizer.as_ref(), tool, &term);
            assert_eq!(rebuilt.index.avgdl, patch.avgdl_after);
            let view = patch.view(&e.index);
            let plan_p =
                crate::engine::query::QueryPlan::with_terms(q, &view, e.tokenizer.as_ref());
            let plan_r =
                crate::engine::query::QueryPlan::new(q, &rebuilt.index, e.tokenizer.as_ref());
            let mut s = Vec::new();
            let a = view.bm25_candidates(&plan_p, &mut s);
            let b = crate::engine::query::bm25_candidates(&rebuilt.index, &plan_r, &mut s);
            let bits = |v: &[(ToolId, f64)]| -> Vec<(ToolId, u64)> {
                v.iter().map(|(d, x)| (*d, x.to_bits())).collect()
            };
            assert_eq!(bits(&a), bits(&b), "{q} +{term}");
            let names = |v: Vec<ToolId>| -> Vec<String> {
                v.into_iter()
                    .map(|t| e.graph.tool_key(t).to_string())
                    .collect()
            };
            let pa = names(probes::top_tools(&e, q, &k.params, Some(&patch)));
            let rb: Vec<String> = rebuilt
                .retrieve(q, &k.params)
                .rows
                .iter()
                .map(|r| r.name.clone())
                .collect();
            assert_eq!(pa, rb, "{q} +{term}");
            checked += 1;
        }
    }
    assert!(checked >= 4, "{checked}");
}

#[test]
fn probes_are_single_knob_reruns() {
    let e = demo();
    let k = Knobs::default();
    let t = triage(
        &e,
        "approve refund",
        &["listOrders".into()],
        &k,
        &TriageOptions::default(),
    )
    .unwrap();
    assert!(!t.probes.is_empty());
    let mut docs = 0;
    for p in &t.probes {
        match &p.change {
            ProbeChange::Knob { set, .. } => {
                let v = k.set_from_str(set).unwrap();
                assert_eq!(k.diff(&v).len(), 1, "{set}");
                assert_eq!(p.mechanism_status, Status::Resolved);
                let r = e.retrieve("approve refund", &v.params);
                let base = Base::new(&e, "approve refund", &k);
                let knob = set.split('=').next().unwrap();
                let shared = probes::variant_run(&e, "approve refund", &base, knob, &v);
                let (alone, _) =
                    crate::engine::retrieve::retrieve_full(&e, "approve refund", &v.params);
                assert_eq!(shared.retrieval, alone.retrieval, "{set}");
                assert_eq!(shared.ranking, alone.ranking, "{set}");
                assert_eq!(shared.retrieval, r, "{set}");
                let rank = r.rows.iter().position(|r| r.name == "listOrders");
                assert_eq!(p.rank, rank.map(|i| i + 1), "{set}");
                let sel = e.select(&r, &v.select);
                assert_eq!(p.selected_target, sel.selected_target, "{set}");
            }
            ProbeChange::Document { .. } => docs += 1,
        }
    }
    assert!(docs > 0);
    // probe wording is evidence, not advice
    for p in &t.probes {
        let n = p.note.to_lowercase();
        assert!(!n.contains("should") && !n.contains("recommend"), "{n}");
    }
    // a selected case runs no probes
    let r = e.retrieve("approve refund", &k.params);
    let sel = e.select(&r, &k.select);
    let t = triage(
        &e,
        "approve refund",
        &[sel.selected_target],
        &k,
        &TriageOptions::default(),
    )
    .unwrap();
    assert!(t.probes.is_empty());
}

#[test]
fn json_has_the_contract_keys() {
    let e = demo();
    let t = triage(
        &e,
        "approve refund",
        &["listOrders".into(), "approveRefund".into()],
        &Knobs::default(),
        &TriageOptions::default(),
    );
    let t = match t {
        Ok(t) => t,
        Err(_) => triage(
            &e,
            "approve refund",
            &["listOrders".into()],
            &Knobs::default(),
            &TriageOptions::default(),
        )
        .unwrap(),
    };
    let opts = json::JsonOptions {
        probes: true,
        selector: true,
    };
    let v: serde_json::Value = serde_json::from_str(&json::to_json(&t, Some("c1"), opts)).unwrap();
    for k in [
        "case_id",
        "query",
        "expected",
        "class",
        "full_rank",
        "findings",
        "evidence",
        "probes",
        "mechanism_status",
    ] {
        assert!(v.get(k).is_some(), "{k}");
    }
    assert!(CLASSES.contains(&v["class"].as_str().unwrap()));
    let v: serde_json::Value = serde_json::from_str(&json::to_json(
        &t,
        None,
        json::JsonOptions {
            probes: false,
            selector: false,
        },
    ))
    .unwrap();
    assert!(v.get("probes").is_none() && v["evidence"].get("selection").is_none());
}

#[test]
fn the_retrieval_scope_hides_the_selector() {
    let e = demo();
    let k = Knobs::default();
    let r = e.retrieve("approve refund", &k.params);
    let sel = e.select(&r, &k.select);
    let t = triage(
        &e,
        "approve refund",
        std::slice::from_ref(&sel.selected_target),
        &k,
        &quiet(),
    )
    .unwrap();
    let opts = json::JsonOptions {
        probes: false,
        selector: false,
    };
    let v: serde_json::Value = serde_json::from_str(&json::to_json(&t, None, opts)).unwrap();
    assert_ne!(v["class"], "selected", "{v}");
    assert_eq!(v["class_scope"], "retrieval");
    assert!(!v.to_string().contains("\"selected\":true"), "{v}");
}

/// A golden graph of the shared corpus (None when the corpus is not next to the project).
fn golden(name: &str) -> Option<Engine> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/golden/graphs")
        .join(format!("{name}.json"));
    p.is_file()
        .then(|| Engine::new(crate::model::load::load_graph_file(&p).unwrap()))
}

/// The golden cases' parameters: top_k 5, depth 2, strong_evidence.
fn top5(llm: Option<&str>) -> Knobs {
    let mut k = Knobs::default();
    k.params.top_k = 5;
    k.select.llm_target = llm.map(String::from);
    k
}

/// Triage of one golden case, checked against `retrieve` + `select` run on their own: the
/// rank, the reported row and the selector's verdict are the same stages' values.
fn case(e: &Engine, q: &str, x: &str, llm: Option<&str>) -> Triage {
    let k = top5(llm);
    let t = triage(e, q, &[x.to_string()], &k, &quiet()).unwrap();
    let r = e.retrieve(q, &k.params);
    let sel = e.select(&r, &k.select);
    let pos = r.rows.iter().position(|row| row.name == x);
    assert_eq!(t.rank, pos.map(|i| i + 1), "{q}");
    assert_eq!(t.row.as_ref(), pos.map(|i| &r.rows[i]), "{q}");
    assert_eq!(t.selection, SelectionBrief::of(&sel), "{q}");
    assert_eq!(
        t.mechanism_status,
        Status::Resolved,
        "{q}: {:?}",
        t.check_failures
    );
    let rows: Vec<String> = r.rows.iter().map(|r| r.name.clone()).collect();
    let first = CLASSES.iter().find(|c| holds(c, &t, &sel, &rows)).unwrap();
    assert_eq!(t.class.as_str(), *first, "{q}");
    t
}

#[test]
fn golden_cases_exercise_every_class() {
    let (Some(ec), Some(gh), Some(mx)) = (
        golden("ecommerce"),
        golden("github_subset"),
        golden("mcp_mixed"),
    ) else {
        return;
    };
    // selected
    let t = case(&ec, "Search for a product by name", "searchProducts", None);
    assert_eq!(t.class, FailureClass::Selected);
    assert_eq!((t.rank, t.full_rank), (Some(1), Some(1)));
    assert_eq!(t.row.as_ref().unwrap().rounded_score(), 1.0);
    // not_retrieved / below_cutoff: scored, past the cut, compared with winner and cutoff
    let t = case(&ec, "Show my order history", "getUserOrders", None);
    assert_eq!(t.class.sub_cause(), Some(SubCause::BelowCutoff));
    assert_eq!((t.rank, t.full_rank), (None, Some(17)));
    let against: Vec<&str> = t.deficit.iter().map(|d| d.against.as_str()).collect();
    assert_eq!(against, ["winner", "cutoff"]);
    assert_eq!(t.deficit[1].other.rank, Some(5));
    assert!(t.findings.iter().any(|f| f.kind() == "sibling_tie"));
    // its knob probes share the base stages and equal independent re-runs
    let k = top5(None);
    let q = "Show my order history";
    let base = Base::new(&ec, q, &k);
    for (knob, v) in probes::grid(&ec, &k, base.stages.as_ref().unwrap().label) {
        let var = k.set_from_str(&probes::set_text(knob, &v)).unwrap();
        let shared = probes::variant_run(&ec, q, &base, knob, &var);
        let (alone, _) = crate::engine::retrieve::retrieve_full(&ec, q, &var.params);
        assert_eq!(shared.retrieval, alone.retrieval, "{knob} {v}");
        assert_eq!(shared.ranking, alone.ranking, "{knob} {v}");
    }
    // not_retrieved / not_reachable: BM25 overlap, not a seed, no path within depth
    let t = case(&gh, "Remove star from a repository", "unstarRepo", None);
    let FailureClass::NotRetrieved {
        sub_cause: SubCause::NotReachable,
        full_rank: None,
        bm25_rank: Some(b),
        ..
    } = t.class
    else {
        panic!("{:?}", t.class)
    };
    assert!(b > 5, "{b}");
    // not_retrieved / no_term_overlap
    let t = case(
        &mx,
        "Open a website, fill the search box, and click search",
        "browser_navigate",
        None,
    );
    let FailureClass::NotRetrieved {
        sub_cause: SubCause::NoTermOverlap,
        full_rank: None,
        bm25_rank: None,
        ..
    } = t.class
    else {
        panic!("{:?}", t.class)
    };
    // selector_ambiguous
    let t = case(&ec, "Cancel my order", "cancelOrder", None);
    let FailureClass::SelectorAmbiguous {
        selected,
        reason_codes,
        margin,
        x,
        ..
    } = &t.class
    else {
        panic!("{:?}", t.class)
    };
    assert_eq!((selected.as_str(), *margin), ("requestRefund", 0.07));
    assert_eq!(reason_codes, &["ambiguous_target"]);
    assert_eq!(x.as_ref().unwrap().name, "cancelOrder");
    // selector_overrode_llm
    let t = case(
        &ec,
        "Search for a product by name",
        "createProduct",
        Some("createProduct"),
    );
    let FailureClass::SelectorOverrodeLlm {
        selected,
        llm_margin,
        supporting_sources,
    } = &t.class
    else {
        panic!("{:?}", t.class)
    };
    assert_eq!(
        (selected.as_str(), *llm_margin),
        ("searchProducts", Some(0.82))
    );
    assert!(supporting_sources.contains(&"contrastive_qualifier_match"));
    // selector_kept_llm_target
    let t = case(
        &ec,
        "See product reviews before buying",
        "listProductReviews",
        Some("getProductInventory"),
    );
    let FailureClass::SelectorKeptLlmTarget {
        llm_target,
        margin,
        kept,
        ..
    } = &t.class
    else {
        panic!("{:?}", t.class)
    };
    assert_eq!(
        (llm_target.as_str(), *margin),
        ("getProductInventory", 0.236667)
    );
    assert_eq!(kept.as_ref().unwrap().original_rank, Some(4));
    // selector_chose_other: first by rank, another selected
    let t = case(&ec, "Add a product to my wishlist", "addToWishlist", None);
    let FailureClass::SelectorChoseOther { selected, x, .. } = &t.class else {
        panic!("{:?}", t.class)
    };
    assert_eq!(selected, "getWishlist");
    assert_eq!(x.as_ref().unwrap().original_rank, Some(1));
    // outranked: every tool above it, channel by channel
    let t = case(
        &ec,
        "See product reviews before buying",
        "listProductReviews",
        None,
    );
    assert_eq!(t.class, FailureClass::Outranked { rank: 2 });
    assert_eq!(t.above.len(), 1);
    let r = ec.retrieve("See product reviews before buying", &top5(None).params);
    let a = &t.above[0];
    assert_eq!(a.name, r.rows[0].name);
    assert_eq!(
        (a.seed.other, a.seed.x),
        (r.rows[0].breakdown.seed, r.rows[1].breakdown.seed)
    );
    assert_eq!(a.score.diff(), r.rows[0].score - r.rows[1].score);
}
