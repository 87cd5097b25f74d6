"""The verdict cache (judges/cache.py): keys, the in-memory cache and the store's cache table."""

from __future__ import annotations

from ragfunnel.analyzer.judges import tables
from ragfunnel.analyzer.judges.cache import MemoryCache, StoreCache, cache_key
from ragfunnel.analyzer.store import Store


def test_a_key_depends_on_every_part_and_where_the_parts_split() -> None:
    key = cache_key("verdict", "m", "verdicts-v1", "a claim", "ctx")
    assert key == cache_key("verdict", "m", "verdicts-v1", "a claim", "ctx")
    assert len(key) == 64 and int(key, 16) >= 0
    others = {
        cache_key("claims", "m", "verdicts-v1", "a claim", "ctx"),
        cache_key("verdict", "other", "verdicts-v1", "a claim", "ctx"),
        cache_key("verdict", "m", "verdicts-v2", "a claim", "ctx"),
        cache_key("verdict", "m", "verdicts-v1", "a clai", "mctx"),  # same letters, split apart
        cache_key("verdict", "m", "verdicts-v1", "a claim"),
    }
    assert key not in others and len(others) == 5


def test_the_memory_cache_remembers_within_the_process() -> None:
    cache = MemoryCache()
    assert cache.get("k") is None and len(cache) == 0
    cache.put("k", '{"label": "supported"}', kind="verdict", model="m", prompt_version="v1")
    cache.put("k", '{"label": "partial"}', kind="verdict", model="m", prompt_version="v1")
    cache.flush()
    assert cache.get("k") == '{"label": "partial"}' and len(cache) == 1


def test_the_store_cache_writes_on_flush_and_reads_per_model(store: Store) -> None:
    first = StoreCache(store, ["m"])
    first.put("k1", "one", kind="verdict", model="m", prompt_version="v1")
    first.put("k2", "two", kind="claims", model="other", prompt_version="v1")
    assert first.get("k1") == "one" and len(first) == 2
    assert StoreCache(store, ["m", "other"]).get("k1") is None  # not flushed yet
    first.flush()
    first.flush()  # nothing new: no second insert
    again = StoreCache(store, iter(["m"]))  # models as any iterable
    assert (again.get("k1"), again.get("k2"), len(again)) == ("one", None, 1)
    both = StoreCache(store, ("m", "other"))
    assert (both.get("k1"), both.get("k2")) == ("one", "two")
    assert len(StoreCache(store, [])) == 0


def test_a_read_only_store_cache_creates_and_writes_nothing(store: Store) -> None:
    cache = StoreCache(store, ["m"], write=False)
    cache.put("k", "value", kind="verdict", model="m", prompt_version="v1")
    cache.flush()
    assert cache.get("k") == "value"  # remembered for this run
    assert not tables.table_exists(store, tables.CACHE_TABLE)
    StoreCache(store, ["m"]).flush()  # a writing cache creates the table
    assert len(StoreCache(store, ["m"], write=False)) == 0
