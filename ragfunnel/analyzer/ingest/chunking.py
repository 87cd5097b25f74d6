"""Chunking: lines and decoded spans from the readers become chunks for the :class:`~.writer.Writer`.

Lines go to the native converter first when there is one (:mod:`.native`); what it declines
is decoded and added by the Python :class:`~.rows.RowBuilder`. This module never talks to the
store itself: a chunk is handed to the writer, or kept for the caller.
"""

from __future__ import annotations

from collections.abc import Callable

import pyarrow as pa

from ragfunnel.analyzer.ingest import native as native_converter
from ragfunnel.analyzer.ingest.otlp_structs import ResourceSpans
from ragfunnel.analyzer.ingest.result import IngestSummary, Skip
from ragfunnel.analyzer.ingest.rows import Chunk, RowBuilder
from ragfunnel.analyzer.ingest.writer import Writer

__all__ = ["CHUNK_BYTES", "CHUNK_SPANS", "Loader"]

CHUNK_SPANS = 50_000
"""Spans per insert: large enough for columnar speed and few parts to merge, small enough to
bound memory. The chunk being converted, the one being written and the engine's buffers for it
are in memory together: at 200,000 spans of 1.7 KB an ingest of a million peaked at 2.4 GB,
at 50,000 half of that, at no measurable cost in time (bench/RESULTS.md, "Whole commands")."""

CHUNK_BYTES = 32 << 20
"""A chunk of large spans ends sooner, at about this many bytes of native column data.

The engine holds about ten times a chunk's column bytes while it inserts it (the Arrow file
read, the sort, the stage view's parsing), beside the next chunk being converted. At 64 MiB an
ingest of 1.7 KB spans (50,000 of them are 41 MiB) peaked at 978–1,064 MiB, and one of a
million spans that record their prompts (6.3 KB) at 1,302 MiB; at 32 MiB 884–961 MiB and 879
MiB. The smaller chunks took about 3 % more time at a million 1.7 KB spans and 12 % more at
five million: every insert also pays for planning the stage view's SELECT, whatever its size
(~60 ms then; ~35 ms since the SELECT names its rule number from a level of its own;
bench/RESULTS.md, "Issue 35, twelfth session" and "sixteenth session")."""


class Loader:
    """Takes lines and decoded spans from the readers, and gives a :class:`Writer` chunks.

    Lines go to the native converter first when there is one (:mod:`.native`); what it
    declines is decoded and added by the Python :class:`RowBuilder`. Both add to the same
    chunk and share its de-duplication keys.
    """

    def __init__(
        self,
        writer: Writer | None,
        summary: IngestSummary,
        *,
        chunk_spans: int | None = None,
        on_chunk: Callable[[], None] | None = None,
    ) -> None:
        self._writer = writer
        self.summary = summary
        self._chunk_spans = chunk_spans or CHUNK_SPANS
        # Nothing is written until the first chunk is converted: a smaller first chunk (then
        # twice as large, up to chunk_spans) sets the writer going sooner.
        self._limit = max(self._chunk_spans // 4, 1)
        self._on_chunk = on_chunk
        self._where = ("", 0)
        self.native = native_converter.converter()
        seen = native_converter.SharedSeen(self.native) if self.native is not None else None
        self.builder = RowBuilder(note=self._builder_note, seen=seen)
        self.low = 0
        self.high = 0
        self._file = (0, 0)
        self.sources: list[str] = []

    def __len__(self) -> int:
        return len(self.builder) + (len(self.native) if self.native is not None else 0)

    def mark(self) -> None:
        """Start a new file: :meth:`file_window` covers what is read from here on."""
        self._file = (0, 0)

    def file_window(self) -> tuple[int, int]:
        """The range of start times read since :meth:`mark` (at least; 0s for none).

        The spans still gathered for the current chunk count whole, from every file in it: a
        wider window, which is all the ingest log's safety check needs.
        """
        windows = [self._file]
        if self.native is not None and len(self.native):
            windows.append((self.native.low, self.native.high))
        if len(self.builder):
            windows.append((self.builder.low, self.builder.high))
        lows = [low for low, _ in windows if low]
        return min(lows, default=0), max(high for _, high in windows)

    def take_line(self, line: bytes, source: str, number: int) -> bool:
        """Convert a whole line natively; False to have it decoded and :meth:`add`-ed instead."""
        native = self.native
        if native is None:
            return False
        self._note_source(source)
        status, added, duplicates = native.add_line(line)
        if status == 2 and self._writer is not None:  # the chunk is full: write it, then retry
            self.flush()
            status, added, duplicates = native.add_line(line)
        if status:
            return False
        self.summary.read += added + duplicates
        self.summary.duplicates += duplicates
        if len(self) >= self._limit or native.nbytes >= CHUNK_BYTES:
            self.flush()
        return True

    def _note_source(self, source: str) -> None:
        if not self.sources or self.sources[-1] != source:
            self.sources.append(source)

    def _builder_note(self, message: str) -> None:
        self.summary.notes.append(Skip(self._where[0], self._where[1], message))

    def add(self, resource_spans: list[ResourceSpans], source: str, line: int) -> None:
        """Take the spans of one document (one line, usually)."""
        self._where = (source, line)
        self._note_source(source)
        before_duplicates = self.builder.duplicates
        before_rows = len(self.builder)
        self.builder.add_resource_spans(
            resource_spans, lambda message: self.skip(source, line, message)
        )
        added = len(self.builder) - before_rows
        self.summary.read += added + self.builder.duplicates - before_duplicates
        self.summary.duplicates += self.builder.duplicates - before_duplicates
        if self.builder.conflicts:
            self._report_conflicts(source, line)
        if len(self) >= self._limit:
            self.flush()

    def _report_conflicts(self, source: str, line: int) -> None:
        """Name the spans of this document read earlier in the chunk with another start time.

        (The native converter declines such a line, so every conflict is found here. Copies in
        different chunks are found by the writer's lookup of stored spans.)
        """
        conflicts = self.builder.conflicts
        first = conflicts[0]
        self.skip(
            source,
            line,
            f"{len(conflicts):,} span(s) already read in this ingest with another start time "
            "(the same trace and span id, other content): this copy not stored — e.g. span "
            f"{first[32:]} of trace {first[:32]}",
        )
        conflicts.clear()

    def skip(self, source: str, line: int, reason: str) -> None:
        """Record something that could not be read."""
        self.summary.skipped.append(Skip(source, line, reason))

    def note(self, source: str, line: int, reason: str) -> None:
        """Record a repair that kept the data."""
        self.summary.notes.append(Skip(source, line, reason))

    def flush(self) -> None:
        """Hand the spans gathered so far to the writer."""
        if len(self) and self._writer is not None:
            chunk = self.chunk()
            self._limit = min(self._limit * 2, self._chunk_spans)
            chunk.source = _names(self.sources)
            self.sources = []
            self.low = min(self.low or chunk.low, chunk.low)
            self.high = max(self.high, chunk.high)
            low, high = self._file
            self._file = (min(low or chunk.low, chunk.low), max(high, chunk.high))
            self._writer.submit(chunk)
            if self._on_chunk:
                self._on_chunk()

    def chunk(self) -> Chunk:
        """The spans gathered so far, from both converters, as one chunk; both are cleared."""
        parts: list[Chunk] = []
        native = self.native
        if native is not None:
            low, high = native.low, native.high
            table = native_converter.table_from_parts(native.finish())
            if table.num_rows:
                parts.append(Chunk(table, low, high))
        if len(self.builder) or not parts:
            parts.append(self.builder.chunk())
        else:
            self.builder.clear()
        if len(parts) == 1:
            return parts[0]
        return Chunk(
            # One dictionary per column: an Arrow IPC file cannot change it between batches.
            pa.concat_tables([part.table for part in parts]).unify_dictionaries(),
            min(part.low for part in parts),
            max(part.high for part in parts),
        )


def _names(sources: list[str]) -> str:
    """The files of a chunk, for messages: up to three, then how many more."""
    unique = list(dict.fromkeys(sources))
    if len(unique) <= 3:
        return ", ".join(unique)
    return f"{', '.join(unique[:3])} and {len(unique) - 3:,} more"
