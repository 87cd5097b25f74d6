"""After the Quickstart the CLI works: the demo's "Try next" commands run as printed.

As a user would: ``ragfunnel demo`` run as ``scripts/demo`` runs it (with the environment it
built named in RAGFUNNEL_VENV, the console script on the script's own PATH only), then, in a
shell whose PATH lacks that environment, the one line the demo printed, then each printed
command, exactly as printed. A fresh clone would also rebuild the environment, which takes many
minutes; the environment the suite runs in is the one ``.ci/env.sh`` built from this clone.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def _without_the_venv(path: str, venv_bin: Path) -> str:
    return os.pathsep.join(p for p in path.split(os.pathsep) if p and Path(p) != venv_bin)


def test_the_printed_commands_run_in_a_users_shell(tmp_path: Path) -> None:
    venv = Path(sys.prefix)
    venv_bin = Path(sys.executable).parent
    assert (venv_bin / "ragfunnel").exists(), "the console script is not installed"
    work = tmp_path / "demo"
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGFUNNEL_")}
    demo = subprocess.run(
        [str(venv_bin / "ragfunnel"), "demo", "--workdir", str(work), "--cases", "12",
         "--fault", "threshold_high", "--fault", "inverted_reranker", "--no-progress"],
        env={**env, "RAGFUNNEL_VENV": str(venv)}, cwd=tmp_path, capture_output=True, text=True,
        timeout=900, check=False,
    )  # fmt: skip
    assert demo.returncode == 0, demo.stdout + demo.stderr
    lines = demo.stdout.splitlines()
    start = lines.index("Try next:")
    commands = []
    for line in lines[start + 1 :]:
        if not line.startswith("  ragfunnel "):
            break
        commands.append(line.strip())
    assert len(commands) >= 3, demo.stdout
    hint = [ln.strip() for ln in lines if ln.strip().startswith("export PATH=")]
    assert len(hint) == 1, demo.stdout
    assert str(venv / "bin") in hint[0]
    # The user's shell: no ragfunnel on its PATH until the printed line puts it there.
    user_env = {**env, "PATH": _without_the_venv(os.environ["PATH"], venv_bin)}
    missing = subprocess.run(
        ["bash", "-c", "command -v ragfunnel"], env=user_env, capture_output=True, check=False
    )
    assert missing.returncode != 0 or Path(missing.stdout.decode().strip()).parent != venv_bin
    for command in commands:
        done = subprocess.run(
            ["bash", "-c", f"{hint[0]}\n{command}"], env=user_env, cwd=tmp_path,
            capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
        assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
        assert done.stdout.strip(), command
    assert (tmp_path / "faulty.html").is_file()  # the report command's --html, relative to cwd
