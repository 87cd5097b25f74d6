"""Reading and writing the judges' two tables: verdicts, and the judge cache.

The tables' layout lives in the store (``store/verdict_tables.py``) and ``migrate`` creates
them (revision 2); here rows go in and out, with Arrow types matching the layout. Writing
applies the store's pending revisions first (judging is an explicit request to write);
reading never creates anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, cast

import polars as pl
import pyarrow as pa

from ragfunnel.analyzer.store.migrations import migrate, verdicts_ready
from ragfunnel.analyzer.store.verdict_tables import CACHE_TABLE, VERDICT_COLUMNS, VERDICTS_TABLE

if TYPE_CHECKING:
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

_ARROW: dict[str, pa.DataType] = {
    "String": pa.string(), "LowCardinality(String)": pa.string(), "UInt8": pa.uint8(),
    "Nullable(Float64)": pa.float64(), "Array(String)": pa.list_(pa.string()),
    "Array(Float64)": pa.list_(pa.float64()),
    "Array(Array(String))": pa.list_(pa.list_(pa.string())), "DateTime64(3)": pa.timestamp("ms"),
}  # fmt: skip
_TYPES = [(name, _ARROW[kind]) for name, kind in VERDICT_COLUMNS]


def ensure_tables(store: Store) -> None:
    """Apply the store's pending revisions, which include both judge tables."""
    migrate(store)


def table_exists(store: Store, table: str) -> bool:
    """Whether ``table`` exists in the store's database."""
    found = store.query_arrow(
        "SELECT count() AS n FROM system.tables WHERE database = {db:String} AND name = {t:String}",
        {"db": store.database, "t": table},
    )
    return bool(found.column("n")[0].as_py())


def cache_rows(store: Store, models: Sequence[str]) -> dict[str, str]:
    """Every cache entry of these judge models: key → JSON value."""
    if not models:
        return {}
    table = store.query_arrow(
        f"SELECT Key, Value FROM `{store.database}`.`{CACHE_TABLE}` FINAL "
        "WHERE Model IN {models:Array(String)}",
        {"models": list(models)},
    )
    return dict(
        zip(table.column("Key").to_pylist(), table.column("Value").to_pylist(), strict=True)
    )


def insert_cache_rows(store: Store, rows: Sequence[tuple[str, str, str, str, str]]) -> None:
    """Insert (key, kind, model, prompt version, value) rows."""
    names = ("Key", "Kind", "Model", "PromptVersion", "Value")
    data = pa.table({n: pa.array([r[i] for r in rows], pa.string()) for i, n in enumerate(names)})
    store.insert_arrow(CACHE_TABLE, data)


VerdictRow = dict[str, Any]
"""One verdict row: the keys of ``VERDICT_COLUMNS`` (``JudgedAt`` may be left out)."""


def insert_verdicts(store: Store, rows: Sequence[VerdictRow]) -> None:
    """Insert verdict rows in one block; ``JudgedAt`` defaults to now."""
    if not rows:
        return
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    data = pa.table(
        {
            name: pa.array(
                [r.get(name, now) if name == "JudgedAt" else r[name] for r in rows], kind
            )
            for name, kind in _TYPES
        }
    )
    store.insert_arrow(VERDICTS_TABLE, data)


def read_verdicts(store: Store, *, runs: Sequence[str] = ()) -> pl.DataFrame:
    """The latest verdict rows (of every judge), optionally of some runs only.

    An empty frame with the table's columns when nothing was judged yet; the store is never
    written to.
    """
    if not verdicts_ready(store):
        empty = pa.table({name: pa.array([], kind) for name, kind in _TYPES})
        return cast(pl.DataFrame, pl.from_arrow(empty))
    where = "WHERE RunId IN {runs:Array(String)}" if runs else ""
    return store.query_df(
        f"SELECT * FROM `{store.database}`.`{VERDICTS_TABLE}` FINAL {where}",
        {"runs": list(runs)} if runs else None,
    )
