"""The judge cache ``ragfunnel_judge_cache_v1``: cache key → a judge's result, as JSON.

Keys are made from the judge model, the prompt version, the claim and the context's hash
(``judges/cache.py``); a ReplacingMergeTree table, so writing a key again replaces its value.
:mod:`..migrations` creates it with the verdicts table (revision 2).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ragfunnel.analyzer.store.dsn import quote
from ragfunnel.analyzer.store.statements import create_table

if TYPE_CHECKING:
    from ragfunnel.analyzer.store.connection import Store

__all__ = [
    "CACHE_COLUMNS",
    "CACHE_TABLE",
    "CacheRow",
    "cache_ddl",
    "cache_rows",
    "create_cache",
    "insert_cache_rows",
]

CACHE_TABLE = "ragfunnel_judge_cache_v1"

CACHE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("Key", "String"),
    ("Kind", "LowCardinality(String)"),
    ("Model", "LowCardinality(String)"),
    ("PromptVersion", "LowCardinality(String)"),
    ("Value", "String"),
    ("CreatedAt", "DateTime64(3) DEFAULT now64(3)"),
)

CacheRow = tuple[str, str, str, str, str]
"""One entry to write: (key, kind, model, prompt version, value); ``CreatedAt`` is now."""


def cache_ddl(cache: str) -> str:
    """The CREATE statement of the judge cache, given its quoted qualified name."""
    return create_table(cache, CACHE_COLUMNS, "ReplacingMergeTree(CreatedAt) ORDER BY Key")


def create_cache(store: Store) -> None:
    """Create the judge cache if missing (revision 2 of :mod:`..migrations`)."""
    store.command(cache_ddl(quote(store.database, CACHE_TABLE)))


def cache_rows(store: Store, models: Sequence[str]) -> dict[str, str]:
    """Every cache entry of these judge models: key → JSON value."""
    if not models:
        return {}
    table = store.query_arrow(
        f"SELECT Key, Value FROM {quote(store.database, CACHE_TABLE)} FINAL "
        "WHERE Model IN {models:Array(String)}",
        {"models": list(models)},
    )
    return dict(
        zip(table.column("Key").to_pylist(), table.column("Value").to_pylist(), strict=True)
    )


def insert_cache_rows(store: Store, rows: Sequence[CacheRow]) -> None:
    """Insert (key, kind, model, prompt version, value) rows."""
    import pyarrow as pa

    names = ("Key", "Kind", "Model", "PromptVersion", "Value")
    data = pa.table({n: pa.array([r[i] for r in rows], pa.string()) for i, n in enumerate(names)})
    store.insert_arrow(CACHE_TABLE, data)
