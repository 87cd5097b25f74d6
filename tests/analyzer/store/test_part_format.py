"""``store/part_format.py``: tables ragfunnel makes in an embedded store keep compact parts and
merge them in bulk."""

from __future__ import annotations

import time

from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.dsn import quote
from ragfunnel.analyzer.store.part_format import COMPACT_PARTS, EMBEDDED_PARTS, MERGE_WIDTH

_WIDTH = "min_parts_to_merge_at_once = "


def _part_types(store: Store, table: str) -> set[str]:
    found = store.query_arrow(
        "SELECT DISTINCT part_type FROM system.parts "
        "WHERE active AND database = {db:String} AND table = {t:String}",
        {"db": store.database, "t": table},
    )
    return set(found.column("part_type").to_pylist())


def test_the_settings_keep_a_part_compact_where_it_would_be_wide(store: Store) -> None:
    for name, settings in [("wide", "min_bytes_for_wide_part = 0"), ("compact", COMPACT_PARTS)]:
        table = quote(store.database, name)
        store.command(
            f"CREATE TABLE {table} (k UInt64, v String) ENGINE = MergeTree ORDER BY k "
            f"SETTINGS {settings}"
        )
        store.command(f"INSERT INTO {table} SELECT number, toString(number) FROM numbers(1000)")
    assert _part_types(store, "wide") == {"Wide"}  # what the settings are there to avoid
    assert _part_types(store, "compact") == {"Compact"}


def _parts(store: Store, table: str) -> int:
    found = store.command(
        "SELECT count() FROM system.parts WHERE active AND database = {db:String} "
        "AND table = {t:String}",
        parameters={"db": store.database, "t": table},
    )
    assert isinstance(found, int)
    return found


def _parts_within(store: Store, table: str, seconds: float, below: int) -> int:
    """The table's active parts once they fall below ``below``, or after ``seconds``."""
    deadline = time.monotonic() + seconds
    while (parts := _parts(store, table)) >= below and time.monotonic() < deadline:
        time.sleep(0.1)
    return parts


def test_merges_wait_until_a_partition_holds_merge_width_parts(store: Store) -> None:
    assert f"min_parts_to_merge_at_once = {MERGE_WIDTH}" in EMBEDDED_PARTS
    width = 8  # the same setting, narrow enough for a test
    for name, settings in [("eager", COMPACT_PARTS), ("bulk", f"{COMPACT_PARTS}, {_WIDTH}{width}")]:
        table = quote(store.database, name)
        store.command(
            f"CREATE TABLE {table} (k UInt64) ENGINE = MergeTree ORDER BY k SETTINGS {settings}"
        )
        for part in range(width - 1):
            store.command(f"INSERT INTO {table} SELECT {part} * 100 + number FROM numbers(100)")
    assert _parts_within(store, "eager", 30, below=width - 1) < width - 1  # the default merges
    assert _parts_within(store, "bulk", 2, below=width - 1) == width - 1  # too few to merge
    store.command(f"INSERT INTO {quote(store.database, 'bulk')} SELECT 1000")
    assert _parts_within(store, "bulk", 30, below=width) == 1  # a full partition: merged at once
