"""A stand-in for a store's client that records every statement sent through it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragfunnel.analyzer.store import Store

__all__ = ["Recorder", "recording"]


class Recorder:
    """Stands in for a store's client and records every statement sent through it."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.statements: list[str] = []

    def command(self, sql: str, *args: Any, **kw: Any) -> Any:
        self.statements.append(sql)
        return self._client.command(sql, *args, **kw)

    def query_arrow(self, sql: str, *args: Any, **kw: Any) -> Any:
        self.statements.append(sql)
        return self._client.query_arrow(sql, *args, **kw)

    def insert_arrow(self, table: str, data: Any, *args: Any, **kw: Any) -> Any:
        database = kw.get("database")
        self.statements.append(f"INSERT INTO `{database}`.`{table}`" if database else
                               f"INSERT INTO `{table}`")  # fmt: skip
        return self._client.insert_arrow(table, data, *args, **kw)

    def __getattr__(self, name: str) -> Any:
        # Any other call would bypass the record: the test must know every way in.
        if callable(getattr(self._client, name)) and name != "close":
            raise AssertionError(f"unrecorded client call {name}()")
        return getattr(self._client, name)


@contextmanager
def recording(store: Store) -> Iterator[Recorder]:
    """Within the block, every statement ``store`` sends is recorded (``.statements``)."""
    recorder = Recorder(store.client)
    store.client = recorder
    try:
        yield recorder
    finally:
        store.client = recorder._client
