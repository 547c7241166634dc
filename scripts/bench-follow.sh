#!/usr/bin/env bash
# Follow and replay speed (issue 18's targets, on this machine's cores), measured by
# `toolscope bench --follow`, which runs the Follow screen's reader (lab::follow) over a
# whole JSON Lines file:
#   reading and classifying, no replay             ≥ 50,000 records/s
#   replay on GitHub's full REST API (1,107 tools) ≥  2,000 records/s
# and, on the same lines and cores, two floors: parsing each line into a JSON value and
# checking that it is JSON at all (serde's IgnoredAny).
# Three files: 60,000 and 2,000 response-shaped records of the 50 GitHub ground-truth
# queries (~2 KB: the ten rows with their score breakdowns, the selector block and the
# parameters, as a service logs them; recorded by `toolscope query --batch` on the GitHub
# graph and replayed there), and 10,000 of the demo's graph-tool-call 0.47.0 trace
# envelopes (~16 KB each, evidence included; replayed on the demo).
# Results are appended to bench/follow-<date>.jsonl.
#
#   scripts/bench-follow.sh [--no-build]
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
[ -f "$GT" ] || { echo "bench-follow: $GT is missing (../shared/corpus)" >&2; exit 2; }
spec="$("$ROOT/scripts/github-spec.sh")"
g="$BENCH/github-full.graph.json"
[ -f "$g" ] || "$TS" build "$spec" -o "$g" --quiet
TMP="$(mktemp -d "${TMPDIR:-/tmp}/bench-follow.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
python3 - "$GT" "$TMP/cases.jsonl" "$TMP/q.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
with open(sys.argv[2], "w") as f:
    for i, q in enumerate(d["queries"]):
        f.write(json.dumps({"id": f"gh-{i:02d}", "query": " ".join(q["query"].split()),
                            "selector": {"llm_target": None, "policy": "strong_evidence"}}) + "\n")
open(sys.argv[3], "w").write("\n".join(" ".join(q["query"].split()) for q in d["queries"]) + "\n")
PY
"$TS" query "$g" --batch "$TMP/cases.jsonl" > "$TMP/batch.jsonl"
python3 - "$TMP" "$ROOT/tests/fixtures/traces/demo.jsonl.gz" <<'PY'
import gzip, json, sys
tmp, demo = sys.argv[1], sys.argv[2]
batch = [json.loads(l) for l in open(f"{tmp}/batch.jsonl") if l.strip()]
def response(i, rec):
    # what a service logs per request: the rows' names, scores and breakdowns, the
    # selector's verdict and the parameters (the batch used the defaults), not the full
    # tool definitions a batch line carries
    sel = rec.get("selection") or {}
    return json.dumps({
        "id": f"req-{i}", "query": rec["query"], "params": {"top_k": 10, "depth": 2},
        "results": [{"name": r["name"], "score": r["score"],
                     "score_breakdown": r.get("score_breakdown", {})}
                    for r in rec["retrieval"]["results"]],
        "target_selector": {k: sel.get(k) for k in
            ("selected_target", "llm_target", "overrode_llm", "ambiguous", "reason_codes")},
    }) + "\n"
with open(f"{tmp}/github-2k.jsonl", "w") as f:
    for i in range(2000):
        f.write(response(i, batch[i % len(batch)]))
with open(f"{tmp}/responses-60k.jsonl", "w") as f:
    for i in range(60000):
        f.write(response(i, batch[i % len(batch)]))
env = [l for l in gzip.open(demo, "rt") if l.strip()]
with open(f"{tmp}/envelopes-10k.jsonl", "w") as f:
    for i in range(10000):
        f.write(env[i % len(env)])
PY
run() { "$TS" bench "$1" --queries "$TMP/q.txt" --follow "$2"; }
for spec_file in "demo envelopes-10k" "$g responses-60k" "$g github-2k"; do
    set -- $spec_file
    out="$(run "$1" "$TMP/$2.jsonl")"
    size=$(stat -c %s "$TMP/$2.jsonl")
    echo "$out" | python3 -c "import json,sys; r=json.load(sys.stdin); r['follow_file']='$2'; r['follow_bytes']=$size; print(json.dumps(r))" \
        >> "$BENCH/follow-$(date +%Y%m%d).jsonl"
    python3 - "$out" "$2" "$size" <<'PY'
import json, sys
r, name, size = json.loads(sys.argv[1]), sys.argv[2], int(sys.argv[3])
n = r["follow_records"]
print(f"{name}: {n} records, {size / 1e6:.1f} MB, on {r['tools']} tools")
c, p = r["follow_classify_per_s"], r["follow_replay_per_s"]
runs = ", ".join(f"{n / s:,.0f}" for s in r.get("follow_classify_runs_s", []))
print(f"  read + classify, no replay  {c:>10,.0f} records/s  target ≥50,000  {'ok' if c >= 50000 else 'UNDER'}"
      f"  (median of three passes: {runs})")
print(f"  read + classify + replay    {p:>10,.0f} records/s  target ≥2,000   {'ok' if p >= 2000 else 'UNDER'}"
      f"  ({r['follow_drifted']} drifted)")
# the floors on the same lines and cores: parsing into a JSON value (the reader's first
# step: the record readers walk a value tree) and merely checking the JSON
v, f = r.get("follow_floor_json_value_per_s"), r.get("follow_floor_json_check_per_s")
if v and f:
    print(f"  floor: parse to a JSON value {v:>9,.0f} records/s  (read + classify is {c / v:.2f}x of it)")
    print(f"  floor: check the JSON only   {f:>9,.0f} records/s  ({size / n * f / 1e6:,.0f} MB/s)")
PY
done
