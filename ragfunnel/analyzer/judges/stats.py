"""The judges' estimators: rates and means with intervals, and agreement between raters.

Wilson intervals for rates (the funnel's own, :mod:`ragfunnel.analyzer.intervals`), normal
intervals for means, Cohen's kappa with a percentile
bootstrap interval. Every function returns NaN bounds, never an exception, when there is
nothing to estimate from.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from ragfunnel.analyzer.intervals import Z95, Interval, wilson

__all__ = ["Estimate", "cohen_kappa", "kappa_interval", "mean_interval", "wilson"]

KAPPA_RESAMPLES = 1000

Estimate = Interval
"""A point estimate with its 95 % interval, the sample size and the method."""

_NAN = math.nan


def mean_interval(values: Sequence[float]) -> Estimate:
    """The mean with a normal 95 % interval (sample standard deviation)."""
    n = len(values)
    if n == 0:
        return Estimate(_NAN, _NAN, _NAN, 0, "normal")
    mean = sum(values) / n
    if n == 1:
        return Estimate(mean, _NAN, _NAN, 1, "normal")
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = Z95 * sd / math.sqrt(n)
    return Estimate(mean, mean - half, mean + half, n, "normal")


def cohen_kappa(first: Sequence[str], second: Sequence[str]) -> float:
    """Cohen's kappa of two raters' labels (NaN for no items; 1 when both agree on one label)."""
    n = len(first)
    if n == 0 or n != len(second):
        return _NAN
    observed = sum(a == b for a, b in zip(first, second, strict=True)) / n
    labels = set(first) | set(second)
    expected = sum((first.count(x) / n) * (second.count(x) / n) for x in labels)
    if expected == 1:
        return 1.0 if observed == 1 else _NAN
    return (observed - expected) / (1 - expected)


def kappa_interval(first: Sequence[str], second: Sequence[str], *, seed: int = 0) -> Estimate:
    """Cohen's kappa with a percentile bootstrap 95 % interval over the items."""
    n = len(first)
    point = cohen_kappa(first, second)
    if n < 2:
        return Estimate(point, _NAN, _NAN, n, "bootstrap")
    rng = random.Random(seed)  # noqa: S311 - resampling, not security
    draws = []
    for _ in range(KAPPA_RESAMPLES):
        picks = [rng.randrange(n) for _ in range(n)]
        value = cohen_kappa([first[i] for i in picks], [second[i] for i in picks])
        if not math.isnan(value):
            draws.append(value)
    if not draws:
        return Estimate(point, _NAN, _NAN, n, "bootstrap")
    draws.sort()
    low = draws[int(0.025 * (len(draws) - 1))]
    high = draws[int(0.975 * (len(draws) - 1))]
    return Estimate(point, low, high, n, "bootstrap")
