"""The verdict row (judges/run/verdict_row.py): one answer and its verdict as the table's row."""

from __future__ import annotations

from ragfunnel.analyzer.judges import AnswerVerdict, ClaimVerdict
from ragfunnel.analyzer.judges.correctness import Correctness
from ragfunnel.analyzer.judges.run.verdict_row import verdict_row
from ragfunnel.analyzer.judges.verdict_types import text_hash

ANSWER = {
    "trace_id": "t1",
    "span_id": "s1",
    "question_key": "q-017",
    "run_id": None,
    "mode": "answer",
    "answer": "Die Hotelpauschale beträgt 120 Euro; ein Taxi ist jederzeit erlaubt.",
}
VERDICT = AnswerVerdict(
    (
        ClaimVerdict("Die Hotelpauschale beträgt 120 Euro", "supported", ("hotel",), judge="x"),
        ClaimVerdict(
            "Ein Taxi ist jederzeit erlaubt", "unsupported", ("taxi",), "jederzeit", "x", 0.1
        ),
    ),
    judge="llm:judge-model",
)


def test_every_column_is_filled_from_the_answer_and_its_verdict() -> None:
    row = verdict_row(
        ANSWER,
        VERDICT,
        policy="tiered",
        context_hash="c0ffee",
        correctness=Correctness("incomplete", "misses: ab 22 Uhr", ("ab 22 Uhr",)),
        signals=iter(["low_confidence: a token at p = 0.05"]),
        sampled=True,
    )
    assert row == {
        "TraceId": "t1",
        "SpanId": "s1",
        "QuestionKey": "q-017",
        "RunId": "",  # no run: the empty run id
        "Mode": "answer",
        "Judge": "llm:judge-model",
        "Policy": "tiered",
        "AnswerHash": text_hash(ANSWER["answer"]),
        "ContextHash": "c0ffee",
        "Abstained": 0,
        "Faithfulness": 0.5,
        "Confidence": (1.0 + 0.1) / 2,
        "ClaimTexts": ["Die Hotelpauschale beträgt 120 Euro", "Ein Taxi ist jederzeit erlaubt"],
        "ClaimVerdicts": [1.0, 0.0],
        "ClaimLabels": ["supported", "unsupported"],
        "ClaimSupportingIds": [["hotel"], ["taxi"]],
        "ClaimMissing": ["", "jederzeit"],
        "ClaimConfidences": [None, 0.1],
        "Correctness": "incomplete",
        "CorrectnessReason": "misses: ab 22 Uhr",
        "Signals": ["low_confidence: a token at p = 0.05"],
        "Sampled": 1,
    }
    assert "JudgedAt" not in row  # set by the insert


def test_an_abstention_has_no_scores_and_no_correctness_is_empty() -> None:
    row = verdict_row(
        {**ANSWER, "run_id": "run-7"}, AnswerVerdict((), judge="offline"), policy="offline",
        context_hash="",
    )  # fmt: skip
    assert (row["RunId"], row["Abstained"], row["Faithfulness"], row["Confidence"]) == (
        "run-7",
        1,
        None,
        None,
    )
    assert row["ClaimTexts"] == [] and row["Signals"] == [] and row["Sampled"] == 0
    assert (row["Correctness"], row["CorrectnessReason"]) == ("", "")
