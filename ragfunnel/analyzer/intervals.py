"""Confidence intervals: Wilson for rates, a percentile bootstrap for means.

The funnel's summaries and the judges' estimates share them, so this module sits below both
(it imports only math and numpy). Both return NaN bounds (never an exception) when there is
nothing to estimate from.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = [
    "BOOTSTRAP_RESAMPLES", "Z95", "Interval", "bootstrap_mean", "normal_interval", "wilson",
]  # fmt: skip

Z95 = 1.959963984540054
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0
EXACT_SIZE_LIMIT = 2000
"""From this many values on, the resampling is replaced by its normal limit (see below)."""


@dataclass(frozen=True)
class Interval:
    """A point estimate with a 95 % interval and the method that produced it."""

    estimate: float
    low: float
    high: float
    n: int
    method: str

    def as_dict(self) -> dict[str, float | int | str]:
        """The estimate as a plain dict."""
        return {"estimate": self.estimate, "low": self.low, "high": self.high, "n": self.n,
                "method": self.method}  # fmt: skip


def wilson(successes: int, n: int, z: float = Z95) -> Interval:
    """Wilson score interval for the rate ``successes / n`` (NaN when ``n`` is 0)."""
    if n <= 0:
        return Interval(math.nan, math.nan, math.nan, 0, "wilson")
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    # At 0 and n the bounds are exactly 0 and 1; say so rather than 0.9999999999999999.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return Interval(p, low, high, n, "wilson")


def normal_interval(mean: float | None, std: float | None, n: int) -> Interval:
    """The normal limit of the bootstrap interval of a mean: mean ± 1.96·s/√n (s, ddof 0)."""
    if not n or mean is None:
        return Interval(math.nan, math.nan, math.nan, n, "normal")
    half = Z95 * float(std or 0.0) / math.sqrt(n)
    return Interval(float(mean), float(mean) - half, float(mean) + half, n, "normal")


def bootstrap_mean(
    values: npt.ArrayLike,
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> Interval:
    """Mean of the finite ``values`` with a 95 % percentile-bootstrap interval.

    Resampling n values with replacement is the same as drawing a multinomial over the distinct
    values, so the bootstrap runs on (value, count) pairs: exact, and cheap for ID-based
    metrics, which take few distinct values. The bootstrap distribution of a mean is the
    multinomial's, whose normal limit has the plug-in variance s²/n (s with ddof 0); from
    ``EXACT_SIZE_LIMIT`` values on, that limit — mean ± 1.96·s/√n — is used instead of
    resampling: for bounded metrics at that size the two differ by less than the Monte Carlo error of the resampling itself, and
    a summary of a hundred runs would otherwise spend seconds drawing. ``method`` says which
    (``bootstrap`` or ``normal``). NaN values are left out; with none left, all is NaN.
    """
    array = np.asarray(values, dtype=np.float64)
    array = array[np.isfinite(array)]
    n = int(array.size)
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, 0, "bootstrap")
    mean = float(array.mean())
    if n >= EXACT_SIZE_LIMIT:
        return normal_interval(mean, float(array.std(ddof=0)), n)
    distinct, counts = np.unique(array, return_counts=True)
    if distinct.size == 1:
        return Interval(mean, mean, mean, n, "bootstrap")
    rng = np.random.default_rng(seed)
    probabilities = counts / n
    means = np.empty(resamples)
    chunk = max(1, 2_000_000 // distinct.size)
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        draws = rng.multinomial(n, probabilities, size=size)
        means[start : start + size] = draws @ distinct / n
    low, high = np.quantile(means, [0.025, 0.975])
    return Interval(mean, float(low), float(high), n, "bootstrap")
