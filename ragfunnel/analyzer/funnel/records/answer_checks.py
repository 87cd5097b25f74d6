"""Deterministic answer checks from a case's ``facts`` or ``reference`` (until judges exist).

The rule, for each answer:

- no answer text recorded (content capture off, or the span lacks it) → ``unknown``;
- the case has ``facts`` → ``correct`` when every fact appears in the answer, else
  ``incorrect`` (the missing facts are listed);
- no facts but a ``reference`` → ``correct`` when the whole reference appears in the answer,
  else ``unknown`` (a paraphrase is not wrong, it just cannot be checked by containment);
- neither → ``unknown``.

"Appears" is the one rule for facts, shared with the judges
(``ragfunnel.analyzer.cases.fact_text``): containment after one normalisation (NFKC, lower case
with ß/umlaut folding, currencies as codes, non-alphanumeric runs as one space, padded), so a
fact must match whole tokens: ``4.2.0`` matches "firmware 4.2.0." but not "4.2.01"; a fact that
rule misses is read by meaning (``cases/fact_meaning.py``: ``10 pm`` states ``22:00``,
``1. März 2025`` states ``1 March 2025``, ``five`` states ``5``), only for the rows it missed.
"""

from __future__ import annotations

import polars as pl

from ragfunnel.analyzer.cases.fact_text import fact_stated, normalize_texts, restate
from ragfunnel.analyzer.funnel.read.wide_layout import slot

__all__ = ["CAPTURE_FIX", "NO_ANSWER_TEXT", "judge_answers", "normalize_texts", "prepare_cases"]

CORRECT = "correct"
INCORRECT = "incorrect"
UNKNOWN = "unknown"
NO_ANSWER_TEXT = "answer text not recorded (content capture off?)"
"""The reason of an answer whose text was not recorded (the diagnosis counts them)."""
CAPTURE_FIX = "turn content capture on: `ragfunnel.configure(capture_content=True)`"
"""The one-line fix for answers recorded without text."""


def prepare_cases(cases: pl.DataFrame) -> pl.DataFrame:
    """Add per-fact-slot columns ``fact_{j}``, ``fact_norm_{j}`` and ``reference_norm``.

    Every fact and reference is normalised once, however many answers are judged.
    """
    width = int(cases.select(pl.col("facts").list.len().max()).item() or 0)
    cases = cases.with_columns(
        pl.col("facts").list.get(j, null_on_oob=True).alias(slot("fact", j)) for j in range(width)
    )
    return cases.with_columns(
        *(normalize_texts(cases.get_column(slot("fact", j))).alias(slot("fact_norm", j))
          for j in range(width)),
        reference_norm=normalize_texts(cases.get_column("reference")),
    )  # fmt: skip


def judge_answers(answers: pl.DataFrame, cases: pl.DataFrame) -> pl.DataFrame:
    """Judge each answer row against its case.

    Args:
        answers: columns ``row`` (a unique row id), ``case_idx``, ``has_answer`` (bool),
            ``answer`` (str), and optionally ``norm``: the answer already normalised by
            :func:`normalize_texts` (the slow step, which a caller may run elsewhere).
        cases: the case table after :func:`prepare_cases`.

    Returns:
        ``row``, ``verdict`` (correct / incorrect / unknown), ``verdict_reason`` (which
        names the missing facts) and ``facts_correctness`` (correct / incomplete / wrong,
        null without facts or answer text).
    """
    width = sum(1 for c in cases.columns if c.startswith("fact_norm_"))
    slots = [slot("fact_norm", j) for j in range(width)]
    given = ["norm"] if "norm" in answers.columns else []
    base = answers.select("row", "case_idx", "has_answer", "answer", *given).join(
        cases.select(
            "case_idx", *slots, *(slot("fact", j) for j in range(width)), "reference_norm"
        ),
        on="case_idx",
        how="left",
    )
    if not given:
        base = base.with_columns(normalize_texts(base.get_column("answer")).alias("norm"))
    literal = [
        (pl.col(s).is_null() | fact_stated(pl.col("norm"), pl.col(s), normalised=True)).alias(
            slot("found", j)
        )
        for j, s in enumerate(slots)
    ]
    base = base.with_columns(literal)
    # The facts the literal rule missed, read without accents ("Zurich" states "Zürich") and by
    # meaning ("10 pm" states "22:00").
    answered = base.select(pl.when(pl.col("has_answer")).then(pl.col("answer"))).to_series()
    base = base.with_columns(
        restate(base.get_column(slot("found", j)), answered, base.get_column(slot("fact", j)))
        for j in range(width)
    )
    found = [pl.col(slot("found", j)) for j in range(width)]
    base = base.with_columns(
        has_facts=pl.col(slots[0]).is_not_null() if slots else pl.lit(False),
        all_found=pl.all_horizontal(found) if found else pl.lit(True),
        ref_found=pl.col("reference_norm").is_not_null()
        & pl.col("norm").str.contains(pl.col("reference_norm"), literal=True),
    )
    verdict = (
        pl.when(~pl.col("has_answer"))
        .then(pl.lit(UNKNOWN))
        .when(pl.col("has_facts"))
        .then(pl.when(pl.col("all_found")).then(pl.lit(CORRECT)).otherwise(pl.lit(INCORRECT)))
        .when(pl.col("ref_found"))
        .then(pl.lit(CORRECT))
        .otherwise(pl.lit(UNKNOWN))
    )
    missing = (
        pl.concat_str(
            [pl.when(~f).then(pl.col(slot("fact", j))) for j, f in enumerate(found)],
            separator=", ",
            ignore_nulls=True,
        )
        if found
        else pl.lit("")
    )
    reason = (
        pl.when(~pl.col("has_answer"))
        .then(pl.lit(NO_ANSWER_TEXT))
        .when(pl.col("has_facts") & ~pl.col("all_found"))
        .then(pl.lit("answer misses fact(s): ") + missing)
        .when(pl.col("has_facts"))
        .then(pl.lit("answer states every fact"))
        .when(pl.col("ref_found"))
        .then(pl.lit("answer contains the reference"))
        .when(pl.col("reference_norm").is_not_null())
        .then(pl.lit("no facts, and the answer does not contain the reference verbatim"))
        .otherwise(pl.lit("the case has no facts or reference to check the answer against"))
    )
    # Correctness against the facts: all stated, some (incomplete), or none (wrong).
    stated = [pl.col(slot).is_not_null() & f for slot, f in zip(slots, found, strict=True)]
    some = pl.any_horizontal(stated) if stated else pl.lit(False)
    correctness = (
        pl.when(~pl.col("has_answer") | ~pl.col("has_facts"))
        .then(None)
        .when(pl.col("all_found"))
        .then(pl.lit("correct"))
        .when(some)
        .then(pl.lit("incomplete"))
        .otherwise(pl.lit("wrong"))
    )
    return base.select(
        "row",
        verdict.alias("verdict"),
        reason.alias("verdict_reason"),
        correctness.alias("facts_correctness"),
    )
