"""Exports round-trip into polars with the documented schema; the summary JSON is versioned."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from ragfunnel.analyzer.report import ReportError
from ragfunnel.analyzer.report.diff import diff_runs
from ragfunnel.analyzer.report.exports import (
    RECORDS_SCHEMA_VERSION,
    diff_summary,
    export_frame,
    read_records,
    records_schema,
    write_jsonl,
    write_parquet,
    write_summary,
)
from tests.support.report_fixtures import Fixture, report_of, with_verdicts


@pytest.mark.parametrize("verdicts", [False, True])
def test_records_round_trip_through_jsonl_and_parquet(
    runs: Fixture, tmp_path: Path, verdicts: bool
) -> None:
    result = with_verdicts(runs.result) if verdicts else runs.result
    expected = export_frame(result.records, result.k)
    schema = records_schema(result.k)
    assert expected.schema == pl.Schema(schema)
    assert expected.height == 36 and set(expected["schema_version"]) == {RECORDS_SCHEMA_VERSION}
    jsonl = write_jsonl(result.records, result.k, tmp_path / "records.jsonl")
    parquet = write_parquet(result.records, result.k, tmp_path / "records.parquet")
    # Plain polars readers, as a user would call them, with the documented schema.
    assert_frame_equal(pl.read_parquet(parquet), expected)
    assert_frame_equal(pl.read_ndjson(jsonl, schema=schema), expected)
    assert_frame_equal(read_records(jsonl, result.k), expected)
    lines = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    first = next(line for line in lines if line["question_id"] == "q-05")
    assert first["schema_version"] == 1 and first["evidence"][0]["lost_at"] in ("search", None)
    assert isinstance(first["first_failure"], str) and "T" in first["started"]
    unanswerable = next(line for line in lines if line["question_id"] == "q-11")
    assert unanswerable["evidence"] is None and unanswerable["hit_at_cut"] is None


def test_records_without_verdict_columns_export_them_as_null(runs: Fixture) -> None:
    older = runs.result.records.drop("faithfulness", "claims", "cut_threshold", strict=False)
    frame = export_frame(older, runs.result.k)
    assert frame.schema == pl.Schema(records_schema(runs.result.k))
    assert frame.get_column("faithfulness").null_count() == frame.height


def test_records_missing_a_metric_column_are_refused(runs: Fixture) -> None:
    with pytest.raises(ReportError, match=r"missing column\(s\) hit_at_20"):
        export_frame(runs.result.records, [20])


def test_summary_json_is_versioned_and_complete(runs: Fixture, tmp_path: Path) -> None:
    report = report_of(runs, jaeger_url="http://127.0.0.1:16686")
    d = diff_runs(runs.result, "A", "B", snapshots=runs.snapshots)
    path = write_summary(report, tmp_path / "summary.json", diff=d, gate=["run A: x"])
    data = json.loads(path.read_text(encoding="utf-8"))
    assert (data["schema"], data["schema_version"]) == ("ragfunnel.report.summary", 2)
    a = next(r for r in data["runs"] if r["run_id"] == "A")
    assert a["failed"] == 7 and a["config"]["prompt_version"] == "p1"
    assert {s["stage"] for s in a["shares"]} >= {"search", "ok"}
    assert a["worst"][0]["trace_url"].startswith("http://127.0.0.1:16686/trace/")
    assert data["diff"]["transitions"][0] == {
        "before": "search", "after": "ok", "count": 2, "questions": ["q-05", "q-06"],
    }  # fmt: skip
    assert data["gate"] == {"passed": False, "breaches": ["run A: x"]}
    # NaN never reaches the JSON: undefined values are null.
    assert "NaN" not in path.read_text(encoding="utf-8")
    only = diff_summary(diff_runs(runs.result, "A", "C"))
    assert only["schema"] == "ragfunnel.report.diff" and only["regressions"]


def test_unwritable_export_is_a_clear_error(runs: Fixture, tmp_path: Path) -> None:
    target = tmp_path / "missing-dir" / "records.parquet"
    with pytest.raises(ReportError, match=r"records\.parquet: cannot write the records"):
        write_parquet(runs.result.records, runs.result.k, target)
