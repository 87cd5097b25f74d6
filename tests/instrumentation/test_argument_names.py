"""Which arguments the decorators read: documented names always, credentials never, and an
explicit name that cannot be used fails at decoration time (docs/span-contract.md)."""

from __future__ import annotations

from typing import Any

import pytest

import ragfunnel
from ragfunnel.instrumentation import contract as c
from ragfunnel.instrumentation.redaction import is_secret_name
from ragfunnel.testing import CapturedSpans


def test_a_named_token_budget_and_passages_are_recorded(spans: CapturedSpans) -> None:
    @ragfunnel.cut(token_budget="token_budget")
    def gate(passages: list[str], token_budget: int = 512) -> list[str]:
        return passages[:1]

    assert gate(["a", "b"]) == ["a"]
    (span,) = spans.attributes("cut")
    assert list(span[c.INPUT_IDS]) == ["a", "b"]
    assert span[c.CUT_TOKEN_BUDGET] == 512


def test_documented_argument_names_are_discovered(spans: CapturedSpans) -> None:
    @ragfunnel.cut
    def gate(passages: list[str], max_tokens: int = 300) -> list[str]:
        return passages

    @ragfunnel.rerank
    def rerank(passages: list[str], top_n: int = 1) -> list[str]:
        return passages[:top_n]

    gate(["a"], max_tokens=200)
    rerank(["b", "c"])
    (cut,) = spans.attributes("cut")
    assert list(cut[c.INPUT_IDS]) == ["a"] and cut[c.CUT_TOKEN_BUDGET] == 200
    (rr,) = spans.attributes("rerank")
    assert list(rr[c.INPUT_IDS]) == ["b", "c"] and rr[c.TOP_N] == 1


@pytest.mark.parametrize(
    "name",
    [
        "password",
        "db_password",
        "passwd",
        "pwd",
        "secret",
        "client_secret",
        "token",
        "access_token",
        "authToken",
        "api_key",
        "apikey",
        "apiKey",
        "API_KEY",
        "x-api-key",
        "Authorization",
        "auth",
        "cookie",
        "session_id",
        "private_key",
        "AWSAccessKey",
    ],
)
def test_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "passages",
        "max_tokens",
        "tokens",
        "author",
        "keyword",
        "compass",
        "secretary_notes",
        "key_phrases",
        "session",
        "documents",
    ],
)
def test_ordinary_names(name: str) -> None:
    assert not is_secret_name(name)


def test_a_credential_named_explicitly_fails_at_decoration() -> None:
    with pytest.raises(TypeError, match=r"@ragfunnel.retrieve\(query='auth_token'\).*credential"):

        @ragfunnel.retrieve(query="auth_token")
        def search(auth_token: str) -> list[str]:
            return []


@pytest.mark.parametrize(
    ("option", "expected"),
    [
        ("docs", r"names \*docs; ragfunnel reads named arguments only"),
        ("extra", r"names \*\*extra"),
    ],
)
def test_an_unusable_named_argument_fails_at_decoration(option: str, expected: str) -> None:
    with pytest.raises(TypeError, match=expected):

        @ragfunnel.rerank(input=option)
        def rerank(query: str, *docs: str, **extra: Any) -> list[str]:
            return list(docs)


def test_a_misspelt_argument_name_fails_at_decoration() -> None:
    with pytest.raises(
        TypeError, match=r"names no argument of the decorated function \(it has: query, docs\)"
    ):

        @ragfunnel.rerank(input="documents")
        def rerank(query: str, docs: list[str]) -> list[str]:
            return docs


def test_a_name_reaching_through_kwargs_is_accepted(spans: CapturedSpans) -> None:
    @ragfunnel.rerank(input="candidates")
    def rerank(query: str, **options: Any) -> list[str]:
        return list(options["candidates"])

    assert rerank("q", candidates=["a"]) == ["a"]
    (rr,) = spans.attributes("rerank")
    assert list(rr[c.INPUT_IDS]) == ["a"]


@pytest.mark.parametrize("mode", ["oracle", ragfunnel.Mode.ORACLE])
def test_mode_takes_the_mode_itself(mode: Any, spans: CapturedSpans) -> None:
    @ragfunnel.generate(mode=mode)
    def generate(question: str, context: list[str]) -> str:
        return "a"

    generate("q", ["d"])
    (gen,) = spans.attributes("generate")
    assert gen[c.MODE] == "oracle"


def test_mode_may_also_name_an_argument(spans: CapturedSpans) -> None:
    @ragfunnel.generate(mode="feeding")
    def generate(question: str, feeding: str = "pipeline") -> str:
        return "a"

    generate("q", feeding="oracle")
    (gen,) = spans.attributes("generate")
    assert gen[c.MODE] == "oracle"
