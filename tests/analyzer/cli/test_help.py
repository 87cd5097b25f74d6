"""Every CLI command explains itself with at least one example (STYLE: a thin, helpful CLI)."""

from __future__ import annotations

import typer
from typer.main import get_command
from typer.testing import CliRunner

from ragfunnel.analyzer.cli import app


def command_names() -> list[str]:
    group = get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    return sorted(group.list_commands(typer.Context(group)))


def test_the_cli_is_a_group_with_the_documented_commands() -> None:
    assert {"ingest", "analyze", "funnel"} <= set(command_names())


def test_every_command_has_help_with_an_example() -> None:
    runner = CliRunner()
    for name in command_names():
        result = runner.invoke(app, [name, "--help"], env={"COLUMNS": "120"})
        assert result.exit_code == 0, result.output
        assert "Example" in result.output, f"`ragfunnel {name} --help` shows no example"
        assert f"ragfunnel {name}" in result.output


def test_unknown_command_fails_clearly() -> None:
    result = CliRunner().invoke(app, ["nonesuch"])
    assert result.exit_code != 0
    assert "nonesuch" in result.output
