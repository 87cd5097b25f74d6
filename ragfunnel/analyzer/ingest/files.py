"""Ingesting trace files, folders and globs: each file read once, and only what is new since.

Which files a PATH means (:func:`expand_paths`), how much of each to read (the ingest log,
:mod:`.ingest_log`), and the progress bar; the formats themselves are read by :mod:`.otlp`.
"""

from __future__ import annotations

import glob
import os
import time
from collections.abc import Iterable
from pathlib import Path

from ragfunnel.analyzer.errors import AnalyzerError
from ragfunnel.analyzer.ingest import otlp
from ragfunnel.analyzer.ingest.chunking import Loader
from ragfunnel.analyzer.ingest.ingest_log import FileRecord, IngestLog, ReadPlan, head_hash
from ragfunnel.analyzer.ingest.progress import Progress
from ragfunnel.analyzer.ingest.result import IngestError, IngestSummary, Skip
from ragfunnel.analyzer.ingest.writer import writing
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.opening import StoreArg, takes_store
from ragfunnel.instrumentation.config import DEFAULT_TRACE_DIR  # where the file exporter writes

__all__ = ["DEFAULT_TRACE_DIR", "expand_paths", "ingest_paths"]

_GLOB_CHARS = frozenset("*?[")


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


@takes_store("ingest")
def ingest_paths(
    store: StoreArg,
    paths: Iterable[str | os.PathLike[str]],
    *,
    strict: bool = False,
    progress: bool = False,
    rescan: bool = False,
) -> IngestSummary:
    """Ingest trace files, folders (recursively) and globs into ``store`` (or a DSN or path).

    Files under a folder that do not start like JSON are passed over silently; files named
    explicitly must be trace files. With ``strict`` the first file with a problem stops the
    ingest after that file (what was read is kept). ``progress`` shows a bar on stderr.
    Files an earlier ingest read are passed over if unchanged, and read on from where it
    stopped if they grew; ``rescan`` reads every file from its start.

    Raises:
        IngestError: a PATH matched no file.
        StoreError: the store failed.
    """
    assert isinstance(store, Store)  # takes_store opened it
    paths = list(paths)
    files, missing = expand_paths(paths)
    if missing:
        raise IngestError(f"no such file, folder or match: {', '.join(missing)}", argument="paths")
    explicit = {Path(os.fspath(p)).resolve() for p in paths if Path(os.fspath(p)).is_file()}
    summary = IngestSummary()
    total = sum(file.stat().st_size for file in files)
    log = IngestLog(store)
    # Records of files whose spans are in the chunk being written, and of files read since:
    # each is written to the ingest log only once its spans are stored (a kill in between
    # makes the next ingest read the file again), all of a chunk's files in one insert.
    records = _Records(log)
    with Progress(total, enabled=progress) as bar, writing(store, summary) as writer:
        # One loader for every file: the spans of many small files go in one insert.
        loader = Loader(writer, summary, on_chunk=lambda: records.chunk_handed_over(bar))
        for file in files:
            try:
                _ingest_file(
                    file,
                    loader,
                    summary,
                    bar,
                    None if rescan else log,
                    records=records,
                    explicit=file.resolve() in explicit,
                )
            except OSError as exc:  # unreadable, or gone since it was listed: the next file
                summary.skipped.append(Skip(str(file), 0, f"cannot read the file: {exc}"))
            except AnalyzerError:
                raise  # the store failed: nothing more can be written
            except Exception as exc:  # noqa: BLE001 - one file's failure never stops the folder
                summary.skipped.append(
                    Skip(
                        str(file),
                        0,
                        f"not read further: an internal error of ragfunnel "
                        f"({type(exc).__name__}: {str(exc)[:200]}); please report it",
                    )
                )
            if strict and summary.skipped:
                break
        # What is left is the store's: the last inserts and its parts settling, not reading.
        bar.phase("writing to the store")
        loader.flush()
        writer.wait()
        records.all_stored()
    if log.error:
        summary.notes.append(
            Skip(
                store.dsn_redacted,
                0,
                f"no ingest log kept, files will be read whole: {log.error}",
            )
        )
    return summary


class _Records:
    """Ingest log records waiting for their spans to be stored."""

    def __init__(self, log: IngestLog) -> None:
        self._log = log
        self._writing: list[tuple[Path, FileRecord]] = []
        self.read: list[tuple[Path, FileRecord]] = []

    def chunk_handed_over(self, bar: Progress) -> None:
        """A chunk went to the writer, which had finished the one before: log its files."""
        bar.refresh()
        self._log.record_many(self._writing)
        self._writing, self.read = self.read, []

    def all_stored(self) -> None:
        """Every chunk is written: log every file read."""
        self._log.record_many(self._writing + self.read)
        self._writing, self.read = [], []


def _ingest_file(
    file: Path,
    loader: Loader,
    summary: IngestSummary,
    bar: Progress,
    log: IngestLog | None,
    *,
    records: _Records,
    explicit: bool,
) -> None:
    source = str(file)
    stat = file.stat()
    plan = log.plan(file, stat) if log else ReadPlan()
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
        loader.mark()
        # A plain file may still be growing: stop at its last complete line. One untouched
        # for a while is not: its cut last line is a problem (--strict fails), not a note.
        reading = otlp.read_lines(
            stream,
            source,
            loader,
            first_line=plan.line + 1,
            growing=not compressed,
            settled=time.time() - stat.st_mtime > otlp.SETTLED_AFTER_S,
        )
        end = stream.tell()
    if reading.broken:
        return
    # Where reading stopped: after the last complete line of a plain line file (a writer may
    # still be appending), else the whole file.
    after = file.stat()
    resumable = not compressed and not reading.document
    offset = end - reading.tail if resumable else after.st_size
    previous = plan.previous if plan.offset else None
    low, high = loader.file_window()
    lows = [value for value in (low, previous.low if previous else 0) if value]
    records.read.append(
        (
            file,
            FileRecord(
                size=after.st_size,
                mtime_ns=after.st_mtime_ns,
                head=head_hash(file, offset),
                offset=offset,
                line=reading.lines - (1 if reading.tail else 0),
                resumable=resumable,
                spans=summary.read - before + (previous.spans if previous else 0),
                low=min(lows, default=0),
                high=max(high, previous.high if previous else 0),
            ),
        )
    )
    bar.done_file(stat.st_size)
