"""ragfunnel.analyzer.stats against scipy and scikit-learn: the normal interval, Wilson,
McNemar's exact test and Cohen's kappa give their numbers, and the bootstrap's normal limit
is that same normal interval."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats
from sklearn.metrics import cohen_kappa_score

from ragfunnel.analyzer.stats import (
    EXACT_SIZE_LIMIT,
    Z95,
    bootstrap_mean,
    cohen_kappa,
    kappa_interval,
    mcnemar_exact,
    mean_interval,
    normal_interval,
    wilson,
)


@pytest.mark.parametrize("values", [[0.2, 0.9, 0.4], [1.0, 0.0, 0.0, 1.0, 0.5], [3.0, 3.5]])
def test_the_normal_interval_is_scipys_with_the_standard_error_of_the_mean(
    values: list[float],
) -> None:
    low, high = scipy_stats.norm.interval(0.95, loc=np.mean(values), scale=scipy_stats.sem(values))
    got = mean_interval(values)
    assert got.method == "normal" and got.n == len(values)
    assert got.estimate == pytest.approx(np.mean(values), abs=1e-15)
    assert (got.low, got.high) == (pytest.approx(low, abs=1e-12), pytest.approx(high, abs=1e-12))
    assert pytest.approx(scipy_stats.norm.ppf(0.975), abs=1e-15) == Z95


def test_one_value_has_no_interval_and_none_has_no_estimate() -> None:
    one, none = mean_interval([0.5]), mean_interval([])
    assert one.estimate == 0.5 and math.isnan(one.low) and math.isnan(one.high)
    assert none.n == 0 and math.isnan(none.estimate)


def test_from_the_size_limit_on_the_bootstrap_is_that_normal_interval() -> None:
    values = np.random.default_rng(3).random(EXACT_SIZE_LIMIT)
    large = bootstrap_mean(values)
    same = mean_interval(values.tolist())
    assert large.method == "normal"
    assert (large.low, large.high) == (pytest.approx(same.low), pytest.approx(same.high))
    mean, sd = float(values.mean()), float(values.std(ddof=1))
    assert normal_interval(mean, sd, values.size) == large


@pytest.mark.parametrize(("k", "n"), [(0, 10), (3, 10), (10, 10), (47, 200)])
def test_wilson_is_scipys(k: int, n: int) -> None:
    ci = scipy_stats.binomtest(k, n).proportion_ci(0.95, method="wilson")
    got = wilson(k, n)
    assert (got.low, got.high) == (
        pytest.approx(ci.low, abs=1e-12),
        pytest.approx(ci.high, abs=1e-12),
    )


@pytest.mark.parametrize(("fixed", "broken"), [(0, 0), (1, 0), (3, 9), (40, 25), (500, 460)])
def test_mcnemar_exact_is_the_two_sided_binomial_test(fixed: int, broken: int) -> None:
    expected = 1.0 if fixed + broken == 0 else scipy_stats.binomtest(fixed, fixed + broken).pvalue
    assert mcnemar_exact(fixed, broken) == pytest.approx(expected, rel=1e-9)


def test_cohen_kappa_is_scikit_learns() -> None:
    first = ["yes", "no", "yes", "yes", "no", "no", "yes", "no"]
    second = ["yes", "no", "no", "yes", "no", "yes", "yes", "no"]
    assert cohen_kappa(first, second) == pytest.approx(cohen_kappa_score(first, second))


# --- known values (moved from the funnel's metric tests) ---------------------------------------


def test_wilson_interval_known_values() -> None:
    ci = wilson(8, 10)
    assert ci.estimate == 0.8
    assert (ci.low, ci.high) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    assert wilson(0, 10).low == 0.0 and wilson(10, 10).high == 1.0
    assert math.isnan(wilson(0, 0).estimate)


def test_bootstrap_is_deterministic_and_ignores_nan() -> None:
    values = [0.0, 0.5, 1.0, 1.0, math.nan]
    first, second = bootstrap_mean(values), bootstrap_mean(values)
    assert first == second and first.n == 4 and first.estimate == pytest.approx(0.625)
    assert first.low < 0.625 < first.high and first.method == "bootstrap"
    assert bootstrap_mean([0.3, 0.3]).low == 0.3
    assert math.isnan(bootstrap_mean([math.nan]).estimate)
    many = bootstrap_mean([i / 10_000 for i in range(10_000)])
    assert many.method == "normal" and many.low < 0.5 < many.high


def test_bootstrap_interval_matches_its_normal_limit() -> None:
    # Below the size limit the interval comes from resampling; it agrees with the normal
    # limit the function switches to from 2,000 values on.
    values = [1.0] * 900 + [0.0] * 600
    ci = bootstrap_mean(values)
    half = 1.96 * math.sqrt(0.24 / 1500)
    assert ci.method == "bootstrap"
    assert ci.low == pytest.approx(0.6 - half, abs=0.005)
    assert ci.high == pytest.approx(0.6 + half, abs=0.005)
    large = bootstrap_mean(values * 2)
    assert large.method == "normal"
    # The normal interval's s is the sample standard deviation (ddof 1): 0.24 · n/(n − 1).
    assert large.low == pytest.approx(0.6 - 1.96 * math.sqrt(0.24 / 2999))


@pytest.mark.parametrize("first", [["a", "b", "a"], ["x"]])
def test_kappa_edges(first: list[str]) -> None:
    assert cohen_kappa(first, first) == 1.0
    assert math.isnan(cohen_kappa([], []))
    assert kappa_interval(first, first).estimate == 1.0
