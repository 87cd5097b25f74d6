"""A bounded span processor whose drops and failures are counted exactly, and printed.

The SDK's BatchSpanProcessor drops silently-counted spans inside private state. ragfunnel must
tell a user how many spans a collector outage cost, so this processor keeps the same shape —
bounded queue, one daemon worker, batches, instrumentation suppressed while exporting — and
exposes :class:`ExportStats`.

What a full queue does depends on ``wait_when_full``. Off (services, the default for OTLP and
for a ``SpanExporter`` of your own): ``on_end`` never blocks, the new span is dropped. On (the
default for a ``file:`` exporter; ``configure(on_queue_full="wait")`` for a batch run): the
thread that ended the span waits for room, at most :data:`QUEUE_FULL_WAIT_S`; if the exporter
made no room by then, or its last export failed, nothing waits any more (spans are dropped)
until an export succeeds again, so an exporter that is down holds the app once, for at most
that bound. Every drop is counted in :class:`ExportStats` and :func:`dropped_counts`, on the
``ragfunnel.spans.dropped`` metric (OpenTelemetry metrics API), and as a
``ragfunnel.spans_dropped`` event on the next span that starts; the spans not exported are
printed (logged) at :meth:`BoundedBatchProcessor.force_flush` and at exit.
"""

from __future__ import annotations

import collections
import logging
import math
import os
import threading
import time
import weakref
from collections import Counter
from dataclasses import dataclass
from typing import Any

from opentelemetry import metrics
from opentelemetry.context import (
    _SUPPRESS_INSTRUMENTATION_KEY,  # the SDK's own key: exporters check it
    attach,
    detach,
    set_value,
)
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from ragfunnel.instrumentation import contract
from ragfunnel.instrumentation.safety import internal_error

logger = logging.getLogger("ragfunnel")

_WARN_EVERY_S = 30.0
SHUTDOWN_BUDGET_S = 5.0
"""At most this long for :meth:`BoundedBatchProcessor.shutdown` (flush and worker join together)."""
QUEUE_FULL_WAIT_S = 10.0
"""With ``wait_when_full``, the longest a thread waits for room in a full queue."""

QUEUE_FULL = "export queue full"
EXPORTER_STUCK = "export queue full, exporter stuck or failing"
AFTER_SHUTDOWN = "ended after shutdown"
LEFT_AT_EXIT = "still queued at exit"
DROP_EVENT = contract.SPANS_DROPPED_EVENT
"""The span event that records, on the next span to start, how many spans were dropped."""

_drops_lock = threading.Lock()
_drops: Counter[str] = Counter()
_meter = metrics.get_meter("ragfunnel")
_dropped_metric = _meter.create_counter(
    contract.SPANS_DROPPED_METRIC, unit="{span}", description="Spans ragfunnel could not export"
)


def _count_drop(reason: str, n: int = 1) -> None:
    with _drops_lock:
        _drops[reason] += n
    _dropped_metric.add(n, {"reason": reason})


def dropped_counts() -> dict[str, int]:
    """How many spans were dropped, never exported, by reason, since the process started.

    Reasons: ``"export queue full"`` (the queue was full and the span was not waited for),
    ``"export queue full, exporter stuck or failing"`` (a waiting run gave up: the exporter made
    no room within :data:`QUEUE_FULL_WAIT_S` or its last export failed), ``"ended after
    shutdown"`` and ``"still queued at exit"``. Spans an exporter refused are
    ``export_stats().failed``, not drops. Cheap; safe to expose as a metric.
    """
    with _drops_lock:
        return dict(_drops)


@dataclass
class ExportStats:
    """Counts since the processor started. Read with :func:`ragfunnel.export_stats`."""

    queued: int = 0
    exported: int = 0
    failed: int = 0
    dropped: int = 0

    def lost(self, *, at_exit: bool = False) -> str:
        """One sentence on the spans not exported, or ``""`` when none were lost.

        Spans still queued are lost only ``at_exit`` (the exit gave up on them).
        """
        waiting = self.queued - self.exported - self.failed if at_exit else 0
        if not (self.dropped or self.failed or waiting > 0):
            return ""
        parts = [f"{self.dropped} dropped (export queue full)"] if self.dropped else []
        if self.failed:
            parts.append(f"{self.failed} failed to export")
        if waiting > 0:
            parts.append(f"{waiting} still queued at exit")
        total = self.dropped + self.failed + max(waiting, 0)
        return (
            f"ragfunnel: {total} of {self.queued + self.dropped} spans were not exported: "
            f"{', '.join(parts)} (see ragfunnel.export_stats() and ragfunnel.dropped_counts())"
        )


class BoundedBatchProcessor(SpanProcessor):
    """Queue finished spans and export them in batches on a daemon thread."""

    def __init__(
        self,
        exporter: SpanExporter,
        *,
        max_queue_size: int = 2048,
        max_batch_size: int = 512,
        schedule_delay_s: float = 1.0,
        wait_when_full: bool = False,
        max_wait_s: float = QUEUE_FULL_WAIT_S,
    ) -> None:
        # The SDK's BatchSpanProcessor refuses these too: a delay of 0 busy-loops the worker, a
        # queue of 0 drops every span.
        if max_queue_size < 1 or max_batch_size < 1:
            raise ValueError("max_queue_size and max_batch_size must be at least 1")
        if not (schedule_delay_s > 0 and math.isfinite(schedule_delay_s)):
            raise ValueError("schedule_delay_s must be a finite number of seconds greater than 0")
        self.exporter = exporter
        self.stats = ExportStats()
        self.wait_when_full = wait_when_full
        self._max_wait = max_wait_s
        self._max_queue = max_queue_size
        self._max_batch = max_batch_size
        # An exporter may take fewer spans per call (the file exporter: one short line each).
        self._per_export = max(1, int(getattr(exporter, "spans_per_export", max_batch_size)))
        self._delay = schedule_delay_s
        self._last_warning = 0.0
        self._reported: tuple[int, int, bool] = (0, 0, False)
        self._unannounced = 0
        self._shutdown = False
        self._fresh_state()
        # A forked child gets a copy of the queue and of the lock (perhaps held by a thread it
        # does not have) but no worker: it starts afresh, once, instead of checking every span.
        after_fork = weakref.WeakMethod(self._fresh_state)

        def in_child() -> None:
            method = after_fork()
            if method is not None:
                method()

        os.register_at_fork(after_in_child=in_child)

    def _fresh_state(self) -> None:
        self._queue: collections.deque[ReadableSpan] = collections.deque()
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._room = threading.Condition(self._lock)
        self._wake = threading.Event()
        self._in_flight = 0
        self._failing = False  # the last export failed, or a wait for room ran out
        if not self._shutdown:
            self._worker = threading.Thread(target=self._run, name="ragfunnel-export", daemon=True)
            self._worker.start()

    def on_start(self, span: Any, parent_context: Any = None) -> None:  # noqa: D102
        if self._unannounced:  # unlocked read: a miss is caught by the next span
            with self._lock:
                since, self._unannounced = self._unannounced, 0
                total = self.stats.dropped
            try:
                span.add_event(
                    DROP_EVENT, {contract.SPANS_DROPPED: since, contract.SPANS_DROPPED_TOTAL: total}
                )
            except Exception as exc:  # noqa: BLE001 - a span of another SDK
                internal_error("recording dropped spans", exc)

    def on_end(self, span: ReadableSpan) -> None:  # noqa: D102 - SpanProcessor API
        if not (span.context and span.context.trace_flags.sampled):
            return
        if self._shutdown:
            _count_drop(AFTER_SHUTDOWN)
            return
        reason = ""  # why this span is dropped, if it is
        with self._lock:
            if len(self._queue) >= self._max_queue and self._may_wait():
                self._wait_for_room()
            if len(self._queue) >= self._max_queue:
                reason = EXPORTER_STUCK if self.wait_when_full else QUEUE_FULL
                self.stats.dropped += 1
                self._unannounced += 1
                warn = time.monotonic() - self._last_warning > _WARN_EVERY_S
                if warn:
                    self._last_warning = time.monotonic()
            else:
                self._queue.append(span)
                self.stats.queued += 1
                warn = False
            full = len(self._queue) >= self._max_batch
        if reason:
            _count_drop(reason)
        if warn:
            logger.warning(
                "ragfunnel export queue full (%d spans): dropping spans (%s); %d dropped so far; "
                "the total is printed at flush() and at exit",
                self._max_queue,
                reason,
                self.stats.dropped,
            )
        if full:
            self._wake.set()

    def _may_wait(self) -> bool:
        return (
            self.wait_when_full
            and not self._failing
            and threading.current_thread() is not self._worker  # never wait for oneself
        )

    def _wait_for_room(self) -> None:
        """Wait (the lock released) until the worker takes a batch, at most the bound."""
        self._wake.set()
        deadline = time.monotonic() + self._max_wait
        while len(self._queue) >= self._max_queue and not self._shutdown:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._failing = True
                logger.warning(
                    "ragfunnel export queue stayed full for %.0f s: the exporter is stuck; "
                    "spans are dropped, not waited for, until an export succeeds",
                    self._max_wait,
                )
                return
            self._room.wait(remaining)

    def _run(self) -> None:
        while not self._shutdown:
            self._wake.wait(self._delay)
            self._wake.clear()
            self._drain()
        self._drain()

    def _take_batch(self) -> list[ReadableSpan]:
        with self._lock:
            n = min(self._max_batch, len(self._queue))
            batch = [self._queue.popleft() for _ in range(n)]
            self._in_flight += len(batch)
            if batch:
                self._room.notify_all()
            return batch

    def _drain(self) -> None:
        while batch := self._take_batch():
            for start in range(0, len(batch), self._per_export):
                self._export(batch[start : start + self._per_export])

    def _export(self, spans: list[ReadableSpan]) -> None:
        token = attach(set_value(_SUPPRESS_INSTRUMENTATION_KEY, True))
        try:
            ok = self.exporter.export(spans) is SpanExportResult.SUCCESS
        except Exception as exc:  # noqa: BLE001 - an exporter bug must not kill the worker
            internal_error("span exporter", exc)
            ok = False
        finally:
            detach(token)
        with self._lock:
            if ok:
                self.stats.exported += len(spans)
            else:
                self.stats.failed += len(spans)
            self._failing = not ok
            self._in_flight -= len(spans)
            self._idle.notify_all()

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        """Export everything queued so far; wait at most ``timeout_millis``.

        Spans lost since the last report (dropped, or failed to export) are logged.
        """
        done = self._flush(timeout_millis)
        self._report()
        return done

    def _flush(self, timeout_millis: int) -> bool:
        deadline = time.monotonic() + timeout_millis / 1000
        self._wake.set()
        done = True
        with self._lock:
            while self._queue or self._in_flight:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    done = False
                    break
                self._idle.wait(min(remaining, 0.05))
                if self._queue:
                    self._wake.set()
        return done

    def _report(self, *, at_exit: bool = False) -> None:
        """Log the spans lost so far, if that changed since the last report."""
        seen = (self.stats.dropped, self.stats.failed, at_exit)
        if seen != self._reported:
            self._reported = seen
            message = self.stats.lost(at_exit=at_exit)
            if message:
                logger.warning("%s", message)

    def shutdown(self) -> None:
        """Flush, stop the worker and shut the exporter down, all within :data:`SHUTDOWN_BUDGET_S`.

        One budget for the flush and the wait for the worker: with the endpoint down, the batch
        in flight may be retrying for its whole export timeout (10 s), and waiting for it after
        a full-length flush doubled the documented bound. Shutting the exporter down then cuts
        its retry short (the OTLP exporters stop retrying); the worker is a daemon thread.
        Spans still queued or in flight then are counted as dropped (``"still queued at
        exit"``), and the spans not exported are logged.
        """
        if self._shutdown:
            return
        deadline = time.monotonic() + SHUTDOWN_BUDGET_S
        self._flush(int(SHUTDOWN_BUDGET_S * 1000))  # reported once, below, with what is left
        self._shutdown = True
        with self._lock:
            self._room.notify_all()
        self._wake.set()
        self._worker.join(max(0.0, deadline - time.monotonic()))
        self.exporter.shutdown()
        left = self.stats.queued - self.stats.exported - self.stats.failed
        if left > 0:
            _count_drop(LEFT_AT_EXIT, left)
        self._report(at_exit=True)
