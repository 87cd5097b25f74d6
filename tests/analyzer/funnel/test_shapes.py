"""Live traffic without cases (``shapes.py``)."""

from __future__ import annotations

import math

import polars as pl
import pytest

from ragfunnel.analyzer.funnel import shapes
from ragfunnel.analyzer.funnel.read.runs import UnknownRun
from ragfunnel.analyzer.funnel.shapes import shape_summary
from ragfunnel.analyzer.store import Store
from tests.support.decisions import filler
from tests.support.traces import TraceBuilder


def test_shapes_summarise_live_traffic(store: Store, b: TraceBuilder) -> None:
    for i in range(3):
        with b.question(f"live-{i}", f"Question {i}?", run="prod") as q:
            q.retrieve(filler(20), scores=[0.9 - 0.01 * j for j in range(20)])
            if i < 2:
                q.cut(filler(5), k=5, threshold=0.5)
                q.generate(filler(5), "An answer.")
            else:
                q.cut([], k=5, threshold=0.95, abstained=True)
    with b.question("live-9", "Dropped root?", root=False) as q:
        q.retrieve(["f1"], error="boom")
    b.into(store)
    found = shapes(store)
    rows = {r["question_key"]: r for r in found.records.iter_rows(named=True)}
    assert rows["live-0"]["stages"] == ["retrieve", "cut", "generate"]
    assert rows["live-0"]["candidates"] == 20 and rows["live-0"]["top_score"] == 0.9
    assert rows["live-0"]["prompt_size"] == 5 and rows["live-2"]["abstained"]
    assert rows["live-2"]["missing"] == []
    assert rows["live-9"]["missing"] == ["question", "generate"]
    assert rows["live-9"]["failed_stages"] == ["retrieve"]
    summary = {(r["run_id"], r["measure"]): r for r in found.summary.iter_rows(named=True)}
    assert summary[("prod", "abstention rate")]["value"] == pytest.approx(1 / 3)
    assert summary[("prod", "mean candidates")]["value"] == 20.0
    assert shapes(store, run="prod").records.height == 3


def test_rerank_low_confidence_and_filters(store: Store) -> None:
    # Not a read-path scenario (tests/analyzer/test_read_path.py): a generator is read once.
    b = TraceBuilder()
    with b.question("live-a", "A?", run="prod") as q:
        q.retrieve(filler(10), scores=[0.5] * 10)
        q.rerank(filler(3), scores=[0.99, 0.7, 0.1], top_n=3)
        q.generate(filler(3), "Sure.", low_confidence=["3"])
    with b.question("live-b", "B?", run="canary") as q:
        q.retrieve([], error="TimeoutError")
        q.generate([], "I do not know.")
    b.into(store)
    found = shapes(store, run=(r for r in ["prod"]))
    (row,) = found.records.iter_rows(named=True)
    assert row["stages"] == ["retrieve", "rerank", "generate"]
    assert (row["reranked"], row["reranked_top_score"], row["prompt_size"]) == (3, 0.99, 3)
    assert row["low_confidence"] is True and row["source"] == "ragfunnel"
    summary = {r["measure"]: r for r in found.summary.iter_rows(named=True)}
    assert summary["low-confidence rate"]["value"] == 1.0
    assert summary["mean reranked top score"]["value"] == 0.99
    canary = shapes(store, question="live-b")
    (failed,) = canary.records.iter_rows(named=True)
    assert failed["failed_stages"] == ["retrieve"] and math.isnan(failed["top_score"])
    errors = canary.summary.filter(pl.col("measure") == "error rate").row(0, named=True)
    assert (errors["run_id"], errors["value"], errors["n"]) == ("canary", 1.0, 1)
    with pytest.raises(UnknownRun, match="did you mean 'prod'"):
        shapes(store, run="prodd")


def test_the_summary_has_every_measure_per_run() -> None:
    records = pl.DataFrame(
        {"run_id": ["a", "a", "b"], "abstained": [True, False, False],
         "low_confidence": [False, False, True], "missing": [["generate"], [], []],
         "failed_stages": [[], ["cut"], []], "candidates": [10, 20, 5],
         "top_score": [0.5, None, 0.9], "reranked_top_score": [None, None, None],
         "prompt_size": [3, 5, 1]},
        schema_overrides={"reranked_top_score": pl.Float64},
    )  # fmt: skip
    summary = shape_summary(records)
    got = {(r["run_id"], r["measure"]): (r["value"], r["n"]) for r in summary.iter_rows(named=True)}
    assert got[("a", "abstention rate")] == (0.5, 2)
    assert got[("a", "incomplete rate")] == (0.5, 2)
    assert got[("a", "error rate")] == (0.5, 2)
    assert got[("a", "mean candidates")] == (15.0, 2)
    assert got[("a", "mean top score")] == (0.5, 1)  # a missing score is left out
    value, n = got[("a", "mean reranked top score")]
    assert math.isnan(value) and n == 0
    assert got[("b", "low-confidence rate")] == (1.0, 1)
    assert summary.height == 2 * 8
