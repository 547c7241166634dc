#!/usr/bin/env bash
# Byte-identity of `toolscope build` between two binaries (a refactor must not change any
# output): builds every input with both, masks the build timestamps and the printed times,
# and compares the artifact, stdout, stderr (the readiness summary) and the exit code.
#
#   scripts/cmp-builds.sh OLD_BIN NEW_BIN [FUZZ_COUNT]
#
# Inputs: ../shared/corpus/peer-bench specs (from inside peer-bench, as the goldens were)
# and MCP lists (each, and all six in one graph), the demo spec, tests/fixtures/ingest
# (rule fixtures too), FUZZ_COUNT (default 300) `fuzz_specs.py --mixed --extras` specs, and
# bench/github-full.openapi.json when present. Prints the differing inputs and "N/M
# identical"; exit 0 iff all are.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
shared="${SHARED_DIR:-$root/../shared}"
A="$(realpath "$1")"; B="$(realpath "$2")"; fuzz="${3:-300}"
W="$(mktemp -d)"; trap 'rm -rf "$W"' EXIT
mask() {
    sed -E -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]+\+00:00/TS/g' \
        -e 's/in [0-9.]+ s \([0-9.]+ s with writing\)/in T/' "$1"
}
n=0; ok=0
run() { # DIR INPUTS...
    local dir="$1"; shift; n=$((n + 1))
    for x in A B; do
        local bin="$A"; [ "$x" = B ] && bin="$B"
        (cd "$dir" && "$bin" build "$@" -o "$W/o.json" --force >"$W/$x.out" 2>"$W/$x.err"; echo $? >"$W/$x.rc")
        if [ -f "$W/o.json" ]; then mask "$W/o.json" >"$W/$x.m"; else : >"$W/$x.m"; fi
        rm -f "$W/o.json"
        mask "$W/$x.out" >"$W/$x.mo"; mask "$W/$x.err" >"$W/$x.me"
    done
    if cmp -s "$W/A.m" "$W/B.m" && cmp -s "$W/A.mo" "$W/B.mo" && cmp -s "$W/A.me" "$W/B.me" &&
        cmp -s "$W/A.rc" "$W/B.rc"; then
        ok=$((ok + 1))
    else
        echo "DIFF: (cd $dir && toolscope build $*)"
    fi
}
peer="$shared/corpus/peer-bench"
if [ -d "$peer" ]; then
    for s in "$peer"/specs/*.json; do run "$peer" "specs/$(basename "$s")"; done
    for s in "$peer"/mcp_tools/*.json; do run "$peer/mcp_tools" "$(basename "$s")"; done
    run "$peer/mcp_tools" filesystem.json github.json playwright.json git.json docker.json shell.json
fi
run "$root/assets/demo" commerce-backoffice.openapi.yaml
for s in "$root"/tests/fixtures/ingest/rules/*.openapi.json "$root"/tests/fixtures/ingest/*.json \
    "$root"/tests/fixtures/ingest/*.yaml; do
    run "$(dirname "$s")" "$(basename "$s")"
done
if [ "$fuzz" -gt 0 ]; then
    mkdir -p "$W/fuzz"
    python3 "$root/scripts/fuzz_specs.py" "$W/fuzz" 1 $((fuzz + 1)) --mixed --extras
    for s in "$W"/fuzz/*; do run "$W/fuzz" "$(basename "$s")"; done
fi
[ -f "$root/bench/github-full.openapi.json" ] && run "$root/bench" github-full.openapi.json
echo "$ok/$n identical"
[ "$ok" -eq "$n" ]
