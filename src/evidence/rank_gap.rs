//! `explain_rank_gap`: the triage of one query and one named tool
//! ([`crate::engine::triage::triage`]) as a read-only evidence tool — the failure class,
//! findings, the deficit decomposition, the tools above it channel by channel and the
//! expansion path, in the JSON shape of `toolscope triage --json`
//! ([`crate::engine::triage::json::write_fields`]), plus provenance and limitations.
//!
//! The triage runs with no probes of either kind, for every audience: a probe list is one
//! step from an action recommendation, so it stays in the operator's `toolscope triage`.
//! Model-facing callers get the retrieval scope (no selector verdict, the retrieval-stage
//! class only) and may not set the selector's knobs. An `expected` name that is not a tool
//! of the graph is an invalid argument naming it and the closest tool names.

use serde_json::{Map, Value};

use super::contracts::Audience;
use super::knobs::{Knobs, SELECTOR_KNOBS};
use super::tools::{Session, ToolError};
use crate::engine::PROFILE;
use crate::engine::triage::json::{JsonOptions, write_fields};
use crate::engine::triage::{TriageError, TriageOptions, triage};
use crate::jsonout::JsonWriter;

/// The triage this tool runs: the defaults without any probe.
pub fn options() -> TriageOptions {
    TriageOptions {
        probes: false,
        document_probes: false,
        ..TriageOptions::default()
    }
}

/// What the tool writes of a triage for an audience: never the probes; the selector's
/// verdict and classes for operators only.
pub fn json_options(audience: Audience) -> JsonOptions {
    JsonOptions {
        probes: false,
        selector: audience == Audience::Operator,
    }
}

impl Session<'_> {
    /// The knobs of a call: `params` on the session's base, then the `llm_target` and
    /// `policy` arguments (each given once: as an argument or in `params`), through the one
    /// knob parser; a model-facing caller may not change the selector's knobs.
    fn rank_gap_knobs(&self, args: &Map<String, Value>) -> Result<Knobs, ToolError> {
        let knobs = self.knobs_arg(args, "params")?;
        let mut top = Map::new();
        for k in &SELECTOR_KNOBS {
            let Some(v) = args.get(*k).filter(|v| !v.is_null()) else {
                continue;
            };
            if args.get("params").and_then(|p| p.get(*k)).is_some() {
                return Err(ToolError::InvalidArguments(format!(
                    "{k}: given both as an argument and in params; give it once"
                )));
            }
            top.insert(k.to_string(), v.clone());
        }
        let knobs = knobs.with(&top).map_err(ToolError::InvalidArguments)?;
        if self.audience == Audience::Model && knobs.select != self.base_knobs.select {
            let arg = SELECTOR_KNOBS
                .iter()
                .find(|k| args.get(**k).is_some_and(|v| !v.is_null()))
                .copied()
                .unwrap_or("params");
            return Err(super::tools::post_decision(arg));
        }
        Ok(knobs)
    }

    /// `explain_rank_gap`: writes the triage fields, provenance and limitations.
    pub(super) fn rank_gap(
        &self,
        args: &Map<String, Value>,
        w: &mut JsonWriter,
    ) -> Result<(), ToolError> {
        let query = self.query_of(args)?;
        let expected = args
            .get("expected")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                ToolError::InvalidArguments("expected: give a tool name (a string)".into())
            })?;
        let knobs = self.rank_gap_knobs(args)?;
        let t = triage(
            self.engine,
            &query,
            &[expected.to_string()],
            &knobs,
            &options(),
        )
        .map_err(|e| match e {
            TriageError::UnknownTool { .. } | TriageError::NoExpected => {
                ToolError::InvalidArguments(format!(
                    "expected: {}",
                    crate::sanitize::line(&e.to_string())
                ))
            }
        })?;
        write_fields(&t, None, json_options(self.audience), w);
        self.provenance(w, &knobs, PROFILE);
        let limitations = super::contracts::contract("explain_rank_gap")
            .map(|c| c.limitations)
            .unwrap_or_default();
        w.key("limitations").str_list(limitations);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Engine;
    use crate::engine::triage::{CLASSES, closest_names};
    use crate::evidence::mcp::Server;
    use serde_json::json;

    fn demo() -> Engine {
        Engine::new(crate::demo::load_demo().unwrap())
    }

    fn gap(s: &mut Session, args: Value) -> Result<Value, ToolError> {
        s.call("explain_rank_gap", &args)
    }

    /// Every key of a JSON value, at any depth.
    fn keys(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(o) => {
                for (k, x) in o {
                    out.push(k.clone());
                    keys(x, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| keys(x, out)),
            _ => {}
        }
    }

    /// Wording that reads as advice or as a probe ("with X, ... would rank N").
    const ADVICE: &[&str] = &[
        "should",
        "recommend",
        "you ",
        "consider",
        "try ",
        "change it",
        "change the",
        "increase",
        "decrease",
        "would rank",
        "--set",
        "toolscope counterfactual",
        "probe",
    ];

    /// The first advice wording in `text`, past the declarations that there is none.
    fn advice_in(text: &str) -> Option<&'static str> {
        let t = text
            .to_lowercase()
            .replace("returns_action_recommendations", "")
            .replace("never an action recommendation", "");
        ADVICE.iter().copied().find(|a| t.contains(a))
    }

    fn assert_evidence_only(v: &Value) {
        let mut ks = Vec::new();
        keys(v, &mut ks);
        for k in &ks {
            assert!(!k.contains("probe"), "a probe key {k:?} in {v}");
        }
        if let Some(a) = advice_in(&v.to_string()) {
            panic!("advice wording {a:?} in {v}");
        }
        assert_eq!(v["read_only"], true);
        assert_eq!(v["returns_action_recommendations"], false);
    }

    #[test]
    fn a_selected_case_carries_the_verdict_and_the_contract_fields() {
        let e = demo();
        let k = Knobs::default();
        let r = e.retrieve("approve refund", &k.params);
        let sel = e.select(&r, &k.select);
        let mut s = Session::new(&e, Audience::Operator);
        let v = gap(
            &mut s,
            json!({"query": "approve refund", "expected": sel.selected_target}),
        )
        .unwrap();
        assert_eq!(v["class"], "selected", "{v}");
        assert_eq!(v["sub_cause"], Value::Null);
        assert_eq!(v["expected"], sel.selected_target.as_str());
        let ev = &v["evidence"];
        assert_eq!(
            ev["selection"]["selected_target"],
            sel.selected_target.as_str()
        );
        assert_eq!(ev["selection"]["policy"], "strong_evidence");
        assert_eq!(ev["outcome"]["selected"], true);
        let rank = r
            .rows
            .iter()
            .position(|x| x.name == sel.selected_target)
            .unwrap()
            + 1;
        assert_eq!(ev["rank"], rank);
        assert_eq!(v["mechanism_status"], "resolved");
        let p = &v["provenance"];
        assert!(
            p["graph"]["fingerprint"]
                .as_str()
                .unwrap()
                .starts_with("sha256:")
        );
        assert_eq!(p["engine_profile"], PROFILE);
        assert_eq!(p["registry_version"], crate::engine::REGISTRY_VERSION);
        assert_eq!(p["reproduces"], crate::engine::REFERENCE);
        assert!(!v["limitations"].as_array().unwrap().is_empty());
        assert_evidence_only(&v);
    }

    #[test]
    fn a_not_retrieved_case_decomposes_the_deficit_as_triage_json_does() {
        let e = demo();
        let mut s = Session::new(&e, Audience::Operator);
        let args = json!({"query": "approve refund", "expected": "listOrders"});
        let v = gap(&mut s, args).unwrap();
        assert_eq!(v["class"], "not_retrieved", "{v}");
        assert_eq!(v["sub_cause"], "below_cutoff");
        assert_eq!(v["evidence"]["rank"], Value::Null);
        assert!(v["full_rank"].as_u64().unwrap() > 10, "{}", v["full_rank"]);
        let d = v["evidence"]["deficit"].as_array().unwrap();
        let against: Vec<&str> = d.iter().map(|x| x["against"].as_str().unwrap()).collect();
        assert_eq!(against, ["winner", "cutoff"]);
        let terms = d[0]["terms"].as_array().unwrap();
        assert!(!terms.is_empty());
        for t in terms {
            assert!(t.get("idf").is_some() && t.get("expected").is_some(), "{t}");
        }
        assert!(d[0]["expected_missing_terms"].is_array());
        // one shape: the fields of `toolscope triage --json` without the probes
        let t = triage(
            &e,
            "approve refund",
            &["listOrders".into()],
            &Knobs::default(),
            &options(),
        )
        .unwrap();
        let cli: Value = serde_json::from_str(&crate::engine::triage::json::to_json(
            &t,
            None,
            json_options(Audience::Operator),
        ))
        .unwrap();
        for (k, x) in cli.as_object().unwrap() {
            assert_eq!(&v[k], x, "{k}");
        }
        assert_evidence_only(&v);
    }

    #[test]
    fn an_outranked_tool_lists_every_tool_above_it_channel_by_channel() {
        let e = demo();
        let r = e.retrieve("refund approval", &Default::default());
        let x = r.rows[2].name.clone();
        for audience in [Audience::Model, Audience::Operator] {
            let mut s = Session::new(&e, audience);
            let v = gap(&mut s, json!({"query": "refund approval", "expected": x})).unwrap();
            let ev = &v["evidence"];
            assert_eq!(ev["rank"], 3, "{v}");
            let above = ev["above"].as_array().unwrap();
            assert_eq!(above.len(), 2, "{v}");
            for (i, a) in above.iter().enumerate() {
                assert_eq!(a["tool"], r.rows[i].name.as_str());
                for ch in ["score", "seed", "graph", "learning"] {
                    let c = &a[ch];
                    let diff = c["other"].as_f64().unwrap() - c["expected"].as_f64().unwrap();
                    assert!((c["difference"].as_f64().unwrap() - diff).abs() < 1e-12);
                }
            }
            assert!(CLASSES.contains(&v["class"].as_str().unwrap()));
            if audience == Audience::Model {
                // the retrieval scope: no selector verdict, no selector knobs
                assert_eq!(v["class"], "outranked");
                assert_eq!(v["class_scope"], "retrieval");
                assert_eq!(ev["class_detail"]["rank"], 3);
                assert!(ev.get("selection").is_none(), "{v}");
                assert!(ev["outcome"].get("selected").is_none());
                for p in [&ev["params"], &v["provenance"]["params"]] {
                    assert!(p.get("llm_target").is_none() && p.get("policy").is_none());
                    assert_eq!(p["top_k"], 10);
                }
            } else {
                assert!(ev["selection"].is_object());
            }
            assert_evidence_only(&v);
        }
    }

    #[test]
    fn an_unknown_expected_name_is_an_invalid_argument_naming_the_closest_tools() {
        let e = demo();
        let closest = closest_names(&e, "approveRefnd", 3);
        assert!(
            closest.contains(&"approveRefund".to_string()),
            "{closest:?}"
        );
        for audience in [Audience::Model, Audience::Operator] {
            let mut s = Session::new(&e, audience);
            let err = gap(
                &mut s,
                json!({"query": "approve refund", "expected": "approveRefnd"}),
            )
            .unwrap_err();
            let ToolError::InvalidArguments(m) = &err else {
                panic!("{err:?}");
            };
            assert!(m.starts_with("expected: "), "{m}");
            assert!(
                m.contains("\"approveRefnd\" is not a tool of this graph"),
                "{m}"
            );
            assert!(
                m.contains(&format!("closest names: {}", closest.join(", "))),
                "{m}"
            );
            // a value check: the call counts
            assert_eq!(s.calls, 1);
        }
        // a name with terminal controls comes back inert, on one line
        let mut s = Session::new(&e, Audience::Model);
        let err = gap(
            &mut s,
            json!({"query": "x", "expected": "bad\u{1b}[31mname\nline"}),
        )
        .unwrap_err();
        let m = err.to_string();
        assert!(!m.contains('\u{1b}') && !m.contains('\n'), "{m:?}");
        // missing or mistyped arguments are invalid arguments, checked before any work
        let mut s = Session::new(&e, Audience::Model);
        for (args, want) in [
            (
                json!({"query": "x"}),
                r#"missing required argument "expected""#,
            ),
            (
                json!({"expected": "approveRefund"}),
                r#"missing required argument "query""#,
            ),
            (
                json!({"query": "x", "expected": 3}),
                "expected: expected a string",
            ),
            (
                json!({"query": "x", "expected": "approveRefund", "probes": true}),
                "unexpected argument \"probes\"",
            ),
        ] {
            let err = gap(&mut s, args.clone()).unwrap_err();
            assert!(
                matches!(&err, ToolError::InvalidArguments(m) if m.contains(want)),
                "{args}: {err}"
            );
        }
    }

    #[test]
    fn knobs_go_through_the_one_parser_and_the_selector_knobs_are_operator_only() {
        let e = demo();
        let r = e.retrieve("approve refund", &Default::default());
        let other = r.rows[1].name.clone();
        let mut op = Session::new(&e, Audience::Operator);
        let v = gap(
            &mut op,
            json!({"query": "approve refund", "expected": r.rows[0].name, "llm_target": other,
                   "policy": "manual_review", "params": {"top_k": 5, "depth": 1}}),
        )
        .unwrap();
        let sel = &v["evidence"]["selection"];
        assert_eq!(sel["llm_target"], other.as_str());
        assert_eq!(sel["policy"], "manual_review");
        assert_eq!(v["evidence"]["params"]["top_k"], 5);
        assert_eq!(v["provenance"]["params"]["depth"], 1);
        for (args, want) in [
            (
                json!({"query": "x", "expected": other, "policy": "bold"}),
                "knob policy: expected one of strong_evidence, risk_limited, manual_review",
            ),
            (
                json!({"query": "x", "expected": other, "params": {"top_k": -1}}),
                "params: knob top_k: expected an integer from 1 to 10000",
            ),
            (
                json!({"query": "x", "expected": other, "llm_target": "a", "params": {"llm_target": "a"}}),
                "llm_target: given both as an argument and in params",
            ),
        ] {
            let err = gap(&mut op, args.clone()).unwrap_err();
            assert!(
                matches!(&err, ToolError::InvalidArguments(m) if m.contains(want)),
                "{args}: {err}"
            );
        }
        let mut m = Session::new(&e, Audience::Model);
        for (args, arg) in [
            (
                json!({"query": "x", "expected": other, "llm_target": other}),
                "llm_target",
            ),
            (
                json!({"query": "x", "expected": other, "params": {"policy": "manual_review"}}),
                "params",
            ),
        ] {
            let err = gap(&mut m, args).unwrap_err();
            assert_eq!(err, super::super::tools::post_decision(arg));
            assert!(
                err.to_string()
                    .starts_with(&format!("invalid arguments: {arg}: llm_target and policy")),
                "{err}"
            );
        }
    }

    #[test]
    fn no_probes_for_any_audience_and_the_contract_gives_no_advice() {
        let e = demo();
        // failing cases, where `toolscope triage` runs its probes
        for (q, x) in [
            ("approve refund", "listOrders"),
            ("주문 취소해줘", "approveRefund"),
        ] {
            let t = triage(
                &e,
                q,
                &[x.to_string()],
                &Knobs::default(),
                &TriageOptions::default(),
            )
            .unwrap();
            assert!(!t.probes.is_empty(), "{q}: the CLI triage has probes here");
            for audience in [Audience::Model, Audience::Operator] {
                let mut s = Session::new(&e, audience);
                let v = gap(&mut s, json!({"query": q, "expected": x})).unwrap();
                assert_ne!(v["class"], "selected");
                assert_evidence_only(&v);
            }
        }
        let c = super::super::contracts::contract("explain_rank_gap").unwrap();
        assert!(c.model_facing);
        let mut text = vec![c.purpose.to_string()];
        text.extend(c.limitations.iter().map(|l| l.to_string()));
        text.extend(c.inputs.iter().map(|i| i.3.to_string()));
        for t in &text {
            assert_eq!(advice_in(t), None, "{t}");
        }
    }

    fn init(version: &str) -> String {
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
               "params": {"protocolVersion": version, "capabilities": {},
                          "clientInfo": {"name": "t", "version": "0"}}})
        .to_string()
    }

    fn call(id: i64, args: Value) -> String {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "explain_rank_gap", "arguments": args}})
        .to_string()
    }

    #[test]
    fn over_mcp_it_is_listed_and_errors_follow_the_invalid_argument_path() {
        let e = demo();
        for version in ["2025-11-25", "2025-06-18"] {
            let mut s = Server::new(Session::new(&e, Audience::Model));
            s.handle_line(&init(version)).unwrap();
            let list = s
                .handle_line(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
                .unwrap();
            let tool = list["result"]["tools"]
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["name"] == "explain_rank_gap")
                .cloned()
                .unwrap();
            assert_eq!(
                tool["inputSchema"]["required"],
                json!(["query", "expected"])
            );
            assert_eq!(tool["annotations"]["readOnlyHint"], true);
            assert_eq!(advice_in(tool["description"].as_str().unwrap()), None);
            let ok = s
                .handle_line(&call(
                    2,
                    json!({"query": "approve refund", "expected": "listOrders"}),
                ))
                .unwrap();
            assert_eq!(ok["result"]["isError"], false, "{ok}");
            assert_eq!(
                ok["result"]["structuredContent"]["class"], "not_retrieved",
                "{ok}"
            );
            let bad = s
                .handle_line(&call(
                    3,
                    json!({"query": "approve refund", "expected": "approveRefnd"}),
                ))
                .unwrap();
            let text = if version == "2025-11-25" {
                assert_eq!(bad["result"]["isError"], true, "{bad}");
                bad["result"]["content"][0]["text"].as_str().unwrap()
            } else {
                assert_eq!(bad["error"]["code"], -32602, "{bad}");
                bad["error"]["message"].as_str().unwrap()
            };
            assert!(
                text.starts_with("invalid arguments for explain_rank_gap: expected: ")
                    && text.contains("approveRefund"),
                "{text}"
            );
        }
    }
}
