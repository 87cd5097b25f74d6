"""index.py: a prompt's context indexed once for every claim of the answer."""

from __future__ import annotations

import pytest

from ragfunnel.analyzer.judges import Chunk
from ragfunnel.analyzer.judges.offline.index import ContextIndex
from ragfunnel.analyzer.judges.offline.words import stem

TRAVEL = [
    Chunk("a", "The hotel allowance is 120 EUR a night. Parking is free."),
    Chunk("b", "Taxis are allowed from 22:00. The hotel is not central."),
]


def _index(chunks: list[Chunk] = TRAVEL) -> ContextIndex:
    return ContextIndex.of(chunks, paraphrase=False)


def test_sentences_are_numbered_across_chunks_and_know_their_chunk() -> None:
    index = _index()
    assert index.ids == ["a", "b"]
    assert index.chunk_of == [0, 0, 1, 1]
    assert index.sentences[2] == "taxis are allowed from 22:00."
    assert index.written[0] == "The hotel allowance is 120 EUR a night."
    assert not index.german


def test_a_stem_posts_every_sentence_holding_it_and_a_stem_none_holds_is_absent() -> None:
    index = _index()
    assert index.postings["hotel"] == {0, 3}
    assert index.postings.get("taxi") == {2}
    assert index.postings.get("zebra") is None
    with pytest.raises(KeyError):
        index.postings["zebra"]


GERMAN = [Chunk("de", "Die Hotelpauschale beträgt 120 EUR pro Nacht. Parken ist frei.")]


@pytest.mark.parametrize(
    ("context", "word", "sentences"),
    [
        (TRAVEL, "allowances", {0, 2}),  # by its stem: "allow" is in "allowed" too
        (TRAVEL, "parking", {1}),
        (GERMAN, "pauschale", {0}),  # inside a compound
        (GERMAN, "hotelparken", {1}),  # a compound's parts: "hotel" a word, "parken" a stem
        (TRAVEL, "zebra", None),
    ],
)
def test_holding_finds_a_word_by_stem_inside_a_compound_or_as_one(
    context: list[Chunk], word: str, sentences: set[int] | None
) -> None:
    index = _index(context)
    assert index.holding(word, stem(word, index.german)) == sentences


def test_a_german_context_is_indexed_with_german_stems() -> None:
    index = _index(GERMAN)
    assert index.german
    assert index.postings.get(stem("parken", True)) == {1}
    assert index.containing("pauschal") == {0}


def test_facts_and_negations_are_read_per_sentence_on_first_use() -> None:
    index = _index()
    (fact,) = index.facts_of(0)
    assert (fact.kind, fact.text, fact.period) == ("amount", "120 EUR a night", "day")
    assert index.facts_of(1) == []  # "Parking is free." holds no fact
    assert index.facts_of(0) is index.facts_of(0)  # kept with its chunk
    assert index.negation_of(3) == "not"
    assert index.negation_of(0) == ""


def test_without_the_embedding_no_sentence_has_a_vector() -> None:
    index = _index()
    assert index.embedder is None
    assert index.vector_of(0) is None
