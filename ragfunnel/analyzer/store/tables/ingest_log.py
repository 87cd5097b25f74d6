"""The ingest log ``ragfunnel_ingest_log``: where each ingest stopped reading each file.

One row per file and ingest (a file's latest row wins): the traces table and host it was read
for, its size, modification time and head hash, the byte offset and line reading stopped at,
and how many spans it held in which time window. ``ingest/ingest_log.py`` decides from it what
to read again; this module creates the table, reads each file's latest :class:`FileRecord` and
writes new ones. Revision 1 of :mod:`..migrations` creates it, and so does an ingest that
needs it first (:func:`ensure_ingest_log`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragfunnel.analyzer.store.dsn import quote
from ragfunnel.analyzer.store.statements import create_table

if TYPE_CHECKING:
    import pyarrow

    from ragfunnel.analyzer.store.connection import Store

__all__ = [
    "INGEST_LOG_TABLE",
    "FileRecord",
    "ensure_ingest_log",
    "ingest_log_ddl",
    "insert_records",
    "latest_records",
]

INGEST_LOG_TABLE = "ragfunnel_ingest_log"

_COLUMNS: tuple[tuple[str, str], ...] = (
    ("TracesTable", "String"), ("Host", "String"), ("Path", "String"), ("Size", "UInt64"),
    ("MtimeNs", "Int64"), ("Head", "String"), ("Offset", "UInt64"), ("Line", "UInt64"),
    ("Resumable", "Bool"), ("Spans", "UInt64"), ("Low", "Int64"), ("High", "Int64"),
)  # fmt: skip
"""The columns an ingest writes, in table order; ``RecordedAt`` follows, set by the insert."""


def ingest_log_ddl(table: str) -> str:
    """The CREATE statement of the ingest log, given its quoted qualified name."""
    return create_table(
        table,
        (*_COLUMNS, ("RecordedAt", "DateTime64(6) DEFAULT now64(6)")),
        "MergeTree ORDER BY (TracesTable, Host, Path, RecordedAt)",
    )


@dataclass(frozen=True)
class FileRecord:
    """Where an ingest stopped reading one file."""

    size: int
    mtime_ns: int
    head: str
    offset: int
    """Bytes read up to the end of the last complete line (the whole file unless resumable)."""
    line: int
    """Lines up to ``offset``."""
    resumable: bool
    """A plain line file: reading may go on from ``offset``."""
    spans: int
    low: int
    high: int


_FIELDS = (
    ("Size", "size"), ("MtimeNs", "mtime_ns"), ("Head", "head"), ("Offset", "offset"),
    ("Line", "line"), ("Resumable", "resumable"), ("Spans", "spans"), ("Low", "low"),
    ("High", "high"),
)  # fmt: skip
"""Each :class:`FileRecord` field's column."""


def _column(kind: str, values: list[Any]) -> pyarrow.Array:
    """One column of ``kind`` (a type of ``_COLUMNS``), built without pandas (arrow_values)."""
    import pyarrow as pa

    from ragfunnel.analyzer.store.arrow_values import booleans, integers, strings

    if kind == "String":
        return strings(values)
    if kind == "Bool":
        return booleans(values)
    return integers(values, {"UInt64": pa.uint64(), "Int64": pa.int64()}[kind])


def ensure_ingest_log(store: Store) -> str:
    """Create the ingest log if missing; returns its quoted qualified name."""
    table = quote(store.database, INGEST_LOG_TABLE)
    store.command(ingest_log_ddl(table))
    return table


def latest_records(store: Store, host: str) -> dict[str, FileRecord]:
    """The latest record of every file ``host`` ingested into the store's traces table."""
    latest = ", ".join(f"argMax({name}, RecordedAt) AS {name}" for name, _ in _FIELDS)
    rows = store.query_arrow(
        f"SELECT Path, {latest} FROM {quote(store.database, INGEST_LOG_TABLE)} "
        "WHERE TracesTable = {t:String} AND Host = {host:String} GROUP BY Path",
        {"t": store.table, "host": host},
    ).to_pylist()
    return {
        row["Path"]: FileRecord(
            size=row["Size"],
            mtime_ns=row["MtimeNs"],
            head=row["Head"],
            offset=row["Offset"],
            line=row["Line"],
            resumable=bool(row["Resumable"]),
            spans=row["Spans"],
            low=row["Low"],
            high=row["High"],
        )
        for row in rows
    }


def insert_records(store: Store, host: str, records: Sequence[tuple[str, FileRecord]]) -> None:
    """Write one row per (resolved path, record), in one insert."""
    import pyarrow as pa

    given = {
        "TracesTable": [store.table] * len(records),
        "Host": [host] * len(records),
        "Path": [path for path, _ in records],
        **{name: [getattr(record, field) for _, record in records] for name, field in _FIELDS},
    }
    table = pa.Table.from_arrays(
        [_column(kind, given[name]) for name, kind in _COLUMNS],
        names=[name for name, _ in _COLUMNS],
    )
    store.insert_arrow(INGEST_LOG_TABLE, table)
