"""The offline correctness checks (judges/correctness.py): against a case's facts or reference."""

from __future__ import annotations

from ragfunnel.analyzer.judges.correctness import facts_correctness, reference_correctness
from tests.support.judge_pipeline import REFERENCE


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
