"""Words of a claim or a context, as the offline judge weighs them: folded, stemmed, content only.

Stems come from the Snowball stemmers (``snowballstemmer``, which uses the C build
``PyStemmer`` when it is installed) for English and German, chosen per text by a count of
German function words. *Content* words are the letters-only tokens that are neither stopwords
nor *meta* words (``META_WORDS`` in ``language/lexicon.py``): lead-ins, attributions and
hedges ("according to", "the study shows", "reportedly", "laut", "offenbar") say where a
statement comes from or how sure the writer is, not what it claims, so they never count as
claim content. Numbers, dates and codes are not
words here: the hard checks (``hard.py``) read them.
"""

from __future__ import annotations

import re
from functools import lru_cache

import snowballstemmer

from ragfunnel.analyzer.language.lexicon import ENGLISH_MARKERS, GERMAN_MARKERS

__all__ = ["WORD_TOKEN", "is_german", "lead_in_end", "marks_german", "stem", "tokens"]

WORD_TOKEN = re.compile(r"[^\W_]+(?:-[^\W_]+)*")
"""A word token (:func:`tokens`): letters or digits, hyphenated ones kept whole."""
_STEMMERS = {
    "en": snowballstemmer.stemmer("english"),
    "de": snowballstemmer.stemmer("german"),
}
_CACHE = 1 << 16

# A leading attribution clause: "According to the 2021 report by Smith, …", "Laut dem Text …,",
# "The study shows that …", "Based on the context, …". Everything up to its end is no claim.
_LEAD_IN = re.compile(
    r"^\s*(?:(?:according\s+to|based\s+on|as\s+(?:stated|mentioned|described|noted|shown|"
    r"reported|explained|outlined)\s+(?:in|by)|as\s+per|per|in\s+(?:the|this)\s+\w+|from\s+the\s+"
    r"\w+|laut|gemäß|gemass|nach\s+angaben|ausweislich|wie\s+(?:im|in\s+der|in\s+den)\s+\w+\s+"
    r"(?:beschrieben|erwähnt|angegeben|dargestellt))\b[^,;:]{0,90}?,\s*"
    r"|(?:the|this|that|these|their|our|its|der|die|das|dem)?\s*(?:[\w'-]+\s+){0,5}?"
    r"(?:states?|says?|notes?|mentions?|suggests?|shows?|indicates?|explains?|reports?|finds?|"
    r"found|concludes?|describes?|highlights?|emphasi[sz]es|claims?|argues?|confirms?|reveals?|"
    r"stated|noted|mentioned|suggested|showed|indicated|explained|reported|concluded|described|"
    r"besagt|sagt|zeigt|erwähnt|beschreibt|berichtet|stellt\s+fest)\s+(?:that|dass)\s+"
    r"|it\s+(?:is|was|has\s+been)\s+(?:stated|noted|mentioned|reported|suggested|shown|"
    r"explained|found|known)\s+that\s+|es\s+(?:heißt|heisst|wird\s+\w+),?\s+dass\s+)",
    re.IGNORECASE,
)


def lead_in_end(claim: str) -> int:
    """Where the claim's content starts: after a leading attribution clause, if it has one."""
    m = _LEAD_IN.match(claim)
    if m is None or m.end() >= len(claim) - 3:
        return 0
    return m.end()


def is_german(words: list[str]) -> bool:
    """Whether folded words read as German: at least two of them (or one of few) mark it."""
    return marks_german(sum(map(GERMAN_MARKERS.__contains__, words)), len(words))


def marks_german(hits: int, count: int) -> bool:
    """Whether ``count`` folded words, ``hits`` of them German function words, read as German."""
    return hits >= 2 or (hits == 1 and count < 8)


def reads_german(words: list[str]) -> bool:
    """Whether a chunk's folded words read as German.

    :func:`is_german`, and its German function words outnumber its English ones: "bis" and "des"
    in an English abstract (short for bisphosphonates and diethylstilbestrol) make no German
    chunk.
    """
    german = sum(map(GERMAN_MARKERS.__contains__, words))
    return marks_german(german, len(words)) and german > sum(
        map(ENGLISH_MARKERS.__contains__, words)
    )


@lru_cache(maxsize=_CACHE)
def _stem_en(word: str) -> str:
    return str(_STEMMERS["en"].stemWord(word))


@lru_cache(maxsize=_CACHE)
def _stem_de(word: str) -> str:
    return str(_STEMMERS["de"].stemWord(word))


def stem(word: str, german: bool) -> str:
    """A folded word's Snowball stem (cached: the same words come back in every text)."""
    if len(word) < 4:
        return word
    return _stem_de(word) if german else _stem_en(word)


def tokens(folded: str) -> list[str]:
    """The word tokens of a folded text, hyphenated ones kept whole (``hotel-pauschale``)."""
    return WORD_TOKEN.findall(folded)
