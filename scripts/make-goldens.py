#!/usr/bin/env python3
"""Generate toolscope's own golden cases by running graph-tool-call 0.47.0.

Writes, in the case format of the shared golden corpus (one JSON object per line, keys
id, category, graph, query, params, selector, [labels], [note], expected):

  tests/golden/demo.jsonl.gz  -- the embedded demo graph
                              (assets/demo/commerce-backoffice.collection.json.gz)
  tests/golden/edgy.jsonl.gz  -- the hand-written fixture tests/fixtures/edgy.json

expected.retrieval = retrieve_graphify(ToolGraph.load(graph), query, top_k=..., depth=...,
    token_budget=..., history=..., include_evidence=True, learning_suggestions=...)
expected.selection = select_target_candidate(query, candidates=rows, tools=tg.tools,
    retrieval_results=rows, llm_target=..., policy=..., learning_suggestions=...)
    with rows = expected.retrieval.results as read back from JSON (null when selector is null).

Only the library's public functions are called. The output is deterministic: running the
script twice gives byte-identical files. Run it through scripts/make-goldens.sh, which
makes sure the reference virtualenv exists.
"""

from __future__ import annotations

import argparse
import copy
import gzip
import importlib.metadata
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from graph_tool_call import ToolGraph, build_trace_learning_record, derive_learning_suggestions
from graph_tool_call.graphify import retrieve_graphify, select_target_candidate

ROOT = Path(__file__).resolve().parent.parent
DEMO_GZ = ROOT / "assets/demo/commerce-backoffice.collection.json.gz"
DEMO_QUERIES = ROOT / "assets/demo/queries.txt"
EDGY = ROOT / "tests/fixtures/edgy.json"
OUT_DIR = ROOT / "tests/golden"

UNKNOWN_TOOL = "no_such_tool_xyz"
POLICIES = ("strong_evidence", "risk_limited")
DEFAULT_SELECTOR = {"llm_target": None, "policy": "strong_evidence"}
_DEFAULT = object()


def read_queries(path: Path) -> list[str]:
    """Plain query per line; '#' lines and blank lines are skipped."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        out.append(line.strip())
    return out


class CaseWriter:
    """Runs the reference for one graph and collects the cases (deduplicated)."""

    def __init__(self, graph_name: str, graph_path: Path):
        self.graph = graph_name
        self.tg = ToolGraph.load(str(graph_path))
        self.cases: list[dict[str, Any]] = []
        self.seen: set[str] = set()
        self.counters: dict[str, int] = {}

    # -- reference calls ---------------------------------------------------------------
    def retrieve(self, query, top_k=5, depth=2, token_budget=2000, history=None, learning=None):
        result = retrieve_graphify(
            self.tg,
            query,
            top_k=top_k,
            depth=depth,
            token_budget=token_budget,
            history=list(history or []),
            include_evidence=True,
            learning_suggestions=copy.deepcopy(learning) if learning is not None else None,
        )
        # What a reader of the jsonl sees: round-trip through JSON.
        return json.loads(json.dumps(result, ensure_ascii=False))

    def select(self, query, rows, llm_target, policy, learning=None):
        result = select_target_candidate(
            query,
            candidates=copy.deepcopy(rows),
            tools=self.tg.tools,
            retrieval_results=copy.deepcopy(rows),
            llm_target=llm_target,
            policy=policy,
            learning_suggestions=copy.deepcopy(learning) if learning is not None else None,
        )
        return json.loads(json.dumps(result, ensure_ascii=False))

    def names(self, query, **kw) -> list[str]:
        return [row["name"] for row in self.retrieve(query, **kw)["results"]]

    # -- case construction -------------------------------------------------------------
    def add(
        self,
        category: str,
        query: str,
        *,
        top_k: int = 5,
        depth: int = 2,
        token_budget: int = 2000,
        history: list[str] | None = None,
        selector: Any = _DEFAULT,
        learning: list[dict[str, Any]] | None = None,
        note: str | None = None,
    ) -> dict[str, Any] | None:
        if selector is _DEFAULT:
            selector = dict(DEFAULT_SELECTOR)
        params: dict[str, Any] = {
            "top_k": top_k,
            "depth": depth,
            "token_budget": token_budget,
            "history": list(history or []),
        }
        if learning is not None:
            params["learning_suggestions"] = learning
        key = json.dumps([query, params, selector], ensure_ascii=False, sort_keys=True)
        if key in self.seen:
            return None
        self.seen.add(key)

        retrieval = self.retrieve(
            query, top_k=top_k, depth=depth, token_budget=token_budget, history=history, learning=learning
        )
        selection = None
        if selector is not None:
            selection = self.select(
                query, retrieval["results"], selector["llm_target"], selector["policy"], learning
            )
        self.counters[category] = self.counters.get(category, 0) + 1
        case: dict[str, Any] = {
            "id": f"{self.graph}/{category}/{self.counters[category]:04d}",
            "category": category,
            "graph": self.graph,
            "query": query,
            "params": params,
            "selector": selector,
        }
        if note:
            case["note"] = note
        case["expected"] = {"retrieval": retrieval, "selection": selection}
        self.cases.append(case)
        return case

    def outside_tool(self, query: str, rows: list[str]) -> str | None:
        """A graph tool that is not among the retrieved rows (prefer the query's BM25 seeds)."""
        seeds = self.retrieve(query)["stats"].get("seeds") or []
        nodes = set(self.tg.graph.nodes()) if hasattr(self.tg.graph, "nodes") else set()
        for name in list(seeds) + list(self.tg.tools):
            if name not in rows and name in self.tg.tools and (not nodes or name in nodes):
                return name
        return None

    def base_variants(self, query: str, light: bool = False) -> None:
        """The per-query variant families of the shared corpus (light: fewer history/budget cases)."""
        top = self.names(query)
        if not top:
            return
        t1 = top[0]
        for k in (1, 10, 20):
            self.add("top_k", query, top_k=k)
        for d in (1, 3):
            self.add("depth", query, depth=d)
        self.add("history", query, history=[t1], note=f"top1 {t1} demoted once")
        self.add("history", query, history=[t1, t1], note=f"top1 {t1} demoted twice")
        if len(top) > 1 and not light:
            self.add("history", query, history=[top[1], t1], note="top2 then top1")
        self.add("selector", query, selector={"llm_target": None, "policy": "risk_limited"})
        for name in top[:3]:
            for policy in POLICIES:
                self.add("selector_llm_top", query, selector={"llm_target": name, "policy": policy})
        outside = self.outside_tool(query, top)
        if outside:
            for policy in POLICIES:
                self.add(
                    "selector_llm_outside",
                    query,
                    selector={"llm_target": outside, "policy": policy},
                    note=f"{outside} is a graph tool outside the retrieved rows",
                )
        for policy in POLICIES:
            self.add("selector_llm_unknown", query, selector={"llm_target": UNKNOWN_TOOL, "policy": policy})
        llm = top[1] if len(top) > 1 else t1
        self.add(
            "selector_policy_other",
            query,
            selector={"llm_target": llm, "policy": "manual_review"},
            note="unrecognised policy never overrides the LLM target",
        )
        for budget in (0, 20, 100) if light else (0, 20, 100, 300):
            self.add("token_budget", query, token_budget=budget, selector=None)
        self.add("edge_params", query, top_k=0)
        self.add("edge_params", query, depth=0)

    # -- learning ----------------------------------------------------------------------
    def learn(
        self,
        query: str,
        *,
        observations: int,
        day: int,
        selected_target: str | None = None,
        plan_tools: list[str] | None = None,
        trace_edges: list[dict[str, Any]] | None = None,
        promote: bool = True,
        collection_id: str | None = None,
    ) -> list[dict[str, Any]]:
        """Suggestions from `observations` successful runs, derived with the library's API.

        Each run is a learning record with a fixed created_at; the suggestions are merged run
        after run (derive_learning_suggestions with the previous ones as existing_suggestions
        and the previous records as history). With promote=True the status is then set to
        "promoted", the operator action the library never takes by itself.
        """
        collection = collection_id or self.graph
        history: list[dict[str, Any]] = []
        current: dict[str, dict[str, Any]] = {}
        for i in range(observations):
            record = build_trace_learning_record(
                query=query,
                collection_id=collection,
                selected_target=selected_target,
                plan_tools=plan_tools,
                trace_edges=trace_edges,
                success=True,
                created_at=f"2026-01-{day:02d}T{9 + i:02d}:00:00+00:00",
            )
            derived = derive_learning_suggestions(
                record, history=list(history), existing_suggestions=list(current.values())
            )
            for row in derived:
                current[row["id"]] = row
            history.append(record)
        rows = copy.deepcopy(list(current.values()))
        if promote:
            for row in rows:
                row["status"] = "promoted"
        return rows


def not_reached(writer: CaseWriter, query: str, preferred: list[str]) -> str:
    """A tool the BFS does not reach for this query (not among all scored rows)."""
    reached = set(writer.names(query, top_k=10_000))
    nodes = set(writer.tg.graph.nodes())
    for name in preferred + list(writer.tg.tools):
        if name in writer.tg.tools and name in nodes and name not in reached:
            return name
    raise SystemExit(f"every tool is reached for {query!r}")


def learning_cases(writer: CaseWriter, query: str, family_variant: str, other_query: str,
                   unreached_preference: list[str], far_top_k: int) -> None:
    top = writer.names(query)
    lower = top[min(3, len(top) - 1)]
    second = top[min(2, len(top) - 1)]
    far = not_reached(writer, query, unreached_preference)

    lower_s = writer.learn(query, selected_target=lower, observations=2, day=5)
    writer.add("learning", query, learning=lower_s,
               note=f"promoted target_preference for lower-ranked {lower} (2 observations)")

    far_s = writer.learn(query, selected_target=far, observations=4, day=6)
    second_s = writer.learn(query, selected_target=second, observations=2, day=7)
    writer.add("learning", query, learning=far_s + second_s,
               note=f"promoted target {far} not reached by the BFS (4 observations) plus {second} (2)")
    writer.add("learning", query, top_k=far_top_k, learning=far_s + second_s,
               note=f"same, top_k {far_top_k}: {far} appears as a learning-only row")
    writer.add("learning", query, history=[top[0]], learning=far_s + second_s,
               note=f"same as above with history [{top[0]}]")

    plan_s = writer.learn(query, plan_tools=[top[0], lower], observations=2, day=8)
    writer.add("learning", family_variant, learning=plan_s,
               note="plan_path + target_preference learned on the same query family, written differently")

    edge_s = writer.learn(
        query,
        trace_edges=[{"source": top[0], "target": second,
                      "data_flow": {"from_path": "$.id", "to_field": "id"}}],
        observations=2,
        day=9,
    )
    writer.add("learning", query, learning=edge_s, note=f"promoted data_flow_edge suggestion targeting {second}")

    not_tool = writer.learn(query, selected_target="notARealTool", observations=3, day=10)
    writer.add("learning", query, learning=not_tool, note="promoted target that is not a tool")

    promotable = writer.learn(query, selected_target=lower, observations=2, day=11, promote=False)
    writer.add("learning", query, learning=promotable,
               note=f"negative control: {lower} suggestion left as {promotable[0]['status']!r}, not promoted")

    other = writer.learn(other_query, selected_target=lower, observations=3, day=12)
    writer.add("learning", query, learning=other,
               note=f"negative control: promoted suggestion of another query family ({other_query!r})")

    # Selector with an LLM target while learning applies.
    writer.add("learning", query, learning=far_s + second_s,
               selector={"llm_target": top[0], "policy": "strong_evidence"},
               note="learning suggestions with an LLM target on the top row")


def common_odd_queries(writer: CaseWriter, graph_tool: str, compact: bool = False) -> None:
    queries = ["", " ", "   \t\n", "the a of", "?!.,;:", "...", "🛒📦✨", "🙂"]
    if compact:
        queries = ["", "   \t\n", "the a of", "?!.,;:", "🙂"]
    for q in queries:
        writer.add("empty", q)
    writer.add("empty", "", selector={"llm_target": graph_tool, "policy": "strong_evidence"},
               note="empty query with an LLM target that is a graph tool: one candidate")
    writer.add("empty", "   ", selector={"llm_target": graph_tool, "policy": "risk_limited"})
    writer.add("empty", "🛒📦✨", selector={"llm_target": UNKNOWN_TOOL, "policy": "strong_evidence"})


def build_demo(writer: CaseWriter) -> None:
    queries = read_queries(DEMO_QUERIES)
    for q in queries:
        writer.add("queries", q)

    # Variants of the shared corpus on 8 base queries.
    base = [
        "approve refund",
        "delete expired coupons",
        "list orders",
        "get payment of an order",
        "member detail",
        "주문 취소해줘",
        "register invoice number for a shipment",
        "send notification",
    ]
    for q in base:
        writer.base_variants(q)

    # LLM targets called out in queries.txt.
    for q, llm in [
        ("get payment of an order", "getPayment"),
        ("delete expired coupons", "deleteCoupon"),
        ("exchange item for another size", "getReturn"),
        ("exchange item for another size", "listReturns"),
        ("member detail", "getMemberDetail"),
        ("list orders", "listOrders"),
    ]:
        for policy in POLICIES + ("manual_review",):
            writer.add("selector_llm_sibling", q, selector={"llm_target": llm, "policy": policy})
    # History called out in queries.txt.
    writer.add("history", "request return for an order", history=["requestReturn"])
    writer.add("history", "send notification", history=["sendBulkNotification"])
    writer.add("history", "list orders", history=["listMemberOrders"])

    for q in [
        "주문 목록 보여줘",
        "주문 상세 조회",
        "환불 요청 반려해줘",
        "회원 등급 조회",
        "회원 상세 정보",
        "쿠폰 발급해줘",
        "배송지 변경",
        "배송 추적",
        "정산 확정",
        "재고 조회",
        "관리자 작업 이력",
        "리뷰 숨김 처리해주세요",
        "주문 cancel 해줘",
    ]:
        writer.add("korean", q)
    writer.add("korean", "환불 요청 승인", history=["approveRefund"])
    writer.add("korean", "주문 취소해줘", selector={"llm_target": "cancelPayment", "policy": "strong_evidence"})

    for q in ["zzqx flurble", "qwertyuiopasdf", "recon", "invoi", "dispatc"]:
        writer.add("nohit", q)
    for q in ["ＣＡＮＣＥＬ ＯＲＤＥＲ", "CANCEL ORDER", "cancelOrder", "cancel_order", "cancel-order!!!",
              "Cancel\u00a0order", "cancel\u3000order", "DELETE EXPİRED COUPONS", "refund\u2028approve"]:
        writer.add("unicode", q)

    common_odd_queries(writer, "getOrder")

    learning_cases(
        writer,
        "approve refund",
        family_variant="Approve   REFUND!",
        other_query="cancel order",
        unreached_preference=["listPayments", "getDailySalesStats", "listWarehouses"],
        far_top_k=40,
    )


def build_edgy(writer: CaseWriter) -> None:
    handwritten = [
        "list appointments",
        "cancel appointment",
        "book an appointment for a patient",
        "reschedule appointment",
        "archived lab results in my namespace",
        "delete all expired slots",
        "patient summary",
        "send reminder by kakao",
        "export visit history",
        "verify insurance",
        "who is booked at 3pm",
        "NORMAL ABNORMAL",
        "resultCode",
        "pharmacy stock",
        "referral letter",
    ]
    for q in handwritten:
        writer.add("handwritten", q)
    writer.add("handwritten", "list appointments", top_k=12, depth=4)
    writer.add("handwritten", "pharmacy stock", top_k=12,
               note="lookupPharmacyStock has no graph node: a seed, never ranked")
    writer.add("handwritten", "referral letter", top_k=12,
               note="referralDraft is a tool node without a tools entry")
    writer.add("handwritten", "patient summary", top_k=12, depth=3,
               note="reaches referralDraft and the undeclared billing_gateway node")

    base = [
        "cancel appointment",
        "archived lab results in my namespace",
        "예약 취소해줘",
    ]
    for q in base:
        writer.base_variants(q, light=True)

    for q in ["예약 목록 조회", "환자 요약 정보 보여줘", "진료 이력 내보내기", "건강보험 자격 확인해줘",
              "만료된 슬롯 삭제", "카카오톡으로 알림 보내줘", "예약 내역 확인"]:
        writer.add("korean", q)

    for q in ["zzqx", "apointment", "sched", "insur", "ointm", "pharm"]:
        writer.add("nohit", q)
    for q in ["Appoint", "APPOINTMENTS", "ｃａｎｃｅｌ", "book_appointment", "rendez-vous réservé"]:
        writer.add("unicode", q)

    common_odd_queries(writer, "getAppointment", compact=True)

    learning_cases(
        writer,
        "cancel appointment",
        family_variant="Cancel appointment?",
        other_query="book an appointment for a patient",
        unreached_preference=["exportVisitHistory", "verifyInsurance", "listArchivedLabResults"],
        far_top_k=12,
    )


def write_jsonl(path: Path, cases: list[dict[str, Any]]) -> None:
    """Writes JSON Lines, gzip-compressed (deterministic: no name, mtime 0) when the path
    ends in .gz — the demo cases are 37 MB of JSON but 2 MB compressed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    text = "".join(json.dumps(case, ensure_ascii=False, separators=(",", ":")) + "\n" for case in cases)
    data = text.encode("utf-8")
    if path.suffix == ".gz":
        with open(tmp, "wb") as raw:
            with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=raw, mtime=0) as gz:
                gz.write(data)
    else:
        tmp.write_bytes(data)
    os.replace(tmp, path)


def check_corpus(corpus: Path, graphs: list[str] | None) -> int:
    """Re-run the cases of an existing golden corpus (graphs/, cases/) with this script's
    calling code and report cases whose expected outputs differ. Writes nothing."""
    total = bad = 0
    for cases_path in sorted((corpus / "cases").glob("*.jsonl")):
        name = cases_path.stem
        if graphs and name not in graphs:
            continue
        writer = CaseWriter(name, corpus / "graphs" / f"{name}.json")
        n = m = 0
        with open(cases_path, encoding="utf-8") as fh:
            for line in fh:
                case = json.loads(line)
                p = case["params"]
                writer.seen.clear()
                mine = writer.add(case["category"], case["query"], top_k=p["top_k"], depth=p["depth"],
                                  token_budget=p["token_budget"], history=p["history"],
                                  selector=case["selector"], learning=p.get("learning_suggestions"))
                writer.cases.clear()
                n += 1
                if json.dumps(mine["expected"], ensure_ascii=False) != json.dumps(case["expected"], ensure_ascii=False):
                    m += 1
                    print(f"  differs: {case['id']}")
        print(f"{name}: {n - m}/{n} reproduced")
        total += n
        bad += m
    print(f"check-corpus: {total - bad}/{total} reproduced")
    return 0 if bad == 0 and total else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out-dir", type=Path, default=OUT_DIR)
    ap.add_argument("--only", choices=["demo", "edgy"], help="generate only one file")
    ap.add_argument("--check-corpus", type=Path, metavar="DIR",
                    help="instead of generating, re-run the cases of a golden corpus DIR "
                         "(with graphs/ and cases/, e.g. the shared one) and compare")
    ap.add_argument("--graphs", nargs="*", help="with --check-corpus: only these graphs")
    args = ap.parse_args()

    version = importlib.metadata.version("graph-tool-call")
    if version != "0.47.0":
        print(f"make-goldens: expected graph-tool-call 0.47.0, found {version}", file=sys.stderr)
        return 2
    if args.check_corpus:
        return check_corpus(args.check_corpus, args.graphs)

    jobs = []
    if args.only in (None, "demo"):
        jobs.append(("demo", build_demo))
    if args.only in (None, "edgy"):
        jobs.append(("edgy", build_edgy))

    with tempfile.TemporaryDirectory() as tmpdir:
        demo_json = Path(tmpdir) / "demo.json"
        demo_json.write_bytes(gzip.decompress(DEMO_GZ.read_bytes()))
        sources = {"demo": demo_json, "edgy": EDGY}
        for name, build in jobs:
            started = time.monotonic()
            writer = CaseWriter(name, sources[name])
            build(writer)
            out = args.out_dir / f"{name}.jsonl.gz"
            write_jsonl(out, writer.cases)
            counts = ", ".join(f"{k} {v}" for k, v in sorted(writer.counters.items()))
            print(f"{out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}: "
                  f"{len(writer.cases)} cases ({counts}); {out.stat().st_size} bytes; "
                  f"{time.monotonic() - started:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
