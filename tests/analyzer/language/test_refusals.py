"""refusals.py: a sentence that declines to answer, in English and German, fillers or not."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragfunnel.analyzer.language.lexicon import REFUSAL_KEYWORDS, REFUSALS
from ragfunnel.analyzer.language.refusals import is_refusal, split_refusal


@pytest.mark.parametrize(
    "sentence",
    [
        "I don't know.",
        "I cannot answer that from the documents.",
        "I'm not sure.",
        "Unfortunately, I'm afraid I cannot answer that.",
        "The context does not mention the Wi-Fi password.",
        "There is no information about parking.",
        "This is not covered in the documents.",
        "Dazu habe ich leider keine Informationen.",
        "Leider habe ich dazu keine Informationen.",
        "Hierzu kann ich nichts sagen.",
        "Das weiß ich nicht.",
        "Das geht aus den Unterlagen nicht hervor.",
        "Dazu liegen mir keine Informationen vor.",
        "Die Frage kann ich momentan leider nicht beantworten.",
        "I'm afraid I don't have that information.",
        "I don't have that information.",
        "Sorry, I don't have this information.",
    ],
)
def test_refusals_in_both_languages(sentence: str) -> None:
    assert is_refusal(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "The hotel allowance is 120 EUR per night.",
        "Taxis are not reimbursed before 10 pm.",
        "I know the reading room opens at 8.",
        "Die Hotelpauschale beträgt 120 EUR pro Nacht.",
        "Ein Taxi ist vor 22 Uhr nicht erlaubt.",
        "Ich habe keine Zweifel: die Pauschale gilt.",
        "Unfortunately, the reading room is closed on Sundays.",
        "Leider ist der Lesesaal sonntags geschlossen.",
    ],
)
def test_answers_are_no_refusals_even_with_a_filler_or_a_negation(sentence: str) -> None:
    assert not is_refusal(sentence)


def test_a_filler_alone_makes_no_refusal_and_dropping_it_finds_one() -> None:
    assert not is_refusal("Leider.")
    assert is_refusal("Dazu habe ich wirklich keine Informationen.")


@pytest.mark.parametrize(
    ("sentence", "refusals", "answers"),
    [
        ("I'm not sure, but I think the allowance is 200 EUR.", ("I'm not sure",),
         ("I think the allowance is 200 EUR.",)),
        ("Dazu habe ich leider keine Informationen, aber die Pauschale beträgt 120 EUR.",
         ("Dazu habe ich leider keine Informationen",), ("die Pauschale beträgt 120 EUR.",)),
        ("The context does not mention parking; taxis are reimbursed after 22:00.",
         ("The context does not mention parking",), ("taxis are reimbursed after 22:00.",)),
        ("I cannot answer that; the documents do not say.",
         ("I cannot answer that", "the documents do not say."), ()),
        ("I don't know.", ("I don't know.",), ()),
        # Turns between two answering parts stay in the answer.
        ("Taxis, but not buses, are covered; I cannot say more.", ("I cannot say more.",),
         ("Taxis, but not buses, are covered",)),
        # No part refuses by itself: the sentence is one refusal, as written.
        ("I cannot, however, answer that.", ("I cannot, however, answer that.",), ()),
    ],
)  # fmt: skip
def test_a_sentence_turning_from_a_refusal_to_an_answer_is_split_at_the_turn(
    sentence: str, refusals: tuple[str, ...], answers: tuple[str, ...]
) -> None:
    assert split_refusal(sentence) == (refusals, answers)


@pytest.mark.parametrize(
    "phrase", [pytest.param(phrase, id=f"phrase{n}") for n, phrase in enumerate(REFUSALS)]
)
def test_every_refusal_phrase_holds_a_keyword_in_whatever_ascii_it_matches(phrase: str) -> None:
    """``is_refusal`` skips an ASCII sentence without a keyword, so no phrase may match one.

    Strings drawn from the phrase itself (with text around), their spaces made plain: what the
    phrase matches holds a keyword. A phrase that needs a letter beyond ASCII ("weiß") has no
    ASCII reading, and nothing to check.
    """
    pattern = re.compile(phrase, re.IGNORECASE)

    @settings(max_examples=100, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(st.from_regex(pattern))
    def holds_a_keyword(drawn: str) -> None:
        text = re.sub(r"\s", " ", drawn)
        found = pattern.search(text)
        if text.isascii() and found:
            assert any(word in found.group(0).lower() for word in REFUSAL_KEYWORDS), text

    holds_a_keyword()


def test_a_refusal_is_found_through_the_keyword_shortcut_in_any_case_and_not_without_it() -> None:
    assert is_refusal("I DON'T KNOW.")
    assert is_refusal("Unfortunately, the documents do not SPECIFY it.")
    assert not is_refusal("The data were collected at two sites.")
