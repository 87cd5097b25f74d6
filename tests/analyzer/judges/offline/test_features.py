"""What a claim is: chit-chat and questions (``offline/features.py``), and how the score reads them."""

from __future__ import annotations

import math

import pytest

from ragfunnel.analyzer.judges import Chunk
from ragfunnel.analyzer.judges.offline import judge_claim
from ragfunnel.analyzer.judges.offline.align import FEATURES, align
from ragfunnel.analyzer.judges.offline.features import DIALOGUE_FEATURES, dialogue_features
from ragfunnel.analyzer.judges.offline.index import ContextIndex
from ragfunnel.analyzer.judges.offline.score import PARAPHRASE, PLAIN

CRAYOLA = (
    "Originally an industrial pigment supply company, Crayola soon shifted its focus to art "
    "products for home and school use, beginning with chalk, then crayons."
)


def _index(text: str = CRAYOLA) -> ContextIndex:
    return ContextIndex.of([Chunk("k", text)], paraphrase=False)


def _chat(claim: str, context: str = CRAYOLA) -> int:
    """How many speaker's words the feature counted (it stores log(1 + n))."""
    return round(math.expm1(dialogue_features(claim, _index(context))[0]))


@pytest.mark.parametrize(
    ("claim", "count"),
    [
        ("I love Crayola, my kids use their crayons.", 3),  # I, love, my
        ("I'm a big fan of crayons and I've got lots.", 3),  # I'm, fan, I've
        ("i think crayola started with chalk", 2),  # written in lower case, as people chat
        ("Crayola began with chalk, then crayons.", 0),
    ],
)
def test_speaker_words_are_counted(claim: str, count: int) -> None:
    assert _chat(claim) == count


@pytest.mark.parametrize(
    "claim",
    [
        "Crayola sold its first crayons in the US in 1903.",  # the country, not "us"
        "Crayola made chalk for schools before World War I.",  # a numeral, not "I"
        "The founder was ill when Crayola moved to crayons.",  # the word, not "I'll"
        "Great Britain imported Crayola chalk.",  # a name, not an opinion
        "You can buy Crayola chalk for home and school use.",  # an answer to a user
    ],
)
def test_names_numerals_and_the_second_person_are_no_chit_chat(claim: str) -> None:
    assert _chat(claim) == 0


def test_a_word_the_context_holds_is_no_speakers() -> None:
    quote = 'The founder said: "I think chalk is the future of Crayola."'
    assert _chat("I think chalk is the future of Crayola.", quote) == 0
    assert _chat("I think chalk is the future of Crayola.") == 2


def test_question() -> None:
    index = _index()
    assert dialogue_features("Have you ever used Crayola chalk?", index)[1] == 1.0
    assert dialogue_features("Crayola began with chalk.", index)[1] == 0.0


def test_features_and_coefficients_line_up() -> None:
    assert FEATURES[-len(DIALOGUE_FEATURES) :] == DIALOGUE_FEATURES
    assert len(PLAIN.coefficients) == len(FEATURES)
    assert len(PARAPHRASE.coefficients) == len(FEATURES) + 1
    evidence = align("I love Crayola chalk, do you?", _index())
    assert evidence.values[-2:] == (math.log1p(2), 1.0)


def test_chit_chat_lowers_the_confidence_of_the_same_words() -> None:
    """A response that copies its knowledge sentence but speaks for itself is less attributable."""
    plain = "Crayola shifted its focus to art products for home and school use."
    chatty = "I love that Crayola shifted its focus to art products for home and school use."
    context = [("k", CRAYOLA)]
    copied = judge_claim(plain, context, paraphrase=False)
    spoken = judge_claim(chatty, context, paraphrase=False)
    assert copied.label == "supported"
    assert spoken.confidence is not None and copied.confidence is not None
    assert spoken.confidence < copied.confidence - 0.1
