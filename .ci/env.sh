# Sourced by .ci/run and scripts/demo: a virtual environment with ragfunnel and its dev extras,
# cached outside the clone (CI starts from a fresh clone) and keyed by pyproject.toml, so a
# dependency change builds a new one and an unchanged project reuses it in seconds.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${RAGFUNNEL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ragfunnel}"
PYTHON="${PYTHON:-python3}"
# Key: the declared dependencies (not the tool settings) and the interpreter version.
key="$("$PYTHON" - "$ROOT/pyproject.toml" <<'PY'
import hashlib, json, sys
try:
    import tomllib
    project = tomllib.load(open(sys.argv[1], "rb"))["project"]
    text = json.dumps([project["dependencies"], project["optional-dependencies"]], sort_keys=True)
except ImportError:  # Python 3.10: hash the whole file
    text = open(sys.argv[1]).read()
print(hashlib.sha256(text.encode()).hexdigest()[:12] + "-py%d%d" % sys.version_info[:2])
PY
)"
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
