"""The judges' estimators: rates and means with intervals, and agreement between raters.

Wilson intervals for rates, normal intervals for means, Cohen's kappa with a percentile
bootstrap interval. Every function returns NaN bounds, never an exception, when there is
nothing to estimate from.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Estimate", "cohen_kappa", "kappa_interval", "mean_interval", "wilson"]

Z95 = 1.959963984540054
KAPPA_RESAMPLES = 1000


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its 95 % interval, the sample size and the method."""

    estimate: float
    low: float
    high: float
    n: int
    method: str

    def as_dict(self) -> dict[str, float | int | str]:
        """The estimate as a plain dict."""
        return {"estimate": self.estimate, "low": self.low, "high": self.high, "n": self.n,
                "method": self.method}  # fmt: skip


_NAN = math.nan


def wilson(successes: int, n: int) -> Estimate:
    """Wilson score interval for ``successes / n``."""
    if n <= 0:
        return Estimate(_NAN, _NAN, _NAN, 0, "wilson")
    p = successes / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return Estimate(p, low, high, n, "wilson")


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
