"""terms.py: the fact reader — one normalised reading per form, English and German alike."""

from __future__ import annotations

import dataclasses

import pytest

from ragfunnel.analyzer.language.lexicon import fold
from ragfunnel.analyzer.language.terms import (
    Fact,
    days,
    facts,
    key_words,
    may_hold_facts,
    negated,
    qualifiers,
    unit_of,
    values,
)


def _read(text: str) -> list[tuple[str, tuple[str, ...], str, str]]:
    return [(f.kind, f.keys, f.bound, f.period) for f, _, _ in facts(fold(text))]


SAME = [  # (kind, keys): every form of a row reads the same
    (("time", ("22:00",)), ["22 Uhr", "22:00", "10 pm", "10 p.m.", "22.00 Uhr", "10 Uhr abends", "10 Uhr nachts", "22 Uhr abends"]),
    (("time", ("18:00",)), ["6 Uhr abends", "6 Uhr nachmittags", "18 Uhr", "6 pm"]),
    (("time", ("08:00",)), ["8 Uhr morgens", "8 Uhr früh", "8 am", "08:00"]),
    (("time", ("02:00",)), ["2 Uhr nachts", "2 am"]),
    (("date", ("2025-03-01",)), ["1. März 2025", "March 1, 2025", "1 March 2025", "2025-03-01"]),
    (("amount", ("EUR 120",)), ["120 Euro", "120 EUR", "€120", "EUR 120", "120 €"]),
    (("amount", ("EUR 0.3",)), ["0,30 €", "0.30 EUR", "EUR 0.30"]),
    (("quantity", ("5 day",)), ["five days", "fünf Tage", "5 Tage", "5 days"]),
    (("number", ("1.32",)), ["1·32", "1.32"]),
    (("number", ("1990s",)), ["the 1990s", "the 1990's", "in den 1990er Jahren"]),
    (("quantity", ("90 day", "3 month")), ["90 days", "ninety days", "neunzig Tage"]),
    (("amount", ("EUR 5000",)), ["five thousand euros", "€5k", "fünftausend Euro"]),
    (("quantity", ("45 min", "2700 s")), ["45 Minuten", "fünfundvierzig Minuten", "forty-five minutes"]),
    # a scale word after digits multiplies them (2026-12-07)
    (("number", ("3500000",)), ["3.5 million", "3,5 Millionen", "3,500,000", "3.5 Mio."]),
    (("amount", ("USD 2500000000",)), ["$2.5 billion", "2.5 billion dollars", "2,5 Milliarden $"]),
    (("amount", ("EUR 12000",)), ["12 thousand euros", "12 tausend Euro", "€12k", "EUR 12 thousand"]),
    (("number", ("2000000",)), ["2 million", "two million", "zwei Millionen"]),
]  # fmt: skip


@pytest.mark.parametrize(("expected", "form"), [(e, f) for e, forms in SAME for f in forms])
def test_every_form_of_a_fact_reads_the_same(
    expected: tuple[str, tuple[str, ...]], form: str
) -> None:
    (read,) = _read(form)
    assert read[:2] == expected, form


@pytest.mark.parametrize("form", ["€5,250", "5.250 EUR", "EUR 5,250"])
def test_an_ambiguous_separator_gives_every_reading(form: str) -> None:
    (read,) = _read(form)
    assert read[1] == ("EUR 5250", "EUR 5.25")


@pytest.mark.parametrize(("form", "key"), [("€5,000", "EUR 5000"), ("5.000 EUR", "EUR 5000"),
                                          ("40,000", "40000")])  # fmt: skip
def test_three_zeros_after_one_separator_are_thousands(form: str, key: str) -> None:
    # "40,000 people" is never 40 people: a claim of 40,000 does not match a context's 40.
    (read,) = _read(form)
    assert read[1] == (key,)


@pytest.mark.parametrize(
    ("number", "readings"),
    [("1.200", ("1200", "1.2")), ("120,50", ("120.5",)), ("1,234.5", ("1234.5",)),
     ("2.5 million", ("2500000",)), ("1.200 mrd.", ("1200000000000", "1200000000")),
     ("1.234,5", ("1234.5",)), ("1.000.000", ("1000000",)), ("42", ("42",)), ("1'000", ("1000",))],
)  # fmt: skip
def test_values_reads_grouping_and_decimal_separators(
    number: str, readings: tuple[str, ...]
) -> None:
    assert values(number) == readings


@pytest.mark.parametrize(
    ("text", "bound", "period"),
    [("bis zu 50 EUR", "at most", ""), ("at most 50 EUR", "at most", ""),
     ("ab 22 Uhr", "from", ""), ("from 10 pm", "from", ""),
     ("120 Euro pro Nacht", "", "day"), ("EUR 120 a night", "", "day"),
     ("60 EUR täglich", "", "day"), ("monatlich 10 EUR", "", "month")],
)  # fmt: skip
def test_a_bound_before_and_a_period_after_belong_to_the_fact(
    text: str, bound: str, period: str
) -> None:
    (read,) = _read(text)
    assert read[2:] == (bound, period)


def test_units_convert_so_two_weeks_are_fourteen_days() -> None:
    assert _read("two weeks")[0][1] == ("2 week", "14 day")
    assert _read("14 days")[0][1] == ("14 day", "2 week")
    assert set(_read("2 hours")[0][1]) >= {"120 min"}


def test_an_hour_opening_a_range_is_a_time() -> None:
    assert [r[:2] for r in _read("von 8 bis 22 Uhr")] == [
        ("time", ("08:00",)),
        ("time", ("22:00",)),
    ]
    assert [r[1] for r in _read("from 8 to 10 pm")] == [("20:00",), ("22:00",)]
    assert [r[1] for r in _read("from 9 to 5 pm")] == [("09:00",), ("17:00",)]
    # A user's canteen hours: "zwischen 11.30 und 14.00 Uhr" left 11.30 a number, not stated.
    assert [r[1] for r in _read("zwischen 11.30 und 14.00 Uhr")] == [("11:30",), ("14:00",)]
    assert [r[1] for r in _read("between 8 and 10 pm")] == [("20:00",), ("22:00",)]
    assert [r[0] for r in _read("zwischen 3 und 5 EUR")] == ["number", "amount"]
    assert [r[0] for r in _read("zwischen 25 und 30 Uhr")] == ["number"]  # no hour of a day


def test_codes_are_exact_and_a_measured_fact_has_a_unit() -> None:
    (code,) = facts(fold("Policy POL-2024-07 applies"))
    assert (code[0].kind, code[0].keys) == ("code", ("pol-2024-07",))
    (amount,) = facts(fold("120 EUR"))
    (days,) = facts(fold("30 Tage"))
    assert (unit_of(amount[0]), unit_of(days[0])) == ("EUR", "day")


@pytest.mark.parametrize(
    ("text", "span", "key"),
    [
        ("Loans run four weeks.", "four weeks", "4 week"),
        # Every word of the number, over its hyphen or space: a message quotes "twenty-five
        # euros", not "five euros", and no part is left among the key words.
        ("The fee is twenty-five euros.", "twenty-five euros", "EUR 25"),
        ("They enrolled two hundred and fifty patients.", "two hundred and fifty", "250"),
        ("Es gilt ab einundzwanzig Tagen.", "einundzwanzig tagen", "21 day"),
        # A word before the number stays out ("the", and a join word).
        ("It lasts the five days and five nights.", "five days", "5 day"),
    ],
)
def test_a_facts_span_covers_every_word_of_its_number(text: str, span: str, key: str) -> None:
    folded = fold(text)
    fact, start, end = facts(folded)[0]
    assert folded[start:end] == span
    assert fact.keys[0] == key


def test_may_hold_facts_looks_for_digits_and_currency_signs() -> None:
    assert may_hold_facts("ab 22 Uhr") and may_hold_facts("€ only")
    assert not may_hold_facts("no numbers here")


def test_negations_and_qualifiers_in_both_languages() -> None:
    assert negated(fold("Das ist nicht erlaubt")) == "nicht"
    assert negated(fold("Taxis aren't covered")) == "n't"
    assert negated(fold("Taxis are covered")) == ""
    assert [g for g, _ in qualifiers(fold("always allowed, never before 22:00"))] == [
        "always",
        "never",
    ]


def test_key_words_leave_out_facts_stopwords_and_contractions() -> None:
    folded = fold("The hotel allowance isn't 120 EUR per night")
    spans = [(s, e) for _, s, e in facts(folded)]
    assert key_words(folded, spans) == ["hotel", "allowance"]
    assert key_words(fold("Zugriffsrechte beantragt man im IT-Ticketsystem"), []) == [
        "zugriffsrechte", "beantragt", "ticketsystem",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "keys"),
    [("30 Urlaubstage", ("30 day", "1 month")), ("innerhalb von 14 Kalendertagen", ("14 day", "2 week")),
     ("5 Arbeitstage", ("5 workday",)), ("30 vacation days", ("30 day", "1 month")),
     ("12 paid weeks", ("12 week", "84 day"))],
)  # fmt: skip
def test_a_unit_ending_a_compound_or_a_word_apart_is_the_numbers_unit(
    text: str, keys: tuple[str, ...]
) -> None:
    """A user's HR app: "30 Tage Urlaub" against "30 Urlaubstage" read as a contradiction."""
    (read,) = _read(text)
    assert read[:2] == ("quantity", keys)


def test_a_function_word_between_keeps_the_number_plain() -> None:
    assert [r[:2] for r in _read("30 or 60 days")] == [
        ("number", ("30",)),
        ("quantity", ("60 day", "2 month")),
    ]


def test_months_and_years_are_also_days_as_people_count_them() -> None:
    """ "Passwords expire after three months" against "every 90 days" was a contradiction."""
    assert "90 day" in _read("three months")[0][1]
    assert "3 month" in _read("90 days")[0][1]
    assert "365 day" in _read("1 year")[0][1]
    assert "1 month" not in _read("31 days")[0][1]


def test_german_ordinals_count_and_a_singular_compound_needs_its_linking_s() -> None:
    """A planted fault, "am fünften Krankheitstag" for "am dritten", was judged supported."""
    assert _read("am dritten Krankheitstag")[0][:2] == ("quantity", ("3 day",))
    assert _read("am fünften Krankheitstag")[0][:2] == ("quantity", ("5 day",))
    assert _read("die zweite Mahnung")[0][:2] == ("number", ("2",))
    assert [r[:2] for r in _read("3 Montag, zum 3 Geburtstag")] == [("number", ("3",))] * 2
    assert _read("the third season") == []  # English ordinals are words


@pytest.mark.parametrize(
    ("text", "named"),
    [("montags bis freitags geöffnet", [1, 2, 3, 4, 5]), ("open Mon–Fri", [1, 2, 3, 4, 5]),
     ("Monday to Friday", [1, 2, 3, 4, 5]), ("auch samstags", [6]), ("closed on weekends", [6, 7]),
     ("werktags von 8 bis 22 Uhr", [1, 2, 3, 4, 5]), ("Friday to Monday", [1, 5, 6, 7]),
     ("on Wednesday and Sunday", [3, 7]), ("we sat in the sun", [])],
)  # fmt: skip
def test_days_a_text_names_with_ranges_spanned(text: str, named: list[int]) -> None:
    assert sorted(days(fold(text))) == named


@pytest.mark.parametrize("text", ["8 am–6 pm", "8am–6pm", "8 am - 6 pm", "8:00–18:00"])
def test_a_range_of_times_with_a_dash_reads_both_ends(text: str) -> None:
    # A subscription FAQ app: "8 am–6 pm" read "am-6" as a code, losing 18:00.
    assert [keys for kind, keys, _, _ in _read(text) if kind == "time"] == [("08:00",), ("18:00",)]


def test_written_as_changes_the_text_only() -> None:
    """``Fact.written_as`` is ``dataclasses.replace(fact, text=...)``, every field kept.

    A field added to Fact and left out of ``written_as`` fails here.
    """
    # A field's type is its annotation's text, or the type itself when mypyc compiled Fact.
    marked = {
        f.name: ("x",) if "tuple" in str(f.type) else 7 if f.type in ("int", int) else f"<{f.name}>"
        for f in dataclasses.fields(Fact)
    }
    fact = Fact(**marked)
    assert fact.written_as("120 EUR") == dataclasses.replace(fact, text="120 EUR")
    assert all(getattr(fact, name) != getattr(Fact("number", (), ""), name) for name in marked)
