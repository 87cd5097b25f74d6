"""Signals beside a verdict: reasons to look closer, never verdicts themselves.

- ``low_confidence``: content tokens the generator produced with low probability (recorded by
  ``@ragfunnel.generate`` as ``ragfunnel.logprobs.low_confidence``), or a minimum token
  logprob below :data:`LOGPROB_FLOOR`.
- ``sample_disagreement``: the samples of one question state different numbers, amounts,
  dates, codes or names.
- ``conflicting_sources``: two prompt chunks state the same kind of amount or quantity about
  the same thing (two shared key words in the sentence) with different values. A chunk's
  amounts are read sentence by sentence, as the offline judge reads its facts; where that judge
  ran, from the sentences it read already (:func:`amounts_reader`: when no chunk repeats, reading
  them again was a fifth of a judge run's CPU).
- ``oversized_prompt``: more than :data:`MAX_CHUNKS` chunks or :data:`MAX_CONTEXT_CHARS`
  characters in the prompt (faithfulness drops as the context grows).
- ``oracle_disagreement``: the oracle answer (generated from the gold evidence) states
  different facts than the pipeline's answer.

Each signal is one ``"name: detail"`` string. The tiered policy sends flagged answers to the
LLM judge; nothing here changes a score.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache

from ragfunnel.analyzer.judges.offline import OfflineJudge
from ragfunnel.analyzer.judges.offline.prepared import (
    CHUNK_CACHE,
    PreparedChunk,
    can_hold_facts,
    sentence_spans,
)
from ragfunnel.analyzer.judges.offline.words import is_german, tokens
from ragfunnel.analyzer.judges.protocol import Judge
from ragfunnel.analyzer.judges.verdict_types import Chunk
from ragfunnel.analyzer.language.lexicon import LETTERS, fold
from ragfunnel.analyzer.language.terms import MEASURED, Fact, facts, key_words, unit_of

__all__ = [
    "LOGPROB_FLOOR",
    "MAX_CHUNKS",
    "MAX_CONTEXT_CHARS",
    "Amount",
    "AmountReader",
    "amounts_reader",
    "answer_terms",
    "chunk_amounts",
    "conflicting_sources",
    "signals",
]

LOGPROB_FLOOR = math.log(0.2)
"""A token generated with probability below 0.2 anywhere in the answer is a signal."""
MAX_CHUNKS = 20
MAX_CONTEXT_CHARS = 24_000
_NAME = re.compile(r"(?<![\w-])[A-ZÄÖÜ][\w-]+")
_OPENS = re.compile(r"(?:^|[.!?:;\n])[\s\"'“„(*-]*$")
"""The text before a word that opens a sentence (or the answer, or a list item)."""
_SHARED_WORDS = 2
_SENTENCE_END = re.compile(r"[.!?;:]\s+|\n+")
"""Where a sentence ends, for the key words of an amount's sentence."""


def answer_terms(answer: str) -> set[str]:
    """The normalised facts and the names an answer states.

    A name is an acronym, or in an English answer a capitalised word that opens no sentence:
    German capitalises every noun, and any sentence's first word, so "Die Pauschale beträgt
    120 Euro." and "Sie beträgt 120 EUR." state the same terms (the amount).
    """
    folded = fold(answer)
    spans = facts(folded)
    found = {f"{f.kind}:{min(f.keys)}" for f, _, _ in spans}
    # Names outside the facts: "Euro" in "120 Euro" is part of an amount, not a name.
    taken = [(start, end) for _, start, end in spans]
    german = is_german(tokens(folded))
    names = set()
    for m in _NAME.finditer(answer):
        if any(a <= m.start() < b for a, b in taken):
            continue
        word = m.group(0)
        if not word[:2].isupper() and (german or _OPENS.search(answer[: m.start()])):
            continue
        names.add(fold(word))
    return found | {f"name:{n}" for n in names}


def _readable(terms: set[str]) -> str:
    return ", ".join(sorted(t.split(":", 1)[1] for t in terms))


Amount = tuple[str, str, frozenset[str], str]
"""An amount or quantity a chunk states: its unit, its value, the key words of its sentence, and
the fact as written with its bound phrase ("bis zu 120 EUR")."""


AmountReader = Callable[[str], tuple[Amount, ...]]
"""How a chunk's amounts are read, given its text (:func:`amounts_reader`)."""


def chunk_amounts(
    text: str, folded: str, prepared: PreparedChunk | None = None
) -> tuple[Amount, ...]:
    """A chunk's amounts and quantities (``folded``: ``fold(text)``), sentence by sentence.

    The facts of each sentence that can hold one (``prepared.can_hold_facts``), as the offline
    judge reads them (``PreparedChunk.sentence_facts``): a bound phrase belongs to its own
    sentence.
    ``prepared``: the chunk as the judge prepared it; the facts it found already are used, the
    others found and kept with it. Each sentence's key words are worked out once, however many
    amounts it states.
    """
    same = len(folded) == len(text)
    source = text if same else folded
    found: list[tuple[Fact, int, int, int]] = []  # a fact, its start, its end, where it is written
    sentences: Iterable[tuple[int, list[tuple[Fact, int, int]]]]  # each start, and its facts
    if prepared is not None and same:
        numeric = prepared.numeric
        sentences = (
            (at, prepared.sentence_facts(local))
            for local, at in enumerate(prepared.starts)
            if numeric[local]
        )
    else:
        sentences = (
            (a, facts(folded[a:b]))
            for a, b in sentence_spans(folded, text if same else None)
            if can_hold_facts(folded[a:b], LETTERS.findall(folded[a:b]))
        )
    for at, spans in sentences:
        found.extend(
            (fact, at + start, at + end, at + fact.start)
            for fact, start, end in spans
            if fact.kind in MEASURED
        )
    starts: list[int] = []
    keys: dict[int, frozenset[str]] = {}
    out = []
    for fact, start, end, written in found:
        if not starts:
            starts = [0, *(m.end() for m in _SENTENCE_END.finditer(folded))]
        sid = bisect.bisect_right(starts, start) - 1
        words = keys.get(sid)
        if words is None:
            stop = starts[sid + 1] if sid + 1 < len(starts) else len(folded)
            words = keys[sid] = frozenset(key_words(folded[starts[sid] : stop], []))
        # A day's rate is not a week's: the period is part of what is compared.
        unit = unit_of(fact) + (f" per {fact.period}" if fact.period else "")
        out.append((unit, min(fact.keys), words, source[written:end]))
    return tuple(out)


@lru_cache(maxsize=CHUNK_CACHE)
def _measured(text: str) -> tuple[Amount, ...]:
    """:func:`chunk_amounts` of a chunk no judge prepared, kept for the most recent chunks."""
    return chunk_amounts(text, fold(text))


_AMOUNTS = "signals.amounts"
"""The name a chunk's amounts are kept under with the judge's prepared chunk."""


def amounts_reader(judge: Judge | None) -> AmountReader:
    """How to read a chunk's amounts right after ``judge`` judged a prompt holding it.

    From the chunks an :class:`OfflineJudge` keeps prepared (its sentences, and the facts it
    read of them), and kept with them; otherwise, or for a chunk it no longer keeps, as no judge
    prepared it. Either way the same amounts. Make one reader for many answers: it keeps the
    amounts of the :data:`CHUNK_CACHE` chunks it read last, found again without hashing the
    chunk's text as the judge's cache does.
    """
    cache = judge.chunks if isinstance(judge, OfflineJudge) else None
    if cache is None:
        return _measured

    def read(text: str) -> tuple[Amount, ...]:
        kept = cache.peek(text)
        if kept is None:
            return _measured(text)
        folded, prepared = kept
        found: tuple[Amount, ...] | None = prepared.readings.get(_AMOUNTS)
        if found is None:  # kept with the chunk: it comes back in many prompts
            found = prepared.readings[_AMOUNTS] = chunk_amounts(text, folded, prepared)
        return found

    return lru_cache(maxsize=CHUNK_CACHE)(read)


def conflicting_sources(chunks: Sequence[Chunk], amounts: AmountReader = _measured) -> list[str]:
    """Pairs of chunks stating different values of the same thing (see the module docstring).

    ``amounts``: how a chunk's amounts are read (:func:`amounts_reader`).
    """
    claims = [(chunk.id, *amount) for chunk in chunks for amount in amounts(chunk.text)]
    found = []
    for n, (cid, unit, value, words, text) in enumerate(claims):
        for other_id, other_unit, other_value, other_words, other_text in claims[n + 1 :]:
            if other_id == cid or other_unit != unit or other_value == value:
                continue
            if len(words & other_words) >= _SHARED_WORDS:
                found.append(f"{cid} says {text}, {other_id} says {other_text}")
    return found


def signals(
    answer: str,
    chunks: Sequence[Chunk],
    *,
    low_confidence: Sequence[str] = (),
    logprobs_min: float | None = None,
    sample_answers: Sequence[str] = (),
    oracle_answer: str | None = None,
    conflicts: Sequence[str] | None = None,
) -> list[str]:
    """Every signal of one answer, as ``"name: detail"`` strings.

    ``conflicts``: :func:`conflicting_sources` of ``chunks``, when the caller has them (the
    judge's workers send them with each verdict); found here otherwise.
    """
    out = []
    content = [t for t in low_confidence if t.strip()]
    if content:
        out.append("low_confidence: " + ", ".join(content))
    elif logprobs_min is not None and logprobs_min < LOGPROB_FLOOR:
        out.append(f"low_confidence: a token at p = {math.exp(logprobs_min):.2f}")
    if sample_answers:
        mine = answer_terms(answer)
        differing: set[str] = set()
        for other in sample_answers:
            differing |= mine ^ answer_terms(other)
        if differing:
            out.append("sample_disagreement: " + _readable(differing))
    if conflicts is None:
        conflicts = conflicting_sources(chunks)
    out.extend("conflicting_sources: " + c for c in conflicts)
    size = sum(len(c.text) for c in chunks)
    if len(chunks) > MAX_CHUNKS or size > MAX_CONTEXT_CHARS:
        out.append(f"oversized_prompt: {len(chunks)} chunks, {size:,} characters")
    if oracle_answer is not None:
        differing = answer_terms(answer) ^ answer_terms(oracle_answer)
        if differing:
            out.append("oracle_disagreement: " + _readable(differing))
    return out
