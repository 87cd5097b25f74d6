"""``store/part_format.py``: tables ragfunnel makes in an embedded store keep compact parts."""

from __future__ import annotations

from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.dsn import quote
from ragfunnel.analyzer.store.part_format import COMPACT_PARTS


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
