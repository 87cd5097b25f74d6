"""What a claim commits to, normalised: numbers, amounts, times, dates, codes, words.

One pass of one regular expression over folded text finds the *facts* — amounts with their
currency (``120 Euro`` = ``120 EUR`` = ``€120``), quantities with their unit (``30 Tage`` =
``30 days``), times (``22 Uhr`` = ``22:00`` = ``10 pm``), dates (``1. Juli 2024`` =
``2024-07-01`` = ``July 1, 2024``), versions and codes (``4.2.1``, ``POL-2024-07``) and plain
numbers — each with the *bound* word right before it (``ab``, ``bis zu``, ``at least`` …),
and an amount or quantity with the *period* it is a rate for (``60 EUR a day`` = ``60 Euro
täglich`` = ``60 EUR pro Tag``).
Ambiguous separators give every reading (``1.200`` is 1200 or 1.2), so a comparison matches if
any reading does.

This module extracts and normalises; it never decides support (``offline.py`` does).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ragfunnel.analyzer.language.lexicon import (
    BOUNDS,
    COMPOUND_SINGULARS,
    CURRENCIES,
    DAY_PARTS,
    DAYS,
    MONTHS,
    NEGATIONS,
    NUMBER_WORDS,
    PERIODS,
    QUALIFIERS,
    SCALES,
    STOPWORDS,
    UNIT_CONVERSIONS,
    UNITS,
)
from ragfunnel.analyzer.language.number_words import as_digits

__all__ = [
    "MEASURED",
    "Fact",
    "days",
    "facts",
    "key_words",
    "may_hold_facts",
    "negated",
    "qualifier_pattern",
    "qualifiers",
    "unit_of",
    "values",
]

_NUM = r"\d{1,3}(?:[.,']\d{3})+(?:[.,]\d{1,2})?(?!\d)|\d+(?:[.,]\d+)?"
_SCALE_WORD = "|".join(sorted(SCALES, key=len, reverse=True))
_SCALE = rf"(?:\s?(?:{_SCALE_WORD})(?![a-z]))?"
"""A scale word after a number ("2.5 million", "3 Mrd."), read with it (:func:`values`)."""
_SCALE_AT_END = re.compile(rf"\s?({_SCALE_WORD})$")
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_CURRENCY_BEFORE = r"us\$|€|\$|£|eur|usd|gbp|chf"
_CURRENCY_AFTER = r"€|\$|£|euros?|eur|usd|dollars?|gbp|pfund|pounds?|chf|franken"
_UNIT = (
    r"%|prozent|per\s?cent|percent|working\s+days|business\s+days|werktagen?|"
    r"(?:kilo|centi|milli)?met(?:re|er)s?|zentimeter|kilograms?|kilogramm|grams?|gramm|"
    r"(?:milli)?lit(?:re|er)s?|"
    r"km|cm|mm|kg|ml|"
    r"tb/s|gb/s|mb/s|tb|gb|mb|kb|ms|sekunden|sekunde|seconds?|sec|minuten|minutes?|min|stunden|"
    r"stunde|hours?|std|h|days?|tagen?|tag|weeks?|wochen?|months?|monaten?|monat|years?|"
    r"jahren?|jahr|nights?|nachten?|nacht|m|g|l|s"
)
_COMPOUND_UNIT = r"tagen?|tag|wochen?|monaten?|monat|jahren?|jahr|stunden?|minuten?|nachten?|nacht"
_UNIT_AFTER_WORD = r"days?|weeks?|months?|years?|hours?|minutes?|nights?"
_SUFFIX = r"uhr|[ap]\.\s?m\.|[ap]\.m|[ap]m|o'clock"
_DAY_PART = "|".join(DAY_PARTS)
_SUFFIX_DASH = frozenset(("am-", "pm-", "uhr-"))
_FACT = re.compile(
    r"(?<![\d.,])(?P<family>\d+(?:\.\d+)*\.x)(?!\w|\.\w)"  # a version family: 4.2.x, 5.x
    # A decade: "1990s", "1990's", "mid-1990s", "1990er" (not 1,990 seconds, nor a code).
    r"|(?<![\d.,])(?P<decade>1\d{2}0|20\d0)(?:'|\u2019)?(?:s|er)(?![a-z0-9])"
    rf"|(?<![\d.,])(?P<dotted>\d+(?:\.\d+){{2,}})(?![\d])"
    rf"|(?<!\d)(?P<yi>\d{{4}})-(?P<moi>\d{{1,2}})-(?P<di>\d{{1,2}})(?!\d)"
    rf"|(?<![\d.,])(?P<dd>\d{{1,2}})(?:\.|st|nd|rd|th)?\s(?:of\s)?(?P<mm>{_MONTH})(?![a-z])\.?"
    rf"(?:,?\s(?P<yy>\d{{4}}))?"
    rf"|(?<![a-z])(?P<mm2>{_MONTH})\.?\s(?P<dd2>\d{{1,2}})(?!\d)(?:st|nd|rd|th)?"
    rf"(?:,?\s(?P<yy2>\d{{4}}))?"
    rf"|(?<![a-z])(?P<mm3>{_MONTH})\s(?P<yy3>\d{{4}})"
    rf"|(?<![\d.,])(?P<h1>\d{{1,2}}):(?P<m1>[0-5]\d)(?:\s?(?P<s1>{_SUFFIX})(?:\s(?P<dp1>{_DAY_PART})(?![a-z]))?)?(?![\d])"
    rf"|(?<![\d.,])(?P<h2>\d{{1,2}})\.(?P<m2>[0-5]\d)\s?(?P<s2>{_SUFFIX})(?:\s(?P<dp2>{_DAY_PART})(?![a-z]))?(?![a-z])"
    rf"|(?<![\d.,])(?P<h3>\d{{1,2}})\s?(?P<s3>{_SUFFIX})(?:\s(?P<dp3>{_DAY_PART})(?![a-z]))?(?![a-z])"
    rf"|(?P<cb>{_CURRENCY_BEFORE})\s?(?P<nb>(?:{_NUM}){_SCALE})(?P<kb>k(?![a-z0-9]))?"
    rf"|(?<![\d.,])(?P<na>(?:{_NUM}){_SCALE})(?:,-)?\s?(?P<ca>{_CURRENCY_AFTER})(?![a-z])"
    rf"|(?<![\d.,])(?P<nu>{_NUM})[\s-]?(?P<u>{_UNIT})(?![a-z0-9])"
    # A unit ending a compound ("30 Urlaubstage") or after one word ("30 vacation days"):
    # the quantity is the number alone, so the words stay the claim's and the context's own.
    rf"|(?<![\d.,])(?P<nc>{_NUM})(?=\s(?P<cw>[a-z]{{3,}}?)(?P<cu>{_COMPOUND_UNIT})(?![a-z0-9]))"
    rf"|(?<![\d.,])(?P<ne>{_NUM})(?=\s(?P<ew>[a-z]{{3,}})\s(?P<eu>{_UNIT_AFTER_WORD})(?![a-z0-9]))"
    r"|(?<![\w-])(?=[a-z0-9_/-]*\d)(?=[a-z0-9_/-]*[a-z])(?P<code>[a-z0-9]+(?:[-_/][a-z0-9]+)*)"
    r"(?![\w-])"
    rf"|(?<![\d.,\w])(?P<n>(?:{_NUM}){_SCALE})"
)
_TRIGGER = re.compile(r"[\d€$£]")
_TOKEN_BEFORE = re.compile(r"(?<![\w/-])[a-z][a-z0-9_/-]*$")
_LEAD = re.compile(rf"(?<![a-z])(?:{_MONTH}|us\$|eur|usd|gbp|chf)\.?\s?$")
_WORD = re.compile(r"[^\W\d_]+")
_NOT = re.compile(r"n't\b")
_MIDDLE_DOT = re.compile(r"(?<=\d)·(?=\d)")
_SPACES = re.compile(r"\s+")  # compiled once: re.sub(pattern, ...) looks it up on every call


def _phrases(
    groups: tuple[tuple[str, tuple[str, ...]], ...],
) -> tuple[re.Pattern[str], dict[str, str]]:
    owner = {phrase: name for name, phrases in groups for phrase in phrases}
    ordered = sorted(owner, key=len, reverse=True)
    alternation = "|".join(re.escape(p) for p in ordered)
    return re.compile(rf"(?<![a-z])(?:{alternation})(?![a-z])"), owner


_QUALIFIER, _QUALIFIER_OF = _phrases(QUALIFIERS)
_BOUND_OF = {phrase: name for name, phrases in BOUNDS for phrase in phrases}
_LIMIT_WORDS = frozenset(phrase for phrase, name in _BOUND_OF.items() if name != "about")
"""Bound words that are no content word: the rounding words ("around", "almost") stay words
where no number follows them."""
_BOUND_WINDOW = 28
_BOUND_LAST = frozenset(phrase.split()[-1] for phrase in _BOUND_OF)
"""The last word of every bound phrase: a window ending in no such word holds none (most)."""
MEASURED = frozenset({"amount", "quantity"})
"""The kinds of fact measured in a unit (a currency, ``day``, ``kg`` …): only they are rates
for a period, and another value of the same unit contradicts them anywhere."""
_PERIOD_OF = {w: name for name, nouns, adverbs in PERIODS for w in (*nouns, *adverbs)}
_PERIOD_NOUN = "|".join(n for _, nouns, _ in PERIODS for n in nouns)
_PERIOD_ADVERB = "|".join(a for _, _, adverbs in PERIODS for a in adverbs)
_PERIOD_AFTER = re.compile(
    # "0,25 EUR pro Tag", and past one "per" of another noun: "€0.25 per item per day"
    r"(?:\s(?:per|pro|je)\s[a-z]+(?=\s(?:per|pro|je)\s))?"
    rf"(?:\s?/\s?|\s(?:a|an|per|pro|je|each|every|for each|for every|im|am|in the)\s)"
    rf"(?P<noun>{_PERIOD_NOUN})(?![a-z])|\s(?P<adverb>{_PERIOD_ADVERB})(?![a-z])"
)
_PERIOD_BEFORE = re.compile(rf"(?<![a-z])(?:{_PERIOD_ADVERB})\s$")


@dataclass(frozen=True)
class Fact:
    """One normalised fact found in a text.

    Attributes:
        kind: ``amount``, ``quantity``, ``time``, ``date``, ``code`` or ``number``.
        keys: the normalised readings, e.g. ``("EUR 120",)`` or ``("1200", "1.2")``.
        text: the fact as written.
        bound: the bound's group before it (``from``, ``until``, ``at most`` …) or ``""``.
        numbers: its plain numeric readings, so a bare ``120`` finds ``120 EUR``.
        start: where the fact (or its bound phrase, when it has one) starts in the text.
        period: for an amount or quantity, the period it is a rate for (``day``, ``week``,
            ``month``, ``year``, ``hour``; see :data:`~ragfunnel.analyzer.language.lexicon.PERIODS`)
            or ``""``.
    """

    kind: str
    keys: tuple[str, ...]
    text: str
    bound: str = ""
    numbers: tuple[str, ...] = ()
    start: int = 0
    period: str = ""

    def written_as(self, text: str) -> Fact:
        """The same fact written as ``text``.

        ``dataclasses.replace(fact, text=text)`` at a third of its cost: the judge calls it for
        every fact of every sentence it reads.
        """
        return Fact(self.kind, self.keys, text, self.bound, self.numbers, self.start, self.period)


def unit_of(fact: Fact) -> str:
    """A measured fact's unit: an amount's currency (``EUR 120``), a quantity's (``30 day``)."""
    parts = fact.keys[0].split(" ")
    return parts[0] if fact.kind == "amount" else parts[-1]


def may_hold_facts(text: str) -> bool:
    """Whether ``text`` has a digit or a currency sign, where every written fact starts.

    A number word ("five days") is a fact too: callers holding the text's words check those
    against :data:`~ragfunnel.analyzer.language.lexicon.NUMBER_WORDS` themselves.
    """
    return _TRIGGER.search(text) is not None


def _canon(number: float) -> str:
    return f"{number:.6f}".rstrip("0").rstrip(".")


def values(number: str) -> tuple[str, ...]:
    """Every reading of a written number (``1.200`` → 1200 and 1.2; ``120,50`` → 120.5).

    A scale word after it multiplies every reading: ``2.5 million`` is 2500000, ``3 Mrd.``
    3000000000 (:data:`~ragfunnel.analyzer.language.lexicon.SCALES`).
    """
    scaled = _SCALE_AT_END.search(number)
    if scaled is not None:
        factor = SCALES[scaled.group(1)]
        return tuple(_canon(float(v) * factor) for v in values(number[: scaled.start()]))
    digits = number.replace("'", "")
    has_dot, has_comma = "." in digits, "," in digits
    if has_dot and has_comma:
        decimal = "." if digits.rfind(".") > digits.rfind(",") else ","
        grouping = "," if decimal == "." else "."
        return (_canon(float(digits.replace(grouping, "").replace(decimal, "."))),)
    separator = "." if has_dot else "," if has_comma else ""
    if not separator:
        return (_canon(float(digits)),)
    head, _, tail = digits.rpartition(separator)
    if digits.count(separator) > 1:
        return (_canon(float(digits.replace(separator, ""))),)
    as_decimal = _canon(float(f"{head}.{tail}"))
    if tail == "000" and head != "0":  # "40,000", "5.000": thousands (no one writes 40.000 for 40)
        return (_canon(float(head + tail)),)
    if len(tail) == 3:
        return (_canon(float(head + tail)), as_decimal)
    return (as_decimal,)


def _day_half(suffix: str, hour: str, part: str | None) -> str:
    """The suffix "Uhr" with a German day part after it read as am or pm ("10 Uhr abends")."""
    half, h = DAY_PARTS.get(part or ""), int(hour)
    if half is None or suffix != "uhr" or h > 12:  # "22 Uhr abends" is 22:00 as written
        return suffix
    if half == "pm" or (half == "night" and 6 <= h <= 11):
        return "pm"
    if half == "night" and h == 12:
        return "am"
    return suffix


def _time(hour: str, minute: str | None, suffix: str | None) -> str | None:
    h, m = int(hour), int(minute or 0)
    if suffix and suffix[0] in "ap" and suffix != "uhr":
        if not 1 <= h <= 12:
            return None
        h = (h % 12) + (12 if suffix[0] == "p" else 0)
    if h > 24 or m > 59:
        return None
    return f"{h % 24:02d}:{m:02d}"


def _date(year: str | None, month: int, day: str | None) -> str | None:
    d = int(day) if day else 0
    if not 1 <= month <= 12 or d > 31:
        return None
    y = int(year) if year else 0
    if year and len(year) == 2:
        y += 2000
    return f"{y:04d}-{month:02d}-{d:02d}"


def _dotted(text: str) -> Fact:
    parts = text.split(".")
    if len(parts) == 3:
        day, month, year = parts
        looks_like_date = len(year) == 4 or (len(day) == len(month) == len(year) == 2)
        key = _date(year, int(month), day) if looks_like_date and int(day) >= 1 else None
        if key:
            return Fact("date", (key,), text, numbers=(_canon(float(_date_year(key))),))
    return Fact("code", (text,), text)


def _date_year(key: str) -> int:
    return int(key[:4])


def _in_other_units(value: str, unit: str) -> list[str]:
    """The same quantity in the other unit of each ``UNIT_CONVERSIONS`` pair (whole numbers)."""
    out = []
    number = float(value)
    for big, small, factor in UNIT_CONVERSIONS:
        if unit == big:
            out.append(f"{_canon(number * factor)} {small}")
        elif unit == small and number % factor == 0:
            out.append(f"{_canon(number / factor)} {big}")
    return out


def _fact(m: re.Match[str]) -> Fact | None:
    g = m.group
    text = m.group(0)
    if g("family"):  # a code of its own: "5.x" is neither the number 5 nor "4.2.x"
        return Fact("code", (g("family"),), text)
    if g("decade"):  # a plain number of its own, found only as a decade again
        return Fact("number", (f"{g('decade')}s",), text)
    if g("dotted"):
        return _dotted(g("dotted"))
    date: str | None = None
    if g("yi"):
        date = _date(g("yi"), int(g("moi")), g("di"))
    elif g("mm"):
        date = _date(g("yy"), MONTHS[g("mm")], g("dd"))
    elif g("mm2"):
        date = _date(g("yy2"), MONTHS[g("mm2")], g("dd2"))
    elif g("mm3"):
        date = _date(g("yy3"), MONTHS[g("mm3")], None)
    if date is not None:
        year = int(date[:4])
        return Fact("date", (date,), text, numbers=(_canon(float(year)),) if year else ())
    if g("yi") or g("mm") or g("mm2") or g("mm3"):
        # Read as a date but none ("15 Jun 99": 99 is neither a day nor a four-digit year).
        return None
    if g("h1") or g("h2") or g("h3"):
        hour = g("h1") or g("h2") or g("h3")
        suffix = (g("s1") or g("s2") or g("s3") or "").replace(" ", "")
        key = _time(
            hour, g("m1") or g("m2"), _day_half(suffix, hour, g("dp1") or g("dp2") or g("dp3"))
        )
        if not key:
            return None
        # A full hour also reads as its number: "von 8 bis 18 Uhr" finds "8:00".
        hour = (_canon(float(int(key[:2]))),) if key.endswith(":00") else ()
        return Fact("time", (key,), text, numbers=hour)
    if g("cb") or g("ca"):
        currency = CURRENCIES[g("cb") or g("ca")]
        numbers = values(g("nb") or g("na"))
        if g("kb"):  # "€5k", "$10k": thousands
            numbers = tuple(_canon(float(v) * 1000) for v in numbers)
        return Fact("amount", tuple(f"{currency} {v}" for v in numbers), text, numbers=numbers)
    if g("u"):
        unit = UNITS.get(_SPACES.sub(" ", g("u")), g("u"))
        numbers = values(g("nu"))
        keys = [f"{v} {unit}" for v in numbers]
        keys += [k for v in numbers for k in _in_other_units(v, unit) if k not in keys]
        return Fact("quantity", tuple(keys), text, numbers=numbers)
    if g("nc") or g("ne"):
        return _unit_apart(m)
    if g("code"):
        return Fact("code", (g("code"),), text)
    numbers = values(g("n"))
    return Fact("number", numbers, text, numbers=numbers)


def _unit_apart(m: re.Match[str]) -> Fact:
    """A number with its unit a word apart: "30 Urlaubstage" and "30 vacation days" are 30 days.

    Not when the word between is a function or number word ("30 or 60 days": 30 is a number).
    """
    g = m.group
    number, word = g("nc") or g("ne"), g("cw") or g("ew")
    numbers = values(number)
    if (g("ew") and (word in STOPWORDS or word in NUMBER_WORDS or word in _BOUND_OF)) or (
        g("cu") in COMPOUND_SINGULARS and (not word.endswith("s") or word == "geburts")
    ):
        return Fact("number", numbers, number, numbers=numbers)
    written = (g("cw") + g("cu")) if g("nc") else g("eu")
    unit = UNITS.get(written) or UNITS[g("cu") or g("eu")]
    keys = [f"{v} {unit}" for v in numbers]
    keys += [k for v in numbers for k in _in_other_units(v, unit) if k not in keys]
    return Fact("quantity", tuple(keys), number, numbers=numbers)


def _matches(folded: str) -> list[re.Match[str]]:
    """``_FACT``'s matches, tried only where a fact can start (much faster than ``finditer``).

    Every fact holds a digit or a currency sign; one written with a leading word (``eur 120``,
    ``july 1``, ``pol-2024``) starts at that word, found by looking back from the digit.
    """
    out: list[re.Match[str]] = []
    pos = 0
    while True:
        trigger = _TRIGGER.search(folded, pos)
        if trigger is None:
            return out
        at = trigger.start()
        if folded[at].isdigit():
            token = _TOKEN_BEFORE.search(folded, max(0, at - 24), at)
            # Not a time's suffix ending a range: "8 am-6 pm" (an en dash, folded) is no code.
            start = token.start() if token and token.group(0) not in _SUFFIX_DASH else at
            lead = _LEAD.search(folded, max(0, start - 14), start)
            if lead:
                start = lead.start()
        else:
            start = at
        m = _FACT.match(folded, start) or _FACT.match(folded, at)
        if m is None:
            pos = at + 1
            continue
        out.append(m)
        pos = max(m.end(), at + 1)


def _bound(folded: str, start: int) -> tuple[str, int]:
    """The bound phrase ending right before ``start`` (or one word earlier: "ab ca. 22 Uhr").

    Returns its group and where it starts, or ``("", start)``. A rounding word (*about*) right
    before the fact yields to a bound one word earlier: "ab ca. 22 Uhr" is *from*, "up to about
    50 EUR" *at most*.
    """
    offset = max(0, start - _BOUND_WINDOW)
    window = folded[offset:start]
    tokens = window.split()
    cut_word = offset > 0 and folded[offset - 1].isalpha()
    rounded: tuple[str, int] | None = None
    for skip in (0, 1):
        end = len(tokens) - skip
        if end < 1 or tokens[end - 1] not in _BOUND_LAST:
            continue
        for size in (3, 2, 1):
            first = end - size
            if first < 0 or (first == 0 and cut_word):
                continue
            name = _BOUND_OF.get(" ".join(tokens[first:end]))
            if name == "about" and rounded is None:
                rounded = name, offset + window.rfind(tokens[first])
                break
            if name:
                return name, offset + window.rfind(tokens[first])
    return rounded or ("", start)


def facts(folded: str) -> list[tuple[Fact, int, int]]:
    """The facts of a folded text (see :func:`~ragfunnel.analyzer.language.lexicon.fold`), with spans.

    Number words (``drei``, ``two``) count as their digits.
    """
    out: list[tuple[Fact, int, int]] = []
    if "·" in folded:  # a middle-dot decimal ("odds ratio 1·32", the Lancet's style)
        folded = _MIDDLE_DOT.sub(".", folded)
    written = folded
    folded = as_digits(folded)
    for m in _matches(folded):
        fact = _fact(m)
        if fact is None:
            continue
        start = m.start()
        # A number word's digit sits at its end ("four" reads "   4"): the fact, and so the
        # span the caller removes from the key words, starts where the words do — over the
        # space or hyphen inside one number too ("twenty-five", "two hundred"), which has a
        # rewritten letter before it (a rewritten run ends in its digits).
        while start > 0 and folded[start - 1] == " " and (
            written[start - 1].isalpha()
            or (written[start - 1] in " -" and start > 1 and folded[start - 2] == " "
                and written[start - 2].isalpha())
        ):  # fmt: skip
            start -= 1
        bound, at = _bound(folded, start)
        if bound == "about":  # the rounding word is the fact's, not a content word of the text
            start = at
        end, period = m.end(), ""
        if fact.kind in MEASURED:
            after = _PERIOD_AFTER.match(folded, end)
            if after:  # "60 EUR a day", "120 EUR per night", "60 Euro taglich"
                period = _PERIOD_OF[after.group("noun") or after.group("adverb")]
                end = after.end()
            else:  # "taglich 60 EUR", "monatlich bis zu 10 EUR"
                before = _PERIOD_BEFORE.search(folded, max(0, at - 16), at)
                if before:
                    period = _PERIOD_OF[before.group(0).strip()]
        text = fact.text + folded[m.end() : end]
        found = Fact(fact.kind, fact.keys, text, bound, fact.numbers, at, period)
        out.append((found, start, end))
    # Only a bare number becomes a time there: no amount or quantity changes.
    return _hour_ranges(folded, out) if len(out) > 1 else out


_RANGE_TO = re.compile(r"\s*(?:-|–|—|bis|to|through|thru|till|until)\s*")
"""What joins the two ends of a range of times or of days ("von 8 bis 22 Uhr", "Mon–Fri")."""
_BETWEEN_AND = re.compile(r"\s*(?:und|and)\s*")
_BETWEEN = re.compile(r"(?:zwischen|between)\s$")
_CLOCK = re.compile(r"(\d{1,2})[.:]([0-5]\d)")


def _hour_ranges(folded: str, found: list[tuple[Fact, int, int]]) -> list[tuple[Fact, int, int]]:
    """A bare hour (or ``11.30``) opening a range of times is a time: "von 8 bis 22 Uhr".

    Also "from 8 to 10 pm", "zwischen 11.30 und 14 Uhr". Its half of the day is the later time's unless that would put it after it ("from 9 to
    5 pm": 09:00; "from 8 to 10 pm": 20:00).
    """
    out = list(found)
    for i in range(len(out) - 1):
        (first, start, end), (later, later_start, _) = out[i], out[i + 1]
        clock = _CLOCK.fullmatch(first.text)
        if (
            first.kind != "number"
            or later.kind != "time"
            or not _ranged(folded, start, end, later_start)
        ):
            continue
        if clock:
            hour, minute = int(clock.group(1)), clock.group(2)
        elif len(first.keys) == 1 and first.keys[0].isdigit():
            hour, minute = int(first.keys[0]), "00"
        else:
            continue
        if hour > 24:
            continue
        until = int(later.keys[0][:2])
        if "pm" in later.text.replace(".", "") and hour < 12 and hour + 12 <= until:
            hour += 12
        out[i] = (replace(first, kind="time", keys=(f"{hour % 24:02d}:{minute}",)), start, end)
    return out


def _ranged(folded: str, start: int, end: int, later_start: int) -> bool:
    """Whether the text between two facts joins them as a range ("bis", "to", "zwischen … und")."""
    if _RANGE_TO.fullmatch(folded, end, later_start):
        return True
    opened = _BETWEEN.search(folded, max(0, start - 9), start) is not None
    return opened and _BETWEEN_AND.fullmatch(folded, end, later_start) is not None


def qualifiers(folded: str) -> list[tuple[str, str]]:
    """The absolute qualifiers of a folded text: (group, phrase) pairs."""
    return [(_QUALIFIER_OF[m.group(0)], m.group(0)) for m in _QUALIFIER.finditer(folded)]


def qualifier_pattern(group: str) -> re.Pattern[str]:
    """A pattern finding any phrase of a qualifier group in folded text."""
    return _GROUP_PATTERNS[group]


_GROUP_PATTERNS = {
    name: re.compile(r"(?<![a-z])(?:" + "|".join(re.escape(p) for p in phrases) + r")(?![a-z])")
    for name, phrases in QUALIFIERS
}


def negated(folded: str) -> str:
    """The first negation word of a folded text, or ``""``."""
    if _NOT.search(folded):
        return "n't"
    for word in _WORD.findall(folded):
        if word in NEGATIONS:
            return str(word)
    return ""


def key_words(folded: str, spans: list[tuple[int, int]]) -> list[str]:
    """The content words of a folded text outside ``spans`` (the facts), in order, once each."""
    if spans:
        pieces, last = [], 0
        for start, end in sorted(spans):
            pieces.append(folded[last:start])
            last = max(last, end)
        pieces.append(folded[last:])
        folded = " ".join(pieces)
    # "isn't", "didn't", "won't": the auxiliary and "not", not the content words "isn", "won".
    folded = _QUALIFIER.sub(" ", _NOT.sub(" not", folded))
    seen: dict[str, None] = {}
    for word in _WORD.findall(folded):
        if (
            len(word) >= 3
            and word not in STOPWORDS
            and word not in NEGATIONS
            and word not in NUMBER_WORDS
            and word not in _LIMIT_WORDS
            and word != "uhr"
        ):
            seen.setdefault(word, None)
    return list(seen)


def days(folded: str) -> dict[int, int]:
    """The days of the week a folded text names, each with where it is named.

    A range names the days between ("monday to friday", "mon–fri", "montags bis freitags": 1 to
    5); ``weekdays``/``werktags`` are Monday to Friday, the weekend Saturday and Sunday
    (:data:`~ragfunnel.analyzer.language.lexicon.DAYS`).
    """
    found: dict[int, int] = {}
    named = [(m, DAYS[m.group(0)]) for m in _WORD.finditer(folded) if m.group(0) in DAYS]
    for n, (m, numbers) in enumerate(named):
        for day in numbers:
            found.setdefault(day, m.start())
        if n + 1 < len(named) and len(numbers) == 1 and len(named[n + 1][1]) == 1:
            later = named[n + 1]
            if _RANGE_TO.fullmatch(folded, m.end(), later[0].start()):
                first, last = numbers[0], later[1][0]
                span = (
                    range(first, last + 1)
                    if first <= last
                    else [*range(first, 8), *range(1, last + 1)]
                )
                for day in span:  # a day between is named where the range ends
                    found.setdefault(day, later[0].start())
    return found
