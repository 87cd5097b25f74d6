"""Native OTLP JSON to Arrow conversion for ragfunnel's ingest, and plain cases files read fast."""

from typing import Any

__version__: str

class Converter:
    """Accumulates OTLP JSON lines as ``otel_traces`` columns for one chunk."""

    def __init__(self, max_value_chars: int) -> None: ...
    def add_line(self, line: bytes, /) -> tuple[int, int, int]:
        """``(0, added, duplicates)``; ``(1, 0, 0)`` declined; ``(2, 0, 0)`` chunk full."""
    def __len__(self) -> int: ...
    @property
    def nbytes(self) -> int: ...
    @property
    def low(self) -> int: ...
    @property
    def high(self) -> int: ...
    def seen_get(self, key: str, /) -> int | None:
        """The start time (ns) of span ``TraceId + SpanId`` in this chunk, or None."""
    def seen_add(self, key: str, start: int, /) -> None: ...
    def seen_clear(self) -> None: ...
    def finish(self) -> dict[str, Any]: ...

def plain_cases(block: bytes, /) -> tuple[Any, ...] | None:
    """A block of plain JSON Lines cases as Arrow buffers, or None (see ``cases.rs``)."""
