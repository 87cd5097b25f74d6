"""``store/statements.py``: the CREATE builder, the run filter, the time range.

Every table module builds its CREATE statement with :func:`create_table`; a table it creates
must be the table the released statement created, or stores in use would hold another layout
than a new store. Each released statement is kept here as it was written (before the builder),
both are run, and ``SHOW CREATE TABLE`` must read the same.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ragfunnel.analyzer.ingest import spans_to_arrow
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.dsn import quote
from ragfunnel.analyzer.store.part_format import PART_SETTINGS
from ragfunnel.analyzer.store.statements import (
    create_table,
    run_filter,
    run_parameters,
    time_range,
)
from ragfunnel.analyzer.store.tables.ingest_log import ingest_log_ddl
from ragfunnel.analyzer.store.tables.markers import markers_ddl
from ragfunnel.analyzer.store.tables.traces import traces_ddl
from tests.support.traces import TraceBuilder

RELEASED_MARKERS = (
    "CREATE TABLE IF NOT EXISTS {table} (object String, revision UInt32, "
    "done DateTime DEFAULT now()) ENGINE = ReplacingMergeTree ORDER BY object"
)
RELEASED_INGEST_LOG = """
CREATE TABLE IF NOT EXISTS {table} (
    TracesTable String, Host String, Path String, Size UInt64, MtimeNs Int64, Head String,
    Offset UInt64, Line UInt64, Resumable Bool, Spans UInt64, Low Int64, High Int64,
    RecordedAt DateTime64(6) DEFAULT now64(6)
) ENGINE = MergeTree ORDER BY (TracesTable, Host, Path, RecordedAt)
"""
RELEASED_TRACES = """
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
"""The statements as released (the clickhouseexporter's otel_traces, v0.165), before
``create_table`` built them."""


def _shown(store: Store, name: str) -> str:
    """``SHOW CREATE TABLE`` of ``name``, with its name written as ``T``."""
    table = quote(store.database, name)
    statement = store.query_arrow(f"SHOW CREATE TABLE {table}").to_pylist()[0]["statement"]
    assert isinstance(statement, str)
    return statement.replace(f"{store.database}.{name}", "T")


@pytest.mark.parametrize(
    ("built", "released"),
    [
        (markers_ddl, RELEASED_MARKERS),
        (ingest_log_ddl, RELEASED_INGEST_LOG),
        (traces_ddl, RELEASED_TRACES.replace("{extra}", "")),
        (
            lambda table: traces_ddl(table, compact_parts=True),
            RELEASED_TRACES.replace("{extra}", f", {PART_SETTINGS}"),
        ),
    ],
    ids=["markers", "ingest_log", "traces", "traces_compact"],
)
def test_a_built_table_is_the_released_one(
    store: Store, built: Callable[[str], str], released: str
) -> None:
    store.command(released.format(table=quote(store.database, "released")))
    store.command(built(quote(store.database, "built")))
    assert _shown(store, "built") == _shown(store, "released")
    # Running it again on an existing table changes nothing (IF NOT EXISTS): stores in use.
    store.command(built(quote(store.database, "released")))
    assert _shown(store, "released") == _shown(store, "built")


def test_the_comparison_sees_a_difference(store: Store) -> None:
    store.command(RELEASED_MARKERS.format(table=quote(store.database, "released")))
    store.command(
        create_table(
            quote(store.database, "other"),
            [("object", "String"), ("revision", "UInt64"), ("done", "DateTime DEFAULT now()")],
            "ReplacingMergeTree ORDER BY object",
        )
    )
    assert _shown(store, "other") != _shown(store, "released")


def test_create_table_lists_columns_then_indexes_then_engine_and_settings() -> None:
    statement = create_table(
        "`db`.`t`",
        [("A", "String"), ("B", "UInt8 DEFAULT 1")],
        "MergeTree ORDER BY A",
        indexes=["idx_a A TYPE bloom_filter GRANULARITY 1"],
        settings="index_granularity = 1024",
    )
    assert statement == (
        "CREATE TABLE IF NOT EXISTS `db`.`t` (\n"
        "    `A` String,\n    `B` UInt8 DEFAULT 1,\n"
        "    INDEX idx_a A TYPE bloom_filter GRANULARITY 1\n"
        ") ENGINE = MergeTree ORDER BY A SETTINGS index_granularity = 1024"
    )
    plain = create_table("t", [("A", "String")], "Memory")
    assert plain == "CREATE TABLE IF NOT EXISTS t (\n    `A` String\n) ENGINE = Memory"


def test_run_filter_and_its_parameters() -> None:
    assert run_filter([]) == "" and run_parameters([]) == {}
    assert run_filter(["a"]) == "WHERE RunId IN {runs:Array(String)}"
    assert run_filter(("a", "b"), "AND") == "AND RunId IN {runs:Array(String)}"
    assert run_filter(True) == "WHERE RunId IN {runs:Array(String)}"
    assert run_parameters({"b", "a"}) in ({"runs": ["a", "b"]}, {"runs": ["b", "a"]})


def test_time_range_of_a_table(store: Store) -> None:
    table = quote(store.database, store.table)
    assert time_range(store, table) is None  # an empty traces table
    b = TraceBuilder()
    with b.question("q-1", "What?") as q:
        q.retrieve(["d#1"], top_k=1)
    store.insert_traces(spans_to_arrow(b.spans))
    starts = sorted(int(span.start_time or 0) for span in b.spans)
    assert time_range(store, table) == (starts[0], starts[-1])
