#!/usr/bin/env bash
# Regenerates the expected outputs of the ingest rule fixtures with graph-tool-call 0.47.0:
# for every tests/fixtures/ingest/rules/*.openapi.json, the reference's collection build
# (scripts/ref_build.py, run from that directory with the file's relative name, as
# `toolscope build` is run by tests/ingest_build.rs) reduced to its `tools`, `graph.nodes`,
# `graph.edges`, `readiness_report` and `semantic_summary`, written compactly and gzip-compressed (deterministic bytes) next to the
# spec as <name>.expected.json.gz.
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
