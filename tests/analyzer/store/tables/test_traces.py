"""``store/tables/traces.py``: the exporter's ``otel_traces``, created or checked column by column."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragfunnel.analyzer.store import TRACES_COLUMNS, Store, StoreError


def test_open_creates_the_exporter_schema(opened: Store) -> None:
    columns = opened.query_arrow(
        "SELECT name, type FROM system.columns WHERE database = {db:String} AND table = {t:String}",
        {"db": "otel", "t": "otel_traces"},
    ).to_pylist()
    assert {c["name"]: c["type"] for c in columns} == TRACES_COLUMNS
    ddl = str(opened.command("SHOW CREATE TABLE otel.otel_traces"))
    assert "PARTITION BY toDate(Timestamp)" in ddl
    assert "ORDER BY (ServiceName, SpanName, toDateTime(Timestamp))" in ddl
    assert "idx_trace_id TraceId TYPE bloom_filter(0.001)" in ddl
    assert opened.traces_table == "`otel`.`otel_traces`"
    assert opened.dsn_redacted.startswith("chdb:///")


def test_a_table_with_other_columns_is_refused_with_the_differences(path: Path) -> None:
    with Store.open(f"chdb://{path}", create=True) as store:
        store.command("CREATE DATABASE legacy")
        store.command(
            "CREATE TABLE legacy.otel_traces (Timestamp DateTime64(9), TraceId String, SpanId String, "
            "Duration Int64) ENGINE = MergeTree ORDER BY Timestamp"
        )
    with pytest.raises(StoreError) as caught:
        Store.open(f"chdb://{path}", database="legacy", create=True)
    message = str(caught.value)
    assert "Duration is Int64, expected UInt64" in message
    assert "SpanAttributes is missing" in message
    assert "never alters" in message
