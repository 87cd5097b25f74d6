"""The exception check: an exception clause the claim adds must be in the context.

A hard check of the offline judge (``align.py`` calls it; docs/judges.md §2, "Exceptions"). A
claim that copies a rule and appends an exception the context lacks ("Alcohol is not
reimbursed, except for one glass of wine per person at client dinners", "…, außer einem Glas
Wein bei Kundenessen") states new content, not a paraphrase: the clause from the exception
phrase (:data:`~ragfunnel.analyzer.language.lexicon.EXCEPTIONS`) to the end of the sentence or
the next clause mark is *unstated* when no context sentence holds two thirds of its content
words ("Client dinners are reimbursed up to 60 EUR per person" holds three of "one glass of
wine per person at client dinners"' five). A condition turned around is new content too: "…,
even if another member has reserved it" against "…, unless another member has reserved it"
(and "auch wenn" / "es sei denn" in German).
"""

from __future__ import annotations

import re

from ragfunnel.analyzer.judges.offline.index import ContextIndex
from ragfunnel.analyzer.judges.offline.words import stem
from ragfunnel.analyzer.language.lexicon import EVEN_IF, EXCEPTIONS, META_WORDS, UNLESS
from ragfunnel.analyzer.language.terms import key_words

__all__ = ["exception_finding"]

_PHRASE = "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in EXCEPTIONS)
_EXCEPTION = re.compile(rf"(?<![\w-])(?:{_PHRASE})(?![\w-])")
_END = re.compile(r"[.;:!?()]|\s-+\s")
_FOUND = 2 / 3
"""An exception clause is stated when one context sentence holds at least this share of its
words."""


def _any_of(phrases: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(
        r"(?<![\w-])(?:"
        + "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in phrases)
        + r")(?![\w-])"
    )


_FLIPS = ((_any_of(EVEN_IF), _any_of(UNLESS)), (_any_of(UNLESS), _any_of(EVEN_IF)))


def _held(roots: set[str], index: ContextIndex) -> dict[int, int]:
    """How many of ``roots`` each context sentence holds (sentences holding none left out)."""
    held: dict[int, int] = {}
    for root in roots:
        for sid in index.postings.get(root, ()):
            held[sid] = held.get(sid, 0) + 1
    return held


def _flipped(folded: str, written: str, index: ContextIndex) -> str:
    """A condition the claim turned around: "even if X" where the context says "unless X".

    The sentence stating most of the clause's words (two thirds) must hold the opposite phrase
    before them; ``""`` otherwise.
    """
    for mine, theirs in _FLIPS:
        m = mine.search(folded)
        if m is None:
            continue
        end = _END.search(folded, m.end())
        stop = end.start() if end else len(folded)
        words = [w for w in key_words(folded[m.end() : stop], []) if w not in META_WORDS]
        if not words:
            continue
        roots = {stem(w, index.german) for w in words}
        for sid, count in _held(roots, index).items():
            other = theirs.search(index.sentences[sid]) if count >= _FOUND * len(roots) else None
            if other is not None:
                said = written[m.start() : stop] if len(written) == len(folded) else m.group(0)
                return f"condition '{said.strip(' ,')}' (the context: '{other.group(0)}')"
    return ""


def exception_finding(folded: str, written: str, index: ContextIndex) -> str:
    """The claim's exception clause the context lacks, as a reader is told it, or ``""``.

    ``written``: the claim as written, to quote (when folding kept its length). A condition
    turned around ("even if" for "unless", :func:`_flipped`) is reported first.
    """
    flipped = _flipped(folded, written, index)
    if flipped:
        return flipped
    # Every exception the claim makes, each up to the next: a copied sentence keeps its own
    # ("apart from decreased verbal fluency") and a generator appends another after it.
    found = list(_EXCEPTION.finditer(folded))
    for k, m in enumerate(found):
        limit = found[k + 1].start() if k + 1 < len(found) else len(folded)
        end = _END.search(folded, m.end(), limit)
        stop = end.start() if end else limit
        clause = folded[m.start() : stop].strip(" ,")
        if not _stated(folded[m.end() : m.start() + len(clause)], index):
            if len(written) == len(folded):
                clause = written[m.start() : m.start() + len(clause)]
            return f"exception '{clause}' (not in the context)"
    return ""


def _stated(clause: str, index: ContextIndex) -> bool:
    """Whether one context sentence holds most of the clause's words (a clause of none is)."""
    words = [w for w in key_words(clause, []) if w not in META_WORDS]
    if not words:
        return True
    roots = {stem(w, index.german) for w in words}
    return max(_held(roots, index).values(), default=0) >= _FOUND * len(roots)
