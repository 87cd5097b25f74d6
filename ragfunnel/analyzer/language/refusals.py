"""Refusals: sentences that decline to answer, in English and German.

"I don't know", "Dazu habe ich leider keine Informationen", "The context does not mention it":
the phrases are the lexicon's ``REFUSALS``, tried again with its ``REFUSAL_FILLERS`` ("leider",
"unfortunately", "I'm afraid") dropped. The claim splitter (``claims.py``) reads a refusal as no
claim, so an answer of refusals only is an abstention.
"""

from __future__ import annotations

import re

from ragfunnel.analyzer.language.lexicon import REFUSAL_FILLERS, REFUSALS

__all__ = ["is_refusal"]

_REFUSAL = re.compile(r"\b(?:" + "|".join(REFUSALS) + ")", re.IGNORECASE)
_REFUSAL_FILLER = re.compile(
    r"(?<!\w)(?:" + "|".join(re.escape(f) for f in REFUSAL_FILLERS) + r")(?!\w)[\s,]*",
    re.IGNORECASE,
)


def is_refusal(sentence: str) -> bool:
    """Whether ``sentence`` declines to answer, in English or German.

    The phrases are the lexicon's ``REFUSALS``, tried again with its fillers ("leider", "I'm
    afraid") dropped.
    """
    if _REFUSAL.search(sentence):
        return True
    plain = _REFUSAL_FILLER.sub("", sentence)
    return plain != sentence and _REFUSAL.search(plain) is not None
