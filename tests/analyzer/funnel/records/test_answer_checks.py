"""The facts check of an answer whose evidence reached the prompt (``records/answer_checks.py``):
facts, a verbatim reference, or nothing to check against."""

from __future__ import annotations

from typing import Any

import pytest

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
