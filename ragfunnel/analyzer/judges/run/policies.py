"""Judging policies as objects: which judge rates every answer, and which answers go further.

- ``offline``: the screening judge (the offline judge by default) rates every answer; no network.
- ``llm``: every answer goes to the LLM judge; correctness against a reference by the LLM too.
- ``factcheck``: every claim goes to a Yes/No fact-checking model.
- ``tiered``: the screening judge rates every answer and its signals are computed; flagged
  answers (a claim not supported — an ``uncertain`` one always is — or any signal) and a seeded
  random sample go to the LLM judge (``tiered.py``).

``judge_store`` asks its policy three things: whether every answer is screened, which remote
judge (and correctness grader) to make for an endpoint, and whether one screened answer is sent
on — nothing else in the run depends on the policy's name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from ragfunnel.analyzer.judges.cache import VerdictCache
from ragfunnel.analyzer.judges.llm import (
    Breaker,
    Endpoint,
    FactCheckJudge,
    LLMCorrectness,
    LLMJudge,
)
from ragfunnel.analyzer.judges.protocol import BatchJudge
from ragfunnel.analyzer.judges.run.tiered import DEFAULT_SAMPLE_RATE, flag_reasons, in_sample
from ragfunnel.analyzer.judges.verdict_types import AnswerVerdict, JudgeError

__all__ = [
    "POLICIES",
    "Escalation",
    "FactCheckPolicy",
    "LLMPolicy",
    "OfflinePolicy",
    "Policy",
    "TieredPolicy",
    "policy_named",
]

POLICIES = ("offline", "llm", "factcheck", "tiered")


@dataclass(frozen=True)
class Escalation:
    """Whether one answer goes to the remote judge.

    Also why (the tiered reasons), and whether the random sample drew it.
    """

    send: bool
    reasons: tuple[str, ...] = ()
    sampled: bool = False


@dataclass(frozen=True)
class Policy:
    """The base: screen nothing, make no remote judge, send nothing on."""

    name: ClassVar[str] = ""
    screens: ClassVar[bool] = False
    """Every answer is rated by the screening judge first."""

    def remote(
        self, endpoint: Endpoint, cache: VerdictCache, *, split: str, breaker: Breaker
    ) -> BatchJudge | None:
        """The judge answers are sent on to (``None``: none)."""
        return None

    def grader(
        self, endpoint: Endpoint, cache: VerdictCache, *, breaker: Breaker
    ) -> LLMCorrectness | None:
        """The LLM that grades correctness against a reference for the remote verdicts."""
        return None

    def escalation(
        self, key: str, screened: AnswerVerdict | None, signals: Sequence[str]
    ) -> Escalation:
        """Whether the answer keyed ``key`` (trace and question) is sent on."""
        return Escalation(False)

    @property
    def needs_endpoint(self) -> bool:
        """Whether the policy calls a model."""
        return not isinstance(self, OfflinePolicy)


@dataclass(frozen=True)
class OfflinePolicy(Policy):
    """Every answer rated by the screening judge, nothing sent anywhere."""

    name: ClassVar[str] = "offline"
    screens: ClassVar[bool] = True


@dataclass(frozen=True)
class LLMPolicy(Policy):
    """Every answer rated by the LLM judge; correctness against a reference by the LLM."""

    name: ClassVar[str] = "llm"

    def remote(
        self, endpoint: Endpoint, cache: VerdictCache, *, split: str, breaker: Breaker
    ) -> BatchJudge | None:
        """The remote judge of this policy."""
        return LLMJudge(endpoint, cache=cache, split=split, breaker=breaker)

    def grader(
        self, endpoint: Endpoint, cache: VerdictCache, *, breaker: Breaker
    ) -> LLMCorrectness | None:
        """The correctness grader of this policy."""
        return LLMCorrectness(endpoint, cache=cache, breaker=breaker)

    def escalation(
        self, key: str, screened: AnswerVerdict | None, signals: Sequence[str]
    ) -> Escalation:
        """Whether the answer is sent on, under this policy."""
        return Escalation(True)


@dataclass(frozen=True)
class FactCheckPolicy(Policy):
    """Every claim rated by a Yes/No fact-checking model."""

    name: ClassVar[str] = "factcheck"

    def remote(
        self, endpoint: Endpoint, cache: VerdictCache, *, split: str, breaker: Breaker
    ) -> BatchJudge | None:
        """The remote judge of this policy."""
        return FactCheckJudge(endpoint, cache=cache, breaker=breaker)

    def escalation(
        self, key: str, screened: AnswerVerdict | None, signals: Sequence[str]
    ) -> Escalation:
        """Whether the answer is sent on, under this policy."""
        return Escalation(True)


@dataclass(frozen=True)
class TieredPolicy(LLMPolicy):
    """Screen every answer; send the flagged ones and a seeded random sample to the LLM.

    Attributes:
        sample_rate: the random share sent to the LLM, 0 to 1.
        seed: the random sample's seed.
    """

    name: ClassVar[str] = "tiered"
    screens: ClassVar[bool] = True
    sample_rate: float = DEFAULT_SAMPLE_RATE
    seed: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.sample_rate <= 1:
            raise JudgeError(f"sample_rate must be between 0 and 1, got {self.sample_rate!r}")

    def escalation(
        self, key: str, screened: AnswerVerdict | None, signals: Sequence[str]
    ) -> Escalation:
        """Whether the answer is sent on, under this policy."""
        reasons = flag_reasons(screened, signals) if screened is not None else []
        sampled = in_sample(key, seed=self.seed, rate=self.sample_rate)
        return Escalation(bool(reasons) or sampled, tuple(reasons), sampled)


def policy_named(name: str, *, sample_rate: float = DEFAULT_SAMPLE_RATE, seed: int = 0) -> Policy:
    """The policy called ``name`` (one of :data:`POLICIES`).

    Raises:
        JudgeError: an unknown name, or a ``sample_rate`` outside 0 to 1.
    """
    if name == "tiered":
        return TieredPolicy(sample_rate=sample_rate, seed=seed)
    if not 0 <= sample_rate <= 1:
        raise JudgeError(f"sample_rate must be between 0 and 1, got {sample_rate!r}")
    chosen = {"offline": OfflinePolicy, "llm": LLMPolicy, "factcheck": FactCheckPolicy}.get(name)
    if chosen is None:
        raise JudgeError(f"unknown policy {name!r}: use one of {', '.join(POLICIES)}")
    return chosen()
