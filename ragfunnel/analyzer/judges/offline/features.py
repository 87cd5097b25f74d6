"""What a claim *is*, beside how much of it the context holds: chit-chat and questions.

A response that says "I love that movie, have you seen it?" to a knowledge sentence about the
film shares the film's name and little else; word overlap ranks it by the name alone. What
marks it as not attributable is its speaker: first-person words and words of liking or
believing that the context does not hold ("i", "my", "love", "think"), and a question, which
asks rather than states. Two features (:data:`DIALOGUE_FEATURES`), appended to
``align.FEATURES`` and fitted with them (``bench/judge_fit.py``):

- ``chat``: ``log(1 + n)`` of the claim's first-person and opinion words (``SPEAKER_WORDS``
  in ``language/lexicon.py``) the context lacks, counted as written: ``I``, ``I'm``, ``my``,
  ``love`` — not ``US`` (the country), the ``I`` of ``World War I``, ``ill`` or an ``Id``
  that is a name's part; a word the context holds too (a quoted "I" in a news story) is no
  speaker's;
- ``question``: 1 when the claim holds a question mark.

Second-person words are left out: an answer to a user says "you must report it within 24
hours" where the policy says "employees must", and that is no chit-chat. English only: the
fitting sets' dialogue responses (BEGIN) are English; a German claim holds none of these
words.
"""

from __future__ import annotations

import math

from ragfunnel.analyzer.judges.offline.index import ContextIndex
from ragfunnel.analyzer.language.lexicon import SPEAKER_WORDS, TOKEN, fold

__all__ = ["DIALOGUE_FEATURES", "dialogue_features"]

DIALOGUE_FEATURES = ("chat", "question")
"""The features this module measures, in order (appended to ``align.FEATURES``)."""

_APOSTROPHES = str.maketrans("", "", "'’")
_FIRST_PERSON = frozenset(["I", "Im", "Ive", "Id", "Ill"])
_AMBIGUOUS = frozenset(["id", "ill"])
"""Folded forms that are words of their own unless written with a capital ``I``."""


def _speaker(written: list[str], n: int) -> bool:
    """Whether the ``n``-th written word is a speaker's word (see the module docstring)."""
    word = written[n]
    folded = fold(word)
    if folded not in SPEAKER_WORDS:
        return False
    if folded in _AMBIGUOUS:
        return word in _FIRST_PERSON
    if word in _FIRST_PERSON:
        # "World War I", "Henry I": a capital before it (not the first word) makes it a numeral.
        return not (n > 1 and written[n - 1][:1].isupper())
    # As written: "US" is a country. The first word may be capitalised, unless a capitalised
    # word follows it: "Great Britain" is a name ("Yes I do" is not).
    if n == 0 and word[1:].islower():
        after = written[1] if len(written) > 1 else ""
        return not after[:1].isupper() or after in _FIRST_PERSON
    return word.islower()


def dialogue_features(content: str, index: ContextIndex) -> tuple[float, float]:
    """``chat`` and ``question`` of a claim's content (after its lead-in) in this context."""
    written = TOKEN.findall(content.translate(_APOSTROPHES))
    seen = index.tokens
    chat = sum(_speaker(written, n) and fold(word) not in seen for n, word in enumerate(written))
    return math.log1p(chat), float("?" in content)
