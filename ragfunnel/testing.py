"""Helpers for testing code instrumented with ragfunnel: capture spans in memory.

from ragfunnel.testing import capture_spans

def test_my_pipeline():
    with capture_spans() as spans:
        answer("Which firmware needs a reset?")
    retrieve = spans.by_stage("retrieve")[0]
    assert retrieve.attributes["ragfunnel.documents.ids"][0] == "release-notes-4.2"

:class:`OTLPReceiver` is a loopback OTLP/HTTP endpoint that can be slow, fail or go down, to test
what an app does while its collector is in trouble (nothing different, is the answer).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ragfunnel.instrumentation import config
from ragfunnel.instrumentation.contract import STAGE
from ragfunnel.instrumentation.redaction import Redactor

__all__ = ["CapturedSpans", "OTLPReceiver", "capture_spans"]


class CapturedSpans:
    """The finished spans of a :func:`capture_spans` block, with small lookup helpers."""

    def __init__(self, exporter: InMemorySpanExporter):
        self.exporter = exporter

    @property
    def spans(self) -> list[ReadableSpan]:
        """Every finished span, in the order they ended."""
        return list(self.exporter.get_finished_spans())

    def by_stage(self, stage: str) -> list[ReadableSpan]:
        """Finished spans whose ``ragfunnel.stage`` is ``stage``."""
        return [s for s in self.spans if (s.attributes or {}).get(STAGE) == stage]

    def attributes(self, stage: str) -> list[dict[str, Any]]:
        """The attributes of each span of ``stage``, as plain dicts."""
        return [dict(s.attributes or {}) for s in self.by_stage(stage)]

    def clear(self) -> None:
        """Forget the spans captured so far."""
        self.exporter.clear()

    def __len__(self) -> int:
        return len(self.spans)

    def __iter__(self) -> Iterator[ReadableSpan]:
        return iter(self.spans)


@contextmanager
def capture_spans(
    *,
    capture_content: bool | str | Iterable[str] = False,
    redact: Redactor | None = None,
    run_id: str | None = "test-run",
    pipeline: dict[str, Any] | None = None,
) -> Iterator[CapturedSpans]:
    """Send ragfunnel's spans to memory for the duration of the block, then restore the config.

    Spans are exported synchronously, so they are visible as soon as each one ends.
    """
    previous = config.current_state()
    exporter = InMemorySpanExporter()
    config.configure(
        exporter=exporter,
        capture_content=capture_content,
        redact=redact,
        run_id=run_id,
        pipeline=pipeline or {},
        enabled=True,
        batch=False,
    )
    try:
        yield CapturedSpans(exporter)
    finally:
        config.restore(previous)


class OTLPReceiver:
    """An OTLP/HTTP trace endpoint on 127.0.0.1 that counts what it receives.

    ``mode`` is ``"ok"`` (200), ``"slow"`` (answers after ``delay_s``) or ``"fail"`` (503, which
    exporters retry); :meth:`stop` takes the endpoint down (connection refused) and
    :meth:`start` brings it back on the same port. Point an app at it with
    ``OTEL_EXPORTER_OTLP_ENDPOINT=receiver.endpoint``.
    """

    def __init__(self, port: int = 0) -> None:
        self.mode: Literal["ok", "slow", "fail"] = "ok"
        self.delay_s = 5.0
        self.requests = 0
        self.spans = 0
        self._port = port
        self._lock = threading.Lock()
        self._release = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self.start()

    @property
    def endpoint(self) -> str:
        """The base URL (the exporter appends ``/v1/traces``)."""
        return f"http://127.0.0.1:{self._port}"

    def start(self) -> None:
        """Listen (again, on the same port once one was chosen)."""
        if self._server is not None:
            return
        self._release.clear()
        server = ThreadingHTTPServer(("127.0.0.1", self._port), _handler(self))
        server.daemon_threads = True
        self._port = server.server_address[1]
        self._server = server
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()

    def stop(self) -> None:
        """Stop listening: the endpoint is down until :meth:`start`."""
        server, self._server = self._server, None
        self._release.set()  # slow requests in progress answer now
        if server is not None:
            server.shutdown()
            server.server_close()

    def _receive(self, body: bytes) -> int:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
        )

        request = ExportTraceServiceRequest.FromString(body)
        count = sum(len(ss.spans) for rs in request.resource_spans for ss in rs.scope_spans)
        mode = self.mode
        if mode == "slow":
            self._release.wait(self.delay_s)
        if mode == "fail":
            return 503
        with self._lock:
            self.requests += 1
            self.spans += count
        return 200

    def __enter__(self) -> OTLPReceiver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _handler(receiver: OTLPReceiver) -> type[BaseHTTPRequestHandler]:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceResponse,
    )

    reply = ExportTraceServiceResponse().SerializeToString()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            status = receiver._receive(body)
            self.send_response(status)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, format: str, *args: Any) -> None:
            return  # the test's output is the app's, not this server's

    return Handler
