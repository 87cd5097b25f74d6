"""The shapes every judge returns: chunks in, claim and answer verdicts out.

Plain frozen dataclasses, shared by the offline, LLM and fact-checking judges, the cache and the
verdicts table, so that a verdict means the same thing whichever judge gave it. Nothing here
judges anything.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field

from ragfunnel.analyzer.errors import AnalyzerError
from ragfunnel.analyzer.store.tables.verdicts import PARTIAL, SUPPORTED, UNCERTAIN, UNSUPPORTED

__all__ = [
    "LABELS",
    "PARTIAL",
    "SCORES",
    "SUPPORTED",
    "UNCERTAIN",
    "UNSUPPORTED",
    "AnswerVerdict",
    "Chunk",
    "ClaimVerdict",
    "JudgeError",
    "JudgeInput",
    "as_chunks",
    "context_hash",
    "text_hash",
]

# The labels are the verdicts table's vocabulary, which the funnel reads too: defined there.
# ``uncertain``: the judge could neither confirm nor confidently refute the claim, a case for a
# stronger judge, never a reason to blame generation (docs/judges.md).
LABELS = (SUPPORTED, PARTIAL, UNSUPPORTED)
SCORES = {SUPPORTED: 1.0, PARTIAL: 0.5, UNSUPPORTED: 0.0, UNCERTAIN: 0.5}


class JudgeError(AnalyzerError):
    """A judge cannot run: bad settings, an unreachable endpoint, replies it cannot read."""


@dataclass(frozen=True)
class Chunk:
    """One piece of the prompt's context: its id (as recorded in the trace) and its text."""

    id: str
    text: str


def as_chunks(context: Iterable[Chunk | tuple[str, str] | str]) -> tuple[Chunk, ...]:
    """The context as chunks: ``Chunk`` objects, ``(id, text)`` pairs, or bare texts.

    Bare texts get their 1-based position as id.
    """
    out: list[Chunk] = []
    for position, item in enumerate(context, start=1):
        if isinstance(item, Chunk):
            out.append(item)
        elif isinstance(item, str):
            out.append(Chunk(str(position), item))
        elif isinstance(item, tuple) and len(item) == 2:
            out.append(Chunk(str(item[0]), str(item[1])))
        else:
            raise JudgeError(
                f"context item {position} is {type(item).__name__}: expected a Chunk, "
                "an (id, text) pair or a text"
            )
    return tuple(out)


def text_hash(text: str) -> str:
    """A stable hash of a text (claims, answers), for cache keys."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def context_hash(chunks: Iterable[Chunk]) -> str:
    """A stable hash of a whole context: every chunk's id and text, in order."""
    digest = hashlib.sha256()
    for chunk in chunks:
        for part in (chunk.id, chunk.text):
            data = part.encode("utf-8")
            digest.update(len(data).to_bytes(8, "little"))
            digest.update(data)
    return digest.hexdigest()[:32]


@dataclass(frozen=True)
class JudgeInput:
    """One answer to judge.

    Attributes:
        answer: the answer text.
        context: the prompt's chunks, in prompt order.
        question: the question (helps the claim split resolve references).
    """

    answer: str
    context: tuple[Chunk, ...]
    question: str | None = None


@dataclass(frozen=True)
class ClaimVerdict:
    """One claim rated against the whole context.

    Attributes:
        text: the claim.
        label: ``supported``, ``partial`` or ``unsupported``.
        supporting_ids: the chunks that support it (best first).
        missing: when not supported, the term missing from the context or contradicted by it.
        judge: which judge rated it (``offline``, ``llm:<model>``, ``factcheck:<model>``).
        confidence: the judge's confidence that the claim is supported, 0–1, when it has one
            (the offline judge's evidence score; a fact-checker's probability of "Yes").
    """

    text: str
    label: str
    supporting_ids: tuple[str, ...] = ()
    missing: str = ""
    judge: str = ""
    confidence: float | None = None

    @property
    def verdict(self) -> float:
        """1 for supported, 0.5 for partial, 0 for unsupported."""
        return SCORES[self.label]

    @property
    def score(self) -> float:
        """The claim's support score, 0–1: its ``confidence``, else its :attr:`verdict`."""
        return self.verdict if self.confidence is None else self.confidence


@dataclass(frozen=True)
class AnswerVerdict:
    """Every claim of one answer, rated; or an abstention when the answer made none.

    Attributes:
        claims: the rated claims, in answer order.
        refusals: sentences of the answer that declined to answer.
        judge: the judge's name.
        calls: how many requests to an endpoint this verdict cost (0 when cached or offline).
    """

    claims: tuple[ClaimVerdict, ...]
    refusals: tuple[str, ...] = ()
    judge: str = ""
    calls: int = field(default=0, compare=False)

    @property
    def abstained(self) -> bool:
        """The answer made no claim: an abstention, not a score."""
        return not self.claims

    @property
    def faithfulness(self) -> float | None:
        """The mean claim verdict; ``None`` for an abstention (never 1, never NaN)."""
        if not self.claims:
            return None
        return sum(c.verdict for c in self.claims) / len(self.claims)

    @property
    def confidence(self) -> float | None:
        """The answer's support score, 0–1: the mean of its claims' ``confidence``.

        The score to rank answers by (the offline judge's claim confidences are calibrated
        probabilities, so this is the expected share of supported claims); a claim without a
        confidence counts its verdict. ``None`` for an abstention. ``faithfulness`` stays the
        verdicts' mean, which the funnel's blame reads: the two differ by design
        (docs/judges.md, "Scores to rank answers by").
        """
        if not self.claims:
            return None
        return sum(c.score for c in self.claims) / len(self.claims)

    @property
    def refuted(self) -> tuple[ClaimVerdict, ...]:
        """The claims judged ``unsupported`` (a confident finding: blame), in answer order."""
        return tuple(c for c in self.claims if c.label == UNSUPPORTED)

    @property
    def doubted(self) -> tuple[ClaimVerdict, ...]:
        """Every claim not judged supported — unsupported, partial or uncertain — in order."""
        return tuple(c for c in self.claims if c.label != SUPPORTED)

    @property
    def unsupported(self) -> tuple[ClaimVerdict, ...]:
        """Deprecated: every claim not judged supported, doubts included.

        Use :attr:`doubted` (the same claims) or :attr:`refuted` (only the confident
        ``unsupported`` ones).
        """
        warnings.warn(
            "AnswerVerdict.unsupported holds every claim below supported, uncertain ones "
            "included; use .doubted for those or .refuted for the claims judged unsupported",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.doubted
