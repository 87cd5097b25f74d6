"""A bounded, non-blocking span processor whose drops and failures are counted exactly.

The SDK's BatchSpanProcessor drops silently-counted spans inside private state. ragfunnel must
tell a user how many spans a collector outage cost, so this processor keeps the same shape —
bounded queue, one daemon worker, batches, instrumentation suppressed while exporting — and
exposes :class:`ExportStats`. ``on_end`` never blocks: a full queue drops the new span.
"""

from __future__ import annotations

import collections
import logging
import math
import os
import threading
import time
import weakref
from dataclasses import dataclass

from opentelemetry.context import (
    _SUPPRESS_INSTRUMENTATION_KEY,  # the SDK's own key: exporters check it
    attach,
    detach,
    set_value,
)
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from ragfunnel.instrumentation.safety import internal_error

logger = logging.getLogger("ragfunnel")

_WARN_EVERY_S = 30.0
SHUTDOWN_BUDGET_S = 5.0
"""At most this long for :meth:`BoundedBatchProcessor.shutdown` (flush and worker join together)."""


@dataclass
class ExportStats:
    """Counts since the processor started. Read with :func:`ragfunnel.export_stats`."""

    queued: int = 0
    exported: int = 0
    failed: int = 0
    dropped: int = 0


class BoundedBatchProcessor(SpanProcessor):
    """Queue finished spans and export them in batches on a daemon thread."""

    def __init__(
        self,
        exporter: SpanExporter,
        *,
        max_queue_size: int = 2048,
        max_batch_size: int = 512,
        schedule_delay_s: float = 1.0,
    ) -> None:
        # The SDK's BatchSpanProcessor refuses these too: a delay of 0 busy-loops the worker, a
        # queue of 0 drops every span.
        if max_queue_size < 1 or max_batch_size < 1:
            raise ValueError("max_queue_size and max_batch_size must be at least 1")
        if not (schedule_delay_s > 0 and math.isfinite(schedule_delay_s)):
            raise ValueError("schedule_delay_s must be a finite number of seconds greater than 0")
        self.exporter = exporter
        self.stats = ExportStats()
        self._max_queue = max_queue_size
        self._max_batch = max_batch_size
        self._delay = schedule_delay_s
        self._queue: collections.deque[ReadableSpan] = collections.deque()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._idle = threading.Condition(self._lock)
        self._in_flight = 0
        self._shutdown = False
        self._last_warning = 0.0
        self._worker = self._start_worker()
        # A forked child gets a copy of the queue and of the lock (perhaps held by a thread it
        # does not have) but no worker: it starts afresh, once, instead of checking every span.
        after_fork = weakref.WeakMethod(self._after_fork)

        def in_child() -> None:
            method = after_fork()
            if method is not None:
                method()

        os.register_at_fork(after_in_child=in_child)

    def _after_fork(self) -> None:
        self._queue = collections.deque()
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._wake = threading.Event()
        self._in_flight = 0
        if not self._shutdown:
            self._worker = self._start_worker()

    def _start_worker(self) -> threading.Thread:
        worker = threading.Thread(target=self._run, name="ragfunnel-export", daemon=True)
        worker.start()
        return worker

    def on_end(self, span: ReadableSpan) -> None:  # noqa: D102 - SpanProcessor API
        if self._shutdown or not (span.context and span.context.trace_flags.sampled):
            return
        with self._lock:
            if len(self._queue) >= self._max_queue:
                self.stats.dropped += 1
                warn = time.monotonic() - self._last_warning > _WARN_EVERY_S
                if warn:
                    self._last_warning = time.monotonic()
            else:
                self._queue.append(span)
                self.stats.queued += 1
                warn = False
            full = len(self._queue) >= self._max_batch
        if warn:
            logger.warning(
                "ragfunnel export queue full (%d spans): dropping spans; %d dropped so far",
                self._max_queue,
                self.stats.dropped,
            )
        if full:
            self._wake.set()

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
            return batch

    def _drain(self) -> None:
        while batch := self._take_batch():
            token = attach(set_value(_SUPPRESS_INSTRUMENTATION_KEY, True))
            try:
                ok = self.exporter.export(batch) is SpanExportResult.SUCCESS
            except Exception as exc:  # noqa: BLE001 - an exporter bug must not kill the worker
                internal_error("span exporter", exc)
                ok = False
            finally:
                detach(token)
            with self._lock:
                if ok:
                    self.stats.exported += len(batch)
                else:
                    self.stats.failed += len(batch)
                self._in_flight -= len(batch)
                self._idle.notify_all()

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        """Export everything queued so far; wait at most ``timeout_millis``."""
        deadline = time.monotonic() + timeout_millis / 1000
        self._wake.set()
        with self._lock:
            while self._queue or self._in_flight:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._idle.wait(min(remaining, 0.05))
                if self._queue:
                    self._wake.set()
        return True

    def shutdown(self) -> None:
        """Flush, stop the worker and shut the exporter down, all within :data:`SHUTDOWN_BUDGET_S`.

        One budget for the flush and the wait for the worker: with the endpoint down, the batch
        in flight may be retrying for its whole export timeout (10 s), and waiting for it after
        a full-length flush doubled the documented bound. Shutting the exporter down then cuts
        its retry short (the OTLP exporters stop retrying); the worker is a daemon thread.
        """
        if self._shutdown:
            return
        deadline = time.monotonic() + SHUTDOWN_BUDGET_S
        self.force_flush(int(SHUTDOWN_BUDGET_S * 1000))
        self._shutdown = True
        self._wake.set()
        self._worker.join(max(0.0, deadline - time.monotonic()))
        self.exporter.shutdown()
