#!/usr/bin/env bash
# Records graph-tool-call 0.47.0 trace envelopes (TraceRecorder + its recording adapters)
# for the demo graph and the shared golden graphs into tests/fixtures/traces/, the inputs
# of `toolscope lab replay`'s tests. Deterministic: re-running gives the same files.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
py="$("$root/scripts/reference-env.sh")"
exec "$py" "$root/scripts/make_trace_envelopes.py" "$@"
