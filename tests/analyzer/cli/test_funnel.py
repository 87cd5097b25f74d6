"""``ragfunnel analyze`` and ``ragfunnel funnel`` on a real embedded store."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from ragfunnel.analyzer.cli import app
from tests.support.decisions import A_ID, B_ID, WRONG, Q, ranked
from tests.support.traces import TraceBuilder

CASES = f"""\
- id: q-017
  question: {Q}
  evidence: {{all_of: ["{A_ID}", "{B_ID}"]}}
  facts: ["4.2.0", "4.2.1"]
- id: q-031
  question: What is the refund for a cancelled flight?
  answerable: false
"""


@pytest.fixture(scope="module")
def dsn(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("cli-store")
    b = TraceBuilder()
    cands = ranked(50, **{A_ID: 3, B_ID: 41})
    with b.question("q-017", Q, run="r1") as q:
        q.retrieve(cands, name="bm25", top_k=50)
        q.cut(cands[:10], input_ids=cands, k=10)
        q.generate(cands[:10], WRONG)
    with b.question("q-031", "What is the refund for a cancelled flight?", run="r1") as q:
        q.retrieve(["f1"], scores=[0.1])
        q.abstain()
    return b.into_new_store(path)


@pytest.fixture
def cases_file(tmp_path: Path) -> Path:
    path = tmp_path / "cases.yaml"
    path.write_text(CASES, encoding="utf-8")
    return path


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    return result.exit_code, result.output


def test_analyze_prints_failures_with_intervals_and_metrics(dsn: str, cases_file: Path) -> None:
    code, out = invoke("analyze", "--store", dsn, "--cases", str(cases_file), "--k", "5")
    assert code == 0, out
    assert "2 question records" in out and "index truth: none" in out
    assert "run r1 · pipeline · 2 questions" in out
    lines = {line.split()[0]: line for line in out.splitlines() if line.startswith("  ")}
    assert "50.0%" in lines["search"] and "50.0%" in lines["ok"]
    assert "context precision" in out and "@cut (95% CI)" in out and "@5 (95% CI)" in out


def test_analyze_writes_records(dsn: str, cases_file: Path, tmp_path: Path) -> None:
    out_jsonl, out_parquet = tmp_path / "r.jsonl", tmp_path / "r.parquet"
    code, out = invoke(
        "analyze", "--store", dsn, "--cases", str(cases_file), "--jsonl", str(out_jsonl)
    )
    assert code == 0, out and "wrote 2 records" in out
    rows = [json.loads(line) for line in out_jsonl.read_text().splitlines()]
    assert {r["first_failure"] for r in rows} == {"search", "ok"}
    assert all("T" in r["started"] and r["started"].endswith("+00:00") for r in rows)
    code, _ = invoke(
        "analyze", "--store", dsn, "--cases", str(cases_file), "--parquet", str(out_parquet)
    )
    assert code == 0
    assert pl.read_parquet(out_parquet).get_column("evidence").dtype.is_nested()


def test_analyze_without_cases_summarises_shapes(dsn: str) -> None:
    code, out = invoke("analyze", "--store", dsn)
    assert code == 0, out
    assert "2 questions" in out and "no cases: funnel shapes only" in out
    assert "abstention rate" in out and "50.0%" in out


def test_funnel_prints_one_question_readably(dsn: str, cases_file: Path) -> None:
    code, out = invoke(
        "funnel", "q-017", "--store", dsn, "--cases", str(cases_file),
        "--jaeger", "http://localhost:16686",
    )  # fmt: skip
    assert code == 0, out
    assert "first failure: search — rank 41 > prompt cut at 10 (runbook-reset#scope)" in out
    assert Q in out
    assert "http://localhost:16686/trace/" in out
    evidence = [line.split() for line in out.splitlines() if line.startswith("  runbook")]
    assert evidence == [["runbook-reset#scope", "yes", "41", "—", "—", "search", "rank", "41",
                         ">", "prompt", "cut", "at", "10"]]  # fmt: skip


def test_funnel_without_cases_shows_the_shape(dsn: str) -> None:
    code, out = invoke("funnel", "q-031", "--store", dsn)
    assert code == 0, out
    assert "stages: retrieve" in out and "abstained: yes" in out


def test_errors_are_one_clear_line(dsn: str, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("- id: x\n  question: q\n  evidence: {all_of: []}\n")
    code, out = invoke("analyze", "--store", dsn, "--cases", str(bad))
    assert code == 1 and "ragfunnel analyze: 1 problem in cases" in out
    code, out = invoke("funnel", "q-404", "--store", dsn)
    assert code == 1 and "no question 'q-404'" in out
    code, out = invoke("analyze", "--store", f"chdb://{tmp_path / 'nothing'}")
    assert code == 1 and "ragfunnel analyze:" in out
    code, out = invoke("analyze", "--store", dsn, "--k", "0")
    assert code == 2 and "--k" in out  # a usage error
