"""Per-call cost of each ragfunnel decorator, against a bare OTel span with the same attributes.

Targets (bench/RESULTS.md, "Decorator overhead"): a decorated stage call with 50 ids + scores costs at most 1.2x a bare
OpenTelemetry span carrying the same two array attributes; with tracing off, < 2 µs per call
over the bare function. Everything is measured in one process, through one TracerProvider and one
export pipeline (ragfunnel's batch processor with an exporter that discards), so the only
difference between the rows is the instrumentation code itself. The clock is the calling thread's
CPU time, cases interleaved. rerank and cut also record their input ids, so their baseline is a
bare span with the same three arrays.

Two ratios per decorator. *Paired* (the one the target is read on): in every repeat the
decorator's µs per call over its baseline's in that same repeat, and the median of those
ratios, with their quartiles — a change of machine speed between repeats (this is a shared
two-vCPU VM: a baseline's median moves by a third between two runs a minute apart) cancels
within a pair. *Of medians* (the figure recorded before 2026-12-03): each case's median over
the repeats, divided; it also carries the drift between repeats, and its worst of five rows
reads high by chance.

    python bench/overhead.py [--calls 5000] [--repeats 15]

``bench/overhead_instructions.py`` counts the same cases' instructions under valgrind instead
(independent of machine load).
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

import ragfunnel
from ragfunnel.instrumentation import contract as c

DOCS = [(f"chunk-{i:03d}", 1.0 - i / 100) for i in range(50)]
IDS = [d for d, _ in DOCS]
SCORES = [s for _, s in DOCS]


class Discard(SpanExporter):
    def export(self, spans: Sequence[Any]) -> SpanExportResult:
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass


def interleaved_samples(
    cases: dict[str, Callable[[], Any]], calls: int, repeats: int
) -> dict[str, list[float]]:
    """CPU µs per call of each case in each repeat, on the calling thread.

    The cases take turns within every repeat, so a change in machine load hits all of them alike;
    the clock is the calling thread's CPU time, so the export thread and other processes on a
    shared two-core machine do not count (what is measured is the cost on the request path).
    """
    samples: dict[str, list[float]] = {name: [] for name in cases}
    names = list(cases)
    for repeat in range(repeats):
        for name in names[repeat % len(names) :] + names[: repeat % len(names)]:
            fn = cases[name]
            # Each block starts from a collected heap (the queue was flushed after the last
            # one), so the collections it pays for are the ones its own allocations trigger,
            # not a full collection of the previous case's spans landing in it.
            gc.collect()
            start = time.thread_time()
            for _ in range(calls):
                fn()
            samples[name].append((time.thread_time() - start) / calls * 1e6)
            ragfunnel.flush()
    return samples


def interleaved_us(
    cases: dict[str, Callable[[], Any]], calls: int, repeats: int
) -> dict[str, float]:
    """Median CPU µs per call of each case (:func:`interleaved_samples`)."""
    samples = interleaved_samples(cases, calls, repeats)
    return {name: statistics.median(values) for name, values in samples.items()}


def paired_ratios(samples: dict[str, list[float]], case: str, baseline: str) -> list[float]:
    """The case's µs over its baseline's, repeat by repeat (both timed in the same repeat)."""
    return [a / b for a, b in zip(samples[case], samples[baseline], strict=True)]


def build_cases(provider: TracerProvider) -> tuple[dict[str, Callable[[], Any]], dict[str, str]]:
    """Every timed case (bare function, the two bare-span baselines, one per decorator), and
    which baseline each decorator is divided by."""
    tracer = provider.get_tracer("baseline")

    def plain(query: str, top_k: int = 50) -> list[tuple[str, float]]:
        return DOCS

    def bare_span() -> list[tuple[str, float]]:
        with tracer.start_as_current_span("retrieve bm25") as span:
            result = plain("q")
            span.set_attributes({c.DOCUMENTS_IDS: IDS, c.DOCUMENTS_SCORES: SCORES})
        return result

    def bare_span_with_input() -> list[tuple[str, float]]:
        # rerank and cut also record their input ids: the same three arrays, by hand.
        with tracer.start_as_current_span("rerank ce") as span:
            result = plain("q")
            span.set_attributes(
                {c.INPUT_IDS: IDS, c.DOCUMENTS_IDS: IDS, c.DOCUMENTS_SCORES: SCORES}
            )
        return result

    decorated = {
        "retrieve": ragfunnel.retrieve(name="bm25")(plain),
        "rerank": ragfunnel.rerank(model="ce")(lambda query, documents: DOCS),
        "cut": ragfunnel.cut(k=50)(lambda documents: DOCS),
        "ingest": ragfunnel.ingest(lambda document_id: DOCS),
        "generate": ragfunnel.generate(model="m")(lambda question, context: "answer"),
    }
    cases: dict[str, Callable[[], Any]] = {
        "bare function": lambda: plain("q"),
        "bare2": bare_span,
        "bare3": bare_span_with_input,
        "retrieve": lambda: decorated["retrieve"]("q"),
        "rerank": lambda: decorated["rerank"]("q", DOCS),
        "cut": lambda: decorated["cut"](DOCS),
        "ingest": lambda: decorated["ingest"]("doc"),
        "generate": lambda: decorated["generate"]("q", DOCS),
    }
    baseline_of = dict.fromkeys(decorated, "bare2") | {"rerank": "bare3", "cut": "bare3"}
    return cases, baseline_of


def configure_bench() -> TracerProvider:
    """One provider and ragfunnel's own export pipeline, into an exporter that discards."""
    os.environ["RAGFUNNEL_MAX_QUEUE_SIZE"] = "1000000"  # nothing dropped between flushes
    provider = TracerProvider()
    ragfunnel.configure(tracer_provider=provider, exporter=Discard(), run_id="bench")
    return provider


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5_000)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()

    provider = configure_bench()
    cases, baseline_names = build_cases(provider)
    plain = cases["bare function"]
    calls = {stage: cases[stage] for stage in baseline_names}

    n, r = args.calls, args.repeats
    samples = interleaved_samples(cases, n, r)
    timed = {name: statistics.median(values) for name, values in samples.items()}
    bare_fn, base, base3 = timed["bare function"], timed["bare2"], timed["bare3"]
    baseline_of = {"rerank": base3, "cut": base3}
    rows = [(stage, timed[stage]) for stage in calls]
    paired = {stage: paired_ratios(samples, stage, baseline_names[stage]) for stage in calls}

    ragfunnel.configure(tracer_provider=provider, exporter="none", enabled=False)
    off_timed = interleaved_us({"bare": plain, "off": calls["retrieve"]}, n, r)
    off = off_timed["off"] - off_timed["bare"]

    print(
        f"machine: {platform.machine()} {platform.processor() or ''} python {platform.python_version()}"
    )
    print(f"calls per run {n}, median of {r} runs, 50 ids + 50 scores per span")
    print(f"{'case':32} {'µs/call':>9} {'paired ratio [quartiles]':>26} {'of medians':>11}")
    print(f"{'bare function':32} {bare_fn:9.2f}")
    print(f"{'bare OTel span + 2 arrays':32} {base:9.2f}")
    print(f"{'bare OTel span + 3 arrays':32} {base3:9.2f}")
    for stage, us in rows:
        q1, _, q3 = statistics.quantiles(paired[stage], n=4)
        spread = f"{statistics.median(paired[stage]):.2f} [{q1:.2f}, {q3:.2f}]"
        ratio = us / baseline_of.get(stage, base)
        print(f"{'@ragfunnel.' + stage:32} {us:9.2f} {spread:>26} {ratio:11.2f}")
    print(f"{'tracing off: added cost':32} {off:9.3f}")
    worst = max(statistics.median(p) for p in paired.values())
    of_medians = max(us / baseline_of.get(stage, base) for stage, us in rows)
    print(
        f"worst paired ratio {worst:.2f} (target <= 1.20; of medians {of_medians:.2f}); "
        f"tracing off {off:.3f} µs (target < 2)"
    )


if __name__ == "__main__":
    main()
