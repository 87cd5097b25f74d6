"""The verdict rules after the decision table (``records/first_failure.py``): generation,
``ok_without_evidence``, unanswerable cases, missing spans, the oracle's note."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

from ragfunnel.analyzer.cases import Case
from ragfunnel.analyzer.funnel.records.decision_table import PROMPT
from ragfunnel.analyzer.funnel.records.first_failure import (
    FIRST_FAILURES,
    oracle_note,
    question_verdicts,
)
from ragfunnel.analyzer.store import Store
from tests.support.decisions import A_ID, B_ID, RIGHT, WRONG, Q, one, ranked, run
from tests.support.traces import TraceBuilder


def test_abstaining_despite_evidence_is_generation(store: Store, b: TraceBuilder) -> None:
    with b.question("q-017", Q) as q:
        q.retrieve([A_ID, B_ID])
        q.generate([A_ID, B_ID], "I cannot tell.")
        q.abstain()
    r = one(run(store, b))
    assert r["first_failure"] == "generation"
    assert r["failure_reason"] == "abstained although the evidence was in the prompt"
    assert r["answer_verdict"] == "abstained"


def test_generate_failure_is_generation(store: Store, b: TraceBuilder) -> None:
    with b.question("q-017", Q) as q:
        q.retrieve([A_ID, B_ID])
        q.generate([A_ID, B_ID], error="RateLimitError: slow down")
    r = one(run(store, b))
    assert r["first_failure"] == "generation"
    assert r["failure_reason"] == "generate failed: RateLimitError: slow down"
    assert "errors" in r["flags"] and r["errors"] == ["generate: RateLimitError: slow down"]


def test_ok_without_evidence(store: Store, b: TraceBuilder) -> None:
    cands = ranked(30, **{A_ID: 1, B_ID: 22})
    with b.question("q-017", Q) as q:
        q.retrieve(cands)
        q.generate(cands[:5], RIGHT)
    r = one(run(store, b))
    assert r["first_failure"] == "ok_without_evidence"
    assert r["failure_reason"] == (
        f"answer correct although {B_ID} was lost at search: rank 22 > prompt cut at 5"
    )
    assert r["failure_item"] == B_ID


def unanswerable() -> Case:
    return Case("q-031", "What is the refund for a cancelled flight?", answerable=False)


def test_unanswerable_abstained_is_ok(store: Store, b: TraceBuilder) -> None:
    with b.question("q-031", "What is the refund for a cancelled flight?") as q:
        q.retrieve(["f1", "f2"], scores=[0.2, 0.1])
        q.cut([], input_ids=["f1", "f2"], threshold=0.5, abstained=True)
    r = one(run(store, b, unanswerable()))
    assert (r["first_failure"], r["failure_reason"]) == (
        "ok",
        "abstained on an unanswerable question",
    )
    assert r["hit_at_cut"] != r["hit_at_cut"]  # NaN: no expected evidence


def test_unanswerable_let_through_the_gate_is_cut(store: Store, b: TraceBuilder) -> None:
    with b.question("q-031", "What is the refund for a cancelled flight?") as q:
        q.retrieve(["f1", "f2"], scores=[0.8, 0.1])
        q.cut(["f1"], input_ids=["f1", "f2"], threshold=0.5)
        q.generate(["f1"], "The refund is 50 %.")
    r = one(run(store, b, unanswerable()))
    assert r["first_failure"] == "cut"
    assert r["failure_reason"] == (
        "the confidence gate let an unanswerable question through (top score 0.8, threshold 0.5)"
    )


def test_unanswerable_answered_without_gate_is_generation(store: Store, b: TraceBuilder) -> None:
    with b.question("q-031", "What is the refund for a cancelled flight?") as q:
        q.retrieve(["f1", "f2"])
        q.generate(["f1", "f2"], "The refund is 50 %.")
    r = one(run(store, b, unanswerable()))
    assert r["first_failure"] == "generation"
    assert (
        r["failure_reason"] == "answered an unanswerable question (no confidence gate to stop it)"
    )


def test_missing_question_span(store: Store, b: TraceBuilder) -> None:
    with b.question("q-017", Q, root=False) as q:
        q.retrieve([A_ID, B_ID])
        q.generate([A_ID, B_ID], RIGHT)
    r = one(run(store, b))
    assert (r["first_failure"], r["failure_reason"]) == (
        "incomplete_trace",
        "missing: question span",
    )


def test_missing_retrieve_and_generate_spans(store: Store, b: TraceBuilder) -> None:
    with b.question("q-017", Q) as q:
        q.cut([A_ID, B_ID], k=5)
    r = one(run(store, b))
    assert r["first_failure"] == "incomplete_trace"
    assert r["failure_reason"] == "missing: retrieve span, generate span"
    assert r["missing"] == ["retrieve span", "generate span"]
    assert r["recall_at_cut"] != r["recall_at_cut"]  # NaN with a reason
    assert r["metrics_note_at_cut"] == "incomplete trace, missing: retrieve span, generate span"


def test_missing_prompt_ids(store: Store, b: TraceBuilder) -> None:
    with b.question("q-017", Q) as q:
        q.retrieve([A_ID, B_ID])
        q.generate(None, RIGHT)
    r = one(run(store, b))
    assert r["failure_reason"] == (
        "missing: the prompt's ids (no cut span, no context ids on a generate span)"
    )


def test_oracle_in_the_same_trace(store: Store, b: TraceBuilder) -> None:
    cands = ranked(20, **{A_ID: 1, B_ID: 2})
    with b.question("q-017", Q) as q:
        q.retrieve(cands)
        q.generate(cands[:5], WRONG)
        q.generate([A_ID, B_ID], RIGHT, mode="oracle")
    r = one(run(store, b))
    assert r["first_failure"] == "generation"
    assert r["oracle_verdict"] == "correct"
    assert r["oracle_note"] == "oracle right, pipeline wrong: the context was the problem"


# --- the rules on hand-built instance rows (no trace) -----------------------------------------

BASE: dict[str, Any] = {
    "answerable": True, "has_root": True, "foreign": False, "has_cand": True, "has_cut": False,
    "has_gen": True, "abstained": False, "prompt_source": "generate", "cut_threshold": None,
    "ranking_top": 0.9, "root_code": PROMPT, "failure_item": None, "item_reason": None,
    "answer_verdict": "unknown", "answer_reason": "the case has no facts or reference",
    "faithfulness": None, "worst_claim": None, "worst_missing": None, "worst_verdict": None,
    "answer_correctness": None, "correctness_reason": None, "correctness_by_judge": False,
    "doubts": None, "gen_error_msg": None,
}  # fmt: skip
SCHEMA = {
    "answerable": pl.Boolean, "has_root": pl.Boolean, "foreign": pl.Boolean,
    "has_cand": pl.Boolean, "has_cut": pl.Boolean, "has_gen": pl.Boolean,
    "abstained": pl.Boolean, "prompt_source": pl.String, "cut_threshold": pl.Float64,
    "ranking_top": pl.Float64, "root_code": pl.Int64, "failure_item": pl.String,
    "item_reason": pl.String, "answer_verdict": pl.String, "answer_reason": pl.String,
    "faithfulness": pl.Float64, "worst_claim": pl.String, "worst_missing": pl.String,
    "worst_verdict": pl.Int64, "answer_correctness": pl.String, "correctness_reason": pl.String,
    "correctness_by_judge": pl.Boolean, "doubts": pl.Int64, "gen_error_msg": pl.String,
}  # fmt: skip


def verdicts(*changes: dict[str, Any], threshold: float | None = None) -> list[dict[str, Any]]:
    """``question_verdicts`` of one instance row per change to :data:`BASE`."""
    frame = pl.DataFrame([{**BASE, **change} for change in changes], schema=SCHEMA)
    out = question_verdicts(frame) if threshold is None else question_verdicts(frame, threshold)
    return list(
        out.select("first_failure", "failure_reason", "failure_item", "missing").iter_rows(
            named=True
        )
    )


def verdict(threshold: float | None = None, **change: Any) -> tuple[str, str]:
    row = verdicts(change, threshold=threshold)[0]
    return row["first_failure"], row["failure_reason"]


PARTLY = {"faithfulness": 0.8, "worst_verdict": 1, "worst_claim": "resets take 5 min",
          "worst_missing": "5 min", "doubts": 0}  # fmt: skip


def test_a_partly_supported_claim_below_the_threshold_is_generation() -> None:
    assert verdict(**PARTLY) == (
        "generation",
        "faithfulness 0.8 below 0.85: claim 'resets take 5 min' only partly supported (5 min)",
    )
    # The threshold is the caller's: at 0.75 the same answer is faithful, nothing to check.
    first, reason = verdict(0.75, **PARTLY)
    assert first == "ok"
    assert reason.startswith("faithful to the prompt (faithfulness 0.8); correctness not checked")


def test_an_unsupported_claim_is_generation_whatever_the_faithfulness() -> None:
    unsupported = {**PARTLY, "faithfulness": 0.95, "worst_verdict": 0, "worst_missing": "10 min"}
    assert verdict(**unsupported) == (
        "generation",
        "unsupported claim: 'resets take 5 min' (10 min)",
    )


def test_doubts_alone_below_the_threshold_need_a_judge() -> None:
    first, reason = verdict(**{**PARTLY, "doubts": 2})
    assert first == "needs_judge"
    assert reason.startswith(
        "needs a judge: faithfulness 0.8 below 0.85 only from claims the offline judge could "
        "not decide (2 of them, first 'resets take 5 min')"
    )
    # A wrong answer is blamed on generation even with doubts: the facts decide.
    wrong = {**PARTLY, "doubts": 2, "answer_verdict": "incorrect", "answer_reason": "misses 4.2.1"}
    assert verdict(**wrong) == ("generation", "misses 4.2.1")


def test_a_judges_correctness_outranks_the_facts_check() -> None:
    judged = {"answer_verdict": "incorrect", "answer_reason": "answer misses fact(s): 4.2.1",
              "correctness_by_judge": True, "correctness_reason": "states both versions"}  # fmt: skip
    assert verdict(**judged, answer_correctness="correct") == (
        "ok",
        "answer correct: states both versions",
    )
    assert verdict(**judged, answer_correctness="incomplete") == (
        "generation",
        "answer incomplete: states both versions",
    )


def test_a_missing_span_outranks_every_other_rule() -> None:
    rows = verdicts(
        {"has_root": False, "gen_error_msg": "boom", "root_code": 2},
        {"has_root": False, "foreign": True},  # a foreign trace has no question span to miss
        {"has_cand": False, "prompt_source": None},
        {"answerable": False, "has_gen": False},
        {"answerable": False, "has_gen": False, "abstained": True},
    )
    assert [r["missing"] for r in rows] == [
        ["question span"], [], ["retrieve span"], ["generate span"], [],
    ]  # fmt: skip
    assert rows[0]["failure_reason"] == "missing: question span"
    assert [r["first_failure"] for r in rows] == [
        "incomplete_trace", "unjudged", "incomplete_trace", "incomplete_trace", "ok",
    ]  # fmt: skip


def test_the_failure_item_is_kept_only_for_evidence_lost_upstream() -> None:
    rows = verdicts(
        {"root_code": 3, "failure_item": "a", "item_reason": "moved from rank 2 to 7 > 5"},
        {"root_code": PROMPT, "failure_item": "a", "answer_verdict": "incorrect",
         "answer_reason": "answer misses fact(s): 4.2.1"},
    )  # fmt: skip
    assert [(r["first_failure"], r["failure_item"]) for r in rows] == [
        ("rerank", "a"), ("generation", None),
    ]  # fmt: skip
    assert rows[0]["failure_reason"] == "moved from rank 2 to 7 > 5"


def test_every_first_failure_is_a_declared_one() -> None:
    rows = verdicts(
        {}, {"answerable": False, "abstained": True}, {"root_code": 0, "item_reason": "never"},
        {"root_code": 1, "item_reason": "x"}, {"answerable": False, "has_cut": True,
         "cut_threshold": 0.5}, {"abstained": True}, {**PARTLY, "doubts": 1},
    )  # fmt: skip
    found = [r["first_failure"] for r in rows]
    assert found == ["unjudged", "ok", "ingestion", "ingestion_or_search", "cut", "generation",
                     "needs_judge"]  # fmt: skip
    assert set(found) <= set(FIRST_FAILURES)


@pytest.mark.parametrize(
    ("mode", "oracle", "pipeline", "abstained", "note"),
    [
        ("pipeline", "correct", "incorrect", False, "oracle right, pipeline wrong: the context was the problem"),
        ("pipeline", "correct", "unknown", True, "oracle right, pipeline wrong: the context was the problem"),
        ("pipeline", "correct", "correct", False, "oracle right"),
        ("pipeline", "incorrect", "incorrect", False, "oracle wrong too: prompt, model or source text"),
        ("pipeline", "incorrect", "correct", False, "oracle wrong, pipeline right"),
        ("pipeline", "unknown", "incorrect", False, None),
        ("pipeline", None, "incorrect", False, None),
        ("oracle", "correct", "incorrect", False, None),
    ],
)  # fmt: skip
def test_the_oracle_note(
    mode: str, oracle: str | None, pipeline: str, abstained: bool, note: str | None
) -> None:
    frame = pl.DataFrame(
        {"mode": [mode], "oracle_verdict": [oracle], "answer_verdict": [pipeline],
         "answerable": [True], "abstained": [abstained]},
        schema={"mode": pl.String, "oracle_verdict": pl.String, "answer_verdict": pl.String,
                "answerable": pl.Boolean, "abstained": pl.Boolean},
    )  # fmt: skip
    assert frame.select(oracle_note()).item() == note
