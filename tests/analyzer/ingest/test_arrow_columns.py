"""``ingest/arrow_columns.py``: the Arrow schema of a chunk, its map columns and dictionaries."""

from __future__ import annotations

import pyarrow as pa

from ragfunnel.analyzer.ingest.arrow_columns import TRACES_ARROW_SCHEMA, MapColumn, dictionary_of
from ragfunnel.analyzer.store import TRACES_COLUMNS


def test_the_schema_has_the_traces_tables_columns_in_order() -> None:
    assert TRACES_ARROW_SCHEMA.names == list(TRACES_COLUMNS)
    low_cardinality = [n for n, t in TRACES_COLUMNS.items() if t == "LowCardinality(String)"]
    assert all(pa.types.is_dictionary(TRACES_ARROW_SCHEMA.field(n).type) for n in low_cardinality)


def test_a_map_column_keeps_each_rows_pairs_in_order() -> None:
    column = MapColumn()
    column.append(["b", "a"], ["2", "1"])
    column.append([], [])
    column.append(["a"], ["3"])
    built = column.to_arrow()
    assert built.to_pylist() == [[("b", "2"), ("a", "1")], [], [("a", "3")]]
    assert pa.types.is_dictionary(built.type.key_type)
    assert built.keys.dictionary.to_pylist() == ["b", "a"]  # each key once


def test_a_dictionary_never_repeats_a_value() -> None:
    indices = pa.array([0, 1, 2, 0], pa.int32())
    unique = dictionary_of(indices, ["svc-a", "svc-b", "svc-c"])
    assert unique.to_pylist() == ["svc-a", "svc-b", "svc-c", "svc-a"]
    repeated = dictionary_of(indices, ["svc-a", "svc-b", "svc-a"])  # two resources, one name
    assert repeated.to_pylist() == ["svc-a", "svc-b", "svc-a", "svc-a"]
    assert sorted(repeated.dictionary.to_pylist()) == ["svc-a", "svc-b"]
