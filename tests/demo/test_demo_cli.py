"""``ragfunnel demo`` as a user types it: options, output, files, and one-line errors."""

from __future__ import annotations

import subprocess
import sys
import tempfile
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
    assert "chunk-id cases on demo-rechunked: stale_case" in result.output
    assert "ragfunnel funnel " in result.output and "--run demo-faulty" in result.output
    assert "ragfunnel diff demo-clean demo-faulty" in result.output
    assert "run demo-clean → run demo-faulty" in result.output  # the diff of the two runs
    logged = read_log(work / "injections.jsonl")
    assert {t.fault for t in logged} == {"threshold_high", "inverted_reranker"}
    assert f"names the injected stage for {len(logged)} of {len(logged)}" in result.output
    assert sorted(p.name for p in work.iterdir()) == [
        ".ragfunnel-demo",
        "cases.rebased.yaml",
        "cases.yaml",
        "injections.jsonl",
        "report.html",
        "store",
        "traces",
    ]


def test_bad_options_fail_in_one_line_naming_the_flag(tmp_path: Path) -> None:
    runner = CliRunner()
    unknown = runner.invoke(app, ["demo", "--workdir", str(tmp_path), "--fault", "gremlins"])
    assert unknown.exit_code == 2  # a usage error
    assert "unknown fault(s) gremlins" in unknown.output and "(--fault)" in unknown.output
    zero = runner.invoke(app, ["demo", "--workdir", str(tmp_path), "--cases", "0"])
    assert zero.exit_code == 2
    assert "cases must be at least 1" in zero.output and "(--cases)" in zero.output


def test_without_the_demo_extra_the_cli_works_and_the_demo_says_what_to_install() -> None:
    # A fresh interpreter in which bm25s and scikit-learn cannot be imported (analyzer extra only).
    script = (
        "import sys\n"
        "sys.modules['bm25s'] = None\n"
        "sys.modules['sklearn'] = None\n"
        "from typer.testing import CliRunner\n"
        "from ragfunnel.analyzer.cli import app\n"
        "runner = CliRunner()\n"
        "assert runner.invoke(app, ['ingest', '--help']).exit_code == 0\n"
        "assert runner.invoke(app, ['demo', '--help']).exit_code == 0\n"
        "result = runner.invoke(app, ['demo', '--workdir', sys.argv[1]])\n"
        "print(result.exit_code, result.output)\n"
    )
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [sys.executable, "-c", script, tmp], capture_output=True, text=True, check=True
        )
    assert done.stdout.startswith("1 "), done.stdout + done.stderr
    assert "pip install -e '.[demo]'" in done.stdout
