"""The verdict shapes (judges/verdict_types.py): chunks in, scores and doubts out, stable hashes."""

from __future__ import annotations

import pytest

from ragfunnel.analyzer.judges import AnswerVerdict, Chunk, ClaimVerdict, JudgeError
from ragfunnel.analyzer.judges.verdict_types import as_chunks, context_hash, text_hash

CLAIMS = (
    ClaimVerdict("a", "supported", confidence=0.9),
    ClaimVerdict("b", "partial"),
    ClaimVerdict("c", "uncertain", confidence=0.4),
    ClaimVerdict("d", "unsupported", confidence=0.05),
)


def test_context_in_any_shape_becomes_chunks_from_a_generator_too() -> None:
    given = (item for item in [Chunk("x", "X."), ("y", "Y."), "Z.", (7, "Seven.")])
    assert as_chunks(given) == (
        Chunk("x", "X."),
        Chunk("y", "Y."),
        Chunk("3", "Z."),  # a bare text is named by its place, from 1
        Chunk("7", "Seven."),
    )
    assert as_chunks([]) == ()


def test_a_context_item_of_another_shape_is_named_by_its_place() -> None:
    with pytest.raises(JudgeError, match="context item 2 is dict: expected a Chunk"):
        as_chunks(["fine", {"id": "x", "text": "X."}])
    with pytest.raises(JudgeError, match="context item 1 is tuple"):
        as_chunks([("a", "b", "c")])


def test_scores_doubts_and_the_confident_findings() -> None:
    verdict = AnswerVerdict(CLAIMS, judge="offline")
    assert [c.verdict for c in CLAIMS] == [1.0, 0.5, 0.5, 0.0]
    assert [c.score for c in CLAIMS] == [0.9, 0.5, 0.4, 0.05]
    assert verdict.faithfulness == pytest.approx(2.0 / 4)
    assert verdict.confidence == pytest.approx((0.9 + 0.5 + 0.4 + 0.05) / 4)
    assert [c.text for c in verdict.doubted] == ["b", "c", "d"]
    assert [c.text for c in verdict.refuted] == ["d"]
    assert not verdict.abstained


def test_the_old_unsupported_property_warns_and_holds_the_doubted() -> None:
    verdict = AnswerVerdict(CLAIMS)
    with pytest.warns(DeprecationWarning, match=r"use \.doubted .* or \.refuted"):
        assert verdict.unsupported == verdict.doubted


def test_an_abstention_has_no_score() -> None:
    verdict = AnswerVerdict((), refusals=("I don't know.",), calls=2)
    assert verdict.abstained
    assert verdict.faithfulness is None and verdict.confidence is None
    assert verdict == AnswerVerdict((), refusals=("I don't know.",))  # calls are not compared


def test_hashes_are_stable_and_see_every_id_and_text_in_order() -> None:
    assert text_hash("Ein Taxi.") == text_hash("Ein Taxi.") != text_hash("Ein Taxi!")
    assert len(text_hash("x")) == 32
    a, b = Chunk("a", "First."), Chunk("b", "Second.")
    assert context_hash([a, b]) == context_hash(iter([a, b]))
    assert context_hash([a, b]) != context_hash([b, a])
    assert context_hash([Chunk("ab", "c")]) != context_hash([Chunk("a", "bc")])
    assert context_hash([a]) != context_hash([Chunk("a", "First!")])
