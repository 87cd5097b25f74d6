# Sourced by .ci/run and scripts/demo: a virtual environment with ragfunnel and its dev extras,
# cached outside the clone (CI starts from a fresh clone) and keyed by pyproject.toml, so a
# dependency change builds a new one and an unchanged project reuses it in seconds.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${RAGFUNNEL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ragfunnel}"
PYTHON="${PYTHON:-python3}"
key="$(cat "$ROOT/pyproject.toml" | sha256sum | cut -c1-12)-$("$PYTHON" -c 'import sys; print("py%d%d" % sys.version_info[:2])')"
VENV="$CACHE/venv-$key"
if [ ! -x "$VENV/bin/python" ] || [ ! -f "$VENV/.complete" ]; then
    echo "[env] creating $VENV" >&2
    rm -rf "$VENV"
    mkdir -p "$CACHE"
    "$PYTHON" -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --upgrade pip
    "$VENV/bin/pip" install --quiet "$ROOT[dev]"
    touch "$VENV/.complete"
fi
# The project itself is always reinstalled (editable, no deps): cheap, and it follows the clone.
"$VENV/bin/pip" install --quiet --no-deps --editable "$ROOT"
export PATH="$VENV/bin:$PATH"
export RAGFUNNEL_VENV="$VENV"
