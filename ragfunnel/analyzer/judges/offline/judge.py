"""The offline judge: deterministic, no network, three outcomes per claim.

Each claim of the answer (``claims.split_claims``) is aligned with the context (``align.py``)
and scored: ``confidence`` is the calibrated probability that the claim is supported
(``score.py``). The verdict:

- **unsupported** when a hard check finds a contradiction — a fact (number, date, amount,
  code, version) absent from the context or contradicted by it, a strong absolute qualifier the
  context lacks, a negation the best aligned sentence disagrees with — or when the probability
  is below :data:`~ragfunnel.analyzer.judges.offline.score.UNSUPPORTED_BELOW`;
- **supported** when the probability is at least
  :data:`~ragfunnel.analyzer.judges.offline.score.SUPPORTED_AT` and every name the claim gives
  (a capitalised word of an English claim, an acronym) is in the context;
- **uncertain** otherwise: a case for a stronger judge, never by itself a generation failure.

``missing`` names the contradicted or absent term, or the claim's words the context lacks.
The same input always gives the same verdict.
"""

from __future__ import annotations

from collections.abc import Iterable

from ragfunnel.analyzer.judges.claims import split_claims
from ragfunnel.analyzer.judges.model import (
    SUPPORTED,
    UNCERTAIN,
    UNSUPPORTED,
    AnswerVerdict,
    Chunk,
    ClaimVerdict,
    as_chunks,
)
from ragfunnel.analyzer.judges.offline.align import Evidence, align
from ragfunnel.analyzer.judges.offline.index import ContextIndex
from ragfunnel.analyzer.judges.offline.score import (
    HARD_CAP,
    HARD_FACTOR,
    SUPPORTED_AT,
    UNSUPPORTED_BELOW,
    probability,
)

__all__ = ["NAME", "OfflineJudge", "judge_claim"]

NAME = "offline"


def _why(evidence: Evidence) -> str:
    parts = list(evidence.hard)
    if evidence.names:
        parts.append("not in the context: " + ", ".join(evidence.names))
    rest = [w for w in evidence.missing if w not in evidence.names]
    if rest:
        parts.append("not in the context: " + ", ".join(rest))
    return "; ".join(parts)


def _verdict(claim: str, index: ContextIndex) -> ClaimVerdict:
    evidence = align(claim, index)
    p = probability(evidence.values)
    sentences = sorted(set(evidence.window) | evidence.facts.sentences)
    supporting = tuple(dict.fromkeys(index.ids[index.chunk_of[s]] for s in sentences))
    if evidence.hard:
        confidence = min(p * HARD_FACTOR, HARD_CAP)
        return ClaimVerdict(claim, UNSUPPORTED, supporting, _why(evidence), NAME, confidence)
    if p >= SUPPORTED_AT and not evidence.names:
        return ClaimVerdict(claim, SUPPORTED, supporting, "", NAME, p)
    label = UNSUPPORTED if p < UNSUPPORTED_BELOW else UNCERTAIN
    return ClaimVerdict(claim, label, supporting, _why(evidence), NAME, p)


def judge_claim(claim: str, context: Iterable[Chunk | tuple[str, str] | str]) -> ClaimVerdict:
    """Rate one claim against a whole context (see the module docstring)."""
    return _verdict(claim, ContextIndex.of(as_chunks(context)))


class OfflineJudge:
    """Split an answer into claims and rate each against the context, offline.

    ``OfflineJudge().judge(answer, context)`` returns an :class:`AnswerVerdict`; an answer
    without claims (a refusal) is an abstention with ``faithfulness`` ``None``.
    """

    name = NAME

    def judge(self, answer: str, context: Iterable[Chunk | tuple[str, str] | str]) -> AnswerVerdict:
        """Rate every claim of ``answer`` against ``context``."""
        split = split_claims(answer)
        index = ContextIndex.of(as_chunks(context))
        verdicts = tuple(_verdict(claim, index) for claim in split.claims)
        return AnswerVerdict(verdicts, split.refusals, NAME)
