"""The store: DSNs, redaction, the exporter's schema, and chdb's one-path-per-process rule."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from unittest.mock import MagicMock

import pytest

from ragfunnel.analyzer.cases import CaseSet
from ragfunnel.analyzer.funnel import analyze
from ragfunnel.analyzer.store import DEFAULT_DSN, TRACES_COLUMNS, Store, StoreError, redact_dsn
from ragfunnel.analyzer.store.dsn import parse_dsn


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "store"


@pytest.fixture
def opened(path: Path) -> Iterator[Store]:
    with Store.open(f"chdb://{path}", create=True) as store:
        yield store


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


def test_reopening_keeps_the_data_and_never_recreates(path: Path) -> None:
    with Store.open(f"chdb://{path}", create=True) as store:
        store.command(f"INSERT INTO {store.traces_table} (TraceId, SpanId) VALUES ('t', 's')")
    with Store.open(f"chdb://{path}", create=True) as store:
        assert store.command(f"SELECT count() FROM {store.traces_table}") == 1


def test_database_and_table_names_are_configurable(path: Path) -> None:
    with Store.open(f"chdb://{path}", database="team_a", table="spans", create=True) as store:
        assert store.traces_table == "`team_a`.`spans`"
        assert store.command("EXISTS TABLE team_a.spans") == 1


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


def test_a_second_embedded_path_waits_for_the_first_to_close(tmp_path: Path) -> None:
    first = Store.open(f"chdb://{tmp_path / 'a'}", create=True)
    try:
        also_first = Store.open(f"chdb://{tmp_path / 'a'}", database="other", create=True)
        also_first.close()
        with pytest.raises(StoreError, match="one store path per process"):
            Store.open(f"chdb://{tmp_path / 'b'}", create=True)
    finally:
        first.close()
    with Store.open(f"chdb://{tmp_path / 'b'}", create=True) as second:
        assert second.command("SELECT 1") == 1


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


@pytest.mark.parametrize(
    ("dsn", "expected"),
    [
        ("http://bob:s3cret@db.example:8123/otel", "http://bob:***@db.example:8123/otel"),
        ("https://bob@db.example/otel", "https://bob@db.example/otel"),
        ("chdb:///var/lib/store", "chdb:///var/lib/store"),
        ("/plain/path", "/plain/path"),
    ],
)
def test_redact_dsn(dsn: str, expected: str) -> None:
    assert redact_dsn(dsn) == expected


def test_server_dsn_parsing_takes_credentials_from_dsn_or_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    target = parse_dsn("https://alice:p%40ss@ch.example/analytics")
    assert (target.host, target.port, target.secure) == ("ch.example", 8443, True)
    assert (target.username, target.password, target.database) == ("alice", "p@ss", "analytics")
    assert target.redacted == "https://alice:***@ch.example:8443/analytics"
    monkeypatch.setenv("CLICKHOUSE_USER", "env-user")
    monkeypatch.setenv("CLICKHOUSE_PASSWORD", "env-secret")
    target = parse_dsn("http://ch.example")
    assert (target.port, target.username, target.password, target.database) == (
        8123,
        "env-user",
        "env-secret",
        "",
    )
    assert "env-secret" not in target.redacted


@pytest.mark.parametrize("dsn", ["ftp://host/x", "http://", "chdb://", "http://host:notaport/x"])
def test_bad_dsns_are_refused_clearly(dsn: str) -> None:
    with pytest.raises(StoreError):
        parse_dsn(dsn)


def test_an_unreachable_server_error_never_shows_the_password() -> None:
    with pytest.raises(StoreError) as caught:
        Store.open("http://bob:hunter2-secret@127.0.0.1:9/otel", create=True)
    assert "hunter2-secret" not in str(caught.value)
    assert "http://bob:***@127.0.0.1:9/otel" in str(caught.value)


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


def test_a_second_process_on_the_same_store_is_told_so_in_plain_words(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    path = tmp_path / "store"
    child = (
        "import sys\nfrom ragfunnel.analyzer.store import Store, StoreError\n"
        "try:\n    Store.open('chdb://' + sys.argv[1], create=True)\n"
        "except StoreError as exc:\n    print(exc)\n"
    )
    with Store.open(f"chdb://{path}", create=True):
        found = subprocess.run(
            [sys.executable, "-c", child, str(path)],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
            check=True,
        )
    assert f"the store chdb://{path} is in use by another process (pid " in found.stdout
    assert "EmbeddedServer" not in found.stdout and "BAD_ARGUMENTS" not in found.stdout
