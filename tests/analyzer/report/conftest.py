"""Fixtures: three runs of the planned pipeline (``report_pipeline.py``) traced, ingested and
analyzed once per session.

The store is a chdb directory of its own; the fixture closes it again, because chdb binds
one data path per process and other test modules open theirs.
"""

from __future__ import annotations

import pytest

from ragfunnel.analyzer.funnel import analyze
from ragfunnel.analyzer.ingest import ingest_spans
from ragfunnel.analyzer.report.sources import (
    pipeline_snapshots,
    question_texts,
    textless_documents,
)
from ragfunnel.analyzer.store import Store
from ragfunnel.testing import capture_spans
from tests.support import report_pipeline as pipeline
from tests.support.report_fixtures import Fixture, write_cases


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Fixture:
    root = tmp_path_factory.mktemp("report-store")
    dsn = f"chdb://{root / 'store'}"
    cases = pipeline.cases()
    with Store.open(dsn, create=True) as store:
        for run_id, plan, config in (
            ("A", pipeline.PLAN_A, pipeline.CONFIG_A),
            ("B", pipeline.PLAN_B, pipeline.CONFIG_B),
            ("C", pipeline.PLAN_C, pipeline.CONFIG_C),
        ):
            with capture_spans(capture_content=True, run_id=run_id, pipeline=config) as spans:
                pipeline.run_questions(plan)
            ingest_spans(store, spans.spans)
        result = analyze(store, cases)
        snapshots = pipeline_snapshots(store, (run for run in "ABC"))  # any iterable
        keys = list(zip(result.records["trace_id"], result.records["question_key"], strict=True))
        texts = question_texts(store, keys)
        textless = textless_documents(store, iter(["v1", "v9"]))
    return Fixture(dsn, cases, write_cases(root / "cases.json"), result, snapshots, texts, textless)
