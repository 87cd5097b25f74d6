"""align.py: one claim aligned with its best window and measured: the features the score reads."""

from __future__ import annotations

import pytest

from ragfunnel.analyzer.judges import Chunk
from ragfunnel.analyzer.judges.offline.align import FEATURES, FOUND_AT, align, read_facts
from ragfunnel.analyzer.judges.offline.index import ContextIndex

TRAVEL = [
    Chunk("a", "The hotel allowance is 120 EUR a night. Parking is free."),
    Chunk("b", "Taxis are allowed from 22:00. The hotel is central."),
]


def _index() -> ContextIndex:
    return ContextIndex.of(TRAVEL, paraphrase=False)


def _feature(values: tuple[float, ...], name: str) -> float:
    return values[FEATURES.index(name)]


def test_a_claim_the_context_states_aligns_with_its_sentence_and_is_all_found() -> None:
    evidence = align("The hotel allowance is 120 EUR a night.", _index())
    assert evidence.window == [0]
    assert len(evidence.values) == len(FEATURES)
    for name in ("overlap", "window", "weighted", "proximity"):
        assert _feature(evidence.values, name) == 1.0, name
    assert (evidence.missing, evidence.names, evidence.hard, evidence.unstated) == ([], [], [], [])
    assert evidence.found == 1.0


def test_a_claim_none_of_whose_words_is_there_says_so_and_is_below_found_at() -> None:
    evidence = align("Profits rose sharply in Asia.", _index())
    assert evidence.window == []
    assert evidence.missing == ["profits", "rose", "sharply", "asia"]
    assert evidence.hard == ["none of its words is in the context"]
    assert evidence.found < FOUND_AT


def test_a_window_of_two_sentences_never_spans_two_chunks() -> None:
    index = _index()
    evidence = align("Parking is free, and taxis are allowed from 22:00.", index)
    assert len({index.chunk_of[s] for s in evidence.window}) == 1


def test_a_leading_attribution_changes_no_feature() -> None:
    index = _index()
    plain = align("The hotel allowance is 120 EUR a night.", index)
    attributed = align("According to the report, the hotel allowance is 120 EUR a night.", index)
    assert attributed.values == plain.values


def test_missing_words_lower_the_shares_and_are_listed() -> None:
    evidence = align("The hotel allowance covers breakfast and minibar.", _index())
    assert evidence.missing == ["covers", "breakfast", "minibar"]
    assert _feature(evidence.values, "weighted") < 1.0
    assert _feature(evidence.values, "missing") > 0


def test_a_contradicted_fact_is_a_feature_and_a_hard_finding() -> None:
    evidence = align("The hotel allowance is 150 EUR a night.", _index())
    assert _feature(evidence.values, "facts_contradicted") == 1
    assert evidence.hard == ["150 EUR a night (context: 120 EUR a night)"]
    assert evidence.facts is evidence.findings.facts


@pytest.mark.parametrize(
    ("claim", "folded", "quoted"),
    [
        ("Die Gebühr: 120 €", "die gebuhr: 120 €", "120 €"),
        # "ß" folds to "ss": the quote comes from the folded text, whose positions hold.
        ("Die Straße kostet 5 EUR", "die strasse kostet 5 eur", "5 eur"),
    ],
)
def test_read_facts_quotes_each_fact_as_written_where_folding_kept_the_length(
    claim: str, folded: str, quoted: str
) -> None:
    text, spans, claim_facts = read_facts(claim)
    assert text == folded
    ((fact, start, end),) = spans
    assert text[start:end] == fact.text
    ((same, written, around),) = claim_facts
    assert same is fact
    assert written == quoted
    assert len(around) == 4
