"""Texts of the offline judge's planted-error tests (issue 34, reproduction 6).

A real abstract and a short policy, in English and in German: a claim copies one of their
sentences and changes one thing in it (a number, a negation, an exception clause). Shared by
``tests/analyzer/judges/offline/test_hard.py``, ``test_negation.py`` and ``test_exception.py``,
with the two checks every planted error and every faithful copy must pass.
"""

from __future__ import annotations

from ragfunnel.analyzer.judges import Chunk
from ragfunnel.analyzer.judges.offline import judge_claim
from ragfunnel.analyzer.judges.offline.score import HARD_CAP

__all__ = [
    "ABSTRACT_DE",
    "ABSTRACT_EN",
    "POLICY_DE",
    "POLICY_EN",
    "VARIANTS",
    "assert_copy_supported",
    "assert_planted_error_found",
]

VARIANTS = [False, True]
"""Without and with the paraphrase embedding. The dev extra installs ragfunnel[paraphrase]:
without it the embedded variant fails (a clear error naming the install, from
``judge_claim(paraphrase=True)``); it never skips."""

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
POLICY_EN = [
    Chunk("alcohol", "Alcohol is not reimbursed."),
    Chunk("dinners", "Client dinners are reimbursed up to 60 EUR per person."),
]
POLICY_DE = [
    Chunk("alkohol", "Alkohol wird nicht erstattet."),
    Chunk("essen", "Kundenessen werden bis 60 EUR pro Person erstattet."),
]


def assert_planted_error_found(
    claim: str, context: list[Chunk], reason: str, paraphrase: bool
) -> None:
    """The claim is ``unsupported``, ``reason`` in what it misses, its confidence capped."""
    verdict = judge_claim(claim, context, paraphrase)
    assert verdict.label == "unsupported", verdict
    assert reason in verdict.missing
    assert verdict.confidence is not None and verdict.confidence <= HARD_CAP


def assert_copy_supported(claim: str, context: list[Chunk], paraphrase: bool) -> None:
    """A claim that copies its context faithfully is ``supported``."""
    verdict = judge_claim(claim, context, paraphrase)
    assert verdict.label == "supported", verdict
