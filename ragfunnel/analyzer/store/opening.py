"""Public functions that take a store take a DSN or a store path too: :func:`takes_store`.

``ingest_paths(".ragfunnel/store", ...)``, ``analyze("http://host:8123/otel", ...)``: a string
(or path) is opened for the call — as the function's purpose needs — and closed after it; an
open :class:`~ragfunnel.analyzer.store.Store` is used as given and left open.

- ``"ingest"``: :meth:`Store.open` with ``create=True`` — ingest is what creates a store;
- ``"write"``: :meth:`Store.open`, never created (judging, migrating an existing store);
- ``"analysis"``: :meth:`Store.open_for_analysis` — never created, read-only on a server.

A decorated function declares its first parameter ``store: StoreArg`` and begins with
``assert isinstance(store, Store)``: by then it is one.
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable
from typing import Literal, ParamSpec, TypeVar

from ragfunnel.analyzer.store.connection import Store

__all__ = ["StoreArg", "takes_store"]

StoreArg = Store | str | os.PathLike[str]
"""What a public function accepts as its store: an open store, a DSN or a store path."""

P = ParamSpec("P")
R = TypeVar("R")


def takes_store(
    purpose: Literal["ingest", "write", "analysis"],
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Let a function whose first parameter is ``store`` take a DSN or path there too."""

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        first = next(iter(inspect.signature(function).parameters))
        if first != "store":
            raise TypeError(f"{function.__qualname__}: the first parameter must be 'store'")

        @functools.wraps(function)
        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            given = args[0] if args else kwargs.get("store")
            if isinstance(given, Store) or not isinstance(given, (str, os.PathLike)):
                return function(*args, **kwargs)  # a Store, or a mistake the function reports
            dsn = os.fspath(given)
            opened = (
                Store.open_for_analysis(dsn)
                if purpose == "analysis"
                else Store.open(dsn, create=purpose == "ingest")
            )
            with opened:
                if args:
                    return function(*(opened, *args[1:]), **kwargs)  # type: ignore[arg-type]
                return function(*args, **{**kwargs, "store": opened})  # type: ignore[arg-type]

        return call

    return decorate
