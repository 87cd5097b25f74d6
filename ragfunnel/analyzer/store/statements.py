"""The pieces every table module's statements share.

One CREATE builder, one run filter, one time range: each table module (``tables/``) writes its
own statements with these.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragfunnel.analyzer.store.connection import Store

__all__ = ["create_table", "run_filter", "run_parameters", "time_range"]


def create_table(
    table: str,
    columns: Sequence[tuple[str, str]],
    engine: str,
    *,
    indexes: Sequence[str] = (),
    settings: str = "",
) -> str:
    """``CREATE TABLE IF NOT EXISTS`` of ``table`` (quoted) with ``(name, type)`` columns.

    A column's type may go on with its ``DEFAULT`` or ``CODEC``; ``indexes`` are data-skipping
    indexes, each what follows ``INDEX`` (``"idx TraceId TYPE bloom_filter GRANULARITY 1"``).
    ``engine`` is the rest of the statement (``"MergeTree ORDER BY Key"``); ``settings`` its
    ``SETTINGS`` clause's content, when any.
    """
    listed = ",\n    ".join(
        [f"`{name}` {kind}" for name, kind in columns] + [f"INDEX {index}" for index in indexes]
    )
    tail = f" SETTINGS {settings}" if settings else ""
    return f"CREATE TABLE IF NOT EXISTS {table} (\n    {listed}\n) ENGINE = {engine}{tail}"


def run_filter(runs: Collection[str] | bool, keyword: str = "WHERE") -> str:
    """``{keyword} RunId IN {runs:…}`` when ``runs`` are given (or true), else ``""``.

    The parameter it names comes from :func:`run_parameters`.
    """
    return f"{keyword} RunId IN {{runs:Array(String)}}" if runs else ""


def run_parameters(runs: Collection[str]) -> dict[str, object]:
    """The ``runs`` parameter of :func:`run_filter` (empty without runs)."""
    return {"runs": list(runs)} if runs else {}


def time_range(store: Store, table: str) -> tuple[int, int] | None:
    """The first and last ``Timestamp`` (ns) of ``table``'s rows; None when it is empty.

    min/max of the partition column come from each part's min-max index, not the rows.
    """
    row = store.query_arrow(
        "SELECT count() AS n, toUnixTimestamp64Nano(min(Timestamp)) AS low, "
        f"toUnixTimestamp64Nano(max(Timestamp)) AS high FROM {table}"
    ).to_pylist()[0]
    return (int(row["low"]), int(row["high"])) if int(row["n"]) else None
