"""Tiered judging: screen every answer cheaply, send the doubtful and a random sample to the LLM.

Every answer is judged offline and its signals computed (logprobs, samples, sources, size). An
answer goes to the LLM judge when it is *flagged* — a claim the offline judge did not find
supported, or any signal — or when it falls in the *random sample*: a seeded hash of its trace
and question decides, at ``rate`` (3 % by default), independently of any flag.

Rates are estimated from the random sample alone: the flagged answers are chosen because they
look bad, so counting them would bias every rate upwards. Among the sampled answers with an LLM
verdict: the mean faithfulness (normal interval), the share of answers with an unsupported
claim and the share of abstentions (Wilson intervals), and how often the offline judge agreed
with the LLM on "fully supported or not". docs/judges.md shows the estimators.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from ragfunnel.analyzer.judges.verdict_types import SUPPORTED, AnswerVerdict
from ragfunnel.analyzer.stats import Estimate, mean_interval, wilson

__all__ = ["DEFAULT_SAMPLE_RATE", "Screened", "estimates", "flag_reasons", "in_sample"]

DEFAULT_SAMPLE_RATE = 0.03


def in_sample(key: str, *, seed: int, rate: float) -> bool:
    """Whether the answer with ``key`` is in the seeded random sample of share ``rate``."""
    digest = hashlib.sha256(f"{seed}\x1f{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < rate


def flag_reasons(offline: AnswerVerdict, signals: Sequence[str]) -> list[str]:
    """Why the screening sends an answer to the LLM (empty: it does not), as reason kinds."""
    reasons = []
    if any(c.label != SUPPORTED for c in offline.claims):
        reasons.append("offline: a claim not supported")
    reasons.extend(dict.fromkeys(s.split(":", 1)[0] for s in signals))
    return reasons


@dataclass(frozen=True)
class Screened:
    """One answer after tiered judging: its offline verdict, and the LLM's when it was sent."""

    offline: AnswerVerdict
    llm: AnswerVerdict | None
    sampled: bool
    flagged: bool


def _fully_supported(verdict: AnswerVerdict) -> bool:
    return all(c.label == SUPPORTED for c in verdict.claims)


def estimates(screened: Sequence[Screened]) -> dict[str, Estimate]:
    """Rates from the random sample only (see the module docstring)."""
    sample = [s for s in screened if s.sampled and s.llm is not None]
    judged = [s.llm for s in sample if s.llm is not None and not s.llm.abstained]
    faithfulness = [v.faithfulness for v in judged if v.faithfulness is not None]
    unsupported = sum(not _fully_supported(v) for v in judged)
    agree = sum(
        _fully_supported(s.offline) == _fully_supported(s.llm)
        for s in sample
        if s.llm is not None and not s.llm.abstained and not s.offline.abstained
    )
    comparable = sum(
        1 for s in sample if s.llm is not None and not s.llm.abstained and not s.offline.abstained
    )
    abstained = sum(1 for s in sample if s.llm is not None and s.llm.abstained)
    return {
        "faithfulness": mean_interval(faithfulness),
        "unsupported_rate": wilson(unsupported, len(judged)),
        "abstention_rate": wilson(abstained, len(sample)),
        "offline_agreement": wilson(agree, comparable),
    }
