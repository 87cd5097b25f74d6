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

import numpy as np
import polars as pl

__all__ = ["CHECKED", "Abstention", "abstention", "sweep"]


@dataclass(frozen=True)
class Abstention:
    """The abstention analysis of one set of records.

    Attributes:
        confusion: per run, ``answerable`` × ``abstained`` with counts.
        sweep: per run and threshold: ``threshold``, ``answered``, ``coverage`` (share
            answered), ``answerable_refused``, ``unanswerable_answered``,
            ``unanswerable_share`` (share of the answered that are unanswerable), ``risk``
            (share of the answered whose outcome is known that are answered wrongly — an
            unanswerable question counts as wrong, an answerable one as right only when its
            answer was checked correct; the report's risk–coverage curve is this risk),
            ``cost``, ``pipeline`` (the pipeline's own threshold) and ``recommended``.
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


CHECKED = ("correct", "incorrect", "failed")
"""``answer_verdict`` values that say whether an answer was right: any other (abstained,
unknown, missing) leaves an answerable question's outcome unknown."""


def _thresholds(scores: np.ndarray, pipeline: float | None) -> np.ndarray:
    values = np.unique(scores)  # sorted, distinct
    extra = [math.inf]  # at +inf every question is refused
    if pipeline is not None:
        extra.append(pipeline)
    if values.size:
        extra.append(float(values[0]) - 1.0)  # below every score: every question answered
    return np.unique(np.concatenate([values, np.asarray(extra, dtype=np.float64)]))


def sweep(
    scores: np.ndarray,
    answerable: np.ndarray,
    thresholds: np.ndarray,
    *,
    known: np.ndarray | None = None,
    wrong: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Counts at each threshold t of a gate answering the questions whose score is ≥ t.

    Sorts the scores once and reads every count off cumulative sums: O((n + m) log n) for n
    questions and m thresholds. ``known``/``wrong`` (per question) say whether its answer's
    outcome is known and wrong; without them only unanswerable questions are known (wrong).
    Returns ``answered``, ``answerable_refused``, ``unanswerable_answered``, ``coverage``
    (share of the questions answered), ``unanswerable_share`` (share of the answered that are
    unanswerable) and ``risk`` (share of the answered whose outcome is known that are wrong),
    one entry per threshold.
    """
    n = scores.size
    unanswerable = ~answerable.astype(bool)
    known = unanswerable if known is None else known.astype(bool)
    wrong = unanswerable if wrong is None else wrong.astype(bool) & known
    order = np.argsort(scores, kind="stable")
    below = np.searchsorted(scores[order], thresholds, side="left")  # scores < t: refused

    def refused(flags: np.ndarray) -> np.ndarray:
        prefix = np.concatenate([[0], np.cumsum(flags[order], dtype=np.int64)])
        return prefix[below]

    refused_unanswerable, refused_known, refused_wrong = (
        refused(unanswerable), refused(known), refused(wrong)
    )  # fmt: skip
    answered = n - below
    let_through = int(unanswerable.sum()) - refused_unanswerable
    known_answered = int(known.sum()) - refused_known
    wrong_answered = int(wrong.sum()) - refused_wrong
    with np.errstate(divide="ignore", invalid="ignore"):
        return {
            "answered": answered.astype(np.int64),
            "answerable_refused": (below - refused_unanswerable).astype(np.int64),
            "unanswerable_answered": let_through.astype(np.int64),
            "coverage": answered / n if n else np.full(thresholds.size, math.nan),
            "unanswerable_share": np.where(answered > 0, let_through / answered, math.nan),
            "risk": np.where(known_answered > 0, wrong_answered / known_answered, math.nan),
        }


def abstention(
    records: pl.DataFrame,
    *,
    cost_ratio: float = 1.0,
    thresholds: Sequence[float] | None = None,
) -> Abstention:
    """Analyze abstention over analysis records (the latest record of each question).

    ``records`` needs ``run_id``, ``answerable``, ``abstained``, ``top_score`` and
    ``cut_threshold``, and ``answer_verdict`` for the risk; only pipeline records (``mode``)
    count. ``thresholds`` replaces the default candidates (every distinct top score, the
    pipeline's threshold, and both ends).

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
    verdict = (
        pl.col("answer_verdict").cast(pl.String)
        if "answer_verdict" in frame.columns
        else pl.lit(None, dtype=pl.String)
    )
    answerable = pl.col("answerable").fill_null(True)
    frame = frame.with_columns(
        _known=~answerable | verdict.is_in(CHECKED).fill_null(False),
        _wrong=~answerable | (verdict != "correct").fill_null(True),
    )
    parts = []
    chosen: dict[str, float | None] = {}
    pipeline: dict[str, float | None] = {}
    unscored: dict[str, int] = {}
    for (run_id,), group in frame.group_by("run_id", maintain_order=True):
        run = str(run_id)
        own = group.get_column("cut_threshold").drop_nulls().drop_nans()
        pipeline[run] = float(own.mode().sort()[0]) if own.len() else None
        scored = group.filter(pl.col("top_score").is_not_null() & pl.col("top_score").is_not_nan())
        unscored[run] = group.height - scored.height
        scores = scored.get_column("top_score").cast(pl.Float64).to_numpy()
        candidates = (
            np.asarray(list(thresholds), dtype=np.float64)
            if thresholds is not None
            else _thresholds(scores, pipeline[run])
        )
        counts = sweep(
            scores, scored.get_column("answerable").fill_null(True).to_numpy(), candidates,
            known=scored.get_column("_known").to_numpy(),
            wrong=scored.get_column("_wrong").to_numpy(),
        )  # fmt: skip
        cost = cost_ratio * counts["unanswerable_answered"] + counts["answerable_refused"]
        finite = np.isfinite(candidates)
        best = None
        if finite.any():
            least = cost[finite].min()
            best = float(candidates[finite & (cost == least)].min())  # ties: more coverage
        chosen[run] = best
        parts.append(
            pl.DataFrame({
                "run_id": [run] * candidates.size, "threshold": candidates,
                "answered": counts["answered"], "coverage": counts["coverage"],
                "answerable_refused": counts["answerable_refused"],
                "unanswerable_answered": counts["unanswerable_answered"],
                "unanswerable_share": counts["unanswerable_share"], "risk": counts["risk"],
                "cost": cost.astype(np.float64),
                "pipeline": (candidates == pipeline[run]) if pipeline[run] is not None
                else np.zeros(candidates.size, dtype=bool),
                "recommended": candidates == best if best is not None
                else np.zeros(candidates.size, dtype=bool),
            })
        )  # fmt: skip
    schema = {"run_id": pl.String, "threshold": pl.Float64, "answered": pl.Int64,
              "coverage": pl.Float64, "answerable_refused": pl.Int64,
              "unanswerable_answered": pl.Int64, "unanswerable_share": pl.Float64,
              "risk": pl.Float64, "cost": pl.Float64, "pipeline": pl.Boolean,
              "recommended": pl.Boolean}  # fmt: skip
    return Abstention(
        confusion=confusion,
        sweep=pl.concat([p.cast(pl.Schema(schema)) for p in parts])
        if parts
        else pl.DataFrame(schema=schema),
        pipeline_threshold=pipeline,
        recommended=chosen,
        cost_ratio=cost_ratio,
        unscored=unscored,
    )
