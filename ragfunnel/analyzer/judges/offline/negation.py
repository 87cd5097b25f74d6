"""The negation check: the claim's negation against the context clause that states it.

A hard check of the offline judge (``align.py`` calls it; docs/judges.md §2, "Negation"): the
claim's clause and the aligned window's clauses are compared, a negation negating the
:data:`NEAR` words after it (German: either side).
"""

from __future__ import annotations

import re

from ragfunnel.analyzer.judges.offline.index import ContextIndex
from ragfunnel.analyzer.judges.offline.words import stem
from ragfunnel.analyzer.language.lexicon import CLAUSE_WORDS, NEGATING_NOTHING, NEGATIONS, TOKEN
from ragfunnel.analyzer.language.terms import negated

__all__ = ["NEAR", "negation_finding"]

NEAR = 4
"""A negation negates the words this many words after it (German: either side of it)."""
_STRONG_WINDOW = 0.75
"""A negation is a contradiction only where the context holds this share of the claim's words."""
_CLAUSE = re.compile(r"[,;:()!?]|\.\s|\s-+\s|--|\s(?:" + "|".join(CLAUSE_WORDS) + r")\s")
_NOT_NEGATION = re.compile(r"\bno\.?\s*(?=\d)|\bno-")
_CLAUSE_SHARE = 0.6
"""...and one clause of the aligned window holds this share."""
_NEAR_SHARE = 0.4
"""A negated claim is contradicted when no window clause holding this share is negated."""


def negation_finding(folded: str, roots: list[str], index: ContextIndex, window: list[int],
              coverage: float) -> str:  # fmt: skip
    """A negation disagreement between the claim and the clause of its window that states it.

    The clause (a window sentence cut at commas, semicolons, brackets and "but"/"aber" …) must
    hold most of the claim's words, so a negation elsewhere in the sentence ("…, but it is not
    clear why") contradicts nothing; and a negation negates the words after it
    (:func:`_negated_stems`), so "they didn't think twice … after she was feared to have
    drowned" does not negate "she was feared to have drowned", while "he does not want to
    retire" does agree with "he did not want to retire until he was 91 years old".
    """
    if not window or coverage < _STRONG_WINDOW:
        return ""
    return _clauses(folded, roots, index, window) or _inserted(folded, index, window)


def _clauses(folded: str, roots: list[str], index: ContextIndex, window: list[int]) -> str:
    """The clause comparison of :func:`negation_finding`."""
    mine = ""
    wanted = set(roots)
    for part in _CLAUSE.split(folded):
        mine = _negation_word(part)
        if mine:
            # The negated clause's own words must be stated, negated, in the context.
            wanted = {stem(w, index.german) for w in TOKEN.findall(part)} & set(roots)
            break
    if len(wanted) < 2:
        return ""
    if not mine and not any(index.negation_of(sid) for sid in window):
        # Neither side negates (a clause's negation is its sentence's: clauses are cut at
        # non-letters, so they hold no word or "n't" their sentence lacks).
        return ""
    german = index.german
    scope = _negated_stems(folded, german) & set(roots) if mine else set()
    best, best_held, theirs, negated_near = 0.0, set[str](), "", ""
    for sid in window:
        for clause in _CLAUSE.split(index.sentences[sid]):
            held = {stem(w, german) for w in TOKEN.findall(clause)} & wanted
            share = len(held) / len(wanted)
            found = _negation_word(clause)
            if found and (share >= _NEAR_SHARE or scope & _negated_stems(clause, german)):
                negated_near = negated_near or found
            if share > best:
                # The clause negates the claim only where its negation stands by claim words.
                near = bool(found) and bool(_negated_stems(clause, german) & set(roots))
                best, best_held, theirs = share, held, found if near else ""
    if best < _CLAUSE_SHARE:
        return ""
    if mine and not negated_near and scope & wanted <= best_held:
        # The clause states what the claim negates ("open on Sundays"), without a negation;
        # one that leaves part of it out ("open on weekdays") may say it otherwise ("closed").
        return f"negation '{mine}' (the context does not negate it)"
    if not mine and theirs:
        return f"the context negates it ('{theirs}')"
    return ""


def _plain_tokens(folded: str) -> list[str]:
    return TOKEN.findall(_NOT_NEGATION.sub(" ", _CONTRACTED.sub(" not", folded)))


def _negates(token: str) -> bool:
    return token in NEGATIONS and token not in NEGATING_NOTHING


def _inserted(folded: str, index: ContextIndex, window: list[int]) -> str:
    """A negation the claim inserted into the words it copies from the window.

    A claim that copies a sentence and inserts "not" ("… were not depression (19 %)" against
    "… were depression (19 %)") has a negation whose scope the clause comparison can miss when
    the sentence holds another negation elsewhere. Here the words either side of each claim
    negation ("were" and "depression"; at a clause end the two before it: "Alkohol erstatten
    wir nicht") are looked up as adjacent words in the window and its neighbouring sentences
    (the index cuts sentences at a ';'): where they stand there side by side and nowhere with a
    negation between or after them, the negation is the claim's own. A paraphrase ("never won"
    for "lost") has no such pair and decides nothing.
    """
    mine = _plain_tokens(folded)
    if not any(_negates(token) for token in mine[1:]):  # one opening the claim is skipped below
        return ""  # most claims: nothing inserted, the window's words need not be read
    chunk_of = index.chunk_of
    near = {n for sid in window for n in (sid - 1, sid, sid + 1)
            if 0 <= n < len(index.sentences) and chunk_of[n] == chunk_of[sid]}  # fmt: skip
    theirs = [_plain_tokens(index.sentences[sid]) for sid in sorted(near)]
    for i, token in enumerate(mine):
        if not _negates(token) or i == 0 or _negates(mine[i - 1]):
            continue
        if i + 1 < len(mine) and not _negates(mine[i + 1]):
            pair, tail = (mine[i - 1], mine[i + 1]), False
        elif i >= 2:
            pair, tail = (mine[i - 2], mine[i - 1]), True
        else:
            continue
        # The words the negation negates must stand in that sentence too: "is not open on
        # Sundays" copies nothing from "the reading room is open from 8 am on weekdays".
        scope = set(mine[max(0, i - NEAR) : i] if tail else mine[i + 1 : i + 1 + NEAR]) - NEGATIONS
        plain = negated = False
        for tokens in theirs:
            if not scope <= set(tokens):
                continue
            for k in range(len(tokens) - 1):
                if tail:
                    if (tokens[k], tokens[k + 1]) == pair:
                        after = tokens[k + 2 : k + 2 + NEAR]
                        negated = negated or any(_negates(t) for t in after)
                        plain = plain or not any(_negates(t) for t in after)
                elif tokens[k] == pair[0]:
                    if tokens[k + 1] == pair[1] and k and _negates(tokens[k - 1]):
                        # "should not be stigma" negates what "should be no stigma" does.
                        negated = True
                    elif tokens[k + 1] == pair[1]:
                        plain = True
                    elif _negates(tokens[k + 1]) and pair[1] in tokens[k + 2 : k + 4]:
                        negated = True
        if plain and not negated:
            return f"negation '{token}' (the context states '{' '.join(pair)}' without it)"
    return ""


_CONTRACTED = re.compile(r"n't\b")


def _negated_stems(folded: str, german: bool) -> set[str]:
    """The stems of the words a negation of the text negates.

    In English the :data:`NEAR` words after it and the one before ("is not reimbursed", "no
    vote", "never came"): "… on wednesday night will make no difference" negates "difference",
    not "wednesday night". German also negates a verb before it ("Alkohol erstatten wir
    nicht"): :data:`NEAR` words either side.
    """
    tokens = TOKEN.findall(_NOT_NEGATION.sub(" ", _CONTRACTED.sub(" not", folded)))
    before = NEAR if german else 1
    out: set[str] = set()
    for i, token in enumerate(tokens):
        if token in NEGATIONS and token not in NEGATING_NOTHING:
            out.update(
                stem(t, german) for t in tokens[max(0, i - before) : i + NEAR + 1]
                if t not in NEGATIONS
            )  # fmt: skip
    return out


def _negation_word(folded: str) -> str:
    """The clause's negation, if it has one.

    "without", "ohne", "no 1" and "no-brainer" negate no statement.
    """
    folded = _NOT_NEGATION.sub(" ", folded)
    found = negated(folded)
    if found in NEGATING_NOTHING:
        rest = [w for w in TOKEN.findall(folded) if w in NEGATIONS and w not in NEGATING_NOTHING]
        return rest[0] if rest else ""
    return found
