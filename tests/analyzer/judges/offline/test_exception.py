"""exception.py: an exception clause or a turned condition the context lacks is a hard finding.

A claim that copies a rule and appends an exception ("…, except for one glass of wine …") or
turns "unless" into "even if" states new content (issue 34), in English and in German.
"""

from __future__ import annotations

import pytest

from ragfunnel.analyzer.judges import Chunk
from ragfunnel.analyzer.judges.offline.exception import exception_finding
from ragfunnel.analyzer.judges.offline.index import ContextIndex
from ragfunnel.analyzer.language.lexicon import fold
from tests.support.planted_texts import (
    POLICY_DE,
    POLICY_EN,
    VARIANTS,
    assert_copy_supported,
    assert_planted_error_found,
)

RENEW_EN = [
    Chunk(
        "renew", "A loan can be renewed twice online, unless another member has reserved the item."
    )
]
RENEW_DE = [
    Chunk(
        "verl",
        "Eine Ausleihe kann zweimal verlängert werden, es sei denn, ein anderes Mitglied hat das Medium vorgemerkt.",
    )
]


@pytest.mark.parametrize("paraphrase", VARIANTS)
@pytest.mark.parametrize(
    ("claim", "context", "reason"),
    [
        ("Alcohol is not reimbursed, except for one glass of wine per person at client dinners.",
         POLICY_EN, "exception 'except for one glass of wine per person at client dinners'"),
        ("Alkohol wird nicht erstattet, außer ein Glas Wein pro Person bei Kundenessen.",
         POLICY_DE, "exception 'ausser ein glas wein pro person bei kundenessen'"),
        # A condition turned around.
        ("A loan can be renewed twice online, even if another member has reserved the item.",
         RENEW_EN, "condition 'even if another member has reserved the item' (the context: 'unless')"),
        ("Eine Ausleihe kann zweimal verlängert werden, auch wenn ein anderes Mitglied das Medium vorgemerkt hat.",
         RENEW_DE, "(the context: 'es sei denn')"),
    ],
)  # fmt: skip
def test_a_planted_exception_or_turned_condition_is_unsupported(
    claim: str, context: list[Chunk], reason: str, paraphrase: bool
) -> None:
    assert_planted_error_found(claim, context, reason, paraphrase)


@pytest.mark.parametrize("paraphrase", VARIANTS)
@pytest.mark.parametrize(
    ("claim", "context"),
    [
        ("A loan can be renewed twice online, unless another member has reserved the item.",
         RENEW_EN),
        # An exception the context states is no invention.
        ("Alcohol is not reimbursed, except at client dinners.",
         [Chunk("alcohol", "Alcohol is not reimbursed, except at client dinners.")]),
        ("Alkohol wird nicht erstattet, außer bei Kundenessen.",
         [Chunk("alkohol", "Alkohol wird außer bei Kundenessen nicht erstattet.")]),
    ],
)  # fmt: skip
def test_an_exception_or_condition_the_context_states_is_supported(
    claim: str, context: list[Chunk], paraphrase: bool
) -> None:
    assert_copy_supported(claim, context, paraphrase)


def _finding(claim: str, *context: str) -> str:
    index = ContextIndex.of([Chunk(f"c{n}", t) for n, t in enumerate(context)], paraphrase=False)
    return exception_finding(fold(claim), claim, index)


def test_the_clause_is_quoted_as_written_and_folded_when_folding_changed_its_length() -> None:
    claim = "Alcohol is not reimbursed, except for one glass of wine per person at client dinners."
    assert _finding(claim, *(c.text for c in POLICY_EN)) == (
        "exception 'except for one glass of wine per person at client dinners' (not in the context)"
    )
    german = "Der Größe nach, außer für Straße und Maß."  # "ß" folds to "ss": quoted folded
    assert (
        _finding(german, "Nichts.")
        == "exception 'ausser fur strasse und mass' (not in the context)"
    )


@pytest.mark.parametrize(
    ("context", "claim", "clause"),
    [
        ("The remaining 13 performed normally on the test battery apart from decreased verbal "
         "fluency.",
         "The remaining 13 performed normally on the test battery apart from decreased verbal "
         "fluency, unless the patients had received prior chemotherapy.",
         "unless the patients had received prior chemotherapy"),
        ("Alkohol wird nicht erstattet, außer bei Kundenessen.",
         "Alkohol wird nicht erstattet, außer bei Kundenessen, ausgenommen Spirituosen.",
         "ausgenommen spirituosen"),
    ],
)  # fmt: skip
def test_an_exception_appended_after_one_the_context_states_is_found(
    context: str, claim: str, clause: str
) -> None:
    # The copied sentence's own exception is stated; the one a generator appended is not.
    assert _finding(claim, context) == f"exception '{clause}' (not in the context)"
    assert _finding(context, context) == ""


def test_a_claim_without_an_exception_phrase_has_no_finding() -> None:
    assert _finding("Alcohol is not reimbursed.", "Client dinners are reimbursed.") == ""


@pytest.mark.parametrize(
    ("claim", "context", "said"),
    [
        ("A loan can be renewed unless another member has reserved it.",
         "A loan can be renewed even if another member has reserved it.", "'even if'"),
        ("A loan can be renewed even if another member has reserved it.",
         "A loan can be renewed unless another member has reserved it.", "'unless'"),
    ],
)  # fmt: skip
def test_a_condition_turned_either_way_is_found(claim: str, context: str, said: str) -> None:
    assert _finding(claim, context).endswith(f"(the context: {said})")
