"""``ragfunnel threshold``'s sweep at 1,000,000 questions, against the quadratic sweep it replaced.

    python bench/threshold.py                          # 1,000,000 questions, median of 3
    python bench/threshold.py --questions 100000       # quicker

Records are synthetic but shaped as ``analyze`` returns them for the sweep: one run, pipeline
questions, 90 % answerable, top scores continuous (every score distinct: the worst case, one
threshold per question), a pipeline threshold, answer verdicts. Timed: the whole
``funnel.abstention.abstention`` (confusion, the sweep over every distinct score, the
recommendation), then ``threshold_text`` and the CSV the command writes. The baseline, timed in
the same run: the per-threshold Python loop the sweep used before (every threshold checked
against every question, kept below verbatim in its logic) on smaller inputs, fitted as c·n²
and extrapolated to the full size — running it at 1,000,000 would take days.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

from ragfunnel.analyzer.cli.threshold import threshold_text
from ragfunnel.analyzer.funnel.abstention import abstention

SEED = 20240601


def records(n: int, seed: int = SEED) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    answerable = rng.random(n) < 0.9
    scores = np.where(answerable, rng.beta(5, 2, n), rng.beta(2, 5, n))
    correct = answerable & (rng.random(n) < scores)
    verdict = np.where(~answerable, "unknown", np.where(correct, "correct", "incorrect"))
    return pl.DataFrame(
        {
            "run_id": ["bench"] * n,
            "mode": ["pipeline"] * n,
            "latest": np.ones(n, dtype=bool),
            "answerable": answerable,
            "abstained": scores < 0.3,
            "top_score": scores,
            "cut_threshold": np.full(n, 0.3),
            "answer_verdict": verdict,
        }
    )


def quadratic_sweep(scores: list[float], answerable: list[bool], pipeline: float) -> int:
    """The sweep as it was: for each candidate threshold, every question checked in Python."""
    values = sorted(set(scores))
    candidates = sorted({*values, math.inf, pipeline, values[0] - 1.0})
    best: tuple[float, float] | None = None
    for t in candidates:
        answered = [s >= t for s in scores]
        refused = sum(a and not ok for a, ok in zip(answerable, answered, strict=True))
        let_through = sum(not a and ok for a, ok in zip(answerable, answered, strict=True))
        cost = let_through + refused
        if math.isfinite(t) and (best is None or cost < best[0]):
            best = (cost, t)
    return len(candidates)


def _median(fn, repeats: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--baseline", type=int, nargs="+", default=[1000, 2000, 4000],
                        help="sizes at which the quadratic sweep is timed (then extrapolated)")  # fmt: skip
    args = parser.parse_args()
    n = args.questions
    frame = records(n)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"Python {platform.python_version()}, polars {pl.__version__}, numpy {np.__version__}")  # fmt: skip
    if hasattr(os, "getloadavg"):
        print("load average (1, 5, 15 min): " + ", ".join(f"{v:.2f}" for v in os.getloadavg()))
    result = abstention(frame)
    rows = result.sweep.height
    fast = _median(lambda: abstention(frame), args.repeats)
    text = _median(lambda: threshold_text(result), args.repeats)
    with tempfile.TemporaryDirectory() as tmp:
        csv = _median(lambda: result.sweep.write_csv(Path(tmp) / "sweep.csv"), args.repeats)
    print(f"{n:,} questions, {rows:,} thresholds swept (every distinct score + 3)")
    print(f"  abstention() with the sorted sweep: {fast:.3f} s (median of {args.repeats})")
    print(f"  threshold_text (25 rows shown):     {text * 1000:.1f} ms")
    print(f"  the sweep as CSV:                   {csv:.3f} s")
    print(f"  recommended threshold: {result.recommended['bench']:.4f}")
    fits = []
    for size in args.baseline:
        small = frame.head(size)
        scores = small.get_column("top_score").to_list()
        answerable = small.get_column("answerable").to_list()
        took = _median(lambda: quadratic_sweep(scores, answerable, 0.3), 1)  # noqa: B023
        fast_small = _median(lambda: abstention(small), args.repeats)  # noqa: B023
        fits.append(took / size**2)
        print(f"  baseline at {size:,}: quadratic {took:.3f} s, sorted sweep {fast_small:.4f} s "
              f"({took / fast_small:,.0f}×)")  # fmt: skip
    per = statistics.median(fits)
    projected = per * n**2
    print(f"  quadratic sweep extrapolated to {n:,}: {projected:,.0f} s "
          f"(≈ {projected / 86400:.1f} days; c = {per:.3g} s per question²) — "
          f"{projected / fast:,.0f}× the sorted sweep")  # fmt: skip


if __name__ == "__main__":
    main()
