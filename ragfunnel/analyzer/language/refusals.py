"""Refusals: sentences that decline to answer, in English and German.

"I don't know", "Dazu habe ich leider keine Informationen", "The context does not mention it":
the phrases are the lexicon's ``REFUSALS``, tried again with its ``REFUSAL_FILLERS`` ("leider",
"unfortunately", "I'm afraid") dropped. The claim splitter (``claims.py``) reads a refusal as no
claim, so an answer of refusals only is an abstention. A sentence that turns from a refusal to
an answer ("I'm not sure, but the allowance is 120 EUR"; a ``REFUSAL_TURNS`` word after a comma,
or a semicolon) is split there (:func:`split_refusal`): what follows is an answer, judged.
"""

from __future__ import annotations

import re

from ragfunnel.analyzer.language.lexicon import (
    REFUSAL_FILLERS,
    REFUSAL_KEYWORDS,
    REFUSAL_TURNS,
    REFUSALS,
)

__all__ = ["is_refusal", "split_refusal"]

_REFUSAL = re.compile(r"\b(?:" + "|".join(REFUSALS) + ")", re.IGNORECASE)
_REFUSAL_FILLER = re.compile(
    r"[\s,]*(?<!\w)(?:" + "|".join(re.escape(f) for f in REFUSAL_FILLERS) + r")(?!\w)[\s,]*",
    re.IGNORECASE,
)
_TURN = re.compile(
    r"\s*(?:[,–—]\s*(?:" + "|".join(REFUSAL_TURNS) + r")\b[\s,]*|;\s*)", re.IGNORECASE
)


def is_refusal(sentence: str) -> bool:
    """Whether ``sentence`` declines to answer, in English or German.

    The phrases are the lexicon's ``REFUSALS``, tried again with its fillers ("leider", "I'm
    afraid") dropped, with the commas around them ("Hierzu kann ich, leider, nichts sagen").
    An ASCII sentence without any of the lexicon's ``REFUSAL_KEYWORDS`` is none, found without
    the patterns: dropping a filler leaves a space, so it joins no letters into a keyword.
    """
    if sentence.isascii():
        lowered = sentence.lower()
        if not any(word in lowered for word in REFUSAL_KEYWORDS):
            return False
    if _REFUSAL.search(sentence):
        return True
    plain = _REFUSAL_FILLER.sub(" ", sentence)
    return plain != sentence and _REFUSAL.search(plain) is not None


def split_refusal(sentence: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A refusing sentence's refusals and the answers beside them, split at its turns.

    A turn is a ``REFUSAL_TURNS`` word after a comma or dash, or a semicolon. "I'm not sure,
    but I think the allowance is 120 EUR" gives ``(("I'm not sure",), ("I think the allowance
    is 120 EUR",))``; "Taxis, but not buses, are covered; I cannot say more" keeps its answer
    whole (turns between two answering parts stay in it). A sentence no part of which refuses
    by itself (the phrase spans a turn) is one refusal, as written.
    """
    parts, last = [], 0
    for turn in _TURN.finditer(sentence):
        parts.append((last, turn.start(), turn.end()))
        last = turn.end()
    parts.append((last, len(sentence), len(sentence)))
    refusing = [is_refusal(sentence[a:b]) for a, b, _ in parts]
    if not any(refusing):
        return (sentence,), ()
    refusals = tuple(sentence[a:b] for (a, b, _), r in zip(parts, refusing, strict=True) if r)
    answers: list[str] = []
    first: int | None = None  # the first part of the answer being gathered
    for n, refuses in enumerate([*refusing, True]):
        if not refuses and first is None:
            first = n
        elif refuses and first is not None:  # the answer ends with the part before this one
            answers.append(sentence[parts[first][0] : parts[n - 1][1]])
            first = None
    return refusals, tuple(a for a in answers if a.strip())
