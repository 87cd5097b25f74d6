"""Evidence trees as tables, and their bottom-up evaluation over many questions at once.

A case's evidence (``all_of`` / ``any_of`` groups, nestable) becomes rows of a node table; the
per-item values of every question instance are then folded level by level with polars
``group_by``, so a million questions cost a few vectorised passes, not a Python loop.

Two folds are used: *survival* (how far down the funnel the evidence got: ``all_of`` takes the
minimum — the question fails where its first required item was lost — and ``any_of`` the
maximum — it fails only where its last alternative was lost) and *recall* (``all_of`` the mean
of its children, ``any_of`` the maximum).
"""

from __future__ import annotations

from typing import Literal

import polars as pl

from ragfunnel.analyzer.cases import AllOf, Case, Evidence, Leaf, Quote, Span

__all__ = ["evaluate", "node_table"]

NODE_SCHEMA = {
    "case_idx": pl.UInt32,
    "node": pl.Int32,
    "parent": pl.Int32,
    "kind": pl.String,
    "j": pl.Int32,
    "order": pl.Int32,
    "depth": pl.Int32,
}


def node_table(cases: list[tuple[int, Case]]) -> pl.DataFrame:
    """One row per evidence node of the given (case index, case) pairs.

    Leaves carry ``j``, the index of their id in the case's distinct item list; groups carry
    ``kind`` ``all`` or ``any``; the root has parent -1.
    """
    rows: dict[str, list[object]] = {name: [] for name in NODE_SCHEMA}
    for idx, case in cases:
        if case.evidence is None:
            continue
        items = {item: j for j, item in enumerate(case.evidence_ids)}
        # Depth-first, parents before children: (node, parent id, order among siblings, depth).
        stack: list[tuple[Evidence, int, int, int]] = [(case.evidence, -1, 0, 0)]
        number = 0
        while stack:
            node, parent, order, depth = stack.pop()
            if isinstance(node, (Leaf, Quote, Span)):  # a document leaf by its label
                kind, j = "leaf", items[node.id]
            else:
                kind, j = ("all" if isinstance(node, AllOf) else "any"), -1
                stack.extend(
                    (child, number, i, depth + 1)
                    for i, child in reversed(list(enumerate(node.children)))
                )
            values = (idx, number, parent, kind, j, order, depth)
            for name, value in zip(NODE_SCHEMA, values, strict=True):
                rows[name].append(value)
            number += 1
    return pl.DataFrame(rows, schema=NODE_SCHEMA)


def evaluate(
    leaves: pl.DataFrame,
    nodes: pl.DataFrame,
    *,
    how: Literal["survival", "recall"],
    value: str = "value",
) -> pl.DataFrame:
    """Fold per-item values up each instance's evidence tree.

    Args:
        leaves: one row per (``inst``, ``case_idx``, ``j``) with a numeric ``value`` column.
        nodes: the output of :func:`node_table`.
        how: ``survival`` (all_of = min, any_of = max; ties go to the earlier child) or
            ``recall`` (all_of = mean, any_of = max).
        value: the column of ``leaves`` holding the values.

    Returns:
        One row per instance: ``inst``, ``value`` and, for survival, ``j`` — the item that
        decided the root's value (the first required item lost, or the last alternative).
    """
    leaf_nodes = nodes.filter(pl.col("kind") == "leaf").select(
        "case_idx", "j", "node", "parent", "order", "depth"
    )
    current = leaves.select(
        "inst", "case_idx", "j", pl.col(value).cast(pl.Float64).alias("v")
    ).join(leaf_nodes, on=["case_idx", "j"], how="inner")
    groups = nodes.filter(pl.col("kind") != "leaf").select(
        "case_idx", pl.col("node").alias("parent"), pl.col("kind").alias("pkind")
    )
    parents = nodes.select("case_idx", "node", "parent", "order", "depth")
    max_depth = int(nodes.select(pl.col("depth").max()).item() or 0)
    for depth in range(max_depth, 0, -1):
        level = current.filter(pl.col("depth") == depth).join(
            groups, on=["case_idx", "parent"], how="left"
        )
        if how == "survival":
            sign = pl.when(pl.col("pkind") == "all").then(1.0).otherwise(-1.0)
            up = (pl.col("v") * sign).alias("key")
            folded = (
                level.with_columns(up)
                .sort(["inst", "parent", "key", "order"])
                .group_by(["inst", "case_idx", "parent"], maintain_order=True)
                .agg(pl.col("v").first(), pl.col("j").first())
            )
        else:
            is_all = pl.col("pkind").first() == "all"
            folded = level.group_by(["inst", "case_idx", "parent"]).agg(
                pl.when(is_all).then(pl.col("v").mean()).otherwise(pl.col("v").max()).alias("v"),
                pl.col("j").first(),
            )
        folded = folded.rename({"parent": "node"}).join(parents, on=["case_idx", "node"])
        current = pl.concat(
            [current.filter(pl.col("depth") != depth), folded.select(current.columns)],
            how="vertical",
        )
    root = current.filter(pl.col("parent") == -1).select("inst", pl.col("v").alias("value"), "j")
    return root if how == "survival" else root.drop("j")
