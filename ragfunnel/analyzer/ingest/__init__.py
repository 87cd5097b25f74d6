"""Loading spans into the store: OTLP JSON files, Jaeger exports, a running Jaeger, SDK spans.

Every input becomes the rows the collector's clickhouseexporter would have written to
``otel_traces`` (``rows``), whatever its format (``otlp``, ``jaeger``). Ingest is idempotent —
spans already stored are not added again — and never stops on bad input: each problem comes back
in the :class:`IngestSummary` with its file and line.

Example::

    from ragfunnel.analyzer.store import Store
    from ragfunnel.analyzer.ingest import ingest_paths

    with Store.open(create=True) as store:     # ingest is what creates a store
        summary = ingest_paths(store, [".ragfunnel/traces"])
        print(summary.describe())
"""

from ragfunnel.analyzer.ingest.arrow_columns import TRACES_ARROW_SCHEMA
from ragfunnel.analyzer.ingest.files import DEFAULT_TRACE_DIR, expand_paths, ingest_paths
from ragfunnel.analyzer.ingest.in_memory import ingest_lines, ingest_spans, spans_to_arrow
from ragfunnel.analyzer.ingest.jaeger_pull import pull_from_jaeger
from ragfunnel.analyzer.ingest.native import available as native_converter_available
from ragfunnel.analyzer.ingest.result import IngestError, IngestSummary, Skip
from ragfunnel.analyzer.ingest.rows import MAX_VALUE_CHARS

__all__ = [
    "DEFAULT_TRACE_DIR",
    "MAX_VALUE_CHARS",
    "TRACES_ARROW_SCHEMA",
    "IngestError",
    "IngestSummary",
    "Skip",
    "expand_paths",
    "ingest_lines",
    "ingest_paths",
    "ingest_spans",
    "native_converter_available",
    "pull_from_jaeger",
    "spans_to_arrow",
]
