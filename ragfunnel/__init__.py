"""ragfunnel: find where each wrong RAG answer was born.

Decorate the steps of a RAG app (``question``, ``ingest``, ``retrieve``, ``rerank``, ``cut``,
``generate``), call :func:`configure` once (or rely on the defaults: OTLP-JSON files under
``.ragfunnel/traces/``), then analyze the traces with ``ragfunnel ingest`` and
``ragfunnel analyze`` (the ``ragfunnel[analyzer]`` extra).

The public API is the instrumentation's, listed once in ``ragfunnel/instrumentation/__init__.py``.
"""

from ragfunnel import instrumentation as _instrumentation
from ragfunnel.instrumentation import *  # noqa: F403 - this façade is that package's __all__

__all__ = list(_instrumentation.__all__)
