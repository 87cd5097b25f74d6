"""README "Instrument your app": instrumentation never changes what the app sees, and keeps context right."""

from __future__ import annotations

import asyncio
import logging
import warnings
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry import trace

import ragfunnel
from ragfunnel.instrumentation import contract as c
from ragfunnel.instrumentation import safety
from ragfunnel.testing import CapturedSpans, capture_spans

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=5), inner, max_size=4)
        | st.tuples(inner, inner)
    ),
    max_leaves=12,
)


class AppError(Exception):
    pass


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    value=values,
    stage=st.sampled_from(["retrieve", "rerank", "cut", "generate", "ingest", "question"]),
)
def test_return_values_pass_through_unchanged(value: Any, stage: str) -> None:
    safety.RERAISE = False  # odd shapes are internal errors: counted, never raised
    decorator = getattr(ragfunnel, stage)

    @decorator
    def step(query: str) -> Any:
        return value

    with capture_spans():
        assert step("q") is value


@settings(max_examples=40, deadline=None)
@given(
    message=st.text(), stage=st.sampled_from(["retrieve", "rerank", "cut", "generate", "question"])
)
def test_exceptions_pass_through_unchanged(message: str, stage: str) -> None:
    error = AppError(message)

    @getattr(ragfunnel, stage)
    def step(query: str) -> Any:
        raise error

    with capture_spans(), pytest.raises(AppError) as caught:
        step("q")
    assert caught.value is error


def test_extractor_failure_is_logged_once_counted_and_never_reaches_the_app(
    spans: CapturedSpans, caplog: pytest.LogCaptureFixture
) -> None:
    safety.RERAISE = False

    def bad_ids(result: Any) -> list[str]:
        raise KeyError("no ids here")

    @ragfunnel.retrieve(ids=bad_ids)
    def search(query: str) -> object:
        return {"weird": "shape"}

    with caplog.at_level(logging.WARNING, logger="ragfunnel"):
        results = [search("q") for _ in range(5)]
    assert results == [{"weird": "shape"}] * 5
    assert ragfunnel.internal_error_counts() == {"retrieve result extraction": 5}
    logged = [r for r in caplog.records if "internal error" in r.getMessage()]
    assert len(logged) == 1
    assert "still running fine" in logged[0].getMessage()
    assert len(spans.by_stage("retrieve")) == 5  # spans still end


def test_internal_errors_fail_the_projects_own_tests(spans: CapturedSpans) -> None:
    @ragfunnel.retrieve
    def search(query: str) -> object:
        return object()  # no document list: an extraction error

    with pytest.raises(Exception, match="document list"):
        search("q")


def test_exporter_failure_never_reaches_the_app() -> None:
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

    class Exploding(SpanExporter):
        def export(self, spans: Any) -> SpanExportResult:
            raise ConnectionError("collector gone")

        def shutdown(self) -> None:
            pass

    safety.RERAISE = False
    ragfunnel.configure(exporter=Exploding(), batch=True)

    @ragfunnel.retrieve
    def search(query: str) -> list[str]:
        return ["a"]

    assert [search("q") for _ in range(3)] == [["a"]] * 3
    assert ragfunnel.flush(5_000)
    stats = ragfunnel.export_stats()
    assert stats.failed == 3 and stats.exported == 0
    assert ragfunnel.internal_error_counts()["span exporter"] >= 1


@ragfunnel.retrieve(name="bm25")
async def aretrieve(query: str) -> list[str]:
    await asyncio.sleep(0)
    return [f"{query}-doc"]


@ragfunnel.generate
async def agenerate(question: str, context: list[str]) -> str:
    await asyncio.sleep(0)
    return question


@ragfunnel.question(id="qid")
async def aanswer(qid: str) -> str:
    docs = await aretrieve(qid)
    await asyncio.sleep(0)
    return await agenerate(qid, docs)


def _assert_every_stage_under_its_question(spans: CapturedSpans, n: int) -> None:
    roots = {s.context.span_id: s.attributes[c.QUESTION_ID] for s in spans.by_stage("question")}
    assert len(roots) == n
    stage_spans = [s for s in spans if s.attributes[c.STAGE] != "question"]
    assert len(stage_spans) == 2 * n
    for span in stage_spans:
        qid = roots[span.parent.span_id]
        assert span.attributes[c.QUESTION_ID] == qid
        if span.attributes[c.STAGE] == "retrieve":
            assert span.attributes[c.DOCUMENTS_IDS] == (f"{qid}-doc",)


def test_1000_concurrent_questions_under_asyncio_gather(spans: CapturedSpans) -> None:
    async def main() -> list[str]:
        return await asyncio.gather(*(aanswer(f"q{i}") for i in range(1000)))

    assert asyncio.run(main()) == [f"q{i}" for i in range(1000)]
    _assert_every_stage_under_its_question(spans, 1000)


@ragfunnel.retrieve(name="bm25")
def sretrieve(query: str) -> list[str]:
    return [f"{query}-doc"]


@ragfunnel.generate
def sgenerate(question: str, context: list[str]) -> str:
    return question


def test_200_questions_through_a_thread_pool(spans: CapturedSpans) -> None:
    @ragfunnel.question(id="qid")
    def answer(qid: str, pool: ragfunnel.ContextThreadPoolExecutor) -> str:
        # The retrieval runs on another pool thread; the helper carries the question along.
        docs = pool.submit(sretrieve, qid).result()
        return sgenerate(qid, docs)

    with (
        ragfunnel.ContextThreadPoolExecutor(8) as outer,
        ragfunnel.ContextThreadPoolExecutor(8) as inner,
    ):
        futures = [outer.submit(answer, f"q{i}", inner) for i in range(200)]
        assert [f.result() for f in futures] == [f"q{i}" for i in range(200)]
    _assert_every_stage_under_its_question(spans, 200)


def test_with_context_carries_the_question_into_a_plain_thread(spans: CapturedSpans) -> None:
    import threading

    @ragfunnel.question(id="qid")
    def answer(qid: str) -> None:
        worker = threading.Thread(target=ragfunnel.with_context(sretrieve), args=(qid,))
        worker.start()
        worker.join()

    answer("q-thread")
    (ret,) = spans.attributes("retrieve")
    assert ret[c.QUESTION_ID] == "q-thread"


class _Chunk:
    def __init__(self, text: str, logprob: float):
        self.choices = [
            type(
                "Choice",
                (),
                {
                    "delta": type("D", (), {"content": text})(),
                    "logprobs": type(
                        "L", (), {"content": [type("T", (), {"token": text, "logprob": logprob})()]}
                    )(),
                },
            )()
        ]
        self.model = "m-1"


def test_streaming_generate_ends_when_exhausted_and_consumer_spans_are_not_children(
    content_spans: CapturedSpans, recwarn: pytest.WarningsRecorder, caplog: pytest.LogCaptureFixture
) -> None:
    tracer = trace.get_tracer("consumer")

    @ragfunnel.generate(model="m")
    def stream(question: str, context: list[str]) -> Any:
        yield _Chunk("Firmware ", -0.01)
        yield _Chunk("4.2", -2.0)
        yield _Chunk(" needs a reset.", -0.1)

    @ragfunnel.question
    def ask(question: str) -> str:
        out = []
        for chunk in stream(question, ["d1"]):
            with tracer.start_as_current_span("render chunk"):
                out.append(chunk.choices[0].delta.content)
        return "".join(out)

    with caplog.at_level(logging.ERROR):
        assert ask("q") == "Firmware 4.2 needs a reset."
    gen = content_spans.by_stage("generate")[0]
    root = content_spans.by_stage("question")[0]
    assert gen.attributes[c.ANSWER_TEXT] == "Firmware 4.2 needs a reset."
    assert gen.attributes[c.LOGPROBS_MIN] == -2.0
    assert gen.attributes[c.LOGPROBS_LOW_CONFIDENCE] == ("4.2",)
    renders = [s for s in content_spans if s.name == "render chunk"]
    assert len(renders) == 3
    for render in renders:
        assert render.parent.span_id == root.context.span_id  # not the generate span
    assert gen.end_time <= root.end_time
    assert not [r for r in caplog.records if "detach" in r.getMessage().lower()]
    assert not [w for w in recwarn.list if "detach" in str(w.message).lower()]


def test_streaming_generate_closed_early_records_partial_output(
    content_spans: CapturedSpans,
) -> None:
    @ragfunnel.generate
    def stream(question: str, context: list[str]) -> Any:
        yield "part one"
        yield " part two"
        yield " never read"

    gen = stream("q", [])
    assert next(gen) == "part one"
    assert next(gen) == " part two"
    gen.close()
    (span,) = content_spans.by_stage("generate")
    assert span.end_time is not None
    assert span.attributes[c.ANSWER_TEXT] == "part one part two"


def test_async_stream_error_keeps_partial_output(content_spans: CapturedSpans) -> None:
    @ragfunnel.generate
    async def stream(question: str, context: list[str]) -> Any:
        yield "half"
        raise AppError("model crashed")

    async def consume() -> list[str]:
        return [x async for x in stream("q", [])]

    with pytest.raises(AppError):
        asyncio.run(consume())
    (span,) = content_spans.by_stage("generate")
    assert span.status.status_code.name == "ERROR"
    assert span.attributes[c.ANSWER_TEXT] == "half"
    assert span.attributes["ragfunnel.stream.partial"] is True


def test_generator_send_and_return_value_pass_through(spans: CapturedSpans) -> None:
    @ragfunnel.retrieve
    def echo(query: str) -> Any:
        got = yield "first"
        yield f"got {got}"
        return "done"

    gen = echo("q")
    assert next(gen) == "first"
    assert gen.send("x") == "got x"
    with pytest.raises(StopIteration) as stop:
        next(gen)
    assert stop.value.value == "done"


SECRET = "sk-live-very-secret"


def _all_values(spans: CapturedSpans) -> str:
    return repr([dict(s.attributes) for s in spans])


def test_content_is_off_by_default(spans: CapturedSpans) -> None:
    @ragfunnel.generate
    def gen(question: str, context: list[dict[str, str]]) -> str:
        return "The answer text"

    @ragfunnel.retrieve
    def search(query: str) -> list[dict[str, str]]:
        return [{"id": "d1", "text": "chunk body text"}]

    @ragfunnel.question
    def ask(question: str) -> str:
        return gen(question, search(question))

    ask("The question text")
    dump = _all_values(spans)
    for text in ("The question text", "chunk body text", "The answer text"):
        assert text not in dump
    assert "d1" in dump  # ids are always kept


def test_content_capture_passes_the_redaction_hook() -> None:
    def hook(attribute: str, text: str) -> str | None:
        if attribute == c.QUERY:
            return None
        return text.replace("4.2.1", "[version]")

    @ragfunnel.retrieve
    def search(query: str) -> list[dict[str, str]]:
        return [{"id": "d1", "text": "fixed in 4.2.1"}]

    @ragfunnel.generate
    def gen(question: str, context: list[dict[str, str]]) -> str:
        return "upgrade to 4.2.1"

    with capture_spans(capture_content=True, redact=hook) as spans:
        gen("q", search("which 4.2.1"))
    (ret,) = spans.attributes("retrieve")
    assert c.QUERY not in ret
    (g,) = spans.attributes("generate")
    assert g[c.ANSWER_TEXT] == "upgrade to [version]"
    assert g[c.CONTEXT_TEXTS] == ("fixed in [version]",)


def test_secret_arguments_are_never_recorded(content_spans: CapturedSpans) -> None:
    with pytest.raises(TypeError, match="'api_key' looks like a credential"):

        @ragfunnel.question(text="api_key")
        def ask(question: str, api_key: str) -> str:
            return question

    with pytest.raises(TypeError, match="'token' looks like a credential"):

        @ragfunnel.retrieve(query="token")
        def search_by_token(token: str) -> list[str]:
            return ["d1"]

    @ragfunnel.question
    def ask(question: str, api_key: str) -> str:
        return question

    @ragfunnel.retrieve
    def search(token: str, password: str) -> list[str]:  # no query argument to discover
        return ["d1"]

    @ragfunnel.question
    def leak(api_key: str) -> str:  # no text argument: the first one would stand in, but not this
        return "ok"

    ask("what?", api_key=SECRET)
    search(SECRET, password=SECRET)
    leak(SECRET)
    assert SECRET not in _all_values(content_spans)
    assert c.question_hash(SECRET) not in _all_values(content_spans)


def test_fifty_documents_keep_every_id_and_score_in_order(spans: CapturedSpans) -> None:
    docs = [(f"chunk-{i:02d}", 1.0 - i / 64) for i in range(50)]

    @ragfunnel.retrieve(name="dense")
    def search(query: str, top_k: int = 50) -> list[tuple[str, float]]:
        return docs

    search("q")
    (attrs,) = spans.attributes("retrieve")
    assert list(attrs[c.DOCUMENTS_IDS]) == [d for d, _ in docs]
    assert list(attrs[c.DOCUMENTS_SCORES]) == [s for _, s in docs]
    assert len(attrs) < 20  # two arrays, never one attribute per document


def test_flattened_form_loses_top_ranked_documents() -> None:
    # Why the contract uses arrays: with the SDK's default limit of 128 attributes per span,
    # one-attribute-per-field flattening evicts the *oldest* — the top-ranked documents.
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with provider.get_tracer("t").start_as_current_span("flattened") as span:
            for i in range(50):
                span.set_attribute(f"retrieval.documents.{i}.document.id", f"chunk-{i}")
                span.set_attribute(f"retrieval.documents.{i}.document.score", 1.0)
                span.set_attribute(f"retrieval.documents.{i}.document.content", "x")
    (finished,) = exporter.get_finished_spans()
    assert "retrieval.documents.0.document.id" not in finished.attributes
    assert "retrieval.documents.49.document.id" in finished.attributes
