"""The judges' two tables beside ``otel_traces``: verdicts, and the judge cache.

``ragfunnel_verdicts_v1`` holds one row per judged answer (a generate span) and judge: the
claims with their verdicts, supporting ids and missing terms, the faithfulness, the answer's
correctness and the signals that flagged it. The funnel reads it; ``ragfunnel judge`` writes
it. ``ragfunnel_judge_cache_v1`` maps cache keys to judge results (``cache.py``). Both are
ReplacingMergeTree tables, so writing a verdict again replaces the old one.

This module reads and writes those two tables and nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, cast

import polars as pl
import pyarrow as pa

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

VERDICTS_TABLE = "ragfunnel_verdicts_v1"
CACHE_TABLE = "ragfunnel_judge_cache_v1"

VERDICT_COLUMNS: tuple[tuple[str, str, pa.DataType], ...] = (
    ("TraceId", "String", pa.string()),
    ("SpanId", "String", pa.string()),
    ("QuestionKey", "String", pa.string()),
    ("RunId", "LowCardinality(String)", pa.string()),
    ("Mode", "LowCardinality(String)", pa.string()),
    ("Judge", "LowCardinality(String)", pa.string()),
    ("Policy", "LowCardinality(String)", pa.string()),
    ("AnswerHash", "String", pa.string()),
    ("ContextHash", "String", pa.string()),
    ("Abstained", "UInt8", pa.uint8()),
    ("Faithfulness", "Nullable(Float64)", pa.float64()),
    ("ClaimTexts", "Array(String)", pa.list_(pa.string())),
    ("ClaimVerdicts", "Array(Float64)", pa.list_(pa.float64())),
    ("ClaimLabels", "Array(String)", pa.list_(pa.string())),
    ("ClaimSupportingIds", "Array(Array(String))", pa.list_(pa.list_(pa.string()))),
    ("ClaimMissing", "Array(String)", pa.list_(pa.string())),
    ("Correctness", "LowCardinality(String)", pa.string()),
    ("CorrectnessReason", "String", pa.string()),
    ("Signals", "Array(String)", pa.list_(pa.string())),
    ("Sampled", "UInt8", pa.uint8()),
    ("JudgedAt", "DateTime64(3)", pa.timestamp("ms")),
)


def verdicts_ddl(database: str) -> str:
    """The verdicts table's CREATE statement."""
    columns = ",\n    ".join(f"`{name}` {kind}" for name, kind, _ in VERDICT_COLUMNS)
    return (
        f"CREATE TABLE IF NOT EXISTS `{database}`.`{VERDICTS_TABLE}` (\n    {columns}\n) "
        "ENGINE = ReplacingMergeTree(JudgedAt) ORDER BY (TraceId, SpanId, Judge)"
    )


def cache_ddl(database: str) -> str:
    """The judge cache table's CREATE statement."""
    return (
        f"CREATE TABLE IF NOT EXISTS `{database}`.`{CACHE_TABLE}` (Key String, "
        "Kind LowCardinality(String), Model LowCardinality(String), "
        "PromptVersion LowCardinality(String), Value String, "
        "CreatedAt DateTime64(3) DEFAULT now64(3)) ENGINE = ReplacingMergeTree ORDER BY Key"
    )


def ensure_tables(store: Store) -> None:
    """Create both tables when missing (judging writes; reading never creates)."""
    store.command(verdicts_ddl(store.database))
    store.command(cache_ddl(store.database))


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
            for name, _, kind in VERDICT_COLUMNS
        }
    )
    store.insert_arrow(VERDICTS_TABLE, data)


def read_verdicts(store: Store, *, runs: Sequence[str] = ()) -> pl.DataFrame:
    """The latest verdict rows (of every judge), optionally of some runs only.

    An empty frame with the table's columns when nothing was judged yet; the store is never
    written to.
    """
    if not table_exists(store, VERDICTS_TABLE):
        empty = pa.table({name: pa.array([], kind) for name, _, kind in VERDICT_COLUMNS})
        return cast(pl.DataFrame, pl.from_arrow(empty))
    where = "WHERE RunId IN {runs:Array(String)}" if runs else ""
    return store.query_df(
        f"SELECT * FROM `{store.database}`.`{VERDICTS_TABLE}` FINAL {where}",
        {"runs": list(runs)} if runs else None,
    )
