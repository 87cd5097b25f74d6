"""LLMJudge (judges/llm/judge.py): the split and verdict calls, retries, cache and cost."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ragfunnel.analyzer.judges import Chunk, JudgeError
from ragfunnel.analyzer.judges.cache import MemoryCache
from ragfunnel.analyzer.judges.llm import JudgeInput, LLMJudge, same_model_warning
from tests.support.fake_openai import FakeOpenAI, request_kind, user_text
from tests.support.judge_endpoint import endpoint
from tests.support.judge_pipeline import ANY_TIME, BOTH
from tests.support.responders import numbered_claims, worked_example_responder


def test_worked_example_through_the_llm_judge(hotel_taxi: list[Chunk]) -> None:
    with FakeOpenAI(worked_example_responder) as server:
        judge = LLMJudge(endpoint(server))
        both = judge.judge(BOTH, hotel_taxi)
        any_time = judge.judge(ANY_TIME, hotel_taxi)
    assert both.faithfulness == 1.0
    assert any_time.faithfulness == 0.5
    (bad,) = any_time.doubted
    assert bad.text == "Ein Taxi ist jederzeit erlaubt"
    assert bad.missing.startswith("jederzeit")
    assert bad.supporting_ids == ("taxi",)
    assert bad.judge == "llm:judge-model"
    # Two calls per answer: the split, then every verdict in one batch.
    assert [request_kind(r) for r in server.requests] == ["claims", "verdicts"] * 2
    assert both.calls == 2


def test_rerun_and_repeated_answers_make_no_calls(hotel_taxi: list[Chunk]) -> None:
    cache = MemoryCache()
    items = [JudgeInput(BOTH, tuple(hotel_taxi)), JudgeInput(ANY_TIME, tuple(hotel_taxi))]
    with FakeOpenAI(worked_example_responder) as server:
        first = LLMJudge(endpoint(server), cache=cache).judge_many(iter(items))
        sent = len(server.requests)
        again = LLMJudge(endpoint(server), cache=cache)
        second = again.judge_many(item for item in items * 3)  # a second run, answers repeat
        assert len(server.requests) == sent == 4
    assert again.usage.calls == 0
    assert again.usage.cached == 6 * 3  # a split and two verdicts per answer
    assert [v.faithfulness for v in second] == [1.0, 0.5] * 3
    assert second[:2] == first


def test_requests_are_deterministic_and_structured(hotel_taxi: list[Chunk]) -> None:
    with FakeOpenAI(worked_example_responder) as server:
        LLMJudge(endpoint(server, seed=7)).judge(BOTH, hotel_taxi, question="Was gilt für Reisen?")
    claims, verdicts = server.requests
    for body in (claims, verdicts):
        assert body["temperature"] == 0
        assert body["seed"] == 7
        assert body["model"] == "judge-model"
        assert body["response_format"]["type"] == "json_schema"
        assert body["response_format"]["json_schema"]["strict"] is True
    assert "Question: Was gilt für Reisen?" in user_text(claims)
    assert "[hotel-allowance]\nDie Hotelpauschale beträgt 120 EUR pro Nacht." in user_text(verdicts)
    assert numbered_claims(verdicts) == [
        "Die Hotelpauschale beträgt 120 Euro",
        "Ein Taxi ist ab 22 Uhr erlaubt",
    ]


@pytest.mark.parametrize(
    "bad",
    [
        "this is not JSON",
        '{"verdicts": [{"claim": 1, "verdict": "supported", "supporting_ids": [], "missing": ""}]}',
        '{"verdicts": [{"claim": 1, "verdict": "maybe", "supporting_ids": [], "missing": ""},'
        ' {"claim": 2, "verdict": "supported", "supporting_ids": [], "missing": ""}]}',
        '{"verdicts": [{"claim": 1, "verdict": "supported", "supporting_ids": ["nope"], "missing": ""},'
        ' {"claim": 2, "verdict": "supported", "supporting_ids": [], "missing": ""}]}',
    ],
)
def test_a_malformed_reply_is_retried(hotel_taxi: list[Chunk], bad: str) -> None:
    replies = iter([bad])

    def responder(body: dict[str, Any]) -> str:
        if request_kind(body) == "verdicts":
            return next(replies, None) or worked_example_responder(body)
        return worked_example_responder(body)

    with FakeOpenAI(responder) as server:
        judge = LLMJudge(endpoint(server))
        verdict = judge.judge(BOTH, hotel_taxi)
    assert verdict.faithfulness == 1.0
    assert judge.usage.retries == 1
    assert [request_kind(r) for r in server.requests] == ["claims", "verdicts", "verdicts"]
    retry = server.requests[-1]["messages"]
    assert retry[-1]["content"].startswith("Your reply was not valid")


def test_retries_are_bounded(hotel_taxi: list[Chunk]) -> None:
    def responder(body: dict[str, Any]) -> str:
        return '```json\n{"claims": ["A claim"]}\n```' if request_kind(body) == "claims" else "{}"

    with FakeOpenAI(responder) as server:
        judge = LLMJudge(endpoint(server, max_retries=2))
        with pytest.raises(JudgeError, match="no valid verdicts reply in 3 attempts"):
            judge.judge(BOTH, hotel_taxi)
        results = judge.judge_many([JudgeInput(BOTH, tuple(hotel_taxi))])
    assert isinstance(results[0], JudgeError)
    assert len(server.calls("verdicts")) == 6


def test_refusal_is_an_abstention(hotel_taxi: list[Chunk]) -> None:
    def responder(body: dict[str, Any]) -> str:
        return json.dumps({"claims": []})

    with FakeOpenAI(responder) as server:
        verdict = LLMJudge(endpoint(server)).judge("Dazu habe ich keine Informationen.", hotel_taxi)
    assert verdict.abstained and verdict.faithfulness is None
    assert len(server.requests) == 1  # no verdict call for an answer without claims


def test_offline_split_makes_one_call_per_answer(hotel_taxi: list[Chunk]) -> None:
    with FakeOpenAI(worked_example_responder) as server:
        verdict = LLMJudge(endpoint(server), split="offline").judge(ANY_TIME, hotel_taxi)
    assert verdict.faithfulness == 0.5
    assert [request_kind(r) for r in server.requests] == ["verdicts"]


def test_concurrency_keeps_input_order_and_counts_cost(hotel_taxi: list[Chunk]) -> None:
    answers = [f"Die Hotelpauschale beträgt {100 + n} Euro." for n in range(8)]
    with FakeOpenAI(worked_example_responder) as server:
        judge = LLMJudge(endpoint(server, max_concurrency=3, input_price=2.0, output_price=8.0))
        results = judge.judge_many(JudgeInput(a, tuple(hotel_taxi)) for a in answers)
    assert [r.claims[0].text for r in results if not isinstance(r, JudgeError)] == [
        a.rstrip(".") for a in answers
    ]
    usage = judge.usage.as_dict()
    assert usage["calls"] == 16 and usage["input_tokens"] == 1600 and usage["output_tokens"] == 320
    assert usage["cost"] == pytest.approx((1600 * 2.0 + 320 * 8.0) / 1e6)


def test_same_model_warning() -> None:
    assert same_model_warning("gpt-4o", ["gpt-4o-mini", None]) is None
    message = same_model_warning("gpt-4o", ["gpt-4o", "other"])
    assert message is not None and "too kindly" in message
