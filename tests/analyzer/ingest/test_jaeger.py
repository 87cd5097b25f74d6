"""Pulling from a running Jaeger's API v3, against a local fake that answers as Jaeger does."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from ragfunnel.analyzer.ingest import IngestError, pull_from_jaeger
from ragfunnel.analyzer.ingest.jaeger_api import parse_duration
from ragfunnel.analyzer.store import Store
from tests.support.jaeger import NOW, V3_ANSWER

NOT_FOUND = json.dumps({"error": {"httpCode": 404, "message": "No traces found"}}).encode()

Answer = Callable[[dict[str, str]], tuple[int, bytes]]


class FakeJaeger:
    """Serves ``/api/v3/traces`` from a function of the query; records every query."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.queries: list[dict[str, str]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                query = {k: v[0] for k, v in parse_qs(parts.query).items()}
                if parts.path != "/api/v3/traces":
                    status, body = 404, b"404 page not found"
                else:
                    fake.queries.append(query)
                    status, body = fake.answer(query)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeJaeger:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


def test_pull_asks_jaeger_v3_with_its_parameter_names_and_ingests(store: Store) -> None:
    with FakeJaeger(lambda query: (200, V3_ANSWER)) as jaeger:
        summary = pull_from_jaeger(store, jaeger.url + "/", "golden-rag", "1h", until=NOW)
    assert (summary.read, summary.inserted, summary.skipped) == (4, 4, [])
    [query] = jaeger.queries
    assert query == {
        "query.service_name": "golden-rag",
        "query.start_time_min": "2023-11-14T22:00:00.000000Z",
        "query.start_time_max": "2023-11-14T23:00:00.000000Z",
        "query.num_traces": "1000",
    }
    with FakeJaeger(lambda query: (200, V3_ANSWER)) as jaeger:
        again = pull_from_jaeger(store, jaeger.url, "golden-rag", timedelta(hours=1), until=NOW)
    assert (again.inserted, again.duplicates) == (0, 4)


def test_no_traces_is_not_an_error(store: Store) -> None:
    with FakeJaeger(lambda query: (404, NOT_FOUND)) as jaeger:
        summary = pull_from_jaeger(store, jaeger.url, "quiet-service", "30m", until=NOW)
    assert (summary.read, summary.skipped) == (0, [])


def test_a_full_answer_is_split_until_nothing_is_cut_off(store: Store) -> None:
    # Two traces in the hour; like Jaeger, the fake returns at most query.num_traces of them.
    document = json.loads(V3_ANSWER)
    by_trace: dict[str, list[Any]] = {}
    for rs in document["result"]["resourceSpans"]:
        by_trace.setdefault(rs["scopeSpans"][0]["spans"][0]["traceId"], []).append(rs)
    started = dict(
        zip(
            sorted(by_trace), (NOW - timedelta(minutes=50), NOW - timedelta(minutes=5)), strict=True
        )
    )

    def answer(query: dict[str, str]) -> tuple[int, bytes]:
        low, high = (
            datetime.fromisoformat(query[k].replace("Z", "+00:00"))
            for k in ("query.start_time_min", "query.start_time_max")
        )
        found = [trace for trace, at in started.items() if low <= at <= high][
            : int(query["query.num_traces"])
        ]
        if not found:
            return 404, NOT_FOUND
        return 200, json.dumps(
            {"result": {"resourceSpans": [rs for t in found for rs in by_trace[t]]}}
        ).encode()

    with FakeJaeger(answer) as jaeger:
        summary = pull_from_jaeger(store, jaeger.url, "golden-rag", "1h", until=NOW, limit=1)
    assert (summary.inserted, summary.skipped) == (4, [])
    assert len(jaeger.queries) > 2


def test_jaeger_errors_are_clear(store: Store) -> None:
    error = json.dumps(
        {"error": {"httpCode": 400, "message": "malformed parameter query.start_time_min"}}
    ).encode()
    with (
        FakeJaeger(lambda query: (400, error)) as jaeger,
        pytest.raises(IngestError, match="HTTP 400: malformed parameter"),
    ):
        pull_from_jaeger(store, jaeger.url, "svc", "1h", until=NOW)
    with pytest.raises(IngestError, match="cannot reach Jaeger"):
        pull_from_jaeger(store, "http://127.0.0.1:9", "svc", "1h")
    with pytest.raises(IngestError, match="http"):
        pull_from_jaeger(store, "file:///etc/passwd", "svc", "1h")
    with pytest.raises(IngestError, match="cannot read 'soon' as a duration"):
        pull_from_jaeger(store, "http://127.0.0.1:9", "svc", "soon")


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90s", 90),
        ("15m", 900),
        ("1h30m", 5400),
        ("2d", 172800),
        ("1w", 604800),
        ("500ms", 0.5),
        ("1.5h", 5400),
    ],
)
def test_parse_duration(text: str, seconds: float) -> None:
    assert parse_duration(text).total_seconds() == seconds


@pytest.mark.parametrize("text", ["", "1", "h", "1x", "-1h", "1h junk"])
def test_parse_duration_refuses_the_rest(text: str) -> None:
    with pytest.raises(ValueError, match="as a duration"):
        parse_duration(text)
