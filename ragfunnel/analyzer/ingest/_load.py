"""From readers to the store: chunking, de-duplication against the store, columnar inserts.

Idempotency: before each chunk is inserted, those of its spans that start where the store
already holds rows are looked up by trace id (see :class:`Writer`), and the ones found are
dropped; spans repeated within a chunk are dropped as they are read. Re-ingesting a file therefore adds nothing, even
into a table the collector created (a plain MergeTree, which would keep duplicates forever).
Two ingests running at the same moment on the same spans may both insert them: run one at a
time.
"""

from __future__ import annotations

import gc
import glob
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
import pyarrow as pa
import pyarrow.compute as pc

from ragfunnel.analyzer.ingest import _native, jaeger, otlp
from ragfunnel.analyzer.ingest._manifest import Manifest, Plan, Record, head_hash
from ragfunnel.analyzer.ingest._model import ResourceSpans, decode_envelope
from ragfunnel.analyzer.ingest._summary import IngestError, IngestSummary, Skip
from ragfunnel.analyzer.ingest.rows import Chunk, RowBuilder
from ragfunnel.instrumentation.config import DEFAULT_TRACE_DIR  # where the file exporter writes

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan

    from ragfunnel.analyzer.store import Store

__all__ = [
    "DEFAULT_TRACE_DIR",
    "Loader",
    "expand_paths",
    "ingest_lines",
    "ingest_paths",
    "ingest_spans",
    "pull_from_jaeger",
    "spans_to_arrow",
]

CHUNK_SPANS = 50_000
"""Spans per insert: large enough for columnar speed, small enough to bound memory."""

CHUNK_BYTES = 256 << 20
"""A chunk of large spans ends sooner, at about this many bytes of native column data."""

_GLOB_CHARS = frozenset("*?[")
_SECOND = 1_000_000_000


class Writer:
    """De-duplicates chunks against the store and inserts them, in order, on one background thread.

    The embedded engine and the HTTP client both release the GIL while they work, so the next
    chunk is read and converted while this one is written. At most one chunk waits.

    Only a chunk's spans that start where the store already has rows can be duplicates: within
    a second of the time range the table held when the writer started, or of what this writer
    has inserted. Those are looked up by trace id; the others (usually all of a new file, and
    all but a chunk's first second in a time-ordered one) are inserted without a query.
    """

    def __init__(self, store: Store) -> None:
        self._store = store
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragfunnel-insert")
        self._pending: Future[None] | None = None
        self._stored: tuple[int, int] | None = None
        self._inserted: tuple[int, int] | None = None
        self._ranges_read = False
        self.inserted = 0
        self.duplicates = 0

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
        known = self._known(chunk)
        if known:
            table = table.filter(pc.invert(pc.is_in(chunk.keys(), pa.array(known, pa.string()))))
            self.duplicates += chunk.table.num_rows - table.num_rows
        if table.num_rows:
            self._store.insert_traces(table)
            low, high = self._inserted or (chunk.low, chunk.high)
            self._inserted = (min(low, chunk.low), max(high, chunk.high))
        self.inserted += table.num_rows

    def _stored_range(self) -> tuple[int, int] | None:
        # min/max of the partition column come from each part's min-max index, not the rows.
        store = self._store
        result = store.query_arrow(
            "SELECT count() AS n, toUnixTimestamp64Nano(min(Timestamp)) AS low, "
            f"toUnixTimestamp64Nano(max(Timestamp)) AS high FROM {store.traces_table}"
        )
        row = result.to_pylist()[0]
        return (int(row["low"]), int(row["high"])) if int(row["n"]) else None

    def _known(self, chunk: Chunk) -> list[str]:
        if not self._ranges_read:
            self._stored = self._stored_range()
            self._ranges_read = True
        starts = pc.cast(chunk.table.column("Timestamp"), pa.int64())
        near: pa.ChunkedArray | None = None
        for covered in (self._stored, self._inserted):
            if covered is None:
                continue
            # Spans read back from Jaeger lost their nanoseconds: widen by a second.
            inside = pc.and_(
                pc.greater_equal(starts, covered[0] - _SECOND),
                pc.less_equal(starts, covered[1] + _SECOND),
            )
            near = inside if near is None else pc.or_(near, inside)
        if near is None or not pc.any(near).as_py():
            return []
        candidates = chunk.table.filter(near)
        low, high = pc.min_max(pc.cast(candidates.column("Timestamp"), pa.int64())).values()
        store = self._store
        result = store.query_arrow(
            f"SELECT concat(TraceId, SpanId) AS key FROM {store.traces_table} "
            "WHERE Timestamp >= fromUnixTimestamp64Nano({low:Int64}) "
            "AND Timestamp <= fromUnixTimestamp64Nano({high:Int64}) "
            "AND TraceId IN {ids:Array(String)}",
            {
                "low": max(low.as_py() - _SECOND, 0),
                "high": high.as_py() + _SECOND,
                "ids": sorted(pc.unique(candidates.column("TraceId")).to_pylist()),
            },
        )
        keys: list[str] = result.column("key").to_pylist()
        return keys


class Loader:
    """Takes lines and decoded spans from the readers, and gives a :class:`Writer` chunks.

    Lines go to the native converter first when there is one (:mod:`._native`); what it
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
        self.native = _native.converter()
        seen = _native.SharedSeen(self.native) if self.native is not None else None
        self.builder = RowBuilder(note=self._builder_note, seen=seen)
        self.low = 0
        self.high = 0

    def __len__(self) -> int:
        return len(self.builder) + (len(self.native) if self.native is not None else 0)

    def take_line(self, line: bytes, source: str, number: int) -> bool:
        """Convert a whole line natively; False to have it decoded and :meth:`add`-ed instead."""
        native = self.native
        if native is None:
            return False
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

    def _builder_note(self, message: str) -> None:
        self.summary.notes.append(Skip(self._where[0], self._where[1], message))

    def add(self, resource_spans: list[ResourceSpans], source: str, line: int) -> None:
        """Take the spans of one document (one line, usually)."""
        self._where = (source, line)
        before_duplicates = self.builder.duplicates
        before_rows = len(self.builder)
        self.builder.add_resource_spans(
            resource_spans, lambda message: self.skip(source, line, message)
        )
        added = len(self.builder) - before_rows
        self.summary.read += added + self.builder.duplicates - before_duplicates
        self.summary.duplicates += self.builder.duplicates - before_duplicates
        if len(self) >= self._limit:
            self.flush()

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
            self.low = min(self.low or chunk.low, chunk.low)
            self.high = max(self.high, chunk.high)
            self._writer.submit(chunk)
            if self._on_chunk:
                self._on_chunk()

    def chunk(self) -> Chunk:
        """The spans gathered so far, from both converters, as one chunk; both are cleared."""
        parts: list[Chunk] = []
        native = self.native
        if native is not None:
            low, high = native.low, native.high
            table = _native.table_from_parts(native.finish())
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


@contextmanager
def _writing(store: Store, summary: IngestSummary) -> Iterator[Writer]:
    # Reading allocates millions of short-lived objects and builds no reference cycles: the
    # cyclic garbage collector would only rescan the growing chunk (about 10% of the time).
    collecting = gc.isenabled()
    gc.disable()
    writer = Writer(store)
    try:
        yield writer
    finally:
        if collecting:
            gc.enable()
        writer.close()
        summary.inserted += writer.inserted
        summary.duplicates += writer.duplicates


def expand_paths(paths: Iterable[str | os.PathLike[str]]) -> tuple[list[Path], list[str]]:
    """Files to read from PATHs (files, folders searched recursively, quoted globs).

    Returns the files (sorted within each PATH, each once) and the PATHs that matched nothing.
    Hidden files and folders under a folder are left out.
    """
    files: list[Path] = []
    missing: list[str] = []
    seen: set[Path] = set()
    for raw in paths:
        text = os.fspath(raw)
        path = Path(text)
        if path.is_file():
            found = [path]
        elif path.is_dir():
            found = sorted(
                p
                for p in path.rglob("*")
                if p.is_file()
                and not any(part.startswith(".") for part in p.relative_to(path).parts)
            )
        elif _GLOB_CHARS & set(text):
            found = sorted(Path(p) for p in glob.glob(text, recursive=True) if Path(p).is_file())
        else:
            found = []
        if not found and not path.is_dir():
            missing.append(text)
        for file in found:
            resolved = file.resolve()
            if resolved not in seen:
                seen.add(resolved)
                files.append(file)
    return files, missing


def ingest_paths(
    store: Store,
    paths: Iterable[str | os.PathLike[str]],
    *,
    strict: bool = False,
    progress: bool = False,
    rescan: bool = False,
) -> IngestSummary:
    """Ingest trace files, folders (recursively) and globs into ``store``.

    Files under a folder that do not start like JSON are passed over silently; files named
    explicitly must be trace files. With ``strict`` the first file with a problem stops the
    ingest after that file (what was read is kept). ``progress`` shows a bar on stderr.
    Files an earlier ingest read are passed over if unchanged, and read on from where it
    stopped if they grew; ``rescan`` reads every file from its start.

    Raises:
        IngestError: a PATH matched no file.
        StoreError: the store failed.
    """
    paths = list(paths)
    files, missing = expand_paths(paths)
    if missing:
        raise IngestError(f"no such file, folder or match: {', '.join(missing)}")
    explicit = {Path(os.fspath(p)).resolve() for p in paths if Path(os.fspath(p)).is_file()}
    summary = IngestSummary()
    total = sum(file.stat().st_size for file in files)
    manifest = Manifest(store)
    with _Progress(total, enabled=progress) as bar, _writing(store, summary) as writer:
        for file in files:
            _ingest_file(
                file,
                writer,
                summary,
                bar,
                None if rescan else manifest,
                recorder=manifest,
                explicit=file.resolve() in explicit,
            )
            if strict and summary.skipped:
                break
    if manifest.error:
        summary.notes.append(
            Skip(
                store.dsn_redacted,
                0,
                f"no ingest log kept, files will be read whole: {manifest.error}",
            )
        )
    return summary


def _ingest_file(
    file: Path,
    writer: Writer,
    summary: IngestSummary,
    bar: _Progress,
    manifest: Manifest | None,
    *,
    recorder: Manifest,
    explicit: bool,
) -> None:
    source = str(file)
    stat = file.stat()
    writer.wait()  # the store's client is not shared between threads
    plan = manifest.plan(file, stat) if manifest else Plan()
    if plan.skip:
        summary.unchanged += 1
        bar.done_file(stat.st_size)
        return
    with otlp.open_trace_file(file) as (stream, position, compressed):
        head = stream.peek(4096)[:4096] if hasattr(stream, "peek") else b""
        if not otlp.sniff(head) and not plan.offset:
            if explicit:
                summary.skipped.append(Skip(source, 1, "not a JSON trace file"))
            return
        summary.files += 1
        bar.track(position)
        if plan.offset:
            stream.seek(plan.offset)
        before = summary.read
        loader = Loader(writer, summary, on_chunk=bar.refresh)
        reading = otlp.read_lines(stream, source, loader, first_line=plan.line + 1)
        loader.flush()
        end = stream.tell()
    writer.wait()
    if reading.broken:
        return
    # Where reading stopped: after the last complete line of a plain line file (a writer may
    # still be appending), else the whole file.
    after = file.stat()
    resumable = not compressed and not reading.document
    offset = end - reading.tail if resumable else after.st_size
    previous = plan.previous if plan.offset else None
    lows = [low for low in (loader.low, previous.low if previous else 0) if low]
    recorder.record(
        file,
        Record(
            size=after.st_size,
            mtime_ns=after.st_mtime_ns,
            head=head_hash(file, offset),
            offset=offset,
            line=reading.lines - (1 if reading.tail else 0),
            resumable=resumable,
            spans=summary.read - before + (previous.spans if previous else 0),
            low=min(lows, default=0),
            high=max(loader.high, previous.high if previous else 0),
        ),
    )
    bar.done_file(stat.st_size)


def ingest_lines(
    store: Store, lines: Iterable[bytes | str], *, source: str = "<memory>"
) -> IngestSummary:
    """Ingest OTLP JSON lines (or a Jaeger / OTLP JSON document split into lines)."""
    summary = IngestSummary(files=1)
    with _writing(store, summary) as writer:
        loader = Loader(writer, summary)
        otlp.read_lines(_as_bytes(lines), source, loader)
        loader.flush()
    return summary


def _as_bytes(lines: Iterable[bytes | str]) -> Iterator[bytes]:
    for line in lines:
        data = line.encode() if isinstance(line, str) else line
        yield data if data.endswith(b"\n") else data + b"\n"


def _encode_sdk_spans(spans: Sequence[ReadableSpan]) -> bytes | None:
    # The JSON file exporter's own encoder, so these spans take exactly the path of its files.
    from opentelemetry.exporter.otlp.json.file.trace_exporter import _encode_spans_to_dict

    document = _encode_spans_to_dict(spans)
    return msgspec.json.encode(document) if document else None


def ingest_spans(store: Store, spans: Sequence[ReadableSpan]) -> IngestSummary:
    """Ingest finished OpenTelemetry SDK spans (e.g. from an ``InMemorySpanExporter``)."""
    encoded = _encode_sdk_spans(spans)
    return ingest_lines(store, [encoded] if encoded else [], source="<spans>")


def spans_to_arrow(data: Sequence[ReadableSpan] | bytes | str | dict[str, Any]) -> pa.Table:
    """``otel_traces`` rows, as an Arrow table, for SDK spans or one OTLP JSON document.

    No store is involved and nothing is de-duplicated across calls.

    Raises:
        IngestError: some span could not be converted (the message lists why).
    """
    if isinstance(data, dict):
        encoded: bytes | None = msgspec.json.encode(data)
    elif isinstance(data, str):
        encoded = data.encode()
    elif isinstance(data, bytes):
        encoded = data
    else:
        encoded = _encode_sdk_spans(data)
    summary = IngestSummary()
    loader = Loader(None, summary, chunk_spans=2**62)
    if encoded:
        otlp.read_document(encoded, "<data>", loader)
    if summary.skipped:
        raise IngestError("; ".join(str(skip) for skip in summary.skipped[:5]))
    return loader.chunk().table


def pull_from_jaeger(
    store: Store,
    url: str,
    service: str,
    since: str | timedelta,
    *,
    until: datetime | None = None,
    limit: int = 1000,
) -> IngestSummary:
    """Fetch ``service``'s traces of the last ``since`` from Jaeger's API v3 and ingest them.

    A window that returns ``limit`` traces (Jaeger's ``query.num_traces``) may have been cut
    short, so it is split in two and each half fetched again, down to one second.

    Raises:
        IngestError: a bad ``since``, or Jaeger could not be queried.
    """
    try:
        span = jaeger.parse_duration(since) if isinstance(since, str) else since
    except ValueError as exc:
        raise IngestError(str(exc)) from None
    end = until or datetime.now(timezone.utc)
    summary = IngestSummary()
    with _writing(store, summary) as writer:
        loader = Loader(writer, summary)
        try:
            _pull_window(loader, url, service, (end - span, end), limit=limit)
        except jaeger.JaegerError as exc:
            raise IngestError(str(exc)) from None
        loader.flush()
    return summary


def _pull_window(
    loader: Loader,
    url: str,
    service: str,
    window: tuple[datetime, datetime],
    *,
    limit: int,
) -> None:
    start, end = window
    source = f"{url.rstrip('/')}/api/v3/traces"
    body = jaeger.fetch_v3(url, service, start, end, limit=limit)
    if body is None:
        return
    if end - start > timedelta(seconds=1) and _trace_count(body) >= limit:
        middle = start + (end - start) / 2
        _pull_window(loader, url, service, (start, middle), limit=limit)
        _pull_window(loader, url, service, (middle, end), limit=limit)
        return
    loader.summary.files += 1
    otlp.read_document(body, f"{source} [{start:%Y-%m-%dT%H:%M:%S}Z..]", loader)


def _trace_count(body: bytes) -> int:
    try:
        envelope = decode_envelope(body)
    except msgspec.DecodeError:
        return 0
    return len(
        {
            span.traceId
            for rs in envelope.resource_spans or []
            for ss in rs.scopeSpans
            for span in ss.spans
        }
    )


class _Progress:
    """A rich progress bar over the input bytes, on stderr, only when asked for."""

    def __init__(self, total: int, *, enabled: bool) -> None:
        self._enabled = enabled and total > 0
        self._total = total
        self._done = 0
        self._position: Callable[[], int] | None = None
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> _Progress:
        if self._enabled:
            from rich.console import Console
            from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn

            self._bar = Progress(
                "[progress.description]{task.description}",
                BarColumn(),
                DownloadColumn(),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task("ingesting", total=self._total)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()

    def track(self, position: Callable[[], int]) -> None:
        self._position = position

    def refresh(self) -> None:
        if self._bar is not None and self._position is not None:
            self._bar.update(self._task, completed=self._done + self._position())

    def done_file(self, size: int) -> None:
        self._done += size
        self._position = None
        if self._bar is not None:
            self._bar.update(self._task, completed=self._done)
