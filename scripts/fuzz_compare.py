"""Builds every spec matching GLOB with the reference (graph-tool-call 0.47.0, in-process) and with
toolscope, and prints the first difference per spec in tools, graph, semantic_summary and
readiness_report (JSON order and values), then a tally of difference kinds.

usage: fuzz_compare.py TOOLSCOPE_BIN GLOB   (run with the reference virtualenv's python)
Exit status 1 when any spec differs.
"""
import collections, glob, json, os, re, subprocess, sys, tempfile
from graph_tool_call.graphify import build_openapi_collection_artifact

TS = sys.argv[1]
OUT = os.path.join(tempfile.mkdtemp(), "out.json")
files = sorted(glob.glob(sys.argv[2]))


def first_diff(a, b, p=""):
    if type(a) != type(b):
        return p, a, b
    if isinstance(a, dict):
        if list(a) != list(b):
            return p + " keys", list(a), list(b)
        for k in a:
            d = first_diff(a[k], b[k], p + "/" + k)
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return p + " len", len(a), len(b)
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_diff(x, y, p + f"/{i}")
            if d:
                return d
        return None
    return None if a == b else (p, a, b)


summary = collections.Counter()
bad = 0
for f in files:
    try:
        ref = json.loads(json.dumps(build_openapi_collection_artifact(f), default=str))
    except Exception as e:
        r = subprocess.run([TS, "build", f, "-o", OUT, "--quiet", "--force"], capture_output=True, text=True)
        print(f, "REF ERROR", type(e).__name__, str(e)[:100], "| ts rc", r.returncode, r.stderr.strip()[:150])
        continue
    r = subprocess.run([TS, "build", f, "-o", OUT, "--quiet", "--force"], capture_output=True, text=True)
    if r.returncode != 0:
        bad += 1
        print(f, "TS ERROR", r.stderr.strip()[:200])
        continue
    ts = json.load(open(OUT))
    for k in ["tools", "graph", "semantic_summary", "readiness_report"]:
        d = first_diff(ref.get(k), ts.get(k), k)
        if d:
            bad += 1
            p, a, b = d
            key = re.sub(r"/\d+", "/N", re.sub(r"^tools/[^/]+", "tools/T", p))
            summary[key] += 1
            print(f, p, "\n   ref", json.dumps(a)[:300], "\n   ts ", json.dumps(b)[:300])
            break
print("different:", bad, "of", len(files))
for k, v in summary.most_common():
    print(v, k)
sys.exit(1 if bad else 0)
