"""Facts match by meaning, in English and German, the same for the funnel's facts check and the
judges (issue 34, reproduction 3: "10 pm" is "22:00")."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragfunnel.analyzer.cases import fact_meaning
from ragfunnel.analyzer.cases.fact_meaning import stated_by_meaning
from ragfunnel.analyzer.cases.fact_text import states_fact
from ragfunnel.analyzer.funnel.records.answer_checks import judge_answers, prepare_cases
from ragfunnel.analyzer.judges.correctness import facts_correctness

STATED = [
    ("Taxi rides are only covered between 10 pm and 6 am.", "22:00"),
    ("Taxifahrten sind ab 22 Uhr erstattungsfähig.", "22:00"),
    ("Taxi after 22.00 Uhr.", "10 p.m."),
    ("Die Regel gilt ab dem 1. März 2025.", "1 March 2025"),
    ("The rule applies from March 1, 2025.", "2025-03-01"),
    ("Gültig ab 01.03.2025.", "1. März 2025"),
    ("The limit is €5,000.", "5.000 EUR"),
    ("Das Limit liegt bei 5.000 Euro.", "€5,000"),
    ("You get five days.", "5"),
    ("Sie bekommen fünf Tage.", "5 days"),
    ("Es gibt 0,30 € pro Kilometer.", "0.30 EUR"),
    ("The odds ratio was 1·32.", "1.32"),
    ("Die Frist beträgt dreißig Tage.", "30 days"),
    ("Firmware 4.2.0 needs a reset.", "firmware 4.2.0"),
    ("See POL-2024-07.", "pol-2024-07"),
    ("60 Euro täglich", "60 EUR pro Tag"),
    # a user's library app (2026-12-04): ranges of hours, other units, "twice", "per … per"
    ("Der Lesesaal ist von 8:00 bis 22:00 Uhr offen.", "22 Uhr"),
    ("Open from 8 to 10 pm.", "20:00"),
    ("Open from 9 to 5 pm.", "09:00"),
    ("Der Lesesaal ist von 8 bis 22 Uhr geöffnet.", "8:00"),
    ("Die Leihfrist beträgt drei Wochen.", "21 Tage"),
    ("The loan period is 21 days.", "3 weeks"),
    ("A session lasts 90 minutes.", "1.5 hours"),
    ("You can renew a loan two times.", "twice"),
    ("Eine Verlängerung ist zweimal möglich.", "2"),
    ("Late returns cost €0.25 per item per day.", "0.25 EUR per day"),
    # a subscription FAQ written from the README (2026-12-04): numbers in words past twelve
    ("After you cancel, your data is permanently deleted after ninety days.", "90 days"),
    ("Nach der Kündigung werden die Daten nach neunzig Tagen gelöscht.", "90 Tage"),
    ("Bei jährlicher Zahlung gibt es fünfzehn Prozent Rabatt.", "15 %"),
    ("Refunds are possible within forty-five days.", "45 days"),
    ("Enterprise contracts start at five thousand euros a year.", "5.000 EUR"),
    ("Enterprise contracts start at €5k per year.", "5000 EUR"),
    # units written out, British or American, English or German (2026-12-07)
    ("The Eiffel Tower is 330 metres tall.", "330 m"),
    ("The Eiffel Tower is 330 meters tall.", "330 metres"),
    ("It weighs 5 kg.", "5 kilograms"),
    ("Die Flasche fasst 1,5 Liter.", "1.5 litres"),
    ("The trail is 12 kilometers long.", "12 km"),
    # times and days in words, ranges of days spanned (2026-12-07)
    ("Check-out is by noon.", "12:00"),
    ("Der Check-out ist bis Mittag.", "12 Uhr"),
    ("The pool closes at midnight.", "00:00"),
    ("Open Mon–Fri.", "Monday"),
    ("Open Mon-Fri 9-17.", "Wednesday"),
    ("Open on weekdays.", "Monday to Friday"),
    ("Wir haben montags bis freitags geöffnet.", "Monday to Friday"),
    ("Closed on Sundays.", "Sunday"),
    ("Lunch is at noon on Mondays.", "12:00 on Monday"),
    ("The city has 3.5 million inhabitants.", "3,500,000"),
    ("Revenue was 2,500,000 dollars.", "$2.5 million"),
    ("He was the 3rd president.", "third"),
    ("He was the third president.", "3rd"),
    ("She finished in second place.", "2nd place"),
    ("Er wurde Dritter.", "3rd"),
]
NOT_STATED = [
    ("He was the fourth president.", "3rd"),
    ("He was the 4th president.", "third"),
    ("Revenue was $2.5 million.", "$2.5 billion"),
    ("The city has 3.5 million inhabitants.", "3,500"),
    ("Check-out is by 11 am.", "noon"),
    ("The pool closes at 11 pm.", "midnight"),
    ("Open Mon–Fri.", "Saturday"),
    ("Open on weekends.", "Monday"),
    ("Open Monday.", "Monday to Friday"),
    ("Lunch is at noon on Tuesdays.", "12:00 on Monday"),
    ("The Eiffel Tower is 330 feet tall.", "330 metres"),
    ("The trail is 12 miles long.", "12 km"),
    ("It weighs 5 grams.", "5 kilograms"),
    ("Taxi rides are covered after 8 pm.", "22:00"),
    ("Die Regel gilt ab dem 1. April 2025.", "1. März 2025"),
    ("The limit is €6,000.", "5.000 EUR"),
    ("You get six days.", "5"),
    ("The odds ratio was 8·32.", "1·32"),
    ("Version 4.2.0 needs a reset.", "Firmware 4.2.0"),
    ("See POL-2024-08.", "POL-2024-07"),
    ("60 EUR a week", "60 EUR a day"),
    ("120 USD per night", "120 EUR"),
    ("Die Leihfrist beträgt zwei Wochen.", "21 Tage"),
    ("Open from 9 to 5 pm.", "21:00"),
    ("You can renew a loan three times.", "twice"),
    ("Late returns cost €0.25 per item per week.", "0.25 EUR per day"),
    ("Your data is deleted after sixty days.", "90 days"),
    ("Die Daten werden nach fünfundvierzig Tagen gelöscht.", "90 Tage"),
]


@pytest.mark.parametrize(("answer", "fact"), STATED)
def test_a_fact_written_another_way_is_stated(answer: str, fact: str) -> None:
    assert states_fact(answer, fact)
    assert facts_correctness(answer, [fact]).label == "correct"  # type: ignore[union-attr]


@pytest.mark.parametrize(("answer", "fact"), NOT_STATED)
def test_another_value_is_not_stated(answer: str, fact: str) -> None:
    assert not states_fact(answer, fact)


def test_a_fact_without_numbers_is_left_to_the_literal_rule() -> None:
    assert stated_by_meaning("The office is in London.", "London") is None
    assert states_fact("The office is in London.", "london")
    assert not states_fact("The office is in Paris.", "London")


def _checked(facts: list[list[str]], answers: list[tuple[int, str | None]]) -> pl.DataFrame:
    """The funnel's facts check of ``answers`` (case index, text or ``None``), in row order."""
    cases = prepare_cases(
        pl.DataFrame(
            {"case_idx": range(len(facts)), "facts": facts, "reference": [None] * len(facts)},
            schema={"case_idx": pl.Int64, "facts": pl.List(pl.String), "reference": pl.String},
        )
    )
    rows = pl.DataFrame(
        {
            "row": range(len(answers)),
            "case_idx": [case for case, _ in answers],
            "has_answer": [text is not None for _, text in answers],
            "answer": [text for _, text in answers],
        },
        schema={"row": pl.Int64, "case_idx": pl.Int64, "has_answer": pl.Boolean,
                "answer": pl.String},
    )  # fmt: skip
    return judge_answers(rows, cases).sort("row")


def test_the_funnels_facts_check_reads_by_meaning() -> None:
    out = _checked(
        [["22:00", "06:00"], ["1. März 2025"], ["5.000 EUR", "POL-7"]],
        [
            (0, "Taxi rides are only covered between 10 pm and 6 am."),
            (1, "It applies from 1 March 2025."),
            (2, "The limit is €5,000."),
            (0, None),
        ],
    )
    assert out.get_column("verdict").to_list() == ["correct", "correct", "incorrect", "unknown"]
    assert out.get_column("verdict_reason")[2] == "answer misses fact(s): POL-7"
    assert out.get_column("facts_correctness").to_list() == [
        "correct", "correct", "incomplete", None,
    ]  # fmt: skip


def test_the_funnel_reads_number_words_as_written() -> None:
    facts = [["5 days"], ["30 days"], ["45 days"]]
    out = _checked(
        facts,
        [
            (0, "Sie bekommen fünf Tage."),
            (1, "Die Frist beträgt dreißig Tage."),
            # A German number written as one word ("fünfundvierzig") reaches the reader too.
            (2, "Die Frist beträgt fünfundvierzig Tage."),
        ],
    )
    assert out.get_column("verdict").to_list() == ["correct", "correct", "correct"]


def test_the_funnel_reads_times_and_days_in_words() -> None:
    # Answers without a digit reach the meaning read too (``_may_hold``): "noon", "Mon–Fri".
    out = _checked(
        [["12:00"], ["Monday to Friday"]],
        [
            (0, "Check-out is by noon."),
            (1, "The desk is staffed on weekdays."),
            (0, "Check-out is by eleven."),
            (1, "The desk is staffed at weekends."),
        ],
    )
    assert out.get_column("verdict").to_list() == ["correct", "correct", "incorrect", "incorrect"]


_PIECES = st.sampled_from(
    ["one", "Fünf", "zwanzig", "ZWEIHUNDERT", "dreißig", "fuenf", "tausend", "7", "€", "$", "£",
     "é", "ä", "x", "-", " ", ".", "fünfundvierzig", "zehn", "Ten"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_PIECES, max_size=6).map("".join) | st.none(), max_size=40))
def test_may_hold_reads_as_the_one_pattern_of_class_and_words(texts: list[str | None]) -> None:
    # The word pattern runs only where the class found nothing: the same as one pattern.
    one = "(?i)[0-9€$£]|" + fact_meaning._FACT_WORD.removeprefix("(?i)")
    series = pl.Series(texts, dtype=pl.String)
    expected = series.str.contains(one).fill_null(False)
    assert fact_meaning._may_hold(series).to_list() == expected.to_list()
