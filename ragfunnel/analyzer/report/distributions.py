"""The small aggregates behind the charts: funnel counts, rank bins, risk–coverage, bins.

Each function takes one run's pipeline records (latest of each case) and returns a few dozen
numbers whatever the number of questions. Nothing here renders or queries a store.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl

from ragfunnel.analyzer.funnel.abstention import CHECKED, sweep
from ragfunnel.analyzer.report.contents import Abstention

__all__ = [
    "FAITHFULNESS_BINS",
    "RANK_BINS",
    "abstention",
    "evidence_funnel",
    "faithfulness_bins",
    "rank_bins",
]

RANK_BINS: tuple[tuple[str, int, int], ...] = (
    *((str(r), r, r) for r in range(1, 11)),
    ("11–20", 11, 20),
    ("21–30", 21, 30),
    ("31–50", 31, 50),
    ("51–100", 51, 100),
    ("> 100", 101, 1 << 62),
)
DROPPED = "dropped"
"""The reranker dropped the item."""
NOT_RANKED = "not found"
"""The item was never retrieved (or never indexed)."""
_LOST_AT = r"was lost at (ingestion_or_search|ingestion|search|rerank|cut)"

FUNNEL_STEPS = (
    "asked",
    "indexed",
    "retrieved",
    "kept by the reranker",
    "in the prompt",
    "answered correctly",
)
_LOST_BEFORE = {
    "indexed": ("ingestion", "ingestion_or_search"),
    "retrieved": ("ingestion", "ingestion_or_search", "search"),
    "kept by the reranker": ("ingestion", "ingestion_or_search", "search", "rerank"),
    "in the prompt": ("ingestion", "ingestion_or_search", "search", "rerank", "cut"),
}


def evidence_funnel(questions: pl.DataFrame) -> tuple[tuple[str, int], ...]:
    """How many answerable questions with a complete trace kept their evidence to each step.

    ``questions`` is ``frames.question_frame``'s. A question answered correctly although
    evidence was lost (``ok_without_evidence``) counts as lost where the record says it was
    lost, and as answered correctly.
    """
    failure = pl.col("first_failure")
    lost = (
        pl.when(failure == "ok_without_evidence")
        .then(pl.col("failure_reason").str.extract(_LOST_AT))
        .otherwise(failure)
    )
    counted = (pl.col("n_evidence") > 0) & (failure != "incomplete_trace")
    sums = questions.select(
        counted.sum().alias("asked"),
        *(
            (counted & lost.is_in(before)).sum().alias(step)
            for step, before in _LOST_BEFORE.items()
        ),
        (counted & failure.is_in(["ok", "ok_without_evidence"])).sum().alias("answered correctly"),
    ).row(0, named=True)
    total = int(sums["asked"])
    out = [("asked", total)]
    out += [(step, total - int(sums[step])) for step in _LOST_BEFORE]
    out.append(("answered correctly", int(sums["answered correctly"])))
    return tuple(out)


def rank_bins(items: pl.DataFrame) -> tuple[tuple[str, int], ...]:
    """Gold evidence items by their rank after the last ranking stage.

    The reranker's rank when it ranked the item, else the candidate rank (no reranker, or an
    item beyond the reranker's depth); items the reranker dropped and items never retrieved
    have their own bins. ``items`` is ``frames.item_frame``'s.
    """
    dropped = (pl.col("lost_at") == "rerank") & pl.col("rerank_rank").is_null()
    rank = pl.coalesce("rerank_rank", pl.when(pl.col("lost_at") != "rerank").then("candidate_rank"))
    sums = items.select(
        *(rank.is_between(low, high).sum().alias(label) for label, low, high in RANK_BINS),
        dropped.sum().alias(DROPPED),
        (rank.is_null() & ~dropped.fill_null(False)).sum().alias(NOT_RANKED),
    ).row(0, named=True)
    labels = [label for label, _, _ in RANK_BINS] + [DROPPED, NOT_RANKED]
    return tuple((label, int(sums[label] or 0)) for label in labels)


FAITHFULNESS_BINS = (*(f"{i / 10:.1f}–{(i + 1) / 10:.1f}" for i in range(9)), "0.9–<1.0", "1.0")
"""What each faithfulness bin holds: [0, 0.1), …, [0.9, 1.0), then exactly 1.0 on its own
(fully supported answers, commonly most of them, would otherwise hide in the last tenth)."""


def faithfulness_bins(values: pl.Series) -> tuple[int, ...]:
    """Counts of the judged faithfulness in the bins ``FAITHFULNESS_BINS`` names."""
    finite = values.drop_nulls().drop_nans().clip(0.0, 1.0)
    index = (finite * 10).floor().cast(pl.Int64).clip(0, 10)
    counts = index.value_counts()
    found = dict(zip(counts.get_column(index.name), counts.get_column("count"), strict=True))
    return tuple(int(found.get(i, 0)) for i in range(len(FAITHFULNESS_BINS)))


def abstention(questions: pl.DataFrame, *, points: int = 101) -> Abstention:
    """The abstention confusion, and the risk–coverage curve of the last ranking stage's top score.

    Sweeping a gate threshold t over the top scores (``funnel.abstention.sweep``, the sweep
    ``ragfunnel threshold`` prints): coverage is the share of the scored questions with a
    score ≥ t, risk the share of those, among the ones whose outcome is known, answered
    wrongly — an unanswerable question counts as wrong, an answerable one as right only when
    its answer was checked correct; answerable questions whose answer could not be checked
    (abstained, unknown, missing) are left out of the risk.
    """
    answerable = pl.col("n_evidence") > 0
    abstained = pl.col("abstained").fill_null(False)
    sums = questions.select(
        (answerable & ~abstained).sum().alias("answerable_answered"),
        (answerable & abstained).sum().alias("answerable_abstained"),
        (~answerable & ~abstained).sum().alias("unanswerable_answered"),
        (~answerable & abstained).sum().alias("unanswerable_abstained"),
    ).row(0, named=True)
    confusion = {name: int(value) for name, value in sums.items()}
    verdict = pl.col("answer_verdict")
    scored = questions.filter(
        pl.col("top_score").is_not_null(), pl.col("top_score").is_finite()
    ).select(
        score=pl.col("top_score").cast(pl.Float64),
        answerable=answerable,
        known=~answerable | verdict.is_in(CHECKED).fill_null(False),
        wrong=~answerable | (verdict != "correct").fill_null(True),
    )
    if scored.is_empty():
        return Abstention(confusion, ())
    scores = scored.get_column("score").to_numpy()
    thresholds = np.unique(scores)[::-1]  # highest first: a threshold admits all tied at it
    counts = sweep(
        scores, scored.get_column("answerable").to_numpy(), thresholds,
        known=scored.get_column("known").to_numpy(), wrong=scored.get_column("wrong").to_numpy(),
    )  # fmt: skip
    picks: Sequence[int] = range(thresholds.size)
    if thresholds.size > points:
        picks = sorted({round(i * (thresholds.size - 1) / (points - 1)) for i in range(points)})
    curve = tuple(
        (float(thresholds[i]), float(counts["coverage"][i]), float(counts["risk"][i]))
        for i in picks
        if math.isfinite(counts["risk"][i])
    )
    return Abstention(confusion, curve)
