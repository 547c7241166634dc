#!/usr/bin/env bash
# GitHub's full REST API spec (npm @octokit/openapi 23.0.2, generated/api.github.com.json,
# 276 MB), the large real workload of the benchmarks: fetched once into bench/ (git-ignored)
# and reused. Prints its path; exits 1 when it cannot be fetched (no npm registry).
#
#   spec="$(scripts/github-spec.sh)" || exit 1
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/bench"
spec="$BENCH/github-full.openapi.json"
if [ ! -f "$spec" ]; then
    mkdir -p "$BENCH"
    echo "github-spec: fetching @octokit/openapi 23.0.2" >&2
    tmp="$(mktemp -d "$BENCH/.fetch.XXXXXX")"
    trap 'rm -rf "$tmp"' EXIT
    (cd "$tmp" && npm pack @octokit/openapi@23.0.2 --silent >/dev/null &&
        tar xzf octokit-openapi-23.0.2.tgz package/generated/api.github.com.json) || {
        echo "github-spec: npm pack @octokit/openapi@23.0.2 failed" >&2
        exit 1
    }
    mv "$tmp/package/generated/api.github.com.json" "$spec"
fi
echo "$spec"
