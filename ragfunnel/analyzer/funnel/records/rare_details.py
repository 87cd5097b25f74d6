"""The rare details (the side queries', ``read/sql/side_queries.py``) merged into a batch's rows.

Error messages, self-consistency samples, oracle answers, low-confidence tokens, conflicting
sources and per-retriever ranks are rare: the funnel query leaves them out and ``Session``
fetches them only when some question has them. Every function here adds columns to the
instance frame (keyed by ``inst_key``) and is a pure polars transformation.
"""

from __future__ import annotations

import polars as pl

from ragfunnel.analyzer.funnel.read.session import SideData
from ragfunnel.analyzer.funnel.read.wide_layout import STAGE_PREFIXES, stage_column, unpack_position
from ragfunnel.analyzer.funnel.records.answer_checks import judge_answers, normalize_texts

__all__ = [
    "conflicts",
    "error_messages",
    "oracle_and_low_confidence",
    "retriever_names",
    "retriever_ranks",
    "samples",
]

_STRINGS = pl.List(pl.String)
RANKS = pl.List(pl.Struct({"retriever": pl.String, "rank": pl.Int64}))


def error_messages(instances: pl.DataFrame, errors: pl.DataFrame | None) -> pl.DataFrame:
    """``{stage}_error_msg`` for a chosen span that failed, and ``errors_text``."""
    if errors is None:
        return instances.with_columns(
            *(
                pl.lit(None, pl.String).alias(stage_column(p, "error_msg"))
                for p in STAGE_PREFIXES.values()
            ),
            errors_text=pl.lit([], dtype=_STRINGS),
        )
    errors = errors.with_columns(pl.col("message").replace("", "(no message)")).sort("ts")
    # The chosen span's message: the last by the funnel query's order (sample 0 first).
    last = errors.group_by("inst_key", "stage").agg(pl.col("message").sort_by("rank").last())
    for stage, prefix in STAGE_PREFIXES.items():
        message = stage_column(prefix, "error_msg")
        messages = last.filter(pl.col("stage") == stage).select(
            "inst_key", pl.col("message").alias(message)
        )
        instances = instances.join(messages, on="inst_key", how="left").with_columns(
            pl.when(pl.col(stage_column(prefix, "error")) > 0).then(pl.col(message))
        )
    listed = errors.group_by("inst_key").agg(
        (pl.col("stage") + ": " + pl.col("message")).alias("errors_text")
    )
    return instances.join(listed, on="inst_key", how="left").with_columns(
        pl.col("errors_text").fill_null(pl.lit([], dtype=_STRINGS))
    )


def samples(
    instances: pl.DataFrame, samples: pl.DataFrame | None, cases: pl.DataFrame
) -> pl.DataFrame:
    """The lowest-numbered sample is the answer; disagreeing samples raise a flag."""
    if samples is None:
        return instances.with_columns(sample_disagreement=pl.lit(None, dtype=pl.Boolean))
    rows = (
        samples.join(instances.select("inst_key", "case_idx"), on="inst_key")
        .sort("inst_key", "sample_index", "ts")
        .group_by("inst_key", "sample_index", maintain_order=True)
        .last()
        .with_row_index("row")
        .with_columns(pl.col("has_answer") > 0)
    )
    checked = rows.join(judge_answers(rows, cases), on="row")
    checked = checked.with_columns(normalize_texts(checked.get_column("answer")).alias("norm"))
    decided = pl.col("verdict").filter(pl.col("verdict") != "unknown")
    per = checked.group_by("inst_key").agg(
        samples_n=pl.len(),
        primary_answer=pl.col("answer").first(),
        primary_norm=pl.col("norm").first(),
        primary_has=pl.col("has_answer").first(),
        primary_error=pl.col("error").first(),
        primary_logprobs=pl.col("logprobs_min").first(),
        primary_tokens=pl.col("tokens").first(),
        # Disagreement on correctness when the case decides it; otherwise on the
        # normalised text.
        disagree=pl.when(decided.len() > 1)
        .then(decided.n_unique() > 1)
        .otherwise(pl.col("norm").filter(pl.col("has_answer")).n_unique() > 1),
    )
    has = pl.col("samples_n").is_not_null()
    # The funnel query already picks sample 0's span (``GENERATE_KEY``, which ranks indexes
    # from 7 up alike); its answer and the normalised text the worker made of it
    # (``pipeline.with_normalized_answers``, read by the facts check) are set here from sample
    # 0's own rows, together, so that the check never reads another sample's text.
    normalized = (
        [
            pl.when(has)
            .then(pl.col("primary_norm"))
            .otherwise(pl.col("gen_answer_norm"))
            .alias("gen_answer_norm")
        ]
        if "gen_answer_norm" in instances.columns
        else []
    )
    return (
        instances.join(per, on="inst_key", how="left")
        .with_columns(
            *normalized,
            gen_answer=pl.when(has).then(pl.col("primary_answer")).otherwise(pl.col("gen_answer")),
            gen_has_answer=pl.when(has)
            .then(pl.col("primary_has").cast(pl.UInt8))
            .otherwise(pl.col("gen_has_answer")),
            gen_error=pl.when(has).then(pl.col("primary_error")).otherwise(pl.col("gen_error")),
            gen_logprobs_min=pl.when(has)
            .then(pl.col("primary_logprobs"))
            .otherwise(pl.col("gen_logprobs_min")),
            low_confidence_tokens=pl.when(has)
            .then(pl.col("primary_tokens"))
            .otherwise(pl.col("low_confidence_tokens")),
            sample_disagreement=pl.when(pl.col("samples_n") > 1).then(pl.col("disagree")),
        )
        .drop(
            "samples_n",
            "primary_answer",
            "primary_norm",
            "primary_has",
            "primary_error",
            "primary_logprobs",
            "primary_tokens",
            "disagree",
        )
    )


def oracle_and_low_confidence(instances: pl.DataFrame, side: SideData) -> pl.DataFrame:
    """Add the oracle answer columns and ``low_confidence_tokens`` (empty when none)."""
    if side.oracle is not None:
        instances = instances.join(side.oracle, on="inst_key", how="left")
    else:
        instances = instances.with_columns(
            oracle_has_answer=pl.lit(None, pl.UInt8),
            oracle_answer=pl.lit(None, pl.String),
            oracle_error=pl.lit(None, pl.UInt8),
        )
    if side.low_confidence is not None:
        instances = instances.join(side.low_confidence, on="inst_key", how="left")
    else:
        instances = instances.with_columns(low_confidence_tokens=pl.lit(None, _STRINGS))
    return instances.with_columns(
        pl.col("low_confidence_tokens").fill_null(pl.lit([], dtype=_STRINGS))
    )


def conflicts(instances: pl.DataFrame, chunks: pl.DataFrame) -> pl.DataFrame:
    """Documents two of whose ingestions both reached the prompt."""
    if chunks.is_empty() or "gen_conflicts" not in instances.columns:
        return instances.with_columns(conflicting_documents=pl.lit([], dtype=_STRINGS))
    prompt = pl.when(pl.col("prompt_source") == "generate").then(pl.col("gen_conflicts"))
    found = (
        instances.select("inst", prompt.otherwise(pl.col("cut_conflicts")).alias("hash"))
        .explode("hash")
        .drop_nulls("hash")
        .join(chunks, on="hash")
        .group_by("inst", "document")
        .agg(pl.col("ingestion").n_unique().alias("versions"))
        .filter(pl.col("versions") > 1)
        .group_by("inst")
        .agg(pl.col("document").sort().alias("conflicting_documents"))
    )
    return instances.join(found, on="inst", how="left").with_columns(
        pl.col("conflicting_documents").fill_null(pl.lit([], dtype=_STRINGS))
    )


def retriever_ranks(
    item_rows: pl.DataFrame, instances: pl.DataFrame, side: SideData, items: int
) -> pl.DataFrame:
    """Add ``retriever_ranks`` to the item rows.

    Each individual retriever's rank of the item (null when it did not return it); empty
    without fusion.
    """
    if side.retrievers is None or not items:
        return item_rows.with_columns(retriever_ranks=pl.lit([], dtype=RANKS))
    spans = side.retrievers.join(instances.select("inst_key", "inst"), on="inst_key")
    ranks = (
        pl.concat(
            spans.select(
                "inst",
                pl.lit(j, pl.Int32).alias("j"),
                "retriever",
                unpack_position("r_pk", j).alias("rank"),
            )
            for j in range(items)
        )
        .group_by("inst", "j")
        .agg(pl.struct("retriever", "rank").sort_by("retriever").alias("rr"))
    )
    return (
        item_rows.join(ranks, on=["inst", "j"], how="left")
        .with_columns(retriever_ranks=pl.col("rr").fill_null(pl.lit([], dtype=RANKS)))
        .drop("rr")
    )


def retriever_names(instances: pl.DataFrame, side: SideData) -> pl.DataFrame:
    """Add ``retriever_spans`` and ``retriever_names``.

    The individual retrieve spans, and how many names they carry: more spans than names
    means a retriever was retried.
    """
    instances = instances.with_columns(
        retriever_spans=pl.col("cand_n_spans") - pl.col("fusion_n_spans")
    )
    if side.retrievers is None:
        # Without fusion the names are only known to be one or several; with several, say
        # nothing about retries.
        return instances.with_columns(
            retriever_names=pl.when(pl.col("several_retrievers") > 0)
            .then(pl.col("retriever_spans"))
            .otherwise(1)
        )
    counts = side.retrievers.group_by("inst_key").agg(pl.len().alias("retriever_names"))
    return instances.join(counts, on="inst_key", how="left").with_columns(
        pl.col("retriever_names").fill_null(1)
    )
