"""Instrumentation: decorators that turn a RAG app's steps into OpenTelemetry spans.

Light dependencies only (OpenTelemetry API, SDK and exporters): this package runs inside
production services. It must never import the analyzer or its heavy dependencies — an
import-linter contract in pyproject.toml enforces that.
"""

from ragfunnel.instrumentation.config import (
    ConfigError,
    configure,
    export_stats,
    flush,
)
from ragfunnel.instrumentation.contract import SCHEMA_VERSION, Mode, Stage
from ragfunnel.instrumentation.decorators import (
    StageHandle,
    abstain,
    cut,
    generate,
    ingest,
    question,
    rerank,
    retrieve,
    stage,
)
from ragfunnel.instrumentation.export import ExportStats, dropped_counts
from ragfunnel.instrumentation.exporters import (
    DEFAULT_TRACE_DIR as DEFAULT_TRACE_DIR,  # for the CLI's `ingest` default; not in ragfunnel's API
)
from ragfunnel.instrumentation.safety import internal_error_counts, unread_counts
from ragfunnel.instrumentation.threads import ContextThreadPoolExecutor, with_context

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
    "dropped_counts",
    "export_stats",
    "flush",
    "generate",
    "ingest",
    "internal_error_counts",
    "question",
    "rerank",
    "retrieve",
    "stage",
    "unread_counts",
    "with_context",
]
