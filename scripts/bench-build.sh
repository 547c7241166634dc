#!/usr/bin/env bash
# Build time and peak memory of `toolscope build` against graph-tool-call 0.47.0's
# build_openapi_collection_artifact on the same specs, one after the other in the same run.
#
#   scripts/bench-build.sh [--only github,synthetic-10k,synthetic-50k] [--ref-timeout S] [--no-ref]
#
# Workloads: GitHub's full REST API (bench/github-full.openapi.json, see diff-build.sh for
# how it is fetched) and synthetic specs from scripts/gen-synthetic.py (10 000 and 50 000
# operations, generated into bench/ on first use). Each side writes the artifact the way its
# CLI does (reference: json.dumps(indent=2, ensure_ascii=False, default=str)). Reported:
# build seconds (graph built in memory, before writing), total wall seconds (process start to
# exit, incl. reading and writing) and peak RSS (/usr/bin/time -v); toolscope's figures are the
# medians of TS_RUNS (default 3) runs, the reference runs once. Beside each toolscope run,
# the disk's floor for its artifact: the seconds dd takes to write and flush as many bytes
# straight to disk (the total includes writing the artifact durably, which no build can do
# faster). The reference gets
# --ref-timeout seconds (default 900) per workload; a timeout is reported as such.
# Results are appended as JSON lines to bench/build-bench-<yyyymmdd>.jsonl.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
only="github,synthetic-10k,synthetic-50k"
ref_timeout=900
ref=1
ts_runs="${TS_RUNS:-3}"
while [ $# -gt 0 ]; do
    case "$1" in
        --only) only="$2"; shift 2 ;;
        --ref-timeout) ref_timeout="$2"; shift 2 ;;
        --no-ref) ref=0; shift ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
(cd "$root" && cargo build --release --quiet) || exit 2
bin="${CARGO_TARGET_DIR:-$root/target}/release/toolscope"
[ "$ref" = 1 ] && { PY="$("$root/scripts/reference-env.sh")" || exit 2; }
results="$root/bench/build-bench-$(date -u +%Y%m%d).jsonl"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
want() { case ",$only," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

spec_for() {
    case "$1" in
        github)
            "$root/scripts/github-spec.sh" ;;
        synthetic-10k|synthetic-50k)
            local n=10000; [ "$1" = synthetic-50k ] && n=50000
            local f="$root/bench/$1.openapi.json"
            [ -f "$f" ] || python3 "$root/scripts/gen-synthetic.py" "$n" -o "$f" >&2 || return 1
            echo "$f" ;;
    esac
}

# The disk's floor for MIB MiB: seconds dd takes to write and flush them straight to disk
# (O_DIRECT in 4 MiB blocks, as toolscope writes a file), or through the page cache where the
# file system refuses direct writes.
floor_s() {
    local out
    if out=$( { /usr/bin/time -f %e dd if=/dev/zero of="$tmp/floor" bs=4M count="$(( ($1 + 3) / 4 ))" oflag=direct conv=fsync status=none; } 2>&1 ); then
        echo "$out" | tail -1
    else
        rm -f "$tmp/floor"
        { /usr/bin/time -f %e dd if=/dev/zero of="$tmp/floor" bs=1M count="$1" conv=fsync status=none; } 2>&1 | tail -1
    fi
    rm -f "$tmp/floor"
}

# rss_kib and wall seconds from a /usr/bin/time -v log
rss() { sed -n 's/.*Maximum resident set size (kbytes): //p' "$1"; }
wall() { sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$1" | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else print $1*60+$2 }'; }

printf '%-14s %10s %10s %10s %8s | %10s %10s %10s | %8s %8s\n' workload ts_build_s ts_total_s ts_rss_MiB floor_s ref_build_s ref_total_s ref_rss_MiB build_x rss_x
for w in github synthetic-10k synthetic-50k; do
    want "$w" || continue
    spec="$(spec_for "$w")" || { echo "$w: SKIP (no spec)"; continue; }
    # toolscope: the median of $ts_runs runs (one run varies by 10-15% on this VM)
    builds=(); totals=(); rsss=(); floors=()
    for _ in $(seq "$ts_runs"); do
        /usr/bin/time -v "$bin" build "$spec" -o "$tmp/ts.json" --force 2>"$tmp/ts.log" >/dev/null
        builds+=("$(sed -n 's/^built .* in \([0-9.]*\) s (.*/\1/p' "$tmp/ts.log")")
        totals+=("$(wall "$tmp/ts.log")"); rsss+=("$(( $(rss "$tmp/ts.log") / 1024 ))")
        mib=$(( ($(stat -c %s "$tmp/ts.json") + 1048575) / 1048576 ))
        rm -f "$tmp/ts.json"
        floors+=("$(floor_s "$mib")")
    done
    median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
    ts_build=$(median "${builds[@]}"); ts_total=$(median "${totals[@]}"); ts_rss=$(median "${rsss[@]}")
    floor=$(median "${floors[@]}")
    edges=$(sed -n 's/^built [0-9]* tools\?, \([0-9]*\) edges\?.*/\1/p' "$tmp/ts.log")
    ref_build=null ref_total=null ref_rss=null status=skipped
    if [ "$ref" = 1 ]; then
        if timeout "$ref_timeout" /usr/bin/time -v "$PY" "$root/scripts/ref_build.py" openapi "$tmp/ref.json" "$spec" >"$tmp/ref.out" 2>"$tmp/ref.log"; then
            ref_build=$(python3 -c "import json;print(json.load(open('$tmp/ref.out'))['build_s'])")
            ref_total=$(wall "$tmp/ref.log"); ref_rss=$(( $(rss "$tmp/ref.log") / 1024 )); status=ok
        else
            status="timeout_or_error_after_${ref_timeout}s"
        fi
        rm -f "$tmp/ref.json"
    fi
    bx=$(python3 -c "print('%.1f' % ($ref_build/$ts_build) if '$ref_build' != 'null' else '-')")
    rx=$(python3 -c "print('%.2f' % ($ref_rss/$ts_rss) if '$ref_rss' != 'null' else '-')")
    printf '%-14s %10s %10s %10s %8s | %10s %10s %10s | %8s %8s %s\n' "$w" "$ts_build" "$ts_total" "$ts_rss" "$floor" "$ref_build" "$ref_total" "$ref_rss" "$bx" "$rx" "$([ "$status" = ok ] || echo "$status")"
    echo "{\"workload\":\"$w\",\"edges\":${edges:-null},\"toolscope\":{\"build_s\":$ts_build,\"total_s\":$ts_total,\"peak_rss_mib\":$ts_rss,\"disk_floor_s\":$floor},\"reference\":{\"status\":\"$status\",\"build_s\":$ref_build,\"total_s\":$ref_total,\"peak_rss_mib\":$ref_rss}}" >>"$results"
done
