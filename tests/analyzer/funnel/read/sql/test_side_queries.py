"""The side queries (``read/sql/side_queries.py``) on a real stage table: failed stage spans but
not ingest ones, numbered samples but not oracle answers, the last oracle answer, and the last
pipeline answer's low-confidence tokens only where it has any."""

from __future__ import annotations

import polars as pl
import pytest

from ragfunnel.analyzer.funnel.read.sql.query import FunnelQuery
from ragfunnel.analyzer.funnel.read.sql.side_queries import (
    errors_sql,
    low_confidence_sql,
    oracle_sql,
    samples_sql,
)
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.tables.stage_spans import stage_table
from tests.support.traces import TraceBuilder


@pytest.fixture
def side(store: Store) -> tuple[Store, FunnelQuery]:
    b = TraceBuilder()
    b.ingest("scan", ["scan#0"], error="OCR failed")
    with b.question("q-1", "One?") as q:
        q.retrieve([], error="TimeoutError")
        q.retrieve(["a"])
        q.generate(["a"], "first", sample_index=0, low_confidence=["4.2"])
        q.generate(["a"], "second", sample_index=1)
        q.generate(["a"], "old oracle", mode="oracle")
        q.generate(["a"], "new oracle", mode="oracle", error="RateLimitError")
    with b.question("q-2", "Two?") as q:
        q.retrieve(["a"])
        q.generate(["a"], "tokens once", low_confidence=["x"])
        q.generate(["a"], "then none")  # the last attempt has no low-confidence tokens
    with b.question("q-3", "Three?") as q:
        q.retrieve(["a"])
        q.generate(["a"], "unsure", low_confidence=["7", "days"])
    b.into(store)
    return store, FunnelQuery(stage_table(store))


def keyed(store: Store, sql: str) -> pl.DataFrame:
    """The result with the question key in place of the instance key."""
    table = stage_table(store)
    keys = store.query_df(
        f"SELECT DISTINCT InstanceKey AS inst_key, QuestionKey AS key FROM {table}"
    )
    return store.query_df(sql).join(keys, on="inst_key").drop("inst_key")


def test_errors_are_the_failed_stage_spans_of_questions(side: tuple[Store, FunnelQuery]) -> None:
    store, q = side
    found = keyed(store, errors_sql(q)).sort("ts")
    assert found.select("key", "stage", "message").rows() == [
        ("q-1", "retrieve", "TimeoutError"),
        ("q-1", "generate", "RateLimitError"),
    ]  # the failed ingest span is no question's error


def test_samples_are_the_numbered_pipeline_answers(side: tuple[Store, FunnelQuery]) -> None:
    store, q = side
    found = keyed(store, samples_sql(q)).sort("sample_index")
    assert found.select("key", "sample_index", "answer", "tokens").rows() == [
        ("q-1", 0, "first", ["4.2"]),
        ("q-1", 1, "second", []),
    ]


def test_the_oracle_answer_is_the_last_oracle_attempt(side: tuple[Store, FunnelQuery]) -> None:
    store, q = side
    found = keyed(store, oracle_sql(q))
    assert found.columns == ["oracle_has_answer", "oracle_answer", "oracle_error", "key"]
    assert found.rows() == [(True, "new oracle", True, "q-1")]


def test_low_confidence_tokens_of_the_last_pipeline_answer(
    side: tuple[Store, FunnelQuery],
) -> None:
    store, q = side
    found = keyed(store, low_confidence_sql(q))
    # q-1's last pipeline generate is sample 1 without tokens; q-2's last has none either.
    assert found.rows() == [(["7", "days"], "q-3")]
    with_runs = FunnelQuery(q.stage_table, runs=("no-such-run",))
    assert store.query_df(errors_sql(with_runs), {"runs": ["no-such-run"]}).is_empty()
