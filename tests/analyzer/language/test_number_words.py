"""number_words.py: numbers written in words read as their digits, in place."""

from __future__ import annotations

import re

import pytest

from ragfunnel.analyzer.language.lexicon import NUMBER_WORDS, fold
from ragfunnel.analyzer.language.number_words import (
    as_digits,
    compound_number,
    is_number_word,
    spells_numbers,
)


@pytest.mark.parametrize(
    ("text", "digits"),
    [
        ("deleted after ninety days", "90 days"),
        ("nach neunzig Tagen", "90 tagen"),
        ("fifteen percent", "15 percent"),
        ("fünfzehn Prozent", "15 prozent"),
        ("within forty-five days", "45 days"),
        ("within forty five days", "45 days"),
        ("five thousand euros", "5000 euros"),
        ("one hundred and fifty", "150"),
        ("fünfundvierzig Minuten", "45 minuten"),
        ("zweihundertfünfzig EUR", "250 eur"),
        ("zehntausend", "10000"),
        ("twenty-one days", "21 days"),
    ],
)
def test_a_number_in_words_reads_as_its_digits_in_place(text: str, digits: str) -> None:
    folded = fold(text)
    read = as_digits(folded)
    assert len(read) == len(folded)  # spans still point into the text as written
    assert " ".join(read.split()).endswith(digits)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("two three-day passes", "2 three-day passes"),  # a hyphen ties "three" to "day"
        ("a ten-year-old car", "a ten-year-old car"),
        ("one of the plans", "one of the plans"),  # a part alone is no number
        ("ein Tag", "ein tag"),
        ("five and six", "5 and 6"),  # parts that make no number together, one by one
        ("Hunderte Kunden", "hunderte kunden"),
        ("often tension", "often tension"),
    ],
)
def test_words_that_make_no_number_stay_words(text: str, expected: str) -> None:
    assert " ".join(as_digits(fold(text)).split()) == expected


def test_number_words_are_told_from_other_words() -> None:
    assert is_number_word("neunzig") and is_number_word("funfundvierzig")
    assert not is_number_word("ein") and not is_number_word("einen")
    assert compound_number("nach neunundneunzig tagen") and not compound_number("nach neun tagen")
    assert not compound_number("often one tension einen")
    assert spells_numbers("after ninety days")
    assert spells_numbers("nach funfundvierzig tagen")
    assert not spells_numbers("this tension")
    # A number word is found only standing alone, whatever stands around it.
    assert spells_numbers("ninety") and spells_numbers("(ninety-day)") and spells_numbers("x5five")
    assert not spells_numbers("ninetyfold") and not spells_numbers("uneleven")


def test_number_words_are_letters_only() -> None:
    """spells_numbers reads a text's runs of a-z: a number word of other characters is missed."""
    assert all(re.fullmatch(r"[a-z]+", word) for word in NUMBER_WORDS)
