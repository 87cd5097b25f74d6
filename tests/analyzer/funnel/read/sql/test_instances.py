"""The per-instance funnel aggregation (``read/sql/instances.py``): the last attempt of a retried
stage is the one that counts."""

from __future__ import annotations

from ragfunnel.analyzer.store import Store
from tests.support.decisions import A_ID, B_ID, RIGHT, Q, one, run
from tests.support.traces import TraceBuilder


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
