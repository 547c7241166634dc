#!/usr/bin/env bash
# Benchmark toolscope against the reference (graph-tool-call 0.47.0) on the same workloads.
#
#   scripts/bench-vs-reference.sh [--quick] [--only W1,W2,...] [--no-build] [--prepare-only]
#
# Workloads: golden (the 12 shared golden graphs, one merged row), demo, github (full REST API,
# @octokit/openapi 23.0.2), synthetic-10k, synthetic-50k. Both engines get the same plain-JSON
# file, the same queries, top_k 10, retrieval with evidence + JSON serialisation + the target
# selector (--select). Prints a table (toolscope value, reference value, reference/toolscope
# ratio per metric) and the targets, and appends the raw JSON lines to
# bench/results-<date>.jsonl. For golden and demo each engine is launched 3 times per graph
# (--quick: once) and every metric is the median over the launches.
#
#   --quick      fewer repeats, skips synthetic-50k
#   --only LIST  comma-separated workload names (golden,demo,github,synthetic-10k,synthetic-50k)
#   --no-build   use the existing target/release/toolscope
#   --prepare-only  only build the missing workload files in bench/, measure nothing
#
# Workload files are prepared once and cached in bench/ (git-ignored): the GitHub artifact is
# built by the reference from the npm package (~30 s), the synthetic ones by
# scripts/gen-synthetic.py (one reference build each; BENCH_SYN_CHUNK=C tiles 50k instead,
# see scripts/README.md).
# Environment: SHARED_DIR (default <repo>/../shared), CARGO_TARGET_DIR, BENCH_REF_BUDGET
# (seconds of timed reference queries per workload before it stops repeating; default 1200),
# BENCH_REF_TIMEOUT (hard limit per reference run, default 5400 s).
set -euo pipefail

QUICK=0
ONLY=""
BUILD=1
PREPARE_ONLY=0
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) QUICK=1 ;;
        --only) ONLY="$2"; shift ;;
        --only=*) ONLY="${1#--only=}" ;;
        --no-build) BUILD=0 ;;
        --prepare-only) PREPARE_ONLY=1; BUILD=0 ;;
        -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
        *) echo "bench-vs-reference: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SHARED="${SHARED_DIR:-$ROOT/../shared}"
GOLDEN_DIR="$SHARED/corpus/golden"
GH_TRUTH="$SHARED/corpus/peer-bench/fixtures/github_full_ground_truth.json"
BENCH="$ROOT/bench"
mkdir -p "$BENCH"
REF_BUDGET="${BENCH_REF_BUDGET:-1200}"
REF_TIMEOUT="${BENCH_REF_TIMEOUT:-5400}"
SYN_CHUNK_50K="${BENCH_SYN_CHUNK:-0}"  # 0: one reference build (~5 min, ~11 GB); C: tiles of ~C operations
START=$(date +%s)

log() { echo "bench: $*" >&2; }
wanted() { [ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]; }

PY="$("$ROOT/scripts/reference-env.sh")"
if [ "$BUILD" = 1 ]; then
    log "cargo build --release"
    if ! cargo build --release --quiet; then
        log "cargo build failed; using the existing binary if there is one"
    fi
fi
TS_BUILT="${CARGO_TARGET_DIR:-$ROOT/target}/release/toolscope"
[ "$PREPARE_ONLY" = 1 ] || [ -x "$TS_BUILT" ] || { echo "bench-vs-reference: $TS_BUILT missing (build first)" >&2; exit 1; }

TMP="$(mktemp -d "${TMPDIR:-/tmp}/bench-vs-ref.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
# measure a private copy: a rebuild of target/ during the run must not change the binary
TS="$TMP/toolscope"
[ "$PREPARE_ONLY" = 1 ] || cp "$TS_BUILT" "$TS"
RESULTS="$BENCH/results-$(date +%Y%m%d).jsonl"
RUN_ID="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
RUN_LINES="$TMP/run.jsonl"
COMMIT="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
git -C "$ROOT" diff --quiet HEAD -- src 2>/dev/null || COMMIT="$COMMIT+dirty"
: > "$RUN_LINES"

if [ "$QUICK" = 1 ]; then TS_REPEAT=5; REF_REPEAT_SMALL=1; LAUNCHES_SMALL=1; else TS_REPEAT=20; REF_REPEAT_SMALL=3; LAUNCHES_SMALL=3; fi

# run_pair WORKLOAD LABEL TS_GRAPH REF_GRAPH QUERIES REF_REPEAT [LAUNCHES]
# Each engine runs LAUNCHES times (default 1) as a fresh process, alternating, and each metric
# is the median over the launches: a small graph loads in under a millisecond, where one
# scheduling hiccup on a shared machine would otherwise decide the ratio. The graph file is
# read once before, so neither engine pays for a cold page cache.
run_pair() {
    local workload="$1" label="$2" ts_graph="$3" ref_graph="$4" queries="$5" ref_repeat="$6"
    local launches="${7:-1}" line i
    [ "$PREPARE_ONLY" = 1 ] && return 0
    cat "$ts_graph" "$ref_graph" > /dev/null
    : > "$TMP/ts-launches.jsonl"; : > "$TMP/ref-launches.jsonl"
    load1="$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo null)"
    for ((i = 0; i < launches; i++)); do
        if line="$("$TS" bench "$ts_graph" --queries "$queries" --top-k 10 --select --repeat "$TS_REPEAT")"; then
            echo "$line" >> "$TMP/ts-launches.jsonl"
        else
            log "toolscope failed on $label"
        fi
        if line="$(timeout "$REF_TIMEOUT" "$PY" "$ROOT/scripts/bench_reference.py" "$ref_graph" --queries "$queries" \
                --top-k 10 --select --repeat "$ref_repeat" --max-seconds "$REF_BUDGET" --label "$label")"; then
            echo "$line" >> "$TMP/ref-launches.jsonl"
        else
            log "reference failed or timed out on $label"
        fi
    done
    [ -s "$TMP/ts-launches.jsonl" ] && tag "$workload" "$label" "$(median_line "$TMP/ts-launches.jsonl")" >> "$RUN_LINES"
    [ -s "$TMP/ref-launches.jsonl" ] && tag "$workload" "$label" "$(median_line "$TMP/ref-launches.jsonl")" >> "$RUN_LINES"
    return 0
}

# median_line FILE -> the first JSON line of FILE with every timing and memory metric replaced
# by its median over all lines, and "launches": the number of lines
median_line() {
    python3 -c 'import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
out = dict(rows[0])
for k, v in rows[0].items():
    if (k.endswith("_ms") or k.endswith("_mib")) and all(isinstance(r.get(k), (int, float)) for r in rows):
        out[k] = statistics.median(r[k] for r in rows)
out["launches"] = len(rows)
print(json.dumps(out, ensure_ascii=False))' "$1"
}

# tag WORKLOAD LABEL JSON -> the JSON line with run id, toolscope commit, workload and the
# 1-minute load average just before the run (other work on the machine skews timings) added
tag() {
    python3 -c 'import json,sys
d=json.loads(sys.argv[3]); d["graph"]=sys.argv[2]
out={"run":sys.argv[4],"commit":sys.argv[5],"workload":sys.argv[1]}; out.update(d)
out["loadavg_1m"]=float(sys.argv[6]) if sys.argv[6] not in ("", "null") else None
print(json.dumps(out, ensure_ascii=False))' "$1" "$2" "$3" "$RUN_ID" "$COMMIT" "${load1:-null}"
}

plain_copy() {  # plain_copy SRC.gz DEST -> decompressed once per workload (both engines read it)
    [ "$PREPARE_ONLY" = 1 ] && return 0
    gzip -dc "$1" > "$2"
}

# ---------------------------------------------------------------- workload preparation
prepare_github() {
    local out="$BENCH/github-full.collection.json.gz"
    [ -s "$out" ] && return 0
    if ! command -v npm >/dev/null; then log "npm not found: skipping github"; return 1; fi
    log "preparing github: npm pack @octokit/openapi@23.0.2"
    local d="$TMP/gh"
    mkdir -p "$d"
    (cd "$d" && npm pack --silent @octokit/openapi@23.0.2 >/dev/null && tar xzf octokit-openapi-23.0.2.tgz package/generated/api.github.com.json)
    log "building the github collection artifact with the reference (~30 s)"
    # built from inside the package with a relative path: the artifact records it as source_url
    (cd "$d/package" && "$PY" - generated/api.github.com.json "$out" "$BENCH/build-times.jsonl") <<'PY'
import gzip, json, os, sys, time
from graph_tool_call.graphify import build_openapi_collection_artifact
spec, out, log = sys.argv[1:4]
t = time.perf_counter()
art = build_openapi_collection_artifact(spec)
build = time.perf_counter() - t
text = json.dumps(art, indent=2, ensure_ascii=False, default=str)
with open(out + ".tmp", "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=6, mtime=0) as gz:
    gz.write(text.encode("utf-8"))
os.replace(out + ".tmp", out)
rec = {"workload": "github", "source": "@octokit/openapi@23.0.2 generated/api.github.com.json",
       "operations": len(art["tools"]), "edges": len(art["graph"]["edges"]), "build_s": round(build, 2),
       "json_mb": round(len(text) / 1e6, 1)}
with open(log, "a") as fh:
    fh.write(json.dumps(rec) + "\n")
print(f"bench: github artifact: {rec}", file=sys.stderr)
PY
    rm -rf "$d"
}

prepare_synthetic() {  # prepare_synthetic N NAME CHUNK
    local n="$1" name="$2" chunk="$3"
    local out="$BENCH/$name.collection.json.gz" q="$BENCH/$name.queries.txt"
    [ -s "$q" ] || python3 "$ROOT/scripts/gen-synthetic.py" "$n" --queries "$q"
    [ -s "$out" ] && return 0
    log "building $name with the reference ($([ "$chunk" = 0 ] && echo "one build" || echo "tiles of ~$chunk operations"); 10k ~2 min, 50k ~8 min)"
    local t0=$(date +%s)
    "$PY" "$ROOT/scripts/gen-synthetic.py" "$n" --artifact "$out" --chunk "$chunk"
    echo "{\"workload\":\"$name\",\"operations\":$n,\"chunk\":$chunk,\"wall_s\":$(( $(date +%s) - t0 ))}" >> "$BENCH/build-times.jsonl"
}

# ---------------------------------------------------------------- workloads
if wanted golden; then
    if [ -d "$GOLDEN_DIR/graphs" ] && [ -d "$GOLDEN_DIR/cases" ]; then
        log "golden: 12 graphs"
        for g in "$GOLDEN_DIR"/graphs/*.json; do
            name="$(basename "$g" .json)"
            cases="$GOLDEN_DIR/cases/$name.jsonl"
            [ -f "$cases" ] || continue
            q="$TMP/golden-$name.txt"
            python3 "$ROOT/scripts/golden_queries.py" "$cases" "$q"
            run_pair golden "golden/$name" "$g" "$g" "$q" "$REF_REPEAT_SMALL" "$LAUNCHES_SMALL"
        done
    else
        log "golden: $GOLDEN_DIR not found, skipped"
    fi
fi

if wanted demo; then
    log "demo"
    plain_copy "$ROOT/assets/demo/commerce-backoffice.collection.json.gz" "$TMP/demo.json"
    # both engines read the same plain file (toolscope's `demo` argument would load its
    # embedded gzip copy, which adds a decompression the reference does not do)
    run_pair demo demo "$TMP/demo.json" "$TMP/demo.json" "$ROOT/assets/demo/queries.txt" "$REF_REPEAT_SMALL" "$LAUNCHES_SMALL"
    rm -f "$TMP/demo.json"
fi

if wanted github; then
    if [ ! -f "$GH_TRUTH" ]; then
        log "github: $GH_TRUTH not found, skipped"
    elif prepare_github; then
        log "github"
        python3 -c 'import json,sys
d=json.load(open(sys.argv[1], encoding="utf-8"))
print("\n".join(" ".join(q["query"].split()) for q in d["queries"]))' "$GH_TRUTH" > "$TMP/github.queries.txt"
        plain_copy "$BENCH/github-full.collection.json.gz" "$TMP/github.json"
        run_pair github github "$TMP/github.json" "$TMP/github.json" "$TMP/github.queries.txt" "$REF_REPEAT_SMALL"
        rm -f "$TMP/github.json"
    fi
fi

for spec in "10000 synthetic-10k 0" "50000 synthetic-50k $SYN_CHUNK_50K"; do
    set -- $spec
    n="$1"; name="$2"; chunk="$3"
    wanted "$name" || continue
    if [ "$QUICK" = 1 ] && [ "$n" -ge 50000 ]; then log "$name skipped (--quick)"; continue; fi
    prepare_synthetic "$n" "$name" "$chunk"
    log "$name"
    plain_copy "$BENCH/$name.collection.json.gz" "$TMP/$name.json"
    run_pair "$name" "$name" "$TMP/$name.json" "$TMP/$name.json" "$BENCH/$name.queries.txt" 1
    rm -f "$TMP/$name.json"
done

ELAPSED=$(( $(date +%s) - START ))
if [ "$PREPARE_ONLY" = 1 ]; then
    log "workloads prepared in $ELAPSED s"; ls -l "$BENCH" >&2; exit 0
fi
cat "$RUN_LINES" >> "$RESULTS"

# ---------------------------------------------------------------- table
python3 - "$RUN_LINES" "$ELAPSED" "$RESULTS" <<'PY'
import json, os, sys

rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
elapsed, results = int(sys.argv[2]), sys.argv[3]
REF = "graph-tool-call 0.47.0"


def merge(lines):
    """One row for many graphs (golden): load and first query summed, p50/mean weighted by
    query count, p99 and peak RSS the maximum."""
    if not lines:
        return None
    n = sum(l["queries"] for l in lines) or 1
    return {
        "tools": sum(l["tools"] for l in lines), "graphs": len(lines),
        "load_ms": sum(l["load_ms"] for l in lines),
        "first_query_ms": sum(l["first_query_ms"] for l in lines),
        "index_ms": (sum(l["index_ms"] for l in lines)
                     if all(l.get("index_ms") is not None for l in lines) else None),
        "p50_ms": sum(l["p50_ms"] * l["queries"] for l in lines) / n,
        "p99_ms": max(l["p99_ms"] for l in lines),
        "mean_ms": sum(l["mean_ms"] * l["queries"] for l in lines) / n,
        "peak_rss_mib": max(l["peak_rss_mib"] for l in lines),
        "queries": sum(l["queries"] for l in lines),
    }


order = []
by = {}
for r in rows:
    w = r["workload"]
    if w not in by:
        by[w] = {"toolscope": [], REF: []}
        order.append(w)
    by[w][r["engine"]].append(r)

table = []
for w in order:
    ts, ref = merge(by[w]["toolscope"]), merge(by[w][REF])
    if ts is None or ref is None:
        table.append((w, ts, ref))
        continue
    table.append((w, ts, ref))


def fmt_ms(v):
    if v is None:
        return "-"
    if v >= 10000:
        return f"{v / 1000:.1f}s"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def ratio(ref, ts):
    if ref is None or ts in (None, 0):
        return "-"
    x = ref / ts
    return f"{x:.0f}x" if x >= 10 else f"{x:.1f}x"


metrics = [("load ms", "load_ms", fmt_ms), ("first query ms", "first_query_ms", fmt_ms),
           ("p50 ms", "p50_ms", fmt_ms), ("p99 ms", "p99_ms", fmt_ms),
           ("peak RSS MiB", "peak_rss_mib", lambda v: "-" if v is None else f"{v:.0f}")]
head = ["workload", "tools"]
for name, _, _ in metrics:
    head += [f"{name} ts", "ref", "x"]
out = []
for w, ts, ref in table:
    tools = (ts or ref or {}).get("tools", "-")
    label = w + (f" ({(ts or ref)['graphs']} graphs)" if (ts or ref or {}).get("graphs", 1) > 1 else "")
    row = [label, str(tools)]
    for _, key, f in metrics:
        a = ts.get(key) if ts else None
        b = ref.get(key) if ref else None
        row += [f(a), f(b), ratio(b, a)]
    out.append(row)
widths = [max(len(r[i]) for r in [head] + out) for i in range(len(head))]
line = lambda r: "  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(r))
print()
print(line(head))
print(line(["-" * w for w in widths]))
for r in out:
    print(line(r))
print()
print("x = reference / toolscope (higher is better for toolscope). p50/p99 per query: retrieve with")
print("evidence + JSON serialisation + target selector, top_k 10. golden: load and first query summed")
print("over the graphs, p50 weighted mean, p99 and RSS maximum.")

# targets
print()
print("targets:")
for w, ts, ref in table:
    if not ts or not ref:
        continue
    checks = []
    if ts["tools"] >= 1000:
        q = ref["p50_ms"] / ts["p50_ms"] if ts["p50_ms"] else 0
        m = ref["mean_ms"] / ts["mean_ms"] if ts["mean_ms"] else 0
        checks.append(("query >=100x (p50 / mean)", min(q, m) >= 100, f"{q:.0f}x / {m:.0f}x"))
    if ts["tools"] >= 50000:
        checks.append(("p50 <=2 ms at 50k", ts["p50_ms"] <= 2.0, f"{ts['p50_ms']:.2f} ms"))
    lr = ref["load_ms"] / ts["load_ms"] if ts["load_ms"] else 0
    checks.append(("load >=7x", lr >= 7, f"{lr:.1f}x"))
    rr = ts["peak_rss_mib"] / ref["peak_rss_mib"] if ref["peak_rss_mib"] else 0
    checks.append(("RSS <=1/3", rr <= 1 / 3, f"{rr:.2f} of reference"))
    print(f"  {w:<15} " + "; ".join(f"{n}: {'ok' if ok else 'MISS'} ({v})" for n, ok, v in checks))
print()
print("toolscope builds its BM25 index at load (index_ms), the reference inside its first query;")
print("toolscope index + first query vs the reference's first query (ms, or s where marked):")
for w, ts, ref in table:
    if ts and ref and ts.get("index_ms") is not None:
        both = ts["index_ms"] + ts["first_query_ms"]
        print(f"  {w:<15} {fmt_ms(both):>8} vs {fmt_ms(ref['first_query_ms']):>8}  {ratio(ref['first_query_ms'], both)}")
loads = [r.get("loadavg_1m") for r in rows if r.get("loadavg_1m") is not None]
cores = os.cpu_count() or 1
if loads and max(loads) > 0.75 * cores:  # this run itself adds ~1
    print()
    print(f"WARNING: the machine was busy (1-min load average up to {max(loads):.1f} on {cores} cores before "
          "a measurement; this run adds ~1): timings are contended and noisy; compare ratios from quiet runs.")
commits = sorted({r.get("commit") for r in rows if r.get("commit")})
print()
print(f"toolscope {', '.join(commits)}; raw lines appended to {results}; "
      f"whole run took {elapsed // 60} min {elapsed % 60} s")
PY
# the release binary's code layout (build.rs): how much of the recorded hot-function list the
# linker found; a stale list (toolchain or Cargo.lock changed) raises RSS and cold-load time
if [ "$PREPARE_ONLY" = 0 ] && [ -s "$ROOT/link/symbol-order.txt" ] && command -v nm >/dev/null; then
    present=$(comm -12 <(nm --defined-only "$TS" | awk '{print $3}' | sort -u) <(sort -u "$ROOT/link/symbol-order.txt") | wc -l)
    echo "code layout: $present of $(wc -l < "$ROOT/link/symbol-order.txt") functions of link/symbol-order.txt found in the binary (renew with scripts/make-symbol-order.sh when this drops)"
fi
