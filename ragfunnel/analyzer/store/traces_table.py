"""The layout of ``otel_traces``: the OpenTelemetry Collector clickhouseexporter's table (v0.165).

The exporter owns this schema; ragfunnel restates it to create the table in an embedded store
and to check, column by column, a table the collector made. Nothing here alters a table.
"""

from __future__ import annotations

from ragfunnel.analyzer.store.part_format import COMPACT_PARTS

__all__ = ["TRACES_COLUMNS", "traces_ddl"]

TRACES_COLUMNS: dict[str, str] = {
    "Timestamp": "DateTime64(9)",
    "TraceId": "String",
    "SpanId": "String",
    "ParentSpanId": "String",
    "TraceState": "String",
    "SpanName": "LowCardinality(String)",
    "SpanKind": "LowCardinality(String)",
    "ServiceName": "LowCardinality(String)",
    "ResourceAttributes": "Map(LowCardinality(String), String)",
    "ScopeName": "String",
    "ScopeVersion": "String",
    "SpanAttributes": "Map(LowCardinality(String), String)",
    "Duration": "UInt64",
    "StatusCode": "LowCardinality(String)",
    "StatusMessage": "String",
    "Events.Timestamp": "Array(DateTime64(9))",
    "Events.Name": "Array(LowCardinality(String))",
    "Events.Attributes": "Array(Map(LowCardinality(String), String))",
    "Links.TraceId": "Array(String)",
    "Links.SpanId": "Array(String)",
    "Links.TraceState": "Array(String)",
    "Links.Attributes": "Array(Map(LowCardinality(String), String))",
}
"""The columns of ``otel_traces`` as ``system.columns`` reports them (Nested ones flattened)."""

# The clickhouseexporter's DDL (v0.165, internal/sqltemplates/traces_table.sql), restated for
# ragfunnel; like the exporter's, without a TTL unless one is configured. The exporter also makes
# an `otel_traces_trace_id_ts` lookup table fed by a materialized view, for Grafana's trace
# search; ragfunnel does not need it, and the view would cost every insert a GROUP BY, so an
# embedded store goes without it (a collector-made table keeps its view, and ingest feeds it).
TRACES_DDL = """
CREATE TABLE IF NOT EXISTS {table} (
    Timestamp DateTime64(9) CODEC(Delta, ZSTD(1)),
    TraceId String CODEC(ZSTD(1)),
    SpanId String CODEC(ZSTD(1)),
    ParentSpanId String CODEC(ZSTD(1)),
    TraceState String CODEC(ZSTD(1)),
    SpanName LowCardinality(String) CODEC(ZSTD(1)),
    SpanKind LowCardinality(String) CODEC(ZSTD(1)),
    ServiceName LowCardinality(String) CODEC(ZSTD(1)),
    ResourceAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    ScopeName String CODEC(ZSTD(1)),
    ScopeVersion String CODEC(ZSTD(1)),
    SpanAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    Duration UInt64 CODEC(ZSTD(1)),
    StatusCode LowCardinality(String) CODEC(ZSTD(1)),
    StatusMessage String CODEC(ZSTD(1)),
    Events Nested (
        Timestamp DateTime64(9),
        Name LowCardinality(String),
        Attributes Map(LowCardinality(String), String)
    ) CODEC(ZSTD(1)),
    Links Nested (
        TraceId String,
        SpanId String,
        TraceState String,
        Attributes Map(LowCardinality(String), String)
    ) CODEC(ZSTD(1)),
    INDEX idx_trace_id TraceId TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_res_attr_key mapKeys(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_res_attr_value mapValues(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_span_attr_key mapKeys(SpanAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_span_attr_value mapValues(SpanAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_duration Duration TYPE minmax GRANULARITY 1
) ENGINE = MergeTree()
PARTITION BY toDate(Timestamp)
ORDER BY (ServiceName, SpanName, toDateTime(Timestamp))
SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1{extra}
"""


def traces_ddl(traces_table: str, *, compact_parts: bool = False) -> str:
    """The ``CREATE TABLE IF NOT EXISTS`` statement of ``otel_traces`` under a quoted name.

    ``compact_parts`` adds the embedded store's part settings (:mod:`.part_format`).
    """
    return TRACES_DDL.format(
        table=traces_table, extra=f", {COMPACT_PARTS}" if compact_parts else ""
    )
