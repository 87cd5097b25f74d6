"""Join the batches' records: oracle runs lend their verdicts, repeated questions are numbered.

The last step of an analysis, after every batch went through ``pipeline.STEPS``.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from ragfunnel.analyzer.funnel.records.first_failure import oracle_note

__all__ = ["finish"]


def finish(parts: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """Join the batches into the records.

    Oracle runs lend their verdict to pipeline records of the same case, and repeated
    questions are numbered (``occurrence``, ``latest``). The columns computed over all batches
    are sliced back onto each batch: a column added to the joined frame would make polars copy
    every other column to match its chunks (half a gigabyte for a million records).
    """
    whole = pl.concat(parts, how="vertical", rechunk=False)
    lent = (
        whole.filter(pl.col("mode") == "oracle")
        .sort("started_ns")
        .group_by("case_idx")
        .agg(pl.col("oracle_verdict").last().alias("_lent"))
    )
    # One integer per (run, case, mode): ordering by it is much cheaper than by strings.
    group = (
        pl.col("run_id").cast(pl.Categorical).to_physical().cast(pl.Int64) * (1 << 34)
        + pl.col("case_idx").cast(pl.Int64) * 2
        + (pl.col("mode") == "oracle").cast(pl.Int64)
    )
    occurrence, size = _occurrence(whole.select(_group=group, started_ns="started_ns"))
    del whole
    ordered = [
        "question_id", "run_id", "trace_id", "question_key", "started", "occurrence", "latest",
        "mode", "first_failure", "failure_reason", "failure_item", "answer_verdict",
        "answer_reason", "oracle_verdict", "oracle_note",
    ]  # fmt: skip
    done, offset = [], 0
    for part in parts:
        batch = part.with_columns(
            occurrence.slice(offset, part.height), size.slice(offset, part.height)
        )
        offset += part.height
        if lent.height:
            batch = batch.join(lent, on="case_idx", how="left").with_columns(
                oracle_verdict=pl.coalesce("oracle_verdict", "_lent")
            )
        batch = batch.with_columns(
            oracle_note=oracle_note(), latest=pl.col("occurrence") == pl.col("_size")
        )
        rest = [c for c in batch.columns if c not in ordered and not c.startswith("_")
                and c not in ("case_idx", "started_ns")]  # fmt: skip
        done.append(batch.select(*ordered, *rest))
    return pl.concat(done, how="vertical", rechunk=False)


def _occurrence(keys: pl.DataFrame) -> list[pl.Series]:
    """Each row's place among its group's rows by start (1-based), and its group's size.

    ``keys`` has ``_group`` and ``started_ns``. Sorted by both, a group's rows are one run, so
    positions come from where each run starts and ends: no per-group state, where a window
    over a million groups (every case asked once) held a few hundred megabytes.
    """
    index = pl.int_range(pl.len(), dtype=pl.Int64)
    ordered = (
        keys.with_row_index("_row")
        .sort("_group", "started_ns", maintain_order=True)
        .with_columns(
            _first=pl.when(pl.col("_group").ne_missing(pl.col("_group").shift(1)))
            .then(index)
            .forward_fill(),
            _last=pl.when(pl.col("_group").ne_missing(pl.col("_group").shift(-1)))
            .then(index)
            .backward_fill(),
        )
        .select(
            "_row",
            occurrence=index - pl.col("_first") + 1,
            _size=(pl.col("_last") - pl.col("_first") + 1).cast(pl.UInt32),
        )
        .sort("_row")
    )
    return [ordered.get_column("occurrence"), ordered.get_column("_size")]
