"""``.ci/env.sh`` under concurrency: two first runs on one cache build one environment, in turn.

The real script runs, with a stand-in interpreter whose ``-m venv`` makes a stand-in ``pip``
(each call logged and slowed down): building the real environment takes minutes and the
network. Before the lock, the second run saw no ``.complete`` marker, deleted the first run's
half-built environment and built its own beside it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PIP = """#!/usr/bin/env bash
echo "$TAG pip $*" >> "$LOG"
sleep 0.3
if [ "$1" = wheel ]; then
    while [ $# -gt 0 ]; do [ "$1" = -w ] && out="$2"; shift; done
    mkdir -p "$out" && touch "$out/ragfunnel_native-0.0.0-py3-none-any.whl"
fi
"""

PYTHON = f"""#!/usr/bin/env bash
if [ "$1" = - ]; then exec {sys.executable} "$@"; fi
if [ "$1" = -m ] && [ "$2" = venv ]; then
    echo "$TAG venv $3" >> "$LOG"
    sleep 0.5
    mkdir -p "$3/bin"
    cp "$0" "$3/bin/python"
    cat > "$3/bin/pip" <<'PIP'
{PIP}PIP
    chmod +x "$3/bin/pip"
    exit 0
fi
exit 3
"""


def test_two_first_runs_build_one_environment_in_turn(tmp_path: Path) -> None:
    python = tmp_path / "python"
    python.write_text(PYTHON, encoding="utf-8")
    python.chmod(0o755)
    log, cache = tmp_path / "log", tmp_path / "cache"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAGFUNNEL_", "VIRTUAL_ENV"))}
    env |= {"RAGFUNNEL_CACHE_DIR": str(cache), "PYTHON": str(python), "LOG": str(log)}
    env.pop("CI", None)
    script = f'source {ROOT / ".ci/env.sh"} && echo "$RAGFUNNEL_VENV"'
    runs = [
        subprocess.Popen(["bash", "-c", script], env={**env, "TAG": tag}, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for tag in ("A", "B")
    ]  # fmt: skip
    results = [run.communicate(timeout=120) for run in runs]
    for run, (out, err) in zip(runs, results, strict=True):
        assert run.returncode == 0, err
    venvs = {out.strip().splitlines()[-1] for out, _ in results}
    assert len(venvs) == 1
    venv = Path(venvs.pop())
    assert (venv / ".complete").is_file() and (venv / "bin" / "pip").is_file()
    lines = log.read_text(encoding="utf-8").splitlines()
    assert [line.split()[1] for line in lines].count("venv") == 1, lines  # built once
    tags = [line.split()[0] for line in lines]
    first = tags[0]
    turn = tags.index("B" if first == "A" else "A")
    assert set(tags[:turn]) == {first} and first not in tags[turn:], lines  # never interleaved
    assert (cache / ".lock").exists()
