"""Paired statistics for comparing two runs on the same cases: McNemar's exact test.

(The paired interval of a mean difference is the funnel's bootstrap applied to the per-case
differences — resampling cases resamples their pairs — so it lives in ``ragfunnel.analyzer.intervals``.)
Pure arithmetic; it must never look at records.
"""

from __future__ import annotations

import math

__all__ = ["mcnemar_exact"]


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
