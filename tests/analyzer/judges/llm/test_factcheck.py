"""FactCheckJudge (judges/llm/factcheck.py): one Yes/No call per claim, read from logprobs."""

from __future__ import annotations

from typing import Any

import pytest

from ragfunnel.analyzer.judges import Chunk
from ragfunnel.analyzer.judges.cache import MemoryCache
from ragfunnel.analyzer.judges.llm.factcheck import FactCheckJudge, yes_probability
from tests.support.fake_openai import FakeOpenAI, user_text
from tests.support.judge_endpoint import endpoint
from tests.support.judge_pipeline import ANY_TIME


def test_factcheck_style(hotel_taxi: list[Chunk]) -> None:
    def responder(body: dict[str, Any]) -> tuple[str, list[tuple[str, float]]]:
        assert body["max_tokens"] == 1 and body["logprobs"] is True
        claim = user_text(body).rsplit("Claim: ", 1)[1]
        if "jederzeit" in claim:
            return "No", [("No", -0.05), ("Yes", -3.0)]
        return "Yes", [("Yes", -0.1), ("No", -2.5)]

    cache = MemoryCache()
    with FakeOpenAI(responder) as server:
        judge = FactCheckJudge(endpoint(server), cache=cache)
        verdict = judge.judge(ANY_TIME, hotel_taxi)
        assert len(server.requests) == 2  # one call per claim
        again = FactCheckJudge(endpoint(server), cache=cache).judge(ANY_TIME, hotel_taxi)
        assert len(server.requests) == 2
    assert verdict.faithfulness == 0.5 == again.faithfulness
    good, bad = verdict.claims
    assert good.confidence == pytest.approx(1 / (1 + 2.718281828 ** (-2.4)), rel=1e-3)
    assert bad.label == "unsupported" and bad.judge == "factcheck:judge-model"
    assert user_text(server.requests[0]).startswith("Document: Zugriffsrechte")


def test_yes_probability() -> None:
    assert yes_probability([("Yes", 0.0)]) == 1.0
    assert yes_probability([(" no", 0.0), ("Yes", -100.0)]) == pytest.approx(0.0)
    assert yes_probability([("Maybe", 0.0)]) is None
