"""``store/temporary.py``: a session's temporary tables, made, filled, dropped."""

from __future__ import annotations

import pyarrow as pa
import pytest

from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.store_error import StoreError
from ragfunnel.analyzer.store.temporary import TemporaryTables


def _rows(store: Store, table: str) -> list[dict[str, object]]:
    return store.query_arrow(f"SELECT * FROM {table} ORDER BY k").to_pylist()


def test_made_filled_and_dropped(store: Store) -> None:
    temporary = TemporaryTables(store)
    keys = temporary.create("keys", "k String, n UInt32")
    assert keys == "`keys`" and temporary.created == ["keys"]
    temporary.fill(
        "keys", pa.table({"k": pa.array([], pa.string()), "n": pa.array([], pa.uint32())})
    )
    assert _rows(store, keys) == []
    temporary.fill("keys", pa.table({"k": ["b", "a"], "n": pa.array([2, 1], pa.uint32())}))
    assert _rows(store, keys) == [{"k": "a", "n": 1}, {"k": "b", "n": 2}]

    copy = temporary.create("copy", "k String, n UInt32")
    temporary.fill_from("copy", f"SELECT k, n * 10 FROM {keys} WHERE n > 1")
    assert _rows(store, copy) == [{"k": "b", "n": 20}]

    temporary.drop("copy")
    temporary.create("copy", "k String")  # made again after a drop
    assert _rows(store, copy) == []
    temporary.drop_all()
    for table in (keys, copy):
        with pytest.raises(Exception, match=r"(?i)unknown table|doesn't exist|does not exist"):
            _rows(store, table)
    temporary.drop_all()  # a second time: the tables are gone, nothing fails


def test_a_name_must_be_an_identifier(store: Store) -> None:
    temporary = TemporaryTables(store)
    with pytest.raises(StoreError, match="table name 'keys; DROP TABLE x' is not allowed"):
        temporary.create("keys; DROP TABLE x", "k String")
    assert temporary.created == []
