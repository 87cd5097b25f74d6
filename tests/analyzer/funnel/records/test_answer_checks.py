"""The facts check of an answer whose evidence reached the prompt (``records/answer_checks.py``):
facts, a verbatim reference, or nothing to check against."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

from ragfunnel.analyzer.funnel.records.answer_checks import (
    NO_ANSWER_TEXT,
    judge_answers,
    normalize_texts,
    prepare_cases,
)
from ragfunnel.analyzer.store import Store
from tests.support.decisions import A_ID, B_ID, RIGHT, WRONG, Q, case, one, ranked, run
from tests.support.traces import TraceBuilder


@pytest.mark.parametrize(
    ("answer", "expected", "reason"),
    [
        (RIGHT, "ok", "answer states every fact"),
        (WRONG, "generation", "answer misses fact(s): 4.2.1"),
        ("Firmware 4.2.0 and 4.2.10 need it.", "generation", "answer misses fact(s): 4.2.1"),
    ],
)
def test_evidence_in_prompt_answer_decides(
    store: Store, b: TraceBuilder, answer: str, expected: str, reason: str
) -> None:
    cands = ranked(10, **{A_ID: 1, B_ID: 2})
    with b.question("q-017", Q) as q:
        q.retrieve(cands)
        q.cut(cands[:5], k=5)
        q.generate(cands[:5], answer)
    r = one(run(store, b))
    assert (r["first_failure"], r["failure_reason"]) == (expected, reason)
    assert r["failure_item"] is None


@pytest.mark.parametrize(
    ("kw", "answer", "reason"),
    [
        ({"facts": ()}, RIGHT, "the case has no facts or reference to check the answer against"),
        ({"facts": (), "reference": "4.2.0 and 4.2.1"}, "It is 4.2.0 plus 4.2.1.",
         "no facts, and the answer does not contain the reference verbatim"),
        ({}, None, "answer text not recorded (content capture off?)"),
    ],
)  # fmt: skip
def test_answer_that_cannot_be_checked_is_unjudged(
    store: Store, b: TraceBuilder, kw: dict[str, Any], answer: str | None, reason: str
) -> None:
    with b.question("q-017", Q) as q:
        q.retrieve([A_ID, B_ID])
        q.generate([A_ID, B_ID], answer)
    r = one(run(store, b, case(**kw)))
    assert (r["first_failure"], r["failure_reason"]) == ("unjudged", reason)


def test_reference_containment_is_correct(store: Store, b: TraceBuilder) -> None:
    with b.question("q-017", Q) as q:
        q.retrieve([A_ID, B_ID])
        q.generate([A_ID, B_ID], "Yes: FIRMWARE 4.2.0 and 4.2.1 need a manual reset!")
    r = one(run(store, b, case(facts=(), reference=RIGHT)))
    assert (r["first_failure"], r["failure_reason"]) == ("ok", "answer contains the reference")


# --- judge_answers on hand-built tables -------------------------------------------------------

CASES = pl.DataFrame(
    {
        "case_idx": [0, 1, 2, 3],
        "facts": [["4.2.0", "4.2.1"], [], [], ["22:00"]],
        "reference": [None, "Firmware 4.2.0 needs a reset.", None, None],
    },
    schema={"case_idx": pl.UInt32, "facts": pl.List(pl.String), "reference": pl.String},
)


def checked(*answers: tuple[int, str | None], norm: list[str] | None = None) -> list[tuple]:
    frame = pl.DataFrame(
        {"row": list(range(len(answers))), "case_idx": [a[0] for a in answers],
         "has_answer": [a[1] is not None for a in answers], "answer": [a[1] for a in answers]},
        schema={"row": pl.Int64, "case_idx": pl.UInt32, "has_answer": pl.Boolean,
                "answer": pl.String},
    )  # fmt: skip
    if norm is not None:
        frame = frame.with_columns(norm=pl.Series(norm))
    out = judge_answers(frame, prepare_cases(CASES))
    assert out.columns == ["row", "verdict", "verdict_reason", "facts_correctness"]
    return out.sort("row").select("verdict", "verdict_reason", "facts_correctness").rows()


def test_facts_are_whole_tokens_and_correctness_counts_the_stated_ones() -> None:
    assert checked(
        (0, "Firmware 4.2.0 and 4.2.1 need a reset."),
        (0, "Only 4.2.0."),
        (0, "Firmware 4.2.01 and 4.2.10."),
        (0, None),
    ) == [
        ("correct", "answer states every fact", "correct"),
        ("incorrect", "answer misses fact(s): 4.2.1", "incomplete"),
        ("incorrect", "answer misses fact(s): 4.2.0, 4.2.1", "wrong"),
        ("unknown", NO_ANSWER_TEXT, None),
    ]


def test_a_fact_the_literal_rule_misses_is_read_by_meaning() -> None:
    assert checked((3, "The canteen closes at 10 pm."), (3, "It closes at 9 pm.")) == [
        ("correct", "answer states every fact", "correct"),
        ("incorrect", "answer misses fact(s): 22:00", "wrong"),
    ]


def test_a_reference_is_contained_after_normalisation_or_the_answer_is_unknown() -> None:
    assert checked(
        (1, "Yes: FIRMWARE 4.2.0 needs a reset!"),
        (1, "A reset is needed for 4.2.0."),
        (2, "Anything."),
    ) == [
        ("correct", "answer contains the reference", None),
        ("unknown", "no facts, and the answer does not contain the reference verbatim", None),
        ("unknown", "the case has no facts or reference to check the answer against", None),
    ]


def test_an_answer_normalised_by_the_caller_is_not_normalised_again() -> None:
    # The given ``norm`` decides, not the raw text: the caller normalised it elsewhere.
    given = normalize_texts(pl.Series(["firmware 4.2.0 and 4.2.1"])).to_list()
    assert checked((0, "nothing useful"), norm=given)[0][0] == "correct"


def test_prepare_cases_normalises_each_fact_slot_once() -> None:
    prepared = prepare_cases(CASES)
    assert prepared.get_column("fact_1").to_list() == ["4.2.1", None, None, None]
    assert (
        prepared.get_column("fact_norm_0").to_list()[0]
        == normalize_texts(pl.Series(["4.2.0"])).item()
    )
    assert prepared.get_column("reference_norm").null_count() == 3
