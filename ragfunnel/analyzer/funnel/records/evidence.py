"""Each expected item's way through the funnel: indexed, scored, decided, listed.

Steps of ``pipeline.STEPS``. The instance frame holds one column per item slot
(``{name}_{j}``, ``read/columns.py``); the *item rows* hold one row per instance and item
(``inst``, ``j``), built by ``decision_table.long_items``.
"""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from ragfunnel.analyzer.funnel.read.index_truth import IndexTruth
from ragfunnel.analyzer.funnel.read.wide_layout import slot, stage_column
from ragfunnel.analyzer.funnel.records.decision_table import STAGES, needs_scores, slot_positions
from ragfunnel.analyzer.funnel.records.evidence_tree import evaluate

__all__ = ["ScoreFetcher", "evidence_lists", "root_codes", "with_index_truth", "with_item_scores"]

_STAGE_ENUM = pl.Enum(list(STAGES[:-1]))

ScoreFetcher = Callable[[pl.DataFrame], pl.DataFrame]
"""Given instances (``inst_key``, and ``has_rr``: whether a reranker ranked them last), returns
``inst_key`` and ``cand_score_{j}`` / ``rr_score_{j}``."""


def with_index_truth(instances: pl.DataFrame, truth: IndexTruth, items: int) -> pl.DataFrame:
    """Each item's positions, ``in_index_{j}``, and ``stale`` (a candidate the truth lacks).

    An item the retriever returned was indexed, whatever the index truth says; the truth is
    then stale, which the record flags.
    """
    instances = truth.in_index_slots(slot_positions(instances, items), items)
    stale = [
        pl.col(slot("cand", j)).is_not_null() & (pl.col(slot("in_index", j)) == False)  # noqa: E712
        for j in range(items)
    ]
    return instances.with_columns(
        stale=pl.any_horizontal(stale) if stale else pl.lit(False)
    ).with_columns(
        pl.when(pl.col(slot("cand", j)).is_not_null()).then(True).otherwise(pl.col(slot("in_index", j)))
        .alias(slot("in_index", j))
        for j in range(items)
    )  # fmt: skip


def with_item_scores(instances: pl.DataFrame, items: int, fetch: ScoreFetcher) -> pl.DataFrame:
    """Join the item scores of the instances whose reasons need them (see ``needs_scores``)."""
    names = [slot(stage_column(p, "score"), j) for j in range(items) for p in ("cand", "rr")]
    needed = instances.filter(needs_scores(items)).select("inst_key", "has_rr") if items else None
    if needed is None or needed.is_empty():
        return instances.with_columns(pl.lit(None, dtype=pl.Float64).alias(n) for n in names)
    return instances.join(fetch(needed), on="inst_key", how="left")


def root_codes(
    instances: pl.DataFrame, item_rows: pl.DataFrame, nodes: pl.DataFrame, items: int
) -> pl.DataFrame:
    """The survival code of each answerable instance's evidence tree and the deciding slot.

    Adds ``root_code``, ``decider``, ``failure_item`` and ``item_reason``.
    """
    codes = [pl.col(slot("code", j)) for j in range(items)]
    if not codes:  # only unanswerable cases: there is no evidence tree
        return instances.with_columns(
            root_code=pl.lit(None, pl.Int64),
            failure_item=pl.lit(None, pl.String),
            item_reason=pl.lit(None, pl.String),
        )
    flat = (
        pl.when(pl.col("root_kind") == "any")
        .then(pl.max_horizontal(codes))
        .otherwise(pl.min_horizontal(codes))
    )
    instances = instances.with_columns(
        root_code=pl.when(pl.col("answerable")).then(flat.cast(pl.Int64))
    )
    decider: pl.Expr = pl.lit(None, dtype=pl.Int32)
    for j in range(items - 1, -1, -1):
        decider = (
            pl.when(codes[j] == pl.col("root_code")).then(pl.lit(j, pl.Int32)).otherwise(decider)
        )
    instances = instances.with_columns(decider=decider)
    nested = instances.filter(pl.col("answerable") & (pl.col("root_kind") == "nested")).select(
        "inst", "case_idx"
    )
    if nested.height:
        leaves = item_rows.join(nested, on="inst").select(
            "inst", "case_idx", "j", pl.col("code").alias("value")
        )
        folded = evaluate(leaves, nodes, how="survival").select(
            "inst", pl.col("value").cast(pl.Int64).alias("n_code"), pl.col("j").alias("n_j")
        )
        instances = (
            instances.join(folded, on="inst", how="left")
            .with_columns(
                root_code=pl.coalesce("n_code", "root_code"), decider=pl.coalesce("n_j", "decider")
            )
            .drop("n_code", "n_j")
        )
    deciding = item_rows.select(
        "inst",
        pl.col("j").alias("decider"),
        pl.col("item").alias("failure_item"),
        pl.col("reason").alias("item_reason"),
    )
    return instances.join(deciding, on=["inst", "decider"], how="left")


def evidence_lists(item_rows: pl.DataFrame) -> pl.DataFrame:
    """The record's ``evidence`` column (a list of one struct per item), by ``inst``."""
    return item_rows.group_by("inst", maintain_order=True).agg(
        pl.struct(
            pl.col("item").alias("id"),
            "in_index",
            pl.col("cand").alias("candidate_rank"),
            pl.col("rr_out").alias("rerank_rank"),
            "in_prompt",
            pl.col("prompt_pos").alias("prompt_position"),
            pl.col("lost_at").cast(_STAGE_ENUM),
            "reason",
            "retriever_ranks",
        ).alias("evidence")
    )
