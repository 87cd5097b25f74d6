"""Endpoint, Usage and Breaker (judges/llm/endpoint.py): settings, checks, counts, the breaker."""

from __future__ import annotations

from typing import Any

import pytest

from ragfunnel.analyzer.judges import Chunk, JudgeError
from ragfunnel.analyzer.judges.llm import LLMJudge
from ragfunnel.analyzer.judges.llm.endpoint import BREAKER_FAILURES, Breaker, Endpoint, Usage
from tests.support.fake_openai import FakeOpenAI
from tests.support.judge_endpoint import endpoint
from tests.support.judge_pipeline import BOTH
from tests.support.responders import worked_example_responder


def test_unreachable_endpoint_is_a_judge_error(hotel_taxi: list[Chunk]) -> None:
    with FakeOpenAI(worked_example_responder) as server:
        url = server.base_url
    judge = LLMJudge(Endpoint(model="m", base_url=url, api_key="k", timeout=2))
    with pytest.raises(JudgeError, match=r"the judge endpoint .* failed"):
        judge.judge(BOTH, hotel_taxi)


def test_endpoint_from_arguments_then_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "RAGFUNNEL_JUDGE_MODEL",
        "RAGFUNNEL_JUDGE_BASE_URL",
        "RAGFUNNEL_JUDGE_API_KEY",
        "OPENAI_MODEL",
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(JudgeError, match="no judge model"):
        Endpoint.from_env()
    monkeypatch.setenv("OPENAI_MODEL", "fallback")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert Endpoint.from_env().model == "fallback"
    monkeypatch.setenv("RAGFUNNEL_JUDGE_MODEL", "preferred")
    monkeypatch.setenv("RAGFUNNEL_JUDGE_API_KEY", "secret-key")
    chosen = Endpoint.from_env()
    assert (chosen.model, chosen.base_url, chosen.api_key) == (
        "preferred",
        "http://127.0.0.1:9/v1",
        "secret-key",
    )
    assert "secret-key" not in repr(chosen)
    assert Endpoint.from_env(model="explicit").model == "explicit"
    with pytest.raises(JudgeError, match="max_concurrency"):
        Endpoint.from_env(max_concurrency=0)


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ({"timeout": 0}, "timeout must be positive, got 0"),
        ({"max_concurrency": 0}, "max_concurrency must be at least 1, got 0"),
        ({"max_retries": -1}, "max_retries must be 0 or more, got -1"),
        ({"input_price": -1.0}, "prices must not be negative"),
        ({"output_price": -0.5}, "prices must not be negative"),
        ({"response_style": "xml"}, "response_style must be one of json_schema, json_object, none"),
    ],
)
def test_an_option_out_of_range_is_named(option: dict[str, Any], message: str) -> None:
    with pytest.raises(JudgeError, match=message):
        Endpoint(model="m", **option).check()


def test_cost_is_per_million_tokens_at_each_price() -> None:
    priced = Endpoint(model="m", input_price=2.5, output_price=10.0)
    assert priced.cost(1_000_000, 0) == pytest.approx(2.5)
    assert priced.cost(200_000, 50_000) == pytest.approx(0.5 + 0.5)
    assert Endpoint(model="m").cost(10_000, 10_000) == 0.0


def test_usage_adds_up_and_rounds_the_cost_for_json() -> None:
    usage = Usage()
    usage.add(calls=2, input_tokens=300, output_tokens=40, cost=0.0000014)
    usage.add(calls=1, retries=1, failed=1, cached=3, requests=4, refused=1)
    assert usage.as_dict() == {
        "calls": 3,
        "retries": 1,
        "input_tokens": 300,
        "output_tokens": 40,
        "cost": 0.000001,
        "cached": 3,
        "requests": 4,
        "failed": 1,
        "refused": 1,
    }
    # One failed and one refused of three calls plus one refused.
    assert usage.failed_share == pytest.approx(2 / 4)
    assert Usage().failed_share == 0.0


def test_the_breaker_opens_after_its_limit_and_a_success_resets_it() -> None:
    at = Endpoint(model="m", base_url="http://127.0.0.1:9/v1")
    usage = Usage()
    breaker = Breaker(limit=2)
    breaker.record(False, "timeout")
    breaker.record(True)
    breaker.record(False, "timeout")
    assert not breaker.open
    breaker.check(at, usage)  # closed: no error, nothing refused
    breaker.record(False, "APIConnectionError: refused")
    assert breaker.open
    with pytest.raises(JudgeError) as raised:
        breaker.check(at, usage)
    assert "http://127.0.0.1:9/v1 failed 2 times in a row" in str(raised.value)
    assert "last error: APIConnectionError: refused" in str(raised.value)
    assert usage.refused == 1
    assert Breaker().limit == BREAKER_FAILURES
    with pytest.raises(JudgeError, match="at least 1, got 0"):
        Breaker(limit=0)


def test_the_client_counts_every_http_request_it_sends(hotel_taxi: list[Chunk]) -> None:
    with FakeOpenAI(lambda body: 503) as server:
        judge = LLMJudge(endpoint(server, max_retries=0))
        with pytest.raises(JudgeError, match="failed: InternalServerError"):
            judge.judge(BOTH, hotel_taxi)
    # The openai client retries a failed transport once by itself: two requests, one call.
    assert (judge.usage.calls, judge.usage.failed, judge.usage.requests) == (1, 1, 2)
    assert len(server.requests) == 2
