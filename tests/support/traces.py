"""A small builder of question traces for the funnel tests.

The builder writes spans with the plain OpenTelemetry SDK (no ragfunnel decorators), setting
the span-contract attributes itself, with a fixed clock so "the last attempt" is well defined.
Traces go into the store through the real ingest path (``ingest_spans``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Span, Status, StatusCode

from ragfunnel.analyzer.ingest import ingest_spans, spans_to_arrow
from ragfunnel.analyzer.store import Store
from ragfunnel.instrumentation import contract as c

START_NS = 1_700_000_000 * 10**9
STEP_NS = 1_000_000


def memory_tracing() -> tuple[TracerProvider, InMemorySpanExporter]:
    """A provider of its own whose finished spans stay in memory (for a foreign app's trace)."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


class QuestionTrace:
    """Stage spans under one question root."""

    def __init__(self, builder: TraceBuilder, root: Span, qid: str | None) -> None:
        self.builder = builder
        self.root = root
        self.qid = qid

    def _span(self, stage: c.Stage, name: str, attrs: dict[str, Any], error: str | None) -> None:
        attributes: dict[str, Any] = {c.STAGE: stage.value}
        if self.qid is not None:
            attributes[c.QUESTION_ID] = self.qid
        attributes.update({k: v for k, v in attrs.items() if v is not None})
        self.builder.child(self.root, f"{stage.value} {name}", attributes, error)

    def retrieve(
        self,
        ids: Sequence[str],
        *,
        scores: Sequence[float] | None = None,
        name: str = "dense",
        top_k: int | None = None,
        fused_from: Sequence[str] | None = None,
        error: str | None = None,
    ) -> None:
        self._span(
            c.Stage.RETRIEVE,
            name,
            {
                c.RETRIEVER_NAME: name,
                c.TOP_K: top_k,
                c.DOCUMENTS_IDS: None if error else list(ids),
                c.DOCUMENTS_SCORES: list(scores) if scores is not None else None,
                c.RETRIEVER_FUSED_FROM: list(fused_from) if fused_from else None,
            },
            error,
        )

    def rerank(
        self,
        ids: Sequence[str],
        *,
        input_ids: Sequence[str] | None = None,
        scores: Sequence[float] | None = None,
        top_n: int | None = None,
        error: str | None = None,
    ) -> None:
        self._span(
            c.Stage.RERANK,
            "cross-encoder",
            {
                c.INPUT_IDS: list(input_ids) if input_ids is not None else None,
                c.DOCUMENTS_IDS: None if error else list(ids),
                c.DOCUMENTS_SCORES: list(scores) if scores is not None else None,
                c.TOP_N: top_n,
            },
            error,
        )

    def cut(
        self,
        kept: Sequence[str],
        *,
        input_ids: Sequence[str] | None = None,
        k: int | None = None,
        threshold: float | None = None,
        token_budget: int | None = None,
        abstained: bool = False,
    ) -> None:
        self._span(
            c.Stage.CUT,
            "gate",
            {
                c.INPUT_IDS: list(input_ids) if input_ids is not None else None,
                c.DOCUMENTS_IDS: list(kept),
                c.CUT_K: k,
                c.CUT_THRESHOLD: threshold,
                c.CUT_TOKEN_BUDGET: token_budget,
                c.ANSWER_ABSTAINED: True if abstained else None,
            },
            None,
        )
        if abstained:
            self.root.set_attribute(c.ANSWER_ABSTAINED, True)

    def generate(
        self,
        context: Sequence[str] | None,
        answer: str | None = None,
        *,
        mode: str = "pipeline",
        sample_index: int | None = None,
        logprobs_min: float | None = None,
        low_confidence: Sequence[str] | None = None,
        error: str | None = None,
        texts: Sequence[str] | None = None,
    ) -> None:
        self._span(
            c.Stage.GENERATE,
            "gpt",
            {
                c.CONTEXT_IDS: list(context) if context is not None else None,
                c.CONTEXT_TEXTS: list(texts) if texts is not None else None,
                c.ANSWER_TEXT: answer,
                c.MODE: mode,
                c.SAMPLE_INDEX: sample_index,
                c.LOGPROBS_MIN: logprobs_min,
                c.LOGPROBS_LOW_CONFIDENCE: list(low_confidence) if low_confidence else None,
            },
            error,
        )

    def abstain(self) -> None:
        self.root.set_attribute(c.ANSWER_ABSTAINED, True)


class TraceBuilder:
    """Builds traces in memory with a fixed clock; ``into(store)`` ingests them."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider()
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.tracer = self.provider.get_tracer(c.INSTRUMENTATION_SCOPE)
        self.now = START_NS

    def tick(self) -> int:
        self.now += STEP_NS
        return self.now

    def child(self, parent: Span, name: str, attrs: dict[str, Any], error: str | None) -> None:
        ctx = trace.set_span_in_context(parent)
        span = self.tracer.start_span(name, context=ctx, attributes=attrs, start_time=self.tick())
        if error:
            span.set_status(Status(StatusCode.ERROR, error))
        span.end(end_time=self.tick())

    @contextmanager
    def question(
        self,
        qid: str | None,
        text: str = "",
        *,
        run: str = "run-1",
        index_version: str | None = None,
        root: bool = True,
    ) -> Iterator[QuestionTrace]:
        """A question trace; ``root=False`` leaves the question span out (an app span is the
        root instead), as when the exporter dropped it."""
        attrs: dict[str, Any] = {c.STAGE: c.Stage.QUESTION.value, c.RUN_ID: run}
        if qid is not None:
            attrs[c.QUESTION_ID] = qid
        if text:
            attrs[c.QUESTION_HASH] = c.question_hash(text)
        if index_version is not None:
            attrs[c.PIPELINE_PREFIX + "index_version"] = index_version
        if not root:
            attrs = {"http.route": "/ask"}
        span = self.tracer.start_span("question" if root else "POST /ask", attributes=attrs,
                                      start_time=self.tick())  # fmt: skip
        yield QuestionTrace(self, span, qid)
        span.end(end_time=self.tick())

    def ingest(
        self, document: str, chunks: Sequence[str], *, version: str = "v1", error: str | None = None
    ) -> None:
        span = self.tracer.start_span(
            f"ingest {document}",
            attributes={
                c.STAGE: c.Stage.INGEST.value,
                c.DOCUMENT_ID: document,
                c.CHUNKS_IDS: list(chunks),
                c.INDEX_VERSION: version,
            },
            start_time=self.tick(),
        )
        if error:
            span.set_status(Status(StatusCode.ERROR, error))
        span.end(end_time=self.tick())

    @property
    def spans(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())

    def into(self, store: Store) -> None:
        summary = ingest_spans(store, self.spans)
        assert not summary.skipped, summary
        self.exporter.clear()

    def into_new_store(self, path: Path) -> str:
        """Ingest the spans into a new embedded store at ``path``; returns its DSN."""
        dsn = f"chdb://{path}"
        with Store.open(dsn, create=True) as store:
            self.into(store)
        return dsn

    def as_collector_into(self, store: Store) -> None:
        """Insert the spans the way a collector does: no ingest, so no store preparation.

        ``ingest`` migrates an embedded store before it inserts; a collector writing into a
        server never does. Tests of the read-time path start from such a store.
        """
        store.insert_traces(spans_to_arrow(self.spans))
        self.exporter.clear()


def few_questions(b: TraceBuilder, n: int, first: int = 0) -> None:
    """``n`` questions ``q-first`` … of run-1, each with one retrieve span: two stage spans each."""
    for i in range(first, first + n):
        with b.question(f"q-{i}", f"question {i}") as q:
            q.retrieve([f"c{i}", "x"], top_k=2)


# ---------------------------------------------------------------------------------------------
# The typed view


def hashes(store: Store, ids: Sequence[str]) -> list[int]:
    """The 64-bit hashes the stage table keeps of ``ids`` (it keeps their text for ingest only)."""
    found = store.query_arrow(
        "SELECT arrayMap(x -> cityHash64(x), {ids:Array(String)}) AS h", {"ids": list(ids)}
    )
    return list(found.column("h")[0].as_py())
