"""Writes the expected outputs of the Arazzo fixtures with graph-tool-call 0.47.0.

usage: make_arazzo_expectations.py CASE_DIR   (run with the reference virtualenv's python;
                                               scripts/make-ingest-expectations.sh runs it)

For every case in CASE_DIR (named as scripts/arazzo_compare.py reads them: <name>.a.json /
.b.json / .openapi.yaml / .a.mcp.json / .a.graphql.json specs, <name>.arazzo.* and
<name>.2.arazzo.* descriptions), run from CASE_DIR with relative names: the reference's output
of the same run (build_openapi_collection_artifact(SPECS, workflow_sources=…) as its CLI
writes it; for an MCP list ToolGraph().ingest_mcp_tools, for a GraphQL introspection result
add_tools(ingest_graphql_introspection(doc, endpoint_url=arazzo_compare.ENDPOINT).tools), then
apply_arazzo_workflows + save) to
<name>.build.expected.json.gz, and of the saved-graph way (ToolGraph.load, apply, save) to
<name>.saved.expected.json.gz — the text exactly, its built_at and created_at values blanked,
gzip-compressed with deterministic bytes. Cases with an .expect-error file get none.
tests/arazzo_build.rs compares toolscope's outputs with them byte for byte.
"""
import gzip
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arazzo_compare as ac  # noqa: E402


def write(path, text):
    with open(path, "wb") as f:
        with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as g:
            g.write(ac.blank(text).encode("utf-8"))
    print(path, len(text), "bytes")


def main():
    os.chdir(sys.argv[1])
    for stem, c in ac.cases().items():
        specs, wfs = c["specs"], c["workflows"]
        if not wfs or c["error"]:
            continue
        if specs[0].endswith((".mcp.json", ".graphql.json")):
            build, saved = ac.ref_mcp(specs[0], wfs, False), ac.ref_mcp(specs[0], wfs, True)
        else:
            build, saved = ac.ref_build(specs, wfs), ac.ref_saved(specs, wfs)
        write(stem + ".build.expected.json.gz", build)
        write(stem + ".saved.expected.json.gz", saved)


if __name__ == "__main__":
    main()
