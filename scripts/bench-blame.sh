#!/usr/bin/env bash
# Artifact diff and ranking blame between two published versions of GitHub's REST API
# (@octokit/openapi 22.0.0 and 23.0.2, built into 238 MB and 276 MB collection artifacts),
# issue 19's targets on this machine's cores, each command timed as a whole process:
#   toolscope diff OLD NEW                       ≤ 2 s, peak RSS ≤ 2x `query` on one of them
#   toolscope diff OLD NEW --cases 200-case suite ≤ 10 s
# The suite is the 50 cases of peer-bench's github_full_ground_truth.json, four times over
# (as scripts/bench-triage.sh); the README example's own suite is timed too. It also
# checks the structural counts against an independent count made by Python on the JSON.
# Results are appended to bench/blame-<date>.jsonl.
#
#   scripts/bench-blame.sh [--no-build]
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
[ -f "$GT" ] || { echo "bench-blame: $GT is missing (../shared/corpus)" >&2; exit 2; }
new_spec="$("$ROOT/scripts/github-spec.sh")"
old_spec="$("$ROOT/scripts/github-spec.sh" 22.0.0)"
new="$BENCH/github-full.graph.json"
old="$BENCH/github-22.0.0.graph.json"
[ -f "$new" ] || "$TS" build "$new_spec" -o "$new" --quiet
[ -f "$old" ] || "$TS" build "$old_spec" -o "$old" --quiet
TMP="$(mktemp -d "${TMPDIR:-/tmp}/bench-blame.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
python3 - "$GT" "$TMP/suite200.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
cases = [{"case_id": f"gh{rep}-{i:02d}", "query": " ".join(q["query"].split()),
          "expected_tools": q["expected_tools"]}
         for rep in range(4) for i, q in enumerate(d["queries"])]
json.dump({"name": "github-full-x4", "queries": cases}, open(sys.argv[2], "w"))
PY
# one timed run: wall seconds and peak RSS (MiB) of a whole process
timed() {
    local out="$1"; shift
    /usr/bin/time -f '%e %M' -o "$TMP/time" "$@" > "$out"
    read -r secs kib < "$TMP/time"
    echo "$secs $((kib / 1024))"
}
read -r q_s q_mib <<< "$(timed /dev/null "$TS" query "$new" "list repository issues")"
read -r d_s d_mib <<< "$(timed "$TMP/diff.json" "$TS" diff "$old" "$new" --json)"
read -r b_s b_mib <<< "$(timed "$TMP/blame200.jsonl" "$TS" diff "$old" "$new" --cases "$TMP/suite200.json" --json)"
read -r e_s e_mib <<< "$(timed "$TMP/example.jsonl" "$TS" diff "$old" "$new" --cases "$ROOT/assets/examples/github-rebuild.suite.json" --json)"
python3 - "$old" "$new" "$TMP/diff.json" "$TMP/blame200.jsonl" "$TMP/example.jsonl" <<'PY' > "$TMP/checks.json"
import json, sys
old, new, diff, b200, ex = sys.argv[1:]
a, b, d = json.load(open(old)), json.load(open(new)), json.load(open(diff))
ta, tb = set(a["tools"]), set(b["tools"])
renamed = {o: n for o, n in d["tools"]["renamed"]}
ea = {(renamed.get(e["source"], e["source"]), renamed.get(e["target"], e["target"])) for e in a["graph"]["edges"]}
eb = {(e["source"], e["target"]) for e in b["graph"]["edges"]}
independent = {
    "tools_added": len(tb - ta) - len(renamed), "tools_removed": len(ta - tb) - len(renamed),
    "tools_changed": sum(1 for n in ta & tb if a["tools"][n] != b["tools"][n]) + sum(
        1 for o, n in renamed.items()),
    "edges_added": len(eb - ea), "edges_removed": len(ea - eb),
}
ours = {
    "tools_added": len(d["tools"]["added"]), "tools_removed": len(d["tools"]["removed"]),
    "tools_changed": len(d["tools"]["changed"]),
    "edges_added": d["edges"]["counts"]["added"], "edges_removed": d["edges"]["counts"]["removed"],
}
def summary(path):
    rows = [json.loads(l) for l in open(path)]
    changed = [r for r in rows if r["changed"]]
    return {"cases": len(rows), "changed": len(changed),
            "resolved": sum(r["mechanism_status"] == "resolved" for r in changed),
            "sampled": sum(r["method"] == "sampled" for r in changed),
            "largest_residual": max([abs(r["residual"]) for r in changed] or [0.0])}
print(json.dumps({"independent": independent, "ours": ours, "counts_agree": independent == ours,
                  "suite200": summary(b200), "example": summary(ex)}))
PY
line="$(python3 - "$TMP/checks.json" "$q_s" "$q_mib" "$d_s" "$d_mib" "$b_s" "$b_mib" "$e_s" "$e_mib" "$(git rev-parse --short HEAD)" <<'PY'
import json, sys, os
c = json.load(open(sys.argv[1]))
q_s, q_mib, d_s, d_mib, b_s, b_mib, e_s, e_mib = map(float, sys.argv[2:10])
print(json.dumps({"date": __import__("datetime").date.today().isoformat(), "commit": sys.argv[10],
                  "cores": os.cpu_count(), "query_s": q_s, "query_peak_mib": q_mib,
                  "diff_s": d_s, "diff_peak_mib": d_mib, "blame200_s": b_s, "blame200_peak_mib": b_mib,
                  "example_s": e_s, "example_peak_mib": e_mib, **c}))
PY
)"
echo "$line" >> "$BENCH/blame-$(date +%Y%m%d).jsonl"
python3 - "$line" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
ok = lambda c: "ok" if c else "OVER"
print(f"artifact diff        {r['diff_s']:6.2f} s  {r['diff_peak_mib']:5.0f} MiB   (query on one: {r['query_s']:.2f} s, {r['query_peak_mib']:.0f} MiB)"
      f"   target ≤2 s {ok(r['diff_s'] <= 2)}, ≤2x memory {ok(r['diff_peak_mib'] <= 2 * r['query_peak_mib'])}")
print(f"blame, 200 cases     {r['blame200_s']:6.2f} s  {r['blame200_peak_mib']:5.0f} MiB   target ≤10 s {ok(r['blame200_s'] <= 10)}")
print(f"blame, README suite  {r['example_s']:6.2f} s  {r['example_peak_mib']:5.0f} MiB")
for k in ("suite200", "example"):
    s = r[k]
    print(f"  {k}: {s['changed']}/{s['cases']} changed, {s['resolved']} resolved, {s['sampled']} sampled, largest residual {s['largest_residual']:.1e}")
print(f"structural counts agree with an independent count: {r['counts_agree']}  {r['ours']}")
PY
