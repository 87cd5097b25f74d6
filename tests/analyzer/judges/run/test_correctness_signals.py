from __future__ import annotations

import math

import pytest

from ragfunnel.analyzer.judges import Chunk
from ragfunnel.analyzer.judges.correctness import facts_correctness, reference_correctness
from ragfunnel.analyzer.judges.run.signals import conflicting_sources, signals
from ragfunnel.analyzer.judges.run.tiered import in_sample

REFERENCE = "Die Hotelpauschale beträgt 120 Euro; ein Taxi ist ab 22 Uhr erlaubt."


def test_facts_correctness() -> None:
    assert facts_correctness("anything", []) is None
    full = facts_correctness("Firmware 4.2.0 and 4.2.1 need a reset.", ["4.2.0", "4.2.1"])
    assert full is not None and full.label == "correct"
    half = facts_correctness("Only 4.2.0 needs a reset.", ["4.2.0", "4.2.1"])
    assert half is not None and (half.label, half.missing) == ("incomplete", ("4.2.1",))
    assert half.reason == "misses: 4.2.1"
    none = facts_correctness("No reset is needed.", ["4.2.0", "4.2.1"])
    assert none is not None and none.label == "wrong"
    normalised = facts_correctness("Die Pauschale beträgt €120.", ["120 EUR"])
    assert normalised is not None and normalised.label == "correct"


def test_reference_correctness_names_the_missing_part() -> None:
    both = reference_correctness(
        "Die Hotelpauschale liegt bei 120 EUR, und ein Taxi ist ab 22:00 erlaubt.", REFERENCE
    )
    assert both is not None and both.label == "correct"
    skipped = reference_correctness("Die Hotelpauschale beträgt 120 Euro.", REFERENCE)
    assert skipped is not None and skipped.label == "incomplete"
    assert skipped.missing == ("Ein Taxi ist ab 22 Uhr erlaubt",)
    assert "'Ein Taxi ist ab 22 Uhr erlaubt'" in skipped.reason
    wrong = reference_correctness(
        "Die Hotelpauschale beträgt 150 Euro; ein Taxi ist ab 22 Uhr erlaubt.", REFERENCE
    )
    assert wrong is not None and wrong.label == "wrong"
    assert "150" in wrong.reason
    assert reference_correctness("x", "") is None


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


def test_random_sample_is_seeded_and_near_its_rate() -> None:
    keys = [f"trace-{n}" for n in range(20_000)]
    picked = [k for k in keys if in_sample(k, seed=1, rate=0.03)]
    assert picked == [k for k in keys if in_sample(k, seed=1, rate=0.03)]
    assert 0.025 < len(picked) / len(keys) < 0.035
    assert picked != [k for k in keys if in_sample(k, seed=2, rate=0.03)]
    assert not any(in_sample(k, seed=1, rate=0.0) for k in keys[:100])
    assert all(in_sample(k, seed=1, rate=1.0) for k in keys[:100])


@pytest.mark.parametrize("first", [["a", "b", "a"], ["x"]])
def test_kappa_edges(first: list[str]) -> None:
    from ragfunnel.analyzer.stats import cohen_kappa, kappa_interval

    assert cohen_kappa(first, first) == 1.0
    assert math.isnan(cohen_kappa([], []))
    assert kappa_interval(first, first).estimate == 1.0
