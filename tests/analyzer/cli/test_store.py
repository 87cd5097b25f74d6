"""``ragfunnel store migrate`` and ``ragfunnel store info`` (``cli/store.py``)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from ragfunnel.analyzer.cli import app
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.migrations import CURRENT_REVISION
from ragfunnel.analyzer.store.tables.stage_spans import STAGE_TABLE
from ragfunnel.analyzer.store.tables.verdicts import LEGACY_VERDICTS_TABLE, VERDICTS_TABLE
from tests.support.traces import TraceBuilder, few_questions


def test_store_migrate_and_info_commands(tmp_path: Path) -> None:
    dsn = f"chdb://{tmp_path / 'st'}"
    runner = CliRunner()
    missing = runner.invoke(app, ["store", "info", "--store", dsn])
    assert missing.exit_code == 1
    assert missing.stderr.startswith("ragfunnel store info: there is no store at")
    assert "(--store or RAGFUNNEL_STORE)" in missing.stderr

    with Store.open(dsn, create=True) as opened:
        b = TraceBuilder()
        few_questions(b, 2)
        b.as_collector_into(opened)
    info = runner.invoke(app, ["store", "info", "--store", dsn])
    assert info.exit_code == 0, info.output
    assert f"revision 0 of {CURRENT_REVISION} (ragfunnel store migrate)" in info.stdout
    assert "MergeTree, 4 rows" in info.stdout and "absent" in info.stdout

    first = runner.invoke(app, ["store", "migrate", "--store", dsn])
    assert first.exit_code == 0, first.output
    assert f"revision 1: stage-span table {STAGE_TABLE}" in first.stdout
    assert f"revision 2: judges' verdicts table {LEGACY_VERDICTS_TABLE}" in first.stdout
    assert (
        f"revision 3: verdicts table {VERDICTS_TABLE} with each claim's confidence" in first.stdout
    )
    assert f"revision 0 → {CURRENT_REVISION}" in first.stdout
    second = runner.invoke(app, ["store", "migrate", "--store", dsn])
    assert f"at revision {CURRENT_REVISION}, nothing to do" in second.stdout
    info = runner.invoke(app, ["store", "info", "--store", dsn])
    assert "view attached: new spans are parsed as they arrive" in info.stdout
    assert "absent" not in info.stdout


def test_store_subcommands_show_examples() -> None:
    runner = CliRunner()
    for name in ("migrate", "info"):
        result = runner.invoke(app, ["store", name, "--help"], env={"COLUMNS": "120"})
        assert result.exit_code == 0, result.output
        assert "Example" in result.output and f"ragfunnel store {name}" in result.output
