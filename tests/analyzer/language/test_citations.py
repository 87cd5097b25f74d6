"""Citation markers and source lists are not claims (docs/judges.md, "Citations")."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragfunnel.analyzer.judges.offline import OfflineJudge
from ragfunnel.analyzer.language import citations
from ragfunnel.analyzer.language.citations import is_pointer, strip_markers
from ragfunnel.analyzer.language.claims import split_claims

CONTEXT = [
    ("hotel", "Die Hotelpauschale beträgt 120 Euro pro Nacht."),
    ("taxi", "Ein Taxi ist ab 22 Uhr erlaubt. Taxis are allowed after 22:00."),
    ("fee", "The cancellation fee is 50 EUR."),
]


@pytest.mark.parametrize(
    ("answer", "claims", "citations"),
    [
        ("X is Y. [1]", ["X is Y"], [("1",)]),
        (
            "The cancellation fee is 50 EUR [1, 2]. Taxis are allowed after 22:00 [Source 3].",
            ["The cancellation fee is 50 EUR", "Taxis are allowed after 22:00"],
            [("1", "2"), ("3",)],
        ),
        (
            "The cancellation fee is 50 EUR [Source 1 – policy-2024-07.pdf].",
            ["The cancellation fee is 50 EUR"],
            [("1",)],
        ),
        (
            "Die Hotelpauschale beträgt 120 Euro (Quelle 2); ein Taxi ist ab 22 Uhr erlaubt [1][3].",
            ["Die Hotelpauschale beträgt 120 Euro", "Ein Taxi ist ab 22 Uhr erlaubt"],
            [("2",), ("1", "3")],
        ),
        (
            "The fee is 50 EUR. [1] Taxis run after 22:00. [2]",
            ["The fee is 50 EUR", "Taxis run after 22:00"],
            [("1",), ("2",)],
        ),
        (
            "According to [2], the fee is 50 EUR. See [1]: taxis are allowed after 22:00.",
            ["The fee is 50 EUR", "Taxis are allowed after 22:00"],
            [("2",), ("1",)],
        ),
        ("The fee is 50 EUR (Source: fees.pdf).", ["The fee is 50 EUR"], [("fees.pdf",)]),
        ("The fee is 50 EUR [^1].", ["The fee is 50 EUR"], [("1",)]),
        ("The fee is 50 EUR.", ["The fee is 50 EUR"], [()]),
    ],
)
def test_markers_leave_the_claim_text_and_become_its_citations(
    answer: str, claims: list[str], citations: list[tuple[str, ...]]
) -> None:
    split = split_claims(answer)
    assert list(split.claims) == claims
    assert list(split.citations) == citations


@pytest.mark.parametrize(
    "answer",
    [
        "Sources: [1] a.pdf; [2] b.pdf",
        "Quellen: [1] reiserichtlinie.pdf; [2] taxi.pdf",
        "**Sources:** [1] a.pdf",
        "Sources:\n- [1] a.pdf\n- [2] b.pdf",
        "Quellen:\n[1] reise.pdf\n[2] taxi.pdf",
        "References: [Source 1 – policy-2024-07.pdf]",
        "See [2] for details.",
        "Siehe [2] für weitere Details.",
        "Siehe Quelle 3.",
        "Details in Source 2.",
    ],
)
def test_source_lists_and_pointers_make_no_claim(answer: str) -> None:
    assert split_claims(answer).claims == ()


def test_a_source_list_after_the_answer_is_dropped_on_its_own_line_and_inline() -> None:
    for answer in (
        "Taxis are allowed after 22:00 [2].\nSources: [2] taxi.pdf",
        "Taxis are allowed after 22:00 [2]. Sources: [2] taxi.pdf",
        "Ein Taxi ist ab 22 Uhr erlaubt [2].\n\nQuellen:\n- [2] taxi.pdf\n\nGern geschehen!",
    ):
        assert len(split_claims(answer).claims) == 1, answer


def test_a_pointer_with_content_keeps_the_content() -> None:
    for answer, claim in (
        ("See [2] for details: taxis run after 22:00.", "Taxis run after 22:00"),
        ("Siehe Quelle 2 für weitere Details: Taxis fahren ab 22 Uhr.", "Taxis fahren ab 22 Uhr"),
    ):
        assert split_claims(answer).claims == (claim,)


@pytest.mark.parametrize(
    "answer",
    [
        "The cancellation fee is 50 EUR. [1]",
        "The cancellation fee is 50 EUR [Source 3 – fees.pdf].\nSources: [3] fees.pdf",
        "Die Hotelpauschale beträgt 120 Euro [1]. Ein Taxi ist ab 22 Uhr erlaubt (Quelle 2).\n"
        "Quellen: [1] reise.pdf; [2] taxi.pdf",
        # A wrong number in the marker does not matter: the whole context decides.
        "Taxis are allowed after 22:00 [1]. See [3] for details.",
    ],
)
def test_a_supported_claim_with_a_marker_scores_1(answer: str) -> None:
    verdict = OfflineJudge().judge(answer, CONTEXT)
    assert verdict.faithfulness == 1.0, verdict.claims


def test_a_marker_does_not_rescue_an_unsupported_claim() -> None:
    verdict = OfflineJudge().judge("Ein Taxi ist jederzeit erlaubt [2].", CONTEXT)
    assert verdict.faithfulness == 0.0
    assert verdict.claims[0].text == "Ein Taxi ist jederzeit erlaubt"
    assert "jederzeit" in verdict.claims[0].missing


def test_the_sources_do_not_answer_is_a_refusal() -> None:
    assert OfflineJudge().judge("The sources do not answer this question.", CONTEXT).abstained


def test_numbers_in_brackets_that_are_not_citations_stay_out_of_reach() -> None:
    # Marker numbers never become facts of the claim: "1" and "2" are not looked for.
    verdict = OfflineJudge().judge("The cancellation fee is 50 EUR [1][2].", CONTEXT)
    assert verdict.claims[0].missing == ""


_PIECES = st.sampled_from(
    ["See", "siehe", "according to", "laut", "per", "Source", "Quelle", "docs", "[", "]", "(",
     ")", "【", "】", "^", "2", "12", " and ", ":", ",", ".", " ", "policy.pdf", "taxis", "for details"]
)  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(st.lists(_PIECES, max_size=14).map("".join))
def test_the_quick_checks_skip_only_texts_the_patterns_leave_alone(text: str) -> None:
    """Without a bracket or a digit, a colon, or an opening bracket, a text is left as the
    patterns would leave it: the shortcuts give what running them gives."""
    quick = (strip_markers(text), is_pointer(text), split_claims(text))
    every = re.compile("")  # matches every text: the patterns always run
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(citations, "_MAY_CITE", every)
        patch.setattr(citations, "_OPENING", every)
        patch.setattr(citations, "_COLON", every)
        assert (strip_markers(text), is_pointer(text), split_claims(text)) == quick
