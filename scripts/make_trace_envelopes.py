#!/usr/bin/env python3
"""Record real graph-tool-call 0.47.0 trace envelopes for toolscope's replay tests.

For each graph, every query is run as a service would run it: retrieve_graphify, then
select_target_candidate over the same rows, both recorded with the library's own
observability adapters (TraceRecorder, record_retrieval_result, record_selector_result).
The request's query and parameters go into the envelope's attributes, where the
recorder's scrub policy applies to them (token_budget, for one, comes out "[REDACTED]").

Writes JSON Lines, one envelope per line, into tests/fixtures/traces/:
  demo.jsonl.gz           the embedded demo graph, its queries under three settings
  ecommerce.jsonl.gz      the shared golden graph ecommerce, its golden cases' parameters
  github_subset.jsonl.gz  the same for github_subset
  demo-list.json       the first three demo envelopes as one JSON list
  demo-one.json        the first demo envelope alone (pretty)
  drifts.jsonl         planted drifts, one per kind, each made the way production makes it
                       (see planted())

Trace ids and times are replaced by deterministic values, so two runs give the same files.
Only public functions are called. Run through scripts/make-trace-envelopes.sh.
"""

from __future__ import annotations

import gzip
import json
import sys
import tempfile
from pathlib import Path

from graph_tool_call import ToolGraph
from graph_tool_call.graphify import retrieve_graphify, select_target_candidate
from graph_tool_call.observability import TraceRecorder, adapters

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests/fixtures/traces"
GOLDEN = ROOT.parent / "shared/corpus/golden"


def envelope(tg, query, top_k, depth, token_budget, history, llm_target, policy, n):
    attrs = {
        "query": query,
        "top_k": top_k,
        "depth": depth,
        "token_budget": token_budget,
        "history": list(history),
        "llm_target": llm_target,
        "policy": policy,
    }
    rec = TraceRecorder("retrieve_and_select", trace_id=f"trace-{n:05d}", attributes=attrs)
    result = retrieve_graphify(
        tg,
        query,
        top_k=top_k,
        depth=depth,
        token_budget=token_budget,
        history=list(history),
        include_evidence=True,
    )
    rows = json.loads(json.dumps(result["results"]))
    with rec.start_span("retrieval", "retrieve_graphify") as span:
        adapters.record_retrieval_result(span, result)
    selection = select_target_candidate(
        query,
        candidates=rows,
        tools=tg.tools,
        retrieval_results=rows,
        llm_target=llm_target,
        policy=policy,
    )
    with rec.start_span("target_selection", "select_target_candidate") as span:
        adapters.record_selector_result(span, selection)
    rec.finish()
    d = rec.to_dict()
    # deterministic times and span ids (the recorder draws them from the clock and uuid4)
    stamp = "2026-12-01T00:00:00+00:00"
    d["started_at"] = d["ended_at"] = stamp
    d["duration_ms"] = 0.0
    for i, s in enumerate(d.get("spans", [])):
        s["span_id"] = f"{n:08x}{i:08x}"
        s["started_at"] = s["ended_at"] = stamp
        s["duration_ms"] = 0.0
        for e in s.get("events", []):
            if "timestamp" in e:
                e["timestamp"] = stamp
    return d


def write_lines(path: Path, envs):
    text = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in envs)
    # gzip without a timestamp or file name in the header: the same bytes on every run
    with open(path, "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0) as z:
            z.write(text.encode("utf-8"))


def demo_graph(edit=None):
    raw = json.loads(gzip.decompress((ROOT / "assets/demo/commerce-backoffice.collection.json.gz").read_bytes()))
    if edit:
        edit(raw)
    with tempfile.TemporaryDirectory() as tmp:
        g = Path(tmp) / "demo.json"
        g.write_text(json.dumps(raw), encoding="utf-8")
        return ToolGraph.load(str(g))


def rename_tool(raw, old, new):
    """Renames a tool everywhere in a collection artifact (its nodes, edges and tools)."""
    text = json.dumps(raw).replace(f'"{old}"', f'"{new}"')
    raw.clear()
    raw.update(json.loads(text))


def planted():
    """One record per drift kind, each produced by the reference as production would:
    version_skew   a record whose engine version is another (and whose scores differ: it
                   was recorded on a graph whose descriptions differ)
    stale_artifact recorded on a rebuilt graph in which getOrder was renamed getOrderV2
    parameters_differ  recorded with depth 0 by a service whose callers believe depth 2
    unexplained    recorded on a graph whose description of cancelOrder was rewritten
                   (same tools, no fingerprint recorded)
    partial        a query with an e-mail address, which the recorder scrubs
    and a record of an unsupported schema version and a torn line (unreadable)."""
    base = demo_graph()
    renamed = demo_graph(lambda raw: rename_tool(raw, "getOrder", "getOrderV2"))

    def rewrite(raw):
        # cancelOrder's description (Korean "cancel order") rewritten in English
        old = json.dumps({"description": "\uc8fc\ubb38 \ucde8\uc18c"})[1:-1]
        new = json.dumps({"description": "Cancel my order: abort the purchase order, refund it"})[1:-1]
        text = json.dumps(raw)
        assert old in text, "cancelOrder's description changed; update planted()"
        raw.clear()
        raw.update(json.loads(text.replace(old, new)))

    rewritten = demo_graph(rewrite)
    common = dict(top_k=5, token_budget=2000, history=[], llm_target=None, policy="strong_evidence")
    out = []
    e = envelope(rewritten, "cancel my order", depth=2, n=9001, **common)
    e["graph_tool_call_version"] = "0.46.2"
    e["trace_id"] = "drift-version-skew"
    out.append(e)
    e = envelope(renamed, "cancel my order", depth=2, n=9002, **common)
    e["trace_id"] = "drift-stale-artifact"
    out.append(e)
    e = envelope(base, "cancel my order", depth=0, n=9003, **common)
    e["attributes"]["depth"] = 2
    e["trace_id"] = "drift-parameters-differ"
    out.append(e)
    e = envelope(rewritten, "cancel my order", depth=2, n=9004, **common)
    e["trace_id"] = "drift-unexplained"
    out.append(e)
    e = envelope(base, "cancel the order of kim.minsu@example.com", depth=2, n=9005, **common)
    e["trace_id"] = "partial-scrubbed-query"
    out.append(e)
    e = envelope(base, "list orders", depth=2, n=9006, **common)
    e["schema_version"] = "2.0"
    e["trace_id"] = "unreadable-schema"
    out.append(e)
    lines = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in out)
    lines += '{"schema_version": "1.0", "spans": [\n'
    (OUT / "drifts.jsonl").write_text(lines, encoding="utf-8")


def demo():
    tg = demo_graph()
    queries = [
        q.strip()
        for q in (ROOT / "assets/demo/queries.txt").read_text(encoding="utf-8").splitlines()
        if q.strip() and not q.lstrip().startswith("#")
    ]
    settings = [
        dict(top_k=5, depth=2, token_budget=2000, history=[], llm_target=None, policy="strong_evidence"),
        dict(top_k=10, depth=1, token_budget=2000, history=["listOrders"], llm_target="getOrder", policy="strong_evidence"),
        dict(top_k=3, depth=0, token_budget=2000, history=[], llm_target="listOrders", policy="risk_limited"),
    ]
    envs = []
    for si, s in enumerate(settings):
        for q in queries:
            envs.append(envelope(tg, q, n=len(envs) + 1, **s))
    return envs


def golden(name):
    graph = GOLDEN / "graphs" / f"{name}.json"
    cases = GOLDEN / "cases" / f"{name}.jsonl"
    if not graph.exists() or not cases.exists():
        print(f"make-trace-envelopes: {graph} not found; skipped", file=sys.stderr)
        return None
    tg = ToolGraph.load(str(graph))
    envs = []
    for line in cases.read_text(encoding="utf-8").split("\n"):
        if not line.strip():
            continue
        c = json.loads(line)
        p = c.get("params") or {}
        if p.get("learning_suggestions"):
            continue
        sel = c.get("selector") or {}
        envs.append(
            envelope(
                tg,
                c["query"],
                top_k=p.get("top_k", 5),
                depth=p.get("depth", 2),
                token_budget=p.get("token_budget", 2000),
                history=p.get("history") or [],
                llm_target=sel.get("llm_target"),
                policy=sel.get("policy", "strong_evidence"),
                n=len(envs) + 1,
            )
        )
    return envs


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    d = demo()
    write_lines(OUT / "demo.jsonl.gz", d)
    (OUT / "demo-list.json").write_text(json.dumps(d[:3], ensure_ascii=False) + "\n", encoding="utf-8")
    (OUT / "demo-one.json").write_text(json.dumps(d[0], ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    planted()
    counts = {"demo": len(d)}
    for name in ("ecommerce", "github_subset"):
        g = golden(name)
        if g is not None:
            write_lines(OUT / f"{name}.jsonl.gz", g)
            counts[name] = len(g)
    print("make-trace-envelopes: " + ", ".join(f"{k} {v}" for k, v in counts.items()), file=sys.stderr)


if __name__ == "__main__":
    main()
