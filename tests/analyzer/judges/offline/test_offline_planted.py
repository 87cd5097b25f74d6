"""Planted errors in a copied sentence are contradictions, not doubts (issue 34, reproduction 6).

An inserted negation, one changed number where the aligned sentence states another, and an
appended exception clause the context lacks are hard findings: ``unsupported``, in English and
in German, with and without the paraphrase embedding; the verbatim sentence stays supported.
"""

from __future__ import annotations

import pytest

from ragfunnel.analyzer.judges import Chunk
from ragfunnel.analyzer.judges.offline import OfflineJudge, judge_claim

# The dev extra installs ragfunnel[paraphrase]: without it the embedded variant fails (a clear
# error naming the install, from judge_claim(paraphrase=True)); it never skips.
VARIANTS = [False, True]

ABSTRACT_EN = [
    Chunk(
        "abstract",
        "We followed 412 adults for two years. The most common diagnoses were depression "
        "(19 %) and anxiety (12 %). Treatment was started in 88 patients.",
    )
]
ABSTRACT_DE = [
    Chunk(
        "abstract",
        "Wir begleiteten 412 Erwachsene über zwei Jahre. Die häufigsten Diagnosen waren "
        "Depression (19 %) und Angst (12 %). Eine Behandlung begann bei 88 Patienten.",
    )
]
POLICY_DATE_DE = [Chunk("policy", "Die neue Reiserichtlinie gilt ab dem 1. März 2025.")]
POLICY_DATE_EN = [Chunk("policy", "The new travel policy applies from 1 March 2025.")]
ODDS = [Chunk("abstract", "The odds ratio for relapse was 1·32 (95% CI 1·10–2·05).")]
POLICY_EN = [
    Chunk("alcohol", "Alcohol is not reimbursed."),
    Chunk("dinners", "Client dinners are reimbursed up to 60 EUR per person."),
]
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
POLICY_DE = [
    Chunk("alkohol", "Alkohol wird nicht erstattet."),
    Chunk("essen", "Kundenessen werden bis 60 EUR pro Person erstattet."),
]


@pytest.mark.parametrize("paraphrase", VARIANTS)
@pytest.mark.parametrize(
    ("claim", "context", "reason"),
    [
        ("The most common diagnoses were not depression (19 %) and anxiety (12 %).",
         ABSTRACT_EN, "negation 'not'"),
        ("Die häufigsten Diagnosen waren nicht Depression (19 %) und Angst (12 %).",
         ABSTRACT_DE, "negation 'nicht'"),
        ("The most common diagnoses were depression (26 %) and anxiety (12 %).",
         ABSTRACT_EN, "26 % (context: 19 %)"),
        ("Die häufigsten Diagnosen waren Depression (26 %) und Angst (12 %).",
         ABSTRACT_DE, "26 % (context: 19 %)"),
        # The changed number is stated elsewhere (88): its sentence still says 412.
        ("We followed 88 adults for two years.", ABSTRACT_EN, "88 (context: 412)"),
        ("Wir begleiteten 88 Erwachsene über zwei Jahre.", ABSTRACT_DE, "88 (context: 412)"),
        # A German day's dot ("1. März") ends no sentence: the date is compared in place.
        ("Die neue Reiserichtlinie gilt ab dem 1. April 2025.", POLICY_DATE_DE,
         "ab dem 1. April 2025 (context: ab dem 1. März 2025)"),
        ("The new travel policy applies from 1 April 2025.", POLICY_DATE_EN,
         "from 1 April 2025 (context: from 1 March 2025)"),
        # Middle-dot decimals, as The Lancet writes them.
        ("The odds ratio for relapse was 8·32 (95% CI 1·10–2·05).", ODDS,
         "8·32 (context: 1·32)"),
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
def test_planted_error_is_unsupported(
    claim: str, context: list[Chunk], reason: str, paraphrase: bool
) -> None:
    verdict = judge_claim(claim, context, paraphrase)
    assert verdict.label == "unsupported", verdict
    assert reason in verdict.missing
    assert verdict.confidence is not None and verdict.confidence <= 0.2


@pytest.mark.parametrize("paraphrase", VARIANTS)
@pytest.mark.parametrize(
    ("claim", "context"),
    [
        ("The most common diagnoses were depression (19 %) and anxiety (12 %).", ABSTRACT_EN),
        ("Die häufigsten Diagnosen waren Depression (19 %) und Angst (12 %).", ABSTRACT_DE),
        ("We followed 412 adults for two years.", ABSTRACT_EN),
        ("Die neue Reiserichtlinie gilt ab dem 1. März 2025.", POLICY_DATE_DE),
        ("The odds ratio for relapse was 1·32 (95% CI 1·10–2·05).", ODDS),
        ("Alcohol is not reimbursed.", POLICY_EN),
        ("Alkohol wird nicht erstattet.", POLICY_DE),
        ("A loan can be renewed twice online, unless another member has reserved the item.",
         RENEW_EN),
        # An exception the context states is no invention.
        ("Alcohol is not reimbursed, except at client dinners.",
         [Chunk("alcohol", "Alcohol is not reimbursed, except at client dinners.")]),
        ("Alkohol wird nicht erstattet, außer bei Kundenessen.",
         [Chunk("alkohol", "Alkohol wird außer bei Kundenessen nicht erstattet.")]),
    ],
)  # fmt: skip
def test_copied_sentence_is_supported(claim: str, context: list[Chunk], paraphrase: bool) -> None:
    verdict = judge_claim(claim, context, paraphrase)
    assert verdict.label == "supported", verdict


def test_a_negation_the_context_shares_is_no_insertion() -> None:
    """'not' standing in the context between the same words, or a paraphrase, is fine."""
    context = [Chunk("c", "The reset did not fix the fault. Costs were not reimbursed.")]
    verdict = OfflineJudge(paraphrase=False).judge(
        "The reset did not fix the fault. Costs were not reimbursed.", context
    )
    assert [c.label for c in verdict.claims] == ["supported", "supported"]


def test_a_number_in_another_place_is_not_contradicted_in_place() -> None:
    """A claim that is no copy of its sentence keeps the ordinary fact check."""
    context = [Chunk("c", "The trial enrolled 412 adults in 12 hospitals across Europe.")]
    verdict = judge_claim("Twelve hospitals took part.", context, False)
    assert "context:" not in verdict.missing


FORMS = [Chunk("forms", "Travel requests need form TA-7 and reimbursement claims need form SR-3.")]


@pytest.mark.parametrize(
    ("claim", "quoted"),
    [
        ("Reimbursement claims need form SR-5.", "SR-5 (context: SR-3)"),
        ("Travel requests need form TA-9.", "TA-9 (context: TA-7)"),
    ],
)
def test_the_quote_names_the_value_in_the_claims_place(claim: str, quoted: str) -> None:
    """Issue 34, reproduction 5: "SR-5 (context: TA-7)" quoted the sentence's first code."""
    verdict = judge_claim(claim, FORMS, paraphrase=False)
    assert verdict.label == "unsupported"
    assert verdict.missing == quoted
