"""The verdict cache: a judge never pays twice for the same verdict.

A key is the SHA-256 of the kind of result (``claims``, ``verdict``, ``factcheck``,
``correctness``), the judge model, the prompt version and the inputs the result depends on —
for a claim verdict, the claim text and the hash of the whole context (every chunk id and
text, in order). A rerun, or a second run whose answers repeat, finds every key and makes no
call. :class:`MemoryCache` lives for one process; :class:`StoreCache` keeps the entries in the
store's judge-cache table, read once per model and written once per run (``flush``).

The cache stores what judges return, as JSON; it never decides anything itself.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ragfunnel.analyzer.store import Store

__all__ = ["MemoryCache", "StoreCache", "VerdictCache", "cache_key"]


def cache_key(kind: str, model: str, prompt_version: str, *parts: str) -> str:
    """The cache key of one judge result (see the module docstring)."""
    digest = hashlib.sha256()
    for part in (kind, model, prompt_version, *parts):
        data = part.encode("utf-8")
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


class VerdictCache(Protocol):
    """What a judge needs from a cache."""

    def get(self, key: str) -> str | None:
        """The cached JSON for ``key``, or ``None``."""

    def put(self, key: str, value: str, *, kind: str, model: str, prompt_version: str) -> None:
        """Remember ``value`` for ``key``."""

    def flush(self) -> None:
        """Make the new entries durable (a no-op for an in-memory cache)."""


class MemoryCache:
    """A cache for one process (tests, one-off judging)."""

    def __init__(self) -> None:
        self._data: dict[str, str] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> str | None:
        """The cached JSON for ``key``, or ``None``."""
        with self._lock:
            return self._data.get(key)

    def put(self, key: str, value: str, *, kind: str, model: str, prompt_version: str) -> None:
        """Remember ``value`` for ``key``."""
        with self._lock:
            self._data[key] = value

    def flush(self) -> None:
        """Nothing to write."""

    def __len__(self) -> int:
        return len(self._data)


class StoreCache:
    """The cache in the store's judge-cache table (one read per model, one write per flush).

    With ``write=False`` the table is read if it exists and never created or written.
    """

    def __init__(self, store: Store, models: Iterable[str], *, write: bool = True) -> None:
        from ragfunnel.analyzer.judges.tables import cache_rows, ensure_tables
        from ragfunnel.analyzer.store.schema import read_schema

        if write:
            ensure_tables(store)
        self._store = store
        self._write = write
        exists = write or read_schema(store).judge_cache_present
        self._data = cache_rows(store, list(models)) if exists else {}
        self._new: list[tuple[str, str, str, str, str]] = []
        self._lock = threading.Lock()

    def get(self, key: str) -> str | None:
        """The cached JSON for ``key``, or ``None``."""
        with self._lock:
            return self._data.get(key)

    def put(self, key: str, value: str, *, kind: str, model: str, prompt_version: str) -> None:
        """Remember ``value``; written to the store by :meth:`flush`."""
        with self._lock:
            self._data[key] = value
            self._new.append((key, kind, model, prompt_version, value))

    def flush(self) -> None:
        """Insert the entries added since the last flush, in one insert."""
        from ragfunnel.analyzer.judges.tables import insert_cache_rows

        with self._lock:
            rows, self._new = self._new, []
        if rows and self._write:
            insert_cache_rows(self._store, rows)

    def __len__(self) -> int:
        return len(self._data)
