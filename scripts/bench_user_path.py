#!/usr/bin/env python3
"""The commands users run, timed as whole processes, beside `toolscope bench`.

    scripts/bench-user-path.sh [--only github,synthetic-50k] [--runs 3] [--no-ref]

For each workload (a plain-JSON graph artifact) it measures, median of --runs launches,
peak RSS the maximum:

* bench      `toolscope bench G --queries Q1 --select`: load + index + first query, as the
             performance table reports them (the in-process figures, and the process).
* query      `toolscope query G "Q" --select --json > /dev/null`: one query, whole process.
* batch      `toolscope query G --batch CASES` with 20 golden-format cases, whole process;
             `batch-load` is the same with an empty case file (load + index only).
* explorer   `toolscope G --query Q` in a pseudo-terminal (120x40): launch to the first frame
             that shows the query's top-ranked tool; peak RSS read from /proc before quitting.
* mcp        `toolscope mcp G`: launch to the answer of initialize + one lookup_recorded_run.
* reference  graph-tool-call 0.47.0 in the same run: `ToolGraph.load` alone (in-process) and
             the same one-query path as a whole process (python start, import, load,
             retrieve_graphify, select_target_candidate, json.dumps).

Prints one JSON line per measurement (also appended to bench/user-path-<date>.jsonl) and a
table with the issue's targets. Inputs: TS (toolscope binary), PY (reference python, may be
empty with --no-ref), the artifact paths prepared by bench-user-path.sh.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time

TS = os.environ["TS"]
PY = os.environ.get("PY", "")


def peak_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def timed(cmd: list[str], stdin: str | None = None) -> tuple[float, float, str]:
    """(wall seconds, peak MiB, stdout) of a whole process, via /usr/bin/time."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        t = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", tf.name, *cmd],
                           input=stdin, capture_output=True, text=True)
        wall = time.perf_counter() - t
        if p.returncode not in (0, 1):
            raise SystemExit(f"{cmd[:3]} failed ({p.returncode}): {p.stderr.strip()[:300]}")
        kib = int((tf.read().strip().splitlines() or ["0"])[-1])
    return wall, kib / 1024, p.stdout


def explorer(graph: str, query: str, top: str) -> tuple[float, float]:
    """Launch to the first frame with `top` on it; (seconds, peak MiB)."""
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm-256color"
        os.environ.pop("NO_COLOR", None)
        os.execv(TS, [TS, graph, "--query", query])
    import fcntl, struct, termios
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    os.kill(pid, signal.SIGWINCH)
    t = time.perf_counter()
    seen = b""
    needle = top.encode()
    wall = None
    while time.perf_counter() - t < 120:
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                break
            seen = (seen + chunk)[-(1 << 20):]
            if needle in seen:
                wall = time.perf_counter() - t
                break
    mib = peak_kib(pid) / 1024
    try:
        os.write(fd, b"q")
        for _ in range(100):
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            time.sleep(0.05)
        else:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    except OSError:
        pass
    os.close(fd)
    if wall is None:
        raise SystemExit(f"explorer: {top!r} never appeared")
    return wall, mib


def mcp(graph: str, query: str) -> tuple[float, float]:
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "bench", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "lookup_recorded_run", "arguments": {"query": query}}},
    ]
    t = time.perf_counter()
    p = subprocess.Popen([TS, "mcp", graph], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    for m in msgs:
        p.stdin.write((json.dumps(m) + "\n").encode())
    p.stdin.flush()
    answers = 0
    while answers < 2:
        line = p.stdout.readline()
        if not line:
            raise SystemExit("mcp: the server ended early")
        answers += 1
    wall = time.perf_counter() - t
    mib = peak_kib(p.pid) / 1024
    p.stdin.close()
    p.wait()
    return wall, mib


REF_QUERY = r"""
import json, sys, time
t0 = time.perf_counter()
from graph_tool_call import ToolGraph
from graph_tool_call.graphify import retrieve_graphify, select_target_candidate
g = ToolGraph.load(sys.argv[1])
t1 = time.perf_counter()
r = retrieve_graphify(g, sys.argv[2], top_k=10, include_evidence=True)
rows = r.get("results") or []
s = select_target_candidate(sys.argv[2], candidates=rows, tools=g.tools, retrieval_results=rows)
out = json.dumps(r, ensure_ascii=False) + json.dumps(s, ensure_ascii=False)
print(json.dumps({"load_s": t1 - t0, "bytes": len(out)}))
"""


def median(xs):
    return statistics.median(xs) if xs else None


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workload", required=True)
    ap.add_argument("--graph", required=True)
    ap.add_argument("--query", required=True)
    ap.add_argument("--cases", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-ref", action="store_true")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()

    rec = {"workload": a.workload, "graph": os.path.basename(a.graph)}
    top = json.loads(subprocess.run([TS, "query", a.graph, a.query, "--json"],
                                    capture_output=True, text=True, check=True).stdout)["results"][0]["name"]
    with tempfile.TemporaryDirectory() as d:
        q1 = os.path.join(d, "q.txt")
        open(q1, "w").write(a.query + "\n")
        empty = os.path.join(d, "empty.jsonl")
        open(empty, "w").close()
        runs = {k: [] for k in ["bench", "bench_in", "query", "batch", "batch_load", "explorer", "mcp"]}
        rss = {k: 0.0 for k in runs}
        for _ in range(a.runs):
            w, m, out = timed([TS, "bench", a.graph, "--queries", q1, "--select"])
            b = json.loads(out)
            runs["bench"].append(w)
            runs["bench_in"].append((b["load_ms"] + (b["index_ms"] or 0) + b["first_query_ms"]) / 1000)
            rss["bench"] = max(rss["bench"], m)
            for key, cmd in [("query", [TS, "query", a.graph, a.query, "--select", "--json"]),
                             ("batch", [TS, "query", a.graph, "--batch", a.cases]),
                             ("batch_load", [TS, "query", a.graph, "--batch", empty])]:
                w, m, _ = timed(cmd)
                runs[key].append(w)
                rss[key] = max(rss[key], m)
            w, m = explorer(a.graph, a.query, top)
            runs["explorer"].append(w)
            rss["explorer"] = max(rss["explorer"], m)
            w, m = mcp(a.graph, a.query)
            runs["mcp"].append(w)
            rss["mcp"] = max(rss["mcp"], m)
        for k in runs:
            rec[f"{k}_s"] = median(runs[k])
            rec[f"{k}_peak_mib"] = rss[k] if k != "bench_in" else None
        if not a.no_ref and PY:
            loads, walls, mibs = [], [], []
            for _ in range(max(1, min(a.runs, 2))):
                w, m, out = timed([PY, "-c", REF_QUERY, a.graph, a.query])
                loads.append(json.loads(out.strip().splitlines()[-1])["load_s"])
                walls.append(w)
                mibs.append(m)
            rec["ref_load_s"] = median(loads)
            rec["ref_query_s"] = median(walls)
            rec["ref_query_peak_mib"] = max(mibs)
    rec["commit"] = os.environ.get("COMMIT", "")
    line = json.dumps(rec)
    print(line)
    with open(a.out, "a") as f:
        f.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
