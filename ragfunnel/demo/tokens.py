"""Word tokens for the demo's search and answer steps (English and German).

Codes such as ``FW-E1742``, ``4.2.0`` or ``EXP-LR-2`` stay one token: a keyword index must
find them exactly. Pure functions only.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"\w+(?:[-.:/]\w+)*")
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "its",
        "may",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "so",
        "that",
        "the",
        "their",
        "this",
        "to",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "you",
        "your",
        "must",
        "am",
        "after",
        "before",
        "much",
        "many",
        "long",
        "there",
        "than",
        "then",
        "not",
        "no",
        "yes",
        "if",
        "any",
        "all",
        "each",
        "per",
        "get",
        "got",
        "has",
        "have",
        "had",
        "into",
        "out",
        "about",
        "under",
        "over",
        "also",
        "only",
        "should",
        "would",
        "could",
        "der",
        "die",
        "das",
        "den",
        "dem",
        "des",
        "ein",
        "eine",
        "einer",
        "einen",
        "und",
        "oder",
        "ist",
        "sind",
        "wie",
        "wer",
        "was",
        "wann",
        "wo",
        "ab",
        "bei",
        "mit",
        "von",
        "zu",
        "zum",
        "zur",
        "für",
        "im",
        "in",
        "am",
        "auf",
        "muss",
        "ich",
        "es",
        "gibt",
        "viele",
        "hoch",
        "lange",
        "welche",
        "welcher",
        "welchem",
    ]
)


def tokens(text: str) -> list[str]:
    """Lower-cased tokens without stop words, codes kept whole."""
    return [t for t in _TOKEN.findall(text.lower()) if t not in STOPWORDS]


def is_code(token: str) -> bool:
    """A token that names something exactly: it mixes letters and digits, or joins parts."""
    has_digit = any(ch.isdigit() for ch in token)
    return (has_digit and any(ch.isalpha() for ch in token)) or (
        has_digit and any(ch in "-./" for ch in token)
    )


def stem(token: str) -> str:
    """A crude prefix stem (allowance/allowed → allow); codes and numbers are left alone."""
    if any(ch.isdigit() for ch in token) or len(token) <= 5:
        return token
    return token[:5]


def stems(text: str) -> list[str]:
    """``stem`` of every token of ``text``."""
    return [stem(t) for t in tokens(text)]


def sentences(text: str) -> list[str]:
    """Sentences of a chunk (split after ., ! or ? followed by a space and a capital or digit)."""
    parts = re.split(r"(?<=[.!?])\s+(?=[A-ZÄÖÜ0-9`])", text.strip())
    return [p for p in parts if p]
