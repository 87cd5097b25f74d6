"""Metric definitions (docs/funnel.md §7) and their edge cases, the agreement of the vectorised
computation (``records/metrics.py``) with the scalar definitions, and the per-question metrics
of a traced question at the cut and at k."""

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
from ragfunnel.analyzer.store import Store
from tests.support.decisions import A_ID, B_ID, RIGHT, Q, filler, run
from tests.support.traces import TraceBuilder

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


# --- per-question metrics of a traced question ----------------------------------------------


def test_per_question_metrics_at_the_cut_and_at_k(store: Store, b: TraceBuilder) -> None:
    # The prompt is [irrelevant, relevant, relevant]: context precision 7/12; reordered, 1.
    for order in (["f1", A_ID, B_ID], [A_ID, B_ID, "f1"]):
        with b.question("q-017", Q, run="-".join(order)) as q:
            q.retrieve([*order, *filler(7, 50)])
            q.generate(order, RIGHT)
    result = run(store, b, k=[1, 2])
    got = {r["run_id"]: r for r in result.records.iter_rows(named=True)}
    worse, better = got[f"f1-{A_ID}-{B_ID}"], got[f"{A_ID}-{B_ID}-f1"]
    assert worse["context_precision_at_cut"] == pytest.approx(7 / 12)
    assert better["context_precision_at_cut"] == 1.0
    assert worse["average_precision_at_cut"] == pytest.approx(7 / 12)
    assert (worse["mrr_at_cut"], better["mrr_at_cut"]) == (0.5, 1.0)
    assert (worse["recall_at_1"], worse["hit_at_1"]) == (0.0, 0.0)
    assert worse["recall_at_2"] == 0.5 and better["recall_at_2"] == 1.0
    assert math.isnan(worse["context_precision_at_1"])
    assert worse["metrics_note_at_1"] == "context precision: no relevant id in the list"
    metrics = result.metrics.filter(pl.col("metric") == "context_precision")
    assert set(metrics.get_column("at")) == {"cut", "1", "2"}
