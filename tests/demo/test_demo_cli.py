"""``ragfunnel demo`` as a user types it: options, output, files, and one-line errors."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from ragfunnel.analyzer.cli import app
from ragfunnel.demo.plan import read_log


def test_the_demo_command_runs_and_says_what_to_try_next(tmp_path: Path) -> None:
    work = tmp_path / "demo"
    result = CliRunner().invoke(
        app,
        ["demo", "--workdir", str(work), "--cases", "12", "--fault", "threshold_high",
         "--fault", "inverted_reranker", "--no-progress"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "run demo-faulty" in result.output and "run demo-clean" in result.output
    assert "Injected faults" in result.output
    assert "ragfunnel funnel " in result.output and "--run demo-faulty" in result.output
    assert "ragfunnel diff demo-clean demo-faulty" in result.output
    assert "run demo-clean → run demo-faulty" in result.output  # the diff of the two runs
    logged = read_log(work / "injections.jsonl")
    assert {t.fault for t in logged} == {"threshold_high", "inverted_reranker"}
    assert f"names the injected stage for {len(logged)} of {len(logged)}" in result.output
    assert sorted(p.name for p in work.iterdir()) == [
        ".ragfunnel-demo",
        "cases.yaml",
        "injections.jsonl",
        "report.html",
        "store",
        "traces",
    ]


def test_bad_options_fail_in_one_line_naming_the_flag(tmp_path: Path) -> None:
    runner = CliRunner()
    unknown = runner.invoke(app, ["demo", "--workdir", str(tmp_path), "--fault", "gremlins"])
    assert unknown.exit_code == 1
    assert "unknown fault(s) gremlins" in unknown.output and "(--fault)" in unknown.output
    zero = runner.invoke(app, ["demo", "--workdir", str(tmp_path), "--cases", "0"])
    assert zero.exit_code == 1
    assert "cases must be at least 1" in zero.output and "(--cases)" in zero.output
