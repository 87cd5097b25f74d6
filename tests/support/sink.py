"""A reader's sink that keeps what it is given: span ids, problems and notes, with their places."""

from __future__ import annotations

from ragfunnel.analyzer.ingest.otlp_structs import ResourceSpans

__all__ = ["Collected"]


class Collected:
    """Stands in for the loader (``ingest.otlp.Sink``): keeps what a reader delivers."""

    def __init__(self) -> None:
        self.span_ids: list[str] = []
        self.skipped: list[tuple[str, int, str]] = []
        self.notes: list[tuple[str, int, str]] = []

    def take_line(self, line: bytes, source: str, number: int) -> bool:
        return False  # have every line decoded and added

    def add(self, resource_spans: list[ResourceSpans], source: str, line: int) -> None:
        self.span_ids += [
            s.spanId for rs in resource_spans for ss in rs.scopeSpans for s in ss.spans
        ]

    def skip(self, source: str, line: int, reason: str) -> None:
        self.skipped.append((source, line, reason))

    def note(self, source: str, line: int, reason: str) -> None:
        self.notes.append((source, line, reason))
