"""The SELECT every stage-table query is built on (``read/sql/query.py``): its filters run on a
real stage table, user values travel as bound parameters, the retrieve order key ranks a fusion
span first, and an item's score is NaN where the span does not list it."""

from __future__ import annotations

import math

import pytest

from ragfunnel.analyzer.funnel.read.sql.query import (
    RETRIEVE_KEY,
    FunnelQuery,
    item,
    item_score,
    select_from,
)
from ragfunnel.analyzer.funnel.read.wide_layout import ITEMS_PER_WORD
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.tables.stage_spans import stage_table
from tests.support.traces import TraceBuilder

ODD_RUN = "o'brien}{runs:String}"  # quotes and braces: spliced into SQL text it would break


@pytest.fixture
def filled(store: Store) -> Store:
    b = TraceBuilder()
    for qid, run in (("q-1", ODD_RUN), ("q-2", ODD_RUN), ("q-3", "other")):
        with b.question(qid, f"Question {qid}?", run=run) as q:
            q.retrieve(["a", "b"], scores=[0.9, 0.4], name="bm25")
            q.retrieve(["b", "a"], name="rrf", fused_from=["bm25"])
            q.generate(["a"], "An answer.")
    b.into(store)
    return store


def rows(store: Store, q: FunnelQuery, projected: list[str], where: list[str],
         parameters: dict[str, object] | None = None) -> list[tuple[object, ...]]:  # fmt: skip
    sql = select_from(q, projected, where=where)
    params = {**({"runs": list(q.runs)} if q.runs else {}), **(parameters or {})}
    return sorted(store.query_df(sql, params).rows())


def test_runs_and_question_keys_filter_as_bound_parameters(filled: Store) -> None:
    q = FunnelQuery(stage_table(filled), runs=(ODD_RUN,))
    sql = select_from(q, ["s.QuestionKey AS key"], where=["s.Stage = 'generate'"])
    assert "o'brien" not in sql and "{runs:Array(String)}" in sql
    every = FunnelQuery(stage_table(filled))
    assert rows(filled, every, ["s.QuestionKey"], ["s.Stage = 'generate'"]) == [
        ("q-1",), ("q-2",), ("q-3",),
    ]  # fmt: skip
    assert rows(filled, q, ["s.QuestionKey"], ["s.Stage = 'generate'"]) == [("q-1",), ("q-2",)]
    one = FunnelQuery(stage_table(filled), runs=(ODD_RUN,), question_keys=("q-2", "q-3"))
    assert rows(filled, one, ["s.QuestionKey"], ["s.Stage = 'generate'"],
                {"keys": ["q-2", "q-3"]}) == [("q-2",)]  # fmt: skip


def test_rows_without_a_question_key_are_never_selected(filled: Store) -> None:
    b = TraceBuilder()
    b.ingest("doc", ["a", "b"])  # an ingest span belongs to no question
    b.into(filled)
    every = FunnelQuery(stage_table(filled))
    stages = {stage for (stage,) in rows(filled, every, ["s.Stage"], ["1"])}
    assert stages == {"question", "retrieve", "generate"}


def test_a_bucket_range_is_an_inclusive_filter(filled: Store) -> None:
    table = stage_table(filled)
    buckets = filled.query_df(f"SELECT DISTINCT Bucket FROM {table}").get_column("Bucket")
    low = int(buckets.min())  # type: ignore[arg-type]
    q = FunnelQuery(table, buckets=(low, low))
    sql = select_from(q, ["s.Bucket"], where=["1"])
    assert f"Bucket BETWEEN {low} AND {low}" in sql
    assert {bucket for (bucket,) in rows(filled, q, ["s.Bucket"], ["1"])} == {low}


def test_the_fusion_span_outranks_the_retrievers_and_scores_follow_the_ids(
    filled: Store,
) -> None:
    table = stage_table(filled)
    last = filled.query_df(
        f"SELECT s.QuestionKey AS key, argMax(s.Name, {RETRIEVE_KEY}) AS name FROM {table} AS s "
        "WHERE s.Stage = 'retrieve' GROUP BY key ORDER BY key"
    )
    assert last.get_column("name").to_list() == ["rrf", "rrf", "rrf"]  # although it came later
    scored = filled.query_df(
        f"SELECT s.Name AS name, {item_score(0)} AS score "
        f"FROM {table} AS s, (SELECT cityHash64('b') AS {item(0).removeprefix('m.')}) AS m "
        "WHERE s.Stage = 'retrieve' AND s.QuestionKey = 'q-1' ORDER BY name"
    )
    bm25, rrf = scored.rows()
    assert bm25 == ("bm25", 0.4)
    assert rrf[0] == "rrf" and math.isnan(rrf[1])  # the fusion span recorded no scores


def test_the_words_hold_every_items_positions() -> None:
    per_word = ITEMS_PER_WORD
    got = [FunnelQuery("t", items=n).words for n in (0, 1, per_word, per_word + 1, 2 * per_word)]
    assert got == [0, 1, 1, 2, 2]
