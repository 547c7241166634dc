#!/usr/bin/env python3
"""Evaluate every peer-bench suite with graph-tool-call 0.47.0 and with `toolscope lab eval`
on the same graphs (built by the reference), and print both side by side.

usage: lab_vs_reference.py TOOLSCOPE_BIN PEER_BENCH_DIR OUT_DIR
Metrics per suite (top_k 5): hit@1, hit@5, recall@5, MRR, selector accuracy — the same
definitions toolscope uses (spec §7.2; a hit is any expected tool).
"""
import json, subprocess, sys, os
from pathlib import Path

from graph_tool_call import ToolGraph
from graph_tool_call.graphify import retrieve_graphify, select_target_candidate, build_openapi_collection_artifact

BIN, PEER, OUT = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
OUT.mkdir(parents=True, exist_ok=True)

# suite -> how to build its graph (from the peer's DATASET_REGISTRY, see peer-bench/README.md)
SUITES = {
    "petstore": ("openapi", ["specs/petstore3.json"]),
    "github": ("openapi", ["specs/github_subset.json"]),
    "ecommerce": ("openapi", ["specs/ecommerce.json"]),
    "k8s": ("openapi", ["specs/k8s_core_v1.json"]),
    "playwright": ("mcp", ["playwright"]),
    "mixed_mcp": ("mcp", ["filesystem", "github"]),
    "multi_mcp": ("mcp", ["playwright", "filesystem", "github"]),
    "cli_agent": ("mcp", ["filesystem", "git", "docker", "shell", "github"]),
}

def build(name, kind, srcs):
    path = OUT / f"{name}.json"
    if path.exists():
        return path
    if kind == "openapi":
        art = build_openapi_collection_artifact(str(PEER / srcs[0]))
        path.write_text(json.dumps(art, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    else:
        tg = ToolGraph()
        for server in srcs:
            data = json.loads((PEER / "mcp_tools" / f"{server}.json").read_text(encoding="utf-8"))
            tg.ingest_mcp_tools(data["tools"], server_name=server)
        tg.save(str(path))
    return path

def reference_eval(graph_path, queries, k=5):
    tg = ToolGraph.load(str(graph_path))
    tools = tg.tools
    hit1 = hit5 = rec = rr = sel = 0.0
    for q in queries:
        exp = q["expected_tools"]
        r = retrieve_graphify(tg, q["query"], top_k=k, include_evidence=True)
        rows = r["results"]
        names = [x["name"] for x in rows]
        first = next((i for i, n in enumerate(names) if n in exp), None)
        hit1 += 1.0 if first == 0 else 0.0
        hit5 += 1.0 if first is not None and first < 5 else 0.0
        rec += (sum(1 for e in exp if e in names[:k]) / len(exp)) if exp else 1.0
        rr += 1.0 / (first + 1) if first is not None else 0.0
        s = select_target_candidate(q["query"], candidates=rows, tools=tools, retrieval_results=rows)
        sel += 1.0 if s["selected_target"] in exp else 0.0
    n = len(queries)
    return {"hit@1": hit1 / n, "hit@5": hit5 / n, "recall@5": rec / n, "MRR": rr / n, "selector_accuracy": sel / n}

rows = []
all_same = True
for name, (kind, srcs) in SUITES.items():
    suite_path = PEER / "ground_truth" / f"{name}.json"
    queries = json.loads(suite_path.read_text(encoding="utf-8"))["queries"]
    g = build(name, kind, srcs)
    tools = set(json.loads(g.read_text(encoding="utf-8"))["tools"])
    # the peer skips queries whose expected tools are not all in the graph; so do we here
    usable = [q for q in queries if all(e in tools for e in q["expected_tools"])]
    sub = OUT / f"{name}.suite.json"
    sub.write_text(json.dumps({"name": name, "queries": usable}, ensure_ascii=False), encoding="utf-8")
    ref = reference_eval(g, usable)
    out = subprocess.run([BIN, "lab", "eval", str(g), str(sub), "--json", "--top-k", "5"], capture_output=True, text=True)
    ts = json.loads(out.stdout)["summary"]
    same = all(abs(ref[m] - ts[m]) < 1e-12 for m in ref)
    all_same &= same
    rows.append((name, len(usable), len(queries), ref, ts, same))

print(f"{'suite':<12} {'cases':>9}  {'metric':<18} {'reference':>10} {'toolscope':>10}")
for name, n, total, ref, ts, same in rows:
    for i, m in enumerate(ref):
        print(f"{name if i == 0 else '':<12} {(f'{n}/{total}' if i == 0 else ''):>9}  {m:<18} {ref[m]:>10.4f} {ts[m]:>10.4f}{'' if abs(ref[m]-ts[m]) < 1e-12 else '  DIFFERS'}")
print("lab eval vs reference:", "identical on every suite" if all_same else "DIFFERENCES")
sys.exit(0 if all_same else 1)
