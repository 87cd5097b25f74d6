"""The record's last columns: per-question metrics, then the record itself in its final types.

Steps of ``pipeline.STEPS``; the columns kept are docs/funnel.md §6's record (and what
``finish`` needs), with short fixed vocabularies as enums and repeated text as categoricals.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from ragfunnel.analyzer.funnel.read.wide_layout import slot
from ragfunnel.analyzer.funnel.records.first_failure import FIRST_FAILURES
from ragfunnel.analyzer.funnel.records.metrics import question_metrics

__all__ = ["record_columns", "with_metrics"]

# Repeated labels as enums: a million records of short, fixed vocabularies.
_FAILURE_ENUM = pl.Enum(list(FIRST_FAILURES))
_MODE_ENUM = pl.Enum(["pipeline", "oracle"])
_VERDICT_ENUM = pl.Enum(["correct", "incorrect", "unknown", "abstained", "missing", "failed"])
_SOURCE_ENUM = pl.Enum(["generate", "cut", "ranking"])


def with_metrics(
    instances: pl.DataFrame, nodes: pl.DataFrame, items: int, k_values: Sequence[int]
) -> pl.DataFrame:
    """``why_undefined``, then each metric at the real cut (``_at_cut``) and at each k."""
    why = (
        pl.when(pl.col("mode") == "oracle")
        .then(pl.lit("oracle run: no retrieval"))
        .when(~pl.col("answerable"))
        .then(pl.lit("unanswerable case: no expected evidence"))
        .when(pl.col("first_failure") == "incomplete_trace")
        .then(pl.lit("incomplete trace, ") + pl.col("failure_reason"))
    )
    instances = instances.with_columns(why_undefined=why)
    instances = question_metrics(instances, items, "prompt_pos", nodes, suffix="at_cut")
    for k in k_values:
        instances = instances.with_columns(
            pl.when(pl.col(slot("ranked", j)) <= k)
            .then(pl.col(slot("ranked", j)))
            .alias(slot("top", j))
            for j in range(items)
        )
        instances = question_metrics(instances, items, "top", nodes, suffix=f"at_{k}")
    return instances


def record_columns(
    instances: pl.DataFrame, k_values: Sequence[int], *, repeats: bool
) -> pl.DataFrame:
    """Keep the record's columns (and what :func:`finish` needs), in their final types."""
    flags = pl.concat_list(
        [
            pl.when(pl.col("low_confidence_tokens").list.len() > 0).then(pl.lit("low_confidence")),
            pl.when(pl.col("sample_disagreement")).then(pl.lit("sample_disagreement")),
            pl.when(pl.col("conflicting_documents").list.len() > 0).then(
                pl.lit("conflicting_sources")
            ),
            pl.when(
                (pl.col("retriever_spans") > pl.col("retriever_names"))
                | (pl.col("rr_n_spans") > 1)
                | (pl.col("cut_n_spans") > 1)
                | ((pl.col("gen_n_spans") > 1) & (pl.col("samples_n_spans") == 0))
            ).then(pl.lit("retried")),
            pl.when(pl.col("stale")).then(pl.lit("index_truth_stale")),
            pl.when(pl.col("errors_text").list.len() > 0).then(pl.lit("errors")),
        ]
    ).list.drop_nulls()
    metric_columns = [
        c for c in instances.columns
        if c.endswith("_at_cut") or any(c.endswith(f"_at_{k}") for k in k_values)
    ]  # fmt: skip
    # Low-cardinality text as categoricals (runs, reasons, notes repeat across a million
    # records). Ids and answer reasons repeat only when each case was asked many times; with
    # as many cases as questions, encoding them costs more time than it saves memory.
    repeated = pl.Categorical
    per_case = repeated if repeats else pl.String
    return instances.select(
        pl.col("question_id").cast(per_case), pl.col("run_id").cast(repeated), "trace_id",
        pl.col("question_key").cast(per_case),
        pl.from_epoch("started_ns", time_unit="ns").alias("started"),
        pl.col("mode").cast(_MODE_ENUM),
        pl.col("first_failure").cast(_FAILURE_ENUM), pl.col("failure_reason").cast(repeated),
        pl.col("failure_item").cast(per_case), pl.col("answer_verdict").cast(_VERDICT_ENUM),
        pl.col("answer_reason").cast(per_case),
        pl.col("oracle_verdict").cast(_VERDICT_ENUM), "abstained",
        pl.col("k").alias("k_prompt"), pl.col("prompt_source").cast(_SOURCE_ENUM),
        pl.col("prompt_n").alias("prompt_size"), pl.col("cand_n").alias("candidates"),
        pl.col("ranking_top").alias("top_score"), "cut_threshold",
        pl.col("index_version").cast(repeated),
        "faithfulness", "confidence", "claims", "answer_correctness", "correctness_reason",
        "evidence", "missing",
        flags.alias("flags"), pl.col("errors_text").alias("errors"), "low_confidence_tokens",
        pl.col("gen_logprobs_min").alias("logprobs_min"), "sample_disagreement",
        "conflicting_documents",
        *(pl.col(c).cast(repeated) if c.startswith("metrics_note") else c for c in metric_columns),
        # For finish(): not part of the record.
        "case_idx", "started_ns", "answerable",
    )  # fmt: skip
