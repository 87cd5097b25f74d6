"""ragfunnel's statistics, one definition of each: intervals, agreement and the paired test.

Wilson intervals for rates; for means the normal interval (mean ± 1.96·s/√n, s the sample
standard deviation, as ``scipy.stats.sem``) and a percentile bootstrap (which gives way to that
normal interval from ``EXACT_SIZE_LIMIT`` values on); Cohen's kappa with a bootstrap interval; the
exact McNemar test of two runs on the same cases. The paired interval of a mean difference is
:func:`bootstrap_mean` of the per-case differences (resampling cases resamples their pairs).

The funnel's summaries, the judges' estimates and the report share them, so this module sits at
the bottom of the analyzer (it imports only the standard library and numpy). Every function
returns NaN bounds (never an exception) when there is nothing to estimate from.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = [
    "BOOTSTRAP_RESAMPLES", "Z95", "Estimate", "Interval", "bootstrap_mean", "cohen_kappa",
    "kappa_interval", "mcnemar_exact", "mean_interval", "normal_interval", "wilson",
]  # fmt: skip

Z95 = 1.959963984540054
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0
EXACT_SIZE_LIMIT = 2000
"""From this many values on, the resampling is replaced by its normal limit (see below)."""
KAPPA_RESAMPLES = 1000
_NAN = math.nan


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


Estimate = Interval
"""The judges' name for an :class:`Interval`: a point estimate, its 95 % interval, n, method."""


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


def normal_interval(mean: float | None, sd: float | None, n: int) -> Interval:
    """The normal 95 % interval of a mean: mean ± 1.96·sd/√n.

    ``sd`` is the sample standard deviation (ddof 1). One value has no spread to estimate: its
    bounds are NaN.
    """
    if not n or mean is None:
        return Interval(math.nan, math.nan, math.nan, n, "normal")
    if n == 1 or sd is None or math.isnan(sd):
        return Interval(float(mean), math.nan, math.nan, n, "normal")
    half = Z95 * float(sd) / math.sqrt(n)
    return Interval(float(mean), float(mean) - half, float(mean) + half, n, "normal")


def mean_interval(values: Sequence[float]) -> Interval:
    """The mean of ``values`` with its normal 95 % interval (:func:`normal_interval`)."""
    n = len(values)
    if n == 0:
        return normal_interval(None, None, 0)
    mean = math.fsum(values) / n
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else None
    return normal_interval(mean, sd, n)


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
    multinomial's, whose normal limit is mean ± 1.96·s/√n; from ``EXACT_SIZE_LIMIT`` values on,
    :func:`normal_interval` (s with ddof 1, which at that size differs from the plug-in ddof 0
    by under 0.03 %) is used instead of resampling: for bounded metrics at that size the two
    differ by less than the Monte Carlo error of the resampling itself, and
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
        return normal_interval(mean, float(array.std(ddof=1)), n)
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


def mcnemar_exact(fixed: int, broken: int) -> float:
    """Two-sided exact McNemar p-value for ``fixed`` (failed → ok) and ``broken`` (ok → failed).

    Under no change each discordant pair is a fair coin: p = 2·P(X ≤ min(b, c)) for
    X ~ Binomial(b + c, ½), capped at 1; with no discordant pair, 1.
    """
    if fixed < 0 or broken < 0:
        raise ValueError("counts must be non-negative")
    n = fixed + broken
    if n == 0:
        return 1.0
    k = min(fixed, broken)
    log_half = n * math.log(0.5)
    log_n = math.lgamma(n + 1)
    # Sum the tail in log space: n can be a million discordant pairs.
    terms = [log_n - math.lgamma(i + 1) - math.lgamma(n - i + 1) + log_half for i in range(k + 1)]
    top = max(terms)
    tail = math.exp(top) * math.fsum(math.exp(t - top) for t in terms)
    return min(1.0, 2.0 * tail)
