"""The CLI starts fast: help and --version import no polars, chdb, pyarrow or judge code."""

from __future__ import annotations

import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.main import get_command
from typer.testing import CliRunner

from ragfunnel.analyzer import cli
from ragfunnel.analyzer.cli import defaults
from ragfunnel.analyzer.cli.app import COMMANDS, app, ragfunnel_version

CLI_DIR = Path(cli.__file__).parent
HEAVY = (
    "polars",
    "chdb",
    "pyarrow",
    "clickhouse_connect",
    "ragfunnel.analyzer.judges",
    "ragfunnel.analyzer.funnel",
    "ragfunnel.analyzer.store",
    "ragfunnel.analyzer.report",
)

PROBE = """
import json, sys
from ragfunnel.analyzer.cli import main
heavy = json.loads(sys.argv[2])
sys.argv = ["ragfunnel", *json.loads(sys.argv[1])]
try:
    main()
except SystemExit as exc:
    code = exc.code
else:
    code = 0
loaded = [m for m in heavy if m in sys.modules]
sys.stderr.write("\\nLOADED=" + json.dumps({"code": code, "loaded": loaded}) + "\\n")
"""


def _loaded(args: list[str]) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args), json.dumps(HEAVY)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    line = [ln for ln in done.stderr.splitlines() if ln.startswith("LOADED=")]
    assert line, done.stderr
    return json.loads(line[-1].removeprefix("LOADED="))


@pytest.mark.parametrize(
    "args",
    [["--help"], ["-h"], ["--version"], *([name, "--help"] for name in COMMANDS),
     ["store", "info", "-h"], ["store", "migrate", "--help"]],
)  # fmt: skip
def test_help_and_version_import_nothing_heavy(args: list[str]) -> None:
    found = _loaded(args)
    assert found["code"] in (0, None), found
    assert found["loaded"] == [], f"`ragfunnel {' '.join(args)}` imported {found['loaded']}"


def test_running_a_command_does_load_its_module() -> None:
    # The probe above can fail: a real run imports the library it needs.
    found = _loaded(["store", "info", "--store", "chdb:///nonexistent/ragfunnel-probe"])
    assert "ragfunnel.analyzer.store" in found["loaded"]


def test_version_prints_the_distribution_version() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"ragfunnel {ragfunnel_version()}"
    assert re.fullmatch(r"ragfunnel \d+\.\d+\.\d+\S*", result.output.strip())


def test_the_table_lists_every_command_a_module_registers() -> None:
    registered = set()
    for path in CLI_DIR.glob("*.py"):
        registered |= set(re.findall(r"@app\.command\(\s*\"([\w-]+)\"", path.read_text()))
        registered |= set(
            re.findall(r"app\.add_typer\(\s*\w+,\s*name=\"([\w-]+)\"", path.read_text())
        )
    assert registered == set(COMMANDS)
    for name, entry in COMMANDS.items():
        assert (CLI_DIR / f"{entry.module}.py").is_file(), name


def test_each_summary_is_the_first_paragraph_of_the_commands_help() -> None:
    group = get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    ctx = typer.Context(group)
    for name, entry in COMMANDS.items():
        command = group.get_command(ctx, name)
        assert command is not None
        first = inspect.cleandoc(command.help or "").split("\n\n")[0].replace("\n", " ")
        assert first == entry.summary, name


def test_root_help_lists_every_command_in_table_order() -> None:
    result = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    found = [re.search(rf"^\W*{name}\s", result.output, re.MULTILINE) for name in COMMANDS]
    assert all(found), result.output
    positions = [m.start() for m in found if m]
    assert positions == sorted(positions)


def test_unknown_command_suggests_a_close_one() -> None:
    result = CliRunner().invoke(app, ["jduge"])
    assert result.exit_code == 2
    assert "judge" in result.output


def test_the_cli_copies_of_library_defaults_match_the_library() -> None:
    from ragfunnel.analyzer.judges.people.review import DEFAULT_SIZE
    from ragfunnel.analyzer.judges.run.batch import POLICIES
    from ragfunnel.analyzer.judges.run.tiered import DEFAULT_SAMPLE_RATE
    from ragfunnel.analyzer.report.diff import ALPHA

    assert defaults.JUDGE_POLICIES == POLICIES
    assert defaults.SAMPLE_RATE == DEFAULT_SAMPLE_RATE
    assert defaults.REVIEW_SIZE == DEFAULT_SIZE
    assert defaults.ALPHA == ALPHA


def test_command_modules_are_all_importable_together() -> None:
    assert len(cli.COMMAND_MODULES) == len(COMMANDS)


ALLOCATOR_PROBE = """
import os, sys
from ragfunnel.analyzer.cli import main
sys.argv = ["ragfunnel", "--version"]
try:
    main()
except SystemExit:
    pass
import polars  # after main, as every command imports it
sys.stderr.write("\\nCONF=" + os.environ.get("_RJEM_MALLOC_CONF", "") + "\\n")
"""


@pytest.mark.parametrize(("given", "seen"), [
    (None, "dirty_decay_ms:500,muzzy_decay_ms:1000,muzzy_decay_ms:0"),
    ("narenas:2", "dirty_decay_ms:500,muzzy_decay_ms:1000,narenas:2"),
])  # fmt: skip
def test_the_cli_gives_polars_allocator_its_option_unless_the_user_did(
    given: str | None, seen: str
) -> None:
    # Polars appends the variable to its own defaults when it is imported: the last
    # muzzy_decay_ms is the one jemalloc keeps. A user's own setting is left as it is.
    env = {k: v for k, v in os.environ.items() if k != "_RJEM_MALLOC_CONF"}
    if given is not None:
        env["_RJEM_MALLOC_CONF"] = given
    done = subprocess.run(
        [sys.executable, "-c", ALLOCATOR_PROBE], env=env,
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    line = [ln for ln in done.stderr.splitlines() if ln.startswith("CONF=")]
    assert line, done.stderr
    assert line[-1].removeprefix("CONF=") == seen
