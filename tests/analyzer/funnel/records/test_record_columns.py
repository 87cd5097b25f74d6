"""The record's last columns (``records/record_columns.py``): the record in its final types, the
flags, and why a question's metrics are undefined."""

from __future__ import annotations

import math

import polars as pl

from ragfunnel.analyzer.cases import Case
from ragfunnel.analyzer.funnel import FIRST_FAILURES
from ragfunnel.analyzer.store import Store
from tests.support.decisions import A_ID, B_ID, RIGHT, Q, case, one, run
from tests.support.traces import TraceBuilder


def test_the_record_has_its_final_types(store: Store, b: TraceBuilder) -> None:
    with b.question("q-017", Q) as q:
        q.retrieve([A_ID, B_ID])
        q.generate([A_ID, B_ID], RIGHT)
    records = run(store, b, k=[2]).records
    schema = records.schema
    assert schema["first_failure"] == pl.Enum(list(FIRST_FAILURES))
    assert schema["mode"] == pl.Enum(["pipeline", "oracle"])
    assert schema["prompt_source"] == pl.Enum(["generate", "cut", "ranking"])
    assert isinstance(schema["answer_verdict"], pl.Enum)
    assert schema["started"] == pl.Datetime("ns")
    assert schema["run_id"] == pl.Categorical and schema["failure_reason"] == pl.Categorical
    assert {"recall_at_cut", "recall_at_2", "metrics_note_at_2"} <= set(records.columns)
    assert not {"case_idx", "started_ns"} & set(records.columns)  # finish's only
    r = records.row(0, named=True)
    assert (r["k_prompt"], r["prompt_size"], r["candidates"], r["flags"]) == (2, 2, 2, [])


def test_repeated_rerank_and_cut_spans_are_flagged_retried(store: Store, b: TraceBuilder) -> None:
    with b.question("q-017", Q) as q:
        q.retrieve([A_ID, B_ID])
        q.rerank([B_ID, A_ID], error="TimeoutError")
        q.rerank([A_ID, B_ID])
        q.cut([A_ID, B_ID], k=2)
        q.cut([A_ID, B_ID], k=2)
        q.generate([A_ID, B_ID], RIGHT)
    r = one(run(store, b))
    assert r["flags"] == ["retried", "errors"]
    assert r["errors"] == ["rerank: TimeoutError"]


def test_why_a_questions_metrics_are_undefined(store: Store, b: TraceBuilder) -> None:
    with b.question("q-031", "What is the refund?") as q:
        q.retrieve(["f1"])
        q.abstain()
    with b.question("q-017", Q, run="oracle-run") as q:
        q.generate([A_ID, B_ID], RIGHT, mode="oracle")
    unanswerable = Case("q-031", "What is the refund?", answerable=False)
    records = run(store, b, case(), unanswerable, k=[1]).records
    notes = {r["question_id"]: r for r in records.iter_rows(named=True)}
    assert notes["q-031"]["metrics_note_at_cut"] == "unanswerable case: no expected evidence"
    assert notes["q-017"]["metrics_note_at_1"] == "oracle run: no retrieval"
    assert all(math.isnan(r["recall_at_cut"]) for r in notes.values())
