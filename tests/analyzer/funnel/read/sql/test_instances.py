"""The per-instance funnel aggregation (``read/sql/instances.py``): the last attempt of a retried
stage is the one that counts."""

from __future__ import annotations

from ragfunnel.analyzer.store import Store
from tests.support.decisions import A_ID, B_ID, RIGHT, Q, case, one, run
from tests.support.traces import TraceBuilder, few_questions


def test_retry_inside_a_trace_the_last_attempt_counts(store: Store, b: TraceBuilder) -> None:
    with b.question("q-017", Q) as q:
        q.retrieve([], error="TimeoutError: vector store")
        q.retrieve([A_ID, B_ID])
        q.generate([A_ID, B_ID], RIGHT)
    r = one(run(store, b))
    assert r["first_failure"] == "ok"
    assert set(r["flags"]) == {"retried", "errors"}
    assert r["errors"] == ["retrieve: TimeoutError: vector store"]


def test_a_failed_last_attempt_is_where_evidence_was_lost(store: Store, b: TraceBuilder) -> None:
    b.ingest("docs", [A_ID, B_ID])
    with b.question("q-017", Q) as q:
        q.retrieve([A_ID, B_ID])
        q.retrieve([], error="TimeoutError: vector store")
        q.generate([], "I do not know.")
    r = one(run(store, b))
    assert r["first_failure"] == "search"
    assert r["failure_reason"] == "retrieve failed: TimeoutError: vector store"


def test_the_records_come_in_start_order(store: Store, b: TraceBuilder) -> None:
    """The engine hands its groups over in hash order (in any order, with threads); the funnel
    query orders them, so two analyses give the same rows in the same order."""
    cases = [case(id=f"q-{i}", question=f"question {i}") for i in range(40)]
    few_questions(b, 40)
    records = run(store, b, *cases).records
    assert records.get_column("question_id").to_list() == [f"q-{i}" for i in range(40)]
    assert records.get_column("started").is_sorted()
