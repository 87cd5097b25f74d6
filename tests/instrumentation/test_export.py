"""The export processor in a forked child: a fresh queue, lock and worker."""

from __future__ import annotations

import os
import threading
import time

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ragfunnel.instrumentation.export import BoundedBatchProcessor


def test_a_forked_child_exports_even_if_the_lock_was_held_at_the_fork() -> None:
    exporter = InMemorySpanExporter()
    processor = BoundedBatchProcessor(exporter, schedule_delay_s=0.01)
    provider = TracerProvider()
    provider.add_span_processor(processor)
    # Another thread holds the lock across the fork, as the worker does while it counts.
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with processor._lock:
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(10)
    pid = os.fork()
    if pid == 0:  # the child: its copy of the lock is held by a thread it does not have
        code = 1
        try:
            provider.get_tracer("t").start_span("in child").end()
            if processor.force_flush(5_000) and processor.stats.exported == 1:
                code = 0
        finally:
            os._exit(code)
    release.set()
    holder.join()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            break
        time.sleep(0.05)
    else:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        raise AssertionError("the forked child hung on the inherited lock")
    processor.shutdown()
