#!/usr/bin/env bash
# Golden parity with the *spec* as GRAPH: every shared golden case whose graph the reference
# built from a peer-bench spec or MCP tool list (petstore3, github_subset, ecommerce, the six
# single-server MCP graphs; mcp_mixed via `toolscope build` of its six lists) and the
# project's demo cases with the demo YAML, run through `toolscope query INPUT --batch` so the
# graph is built on load. Uses ../shared/tools/golden-compare.py. Exit 0 iff all identical.
#   scripts/golden-parity-from-specs.sh [path/to/toolscope]
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
shared="${SHARED_DIR:-$root/../shared}"
bin="$(cd "$root" && realpath "${1:-target/release/toolscope}")"
[ -x "$bin" ] || { echo "no binary at $bin (cargo build --release)"; exit 2; }
G="$shared/corpus/golden"; P="$shared/corpus/peer-bench"
[ -d "$G" ] || { echo "SKIP: $G not present"; exit 0; }
cmp="$shared/tools/golden-compare.py"
out="$(mktemp -d)"; trap 'rm -rf "$out"' EXIT
same=0 total=0
run() {  # label cases workdir input
    local label="$1" cases="$2" dir="$3" input="$4"
    (cd "$dir" && "$bin" query "$input" --batch "$cases") >"$out/$label.jsonl" 2>"$out/$label.err"
    local line; line=$(python3 "$cmp" "$cases" "$out/$label.jsonl" --label "$label" | tail -1)
    echo "$line"
    set -- $(echo "$line" | sed -n 's/.*: \([0-9]*\)\/\([0-9]*\) identical.*/\1 \2/p')
    same=$((same + ${1:-0})); total=$((total + ${2:-0}))
}
for s in petstore3 github_subset ecommerce; do run "$s" "$G/cases/$s.jsonl" "$P" "specs/$s.json"; done
for s in docker filesystem git github playwright shell; do run "mcp_$s" "$G/cases/mcp_$s.jsonl" "$P/mcp_tools" "$s.json"; done
(cd "$P/mcp_tools" && "$bin" build filesystem.json github.json playwright.json git.json docker.json shell.json -o "$out/mixed.json" --quiet --force)
run mcp_mixed "$G/cases/mcp_mixed.jsonl" "$out" mixed.json
zcat "$root/tests/golden/demo.jsonl.gz" >"$out/demo_cases.jsonl"
run demo "$out/demo_cases.jsonl" "$root" assets/demo/commerce-backoffice.openapi.yaml
echo "golden parity from specs: $same/$total identical"
[ "$same" -eq "$total" ] && [ "$total" -gt 0 ]
