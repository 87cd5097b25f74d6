"""Answer correctness against the case's reference, judged by an LLM (prompt ``correctness-v1``).

One call per answer, cached; the rules of the offline checks are in ``judges/correctness.py``.
"""

from __future__ import annotations

import json

import msgspec

from ragfunnel.analyzer.judges.cache import cache_key
from ragfunnel.analyzer.judges.correctness import INCOMPLETE, Correctness
from ragfunnel.analyzer.judges.llm import prompts
from ragfunnel.analyzer.judges.llm.caller import EndpointCaller
from ragfunnel.analyzer.judges.llm.judge import complete

__all__ = ["LLMCorrectness"]


class LLMCorrectness(EndpointCaller):
    """Correctness against the reference, judged by an LLM (one call per answer, cached)."""

    def judge(self, question: str, answer: str, reference: str) -> Correctness:
        """The model's verdict of ``answer`` against ``reference``."""
        key = cache_key("correctness", self.endpoint.model, prompts.CORRECTNESS_VERSION,
                        question, answer, reference)  # fmt: skip
        cached = self.cache.get(key)
        if cached is not None:
            self.usage.add(cached=1)
            data = json.loads(cached)
        else:
            reply = complete(
                self._client, self.endpoint, self.usage,
                prompts.correctness_messages(question, answer, reference),
                schema=prompts.CORRECTNESS_SCHEMA, name="correctness",
                parse=lambda text: msgspec.json.decode(text, type=prompts.CorrectnessReply), breaker=self.breaker,
            )  # fmt: skip
            data = {"label": reply.verdict, "missing": reply.missing, "reason": reply.reason}
            self.cache.put(key, json.dumps(data), kind="correctness", model=self.endpoint.model,
                           prompt_version=prompts.CORRECTNESS_VERSION)  # fmt: skip
        missing = (data["missing"],) if data["missing"] else ()
        reason = data["reason"] or data["label"]
        if data["label"] == INCOMPLETE and data["missing"]:
            reason = f"misses: {data['missing']} ({reason})"
        return Correctness(data["label"], reason, missing)
