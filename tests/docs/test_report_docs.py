"""docs/report.md and the commands agree: every flag it shows exists, every measure parses."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from ragfunnel.analyzer.cli import app
from ragfunnel.analyzer.report.gate import parse_limits

DOC = (Path(__file__).parents[2] / "docs" / "report.md").read_text(encoding="utf-8")


def _help(command: str) -> str:
    result = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    return result.output


def test_every_documented_flag_exists() -> None:
    flags = set(re.findall(r"(?<![\w-])--[a-z][a-z-]+", DOC))
    known = _help("report") + _help("diff")
    missing = sorted(f for f in flags if f not in known)
    assert missing == []
    assert {"--fail-under", "--fail-over", "--fail-on-regression", "--html", "--jsonl"} <= flags


def test_every_documented_measure_parses() -> None:
    table = DOC[DOC.index("| name | value |") : DOC.index("A measure a run does not have")]
    first_cells = re.findall(r"^\| ([^|]+) \|", table, re.M)
    names = [n for cell in first_cells for n in re.findall(r"`([a-z_.@0-9<>]+)`", cell)]
    names = [n for n in names if "<" not in n] + re.findall(r"`([a-z_]+@\d+)`", table)
    assert {"share.failed", "faithfulness", "recall@5", "answer_correctness"} <= set(names)
    assert len(parse_limits([f"{name}=0.5" for name in names], "under")) == len(names)
