"""Helpers for testing code instrumented with ragfunnel: capture spans in memory.

from ragfunnel.testing import capture_spans

def test_my_pipeline():
    with capture_spans() as spans:
        answer("Which firmware needs a reset?")
    retrieve = spans.by_stage("retrieve")[0]
    assert retrieve.attributes["ragfunnel.documents.ids"][0] == "release-notes-4.2"
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ragfunnel.instrumentation import config
from ragfunnel.instrumentation.contract import STAGE
from ragfunnel.instrumentation.safety import Redactor

__all__ = ["CapturedSpans", "capture_spans"]


class CapturedSpans:
    """The finished spans of a :func:`capture_spans` block, with small lookup helpers."""

    def __init__(self, exporter: InMemorySpanExporter):
        self.exporter = exporter

    @property
    def spans(self) -> list[ReadableSpan]:
        """Every finished span, in the order they ended."""
        return list(self.exporter.get_finished_spans())

    def by_stage(self, stage: str) -> list[ReadableSpan]:
        """Finished spans whose ``ragfunnel.stage`` is ``stage``."""
        return [s for s in self.spans if (s.attributes or {}).get(STAGE) == stage]

    def attributes(self, stage: str) -> list[dict[str, Any]]:
        """The attributes of each span of ``stage``, as plain dicts."""
        return [dict(s.attributes or {}) for s in self.by_stage(stage)]

    def clear(self) -> None:
        """Forget the spans captured so far."""
        self.exporter.clear()

    def __len__(self) -> int:
        return len(self.spans)

    def __iter__(self) -> Iterator[ReadableSpan]:
        return iter(self.spans)


@contextmanager
def capture_spans(
    *,
    capture_content: bool = False,
    redact: Redactor | None = None,
    run_id: str | None = "test-run",
    pipeline: dict[str, Any] | None = None,
) -> Iterator[CapturedSpans]:
    """Send ragfunnel's spans to memory for the duration of the block, then restore the config.

    Spans are exported synchronously, so they are visible as soon as each one ends.
    """
    previous = config.current_state()
    exporter = InMemorySpanExporter()
    config.configure(
        exporter=exporter,
        capture_content=capture_content,
        redact=redact,
        run_id=run_id,
        pipeline=pipeline or {},
        enabled=True,
        batch=False,
    )
    try:
        yield CapturedSpans(exporter)
    finally:
        config.restore(previous)
