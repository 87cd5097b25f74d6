"""Span conventions: how ragfunnel, OpenInference and OpenTelemetry GenAI spans become stage rows.

``stage_select_sql(source_table)`` is the SELECT that turns ``otel_traces`` rows into the rows
of the stage table (``ragfunnel.analyzer.store.stage_table``). Nothing here talks to a store.
"""

from ragfunnel.analyzer.conventions.stage_select import BUCKETS, stage_select_sql

__all__ = ["BUCKETS", "stage_select_sql"]
