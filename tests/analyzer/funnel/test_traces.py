"""Tests of the typed view, on traces from the builder in ``tests/support/traces.py``."""

from __future__ import annotations

import math
from typing import Any

import pytest

from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.migrations import migrate, view_ddl
from ragfunnel.analyzer.store.tables.stage_spans import STAGE_TABLE, stage_table
from tests.support.traces import TraceBuilder, hashes


def _rows(store: Store) -> list[dict[str, Any]]:
    return store.query_arrow(
        f"SELECT Stage, Source, QuestionKey, Name, TopK, HasIds, Ids, IdHashes, Scores, HasInput, "
        f"length(InputHashes) AS n_in, AnswerText, HasAnswer, RunId, Abstained, CutK, "
        f"CutThreshold, SampleIndex, Mode FROM {stage_table(store)} ORDER BY Timestamp"
    ).to_pylist()


def test_view_parses_each_stage_once(store: Store, builder: TraceBuilder) -> None:
    migrate(store)
    with builder.question("q-1", "Which firmware?", run="r1") as q:
        q.retrieve(["a", "b"], scores=[0.9, 0.5], name="bm25", top_k=10)
        q.rerank(["b", "a"], input_ids=["a", "b"], scores=[0.8, 0.1], top_n=2)
        q.cut(["b"], input_ids=["b", "a"], k=1, threshold=0.5)
        q.generate(["b"], "answer", sample_index=0)
    builder.into(store)
    rows = _rows(store)
    assert [r["Stage"] for r in rows] == ["question", "retrieve", "rerank", "cut", "generate"]
    question, retrieve, rerank, cut, generate = rows
    assert retrieve["IdHashes"] == hashes(store, ["a", "b"]) and retrieve["Ids"] == []
    assert retrieve["Scores"] == [0.9, 0.5]
    assert retrieve["TopK"] == 10 and retrieve["Name"] == "bm25"
    assert rerank["n_in"] == 2 and rerank["HasInput"] == 1 and rerank["TopK"] == 2
    assert cut["CutK"] == 1 and cut["CutThreshold"] == 0.5
    assert cut["IdHashes"] == generate["IdHashes"] == hashes(store, ["b"])
    assert generate["AnswerText"] == "answer"
    assert generate["HasAnswer"] == 1 and generate["SampleIndex"] == 0
    assert generate["Mode"] == "pipeline"
    assert question["RunId"] == "r1" and {r["QuestionKey"] for r in rows} == {"q-1"}


def test_backfill_copies_rows_stored_before_the_view(store: Store, builder: TraceBuilder) -> None:
    with builder.question("q-1") as q:
        q.retrieve(["a"])
    builder.into(store)
    migrate(store)
    migrate(store)  # idempotent: the marker row stops a second backfill
    assert [r["Stage"] for r in _rows(store)] == ["question", "retrieve"]
    with builder.question("q-2") as q:
        q.retrieve(["b"])
    builder.into(store)
    assert len(_rows(store)) == 4


def test_view_ddl_is_exposed_for_clusters(store: Store) -> None:
    statements = view_ddl("otel", "`otel`.`otel_traces`")
    assert statements[0].startswith(f"CREATE TABLE IF NOT EXISTS `otel`.`{STAGE_TABLE}`")
    assert "MATERIALIZED VIEW" in statements[1]


def test_nan_scores_and_missing_attributes(store: Store, builder: TraceBuilder) -> None:
    migrate(store)
    with builder.question("q-1") as q:
        q.retrieve(["a", "b"], scores=[0.5, math.nan])  # the exporter drops such an array
        q.generate(None)
    builder.into(store)
    _, retrieve, generate = _rows(store)
    assert retrieve["IdHashes"] == hashes(store, ["a", "b"]) and retrieve["Scores"] == []
    assert generate["HasIds"] == 0 and generate["HasAnswer"] == 0


@pytest.fixture
def builder() -> TraceBuilder:
    return TraceBuilder()
