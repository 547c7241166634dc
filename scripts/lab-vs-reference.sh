#!/usr/bin/env bash
# Runs every peer-bench suite through graph-tool-call 0.47.0 and `toolscope lab eval` on the
# same reference-built graphs and prints hit@1/hit@5/recall@5/MRR/selector accuracy side by side.
# usage: scripts/lab-vs-reference.sh [PEER_BENCH_DIR]   (default ../shared/corpus/peer-bench)
set -euo pipefail
cd "$(dirname "$0")/.."
PEER=${1:-../shared/corpus/peer-bench}
PY="$(scripts/reference-env.sh)"
cargo build --release --quiet
"$PY" scripts/lab_vs_reference.py target/release/toolscope "$PEER" bench/lab
