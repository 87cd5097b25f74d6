"""A fact-checking judge: one claim and its context per call, Yes or No, its logprob the confidence.

For small fact-checking models served locally (a MiniCheck model behind vLLM or Ollama, say):
claims come from the offline splitter; each claim goes with the whole context in MiniCheck's
"Document: … Claim: …" form (prompt ``factcheck-v1``), asking for one token with its log
probabilities. The confidence is P(Yes) / (P(Yes) + P(No)) over the top alternatives of that
token; a claim is supported when it is at least one half. Such models give no chunk ids, so
``supporting_ids`` stays empty; they give no partial verdicts either. Verdicts are cached like
the LLM judge's.

This module talks to the endpoint; it never reads or writes the store.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

from ragfunnel.analyzer.judges.cache import cache_key
from ragfunnel.analyzer.judges.llm import prompts
from ragfunnel.analyzer.judges.llm.caller import EndpointJudge, JudgeInput
from ragfunnel.analyzer.judges.verdict_types import (
    SUPPORTED,
    UNSUPPORTED,
    AnswerVerdict,
    Chunk,
    ClaimVerdict,
    JudgeError,
    context_hash,
)
from ragfunnel.analyzer.language.claims import split_claims

__all__ = ["FactCheckJudge", "yes_probability"]


def _word(token: str) -> str:
    return token.strip().strip(".").casefold()


def yes_probability(top: Iterable[tuple[str, float]]) -> float | None:
    """P(Yes) among the Yes/No alternatives of one token (``(token, logprob)`` pairs)."""
    yes = no = 0.0
    for token, logprob in top:
        word = _word(token)
        if word in ("yes", "ja"):
            yes += math.exp(logprob)
        elif word in ("no", "nein"):
            no += math.exp(logprob)
    if yes + no == 0:
        return None
    return yes / (yes + no)


class FactCheckJudge(EndpointJudge):
    """Judge claims one call each with a Yes/No fact-checking model.

    Args:
        endpoint: the model's OpenAI-compatible endpoint.
        cache: where verdicts are remembered; default an in-process :class:`MemoryCache`.
        client: an ``openai.OpenAI``-like client; default one made from ``endpoint``.
    """

    kind = "factcheck"

    def _judge(self, item: JudgeInput) -> AnswerVerdict:
        split = split_claims(item.answer)
        digest = context_hash(item.context)
        rated = []
        calls = 0
        for claim in split.claims:
            key = cache_key("factcheck", self.endpoint.model, prompts.FACTCHECK_VERSION,
                            claim, digest)  # fmt: skip
            cached = self.cache.get(key)
            if cached is None:
                probability = self._ask(claim, item.context)
                calls += 1
                self.cache.put(key, json.dumps(probability), kind="factcheck",
                               model=self.endpoint.model,
                               prompt_version=prompts.FACTCHECK_VERSION)  # fmt: skip
            else:
                probability = float(json.loads(cached))
                self.usage.add(cached=1)
            label = SUPPORTED if probability >= 0.5 else UNSUPPORTED
            missing = (
                ""
                if label == SUPPORTED
                else f"the fact-checker says No (P(Yes) = {probability:.2f})"
            )
            rated.append(ClaimVerdict(claim, label, (), missing, self.name, probability))
        return AnswerVerdict(tuple(rated), split.refusals, self.name, calls)

    def _ask(self, claim: str, chunks: tuple[Chunk, ...]) -> float:
        import openai

        last = ""
        for attempt in range(self.endpoint.max_retries + 1):
            self.breaker.check(self.endpoint, self.usage)
            try:
                response = self._client.chat.completions.create(
                    model=self.endpoint.model,
                    messages=prompts.factcheck_messages(claim, chunks),
                    temperature=0, seed=self.endpoint.seed, max_tokens=1, logprobs=True,
                    top_logprobs=5,
                )  # fmt: skip
            except openai.OpenAIError as exc:
                self.usage.add(calls=1, failed=1)
                message = f"{type(exc).__name__}: {exc}"
                self.breaker.record(False, message)
                raise JudgeError(
                    f"the fact-checker endpoint {self.endpoint.base_url} failed: {message}"
                ) from None
            self.breaker.record(True)
            tokens = response.usage
            input_tokens = int(getattr(tokens, "prompt_tokens", 0) or 0)
            output_tokens = int(getattr(tokens, "completion_tokens", 0) or 0)
            self.usage.add(calls=1, retries=int(attempt > 0), input_tokens=input_tokens,
                           output_tokens=output_tokens,
                           cost=self.endpoint.cost(input_tokens, output_tokens))  # fmt: skip
            probability = _probability(response)
            if probability is not None:
                return probability
            content = response.choices[0].message.content if response.choices else None
            last = f"reply {content!r} is neither Yes nor No"
        self.usage.add(failed=1)
        raise JudgeError(
            f"the fact-checker {self.endpoint.model!r} gave no Yes/No in "
            f"{self.endpoint.max_retries + 1} attempts: {last}"
        )


def _probability(response: Any) -> float | None:
    """P(Yes) from the first token's top logprobs, else 1/0 from the text, else ``None``."""
    if not response.choices:
        return None
    choice = response.choices[0]
    content = choice.logprobs.content if choice.logprobs is not None else None
    if content:
        first = content[0]
        pairs = [(alt.token, alt.logprob) for alt in first.top_logprobs or ()]
        if first.token not in {token for token, _ in pairs}:
            pairs.append((first.token, first.logprob))
        found = yes_probability(pairs)
        if found is not None:
            return found
    word = _word(choice.message.content or "")
    if word in ("yes", "ja"):
        return 1.0
    if word in ("no", "nein"):
        return 0.0
    return None
