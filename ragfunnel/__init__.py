"""ragfunnel: find where each wrong RAG answer was born.

Decorate the steps of a RAG app (``question``, ``ingest``, ``retrieve``, ``rerank``, ``cut``,
``generate``), call :func:`configure` once (or rely on the defaults: OTLP-JSON files under
``.ragfunnel/traces/``), then analyze the traces with ``ragfunnel ingest`` and
``ragfunnel analyze`` (the ``ragfunnel[analyzer]`` extra).
"""

from ragfunnel.instrumentation import (
    SCHEMA_VERSION,
    ConfigError,
    ContextThreadPoolExecutor,
    ExportStats,
    Mode,
    Stage,
    StageHandle,
    abstain,
    configure,
    cut,
    export_stats,
    flush,
    generate,
    ingest,
    internal_error_counts,
    question,
    rerank,
    retrieve,
    stage,
    with_context,
)

__all__ = [
    "SCHEMA_VERSION",
    "ConfigError",
    "ContextThreadPoolExecutor",
    "ExportStats",
    "Mode",
    "Stage",
    "StageHandle",
    "abstain",
    "configure",
    "cut",
    "export_stats",
    "flush",
    "generate",
    "ingest",
    "internal_error_counts",
    "question",
    "rerank",
    "retrieve",
    "stage",
    "with_context",
]
