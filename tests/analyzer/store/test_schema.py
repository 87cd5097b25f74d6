"""``store/schema.py``: what a store has and what is current, read in one look, never written."""

from __future__ import annotations

import pytest

from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.dsn import quote
from ragfunnel.analyzer.store.migrations import REVISIONS, migrate
from ragfunnel.analyzer.store.schema import (
    StoreSchema,
    TableEntry,
    applied_markers,
    applied_revision,
    has_table,
    read_schema,
    stage_table_ready,
    stage_view_attached,
    table_columns,
    verdicts_ready,
)
from ragfunnel.analyzer.store.tables.judge_cache import CACHE_TABLE
from ragfunnel.analyzer.store.tables.stage_spans import STAGE_TABLE, VIEW_NAME
from ragfunnel.analyzer.store.tables.verdicts import LEGACY_VERDICTS_TABLE, VERDICTS_TABLE
from tests.support.recorder import recording


def schema(*names: str, markers: dict[str, int] | None = None) -> StoreSchema:
    return StoreSchema({n: TableEntry(n, "MergeTree", 0) for n in names}, markers or {})


def test_the_revision_is_the_highest_marker() -> None:
    assert schema().revision == 0
    assert schema(markers={"a": 1, "c": 3, "b": 2}).revision == 3


def test_the_stage_table_is_current_only_with_its_marker() -> None:
    assert not schema(STAGE_TABLE).stage_table_current  # made, backfill not finished
    assert not schema(markers={STAGE_TABLE: 1}).stage_table_current  # marked, then dropped
    current = schema(STAGE_TABLE, markers={STAGE_TABLE: 1})
    assert current.stage_table_current and not current.stage_view_attached
    assert schema(STAGE_TABLE, VIEW_NAME, markers={STAGE_TABLE: 1}).stage_view_attached
    assert not schema(VIEW_NAME, markers={}).stage_view_attached


@pytest.mark.parametrize(
    ("names", "markers", "expected"),
    [
        ((), {}, None),
        ((VERDICTS_TABLE,), {VERDICTS_TABLE: 3}, VERDICTS_TABLE),
        ((LEGACY_VERDICTS_TABLE,), {LEGACY_VERDICTS_TABLE: 2}, LEGACY_VERDICTS_TABLE),
        # the copy began and did not finish: the old table still holds every verdict
        ((LEGACY_VERDICTS_TABLE, VERDICTS_TABLE), {}, LEGACY_VERDICTS_TABLE),
        # the copy finished, the drop did not: the new table is whole
        ((LEGACY_VERDICTS_TABLE, VERDICTS_TABLE), {VERDICTS_TABLE: 3}, VERDICTS_TABLE),
    ],
    ids=["none", "current", "old", "copy-unfinished", "drop-unfinished"],
)
def test_the_verdicts_table_to_read(
    names: tuple[str, ...], markers: dict[str, int], expected: str | None
) -> None:
    found = schema(*names, markers=markers)
    assert found.verdicts_table == expected
    assert found.verdicts_present is (expected is not None)


def test_read_schema_lists_tables_engines_rows_and_markers(store: Store) -> None:
    before = read_schema(store)
    assert set(before.tables) == {store.table} and before.markers == {}
    assert before.tables[store.table] == TableEntry(store.table, "MergeTree", 0)

    migrate(store)
    after = read_schema(store)
    assert after.markers == {r.marker: r.number for r in REVISIONS}
    assert after.tables[VIEW_NAME].engine == "MaterializedView"
    assert after.tables[VIEW_NAME].rows is None  # a view counts no rows
    assert after.has(CACHE_TABLE) and after.judge_cache_present
    assert after.stage_view_attached and after.verdicts_table == VERDICTS_TABLE


def test_the_shortcuts_ask_the_same_schema(store: Store) -> None:
    assert (applied_revision(store), applied_markers(store)) == (0, set())
    assert not (verdicts_ready(store) or stage_table_ready(store) or stage_view_attached(store))
    assert has_table(store, store.table) and not has_table(store, STAGE_TABLE)
    migrate(store, revisions=REVISIONS[:1])
    assert applied_revision(store) == 1 and applied_markers(store) == {STAGE_TABLE}
    assert stage_table_ready(store) and stage_view_attached(store) and not verdicts_ready(store)


def test_table_columns_in_table_order_and_empty_for_no_table(store: Store) -> None:
    table = quote(store.database, "cols")
    store.command(f"CREATE TABLE {table} (b UInt8, a Nullable(String)) ENGINE = Memory")
    assert list(table_columns(store, "cols").items()) == [("b", "UInt8"), ("a", "Nullable(String)")]
    assert table_columns(store, "no_such_table") == {}


def test_reading_the_schema_never_writes(store: Store) -> None:
    migrate(store)
    with recording(store) as recorder:
        read_schema(store)
        table_columns(store, store.table)
    assert len(recorder.statements) == 3  # system.tables, the markers, system.columns
    assert all(s.lstrip().startswith("SELECT") for s in recorder.statements)
