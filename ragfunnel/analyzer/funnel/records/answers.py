"""The answer's verdicts: the facts check, the judges' verdicts, the mode and oracle runs.

Steps of ``pipeline.STEPS`` over the instance frame (one row per question instance, keyed by
``inst``): each adds the columns its docstring names and is a pure polars transformation.
"""

from __future__ import annotations

import polars as pl

from ragfunnel.analyzer.funnel.read.verdicts import CLAIM
from ragfunnel.analyzer.funnel.records.answer_checks import judge_answers

__all__ = ["answer_verdicts", "instance_mode", "oracle_run_verdicts", "with_verdicts"]

_STRINGS = pl.List(pl.String)


def answer_verdicts(instances: pl.DataFrame, cases: pl.DataFrame) -> pl.DataFrame:
    """The facts check of the pipeline and oracle answers.

    Adds ``answer_verdict``, ``answer_reason``, ``oracle_verdict``, ``oracle_reason`` and the
    check's ``facts_correctness`` / ``verdict_reason`` (settled by :func:`with_verdicts`).
    """

    def checked(has: str, answer: str, rows: pl.DataFrame) -> pl.DataFrame:
        norm = [pl.col(f"{answer}_norm").alias("norm")] if f"{answer}_norm" in rows.columns else []
        return judge_answers(
            rows.select(
                pl.col("inst").alias("row"),
                "case_idx",
                (pl.col(has) > 0).alias("has_answer"),
                pl.col(answer).alias("answer"),
                *norm,
            ),
            cases,
        ).rename({"row": "inst"})

    primary = checked("gen_has_answer", "gen_answer", instances.filter(pl.col("has_gen")))
    oracle = checked(
        "oracle_has_answer", "oracle_answer", instances.filter(pl.col("oracle_n_spans") > 0)
    )
    instances = instances.join(primary, on="inst", how="left").join(
        oracle.select(
            "inst",
            pl.col("verdict").alias("oracle_verdict"),
            pl.col("verdict_reason").alias("oracle_reason"),
        ),
        on="inst",
        how="left",
    )
    return instances.with_columns(
        answer_verdict=pl.when(pl.col("abstained"))
        .then(pl.lit("abstained"))
        .when(~pl.col("has_gen"))
        .then(pl.lit("missing"))
        .when(pl.col("gen_error") > 0)
        .then(pl.lit("failed"))
        .otherwise(pl.col("verdict")),
        answer_reason=pl.when(pl.col("abstained"))
        .then(pl.lit("the system abstained"))
        .when(~pl.col("has_gen"))
        .then(pl.lit("no pipeline generate span"))
        .when(pl.col("gen_error") > 0)
        .then(pl.lit("generate failed: ") + pl.col("gen_error_msg").fill_null("(no message)"))
        .otherwise(pl.col("verdict_reason")),
        oracle_verdict=pl.when(pl.col("oracle_error") > 0)
        .then(pl.lit("failed"))
        .otherwise(pl.col("oracle_verdict")),
    ).drop("verdict")


def with_verdicts(instances: pl.DataFrame, verdicts: pl.DataFrame) -> pl.DataFrame:
    """Join the judges' deciding verdicts, and settle each answer's correctness.

    Correctness comes from the judged verdict when a judge gave one (facts or reference),
    else from the facts check; none for an abstention, a failed or a missing generate step.
    Adds ``faithfulness``, ``claims``, ``answer_correctness``, ``correctness_reason``,
    ``correctness_by_judge`` and the generation rule's inputs (``worst_claim`` …, ``doubts``).
    """
    keys = ["trace_id", "question_key"]
    if verdicts.is_empty():  # no judge ran: the join's columns, all null, without hashing keys
        instances = instances.with_columns(
            pl.lit(None, dtype=dtype).alias(name)
            for name, dtype in verdicts.schema.items()
            if name not in keys
        )
    else:
        instances = instances.join(verdicts, on=keys, how="left")
    # An answer to an answerable case that a judge read as a refusal ("Dazu habe ich leider
    # keine Informationen.") is an abstention, as if the app had called ragfunnel.abstain(). An
    # unanswerable case keeps its rule: a gate that let it through failed, whatever the model
    # then said (docs/funnel.md, rule 2).
    refused = (
        pl.col("refused").fill_null(False)
        & pl.col("answerable")
        & pl.col("has_gen")
        & (pl.col("gen_error") == 0)
    )
    instances = instances.with_columns(
        abstained=pl.col("abstained") | refused,
        answer_verdict=pl.when(refused).then(pl.lit("abstained")).otherwise("answer_verdict"),
        answer_reason=pl.when(refused)
        .then(pl.lit("the answer declines to answer"))
        .otherwise("answer_reason"),
    ).drop("refused")
    no_answer = pl.col("abstained") | ~pl.col("has_gen") | (pl.col("gen_error") > 0)
    facts_reason = pl.when(pl.col("facts_correctness").is_not_null()).then(pl.col("verdict_reason"))
    return instances.with_columns(
        answer_correctness=pl.when(no_answer)
        .then(None)
        .otherwise(pl.coalesce("judged_correctness", "facts_correctness")),
        correctness_reason=pl.when(no_answer)
        .then(None)
        .otherwise(pl.coalesce("judged_correctness_reason", facts_reason)),
        claims=pl.col("claims").fill_null(pl.lit([], dtype=pl.List(CLAIM))),
        correctness_by_judge=~no_answer & pl.col("judged_correctness").is_not_null(),
    ).drop("verdict_reason", "facts_correctness", "judged_correctness", "judged_correctness_reason")


def instance_mode(instances: pl.DataFrame) -> pl.DataFrame:
    """``mode``: an instance with only oracle generate spans is an oracle run."""
    is_run = (pl.col("oracle_n_spans") > 0) & ~pl.col("has_cand") & ~pl.col("has_gen")
    return instances.with_columns(
        mode=pl.when(is_run).then(pl.lit("oracle")).otherwise(pl.lit("pipeline"))
    )


def oracle_run_verdicts(instances: pl.DataFrame) -> pl.DataFrame:
    """An oracle run is judged by its oracle answer alone (there is no funnel to walk)."""
    oracle_run = pl.col("mode") == "oracle"
    verdict = (
        pl.when(pl.col("oracle_verdict") == "correct")
        .then(pl.lit("ok"))
        .when(pl.col("oracle_verdict").is_in(["incorrect", "failed"]))
        .then(pl.lit("generation"))
        .otherwise(pl.lit("unjudged"))
    )
    return instances.with_columns(
        first_failure=pl.when(oracle_run).then(verdict).otherwise(pl.col("first_failure")),
        failure_reason=pl.when(oracle_run)
        .then(
            pl.lit("oracle run (gold evidence in the prompt): ")
            + pl.col("oracle_reason").fill_null("the oracle generate failed")
        )
        .otherwise(pl.col("failure_reason")),
        missing=pl.when(oracle_run).then(pl.lit([], dtype=_STRINGS)).otherwise(pl.col("missing")),
    )
