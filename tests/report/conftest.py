"""Fixtures: two runs of the planned pipeline (``pipeline.py``) traced, ingested, analysed once.

The store is a chdb directory of its own; every fixture closes it again, because chdb binds
one data path per process and other test modules open theirs.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import report_pipeline as pipeline

from ragfunnel.analyzer.cases import CaseSet
from ragfunnel.analyzer.funnel import FunnelResult, analyze
from ragfunnel.analyzer.ingest import ingest_spans
from ragfunnel.analyzer.report.sources import QuestionTexts, pipeline_snapshots, question_texts
from ragfunnel.analyzer.store import Store
from ragfunnel.testing import capture_spans


@dataclass
class Fixture:
    dsn: str
    cases: CaseSet
    cases_file: Path
    result: FunnelResult
    snapshots: dict[str, dict[str, Any]]
    texts: dict[tuple[str, str], QuestionTexts]


def write_cases(path: Path) -> Path:
    import json

    rows = []
    for q in pipeline.QUESTIONS:
        case = pipeline.cases().by_id(q.id)
        assert case is not None
        row: dict[str, Any] = {"id": q.id, "question": q.text, "answerable": q.answerable}
        if q.answerable:
            row["evidence"] = list(case.evidence_ids)
            row["facts"] = list(q.facts)
        rows.append(row)
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fixture]:
    root = tmp_path_factory.mktemp("report-store")
    dsn = f"chdb://{root / 'store'}"
    cases = pipeline.cases()
    with Store.open(dsn) as store:
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
    return Fixture(dsn, cases, write_cases(root / "cases.json"), result, snapshots, texts)


def with_verdicts(result: FunnelResult) -> FunnelResult:
    """The result as the judges leave it: faithfulness, claims and correctness per record.

    ok answers are fully supported; wrong ones have one supported and one unsupported claim;
    unanswerable cases and lost evidence are not judged (null), as docs/report.md expects.
    """
    import dataclasses

    import polars as pl

    failure = pl.col("first_failure").cast(pl.String)
    claim = pl.Struct(
        {"text": pl.String, "verdict": pl.Float64, "label": pl.String,
         "supporting_ids": pl.List(pl.String), "missing": pl.String, "judge": pl.String}
    )  # fmt: skip
    supported = {"text": "The answer names the fact.", "verdict": 1.0, "label": "supported",
                 "supporting_ids": ["gold"], "missing": None, "judge": "offline"}  # fmt: skip
    unsupported = {"text": "It says <script>window.__pwned = 4</script> too.", "verdict": 0.0,
                   "label": "unsupported", "supporting_ids": [], "missing": "no chunk says so",
                   "judge": "offline"}  # fmt: skip
    records = result.records.with_columns(
        faithfulness=pl.when(failure == "ok").then(1.0).when(failure == "generation").then(0.5)
        .otherwise(None).cast(pl.Float64),
        claims=pl.when(failure == "ok").then(pl.lit([supported], dtype=pl.List(claim)))
        .when(failure == "generation").then(pl.lit([supported, unsupported], dtype=pl.List(claim)))
        .otherwise(None),
        answer_correctness=pl.when(failure == "ok").then(pl.lit("correct"))
        .when(failure == "generation").then(pl.lit("wrong")).otherwise(None),
        correctness_reason=pl.when(failure == "generation").then(pl.lit("misses the fact")),
    )  # fmt: skip
    return dataclasses.replace(result, records=records)
