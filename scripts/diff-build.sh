#!/usr/bin/env bash
# Build the same inputs with graph-tool-call 0.47.0 (the reference) and with toolscope and
# diff the graphs: counts of missing / extra / different tools and edges (source, target,
# relation, confidence, conf_score, evidence, …), node order and the other artifact sections.
#
#   scripts/diff-build.sh [--only petstore3,github_subset,ecommerce,k8s_core_v1,mcp,demo,github_full]
#                         [--show N] [--no-build]
#
# Inputs: ../shared/corpus/peer-bench/specs/*.json (built from inside peer-bench with the
# relative path specs/<name>.json, as the golden graphs were), the six MCP tool lists (one
# graph each plus the mixed graph of all six), the demo spec assets/demo/*.openapi.yaml and
# GitHub's full REST API (npm @octokit/openapi@23.0.2, generated/api.github.com.json; fetched
# into bench/ with `npm pack` on first use, or read from ../main/bench/ when present).
# Reference builds are cached in bench/diff-build/ (keyed by input sha256); toolscope builds
# are redone each run. Prints one summary line per input; exit 0 iff every graph (tools,
# edges, nodes) is identical.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
shared="${SHARED_DIR:-$root/../shared}"
only="petstore3,github_subset,ecommerce,k8s_core_v1,mcp,demo,github_full"
show=0
build=1
while [ $# -gt 0 ]; do
    case "$1" in
        --only) only="$2"; shift 2 ;;
        --show) show="$2"; shift 2 ;;
        --no-build) build=0; shift ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
PY="$("$root/scripts/reference-env.sh")" || exit 2
if [ "$build" = 1 ]; then
    (cd "$root" && cargo build --release --quiet) || exit 2
fi
bin="${CARGO_TARGET_DIR:-$root/target}/release/toolscope"
cache="$root/bench/diff-build"
mkdir -p "$cache"
out="$(mktemp -d)"; trap 'rm -rf "$out"' EXIT
status=0
want() { case ",$only," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

# ref_build NAME KIND WORKDIR ARGS... : cached reference build into $cache/NAME.json
ref_build() {
    local name="$1" kind="$2" dir="$3"; shift 3
    local key; key="$(cd "$dir" && cat "$@" 2>/dev/null | sha256sum | cut -c1-16)-$kind-$*"
    key="$(echo "$key" | sha256sum | cut -c1-16)"
    if [ ! -f "$cache/$name.$key.json" ]; then
        rm -f "$cache/$name".*.json
        (cd "$dir" && "$PY" "$root/scripts/ref_build.py" "$kind" "$cache/$name.$key.json" "$@" >"$cache/$name.$key.time") || return 1
    fi
    echo "$cache/$name.$key.json"
}

compare() {
    local name="$1" ref="$2" mine="$3"
    python3 "$root/scripts/diff_build.py" "$ref" "$mine" --label "$name" --show "$show" || status=1
}

peer="$shared/corpus/peer-bench"
for s in petstore3 github_subset ecommerce k8s_core_v1; do
    want "$s" || continue
    if [ ! -f "$peer/specs/$s.json" ]; then echo "$s: SKIP (no $peer/specs/$s.json)"; continue; fi
    ref="$(ref_build "$s" openapi "$peer" "specs/$s.json")" || { echo "$s: reference build failed"; status=1; continue; }
    (cd "$peer" && "$bin" build "specs/$s.json" -o "$out/$s.json" --quiet --force) || { echo "$s: toolscope build failed"; status=1; continue; }
    compare "$s" "$ref" "$out/$s.json"
done

if want mcp; then
    if [ -d "$peer/mcp_tools" ]; then
        for s in docker filesystem git github playwright shell; do
            ref="$(ref_build "mcp_$s" mcp "$peer/mcp_tools" "$s.json")" || { status=1; continue; }
            "$bin" build "$peer/mcp_tools/$s.json" -o "$out/mcp_$s.json" --quiet --force || { status=1; continue; }
            compare "mcp_$s" "$ref" "$out/mcp_$s.json"
        done
        set -- filesystem.json github.json playwright.json git.json docker.json shell.json
        ref="$(ref_build mcp_mixed mcp "$peer/mcp_tools" "$@")" || status=1
        (cd "$peer/mcp_tools" && "$bin" build "$@" -o "$out/mcp_mixed.json" --quiet --force) || status=1
        compare mcp_mixed "$ref" "$out/mcp_mixed.json"
    else
        echo "mcp: SKIP (no $peer/mcp_tools)"
    fi
fi

if want demo; then
    ref="$(ref_build demo openapi "$root/assets/demo" commerce-backoffice.openapi.yaml)" || status=1
    (cd "$root/assets/demo" && "$bin" build commerce-backoffice.openapi.yaml -o "$out/demo.json" --quiet --force) || status=1
    compare demo "$ref" "$out/demo.json"
fi

if want github_full; then
    gh="$root/bench/github-full.openapi.json"
    if [ ! -f "$gh" ]; then
        if [ -f "$root/../main/bench/github-full.openapi.json" ]; then
            cp "$root/../main/bench/github-full.openapi.json" "$gh"
        else
            "$root/scripts/github-spec.sh" >/dev/null ||
                { echo "github_full: SKIP (npm pack @octokit/openapi@23.0.2 failed)"; gh=""; }
        fi
    fi
    if [ -n "$gh" ]; then
        ref="$(ref_build github_full openapi "$root/bench" github-full.openapi.json)" || status=1
        (cd "$root/bench" && "$bin" build github-full.openapi.json -o "$out/github_full.json" --quiet --force) || status=1
        compare github_full "$ref" "$out/github_full.json"
    fi
fi
exit $status
