"""Collector outage: the app keeps answering, nothing blocks, losses are counted, export resumes."""

from __future__ import annotations

import time
import urllib.parse

import pytest

import ragfunnel
from ragfunnel.instrumentation import contract as c
from tests.support.collector import Stack, get_json, wait_until
from tests.support.e2e_pipeline import SERVICE, answer, provider


def in_jaeger(stack: Stack, question_id: str) -> bool:
    query = urllib.parse.urlencode(
        {"service": SERVICE, "tags": f'{{"{c.QUESTION_ID}":"{question_id}"}}'}
    )
    return bool(get_json(f"{stack.query}/api/traces?{query}")["data"])


def test_collector_down_then_back(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", stack.otlp_grpc)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_INSECURE", "true")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "2")  # seconds per export attempt
    monkeypatch.setenv("RAGFUNNEL_MAX_QUEUE_SIZE", "100")
    monkeypatch.setenv("RAGFUNNEL_EXPORT_DELAY_S", "0.2")
    ragfunnel.configure(tracer_provider=provider(), exporter="otlp", run_id="e2e-outage")

    answer("q-before", "before the outage")
    assert ragfunnel.flush(10_000)
    wait_until(lambda: in_jaeger(stack, "q-before"), "q-before in Jaeger")
    stats = ragfunnel.export_stats()
    assert stats.exported == 5 and stats.failed == 0 and stats.dropped == 0

    stack.collector.stop()
    try:
        slowest = slowest_cpu = 0.0
        started = time.perf_counter()
        for i in range(300):  # 1,500 spans into a queue of 100 while nothing listens
            t0, c0 = time.perf_counter(), time.thread_time()
            assert answer(f"q-down-{i}", f"during the outage {i}").startswith("answer citing")
            slowest = max(slowest, time.perf_counter() - t0)
            slowest_cpu = max(slowest_cpu, time.thread_time() - c0)
        elapsed = time.perf_counter() - started
        # A request that waited on export would wait out an export attempt (the 2 s timeout
        # above); on a busy machine the scheduler alone can hold one for most of a second of
        # wall clock, so the work itself is judged by the request's CPU time.
        assert slowest < 2.0, f"a request waited {slowest:.3f}s on export"
        assert slowest_cpu < 0.05, f"a request spent {slowest_cpu:.3f}s of CPU"
        assert elapsed < 5, elapsed
        time.sleep(0.5)
        assert stats.queued + stats.dropped == 5 + 1_500
        # The bounded queue kept at most 100, plus one batch in flight; the rest of what it
        # accepted was already tried (a slow machine's loop spans several export attempts, and
        # a collector that is still shutting down may take one).
        tried = stats.exported + stats.failed
        assert stats.queued <= 100 + 100 + tried, stats
        assert stats.dropped >= 1_500 - 200 - (tried - 5), stats
    finally:
        stack.start_collector()

    # Whatever the queue still held is retried or failed: the backlog drains within one export
    # attempt (the 2 s timeout above) plus its retry. Until it has, the queue may still be full —
    # on a busy machine the batch in flight is still waiting out its retry when the collector is
    # back — and a span that arrives then is dropped, as documented: the question asked after
    # the outage must find room, or the test waits for a trace that was never queued.
    drained = time.monotonic()
    assert ragfunnel.flush(10_000), f"the backlog did not drain: {stats}"
    drained = time.monotonic() - drained
    assert drained < 2 * 2 + 1, f"recovery took {drained:.1f}s"
    dropped = stats.dropped
    answer("q-after", "after the outage")
    assert stats.dropped == dropped, f"q-after was dropped: {stats}"
    # New spans flow again.
    wait_until(
        lambda: ragfunnel.flush(10_000) and in_jaeger(stack, "q-after"),
        "q-after in Jaeger",
        timeout=30,
    )
    assert stats.exported >= 10
    # Every span is accounted for: exported, failed during the outage, or dropped at the queue.
    assert ragfunnel.flush(20_000)
    assert (
        stats.exported + stats.failed + stats.dropped
        == stats.queued + stats.dropped
        == 5 + 1_500 + 5
    )
