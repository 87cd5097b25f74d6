"""EndpointCaller and EndpointJudge (judges/llm/caller.py): what every endpoint judge shares."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ragfunnel.analyzer.judges import Chunk, JudgeError
from ragfunnel.analyzer.judges.cache import MemoryCache
from ragfunnel.analyzer.judges.llm import JudgeInput, LLMJudge
from ragfunnel.analyzer.judges.llm.endpoint import Breaker, Endpoint
from tests.support.fake_openai import FakeOpenAI, request_kind, user_text
from tests.support.judge_endpoint import endpoint
from tests.support.judge_pipeline import ANY_TIME, BOTH
from tests.support.responders import worked_example_responder


def test_the_endpoint_is_checked_before_any_call() -> None:
    with pytest.raises(JudgeError, match="max_retries must be 0 or more"):
        LLMJudge(Endpoint(model="m", base_url="http://127.0.0.1:9/v1", max_retries=-1))


def test_the_name_is_the_kind_and_the_model() -> None:
    with FakeOpenAI(worked_example_responder) as server:
        assert LLMJudge(endpoint(server)).name == "llm:judge-model"


def test_context_in_every_shape_the_protocol_takes() -> None:
    with FakeOpenAI(worked_example_responder) as server:
        judge = LLMJudge(endpoint(server))
        pairs = judge.judge(ANY_TIME, iter([("taxi", "Ein Taxi ist ab 22:00 Uhr erlaubt.")]))
        texts = judge.judge(BOTH, (text for text in ["Ein Taxi ist ab 22:00 Uhr erlaubt."]))
    assert pairs.faithfulness == 0.5 and texts.faithfulness == 1.0
    verdicts = [user_text(r) for r in server.requests if request_kind(r) == "verdicts"]
    assert "[taxi]\nEin Taxi ist ab 22:00 Uhr erlaubt." in verdicts[0]
    assert "[1]\nEin Taxi" in verdicts[1]  # a bare text is named by its place


def test_judge_many_reads_a_generator_and_puts_each_error_in_its_place(
    hotel_taxi: list[Chunk],
) -> None:
    def responder(body: dict[str, Any]) -> str | int:
        if "kaputt" in user_text(body):
            return 400  # the endpoint refuses this one answer
        return worked_example_responder(body)

    def items() -> Iterator[JudgeInput]:
        for answer in (BOTH, "Das ist kaputt.", ANY_TIME):
            yield JudgeInput(answer, tuple(hotel_taxi))

    cache = MemoryCache()
    with FakeOpenAI(responder) as server:
        judge = LLMJudge(endpoint(server, max_concurrency=2), cache=cache)
        both, broken, any_time = judge.judge_many(items())
    assert not isinstance(both, JudgeError) and both.faithfulness == 1.0
    assert isinstance(broken, JudgeError) and "BadRequestError" in str(broken)
    assert not isinstance(any_time, JudgeError) and any_time.faithfulness == 0.5
    # Two splits and three verdicts (the hotel claim is shared), none for the failed answer.
    assert len(cache) == 5
    assert judge.judge_many([]) == []


def test_a_shared_breaker_stops_every_judge_of_the_run(hotel_taxi: list[Chunk]) -> None:
    breaker = Breaker(limit=1)
    with FakeOpenAI(lambda body: 400) as server:
        first = LLMJudge(endpoint(server, max_retries=0), breaker=breaker)
        second = LLMJudge(endpoint(server, max_retries=0), breaker=breaker)
        with pytest.raises(JudgeError, match="failed: BadRequestError"):
            first.judge(BOTH, hotel_taxi)
        with pytest.raises(JudgeError, match="circuit breaker open"):
            second.judge(BOTH, hotel_taxi)
    assert len(server.requests) == 1
    assert second.usage.refused == 1 and second.usage.calls == 0
