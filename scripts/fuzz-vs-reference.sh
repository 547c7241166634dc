#!/usr/bin/env bash
# Differential test of `toolscope build` against graph-tool-call 0.47.0 on random small
# specs (scripts/fuzz_specs.py --mixed --extras: OpenAPI 3.0, every third one Swagger 2.0,
# every fifth written as YAML; the OpenAPI 3 ones also carry operationRef links, callbacks,
# component responses/parameters/examples, path-item parameters and webhooks): every spec is
# built by both and the tools, graph, semantic summary and readiness report are compared in
# JSON order.
#
#   scripts/fuzz-vs-reference.sh [COUNT] [FIRST_SEED]     (default 200 specs from seed 0)
#   scripts/fuzz-vs-reference.sh --graphql [COUNT] [FIRST_SEED]
#   scripts/fuzz-vs-reference.sh --arazzo [COUNT] [FIRST_SEED]
#
# --graphql: random GraphQL introspection results instead (scripts/fuzz_graphql.py), built by
# the reference as ToolGraph().add_tools(ingest_graphql_introspection(doc, endpoint_url=…)
# .tools) + save and by `toolscope build [--endpoint URL]`; tools, graph and the ingest
# result's issues are compared.
#
# --arazzo: random Arazzo workflow descriptions against random specs and MCP lists
# (scripts/fuzz_arazzo.py), applied both ways by scripts/arazzo_compare.py: in the same run
# (build_openapi_collection_artifact(…, workflow_sources=…) vs `toolscope build SPECS…
# WORKFLOWS…`) and to the saved graph (ToolGraph.load + apply_arazzo_workflows + save vs
# `toolscope build SAVED WORKFLOWS…`); whole outputs compared byte for byte, timestamps
# blanked; cases naming an undeclared source description must be refused (exit 2).
#
# Uses target/release/toolscope (built first when missing) and the reference virtualenv of
# scripts/reference-env.sh. Prints the first difference per spec and a tally; exit 1 when any
# spec differs. Failing seeds reproduce: the generator is deterministic.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
graphql=0
arazzo=0
if [ "${1:-}" = "--graphql" ]; then graphql=1; shift; fi
if [ "${1:-}" = "--arazzo" ]; then arazzo=1; shift; fi
count="${1:-200}"; first="${2:-0}"
bin="${CARGO_TARGET_DIR:-$root/target}/release/toolscope"
[ -x "$bin" ] || (cd "$root" && cargo build --release --quiet)
PY="$("$root/scripts/reference-env.sh")"
dir="$(mktemp -d)"; trap 'rm -rf "$dir"' EXIT
if [ "$arazzo" = 1 ]; then
    "$PY" "$root/scripts/fuzz_arazzo.py" "$dir" "$first" "$((first + count))"
    exec "$PY" "$root/scripts/arazzo_compare.py" "$bin" "$dir"
fi
if [ "$graphql" = 1 ]; then
    "$PY" "$root/scripts/fuzz_graphql.py" "$dir" "$first" "$((first + count))"
    exec "$PY" "$root/scripts/fuzz_compare.py" "$bin" "$dir/fz-*.graphql.json"
fi
"$PY" "$root/scripts/fuzz_specs.py" "$dir" "$first" "$((first + count))" --mixed --extras
"$PY" "$root/scripts/fuzz_compare.py" "$bin" "$dir/fz-*"
