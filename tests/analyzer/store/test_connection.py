"""``store/connection.py``: opening a store (created only when asked, read-only when asked), running statements."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from unittest.mock import MagicMock

import pyarrow as pa
import pytest

from ragfunnel.analyzer.cases import CaseSet
from ragfunnel.analyzer.funnel import analyze
from ragfunnel.analyzer.ingest import spans_to_arrow
from ragfunnel.analyzer.store import DEFAULT_DSN, Store, StoreError, connection
from ragfunnel.analyzer.store.dsn import quote
from tests.support.recorder import recording
from tests.support.traces import TraceBuilder


def test_reopening_keeps_the_data_and_never_recreates(path: Path) -> None:
    with Store.open(f"chdb://{path}", create=True) as store:
        store.command(f"INSERT INTO {store.traces_table} (TraceId, SpanId) VALUES ('t', 's')")
    with Store.open(f"chdb://{path}", create=True) as store:
        assert store.command(f"SELECT count() FROM {store.traces_table}") == 1


def test_database_and_table_names_are_configurable(path: Path) -> None:
    with Store.open(f"chdb://{path}", database="team_a", table="spans", create=True) as store:
        assert store.traces_table == "`team_a`.`spans`"
        assert store.command("EXISTS TABLE team_a.spans") == 1


def test_create_false_needs_an_existing_store(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="there is no store at"):
        Store.open(f"chdb://{tmp_path / 'nothing'}", create=False)
    with Store.open(f"chdb://{tmp_path / 's'}", create=True):
        pass
    with pytest.raises(StoreError, match=r"no table `other`\.`otel_traces`"):
        Store.open(f"chdb://{tmp_path / 's'}", database="other", create=False)


def test_bad_identifiers_never_reach_sql(path: Path) -> None:
    with pytest.raises(StoreError, match="not allowed"):
        Store.open(f"chdb://{path}", table="x`; DROP TABLE y", create=True)


def test_relative_and_bare_paths_resolve_against_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RAGFUNNEL_STORE", raising=False)
    with Store.open(create=True) as store:
        assert store.dsn_redacted == f"chdb://{tmp_path / '.ragfunnel' / 'store'}"
    assert DEFAULT_DSN == "chdb://.ragfunnel/store"
    with Store.open("here/store", create=True) as store:
        assert store.dsn_redacted == f"chdb://{tmp_path / 'here' / 'store'}"
    monkeypatch.setenv("RAGFUNNEL_STORE", "chdb://from-env")
    with Store.open(create=True) as store:
        assert store.dsn_redacted == f"chdb://{tmp_path / 'from-env'}"


def test_opening_never_creates_a_store_unless_asked(tmp_path: Path) -> None:
    """Issue 21: `Store.open("typo/path")` made an empty store that analysis read as 0 records."""
    typo = tmp_path / "typo" / "store"
    with pytest.raises(StoreError, match=r"there is no store at .*run `ragfunnel ingest` first"):
        Store.open(f"chdb://{typo}")
    assert not typo.exists() and not typo.parent.exists()
    with pytest.raises(StoreError, match="there is no store at"):
        analyze(str(typo), CaseSet([]))  # the documented path-string form as well
    assert not typo.exists()
    with Store.open(f"chdb://{tmp_path / 'made'}", create=True) as made:
        database = made.database
    with pytest.raises(StoreError, match=re.escape("there is no table `otel_a`.`otel_traces`")):
        Store.open(f"chdb://{tmp_path / 'made'}", database="otel_a")  # an existing path, no table
    with Store.open(f"chdb://{tmp_path / 'made'}", database=database) as reopened:
        assert reopened.embedded and not reopened.read_only


def test_query_df_returns_polars(opened: Store) -> None:
    frame = opened.query_df("SELECT {n:UInt8} AS n, {s:String} AS s", {"n": 3, "s": "x'); DROP"})
    assert frame.to_dicts() == [{"n": 3, "s": "x'); DROP"}]


def test_sql_errors_are_store_errors(opened: Store) -> None:
    with pytest.raises(StoreError, match="query failed on chdb://"):
        opened.query_arrow("SELECT no_such_column FROM otel.otel_traces")


def test_a_read_only_store_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="there is no store at") as raised:
        Store.open(f"chdb://{tmp_path / 'none'}", read_only=True)
    assert raised.value.argument == "dsn"
    assert not (tmp_path / "none").exists()
    with Store.open(f"chdb://{tmp_path / 'st'}", create=True) as writable:
        assert not writable.read_only and writable.embedded
    with Store.open(f"chdb://{tmp_path / 'st'}", read_only=True) as reader:
        assert reader.read_only and "read_only=True" in repr(reader)


def test_analysis_opens_a_server_read_only_and_the_embedded_store_writable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    opened: list[dict[str, object]] = []

    def record(cls: type[Store], /, dsn: str | None = None, **kw: object) -> MagicMock:
        opened.append({"dsn": dsn, **kw})
        return MagicMock()  # stands in for the opened store

    monkeypatch.setattr(Store, "open", classmethod(record))
    Store.open_for_analysis("http://reader@ch.example:8123/otel")
    Store.open_for_analysis("chdb:///tmp/mine")
    Store.open_for_analysis("chdb:///tmp/mine", read_only=True)
    monkeypatch.setenv("RAGFUNNEL_STORE", "https://ch.example/otel")
    Store.open_for_analysis()
    assert [(o["read_only"], o["create"]) for o in opened] == [
        (True, False),
        (False, False),
        (True, False),
        (True, False),
    ]


@pytest.fixture
def reader(store: Store, store_path: Path) -> Iterator[Store]:
    """The test's database opened a second time, read-only."""
    with Store.open(f"chdb://{store_path}", database=store.database, read_only=True) as opened:
        yield opened


def test_merges_pause_once_for_nested_blocks_and_resume_after(store: Store) -> None:
    with recording(store) as recorder:
        with store.merges_paused():
            with store.merges_paused():
                assert store.command("SELECT 1") == 1
            assert "SYSTEM START MERGES" not in recorder.statements  # the outer block still runs
        assert recorder.statements == ["SYSTEM STOP MERGES", "SELECT 1", "SYSTEM START MERGES"]


def test_a_table_s_merges_pause_alone_and_stay_paused_when_all_merges_resume(
    store: Store,
) -> None:
    traces = store.traces_table
    with recording(store) as recorder:
        with store.merges_paused(store.table):
            with store.merges_paused(store.table):
                pass
            with store.merges_paused():  # an analysis inside a judge run
                with store.merges_paused(store.table):
                    pass
            assert recorder.statements == [
                f"SYSTEM STOP MERGES {traces}",
                "SYSTEM STOP MERGES",
                "SYSTEM START MERGES",  # starts every table's merges: the judge's table stops again
                f"SYSTEM STOP MERGES {traces}",
            ]
        assert recorder.statements[-1] == f"SYSTEM START MERGES {traces}"
    with recording(store) as recorder:
        with store.merges_paused(), store.merges_paused(store.table):
            pass  # all merges paused already: the table's pause sends nothing
    assert recorder.statements == ["SYSTEM STOP MERGES", "SYSTEM START MERGES"]
    with pytest.raises(StoreError, match=r"table name .* is not allowed"):
        with store.merges_paused("otel_traces; DROP TABLE x"):
            pass


def test_a_paused_table_is_not_merged_while_the_others_are(store: Store) -> None:
    # The engine's own answer: OPTIMIZE runs a merge now, and is refused for a paused table.
    other = quote(store.database, "other")
    store.command(f"CREATE TABLE {other} (n UInt64) ENGINE = MergeTree ORDER BY n")
    for n in range(2):  # two parts each
        store.command(f"INSERT INTO {other} VALUES ({n})")
        store.command(f"INSERT INTO {store.traces_table} (TraceId, SpanId) VALUES ('t{n}', 's')")
    with store.merges_paused(store.table):
        with pytest.raises(StoreError, match=r"(?i)cancel"):
            store.command(f"OPTIMIZE TABLE {store.traces_table} FINAL")
        store.command(f"OPTIMIZE TABLE {other} FINAL")
    store.command(f"OPTIMIZE TABLE {store.traces_table} FINAL")  # merges again after the block
    parts = store.query_df(
        "SELECT table, count() AS n FROM system.parts WHERE active AND database = {db:String} "
        "AND table IN ('other', {traces:String}) GROUP BY table ORDER BY table",
        {"db": store.database, "traces": store.table},
    )
    assert parts.rows() == [(store.table, 1), ("other", 1)]


def test_a_read_only_store_sends_no_system_statement(reader: Store) -> None:
    with recording(reader) as recorder:
        with reader.merges_paused():
            pass
        reader.release_memory()
        reader.settle()
    assert recorder.statements == []
    with pytest.raises(StoreError, match="command failed on chdb://"):
        reader.command(f"INSERT INTO {reader.traces_table} (TraceId) VALUES ('t')")


def test_memory_is_released_and_settling_looks_at_merges_and_parts(store: Store) -> None:
    with recording(store) as recorder:
        store.release_memory()
        store.settle()
    assert recorder.statements[0] == "SYSTEM JEMALLOC PURGE"
    assert len(recorder.statements) == 2 and "system.merges" in recorder.statements[1]


def test_merges_are_deferred_until_a_partition_may_hold_deferred_parts(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connection, "DEFERRED_PARTS", 4)
    with recording(store) as recorder:
        with store.merges_deferred() as merges:
            assert recorder.statements[-1] == "SYSTEM STOP MERGES"
            merges.wrote(2)
            assert "SYSTEM START MERGES" not in recorder.statements
            merges.wrote(2)  # no part at the start, four written: merges resume
            assert recorder.statements[-1] == "SYSTEM START MERGES"
            merges.wrote(2)
            merges.resume()
    assert recorder.statements.count("SYSTEM START MERGES") == 1


def test_deferred_merges_resume_when_asked_for_a_mutation(store: Store) -> None:
    with recording(store) as recorder:
        with store.merges_deferred() as merges:
            merges.resume()
            assert recorder.statements[-1] == "SYSTEM START MERGES"
            store.command(f"DELETE FROM {store.traces_table} WHERE SpanId = 'none'")  # returns
    assert recorder.statements.count("SYSTEM START MERGES") == 1


def test_a_store_already_in_many_parts_merges_throughout(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connection, "DEFERRED_PARTS", 1)
    b = TraceBuilder()
    with b.question("q-1", "What?"):
        pass
    store.insert_traces(spans_to_arrow(b.spans))  # one part
    with recording(store) as recorder:
        with store.merges_deferred() as merges:
            merges.wrote(1)
    assert len(recorder.statements) == 1 and "system.parts" in recorder.statements[0]


def test_traces_are_inserted_through_files_and_other_tables_in_a_block(store: Store) -> None:
    b = TraceBuilder()
    with b.question("q-1", "What?") as q:
        q.retrieve(["d#1"], top_k=1)
    assert store.insert_traces(spans_to_arrow(b.spans), streams=2) == 1  # few rows: one stream
    assert store.command(f"SELECT count() FROM {store.traces_table}") == 2
    store.command(f"CREATE TABLE {quote(store.database, 'pairs')} (k String) ENGINE = Memory")
    store.insert_arrow("pairs", pa.table({"k": ["a", "b"]}))
    assert store.command(f"SELECT count() FROM {quote(store.database, 'pairs')}") == 2


def test_a_failed_insert_names_its_table(store: Store) -> None:
    with pytest.raises(StoreError, match=rf"insert into `{store.database}`\.`absent` failed on"):
        store.insert_arrow("absent", pa.table({"k": ["a"]}))
    with pytest.raises(StoreError, match="table name 'a b' is not allowed"):
        store.insert_arrow("a b", pa.table({"k": ["a"]}))


def test_an_insert_of_an_unknown_column_names_the_traces_table(store: Store) -> None:
    with pytest.raises(StoreError, match=rf"insert into {re.escape(store.traces_table)} failed"):
        store.insert_traces(pa.table({"NoSuchColumn": ["a"]}))


def test_closing_twice_is_harmless_and_frees_the_engine(tmp_path: Path) -> None:
    first = Store.open(f"chdb://{tmp_path / 'a'}", create=True)
    assert repr(first) == f"Store('chdb://{tmp_path / 'a'}', table=`otel`.`otel_traces`)"
    first.close()
    first.close()
    with Store.open(f"chdb://{tmp_path / 'b'}", create=True) as second:
        assert second.command("SELECT 1") == 1


def test_an_insert_says_how_many_parts_it_wrote(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ingest counts them toward ``DEFERRED_PARTS``: a chunk too small for two streams
    writes one part, and counting two had merges resume at half the parts."""
    monkeypatch.setattr(connection, "_MIN_STREAM_ROWS", 1)
    b = TraceBuilder()
    with b.question("q-1", "What?") as q:
        q.retrieve(["d#1"], top_k=1)
    with store.merges_paused():
        assert store.insert_traces(spans_to_arrow(b.spans), streams=2) == 2
        assert store.insert_traces(spans_to_arrow(b.spans[:1]), streams=2) == 1
        parts = store.command(
            "SELECT count() FROM system.parts WHERE active AND database = {db:String} "
            "AND table = {t:String}",
            parameters={"db": store.database, "t": store.table},
        )
    assert parts == 3
