"""Joining the batches (``records/finish.py``): a question asked twice is numbered, the latest
counts, and an oracle run lends its verdict."""

from __future__ import annotations

import math

import polars as pl

from ragfunnel.analyzer.funnel.records.finish import finish
from ragfunnel.analyzer.store import Store
from tests.support.decisions import A_ID, B_ID, RIGHT, WRONG, Q, run
from tests.support.traces import TraceBuilder


def test_same_question_asked_twice_keeps_both_and_counts_the_latest(
    store: Store, b: TraceBuilder
) -> None:
    for answer in (WRONG, RIGHT):
        with b.question("q-017", Q) as q:
            q.retrieve([A_ID, B_ID])
            q.generate([A_ID, B_ID], answer)
    result = run(store, b)
    rows = result.records.sort("occurrence").select("occurrence", "latest", "first_failure").rows()
    assert rows == [(1, False, "generation"), (2, True, "ok")]
    assert result.failures.select("first_failure", "count").rows() == [("ok", 1)]
    assert len(set(result.records.get_column("trace_id"))) == 2


def test_oracle_run_lends_its_verdict(store: Store, b: TraceBuilder) -> None:
    with b.question("q-017", Q, run="pipeline-run") as q:
        q.retrieve([A_ID, B_ID])
        q.generate([A_ID, B_ID], WRONG)
    with b.question("q-017", Q, run="oracle-run") as q:
        q.generate([A_ID, B_ID], WRONG, mode="oracle")
    result = run(store, b)
    rows = {r["mode"]: r for r in result.records.iter_rows(named=True)}
    assert rows["oracle"]["first_failure"] == "generation"
    assert rows["oracle"]["failure_reason"] == (
        "oracle run (gold evidence in the prompt): answer misses fact(s): 4.2.1"
    )
    assert rows["pipeline"]["oracle_verdict"] == "incorrect"
    assert rows["pipeline"]["oracle_note"] == "oracle wrong too: prompt, model or source text"
    assert math.isnan(rows["oracle"]["recall_at_cut"])
    assert set(result.failures.get_column("mode")) == {"pipeline", "oracle"}


# --- finish on hand-built batches ------------------------------------------------------------


def batch(*rows: tuple[str, int, str, int, str | None, str]) -> pl.DataFrame:
    """Records of (run, case, mode, start, oracle verdict, answer verdict)."""
    return pl.DataFrame(
        {
            "question_id": [f"q-{r[1]}" for r in rows],
            "run_id": [r[0] for r in rows],
            "trace_id": [f"t{r[3]}" for r in rows],
            "question_key": [f"q-{r[1]}" for r in rows],
            "started": [r[3] for r in rows],
            "mode": [r[2] for r in rows],
            "first_failure": ["ok"] * len(rows),
            "failure_reason": ["r"] * len(rows),
            "failure_item": [None] * len(rows),
            "answer_verdict": [r[5] for r in rows],
            "answer_reason": ["r"] * len(rows),
            "oracle_verdict": [r[4] for r in rows],
            "answerable": [True] * len(rows),
            "abstained": [False] * len(rows),
            "case_idx": [r[1] for r in rows],
            "started_ns": [r[3] for r in rows],
            "recall_at_cut": [1.0] * len(rows),
        },
        schema_overrides={"failure_item": pl.String, "oracle_verdict": pl.String,
                          "case_idx": pl.UInt32},
    )  # fmt: skip


def test_occurrences_are_numbered_across_batches_by_start() -> None:
    first = batch(
        ("a", 0, "pipeline", 30, None, "correct"), ("a", 1, "pipeline", 10, None, "correct")
    )
    second = batch(("a", 0, "pipeline", 20, None, "correct"), ("b", 0, "pipeline", 5, None, "correct"),
                   ("a", 0, "pipeline", 40, None, "correct"))  # fmt: skip
    out = finish([first, second])
    got = out.select("run_id", "question_id", "started", "occurrence", "latest").rows()
    assert got == [
        ("a", "q-0", 30, 2, False), ("a", "q-1", 10, 1, True),
        ("a", "q-0", 20, 1, False), ("b", "q-0", 5, 1, True), ("a", "q-0", 40, 3, True),
    ]  # fmt: skip


def test_an_oracle_record_is_numbered_apart_from_the_pipeline_records() -> None:
    out = finish(
        [
            batch(
                ("a", 0, "pipeline", 1, None, "incorrect"),
                ("a", 0, "oracle", 2, "correct", "correct"),
            )
        ]
    )
    assert out.select("mode", "occurrence", "latest").rows() == [
        ("pipeline", 1, True), ("oracle", 1, True),
    ]  # fmt: skip


def test_the_latest_oracle_lends_its_verdict_to_the_cases_pipeline_records() -> None:
    out = finish([
        batch(("a", 0, "pipeline", 1, None, "incorrect"), ("b", 1, "pipeline", 2, None, "incorrect")),
        batch(("o", 0, "oracle", 3, "correct", "correct"), ("o", 0, "oracle", 9, "incorrect", "incorrect"),
              ("a", 1, "pipeline", 4, "correct", "correct")),
    ])  # fmt: skip
    rows = {(r["run_id"], r["question_id"]): r for r in out.iter_rows(named=True)}
    assert rows[("a", "q-0")]["oracle_verdict"] == "incorrect"  # the oracle started last
    assert rows[("a", "q-0")]["oracle_note"] == "oracle wrong too: prompt, model or source text"
    assert rows[("b", "q-1")]["oracle_verdict"] is None  # no oracle for case 1
    assert rows[("a", "q-1")]["oracle_verdict"] == "correct"  # its own verdict is kept
    assert all(r["oracle_note"] is None for r in out.iter_rows(named=True) if r["mode"] == "oracle")


def test_the_record_columns_lead_and_the_internal_ones_are_dropped() -> None:
    out = finish([batch(("a", 0, "pipeline", 1, None, "correct"))])
    assert out.columns == [
        "question_id", "run_id", "trace_id", "question_key", "started", "occurrence", "latest",
        "mode", "first_failure", "failure_reason", "failure_item", "answer_verdict",
        "answer_reason", "oracle_verdict", "oracle_note", "answerable", "abstained",
        "recall_at_cut",
    ]  # fmt: skip
