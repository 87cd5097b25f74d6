"""ID-based retrieval metrics, per question and aggregated with confidence intervals.

Each metric is defined once below as a small scalar function (the documentation and the test
oracle) and computed for many questions at once by :func:`question_metrics`, which must agree
with the scalar functions (a property test checks it).

Conventions shared by every metric (docs/funnel.md states them with examples):

- The *relevant* ids are the distinct leaf ids of the case's evidence tree.
- A list is read in order; only the first occurrence of an id counts, a repeat is a position
  holding nothing new (it counts as not relevant).
- Undefined values are NaN with a reason, never 0: unanswerable cases (no expected evidence),
  questions whose list is unknown (incomplete trace), and context precision when no relevant
  id is in the list (Ragas would report 0 there; AP, defined over all expected ids, is 0).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import polars as pl

from ragfunnel.analyzer.cases import AllOf, Evidence, Leaf, Quote, Span
from ragfunnel.analyzer.funnel.read.wide_layout import slot
from ragfunnel.analyzer.funnel.records.evidence_tree import evaluate

__all__ = [
    "MetricValue",
    "average_precision",
    "context_precision",
    "context_recall",
    "hit_rate",
    "question_metrics",
    "reciprocal_rank",
]

NO_RELEVANT = "no relevant id in the list"


@dataclass(frozen=True)
class MetricValue:
    """A metric's value, or NaN with the reason it is undefined."""

    value: float
    reason: str | None = None


def _relevant_positions(retrieved: Sequence[str], relevant: Collection[str]) -> list[int]:
    seen: set[str] = set()
    positions = []
    for position, item in enumerate(retrieved, start=1):
        if item in relevant and item not in seen:
            positions.append(position)
        seen.add(item)
    return positions


def context_precision(retrieved: Sequence[str], relevant: Collection[str]) -> MetricValue:
    """Mean of precision@i over the positions i that hold a relevant id (Ragas / DeepEval).

    [irrelevant, relevant, relevant] → (1/2 + 2/3) / 2 = 7/12; [relevant, relevant, irrelevant]
    → 1. NaN when no relevant id is in the list.
    """
    positions = _relevant_positions(retrieved, relevant)
    if not positions:
        return MetricValue(math.nan, NO_RELEVANT)
    return MetricValue(sum(i / p for i, p in enumerate(positions, start=1)) / len(positions))


def average_precision(retrieved: Sequence[str], relevant: Collection[str]) -> MetricValue:
    """LlamaIndex-style AP: the same sum of precision@i, divided by *all* relevant ids.

    A relevant id that was never retrieved pulls AP down; [irrelevant, relevant, relevant] with
    two relevant ids → 7/12, with three → 7/18. NaN only without relevant ids.
    """
    if not relevant:
        return MetricValue(math.nan, "no expected evidence")
    positions = _relevant_positions(retrieved, relevant)
    return MetricValue(sum(i / p for i, p in enumerate(positions, start=1)) / len(set(relevant)))


def hit_rate(retrieved: Sequence[str], relevant: Collection[str]) -> MetricValue:
    """1 when any relevant id is in the list, else 0."""
    if not relevant:
        return MetricValue(math.nan, "no expected evidence")
    return MetricValue(1.0 if _relevant_positions(retrieved, relevant) else 0.0)


def reciprocal_rank(retrieved: Sequence[str], relevant: Collection[str]) -> MetricValue:
    """1 / position of the first relevant id; 0 when none is in the list."""
    if not relevant:
        return MetricValue(math.nan, "no expected evidence")
    positions = _relevant_positions(retrieved, relevant)
    return MetricValue(1.0 / positions[0] if positions else 0.0)


def context_recall(retrieved: Collection[str], evidence: Evidence | None) -> MetricValue:
    """ID-based recall folded over the evidence tree.

    A leaf is 1 when retrieved, ``all_of`` is the mean of its children (|retrieved ∩
    required| / |required| when flat), ``any_of`` their maximum (1 if any alternative was
    retrieved).
    """
    if evidence is None:
        return MetricValue(math.nan, "no expected evidence")
    found = set(retrieved)

    def fold(node: Evidence) -> float:
        if isinstance(node, (Leaf, Quote, Span)):  # a document leaf by its label
            return 1.0 if node.id in found else 0.0
        values = [fold(child) for child in node.children]
        return sum(values) / len(values) if isinstance(node, AllOf) else max(values)

    return MetricValue(fold(evidence))


def question_metrics(
    frame: pl.DataFrame, items: int, position: str, nodes: pl.DataFrame, *, suffix: str
) -> pl.DataFrame:
    """Add all five metrics for many questions at once, for one list (the prompt, or top-k).

    Args:
        frame: one row per instance with ``inst``, ``case_idx``, ``n_items``, ``root_kind``
            (``leaf``, ``all``, ``any`` or ``nested``), ``why_undefined`` (null when the
            metrics are defined) and, for each item slot j, ``{position}_{j}``: the item's
            1-based first-occurrence position in the list, null when it is not in it.
        items: the number of item slots.
        position: the prefix of the position columns.
        nodes: the evidence node table of the nested cases (``tree.node_table``).
        suffix: appended to every metric column, e.g. ``at_cut`` or ``at_10``.

    Returns:
        ``frame`` with ``hit_``, ``recall_``, ``mrr_``, ``context_precision_``,
        ``average_precision_`` and ``metrics_note_`` columns for ``suffix``.
    """
    pos = [pl.col(slot(position, j)) for j in range(items)]
    hit = [p.is_not_null() for p in pos]
    found = pl.sum_horizontal(hit) if items else pl.lit(0)
    first = pl.min_horizontal(pos) if items else pl.lit(None, dtype=pl.Int64)
    terms = []
    for j in range(items):
        # The rank of item j among the relevant ids found: 1 + how many sit before it.
        earlier = [(pos[m] < pos[j]).fill_null(False) for m in range(items) if m != j]
        rank = 1 + (pl.sum_horizontal(earlier) if earlier else pl.lit(0))
        terms.append(pl.when(hit[j]).then(rank / pos[j]).otherwise(0.0))
    precision_sum = pl.sum_horizontal(terms) if terms else pl.lit(0.0)
    recall = (
        pl.when(pl.col("root_kind") == "any")
        .then((pl.col("_found") > 0).cast(pl.Float64))
        .otherwise(pl.col("_found") / pl.col("n_items"))
    )
    out = frame.with_columns(_found=found, _first=first, _precision=precision_sum).with_columns(
        _recall=recall
    )
    nested = out.filter(pl.col("root_kind") == "nested")
    if nested.height:
        leaves = pl.concat(
            nested.select(
                "inst", "case_idx", pl.lit(j, pl.Int32).alias("j"),
                hit[j].cast(pl.Float64).alias("value"), "n_items",
            ).filter(pl.col("j") < pl.col("n_items"))
            for j in range(items)
        )  # fmt: skip
        folded = evaluate(leaves, nodes, how="recall").rename({"value": "_nested"})
        out = (
            out.join(folded, on="inst", how="left")
            .with_columns(_recall=pl.coalesce("_nested", "_recall"))
            .drop("_nested")
        )
    ok = pl.col("why_undefined").is_null()
    nan = pl.lit(math.nan)
    n = pl.col("_found")
    return out.with_columns(
        pl.when(ok).then((n > 0).cast(pl.Float64)).otherwise(nan).alias(f"hit_{suffix}"),
        pl.when(ok).then(pl.col("_recall")).otherwise(nan).alias(f"recall_{suffix}"),
        pl.when(ok)
        .then(pl.when(n > 0).then(1.0 / pl.col("_first")).otherwise(0.0))
        .otherwise(nan)
        .alias(f"mrr_{suffix}"),
        pl.when(ok & (n > 0))
        .then(pl.col("_precision") / n)
        .otherwise(nan)
        .alias(f"context_precision_{suffix}"),
        pl.when(ok)
        .then(pl.col("_precision") / pl.col("n_items"))
        .otherwise(nan)
        .alias(f"average_precision_{suffix}"),
        pl.when(~ok)
        .then(pl.col("why_undefined"))
        .when(n == 0)
        .then(pl.lit(f"context precision: {NO_RELEVANT}"))
        .alias(f"metrics_note_{suffix}"),
    ).drop("_found", "_first", "_precision", "_recall")
