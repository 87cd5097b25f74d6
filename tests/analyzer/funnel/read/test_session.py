"""One analysis's conversation with the store (``read/session.py``): batches of buckets, the
conflicting chunks of a document ingested twice, a foreign root's question text, and temporary
tables gone when the session ends."""

from __future__ import annotations

import itertools

import polars as pl
import pytest

from ragfunnel.analyzer.funnel.read import session as session_module
from ragfunnel.analyzer.funnel.read.session import Session, _foreign_question
from ragfunnel.analyzer.funnel.read.source import stage_source
from ragfunnel.analyzer.funnel.read.sql import FunnelQuery
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.tables.stage_spans import BUCKETS
from tests.support.traces import TraceBuilder


def questions(store: Store, n: int) -> None:
    b = TraceBuilder()
    for i in range(n):
        with b.question(f"q-{i}", f"Question {i}?") as q:
            q.retrieve(["a"])
    b.into(store)


def test_batches_cover_every_bucket_once(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    questions(store, 5)
    source = stage_source(store)
    query = FunnelQuery(source.sql)
    with Session(store, source) as session:
        assert [b.buckets for b in session.batches(query)] == [(0, BUCKETS - 1)]
        assert session.instances == 5
        monkeypatch.setattr(session_module, "BATCH_INSTANCES", 2)
        batches = session.batches(query)
        assert len(batches) == 3  # 5 questions, 2 a batch
        ranges = [b.buckets for b in batches]
        assert ranges[0][0] == 0 and ranges[-1][1] == BUCKETS - 1  # type: ignore[index]
        for (_, high), (low, _) in itertools.pairwise(ranges):  # type: ignore[misc]
            assert low == high + 1
        one = session.batches(FunnelQuery(source.sql, question_keys=("q-1",), buckets=(0, 9)))
        assert [b.buckets for b in one] == [None]  # one question's records are one batch


def test_temporary_tables_are_gone_after_the_session(store: Store) -> None:
    questions(store, 1)
    cases = pl.DataFrame(
        {"case_idx": [1], "question_id": ["q-0"], "items": [["a"]]},
        schema={"case_idx": pl.UInt32, "question_id": pl.String, "items": pl.List(pl.String)},
    )
    with Session(store, stage_source(store)) as session:
        session.load_cases(cases)
        assert session.keys_for(1) == ["q-0"]
        made = list(session._tables.created)
        assert session.keys_table in made and session.items_table in made
    listed = store.query_df("SELECT name FROM system.tables WHERE is_temporary")
    assert not set(made) & set(listed.get_column("name").to_list())


def test_a_document_ingested_twice_has_its_own_chunks_per_ingestion(store: Store) -> None:
    b = TraceBuilder()
    b.ingest("policy", ["policy#old", "policy#same"], version="v1")
    b.ingest("policy", ["policy#new", "policy#same"], version="v2")
    b.ingest("policy", ["policy#new", "policy#same"], version="v3")  # the same chunks again
    b.ingest("faq", ["faq#0"], version="v1")
    b.into(store)
    with Session(store, stage_source(store)) as session:
        found = session.conflict_chunks().sort("chunk")
    assert found.get_column("chunk").to_list() == ["policy#new", "policy#old"]
    assert set(found.get_column("document")) == {"policy"}
    labels = found.get_column("ingestion").to_list()
    assert labels[0].startswith("ingestion 2: v2, ") and labels[1].startswith("ingestion 1: v1, ")


@pytest.mark.parametrize(
    ("text", "mime", "question"),
    [
        ('{"query": "Who resets?"}', "application/json", "Who resets?"),
        ('"Who resets?"', "application/json", "Who resets?"),
        ("{not json", "application/json", "{not json"),
        ('{"other": 1}', "application/json", '{"other": 1}'),
        ('{"query": "Who resets?"}', "text/plain", '{"query": "Who resets?"}'),
    ],
)
def test_a_foreign_roots_question_is_read_from_its_input(
    text: str, mime: str, question: str
) -> None:
    assert _foreign_question(text, mime) == question
