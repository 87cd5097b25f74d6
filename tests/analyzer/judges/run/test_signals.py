"""The screening signals (judges/run/signals.py): conflicting sources, low confidence, samples."""

from __future__ import annotations

import math

import pytest

from ragfunnel.analyzer.judges import Chunk
from ragfunnel.analyzer.judges.offline import OfflineJudge
from ragfunnel.analyzer.judges.run.signals import (
    MAX_CONTEXT_CHARS,
    amounts_reader,
    answer_terms,
    chunk_amounts,
    conflicting_sources,
    signals,
)
from ragfunnel.analyzer.language.lexicon import fold


def test_an_amount_is_quoted_as_written_with_its_bound_phrase() -> None:
    chunks = [
        Chunk("a", "Das Parken ist 2 Stunden frei. Die Hotelpauschale beträgt bis zu 120 EUR pro Nacht."),
        Chunk("b", "Die Hotelpauschale beträgt 150 EUR pro Nacht.\nDas Parken ist 3 Stunden frei."),
    ]  # fmt: skip
    assert conflicting_sources(chunks) == [
        "a says 2 Stunden, b says 3 Stunden",
        "a says bis zu 120 EUR pro Nacht, b says 150 EUR pro Nacht",
    ]


def test_signals() -> None:
    chunks = [
        Chunk("policy-v1#hotel", "Die Hotelpauschale beträgt 120 EUR pro Nacht."),
        Chunk("policy-v2#hotel", "Die Hotelpauschale beträgt 150 EUR pro Nacht."),
        Chunk("taxi", "Ein Taxi ist ab 22:00 Uhr erlaubt."),
    ]
    assert conflicting_sources(chunks) == [
        "policy-v1#hotel says 120 EUR pro Nacht, policy-v2#hotel says 150 EUR pro Nacht"
    ]
    # A day's rate and a week's are different things, not two sources disagreeing.
    rates = [Chunk("meals", "Meals: 60 EUR a day."), Chunk("weekly", "Meals: 300 EUR a week.")]
    assert conflicting_sources(rates) == []
    found = signals(
        "Die Hotelpauschale beträgt 120 Euro.",
        chunks,
        low_confidence=["120"],
        sample_answers=["Die Hotelpauschale beträgt 150 Euro."],
        oracle_answer="Die Hotelpauschale beträgt 150 Euro.",
    )
    names = [s.split(":", 1)[0] for s in found]
    assert names == [
        "low_confidence",
        "sample_disagreement",
        "conflicting_sources",
        "oracle_disagreement",
    ]
    assert found[1] == "sample_disagreement: EUR 120, EUR 150"
    quiet = signals(
        "Die Hotelpauschale beträgt 120 Euro.",
        chunks[:1],
        logprobs_min=math.log(0.9),
        sample_answers=["Die Hotelpauschale beträgt 120 EUR."],
    )
    assert quiet == []
    low = signals("x", chunks[:1], logprobs_min=math.log(0.05))
    assert low == ["low_confidence: a token at p = 0.05"]
    big = signals("x", [Chunk(str(n), "text") for n in range(25)])
    assert big == ["oversized_prompt: 25 chunks, 100 characters"]


def test_answer_terms_are_facts_acronyms_and_english_names_opening_no_sentence() -> None:
    """German capitalises every noun: "Die Pauschale beträgt 120 Euro." against the oracle's
    "Sie beträgt 120 EUR." was an oracle disagreement on "pauschale" (helper-12's finding)."""
    german = answer_terms("Die Hotelpauschale beträgt 120 Euro; ein Taxi ab 22 Uhr bei Müller.")
    assert german == {"amount:EUR 120", "time:22:00"}  # "Euro": part of the amount
    assert answer_terms("Die Pauschale beträgt 120 Euro.") == answer_terms("Sie beträgt 120 EUR.")
    assert answer_terms("Laut IT gilt das.") == {"name:it"}  # an acronym is a name in German too
    english = answer_terms("The hotel in Munich costs 120 EUR. Taxis run after 10 pm.")
    assert english == {"amount:EUR 120", "time:22:00", "name:munich"}  # "Taxis" opens a sentence
    assert answer_terms("Müller says so.") == set()  # the answer's first word is no name


def test_quiet_inputs_give_no_signal_and_a_long_context_is_oversized() -> None:
    one = [Chunk("a", "x")]
    assert signals("Die Pauschale beträgt 120 Euro.", one, low_confidence=[" ", ""]) == []
    same = signals(
        "Die Pauschale beträgt 120 Euro.", one, oracle_answer="Die Pauschale ist 120 EUR."
    )
    assert same == []  # the same amount written another way
    long = signals("x", [Chunk("a", "y" * (MAX_CONTEXT_CHARS + 1))])
    assert long == [f"oversized_prompt: 1 chunks, {MAX_CONTEXT_CHARS + 1:,} characters"]


def test_a_bound_phrase_belongs_to_its_own_sentence() -> None:
    """ "less than" ends the sentence before: it bounds $25,000, not the 46.2 % after it."""
    text = "Income was less than $25,000. 46.2% of the families reported a smoking ban at home."
    (dollars, share) = chunk_amounts(text, fold(text))
    assert (dollars[0], dollars[3]) == ("USD", "less than $25,000")
    assert (share[0], share[1], share[3]) == ("%", "46.2 %", "46.2%")


_READ_BACK = [
    # Bound phrases, a fold that changes the length (ß), a line break, rates, number words,
    # a day's dot before its month, no amount at all.
    "Die Hotelpauschale beträgt bis zu 120 EUR pro Nacht. Das Parken ist 2 Stunden frei.",
    "Die Straße ist 3 km lang; die Gebühr beträgt 5 EUR.\nDas Parken ist 3 Stunden frei.",
    "Meals: 60 EUR a day. Taxis are allowed from 10 pm, at most 45 USD a ride.",
    "Income was less than $25,000. 46.2% of the families reported a smoking ban at home.",
    "Fünfundvierzig Minuten kosten zwölf Euro. Ab dem 1. März 2025 gilt: 30 Urlaubstage.",
    "No number here. Nor here.",
]


@pytest.mark.parametrize("text", _READ_BACK)
def test_amounts_read_from_the_judges_prepared_chunks_are_the_amounts_read_anew(text: str) -> None:
    """The workers read a chunk's amounts from what their judge prepared; the parent anew."""
    chunks = [Chunk("c", text), Chunk("d", "Die Hotelpauschale beträgt 150 EUR pro Nacht.")]
    judge = OfflineJudge()
    judge.judge("Das Parken ist 2 Stunden frei; die Pauschale beträgt 120 EUR.", chunks)
    assert judge.chunks is not None and judge.chunks.peek(text) is not None
    fresh = chunk_amounts(text, fold(text))
    assert amounts_reader(judge)(text) == fresh
    # Read again (now from the facts kept with the chunk), and by a judge that keeps no chunk.
    assert amounts_reader(judge)(text) == fresh
    assert amounts_reader(OfflineJudge(chunk_cache=0))(text) == fresh
    assert amounts_reader(None)(text) == fresh
    assert conflicting_sources(chunks, amounts_reader(judge)) == conflicting_sources(chunks)
