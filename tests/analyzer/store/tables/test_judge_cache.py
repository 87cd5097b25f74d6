"""``store/tables/judge_cache.py``: cache key → a judge's result; writing a key again replaces it."""

from __future__ import annotations

import time

from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.tables.judge_cache import (
    cache_rows,
    create_cache,
    insert_cache_rows,
)
from tests.support.recorder import recording


def test_entries_are_read_back_by_model(store: Store) -> None:
    create_cache(store)
    insert_cache_rows(
        store,
        [
            ("k1", "claim", "model-a", "v1", '{"label": "supported"}'),
            ("k2", "answer", "model-a", "v1", "{}"),
            ("k3", "claim", "model-b", "v2", '"x"'),
        ],
    )
    assert cache_rows(store, ["model-a"]) == {"k1": '{"label": "supported"}', "k2": "{}"}
    assert cache_rows(store, ("model-a", "model-b")) == {
        "k1": '{"label": "supported"}',
        "k2": "{}",
        "k3": '"x"',
    }
    assert cache_rows(store, ["model-c"]) == {}


def test_a_key_written_again_holds_its_latest_value(store: Store) -> None:
    create_cache(store)
    insert_cache_rows(store, [("k", "claim", "m", "v1", "old")])
    time.sleep(0.01)  # CreatedAt has milliseconds: the later write is the later version
    insert_cache_rows(store, [("k", "claim", "m", "v1", "new")])
    assert cache_rows(store, ["m"]) == {"k": "new"}


def test_no_models_ask_nothing(store: Store) -> None:
    with recording(store) as recorder:
        assert cache_rows(store, []) == {}
    assert recorder.statements == []
