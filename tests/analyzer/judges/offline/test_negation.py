"""negation.py: a claim's negation against the context clause that states it.

The clause holding most of the claim's words decides, a negation negating only the words beside
it; a negation the claim inserts into words it copies is its own (issue 34). Through the whole
judge where the verdict is the point, and ``negation_finding`` directly where the rule is.
"""

from __future__ import annotations

import pytest

from ragfunnel.analyzer.judges import Chunk
from ragfunnel.analyzer.judges.offline import OfflineJudge, judge_claim
from ragfunnel.analyzer.judges.offline.index import ContextIndex
from ragfunnel.analyzer.judges.offline.negation import negation_finding
from ragfunnel.analyzer.judges.offline.words import stem
from ragfunnel.analyzer.language.lexicon import fold
from ragfunnel.analyzer.language.terms import key_words
from tests.support.planted_texts import (
    ABSTRACT_DE,
    ABSTRACT_EN,
    POLICY_DE,
    POLICY_EN,
    VARIANTS,
    assert_copy_supported,
    assert_planted_error_found,
)


def test_negations_must_agree() -> None:
    context = ["Alcohol is not reimbursed. Meals are reimbursed up to 60 EUR."]
    assert judge_claim("Alcohol is reimbursed", context).missing.startswith("the context negates")
    negated = judge_claim("Meals are not reimbursed", ["Meals are reimbursed up to 60 EUR."])
    assert negated.label == "unsupported"
    assert "negation 'not'" in negated.missing


def test_a_negated_claim_without_a_negated_context_stays_unsupported() -> None:
    verdict = OfflineJudge().judge(
        "Do not run a factory reset: reflash the image.",
        [("c", "Run a factory reset: reflash the image.")],
    )
    assert "negation 'not'" in verdict.claims[0].missing


def test_a_negation_negates_only_the_words_beside_it() -> None:
    # "didn't" negates "think twice", not "she was feared to have drowned".
    kept = judge_claim(
        "She was feared to have drowned.",
        ["They didn't think twice about giving her the kiss of life after she was feared to "
         "have drowned."],
    )  # fmt: skip
    assert "negates" not in kept.missing
    assert kept.label != "unsupported"
    # "does not want to retire" agrees with "did not want to retire", whatever else the claim
    # adds; "is not reimbursed" still contradicts "is reimbursed".
    agreed = judge_claim(
        "The former prime minister said he did not want to retire until he was 91 years old.",
        ["Tony Blair, the former prime minister, has said he does not want to retire until he "
         "is 91 years old."],
    )  # fmt: skip
    assert "negation" not in agreed.missing
    assert judge_claim("Alcohol is reimbursed", ["Alcohol is not reimbursed."]).label == (
        "unsupported"
    )


@pytest.mark.parametrize(
    ("claim", "context", "label"),
    [
        # The negation negates what follows it, not the claim's words just before it.
        ("The striker posted a photo on social media to show he was too ill to play on Sunday.",
         "The photo the striker posted on social media to show he was too ill to play on Sunday "
         "will make no difference to the coach.", "supported"),
        ("A petition to remove the statue was launched.",
         "A petition to remove the statue was launched - it isn't the only artwork criticised.",
         "supported"),
        ("Alcohol is reimbursed.", "Alcohol is not reimbursed.", "unsupported"),
        ("Alkohol wird erstattet.", "Alkohol erstatten wir nicht.", "unsupported"),
    ],
)  # fmt: skip
def test_a_negation_negates_the_words_after_it(claim: str, context: str, label: str) -> None:
    """Two supported QAGS CNN/DM sentences were unsupported ("the context negates it ('no')"):
    the context's "no" stood within four words of the claim's last words, but negated the
    words after it."""
    verdict = judge_claim(claim, [context])
    assert (verdict.label == "unsupported") is (label == "unsupported"), verdict.missing


@pytest.mark.parametrize("paraphrase", VARIANTS)
@pytest.mark.parametrize(
    ("claim", "context", "reason"),
    [
        ("The most common diagnoses were not depression (19 %) and anxiety (12 %).",
         ABSTRACT_EN, "negation 'not'"),
        ("Die häufigsten Diagnosen waren nicht Depression (19 %) und Angst (12 %).",
         ABSTRACT_DE, "negation 'nicht'"),
    ],
)  # fmt: skip
def test_a_negation_planted_in_a_copied_sentence_is_unsupported(
    claim: str, context: list[Chunk], reason: str, paraphrase: bool
) -> None:
    """Issue 34, reproduction 6: an inserted negation is a contradiction, not a doubt."""
    assert_planted_error_found(claim, context, reason, paraphrase)


@pytest.mark.parametrize("paraphrase", VARIANTS)
@pytest.mark.parametrize(
    ("claim", "context"),
    [("Alcohol is not reimbursed.", POLICY_EN), ("Alkohol wird nicht erstattet.", POLICY_DE)],
)
def test_a_negation_the_context_states_is_supported(
    claim: str, context: list[Chunk], paraphrase: bool
) -> None:
    assert_copy_supported(claim, context, paraphrase)


def test_a_negation_the_context_shares_is_no_insertion() -> None:
    """'not' standing in the context between the same words, or a paraphrase, is fine."""
    context = [Chunk("c", "The reset did not fix the fault. Costs were not reimbursed.")]
    verdict = OfflineJudge(paraphrase=False).judge(
        "The reset did not fix the fault. Costs were not reimbursed.", context
    )
    assert [c.label for c in verdict.claims] == ["supported", "supported"]


def _finding(
    claim: str, context: str, coverage: float = 1.0, window: tuple[int, ...] = (0,)
) -> str:
    index = ContextIndex.of([Chunk("c", context)], paraphrase=False)
    folded = fold(claim)
    roots = [stem(w, index.german) for w in key_words(folded, [])]
    return negation_finding(folded, roots, index, list(window), coverage)


def test_a_negated_clause_contradicts_a_plain_claim_and_a_plain_one_a_negated_claim() -> None:
    negated = "Alcohol is not reimbursed at client dinners."
    plain = "Alcohol is reimbursed at client dinners."
    assert _finding(plain, negated) == "the context negates it ('not')"
    assert _finding(negated, plain) == "negation 'not' (the context does not negate it)"
    assert _finding(negated, negated) == ""
    assert _finding(plain, plain) == ""


def test_german_negates_the_verb_before_the_negation() -> None:
    assert _finding("Alkohol wird erstattet.", "Alkohol erstatten wir nicht.") == (
        "the context negates it ('nicht')"
    )


def test_no_finding_without_a_window_or_where_the_context_holds_too_little_of_the_claim() -> None:
    claim, context = "Alcohol is reimbursed at client dinners.", "Alcohol is not reimbursed."
    assert _finding(claim, context, coverage=0.74) == ""
    assert _finding(claim, context, window=()) == ""


def test_a_negation_before_the_verb_negates_what_no_after_it_does() -> None:
    # QAGS XSum: "there should be no stigma" against "there shouldn't be stigma" was judged an
    # inserted negation ("the context states 'be stigma' without it").
    claim = "There should be no stigma attached to food."
    for context in (
        "There shouldn't be stigma attached to food.",
        "There should not be stigma attached to food.",
    ):
        assert judge_claim(claim, [context], False).label == "supported"
    plain = judge_claim(claim, ["There should be stigma attached to food."], False)
    assert plain.label == "unsupported"


def test_a_negation_answering_in_a_sentence_of_its_own_negates_nothing_after_it() -> None:
    # BEGIN test: a response opening "not really." was judged to negate the sentence it copies.
    claim = (
        "not really. the most common bees in the northern hemisphere are the halictidae. "
        "they are small and often mistaken for wasps or flies."
    )
    context = (
        "The most common bees in the Northern Hemisphere are the Halictidae, or sweat bees, but "
        "they are small and often mistaken for wasps or flies."
    )
    assert judge_claim(claim, [context], False).label == "supported"
    negated = "the most common bees in the northern hemisphere are not the halictidae."
    assert judge_claim(negated, [context], False).label == "unsupported"
