"""Collector outages through the real OTLP/HTTP exporter: endpoint down, slow (5 s per request),
flapping. The app never waits, the queue never grows past its cap, every lost span is counted,
and export resumes when the endpoint is back (docs/reliability.md; figures: bench/outage.py)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

import ragfunnel
from ragfunnel.instrumentation import config
from ragfunnel.instrumentation.export import BoundedBatchProcessor, ExportStats
from ragfunnel.testing import OTLPReceiver

QUEUE = 200


@ragfunnel.retrieve(name="bm25")
def search(query: str) -> list[tuple[str, float]]:
    return [(f"{query}-{i}", 1.0 - i / 50) for i in range(50)]


@pytest.fixture
def receiver(monkeypatch: pytest.MonkeyPatch) -> Iterator[OTLPReceiver]:
    with OTLPReceiver() as rx:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rx.endpoint)
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "1")  # keep the test short
        monkeypatch.setenv("RAGFUNNEL_MAX_QUEUE_SIZE", str(QUEUE))
        monkeypatch.setenv("RAGFUNNEL_EXPORT_DELAY_S", "0.05")
        ragfunnel.configure(exporter="otlp+http")
        yield rx
        rx.mode = "ok"
        rx.start()
        ragfunnel.flush(10_000)


def _processor() -> BoundedBatchProcessor:
    st = config.current_state()
    assert st is not None and isinstance(st.processor, BoundedBatchProcessor)
    return st.processor


def _burst(n: int) -> float:
    """``n`` traced calls; the largest queue length seen is checked against the cap."""
    processor = _processor()
    started = time.perf_counter()
    for i in range(n):
        assert search(f"q{i}")[0] == (f"q{i}-0", 1.0)
        assert len(processor._queue) <= QUEUE
    return time.perf_counter() - started


def _wait_for(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _settled(stats: ExportStats, calls: int) -> None:
    """Every span is accounted for: queued or dropped, then exported or failed."""
    assert stats.queued + stats.dropped == calls
    assert stats.exported + stats.failed == stats.queued


def test_endpoint_down_then_back(receiver: OTLPReceiver) -> None:
    receiver.stop()
    assert _burst(2_000) < 2.0  # ≈ 50 µs a call; waiting on the network would take seconds
    stats = ragfunnel.export_stats()
    assert stats.dropped > 0
    _wait_for(lambda: stats.failed > 0)
    receiver.start()
    before = receiver.spans
    _burst(100)
    assert ragfunnel.flush(10_000)
    assert receiver.spans - before >= 100  # export resumed
    _settled(stats, 2_100)


def test_slow_endpoint(receiver: OTLPReceiver) -> None:
    receiver.mode, receiver.delay_s = "slow", 5.0
    assert _burst(2_000) < 2.0
    stats = ragfunnel.export_stats()
    assert stats.dropped >= 2_000 - QUEUE - 512  # at most one batch in flight besides the queue
    receiver.mode = "ok"
    receiver.stop()  # answers the slow request in progress
    receiver.start()
    _burst(100)
    assert ragfunnel.flush(10_000)
    _settled(stats, 2_100)
    assert stats.exported >= 100


def test_flapping_endpoint(receiver: OTLPReceiver) -> None:
    calls = 0
    for flap in range(10):  # 10 × 0.1 s, alternating failing (503) and healthy
        receiver.mode = "fail" if flap % 2 == 0 else "ok"
        deadline = time.monotonic() + 0.1
        while time.monotonic() < deadline:
            search(f"q{calls}")
            calls += 1
            time.sleep(0.0005)
    receiver.mode = "ok"
    assert ragfunnel.flush(10_000)
    stats = ragfunnel.export_stats()
    _settled(stats, calls)
    assert stats.exported > 0 and receiver.spans == stats.exported
