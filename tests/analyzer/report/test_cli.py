"""``ragfunnel report`` and ``ragfunnel diff`` end to end on the fixture store."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
from typer.testing import CliRunner

from ragfunnel.analyzer.cli import app
from tests.support.report_fixtures import Fixture


def run(fixture: Fixture, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(
        app, [*args, "--store", fixture.dsn, "--cases", str(fixture.cases_file)],
        env={"COLUMNS": "200"},
    )  # fmt: skip
    return result.exit_code, result.stdout, result.stderr


def test_report_prints_the_diagnosis_and_writes_every_output(runs: Fixture, tmp_path: Path) -> None:
    html, summary = tmp_path / "report.html", tmp_path / "summary.json"
    jsonl, parquet = tmp_path / "records.jsonl", tmp_path / "records.parquet"
    code, out, err = run(
        runs, "report", "--run", "A", "--html", str(html), "--json", str(summary),
        "--jsonl", str(jsonl), "--parquet", str(parquet), "--jaeger-url", "http://127.0.0.1:16686",
    )  # fmt: skip
    assert code == 0, out + err
    assert "Of 12 questions, 7 were answered wrongly or incompletely." in out
    assert "Changing the answer prompt can fix at most 1: work upstream first." in out
    assert "run B" not in out  # --run A
    for path in (html, summary, jsonl, parquet):
        assert f"wrote {path}" in out and path.stat().st_size > 0
    data = json.loads(summary.read_text(encoding="utf-8"))
    assert [r["run_id"] for r in data["runs"]] == ["A"] and data["gate"]["passed"] is True
    assert pl.read_parquet(parquet).height == 12
    assert "http://127.0.0.1:16686/trace/" in html.read_text(encoding="utf-8")


def test_json_to_stdout_is_the_summary_alone(runs: Fixture) -> None:
    code, out, _ = run(runs, "report", "--json", "-")
    assert code == 0
    data = json.loads(out)
    assert data["schema"] == "ragfunnel.report.summary"
    assert [r["run_id"] for r in data["runs"]] == ["A", "B", "C"]


def test_the_gate_names_each_breach_and_exits_3(runs: Fixture) -> None:
    code, out, err = run(
        runs, "report", "--run", "A", "--fail-under", "faithfulness=0.85",
        "--fail-over", "share.search=0.10", "--fail-over", "share.ingestion=0",
    )  # fmt: skip
    assert code == 3
    assert "Of 12 questions" in out  # the report is printed before the verdict
    assert err.splitlines() == [
        "ragfunnel report: run A: faithfulness cannot be checked (no judged answers): "
        "--fail-under faithfulness=0.85",
        "ragfunnel report: run A: share.search = 0.167 (2 of 12 questions) > 0.1: "
        "--fail-over share.search=0.10",
        "ragfunnel report: run A: share.ingestion = 0.0833 (1 of 12 questions) > 0: "
        "--fail-over share.ingestion=0",
    ]
    assert run(runs, "report", "--run", "B", "--fail-over", "share.search=0.10")[0] == 0


def test_bad_input_is_one_line_and_exit_1_or_2(runs: Fixture) -> None:
    code, _, err = run(runs, "report", "--fail-under", "faithfulness")
    assert code == 2  # a usage error (docs/cli.md, exit codes)
    assert err.strip() == (
        "ragfunnel report: --fail-under faithfulness: expected NAME=NUMBER, e.g. faithfulness=0.85"
    )
    code, _, err = run(runs, "report", "--jaeger", "javascript:alert(1)")
    assert code == 1
    assert err.strip() == (
        "ragfunnel report: jaeger_url: expected http(s)://host[:port][/path], got "
        "'javascript:alert(1)' (--jaeger)"
    )
    result = CliRunner().invoke(app, ["report", "--store", runs.dsn])
    assert result.exit_code == 2 and "--cases is required" in result.stderr


def test_diff_lists_transitions_and_config_changes(runs: Fixture, tmp_path: Path) -> None:
    out_json, out_html = tmp_path / "diff.json", tmp_path / "diff.html"
    code, out, err = run(runs, "diff", "A", "B", "--json", str(out_json), "--html", str(out_html))
    assert code == 0, out + err
    assert "transitions: 2 moved search → ok, 1 moved cut → ok, 1 moved ok → generation" in out
    assert "  ok → generation (1): q-02" in out
    assert "3 fixed (failed → ok), 1 broken (ok → failed)" in out
    assert "prompt_version: p1 → p2" in out
    data = json.loads(out_json.read_text(encoding="utf-8"))
    assert data["mcnemar"]["fixed"] == 3 and data["regressions"] == []
    page = out_html.read_text(encoding="utf-8")
    assert "Run A → run B (paired on 12 cases)" in page and "Stage transitions" in page
    code, out, err = run(runs, "diff", "A", "B", "--fail-on-regression")
    assert code == 0


def test_diff_fails_on_a_regression(runs: Fixture) -> None:
    code, out, err = run(runs, "diff", "A", "C", "--fail-on-regression")
    assert code == 3
    assert "  ok → search (4): q-01, q-02, q-03, q-10" in out
    lines = err.splitlines()
    assert all(line.startswith("ragfunnel diff: regression: ") for line in lines)
    assert any(
        line.startswith("ragfunnel diff: regression: recall at cut fell by 0.500 (paired 95% CI")
        for line in lines
    )
    code, _, err = run(runs, "diff", "A", "Z")
    assert code == 2 and "no run 'Z' in the store; it holds: A, B, C" in err
    code, _, err = run(runs, "diff", "A", "A")
    assert code == 2 and "give two different runs" in err
