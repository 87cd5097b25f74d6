"""The golden spans: one small trace (plus a second one) that exercises every row rule.

Built with the plain OpenTelemetry SDK, fixed ids and fixed nanosecond times, so that the
Jaeger fixtures next to this file (made from these very spans by a real Jaeger, see
``regenerate_jaeger.py``) and the tests build exactly the same spans.
"""

from __future__ import annotations

from collections.abc import Iterator

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.trace import Link, SpanKind, Status, StatusCode, set_span_in_context

T0 = 1_700_000_000_123_456_789  # ns; the sub-microsecond part (789) is what Jaeger UI loses
# The second trace id has a zero high half: Jaeger prints such ids with 16 digits.
TRACE_IDS = [0x0AF7651916CD43DD8448EB211C80319C, 0x00000000000000004BF92F3577B34DA6]


class _FixedIds(IdGenerator):
    def __init__(self) -> None:
        self._traces: Iterator[int] = iter(TRACE_IDS)
        self._spans: Iterator[int] = iter(range(0xB7AD6B7169203331, 0xB7AD6B7169203331 + 100))

    def generate_trace_id(self) -> int:
        return next(self._traces)

    def generate_span_id(self) -> int:
        return next(self._spans)


def make_spans() -> list[ReadableSpan]:
    """The golden spans, finished, in the order they ended."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(
        resource=Resource(
            {"service.name": "golden-rag", "deployment.environment": "test", "host.cpus": 2}
        ),
        id_generator=_FixedIds(),
    )
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("ragfunnel", "0.1.0")
    other = provider.get_tracer("other.lib")

    root = tracer.start_span(
        "question q-1",
        kind=SpanKind.SERVER,
        start_time=T0,
        attributes={
            "ragfunnel.stage": "question",
            "ragfunnel.question.id": "q-1",
            "ragfunnel.answer.abstained": False,
            "ragfunnel.pipeline.k": 10,
            "big.int": 2**60,
            "ratio": 2.0,
            "huge": 1e21,
        },
    )
    parent = set_span_in_context(root)
    retrieve = tracer.start_span(
        "retrieve bm25",
        context=parent,
        start_time=T0 + 1_001_001,
        links=[Link(root.get_span_context())],
        attributes={
            "ragfunnel.stage": "retrieve",
            "ragfunnel.documents.ids": [
                "doc-1#c0",
                "é-doc",
                'quote"d',
                "</script>&",
                "line\u2028sep",
                "tab\tx",
            ],
            "ragfunnel.documents.scores": [0.9, 0.5, 2.0, 1e-7, 1e21, 123456789.125],
            "ragfunnel.top_k": 6,
            "flags": [True, False],
            "ranks": [1, -2],
        },
    )
    retrieve.add_event("retrieved", {"count": 6, "tiny": 0.000015}, timestamp=T0 + 2_000_999)
    retrieve.end(end_time=T0 + 5_555_555)
    generate = tracer.start_span(
        "generate gpt-4o-mini",
        context=parent,
        kind=SpanKind.CLIENT,
        start_time=T0 + 6_000_001,
        attributes={
            "ragfunnel.stage": "generate",
            "gen_ai.usage.input_tokens": 1234,
            "ragfunnel.logprobs.min": -2.5,
        },
    )
    generate.add_event(
        "exception",
        {"exception.type": "TimeoutError", "exception.message": "model took too long"},
        timestamp=T0 + 9_000_000,
    )
    generate.set_status(Status(StatusCode.ERROR, "boom"))
    generate.end(end_time=T0 + 9_876_543)
    root.set_status(Status(StatusCode.OK))
    root.end(end_time=T0 + 10_000_001)

    lone = other.start_span("enqueue", kind=SpanKind.PRODUCER, start_time=T0 + 20_000_000)
    lone.end(end_time=T0 + 20_000_500)
    return list(exporter.get_finished_spans())
