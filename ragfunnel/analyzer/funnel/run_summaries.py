"""Aggregate per-question records into per-run summaries with confidence intervals.

Only the latest occurrence of each (run, case) among pipeline records counts, so asking a
question twice does not weigh it twice, and oracle runs are summarised apart from pipelines.
Rates (first-failure shares, hit rate) get Wilson intervals; means (recall, MRR, context
precision, AP) get percentile-bootstrap intervals. Undefined (NaN) values are left out of a
mean and counted in ``n_undefined``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from ragfunnel.analyzer.funnel.records.first_failure import FIRST_FAILURES
from ragfunnel.analyzer.stats import (
    EXACT_SIZE_LIMIT,
    bootstrap_mean,
    normal_interval,
    wilson,
)

__all__ = ["METRICS", "failure_table", "metric_table"]

METRICS = ("hit", "recall", "mrr", "context_precision", "average_precision")
"""Per-question metric columns, each suffixed ``_at_cut`` or ``_at_{k}``."""

_FAILURE_SCHEMA = {
    "run_id": pl.String,
    "mode": pl.String,
    "first_failure": pl.String,
    "count": pl.Int64,
    "total": pl.Int64,
    "share": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
}
_METRIC_SCHEMA = {
    "run_id": pl.String,
    "metric": pl.String,
    "at": pl.String,
    "mean": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "n": pl.Int64,
    "n_undefined": pl.Int64,
    "method": pl.String,
}


def _latest(records: pl.DataFrame, columns: Sequence[str]) -> pl.DataFrame:
    # Select before filtering: filtering copies every column it keeps, and the records'
    # evidence lists are most of their memory. When every record is the latest (each case
    # asked once) there is nothing to filter and nothing is copied.
    kept = records.select("latest", *columns)
    return kept if kept.get_column("latest").all() else kept.filter(pl.col("latest"))


def failure_table(records: pl.DataFrame) -> pl.DataFrame:
    """Per run and mode: how many questions failed first at each stage, with Wilson CIs."""
    counts = (
        _latest(records, ["run_id", "mode", "first_failure"])
        .group_by("run_id", "mode", "first_failure")
        .agg(pl.len().cast(pl.Int64).alias("count"))
        .with_columns(total=pl.col("count").sum().over("run_id", "mode"))
    )
    rows = []
    for run_id, mode, failure, count, total in counts.iter_rows():
        ci = wilson(count, total)
        rows.append((run_id, mode, failure, count, total, ci.estimate, ci.low, ci.high))
    order = {name: i for i, name in enumerate(FIRST_FAILURES)}
    table = pl.DataFrame(rows, schema=_FAILURE_SCHEMA, orient="row")
    return table.sort(
        "run_id",
        "mode",
        pl.col("first_failure").replace_strict(order, default=len(order)),
        descending=[False, True, False],
    )


def metric_table(records: pl.DataFrame, k_values: Sequence[int]) -> pl.DataFrame:
    """Per run: each metric at the real cut and at each chosen k, with its interval.

    Counts, means and spreads come from polars aggregations; only the intervals that need
    resampling (small samples, see ``stats.bootstrap_mean``) look at the values again.
    """
    suffixes = ["at_cut", *(f"at_{k}" for k in k_values)]
    columns = [f"{metric}_{suffix}" for suffix in suffixes for metric in METRICS]
    latest = _latest(records, ["run_id", "mode", *columns]).filter(pl.col("mode") == "pipeline")
    stats = _moments(latest, [[f"{metric}_{suffix}" for metric in METRICS] for suffix in suffixes])
    rows = []
    by_run: dict[Any, pl.DataFrame] | None = None
    for row in stats.iter_rows(named=True):
        run_id = str(row["run_id"])
        for c in columns:
            metric, _, suffix = c.partition("_at_")
            label = suffix
            n, undefined = int(row[f"{c}|n"]), int(row[f"{c}|undefined"])
            if metric == "hit":
                ci = wilson(round((row[f"{c}|mean"] or 0.0) * n), n)
            elif n >= EXACT_SIZE_LIMIT:
                ci = normal_interval(row[f"{c}|mean"], row[f"{c}|std"], n)
            else:
                if by_run is None:  # small samples are rare: split the runs once, lazily
                    slim = latest.select("run_id", *columns)
                    by_run = {key[0]: part for key, part in slim.partition_by(
                        "run_id", as_dict=True).items()}  # fmt: skip
                values = by_run[row["run_id"]].get_column(c)
                ci = bootstrap_mean(values.drop_nulls().drop_nans().to_numpy())
            rows.append((run_id, metric, label, ci.estimate, ci.low, ci.high, ci.n, undefined,
                         ci.method))  # fmt: skip
    return pl.DataFrame(rows, schema=_METRIC_SCHEMA, orient="row")


def _moments(latest: pl.DataFrame, groups: Sequence[Sequence[str]]) -> pl.DataFrame:
    """Per run, each column's count, mean, standard deviation and NaN count (as nulls).

    One aggregation per group of columns: the records are joined from batches, and an
    aggregation copies every column it reads into one piece first. For a million records in
    eight batches, :func:`metric_table` took 176 MiB more with all twenty metric columns at
    once, 74–77 MiB a cut-off at a time (bench/RESULTS.md, "Twenty-fourth session").
    """
    stats: pl.DataFrame | None = None
    for group in groups:
        defined = {c: pl.col(c).fill_nan(None) for c in group}
        part = (
            latest.select("run_id", *group)
            .group_by("run_id", maintain_order=True)
            .agg(
                *(expr.count().alias(f"{c}|n") for c, expr in defined.items()),
                *(expr.mean().alias(f"{c}|mean") for c, expr in defined.items()),
                *(expr.std(ddof=1).alias(f"{c}|std") for c, expr in defined.items()),
                *(expr.null_count().alias(f"{c}|undefined") for c, expr in defined.items()),
            )
        )
        # The same groups in the same order (first appearance) for every group of columns.
        stats = part if stats is None else pl.concat([stats, part.drop("run_id")], how="horizontal")
    assert stats is not None  # at least the real cut's group
    return stats
