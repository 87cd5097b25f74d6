"""The demo's analysis names the stage of every injected fault (checked against the injection log).

This replaces the HotpotQA attribution test: it runs on the corpus the package ships, so a fresh
clone needs nothing beside it. The HotpotQA version stays a benchmark (bench/faults.py).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from ragfunnel.demo.faults import FAULTS, FaultError
from ragfunnel.demo.plan import read_log
from ragfunnel.demo.run import CLEAN_RUN, FAULTY_RUN, DemoResult, run_demo


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoResult:
    return run_demo(tmp_path_factory.mktemp("demo"))


def test_every_injected_fault_is_attributed_to_its_stage(demo: DemoResult) -> None:
    logged = read_log(demo.injection_log)
    assert logged == demo.truths
    assert {t.fault for t in logged} == set(FAULTS)  # every fault took part
    records = demo.records.filter(pl.col("run_id") == FAULTY_RUN)
    verdicts = dict(zip(records["question_id"], records["first_failure"], strict=True))
    mismatches = [(t.case_id, t.fault, t.stage, verdicts.get(t.case_id)) for t in logged]
    assert [m for m in mismatches if m[2] != m[3]] == []
    assert demo.disagreements == []
    for name, fault in FAULTS.items():  # each fault hit its own stage at least once
        assert fault.stage in {t.stage for t in logged if t.fault == name}, name


def test_index_faults_are_blamed_on_ingestion_with_the_reason(demo: DemoResult) -> None:
    records = demo.records.filter(pl.col("run_id") == FAULTY_RUN)
    for truth in demo.truths:
        if truth.fault in ("dropped_document", "empty_ocr"):
            (row,) = records.filter(pl.col("question_id") == truth.case_id).to_dicts()
            assert row["failure_reason"].startswith("never indexed"), row


def test_the_clean_run_has_only_the_gate_failure_nobody_injected(demo: DemoResult) -> None:
    clean = demo.records.filter(pl.col("run_id") == CLEAN_RUN, pl.col("first_failure") != "ok")
    # The train-ticket question overlaps the flight-refund policy: a real confidence-gate miss.
    assert clean.select("question_id", "first_failure").rows() == [("none-train-refund", "cut")]
    assert all(t.case_id != "none-train-refund" for t in demo.truths)


def test_faults_and_case_count_can_be_chosen(tmp_path: Path) -> None:
    result = run_demo(tmp_path, faults=["threshold_high", "small_k"], cases=20)
    assert result.records.filter(pl.col("run_id") == FAULTY_RUN).height == 20
    assert {t.fault for t in result.truths} == {"threshold_high", "small_k"}
    assert result.disagreements == []
    with pytest.raises(FaultError, match="unknown fault"):
        run_demo(tmp_path, faults=["no_such_fault"])
