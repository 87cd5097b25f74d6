"""The offline analyzer: store, ingest, funnel, metrics, reports and the CLI.

Needs the ``ragfunnel[analyzer]`` extra. Nothing in here is imported by the instrumentation.

    from ragfunnel.analyzer import Store, analyze

    with Store.open() as store:            # chdb://.ragfunnel/store, or RAGFUNNEL_STORE
        result = analyze(store, "cases.yaml")
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragfunnel.analyzer.funnel import analyze
    from ragfunnel.analyzer.ingest import ingest_paths
    from ragfunnel.analyzer.store import Store

__all__ = ["Store", "analyze", "ingest_paths"]

_HOMES = {
    "Store": "ragfunnel.analyzer.store",
    "analyze": "ragfunnel.analyzer.funnel",
    "ingest_paths": "ragfunnel.analyzer.ingest",
}


def __getattr__(name: str) -> Any:
    # Lazy: importing one submodule (say the store) must not load the whole analyzer.
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'ragfunnel.analyzer' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(home), name)
