"""Loading spans into the store: OTLP JSON files, Jaeger exports, a running Jaeger, SDK spans.

Every input becomes the rows the collector's clickhouseexporter would have written to
``otel_traces`` (``rows``), whatever its format (``otlp``, ``jaeger``). Ingest is idempotent —
spans already stored are not added again — and never stops on bad input: each problem comes back
in the :class:`IngestSummary` with its file and line.

Example::

    from ragfunnel.analyzer.store import Store
    from ragfunnel.analyzer.ingest import ingest_paths

    with Store.open() as store:
        summary = ingest_paths(store, [".ragfunnel/traces"])
        print(summary.describe())
"""

from ragfunnel.analyzer.ingest._load import (
    DEFAULT_TRACE_DIR,
    ingest_lines,
    ingest_paths,
    ingest_spans,
    pull_from_jaeger,
    spans_to_arrow,
)
from ragfunnel.analyzer.ingest._summary import IngestError, IngestSummary, Skip
from ragfunnel.analyzer.ingest.rows import MAX_VALUE_CHARS, TRACES_ARROW_SCHEMA

__all__ = [
    "DEFAULT_TRACE_DIR",
    "MAX_VALUE_CHARS",
    "TRACES_ARROW_SCHEMA",
    "IngestError",
    "IngestSummary",
    "Skip",
    "ingest_lines",
    "ingest_paths",
    "ingest_spans",
    "pull_from_jaeger",
    "spans_to_arrow",
]
