"""``store/tables/markers.py``: the schema marker, one row per revision applied."""

from __future__ import annotations

from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.dsn import quote
from ragfunnel.analyzer.store.tables.markers import (
    MARKER_TABLE,
    create_markers,
    read_markers,
    write_marker,
)


def test_markers_are_written_and_read_back_by_object(store: Store) -> None:
    create_markers(store)
    assert read_markers(store) == {}
    write_marker(store, "ragfunnel_a", 1)
    write_marker(store, "ragfunnel_b", 2)
    assert read_markers(store) == {"ragfunnel_a": 1, "ragfunnel_b": 2}


def test_an_object_marked_twice_counts_its_highest_revision(store: Store) -> None:
    create_markers(store)
    write_marker(store, "ragfunnel_a", 3)
    write_marker(store, "ragfunnel_a", 2)
    assert read_markers(store) == {"ragfunnel_a": 3}


def test_creating_the_table_again_keeps_its_rows(store: Store) -> None:
    create_markers(store)
    write_marker(store, "ragfunnel_a", 1)
    create_markers(store)
    assert read_markers(store) == {"ragfunnel_a": 1}
    done = store.command(
        f"SELECT count() FROM {quote(store.database, MARKER_TABLE)} WHERE done > 0"
    )
    assert done == 1  # when it finished, set by the insert
