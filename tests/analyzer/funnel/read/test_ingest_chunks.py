"""What ingest spans say about documents (``read/ingest_chunks.py``): each version's chunks in
document order, texts and offsets when recorded, a chunk file's texts where they were not, and a
document whose latest ingest made no chunk left out."""

from __future__ import annotations

import pytest

from ragfunnel.analyzer.cases import DocumentChunks
from ragfunnel.analyzer.funnel.read.ingest_chunks import Documents, ingested_chunks
from ragfunnel.analyzer.store import Store
from tests.support.rechunk_pipeline import CORPUS, chunk, run
from tests.support.traces import TraceBuilder


def test_each_versions_chunks_with_texts_and_offsets(store: Store) -> None:
    run(store, "v1", 1, "#")
    run(store, "v2", 2, "@v2-")
    found = ingested_chunks(store)
    assert sorted(found) == ["v1", "v2"]
    v1 = found["v1"]
    assert isinstance(v1, Documents) and len(v1) == 2 and set(v1) == set(CORPUS)
    assert "travel" in v1 and "nothing" not in v1
    travel = v1["travel"]
    expected = chunk("travel", 1, "#")
    assert isinstance(travel, DocumentChunks)
    assert travel.ids == tuple(str(c["id"]) for c in expected)
    assert travel.texts == tuple(str(c["text"]) for c in expected)
    assert travel.starts == tuple(int(c["start"]) for c in expected)  # type: ignore[call-overload]
    assert v1["travel"] is travel  # built once
    assert found["v2"]["travel"].ids == ("travel@v2-0", "travel@v2-1")
    with pytest.raises(KeyError):
        v1["nothing"]
    only = ingested_chunks(store, versions=iter(["v2"]))
    assert list(only) == ["v2"]


def test_a_chunk_file_fills_the_texts_the_spans_did_not_record(store: Store) -> None:
    run(store, "v1", 1, "#", content=False)
    bare = ingested_chunks(store)["v1"]["it"]
    assert bare.ids == ("it#0", "it#1") and bare.texts == (None, None)
    given = ingested_chunks(store, texts={"it#1": "Passwords expire after ninety days."})
    assert given["v1"]["it"].texts == (None, "Passwords expire after ninety days.")
    assert given["v1"]["it"].ids == ("it#0", "it#1")  # order kept through the join


def test_a_document_whose_latest_ingest_made_no_chunk_is_not_there(store: Store) -> None:
    b = TraceBuilder()
    b.ingest("scan", ["scan#0"], version="v1")
    b.ingest("scan", [], version="v1")  # re-ingested later: the parser lost the page
    b.ingest("faq", ["faq#0"], version="v1")
    b.into(store)
    found = ingested_chunks(store)
    assert list(found["v1"]) == ["faq"]
    assert ingested_chunks(store, versions=["v9"]) == {}
