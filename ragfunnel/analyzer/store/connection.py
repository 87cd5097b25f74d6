"""An open store: one clickhouse-connect client on ``otel_traces``, embedded (chdb) or on a server.

One client library, one SQL dialect and one schema — the OpenTelemetry Collector
clickhouseexporter's ``otel_traces`` (v0.165, :mod:`.traces_table`) — whether spans come from a
laptop's trace files or a production collector. DSNs are parsed in :mod:`.dsn`.

chdb runs one engine per process, bound to one data path (:mod:`.clients`): stores on the
*same* path may be open together, and several databases live side by side under one path, so
tests that need isolated stores either close each store before opening the next or share one
path with a database each.

This module must never put a user value into SQL text (values go as bound parameters;
identifiers are validated and quoted) and never let a password reach a message. It runs
statements; it writes none of its own against a table: ``otel_traces`` is checked and created by
:mod:`.tables.traces`, every object the analyzer owns by :mod:`.migrations`.
"""

from __future__ import annotations

import contextlib
import re
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import TYPE_CHECKING, Any, cast

from ragfunnel.analyzer.store.clients import (
    CLIENT_ERRORS,
    open_embedded,
    open_server,
    release_engine,
)
from ragfunnel.analyzer.store.dsn import (
    Target,
    check_identifier,
    chosen_dsn,
    parse_dsn,
    quote,
)
from ragfunnel.analyzer.store.store_error import StoreError
from ragfunnel.analyzer.store.tables import traces

if TYPE_CHECKING:
    import polars
    import pyarrow

__all__ = ["Store"]


_TMP = tempfile.gettempdir()
_TMP_IS_GLOB = bool(re.search(r"[*?{}\[\]]", _TMP))  # file() would read it as a glob: not used

_CLIENT_ERRORS = CLIENT_ERRORS

INSERT_STREAMS = 2
"""At most this many parallel streams in an embedded insert into ``otel_traces`` (the two cores
ragfunnel is measured on). Each stream writes its own part, which the engine merges later."""
_MIN_STREAM_ROWS = 10_000  # fewer rows than this per stream: not worth another part

SETTLED_PARTS = 8
"""Active parts per partition that an ingest leaves to later merges (:meth:`Store.settle`)."""
DEFERRED_PARTS = 384
"""Active parts per partition up to which an ingest defers merges (:meth:`Store.merges_deferred`).

Five million spans of 1.7 KB write about 260 parts per table (chunks of 32 MiB, two streams):
their ingest, and the first analysis over its parts, merge nothing (bench/RESULTS.md, "Issue
35, twelfth session")."""


class MergeDeferral:
    """An ingest's deferred merges (:meth:`Store.merges_deferred`): told the parts it writes."""

    def __init__(self, resume: Callable[[], None] | None = None, parts: int = 0) -> None:
        self._resume = resume
        self._parts = parts

    def wrote(self, parts: int) -> None:
        """Count ``parts`` more parts; past :data:`DEFERRED_PARTS`, merges resume."""
        self._parts += parts
        if self._parts >= DEFERRED_PARTS:
            self.resume()

    @property
    def merging(self) -> bool:
        """Whether the engine may have merged within the block (not deferred, or resumed)."""
        return self._resume is None

    def resume(self) -> None:
        """Let the engine merge again, for the rest of the block (once; again does nothing)."""
        if self._resume is not None:
            resume, self._resume = self._resume, None
            resume()


class Store:
    """An open ``otel_traces`` store; create one with :meth:`Store.open`.

    Attributes:
        dsn_redacted: the DSN without its password, for messages.
        client: the clickhouse-connect client (embedded ``ChdbClient`` or HTTP client).
        database: the database holding the traces table.
        table: the traces table's name.
        traces_table: the quoted qualified table name, e.g. ```otel`.`otel_traces```.
        read_only: the session may only read (see :meth:`open`).
    """

    dsn_redacted: str
    client: Any
    database: str
    table: str
    traces_table: str
    read_only: bool

    def __init__(
        self, target: Target, client: Any, database: str, table: str, *, read_only: bool = False
    ) -> None:
        self._target = target
        self.read_only = read_only
        self._closed = False
        # One statement at a time: an analysis runs its next query on a worker thread while it
        # builds records, and the ingest writes on one; a client serves one call at a time.
        self._lock = threading.RLock()
        self._merge_pauses: dict[str, int] = {}  # blocks pausing merges, by table ("": all)
        self._held = contextlib.ExitStack()  # what the store holds until it closes
        self.client = client
        self.dsn_redacted = target.redacted
        self.database = database
        self.table = table
        self.traces_table = quote(database, table)

    @classmethod
    def open(
        cls,
        dsn: str | None = None,
        *,
        database: str = "otel",
        table: str = "otel_traces",
        create: bool = False,
        read_only: bool = False,
    ) -> Store:
        """Open the store at ``dsn`` (else ``$RAGFUNNEL_STORE``, else :data:`DEFAULT_DSN`).

        Opening never creates a store unless asked: without ``create`` a missing embedded store,
        database or traces table is a :class:`StoreError` that says to ingest first, so a
        mistyped path is an error, never a new empty store that analysis reads as no data.
        With ``create`` (what ingest does) the database and the exporter's tables are created
        when missing; an existing table is checked column by column and never recreated. A database named in an
        HTTP DSN's path takes precedence over ``database``.

        With ``read_only`` nothing is created and the session runs with ClickHouse's
        ``readonly = 2``: the engine itself refuses every write to a database (INSERT, CREATE,
        ALTER, DROP), while the session's own temporary tables, which the analysis keeps its
        case data in, still work (docs/deployment.md).

        Raises:
            StoreError: bad DSN, unreachable server, failed login, no store or traces table
                (without ``create``), or a table whose columns differ from the exporter's
                ``otel_traces``.
        """
        target = parse_dsn(chosen_dsn(dsn))
        database = check_identifier("database", target.database or database)
        table = check_identifier("table", table)
        create = create and not read_only
        settings = {"readonly": 2} if read_only else {}
        client = (
            open_embedded(target, create=create, settings=settings)
            if target.embedded
            else open_server(target, settings=settings)
        )
        store = cls(target, client, database, table, read_only=read_only)
        try:
            traces.prepare_traces(store, create=create)
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def open_for_analysis(
        cls,
        dsn: str | None = None,
        *,
        database: str = "otel",
        table: str = "otel_traces",
        read_only: bool | None = None,
    ) -> Store:
        """Open a store to analyze: never created, and read-only unless it is embedded.

        A server store is opened read-only (:meth:`open`): an analysis must not write to a
        production cluster. The embedded store is the user's own and stays writable unless
        ``read_only`` is true, so that its first analysis may prepare the stage table; until
        it is closed, the engine merges nothing in the background (:meth:`merges_paused`).

        Raises:
            StoreError: as :meth:`open`.
        """
        if read_only is None:
            read_only = not parse_dsn(chosen_dsn(dsn)).embedded
        store = cls.open(dsn, database=database, table=table, create=False, read_only=read_only)
        # From the start: the parts a recent ingest left would otherwise be merged alongside
        # the cases file's loading (:meth:`merges_paused`).
        store._held.enter_context(store.merges_paused())
        return store

    @property
    def embedded(self) -> bool:
        """Whether this is the embedded engine (chdb), which the user owns, not a server."""
        return self._target.embedded

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        mode = ", read_only=True" if self.read_only else ""
        return f"Store({self.dsn_redacted!r}, table={self.traces_table}{mode})"

    def close(self) -> None:
        """Close the client; for an embedded store, release the engine when no store uses it."""
        if self._closed:
            return
        try:
            self._held.close()
        finally:
            self._closed = True
        try:
            self.client.close()
        finally:
            if self._target.embedded:
                release_engine(self._target.path)

    def query_arrow(self, sql: str, parameters: dict[str, Any] | None = None) -> pyarrow.Table:
        """Run ``sql``; values are bound from ``parameters`` and written ``{name:Type}`` in the SQL."""
        try:
            with self._lock:
                return self.client.query_arrow(sql, parameters=parameters, use_strings=True)
        except _CLIENT_ERRORS as exc:
            raise self._error("query failed", exc) from None

    def query_df(self, sql: str, parameters: dict[str, Any] | None = None) -> polars.DataFrame:
        """Run ``sql`` and return a polars DataFrame (strings as ``pl.String``)."""
        import polars

        return cast("polars.DataFrame", polars.from_arrow(self.query_arrow(sql, parameters)))

    def command(self, sql: str, parameters: dict[str, Any] | None = None) -> object:
        """Run a statement that returns at most a single value."""
        try:
            with self._lock:
                return self.client.command(sql, parameters=parameters)
        except _CLIENT_ERRORS as exc:
            raise self._error("command failed", exc) from None

    def release_memory(self) -> None:
        """Give the memory the embedded engine has freed back to the operating system.

        The engine's allocator keeps the pages of finished queries for reuse, which no other
        allocator in the process (polars', Arrow's, Python's) can use: after the big
        aggregations of an analysis that was over 400 megabytes. ``SYSTEM JEMALLOC PURGE``
        returns them in milliseconds. Only for a writable embedded store: a server's memory is
        not this process's, and a read-only session may not run SYSTEM statements.
        """
        if not self.embedded or self.read_only:
            return
        with self._lock, contextlib.suppress(*_CLIENT_ERRORS):  # an engine without jemalloc
            self.client.command("SYSTEM JEMALLOC PURGE")

    def settle(self, *, timeout: float = 600.0) -> None:
        """Wait until the embedded engine's merges leave few parts to read.

        An insert leaves parts the engine merges in the background, and the merges of a process
        end with it. Ingest calls this last: it waits while a merge runs and some partition of
        the database still has more than :data:`SETTLED_PARTS` active parts, so stores stay at
        a few parts per partition however many ingests fill them, and a small ingest does not
        wait for merges that would save its reader nothing (bench/RESULTS.md, "Ingest").
        Nothing happens for a server, whose merges are the server's business.
        """
        if not self.embedded or self.read_only:
            return
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            merges, parts = self._merges_and_parts()
            if not merges or parts <= SETTLED_PARTS:
                return
            time.sleep(0.2)

    def _merges_and_parts(self) -> tuple[int, int]:
        """Merges running in the database, and the most active parts of one partition."""
        found = self.query_arrow(
            "SELECT (SELECT count() FROM system.merges WHERE database = {db:String}) AS merges, "
            "(SELECT max(n) FROM (SELECT count() AS n FROM system.parts WHERE active AND "
            "database = {db:String} GROUP BY table, partition)) AS parts",
            {"db": self.database},
        ).to_pylist()[0]
        return found["merges"] or 0, found["parts"] or 0

    @contextlib.contextmanager
    def merges_deferred(self) -> Iterator[MergeDeferral]:
        """Within the block, the embedded engine merges nothing while the store is small in parts.

        Yields a :class:`MergeDeferral` to tell the parts each insert wrote. Merges stay paused
        until a partition may hold :data:`DEFERRED_PARTS` parts (the most found at the start
        plus every part written since), or until asked to resume (a mutation, such as the stage
        table's repair, runs on the merge pool), then run for the rest of the block; a store
        already that fragmented merges throughout. The engine merged a few small parts as soon
        as they appeared, over and over: at a million spans a quarter of an ingest's CPU, for a
        first analysis no faster (bench/RESULTS.md, "Issue 35"). Nothing happens for a server
        or a read-only store.
        """
        if not self.embedded or self.read_only:
            yield MergeDeferral()
            return
        start = self._merges_and_parts()[1]
        if start >= DEFERRED_PARTS:
            yield MergeDeferral()
            return
        with contextlib.ExitStack() as paused:
            paused.enter_context(self.merges_paused())
            yield MergeDeferral(paused.close, start)

    @contextlib.contextmanager
    def merges_paused(self, *tables: str) -> Iterator[None]:
        """Within the block, the embedded engine merges nothing (an analysis), or not ``tables``.

        ``tables`` are tables of :attr:`database`: a judge run writes verdicts, whose parts must
        still merge, and only reads the spans.

        A merge still running when the process ends is lost, and until then it takes a core and
        a few hundred megabytes from the analysis; ingest merges instead (:meth:`settle`).
        After a large ingest the merges of its parts took a judge run from 1.0 to 2.2 GiB
        (bench/RESULTS.md, "Issue 35, tenth session"). Blocks may nest, of all tables and of
        some. Nothing happens for a server or a read-only store (a session that sends no
        ``SYSTEM`` statement).
        """
        if not self.embedded or self.read_only:
            yield
            return
        targets = [quote(self.database, check_identifier("table", t)) for t in tables] or [""]
        with self._lock:
            for target in targets:
                self._merge_pauses[target] = self._merge_pauses.get(target, 0) + 1
                if self._merge_pauses[target] == 1 and (
                    not target or not self._merge_pauses.get("")
                ):
                    self._merges("STOP", target)
        try:
            yield
        finally:
            with self._lock:
                for target in targets:
                    self._merge_pauses[target] -= 1
                    if self._merge_pauses[target] or self._closed:
                        continue
                    if target:  # a table's pause ends: it merges unless all merges are paused
                        if not self._merge_pauses.get(""):
                            self._merges("START", target)
                        continue
                    # All merges resume, then the tables still paused by their own block stop
                    # again (starting all merges starts every table's).
                    self._merges("START", "")
                    for table, held in self._merge_pauses.items():
                        if table and held:
                            self._merges("STOP", table)

    def _merges(self, action: str, table: str) -> None:
        """``SYSTEM STOP MERGES`` or ``START``, of one table or (``""``) of all."""
        with contextlib.suppress(*_CLIENT_ERRORS):  # merges are an optimisation
            self.client.command(f"SYSTEM {action} MERGES {table}".rstrip())

    def insert_arrow(self, table: str, data: pyarrow.Table, *, temporary: bool = False) -> None:
        """Insert ``data`` into ``table``, a table of :attr:`database`, in one Arrow block.

        With ``temporary``, ``table`` is a temporary table of this session (it belongs to no
        database).
        """
        check_identifier("table", table)
        where = quote(table) if temporary else quote(self.database, table)
        try:
            with self._lock:
                if temporary:
                    self.client.insert_arrow(table, data)
                else:
                    self.client.insert_arrow(table, data, database=self.database)
        except _CLIENT_ERRORS as exc:
            raise self._error(f"insert into {where} failed", exc) from None

    def insert_traces(self, data: pyarrow.Table, *, streams: int = 1) -> int:
        """Insert ``otel_traces`` rows (columns named as the table's, Nested ones flattened).

        Returns the parts the insert wrote in each table it fed (the streams it used; one for a
        server), which :class:`MergeDeferral` counts.

        A server receives one Arrow block. The embedded engine receives the rows as Arrow
        files, one per insert stream, read by one ``INSERT ... SELECT ... FROM file()`` over
        them: the engine reads, sorts and compresses each file, and feeds it through the
        materialized views, on a thread of its own, and writes a part per file. ``streams``
        above one (at most :data:`INSERT_STREAMS`) is for inserts that nothing else runs
        beside: each stream's part is one more to merge (bench/RESULTS.md, "Ingest").
        """
        if not self._target.embedded or _TMP_IS_GLOB:
            self.insert_arrow(self.table, data)
            return 1
        try:
            return self._insert_file(data, streams)
        except _CLIENT_ERRORS as exc:
            raise self._error(f"insert into {self.traces_table} failed", exc) from None

    def _insert_file(self, data: pyarrow.Table, streams: int) -> int:
        import pyarrow as pa

        columns = data.schema.names
        streams = max(1, min(streams, INSERT_STREAMS, data.num_rows // _MIN_STREAM_ROWS))
        step = max(1, -(-data.num_rows // streams))
        firsts = range(0, max(data.num_rows, 1), step)
        with tempfile.TemporaryDirectory(prefix="ragfunnel-insert-", dir=_TMP) as folder:
            for number, first in enumerate(firsts):
                with pa.ipc.new_file(f"{folder}/rows-{number}.arrow", data.schema) as writer:
                    writer.write_table(data.slice(first, step))
            with self._lock:
                traces.insert_from_files(self, f"{folder}/rows-*.arrow", columns, streams)
        return len(firsts)  # a part per file

    def _error(self, what: str, exc: BaseException) -> StoreError:
        return StoreError(f"{what} on {self.dsn_redacted}: {self._target.scrub(exc)}")
