"""What earlier ingests read of each file, so that the next one reads only what is new.

The default workflow runs ``ragfunnel ingest`` after every run of the app, over a trace folder
that only grows: without a record, every ingest would read every old file again (adding nothing,
thanks to de-duplication, but at full cost). For each file the store keeps where reading stopped:
the byte offset after the last complete line, the line number there, a hash of the file's first
64 KiB, and how many spans it held in which time window.

- A file that has not changed since is passed over.
- A plain line file that grew (the app appended) is read from where the last ingest stopped; a
  line that was cut off then is read again whole.
- Anything else — another head, a shorter file, a compressed or pretty-printed file that changed —
  is read from the start.

The log lives in the store itself (table ``ragfunnel_ingest_log`` next to the traces:
``store/tables/ingest_log.py`` holds it and its statements), so it goes away with the store. As a safety net, a file is passed over only while the traces table
still holds at least as many spans in the file's time window as were read from it; when rows
were deleted, the file is read again (de-duplication keeps that safe). ``rescan`` ignores the
record altogether.
"""

from __future__ import annotations

import hashlib
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from ragfunnel.analyzer.store import StoreError
from ragfunnel.analyzer.store.tables import ingest_log, traces
from ragfunnel.analyzer.store.tables.ingest_log import FileRecord

if TYPE_CHECKING:
    from ragfunnel.analyzer.store import Store

__all__ = ["HEAD_BYTES", "FileRecord", "IngestLog", "ReadPlan", "head_hash"]


HEAD_BYTES = 64 << 10
"""How much of a file's start is hashed to tell the same file, grown, from another one."""


@dataclass(frozen=True)
class ReadPlan:
    """How to read a file this time: not at all, or from a byte offset and line number."""

    skip: bool = False
    offset: int = 0
    line: int = 0
    previous: FileRecord | None = None


def head_hash(path: Path, length: int) -> str:
    """SHA-256 of the first ``length`` bytes (at most :data:`HEAD_BYTES`) of ``path``."""
    with path.open("rb") as file:
        return hashlib.sha256(file.read(min(length, HEAD_BYTES))).hexdigest()


class IngestLog:
    """The ingest log of one store and traces table."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._host = socket.gethostname()
        self._table = ""
        self.error = ""
        """Why the log cannot be kept (a user without CREATE TABLE rights), if it cannot."""
        self._records: dict[str, FileRecord] = {}
        self._held: dict[tuple[int, int], int] | None = None
        try:
            self._table = ingest_log.ensure_ingest_log(store)
            self._records = ingest_log.latest_records(store, self._host)
        except StoreError as exc:
            self.error = str(exc)

    def plan(self, path: Path, stat: os.stat_result) -> ReadPlan:
        """How much of ``path`` to read, given what earlier ingests recorded."""
        if self.error:
            return ReadPlan()
        try:
            record = self._records.get(str(path.resolve()))
            if record is None or not self._still_stored(record):
                return ReadPlan()
        except StoreError as exc:
            self.error = str(exc)
            return ReadPlan()
        if record.head != head_hash(path, record.offset):
            return ReadPlan()
        if (stat.st_size, stat.st_mtime_ns) == (record.size, record.mtime_ns) and (
            not record.resumable or record.offset == record.size
        ):
            return ReadPlan(skip=True, previous=record)
        if record.resumable and stat.st_size > record.offset:
            # Grown since (or a cut-off last line to read again): go on from the last full line.
            return ReadPlan(offset=record.offset, line=record.line, previous=record)
        return ReadPlan()

    def record(self, path: Path, record: FileRecord) -> None:
        """Remember where reading ``path`` stopped (a failure only costs the next ingest time)."""
        self.record_many([(path, record)])

    def record_many(self, records: list[tuple[Path, FileRecord]]) -> None:
        """Remember where reading each file stopped, in one insert."""
        if self.error or not records:
            return
        try:
            self._insert(records)
        except StoreError as exc:
            self.error = str(exc)

    def _insert(self, records: list[tuple[Path, FileRecord]]) -> None:
        resolved = [(str(path.resolve()), record) for path, record in records]
        ingest_log.insert_records(self._store, self._host, resolved)

    def _still_stored(self, record: FileRecord) -> bool:
        if not record.spans:
            return True
        if self._held is None:
            self._held = self._count_held()
        return self._held.get((record.low, record.high), 0) >= record.spans

    def _count_held(self) -> dict[tuple[int, int], int]:
        """Spans the traces table holds in every recorded window: one query for all files.

        The start times within the windows' span come back sorted, and each window's count is
        two binary searches (polars), so a folder of 10,000 files costs one query, not 10,000.
        """
        import polars as pl

        windows = sorted({(r.low, r.high) for r in self._records.values() if r.spans})
        if not windows:
            return {}
        starts = traces.span_starts(
            self._store, min(low for low, _ in windows), max(high for _, high in windows)
        )
        series = cast("pl.Series", pl.from_arrow(starts)).cast(pl.Int64)
        lows = pl.Series([low for low, _ in windows], dtype=pl.Int64)
        highs = pl.Series([high for _, high in windows], dtype=pl.Int64)
        first = series.search_sorted(lows, side="left").to_list()
        after = series.search_sorted(highs, side="right").to_list()
        return {
            window: end - start for window, start, end in zip(windows, first, after, strict=True)
        }
