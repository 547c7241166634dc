#!/usr/bin/env bash
# The user path benchmarked: the commands users run, timed as whole processes, beside
# `toolscope bench` on the same file, with graph-tool-call 0.47.0 in the same run.
#
#   scripts/bench-user-path.sh [--only github,synthetic-50k] [--runs 3] [--no-ref] [--no-build]
#
# Workloads (plain-JSON artifacts, built by `toolscope build` once and cached in bench/,
# git-ignored): github (GitHub's full REST API, @octokit/openapi 23.0.2, 276 MB) and
# synthetic-50k (scripts/gen-synthetic.py 50000, 2.1 GB). What is measured is described in
# scripts/bench_user_path.py; results are appended to bench/user-path-<date>.jsonl and
# summarised against the targets of issue 16:
#   github:  query ≤0.25 s and ≤120 MiB; batch load ≥7x faster than ToolGraph.load
#   50k:     query ≤2.5 s and ≤1 GiB; explorer first ranked frame ≤3 s and ≤1 GiB
#   every user command within 1.3x of what `toolscope bench` reports (time and peak RSS)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
ONLY="github,synthetic-50k"
RUNS=3
REF=1
BUILD=1
while [ $# -gt 0 ]; do
    case "$1" in
        --only) ONLY="$2"; shift ;;
        --runs) RUNS="$2"; shift ;;
        --no-ref) REF=0 ;;
        --no-build) BUILD=0 ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        *) echo "bench-user-path: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
BENCH="$ROOT/bench"
mkdir -p "$BENCH"
if [ "$BUILD" = 1 ]; then cargo build --release --quiet; fi
TS_BUILT="${CARGO_TARGET_DIR:-$ROOT/target}/release/toolscope"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/bench-user.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
export TS="$TMP/toolscope"
cp "$TS_BUILT" "$TS"
export PY=""
if [ "$REF" = 1 ]; then PY="$("$ROOT/scripts/reference-env.sh")"; fi
export COMMIT="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo +dirty)"
OUT="$BENCH/user-path-$(date +%Y%m%d).jsonl"
RUN="$TMP/run.jsonl"
: > "$RUN"
log() { echo "bench-user-path: $*" >&2; }
wanted() { [[ ",$ONLY," == *",$1,"* ]]; }

cases_from() { # QUERIES_FILE N OUT: golden-format cases from the first N queries
    python3 - "$1" "$2" "$3" <<'PY'
import json, sys
qs = [l.strip() for l in open(sys.argv[1], encoding="utf-8") if l.strip() and not l.startswith("#")]
with open(sys.argv[3], "w", encoding="utf-8") as f:
    for i, q in enumerate(qs[: int(sys.argv[2])]):
        f.write(json.dumps({"id": f"c{i}", "query": q, "params": {"top_k": 10},
                            "selector": {"llm_target": None, "policy": "strong_evidence"}}, ensure_ascii=False) + "\n")
PY
}

if wanted github; then
    spec="$("$ROOT/scripts/github-spec.sh")"
    g="$BENCH/github-full.graph.json"
    [ -f "$g" ] || "$TS" build "$spec" -o "$g" --quiet
    python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print("\n".join(" ".join(q["query"].split()) for q in d["queries"]))' \
        "$ROOT/../shared/corpus/peer-bench/fixtures/github_full_ground_truth.json" > "$TMP/gh.q"
    cases_from "$TMP/gh.q" 20 "$TMP/gh.cases"
    log "github ($RUNS runs)"
    python3 "$ROOT/scripts/bench_user_path.py" --workload github --graph "$g" \
        --query "create a webhook for a repository" --cases "$TMP/gh.cases" --runs "$RUNS" \
        --out "$RUN" $([ "$REF" = 1 ] || echo --no-ref) >/dev/null
fi

if wanted synthetic-50k; then
    spec="$BENCH/synthetic-50k.openapi.json"
    [ -f "$spec" ] || python3 "$ROOT/scripts/gen-synthetic.py" 50000 -o "$spec" --queries "$BENCH/synthetic-50k.queries.txt"
    g="$BENCH/synthetic-50k.graph.json"
    [ -f "$g" ] || "$TS" build "$spec" -o "$g" --quiet 2>/dev/null
    cases_from "$BENCH/synthetic-50k.queries.txt" 20 "$TMP/syn.cases"
    q="$(grep -v '^#' "$BENCH/synthetic-50k.queries.txt" | head -1)"
    log "synthetic-50k ($RUNS runs; the reference's load of 2.1 GB takes minutes)"
    python3 "$ROOT/scripts/bench_user_path.py" --workload synthetic-50k --graph "$g" \
        --query "$q" --cases "$TMP/syn.cases" --runs "$RUNS" --out "$RUN" \
        $([ "$REF" = 1 ] || echo --no-ref) >/dev/null
fi

cat "$RUN" >> "$OUT"
python3 - "$RUN" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
def s(v): return "-" if v is None else f"{v:.3f} s"
def m(v): return "-" if v is None else f"{v:.0f} MiB"
for r in rows:
    print(f"\n{r['workload']} ({r['graph']}, toolscope {r['commit']})")
    print(f"  {'command':<34} {'wall':>10} {'peak RSS':>10}")
    # the baseline: what `toolscope bench` reports (load + index + first query, peak RSS)
    base_t, base_m = r["bench_in_s"], r["bench_peak_mib"]
    print(f"  {'bench (load+index+first query)':<34} {s(r['bench_in_s']):>10} {'':>10}   (in-process)")
    print(f"  {'bench, whole process':<34} {s(r['bench_s']):>10} {m(base_m):>10}")
    for k, label in [("query", "query, one query"), ("batch", "query --batch, 20 cases"),
                     ("batch_load", "query --batch, no cases (load)"), ("explorer", "explorer to first ranked frame"),
                     ("mcp", "mcp to first answer")]:
        t, mm = r[f"{k}_s"], r[f"{k}_peak_mib"]
        rt = f"{t / base_t:.2f}x" if base_t else "-"
        rm = f"{mm / base_m:.2f}x" if base_m else "-"
        print(f"  {label:<34} {s(t):>10} {m(mm):>10}   vs bench {rt} time, {rm} RSS")
    if r.get("ref_load_s") is not None:
        print(f"  {'reference ToolGraph.load':<34} {s(r['ref_load_s']):>10}   batch load {r['ref_load_s'] / r['batch_load_s']:.1f}x faster")
        print(f"  {'reference one query, whole':<34} {s(r['ref_query_s']):>10} {m(r['ref_query_peak_mib']):>10}   query {r['ref_query_s'] / r['query_s']:.1f}x faster")
    targets = []
    if r["workload"] == "github":
        targets += [("query ≤0.25 s", r["query_s"] <= 0.25), ("query ≤120 MiB", r["query_peak_mib"] <= 120)]
        if r.get("ref_load_s"):
            targets.append(("batch load ≥7x ToolGraph.load", r["ref_load_s"] / r["batch_load_s"] >= 7))
    if r["workload"] == "synthetic-50k":
        targets += [("query ≤2.5 s", r["query_s"] <= 2.5), ("query ≤1 GiB", r["query_peak_mib"] <= 1024),
                    ("explorer ≤3 s", r["explorer_s"] <= 3), ("explorer ≤1 GiB", r["explorer_peak_mib"] <= 1024)]
    for k in ["query", "batch_load", "explorer", "mcp"]:
        targets.append((f"{k} within 1.3x of bench", r[f"{k}_s"] <= 1.3 * base_t and r[f"{k}_peak_mib"] <= 1.3 * base_m))
    print("  targets: " + ", ".join(f"{n} {'ok' if ok else 'MISS'}" for n, ok in targets))
PY
