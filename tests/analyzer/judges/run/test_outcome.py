"""What a judging run did (judges/run/outcome.py): its means, its failure and the textless answers."""

from __future__ import annotations

from typing import Any

import pytest

from ragfunnel.analyzer.judges.answers import ANSWER_TEXT_FIX, CHUNK_TEXT_FIX
from ragfunnel.analyzer.judges.run.outcome import MAX_FAILED_SHARE, JudgeRun, count_textless


def row(trace: str, judge: str, faithfulness: float | None, confidence: float | None) -> Any:
    return {
        "TraceId": trace,
        "QuestionKey": "q",
        "Judge": judge,
        "Faithfulness": faithfulness,
        "Confidence": confidence,
    }


PAGES = [
    [row("t1", "offline", 0.0, 0.2), row("t1", "llm:m", 1.0, None)],  # the LLM decides t1
    [row("t2", "offline", 0.5, 0.4), row("t3", "offline", None, None)],  # t3 abstained
]


@pytest.mark.parametrize("keep", [True, False])
def test_the_means_are_of_the_deciding_rows_kept_or_not(keep: bool) -> None:
    run = JudgeRun(policy="tiered")
    for page in PAGES:
        run.add_rows(page, keep=keep)
    assert run.row_count == 4
    assert len(run.rows) == (4 if keep else 0)
    assert run.faithfulness == pytest.approx((1.0 + 0.5) / 2)
    assert run.confidence == pytest.approx(0.4)  # the LLM's row for t1 has none
    assert JudgeRun(policy="offline").faithfulness is None


def test_a_run_fails_when_it_judged_nothing_or_too_many_calls_failed() -> None:
    assert JudgeRun(policy="offline").failure is None  # no answers: nothing to fail
    none_judged = JudgeRun(policy="offline", answers=1200, without_content=1200)
    assert none_judged.failure == "judged none of the 1,200 answers (1,200 without text)"
    assert JudgeRun(policy="offline", answers=3).failure == "judged none of the 3 answers"
    assert JudgeRun(policy="offline", answers=1).failure == "did not judge the 1 answer"
    usage = {"calls": 18, "failed": 1, "refused": 2}  # 3 of 20: above the share
    failing = JudgeRun(policy="llm", answers=10, judged=9, usage=usage)
    assert failing.failure == f"3 of 20 judge calls failed, more than {MAX_FAILED_SHARE:.0%}"
    healthy = JudgeRun(policy="llm", answers=10, judged=10, usage={**usage, "refused": 0})
    assert healthy.failure is None  # 1 of 18


def answer(trace: str, **fields: Any) -> dict[str, Any]:
    base = {"trace_id": trace, "question_key": "q-1", "has_answer": True, "has_context": True}
    return {**base, "filled_texts": [], "missing_texts": [], **fields}


def test_textless_answers_are_listed_with_the_fix_and_counts_add_up_by_page() -> None:
    run = JudgeRun(policy="offline")
    seen: set[str] = set()
    count_textless(
        run,
        [
            answer("t1", has_answer=False),
            answer("t2", has_context=False, missing_texts=[f"c{n}" for n in range(7)]),
            answer("t3", filled_texts=["c1", "c2"]),
        ],
        seen,
    )
    count_textless(run, [answer("t4", has_context=False, filled_texts=["c2", "c3"])], seen)
    assert (run.without_answer_text, run.without_chunk_text, run.without_content) == (1, 2, 3)
    assert (run.filled_chunks, run.filled_answers) == (3, 2)  # c1, c2, c3 in two answers
    assert run.not_judged == [
        f"t1 (q-1): no answer text: {ANSWER_TEXT_FIX}",
        f"t2 (q-1): no text for chunk(s) c0, c1, c2, c3, c4 and 2 more: {CHUNK_TEXT_FIX}",
        f"t4 (q-1): no chunk ids or texts recorded for its prompt: {CHUNK_TEXT_FIX}",
    ]


SOURCES = 'see docs/judges.md, "Where the answers and chunk texts come from"'


def test_a_run_that_judged_nothing_says_which_text_is_missing_and_the_fix() -> None:
    # Answers recorded, their prompts' chunks not (capture by kind, no --chunks): the text
    # missing is the chunks', and --chunks gives it.
    chunks = JudgeRun(policy="offline", answers=34, without_content=34, without_chunk_text=34)
    assert chunks.failure == (
        "judged none of the 34 answers: 34 without chunk text (pass --chunks FILE, or record "
        f"it); {SOURCES}"
    )
    # Capture of answers off: the answers' own text is missing, which --chunks cannot give.
    answers = JudgeRun(policy="offline", answers=2, without_content=2, without_answer_text=2)
    assert answers.failure == (
        "judged none of the 2 answers: 2 without answer text (record it: "
        f'`configure(capture_content=("question", "answer"))`); {SOURCES}'
    )
    assert "--chunks" not in (answers.failure or "")
    both = JudgeRun(policy="offline", answers=5, without_content=5, without_answer_text=1,
                    without_chunk_text=4)  # fmt: skip
    assert (both.failure or "").startswith(
        "judged none of the 5 answers: 1 without answer text (record it: "
    )
    assert "), 4 without chunk text (pass --chunks FILE, or record it); " in (both.failure or "")
