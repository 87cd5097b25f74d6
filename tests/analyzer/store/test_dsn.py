"""``store/dsn.py``: parsing store addresses, redacting passwords, identifiers fit for SQL."""

from __future__ import annotations

import pytest

from ragfunnel.analyzer.store import StoreError, redact_dsn
from ragfunnel.analyzer.store.dsn import parse_dsn


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
