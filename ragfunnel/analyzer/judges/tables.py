"""The judges' two tables as the judges use them: verdicts, and the judge cache.

Their layouts, rows and statements live in the store (``store/tables/verdicts.py``,
``store/tables/judge_cache.py``) and ``migrate`` creates them (revisions 2 and 3); what a store
has, and which verdicts table to read (a store nobody migrated keeps the old layout), comes from
``store/schema.py``. Writing applies the store's pending revisions first (judging is
an explicit request to write); reading never creates anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ragfunnel.analyzer.store.migrations import migrate
from ragfunnel.analyzer.store.schema import has_table, read_schema
from ragfunnel.analyzer.store.tables import verdicts
from ragfunnel.analyzer.store.tables.judge_cache import CACHE_TABLE, cache_rows, insert_cache_rows
from ragfunnel.analyzer.store.tables.verdicts import VERDICTS_TABLE, VerdictRow, insert_verdicts

if TYPE_CHECKING:
    import polars as pl

    from ragfunnel.analyzer.store import Store

__all__ = [
    "CACHE_TABLE",
    "VERDICTS_TABLE",
    "VerdictRow",
    "cache_rows",
    "ensure_tables",
    "insert_cache_rows",
    "insert_verdicts",
    "read_verdicts",
    "table_exists",
]


def ensure_tables(store: Store) -> None:
    """Apply the store's pending revisions, which include both judge tables."""
    migrate(store)


def table_exists(store: Store, table: str) -> bool:
    """Whether ``table`` exists in the store's database."""
    return has_table(store, table)


def read_verdicts(store: Store, *, runs: Sequence[str] = ()) -> pl.DataFrame:
    """The latest verdict rows (of every judge), optionally of some runs only.

    An empty frame with the table's columns when nothing was judged yet; the store is never
    written to.
    """
    return verdicts.read_verdicts(store, runs=runs, table=read_schema(store).verdicts_table)
