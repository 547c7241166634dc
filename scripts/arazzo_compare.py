"""Applies the Arazzo cases of fuzz_arazzo.py (or any folder of cases named the same way)
with the reference (graph-tool-call 0.47.0, in-process) and with toolscope, both ways:

  build  : build_openapi_collection_artifact(SPECS, workflow_sources=WORKFLOWS) written like
           its CLI (json.dumps indent=2, ensure_ascii=False) against
           `toolscope build SPECS… WORKFLOWS… -o OUT`;
  saved  : ToolGraph.load(the reference's collection of SPECS), apply_arazzo_workflows(graph,
           WORKFLOWS), save, against `toolscope build SPECS… -o C` then
           `toolscope build C WORKFLOWS… -o OUT`.

The outputs are compared byte for byte once their timestamps (built_at, created_at) are
blanked; the first structural difference is printed for a case that differs. A GraphQL
schema the reference gives no tool counts as agreeing when toolscope refuses it (exit 2). A case with an
`.expect-error` file must make toolscope exit 2 with one line (the reference reads on).

usage: arazzo_compare.py TOOLSCOPE_BIN CASE_DIR   (run with the reference virtualenv's python)
Prints "identical: N/M" per way; exit status 1 when any case differs.
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

from graph_tool_call import ToolGraph
from graph_tool_call.graphify import apply_arazzo_workflows, build_openapi_collection_artifact

TS = ""
DIR = "."
TMP = tempfile.mkdtemp()
STAMP = re.compile(r'"(built_at|created_at)": "[^"]*"')


def blank(text):
    return STAMP.sub(r'"\1": ""', text)


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


def ref_build(specs, wfs):
    """The reference's collection of SPECS with WORKFLOWS, as its CLI writes it."""
    src = specs[0] if len(specs) == 1 else specs
    art = build_openapi_collection_artifact(src, workflow_sources=wfs)
    return json.dumps(art, indent=2, ensure_ascii=False, default=str)


def ref_saved(specs, wfs):
    """ToolGraph.load(the reference's collection of SPECS), apply WORKFLOWS, save."""
    src = specs[0] if len(specs) == 1 else specs
    base = os.path.join(TMP, "base.json")
    with open(base, "w", encoding="utf-8") as f:
        f.write(json.dumps(build_openapi_collection_artifact(src), indent=2, ensure_ascii=False, default=str))
    g = ToolGraph.load(base)
    apply_arazzo_workflows(g, wfs)
    out = os.path.join(TMP, "ref-saved.json")
    g.save(out)
    return open(out, encoding="utf-8").read()


def ref_mcp(spec, wfs, saved):
    """ToolGraph().ingest_mcp_tools + apply_arazzo_workflows + save (saved: applied to the
    saved graph after ToolGraph.load)."""
    g = mcp_graph(spec)
    if saved:
        base = os.path.join(TMP, "base.json")
        g.save(base)
        g = ToolGraph.load(base)
    apply_arazzo_workflows(g, wfs)
    out = os.path.join(TMP, "ref.json")
    g.save(out)
    return open(out, encoding="utf-8").read()


def cases(folder="."):
    out = {}
    for f in sorted(os.listdir(folder)):
        m = re.match(r"(fz-\d+|[a-z0-9-]+?)\.(a|b|openapi)\.(json|yaml|mcp\.json|graphql\.json)$", f)
        if m:
            out.setdefault(m.group(1), {"specs": [], "workflows": []})["specs"].append(f)
    for stem, c in out.items():
        c["workflows"] = sorted(glob.glob1(folder, stem + ".arazzo.*")) + sorted(glob.glob1(folder, stem + ".2.arazzo.*"))
        c["error"] = os.path.exists(os.path.join(folder, stem + ".expect-error"))
    return out


# the endpoint GraphQL cases are built with
ENDPOINT = "https://api.example.com/graphql"


def ts(*args):
    extra = ["--endpoint", ENDPOINT] if any(str(a).endswith(".graphql.json") for a in args) else []
    return subprocess.run([TS, "build", *args, "--force", *extra], cwd=DIR, capture_output=True, text=True)


def compare(ref_text, ts_path):
    ts_text = open(ts_path, encoding="utf-8").read()
    if blank(ref_text) == blank(ts_text):
        return None
    d = first_diff(json.loads(blank(ref_text)), json.loads(blank(ts_text)))
    return d or ("bytes", "(same JSON, different text)", "")


def mcp_graph(path):
    """The tool graph of an MCP list (ingest_mcp_tools) or, for a .graphql.json, of a GraphQL
    introspection result (add_tools(ingest_graphql_introspection(doc, endpoint_url=…).tools))."""
    data = json.load(open(path))
    g = ToolGraph()
    if path.endswith(".graphql.json"):
        from graph_tool_call.ingest import ingest_graphql_introspection
        g.add_tools(ingest_graphql_introspection(data, endpoint_url=ENDPOINT).tools)
        return g
    g.ingest_mcp_tools(data["tools"], server_name=data["serverInfo"]["name"])
    return g


def check(stem, way, ref_text, out, tally):
    tally[way][1] += 1
    d = compare(ref_text, out)
    if d:
        print(stem, way + ":", d[0], "\n   ref", json.dumps(d[1])[:400], "\n   ts ", json.dumps(d[2])[:400])
    else:
        tally[way][0] += 1


def main():
    global TS, DIR
    TS, DIR = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    tally = {"build": [0, 0], "saved": [0, 0], "error": [0, 0]}
    os.chdir(DIR)
    out = os.path.join(TMP, "out.json")
    for stem, c in cases().items():
        specs, wfs = c["specs"], c["workflows"]
        if not wfs:
            continue
        if c["error"]:
            tally["error"][1] += 1
            r = ts(*specs, *wfs, "-o", out, "--quiet")
            lines = r.stderr.strip().splitlines()
            if r.returncode == 2 and len(lines) == 1 and "source description" in lines[0]:
                tally["error"][0] += 1
            else:
                print(stem, "error expected, got rc", r.returncode, r.stderr.strip()[:300])
            continue
        mcp = specs[0].endswith((".mcp.json", ".graphql.json"))
        try:
            ref = {"build": ref_mcp(specs[0], wfs, False) if mcp else ref_build(specs, wfs),
                   "saved": ref_mcp(specs[0], wfs, True) if mcp else ref_saved(specs, wfs)}
        except Exception as e:  # noqa: BLE001
            print(stem, "REF ERROR", type(e).__name__, str(e)[:200])
            continue
        r = ts(*specs, *wfs, "-o", out, "--quiet")
        if r.returncode == 2 and not json.loads(ref["build"]).get("tools"):
            # a schema or list the reference gives no tool: toolscope refuses it (as
            # fuzz_compare.py counts it)
            for way in ("build", "saved"):
                tally[way][0] += 1
                tally[way][1] += 1
            continue
        if r.returncode != 0:
            tally["build"][1] += 1
            print(stem, "build: TS ERROR", r.stderr.strip()[:300])
        else:
            check(stem, "build", ref["build"], out, tally)
        base = os.path.join(TMP, "c.json")
        r = ts(*specs, "-o", base, "--quiet")
        r = ts(base, *wfs, "-o", out, "--quiet") if r.returncode == 0 else r
        if r.returncode != 0:
            tally["saved"][1] += 1
            print(stem, "saved: TS ERROR", r.stderr.strip()[:300])
        else:
            check(stem, "saved", ref["saved"], out, tally)
    bad = 0
    for way, (ok, n) in tally.items():
        print(f"{way}: identical: {ok}/{n}")
        bad += n - ok
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
