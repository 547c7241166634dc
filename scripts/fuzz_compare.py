"""Builds every spec matching GLOB with the reference (graph-tool-call 0.47.0, in-process) and with
toolscope, and prints the first difference per spec in tools, graph, semantic_summary and
readiness_report (JSON order and values), then a tally of difference kinds.

GraphQL introspection files (`*.graphql.json`, from fuzz_graphql.py) are built as
`ToolGraph().add_tools(ingest_graphql_introspection(doc, endpoint_url=URL).tools)` + `save`
(URL from a sidecar `<name>.graphql.endpoint` when there is one, passed to toolscope as
`--endpoint`); their tools and graph are compared, and the ingest result's issues (severity,
code, message, count, in order) against the lines of toolscope's readiness summary. A schema
the reference gives no tool is counted as agreeing when toolscope refuses it (exit 2).

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


def ref_graphql(f, endpoint):
    from graph_tool_call import ToolGraph
    from graph_tool_call.ingest import ingest_graphql_introspection
    res = ingest_graphql_introspection(json.load(open(f)), endpoint_url=endpoint)
    counts = collections.OrderedDict()
    for i in res.issues:
        k = (i.severity, i.code, i.message)
        counts[k] = counts.get(k, 0) + 1
    issues = [f"{sev} {code} x{n}: {msg}" for (sev, code, msg), n in counts.items()]
    if not res.tools:
        return None, issues
    g = ToolGraph()
    g.add_tools(res.tools)
    path = OUT + ".ref.json"
    g.save(path)
    return json.load(open(path)), issues


def ts_issue_lines(stderr):
    return [re.sub(r"\s+", " ", l.strip(), count=1) for l in stderr.splitlines()
            if re.match(r"^  (blocker|warning|info|error)\s+\S+ x\d+: ", l)]


def compare_graphql(f):
    sidecar = f[: -len(".json")] + ".endpoint"
    endpoint = open(sidecar).read() if os.path.exists(sidecar) else None
    ref, ref_issues = ref_graphql(f, endpoint)
    cmd = [TS, "build", f, "-o", OUT, "--force"] + (["--endpoint", endpoint] if endpoint is not None else [])
    r = subprocess.run(cmd, capture_output=True, text=True)
    if ref is None:
        if r.returncode == 2:
            return None
        return ("exit", "ref: no tools", f"ts rc {r.returncode}")
    if r.returncode != 0:
        return ("exit", "ref: built", r.stderr.strip()[:200])
    ts = json.load(open(OUT))
    for k in ["graph", "tools"]:
        d = first_diff(ref.get(k), ts.get(k), k)
        if d:
            return d
    if ts_issue_lines(r.stderr) != ref_issues:
        return ("issues", ref_issues, ts_issue_lines(r.stderr))
    return None


summary = collections.Counter()
bad = 0
for f in files:
    if f.endswith(".graphql.json"):
        d = compare_graphql(f)
        if d:
            bad += 1
            p, a, b = d
            summary[re.sub(r"/\d+", "/N", re.sub(r"^tools/[^/]+", "tools/T", p))] += 1
            print(f, p, "\n   ref", json.dumps(a)[:300], "\n   ts ", json.dumps(b)[:300])
        continue
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
print(f"identical: {len(files) - bad}/{len(files)}")
for k, v in summary.most_common():
    print(v, k)
sys.exit(1 if bad else 0)
