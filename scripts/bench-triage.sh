#!/usr/bin/env bash
# Triage speed on GitHub's full REST API (issue 21's targets, on this machine's cores):
#   one case fully triaged, probes included     ≤ 50 ms   (triage_case_p50_ms / p99)
#   a 200-case suite with probes, in parallel   ≤ 5 s     (triage_suite_ms)
#   one document probe's side effects over it   ≤ 1 s     (doc_probe_side_effects_ms)
# The suite is the 50 cases of peer-bench's github_full_ground_truth.json, four times over
# (200 cases). Timings come from `toolscope bench --triage` (in process, after load and
# index); results are appended to bench/triage-<date>.jsonl.
#
#   scripts/bench-triage.sh [--no-build]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD=1
[ "${1:-}" = "--no-build" ] && BUILD=0
BENCH="$ROOT/bench"
mkdir -p "$BENCH"
if [ "$BUILD" = 1 ]; then cargo build --release --quiet; fi
TS="${CARGO_TARGET_DIR:-$ROOT/target}/release/toolscope"
GT="$ROOT/../shared/corpus/peer-bench/fixtures/github_full_ground_truth.json"
[ -f "$GT" ] || { echo "bench-triage: $GT is missing (../shared/corpus)" >&2; exit 2; }
spec="$("$ROOT/scripts/github-spec.sh")"
g="$BENCH/github-full.graph.json"
[ -f "$g" ] || "$TS" build "$spec" -o "$g" --quiet
TMP="$(mktemp -d "${TMPDIR:-/tmp}/bench-triage.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
python3 - "$GT" "$TMP/suite.json" "$TMP/q.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
cases = []
for rep in range(4):
    for i, q in enumerate(d["queries"]):
        cases.append({"case_id": f"gh{rep}-{i:02d}", "query": " ".join(q["query"].split()),
                      "expected_tools": q["expected_tools"]})
json.dump({"name": "github-full-x4", "queries": cases}, open(sys.argv[2], "w"))
open(sys.argv[3], "w").write("\n".join(c["query"] for c in cases[:50]) + "\n")
PY
out="$("$TS" bench "$g" --queries "$TMP/q.txt" --triage "$TMP/suite.json")"
echo "$out" >> "$BENCH/triage-$(date +%Y%m%d).jsonl"
python3 - "$out" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
def row(name, v, target, unit):
    ok = "ok" if v is not None and v <= target else "OVER"
    print(f"  {name:<38} {v:>9.1f} {unit}  target ≤{target} {unit}  {ok}")
print(f"triage on {r['tools']} tools, {r['triage_cases']} cases, {r['triage_threads']} threads")
row("one case, probes included (p50)", r["triage_case_p50_ms"], 50, "ms")
row("one case, probes included (p99)", r["triage_case_p99_ms"], 50, "ms")
row(f"failing case, probes run (p50 of {r['triage_failing_cases']})", r["triage_failing_p50_ms"], 50, "ms")
row("failing case, probes run (max)", r["triage_failing_max_ms"], 50, "ms")
row("suite with probes (parallel)", r["triage_suite_ms"] / 1000, 5, "s")
if r.get("doc_probe_side_effects_ms") is not None:
    row("document probe side effects", r["doc_probe_side_effects_ms"] / 1000, 1, "s")
PY
