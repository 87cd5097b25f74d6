"""10,000 questions at once: asyncio tasks and threads (with and without the context helpers),
sync and async streams consumed fully, partially, closed early or dropped — no stage span under
the wrong question, no span left open (docs/reliability.md, "Concurrency")."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

import ragfunnel
from ragfunnel.instrumentation import contract as c
from ragfunnel.testing import capture_spans

QUESTIONS = 10_000
CHUNK = 250
PATTERNS = 8


@ragfunnel.retrieve(name="bm25")
def retrieve(query: str) -> list[str]:
    return [f"{query}-doc"]


@ragfunnel.retrieve(name="dense")
async def aretrieve(query: str) -> list[str]:
    await asyncio.sleep(0)
    return [f"{query}-doc"]


@ragfunnel.generate
def stream(question: str, context: list[str]) -> Iterator[str]:
    yield from ("one", "two", "three")


@ragfunnel.generate
async def astream(question: str, context: list[str]) -> AsyncIterator[str]:
    for word in ("one", "two", "three"):
        await asyncio.sleep(0)
        yield word


@ragfunnel.question(id="qid")
async def ask_async(qid: str, pattern: int) -> str:
    docs = await aretrieve(qid)
    gen = astream(qid, docs)
    if pattern == 0:
        return "".join([w async for w in gen])  # fully
    first = await gen.__anext__()  # partially, then closed early
    await gen.aclose()
    return first


@ragfunnel.question(id="qid")
def ask_sync(qid: str, pattern: int, pool: ragfunnel.ContextThreadPoolExecutor) -> str:
    if pattern == 2:  # the retrieval runs on a pool thread that carries the question
        docs = pool.submit(retrieve, qid).result()
    elif pattern == 3:  # a plain thread, context carried by with_context
        out: list[list[str]] = []
        worker = threading.Thread(target=ragfunnel.with_context(lambda: out.append(retrieve(qid))))
        worker.start()
        worker.join()
        docs = out[0]
    elif pattern == 4:  # a plain thread without the helpers: its span belongs to no question
        loose: list[list[str]] = []
        worker = threading.Thread(target=lambda: loose.append(retrieve(f"loose-{qid}")))
        worker.start()
        worker.join()
        docs = retrieve(qid)
    else:
        docs = retrieve(qid)
    gen = stream(qid, docs)
    if pattern in (2, 3, 4):
        return "".join(gen)  # fully
    first = next(gen)
    if pattern == 5:
        gen.close()  # closed early
    elif pattern == 6:
        next(gen)
        del gen  # dropped half-way: closed when collected
    # pattern 7: left suspended; closed when the question returns and the generator dies
    return first


def _run_chunk(start: int, pool: ragfunnel.ContextThreadPoolExecutor) -> list[str]:
    ids = range(start, start + CHUNK)
    if (start // CHUNK) % 2 == 0:

        async def main() -> list[str]:
            return await asyncio.gather(*(ask_async(f"q{i}", i % 2) for i in ids))

        return asyncio.run(main())
    return [ask_sync(f"q{i}", 2 + i % 6, pool) for i in ids]


def _expected_answer(i: int) -> str:
    async_chunk = (i // CHUNK) % 2 == 0
    pattern = i % 2 if async_chunk else 2 + i % 6
    full = (async_chunk and pattern == 0) or (not async_chunk and pattern in (2, 3, 4))
    return "onetwothree" if full else "one"


def test_ten_thousand_mixed_questions_keep_every_span_under_its_own_question(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING), capture_spans() as spans:
        with (
            ragfunnel.ContextThreadPoolExecutor(4) as inner,
            ThreadPoolExecutor(6) as outer,  # plain threads: each question starts its own trace
        ):
            chunks = [outer.submit(_run_chunk, s, inner) for s in range(0, QUESTIONS, CHUNK)]
            answers = [a for chunk in chunks for a in chunk.result()]
        finished = spans.spans
    assert answers == [_expected_answer(i) for i in range(QUESTIONS)]

    roots = {s.context.span_id: s for s in finished if s.attributes[c.STAGE] == "question"}
    assert len(roots) == QUESTIONS
    kinds: Counter[str] = Counter()
    for span in finished:
        attrs = span.attributes
        if attrs[c.STAGE] == "question":
            continue
        qid = attrs.get(c.QUESTION_ID)
        if qid is None:  # the plain-thread retrieval of pattern 4
            assert span.parent is None
            assert attrs[c.DOCUMENTS_IDS][0].startswith("loose-q")
            kinds["loose"] += 1
            continue
        root = roots[span.parent.span_id]
        assert root.attributes[c.QUESTION_ID] == qid
        assert span.context.trace_id == root.context.trace_id
        assert span.end_time <= root.end_time or attrs[c.STAGE] == "generate"
        ids_key = c.DOCUMENTS_IDS if attrs[c.STAGE] == "retrieve" else c.CONTEXT_IDS
        assert list(attrs[ids_key]) == [f"{qid}-doc"]
        kinds[attrs[c.STAGE]] += 1
    # Every span that started has ended (an open span would be missing here).
    loose = sum(1 for i in range(QUESTIONS) if (i // CHUNK) % 2 and 2 + i % 6 == 4)
    assert kinds == {"retrieve": QUESTIONS, "generate": QUESTIONS, "loose": loose}
    assert all(span.end_time is not None for span in finished)
    # No "Failed to detach context" from OpenTelemetry, no internal error from ragfunnel.
    assert [r.getMessage() for r in caplog.records] == []
