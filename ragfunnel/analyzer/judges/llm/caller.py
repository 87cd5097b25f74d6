"""What every judge that calls an endpoint shares: its cache, usage count, client and batching.

The LLM judge and the fact-check judge differ only in how they rate one answer (``_judge``);
judging one answer or many, concurrently and with the cache flushed once at the end, is the same
for both and lives here. This module never reads or writes the store.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ragfunnel.analyzer.judges.cache import MemoryCache, VerdictCache
from ragfunnel.analyzer.judges.llm.endpoint import Breaker, Endpoint, Usage
from ragfunnel.analyzer.judges.verdict_types import (
    AnswerVerdict,
    Chunk,
    JudgeError,
    JudgeInput,
    as_chunks,
)

__all__ = ["EndpointCaller", "EndpointJudge", "JudgeInput"]


class EndpointCaller:
    """Anything that calls an OpenAI-compatible endpoint.

    It holds the endpoint (checked), a verdict cache (in memory unless given), the usage count
    and the client (made unless given).
    """

    def __init__(
        self,
        endpoint: Endpoint,
        *,
        cache: VerdictCache | None = None,
        client: Any = None,
        breaker: Breaker | None = None,
    ) -> None:
        endpoint.check()
        self.endpoint = endpoint
        self.cache: VerdictCache = cache if cache is not None else MemoryCache()
        self.usage = Usage()
        self.breaker = breaker if breaker is not None else Breaker()
        """Shared by every caller of one run, so a dead endpoint stops them all."""
        self._client = client if client is not None else endpoint.client(self._sent)

    def _sent(self) -> None:
        self.usage.add(requests=1)


class EndpointJudge(EndpointCaller, ABC):
    """A judge on an OpenAI-compatible endpoint; subclasses rate one answer in ``_judge``."""

    kind = "endpoint"
    """The first part of the judge's name (``llm``, ``factcheck``)."""

    def __init__(
        self,
        endpoint: Endpoint,
        *,
        cache: VerdictCache | None = None,
        client: Any = None,
        breaker: Breaker | None = None,
    ) -> None:
        super().__init__(endpoint, cache=cache, client=client, breaker=breaker)
        self.name = f"{self.kind}:{endpoint.model}"

    def judge(
        self,
        answer: str,
        context: Iterable[Chunk | tuple[str, str] | str],
        question: str | None = None,
    ) -> AnswerVerdict:
        """Rate every claim of ``answer`` against ``context``."""
        verdict = self._judge(JudgeInput(answer, as_chunks(context), question))
        self.cache.flush()
        return verdict

    def judge_many(self, items: Iterable[JudgeInput]) -> list[AnswerVerdict | JudgeError]:
        """Judge many answers, ``endpoint.max_concurrency`` at a time, in input order.

        An answer the endpoint could not judge yields its :class:`JudgeError` in its place,
        so one bad reply does not lose a whole run.
        """
        work = list(items)

        def one(item: JudgeInput) -> AnswerVerdict | JudgeError:
            try:
                return self._judge(item)
            except JudgeError as exc:
                return exc

        try:
            if self.endpoint.max_concurrency == 1 or len(work) < 2:
                return [one(item) for item in work]
            with ThreadPoolExecutor(max_workers=self.endpoint.max_concurrency) as pool:
                return list(pool.map(one, work))
        finally:
            self.cache.flush()

    @abstractmethod
    def _judge(self, item: JudgeInput) -> AnswerVerdict:
        """Rate one answer's claims (the cache is flushed by the caller)."""
