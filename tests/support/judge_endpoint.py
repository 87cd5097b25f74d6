"""The endpoint of the local OpenAI-compatible server, as the LLM judge tests point at it."""

from __future__ import annotations

from typing import Any

from ragfunnel.analyzer.judges.llm.endpoint import Endpoint
from tests.support.fake_openai import FakeOpenAI


def endpoint(server: FakeOpenAI, **options: Any) -> Endpoint:
    """The model ``judge-model`` at ``server``, with any other ``Endpoint`` field in ``options``."""
    return Endpoint(model="judge-model", base_url=server.base_url, api_key="test", **options)
