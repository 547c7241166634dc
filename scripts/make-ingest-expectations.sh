#!/usr/bin/env bash
# Regenerates the expected outputs of the ingest rule fixtures with graph-tool-call 0.47.0:
# for every tests/fixtures/ingest/rules/*.openapi.json, the reference's collection build
# (scripts/ref_build.py, run from that directory with the file's relative name, as
# `toolscope build` is run by tests/ingest_build.rs) reduced to its `tools`, `graph.nodes`,
# `graph.edges`, `readiness_report` and `semantic_summary`, written compactly and gzip-compressed (deterministic bytes) next to the
# spec as <name>.expected.json.gz.
#
# Also, for every tests/fixtures/ingest/graphql/*.graphql.json (GraphQL introspection
# results), the reference's documented path
# `ToolGraph().add_tools(ingest_graphql_introspection(doc, endpoint_url=URL).tools)` + `save`
# (URL from <name>.graphql.endpoint when it exists), reduced to the saved graph's `tools`,
# `graph.nodes`, `graph.edges` and the ingest result's `issues` (as to_dict() writes them),
# written the same way as <name>.expected.json.gz; tests/graphql_build.rs compares them.
#
# And the Arazzo fixtures in tests/fixtures/ingest/arazzo (scripts/make_arazzo_expectations.py:
# <name>.build.expected.json.gz and <name>.saved.expected.json.gz, the reference's output text
# with its timestamps blanked); tests/arazzo_build.rs compares them byte for byte.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="$("$root/scripts/reference-env.sh")"
dir="$root/tests/fixtures/ingest/rules"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
cd "$dir"
for spec in *.openapi.json; do
    name="${spec%.openapi.json}"
    "$PY" "$root/scripts/ref_build.py" openapi "$tmp/$name.json" "$spec" >/dev/null
    "$PY" - "$tmp/$name.json" "$dir/$name.expected.json.gz" <<'PYEOF'
import gzip, json, sys
art = json.load(open(sys.argv[1]))
keep = {"tools": art["tools"], "nodes": art["graph"]["nodes"], "edges": art["graph"]["edges"],
        "readiness_report": art["readiness_report"], "semantic_summary": art["semantic_summary"]}
data = json.dumps(keep, ensure_ascii=False, separators=(",", ":")).encode()
with open(sys.argv[2], "wb") as f:
    with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as g:
        g.write(data)
print(sys.argv[2], len(data), "bytes")
PYEOF
done

cd "$root/tests/fixtures/ingest/graphql"
for doc in *.graphql.json; do
    name="${doc%.graphql.json}"
    "$PY" - "$doc" "$name.graphql.endpoint" "$name.expected.json.gz" "$tmp/$name.graph.json" <<'PYEOF'
import gzip, json, os, sys
from graph_tool_call import ToolGraph
from graph_tool_call.ingest import ingest_graphql_introspection
doc, endpoint_file, out, scratch = sys.argv[1:]
endpoint = open(endpoint_file).read() if os.path.exists(endpoint_file) else None
res = ingest_graphql_introspection(json.load(open(doc)), endpoint_url=endpoint)
g = ToolGraph()
g.add_tools(res.tools)
g.save(scratch)
saved = json.load(open(scratch))
issues = [{"severity": i.severity, "code": i.code, "message": i.message, "tool": i.tool,
           "evidence": i.evidence} for i in res.issues]
keep = {"tools": saved["tools"], "nodes": saved["graph"]["nodes"], "edges": saved["graph"]["edges"],
        "issues": issues, "ready": res.ready}
data = json.dumps(keep, ensure_ascii=False, separators=(",", ":")).encode()
with open(out, "wb") as f:
    with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as g:
        g.write(data)
print(out, len(data), "bytes")
PYEOF
done

# the Arazzo fixtures: the reference's outputs of the same run and of the saved-graph way
"$PY" "$root/scripts/make_arazzo_expectations.py" "$root/tests/fixtures/ingest/arazzo"
