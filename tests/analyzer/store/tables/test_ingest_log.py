"""``store/tables/ingest_log.py``: where each ingest stopped reading each file; the latest wins."""

from __future__ import annotations

import time
from pathlib import Path

from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.dsn import quote
from ragfunnel.analyzer.store.tables.ingest_log import (
    INGEST_LOG_TABLE,
    FileRecord,
    ensure_ingest_log,
    insert_records,
    latest_records,
)


def record(offset: int, *, resumable: bool = True) -> FileRecord:
    return FileRecord(
        size=offset + 5, mtime_ns=1_700_000_000_000_000_000, head="abc", offset=offset,
        line=offset // 10, resumable=resumable, spans=3, low=-1, high=2**62,
    )  # fmt: skip


def test_ensure_makes_the_table_once_and_names_it(store: Store) -> None:
    assert ensure_ingest_log(store) == quote(store.database, INGEST_LOG_TABLE)
    insert_records(store, "host", [("/a.jsonl", record(10))])
    ensure_ingest_log(store)  # again: the rows stay
    assert latest_records(store, "host") == {"/a.jsonl": record(10)}


def test_the_latest_record_of_each_file_wins_every_field_read_back(store: Store) -> None:
    ensure_ingest_log(store)
    insert_records(store, "host", [("/a.jsonl", record(10)), ("/b.jsonl", record(0))])
    time.sleep(0.01)  # RecordedAt: the later insert is the later record
    insert_records(store, "host", [("/a.jsonl", record(90, resumable=False))])
    assert latest_records(store, "host") == {
        "/a.jsonl": record(90, resumable=False),
        "/b.jsonl": record(0),
    }


def test_records_are_per_host_and_per_traces_table(store: Store, store_path: Path) -> None:
    ensure_ingest_log(store)
    insert_records(store, "laptop", [("/a.jsonl", record(10))])
    assert latest_records(store, "server") == {}
    table = quote(store.database, INGEST_LOG_TABLE)
    assert store.command(f"SELECT any(TracesTable) FROM {table}") == store.table
    # The same database, another traces table: the same log says nothing of its files.
    with Store.open(
        f"chdb://{store_path}", database=store.database, table="spans", create=True
    ) as other:
        assert latest_records(other, "laptop") == {}


def test_no_records_insert_nothing(store: Store) -> None:
    ensure_ingest_log(store)
    insert_records(store, "host", [])
    assert store.command(f"SELECT count() FROM {quote(store.database, INGEST_LOG_TABLE)}") == 0
