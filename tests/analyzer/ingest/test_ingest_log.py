"""``ingest/ingest_log.py``: what earlier ingests read of each file decides what is read again.

An unchanged file is passed over, a grown line file is read on from the last full line, anything
else from the start; and a file whose spans are no longer all stored is read again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragfunnel.analyzer.ingest import spans_to_arrow
from ragfunnel.analyzer.ingest.ingest_log import HEAD_BYTES, IngestLog, ReadPlan, head_hash
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.tables.ingest_log import FileRecord
from tests.support.traces import TraceBuilder, few_questions

LINES = b'{"line": 1}\n{"line": 2}\n'


def read_whole(path: Path, *, resumable: bool = True, spans: int = 0, low: int = 0,
               high: int = 0) -> FileRecord:  # fmt: skip
    """The record of an ingest that read all of ``path`` as it is now."""
    stat = path.stat()
    return FileRecord(
        size=stat.st_size, mtime_ns=stat.st_mtime_ns, head=head_hash(path, stat.st_size),
        offset=stat.st_size, line=LINES.count(b"\n"), resumable=resumable, spans=spans,
        low=low, high=high,
    )  # fmt: skip


@pytest.fixture
def spans_file(tmp_path: Path) -> Path:
    path = tmp_path / "spans.jsonl"
    path.write_bytes(LINES)
    return path


def plan(store: Store, path: Path) -> ReadPlan:
    return IngestLog(store).plan(path, path.stat())


def test_a_file_never_read_is_read_whole(store: Store, spans_file: Path) -> None:
    assert plan(store, spans_file) == ReadPlan()


def test_an_unchanged_file_is_passed_over(store: Store, spans_file: Path) -> None:
    done = read_whole(spans_file)
    IngestLog(store).record(spans_file, done)
    assert plan(store, spans_file) == ReadPlan(skip=True, previous=done)
    IngestLog(store).record(spans_file, read_whole(spans_file, resumable=False))  # gzip, say
    assert plan(store, spans_file).skip


def test_a_grown_line_file_is_read_on_from_the_last_full_line(
    store: Store, spans_file: Path
) -> None:
    done = read_whole(spans_file)
    IngestLog(store).record(spans_file, done)
    with spans_file.open("ab") as file:
        file.write(b'{"line": 3}\n')
    assert plan(store, spans_file) == ReadPlan(offset=len(LINES), line=2, previous=done)


def test_a_grown_file_that_cannot_be_resumed_is_read_whole(store: Store, spans_file: Path) -> None:
    IngestLog(store).record(spans_file, read_whole(spans_file, resumable=False))
    with spans_file.open("ab") as file:
        file.write(b'{"line": 3}\n')
    assert plan(store, spans_file) == ReadPlan()


def test_another_head_or_a_shorter_file_is_read_whole(store: Store, spans_file: Path) -> None:
    IngestLog(store).record(spans_file, read_whole(spans_file))
    spans_file.write_bytes(b'{"LINE": 1}\n{"line": 2}\n{"line": 3}\n')  # rewritten, grown
    assert plan(store, spans_file) == ReadPlan()
    spans_file.write_bytes(b"{}\n")
    assert plan(store, spans_file) == ReadPlan()


def test_a_file_whose_spans_were_deleted_is_read_again(store: Store, spans_file: Path) -> None:
    b = TraceBuilder()
    few_questions(b, 2)
    store.insert_traces(spans_to_arrow(b.spans))
    starts = sorted(int(s.start_time or 0) for s in b.spans)
    window = {"low": starts[0], "high": starts[-1]}
    IngestLog(store).record(spans_file, read_whole(spans_file, spans=4, **window))
    assert plan(store, spans_file).skip  # all four are stored
    IngestLog(store).record(spans_file, read_whole(spans_file, spans=5, **window))
    assert plan(store, spans_file) == ReadPlan()  # one fewer stored than read: read again


def test_records_are_kept_by_resolved_path(
    store: Store, spans_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    IngestLog(store).record_many([(spans_file, read_whole(spans_file))])
    monkeypatch.chdir(spans_file.parent)
    assert plan(store, Path("spans.jsonl")).skip  # the same file, named relatively


def test_a_store_that_cannot_keep_the_log_reads_everything(
    store: Store, store_path: Path, spans_file: Path
) -> None:
    with Store.open(f"chdb://{store_path}", database=store.database, read_only=True) as reader:
        log = IngestLog(reader)
        assert log.error  # why: no CREATE TABLE on a read-only session
        assert log.plan(spans_file, spans_file.stat()) == ReadPlan()
        log.record(spans_file, read_whole(spans_file))  # let go, not raised
    assert plan(store, spans_file) == ReadPlan()  # nothing was recorded


def test_the_head_hash_covers_at_most_the_head(tmp_path: Path) -> None:
    path = tmp_path / "big"
    path.write_bytes(b"a" * HEAD_BYTES + b"tail")
    assert head_hash(path, 10**9) == head_hash(path, HEAD_BYTES)
    assert head_hash(path, 3) != head_hash(path, 4)
