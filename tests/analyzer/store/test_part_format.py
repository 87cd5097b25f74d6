"""``store/part_format.py``: tables ragfunnel makes in an embedded store keep compact parts,
merged a few at a time; its verdicts merge column by column."""

from __future__ import annotations

import time
from typing import Any

from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.dsn import quote
from ragfunnel.analyzer.store.part_format import COMPACT_PARTS, MERGES_BY_COLUMN, PART_SETTINGS
from ragfunnel.analyzer.store.tables.verdicts import VERDICTS_TABLE, create_verdicts, verdicts_ddl


def _part_types(store: Store, table: str) -> set[str]:
    return set(_parts(store, table, "active", "part_type"))


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


def test_a_merge_takes_at_most_eight_parts_of_granules_of_at_most_4_mib(store: Store) -> None:
    """A merge of compact parts holds a granule of each part it merges: bounded both ways, an
    ingest of large spans that merged 99 parts at once no longer takes gigabytes."""
    for name, settings in [("engine_default", COMPACT_PARTS), ("bounded", PART_SETTINGS)]:
        table = quote(store.database, name)
        store.command(
            f"CREATE TABLE {table} (k UInt64, v String) ENGINE = MergeTree ORDER BY k "
            f"SETTINGS {settings}"
        )
        store.command(f"SYSTEM STOP MERGES {table}")
        for first in range(0, 20_000, 1_000):  # 20 parts of 1,000 rows of 8 KB
            store.command(
                f"INSERT INTO {table} SELECT number, repeat('x', 8192) FROM numbers({first}, 1000)"
            )
        store.command(f"SYSTEM START MERGES {table}")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not all(
        _merged(store, name) for name in ("engine_default", "bounded")
    ):
        time.sleep(0.2)
    # The parts the first round of merges wrote (level 1; the parts they replaced stay listed,
    # inactive, for minutes), by how many inserted parts each was made of.
    assert max(_first_merges(store, "engine_default")) > 8  # what the settings are there to avoid
    assert max(_first_merges(store, "bounded")) <= 8
    assert _granules(store, "engine_default") < _granules(store, "bounded")


def test_an_embedded_store_s_verdicts_merge_column_by_column(store: Store) -> None:
    """A judge's verdict parts merge in its own process: by column, a merge holds one column of
    each part at a time, not all of them (bench/RESULTS.md, "Issue 35, fifteenth session")."""
    create_verdicts(store)  # the engine refuses a setting it does not know
    made = (
        store.query_arrow(
            "SELECT create_table_query AS q FROM system.tables "
            "WHERE database = {db:String} AND name = {t:String}",
            {"db": store.database, "t": VERDICTS_TABLE},
        )
        .column("q")[0]
        .as_py()
    )
    assert "vertical_merge_algorithm_min_rows_to_activate = 1" in made
    assert "vertical_merge_algorithm_min_columns_to_activate = 1" in made
    # A server's verdicts table keeps the server's defaults, as its other tables do.
    assert "SETTINGS" not in verdicts_ddl("v")
    assert verdicts_ddl("v", merges_by_column=True).endswith(f"SETTINGS {MERGES_BY_COLUMN}")


def _parts(store: Store, table: str, where: str, value: str) -> list[Any]:
    found = store.query_arrow(
        f"SELECT {value} AS v FROM system.parts "
        f"WHERE database = {{db:String}} AND table = {{t:String}} AND {where}",
        {"db": store.database, "t": table},
    )
    values: list[Any] = found.column("v").to_pylist()
    return values


def _merged(store: Store, table: str) -> bool:
    """Whether the engine is done merging ``table`` down to a few parts."""
    return len(_parts(store, table, "active", "1")) <= 3


def _first_merges(store: Store, table: str) -> list[int]:
    return _parts(store, table, "level = 1", "max_block_number - min_block_number + 1")


def _granules(store: Store, table: str) -> int:
    return sum(_parts(store, table, "active", "marks"))
