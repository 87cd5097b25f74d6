"""``workflows/report.py``: the report from a cases file and a store DSN, as ``ragfunnel report``
runs it: a mistyped Jaeger URL refused before the store is opened, a missing store never made,
a read-only report writing nothing. (The report's content: ``tests/analyzer/report/``.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragfunnel.analyzer.cases import CaseSet, write_cases
from ragfunnel.analyzer.errors import AnalyzerError
from ragfunnel.analyzer.funnel import READ_TIME_NOTICE
from ragfunnel.analyzer.store import Store, StoreError
from ragfunnel.analyzer.store.schema import read_schema
from ragfunnel.analyzer.store.tables.stage_spans import STAGE_TABLE
from ragfunnel.analyzer.workflows import report_from_files
from tests.support.decisions import A_ID, B_ID, RIGHT, Q, case, ranked
from tests.support.traces import TraceBuilder

OPTIONS = {"runs": None, "index_manifest": None, "k": None, "top": 20, "sample": 50}


@pytest.fixture
def cases_file(tmp_path: Path) -> Path:
    path = tmp_path / "cases.yaml"
    write_cases(CaseSet.of([case()]), path)
    return path


def test_a_mistyped_jaeger_url_is_refused_before_the_store_is_opened(
    tmp_path: Path, cases_file: Path
) -> None:
    missing = tmp_path / "no-store"
    with pytest.raises(AnalyzerError, match="jaeger") as caught:
        report_from_files(store=f"chdb://{missing}", cases=cases_file, jaeger_url="htp:/jaeger",
                          read_only=False, **OPTIONS)  # type: ignore[arg-type]  # fmt: skip
    assert not isinstance(caught.value, StoreError)
    assert not missing.exists()


def test_a_missing_store_is_named_and_never_made(tmp_path: Path, cases_file: Path) -> None:
    missing = tmp_path / "typo"
    with pytest.raises(StoreError, match="there is no store at"):
        report_from_files(store=f"chdb://{missing}", cases=cases_file, jaeger_url=None,
                          read_only=False, **OPTIONS)  # type: ignore[arg-type]  # fmt: skip
    assert not missing.exists()


def test_a_read_only_report_writes_nothing_and_says_so(tmp_path: Path, cases_file: Path) -> None:
    dsn = f"chdb://{tmp_path / 'store'}"
    b = TraceBuilder()
    with b.question("q-017", Q) as q:
        q.retrieve(ranked(10, **{A_ID: 1, B_ID: 2}), top_k=10)
        q.generate([A_ID, B_ID], RIGHT)
    with Store.open(dsn, create=True) as store:
        b.as_collector_into(store)
    steps: list[str] = []
    reported = report_from_files(store=dsn, cases=cases_file, jaeger_url=None, read_only=True,
                                 progress=steps.append, **OPTIONS)  # type: ignore[arg-type]  # fmt: skip
    assert reported.result.records.height == 1
    assert READ_TIME_NOTICE in reported.result.notices
    assert steps[0] == "reading the cases"
    with Store.open(dsn) as store:
        assert not read_schema(store).has(STAGE_TABLE)  # nothing was prepared
