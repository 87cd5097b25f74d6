"""The slim projections of the records that a report aggregates.

Selecting a few columns before filtering keeps every copy small: the records' evidence and
claim lists, most of their memory, are never copied per run. This module only reshapes
records; it must never compute a statistic or read a store.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from ragfunnel.analyzer.funnel.analysis import FunnelResult

__all__ = ["item_frame", "question_frame", "report_frame", "run_key", "split_runs"]


def report_frame(result: FunnelResult) -> pl.DataFrame:
    """The records a report counts: pipeline questions, the latest occurrence of each case."""
    return result.records.filter(pl.col("latest"), pl.col("mode") == "pipeline")


def _counted() -> pl.Expr:
    return pl.col("latest") & (pl.col("mode") == "pipeline")


def run_key() -> pl.Expr:
    """Questions without a run (foreign traces) report together as the run ``""``."""
    return pl.col("run_id").cast(pl.String).fill_null("")


def question_frame(records: pl.DataFrame) -> pl.DataFrame:
    """One slim row per counted question: what the aggregates read, and ``_row`` to fetch it.

    Selecting before filtering keeps the copy small: the records' evidence and claim lists,
    most of their memory, are not copied here.
    """
    columns = [
        pl.int_range(pl.len(), dtype=pl.UInt32).alias("_row"),
        run_key(), "question_id", "trace_id", "question_key",
        *(pl.col(c).cast(pl.String) for c in ("first_failure", "failure_reason", "answer_verdict")),
        pl.col("failure_item").cast(pl.String), pl.col("index_version").cast(pl.String),
        "flags", "k_prompt", "top_score",
        "abstained", pl.col("recall_at_cut").fill_nan(None),
        pl.col("evidence").list.len().fill_null(0).alias("n_evidence"),
    ]  # fmt: skip
    columns.extend(
        pl.col(score).cast(pl.Float64).fill_nan(None)
        for score in ("faithfulness", "confidence")
        if score in records.columns
    )
    if "answer_correctness" in records.columns:
        columns.append(pl.col("answer_correctness").cast(pl.String))
    if "claims" in records.columns:
        label = pl.element().struct.field("label") == "unsupported"
        columns.append(
            pl.col("claims").list.eval(label).list.sum().fill_null(0).alias("unsupported")
        )
    return records.lazy().filter(_counted()).select(columns).collect()


def item_frame(records: pl.DataFrame) -> pl.DataFrame:
    """One row per evidence item of each counted question.

    Its run, its question's first failure, its id and where it went.
    """
    return (
        records.lazy()
        .filter(_counted())
        .select(run_key(), pl.col("first_failure").cast(pl.String), "evidence")
        .explode("evidence")
        .filter(pl.col("evidence").is_not_null())
        .select(
            "run_id",
            "first_failure",
            pl.col("evidence").struct.field("id"),
            pl.col("evidence").struct.field("lost_at").cast(pl.String),
            pl.col("evidence").struct.field("candidate_rank"),
            pl.col("evidence").struct.field("rerank_rank"),
        )
        .collect()
    )


def split_runs(frame: pl.DataFrame) -> dict[tuple[Any, ...], pl.DataFrame]:
    """``frame`` split by its ``run_id`` column, keyed as ``partition_by`` keys."""
    runs = frame.get_column("run_id").unique()
    if runs.len() == 1:  # the usual report: one run, no need to copy it into a partition
        return {(runs[0],): frame}
    return frame.partition_by("run_id", as_dict=True)
