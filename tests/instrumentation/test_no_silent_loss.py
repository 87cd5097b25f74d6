"""No silent loss (issue 31, Deliver 1): a batch run to a file loses no span; wherever spans
are dropped the count is kept, printed at ``flush()`` and at exit, exposed by
``ragfunnel.dropped_counts()``, on a metric and as a span event; a service keeps dropping under
load and an exporter that is down never holds the app longer than the documented bound.

Each run is a child process: its exit (atexit flush and report) is part of what is tested.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

import ragfunnel
from ragfunnel.instrumentation import export
from ragfunnel.instrumentation.export import (
    DROP_EVENT,
    QUEUE_FULL_WAIT_S,
    SHUTDOWN_BUDGET_S,
    BoundedBatchProcessor,
)
from ragfunnel.instrumentation.file_export import SPANS_PER_LINE
from ragfunnel.testing import capture_spans

LOOP = r"""
import json, sys, time
import ragfunnel

exporter, n = sys.argv[1], int(sys.argv[2])
options = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
ragfunnel.configure(exporter=exporter, run_id="batch", pipeline={}, **options)

@ragfunnel.ingest(index_version="v1")
def ingest(document_id):
    return [f"{document_id}#c1"]

@ragfunnel.retrieve
def retrieve(query):
    return [("a", 1.0), ("b", 0.5)]

@ragfunnel.generate
def generate(question, context):
    return "an answer"

@ragfunnel.question(id="question_id")
def ask(question_id, question):
    return generate(question, retrieve(question))

longest = 0.0
started = time.perf_counter()
for i in range(n):  # a tight loop, 4 spans a turn: the shape of every offline evaluation
    t = time.perf_counter(); ingest(f"doc-{i}"); longest = max(longest, time.perf_counter() - t)
    t = time.perf_counter(); ask(f"q{i}", f"question {i}?"); longest = max(longest, time.perf_counter() - t)
stats = ragfunnel.export_stats()
print(json.dumps({"longest": longest, "loop": time.perf_counter() - started,
                  "stats": vars(stats), "exit_started": time.time()}), flush=True)
"""

LOST = re.compile(r"ragfunnel: (\d+) of (\d+) spans were not exported")


def _run(
    exporter: str, n: int, options: dict[str, object] | None = None, **env: str
) -> tuple[dict[str, Any], str, float]:
    done = subprocess.run(
        [sys.executable, "-c", LOOP, exporter, str(n), json.dumps(options or {})],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        env={**os.environ, **env},
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return result, done.stderr, time.time() - result["exit_started"]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines() if line]


def _spans(line: dict[str, Any]) -> int:
    return sum(len(s["spans"]) for rs in line["resourceSpans"] for s in rs["scopeSpans"])


def test_a_batch_loop_to_a_file_writes_every_span_in_short_lines(tmp_path: Path) -> None:
    path = tmp_path / "spans.jsonl"
    result, stderr, _ = _run(f"file:{path}", 5_000)
    lines = _lines(path)
    assert (
        sum(_spans(line) for line in lines) == 20_000
    )  # 5,000 ingests, 5,000 questions of 3 spans
    assert max(_spans(line) for line in lines) <= SPANS_PER_LINE
    assert result["stats"]["dropped"] == 0
    assert "not exported" not in stderr and "dropping" not in stderr, stderr


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("mode", ["drop", "wait"])
def test_an_endpoint_that_is_down_holds_the_app_within_the_bound_and_the_count_is_exact(
    mode: str,
) -> None:
    endpoint = f"http://127.0.0.1:{_closed_port()}"
    # A queue far smaller than the loop's 4,000 spans: a refused connection fails an export at
    # once, so a 2,048-span queue could drain fast enough never to fill on an idle machine.
    result, stderr, exit_s = _run(
        "otlp+http",
        1_000,
        {"on_queue_full": mode},
        OTEL_EXPORTER_OTLP_ENDPOINT=endpoint,
        OTEL_EXPORTER_OTLP_TRACES_TIMEOUT="1",
        RAGFUNNEL_MAX_QUEUE_SIZE="64",
    )
    # "drop" never waits for room: no call comes near the 10 s a wait may take (2 s allows for
    # a busy shared machine, where the export thread's HTTP retries compete for the GIL).
    bound = QUEUE_FULL_WAIT_S if mode == "wait" else 2.0
    assert result["longest"] < bound, result
    assert exit_s < SHUTDOWN_BUDGET_S + 3, exit_s
    printed = LOST.findall(stderr)
    assert len(printed) == 1, stderr  # the exit prints the total once
    lost, total = map(int, printed[0])
    assert (lost, total) == (4_000, 4_000)  # nothing reached the endpoint: every span missing
    if mode == "drop":
        assert result["stats"]["dropped"] > 0


class _Gate(SpanExporter):
    """An exporter that holds each export until released; counts what it got."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.got = 0

    def export(self, spans: object) -> SpanExportResult:
        self.release.wait(10)
        self.got += len(spans)  # type: ignore[arg-type]
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        self.release.set()


@ragfunnel.retrieve
def _search(query: str) -> list[str]:
    return ["a"]


def test_a_service_drops_and_counts_and_the_next_span_records_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    before = ragfunnel.dropped_counts().get(export.QUEUE_FULL, 0)
    gate = _Gate()
    with capture_spans():
        processor = BoundedBatchProcessor(gate, max_queue_size=5, max_batch_size=5)
        from opentelemetry.sdk.trace import TracerProvider

        provider = TracerProvider()
        provider.add_span_processor(processor)
        tracer = provider.get_tracer("t")
        started = time.perf_counter()
        for i in range(40):
            with tracer.start_as_current_span(f"s{i}"):
                pass
        assert time.perf_counter() - started < 1.0  # never waited
        dropped = processor.stats.dropped
        assert dropped >= 40 - 5 - 5
        assert ragfunnel.dropped_counts()[export.QUEUE_FULL] - before == dropped
        gate.release.set()
        with caplog.at_level("WARNING", logger="ragfunnel"):
            assert processor.force_flush(5_000)
        assert (
            f"ragfunnel: {dropped} of 40 spans were not exported: {dropped} dropped" in caplog.text
        )
        # The next span to start carries the count.
        span = tracer.start_span("after")
        span.end()
        events = [e for e in span.events if e.name == DROP_EVENT]  # type: ignore[attr-defined]
        assert events and events[0].attributes["ragfunnel.dropped_total"] == dropped
        processor.shutdown()


def test_waiting_for_room_loses_nothing_and_a_stuck_exporter_is_given_up_once() -> None:
    gate = _Gate()
    processor = BoundedBatchProcessor(
        gate, max_queue_size=4, max_batch_size=4, wait_when_full=True, max_wait_s=0.3
    )
    from opentelemetry.sdk.trace import TracerProvider

    provider = TracerProvider()
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("t")
    # Stuck: the first span over the cap waits the bound, the following ones do not wait.
    held = []
    for i in range(20):
        started = time.perf_counter()
        tracer.start_span(f"s{i}").end()
        held.append(time.perf_counter() - started)
    assert 0.25 < max(held) < 1.0 and sorted(held)[-2] < 0.25, held
    assert processor.stats.dropped > 0
    stuck = ragfunnel.dropped_counts()[export.EXPORTER_STUCK]
    assert stuck >= processor.stats.dropped  # counted under the waiting run's reason
    before = processor.stats.dropped
    # Unstuck: once an export succeeds, a full queue is waited for again and nothing is lost.
    gate.release.set()
    assert processor.force_flush(5_000)
    for i in range(200):
        tracer.start_span(f"t{i}").end()
    assert processor.force_flush(5_000)
    assert processor.stats.dropped == before
    assert gate.got == processor.stats.exported == processor.stats.queued
    processor.shutdown()


def test_the_option_and_its_variable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def waits() -> bool:
        state = ragfunnel.instrumentation.config.current_state()
        assert state is not None and isinstance(state.processor, BoundedBatchProcessor)
        return state.processor.wait_when_full

    ragfunnel.configure(exporter=f"file:{tmp_path}/a.jsonl")
    assert waits()  # a local file: wait
    ragfunnel.configure(exporter=_Gate())
    assert not waits()  # anything else: a service's default, drop
    ragfunnel.configure(exporter=_Gate(), on_queue_full="wait")
    assert waits()
    monkeypatch.setenv("RAGFUNNEL_ON_QUEUE_FULL", "WAIT")
    ragfunnel.configure(exporter=_Gate())
    assert waits()
    monkeypatch.setenv("RAGFUNNEL_ON_QUEUE_FULL", "drop")
    ragfunnel.configure(exporter=f"file:{tmp_path}/b.jsonl")
    assert not waits()
    monkeypatch.setenv("RAGFUNNEL_ON_QUEUE_FULL", "sometimes")
    ragfunnel.configure(exporter=_Gate())  # a bad environment value warns, keeps the default
    assert not waits()
    with pytest.raises(ragfunnel.ConfigError, match="on_queue_full must be 'wait' or 'drop'"):
        ragfunnel.configure(exporter=_Gate(), on_queue_full="block")
    ragfunnel.configure(exporter="none")
