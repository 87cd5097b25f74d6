"""Abstention as an outcome: who was refused, who was answered, and at what threshold.

Per run, the confusion of *answerable / unanswerable* (from the cases) × *answered / abstained*
(from the traces). Then a sweep over the recorded top score of the last ranking stage (the
record's ``top_score``): at each threshold t, a question would be answered when its top score
is at least t, so the sweep counts the answerable questions that would be refused and the
unanswerable ones that would be answered — a risk–coverage table — with the pipeline's own
threshold (the cut's ``ragfunnel.cut.threshold``) marked, and the threshold that minimises
``cost_ratio × unanswerable answered + answerable refused`` recommended.

Questions without a top score (no ranking span, or no scores recorded) cannot be swept; they
are counted, not guessed. This module reads records; it never queries the store.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

__all__ = ["Abstention", "abstention"]


@dataclass(frozen=True)
class Abstention:
    """The abstention analysis of one set of records.

    Attributes:
        confusion: per run, ``answerable`` × ``abstained`` with counts.
        sweep: per run and threshold: ``threshold``, ``answered``, ``coverage`` (share
            answered), ``answerable_refused``, ``unanswerable_answered``, ``risk`` (share of
            the answered that are unanswerable), ``cost``, ``pipeline`` (the pipeline's own
            threshold) and ``recommended``.
        pipeline_threshold: per run, the cut threshold the pipeline used (None without one).
        recommended: per run, the threshold of least cost.
        cost_ratio: what answering an unanswerable question costs, counted in refused
            answerable questions.
        unscored: per run, questions without a top score (left out of the sweep).
    """

    confusion: pl.DataFrame
    sweep: pl.DataFrame
    pipeline_threshold: dict[str, float | None]
    recommended: dict[str, float | None]
    cost_ratio: float
    unscored: dict[str, int]


def _thresholds(scores: Sequence[float], pipeline: float | None) -> list[float]:
    values = sorted(set(scores))
    candidates = [*values, math.inf]  # at +inf every question is refused
    if pipeline is not None and pipeline not in candidates:
        candidates.append(pipeline)
    if values:
        candidates.append(values[0] - 1.0)  # below every score: every question answered
    return sorted(candidates)


def abstention(
    records: pl.DataFrame,
    *,
    cost_ratio: float = 1.0,
    thresholds: Sequence[float] | None = None,
) -> Abstention:
    """Analyse abstention over analysis records (the latest record of each question).

    ``records`` needs ``run_id``, ``answerable``, ``abstained``, ``top_score`` and
    ``cut_threshold``; only pipeline records (``mode``) count. ``thresholds`` replaces the
    default candidates (every distinct top score, the pipeline's threshold, and both ends).

    Raises:
        ValueError: a non-positive ``cost_ratio``.
    """
    if not cost_ratio > 0:
        raise ValueError(f"cost_ratio must be positive, got {cost_ratio!r}")
    frame = records
    if "mode" in frame.columns:
        frame = frame.filter(pl.col("mode").cast(pl.String) == "pipeline")
    if "latest" in frame.columns:
        frame = frame.filter(pl.col("latest"))
    frame = frame.with_columns(pl.col("run_id").cast(pl.String).fill_null(""))
    confusion = (
        frame.group_by("run_id", "answerable", "abstained")
        .len("count")
        .sort("run_id", "answerable", "abstained", descending=[False, True, False])
    )
    rows = []
    chosen: dict[str, float | None] = {}
    pipeline: dict[str, float | None] = {}
    unscored: dict[str, int] = {}
    for (run_id,), group in frame.group_by("run_id", maintain_order=True):
        run = str(run_id)
        own = group.get_column("cut_threshold").drop_nulls().drop_nans()
        pipeline[run] = float(own.mode().sort()[0]) if own.len() else None
        scored = group.filter(pl.col("top_score").is_not_null() & pl.col("top_score").is_not_nan())
        unscored[run] = group.height - scored.height
        scores = scored.get_column("top_score").to_list()
        answerable = scored.get_column("answerable").to_list()
        candidates = (
            list(thresholds) if thresholds is not None else _thresholds(scores, pipeline[run])
        )
        best: tuple[float, float] | None = None
        run_rows = []
        for t in candidates:
            answered = [s >= t for s in scores]
            refused = sum(a and not ok for a, ok in zip(answerable, answered, strict=True))
            let_through = sum(not a and ok for a, ok in zip(answerable, answered, strict=True))
            n_answered = sum(answered)
            cost = cost_ratio * let_through + refused
            run_rows.append({
                "run_id": run, "threshold": t, "answered": n_answered,
                "coverage": n_answered / len(scores) if scores else math.nan,
                "answerable_refused": refused, "unanswerable_answered": let_through,
                "risk": let_through / n_answered if n_answered else math.nan, "cost": cost,
                "pipeline": pipeline[run] is not None and t == pipeline[run],
            })  # fmt: skip
            if math.isfinite(t) and (best is None or cost < best[0]):
                best = (cost, t)
        chosen[run] = best[1] if best is not None else None
        for row in run_rows:
            row["recommended"] = row["threshold"] == chosen[run]
        rows.extend(run_rows)
    schema = {"run_id": pl.String, "threshold": pl.Float64, "answered": pl.Int64,
              "coverage": pl.Float64, "answerable_refused": pl.Int64,
              "unanswerable_answered": pl.Int64, "risk": pl.Float64, "cost": pl.Float64,
              "pipeline": pl.Boolean, "recommended": pl.Boolean}  # fmt: skip
    return Abstention(
        confusion=confusion,
        sweep=pl.DataFrame(rows, schema=schema),
        pipeline_threshold=pipeline,
        recommended=chosen,
        cost_ratio=cost_ratio,
        unscored=unscored,
    )
