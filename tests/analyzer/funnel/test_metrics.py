"""Metric definitions (docs/funnel.md §7), their edge cases, the confidence intervals, and the
agreement of the vectorised computation with the scalar definitions."""

from __future__ import annotations

import math

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragfunnel.analyzer.cases import AllOf, AnyOf, Case, CaseSet, Evidence, Leaf, evidence_ids
from ragfunnel.analyzer.funnel import (
    average_precision,
    context_precision,
    context_recall,
    hit_rate,
    reciprocal_rank,
)
from ragfunnel.analyzer.funnel.analysis import case_tables
from ragfunnel.analyzer.funnel.records.metrics import question_metrics
from ragfunnel.analyzer.stats import bootstrap_mean, wilson

REL = {"a", "b"}


def test_context_precision_worked_examples() -> None:
    # [irrelevant, relevant, relevant] → (1/2 + 2/3) / 2 = 7/12; reordered → 1.
    assert context_precision(["x", "a", "b"], REL).value == pytest.approx(7 / 12)
    assert context_precision(["a", "b", "x"], REL).value == 1.0


def test_average_precision_divides_by_all_expected() -> None:
    assert average_precision(["x", "a", "b"], REL).value == pytest.approx(7 / 12)
    assert average_precision(["x", "a", "b"], {"a", "b", "c"}).value == pytest.approx(7 / 18)
    assert average_precision(["x", "y"], REL).value == 0.0


def test_undefined_values_are_nan_with_a_reason() -> None:
    value = context_precision(["x", "y"], REL)
    assert math.isnan(value.value) and value.reason == "no relevant id in the list"
    for metric in (average_precision, hit_rate, reciprocal_rank):
        undefined = metric(["a"], set())
        assert math.isnan(undefined.value) and undefined.reason == "no expected evidence"
    assert math.isnan(context_recall(["a"], None).value)


def test_empty_list_is_zero_where_defined() -> None:
    assert hit_rate([], REL).value == 0.0
    assert reciprocal_rank([], REL).value == 0.0
    assert context_recall([], AllOf((Leaf("a"), Leaf("b")))).value == 0.0


def test_repeats_count_once() -> None:
    # The second "a" holds nothing new: positions 1 and 3 are relevant, 2 is a repeat.
    assert context_precision(["a", "a", "b"], REL).value == pytest.approx((1 + 2 / 3) / 2)
    assert reciprocal_rank(["x", "x", "b"], REL).value == pytest.approx(1 / 3)


def test_context_recall_all_of_any_of_and_nesting() -> None:
    flat = AllOf((Leaf("a"), Leaf("b"), Leaf("c")))
    assert context_recall(["a", "c"], flat).value == pytest.approx(2 / 3)
    assert context_recall(["c"], AnyOf((Leaf("a"), Leaf("c")))).value == 1.0
    nested = AllOf((Leaf("a"), AnyOf((Leaf("b"), Leaf("c")))))
    assert context_recall(["c"], nested).value == 0.5


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


# --- the vectorised metrics agree with the definitions ---------------------------------------

IDS = ["a", "b", "c", "d", "e"]
leaf = st.sampled_from(IDS).map(Leaf)
evidence: st.SearchStrategy[Evidence] = st.recursive(
    leaf,
    lambda inner: st.one_of(
        st.lists(inner, min_size=1, max_size=3).map(lambda c: AllOf(tuple(c))),
        st.lists(inner, min_size=1, max_size=3).map(lambda c: AnyOf(tuple(c))),
    ),
    max_leaves=5,
)
retrieved = st.lists(st.sampled_from([*IDS, "x", "y"]), max_size=8)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(evidence, retrieved), min_size=1, max_size=6))
def test_vectorised_metrics_agree_with_the_definitions(
    examples: list[tuple[Evidence, list[str]]],
) -> None:
    cases = CaseSet.of(Case(f"c{i}", f"question {i}", ev) for i, (ev, _) in enumerate(examples))
    frame, nodes = case_tables(cases)
    items = int(frame.get_column("n_items").max() or 0)
    positions: dict[str, list[int | None]] = {f"pos_{j}": [] for j in range(items)}
    for ev, got in examples:
        ids = evidence_ids(ev)
        for j in range(items):
            item = ids[j] if j < len(ids) else None
            positions[f"pos_{j}"].append(got.index(item) + 1 if item in got else None)
    table = frame.with_columns(
        inst=pl.int_range(0, pl.len(), dtype=pl.UInt32),
        why_undefined=pl.lit(None, dtype=pl.String),
        **{k: pl.Series(v, dtype=pl.Int64) for k, v in positions.items()},
    )
    out = question_metrics(table, items, "pos", nodes, suffix="x").sort("inst")
    for (ev, got), row in zip(examples, out.iter_rows(named=True), strict=True):
        relevant = set(evidence_ids(ev))
        expected = {
            "hit_x": hit_rate(got, relevant).value,
            "mrr_x": reciprocal_rank(got, relevant).value,
            "context_precision_x": context_precision(got, relevant).value,
            "average_precision_x": average_precision(got, relevant).value,
            "recall_x": context_recall(got, ev).value,
        }
        for name, value in expected.items():
            assert row[name] == pytest.approx(value, nan_ok=True), (name, ev, got)
