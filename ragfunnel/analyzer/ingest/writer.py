"""De-duplication of chunks against the store, and their inserts on a background thread.

Idempotency: a span is its trace id and span id. Before each chunk is inserted, its trace ids
are looked up in the store (see :class:`Writer`), and the spans found are dropped — a copy with
another start time is reported as well; spans repeated within a chunk are dropped as they are
read (``rows``). Re-ingesting
a file therefore adds nothing, even into a table the collector created (a plain MergeTree,
which would keep duplicates forever). Two ingests running at the same moment on the same spans
may both insert them: run one at a time. This module never reads input files.

Crash safety: an insert and its stage view's insert commit separately, so a killed ingest can
leave a chunk in one table only. Where a chunk lies near stored rows, the writer first mends
the stage table there (``store.tables.stage_spans.repair.StageMender``): it deletes stage rows of the spans
it is about to insert, and parses into the stage table the stored spans it skips that the
stage table lacks. Running the ingest again therefore repairs what a kill left behind.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from ragfunnel.analyzer.ingest.inserted_traces import InsertedTraces
from ragfunnel.analyzer.ingest.result import IngestSummary, Skip
from ragfunnel.analyzer.ingest.rows import Chunk, span_keys
from ragfunnel.analyzer.store import StoreError
from ragfunnel.analyzer.store.arrow_values import integers
from ragfunnel.analyzer.store.connection import INSERT_STREAMS, MergeDeferral
from ragfunnel.analyzer.store.migrations import REVISIONS, migrate
from ragfunnel.analyzer.store.schema import stage_view_attached
from ragfunnel.analyzer.store.tables import stage_spans, traces
from ragfunnel.analyzer.store.tables.stage_spans import STAGE_TABLE
from ragfunnel.analyzer.store.tables.stage_spans.repair import StageMender

if TYPE_CHECKING:
    from ragfunnel.analyzer.store import Store

__all__ = ["Writer", "writing"]

_SECOND = 1_000_000_000
_MICROSECOND = 1_000
# SQL text of the trace ids one duplicate lookup binds (``_id_batches``): 16,000 32-digit ids.
_ID_BATCH_BYTES = 600_000


class Writer:
    """De-duplicates chunks against the store and inserts them, in order, on one background thread.

    The embedded engine and the HTTP client both release the GIL while they work, so the next
    chunk is read and converted while this one is written. At most one chunk waits.

    Every chunk's trace ids are looked up once the table holds anything (a query per 16,000 ids,
    which reads the table's ``TraceId`` column): a span already stored, whatever its start
    time, is not stored again. Into an embedded store that held nothing, only the ids of the
    traces this writer inserted are looked up (``inserted_traces``). The stage table is mended
    where a chunk lies within a second of the rows stored when the writer started.
    """

    def __init__(self, store: Store, summary: IngestSummary | None = None) -> None:
        self._store = store
        self._summary = summary
        self._mender: StageMender | None = None
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragfunnel-insert")
        self._pending: Future[None] | None = None
        self._stored: tuple[int, int] | None = None
        self._inserted: tuple[int, int] | None = None
        self._ranges_read = False
        self.inserted = 0
        self.duplicates = 0
        self.merges = MergeDeferral()
        """Told the parts each insert may write (``Store.merges_deferred``)."""
        self._own: InsertedTraces | None = None
        """The trace ids inserted, while the store held nothing else (``inserted_traces``)."""

    def submit(self, chunk: Chunk) -> None:
        """Queue ``chunk``; raises the store error of an earlier chunk, if any."""
        self.wait()
        self._pending = self._thread.submit(self._write, chunk)

    def wait(self) -> None:
        """Wait until every queued chunk is written."""
        if self._pending is not None:
            pending, self._pending = self._pending, None
            pending.result()

    def close(self) -> None:
        """Write what is queued, then stop the thread."""
        try:
            self.wait()
        finally:
            self._thread.shutdown(wait=True)

    def _write(self, chunk: Chunk) -> None:
        table = chunk.table
        if not self._ranges_read:
            if stage_view_attached(self._store):
                self._mender = StageMender(self._store, self.merges.resume)
            self._stored = self._stored_range()
            self._ranges_read = True
            # An embedded store is this process's alone: nothing else writes to it meanwhile.
            if self._stored is None and self._store.embedded:
                self._own = InsertedTraces()
        near = self._near(chunk) if self._mender is not None else None
        trace_ids: list[str] = pc.unique(chunk.table.column("TraceId")).to_pylist()
        stored = self._identities(trace_ids)
        known = list(stored)
        if known:
            table = chunk.without(known)
            self.duplicates += chunk.table.num_rows - table.num_rows
            self._report_conflicts(chunk, stored)
        if near is not None and self._mender is not None:
            self._mend(near, known)
        if table.num_rows:
            if self._own is not None:  # (traces of copies only are stored already: no harm)
                self._own.add(trace_ids)
            # On both cores: the engine's insert (sorting, compressing, the stage view's
            # parsing) is the ingest's critical path, and the next chunk's conversion takes a
            # fraction of a core beside it; the parts it writes (one per stream used) wait for
            # no merge until there are many (Store.merges_deferred).
            self.merges.wrote(self._store.insert_traces(table, streams=INSERT_STREAMS))
            low, high = self._inserted or (chunk.low, chunk.high)
            self._inserted = (min(low, chunk.low), max(high, chunk.high))
        self.inserted += table.num_rows

    def _stored_range(self) -> tuple[int, int] | None:
        # min/max of the partition column come from each part's min-max index, not the rows.
        # The stage table's range too: a killed insert may have left stage rows only.
        store = self._store
        found = [traces.time_range(store)] + (
            [stage_spans.time_range(store)] if self._mender else []
        )
        ranges = [found_range for found_range in found if found_range is not None]
        if not ranges:
            return None
        return min(low for low, _ in ranges), max(high for _, high in ranges)

    def _near(self, chunk: Chunk) -> _Near | None:
        """The chunk's spans that start where the stage table may need mending, if any."""
        # Spans read back from Jaeger lost their nanoseconds: widen by a second.
        covered = [
            (low - _SECOND, high + _SECOND)
            # Only near what was stored before this writer began: every chunk it inserted went
            # through the stage view in the same statement (a failed insert ends the ingest),
            # so nothing near its own rows can need mending (0.3-1.5 s a chunk otherwise).
            for low, high in filter(None, (self._stored,))
            if chunk.low <= high + _SECOND and chunk.high >= low - _SECOND
        ]
        if not covered:
            return None
        starts = pc.cast(chunk.table.column("Timestamp"), pa.int64())
        # The bounds as Arrow scalars: a Python int would make pyarrow import pandas.
        bounds = [integers(pair, pa.int64()) for pair in covered]
        near = functools.reduce(
            pc.or_,
            (pc.and_(pc.greater_equal(starts, lo), pc.less_equal(starts, hi)) for lo, hi in bounds),
        )
        if not pc.any(near).as_py():
            return None
        candidates = chunk.table.filter(near)
        low, high = pc.min_max(pc.cast(candidates.column("Timestamp"), pa.int64())).values()
        window = {
            "low": max(low.as_py() - _SECOND, 0),
            "high": high.as_py() + _SECOND,
            "ids": sorted(pc.unique(candidates.column("TraceId")).to_pylist()),
        }
        return _Near(candidates, window)

    def _identities(self, trace_ids: list[str]) -> dict[str, int]:
        """A chunk's spans already stored, by identity (trace and span id): their start times.

        ``trace_ids``: the chunk's trace ids, each once.

        A span is its trace id and span id, whatever its start time: a second copy with other
        content is not stored again (and is reported, :meth:`_report_conflicts`). Looked up by
        trace id over the whole table, as soon as the table holds anything; into a store that
        held nothing, only the trace ids this writer may have inserted.
        """
        if self._stored is None and self._inserted is None:
            return {}
        ids = self._own.maybe(trace_ids) if self._own is not None else trace_ids
        found: dict[str, int] = {}
        for batch in _id_batches(ids):
            found.update(traces.stored_starts(self._store, batch))
        return found

    def _report_conflicts(self, chunk: Chunk, stored: dict[str, int]) -> None:
        """Name the spans stored already with another start time (a copy with other content)."""
        if self._summary is None:
            return
        keys = span_keys(chunk.table).to_pylist()
        starts = pc.cast(chunk.table.column("Timestamp"), pa.int64()).to_pylist()
        # Within a microsecond is the same span: Jaeger keeps microseconds only.
        conflicts = [
            key
            for key, start in zip(keys, starts, strict=True)
            if key in stored and abs(stored[key] - start) >= _MICROSECOND
        ]
        if conflicts:
            first = conflicts[0]
            self._summary.skipped.append(
                Skip(
                    chunk.source,
                    0,
                    f"{len(conflicts):,} span(s) already stored with another start time (the "
                    "same trace and span id, other content): this copy not stored — e.g. span "
                    f"{first[32:]} of trace {first[:32]}",
                )
            )

    def _mend(self, near: _Near, known: list[str]) -> None:
        """Repair the stage table where the chunk lies (``store/tables/stage_spans/repair.py``)."""
        assert self._mender is not None
        candidates = near.candidates
        traces: list[str] = candidates.column("TraceId").to_pylist()
        keys = span_keys(candidates).to_pylist()
        stored = set(known)
        new_by_trace: dict[str, list[str]] = {}
        known_traces: set[str] = set()
        for trace, key in zip(traces, keys, strict=True):
            if key in stored:
                known_traces.add(trace)
            else:
                new_by_trace.setdefault(trace, []).append(key)
        try:
            # The window's trace ids in batches, as the identity lookup's: bound into the
            # statement's text, a whole chunk's ids made a rescan of a million stored spans
            # take minutes (bench/RESULTS.md, "Whole commands").
            for ids in _id_batches(near.window["ids"]):
                window = {**near.window, "ids": ids}
                new = [key for trace in ids for key in new_by_trace.get(trace, ())]
                for new_keys in _id_batches(new):
                    self._mender.drop_strays(window, new_keys)
                if not known_traces.isdisjoint(ids):
                    self._mender.restore(window)
        except StoreError as exc:
            # A user who may insert spans but not repair the stage table: say so, go on.
            self._mender = None
            if self._summary is not None:
                self._summary.notes.append(
                    Skip(self._store.dsn_redacted, 0, f"stage table not repaired: {exc}")
                )


def _id_batches(ids: list[str]) -> Iterator[list[str]]:
    """``ids`` in lists of at most :data:`_ID_BATCH_BYTES` of SQL text each.

    The ids are bound into the statement's text. The embedded engine took 0.3 s for 20,000
    trace ids but minutes once the list passed about a megabyte (30,000 ids: 260 s, 40,000: 180 s
    under load; bench/RESULTS.md, "Whole commands"), so a chunk's ids go in several queries.
    """
    batch: list[str] = []
    size = 0
    for value in ids:
        if batch and size + len(value) + 3 > _ID_BATCH_BYTES:
            yield batch
            batch, size = [], 0
        batch.append(value)
        size += len(value) + 3  # quotes and a comma
    if batch:
        yield batch


class _Near:
    """The spans of a chunk near stored rows, and the window and trace ids they lie in."""

    __slots__ = ("candidates", "window")

    def __init__(self, candidates: pa.Table, window: dict[str, Any]) -> None:
        self.candidates = candidates
        self.window = window


@contextmanager
def writing(store: Store, summary: IngestSummary) -> Iterator[Writer]:
    """A :class:`Writer` for one ingest; its counts are added to ``summary`` at the end.

    An embedded store is the user's own, so its stage table is created first (``migrate``'s
    first revision): its stage view then parses the spans as they arrive, and the first
    analysis finds the stage table current instead of backfilling it from every stored span
    (docs/store.md). A server's store is
    never prepared by an ingest: that is ``ragfunnel store migrate``'s job. The engine's merges
    wait while the store is small in parts (``Store.merges_deferred``), and an ingest that
    inserted anything ends when the merges it let run have left a few parts (``Store.settle``).
    """
    if store.embedded and not store.read_only:
        # The stage spans' revision only: the judges' tables wait for the first verdict.
        migrate(store, revisions=[r for r in REVISIONS if r.marker == STAGE_TABLE])
    # Reading allocates millions of short-lived objects and builds no reference cycles: the
    # cyclic garbage collector would only rescan the growing chunk (about 10% of the time).
    collecting = gc.isenabled()
    gc.disable()
    writer = Writer(store, summary)
    with store.merges_deferred() as writer.merges:
        try:
            yield writer
        finally:
            if collecting:
                gc.enable()
            writer.close()
            summary.inserted += writer.inserted
            summary.duplicates += writer.duplicates
    # Leave the store in a few parts, which the next process (an analysis) reads without
    # merging them (Store.settle; only the embedded engine's own merges are waited for), unless
    # merges were deferred throughout: then the parts are few enough to read as they are.
    if writer.inserted and writer.merges.merging:
        store.settle()
