"""``store/dsn.py``: parsing store addresses, redacting passwords, identifiers fit for SQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragfunnel.analyzer.store import StoreError, redact_dsn
from ragfunnel.analyzer.store.dsn import (
    DEFAULT_DSN,
    ENV_STORE,
    check_identifier,
    chosen_dsn,
    parse_dsn,
    quote,
)


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


@pytest.mark.parametrize(
    ("dsn", "message"),
    [
        ("ftp://host/x", "unknown store scheme 'ftp' in ftp://host/x: use chdb:///path"),
        ("http://", "the store DSN http:// names no host"),
        ("chdb://", "the chdb DSN names no path"),
        (
            "http://bob:s3cret@host:99999/x",
            "cannot parse the store DSN http://bob:***@host:99999/x",
        ),
        (
            "https://bob:s3cret@host:port/x",
            "cannot parse the store DSN https://bob:***@host:port/x",
        ),
    ],
)
def test_a_bad_dsn_is_named_with_what_is_wrong_and_never_its_password(
    dsn: str, message: str
) -> None:
    with pytest.raises(StoreError) as caught:
        parse_dsn(dsn)
    assert str(caught.value).startswith(message)
    assert "s3cret" not in str(caught.value)
    assert caught.value.argument == "dsn"  # the CLI names --store


def test_a_password_with_a_slash_never_reaches_the_message() -> None:
    with pytest.raises(StoreError) as caught:
        parse_dsn("http://bob:pa/ss@host/db")
    assert "pa/ss" not in str(caught.value)


@pytest.mark.parametrize("password", ["pa/ss", "p@ss/w:rd", "pa:ss"])
def test_redact_dsn_hides_a_password_holding_slashes_at_signs_and_colons(password: str) -> None:
    assert redact_dsn(f"http://bob:{password}@host:8123/db") == "http://bob:***@host:8123/db"


def test_bare_paths_and_chdb_paths_are_embedded_and_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for dsn, path in [
        ("store", tmp_path / "store"),
        ("chdb://rel/store", tmp_path / "rel" / "store"),
        (f"chdb://{tmp_path}/abs", tmp_path / "abs"),
        ("CHDB://upper", tmp_path / "upper"),  # the scheme in any case
        ("chdb://~/mine", tmp_path / "home" / "mine"),
    ]:
        target = parse_dsn(dsn)
        assert target.embedded and target.path == str(path), dsn
        assert target.redacted == f"chdb://{path}"
        assert (target.host, target.password, target.database) == ("", "", "")


def test_a_server_dsn_names_its_port_scheme_and_first_path_segment_as_database(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CLICKHOUSE_USER", raising=False)
    monkeypatch.delenv("CLICKHOUSE_PASSWORD", raising=False)
    target = parse_dsn("HTTP://ch.example:9000/db%2Dx/")
    assert not target.embedded and not target.secure
    assert (target.host, target.port, target.database) == ("ch.example", 9000, "db-x")
    assert (target.username, target.password) == ("default", "")  # the documented default user
    assert target.redacted == "http://default@ch.example:9000/db-x"
    monkeypatch.setenv("CLICKHOUSE_PASSWORD", "from-env")
    assert parse_dsn("https://carol:given@h/x").password == "given"  # the DSN's own wins


def test_chosen_dsn_is_the_argument_then_the_environment_then_the_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(ENV_STORE, raising=False)
    assert chosen_dsn(None) == DEFAULT_DSN == "chdb://.ragfunnel/store"
    assert chosen_dsn("") == DEFAULT_DSN
    monkeypatch.setenv(ENV_STORE, "http://env-host/otel")
    assert chosen_dsn(None) == "http://env-host/otel"
    assert chosen_dsn("chdb:///given") == "chdb:///given"


def test_scrub_replaces_the_password_in_any_message() -> None:
    target = parse_dsn("http://bob:hunter2@h/db")
    assert target.scrub(RuntimeError("login hunter2 failed; hunter2")) == "login *** failed; ***"
    assert target.scrub(RuntimeError("  ")) == "RuntimeError"  # an empty message names the type
    plain = parse_dsn("chdb:///x")
    assert plain.scrub(ValueError("no password here")) == "no password here"


@pytest.mark.parametrize("name", ["otel", "otel_traces", "_x", "team-a", "a" * 128])
def test_plain_names_are_allowed_identifiers(name: str) -> None:
    assert check_identifier("table", name) == name


@pytest.mark.parametrize(
    "name", ["", "1abc", "a.b", "a`b", "x; DROP TABLE y", "a b", "é", "a" * 129]
)
def test_other_names_are_refused_naming_the_kind(name: str) -> None:
    with pytest.raises(StoreError, match=r"^database name .* is not allowed") as caught:
        check_identifier("database", name)
    assert caught.value.argument == "database"


def test_quote_backquotes_and_joins_with_dots() -> None:
    assert quote("otel") == "`otel`"
    assert quote("otel", "otel_traces") == "`otel`.`otel_traces`"
