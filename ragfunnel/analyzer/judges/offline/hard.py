"""The hard checks: numbers, dates, amounts, codes, absolute qualifiers and negation.

They look for *contradiction*, not for reasons to doubt a paraphrase: a claim's fact (with its
bound: ``ab 22 Uhr`` needs ``ab``/``from`` before 22:00) is looked up first in the sentences the
claim aligns with, then anywhere in the context (a rate with its period: ``60 EUR a week`` is not
``60 EUR pro Tag``); a fact found nowhere is *absent*, and one whose
place holds another value of the same kind is *contradicted*: an amount or quantity of the same
unit anywhere (``150 EUR`` where the context says ``120 EUR``), or another date, time, amount
or code in the sentences the claim aligns with (``20:00`` where its sentence says ``22:00``;
a date only in the claim's place, or with the same bound: a sentence's other date is often the
page's own, "PUBLISHED DATETIME: 2007-05-22").
A contradicted fact is a hard finding, and so is an *unstated* one (found nowhere, contradicted
nowhere) of a kind in :data:`UNSTATED_IS_HARD` — amounts, quantities, times: on the fitting sets
no claim with such an unstated fact was supported. An unstated plain number, date or code (a
year the cited page never repeats) lowers the score and keeps the claim from being supported,
but is no proof by itself. A strong absolute qualifier (``always``, ``never``, ``jederzeit``,
``unlimited`` …) must be in the context as any phrase of its group. Negation is compared with
the best aligned sentence. Each finding carries the words a reader is shown.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass, field

from ragfunnel.analyzer.judges.offline.index import ContextIndex
from ragfunnel.analyzer.language.lexicon import NUMBER_WORDS, TOKEN, fold
from ragfunnel.analyzer.language.terms import MEASURED, Fact, qualifier_pattern, qualifiers, unit_of

__all__ = [
    "STRONG_QUALIFIERS",
    "UNSTATED_IS_HARD",
    "ClaimFacts",
    "FactCheck",
    "check_facts",
    "missing_qualifiers",
    "neighbours",
    "replaced_facts",
    "widened_scope",
]

ClaimFacts = list[tuple[Fact, str, tuple[str, ...]]]
"""A claim's facts: each with the claim's text of it and its neighbouring words
(:func:`neighbours`), as :func:`check_facts` reads them."""

_NUMBER_WORD = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
_CORE = re.compile(
    rf"\d+(?:[.,:]\d+)*|(?:{_NUMBER_WORD})(?:(?:\s+and\s+|[\s-]+)(?:{_NUMBER_WORD}))*"
)
"""A number as written: its digits, or all its words ("fifty-seven", "two hundred and ten"): the
first alone would find "fifty-seven" in "fifty-one"."""
STRONG_QUALIFIERS = frozenset(("always", "never", "unlimited", "without exception", "guaranteed"))
"""Qualifier groups whose absence from the context is a contradiction; the others (``all``,
``only``, ``must``) are paraphrased too often and only lower the score."""


@dataclass
class FactCheck:
    """What the fact check found for one claim.

    Attributes:
        absent: facts found nowhere, as quoted (``4.2.2``), with what the context says instead
            when it says another value of the same kind (``150 EUR (context: 120 EUR)``).
        contradicted: how many of ``absent`` have such another value.
        hard: those of ``absent`` that are hard findings: the contradicted ones, and the
            unstated ones of a kind in :data:`UNSTATED_IS_HARD`.
        far: facts found only outside the aligned sentences.
        sentences: the sentences where facts were found.
    """

    absent: list[str] = field(default_factory=list)
    contradicted: int = 0
    hard: list[str] = field(default_factory=list)
    far: int = 0
    sentences: set[int] = field(default_factory=set)


def _same_date(claim: str, context: str) -> bool:
    """Dates are ``YYYY-MM-DD`` with 0 for an unknown year or day: the parts both know match."""
    for mine, theirs in zip(claim.split("-"), context.split("-"), strict=True):
        if int(mine) and int(theirs) and int(mine) != int(theirs):
            return False
    return True


_SAME_BOUND = {"at least": "from", "at most": "until"}
"""A lower limit and a start, an upper limit and an end, are one bound when two facts are
compared: "bis 50 EUR" (*until*) is "bis zu 50 EUR" (*at most*), and "since 2011" (a year) is
found in "since October 2011"; *until* and *from* still differ ("bis 22 Uhr", "ab 22:00")."""


def _bound(fact: Fact) -> str:
    return _SAME_BOUND.get(fact.bound, fact.bound)


def _alike(claim: Fact, fact: Fact) -> bool:
    """Whether two facts of one value say the same.

    A bound contradicts only another bound, a period only another period ("60 EUR a week" vs
    "60 EUR pro Tag").
    """
    mine, theirs = _bound(claim), _bound(fact)
    bounds = not mine or not theirs or mine == theirs or _ABOUT in (mine, theirs)
    return bounds and (not claim.period or not fact.period or claim.period == fact.period)


_ABOUT = "about"
_ROUNDED = 0.05
"""How far a rounded value may be from the context's: "about 40 %" is found in "39.8 %", "nearly
1,200 patients" in "1,204 patients"; "about 45 %" is not."""


def _rounds_to(value: float, rounded: float) -> bool:
    return abs(value - rounded) <= _ROUNDED * abs(value)


_STRICT_LIMITS = {"more than": operator.gt, "less than": operator.lt, _ABOUT: _rounds_to}
"""Limits an exact value in the context can satisfy: "more than £500,000" is found in
"£572,206", "about 40 %" in "39.8 %" (:data:`_ROUNDED`). Not "at least"/"at most" (nor
"from"/"until"): they name the limit a rule sets, and "reimbursed up to 60 EUR" or "tickets from
20 EUR" is not stated by a price of 45 or 25 EUR."""


def _within(claim: Fact, fact: Fact) -> bool:
    """An exact amount or quantity of the claim's unit inside the claim's strict limit.

    Only the first reading of each is compared ("500,000" also reads as 500): comparing any two
    readings would let "more than £600,000" pass against "£572,206".
    """
    test = _STRICT_LIMITS.get(claim.bound)
    if test is None or fact.bound or fact.kind != claim.kind or claim.kind not in MEASURED:
        return False
    if unit_of(fact) != unit_of(claim) or not claim.numbers or not fact.numbers:
        return False
    return bool(test(float(fact.numbers[0]), float(claim.numbers[0])))


def _inside(claim: Fact, fact: Fact) -> bool:
    """A plain number inside the claim's strict limit: "more than 100 bodies" for "116 bodies".

    What :func:`_within` is for amounts and quantities, for the plain numbers the in-place
    check compares: a limit states no value, so a value it holds contradicts nothing.
    """
    test = _STRICT_LIMITS.get(claim.bound)
    if test is None or fact.bound or fact.kind != claim.kind or claim.kind != "number":
        return _within(claim, fact)
    if not claim.numbers or not fact.numbers:
        return False
    return bool(test(float(fact.numbers[0]), float(claim.numbers[0])))


def _match(claim: Fact, fact: Fact) -> bool:
    keys = claim.keys
    if claim.kind == "number":
        return any(k in fact.numbers for k in keys)
    if claim.kind == "date":
        return fact.kind == "date" and any(_same_date(k, fact.keys[0]) for k in keys)
    return fact.kind == claim.kind and any(k in fact.keys or _qualified(k, fact) for k in keys)


def _qualified(key: str, fact: Fact) -> bool:
    """A code written with a word before it: "19th" is stated by "mid-19th" ("mid–19th")."""
    return fact.kind == "code" and any(
        theirs.endswith("-" + key) and theirs[: -len(key) - 1].isalpha() for theirs in fact.keys
    )


UNSTATED_IS_HARD = ("amount", "quantity", "time")
"""Kinds whose fact, stated nowhere in the context, is a hard finding by itself: on the fitting
sets no claim with an unstated amount, quantity or time was supported, while about one in eight
with an unstated plain number or date was (a year or a count the cited page leaves implicit)."""
_IN_PLACE = ("amount", "time", "date", "code")
"""Kinds whose other value in the claim's own sentences contradicts it (the sentence states
another date, time, currency or code for what the claim states). Plain numbers and quantities
are not among them: a sentence holds many, about different things ("three frames to take a
10-7 lead")."""


def _look(claim: Fact, index: ContextIndex, sids: list[int], aligned: bool, *,
          words: frozenset[str] = frozenset(),
          around: tuple[str, ...] = ()) -> tuple[int | None, str]:  # fmt: skip
    """The first sentence holding the fact with its bound, and what a sentence says instead.

    ``aligned``: ``sids`` are the sentences the claim aligns with. Of several values a sentence
    states instead, the one in the claim's place is quoted: the one whose stretch of the
    sentence (from the value before it to the one after) holds most of the claim's ``words``
    ("SR-5 (context: SR-3)" for "Reimbursement claims need form SR-5" against "Travel requests
    need form TA-7 and reimbursement claims need form SR-3") — first the one between the claim
    value's own neighbours ("to 2 pm" for "from 10 am to 4 pm") —, else the first.
    """
    instead, closest = "", -1.0
    numeric, limited = index.numeric, claim.bound in _STRICT_LIMITS  # else never _within
    for sid in sids:
        if not numeric[sid]:  # no facts (``facts_of``)
            continue
        found = index.facts_of(sid)
        for n, fact in enumerate(found):
            if _match(claim, fact):
                if _alike(claim, fact):
                    return sid, ""
                instead = instead or fact.text
                closest = max(closest, len(words) + 1)  # the claim's own value: never replaced
            elif limited and (_inside if claim.bound == _ABOUT else _within)(claim, fact):
                # A rounded plain number too ("about 1,200 patients" in "1,204 patients"); a
                # strict limit on one would be met by any larger or smaller count nearby.
                return sid, ""
            elif fact.kind == claim.kind:
                same_unit = claim.kind in MEASURED and unit_of(fact) == unit_of(claim)
                if claim.kind == "date" and not _placed(claim, around, index, sid, n):
                    continue
                if same_unit or (aligned and claim.kind in _IN_PLACE):
                    near = float(_shared(words, index.sentences[sid], found, n)) if words else 0.0
                    if around and _in_its_place(around, index, sid, n):
                        # Before any value not in place ("to 4 pm" against "from 10 am to 2 pm":
                        # 2 pm), after the claim's own; of several in place, by shared words.
                        near = len(words) + 0.5 + 0.49 * near / (len(words) + 1)
                    if near > closest:
                        instead, closest = fact.text, near
    return None, instead


def _in_its_place(around: tuple[str, ...], index: ContextIndex, sid: int, n: int) -> bool:
    """Whether the ``n``-th fact of sentence ``sid`` has the neighbours ``around`` of the claim's."""
    return _same_place(around, places(index, sid)[n])


def _placed(claim: Fact, around: tuple[str, ...], index: ContextIndex, sid: int, n: int) -> bool:
    """Whether the ``n``-th fact of sentence ``sid`` stands in the place of the claim's date.

    Its neighbours are the claim's (``around``, :func:`_same_place`), or both dates are one kind
    of bound ("from 1 April 2025" and "ab dem 1. März 2025", whatever the language); without
    ``around`` every date of the sentence is in place.
    """
    fact = index.fact_spans(sid)[n][0]
    if not around or (claim.bound and _bound(claim) == _bound(fact)):
        return True
    return _same_place(around, places(index, sid)[n])


def _shared(words: frozenset[str], sentence: str, found: list[Fact], n: int) -> int:
    """How many of ``words`` stand between the facts around ``found[n]`` in ``sentence``."""
    begin = found[n - 1].start + len(found[n - 1].text) if n else 0
    end = found[n + 1].start if n + 1 < len(found) else len(sentence)
    return len(words.intersection(TOKEN.findall(sentence[begin:end])))


def _written(fact: Fact, written: str, index: ContextIndex, sids: list[int]) -> int | None:
    """A sentence holding the fact's number as written ("24" in "aged 10-24").

    Only for plain numbers, quantities and codes, whose tokenising varies ("9th-grade",
    "six-bedroomed").
    """
    if fact.kind not in ("number", "quantity", "code"):
        return None
    core = _CORE.search(written)
    if core is None:
        return None
    # A code is found only whole ("pol-2024-08" is not "pol-2024-07" for sharing "2024").
    text = written.strip() if fact.kind == "code" else core.group(0)
    # Only sentences holding the text can match: most hold none, and the pattern is then never
    # compiled (a new one per fact: compiling took 1 % of the judge's time, bench/RESULTS.md).
    sentences = index.sentences
    holding = [s for s in sids if text in sentences[s]]
    if not holding:
        return None
    pattern = re.compile(rf"(?<![\w.,]){re.escape(text)}(?![\d]|[.,]\d)")
    return next((s for s in holding if pattern.search(sentences[s])), None)


_AROUND = 2
"""Neighbour tokens compared on each side of a fact for :func:`_in_place`."""


def neighbours(folded: str, start: int, end: int) -> tuple[str, ...]:
    """The :data:`_AROUND` tokens before a fact (nearest last) and after it (nearest first).

    Callers start a fact at its bound phrase (``Fact.start``): "up to" and "at most" are one
    bound in other words, not the neighbours that place the fact.

    Missing ones are ``""``: ``("the", "were", "(", ...)`` is never produced, only tokens.
    """
    before = TOKEN.findall(folded[max(0, start - 60) : start])[-_AROUND:]
    after = TOKEN.findall(folded[end : end + 60])[:_AROUND]
    return (*[""] * (_AROUND - len(before)), *before, *after, *[""] * (_AROUND - len(after)))


def places(index: ContextIndex, sid: int) -> tuple[tuple[str, ...], ...]:
    """The :func:`neighbours` of each fact of sentence ``sid`` (``fact_spans``; kept with it)."""
    return index.derived(sid, "places", lambda s: tuple(
        neighbours(index.sentences[s], min(start, fact.start), end)
        for fact, start, end in index.fact_spans(s)
    ))  # fmt: skip


def replaced_facts(folded: str, missing: list[str], claim_facts: ClaimFacts,
                   index: ContextIndex, window: list[int]) -> list[str]:  # fmt: skip
    """Facts of the one aligned sentence the claim drops, saying a word of its own in their place.

    "Ihre Daten werden sofort endgültig gelöscht" against "alle Daten werden nach 90 Tagen
    endgültig gelöscht", "data is deleted immediately" against "data is permanently deleted
    after 90 days; …": the claim's word ("sofort", missing from the context) stands where the
    sentence states a fact the claim does not. No contradiction by itself (a paraphrase may say
    a fact in words), so it holds the verdict back (``align.py``), as a swapped name does.
    """
    if not missing or len(window) != 1:
        return []
    sid = window[0]
    spans = index.fact_spans(sid)
    if not spans:
        return []
    stated = {v for fact, _, _ in claim_facts for v in (*fact.keys, *fact.numbers)}
    sentence = index.sentences[sid]
    lost = set(missing)
    words = [m for m in TOKEN.finditer(folded) if m.group(0) in lost]
    out: list[str] = []
    for (fact, _, end), theirs in zip(spans, places(index, sid), strict=True):
        if stated & {*fact.keys, *fact.numbers}:
            continue
        clause_end = not sentence[end:].strip() or sentence[end:].lstrip()[0] in ".;,:)"
        for m in words:
            mine = neighbours(folded, m.start(), m.end())
            last = not folded[m.end() :].strip(" .!")
            if _same_place(mine, theirs) or (last and clause_end and mine[1] == theirs[1] != ""):
                out.append(f"{m.group(0)} (context: {fact.text})")
                break
    return out


_PAIRS = ((1, 2), (0, 1), (2, 3))
"""The neighbours (:func:`neighbours`' positions) one of which pairs :func:`_same_place` needs."""


def _same_place(mine: tuple[str, ...], theirs: tuple[str, ...]) -> bool:
    """Two facts stand in the same place: both nearest neighbours agree, or two on one side."""
    near_before = bool(mine[1]) and mine[1] == theirs[1]
    near_after = bool(mine[2]) and mine[2] == theirs[2]
    far_before = near_before and bool(mine[0]) and mine[0] == theirs[0]
    far_after = near_after and bool(mine[3]) and mine[3] == theirs[3]
    return (near_before and near_after) or far_before or far_after


def _in_place(claim: Fact, around: tuple[str, ...], index: ContextIndex,
              aligned: list[int]) -> str:  # fmt: skip
    """The other number or date an aligned sentence states where the claim states its own.

    A copied sentence with one number changed ("were depression (26 %)" against "were
    depression (19 %)"): the sentence has another number between the same neighbours, and
    none with the claim's value there. Even when the claim's number stands elsewhere in the
    context ("six rural and 18 regional practices … over 18 sessions" against "… 11 regional
    …"), the sentence it copies says otherwise. So for a date: "filming began on 23 January
    1995" against "… began on 16 January 1995" is contradicted though another paragraph of the
    prompt has someone born on 23 January 1995; not when the copied sentence states the claim's
    date anywhere ("took place on 23 February 2011" against "… from 23 February to 6 March
    2011", whose end stands before the claim's next words). ``""`` when it says no other.
    """
    date = claim.kind == "date"
    if not date and (not claim.numbers or claim.kind not in _NUMERIC):
        return ""
    other = ""
    for sid in aligned:
        if not index.numeric[sid]:
            continue
        sentence, written = index.sentences[sid], index.written[sid]
        for (fact, start, end), place in zip(
            index.fact_spans(sid), places(index, sid), strict=True
        ):
            if not _comparable(claim, fact):
                continue
            if date and _match(claim, fact):
                return ""  # anywhere in the sentence: a range's end has the claim's neighbours too
            if not _same_place(around, place):
                continue
            if not date and (_states(claim, fact) or _inside(claim, fact)):
                return ""
            # A date is quoted with its bound ("since 1 July 2024"), as the fact check quotes it.
            begin = min(start, fact.start) if date else start
            other = other or (written if len(written) == len(sentence) else sentence)[begin:end]
    if not other:
        return ""
    # A sentence like the window's elsewhere may state the claim's value in that place. Each of
    # the three ways :func:`_same_place` agrees needs two of the claim's neighbours, tokens of
    # the sentence: one lacking both of every pair is passed over unread (its facts are the
    # judge's dearest reading when no chunk repeats; this spares ~85 % of them).
    pairs = [(around[a], around[b]) for a, b in _PAIRS if around[a] and around[b]]
    for sid in range(len(index.sentences)):
        sentence = index.sentences[sid]
        if (
            index.numeric[sid]
            and sid not in aligned
            and any(a in sentence and b in sentence for a, b in pairs)
        ):
            for (fact, _, _), place in zip(index.fact_spans(sid), places(index, sid), strict=True):
                if _same_place(around, place) and (
                    _match(claim, fact) if date else _states(claim, fact)
                ):
                    return ""
    return other


def _comparable(claim: Fact, fact: Fact) -> bool:
    """Whether :func:`_in_place` compares ``fact`` with the claim's.

    A date with a date; a number, amount or quantity with any of them holding a number.
    """
    if claim.kind == "date":
        return fact.kind == "date"
    return fact.kind in _NUMERIC and bool(fact.numbers)


_NUMERIC = ("number", "quantity", "amount")
"""Kinds :func:`_in_place` compares by value (a date it compares as a date); times and codes
have their own in-place check (:data:`_IN_PLACE`)."""


def _states(claim: Fact, fact: Fact) -> bool:
    """The fact states the claim's value, or ends in it ("2018–19" for "2018-2019")."""
    if _match(claim, fact) or any(k in fact.numbers for k in claim.numbers):
        return True
    digits = claim.text.strip()
    return digits.isdigit() and any(n.endswith(digits) for n in fact.numbers)


def check_facts(claim_facts: ClaimFacts, index: ContextIndex,
                aligned: list[int], copied: bool = False,
                words: frozenset[str] = frozenset()) -> FactCheck:  # fmt: skip
    """Look up each ``(fact, as written, its neighbours)`` of a claim, aligned sentences first.

    ``copied``: the claim copies its aligned sentence (it holds most of the claim's words), so
    a number found nowhere whose neighbours (:func:`neighbours`) stand around another number
    of an aligned sentence is contradicted in place (:func:`_in_place`). ``words``: the claim's
    folded words, to quote the contradicting value in the claim's place (:func:`_look`).
    """
    out = FactCheck()
    rest: list[int] | None = None
    for fact, written, around in claim_facts:
        other = _in_place(fact, around, index, aligned) if copied else ""
        if other:
            out.absent.append(f"{written} (context: {other})")
            out.contradicted += 1
            out.hard.append(out.absent[-1])
            continue
        sid, instead = _look(fact, index, aligned, True, words=words, around=around)
        if sid is None:
            if rest is None:
                chosen = set(aligned)
                rest = [s for s in range(len(index.sentences)) if s not in chosen]
            sid, elsewhere = _look(fact, index, rest, False)
            instead = instead or elsewhere
            if sid is None and not instead:
                sid = _written(fact, fold(written), index, [*aligned, *rest])
            if sid is not None:
                out.far += 1
        if sid is None:
            out.absent.append(f"{written} (context: {instead})" if instead else written)
            out.contradicted += bool(instead)
            if instead or fact.kind in UNSTATED_IS_HARD:
                out.hard.append(out.absent[-1])
        else:
            out.sentences.add(sid)
    return out


def widened_scope(folded: str, index: ContextIndex, window: list[int]) -> list[str]:
    """An "all" of the claim where its one aligned sentence says "only", without "all".

    "Single sign-on is included in all plans" against "… is included only in the Business and
    Enterprise plans": the claim widens what the sentence restricts. "All" and "only" are
    paraphrased too often to be a contradiction, so it holds the verdict back (``align.py``).
    """
    if len(window) != 1:
        return []
    mine = dict(qualifiers(folded))
    if "all" not in mine or "only" in mine:
        return []
    theirs = dict(qualifiers(index.sentences[window[0]]))
    return (
        [f"{mine['all']} (context: {theirs['only']})"]
        if "only" in theirs and "all" not in theirs
        else []
    )


def missing_qualifiers(claim_qualifiers: list[tuple[str, str]],
                       index: ContextIndex) -> tuple[list[str], int]:  # fmt: skip
    """The strong qualifiers the context lacks (as written) and how many weak ones it lacks."""
    strong: list[str] = []
    weak = 0
    for group, phrase in dict.fromkeys(claim_qualifiers):
        pattern = qualifier_pattern(group)
        if any(pattern.search(text) for text in index.chunk_text):
            continue
        if group in STRONG_QUALIFIERS:
            strong.append(phrase)
        else:
            weak += 1
    return strong, weak
