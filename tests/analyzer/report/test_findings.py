"""Grouping reasons into findings, the diagnosis in its other shapes, McNemar's exact test."""

from __future__ import annotations

import math

import pytest

from ragfunnel.analyzer.report.contents import Finding
from ragfunnel.analyzer.report.findings import diagnosis_text, group_reasons, work_order
from ragfunnel.analyzer.stats import mcnemar_exact


def test_reasons_differing_in_numbers_become_ranges() -> None:
    reasons = {"rank 20 > prompt cut at 10": 3, "rank 50 > prompt cut at 10": 4}
    assert group_reasons(reasons) == ["found at ranks 20–50 while only the top 10 reach the prompt"]
    mixed = {
        "rank 41 > prompt cut at 10": 2,
        "not retrieved (top_k = 50)": 5,
        "retrieve failed: TimeoutError: 30 s": 1,
    }
    assert group_reasons(mixed) == [
        "5 not retrieved in the top 50",
        "2 found at rank 41 while only the top 10 reach the prompt",
        "1 retrieve failed",
    ]
    facts = {"answer misses fact(s): 4.2.1": 2, "answer misses fact(s): the manager": 1}
    assert group_reasons(facts) == ["answers miss facts the case lists"]
    judged = {
        "unsupported claim: 'The 4.2.3 fix ships in May.' (4.2.3)": 2,
        "unsupported claim: 'Sources: [1] policy.pdf' (1; policy)": 1,
        "faithfulness 0.5 below 0.85: claim 'It is 30 days.' only partly supported (30)": 1,
        "faithfulness 0.75 below 0.85: claim 'Two weeks' only partly supported (two)": 1,
    }
    assert group_reasons(judged) == [
        "3 answers with an unsupported claim, quoted in the drill-down",
        "2 faithfulness 0.500–0.750, below 0.850: claims only partly supported",
    ]
    one = {"answer wrong: says 30 days, the case 14": 1, "generate failed: TimeoutError": 1}
    assert group_reasons(one) == ["1 answer judged wrong", "1 generate step failed"]
    assert group_reasons({"answer misses fact(s): 4.2.1": 1}) == [
        "answer misses facts the case lists"
    ]
    # The funnel's "1 candidate" is grouped with "5 candidates", and agrees when alone.
    candidates = {"not retrieved (1 candidate)": 1, "not retrieved (5 candidates)": 2}
    assert group_reasons(candidates) == ["not among the 1–5 candidates"]
    assert group_reasons({"not retrieved (1 candidate)": 2}) == ["not among the 1 candidate"]
    assert group_reasons({"rank 3 beyond rerank depth 1": 1}) == [
        "found at rank 3, beyond the 1 candidate the reranker is given"
    ]
    gate = {
        "the confidence gate abstained (top score 0.31, threshold 0.5)": 2,
        "the confidence gate abstained (top score 0.12, threshold 0.5)": 1,
    }
    assert group_reasons(gate) == [
        "abstained at the confidence gate, top score 0.120–0.310 against threshold 0.500"
    ]
    # One precision for both ends of a range (was "0.2115–0.722", "threshold 0–0.36").
    through = {
        "the confidence gate let an unanswerable question through (top score 0.2115, threshold 0)": 1,
        "the confidence gate let an unanswerable question through (top score 0.722, threshold 0.36)": 1,
    }
    assert group_reasons(through) == [
        "unanswerable, let through by the confidence gate, top score 0.212–0.722 against "
        "threshold 0.00–0.360"
    ]
    # The reranker left the item where it was: "kept", never "moved from rank 4 to 4 > 3".
    assert group_reasons({"kept at rank 4 > 3 by the reranker": 2}) == [
        "kept by the reranker at rank 4, below the cut at 3"
    ]
    assert group_reasons({"something new 3 and 5": 1, "something new 4 and 5": 1}) == [
        "something new 3–4 and 5"
    ]


def test_generation_first_when_it_outweighs_upstream() -> None:
    findings = [Finding("search", 2, ()), Finding("generation", 9, ("answers miss facts",))]
    assert [f.stage for f in work_order(findings)] == ["generation", "search"]
    text = diagnosis_text(questions=40, findings=findings)
    assert text == (
        "Of 40 questions, 11 were answered wrongly or incompletely. 2 of the 11 failures arise "
        "before generation — 2 at search — and 9 at generation (answers miss facts). "
        "Generation holds 9 of the 11: start with the prompt and model. "
        "Order of work: generation (9) → search (2)."
    )


def test_diagnosis_other_shapes() -> None:
    assert diagnosis_text(questions=0, findings=[]) == "No questions of this run were analyzed."
    clean = diagnosis_text(
        questions=5, findings=[], unjudged=2, incomplete=1, ok_without_evidence=1
    )
    assert clean == (
        "Of 5 questions, 0 were answered wrongly or incompletely. 1 answered correctly although "
        "evidence was lost: check their gold labels (or the model knew). 2 could not be judged "
        "(no answer text or no facts to check). 1 trace is incomplete and blames no stage."
    )
    only_up = diagnosis_text(questions=3, findings=[Finding("ingestion_or_search", 3, ())])
    assert "All 3 failures arise before generation: 3 at ingestion or search." in only_up
    assert "Without index truth, losses at ingestion and at search count together." in only_up
    assert "Changing the answer prompt can fix none of them: work upstream first." in only_up
    one = diagnosis_text(questions=3, findings=[Finding("cut", 1, ())])
    assert one.startswith(
        "Of 3 questions, 1 was answered wrongly or incompletely. The one failure arises before "
        "generation: 1 at cut"
    )


@pytest.mark.parametrize(
    ("fixed", "broken", "expected"),
    [(0, 0, 1.0), (0, 5, 2 / 32), (1, 9, 2 * 11 / 1024), (5, 5, 1.0), (3, 1, 0.625)],
)
def test_mcnemar_exact_matches_the_binomial_tail(fixed: int, broken: int, expected: float) -> None:
    assert math.isclose(mcnemar_exact(fixed, broken), expected, rel_tol=1e-12)


def test_mcnemar_exact_at_scale_and_bad_input() -> None:
    n = 400_000
    p = mcnemar_exact(n // 2 - 1000, n // 2 + 1000)
    # Normal approximation: z = 2000 / sqrt(400000) ≈ 3.16, two-sided p ≈ 0.0016.
    assert 0.001 < p < 0.002
    with pytest.raises(ValueError, match="non-negative"):
        mcnemar_exact(-1, 2)


def test_the_order_of_work_tells_the_gate_from_the_cut() -> None:
    """Issue 31, Deliver 6: "cut (5)" counted unanswerable questions the gate let through
    together with evidence the cut dropped: two different fixes."""
    from ragfunnel.analyzer.report.findings import cut_part

    assert cut_part("rank 7 > prompt cut at 5") == "dropped by the cut"
    assert cut_part("score 0.2 below threshold 0.3") == "dropped by the cut"
    assert (
        cut_part(
            "the confidence gate let an unanswerable question through (top score 0.9, threshold 0.5)"
        )
        == "let through by the gate"
    )
    assert cut_part("answered an unanswerable question (no confidence gate to stop it)") == (
        "let through by the gate"
    )
    assert cut_part("the confidence gate abstained (top score 0.2, threshold 0.5)") == (
        "stopped by the gate"
    )
    cut = Finding("cut", 5, (), (("dropped by the cut", 2), ("let through by the gate", 3)))
    findings = [Finding("search", 4, ()), cut]
    assert [(f.stage, f.count) for f in work_order(findings)] == [
        ("search", 4), ("let through by the gate", 3), ("dropped by the cut", 2)
    ]  # fmt: skip
    text = diagnosis_text(questions=20, findings=findings)
    assert (
        "Order of work: search (4) → let through by the gate (3) → dropped by the cut (2)." in text
    )
    assert "5 at cut" in text  # the stage's count stays one in the diagnosis
