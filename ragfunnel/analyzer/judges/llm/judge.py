"""The LLM judge: any OpenAI-compatible model splits answers into claims and rates them.

At most two calls per answer — the claim split (prompt ``claims-v1``), then every claim's
verdict in one batch (``verdicts-v1``) — at temperature 0 with a fixed seed, structured output
validated against a schema, and a bounded retry when a reply is malformed. Both results are
cached (``cache.py``): judging the same answers again makes no call at all. Answers are judged
``max_concurrency`` at a time; tokens and cost add up in :attr:`LLMJudge.usage`.

This module talks to the endpoint and validates replies; it never reads or writes the store.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import msgspec

from ragfunnel.analyzer.judges.cache import VerdictCache, cache_key
from ragfunnel.analyzer.judges.llm import prompts
from ragfunnel.analyzer.judges.llm.caller import EndpointJudge, JudgeInput
from ragfunnel.analyzer.judges.llm.endpoint import Breaker, Endpoint, Usage
from ragfunnel.analyzer.judges.verdict_types import (
    AnswerVerdict,
    Chunk,
    ClaimVerdict,
    JudgeError,
    context_hash,
)
from ragfunnel.analyzer.language.claims import split_claims

__all__ = ["JudgeInput", "LLMJudge", "complete", "same_model_warning"]

T = TypeVar("T")
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


class _Invalid(ValueError):
    """A reply that parses but breaks a rule the schema cannot state."""


def same_model_warning(judge_model: str, generator_models: Iterable[str | None]) -> str | None:
    """A warning when the judge is one of the generator models: models judge themselves kindly."""
    same = sorted({m for m in generator_models if m and m == judge_model})
    if not same:
        return None
    return (
        f"the judge model {judge_model!r} also generated the answers (gen_ai.request.model): "
        "models rate their own answers too kindly; judge with a different model"
    )


def _text(content: str | None) -> str:
    text = content or ""
    fenced = _FENCE.match(text)
    return fenced.group(1) if fenced else text


def complete(
    client: Any,
    endpoint: Endpoint,
    usage: Usage,
    messages: list[dict[str, str]],
    *,
    schema: dict[str, Any],
    name: str,
    parse: Callable[[str], T],
    breaker: Breaker | None = None,
) -> T:
    """One structured call with a bounded retry: the parsed reply, or :class:`JudgeError`.

    With a ``breaker``, an open one refuses the call, and the outcome is counted in it.
    """
    import openai

    last = ""
    history = list(messages)
    for attempt in range(endpoint.max_retries + 1):
        if breaker is not None:
            breaker.check(endpoint, usage)
        options: dict[str, Any] = {}
        response_format = prompts.response_format(schema, name, endpoint.response_style)
        if response_format is not None:
            options["response_format"] = response_format
        try:
            response = client.chat.completions.create(
                model=endpoint.model, messages=history, temperature=0, seed=endpoint.seed,
                **options,
            )  # fmt: skip
        except openai.OpenAIError as exc:
            usage.add(calls=1, failed=1)
            message = f"{type(exc).__name__}: {exc}"
            if breaker is not None:
                breaker.record(False, message)
            raise JudgeError(f"the judge endpoint {endpoint.base_url} failed: {message}") from None
        if breaker is not None:
            breaker.record(True)
        tokens = response.usage
        input_tokens = int(getattr(tokens, "prompt_tokens", 0) or 0)
        output_tokens = int(getattr(tokens, "completion_tokens", 0) or 0)
        usage.add(calls=1, retries=int(attempt > 0), input_tokens=input_tokens,
                  output_tokens=output_tokens,
                  cost=endpoint.cost(input_tokens, output_tokens))  # fmt: skip
        content = response.choices[0].message.content if response.choices else None
        try:
            return parse(_text(content))
        except (msgspec.ValidationError, msgspec.DecodeError, _Invalid) as exc:
            last = str(exc)
            history = [
                *messages,
                {"role": "assistant", "content": content or ""},
                {"role": "user", "content": f"Your reply was not valid ({last}). Reply again "
                 f"with JSON only, following this schema: {prompts.schema_text(schema)}"},
            ]  # fmt: skip
    usage.add(failed=1)
    raise JudgeError(
        f"the judge model {endpoint.model!r} gave no valid {name} reply in "
        f"{endpoint.max_retries + 1} attempts: {last}"
    )


class LLMJudge(EndpointJudge):
    """Judge answers with an LLM on an OpenAI-compatible endpoint (at most two calls each).

    Args:
        endpoint: where to send requests (see :class:`Endpoint`, ``Endpoint.from_env()``).
        cache: where verdicts are remembered; default an in-process :class:`MemoryCache`.
        split: ``llm`` (the model splits the answer: the first call) or ``offline`` (the
            offline splitter: one call per answer).
        client: an ``openai.OpenAI``-like client; default one made from ``endpoint``.
    """

    kind = "llm"

    def __init__(
        self,
        endpoint: Endpoint,
        *,
        cache: VerdictCache | None = None,
        split: str = "llm",
        client: Any = None,
        breaker: Breaker | None = None,
    ) -> None:
        if split not in ("llm", "offline"):
            raise JudgeError(f"split must be 'llm' or 'offline', got {split!r}")
        super().__init__(endpoint, cache=cache, client=client, breaker=breaker)
        self.split = split

    def _claims(self, item: JudgeInput) -> tuple[list[str], tuple[str, ...], int]:
        if self.split == "offline":
            split = split_claims(item.answer)
            return list(split.claims), split.refusals, 0
        key = cache_key("claims", self.endpoint.model, prompts.CLAIMS_VERSION,
                        item.question or "", item.answer)  # fmt: skip
        cached = self.cache.get(key)
        if cached is not None:
            self.usage.add(cached=1)
            return list(json.loads(cached)), (), 0
        reply = complete(
            self._client, self.endpoint, self.usage,
            prompts.claims_messages(item.answer, item.question),
            schema=prompts.CLAIMS_SCHEMA, name="claims",
            parse=lambda text: msgspec.json.decode(text, type=prompts.ClaimsReply), breaker=self.breaker,
        )  # fmt: skip
        claims = [c.strip() for c in reply.claims if c.strip()]
        self.cache.put(key, json.dumps(claims), kind="claims", model=self.endpoint.model,
                       prompt_version=prompts.CLAIMS_VERSION)  # fmt: skip
        return claims, (), 1

    def _judge(self, item: JudgeInput) -> AnswerVerdict:
        claims, refusals, calls = self._claims(item)
        if not claims:
            refused = refusals or ((item.answer.strip(),) if item.answer.strip() else ())
            return AnswerVerdict((), refused, self.name, calls)
        digest = context_hash(item.context)
        keys = [cache_key("verdict", self.endpoint.model, prompts.VERDICTS_VERSION, c, digest)
                for c in claims]  # fmt: skip
        known: dict[int, dict[str, Any]] = {}
        for n, key in enumerate(keys):
            cached = self.cache.get(key)
            if cached is not None:
                known[n] = json.loads(cached)
        self.usage.add(cached=len(known))
        todo = [n for n in range(len(claims)) if n not in known]
        if todo:
            fresh = self._verdicts([claims[n] for n in todo], item.context)
            calls += 1
            for n, value in zip(todo, fresh, strict=True):
                known[n] = value
                self.cache.put(keys[n], json.dumps(value), kind="verdict",
                               model=self.endpoint.model,
                               prompt_version=prompts.VERDICTS_VERSION)  # fmt: skip
        rated = tuple(
            ClaimVerdict(claims[n], known[n]["label"], tuple(known[n]["supporting_ids"]),
                         known[n]["missing"], self.name)
            for n in range(len(claims))
        )  # fmt: skip
        return AnswerVerdict(rated, refusals, self.name, calls)

    def _verdicts(self, claims: Sequence[str], chunks: Sequence[Chunk]) -> list[dict[str, Any]]:
        ids = {c.id for c in chunks}

        def parse(text: str) -> list[dict[str, Any]]:
            reply = msgspec.json.decode(text, type=prompts.VerdictsReply)
            by_claim = {v.claim: v for v in reply.verdicts}
            wanted = set(range(1, len(claims) + 1))
            if set(by_claim) != wanted or len(reply.verdicts) != len(claims):
                raise _Invalid(
                    f"expected one verdict for each claim 1..{len(claims)}, got claims "
                    f"{sorted(v.claim for v in reply.verdicts)}"
                )
            unknown = sorted({i for v in reply.verdicts for i in v.supporting_ids} - ids)
            if unknown:
                raise _Invalid(f"supporting_ids not in the context: {', '.join(unknown)}")
            return [
                {"label": v.verdict, "supporting_ids": list(v.supporting_ids),
                 "missing": "" if v.verdict == "supported" else v.missing}
                for v in (by_claim[n] for n in sorted(wanted))
            ]  # fmt: skip

        return complete(
            self._client, self.endpoint, self.usage,
            prompts.verdicts_messages(claims, chunks), schema=prompts.VERDICTS_SCHEMA,
            name="verdicts", parse=parse, breaker=self.breaker,
        )  # fmt: skip
