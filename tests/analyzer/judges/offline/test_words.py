"""words.py: the words of a claim or a context as the offline judge weighs them."""

from __future__ import annotations

import pytest

from ragfunnel.analyzer.judges.offline.words import (
    is_german,
    lead_in_end,
    reads_german,
    stem,
    tokens,
)
from ragfunnel.analyzer.language.lexicon import fold
from ragfunnel.analyzer.language.terms import key_words


@pytest.mark.parametrize(
    ("claim", "content"),
    [
        ("According to the 2021 report by Smith, the fee is 120 EUR.", "the fee is 120 EUR."),
        ("The study shows that the fee is 120 EUR.", "the fee is 120 EUR."),
        ("Based on the context, taxis are allowed from 22:00.", "taxis are allowed from 22:00."),
        ("Es heißt, dass die Gebühr 120 EUR beträgt.", "die Gebühr 120 EUR beträgt."),
        ("The fee is 120 EUR.", "The fee is 120 EUR."),
        # Nothing but a lead-in and a word or two: the whole text is the claim.
        ("According to the report, ok", "According to the report, ok"),
    ],
)
def test_a_leading_attribution_clause_is_no_claim_content(claim: str, content: str) -> None:
    assert claim[lead_in_end(claim) :] == content


@pytest.mark.parametrize(
    ("words", "german"),
    [
        ("die gebuhr ist nicht hoch", True),
        ("the fee is high", False),
        # One marker in a long text is chance ("die" in an English text); in a short one, not.
        ("der fee is very high and the rest is english too", False),
        ("und", True),
    ],
)
def test_german_is_read_from_its_function_words(words: str, german: bool) -> None:
    assert is_german(words.split()) is german


def test_stems_are_snowball_stems_of_the_language_and_short_words_stay() -> None:
    assert stem("reimbursed", german=False) == "reimburs"
    assert stem("erstattet", german=True) == "erstatt"
    assert stem("the", german=False) == "the"


def test_tokens_keep_hyphenated_words_whole() -> None:
    assert tokens("die hotel-pauschale kostet 120 eur") == [
        "die",
        "hotel-pauschale",
        "kostet",
        "120",
        "eur",
    ]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Alcohol won't be reimbursed.", ["alcohol", "reimbursed"]),
        ("Breakfast isn’t charged separately.", ["breakfast", "charged", "separately"]),
        ("They didn't lose; they won the cup.", ["lose", "won", "cup"]),
    ],
)  # fmt: skip
def test_a_contraction_s_auxiliary_is_no_content_word(text: str, words: list[str]) -> None:
    """ "isn't" left the content word "isn", "won't" the word "won", for the context to lack."""
    assert key_words(fold(text), []) == words


def test_a_chunk_reads_as_german_only_when_its_german_function_words_outnumber_english_ones() -> (
    None
):
    # PubMed: "bis" and "des" are abbreviations in English abstracts; they made the prompt read
    # as mixed-language and sent its claims down the (slow) cross-language path.
    english = tokens(fold(
        "Patients on bis (bisphosphonates) and DES were compared with the controls of the trial; "
        "the risk of fracture was lower in those who had taken them for at least five years."
    ))  # fmt: skip
    assert is_german(english) and not reads_german(english)
    german = tokens(
        fold("Die Kündigung ist bis zum Ende des Monats möglich und wird sofort wirksam.")
    )
    assert reads_german(german)
