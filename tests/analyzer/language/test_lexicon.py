"""lexicon.py: every word list stored folded, as ``fold`` folds the texts it is matched in."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ragfunnel.analyzer.language import lexicon
from ragfunnel.analyzer.language.lexicon import fold

MATCHED_AS_WRITTEN = {"REFUSALS", "REFUSAL_FILLERS", "ABBREVIATIONS", "POINTER_WORDS"}
"""Lists matched against the original spelling lower-cased, not folded text."""


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):  # words -> their canonical form ("euro" -> "EUR"): the keys
        for key in value:
            yield from _strings(key)
    elif isinstance(value, (tuple, list, frozenset, set)):
        for item in value:
            yield from _strings(item)


PATTERNS = {"TOKEN", "LETTERS"}
"""The token patterns the readers share: no word list."""
LISTS = sorted(n for n in lexicon.__all__ if n.isupper() and n not in MATCHED_AS_WRITTEN | PATTERNS)


@pytest.mark.parametrize("name", LISTS)
def test_every_word_of_a_list_is_stored_folded(name: str) -> None:
    words = list(_strings(getattr(lexicon, name)))
    assert words, f"{name} holds no words"
    unfolded = [w for w in words if fold(w) != w]
    assert not unfolded, f"{name}: not folded: {unfolded}"


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("Größe", "grosse"),
        ("Zugriffsrechte für das Reiseportal", "zugriffsrechte fur das reiseportal"),
        ("Café crème", "cafe creme"),
        ("It’s 9–5", "it's 9-5"),
        ("120\u00a0EUR", "120 eur"),
        ("plain ascii", "plain ascii"),
    ],
)
def test_fold_strips_case_umlauts_accents_and_typographic_marks(text: str, folded: str) -> None:
    assert fold(text) == folded


def test_fold_keeps_positions_where_case_folding_keeps_the_length() -> None:
    text = "Die Hotelpauschale beträgt 120 € – täglich."
    folded = fold(text)
    assert len(folded) == len(text)
    start = text.index("120")
    assert folded[start : start + 3] == "120"


def test_the_lists_users_read_in_docs_hold_both_languages() -> None:
    assert {"not", "nicht", "kein"} <= lexicon.NEGATIONS
    assert {"the", "der", "und", "and"} <= lexicon.STOPWORDS
    assert lexicon.MONTHS["marz"] == lexicon.MONTHS["march"] == 3
    assert lexicon.NUMBER_WORDS["funf"] == lexicon.NUMBER_WORDS["five"] == 5
    assert {"except", "ausser", "es sei denn"} <= set(lexicon.EXCEPTIONS)


def test_exception_phrases_are_longest_first_so_the_longer_one_is_found() -> None:
    phrases = lexicon.EXCEPTIONS
    for i, phrase in enumerate(phrases):
        for later in phrases[i + 1 :]:
            assert phrase not in later or len(later) <= len(phrase), (phrase, later)


def test_the_shared_token_patterns_split_folded_text_into_tokens_and_words() -> None:
    text = fold("Die Gebühr für POL-2024 beträgt 120 €, snake_case")
    assert lexicon.TOKEN.findall(text) == [
        "die", "gebuhr", "fur", "pol", "2024", "betragt", "120", "snake", "case",
    ]  # fmt: skip
    assert lexicon.LETTERS.findall(text) == [
        "die", "gebuhr", "fur", "pol", "betragt", "snake", "case",
    ]  # fmt: skip
