"""Whether an answer states a case's fact by meaning: ``10 pm`` states ``22:00``.

The literal rule (``fact_text.py``: whole tokens after one normalisation) decides first; a fact
it does not find is read by the judges' fact reader (``language/terms.py``, the one that reads
claims and chunks) and looked for among the answer's facts, so the facts check and the judges
agree on what a fact is:

| kind | the fact | the answer may write |
|---|---|---|
| time | ``22:00`` | ``10 pm``, ``10 p.m.``, ``22 Uhr``, ``22.00 Uhr``; ``8:00`` in ``8 bis 22 Uhr`` |
| time | ``12:00``, ``00:00`` | ``noon``, ``midday``, ``Mittag``; ``midnight``, ``Mitternacht`` |
| day | ``Monday``, ``Monday to Friday`` | ``Mon``, ``montags``; ``Mon–Fri``, ``weekdays``, ``werktags`` |
| ordinal | ``3rd``, ``third`` | ``third``, ``Dritter``; ``3rd`` (first to twentieth, erste to zehnte) |
| date | ``2025-03-01`` | ``1. März 2025``, ``1 March 2025``, ``March 1, 2025``, ``01.03.2025`` |
| amount | ``5.000 EUR`` | ``€5,000``, ``5000 Euro``, ``EUR 5.000`` (and ``0,30 €`` = ``0.30 EUR``) |
| quantity | ``30 days`` | ``30 Tage``, ``thirty days``; ``21 Tage`` = ``drei Wochen`` (unit pairs) |
| number | ``5`` | ``five``, ``fünf``, ``5 days``; decimals ``1.32`` = ``1,32`` = ``1·32``; ``twice`` = ``2`` |
| code | ``POL-2024-07`` | exactly that (any case) |

A date matches on the parts both give (``March 2025`` states ``2025-03-00``); an amount or
quantity stated for a period (``60 EUR a day``) does not state another period's. The fact's
words outside its facts (``Firmware`` in ``Firmware 4.2.0``) must be in the answer too, and the
days it names among the answer's (ranges spanned: ``language/terms.py``, ``days``). A fact
without any number, date, time, amount, ordinal or day (``London``, a code) is literal only.
"""

from __future__ import annotations

import re
from functools import lru_cache

import polars as pl

from ragfunnel.analyzer.language.lexicon import DAYS, NAMED_TIMES, NUMBER_WORDS, ORDINALS, fold
from ragfunnel.analyzer.language.number_words import COMPOUND_ENDS
from ragfunnel.analyzer.language.terms import Fact, days, facts, key_words

__all__ = ["restate_by_meaning", "stated_by_meaning"]


_NAMED_TIME = re.compile(r"(?<![a-z])(?:" + "|".join(NAMED_TIMES) + r")(?![a-z])")
_ORDINAL_WORD = re.compile(r"(?<![a-z])(?:" + "|".join(ORDINALS) + r")(?![a-z])")
_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)$")


def _ordinal(n: int) -> str:
    """``n`` as an English ordinal in digits: 1st, 2nd, 3rd, 4th, 11th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _read(text: str) -> tuple[list[Fact], list[str], set[str], frozenset[int]]:
    """A text's facts, its words outside them and the days it names, and every word it holds.

    Words that name a time are read as it ("noon" as 12:00), ordinal words as their digits
    ("third" as 3rd); an ordinal is a fact of its own kind; the words are folded.
    """
    folded = fold(text)
    if _NAMED_TIME.search(folded):
        folded = _NAMED_TIME.sub(lambda m: NAMED_TIMES[m.group(0)], folded)
    if _ORDINAL_WORD.search(folded):
        folded = _ORDINAL_WORD.sub(lambda m: _ordinal(ORDINALS[m.group(0)]), folded)
    found = facts(folded)
    words = key_words(folded, [(start, end) for _, start, end in found])
    read = [_as_ordinal(f) for f, _, _ in found]
    return read, words, set(key_words(folded, [])), frozenset(days(folded))


def _as_ordinal(fact: Fact) -> Fact:
    """A code that is an ordinal in digits ("3rd") as an ordinal fact; any other as it is."""
    if fact.kind != "code":
        return fact
    m = _ORDINAL.match(fact.keys[0])
    return Fact("ordinal", (m.group(1),), fact.text) if m else fact


@lru_cache(maxsize=65_536)
def _read_fact(fact: str) -> tuple[tuple[Fact, ...], tuple[str, ...], frozenset[int]]:
    """A case fact's facts, its other words and its days, read once for every answer.

    A fact holding only codes gives no facts: codes match whole, which the literal rule decides.
    The words that name its days are left to the days ("Mon–Fri" states ``Monday to Friday``).
    """
    wanted, words, _, named = _read(fact)
    if named:
        words = [w for w in words if w not in DAYS]
    return (() if all(f.kind == "code" for f in wanted) else tuple(wanted)), tuple(words), named


# A fact that is one code ("POL-2024-07", "fact17"): matched whole, by the literal rule alone.
_ONE_CODE = r"(?i)^\s*(?:[a-z]+[-_/]?[0-9]|[0-9]+[-_/]?[a-z])[a-z0-9]*(?:[-_/][a-z0-9]+)*\s*$"
# ... but an ordinal in digits ("3rd") is none: "third" states it.
_ONE_ORDINAL = r"(?i)^\s*\d+(?:st|nd|rd|th)\s*$"


# Where a fact can be written: a digit, a currency sign, a word of a number, time, day or
# ordinal (English or German).
def _unfolded(word: str) -> str:
    """A folded word as a pattern that also finds it as written ("funf" finds "fünf")."""
    return (
        word.replace("ss", "(?:ss|ß)")
        .replace("u", "[uü]")
        .replace("o", "[oö]")
        .replace("a", "[aä]")
    )


_DIGIT_OR_CURRENCY = "[0-9€$£]"
_FACT_WORD = (
    "(?i)\\b(?:"
    + "|".join(map(_unfolded, [*NUMBER_WORDS, *NAMED_TIMES, *DAYS, *ORDINALS]))
    + ")\\b"
    # German numbers written as one word: "fünfundvierzig", "zweihundert", "zehntausend".
    + "|(?:"
    + "|".join(map(_unfolded, COMPOUND_ENDS))
    + ")\\b"
)


def _may_hold(texts: pl.Series) -> pl.Series:
    """Whether each text may hold a fact: a digit or a currency sign, else a word of one.

    The words: numbers, times ("noon"), days ("Mon") and ordinals ("third").

    The word pattern (a long alternation between word boundaries) costs several times the
    character class, so it reads only the texts the class did not find.
    """
    found = texts.str.contains(_DIGIT_OR_CURRENCY).fill_null(False)
    rest = (~found).arg_true()
    if rest.is_empty():
        return found
    return found.scatter(rest, texts.gather(rest).str.contains(_FACT_WORD).fill_null(False))


def _dates_alike(a: str, b: str) -> bool:
    """Two ``YYYY-MM-DD`` keys agree on every part both give (``0`` parts are not given)."""
    return all(
        x == y or int(x) == 0 or int(y) == 0
        for x, y in zip(a.split("-"), b.split("-"), strict=True)
    )


def _states(answer: Fact, fact: Fact) -> bool:
    if fact.kind == "number":  # a bare number is found in any fact holding it
        return bool(set(fact.keys) & {*answer.keys, *answer.numbers})
    if answer.kind != fact.kind:
        return False
    if fact.kind == "date":
        return any(_dates_alike(a, f) for a in answer.keys for f in fact.keys)
    if fact.period and answer.period and fact.period != answer.period:
        return False
    return bool(set(fact.keys) & set(answer.keys))


def stated_by_meaning(answer: str, fact: str) -> bool | None:
    """Whether ``answer`` states every fact ``fact`` holds (table above).

    ``None`` when ``fact`` holds no number, date, time, amount, ordinal, code or day: then only
    the literal rule can say.
    """
    wanted, words, named = _read_fact(fact)
    if not wanted and not named:
        return None
    given, _, answer_words, answer_days = _read(answer)
    if not all(w in answer_words for w in words) or not named <= answer_days:
        return False
    return all(any(_states(a, f) for a in given) for f in wanted)


def restate_by_meaning(found: pl.Series, answers: pl.Series, facts_: pl.Series) -> pl.Series:
    """``found`` (the literal rule's result per row) with the misses read by meaning.

    Only rows with an answer that may hold a fact (a digit, a currency sign, a number word)
    and a fact that the literal rule missed are read again, each case fact once, so the usual
    case costs nothing beyond the vectorised check.
    """
    # The cheap tests first, each pattern only on the rows the tests before it leave.
    rows = ((~found.fill_null(True)) & answers.is_not_null() & facts_.is_not_null()).arg_true()
    wanted = facts_.gather(rows)
    one_code = wanted.str.contains(_ONE_CODE) & ~wanted.str.contains(_ONE_ORDINAL)
    rows = rows.filter(~one_code.fill_null(False))
    rows = rows.filter(_may_hold(answers.gather(rows)))
    if rows.is_empty():
        return found
    again = [
        bool(stated_by_meaning(a, f))
        for a, f in zip(answers.gather(rows).to_list(), facts_.gather(rows).to_list(), strict=True)
    ]
    return found.scatter(rows, pl.Series(again, dtype=pl.Boolean))
