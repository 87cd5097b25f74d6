"""A claim's names: those the context holds nowhere, and those its aligned sentence swaps.

A name is a capitalised word after the claim's first word (English claims: German capitalises
every noun) or an acronym; a word glued to the full stop before it ("products.Participants", a
heading an abstract runs on) opens a sentence, so it is a first word too; months and weekdays
are dates, not names (docs/judges.md §2).
Adjacent names form one phrase, missing only when none of its words is in the context. A
missing name lowers the score (``names_missing``) and keeps a claim from being supported; a
*swapped* one, where the one sentence the claim aligns with names another in its place, is a
contradiction check (``checks.py``).
"""

from __future__ import annotations

import itertools
import re

from ragfunnel.analyzer.judges.offline.hard import ClaimFacts
from ragfunnel.analyzer.judges.offline.index import ContextIndex
from ragfunnel.analyzer.judges.offline.words import stem
from ragfunnel.analyzer.language.lexicon import (
    GERMAN_ARTICLES,
    LETTERS,
    META_WORDS,
    MONTHS,
    NEGATIONS,
    STOPWORDS,
    TOKEN,
    WEEKDAYS,
    fold,
)
from ragfunnel.analyzer.language.terms import days, negated

__all__ = ["missing_names", "swapped_names", "swapped_nouns"]

_NAME = re.compile(r"(?<![\w-])(?:[A-ZÄÖÜ]{2,}[a-zäöü]?|[A-ZÄÖÜ][\w'-]+)")
_NOUN_WINDOW = 2
"""The aligned sentences a swapped German noun is looked for in (:func:`swapped_nouns`)."""
_CAPITALISED = re.compile(r"(?<![\w-])[A-ZÄÖÜ][a-zäöüß]+")


def _opens_sentence(text: str, word: re.Match[str]) -> bool:
    """Whether ``word`` (not an acronym) is glued to a sentence's end: "products.Participants".

    Text pasted from abstracts and slides runs a heading on after a full stop with no space; the
    claim splitter keeps such a run whole, so the capital there opens a sentence and names
    nothing. An acronym ("results.HCT") is still a name.
    """
    at = word.start()
    return (
        at >= 2
        and text[at - 1] in ".!?"
        and (text[at - 2].islower() or text[at - 2].isdigit() or text[at - 2] in ")]")
        and not word.group(0)[:2].isupper()
    )


def _names(claim: str, german: bool) -> list[list[str]]:
    """The claim's names, folded, grouped by phrase (``United States`` is one).

    A name is a capitalised word after the first word (English) or an acronym; months and
    weekdays are dates, not names. Adjacent names form one phrase.
    """
    phrases: list[list[str]] = []
    last_end = -2
    first = True
    for m in _NAME.finditer(claim):
        word = m.group(0)
        acronym = word[:2].isupper()
        if first and not claim[: m.start()].strip(" \t\"'“„‘(["):
            first = False
            if not acronym:
                last_end = m.end()
                continue
        first = False
        if german and not acronym:
            continue  # German capitalises every noun.
        if _opens_sentence(claim, m):
            last_end = -2
            continue
        folded = fold(word).strip("'-")
        if (
            folded in STOPWORDS
            or folded in META_WORDS
            or folded in NEGATIONS
            or folded in MONTHS
            or folded in WEEKDAYS
            or not folded.isalpha()
        ):
            last_end = -2
            continue
        if phrases and claim[last_end : m.start()].strip() == "" and last_end >= 0:
            if folded not in phrases[-1]:
                phrases[-1].append(folded)
        elif not any(folded in p for p in phrases):
            phrases.append([folded])
        last_end = m.end()
    return phrases


def _name_missing(name: str, in_facts: str, index: ContextIndex) -> bool:
    """A name is missing when neither the facts nor the context hold it (nor its long form)."""
    return (
        name not in in_facts
        and name not in index.tokens
        and index.holding(name, stem(name, index.german)) is None
        and not _spelt_out(name, index)
    )


def _spelt_out(name: str, index: ContextIndex) -> bool:
    """An acronym the context writes out: "mfa" in "Multi-factor authentication is …".

    Consecutive words (hyphenated parts count as words) whose initials spell it; three to six
    letters. Two letters would be spelt by chance too often, so they need capitalised words
    standing together, a name written out: "LA" in "… from Los Angeles", "US" in "the United
    States" (BEGIN's dialogue responses abbreviate so).
    """
    if len(name) == 2 and name.isalpha():
        return any(
            name in index.derived(sid, "name initials", lambda s: _name_initials(index.written[s]))
            for sid in range(len(index.written))
        )
    if not 3 <= len(name) <= 6 or not name.isalpha():
        return False
    for sid in range(len(index.sentences)):
        initials, content = index.derived(sid, "initials", lambda s: _initials(index.sentences[s]))
        if name in initials or name in content:
            return True
    return False


def _initials(sentence: str) -> tuple[str, str]:
    """The initials of a folded sentence's words, and of its content words alone.

    "nasm": "National Air and Space Museum" leaves its function words out.
    """
    words = LETTERS.findall(sentence)
    return "".join(w[0] for w in words), "".join(w[0] for w in words if w not in STOPWORDS)


def _abbreviated(phrase: list[str], index: ContextIndex) -> bool:
    """A name of two or more words the context abbreviates: "united kingdom" in "UK", "U.K."."""
    if len(phrase) < 2:
        return False
    initials = "".join(word[0] for word in phrase)
    if initials in index.tokens:
        return True
    dotted = ".".join(initials) + "."
    return any(dotted in text for text in index.chunk_text)


def _name_initials(sentence: str) -> list[str]:
    """The folded initials of each two capitalised words standing together in ``sentence``."""
    words = list(_CAPITALISED.finditer(sentence))
    return [
        fold(a.group(0)[0] + b.group(0)[0])
        for a, b in itertools.pairwise(words)
        if not sentence[a.end() : b.start()].strip()
    ]


def missing_names(content: str, claim_facts: ClaimFacts, german: bool,
                  index: ContextIndex) -> list[str]:  # fmt: skip
    """The claim's names the context holds nowhere (a phrase only when none of it is there).

    ``german``: the claim reads as German (then only acronyms are names).
    """
    in_facts = " ".join(fold(w) for _, w, _ in claim_facts)
    return [
        *(
            m
            for phrase in _names(content, german)
            if all(_name_missing(n, in_facts, index) for n in phrase)
            and not _abbreviated(phrase, index)
            for m in phrase
        ),
        *_days_missing(fold(content), index),
    ]


def _days_missing(folded: str, index: ContextIndex) -> list[str]:
    """The claim's words naming a day of the week the context neither names nor spans.

    "auch samstags geöffnet" against "montags bis freitags geöffnet": the claim adds a day. A
    day is no name (:func:`_names`), but a claim naming one the context lacks is not supported.
    """
    held = index.day_sentences
    out: list[str] = []
    for day, at in days(folded).items():
        if day not in held:
            word = LETTERS.match(folded, at)
            if word and word.group(0) not in out:
                out.append(word.group(0))
    return out


def swapped_names(names: list[str], missing: list[str], folded: str, index: ContextIndex,
                  window: list[int]) -> list[str]:  # fmt: skip
    """Missing names the aligned sentence replaces with its own (``munich (context: Berlin)``).

    Only for a claim whose missing words are all names (``names``, of its ``missing`` words)
    and that aligns with one sentence (``window``) naming others, after its first word, that the
    claim (``folded``) does not hold; not for a negated claim, which denies its name of them.
    """
    if not names or not window or len(window) > 1 or set(missing) - set(names):
        return []
    if negated(folded):
        # "SSO isn't included in the Starter plan" against "included only in the Business and
        # Enterprise plans": a claim denying its name of the sentence's is no swap.
        return []
    theirs = _named_instead(index.written[window[0]], folded, STOPWORDS)
    if not theirs:
        return []
    return [f"{name} (context: {', '.join(theirs)})" for name in names]


def _named_instead(sentence: str, folded: str, skip: frozenset[str]) -> list[str]:
    """The capitalised words of ``sentence`` after its first that the claim (``folded``) lacks."""
    others = [
        m.group(0)
        for m in _NAME.finditer(sentence)
        if m.start() > 0 and not _opens_sentence(sentence, m)
    ]
    return [o for o in dict.fromkeys(others) if fold(o) not in folded and fold(o) not in skip]


def swapped_nouns(content: str, missing: list[str], index: ContextIndex,
                  window: list[int]) -> list[str]:  # fmt: skip
    """German nouns of the claim the aligned sentence holds another noun in place of.

    German capitalises every noun, so its nouns are no names (:func:`missing_names`); but a
    claim that copies one sentence and swaps its noun ("… per E-Mail an die Buchhaltung"
    against "… per E-Mail an das Studiomanagement") names something the context does not. In
    place means between the same words (articles aside), as for planted numbers: a noun a
    paraphrase moves ("Anspruch auf einen Dienstwagen" for "Dienstwagen stehen … zu") is not
    swapped. The verdict holds it back (not supported); the score is not changed, as a synonym
    in place ("Karte" for "Ausweis") swaps a noun too: a case for a stronger judge, never blame.
    """
    if not index.german or not missing or not window or len(window) > _NOUN_WINDOW:
        return []
    lost = set(missing)
    # A hyphenated noun is swapped when a part of it is missing ("an das Support-Team").
    mine = [fold(m.group(0)) for m in _NAME.finditer(content) if m.start() > 0]
    nouns = [w for w in dict.fromkeys(mine) if lost.intersection(w.split("-"))]
    if not nouns:
        return []
    folded = fold(content)
    claim_tokens = _plain(folded.replace("-", " "))
    out = []
    for noun in nouns:
        first = noun.split("-")[0]
        for sid in window:  # the claim may align with a sentence beside ("für Jahrestarife")
            sentence = index.written[sid]
            theirs = _named_instead(sentence, folded, STOPWORDS | META_WORDS | WEEKDAYS)
            their_tokens = _plain(fold(sentence))
            placed = [
                o for o in theirs if _same_neighbours(claim_tokens, first, their_tokens, fold(o))
            ]
            if placed:
                out.append(f"{noun} (context: {', '.join(placed)})")
                break
    return out


def _plain(folded: str) -> list[str]:
    """A folded text's tokens without articles ("an die Buchhaltung" → "an", "buchhaltung")."""
    return [t for t in TOKEN.findall(folded) if t not in GERMAN_ARTICLES]


def _same_neighbours(mine: list[str], noun: str, theirs: list[str], other: str) -> bool:
    """Whether ``noun`` in ``mine`` and ``other`` in ``theirs`` stand between the same tokens.

    The same token before them and the same after, or the same two before.
    """
    if noun not in mine or other not in theirs:
        return False
    i, j = mine.index(noun), theirs.index(other)

    def at(tokens: list[str], k: int) -> str:
        return tokens[k] if 0 <= k < len(tokens) else ""

    before = bool(at(mine, i - 1)) and at(mine, i - 1) == at(theirs, j - 1)
    after = at(mine, i + 1) == at(theirs, j + 1)
    return before and (after or at(mine, i - 2) == at(theirs, j - 2) != "")
