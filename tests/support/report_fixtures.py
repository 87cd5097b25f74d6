"""Helpers for the report tests: the analyzed fixture runs, verdict columns, the report.

A module of its own (not conftest) so that test modules can import it by a unique name.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from ragfunnel.analyzer.cases import CaseSet
from ragfunnel.analyzer.funnel import FunnelResult
from ragfunnel.analyzer.report import Report, build_report
from ragfunnel.analyzer.report.sources import QuestionTexts
from tests.support import report_pipeline as pipeline


@dataclass
class Fixture:
    dsn: str
    cases: CaseSet
    cases_file: Path
    result: FunnelResult
    snapshots: dict[str, dict[str, Any]]
    texts: dict[tuple[str, str], QuestionTexts]
    textless: dict[str, tuple[str, ...]]


def write_cases(path: Path) -> Path:
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


def with_verdicts(result: FunnelResult) -> FunnelResult:
    """The result as the judges leave it: faithfulness, claims and correctness per record.

    ok answers are fully supported; wrong ones have one supported and one unsupported claim;
    unanswerable cases and lost evidence are not judged (null), as docs/report.md expects.
    """
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


def report_of(runs: Fixture, result: FunnelResult | None = None, **options: Any) -> Report:
    """The report of the fixture runs, texts read from what the store gave the fixture."""
    return build_report(
        result or runs.result, cases=runs.cases, snapshots=runs.snapshots,
        texts=lambda keys: {k: runs.texts[k] for k in keys if k in runs.texts},
        textless=runs.textless, **options,
    )  # fmt: skip
