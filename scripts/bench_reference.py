#!/usr/bin/env python3
"""Measure graph-tool-call 0.47.0 the way `toolscope bench` measures toolscope.

    PY="$(scripts/reference-env.sh)"
    "$PY" scripts/bench_reference.py GRAPH --queries FILE [--top-k 10] [--select] [--repeat N]

Prints ONE JSON line with the keys of `toolscope bench`:
engine, graph, tools, edges, load_ms, index_ms, first_query_ms, queries, p50_ms, p99_ms,
mean_ms, peak_rss_mib, output_bytes.

* load_ms        ToolGraph.load(GRAPH) (read + parse + graph construction). A `.gz` GRAPH is
                 decompressed to a temporary file first (not timed): ToolGraph.load reads
                 plain JSON only.
* index_ms       null: the reference builds its BM25 index lazily inside the first query, so
                 that cost is part of first_query_ms.
* first_query_ms the first query: retrieve_graphify(include_evidence=True) + json.dumps of the
                 response (+ select_target_candidate and its json.dumps with --select).
* p50/p99/mean   over all timed queries: the whole query set run `--repeat` times (the first
                 query is timed again there, as toolscope does). Percentiles use the same
                 nearest-rank rule as toolscope (round(p/100 * (n-1))).
* peak_rss_mib   resource.getrusage(RUSAGE_SELF).ru_maxrss / 1024 (Linux: KiB -> MiB).
* output_bytes   UTF-8 bytes of every serialised response (compact separators,
                 ensure_ascii=False, like toolscope's writer), first query included.

Queries: one per line; blank lines and lines starting with '#' are skipped (as toolscope).
--max-seconds S stops the timed loop after the repeat in progress once S seconds have
passed (at least one full pass over the query set always runs); "repeat_done" then says how
many passes were timed.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import shutil
import sys
import tempfile
import time


def percentile(sorted_times: list[float], p: float) -> float:
    if not sorted_times:
        return 0.0
    rank = int(round((p / 100.0) * (len(sorted_times) - 1)))
    return sorted_times[min(rank, len(sorted_times) - 1)]


def read_queries(path: str) -> list[str]:
    with open(path, encoding="utf-8") as fh:
        lines = (line.strip() for line in fh)
        return [line for line in lines if line and not line.startswith("#")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("graph", help="saved graph / collection artifact (JSON, or .gz)")
    ap.add_argument("--queries", required=True, help="query file, one per line")
    ap.add_argument("--top-k", type=int, default=10)
    ap.add_argument("--select", action="store_true", help="also run select_target_candidate")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--max-seconds", type=float, default=None,
                    help="stop repeating once this much time went into timed queries")
    ap.add_argument("--label", default=None, help="value of the 'graph' key (default: GRAPH)")
    args = ap.parse_args()

    queries = read_queries(args.queries)

    from graph_tool_call import ToolGraph
    from graph_tool_call.graphify import retrieve_graphify, select_target_candidate

    graph_path = args.graph
    tmpdir = None
    if graph_path.endswith(".gz"):
        tmpdir = tempfile.mkdtemp(prefix="bench-ref-")
        plain = os.path.join(tmpdir, os.path.basename(graph_path)[:-3] or "graph.json")
        with gzip.open(graph_path, "rb") as src, open(plain, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        graph_path = plain

    try:
        t0 = time.perf_counter()
        tg = ToolGraph.load(graph_path)
        load = time.perf_counter() - t0
    finally:
        if tmpdir:
            shutil.rmtree(tmpdir, ignore_errors=True)

    tools = tg.tools
    try:
        edges = tg.graph.edge_count()
    except Exception:  # pragma: no cover - attribute layout differs
        edges = None
    if edges is None:
        try:
            edges = sum(1 for _ in tg.graph.edges())
        except Exception:
            edges = None

    sink = 0

    def run_one(q: str) -> None:
        nonlocal sink
        resp = retrieve_graphify(tg, q, top_k=args.top_k, include_evidence=True)
        sink += len(json.dumps(resp, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
        if args.select:
            rows = resp.get("results") or []
            sel = select_target_candidate(q, candidates=rows, tools=tools, retrieval_results=rows)
            sink += len(json.dumps(sel, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))

    t = time.perf_counter()
    if queries:
        run_one(queries[0])
    first = time.perf_counter() - t

    times: list[float] = []
    repeat = max(args.repeat, 1)
    started = time.perf_counter()
    done = 0
    for _ in range(repeat):
        for q in queries:
            t = time.perf_counter()
            run_one(q)
            times.append((time.perf_counter() - t) * 1000.0)
        done += 1
        if args.max_seconds is not None and time.perf_counter() - started > args.max_seconds:
            break
    times.sort()

    out = {
        "engine": "graph-tool-call 0.47.0",
        "graph": args.label or args.graph,
        "tools": len(tools),
        "edges": edges,
        "load_ms": load * 1000.0,
        "index_ms": None,
        "first_query_ms": first * 1000.0,
        "queries": len(times),
        "p50_ms": percentile(times, 50.0),
        "p99_ms": percentile(times, 99.0),
        "mean_ms": sum(times) / max(len(times), 1),
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
        "output_bytes": sink,
    }
    if done != repeat:
        out["repeat_done"] = done
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
