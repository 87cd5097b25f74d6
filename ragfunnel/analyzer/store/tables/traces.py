"""``otel_traces``: the OpenTelemetry Collector clickhouseexporter's table (v0.165), and its reads.

The exporter owns this schema; ragfunnel restates it to create the table in an embedded store
and to check, column by column, a table the collector made (:func:`prepare_traces`). Nothing
here alters a table. Beside the layout, every statement on ``otel_traces`` itself that is not
the conventions' stage SELECT: the embedded insert from Arrow files, the ingest's duplicate
lookup and time windows, and the span reads of the judges (chunk texts) and the report
(documents without text, run settings). Reads by meaning take their
expressions from the conventions (``conventions/chunk_texts.py``, ``conventions/run_settings.py``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from ragfunnel.analyzer.conventions.chunk_texts import chunk_text_columns
from ragfunnel.analyzer.conventions.run_settings import run_setting_columns
from ragfunnel.analyzer.store import statements
from ragfunnel.analyzer.store.dsn import quote
from ragfunnel.analyzer.store.part_format import PART_SETTINGS
from ragfunnel.analyzer.store.store_error import StoreError
from ragfunnel.instrumentation import contract as c

if TYPE_CHECKING:
    import polars as pl
    import pyarrow as pa

    from ragfunnel.analyzer.store.connection import Store

__all__ = [
    "TRACES_COLUMNS",
    "chunk_texts",
    "ingested_chunk_lists",
    "insert_from_files",
    "prepare_traces",
    "run_settings",
    "span_starts",
    "stored_starts",
    "textless_ingests",
    "time_range",
    "traces_ddl",
]

_SPACES = re.compile(r"\s+")

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
# ragfunnel; like the exporter's, without a TTL unless one is configured. Its Events and Links
# are Nested columns, which ClickHouse stores as the parallel arrays above (``Events.Name`` …):
# written so, the table is the same (``SHOW CREATE TABLE`` alike, tests/analyzer/store/
# test_statements.py). The exporter also makes an `otel_traces_trace_id_ts` lookup table fed by
# a materialized view, for Grafana's trace search; ragfunnel does not need it, and the view
# would cost every insert a GROUP BY, so an embedded store goes without it (a collector-made
# table keeps its view, and ingest feeds it).
_CODECS = {"Timestamp": "Delta, ZSTD(1)"}
"""Each column's compression where it is not ``ZSTD(1)``."""
_INDEXES = (
    "idx_trace_id TraceId TYPE bloom_filter(0.001) GRANULARITY 1",
    "idx_res_attr_key mapKeys(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1",
    "idx_res_attr_value mapValues(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1",
    "idx_span_attr_key mapKeys(SpanAttributes) TYPE bloom_filter(0.01) GRANULARITY 1",
    "idx_span_attr_value mapValues(SpanAttributes) TYPE bloom_filter(0.01) GRANULARITY 1",
    "idx_duration Duration TYPE minmax GRANULARITY 1",
)
_ENGINE = (
    "MergeTree() PARTITION BY toDate(Timestamp) "
    "ORDER BY (ServiceName, SpanName, toDateTime(Timestamp))"
)
_SETTINGS = "index_granularity = 8192, ttl_only_drop_parts = 1"


def traces_ddl(traces_table: str, *, compact_parts: bool = False) -> str:
    """The ``CREATE TABLE IF NOT EXISTS`` statement of ``otel_traces`` under a quoted name.

    ``compact_parts`` adds the embedded store's part settings (:mod:`.part_format`).
    """
    columns = [
        (name, f"{kind} CODEC({_CODECS.get(name, 'ZSTD(1)')})")
        for name, kind in TRACES_COLUMNS.items()
    ]
    settings = f"{_SETTINGS}, {PART_SETTINGS}" if compact_parts else _SETTINGS
    return statements.create_table(
        traces_table, columns, _ENGINE, indexes=_INDEXES, settings=settings
    )


def prepare_traces(store: Store, *, create: bool) -> None:
    """Check ``store``'s traces table column by column; with ``create``, make it if missing.

    The database is made too when missing.

    Raises:
        StoreError: no traces table (without ``create``), or one whose columns differ from
            the exporter's ``otel_traces``.
    """
    from ragfunnel.analyzer.store.schema import table_columns

    found = table_columns(store, store.table)
    if not found:
        if not create:
            raise StoreError(
                f"there is no table {store.traces_table} in {store.dsn_redacted}: "
                "ingest traces first, or open the store that holds them",
                argument="dsn",
            )
        store.command(f"CREATE DATABASE IF NOT EXISTS {quote(store.database)}")
        store.command(traces_ddl(store.traces_table, compact_parts=store.embedded))
        found = table_columns(store, store.table)
    problems = []
    for name, expected in TRACES_COLUMNS.items():
        actual = found.get(name)
        if actual is None:
            problems.append(f"{name} is missing")
        elif _SPACES.sub("", actual) != _SPACES.sub("", expected):
            problems.append(f"{name} is {actual}, expected {expected}")
    if problems:
        raise StoreError(
            f"table {store.traces_table} in {store.dsn_redacted} does not have the "
            f"clickhouseexporter otel_traces schema (v0.165): {'; '.join(problems)}. "
            "ragfunnel never alters an existing table: use another table or database."
        )


def insert_from_files(store: Store, pattern: str, columns: Sequence[str], streams: int) -> None:
    """``INSERT ... SELECT ... FROM file()`` of the Arrow files matching ``pattern``.

    The embedded engine reads, sorts and compresses each file on a thread of its own (at most
    ``streams``), and feeds it through the materialized views. Sent on the client itself:
    ``Store.insert_traces`` holds the store's lock and names the table in its error.
    """
    unknown = [name for name in columns if name not in TRACES_COLUMNS]
    if unknown:  # as a server refuses them, not a KeyError from the structure below
        raise StoreError(
            f"insert into {store.traces_table} failed: otel_traces has no column "
            + ", ".join(map(repr, unknown))
        )
    names = ", ".join(quote(name) for name in columns)
    store.client.command(
        f"INSERT INTO {store.traces_table} ({names}) SELECT {names} "
        "FROM file({file:String}, 'Arrow', {structure:String}) "
        # A stream per file, each file's block written as it is read (no squashing into one
        # block, which one thread would write).
        f"SETTINGS max_insert_threads = {streams}, max_threads = {streams}, "
        "min_insert_block_size_rows = 0, min_insert_block_size_bytes = 0, "
        "parallel_view_processing = 1",
        parameters={
            "file": pattern,
            "structure": ", ".join(f"{quote(name)} {TRACES_COLUMNS[name]}" for name in columns),
        },
    )


def time_range(store: Store) -> tuple[int, int] | None:
    """The first and last span start (ns) stored; None when the table is empty."""
    return statements.time_range(store, store.traces_table)


def stored_starts(store: Store, trace_ids: list[str]) -> dict[str, int]:
    """The stored spans of these traces: trace id + span id → the earliest start (ns)."""
    result = store.query_arrow(
        "SELECT concat(TraceId, SpanId) AS key, toUnixTimestamp64Nano(min(Timestamp)) AS start "
        f"FROM {store.traces_table} WHERE TraceId IN {{ids:Array(String)}} GROUP BY key",
        {"ids": trace_ids},
    )
    keys: list[str] = result.column("key").to_pylist()
    starts: list[int] = result.column("start").to_pylist()
    return dict(zip(keys, starts, strict=True))


def span_starts(store: Store, low: int, high: int) -> pa.ChunkedArray:
    """The start (ns) of every stored span from ``low`` to ``high``, sorted."""
    return store.query_arrow(
        "SELECT toUnixTimestamp64Nano(Timestamp) AS t FROM "
        f"{store.traces_table} WHERE Timestamp >= fromUnixTimestamp64Nano({{low:Int64}}) "
        "AND Timestamp <= fromUnixTimestamp64Nano({high:Int64}) ORDER BY t",
        {"low": low, "high": high},
    ).column("t")


def chunk_texts(store: Store, trace_ids: list[str]) -> pl.DataFrame:
    """The listed chunks, with their texts, of every successful span of these traces.

    Fastest for traces that started close together (``AnswerPages`` pages them so).

    One row per span whose convention declares where texts live, by start:
    ``TraceId``, ``SpanId``, ``Stage``, ``Started`` (ns), ``Ids``, ``Texts``
    (``conventions/chunk_texts.py`` says how each convention lists them).
    """
    table, listed = store.traces_table, "TraceId IN {traces:Array(String)}"
    # The traces' first and last span start bound the scan: the table is sorted by time within
    # each span name, so a page of traces that started close together reads only its stretch of
    # the spans' attributes, not every granule of the table (a trace id is in most of them).
    within = (
        f"(SELECT * FROM {table} WHERE {listed} AND Timestamp BETWEEN "
        f"(SELECT min(Timestamp) FROM {table} WHERE {listed}) AND "
        f"(SELECT max(Timestamp) FROM {table} WHERE {listed}) AND StatusCode != 'Error')"
    )
    columns = chunk_text_columns()
    if columns is None:
        none = "CAST([], 'Array(String)')"
        select = (
            "SELECT '' AS TraceId, '' AS SpanId, '' AS Stage, toInt64(0) AS Started, "
            f"{none} AS Ids, {none} AS Texts WHERE 0"
        )
    else:
        select = f"""SELECT TraceId, SpanId, Stage, Started,
    if(empty(RawIds) AND notEmpty(RawTexts),
       arrayMap(n -> toString(n), range(1, length(RawTexts) + 1)), RawIds) AS Ids,
    arrayMap(n -> if(n <= length(RawTexts), RawTexts[n], ''), range(1, length(Ids) + 1)) AS Texts
FROM (SELECT TraceId, SpanId, {columns.stage} AS Stage,
        toUnixTimestamp64Nano(Timestamp) AS Started, {columns.ids} AS RawIds,
        {columns.texts} AS RawTexts
    FROM (SELECT *, {columns.rule} AS Rule FROM {within})
    WHERE {columns.keep} AND ({columns.present}))"""
    return store.query_df(f"{select} ORDER BY TraceId, Started", {"traces": trace_ids})


def run_settings(store: Store, runs: Sequence[str]) -> pl.DataFrame:
    """How often each run recorded each value of each setting.

    Columns ``run_id``, ``key`` (the setting's name), ``value``, ``n`` (questions: spans, or
    traces for conventions whose trace is a question), by run, key, commonest value first.
    Which spans carry settings, and how they name them, the conventions say
    (``conventions/run_settings.py``).
    """
    import polars as pl

    columns = run_setting_columns()
    if columns is None or not runs:
        return pl.DataFrame(
            schema={"run_id": pl.String, "key": pl.String, "value": pl.String, "n": pl.UInt64}
        )
    return store.query_df(
        f"""
        SELECT run_id, name AS key, value,
               countIf(NOT per_trace) + uniqExactIf(TraceId, per_trace) AS n
        FROM (
            SELECT TraceId, Run AS run_id, PerTrace AS per_trace, {columns.name} AS name, value
            FROM (
                SELECT TraceId, SpanAttributes, {columns.rule} AS Rule, {columns.run} AS Run,
                       {columns.per_trace} AS PerTrace
                FROM {store.traces_table}
                WHERE {columns.where}
            )
            ARRAY JOIN mapKeys(SpanAttributes) AS key, mapValues(SpanAttributes) AS value
            WHERE Rule != 0 AND Run IN {{runs:Array(String)}}
        )
        WHERE name != ''
        GROUP BY run_id, key, value
        ORDER BY run_id, key, n DESC, value
        """,
        {"runs": list(runs)},
    )


def textless_ingests(store: Store, versions: Sequence[str]) -> pl.DataFrame:
    """Per index version, the documents whose ingestion recorded pages or parts without text.

    A successful ingest span with ``ragfunnel.ingest.pages_without_text`` or
    ``parts_without_text`` above 0. Columns ``version`` and ``document``, sorted.
    """
    return store.query_df(
        f"""
        SELECT SpanAttributes[{{version:String}}] AS version,
               SpanAttributes[{{document:String}}] AS document
        FROM {store.traces_table}
        WHERE SpanAttributes[{{stage:String}}] = 'ingest'
          AND StatusCode != 'Error'
          AND SpanAttributes[{{version:String}}] IN {{versions:Array(String)}}
          AND (toInt64OrZero(SpanAttributes[{{pages:String}}]) > 0
               OR toInt64OrZero(SpanAttributes[{{parts:String}}]) > 0)
        GROUP BY version, document
        ORDER BY version, document
        """,
        {
            "version": c.INDEX_VERSION, "document": c.DOCUMENT_ID, "stage": c.STAGE,
            "pages": c.PAGES_WITHOUT_TEXT, "parts": c.PARTS_WITHOUT_TEXT,
            "versions": list(versions),
        },
    )  # fmt: skip


def ingested_chunk_lists(store: Store, versions: Collection[str] | None = None) -> pl.DataFrame:
    """Per index version and document, the chunk lists of its latest successful ingest span.

    Columns ``version``, ``document``, ``ids``, ``texts``, ``starts``, ``ends`` (lists, from
    ``ragfunnel.chunks.*``); only ``versions`` when given. ``funnel/read/ingest_chunks.py``
    turns them into documents to resolve cases' quotes and spans in.
    """
    version_filter = "AND version IN {versions:Array(String)}" if versions is not None else ""
    return store.query_df(
        f"""
        SELECT version, document,
               argMax(ids, ts) AS ids, argMax(texts, ts) AS texts,
               argMax(starts, ts) AS starts, argMax(ends, ts) AS ends
        FROM (
            SELECT SpanAttributes[{{version:String}}] AS version,
                   SpanAttributes[{{document:String}}] AS document,
                   Timestamp AS ts,
                   JSONExtract(SpanAttributes[{{ids:String}}], 'Array(String)') AS ids,
                   JSONExtract(SpanAttributes[{{texts:String}}], 'Array(String)') AS texts,
                   JSONExtract(SpanAttributes[{{starts:String}}], 'Array(Int64)') AS starts,
                   JSONExtract(SpanAttributes[{{ends:String}}], 'Array(Int64)') AS ends
            FROM {store.traces_table}
            WHERE mapContains(SpanAttributes, {{ids:String}})  -- the keys' index skips the rest
              AND SpanAttributes[{{stage:String}}] = 'ingest' AND StatusCode != 'Error'
        )
        WHERE document != '' {version_filter}
        GROUP BY version, document
        """,
        {
            "version": c.INDEX_VERSION, "document": c.DOCUMENT_ID, "ids": c.CHUNKS_IDS,
            "texts": c.CHUNKS_TEXTS, "starts": c.CHUNKS_STARTS, "ends": c.CHUNKS_ENDS,
            "stage": c.STAGE, "versions": list(versions or ()),
        },
    )  # fmt: skip
