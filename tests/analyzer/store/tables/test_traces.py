"""``store/tables/traces.py``: the exporter's ``otel_traces``, created or checked column by column."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragfunnel.analyzer.ingest import spans_to_arrow
from ragfunnel.analyzer.store import TRACES_COLUMNS, Store, StoreError
from ragfunnel.analyzer.store.tables import traces
from tests.support.traces import TraceBuilder


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


@pytest.fixture
def stored(store: Store) -> tuple[Store, TraceBuilder]:
    b = TraceBuilder()
    b.ingest("doc-a", ["a#1", "a#2"], version="v1")
    b.ingest("doc-a", ["a#1"], version="v2")
    b.ingest("doc-b", ["b#1"], version="v1", error="parser crashed")
    with b.question("q-1", "What?") as q:
        q.retrieve(["a#1"], top_k=1)
    spans = b.spans
    store.insert_traces(spans_to_arrow(spans))
    return store, b


def test_stored_spans_are_found_by_trace_with_their_starts(
    stored: tuple[Store, TraceBuilder],
) -> None:
    store, b = stored
    spans = b.spans
    trace = format(spans[-1].context.trace_id, "032x")
    starts = {
        format(s.context.trace_id, "032x") + format(s.context.span_id, "016x"): s.start_time
        for s in spans
        if format(s.context.trace_id, "032x") == trace
    }
    assert traces.stored_starts(store, [trace]) == starts
    assert traces.stored_starts(store, ["0" * 32]) == {}
    low, high = traces.time_range(store)  # type: ignore[misc]
    every = sorted(int(s.start_time or 0) for s in spans)
    assert (low, high) == (every[0], every[-1])
    assert traces.span_starts(store, low, high).to_pylist() == every
    assert traces.span_starts(store, every[1], every[2]).to_pylist() == every[1:3]


def test_an_empty_table_has_no_time_range(store: Store) -> None:
    assert traces.time_range(store) is None


def test_each_documents_latest_successful_chunk_list(stored: tuple[Store, TraceBuilder]) -> None:
    store, _ = stored
    found = traces.ingested_chunk_lists(store).sort("version", "document").to_dicts()
    assert [(r["version"], r["document"], r["ids"]) for r in found] == [
        ("v1", "doc-a", ["a#1", "a#2"]),  # doc-b's ingest failed: not listed
        ("v2", "doc-a", ["a#1"]),
    ]
    only = traces.ingested_chunk_lists(store, ["v2"])
    assert only.get_column("version").to_list() == ["v2"]
    assert traces.ingested_chunk_lists(store, []).is_empty()


def test_run_settings_of_no_runs_is_an_empty_frame_with_its_columns(store: Store) -> None:
    empty = traces.run_settings(store, [])
    assert empty.is_empty() and empty.columns == ["run_id", "key", "value", "n"]
