"""ragfunnel: find where each wrong RAG answer was born.

Decorate the steps of a RAG app (``question``, ``ingest``, ``retrieve``, ``rerank``, ``cut``,
``generate``), call :func:`configure` once (or rely on the defaults: OTLP-JSON files under
``.ragfunnel/traces/``), then analyze the traces with ``ragfunnel ingest`` and
``ragfunnel analyze`` (the ``ragfunnel[analyzer]`` extra).

The public API is the instrumentation's, listed once in ``ragfunnel/instrumentation/__init__.py``.
It is loaded on first use (``ragfunnel.configure``, ``from ragfunnel import question``), so that
importing a sibling package (the ``ragfunnel`` command line) does not start the OpenTelemetry SDK.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragfunnel.instrumentation import *  # noqa: F403 - this façade is that package's __all__


def _instrumentation() -> ModuleType:
    return importlib.import_module("ragfunnel.instrumentation")


def __getattr__(name: str) -> Any:
    instrumentation = _instrumentation()

    if name == "__all__":
        return list(instrumentation.__all__)
    if name in instrumentation.__all__:
        return getattr(instrumentation, name)
    raise AttributeError(f"module 'ragfunnel' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_instrumentation().__all__})
