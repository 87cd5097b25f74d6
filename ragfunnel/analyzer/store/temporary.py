"""A session's temporary tables: created, filled, dropped — the statements, in one place.

An analysis keeps its case data (question keys, item lists, the match table) and, at read
time, a copy of the question rows in temporary tables of its own session: they belong to no
database, so a read-only session (``readonly = 2``) may make them, and they vanish with the
session. :class:`TemporaryTables` remembers what it made and drops it all at the end. What
fills them (the SELECTs of the funnel's query builder) is the caller's; names are checked
identifiers.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from ragfunnel.analyzer.store.dsn import check_identifier, quote
from ragfunnel.analyzer.store.store_error import StoreError

if TYPE_CHECKING:
    import pyarrow as pa

    from ragfunnel.analyzer.store.connection import Store

__all__ = ["TemporaryTables"]


class TemporaryTables:
    """The temporary tables one session of ``store`` makes."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self.created: list[str] = []

    def create(self, name: str, columns: str, engine: str = "Memory") -> str:
        """Create ``name`` with ``columns`` (``a String, b UInt32``); returns its quoted name."""
        check_identifier("table", name)
        self._store.command(f"CREATE TEMPORARY TABLE {quote(name)} ({columns}) ENGINE = {engine}")
        self.created.append(name)
        return quote(name)

    def fill(self, name: str, data: pa.Table) -> None:
        """Insert ``data`` (nothing for no rows)."""
        if data.num_rows:
            self._store.insert_arrow(name, data, temporary=True)

    def fill_from(self, name: str, select: str) -> None:
        """Insert the rows of ``select`` (a SELECT of the funnel's query builder)."""
        self._store.command(f"INSERT INTO {quote(name)} {select}")

    def drop(self, name: str) -> None:
        """Drop ``name`` now (it may be made again)."""
        self._store.command(f"DROP TEMPORARY TABLE IF EXISTS {quote(name)}")

    def drop_all(self) -> None:
        """Drop every table made; a failure is let go (the tables die with the session)."""
        for name in self.created:
            with contextlib.suppress(StoreError):
                self.drop(name)
