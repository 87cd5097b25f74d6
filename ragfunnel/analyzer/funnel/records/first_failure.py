"""From item survival and the answer check to each question's ``first_failure`` and reason.

Order of the rules (docs/funnel.md §4 has the full table with examples):

1. A span the decision needs is missing → ``incomplete_trace``, naming what is missing.
2. Unanswerable case: abstained → ``ok``; answered → ``cut`` when a confidence gate (a cut
   with a threshold) let it through, else ``generation``.
3. Evidence lost (the tree's survival code is upstream of the prompt): the answer is correct
   anyway → ``ok_without_evidence``; otherwise the stage where it was lost.
4. All required evidence in the prompt: the generate step failed, or abstained despite the
   evidence → ``generation``; a judge is sure of an unsupported claim, or an LLM judge's
   faithfulness is below the action threshold (0.85 by default) → ``generation``, quoting the
   claim (docs/judges.md); wrong or incomplete (missed facts) → ``generation``; faithfulness
   below the threshold only because of claims the judge could not decide (``uncertain``, or
   the offline judge's ``partial``) → ``needs_judge``; correct → ``ok``; judged faithful but
   with nothing to check correctness against → ``ok`` (the reason says so); otherwise — no
   judge, no facts, no verbatim reference, or no answer text — ``unjudged``.

``unjudged`` and ``needs_judge`` are additions to the issue's list: reporting such a question
as ``ok`` or as ``generation`` would be a guess. ``needs_judge`` is what ``ragfunnel judge
--policy tiered`` sends to the LLM judge, whose verdict then decides.
"""

from __future__ import annotations

import polars as pl

from ragfunnel.analyzer.funnel.records.decision_table import PROMPT, STAGES, number_text

__all__ = ["FIRST_FAILURES", "oracle_note", "question_verdicts"]

FIRST_FAILURES = (
    "ok",
    "ok_without_evidence",
    "ingestion",
    "ingestion_or_search",
    "search",
    "rerank",
    "cut",
    "generation",
    "needs_judge",
    "unjudged",
    "stale_case",
    "incomplete_trace",
)


def _missing() -> pl.Expr:
    """The spans a verdict needs that the trace lacks (answerable cases)."""
    parts = [
        # A foreign trace was matched by its question text already: that is all a root gives.
        pl.when(~pl.col("has_root") & ~pl.col("foreign")).then(pl.lit("question span")),
        pl.when(pl.col("answerable") & ~pl.col("has_cand")).then(pl.lit("retrieve span")),
        pl.when(pl.col("answerable") & pl.col("has_cand") & pl.col("prompt_source").is_null()).then(
            pl.lit("the prompt's ids (no cut span, no context ids on a generate span)")
        ),
        pl.when(
            pl.col("answerable")
            & (pl.col("root_code") == PROMPT)
            & ~pl.col("has_gen")
            & ~pl.col("abstained")
        ).then(pl.lit("generate span")),
        # Unanswerable and not abstained: without a generate span, "it answered" is a guess.
        pl.when(~pl.col("answerable") & ~pl.col("abstained") & ~pl.col("has_gen")).then(
            pl.lit("generate span")
        ),
    ]
    return pl.concat_list(parts).list.drop_nulls()


def _judged_reasons(threshold: float) -> tuple[pl.Expr, pl.Expr, pl.Expr, pl.Expr, pl.Expr]:
    """Judged outcomes as expressions.

    Whether the judges fault the generation and why; whether the answer needs a stronger judge
    and why; the reason when they find it faithful.
    """
    judged = pl.col("faithfulness").is_not_null()
    below = pl.col("faithfulness") < threshold
    doubts = pl.col("doubts").fill_null(0)
    unfaithful = judged & ((pl.col("worst_verdict") == 0) | (below & (doubts == 0)))
    why = (
        pl.when(pl.col("worst_verdict") == 0)
        .then(pl.format("unsupported claim: '{}' ({})", pl.col("worst_claim"),
                        pl.col("worst_missing")))
        .otherwise(pl.format("faithfulness {} below {}: claim '{}' only partly supported ({})",
                             number_text(pl.col("faithfulness")), number_text(pl.lit(float(threshold))),
                             pl.col("worst_claim"), pl.col("worst_missing")))
    )  # fmt: skip
    undecided = judged & ~unfaithful & below & (doubts > 0)
    undecided_why = pl.format(
        "needs a judge: faithfulness {} below {} only from claims the offline judge could not "
        "decide ({} of them, first '{}'); `ragfunnel judge --policy tiered` sends it to an LLM "
        "judge, whose verdict then decides",
        number_text(pl.col("faithfulness")), number_text(pl.lit(float(threshold))), doubts,
        pl.col("worst_claim"),
    )  # fmt: skip
    faithful = pl.format(
        "faithful to the prompt (faithfulness {}); correctness not checked (no facts, and the "
        "answer was not judged against a reference)",
        number_text(pl.col("faithfulness")),
    )
    return unfaithful, why, undecided, undecided_why, faithful


def question_verdicts(frame: pl.DataFrame, faithfulness_threshold: float = 0.85) -> pl.DataFrame:
    """Add ``missing``, ``first_failure``, ``failure_reason`` and ``failure_item``.

    ``frame`` has one row per instance with: the case fields (``answerable``), the funnel
    facts (``has_*``, ``prompt_source``, ``cut_threshold``, ``ranking_top``), ``abstained``,
    the tree result (``root_code``, ``failure_item``, ``item_reason``; null root_code for
    unanswerable cases), the answer check (``answer_verdict``, ``answer_reason``), the
    judges' verdict (``faithfulness``, ``worst_claim``, ``worst_missing``, ``worst_verdict``,
    null when not judged), the correctness (``answer_correctness``, ``correctness_reason``,
    ``correctness_by_judge``), ``doubts`` (claims the judge could not decide, null or 0 when
    none) and ``gen_error_msg``. A judged answer with an unsupported claim, or with faithfulness
    below ``faithfulness_threshold``, fails at generation with the claim quoted.
    """
    instances = frame.with_columns(missing=_missing())
    incomplete = pl.col("missing").list.len() > 0
    known = pl.col("answer_correctness").is_not_null()
    correct = (
        pl.when(known)
        .then(pl.col("answer_correctness") == "correct")
        .otherwise(pl.col("answer_verdict") == "correct")
    )
    wrong = (
        pl.when(known)
        .then(pl.col("answer_correctness").is_in(["wrong", "incomplete"]))
        .otherwise(pl.col("answer_verdict") == "incorrect")
    )
    unfaithful, unfaithful_why, undecided, undecided_why, faithful_why = _judged_reasons(
        faithfulness_threshold
    )
    judged = pl.col("faithfulness").is_not_null()
    gate = pl.col("has_cut") & pl.col("cut_threshold").is_not_null()
    lost_stage = (
        pl.col("root_code")
        .cast(pl.Int64)
        .replace_strict(list(range(len(STAGES))), list(STAGES), default=None)
    )
    top = number_text(pl.col("ranking_top")).fill_null("none")
    first = (
        pl.when(incomplete)
        .then(pl.lit("incomplete_trace"))
        .when(~pl.col("answerable") & pl.col("abstained"))
        .then(pl.lit("ok"))
        .when(~pl.col("answerable") & gate)
        .then(pl.lit("cut"))
        .when(~pl.col("answerable"))
        .then(pl.lit("generation"))
        .when((pl.col("root_code") < PROMPT) & correct & ~pl.col("abstained"))
        .then(pl.lit("ok_without_evidence"))
        .when(pl.col("root_code") < PROMPT)
        .then(lost_stage)
        .when(pl.col("gen_error_msg").is_not_null() | pl.col("abstained"))
        .then(pl.lit("generation"))
        .when(unfaithful | wrong)
        .then(pl.lit("generation"))
        .when(undecided)
        .then(pl.lit("needs_judge"))
        .when(correct)
        .then(pl.lit("ok"))
        .when(judged)
        .then(pl.lit("ok"))
        .otherwise(pl.lit("unjudged"))
    )
    reason = (
        pl.when(incomplete)
        .then(pl.lit("missing: ") + pl.col("missing").list.join(", "))
        .when(~pl.col("answerable") & pl.col("abstained"))
        .then(pl.lit("abstained on an unanswerable question"))
        .when(~pl.col("answerable") & gate)
        .then(
            pl.format(
                "the confidence gate let an unanswerable question through (top score {}, "
                "threshold {})",
                top,
                number_text(pl.col("cut_threshold")),
            )
        )
        .when(~pl.col("answerable"))
        .then(pl.lit("answered an unanswerable question (no confidence gate to stop it)"))
        .when((pl.col("root_code") < PROMPT) & correct & ~pl.col("abstained"))
        .then(
            pl.format(
                "answer correct although {} was lost at {}: {}",
                pl.col("failure_item"),
                lost_stage,
                pl.col("item_reason"),
            )
        )
        .when(pl.col("root_code") < PROMPT)
        .then(pl.col("item_reason"))
        .when(pl.col("gen_error_msg").is_not_null())
        .then(pl.lit("generate failed: ") + pl.col("gen_error_msg"))
        .when(pl.col("abstained"))
        .then(pl.lit("abstained although the evidence was in the prompt"))
        .when(unfaithful)
        .then(unfaithful_why)
        .when(pl.col("correctness_by_judge") & wrong)
        .then(
            pl.format("answer {}: {}", pl.col("answer_correctness"), pl.col("correctness_reason"))
        )
        .when(wrong)
        .then(pl.col("answer_reason"))
        .when(undecided)
        .then(undecided_why)
        .when(pl.col("correctness_by_judge") & correct)
        .then(
            pl.format("answer {}: {}", pl.col("answer_correctness"), pl.col("correctness_reason"))
        )
        .when(correct)
        .then(pl.col("answer_reason"))
        .when(judged)
        .then(faithful_why)
        .otherwise(pl.col("answer_reason"))
    )
    return instances.with_columns(
        first_failure=first,
        failure_reason=reason,
        failure_item=pl.when(pl.col("root_code") < PROMPT).then(pl.col("failure_item")),
    )


def oracle_note() -> pl.Expr:
    """What an oracle verdict says about a pipeline record (null without an oracle)."""
    wrong = (pl.col("answer_verdict") == "incorrect") | (pl.col("answerable") & pl.col("abstained"))
    return (
        pl.when(pl.col("mode") == "oracle")
        .then(None)
        .when(pl.col("oracle_verdict") == "correct")
        .then(
            pl.when(wrong)
            .then(pl.lit("oracle right, pipeline wrong: the context was the problem"))
            .otherwise(pl.lit("oracle right"))
        )
        .when(pl.col("oracle_verdict") == "incorrect")
        .then(
            pl.when(wrong)
            .then(pl.lit("oracle wrong too: prompt, model or source text"))
            .otherwise(pl.lit("oracle wrong, pipeline right"))
        )
    )
