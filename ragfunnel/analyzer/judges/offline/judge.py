"""The offline judge: deterministic, no network, three outcomes per claim.

Each claim of the answer (``claims.split_claims``) is aligned with the context (``align.py``)
and scored: ``confidence`` is the calibrated probability that the claim is supported
(``score.py``; with the paraphrase embedding of ``embed.py`` when ``ragfunnel[paraphrase]`` is
installed, each variant with its own fitted model). The verdict:

- **unsupported** when a hard check finds a contradiction — a fact (number, date, amount,
  time) the context states otherwise, a strong absolute qualifier the context lacks, a negation
  the best aligned sentence disagrees with, a swapped name — or when the probability is below
  the model's ``unsupported_below``;
- **supported** when the probability is at least the model's ``supported_at`` and the context
  holds at least :data:`~ragfunnel.analyzer.judges.offline.align.FOUND_AT` of the claim's
  weight, every name the claim gives (a capitalised word of an English claim, an acronym) and
  every fact it states (a fact the context neither states nor contradicts is no contradiction,
  but no support either);
- **uncertain** otherwise: a case for a stronger judge, never by itself a generation failure.

A claim in another language than its context (an English answer from a German chunk) has no
words to weigh: with ``ragfunnel[multilingual]`` it is judged by meaning (``crosslingual.py``:
unsupported for a contradicted fact or a closest sentence below ``UNSUPPORTED_BELOW``,
supported at ``SUPPORTED_AT`` with every fact and name found), without it as ever (uncertain).
In a prompt of both languages a claim is judged by its words (a chunk is in its language), and
one they leave short of supported, with no finding, missing name or fact and no negation, by
meaning too.

``missing`` names the contradicted or absent term, or the claim's words the context lacks.
The same input always gives the same verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache

from ragfunnel.analyzer.judges.offline import crosslingual
from ragfunnel.analyzer.judges.offline.align import FOUND_AT, Evidence, align
from ragfunnel.analyzer.judges.offline.index import ContextIndex
from ragfunnel.analyzer.judges.offline.prepared import CHUNK_CACHE, ChunkCache
from ragfunnel.analyzer.judges.offline.score import HARD_CAP, model_for
from ragfunnel.analyzer.judges.verdict_types import (
    SUPPORTED,
    UNCERTAIN,
    UNSUPPORTED,
    AnswerVerdict,
    Chunk,
    ClaimVerdict,
    as_chunks,
)
from ragfunnel.analyzer.language.claims import ClaimSplit, split_claims
from ragfunnel.analyzer.language.lexicon import fold
from ragfunnel.analyzer.language.terms import negated

__all__ = ["CHUNK_CACHE", "CLAIM_CACHE", "NAME", "OfflineJudge", "judge_claim", "supportable"]

NAME = "offline"
CLAIM_CACHE = 4096
"""Distinct answer texts whose claim split an :class:`OfflineJudge` keeps by default."""


def _why(evidence: Evidence) -> str:
    parts = list(evidence.hard)
    if evidence.unstated:
        parts.append("not in the context: " + ", ".join(evidence.unstated))
    if evidence.names:
        parts.append("not in the context: " + ", ".join(evidence.names))
    named = {n.split(" (context: ", 1)[0] for n in evidence.names}
    rest = [w for w in evidence.missing if w not in named]
    if rest:
        parts.append("not in the context: " + ", ".join(rest))
    return "; ".join(parts)


def supportable(evidence: Evidence) -> bool:
    """No name and no fact of the claim is missing from the context: it may be supported."""
    return not evidence.names and not evidence.unstated


def _cross_verdict(claim: str, index: ContextIndex, encoder: crosslingual.Encoder) -> ClaimVerdict:
    """A claim in another language than its context, judged by meaning (``crosslingual.py``)."""
    found = crosslingual.measure(claim, index, encoder)
    p = crosslingual.probability(found.similarity)
    sentences = sorted(({found.sentence} - {-1}) | found.facts.sentences)
    supporting = tuple(dict.fromkeys(index.ids[index.chunk_of[s]] for s in sentences))
    unstated = [f for f in found.facts.absent if f not in found.facts.hard]
    missing = [*unstated, *found.names]
    why = "; ".join(
        [*found.facts.hard, *(["not in the context: " + ", ".join(missing)] if missing else [])]
    )
    if found.facts.hard:
        return ClaimVerdict(claim, UNSUPPORTED, supporting, why, NAME, min(p, HARD_CAP))
    if found.similarity < crosslingual.UNSUPPORTED_BELOW:
        why = why or "no sentence of the context says this (closest by meaning across languages)"
        return ClaimVerdict(claim, UNSUPPORTED, supporting, why, NAME, p)
    if found.similarity >= crosslingual.SUPPORTED_AT and not missing:
        return ClaimVerdict(claim, SUPPORTED, supporting, "", NAME, p)
    why = why or "the closest sentence across languages is not close enough to decide"
    return ClaimVerdict(claim, UNCERTAIN, supporting, why, NAME, p)


def _verdict(
    claim: str, index: ContextIndex, encoder: crosslingual.Encoder | None = None
) -> ClaimVerdict:
    if encoder is not None and crosslingual.other_language(claim, index):
        return _cross_verdict(claim, index, encoder)
    evidence = align(claim, index)
    model = model_for(evidence.values)
    p = model.probability(evidence.values)
    sentences = sorted(set(evidence.window) | evidence.facts.sentences)
    supporting = tuple(dict.fromkeys(index.ids[index.chunk_of[s]] for s in sentences))
    if evidence.hard:
        confidence = min(p * model.hard_factor, HARD_CAP)
        return ClaimVerdict(claim, UNSUPPORTED, supporting, _why(evidence), NAME, confidence)
    if p >= model.supported_at and evidence.found >= FOUND_AT and supportable(evidence):
        return ClaimVerdict(claim, SUPPORTED, supporting, "", NAME, p)
    if (
        encoder is not None
        and len(index.chunk_languages) > 1
        and supportable(evidence)
        and not negated(fold(claim))  # meaning across languages does not see a "not"
    ):
        # A prompt of both languages: the words may be in the other language's chunk ("the
        # sauna is included in the Premium plan" from "Die Sauna ist im Tarif Premium
        # enthalten"). Meaning across languages may support what the words could not; it never
        # overrules a finding, a missing name or an unstated fact, nor judges a negated claim.
        across = _cross_verdict(claim, index, encoder)
        if across.label == SUPPORTED:
            return across
    label = UNSUPPORTED if p < model.unsupported_below else UNCERTAIN
    return ClaimVerdict(claim, label, supporting, _why(evidence), NAME, p)


def judge_claim(
    claim: str,
    context: Iterable[Chunk | tuple[str, str] | str],
    paraphrase: bool | None = None,
    multilingual: bool | None = None,
) -> ClaimVerdict:
    """Rate one claim against a whole context (see the module docstring).

    ``paraphrase``: score with the paraphrase embedding (``True`` needs
    ``ragfunnel[paraphrase]``) or without; ``None`` uses it when it is installed.
    ``multilingual``: judge a claim in another language than its context by meaning (``True``
    needs ``ragfunnel[multilingual]``) or leave it uncertain; ``None`` uses it when installed.
    """
    encoder = crosslingual.load(multilingual)
    return _verdict(claim, ContextIndex.of(as_chunks(context), paraphrase), encoder)


class OfflineJudge:
    """Split an answer into claims and rate each against the context, offline.

    ``OfflineJudge().judge(answer, context)`` returns an :class:`AnswerVerdict`; an answer
    without claims (a refusal) is an abstention with ``faithfulness`` ``None``.
    ``paraphrase`` and ``multilingual`` as in :func:`judge_claim` (a missing extra asked for
    with ``True`` raises here); the multilingual vectors are cached for the judge's lifetime.

    One judge serves a whole run and prepares each chunk once (``prepared.py``): the
    ``chunk_cache`` most recently used chunks (default :data:`CHUNK_CACHE`), keyed by a hash of
    their text, are kept prepared, with their sentences' facts and vectors (``0``: none kept,
    every chunk prepared anew); the claim split of the ``claim_cache`` most recent distinct
    answer texts (default :data:`CLAIM_CACHE`) too. The verdicts are the same with any sizes.
    """

    name = NAME

    def __init__(
        self,
        paraphrase: bool | None = None,
        multilingual: bool | None = None,
        *,
        chunk_cache: int = CHUNK_CACHE,
        claim_cache: int = CLAIM_CACHE,
    ) -> None:
        if chunk_cache < 0 or claim_cache < 1:
            raise ValueError(
                f"chunk_cache must be 0 or more, claim_cache 1 or more: {chunk_cache}, {claim_cache}"
            )
        self.paraphrase = paraphrase
        self.multilingual = multilingual
        self._encoder = crosslingual.load(multilingual)
        self.chunks = ChunkCache(chunk_cache) if chunk_cache else None
        self._split: Callable[[str], ClaimSplit] = lru_cache(maxsize=claim_cache)(split_claims)

    def judge(self, answer: str, context: Iterable[Chunk | tuple[str, str] | str]) -> AnswerVerdict:
        """Rate every claim of ``answer`` against ``context``."""
        split = self._split(answer)
        index = ContextIndex.of(as_chunks(context), self.paraphrase, self.chunks)
        verdicts = tuple(_verdict(claim, index, self._encoder) for claim in split.claims)
        return AnswerVerdict(verdicts, split.refusals, NAME)
