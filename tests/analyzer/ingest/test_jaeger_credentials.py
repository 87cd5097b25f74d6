"""Credentials in a Jaeger URL: used for basic auth, never printed, stored or linked.

Issue 19, Why 5: ``--from-jaeger http://admin:PW@…`` printed the password in its error and basic
auth did not work; ``--jaeger-url https://admin:PW@…`` wrote it into every trace link.
"""

from __future__ import annotations

import base64
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragfunnel.analyzer import cli
from ragfunnel.analyzer.ingest import IngestError, pull_from_jaeger
from ragfunnel.analyzer.report.drilldown import check_jaeger_url, trace_url
from ragfunnel.analyzer.report.report_error import ReportError
from ragfunnel.analyzer.store import Store
from tests.support.jaeger import NOW, V3_ANSWER

PASSWORD = "s3cr%3At"  # percent-encoded in the URL: the password is s3cr:t


class AuthJaeger:
    """``/api/v3/traces`` behind HTTP basic auth (admin / s3cr:t)."""

    def __init__(self) -> None:
        self.authorizations: list[str | None] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                given = self.headers.get("Authorization")
                fake.authorizations.append(given)
                expected = "Basic " + base64.b64encode(b"admin:s3cr:t").decode()
                status, body = (200, V3_ANSWER) if given == expected else (401, b"{}")
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def jaeger() -> Iterator[AuthJaeger]:
    server = AuthJaeger()
    yield server
    server.close()


def test_basic_auth_from_the_url_works(store: Store, jaeger: AuthJaeger) -> None:
    url = f"http://admin:{PASSWORD}@127.0.0.1:{jaeger.port}"
    summary = pull_from_jaeger(store, url, "golden-rag", "1h", until=NOW)
    assert summary.inserted > 0 and summary.skipped == []
    assert jaeger.authorizations and all(
        a and a.startswith("Basic ") for a in jaeger.authorizations
    )


def test_a_wrong_password_fails_without_showing_it(store: Store, jaeger: AuthJaeger) -> None:
    url = f"http://admin:wrongPW@127.0.0.1:{jaeger.port}"
    with pytest.raises(IngestError, match="HTTP 401") as raised:
        pull_from_jaeger(store, url, "golden-rag", "1h", until=NOW)
    assert "wrongPW" not in str(raised.value)
    assert f"http://127.0.0.1:{jaeger.port}" in str(raised.value)


def test_an_unreachable_jaeger_is_named_without_the_password(store: Store) -> None:
    with pytest.raises(IngestError, match="cannot reach Jaeger") as raised:
        pull_from_jaeger(store, "http://admin:PW1234@127.0.0.1:9", "svc", "1h")
    assert "PW1234" not in str(raised.value)


def test_the_cli_error_does_not_print_the_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(
        cli.app,
        ["ingest", "--store", str(tmp_path / "store"), "--from-jaeger",
         "http://admin:PW1234@127.0.0.1:9", "--service", "svc"],
    )  # fmt: skip
    assert result.exit_code != 0
    assert "cannot reach Jaeger" in result.output
    assert "PW1234" not in result.output


def test_report_links_carry_no_credentials() -> None:
    base = check_jaeger_url("https://admin:PW1234@jaeger.internal:16686/ui/")
    assert base == "https://jaeger.internal:16686/ui"
    assert trace_url(base, "ab12") == "https://jaeger.internal:16686/ui/trace/ab12"
    with pytest.raises(ReportError) as raised:
        check_jaeger_url("ftp://admin:PW1234@jaeger.internal")
    assert "PW1234" not in str(raised.value)
