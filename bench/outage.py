"""What a collector outage costs the app: per-call latency, memory, drops, and recovery.

One process, one ragfunnel configuration exporting over real OTLP/HTTP (the base install's
exporter, default settings: 2,048-span queue, 10 s export timeout) to a loopback endpoint
(`ragfunnel.testing.OTLPReceiver`) that is healthy, down (connection refused), slow (5 s per
request) or flapping (503 and healthy alternating every 250 ms). Each decorated call records 50
ids and 50 scores; calls are paced (2,000 a second by default, a busy service's rate) so that a
healthy endpoint keeps up. Each call is timed twice: the calling thread's CPU time (ragfunnel's
own work on the request path) and the wall clock (which also holds GIL hand-offs to the export
thread and, on a shared machine, other processes). Scenarios are interleaved and repeated; the
table shows the median over the repeats of each percentile.
After every scenario the endpoint is made healthy again and the bench waits for the queue to
drain: the spans the endpoint received then show that export resumed.

Memory: a separate pass with tracemalloc, the endpoint down, samples the memory held after 10k,
25k, 50k and 100k unpaced calls: flat once the queue is full (its cap bounds it).

    python bench/outage.py [--calls 10000] [--rate 2000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import platform
import statistics
import threading
import time
import tracemalloc

import opentelemetry.sdk

import ragfunnel
from ragfunnel.testing import OTLPReceiver

DOCS = [(f"chunk-{i:03d}", 1.0 - i / 100) for i in range(50)]


@ragfunnel.retrieve(name="dense")
def search(query: str, top_k: int = 50) -> list[tuple[str, float]]:
    return DOCS


def _percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return {"p50": at(0.50), "p99": at(0.99), "p99.9": at(0.999), "max": ordered[-1]}


def _calls(n: int, rate: float) -> tuple[list[float], list[float]]:
    """``n`` calls paced at ``rate`` per second: (wall µs, thread CPU µs) of each call."""
    wall, cpu = [], []
    clock, thread_clock = time.perf_counter_ns, time.thread_time_ns
    interval = 1 / rate
    next_call = time.perf_counter()
    for _ in range(n):
        start, start_cpu = clock(), thread_clock()
        search("q")
        cpu.append((thread_clock() - start_cpu) / 1000)
        wall.append((clock() - start) / 1000)
        next_call += interval
        pause = next_call - time.perf_counter()
        if pause > 0:
            time.sleep(pause)
    return wall, cpu


class Flapper:
    """Alternates the receiver between failing and healthy until stopped."""

    def __init__(self, rx: OTLPReceiver, period_s: float = 0.25):
        self.rx, self.period_s = rx, period_s
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        flip = 0
        while not self.stop.wait(self.period_s):
            flip += 1
            self.rx.mode = "fail" if flip % 2 else "ok"

    def __enter__(self) -> Flapper:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()
        self.rx.mode = "ok"


def _scenario(rx: OTLPReceiver, name: str, n: int, rate: float) -> dict[str, float]:
    before = ragfunnel.export_stats()
    counts = (before.queued, before.exported, before.failed, before.dropped, rx.spans)
    if name == "healthy":
        wall, cpu = _calls(n, rate)
    elif name == "down":
        rx.stop()
        wall, cpu = _calls(n, rate)
        rx.start()
    elif name == "slow":
        rx.mode, rx.delay_s = "slow", 5.0
        wall, cpu = _calls(n, rate)
        rx.mode = "ok"  # the request in progress still takes its 5 s
    else:
        with Flapper(rx):
            wall, cpu = _calls(n, rate)
    started = time.monotonic()
    drained = ragfunnel.flush(60_000)
    recovery = time.monotonic() - started
    after = ragfunnel.export_stats()
    result = {f"cpu {k}": v for k, v in _percentiles(cpu).items()}
    result.update({f"wall {k}": v for k, v in _percentiles(wall).items()})
    result.update(
        queued=after.queued - counts[0],
        exported=after.exported - counts[1],
        failed=after.failed - counts[2],
        dropped=after.dropped - counts[3],
        received=rx.spans - counts[4],
        drained=float(drained),
        recovery_s=recovery,
    )
    return result


def _memory(rx: OTLPReceiver) -> list[tuple[int, float, float]]:
    """(calls, MiB held before a gc pass, MiB live after it), the endpoint down."""
    rx.stop()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    held = []
    done = 0
    for mark in (10_000, 25_000, 50_000, 100_000):
        for _ in range(mark - done):
            search("q")
        done = mark
        before_gc = tracemalloc.get_traced_memory()[0] - base
        gc.collect()  # dropped spans sit in reference cycles until the collector runs
        live = tracemalloc.get_traced_memory()[0] - base
        held.append((mark, before_gc / 2**20, live / 2**20))
    tracemalloc.stop()
    rx.start()
    ragfunnel.flush(60_000)
    return held


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--rate", type=float, default=2_000, help="calls per second")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    logging.disable(logging.ERROR)  # the exporter's retry and failure messages, by the thousand
    scenarios = ["healthy", "down", "slow", "flapping"]
    with OTLPReceiver() as rx:
        os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"] = rx.endpoint
        ragfunnel.configure(exporter="otlp+http", service_name="bench-outage")
        _calls(2_000, args.rate)  # warm up
        ragfunnel.flush(30_000)
        results: dict[str, list[dict[str, float]]] = {s: [] for s in scenarios}
        for _ in range(args.repeats):
            for name in scenarios:
                results[name].append(_scenario(rx, name, args.calls, args.rate))
        memory = _memory(rx)

    print(
        f"machine: {platform.machine()}  python {platform.python_version()}  "
        f"opentelemetry-sdk {opentelemetry.sdk.version.__version__}  cpus {os.cpu_count()}  "
        f"load {os.getloadavg()[0]:.1f}"
    )
    print(
        f"{args.calls} calls per scenario at {args.rate:.0f}/s, median of {args.repeats} runs, "
        "50 ids + 50 scores per span; µs per call"
    )
    print(
        f"{'scenario':<10}{'cpu p50':>8}{'cpu p99':>8}{'Δ p99':>7}{'wall p50':>9}{'wall p99':>9}"
        f"{'Δ p99':>8}{'dropped':>8}{'failed':>7}{'exported':>9}{'received':>9}{'drain s':>8}"
    )
    healthy = {
        k: statistics.median(r[k] for r in results["healthy"]) for k in ("cpu p99", "wall p99")
    }
    worst_cpu = worst_wall = 0.0
    for name in scenarios:
        rows = results[name]

        def med(key: str, rows: list[dict[str, float]] = rows) -> float:
            return statistics.median(r[key] for r in rows)

        d_cpu, d_wall = med("cpu p99") - healthy["cpu p99"], med("wall p99") - healthy["wall p99"]
        worst_cpu, worst_wall = max(worst_cpu, d_cpu), max(worst_wall, d_wall)
        print(
            f"{name:<10}{med('cpu p50'):>8.1f}{med('cpu p99'):>8.1f}{d_cpu:>7.1f}"
            f"{med('wall p50'):>9.1f}{med('wall p99'):>9.1f}{d_wall:>8.1f}{med('dropped'):>8.0f}"
            f"{med('failed'):>7.0f}{med('exported'):>9.0f}{med('received'):>9.0f}"
            f"{med('recovery_s'):>8.1f}"
        )
        for r in rows:
            assert r["queued"] + r["dropped"] == args.calls, (name, r)
            assert r["exported"] + r["failed"] == r["queued"], (name, r)
            assert r["drained"] == 1.0, (name, "queue did not drain once healthy")
    print(
        "memory held, endpoint down (before gc / live): "
        + ", ".join(f"{n:,} calls {a:.1f}/{b:.1f} MiB" for n, a, b in memory)
    )
    print(
        f"worst p99 increase over healthy: thread CPU {worst_cpu:.1f} µs, wall {worst_wall:.1f} µs"
        " (target <= 1000)"
    )


if __name__ == "__main__":
    main()
