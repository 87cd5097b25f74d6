"""The judges' prompts (judges/llm/prompts.py): messages, reply schemas and response formats."""

from __future__ import annotations

import json

import msgspec
import pytest

from ragfunnel.analyzer.judges import Chunk
from ragfunnel.analyzer.judges.llm import prompts


def test_claims_messages_carry_the_question_only_when_there_is_one() -> None:
    system, user = prompts.claims_messages("Ein Taxi ist erlaubt.", "Wann?")
    assert system["role"] == "system" and user["role"] == "user"
    assert user["content"] == "Question: Wann?\n\nAnswer:\nEin Taxi ist erlaubt."
    assert prompts.claims_messages("A.", None)[1]["content"] == "Answer:\nA."


def test_verdicts_messages_number_the_claims_from_one_under_their_chunks() -> None:
    chunks = [Chunk("a", "First text."), Chunk("b", "Second text.")]
    user = prompts.verdicts_messages(["One", "Two"], chunks)[1]["content"]
    assert user == "Context:\n[a]\nFirst text.\n\n[b]\nSecond text.\n\nClaims:\n1. One\n2. Two"


def test_factcheck_and_correctness_messages() -> None:
    chunks = [Chunk("a", "First."), Chunk("b", "Second.")]
    user = prompts.factcheck_messages("A claim", chunks)[1]["content"]
    assert user == "Document: First.\n\nSecond.\nClaim: A claim"
    user = prompts.correctness_messages("Q?", "An answer", "The reference")[1]["content"]
    assert user == "Question: Q?\n\nReference answer:\nThe reference\n\nAnswer:\nAn answer"


def test_response_format_for_each_style() -> None:
    structured = prompts.response_format(prompts.CLAIMS_SCHEMA, "claims", "json_schema")
    assert structured == {
        "type": "json_schema",
        "json_schema": {"name": "claims", "schema": prompts.CLAIMS_SCHEMA, "strict": True},
    }
    assert prompts.response_format(prompts.CLAIMS_SCHEMA, "claims", "json_object") == {
        "type": "json_object"
    }
    assert prompts.response_format(prompts.CLAIMS_SCHEMA, "claims", "none") is None


def test_schema_text_is_compact_json_of_the_schema() -> None:
    text = prompts.schema_text(prompts.VERDICTS_SCHEMA)
    assert " " not in text.replace("json schema", "")
    assert json.loads(text) == prompts.VERDICTS_SCHEMA


def test_replies_outside_their_schema_are_refused() -> None:
    reply = msgspec.json.decode(b'{"claims": ["a", "b"]}', type=prompts.ClaimsReply)
    assert reply.claims == ["a", "b"]
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(b'{"claims": ["a"], "extra": 1}', type=prompts.ClaimsReply)
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(
            b'{"verdict": "correct", "missing": "", "reason": "", "score": 1}',
            type=prompts.CorrectnessReply,
        )
