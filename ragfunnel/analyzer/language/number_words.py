"""Numbers written in words, English and German: "forty-five", "five thousand", "fünfundvierzig".

:func:`as_digits` rewrites each number a folded text spells out as its digits, right-aligned in
the words' own span so that the text keeps its length ("nach neunzig Tagen" reads "nach
     90 Tagen"): the fact reader (``terms.py``) then reads "90 Tage" as it reads the digits, and
its spans still point into the text as written.

A number is one word of :data:`~ragfunnel.analyzer.language.lexicon.NUMBER_WORDS` ("five",
"neunzig", "dritten"), or several words and parts that make one number: tens then a unit
("forty-five", "twenty one"), a unit joined to tens by "und" ("fünfundvierzig", one German
word), a count of hundreds, thousands or millions ("five thousand", "zweihundertfünfzig",
"one hundred and fifty"). Parts that make no number together ("two three-day passes") are
read one by one; a part alone (:data:`~ragfunnel.analyzer.language.lexicon.NUMBER_PARTS`:
"one", "ein", "acht") is no number.
"""

from __future__ import annotations

import re

from ragfunnel.analyzer.language.lexicon import NUMBER_JOINS, NUMBER_PARTS, NUMBER_WORDS, SCALES

__all__ = ["COMPOUND_ENDS", "as_digits", "compound_number", "is_number_word", "spells_numbers"]

_VALUES: dict[str, int] = {**NUMBER_PARTS, **NUMBER_WORDS}
_JOIN = -1
"""A joining word's place in a number's parts ("und" in "fünfundvierzig")."""
_MORPHEME = re.compile("|".join(sorted([*_VALUES, *NUMBER_JOINS], key=len, reverse=True)))
_WORD = re.compile(r"[a-z]+")
_ROUND = (100, 1000, 1_000_000)
_PART = "|".join(sorted(_VALUES, key=len, reverse=True))
_COMPOUND = re.compile(rf"(?<![a-z])(?:{_PART})(?:und)?(?:{_PART})+(?![a-z])")
"""A word of several number parts, maybe joined by "und" ("funfundvierzig", "zweihundert")."""
COMPOUND_ENDS = ("zig", "ssig", "hundert", "tausend", "million")
"""What every such word holds (its tens or its round part): a substring test spares the pattern."""


_AFTER_DIGITS = re.compile(r"\d\s?$")


def _may_hold_compound(folded: str) -> bool:
    return any(end in folded for end in COMPOUND_ENDS)


def spells_numbers(folded: str) -> bool:
    """Whether a folded text may spell a number out in words (cheap; may say yes wrongly).

    A number of one word ("ninety", "neunzig") or of several ("forty five"); a German number of
    several parts in one word ("fünfundvierzig").
    """
    # A number of several words holds a word of NUMBER_WORDS ("one hundred", "forty five"); a
    # part alone ("one", "ein") is none. Every number word is letters a-z only, so it stands
    # alone exactly when one of the text's runs of a-z is it: a set lookup of each run, twice as
    # fast as one pattern of all the words tried at every letter.
    if not NUMBER_WORDS.keys().isdisjoint(_WORD.findall(folded)):
        return True
    return _may_hold_compound(folded) and _COMPOUND.search(folded) is not None


def _word_parts(word: str) -> list[int] | None:
    """The parts of one word ("funfundvierzig" → 5, join, 40), or ``None`` if it is no number."""
    value = _VALUES.get(word)
    if value is not None:
        return [value]
    if word in NUMBER_JOINS:
        return [_JOIN]
    parts: list[int] = []
    pos = 0
    while pos < len(word):
        m = _MORPHEME.match(word, pos)
        if m is None:
            return None
        piece = m.group(0)
        parts.append(_JOIN if piece in NUMBER_JOINS else _VALUES[piece])
        pos = m.end()
    return parts


def is_number_word(word: str) -> bool:
    """Whether a folded word is a number by itself ("neunzig", "funfundvierzig"; not "ein")."""
    if word in NUMBER_WORDS:
        return True
    parts = _word_parts(word)
    return parts is not None and len(parts) > 1 and _value(parts) is not None


def compound_number(folded: str) -> bool:
    """Whether a folded text holds a German number of several parts in one word.

    "funfundvierzig" is no word of ``NUMBER_WORDS``, so a check of a text's words misses it.
    """
    if not _may_hold_compound(folded):
        return False
    return any(is_number_word(m.group(0)) for m in _COMPOUND.finditer(folded))


def _value(parts: list[int]) -> int | None:
    """The number the parts make, or ``None`` when they make none."""
    total = current = 0
    last: int | None = None  # the last part added to ``current``, or None after a round part
    joined = False
    for n in parts:
        if n == _JOIN:
            if joined or (last is None and not current):
                return None
            joined = True
            continue
        if n in _ROUND:
            if last is not None and n == 100 and current >= 100:
                return None
            if n == 100:
                current = (current or 1) * 100
            else:
                total += (current or 1) * n
                current = 0
            last, joined = None, False
            continue
        if last is not None:
            tens_then_unit = last >= 20 and last % 10 == 0 and n < 10 and not joined
            unit_und_tens = last < 10 and n >= 20 and n % 10 == 0 and joined
            if not (tens_then_unit or unit_und_tens):
                return None
        current += n
        last, joined = n, False
    if joined:
        return None
    return total + current


def _runs(folded: str) -> list[list[re.Match[str]]]:
    """Runs of number words and joins standing together (a space or a hyphen between)."""
    runs: list[list[re.Match[str]]] = []
    for m in _WORD.finditer(folded):
        word = m.group(0)
        if word in NUMBER_JOINS:
            if not runs or folded[runs[-1][-1].end() : m.start()] not in (" ", "-"):
                continue  # a join only between parts ("one hundred and fifty")
        elif word not in _VALUES and (not _COMPOUND.fullmatch(word) or _word_parts(word) is None):
            continue
        if runs and folded[runs[-1][-1].end() : m.start()] in (" ", "-"):
            runs[-1].append(m)
        else:
            runs.append([m])
    return runs


def _trimmed(folded: str, run: list[re.Match[str]]) -> list[re.Match[str]]:
    """The run without what is no part of its number at either end.

    A joining word ("and five", "five and"), and a word a hyphen ties to a word that is no
    number: "three-day" and "ten-year-old" are words of their own, as written.
    """
    start, end = 0, len(run)
    while start < end and (
        run[start].group(0) in NUMBER_JOINS or _tied(folded, run[start].start() - 1, -1)
    ):
        start += 1
    while end > start and (
        run[end - 1].group(0) in NUMBER_JOINS or _tied(folded, run[end - 1].end(), 1)
    ):
        end -= 1
    return run[start:end]


def _tied(folded: str, at: int, step: int) -> bool:
    """Whether ``folded[at]`` is a hyphen with a letter beyond it (``step``: the direction)."""
    beyond = at + step
    return (
        0 <= at < len(folded)
        and 0 <= beyond < len(folded)
        and folded[at] == "-"
        and folded[beyond].isalpha()
    )


def _write(out: list[str], start: int, end: int, value: int) -> None:
    digits = str(value)
    if len(digits) <= end - start:
        out[start:end] = list(digits.rjust(end - start))


def as_digits(folded: str) -> str:
    """``folded`` with every number it spells out in words written in digits (same length)."""
    if not spells_numbers(folded):
        return folded
    out: list[str] | None = None
    for found in _runs(folded):
        # Leading and trailing joins are no part of the number ("and five", "five and").
        run = _trimmed(folded, found)
        if not run or (
            run[0].group(0) in SCALES and _AFTER_DIGITS.search(folded, 0, run[0].start())
        ):  # "12 thousand": a scale after digits, which the fact reader reads with them
            continue
        parts: list[int] = []
        for m in run:
            parts.extend(_word_parts(m.group(0)) or [])
        value = _value(parts) if len(parts) > 1 else None
        if value is not None:
            out = out if out is not None else list(folded)
            _write(out, run[0].start(), run[-1].end(), value)
            continue
        for m in run:  # read one by one: each word that is a number alone
            word = m.group(0)
            if is_number_word(word):
                single = _value(_word_parts(word) or [])
                if single is not None:
                    out = out if out is not None else list(folded)
                    _write(out, m.start(), m.end(), single)
    return folded if out is None else "".join(out)
