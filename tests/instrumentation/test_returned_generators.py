"""A retriever, reranker or cut that returns a generator: relayed, recorded as it is read.

Issue 19, Why (decorator cost): such a generator was left unread and its span recorded no ids
or scores, although a streaming ``generate`` already records as the app consumes. Now the span
ends when the generator is exhausted, closed, raises, or is dropped unread.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator, Iterator

import pytest
from opentelemetry import trace

import ragfunnel
from ragfunnel.instrumentation import contract as c
from ragfunnel.testing import CapturedSpans

DOCS = [("a", 0.9), ("b", 0.5), ("c", 0.1)]


def test_exhausted_generator_records_every_item_in_order(spans: CapturedSpans) -> None:
    seen_current: list[bool] = []

    @ragfunnel.retrieve(name="lazy")
    def search(query: str, top_k: int = 3) -> Iterator[tuple[str, float]]:
        def rows() -> Iterator[tuple[str, float]]:
            for row in DOCS[:top_k]:
                seen_current.append(trace.get_current_span().is_recording())
                yield row

        return rows()

    out = search("q")
    assert spans.by_stage("retrieve") == []  # not ended before it is read
    assert not trace.get_current_span().is_recording()  # nor current between reads
    assert next(out) == ("a", 0.9)
    assert not trace.get_current_span().is_recording()
    assert list(out) == DOCS[1:]
    (attrs,) = spans.attributes("retrieve")
    assert attrs[c.DOCUMENTS_IDS] == ("a", "b", "c")
    assert attrs[c.DOCUMENTS_SCORES] == (0.9, 0.5, 0.1)
    assert attrs[c.TOP_K] == 3
    assert seen_current == [True, True, True]  # the span is current while the body runs


def test_closed_early_records_what_was_read(spans: CapturedSpans) -> None:
    @ragfunnel.rerank(model="ce")
    def rerank(query: str, documents: list[str]) -> Iterator[str]:
        return (d for d in sorted(documents))

    out = rerank("q", ["c", "a", "b"])
    assert next(out) == "a"
    out.close()
    (attrs,) = spans.attributes("rerank")
    assert attrs[c.INPUT_IDS] == ("c", "a", "b")
    assert attrs[c.DOCUMENTS_IDS] == ("a",)


def test_a_generator_that_raises_marks_the_span_and_keeps_the_partial_list(
    spans: CapturedSpans,
) -> None:
    @ragfunnel.cut(k=2)
    def gate(documents: list[str]) -> Iterator[str]:
        def rows() -> Iterator[str]:
            yield documents[0]
            raise RuntimeError("index gone")

        return rows()

    out = gate(["x", "y"])
    assert next(out) == "x"
    with pytest.raises(RuntimeError, match="index gone"):
        next(out)
    (span,) = spans.by_stage("cut")
    assert span.status.status_code.name == "ERROR"
    assert span.attributes[c.DOCUMENTS_IDS] == ("x",)
    assert span.attributes[c.STREAM_PARTIAL] is True


def test_send_reaches_the_generator(spans: CapturedSpans) -> None:
    def echo() -> Iterator[str]:
        got = yield "first"
        yield f"got-{got}"

    search = ragfunnel.retrieve(lambda query: echo())
    out = search("q")
    assert next(out) == "first"
    assert out.send("x") == "got-x"
    assert list(out) == []
    (attrs,) = spans.attributes("retrieve")
    assert attrs[c.DOCUMENTS_IDS] == ("first", "got-x")


def test_a_generator_dropped_unread_still_ends_its_span(spans: CapturedSpans) -> None:
    @ragfunnel.retrieve
    def search(query: str) -> Iterator[str]:
        return (d for d in ["a"])

    search("q")  # never read
    gc.collect()
    (attrs,) = spans.attributes("retrieve")
    assert c.DOCUMENTS_IDS not in attrs  # nothing was read, nothing is claimed


def test_an_async_generator_from_a_coroutine_is_relayed(spans: CapturedSpans) -> None:
    @ragfunnel.retrieve(name="async")
    async def search(query: str) -> AsyncIterator[tuple[str, float]]:
        async def rows() -> AsyncIterator[tuple[str, float]]:
            for row in DOCS:
                await asyncio.sleep(0)
                yield row

        return rows()

    async def main() -> list[tuple[str, float]]:
        return [row async for row in await search("q")]

    assert asyncio.run(main()) == DOCS
    (attrs,) = spans.attributes("retrieve")
    assert attrs[c.DOCUMENTS_IDS] == ("a", "b", "c")


def test_other_iterators_are_still_left_unread(spans: CapturedSpans) -> None:
    @ragfunnel.retrieve
    def search(query: str) -> Iterator[str]:
        return iter(["a", "b"])

    assert list(search("q")) == ["a", "b"]
    (attrs,) = spans.attributes("retrieve")
    assert c.DOCUMENTS_IDS not in attrs
    assert ragfunnel.unread_counts() == {"retrieve result": 1}
