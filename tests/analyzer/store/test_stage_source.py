"""``store/stage_source.py``: where an analysis reads stage spans from, and the read path's promise.

The stage table when it is current; the user's own embedded store is migrated on first use; any
other store (read-only, or a server) is never written to: ``otel_traces`` is parsed at read time,
giving the same rows, and the result says so once.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from polars.testing import assert_frame_equal

from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.schema import read_schema
from ragfunnel.analyzer.store.stage_source import READ_TIME_NOTICE, stage_source
from ragfunnel.analyzer.store.tables.stage_spans import STAGE_TABLE, stage_table
from tests.support.recorder import recording
from tests.support.traces import TraceBuilder

_ORDER = "ORDER BY TraceId, SpanId"


@pytest.fixture
def collected(store: Store) -> Store:
    """A store a collector filled: spans of two stages, nothing prepared."""
    b = TraceBuilder()
    b.ingest("doc", ["d#1"])
    with b.question("q-1", "What?") as q:
        q.retrieve(["d#1", "d#2"], top_k=2)
        q.generate(["d#1"], "An answer.")
    b.as_collector_into(store)
    return store


@pytest.fixture
def reader(collected: Store, store_path: Path) -> Iterator[Store]:
    """The same database opened read-only, as an analysis of a server store is."""
    with Store.open(f"chdb://{store_path}", database=collected.database, read_only=True) as r:
        yield r


def _writes(statements: list[str]) -> list[str]:
    return [s for s in statements if not s.lstrip().upper().startswith(("SELECT", "WITH"))]


def test_a_read_only_store_is_parsed_at_read_time_and_never_written(
    collected: Store, reader: Store
) -> None:
    with recording(reader) as recorder:
        source = stage_source(reader)
        rows = reader.query_df(f"SELECT * FROM {source.sql} {_ORDER}")
    assert _writes(recorder.statements) == []
    assert source.read_time and source.notices == (READ_TIME_NOTICE,)
    assert source.sql.startswith("(SELECT ") and STAGE_TABLE not in source.sql
    assert set(rows.get_column("Stage")) == {"ingest", "question", "retrieve", "generate"}
    assert not read_schema(collected).has(STAGE_TABLE)  # nothing was made

    # The same rows the stage table holds once the store is prepared.
    prepared = stage_source(collected)
    assert not prepared.read_time and prepared.notices == ()
    stored = collected.query_df(f"SELECT * FROM {prepared.sql} {_ORDER}")
    assert_frame_equal(stored, rows)  # NaN top scores (no scores) compare equal too


def test_at_read_time_the_question_rows_come_from_a_narrower_read(reader: Store) -> None:
    source = stage_source(reader)
    assert source.question_sql != source.sql
    stages = reader.query_arrow(f"SELECT DISTINCT Stage FROM {source.question_sql}")
    assert {"question", "ingest"} <= set(stages.column("Stage").to_pylist())
    assert "generate" not in stages.column("Stage").to_pylist()


def test_the_users_embedded_store_is_migrated_on_first_use(collected: Store) -> None:
    assert collected.embedded and not collected.read_only
    source = stage_source(collected)
    assert source.sql == source.question_sql == stage_table(collected)
    assert read_schema(collected).stage_view_attached
    assert collected.command(f"SELECT count() FROM {source.sql}") == 4


def test_a_current_stage_table_is_read_without_a_write(collected: Store) -> None:
    stage_source(collected)  # prepares it
    with recording(collected) as recorder:
        source = stage_source(collected)
    assert not source.read_time
    assert recorder.statements and _writes(recorder.statements) == []


def test_the_notice_tells_how_to_stop_parsing_at_read_time() -> None:
    assert STAGE_TABLE in READ_TIME_NOTICE
    assert "ragfunnel.analyzer.store.migrations.migrate(store)" in READ_TIME_NOTICE
