"""Iterators, generators and unknown iterables pass through unread (docs/reliability.md).

Reading a one-shot value would hand the app an exhausted one: ragfunnel records nothing for it
and counts it in ``ragfunnel.unread_counts()`` instead.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

import ragfunnel
from ragfunnel.instrumentation import contract as c
from ragfunnel.testing import CapturedSpans


def test_a_retriever_returning_a_generator_hands_the_caller_every_item(
    spans: CapturedSpans,
) -> None:
    # A returned generator is relayed and recorded as the app reads it (issue 19, Why: it was
    # left unread and its span recorded no ids); other iterators stay unread, below.
    @ragfunnel.retrieve(name="gen")
    def search(q: str) -> Iterator[tuple[str, float]]:
        return (d for d in [("a", 1.0), ("b", 0.5)])

    assert list(search("q")) == [("a", 1.0), ("b", 0.5)]
    assert list(search("q")) == [("a", 1.0), ("b", 0.5)]
    (first, _) = spans.attributes("retrieve")
    assert first[c.DOCUMENTS_IDS] == ("a", "b") and first[c.DOCUMENTS_SCORES] == (1.0, 0.5)
    assert first[c.RETRIEVER_NAME] == "gen"
    assert ragfunnel.unread_counts() == {}
    assert ragfunnel.internal_error_counts() == {}


def test_iterator_inputs_reach_rerank_cut_and_generate_whole(spans: CapturedSpans) -> None:
    @ragfunnel.rerank(model="m")
    def rerank(query: str, documents: Iterator[str]) -> list[str]:
        return sorted(documents)

    @ragfunnel.cut(k=2)
    def gate(documents: Iterator[str]) -> list[str]:
        return list(documents)[:2]

    @ragfunnel.generate
    def generate(question: str, context: Iterator[str]) -> str:
        return " ".join(context)

    assert rerank("q", iter(["c", "a", "b"])) == ["a", "b", "c"]
    assert gate(x for x in ["a", "b", "c"]) == ["a", "b"]
    assert generate("q", map(str.upper, ["a", "b"])) == "A B"
    (rr,) = spans.attributes("rerank")
    assert c.INPUT_IDS not in rr
    assert list(rr[c.DOCUMENTS_IDS]) == ["a", "b", "c"]  # the returned list is still read
    (cut,) = spans.attributes("cut")
    assert c.INPUT_IDS not in cut and list(cut[c.DOCUMENTS_IDS]) == ["a", "b"]
    (gen,) = spans.attributes("generate")
    assert c.CONTEXT_IDS not in gen
    assert ragfunnel.unread_counts() == {
        "rerank input": 1,
        "cut input": 1,
        "generate context": 1,
    }


class CountingIterable:
    """An iterable of unknown kind (a lazy query result, say): iterating it costs something."""

    def __init__(self, items: list[str]):
        self.items = items
        self.iterations = 0

    def __iter__(self) -> Iterator[str]:
        self.iterations += 1
        return iter(self.items)


class LazyList(list[str]):
    """A list subclass that overrides iteration (an ORM's lazy collection, say)."""

    def __init__(self, items: list[str]):
        super().__init__(items)
        self.iterations = 0

    def __iter__(self) -> Iterator[str]:
        self.iterations += 1
        return super().__iter__()


@pytest.mark.parametrize("make", [CountingIterable, LazyList])
def test_unknown_iterables_are_not_iterated(make: Any, spans: CapturedSpans) -> None:
    value = make(["a", "b"])

    @ragfunnel.retrieve
    def search(query: str) -> Any:
        return value

    @ragfunnel.rerank
    def rerank(documents: Any) -> Any:
        return documents

    assert rerank(search("q")) is value
    assert value.iterations == 0
    assert all(c.DOCUMENTS_IDS not in a for a in spans.attributes("retrieve"))
    assert ragfunnel.unread_counts() == {
        "retrieve result": 1,
        "rerank input": 1,
        "rerank result": 1,
    }


def test_a_mapping_holding_a_generator_is_not_read(spans: CapturedSpans) -> None:
    docs = (d for d in ["a", "b"])

    @ragfunnel.retrieve
    def search(query: str) -> dict[str, Any]:
        return {"documents": docs}

    assert list(search("q")["documents"]) == ["a", "b"]
    assert ragfunnel.unread_counts() == {"retrieve result": 1}


def test_user_callables_never_receive_a_one_shot_value(spans: CapturedSpans) -> None:
    @ragfunnel.retrieve(ids=lambda result: [d for d, _ in result])
    def search(query: str) -> Iterator[tuple[str, float]]:
        return iter([("a", 1.0)])

    @ragfunnel.generate(text=lambda result: "".join(result))
    def stream(question: str) -> Iterator[str]:
        return iter(["an", "swer"])

    assert list(search("q")) == [("a", 1.0)]
    assert "".join(stream("q")) == "answer"
    assert ragfunnel.unread_counts() == {"retrieve result": 1, "generate result": 1}


def test_a_stream_object_returned_by_a_plain_function_is_left_to_the_app(
    content_spans: CapturedSpans,
) -> None:
    class Stream:  # what `client.chat.completions.create(stream=True)` returns: an iterator
        def __init__(self) -> None:
            self.chunks = ["Fir", "mware"]

        def __iter__(self) -> Stream:
            return self

        def __next__(self) -> str:
            if not self.chunks:
                raise StopIteration
            return self.chunks.pop(0)

    @ragfunnel.generate
    def generate(question: str) -> Stream:
        return Stream()

    assert "".join(generate("q")) == "Firmware"
    (span,) = content_spans.attributes("generate")
    assert c.ANSWER_TEXT not in span


def test_an_async_generator_returned_by_a_coroutine_is_relayed(
    spans: CapturedSpans,
) -> None:
    async def produce() -> AsyncIterator[str]:
        for item in ("a", "b"):
            yield item

    @ragfunnel.retrieve
    async def search(query: str) -> AsyncIterator[str]:
        return produce()

    async def main() -> list[str]:
        return [x async for x in await search("q")]

    assert asyncio.run(main()) == ["a", "b"]
    assert ragfunnel.unread_counts() == {}
    (attrs,) = spans.attributes("retrieve")
    assert attrs[c.DOCUMENTS_IDS] == ("a", "b")


@pytest.mark.parametrize("value", [deque(["a", "b"]), ("a", "b"), ["a", "b"], range(2)], ids=type)
def test_materialised_containers_are_still_read(value: Any, spans: CapturedSpans) -> None:
    @ragfunnel.rerank
    def rerank(documents: Any) -> Any:
        return documents

    assert rerank(value) is value
    (span,) = spans.attributes("rerank")
    expected = [str(x) for x in value]
    assert list(span[c.INPUT_IDS]) == expected
    assert list(span[c.DOCUMENTS_IDS]) == expected
    assert ragfunnel.unread_counts() == {}
