#!/usr/bin/env bash
# Create (idempotently) the reference virtualenv with graph-tool-call 0.47.0 from PyPI and
# print the path of its python interpreter on stdout (progress goes to stderr).
#
#   PY="$(scripts/reference-env.sh)"       # run it: prints the interpreter path
#   source scripts/reference-env.sh        # or source it: sets and exports REFERENCE_PY
#
# Environment: REFERENCE_VENV (default <repo>/.venv-reference), PYTHON (default python3).
# The venv is (re)installed when it is missing or its stamp file does not name the pinned
# requirement; otherwise nothing is downloaded.

_reference_env_main() (
    set -euo pipefail
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    venv="${REFERENCE_VENV:-$root/.venv-reference}"
    python="${PYTHON:-python3}"
    pin="graph-tool-call[openapi]==0.47.0"
    reqs=("$pin" "pyyaml>=6")
    stamp="$venv/.toolscope-reference-ok"
    want="${reqs[*]}"

    if [ ! -x "$venv/bin/python" ] || [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
        echo "reference-env: installing ${want} into $venv" >&2
        "$python" -m venv "$venv" >&2
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${reqs[@]}" >&2
        "$venv/bin/python" - >&2 <<'PY'
import importlib.metadata as md
import yaml  # noqa: F401  (YAML specs need it)
version = md.version("graph-tool-call")
assert version == "0.47.0", f"graph-tool-call {version} installed, 0.47.0 expected"
PY
        printf '%s' "$want" > "$stamp"
    fi
    echo "$venv/bin/python"
)

if REFERENCE_PY="$(_reference_env_main)"; then
    export REFERENCE_PY
    unset -f _reference_env_main
    if [ "${BASH_SOURCE[0]}" = "$0" ]; then
        echo "$REFERENCE_PY"
    fi
else
    unset -f _reference_env_main
    echo "reference-env: failed to prepare the reference virtualenv" >&2
    return 1 2>/dev/null || exit 1
fi
