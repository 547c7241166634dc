#!/usr/bin/env bash
# GitHub's full REST API spec (npm @octokit/openapi, generated/api.github.com.json), the large
# real workload of the benchmarks: fetched once into bench/ (git-ignored) and reused. Prints
# its path; exits 1 when it cannot be fetched (no npm registry).
#
#   spec="$(scripts/github-spec.sh)" || exit 1          # 23.0.2 (13 MB), the benchmarks' spec
#   old="$(scripts/github-spec.sh 22.0.0)" || exit 1    # another published version (diff, blame)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/bench"
version="${1:-23.0.2}"
case "$version" in
    *[!0-9.]* | "") echo "github-spec: $version: not a version number" >&2; exit 2 ;;
esac
if [ "$version" = "23.0.2" ]; then
    spec="$BENCH/github-full.openapi.json"
else
    spec="$BENCH/github-$version.openapi.json"
fi
if [ ! -f "$spec" ]; then
    mkdir -p "$BENCH"
    echo "github-spec: fetching @octokit/openapi $version" >&2
    tmp="$(mktemp -d "$BENCH/.fetch.XXXXXX")"
    trap 'rm -rf "$tmp"' EXIT
    (cd "$tmp" && npm pack "@octokit/openapi@$version" --silent >/dev/null &&
        tar xzf "octokit-openapi-$version.tgz" package/generated/api.github.com.json) || {
        echo "github-spec: npm pack @octokit/openapi@$version failed" >&2
        exit 1
    }
    mv "$tmp/package/generated/api.github.com.json" "$spec"
fi
echo "$spec"
