#!/usr/bin/env bash
# Regenerate tests/golden/{demo,edgy}.jsonl with graph-tool-call 0.47.0.
# Ensures the reference virtualenv first (scripts/reference-env.sh); extra arguments are
# passed to scripts/make-goldens.py (e.g. --only edgy, --out-dir /tmp/x).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="$("$ROOT/scripts/reference-env.sh")"
# Belt and braces: the output was checked to be identical for any PYTHONHASHSEED and locale.
export PYTHONHASHSEED=0 PYTHONUTF8=1 LC_ALL=C.UTF-8
exec "$PY" "$ROOT/scripts/make-goldens.py" "$@"
