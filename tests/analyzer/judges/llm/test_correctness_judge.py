"""LLMCorrectness (judges/llm/correctness_judge.py): one cached call per answer against the reference."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ragfunnel.analyzer.judges import JudgeError
from ragfunnel.analyzer.judges.cache import MemoryCache
from ragfunnel.analyzer.judges.llm.correctness_judge import LLMCorrectness
from tests.support.fake_openai import FakeOpenAI, request_kind, user_text
from tests.support.judge_endpoint import endpoint
from tests.support.judge_pipeline import ANY_TIME, BOTH, REFERENCE


def compare(body: dict[str, Any]) -> str:
    answer = user_text(body).rsplit("Answer:\n", 1)[1]
    if "jederzeit" in answer:
        reply = {"verdict": "incomplete", "missing": "ab 22 Uhr", "reason": "the time is lost"}
    else:
        reply = {"verdict": "correct", "missing": "", "reason": ""}
    return json.dumps(reply)


def test_the_models_verdict_with_the_missing_part_named() -> None:
    with FakeOpenAI(compare) as server:
        judge = LLMCorrectness(endpoint(server))
        right = judge.judge("Was gilt für Reisen?", BOTH, REFERENCE)
        partial = judge.judge("Was gilt für Reisen?", ANY_TIME, REFERENCE)
    assert (right.label, right.reason, right.missing) == ("correct", "correct", ())
    assert partial.label == "incomplete"
    assert partial.missing == ("ab 22 Uhr",)
    assert partial.reason == "misses: ab 22 Uhr (the time is lost)"
    assert [request_kind(r) for r in server.requests] == ["correctness", "correctness"]
    sent = user_text(server.requests[1])
    assert sent.startswith("Question: Was gilt für Reisen?\n\nReference answer:\n" + REFERENCE)
    assert server.requests[1]["response_format"]["json_schema"]["name"] == "correctness"


def test_a_repeated_question_is_served_from_the_cache() -> None:
    cache = MemoryCache()
    with FakeOpenAI(compare) as server:
        LLMCorrectness(endpoint(server), cache=cache).judge("q", ANY_TIME, REFERENCE)
        again = LLMCorrectness(endpoint(server), cache=cache)
        verdict = again.judge("q", ANY_TIME, REFERENCE)
        other = again.judge("another question", ANY_TIME, REFERENCE)
    assert len(server.requests) == 2  # the first call, and the other question's
    assert again.usage.cached == 1 and again.usage.calls == 1
    assert verdict.missing == ("ab 22 Uhr",) and other.label == "incomplete"


def test_a_reply_outside_the_schema_is_retried_then_an_error() -> None:
    with FakeOpenAI(lambda body: json.dumps({"verdict": "maybe"})) as server:
        judge = LLMCorrectness(endpoint(server, max_retries=1))
        with pytest.raises(JudgeError, match="no valid correctness reply in 2 attempts"):
            judge.judge("q", BOTH, REFERENCE)
    assert len(server.requests) == 2 and judge.usage.failed == 1
