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
# Two first runs at once (parallel CI jobs sharing the cache) must not build, delete or install
# into the same environment together: everything below that writes under $CACHE runs under one
# lock (flock on $CACHE/.lock; a venv is not relocatable, so building aside and renaming would
# break its scripts). The lock is released at the end, or when the sourcing shell exits.
mkdir -p "$CACHE"
exec {_ragfunnel_lock}>>"$CACHE/.lock"
if command -v flock >/dev/null; then
    flock "$_ragfunnel_lock"
else
    echo "[env] flock not found: concurrent first runs on $CACHE may collide" >&2
fi
if [ ! -x "$VENV/bin/python" ] || [ ! -f "$VENV/.complete" ]; then
    echo "[env] creating $VENV" >&2
    rm -rf "$VENV"  # a build that died half-way: no one else builds it while we hold the lock
    "$PYTHON" -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --upgrade pip
    "$VENV/bin/pip" install --quiet "$ROOT[dev]"
    touch "$VENV/.complete"
fi
# The project itself is always reinstalled (editable, no deps): cheap, and it follows the clone.
"$VENV/bin/pip" install --quiet --no-deps --editable "$ROOT"

# ragfunnel-native (native/, Rust): the ingest's fast converter. Its wheel is cached by a hash
# of its sources and built with cargo (rustup) and maturin (from PyPI); without cargo the
# ingest falls back to the Python converter (same rows, about 3x slower), except in CI.
[ -d "$HOME/.cargo/bin" ] && export PATH="$PATH:$HOME/.cargo/bin"
nkey="$(cd "$ROOT/native" && cat Cargo.toml Cargo.lock pyproject.toml ragfunnel_native.pyi src/*.rs | sha256sum | cut -c1-12)"
if [ ! -f "$VENV/.native-$nkey" ]; then
    wheels="$CACHE/wheels/native-$nkey"
    if ! ls "$wheels"/ragfunnel_native-*.whl >/dev/null 2>&1; then
        if command -v cargo >/dev/null; then
            echo "[env] building ragfunnel-native ($nkey)" >&2
            rm -rf "$wheels"
            CARGO_TARGET_DIR="$CACHE/cargo-target" "$VENV/bin/pip" wheel --quiet --no-deps \
                "$ROOT/native" -w "$wheels"
        elif [ "${CI:-}" = "true" ]; then
            echo "[env] cargo not found: CI needs it to build ragfunnel-native" >&2
            exit 1
        else
            echo "[env] cargo not found: ingest will use the slower Python converter" >&2
        fi
    fi
    if ls "$wheels"/ragfunnel_native-*.whl >/dev/null 2>&1; then
        "$VENV/bin/pip" install --quiet --no-deps --force-reinstall "$wheels"/ragfunnel_native-*.whl
        rm -f "$VENV"/.native-*
        touch "$VENV/.native-$nkey"
    fi
fi
exec {_ragfunnel_lock}>&-
unset _ragfunnel_lock
export PATH="$VENV/bin:$PATH"
export RAGFUNNEL_VENV="$VENV"
