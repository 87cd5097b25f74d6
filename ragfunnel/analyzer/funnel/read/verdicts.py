"""The judges' verdicts as the funnel reads them: one deciding verdict per question instance.

``ragfunnel judge`` writes the verdicts table (docs/judges.md); this module reads it
(``store/tables/verdicts.py`` holds the statement; a store nobody migrated is read in its old
layout) — only when it exists, never creating it — and keeps, for each trace and question, the verdict
of the pipeline answer by the strongest judge (an LLM or fact-checker over the offline judge),
the latest one. It shapes the record columns ``faithfulness``, ``confidence`` and ``claims`` and the inputs of
the generation rule: the first unsupported claim (else the first partial or uncertain one) with
its missing term, how many claims the judge could not decide (``doubts``: ``uncertain`` claims,
and ``partial`` ones from the offline judge, whose partial means "not sure"; an LLM's
``partial`` is a verdict), and the judged correctness.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from ragfunnel.analyzer.store.schema import read_schema
from ragfunnel.analyzer.store.tables.verdicts import (
    CLAIM_COLUMNS,
    DECIDING_FIELDS,
    OFFLINE_JUDGE,
    PARTIAL,
    UNCERTAIN,
    deciding_verdict_rows,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragfunnel.analyzer.store import Store

__all__ = [
    "CLAIM",
    "DECIDING_VERDICT_COLUMNS",
    "DEFAULT_FAITHFULNESS_THRESHOLD",
    "no_verdicts",
    "read_verdicts",
]

DEFAULT_FAITHFULNESS_THRESHOLD = 0.85
"""Below this faithfulness an answer's generation is the thing to fix (a setting of analyze)."""

CLAIM = pl.Struct(
    {
        "text": pl.String,
        "verdict": pl.Float64,
        "label": pl.String,
        "supporting_ids": pl.List(pl.String),
        "missing": pl.String,
        "judge": pl.String,
    }
)
DECIDING_VERDICT_COLUMNS: dict[str, pl.DataType] = {
    "trace_id": pl.String(),
    "question_key": pl.String(),
    "faithfulness": pl.Float64(),
    "confidence": pl.Float64(),
    "claims": pl.List(CLAIM),
    "judged_correctness": pl.String(),
    "judged_correctness_reason": pl.String(),
    "worst_claim": pl.String(),
    "worst_missing": pl.String(),
    "worst_verdict": pl.Float64(),
    "doubts": pl.UInt32(),
    "refused": pl.Boolean(),
}


def no_verdicts() -> pl.DataFrame:
    """An empty verdict frame (nothing judged)."""
    return pl.DataFrame(schema=DECIDING_VERDICT_COLUMNS)


def read_verdicts(store: Store, runs: Sequence[str] = ()) -> pl.DataFrame:
    """The deciding verdict of each judged pipeline answer (see the module docstring)."""
    table = read_schema(store).verdicts_table
    if table is None:
        return no_verdicts()
    raw = deciding_verdict_rows(store, runs, table=table)
    if raw.is_empty():
        return no_verdicts()
    fields = [name for _, name in CLAIM_COLUMNS]
    names = [name for _, name in DECIDING_FIELDS]
    v = raw.get_column("v").struct.rename_fields(names).struct.unnest()
    rows = pl.concat(
        [
            raw.select(
                pl.col("TraceId").alias("trace_id"), pl.col("QuestionKey").alias("question_key")
            ),
            v,
        ],
        how="horizontal",
    ).with_row_index("_row")
    long = (
        rows.select("_row", "judge", *fields).explode(*fields).filter(pl.col("text").is_not_null())
    )
    claims = long.group_by("_row", maintain_order=True).agg(
        pl.struct(*CLAIM.to_schema()).alias("claims"),
        # The claim to quote: the first unsupported one, else the first partial or uncertain one.
        pl.col("text").get(pl.col("verdict").arg_min()).alias("worst_claim"),
        pl.col("missing").get(pl.col("verdict").arg_min()).alias("worst_missing"),
        pl.col("verdict").min().alias("worst_verdict"),
        ((pl.col("label") == UNCERTAIN)
         | ((pl.col("label") == PARTIAL) & (pl.col("judge") == OFFLINE_JUDGE))).sum().alias("doubts"),
    )  # fmt: skip
    out = rows.join(claims, on="_row", how="left").select(
        "trace_id",
        "question_key",
        pl.when(pl.col("abstained") > 0).then(None).otherwise(pl.col("faithfulness"))
        .alias("faithfulness"),
        pl.when(pl.col("abstained") > 0).then(None).otherwise(pl.col("confidence"))
        .alias("confidence"),
        pl.col("claims").fill_null(pl.lit([], dtype=pl.List(CLAIM))),
        pl.when(pl.col("correctness") != "").then(pl.col("correctness")).alias("judged_correctness"),
        pl.when(pl.col("correctness") != "").then(pl.col("reason")).alias("judged_correctness_reason"),
        "worst_claim",
        "worst_missing",
        "worst_verdict",
        pl.col("doubts").fill_null(0),
        (pl.col("abstained") > 0).alias("refused"),  # the answer declines (language/refusals)
    )  # fmt: skip
    return out.cast(pl.Schema(DECIDING_VERDICT_COLUMNS))
