"""The acceptance test of the judges in the funnel: the hotel-and-taxi worked example."""

from __future__ import annotations

import pytest

from ragfunnel.analyzer.funnel import analyze
from ragfunnel.analyzer.ingest import ingest_spans
from ragfunnel.analyzer.judges.llm.endpoint import Endpoint
from ragfunnel.analyzer.judges.run.batch import judge_store
from ragfunnel.analyzer.store import Store
from ragfunnel.testing import capture_spans
from tests.support.fake_openai import FakeOpenAI
from tests.support.judge_pipeline import ANY_TIME, BOTH, CASES, WORKED_RANKING, ask
from tests.support.responders import responder

QUESTION = "Was gilt für Hotel und Taxi?"


def _ask(store: Store, reply: str, run: str) -> None:
    with capture_spans(capture_content=True, run_id=run) as spans:
        ask("hotel-taxi", QUESTION, WORKED_RANKING, reply)
    ingest_spans(store, spans.spans)


@pytest.mark.parametrize("policy", ["offline", "llm"])
def test_worked_example_in_the_funnel(store: Store, policy: str) -> None:
    _ask(store, BOTH, "both")
    _ask(store, ANY_TIME, "any-time")
    before = {r["run_id"]: r for r in analyze(store, CASES).records.iter_rows(named=True)}
    # Without verdicts the paraphrased reference cannot be checked by containment.
    assert before["any-time"]["first_failure"] == "unjudged"
    # Nothing judged yet: no faithfulness, no claims; correctness only where facts allow it.
    assert before["any-time"]["faithfulness"] is None and before["any-time"]["claims"] == []
    assert before["any-time"]["answer_correctness"] is None

    with FakeOpenAI(responder) as server:
        endpoint = Endpoint(model="judge-model", base_url=server.base_url, api_key="k")
        judge_store(
            store, policy=policy, cases=CASES, endpoint=None if policy == "offline" else endpoint
        )
        sent = len(server.requests)
        judge_store(
            store, policy=policy, cases=CASES, endpoint=None if policy == "offline" else endpoint
        )
        assert len(server.requests) == sent  # the second judging makes no call
    records = {r["run_id"]: r for r in analyze(store, CASES).records.iter_rows(named=True)}

    both, any_time = records["both"], records["any-time"]
    assert both["faithfulness"] == 1.0
    assert both["first_failure"] == "ok"
    assert both["answer_correctness"] == "correct"
    assert any_time["faithfulness"] == 0.5
    assert any_time["first_failure"] == "generation"
    assert any_time["failure_reason"].startswith(
        "unsupported claim: 'Ein Taxi ist jederzeit erlaubt' (jederzeit"
    )
    judge = "offline" if policy == "offline" else "llm:judge-model"
    taxi = any_time["claims"][1]
    assert taxi == {
        "text": "Ein Taxi ist jederzeit erlaubt",
        "verdict": 0.0,
        "label": "unsupported",
        "supporting_ids": ["taxi"],
        "missing": taxi["missing"],
        "judge": judge,
    }
    assert any_time["claims"][0]["label"] == "supported"
    assert any_time["answer_correctness"] == "incomplete"
    assert any_time["correctness_reason"]
    # Context precision of [access rights, hotel, taxi] is reported beside faithfulness,
    # never averaged with it.
    assert any_time["context_precision_at_cut"] == pytest.approx(7 / 12)
    assert both["context_precision_at_cut"] == pytest.approx(7 / 12)


def test_a_lower_threshold_and_facts_only_cases(store: Store) -> None:
    with capture_spans(capture_content=True, run_id="facts") as spans:
        ask("hotel-taxi-facts", "Hotel und Taxi, kurz?", WORKED_RANKING, BOTH)
    ingest_spans(store, spans.spans)
    judge_store(store, cases=CASES)
    record = analyze(store, CASES).record("hotel-taxi-facts").row(0, named=True)
    # The facts '120 Euro' and '22 Uhr' are stated: correct and faithful.
    assert (record["first_failure"], record["answer_correctness"]) == ("ok", "correct")
    from ragfunnel.analyzer.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="faithfulness_threshold"):
        analyze(store, CASES, faithfulness_threshold=1.5)
