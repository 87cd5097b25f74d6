"""Wrong names are caught: unknown runs and question ids, missing stores, failed ingests."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragfunnel.analyzer.cli import app
from ragfunnel.analyzer.funnel import analyze, shapes
from ragfunnel.analyzer.funnel.read.runs import UnknownRun, held_runs
from ragfunnel.analyzer.store import Store, StoreError
from tests.support.decisions import A_ID, B_ID, WRONG, Q, ranked
from tests.support.traces import TraceBuilder

CASES = f"""\
- id: q-017
  question: {Q}
  evidence: {{all_of: ["{A_ID}", "{B_ID}"]}}
  facts: ["4.2.0", "4.2.1"]
"""


@pytest.fixture(scope="module")
def dsn(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("names-store")
    b = TraceBuilder()
    cands = ranked(50, **{A_ID: 3, B_ID: 41})
    for run in ("k3", "baseline"):
        with b.question("q-017", Q, run=run) as q:
            q.retrieve(cands, name="bm25", top_k=50)
            q.cut(cands[:10], input_ids=cands, k=10)
            q.generate(cands[:10], WRONG)
    return b.into_new_store(path)


@pytest.fixture
def cases_file(tmp_path: Path) -> Path:
    path = tmp_path / "cases.yaml"
    path.write_text(CASES, encoding="utf-8")
    return path


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    return result.exit_code, result.output


def test_the_store_lists_its_runs(dsn: str) -> None:
    with Store.open_for_analysis(dsn) as store:
        assert held_runs(store) == ["baseline", "k3"]


@pytest.mark.parametrize(
    "command",
    [
        ["analyze", "--cases", "{cases}", "--run", "k4"],
        ["analyze", "--run", "k4"],
        ["report", "--cases", "{cases}", "--run", "k4"],
        ["threshold", "--cases", "{cases}", "--run", "k4"],
        ["judge", "--run", "k4", "--dry-run"],
        ["review", "--run", "k4", "--csv", "{tmp}/sheet.csv"],
        ["funnel", "q-017", "--cases", "{cases}", "--run", "k4"],
        ["diff", "k3", "k4", "--cases", "{cases}"],
    ],
    ids=lambda c: c[0] + ("-cases" if "--cases" in c else ""),
)
def test_an_unknown_run_is_a_usage_error_listing_the_held_runs(
    command: list[str], dsn: str, cases_file: Path, tmp_path: Path
) -> None:
    args = [a.format(cases=cases_file, tmp=tmp_path) for a in command]
    code, out = invoke(*args, "--store", dsn)
    assert code == 2, out
    assert "no run 'k4' (did you mean 'k3'?) in the store; it holds: baseline, k3" in out
    flag = "RUN_A, RUN_B" if command[0] == "diff" else "--run"
    assert f"({flag})" in out


def test_a_known_run_still_works(dsn: str, cases_file: Path) -> None:
    code, out = invoke("analyze", "--store", dsn, "--cases", str(cases_file), "--run", "k3")
    assert code == 0, out
    assert "1 question records" in out or "1 question record" in out


def test_the_python_api_rejects_an_unknown_run_and_takes_a_dsn_string(
    dsn: str, cases_file: Path
) -> None:
    path = dsn.removeprefix("chdb://")
    with pytest.raises(UnknownRun, match="did you mean 'k3'"):
        analyze(dsn, str(cases_file), run="k4")
    result = analyze(path, str(cases_file), run=["k3"])  # a bare path, as the issue tried
    assert result.records.height == 1
    assert shapes(Path(path), run="baseline").records.height == 1


def test_funnel_suggests_a_close_case_id(dsn: str, cases_file: Path) -> None:
    code, out = invoke("funnel", "q-071", "--store", dsn, "--cases", str(cases_file))
    assert code == 2, out
    assert "no case in" in out and "did you mean 'q-017'?" in out


def test_opening_a_missing_store_to_read_creates_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "typo" / "store"
    with pytest.raises(StoreError, match=r"run `ragfunnel ingest` first"):
        Store.open_for_analysis(str(missing))
    assert not missing.exists() and not missing.parent.exists()
    code, out = invoke("analyze", "--store", str(missing))
    assert code == 1 and "run `ragfunnel ingest` first" in out, out
    assert not missing.exists()


def test_a_failed_ingest_leaves_no_empty_store(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh-store"
    code, out = invoke("ingest", str(tmp_path / "no-such-file.jsonl"), "--store", str(fresh))
    assert code == 1, out
    assert not fresh.exists(), "a failed ingest left a store behind"
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n", encoding="utf-8")
    code, out = invoke("ingest", str(bad), "--store", str(fresh))
    assert code == 1, out
    assert not fresh.exists()


def test_a_failed_ingest_keeps_a_store_that_was_there(dsn: str, tmp_path: Path) -> None:
    code, _ = invoke("ingest", str(tmp_path / "no-such-file.jsonl"), "--store", dsn)
    assert code == 1
    assert Path(dsn.removeprefix("chdb://")).is_dir()
    with Store.open_for_analysis(dsn) as store:
        assert held_runs(store) == ["baseline", "k3"]


@pytest.mark.parametrize(
    ("name", "text", "where", "reason"),
    [
        ("cases.yaml", '- id: a\n  question: "x\n  evidence: [b\n', "cases.yaml:4:1:",
         "while scanning a quoted scalar (line 2, column 13): found unexpected end of stream"),
        ("cases.yaml", "- id: a\n  question: x\n  - evidence: b\n", "cases.yaml:3:3:",
         "expected <block end>, but found '-'"),
        ("cases.json", '[{"id": "a",\n "question": "x" "evidence"}]', "cases.json:2:18:",
         "invalid JSON: Expecting ',' delimiter"),
        ("cases.jsonl", '{"id": "a", "question": "x", "evidence": ["b"]}\n{"id": "b" "q"}\n',
         "cases.jsonl:2:12:", "invalid JSON: Expecting ',' delimiter"),
    ],
)  # fmt: skip
def test_syntax_errors_name_file_line_and_column(
    name: str, text: str, where: str, reason: str, tmp_path: Path
) -> None:
    from ragfunnel.analyzer.cases import CaseError, load_cases

    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CaseError) as caught:
        load_cases(path)
    message = str(caught.value)
    assert f"{path}:" in message or where in message
    assert where.split(":", 1)[1] in message.split(name, 1)[1]
    assert reason in message
    assert "<unicode string>" not in message
    code, out = invoke("analyze", "--cases", str(path), "--store", str(tmp_path / "none"))
    assert code == 1 and where.split(":", 1)[1] in out and "<unicode string>" not in out
